//! The reference executor: one task at a time in static order, on a pool of one thread (so
//! kernels split nothing across threads).

use crate::state::{uses, Inputs, Memory};
use crate::Report;
use tegula_core::Result;
use tegula_kernels::Chunk;
use tegula_plan::order::static_order;
use tegula_plan::TaskGraph;

pub fn run(graph: &TaskGraph, inputs: &Inputs) -> Result<(Vec<Option<Chunk>>, Report)> {
    crate::pool::pool(1)?.install(|| run_in_order(graph, inputs))
}

fn run_in_order(graph: &TaskGraph, inputs: &Inputs) -> Result<(Vec<Option<Chunk>>, Report)> {
    let rank = static_order(graph);
    let mut order: Vec<usize> = (0..graph.tasks.len()).collect();
    order.sort_by_key(|&t| rank[t]);
    let mut left = uses(graph);
    let mut results: Vec<Option<Chunk>> = vec![None; graph.tasks.len()];
    let mut memory = Memory::default();
    for id in order {
        let args: Vec<Chunk> = graph.tasks[id].inputs.iter().filter_map(|&i| results[i].clone()).collect();
        let chunk = inputs.run(graph, id, &args)?;
        memory.hold(chunk.nbytes());
        results[id] = Some(chunk);
        drop(args);
        for &i in &graph.tasks[id].inputs {
            left[i] -= 1;
            if left[i] == 0 {
                if let Some(c) = results[i].take() {
                    memory.release(c.nbytes());
                }
            }
        }
    }
    Ok((results, Report { tasks: graph.tasks.len(), peak_bytes: memory.peak }))
}
