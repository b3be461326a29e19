//! NumPy's `einsum` from tegula's contractions: each operand's repeated labels become diagonals
//! and its private labels sums; operands are then contracted two at a time as a `matmul` of
//! (shared, left, contracted) by (shared, contracted, right), so a contraction without shared
//! labels is a blockwise product with a tree sum, never one task holding a whole axis.

use crate::array::Array;
use crate::ops::ReduceSpec;
use std::collections::{BTreeMap, BTreeSet};
use tegula_core::{result_type, value_err, DType, ReduceOp, Result};

/// A label: a letter, or one of the axes `...` stands for (numbered past the letters).
type Label = char;

impl Array {
    /// Einstein summation over `operands` as NumPy's `einsum`: the explicit `->` output or the
    /// implicit one (labels seen once, in alphabetical order); `...` broadcasts; a label
    /// repeated in one operand takes its diagonal; length-one axes broadcast. The result has
    /// the operands' result type (`dtype` casts them first), summed in that type as NumPy's.
    pub fn einsum(subscripts: &str, operands: &[&Array], dtype: Option<DType>) -> Result<Array> {
        // Every sum is in the result type, as NumPy's: a bool operand's private axes summed
        // alone would be a logical or (ones((2, 3), bool) summed with floats counts its trues).
        let common = match dtype {
            Some(d) => d,
            None => result_type(&operands.iter().map(|a| a.dtype()).collect::<Vec<_>>())?,
        };
        let arrays = operands.iter().map(|a| if a.dtype() == common { Ok((*a).clone()) } else { a.astype(common) }).collect::<Result<Vec<_>>>()?;
        let (inputs, output) = parse(subscripts, &arrays.iter().map(Array::ndim).collect::<Vec<_>>())?;
        let sizes = label_sizes(&inputs, &arrays)?;
        let terms = arrays
            .iter()
            .zip(&inputs)
            .enumerate()
            .map(|(i, (a, labels))| reduce_alone(a, labels, &output, &inputs, i, &sizes))
            .collect::<Result<Vec<_>>>()?;
        let (mut result, mut labels) = terms[0].clone();
        for (i, (other, other_labels)) in terms.iter().enumerate().skip(1) {
            let mut keep: BTreeSet<Label> = output.iter().copied().collect();
            keep.extend(terms[i + 1..].iter().flat_map(|(_, ls)| ls.iter().copied()));
            (result, labels) = contract(&result, &labels, other, other_labels, &keep, &sizes)?;
        }
        let (result, labels) = sum_out(&result, &labels, &output.iter().copied().collect())?;
        if labels.is_empty() {
            return Ok(result);
        }
        let order: Vec<i64> = output.iter().map(|c| labels.iter().position(|l| l == c).expect("every output label is kept") as i64).collect();
        result.transpose(Some(&order))
    }
}

fn is_letter(c: char) -> bool {
    c.is_ascii_alphabetic()
}

/// Each operand's labels and the output's, with `...` expanded into internal labels
/// (right-aligned across operands, as broadcasting).
fn parse(subscripts: &str, ndims: &[usize]) -> Result<(Vec<Vec<Label>>, Vec<Label>)> {
    let text: String = subscripts.chars().filter(|c| *c != ' ').collect();
    let (lhs, rhs) = match text.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (text.as_str(), None),
    };
    let parts: Vec<&str> = lhs.split(',').collect();
    if parts.len() != ndims.len() {
        return Err(value_err!("einstein sum subscripts string contains {} operands, but {} were given", parts.len(), ndims.len()));
    }
    let ellipsis_dims = parts.iter().zip(ndims).map(|(p, &n)| ellipsis_dims(p, n)).collect::<Result<Vec<_>>>()?;
    let width = ellipsis_dims.iter().copied().max().unwrap_or(0);
    let broadcast: Vec<Label> = (0..width).map(|i| char::from_u32(0x100 + i as u32).expect("a valid char")).collect();
    let inputs: Vec<Vec<Label>> = parts.iter().zip(&ellipsis_dims).map(|(p, &d)| expand(p, &broadcast[width - d..])).collect();
    let output = match rhs {
        Some(rhs) => {
            if width > 0 && !rhs.contains("...") {
                return Err(value_err!(
                    "output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions."
                ));
            }
            let output = expand(rhs, &broadcast);
            if let Some(c) = repeated(&output) {
                return Err(value_err!("einstein sum subscripts string includes output subscript '{c}' multiple times"));
            }
            if let Some(c) = output.iter().find(|c| !inputs.iter().any(|ls| ls.contains(c))) {
                return Err(value_err!("einstein sum subscripts string included output subscript '{c}' which never appeared in an input"));
            }
            output
        }
        None => {
            let mut counts: BTreeMap<Label, usize> = BTreeMap::new();
            for c in inputs.iter().flatten() {
                *counts.entry(*c).or_default() += 1;
            }
            let once = counts.into_iter().filter(|&(c, n)| n == 1 && is_letter(c)).map(|(c, _)| c);
            // Upper-case letters sort before lower-case ones, as Python's `sorted`.
            broadcast.iter().copied().chain(once).collect()
        }
    };
    Ok((inputs, output))
}

