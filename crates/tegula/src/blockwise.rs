//! Dask's `blockwise`: a function of blocks whose axes are named by index letters. Arrays
//! are laid out on shared internal axes (the result's indices, then the contracted ones):
//! each is transposed to that order, given length-one axes for the indices it lacks,
//! broadcast, and rechunked to one block grid, with contracted indices and new axes whole.
//! One `map_blocks` then calls the function on every block; `own_block` gives it each
//! array's block in that array's own index order, and the contracted axes (length one in
//! every result block) are dropped afterwards.

use crate::array::Array;
use crate::ops::IndexItem;
use std::sync::Arc;
use tegula_core::grid::common_refinement;
use tegula_core::{value_err, AxisChunks, ChunkSpec, Chunks, DType, Result, Select};
use tegula_exec::BlockFunction;
use tegula_kernels::layout::{reshape, select, transpose};
use tegula_kernels::Chunk;

/// Arrays laid out for `blockwise` on shared internal axes, and how to undo it per block.
#[derive(Debug, Clone)]
pub struct BlockwiseLayout {
    /// The arrays on the internal axes, broadcast to one shape and one block grid.
    pub arrays: Vec<Array>,
    /// For each array, the internal axis of each of its own axes, in its own order.
    pub axes: Vec<Vec<usize>>,
    /// The result's block lengths on the internal axes (the result's indices, then a
    /// length-one axis for each contracted index).
    pub chunks: Chunks,
    /// How many internal axes the result keeps (the rest are contracted).
    pub kept: usize,
}

impl BlockwiseLayout {
    /// The layout of `inputs` (each array with one index letter per axis) for a result
    /// indexed `out_index`; `new_axes` gives the lengths of result indices no input has, and
    /// the axes of the indices in `whole` are one block each (as contracted and new ones
    /// are; `apply_gufunc`'s core axes).
    pub fn new(out_index: &str, inputs: &[(&Array, &str)], new_axes: &[(char, usize)], whole: &str) -> Result<BlockwiseLayout> {
        let mut labels: Vec<char> = out_index.chars().collect();
        let kept = labels.len();
        for (_, index) in inputs {
            for c in index.chars() {
                if !labels.contains(&c) {
                    labels.push(c);
                }
            }
        }
        let shape = lengths(&labels, inputs, new_axes)?;
        let whole: Vec<bool> =
            labels.iter().enumerate().map(|(j, c)| j >= kept || whole.contains(*c) || new_axes.iter().any(|(n, _)| n == c)).collect();
        let mut arrays = Vec::with_capacity(inputs.len());
        let mut axes = Vec::with_capacity(inputs.len());
        for (x, index) in inputs {
            let own: Vec<usize> = index.chars().map(|c| labels.iter().position(|l| *l == c).expect("collected")).collect();
            if own.len() != x.ndim() {
                return Err(value_err!("index {index:?} does not match an array of {} axes", x.ndim()));
            }
            arrays.push(laid_out(x, &own, &shape, &whole)?);
            axes.push(own);
        }
        let arrays = one_grid(&arrays)?;
        let grid = arrays.first().map(|a| a.chunks().sizes().to_vec()).unwrap_or_else(|| shape.iter().map(|&n| vec![n]).collect());
        let mut sizes: Vec<Vec<usize>> = grid.into_iter().take(kept).collect();
        for (j, c) in labels.iter().enumerate().take(kept) {
            if let Some((_, n)) = new_axes.iter().find(|(l, _)| l == c) {
                sizes[j] = vec![*n];
            }
        }
        sizes.extend((kept..labels.len()).map(|_| vec![1]));
        let mut out_shape = shape[..kept].to_vec();
        out_shape.extend((kept..labels.len()).map(|_| 1));
        Ok(BlockwiseLayout { arrays, axes, chunks: Chunks::new(sizes, &out_shape)?, kept })
    }

    /// Array `k`'s block as the function sees it: in the array's own index order, without
    /// the length-one axes the layout gave it.
    pub fn own_block(&self, k: usize, block: &Chunk) -> Result<Chunk> {
        let own = &self.axes[k];
        let take: Vec<Select> = (0..block.ndim())
            .map(|j| if own.contains(&j) { Select::Range { start: 0, stop: block.shape()[j], step: 1 } } else { Select::Index(0) })
            .collect();
        let taken = select(block, &take)?;
        // The kept axes are in internal order; the array's own order sorts them by position in `own`.
        let mut sorted = own.clone();
        sorted.sort_unstable();
        let perm: Vec<usize> = own.iter().map(|a| sorted.iter().position(|s| s == a).expect("present")).collect();
        if perm.iter().enumerate().all(|(i, &p)| i == p) { Ok(taken) } else { transpose(&taken, &perm) }
    }

