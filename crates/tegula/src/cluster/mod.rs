//! A computation planned for a cluster of nodes: its fragments as bytes (`tegula_exec::Fragment`),
//! each with the node it runs on (`tegula_plan::placement`), the blocks of the caller's arrays
//! given once each to the node they are placed on, and the placement's simulated cost. What a
//! cluster executor (Ray, dask.distributed) ships; it runs each fragment with
//! `tegula_exec::run_fragment` where it is placed. A distributed engine becomes an executor as
//! a [`ClusterRunner`] ([`register_hosted_executor`]): planning, re-planning when nodes leave
//! and reporting are the [`HostedExecutor`]'s.

mod hosted;
mod plan;

pub use crate::fragments::{plan_fragments, EncodedFragment};
pub use hosted::{register_hosted_executor, ClusterRunner, FragmentProgress, HostedExecutor, RunnerOutput};
pub use plan::{plan_cluster, plan_cluster_with, ClusterPlan, Nodes};
pub use tegula_exec::fragment::set_function_decoder;
pub use tegula_exec::{run_fragment, serve, set_callback_encoder, Admission, ClusterReport, Dispatch, DispatchJob, Ended, Fragment, FunctionBytes};
pub use tegula_plan::placement::{NodeLoad, Placement, Placer, Simulation};
