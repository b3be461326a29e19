//! Chunk normalisation and grid math.

use proptest::prelude::*;
use tegula_core::chunks::{parse_bytes, split_axis};
use tegula_core::grid::{block_ranges, common_refinement, for_each_run, intersect, locate, offsets, ravel, unravel};
use tegula_core::{normalize_chunks, AxisChunks, ChunkSpec, TegulaError};

proptest! {
    #[test]
    fn regular_chunks_cover_the_shape(shape in prop::collection::vec(0usize..50, 0..4), block in 1usize..20) {
        let c = normalize_chunks(&ChunkSpec::All(AxisChunks::Size(block)), &shape, 8).unwrap();
        prop_assert_eq!(c.shape(), shape.clone());
        for axis in c.sizes() {
            prop_assert!(axis.iter().all(|&b| b <= block));
            // Only the last block may be short.
            prop_assert!(axis[..axis.len() - 1].iter().all(|&b| b == block));
        }
    }

    #[test]
    fn auto_chunks_stay_near_the_byte_target(shape in prop::collection::vec(1usize..3000, 1..4), target in 1usize..100_000) {
        let c = normalize_chunks(&ChunkSpec::Auto(target), &shape, 8).unwrap();
        prop_assert_eq!(c.shape(), shape.clone());
        let block_bytes: usize = c.max_block_shape().iter().product::<usize>() * 8;
        // Never larger than the target unless a single element already is.
        prop_assert!(block_bytes <= target.max(8) * 2, "{:?} -> {} bytes", c.max_block_shape(), block_bytes);
    }

    #[test]
    fn ravel_inverts_unravel(numblocks in prop::collection::vec(1usize..6, 0..4), seed in any::<usize>()) {
        let total: usize = numblocks.iter().product();
        let flat = seed % total;
        prop_assert_eq!(ravel(&unravel(flat, &numblocks), &numblocks), flat);
    }

    #[test]
    fn intersections_rebuild_each_new_block(n in 1usize..60, a in 1usize..13, b in 1usize..13) {
        let (old, new) = (split_axis(n, a), split_axis(n, b));
        let old_starts = offsets(&old);
        for (range, pieces) in block_ranges(&new).into_iter().zip(intersect(&old, &new)) {
            // The pieces, in order, are exactly the elements of the new block.
            let covered: Vec<usize> = pieces
                .iter()
                .flat_map(|p| { let base = old_starts[p.block]; (p.local.start..p.local.end).map(move |i| i + base) })
                .collect();
            prop_assert_eq!(covered, range.collect::<Vec<_>>());
        }
        let common = common_refinement(&old, &new);
        prop_assert_eq!(common.iter().sum::<usize>(), n);
        let cuts = offsets(&common);
        for start in offsets(&old).into_iter().chain(offsets(&new)) {
            prop_assert!(cuts.contains(&start));
        }
    }

    #[test]
    fn locate_finds_the_block(n in 1usize..60, a in 1usize..13, i in any::<usize>()) {
        let sizes = split_axis(n, a);
        let i = i % n;
        let (block, local) = locate(&sizes, i);
        prop_assert_eq!(offsets(&sizes)[block] + local, i);
        prop_assert!(local < sizes[block]);
    }
}

#[test]
fn explicit_and_mixed_chunks() {
    let spec = ChunkSpec::PerAxis(vec![AxisChunks::Explicit(vec![2, 0, 3]), AxisChunks::Full, AxisChunks::Size(4)]);
    let c = normalize_chunks(&spec, &[5, 7, 10], 8).unwrap();
    assert_eq!(c.sizes(), &[vec![2, 0, 3], vec![7], vec![4, 4, 2]]);
    assert_eq!(c.numblocks(), vec![3, 1, 3]);
    let zero_axis = normalize_chunks(&ChunkSpec::All(AxisChunks::Size(3)), &[0, 4], 8).unwrap();
    assert_eq!(zero_axis.sizes(), &[vec![0], vec![3, 1]]);
}

#[test]
fn bad_chunks_are_value_errors() {
    let wrong_sum = ChunkSpec::PerAxis(vec![AxisChunks::Explicit(vec![2, 2])]);
    assert!(matches!(normalize_chunks(&wrong_sum, &[5], 8), Err(TegulaError::Value(_))));
    let wrong_ndim = ChunkSpec::PerAxis(vec![AxisChunks::Size(2)]);
    assert!(matches!(normalize_chunks(&wrong_ndim, &[5, 5], 8), Err(TegulaError::Value(_))));
    let zero = ChunkSpec::All(AxisChunks::Size(0));
    assert!(matches!(normalize_chunks(&zero, &[5], 8), Err(TegulaError::Value(_))));
}

#[test]
fn byte_sizes() {
    assert_eq!(parse_bytes("128MiB"), Ok(128 << 20));
    assert_eq!(parse_bytes("1 GB"), Ok(1_000_000_000));
    assert_eq!(parse_bytes("4096"), Ok(4096));
    assert!(parse_bytes("12 parsecs").is_err());
}

proptest! {
    #[test]
    fn for_each_block_visits_the_grid_in_block_indices_order(numblocks in prop::collection::vec(0usize..4, 0..4)) {
        let mut visited = Vec::new();
        tegula_core::grid::for_each_block(&numblocks, |idx| visited.push(idx.to_vec()));
        let expected: Vec<Vec<usize>> = tegula_core::grid::block_indices(&numblocks).collect();
        prop_assert_eq!(visited, expected);
    }
}

#[test]
fn runs_cover_a_region_in_order() {
    let shape = [4, 5, 6];
    let region = [(1, 3), (2, 4), (0, 6)];
    let mut seen = Vec::new();
    for_each_run(&shape, &region, |file, out, len| {
        seen.push((file, out, len));
        Ok::<_, ()>(())
    })
    .unwrap();
    assert_eq!(seen, vec![(42, 0, 12), (72, 12, 12)]);
    let mut all = Vec::new();
    for_each_run(&shape, &[(0, 4), (0, 5), (0, 6)], |f, o, l| {
        all.push((f, o, l));
        Ok::<_, ()>(())
    }).unwrap();
    assert_eq!(all, vec![(0, 0, 120)]);
    let mut cols = Vec::new();
    for_each_run(&[3, 4], &[(0, 2), (1, 2)], |f, o, l| {
        cols.push((f, o, l));
        Ok::<_, ()>(())
    }).unwrap();
    assert_eq!(cols, vec![(1, 0, 1), (5, 1, 1)]);
}
