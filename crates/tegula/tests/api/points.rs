//! `take_points` (points at coordinates known when built) against the same points read off an
//! ndarray, over random shapes, chunkings and coordinates (negative and repeated ones too).

use ndarray::{ArrayD, Axis};
use proptest::prelude::*;
use tegula::{Array, AxisChunks, ChunkSpec};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn points_match_the_elements_they_name(
        shape in prop::collection::vec(1usize..=6, 2..=4),
        blocks in prop::collection::vec(1usize..=4, 4),
        axis_picks in prop::collection::vec(any::<bool>(), 4),
        raw in prop::collection::vec(any::<u16>(), 0..=40),
    ) {
        let nd = shape.len();
        let mut axes: Vec<usize> = (0..nd).filter(|&a| axis_picks[a]).collect();
        if axes.len() < 2 {
            axes = vec![0, nd - 1];
        }
        let size: usize = shape.iter().product();
        let data = ArrayD::from_shape_vec(shape.clone(), (0..size as i64).collect()).unwrap();
        let chunks = ChunkSpec::PerAxis(blocks[..nd].iter().map(|&b| AxisChunks::Size(b)).collect());
        let x = Array::from_ndarray(data.clone(), &chunks).unwrap();
        let points = raw.len() / axes.len();
        // Coordinate k of point p, counted from the end for odd raw values.
        let coords: Vec<Vec<i64>> = axes
            .iter()
            .enumerate()
            .map(|(k, &a)| (0..points).map(|p| {
                let v = raw[p * axes.len() + k] as i64 % shape[a] as i64;
                if v % 2 == 1 { v - shape[a] as i64 } else { v }
            }).collect())
            .collect();
        let slices: Vec<&[i64]> = coords.iter().map(Vec::as_slice).collect();
        let Some(taken) = x.take_points(&slices, &axes.iter().map(|&a| a as i64).collect::<Vec<_>>()).unwrap() else {
            // Left to a gather only with no points, or more than twice the blocks of the grid
            // they index (each point is at most one piece).
            let grid: usize = axes.iter().map(|&a| shape[a].div_ceil(blocks[a])).product();
            prop_assert!(points == 0 || points > 2 * grid, "{points} points over {grid} blocks");
            return Ok(());
        };
        // Expected: point p's sub-array (the axes left, in order) where the first indexed axis was.
        let mut rest_shape: Vec<usize> = (0..nd).filter(|a| !axes.contains(a)).map(|a| shape[a]).collect();
        let parts: Vec<ArrayD<i64>> = (0..points)
            .map(|p| {
                let mut view = data.view();
                for (k, &a) in axes.iter().enumerate().rev() {
                    let c = coords[k][p].rem_euclid(shape[a] as i64) as usize;
                    view = view.index_axis_move(Axis(a), c);
                }
                view.to_owned()
            })
            .collect();
        let views: Vec<_> = parts.iter().map(|a| a.view().insert_axis(Axis(axes[0]))).collect();
        rest_shape.insert(axes[0], points);
        let expected = ndarray::concatenate(Axis(axes[0]), &views).unwrap();
        prop_assert_eq!(taken.shape(), rest_shape.clone());
        let got = taken.compute().unwrap();
        prop_assert_eq!(got.typed::<i64>().unwrap(), &expected.into());
    }
}

#[test]
fn a_coordinate_outside_is_an_index_error() {
    let x = Array::zeros(&[4, 5], tegula::DType::Float64, &ChunkSpec::All(AxisChunks::Size(2))).unwrap();
    let err = x.take_points(&[&[0, 1], &[1, 5]], &[0, 1]).unwrap_err();
    assert!(matches!(err, tegula::TegulaError::Index(ref m) if m.contains("index 5 is out of bounds for axis 1 with size 5")), "{err}");
    assert!(x.take_points(&[&[0, 1]], &[0, 1]).is_err());
}
