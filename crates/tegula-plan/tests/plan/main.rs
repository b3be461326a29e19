//! The planner's integration tests, one module per concept, linked into one test binary.

mod fragments;
mod fusion;
mod gather;
mod join;
mod lowering;
mod ordering;
mod read_units;
mod reshape;
mod store;
