//! A plan for a cluster (`tegula::ClusterPlan`) as the runner of a hosted executor sees it
//! (`hosted.rs`): the fragments as bytes with the node each runs on, the blocks of the
//! caller's arrays to give the nodes, and the tasks whose blocks are the results.

use crate::convert::chunk_to_numpy;
use crate::errors::IntoPy;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use tegula::{ClusterPlan, Simulation};

#[pyclass(frozen, name = "ClusterPlan")]
pub struct PyClusterPlan {
    inner: ClusterPlan,
}

impl From<ClusterPlan> for PyClusterPlan {
    fn from(inner: ClusterPlan) -> PyClusterPlan {
        PyClusterPlan { inner }
    }
}

#[pymethods]
impl PyClusterPlan {
    /// (bytes, input task ids, output task ids, node, bytes needed at once) per fragment, in
    /// an order where each one's inputs come from earlier ones or are given blocks.
    #[allow(clippy::type_complexity)]
    fn fragments<'py>(&self, py: Python<'py>) -> Vec<(Bound<'py, PyBytes>, Vec<usize>, Vec<usize>, usize, usize)> {
        let plan = &self.inner;
        let placed = plan.fragments.iter().zip(&plan.placement.fragment_node).zip(&plan.needs);
        placed.map(|((f, &node), &need)| (PyBytes::new(py, &f.bytes), f.inputs.clone(), f.outputs.clone(), node, need)).collect()
    }

    /// (task id, node) of each block of the caller's arrays that fragments read.
    fn given(&self) -> Vec<(usize, usize)> {
        self.inner.given()
    }

    /// The block of given task `task`, as a new NumPy array.
    fn given_block<'py>(&self, py: Python<'py>, task: usize) -> PyResult<Bound<'py, PyAny>> {
        chunk_to_numpy(py, self.inner.given_block(task).py()?)
    }

    /// The task ids of each array's blocks, row-major over its block grid.
    fn outputs(&self) -> Vec<Vec<usize>> {
        self.inner.outputs()
    }
}

/// A simulation as a dict: `bytes_between_nodes`, `bytes_given`, `bytes_returned` and `nodes`,
/// a list of per-node dicts.
pub fn simulation_dict<'py>(py: Python<'py>, sim: &Simulation) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("bytes_between_nodes", sim.bytes_between_nodes)?;
    out.set_item("bytes_given", sim.bytes_given)?;
    out.set_item("bytes_returned", sim.bytes_returned)?;
    let nodes = sim
        .nodes
        .iter()
        .map(|n| {
            let d = PyDict::new(py);
            d.set_item("fragments", n.fragments)?;
            d.set_item("bytes_made", n.bytes_made)?;
            d.set_item("bytes_in", n.bytes_in)?;
            d.set_item("bytes_out", n.bytes_out)?;
            d.set_item("peak_bytes", n.peak_bytes)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    out.set_item("nodes", nodes)?;
    Ok(out)
}
