//! The public Rust API's integration tests, one module per concept, linked into one test
//! binary (each binary links the whole crate; one is much quicker to build than ten).
//! `persist` stays a binary of its own: it reads the process's count of kept bytes.

mod cluster;
mod devices;
mod einsum;
mod executors;
mod fft;
mod fragments;
mod histograms;
mod hosted;
mod linalg;
mod linalg_functions;
mod map_blocks;
mod nan_reductions;
mod observe;
mod overlap;
mod pad;
mod points;
mod random_transforms;
mod reshape;
mod searching;
mod sets;
mod statistics;
mod sort;
mod store;
mod times;
mod windows;
