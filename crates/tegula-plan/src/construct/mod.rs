//! Building expression nodes: every constructor validates its arguments and infers the result's
//! shape, dtype and chunks, so a bad expression fails here — when it is written — not when it
//! is computed.

pub mod any_dtype;
pub mod calendar;
pub mod check;
pub mod creation;
pub mod device;
pub mod elementwise;
pub mod fft;
pub mod gather;
pub mod join;
pub mod layout;
pub mod linalg;
pub mod map_blocks;
pub mod mask;
pub mod matmul;
pub mod points;
pub mod reduce;
pub mod reshape;
pub mod sample_sort;
pub mod scan;
pub mod setitem;
pub mod sort;
pub mod store;
pub mod time;
pub mod windows;

/// The default fan-in of tree reductions.
pub const DEFAULT_SPLIT_EVERY: usize = 8;
