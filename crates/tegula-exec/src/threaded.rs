//! The threaded executor, on a rayon pool of the requested size: one pool job per task that
//! becomes ready; each job runs the ready task of lowest static rank (not necessarily the one
//! that made it), without holding the lock, then releases inputs whose last consumer this was
//! and starts a job for every consumer that became ready. Kernels split big blocks over the
//! same pool, so the process keeps one thread budget.

use crate::pool::pool;
use crate::state::{uses, Inputs, Memory};
use crate::Report;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Mutex;
use tegula_core::{internal_err, Result, TegulaError};
use tegula_kernels::Chunk;
use tegula_plan::order::static_order;
use tegula_plan::TaskGraph;

struct State {
    ready: BinaryHeap<Reverse<(usize, usize)>>,
    /// Inputs each task still waits for.
    waiting: Vec<usize>,
    left: Vec<usize>,
    results: Vec<Option<Chunk>>,
    error: Option<TegulaError>,
    memory: Memory,
}

/// What every job reads.
struct Run<'a> {
    graph: &'a TaskGraph,
    inputs: &'a Inputs<'a>,
    rank: Vec<usize>,
    consumers: Vec<Vec<usize>>,
    state: Mutex<State>,
}

pub fn run(graph: &TaskGraph, inputs: &Inputs, threads: usize) -> Result<(Vec<Option<Chunk>>, Report)> {
    let n = graph.tasks.len();
    let rank = static_order(graph);
    let waiting: Vec<usize> = graph.tasks.iter().map(|t| t.inputs.len()).collect();
    let ready: BinaryHeap<_> = (0..n).filter(|&t| waiting[t] == 0).map(|t| Reverse((rank[t], t))).collect();
    let first_jobs = ready.len();
    let state = State { ready, waiting, left: uses(graph), results: vec![None; n], error: None, memory: Memory::default() };
    let run = Run { graph, inputs, rank, consumers: graph.consumers(), state: Mutex::new(state) };
    pool(threads)?.scope(|scope| {
        for _ in 0..first_jobs {
            scope.spawn(|scope| job(scope, &run));
        }
    });
    let state = run.state.into_inner().map_err(|_| internal_err!("executor state poisoned"))?;
    if let Some(e) = state.error {
        return Err(e);
    }
    Ok((state.results, Report { tasks: n, peak_bytes: state.memory.peak }))
}

fn job<'a>(scope: &rayon::Scope<'a>, run: &'a Run<'a>) {
    let Ok(mut s) = run.state.lock() else { return };
    if s.error.is_some() {
        return;
    }
    let Some(Reverse((_, id))) = s.ready.pop() else {
        s.error.get_or_insert(internal_err!("a job found no ready task"));
        return;
    };
    let args: Vec<Chunk> = run.graph.tasks[id].inputs.iter().filter_map(|&i| s.results[i].clone()).collect();
    drop(s);
    let outcome = run.inputs.run(run.graph, id, &args);
    drop(args);
    let Ok(mut s) = run.state.lock() else { return };
    let chunk = match outcome {
        Ok(chunk) => chunk,
        Err(e) => {
            s.error.get_or_insert(e);
            return;
        }
    };
    s.memory.hold(chunk.nbytes());
    s.results[id] = Some(chunk);
    for &i in &run.graph.tasks[id].inputs {
        s.left[i] -= 1;
        if s.left[i] == 0 {
            if let Some(c) = s.results[i].take() {
                s.memory.release(c.nbytes());
            }
        }
    }
    let mut woke = 0;
    for &c in &run.consumers[id] {
        s.waiting[c] -= 1;
        if s.waiting[c] == 0 {
            s.ready.push(Reverse((run.rank[c], c)));
            woke += 1;
        }
    }
    drop(s);
    for _ in 0..woke {
        scope.spawn(|scope| job(scope, run));
    }
}
