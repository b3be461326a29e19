//! The float64 fast path of fused programs. A program whose every step is a float64 value
//! (the common case of numeric expressions) is compiled once per block into straight-line
//! code over a few registers of `SUB` elements, small enough to stay in L1 cache: inputs are
//! read where they lie, constants are never materialised, registers are reused once their
//! value is dead, and nothing is allocated per tile. Each step runs the same element function
//! as the block kernels (`float_fn`), so results are bit-identical to unfused plans.
//! Booleans made on the way to a float64 result (comparisons, their logical combinations,
//! `where`'s condition, `mask.mean()`'s cast) ride along as 0.0 and 1.0: the values casting a
//! bool to float64 gives, so every later step reads what the block kernels would.

use crate::chunk::Chunk;
use crate::element::Elem;
use crate::float_fn::{beyond_vecmath, float_binary_fn, float_unary_fn};
use crate::vecmath;
use crate::source::source_tile;
use crate::random::{random_into, BlockPlace};
use crate::strided::Strided;
use crate::tiles::flatten;
use tegula_core::program::{FusedBlock, Instr, Program};
use tegula_core::{internal_err, BinaryOp, DType, SourceOp, Result, UnaryOp};

/// Elements per register: 4 KB of float64, so a dozen live registers fit in L1 cache.
const SUB: usize = 512;

/// Where a step's value is: a constant, a row-major input block (read in place) or a register.
#[derive(Debug, Clone, Copy)]
enum Loc {
    Const(f64),
    Input(usize),
    Reg(usize),
}

/// One instruction, writing its register.
#[derive(Debug)]
enum Code<'a> {
    Unary(UnaryOp, Loc),
    Binary(BinaryOp, Loc, Loc),
    /// `where(condition, a, b)`, the condition 0.0 or 1.0.
    Where(Loc, Loc, Loc),
    Source(&'a SourceOp),
    /// The values of strided input `i`.
    Gather(usize),
}

/// A program compiled for one block.
pub struct Tape<'a> {
    shape: &'a [usize],
    inputs: Vec<Chunk>,
    strided: Vec<Strided>,
    code: Vec<(Code<'a>, usize)>,
    result: Loc,
    registers: usize,
}

/// The memory of a tape's inputs: the row-major ones, then the strided ones.
struct Memory<'t> {
    flat: Vec<&'t [f64]>,
    strided: Vec<&'t [f64]>,
}

/// The registers one thread evaluates a tape in, and the span it hands out.
#[derive(Default)]
pub struct Registers {
    regs: Vec<Vec<f64>>,
    span: Vec<f64>,
}

