//! Plans for a cluster (`tegula::plan_cluster`), for executors hosted by a distributed engine
//! in Python (Ray): the fragments as bytes with the node each runs on, the blocks of the
//! caller's arrays to give the nodes, the simulated cost, and joining results into arrays.

use crate::array::PyArrayHandle;
use crate::convert::{chunk_from_numpy, chunk_to_numpy};
use crate::errors::IntoPy;
use crate::options::spec;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use tegula::{Array, ClusterPlan, Nodes, Simulation};

#[pyclass(frozen, name = "ClusterPlan")]
pub struct PyClusterPlan {
    inner: ClusterPlan,
}

/// The plan computing `arrays` on `nodes` nodes of `node_memory` bytes each.
#[pyfunction]
#[pyo3(signature = (arrays, nodes, node_memory, fuse=true, memory=None))]
pub fn plan_cluster(
    py: Python<'_>,
    arrays: Vec<PyRef<'_, PyArrayHandle>>,
    nodes: usize,
    node_memory: usize,
    fuse: bool,
    memory: Option<usize>,
) -> PyResult<PyClusterPlan> {
    let inputs: Vec<&Array> = arrays.iter().map(|a| &a.inner).collect();
    let spec = spec(memory, None)?;
    let nodes = Nodes { count: nodes, memory: node_memory };
    let inner = py.detach(|| tegula::plan_cluster(&inputs, fuse, &spec, nodes)).py()?;
    Ok(PyClusterPlan { inner })
}

#[pymethods]
impl PyClusterPlan {
    /// (bytes, input task ids, output task ids, node) per fragment, in an order where each
    /// one's inputs come from earlier ones or are given blocks.
    #[allow(clippy::type_complexity)]
    fn fragments<'py>(&self, py: Python<'py>) -> Vec<(Bound<'py, PyBytes>, Vec<usize>, Vec<usize>, usize)> {
        let nodes = &self.inner.placement.fragment_node;
        self.inner
            .fragments
            .iter()
            .zip(nodes)
            .map(|(f, &node)| (PyBytes::new(py, &f.bytes), f.inputs.clone(), f.outputs.clone(), node))
            .collect()
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

    /// Array `index` joined from its blocks (NumPy arrays, in the order `outputs` names them).
    fn assemble<'py>(&self, py: Python<'py>, index: usize, blocks: Vec<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        let blocks = blocks.iter().map(chunk_from_numpy).collect::<PyResult<Vec<_>>>()?;
        let joined = py.detach(|| self.inner.assemble(index, blocks)).py()?;
        chunk_to_numpy(py, joined)
    }

    /// What the placement moves and holds: a dict with `bytes_between_nodes`, `bytes_given`,
    /// `bytes_returned` and `nodes`, a list of per-node dicts.
    fn simulation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        simulation_dict(py, &self.inner.simulation)
    }

    fn __str__(&self) -> String {
        self.inner.simulation.to_string()
    }
}

fn simulation_dict<'py>(py: Python<'py>, sim: &Simulation) -> PyResult<Bound<'py, PyDict>> {
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
