//! Fusion, a rewrite of the task graph: a chain of element-wise tasks, the sources feeding it
//! (constants, ranges, random numbers) and a partial reduction consuming it become
//! one task that evaluates a `Program` in a single pass over its inputs. A task is absorbed
//! only when its result has no other consumer (and is not an output), so no work is repeated.
//! Absorbed tasks are culled.

use crate::graph::{TaskGraph, TaskId};
use crate::lower::cull;
use std::collections::HashMap;
use tegula_core::program::{Instr, Program};
use tegula_core::OpKind;

/// The graph with element-wise chains fused.
pub fn fuse(mut graph: TaskGraph) -> TaskGraph {
    let uses = distinct_uses(&graph);
    for id in 0..graph.tasks.len() {
        let task = &graph.tasks[id];
        let rewritten = match &task.op {
            OpKind::Unary { .. } | OpKind::Binary { .. } | OpKind::Where { .. } | OpKind::Cast { .. } => {
                Some(fuse_elementwise(&graph, id, &uses))
            }
            OpKind::ReducePartial { op, axes } if !axes.is_empty() => fuse_reduction(&graph, id, &uses)
                .map(|(program, inputs, shape)| (OpKind::FusedReduce { program, op: *op, axes: axes.clone(), shape }, inputs)),
            _ => None,
        };
        if let Some((op, inputs)) = rewritten {
            graph.tasks[id].op = op;
            graph.tasks[id].inputs = inputs;
        }
    }
    cull(graph)
}

/// How many distinct tasks read each task's result; outputs count as one more reader.
fn distinct_uses(graph: &TaskGraph) -> Vec<usize> {
    let mut uses = vec![0; graph.tasks.len()];
    for t in &graph.tasks {
        let mut seen: Vec<TaskId> = t.inputs.clone();
        seen.sort_unstable();
        seen.dedup();
        seen.into_iter().for_each(|i| uses[i] += 1);
    }
    for o in &graph.outputs {
        o.blocks.iter().for_each(|&b| uses[b] += 1);
    }
    uses
}

/// Builds a program from the steps of the tasks it absorbs.
struct Builder<'g> {
    graph: &'g TaskGraph,
    uses: &'g [usize],
    shape: &'g [usize],
    program: Program,
    inputs: Vec<TaskId>,
    /// The step that already computes a task's value.
    step_of: HashMap<TaskId, usize>,
}

impl<'g> Builder<'g> {
    fn new(graph: &'g TaskGraph, uses: &'g [usize], shape: &'g [usize]) -> Builder<'g> {
        Builder { graph, uses, shape, program: Program::default(), inputs: Vec::new(), step_of: HashMap::new() }
    }

    /// The step holding the value of task `t`, absorbing `t` when it can.
    fn value(&mut self, t: TaskId) -> usize {
        if let Some(&s) = self.step_of.get(&t) {
            return s;
        }
        let task = &self.graph.tasks[t];
        let exclusive = self.uses[t] == 1 && task.shape == self.shape;
        let step = match &task.op {
            OpKind::Full { value, .. } if task.shape.iter().product::<usize>() == 1 => {
                self.program.push(Instr::Scalar(*value), task.dtype)
            }
            OpKind::Fused { program, .. } if exclusive => self.splice(program, &task.inputs),
            OpKind::Full { .. } | OpKind::Arange { .. } | OpKind::Linspace { .. } | OpKind::Random { .. } if exclusive => {
                self.program.push(Instr::Source(task.op.clone()), task.dtype)
            }
            _ => {
                self.inputs.push(t);
                self.program.push(Instr::Input(self.inputs.len() - 1), task.dtype)
            }
        };
        self.step_of.insert(t, step);
        step
    }

    /// Copies another program's steps, renumbered, reading its inputs through `value`.
    fn splice(&mut self, program: &Program, inputs: &[TaskId]) -> usize {
        let mut map = Vec::with_capacity(program.steps.len());
        for step in &program.steps {
            let at = |i: usize| map[i];
            let new = match &step.instr {
                Instr::Input(i) => self.value(inputs[*i]),
                Instr::Unary { op, compute, arg } => {
                    self.program.push(Instr::Unary { op: *op, compute: *compute, arg: at(*arg) }, step.dtype)
                }
                Instr::Binary { op, compute, args } => self.program.push(
                    Instr::Binary { op: *op, compute: *compute, args: [at(args[0]), at(args[1])] },
                    step.dtype,
                ),
                Instr::Where { compute, args } => self.program.push(
                    Instr::Where { compute: *compute, args: [at(args[0]), at(args[1]), at(args[2])] },
                    step.dtype,
                ),
                Instr::Cast { arg } => self.program.push(Instr::Cast { arg: at(*arg) }, step.dtype),
                other => self.program.push(other.clone(), step.dtype),
            };
            map.push(new);
        }
        map.last().copied().unwrap_or(0)
    }
}

fn fuse_elementwise(graph: &TaskGraph, id: TaskId, uses: &[usize]) -> (OpKind, Vec<TaskId>) {
    let task = &graph.tasks[id];
    let mut b = Builder::new(graph, uses, &task.shape);
    let args: Vec<usize> = task.inputs.iter().map(|&i| b.value(i)).collect();
    let instr = match &task.op {
        OpKind::Unary { op, compute } => Instr::Unary { op: *op, compute: *compute, arg: args[0] },
        OpKind::Binary { op, compute } => Instr::Binary { op: *op, compute: *compute, args: [args[0], args[1]] },
        OpKind::Where { compute } => Instr::Where { compute: *compute, args: [args[0], args[1], args[2]] },
        _ => Instr::Cast { arg: args[0] },
    };
    b.program.push(instr, task.dtype);
    (OpKind::Fused { program: b.program, shape: task.shape.clone() }, b.inputs)
}

/// A partial reduction of an exclusively consumed fused task or source.
fn fuse_reduction(graph: &TaskGraph, id: TaskId, uses: &[usize]) -> Option<(Program, Vec<TaskId>, Vec<usize>)> {
    let input = graph.tasks[id].inputs[0];
    let source = &graph.tasks[input];
    let fusable = matches!(source.op, OpKind::Fused { .. } | OpKind::Random { .. } | OpKind::Arange { .. } | OpKind::Linspace { .. });
    if !fusable || uses[input] != 1 {
        return None;
    }
    let mut b = Builder::new(graph, uses, &source.shape);
    b.value(input);
    Some((b.program, b.inputs, source.shape.clone()))
}