impl<'a> Tape<'a> {
    /// The program compiled for a block of `shape`, or `None` when some step is not a float64
    /// value computed in float64 by an element function (the general evaluator runs those).
    /// With `bool_result`, a program whose result is a bool is compiled too (its values 0.0
    /// and 1.0), for reductions that read bools as those numbers.
    pub fn compile(block: &'a FusedBlock, inputs: &[Chunk], bool_result: bool) -> Result<Option<Tape<'a>>> {
        let (program, shape) = (&*block.program, &block.shape[..]);
        // Decided before any input is flattened, so that the general evaluator does not
        // flatten (possibly copy) the inputs a second time.
        let result = if bool_result { [DType::Float64, DType::Bool].as_slice() } else { &[DType::Float64] };
        if !program.dtype().is_some_and(|d| result.contains(&d)) || !on_tape(program, inputs) {
            return Ok(None);
        }
        let mut tape = Tape { shape, inputs: Vec::new(), strided: Vec::new(), code: Vec::new(), result: Loc::Const(0.0), registers: 0 };
        let (roots, last_use) = last_uses(program);
        let mut locs: Vec<Loc> = Vec::with_capacity(program.steps.len());
        let mut free: Vec<usize> = Vec::new();
        for (k, step) in program.steps.iter().enumerate() {
            let code = match &step.instr {
                Instr::Input(i) => {
                    let input = inputs.get(*i).ok_or_else(|| internal_err!("fused input {i} missing"))?;
                    match tape.input(input)? {
                        Ok(loc) => {
                            locs.push(loc);
                            continue;
                        }
                        Err(strided) => Code::Gather(strided),
                    }
                }
                Instr::Scalar(v) => {
                    locs.push(Loc::Const(f64::from_scalar(*v)));
                    continue;
                }
                Instr::Source(i) => Code::Source(block.source(*i)?),
                Instr::Cast { arg } => {
                    locs.push(locs[*arg]);
                    continue;
                }
                Instr::Unary { op, arg, .. } => Code::Unary(*op, locs[*arg]),
                Instr::Binary { op, args, .. } => Code::Binary(*op, locs[args[0]], locs[args[1]]),
                Instr::Where { args, .. } => Code::Where(locs[args[0]], locs[args[1]], locs[args[2]]),
            };
            // The result takes a register none of its arguments is in, then dead arguments free theirs.
            let reg = free.pop().unwrap_or_else(|| {
                tape.registers += 1;
                tape.registers - 1
            });
            tape.code.push((code, reg));
            locs.push(Loc::Reg(reg));
            for a in step.instr.args() {
                if let Loc::Reg(r) = locs[a] {
                    if last_use[roots[a]] == k && !free.contains(&r) {
                        free.push(r);
                    }
                }
            }
        }
        tape.result = *locs.last().ok_or_else(|| internal_err!("empty program"))?;
        Ok(Some(tape))
    }

    /// A float64 input's location (`Ok`), or its number among the strided inputs (`Err`) when
    /// it is read by gathering spans: a broadcast, non-row-major or windowed block. Other
    /// inputs are copied to row-major order.
    fn input(&mut self, input: &Chunk) -> Result<std::result::Result<Loc, usize>> {
        let row_major = input.shape() == self.shape && input.typed::<f64>()?.is_standard_layout();
        if !row_major && input.len() > 1 && self.shape.iter().all(|&n| n > 0) {
            if let Some(strided) = Strided::new(input, self.shape) {
                self.strided.push(strided);
                return Ok(Err(self.strided.len() - 1));
            }
        }
        let flat = flatten(input, self.shape)?;
        let values = flat.typed::<f64>()?;
        if values.len() == 1 {
            return Ok(Ok(Loc::Const(values.iter().next().copied().unwrap_or(0.0))));
        }
        if values.as_slice().is_none() {
            return Err(internal_err!("a flattened input is not contiguous"));
        }
        self.inputs.push(flat);
        Ok(Ok(Loc::Input(self.inputs.len() - 1)))
    }

    /// Writes the program's values at flat positions `start .. start + out.len()` to `out`.
    pub fn fill(&self, start: usize, out: &mut [f64], registers: &mut Registers) -> Result<()> {
        let inputs = self.input_slices()?;
        for (s, dst) in out.chunks_mut(SUB).enumerate() {
            self.eval(&inputs, start + s * SUB, dst, &mut registers.regs)?;
        }
        Ok(())
    }

    /// Hands the program's values at flat positions `start .. start + len` to `sink`, one
    /// register-sized span at a time, never holding more than one span.
    pub fn spans(&self, start: usize, len: usize, registers: &mut Registers, sink: &mut dyn FnMut(&[f64])) -> Result<()> {
        let inputs = self.input_slices()?;
        let mut span = std::mem::take(&mut registers.span);
        span.resize(SUB, 0.0);
        for at in (start..start + len).step_by(SUB) {
            let dst = &mut span[..SUB.min(start + len - at)];
            self.eval(&inputs, at, dst, &mut registers.regs)?;
            sink(dst);
        }
        registers.span = span;
        Ok(())
    }

    fn input_slices(&self) -> Result<Memory<'_>> {
        let flat = self
            .inputs
            .iter()
            .map(|c| c.typed::<f64>().ok().and_then(|a| a.as_slice()).ok_or_else(|| internal_err!("tape input")))
            .collect::<Result<_>>()?;
        let strided = self.strided.iter().map(Strided::memory).collect::<Result<_>>()?;
        Ok(Memory { flat, strided })
    }

