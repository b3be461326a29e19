//! A plan for a cluster (`tegula::cluster::ClusterPlan`) as the runner of a hosted executor sees it
//! (`hosted.rs`): the fragments as bytes with the node each runs on, the blocks of the
//! caller's arrays to give the nodes, and the tasks whose blocks are the results; and
//! `simulate`, a plan's simulated cost under tegula's placement or the block-cyclic baseline.

use crate::array::PyArrayHandle;
use crate::convert::chunk_to_numpy;
use crate::errors::IntoPy;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::Mutex;
use tegula::{Array, cluster::{Admission, ClusterPlan, Dispatch, Nodes, Placer}};

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

    /// The bytes of the blocks each fragment makes for others or returns, together.
    fn output_bytes(&self) -> Vec<usize> {
        self.inner.output_bytes()
    }

    /// (task id, node) of each block of the caller's arrays that fragments read.
    fn given(&self) -> Vec<(usize, usize)> {
        self.inner.given()
    }

    /// The block of given task `task`, as a new NumPy array.
    fn given_block<'py>(&self, py: Python<'py>, task: usize) -> PyResult<Bound<'py, PyAny>> {
        chunk_to_numpy(py, self.inner.given_block(task).py()?)
    }

    /// Each node's simulated peak of bytes held, running the fragments in plan order.
    fn peaks(&self) -> Vec<usize> {
        self.inner.simulation.nodes.iter().map(|n| n.peak_bytes).collect()
    }

    /// The task ids of each array's blocks, row-major over its block grid.
    fn outputs(&self) -> Vec<Vec<usize>> {
        self.inner.outputs()
    }

    /// The dispatch of the fragments (`tegula::cluster::Dispatch`): per node at most
    /// `slots[node]` running within `memory[node]` bytes; or, with `pooled`, at most that many
    /// anywhere; or, with `whole`, all at once. Results are fetched in batches of
    /// `fetch_batch` bytes (None: at the end).
    #[pyo3(signature = (slots=None, memory=None, pooled=None, whole=false, fetch_batch=None))]
    fn dispatch(
        &self,
        slots: Option<Vec<usize>>,
        memory: Option<Vec<Option<usize>>>,
        pooled: Option<usize>,
        whole: bool,
        fetch_batch: Option<usize>,
    ) -> PyResult<PyDispatch> {
        let admission = match (slots, memory, pooled) {
            _ if whole => Admission::Whole,
            (_, _, Some(count)) => Admission::Pooled(count),
            (Some(slots), Some(memory), None) => Admission::PerNode { slots, memory },
            _ => return Err(PyValueError::new_err("dispatch: give slots and memory per node, pooled, or whole")),
        };
        let inner = self.inner.dispatch(admission, fetch_batch).py()?;
        Ok(PyDispatch { inner: Mutex::new(inner) })
    }
}

/// The dispatch of a plan's fragments, for an engine's adapter: `start()` gives the next
/// fragment to start (None: wait for one to end, or all started), `ended(k, sizes)` the
/// blocks to let go of and the results to fetch now.
#[pyclass(frozen, name = "Dispatch")]
pub struct PyDispatch {
    inner: Mutex<Dispatch>,
}

impl PyDispatch {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Dispatch>> {
        self.inner.lock().map_err(|_| PyValueError::new_err("a dispatch panicked"))
    }
}

#[pymethods]
impl PyDispatch {
    /// The next fragment to start, or None.
    fn start(&self) -> PyResult<Option<usize>> {
        Ok(self.lock()?.start())
    }

    /// Fragment `k` ended with output blocks of `sizes` bytes: (blocks to let go of, results
    /// to fetch now).
    fn ended(&self, k: usize, sizes: Vec<usize>) -> PyResult<(Vec<usize>, Vec<usize>)> {
        let ended = self.lock()?.ended(k, &sizes).py()?;
        Ok((ended.let_go, ended.fetch))
    }

    /// Results not handed to a fetch yet.
    fn unfetched(&self) -> PyResult<Vec<usize>> {
        Ok(self.lock()?.unfetched())
    }

    /// The fragments running.
    fn running(&self) -> PyResult<Vec<usize>> {
        Ok(self.lock()?.running())
    }

    /// Whether every fragment has started.
    fn started_all(&self) -> PyResult<bool> {
        Ok(self.lock()?.started_all())
    }
}

/// How `arrays`, computed together, would run on `nodes` nodes of `node_memory` bytes each
/// (default: the budget, `memory`) with their fragments placed by `placement` ("tegula", or
/// the "block-cyclic" baseline): the simulation as a dict (`simulation_dict`) and `fragments`,
/// their count; with `lose_node`, `node_loss`: what losing that node once half the fragments
/// have run costs (`ClusterPlan::node_loss`), results fetched in batches of `fetch_batch`
/// bytes as they are made (as the Ray executor does; None: at the end). Plans only; nothing
/// is computed.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
#[pyo3(signature = (arrays, nodes, node_memory=None, memory=None, placement="tegula", lose_node=None, fetch_batch=None))]
pub fn simulate<'py>(
    py: Python<'py>,
    arrays: Vec<PyRef<'py, PyArrayHandle>>,
    nodes: usize,
    node_memory: Option<usize>,
    memory: Option<usize>,
    placement: &str,
    lose_node: Option<usize>,
    fetch_batch: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let placer = Placer::from_name(placement).ok_or_else(|| {
        let names: Vec<&str> = Placer::ALL.iter().map(|p| p.name()).collect();
        PyValueError::new_err(format!("unknown placement {placement:?}; one of {names:?}"))
    })?;
    let spec = crate::options::spec(memory, None)?;
    let nodes = Nodes { count: nodes, memory: node_memory.unwrap_or(spec.memory) };
    let handles: Vec<&Array> = arrays.iter().map(|a| &a.inner).collect();
    let plan = py.detach(|| tegula::cluster::plan_cluster_with(&handles, true, &spec, nodes, placer)).py()?;
    let out = crate::options::simulation_dict(py, &plan.simulation)?;
    out.set_item("fragments", plan.fragments.len())?;
    if let Some(node) = lose_node {
        if node >= nodes.count {
            return Err(PyValueError::new_err(format!("node {node} lost, but the cluster has {} nodes", nodes.count)));
        }
        let loss = py.detach(|| plan.node_loss(node, fetch_batch));
        let lost = PyDict::new(py);
        lost.set_item("redone_fragments", loss.redone_fragments)?;
        lost.set_item("redone_work", loss.redone_work)?;
        lost.set_item("node_work", loss.node_work)?;
        lost.set_item("moved_fragments", loss.moved_fragments)?;
        out.set_item("node_loss", lost)?;
    }
    Ok(out)
}