    /// `function` (given the laid-out blocks, returning a result block on the internal axes)
    /// over every block, the contracted axes then dropped.
    pub fn apply(&self, function: Arc<dyn BlockFunction>, name: &str, dtype: DType) -> Result<Array> {
        let inputs: Vec<&Array> = self.arrays.iter().collect();
        let out = Array::map_blocks(&inputs, function, name, self.chunks.clone(), dtype)?;
        if self.kept == out.ndim() {
            return Ok(out);
        }
        let key: Vec<IndexItem> = (0..out.ndim()).map(|j| if j < self.kept { crate::constant::all() } else { IndexItem::Int(0) }).collect();
        out.index(&key)
    }
}

/// Each internal axis's length: `new_axes`', else the inputs' (broadcast: length one gives
/// way to any other).
fn lengths(labels: &[char], inputs: &[(&Array, &str)], new_axes: &[(char, usize)]) -> Result<Vec<usize>> {
    let mut found: Vec<Option<usize>> = labels.iter().map(|c| new_axes.iter().find(|(l, _)| l == c).map(|(_, n)| *n)).collect();
    for (x, index) in inputs {
        for (c, n) in index.chars().zip(x.shape()) {
            let j = labels.iter().position(|l| *l == c).expect("collected");
            found[j] = match found[j] {
                Some(m) if m != n && m != 1 && n != 1 => return Err(value_err!("index {c:?} has lengths {m} and {n}")),
                Some(m) => Some(m.max(n)),
                None => Some(n),
            };
        }
    }
    let missing: String = labels.iter().zip(&found).filter(|(_, n)| n.is_none()).map(|(c, _)| *c).collect();
    if !missing.is_empty() {
        return Err(value_err!("output indices {missing:?} appear in no input; give their lengths in new_axes"));
    }
    Ok(found.into_iter().map(|n| n.unwrap_or(1)).collect())
}

/// `x` (whose axes are the internal axes `own`) on all internal axes: transposed to
/// internal order, length one where it has no axis, broadcast to `shape`, whole where
/// `whole` says.
fn laid_out(x: &Array, own: &[usize], shape: &[usize], whole: &[bool]) -> Result<Array> {
    let mut order: Vec<usize> = (0..own.len()).collect();
    order.sort_by_key(|&k| own[k]);
    let x = if order.iter().enumerate().all(|(i, &k)| i == k) {
        x.clone()
    } else {
        x.transpose(Some(&order.iter().map(|&k| k as i64).collect::<Vec<_>>()))?
    };
    let full: Vec<i64> = (0..shape.len()).map(|j| own.iter().position(|&a| a == j).map_or(1, |k| x.shape()[order.iter().position(|&o| o == k).expect("ordered")] as i64)).collect();
    let x = x.reshape(&full)?.broadcast_to(shape)?;
    let chunks = whole.iter().zip(x.chunks().sizes()).map(|(&w, s)| if w { AxisChunks::Full } else { AxisChunks::Explicit(s.clone()) }).collect();
    x.rechunk(&ChunkSpec::PerAxis(chunks))
}

/// Arrays of one shape rechunked to one block grid: every array's boundaries together.
fn one_grid(arrays: &[Array]) -> Result<Vec<Array>> {
    let Some(first) = arrays.first() else { return Ok(Vec::new()) };
    let grid: Vec<Vec<usize>> = (0..first.ndim())
        .map(|j| arrays.iter().map(|a| a.chunks().sizes()[j].clone()).reduce(|acc, c| if acc == c { acc } else { common_refinement(&acc, &c) }).expect("one array"))
        .collect();
    let spec = ChunkSpec::PerAxis(grid.into_iter().map(AxisChunks::Explicit).collect());
    arrays.iter().map(|a| a.rechunk(&spec)).collect()
}

impl Array {
    /// Dask's `blockwise` with a Rust closure: `function` gets, per result block (its block
    /// index on the result's axes), each input's block in that input's own index order; an
    /// index absent from `out_index` is contracted (its axis is given whole and `function`
    /// must remove it). `new_axes`: lengths of result indices no input has.
    pub fn blockwise(
        function: impl Fn(&[usize], &[Chunk]) -> Result<Chunk> + Send + Sync + 'static,
        out_index: &str,
        inputs: &[(&Array, &str)],
        new_axes: &[(char, usize)],
        name: &str,
        dtype: DType,
    ) -> Result<Array> {
        let layout = BlockwiseLayout::new(out_index, inputs, new_axes, "")?;
        let views = layout.clone();
        let wrapped = move |block: &[usize], blocks: &[Chunk]| {
            let own = blocks.iter().enumerate().map(|(k, b)| views.own_block(k, b)).collect::<Result<Vec<_>>>()?;
            let out = function(&block[..views.kept], &own)?;
            let mut shape = out.shape().to_vec();
            shape.resize(block.len(), 1);
            reshape(&out, &shape)
        };
        layout.apply(Arc::new(wrapped), name, dtype)
    }
}
