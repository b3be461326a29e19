//! Counter-based random numbers: the value of an element is a hash of the stream key and the
//! element's flat position in the whole array, so it never depends on the chunking or on the
//! order blocks are computed in. The hash is two rounds of SplitMix64's finaliser.

use crate::chunk::{Chunk, Wrap};
use crate::element::Elem;
use crate::with_dtype;
use ndarray::{ArrayD, IxDyn};
use tegula_core::{DType, Distribution, Result, TegulaError};

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream key of call number `stream` of a generator seeded with `seed`.
pub fn stream_key(seed: u64, stream: u64) -> u64 {
    mix64(mix64(seed ^ 0x7465_6775_6C61).wrapping_add(stream.wrapping_mul(GAMMA)))
}

#[inline(always)]
fn bits(key: u64, counter: u64) -> u64 {
    mix64(mix64(counter.wrapping_mul(GAMMA).wrapping_add(key)) ^ key.rotate_left(32))
}

/// A uniform double in [0, 1) with 53 random bits.
#[inline(always)]
fn unit(key: u64, counter: u64) -> f64 {
    (bits(key, counter) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Where one block sits in the whole array.
pub struct BlockPlace<'a> {
    pub array_shape: &'a [usize],
    pub start: &'a [usize],
    pub shape: &'a [usize],
}

pub fn random(key: u64, dist: Distribution, dtype: DType, place: &BlockPlace) -> Result<Chunk> {
    let flat = flat_positions(place);
    match dist {
        Distribution::Uniform { low, high } if dtype == DType::Float32 => {
            let value = |g: u64| ((bits(key, g) >> 40) as f32 * (1.0 / (1u32 << 24) as f32)) * (high - low) as f32 + low as f32;
            build(place.shape, flat, value)
        }
        Distribution::Uniform { low, high } => {
            with_dtype!(dtype, T => build(place.shape, flat, |g| T::from_f64(unit(key, g) * (high - low) + low)))
        }
        Distribution::Normal { loc, scale } => with_dtype!(dtype, T => build(place.shape, flat, |g| {
            // Box-Muller from two uniforms at counters 2g and 2g+1.
            let (u1, u2) = (1.0 - unit(key, 2 * g), unit(key, 2 * g + 1));
            T::from_f64(loc + scale * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos())
        })),
        Distribution::Integers { low, high } => {
            let range = (high - low) as u128;
            with_dtype!(dtype, T => build(place.shape, flat, |g| {
                T::from_i128(low + ((bits(key, g) as u128 * range) >> 64) as i128)
            }))
        }
    }
}

/// The flat position in the whole array of the first element of every row (last axis) of the
/// block; elements of a row are consecutive.
fn flat_positions(place: &BlockPlace) -> Vec<u64> {
    let nd = place.shape.len();
    if nd == 0 {
        return vec![0];
    }
    let mut strides = vec![1u64; nd];
    for i in (0..nd - 1).rev() {
        strides[i] = strides[i + 1] * place.array_shape[i + 1] as u64;
    }
    let outer: Vec<usize> = place.shape[..nd - 1].to_vec();
    let rows: usize = outer.iter().product();
    (0..rows)
        .map(|r| {
            let mut rem = r;
            let mut pos = place.start[nd - 1] as u64 * strides[nd - 1];
            for i in (0..nd - 1).rev() {
                let idx = rem % outer[i].max(1);
                rem /= outer[i].max(1);
                pos += (place.start[i] + idx) as u64 * strides[i];
            }
            pos
        })
        .collect()
}

fn build<T: Elem + Wrap>(shape: &[usize], rows: Vec<u64>, value: impl Fn(u64) -> T) -> Result<Chunk> {
    let row_len = shape.last().copied().unwrap_or(1) as u64;
    let mut data = Vec::with_capacity(rows.len() * row_len as usize);
    for start in rows {
        data.extend((start..start + row_len).map(&value));
    }
    let array = ArrayD::from_shape_vec(IxDyn(shape), data)
        .map_err(|e| TegulaError::Internal(format!("random block: {e}")))?;
    Ok(T::wrap(array.into_shared()))
}
