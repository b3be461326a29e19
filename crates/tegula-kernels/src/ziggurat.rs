//! Standard normal values by Marsaglia and Tsang's ziggurat: the area under the half bell
//! `exp(-x²/2)` is covered by 256 stacked layers of equal area — rectangles, the bottom one
//! with the tail beyond `TAIL_START` attached. One random word picks a layer (8 bits), a sign
//! (1 bit) and a point across the layer (52 bits); about 99% of points fall where the layer
//! lies wholly under the curve, and cost a table lookup and a multiply. The rest test the
//! curve (a wedge) or sample the tail with more words, and retry on a miss.
//!
//! The tables are built once with the `libm` crate, and the rare paths use it too, so every
//! value is the same on every CPU.

use std::sync::OnceLock;

const LAYERS: usize = 256;
/// Where the tail begins, and the area of each layer, for 256 layers (from Marsaglia and
/// Tsang's paper, "The Ziggurat Method for Generating Random Variables", 2000).
const TAIL_START: f64 = 3.654_152_885_361_009;
const LAYER_AREA: f64 = 4.928_673_233_99e-3;
/// 2⁵², the range of the 52 bits that place a point across a layer.
const SPAN: f64 = 4_503_599_627_370_496.0;

pub(crate) struct Ziggurat {
    /// A point `m` (of 2⁵²) across layer `i` is inside the curve at every height when
    /// `m < inner[i]`.
    inner: [u64; LAYERS],
    /// Layer `i`'s width over 2⁵²: the point's abscissa is `m · scale[i]`.
    scale: [f64; LAYERS],
    /// The half bell's height at the layer's outer edge, `f(x_i)` (bottom of layer `i`), and at
    /// its inner edge, `f(x_{i+1})` (top), where layer `i` spans `0 ≤ x < x_i`.
    bottom: [f64; LAYERS],
    top: [f64; LAYERS],
}

fn bell(x: f64) -> f64 {
    libm::exp(-0.5 * x * x)
}

/// The shared tables.
pub(crate) fn ziggurat() -> &'static Ziggurat {
    static TABLES: OnceLock<Ziggurat> = OnceLock::new();
    TABLES.get_or_init(Ziggurat::new)
}

impl Ziggurat {
    fn new() -> Ziggurat {
        // Edges x_0 > x_1 = TAIL_START > … > x_255 > x_256 = 0. The bottom layer is a rectangle
        // of height f(x_1) plus the tail: its virtual width x_0 gives it the common area. Every
        // other layer i is the rectangle 0..x_i between heights f(x_i) and f(x_{i+1}).
        let mut edge = [0.0f64; LAYERS + 1];
        edge[0] = LAYER_AREA / bell(TAIL_START);
        edge[1] = TAIL_START;
        for i in 1..LAYERS - 1 {
            edge[i + 1] = libm::sqrt(-2.0 * libm::log(LAYER_AREA / edge[i] + bell(edge[i])));
        }
        let mut z = Ziggurat { inner: [0; LAYERS], scale: [0.0; LAYERS], bottom: [0.0; LAYERS], top: [0.0; LAYERS] };
        for i in 0..LAYERS {
            z.inner[i] = (edge[i + 1] / edge[i] * SPAN) as u64;
            z.scale[i] = edge[i] / SPAN;
            z.bottom[i] = bell(edge[i]);
            z.top[i] = bell(edge[i + 1]);
        }
        z
    }

    /// A standard normal value from the random word `word`, drawing more words from `more`
    /// only for the ~1% of words whose point needs a test against the curve or the tail.
    #[inline(always)]
    pub(crate) fn sample(&self, word: u64, more: impl FnMut() -> u64) -> f64 {
        let (layer, m, x) = self.point(word);
        if m < self.inner[layer] {
            return with_sign(x, word);
        }
        self.sample_rare(word, more)
    }

    /// The layer a word picks, its point across the layer (of 2⁵²), and the point's abscissa.
    #[inline(always)]
    fn point(&self, word: u64) -> (usize, u64, f64) {
        let layer = (word & 0xFF) as usize;
        let m = word >> 12;
        // m < 2⁵², so the signed conversion (one instruction on x86-64) is exact.
        (layer, m, (m as i64) as f64 * self.scale[layer])
    }

    #[cold]
    fn sample_rare(&self, mut word: u64, mut more: impl FnMut() -> u64) -> f64 {
        loop {
            let (layer, m, x) = self.point(word);
            if m < self.inner[layer] {
                return with_sign(x, word);
            }
            if layer == 0 {
                return with_sign(self.tail(&mut more), word);
            }
            let height = self.bottom[layer] + open_unit(more()) * (self.top[layer] - self.bottom[layer]);
            if height < bell(x) {
                return with_sign(x, word);
            }
            word = more();
        }
    }

    /// A value of the tail beyond `TAIL_START` (Marsaglia's method: exponential proposals).
    fn tail(&self, more: &mut impl FnMut() -> u64) -> f64 {
        loop {
            let a = -libm::log(open_unit(more())) / TAIL_START;
            let b = -libm::log(open_unit(more()));
            if b + b > a * a {
                return TAIL_START + a;
            }
        }
    }
}

/// `x` negated when the word's sign bit (bit 8) is set.
#[inline(always)]
fn with_sign(x: f64, word: u64) -> f64 {
    f64::from_bits(x.to_bits() | ((word & 0x100) << 55))
}

/// A uniform double in (0, 1]: 53 random bits, never zero (logarithms take it).
fn open_unit(word: u64) -> f64 {
    ((word >> 11) + 1) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_stack_to_the_top_of_the_bell() {
        let z = ziggurat();
        // The recurrence ends with a top layer of (nearly) the common area reaching f(0) = 1.
        let top = LAYERS - 1;
        let width = z.scale[top] * SPAN;
        assert!((width * (1.0 - z.bottom[top]) / LAYER_AREA - 1.0).abs() < 1e-6, "{width}");
        assert_eq!(z.top[top], 1.0);
        for i in 1..LAYERS {
            // Narrower layers above, each covering the heights the one below leaves.
            assert!(z.scale[i] < z.scale[i - 1] && z.bottom[i] == z.top[i - 1], "layer {i}");
        }
    }
}
