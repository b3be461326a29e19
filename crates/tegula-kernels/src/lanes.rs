//! Folding a run of values with eight independent accumulators, so that the loop vectorises;
//! the run may arrive in pieces (a fused program's output, one cache-sized span at a time) and
//! is folded in the same order, so with the same rounding, as when it arrives whole.

/// Accumulators of a fold; pieces of a run (but the last) are multiples of this long.
pub(crate) const LANES: usize = 8;

/// Folds a slice (`None` when it is empty).
pub(crate) fn fold_slice<T: Copy>(s: &[T], f: impl Fn(T, T) -> T) -> Option<T> {
    fold_slice_map(s, |x| x, f)
}

/// Folds `map` of every element of a slice (`None` when it is empty).
pub(crate) fn fold_slice_map<T: Copy, U: Copy>(s: &[T], map: impl Fn(T) -> U, f: impl Fn(U, U) -> U) -> Option<U> {
    let mut fold = LaneFold::new(s.len());
    fold.push(s, &map, &f);
    fold.finish(&f)
}

/// The fold of a run of `len` values given in consecutive pieces, each but the last a multiple
/// of eight long. Runs of at least sixteen values start the lanes with their first eight, fold
/// rows of eight into them, combine the lanes, then fold the leftover tail; shorter runs fold
/// one value after another.
pub(crate) struct LaneFold<U> {
    len: usize,
    seen: usize,
    lanes: Option<[U; LANES]>,
    serial: Option<U>,
    tail: Vec<U>,
}

impl<U: Copy> LaneFold<U> {
    pub(crate) fn new(len: usize) -> LaneFold<U> {
        LaneFold { len, seen: 0, lanes: None, serial: None, tail: Vec::new() }
    }

    #[inline(always)]
    pub(crate) fn push<T: Copy>(&mut self, piece: &[T], map: impl Fn(T) -> U, f: impl Fn(U, U) -> U) {
        self.seen += piece.len();
        if self.len < 2 * LANES {
            for &x in piece {
                self.serial = Some(self.serial.map_or(map(x), |a| f(a, map(x))));
            }
            return;
        }
        let (mut lanes, body) = match self.lanes {
            Some(lanes) => (lanes, piece),
            None => (std::array::from_fn(|i| map(piece[i])), &piece[LANES..]),
        };
        let (rows, rest) = body.as_chunks::<LANES>();
        for row in rows {
            for i in 0..LANES {
                lanes[i] = f(lanes[i], map(row[i]));
            }
        }
        self.lanes = Some(lanes);
        self.tail.extend(rest.iter().map(|&x| map(x)));
    }

    /// The folded value; `None` for an empty run.
    pub(crate) fn finish(self, f: impl Fn(U, U) -> U) -> Option<U> {
        debug_assert_eq!(self.seen, self.len, "pieces must cover the run");
        match self.lanes {
            None => self.serial,
            Some(lanes) => {
                let combined = lanes[1..].iter().fold(lanes[0], |a, &x| f(a, x));
                Some(self.tail.iter().fold(combined, |a, &x| f(a, x)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented order, written plainly.
    fn reference(s: &[f64]) -> f64 {
        if s.len() < 2 * LANES {
            return s[1..].iter().fold(s[0], |a, &x| a + x);
        }
        let mut lanes = [0.0; LANES];
        lanes.copy_from_slice(&s[..LANES]);
        let rows = (s.len() - LANES) / LANES;
        for r in 0..rows {
            for i in 0..LANES {
                lanes[i] += s[LANES + r * LANES + i];
            }
        }
        let combined = lanes[1..].iter().fold(lanes[0], |a, &x| a + x);
        s[LANES + rows * LANES..].iter().fold(combined, |a, &x| a + x)
    }

    #[test]
    fn pieces_fold_like_the_whole_run() {
        // Values whose sums round differently in different orders.
        let values: Vec<f64> = (0..5000u64).map(|i| ((i * 2654435761) % 1000) as f64 * 1e-3 + (i % 7) as f64 * 1e12).collect();
        for len in [1, 7, 8, 15, 16, 17, 24, 63, 64, 513, 1000, 4096, 4999] {
            let s = &values[..len];
            let expected = reference(s);
            assert_eq!(fold_slice(s, |a, b| a + b), Some(expected), "len {len}");
            for piece in [8, 16, 512] {
                let mut fold = LaneFold::new(len);
                for p in s.chunks(piece) {
                    fold.push(p, |x| x, |a, b| a + b);
                }
                assert_eq!(fold.finish(|a, b| a + b), Some(expected), "len {len} pieces {piece}");
            }
        }
        assert_eq!(fold_slice::<f64>(&[], |a, b| a + b), None);
    }
}
