//! The threaded executor: workers take the ready task of lowest static rank, run it without
//! holding the lock, then release inputs whose last consumer this was and wake the consumers
//! that became ready.

use crate::state::{uses, Inputs, Memory};
use crate::Report;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Condvar, Mutex};
use tegula_core::{Result, TegulaError};
use tegula_kernels::Chunk;
use tegula_plan::order::static_order;
use tegula_plan::TaskGraph;

struct State {
    ready: BinaryHeap<Reverse<(usize, usize)>>,
    /// Inputs each task still waits for.
    waiting: Vec<usize>,
    left: Vec<usize>,
    results: Vec<Option<Chunk>>,
    finished: usize,
    error: Option<TegulaError>,
    memory: Memory,
}

pub fn run(graph: &TaskGraph, inputs: &Inputs, threads: usize) -> Result<(Vec<Option<Chunk>>, Report)> {
    let n = graph.tasks.len();
    let rank = static_order(graph);
    let consumers = graph.consumers();
    let waiting: Vec<usize> = graph.tasks.iter().map(|t| t.inputs.len()).collect();
    let ready = (0..n).filter(|&t| waiting[t] == 0).map(|t| Reverse((rank[t], t))).collect();
    let state = Mutex::new(State {
        ready,
        waiting,
        left: uses(graph),
        results: vec![None; n],
        finished: 0,
        error: None,
        memory: Memory::default(),
    });
    let wake = Condvar::new();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(n.max(1)) {
            scope.spawn(|| worker(graph, inputs, &state, &wake, &rank, &consumers));
        }
    });
    let state = state.into_inner().map_err(|_| TegulaError::Internal("executor state poisoned".into()))?;
    if let Some(e) = state.error {
        return Err(e);
    }
    Ok((state.results, Report { tasks: n, peak_bytes: state.memory.peak }))
}

fn worker(graph: &TaskGraph, inputs: &Inputs, state: &Mutex<State>, wake: &Condvar, rank: &[usize], consumers: &[Vec<usize>]) {
    let n = graph.tasks.len();
    let Ok(mut s) = state.lock() else { return };
    loop {
        if s.error.is_some() || s.finished == n {
            wake.notify_all();
            return;
        }
        let Some(Reverse((_, id))) = s.ready.pop() else {
            s = match wake.wait(s) {
                Ok(s) => s,
                Err(_) => return,
            };
            continue;
        };
        let args: Vec<Chunk> = graph.tasks[id].inputs.iter().filter_map(|&i| s.results[i].clone()).collect();
        drop(s);
        let outcome = inputs.run(graph, id, &args);
        drop(args);
        s = match state.lock() {
            Ok(s) => s,
            Err(_) => return,
        };
        match outcome {
            Err(e) => {
                s.error.get_or_insert(e);
                continue;
            }
            Ok(chunk) => {
                s.memory.hold(chunk.nbytes());
                s.results[id] = Some(chunk);
            }
        }
        s.finished += 1;
        for &i in &graph.tasks[id].inputs {
            s.left[i] -= 1;
            if s.left[i] == 0 {
                if let Some(c) = s.results[i].take() {
                    s.memory.release(c.nbytes());
                }
            }
        }
        let mut woke = 0;
        for &c in &consumers[id] {
            s.waiting[c] -= 1;
            if s.waiting[c] == 0 {
                s.ready.push(Reverse((rank[c], c)));
                woke += 1;
            }
        }
        for _ in 1..woke {
            wake.notify_one();
        }
    }
}
