//! Fused element-wise programs as WGSL: one shader per program and pattern of broadcasting,
//! one invocation per element of the result, each step a `let` in the step's lane. The
//! numbers that vary between blocks (the shape, inputs' strides, constants) are read from a
//! table, so the blocks of an operation share one compiled pipeline. A program with a step
//! the GPU does not compute exactly as NumPy does (transcendental functions, whose WGSL
//! versions may be off by more than a few ulp; float floor division and remainder; powers;
//! 64-bit integers, float16, complex) gets no shader: its task runs on the CPU.

use crate::lanes::Lane;
use std::fmt::Write;
use tegula_core::program::{Instr, Program};
use tegula_core::{BinaryOp, DType, Scalar, UnaryOp};
use tegula_kernels::raw::with_bytes;
use tegula_kernels::Chunk;

/// A program as a WGSL function `element(i: u32) -> T` of the block's row-major element `i`,
/// with the declarations of the inputs it reads (from binding 2 on, then its float64
/// constants), the helpers it calls, and the table of numbers it reads from binding 1: the
/// element count and the shape first, then the inputs' strides and the constants. A shader
/// adds its result's binding (0), the table's (1) and an entry point that calls it.
pub struct Element {
    pub source: String,
    pub table: Vec<u32>,
    pub doubles: Vec<f64>,
    /// The task inputs it reads, in binding order (from binding 2).
    pub inputs: Vec<usize>,
    /// The lane of its values.
    pub lane: Lane,
}

/// `program` over a block of `shape` from inputs of these dtypes and shapes (each broadcast to
/// `shape`); `None` when a step has no exact WGSL form.
pub fn element(program: &Program, inputs: &[(DType, Vec<usize>)], shape: &[usize], f64: bool) -> Option<Element> {
    let lane = |d: DType| Lane::of(d, f64);
    let ndim = shape.len();
    let n = u32::try_from(shape.iter().product::<usize>()).ok()?;
    let mut table = vec![n];
    table.extend(shape.iter().map(|&l| l as u32));
    let mut doubles = Vec::new();
    let mut used: Vec<usize> = Vec::new();
    let mut body = String::new();
    let mut offsets = String::new();
    for (k, step) in program.steps.iter().enumerate() {
        let out = lane(step.dtype)?;
        let value = |j: usize| format!("s{j}");
        let dtype_of = |j: usize| program.steps[j].dtype;
        let expr = match &step.instr {
            Instr::Input(i) => {
                let (dtype, in_shape) = inputs.get(*i)?;
                let binding = used.iter().position(|u| u == i).unwrap_or_else(|| {
                    used.push(*i);
                    used.len() - 1
                });
                let lane = lane(*dtype)?;
                let at = if in_shape.as_slice() == shape {
                    "i".to_string()
                } else {
                    let strides = broadcast_strides(in_shape, shape)?;
                    let first = table.len();
                    table.extend(strides);
                    let _ = writeln!(offsets, "    var o{k} = 0u;");
                    for d in 0..ndim {
                        let _ = writeln!(offsets, "    o{k} += c{d} * table[{}u];", first + d);
                    }
                    format!("o{k}")
                };
                match lane {
                    Lane::Bool => format!("in{binding}[{at}] != 0u"),
                    _ => format!("in{binding}[{at}]"),
                }
            }
            Instr::Source(_) => return None,
            Instr::Scalar(v) => constant(*v, step.dtype, out, &mut table, &mut doubles)?,
            Instr::Cast { arg } => cast(&value(*arg), dtype_of(*arg), step.dtype, f64)?,
            Instr::Unary { op, compute, arg } => {
                let a = cast(&value(*arg), dtype_of(*arg), *compute, f64)?;
                fit(&unary(*op, lane(*compute)?, &a)?, step.dtype)
            }
            Instr::Binary { op, compute, args } => {
                let a = cast(&value(args[0]), dtype_of(args[0]), *compute, f64)?;
                let b = cast(&value(args[1]), dtype_of(args[1]), *compute, f64)?;
                fit(&binary(*op, lane(*compute)?, &a, &b)?, step.dtype)
            }
            Instr::Where { compute, args } => {
                let c = cast(&value(args[0]), dtype_of(args[0]), DType::Bool, f64)?;
                let a = cast(&value(args[1]), dtype_of(args[1]), *compute, f64)?;
                let b = cast(&value(args[2]), dtype_of(args[2]), *compute, f64)?;
                format!("select({b}, {a}, {c})")
            }
        };
        let _ = writeln!(body, "    let s{k}: {} = {expr};", out.wgsl());
    }
    let last = program.steps.len().checked_sub(1)?;
    let result = lane(program.steps[last].dtype)?;
    let mut source = String::new();
    for (b, &i) in used.iter().enumerate() {
        let _ = writeln!(source, "@group(0) @binding({}) var<storage, read> in{b}: array<{}>;", b + 2, lane(inputs[i].0)?.stored());
    }
    if !doubles.is_empty() {
        let _ = writeln!(source, "@group(0) @binding({}) var<storage, read> doubles: array<f64>;", used.len() + 2);
    }
    source.push_str(HELPERS);
    let in_doubles = |d: DType| lane(d) == Some(Lane::F64);
    if program.steps.iter().any(|s| in_doubles(s.dtype) || computes_in(&s.instr).is_some_and(in_doubles)) {
        source.push_str(HELPERS_64);
    }
    let _ = writeln!(source, "fn element(i: u32) -> {} {{", result.wgsl());
    if !offsets.is_empty() {
        // The element's coordinates, last axis fastest.
        let _ = writeln!(source, "    var rest = i;");
        for d in (0..ndim).rev() {
            let _ = writeln!(source, "    let c{d} = rest % table[{}u]; rest = rest / table[{}u];", d + 1, d + 1);
        }
        source.push_str(&offsets);
    }
    source.push_str(&body);
    let _ = writeln!(source, "    return s{last};\n}}");
    Some(Element { source, table, doubles, inputs: used, lane: result })
}