    /// Computes the values at `at .. at + dst.len()` (at most `SUB`) into `dst`, with the
    /// loops compiled for AVX-512 (DQ, VL: 64-bit integer lanes and conversions) or AVX2 where
    /// the CPU has them (the same IEEE operations, several lanes at a time, so the same values).
    fn eval(&self, inputs: &Memory, at: usize, dst: &mut [f64], regs: &mut Vec<Vec<f64>>) -> Result<()> {
        #[cfg(target_arch = "x86_64")]
        if avx512() {
            // SAFETY: the CPU supports AVX-512 F, DQ and VL, checked just above.
            return unsafe { self.eval_avx512(inputs, at, dst, regs) };
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { self.eval_avx2(inputs, at, dst, regs) };
        }
        self.eval_portable(inputs, at, dst, regs)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    unsafe fn eval_avx512(&self, inputs: &Memory, at: usize, dst: &mut [f64], regs: &mut Vec<Vec<f64>>) -> Result<()> {
        self.eval_portable(inputs, at, dst, regs)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn eval_avx2(&self, inputs: &Memory, at: usize, dst: &mut [f64], regs: &mut Vec<Vec<f64>>) -> Result<()> {
        self.eval_portable(inputs, at, dst, regs)
    }

    #[inline(always)]
    fn eval_portable(&self, inputs: &Memory, at: usize, dst: &mut [f64], regs: &mut Vec<Vec<f64>>) -> Result<()> {
        regs.resize_with(self.registers, || vec![0.0; SUB]);
        let n = dst.len();
        // The last instruction writes the result straight to `dst` when the result is its value.
        let direct = matches!((self.result, self.code.last()), (Loc::Reg(r), Some((_, last))) if r == *last);
        let ahead = Prefetch { inputs: &inputs.flat, from: at + AHEAD * SUB };
        for (i, (code, r)) in self.code.iter().enumerate() {
            ahead.burst(i);
            let mut reg = std::mem::take(&mut regs[*r]);
            let src = |loc: Loc| source(loc, &inputs.flat, regs, at, n);
            let target = if direct && i + 1 == self.code.len() { &mut *dst } else { &mut reg[..n] };
            match code {
                Code::Unary(op, a) => unary_into(*op, src(*a), target)?,
                Code::Binary(op, a, b) => binary_into(*op, src(*a), src(*b), target)?,
                Code::Where(c, a, b) => where_into(src(*c), src(*a), src(*b), target),
                Code::Source(op) => self.source_into(op, at, target)?,
                Code::Gather(i) => self.strided[*i].gather(inputs.strided[*i], at, target),
            }
            regs[*r] = reg;
        }
        (self.code.len()..BURSTS).for_each(|b| ahead.burst(b));
        if !direct {
            match source(self.result, &inputs.flat, regs, at, n) {
                Src::Slice(v) => dst.copy_from_slice(v),
                Src::Scalar(v) => dst.fill(v),
            }
        }
        Ok(())
    }

    fn source_into(&self, op: &SourceOp, start: usize, out: &mut [f64]) -> Result<()> {
        if let SourceOp::Random { key, dist, array_shape, start: block_start, .. } = op {
            let place = BlockPlace { array_shape, start: block_start, shape: self.shape };
            random_into(*key, *dist, &place, start, out);
            return Ok(());
        }
        let values = source_tile(op, self.shape, start, out.len())?;
        let values = values.typed::<f64>()?;
        out.iter_mut().zip(values.iter()).for_each(|(o, v)| *o = *v);
        Ok(())
    }
}

/// Spans read ahead of the one being computed: while a span's later steps and its consumer
/// work in cache, the memory system is already fetching the inputs that come next (the
/// hardware prefetcher alone stops between the bursts of loads).
const AHEAD: usize = 4;
/// The cache lines of a span ahead are asked for in this many bursts, one before each of the
/// first instructions (the rest after the last): one burst of a whole span's 64 lines fills the
/// core's queue of outstanding misses, and reads ran about a fifth slower than when spread out.
const BURSTS: usize = 4;

/// The inputs' memory from flat position `from` on, to be asked for a burst at a time.
struct Prefetch<'m> {
    inputs: &'m [&'m [f64]],
    from: usize,
}

