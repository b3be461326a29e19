//! tegula-kernels: what happens inside one chunk. `Chunk` holds one block of any tegula dtype
//! (a `Block`: a read-only `ndarray` view over memory its owner keeps alive, Rust's or a NumPy
//! array's, so slices and transposes share data and inputs need no copy); `run` computes any
//! `KernelOp` on the CPU, `generate` any `SourceOp`. Kernels know nothing of graphs, schedules
//! or storage.

#![deny(missing_docs)]

mod ahead;
mod band_svd;
pub mod assemble;
pub mod binary;
pub mod blas;
pub mod bitcast;
mod bucket_search;
pub mod buckets;
pub mod chunk;
pub mod device_block;
mod cmath;
pub mod complex;
pub mod drawn;
pub mod element;
pub mod factorise;
pub mod fft;
mod field;
mod float_fn;
pub mod fused;
pub mod gather;
mod lanes;
pub mod layout;
pub mod linalg;
pub mod matmul;
pub mod moving;
pub mod order;
mod panel_cholesky;
mod panel_lu;
pub mod parts;
pub mod parallel;
pub mod radix;
pub mod random;
pub mod raw;
pub mod reduce;
pub mod reduce_f64;
mod reduce_order;
mod rejection;
mod row_major;
pub mod run;
pub mod scan;
mod scaling;
mod select;
mod shifted_moments;
pub mod sort;
mod strided;
mod tall_qr;
pub mod source;
mod tape;
pub mod tiles;
pub mod unary;
mod vecmath;
#[cfg(target_arch = "x86_64")]
mod vector_sort;
mod ziggurat;
mod zip;

pub use chunk::{Block, Chunk, Wrap};
pub use device_block::DeviceBlock;
pub use element::Elem;
pub use random::stream_key;
pub use run::{generate, run};