/// The shader writing each element of `element` to the result (binding 0).
pub fn shader(element: &Element) -> String {
    let mut source = String::new();
    let _ = writeln!(source, "@group(0) @binding(0) var<storage, read_write> out: array<{}>;", element.lane.stored());
    let _ = writeln!(source, "@group(0) @binding(1) var<storage, read> table: array<u32>;");
    source.push_str(&element.source);
    let _ = writeln!(source, "{} {{\n    {}\n    if (i >= table[0]) {{ return; }}", crate::dispatch::ENTRY, crate::dispatch::ELEMENT_INDEX);
    let _ = writeln!(source, "    out[i] = {};\n}}", stored(element.lane, "element(i)"));
    source
}

/// A value of `lane` as its buffer holds it (a boolean as a 0 or 1 word).
pub fn stored(lane: Lane, value: &str) -> String {
    match lane {
        Lane::Bool => format!("select(0u, 1u, {value})"),
        _ => value.to_string(),
    }
}

/// The dtype a step computes in, when it names one.
fn computes_in(instr: &Instr) -> Option<DType> {
    match instr {
        Instr::Unary { compute, .. } | Instr::Binary { compute, .. } | Instr::Where { compute, .. } => Some(*compute),
        _ => None,
    }
}

/// Functions every shader may call: float32 tests on the bits (NaN-safe whatever the compiler
/// assumes of comparisons), and NumPy's integer floor division and remainder (`x // 0` and
/// `x % 0` are 0, the quotient rounds towards -inf, the remainder takes the divisor's sign).
pub const HELPERS: &str = "
fn nan32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn inf32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }
fn floor_div(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) { return q - 1; }
    return q;
}
fn floor_rem(a: i32, b: i32) -> i32 {
    if (b == 0) { return 0; }
    let r = a % b;
    if ((r != 0) && ((r < 0) != (b < 0))) { return r + b; }
    return r;
}
";

/// The float64 tests, only in shaders that compute in float64 (a device without float64
/// compiles no shader naming it).
pub const HELPERS_64: &str = "
fn nan64(x: f64) -> bool { return !(x == x); }
fn inf64(x: f64) -> bool { return abs(x) > 1.7976931348623157e308lf; }
";

/// The strides, in elements, that read a row-major block of `from` broadcast to `to`
/// (0 along axes it lacks or has once); `None` when it does not broadcast.
fn broadcast_strides(from: &[usize], to: &[usize]) -> Option<Vec<u32>> {
    let lead = to.len().checked_sub(from.len())?;
    let mut strides = vec![0u32; to.len()];
    let mut stride = 1usize;
    for d in (0..from.len()).rev() {
        match from[d] {
            1 => {}
            l if l == to[lead + d] => strides[lead + d] = u32::try_from(stride).ok()?,
            _ => return None,
        }
        stride *= from[d];
    }
    Some(strides)
}