impl Prefetch<'_> {
    /// Asks for the cache lines of burst `b` (of `BURSTS`) of the span at `from`; nothing for
    /// later bursts or on other targets.
    #[inline(always)]
    fn burst(&self, b: usize) {
        #[cfg(target_arch = "x86_64")]
        if b < BURSTS {
            let per = SUB / BURSTS;
            for input in self.inputs {
                let from = self.from + b * per;
                let lines = input.get(from..input.len().min(from + per)).unwrap_or(&[]);
                crate::ahead::ask_for::<{ std::arch::x86_64::_MM_HINT_T0 }>(lines);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (b, self.inputs, self.from);
    }
}

/// Whether every step of the program is a float64 value computed in float64 by an element
/// function from float64 inputs, or a bool that the tape holds as 0.0 and 1.0 (`bool_step`).
fn on_tape(program: &Program, inputs: &[Chunk]) -> bool {
    program.steps.iter().all(|step| match step.dtype {
        DType::Float64 => float_step(&step.instr, inputs),
        DType::Bool => bool_step(&step.instr),
        _ => false,
    })
}

fn float_step(instr: &Instr, inputs: &[Chunk]) -> bool {
    match instr {
        Instr::Input(i) => inputs.get(*i).is_some_and(|c| c.dtype() == DType::Float64),
        Instr::Unary { op, compute, .. } => *compute == DType::Float64 && float_unary_fn!(*op, f64, |_f| true, false),
        Instr::Binary { op, compute, .. } => *compute == DType::Float64 && float_binary_fn!(*op, f64, |_f| true, false),
        Instr::Where { compute, .. } => *compute == DType::Float64,
        Instr::Scalar(_) | Instr::Source(_) | Instr::Cast { .. } => true,
    }
}

/// A bool the tape makes as 0.0 or 1.0 from values it holds (each float64 or such a bool): a
/// comparison, a logical or bitwise combination of bools, their negation, or a constant.
fn bool_step(instr: &Instr) -> bool {
    use BinaryOp::*;
    match instr {
        Instr::Binary { op, compute, .. } if op.is_comparison() => matches!(compute, DType::Float64 | DType::Bool),
        Instr::Binary { op, compute, .. } => {
            *compute == DType::Bool && matches!(op, LogicalAnd | LogicalOr | LogicalXor | BitwiseAnd | BitwiseOr | BitwiseXor)
        }
        Instr::Unary { op, compute, .. } => *compute == DType::Bool && matches!(op, UnaryOp::LogicalNot | UnaryOp::Invert),
        Instr::Scalar(_) => true,
        Instr::Input(_) | Instr::Source(_) | Instr::Cast { .. } | Instr::Where { .. } => false,
    }
}

/// For each step, the step whose value it is (a cast to the same dtype is its argument's
/// value), and for each such root, the last step that reads it (the result: never).
fn last_uses(program: &Program) -> (Vec<usize>, Vec<usize>) {
    let mut roots: Vec<usize> = (0..program.steps.len()).collect();
    let mut last = roots.clone();
    for (k, step) in program.steps.iter().enumerate() {
        if let Instr::Cast { arg } = step.instr {
            roots[k] = roots[arg];
        }
        for a in step.instr.args() {
            last[roots[a]] = k;
        }
    }
    if let Some(&result) = roots.last() {
        last[result] = usize::MAX;
    }
    (roots, last)
}

/// An argument over one register's span: a slice, or one value for every element.
#[derive(Clone, Copy)]
enum Src<'s> {
    Slice(&'s [f64]),
    Scalar(f64),
}

fn source<'s>(loc: Loc, inputs: &[&'s [f64]], regs: &'s [Vec<f64>], at: usize, n: usize) -> Src<'s> {
    match loc {
        Loc::Const(v) => Src::Scalar(v),
        Loc::Input(i) => Src::Slice(&inputs[i][at..at + n]),
        Loc::Reg(r) => Src::Slice(&regs[r][..n]),
    }
}