/// How many axes `...` stands for in an operand of `ndim` axes labelled by `part`.
fn ellipsis_dims(part: &str, ndim: usize) -> Result<usize> {
    let letters = part.replace("...", "");
    if let Some(bad) = letters.chars().find(|c| !is_letter(*c)).or((part.matches("...").count() > 1).then_some('.')) {
        return Err(value_err!("invalid subscript '{bad}' in einstein sum subscripts string, subscripts must be letters"));
    }
    let count = letters.chars().count();
    if !part.contains("...") {
        return match count.cmp(&ndim) {
            std::cmp::Ordering::Equal => Ok(0),
            std::cmp::Ordering::Less => Err(value_err!(
                "operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions."
            )),
            std::cmp::Ordering::Greater => Err(value_err!("einstein sum subscripts string contains too many subscripts for operand")),
        };
    }
    ndim.checked_sub(count).ok_or_else(|| value_err!("einstein sum subscripts string contains too many subscripts for operand"))
}

fn expand(part: &str, broadcast: &[Label]) -> Vec<Label> {
    match part.split_once("...") {
        Some((head, tail)) => head.chars().chain(broadcast.iter().copied()).chain(tail.chars()).collect(),
        None => part.chars().collect(),
    }
}

fn repeated(labels: &[Label]) -> Option<Label> {
    labels.iter().enumerate().find(|(i, c)| labels[..*i].contains(c)).map(|(_, c)| *c)
}

/// Each label's length: equal in every operand, or one where it broadcasts.
fn label_sizes(inputs: &[Vec<Label>], arrays: &[Array]) -> Result<BTreeMap<Label, usize>> {
    let mut sizes = BTreeMap::new();
    for (labels, a) in inputs.iter().zip(arrays) {
        for (&c, n) in labels.iter().zip(a.shape()) {
            let known = sizes.get(&c).copied();
            match known {
                Some(k) if n != 1 && k != 1 && k != n => {
                    return Err(value_err!("operands could not be broadcast together with remapped shapes (label '{c}' has lengths {k} and {n})"));
                }
                Some(_) if n == 1 => {}
                _ => {
                    sizes.insert(c, n);
                }
            }
        }
    }
    Ok(sizes)
}