/// A constant of `dtype` read from the table (`float64`s from their own), so any value —
/// NaN and infinities too — keeps its exact bits.
fn constant(v: Scalar, dtype: DType, lane: Lane, table: &mut Vec<u32>, doubles: &mut Vec<f64>) -> Option<String> {
    let host = Chunk::full(dtype, &[1], v).cast(lane.host_dtype());
    let bytes = with_bytes(&host, |b| b.to_vec());
    if lane == Lane::F64 {
        doubles.push(f64::from_le_bytes(bytes.try_into().ok()?));
        return Some(format!("doubles[{}u]", doubles.len() - 1));
    }
    table.push(u32::from_le_bytes(bytes.try_into().ok()?));
    let at = format!("table[{}u]", table.len() - 1);
    Some(match lane {
        Lane::Bool => format!("{at} != 0u"),
        Lane::U32 => at,
        other => format!("bitcast<{}>({at})", other.wgsl()),
    })
}

/// `e`, a value of `from`, as NumPy's `astype(to)` makes it.
pub fn cast(e: &str, from: DType, to: DType, f64: bool) -> Option<String> {
    let (a, b) = (Lane::of(from, f64)?, Lane::of(to, f64)?);
    let converted = match (a, b) {
        _ if from == to => return Some(e.to_string()),
        (Lane::Bool, Lane::Bool) => e.to_string(),
        (Lane::Bool, other) => format!("select({0}(0), {0}(1), {e})", other.wgsl()),
        (Lane::F32 | Lane::F64, Lane::Bool) => format!("!({e} == {}(0))", a.wgsl()),
        (_, Lane::Bool) => format!("{e} != {}(0)", a.wgsl()),
        (x, y) if x == y => e.to_string(),
        (Lane::I32, Lane::U32) | (Lane::U32, Lane::I32) => format!("bitcast<{}>({e})", b.wgsl()),
        (Lane::F32 | Lane::F64, Lane::I32 | Lane::U32) => saturated(e, a, to)?,
        _ => format!("{}({e})", b.wgsl()),
    };
    Some(fit(&converted, to))
}

/// `e`, a float, as an integer of `to` the way the host converts (Rust's `as`): truncated
/// towards zero, clamped to the dtype's range, NaN as 0.
fn saturated(e: &str, float: Lane, to: DType) -> Option<String> {
    let (lo, hi) = to.integer_bounds()?;
    let (t, suffix) = (Lane::of(to, false)?.wgsl(), if float == Lane::F64 { "lf" } else { "f" });
    let bound = |v: i128| if float == Lane::F64 { format!("{:?}{suffix}", v as f64) } else { format!("{:?}{suffix}", v as f32) };
    let bits = if float == Lane::F64 { "64" } else { "32" };
    Some(format!(
        "select(select(select({t}({e}), {t}({hi}), {e} >= {}), {t}({lo}), {e} <= {}), {t}(0), nan{bits}({e}))",
        bound(hi),
        bound(lo)
    ))
}

/// `e` wrapped into the range of a narrow integer dtype held in a 32-bit lane.
fn fit(e: &str, dtype: DType) -> String {
    match dtype {
        DType::Int8 => format!("(({e}) << 24u) >> 24u"),
        DType::Int16 => format!("(({e}) << 16u) >> 16u"),
        DType::UInt8 => format!("(({e}) & 0xffu)"),
        DType::UInt16 => format!("(({e}) & 0xffffu)"),
        _ => e.to_string(),
    }
}