#[inline(always)]
fn unary_into(op: UnaryOp, a: Src, out: &mut [f64]) -> Result<()> {
    // sin and cos: the vectorised loop for the whole span, then the few arguments out of its
    // range again, as `Transcendental` computes them one by one.
    if let (UnaryOp::Exp | UnaryOp::Sin | UnaryOp::Cos, Src::Slice(x)) = (op, a) {
        transcendental(op, x, out);
        return Ok(());
    }
    if let UnaryOp::LogicalNot | UnaryOp::Invert = op {
        map1(a, out, |x| if x == 0.0 { 1.0 } else { 0.0 });
        return Ok(());
    }
    float_unary_fn!(op, f64, |f| { map1(a, out, f); Ok(()) }, Err(internal_err!("{} is not on the float64 tape", op.name())))
}

#[inline(always)]
fn binary_into(op: BinaryOp, a: Src, b: Src, out: &mut [f64]) -> Result<()> {
    float_binary_fn!(op, f64, |f| { map2(a, b, out, f); Ok(()) }, bool_binary_into(op, a, b, out))
}

/// A comparison of float64 values, or a logical combination of bools, as 0.0 or 1.0 (IEEE
/// comparisons, as the block kernels': anything against NaN is false but `!=`).
#[inline(always)]
fn bool_binary_into(op: BinaryOp, a: Src, b: Src, out: &mut [f64]) -> Result<()> {
    use BinaryOp::*;
    let truth = |f: fn(f64, f64) -> bool| move |x: f64, y: f64| if f(x, y) { 1.0 } else { 0.0 };
    match op {
        Equal => map2(a, b, out, truth(|x, y| x == y)),
        NotEqual => map2(a, b, out, truth(|x, y| x != y)),
        Less => map2(a, b, out, truth(|x, y| x < y)),
        LessEqual => map2(a, b, out, truth(|x, y| x <= y)),
        Greater => map2(a, b, out, truth(|x, y| x > y)),
        GreaterEqual => map2(a, b, out, truth(|x, y| x >= y)),
        LogicalAnd | BitwiseAnd => map2(a, b, out, truth(|x, y| x != 0.0 && y != 0.0)),
        LogicalOr | BitwiseOr => map2(a, b, out, truth(|x, y| x != 0.0 || y != 0.0)),
        LogicalXor | BitwiseXor => map2(a, b, out, truth(|x, y| (x != 0.0) != (y != 0.0))),
        _ => return Err(internal_err!("{} is not on the float64 tape", op.name())),
    }
    Ok(())
}

/// `where(condition, a, b)` over a span, the condition 0.0 or 1.0.
#[inline(always)]
fn where_into(c: Src, a: Src, b: Src, out: &mut [f64]) {
    let at = |s: Src, i: usize| match s {
        Src::Slice(v) => v[i],
        Src::Scalar(v) => v,
    };
    for (i, o) in out.iter_mut().enumerate() {
        *o = if at(c, i) != 0.0 { at(a, i) } else { at(b, i) };
    }
}

#[inline(always)]
fn map1(a: Src, out: &mut [f64], f: impl Fn(f64) -> f64) {
    match a {
        Src::Slice(x) => out.iter_mut().zip(x).for_each(|(o, &x)| *o = f(x)),
        Src::Scalar(x) => out.fill(f(x)),
    }
}