/// One operand with its repeated labels turned into diagonals, the labels no other operand or
/// the output has summed out, and the rest broadcast to their common lengths.
fn reduce_alone(
    a: &Array,
    labels: &[Label],
    output: &[Label],
    inputs: &[Vec<Label>],
    index: usize,
    sizes: &BTreeMap<Label, usize>,
) -> Result<(Array, Vec<Label>)> {
    let (mut a, mut labels) = (a.clone(), labels.to_vec());
    while let Some(c) = repeated(&labels) {
        let at: Vec<usize> = labels.iter().enumerate().filter(|(_, d)| **d == c).map(|(i, _)| i).take(2).collect();
        let rest: Vec<usize> = (0..a.ndim()).filter(|i| !at.contains(i)).collect();
        let order: Vec<i64> = rest.iter().chain(&at).map(|&i| i as i64).collect();
        let moved = a.transpose(Some(&order))?;
        let shape = moved.shape();
        let (m, n) = (shape[shape.len() - 2], shape[shape.len() - 1]);
        if m != n {
            return Err(value_err!("dimensions in operand for collapsing index '{c}' don't match ({m} != {n})"));
        }
        a = moved.diagonal(0)?;
        labels = rest.iter().map(|&i| labels[i]).chain([c]).collect();
    }
    let mut elsewhere: BTreeSet<Label> = output.iter().copied().collect();
    elsewhere.extend(inputs.iter().enumerate().filter(|(j, _)| *j != index).flat_map(|(_, ls)| ls.iter().copied()));
    let (a, labels) = sum_out(&a, &labels, &elsewhere)?;
    let shape: Vec<usize> = labels.iter().map(|c| sizes[c]).collect();
    Ok((a.broadcast_to(&shape)?, labels))
}

/// `a` summed over its labels outside `keep` (in its own dtype, as NumPy's einsum; a logical or
/// for bools).
fn sum_out(a: &Array, labels: &[Label], keep: &BTreeSet<Label>) -> Result<(Array, Vec<Label>)> {
    let axes: Vec<i64> = labels.iter().enumerate().filter(|(_, c)| !keep.contains(c)).map(|(i, _)| i as i64).collect();
    if axes.is_empty() {
        return Ok((a.clone(), labels.to_vec()));
    }
    let summed = if a.dtype() == DType::Bool {
        a.reduce(&ReduceSpec { axes: Some(axes), ..ReduceSpec::new(ReduceOp::Any) })?
    } else {
        a.reduce(&ReduceSpec { axes: Some(axes), dtype: Some(a.dtype()), ..ReduceSpec::new(ReduceOp::Sum) })?
    };
    Ok((summed, labels.iter().copied().filter(|c| keep.contains(c)).collect()))
}

/// `a` and `b` multiplied and summed over the labels they share that `keep` does not hold, as
/// one (stacked) matmul.
fn contract(a: &Array, a_labels: &[Label], b: &Array, b_labels: &[Label], keep: &BTreeSet<Label>, sizes: &BTreeMap<Label, usize>) -> Result<(Array, Vec<Label>)> {
    let in_b = |c: &Label| b_labels.contains(c);
    let shared: Vec<Label> = a_labels.iter().copied().filter(|c| in_b(c) && keep.contains(c)).collect();
    let summed: Vec<Label> = a_labels.iter().copied().filter(|c| in_b(c) && !keep.contains(c)).collect();
    let left: Vec<Label> = a_labels.iter().copied().filter(|c| !in_b(c)).collect();
    let right: Vec<Label> = b_labels.iter().copied().filter(|c| !a_labels.contains(c)).collect();
    let position = |labels: &[Label], c: &Label| labels.iter().position(|l| l == c).expect("a label of the operand") as i64;
    let a_order: Vec<i64> = shared.iter().chain(&left).chain(&summed).map(|c| position(a_labels, c)).collect();
    let b_order: Vec<i64> = shared.iter().chain(&summed).chain(&right).map(|c| position(b_labels, c)).collect();
    let size = |ls: &[Label]| ls.iter().map(|c| sizes[c] as i64).product::<i64>();
    let batch: Vec<i64> = shared.iter().map(|c| sizes[c] as i64).collect();
    let with = |tail: [i64; 2]| batch.iter().copied().chain(tail).collect::<Vec<_>>();
    let a = a.transpose(Some(&a_order))?.reshape(&with([size(&left), size(&summed)]))?;
    let b = b.transpose(Some(&b_order))?.reshape(&with([size(&summed), size(&right)]))?;
    let dims: Vec<i64> = batch.iter().copied().chain(left.iter().chain(&right).map(|c| sizes[c] as i64)).collect();
    let labels = shared.iter().chain(&left).chain(&right).copied().collect();
    Ok((a.matmul(&b)?.reshape(&dims)?, labels))
}