/// `op(a)` computed in `lane`, where WGSL computes it as NumPy does.
fn unary(op: UnaryOp, lane: Lane, a: &str) -> Option<String> {
    use UnaryOp::*;
    let t = lane.wgsl();
    let float = lane.is_float();
    let bits = if lane == Lane::F64 { "64" } else { "32" };
    Some(match (op, lane) {
        (Positive | Conj | Real, _) => a.to_string(),
        (Abs, Lane::I32 | Lane::F32 | Lane::F64) => format!("abs({a})"),
        (Abs | Floor | Ceil | Trunc, _) if !float => a.to_string(),
        (Negative, Lane::U32) => format!("0u - {a}"),
        (Negative, Lane::I32 | Lane::F32 | Lane::F64) => format!("-({a})"),
        (Floor, _) => format!("floor({a})"),
        (Ceil, _) => format!("ceil({a})"),
        (Trunc, _) => format!("trunc({a})"),
        (Rint, _) if float => format!("round({a})"),
        (Sqrt, _) if float => format!("sqrt({a})"),
        (Square, Lane::Bool) => a.to_string(),
        (Square, _) => format!("({a}) * ({a})"),
        (Reciprocal, _) if float => format!("{t}(1) / ({a})"),
        (Sign, Lane::U32) => format!("select(0u, 1u, {a} > 0u)"),
        (Sign, Lane::I32) => format!("sign({a})"),
        (Sign, _) if float => format!("select(sign({a}), {a}, nan{bits}({a}))"),
        (Isnan, _) if float => format!("nan{bits}({a})"),
        (Isinf, _) if float => format!("inf{bits}({a})"),
        (Isfinite, _) if float => format!("!(nan{bits}({a}) || inf{bits}({a}))"),
        (Isnan | Isinf, _) => "false".into(),
        (Isfinite, _) => "true".into(),
        (Signbit, Lane::F32) => format!("(bitcast<u32>({a}) >> 31u) == 1u"),
        (Signbit, Lane::I32) => format!("{a} < 0"),
        (Signbit, Lane::U32 | Lane::Bool) => "false".into(),
        (LogicalNot | Invert, Lane::Bool) => format!("!({a})"),
        (Invert, Lane::I32 | Lane::U32) => format!("~({a})"),
        _ => return None,
    })
}

/// `op(a, b)` computed in `lane`, where WGSL computes it as NumPy does.
pub fn binary(op: BinaryOp, lane: Lane, a: &str, b: &str) -> Option<String> {
    use BinaryOp::*;
    let float = lane.is_float();
    let bits = if lane == Lane::F64 { "64" } else { "32" };
    let nan = |x: &str| if float { format!("nan{bits}({x})") } else { "false".into() };
    Some(match (op, lane) {
        (Add | BitwiseOr | LogicalOr | Maximum, Lane::Bool) => format!("({a}) || ({b})"),
        (Multiply | BitwiseAnd | LogicalAnd | Minimum, Lane::Bool) => format!("({a}) && ({b})"),
        (BitwiseXor | LogicalXor | NotEqual, Lane::Bool) => format!("({a}) != ({b})"),
        (Equal, Lane::Bool) => format!("({a}) == ({b})"),
        (Less | LessEqual | Greater | GreaterEqual, Lane::Bool) => binary(op, Lane::U32, &format!("u32({a})"), &format!("u32({b})"))?,
        (Add, _) => format!("({a}) + ({b})"),
        (Subtract, _) => format!("({a}) - ({b})"),
        (Multiply, _) => format!("({a}) * ({b})"),
        (Divide, _) if float => format!("({a}) / ({b})"),
        // NumPy: x // 0 and x % 0 are 0 for integers; the quotient rounds towards -inf and
        // the remainder takes the divisor's sign.
        (FloorDivide, Lane::U32) => format!("select(({a}) / ({b}), 0u, ({b}) == 0u)"),
        (Remainder, Lane::U32) => format!("select(({a}) % ({b}), 0u, ({b}) == 0u)"),
        (FloorDivide, Lane::I32) => format!("floor_div({a}, {b})"),
        (Remainder, Lane::I32) => format!("floor_rem({a}, {b})"),
        (Equal, _) => format!("({a}) == ({b})"),
        (NotEqual, _) => format!("!(({a}) == ({b}))"),
        (Less, _) => format!("({a}) < ({b})"),
        (LessEqual, _) => format!("({a}) <= ({b})"),
        (Greater, _) => format!("({a}) > ({b})"),
        (GreaterEqual, _) => format!("({a}) >= ({b})"),
        (BitwiseAnd, Lane::I32 | Lane::U32) => format!("({a}) & ({b})"),
        (BitwiseOr, Lane::I32 | Lane::U32) => format!("({a}) | ({b})"),
        (BitwiseXor, Lane::I32 | Lane::U32) => format!("({a}) ^ ({b})"),
        (Maximum, _) => format!("select({b}, {a}, {} || ({b}) <= ({a}))", nan(a)),
        (Minimum, _) => format!("select({b}, {a}, {} || ({a}) <= ({b}))", nan(a)),
        (Copysign, Lane::F32) => format!("bitcast<f32>((bitcast<u32>({a}) & 0x7fffffffu) | (bitcast<u32>({b}) & 0x80000000u))"),
        _ => return None,
    })
}