#[inline(always)]
fn map2(a: Src, b: Src, out: &mut [f64], f: impl Fn(f64, f64) -> f64) {
    match (a, b) {
        (Src::Slice(x), Src::Slice(y)) => out.iter_mut().zip(x.iter().zip(y)).for_each(|(o, (&x, &y))| *o = f(x, y)),
        (Src::Slice(x), Src::Scalar(y)) => out.iter_mut().zip(x).for_each(|(o, &x)| *o = f(x, y)),
        (Src::Scalar(x), Src::Slice(y)) => out.iter_mut().zip(y).for_each(|(o, &y)| *o = f(x, y)),
        (Src::Scalar(x), Src::Scalar(y)) => out.fill(f(x, y)),
    }
}

/// `exp`, `sin` or `cos` of a span, with the values of `Transcendental`: the vectorised
/// function over the whole span, then sin and cos again for the few arguments out of its range.
fn transcendental(op: UnaryOp, x: &[f64], out: &mut [f64]) {
    match op {
        UnaryOp::Exp => return exp_span(x, out),
        UnaryOp::Sin => sin_span(x, out),
        _ => cos_span(x, out),
    }
    for (o, &v) in out.iter_mut().zip(x) {
        if beyond_vecmath(v) {
            *o = if op == UnaryOp::Sin { f64::sin(v) } else { f64::cos(v) };
        }
    }
}

/// Whether the CPU runs the AVX-512 builds (F, DQ and VL; DQ implies F).
#[cfg(target_arch = "x86_64")]
fn avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512dq") && std::arch::is_x86_feature_detected!("avx512vl")
}

/// A loop of one `vecmath` function over a span, in a small function of its own compiled for
/// AVX-512 or AVX2 where the CPU has it, calling the function directly: passed as a closure, it
/// is not inlined into the loop, which then does not vectorise.
macro_rules! span_loop {
    ($($name:ident, $avx512:ident, $avx2:ident => $f:path;)*) => {$(
        fn $name(x: &[f64], out: &mut [f64]) {
            #[cfg(target_arch = "x86_64")]
            if avx512() {
                // SAFETY: the CPU supports AVX-512 F, DQ and VL, checked just above.
                return unsafe { $avx512(x, out) };
            }
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                return unsafe { $avx2(x, out) };
            }
            out.iter_mut().zip(x).for_each(|(o, &v)| *o = $f(v));
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
        unsafe fn $avx512(x: &[f64], out: &mut [f64]) {
            for (o, &v) in out.iter_mut().zip(x) {
                *o = $f(v);
            }
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn $avx2(x: &[f64], out: &mut [f64]) {
            for (o, &v) in out.iter_mut().zip(x) {
                *o = $f(v);
            }
        }
    )*};
}
span_loop! {
    exp_span, exp_span_avx512, exp_span_avx2 => vecmath::exp;
    sin_span, sin_span_avx512, sin_span_avx2 => vecmath::sin;
    cos_span, cos_span_avx512, cos_span_avx2 => vecmath::cos;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every compiled span loop the CPU runs gives the scalar function's bits.
    #[test]
    fn span_loops_match_the_scalar_functions() {
        let mut x: Vec<f64> = (0..4099).map(|i| (i as f64 - 2049.0) * 0.37).collect();
        x.extend([0.0, -0.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 709.9, -745.2, 1e300, -1e-300]);
        type Span = fn(&[f64], &mut [f64]);
        type Scalar = fn(f64) -> f64;
        let mut spans: Vec<(Span, Scalar)> = vec![(exp_span, vecmath::exp), (sin_span, vecmath::sin), (cos_span, vecmath::cos)];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY (each closure): the CPU supports AVX2, checked just above.
            spans.push((|x, out| unsafe { exp_span_avx2(x, out) }, vecmath::exp));
            spans.push((|x, out| unsafe { sin_span_avx2(x, out) }, vecmath::sin));
            spans.push((|x, out| unsafe { cos_span_avx2(x, out) }, vecmath::cos));
        }
        for (span, scalar) in spans {
            let mut out = vec![0.0; x.len()];
            span(&x, &mut out);
            for (&v, &o) in x.iter().zip(&out) {
                assert_eq!(o.to_bits(), scalar(v).to_bits(), "at {v}");
            }
        }
    }
}
