//! Count, mean and M2 over the first axis of float64 rows in one pass: each column's values
//! are shifted by that column's first value, and the sums of the shifted values and of their
//! squares are kept. Two passes (the mean, then the squared deviations) would need each band
//! twice, and merging a (count, mean, M2) per band costs two divisions per column and band,
//! which for wide rows (a band of one to three rows) made `std(axis=0)` several times slower
//! than `mean(axis=0)`.
//!
//! Precision: with `d = x - k`, `M2 = Σd² - (Σd)²/n` loses about `ε · Σd² / M2` relative. As `k`
//! is one of the column's own values, `Σd² = M2 + n(mean - k)² ≤ (n + 1) M2`, so the loss is at
//! most about `(n + 1) ε` whatever the data's offset, where the textbook one-pass sums (`k = 0`)
//! lose everything once the offset dwarfs the spread.

use crate::ahead::{windows, Ahead};
use ndarray::{Array, IxDyn};
use tegula_core::{internal_err, Result};

/// Running shifted sums of the rows seen so far, one entry per column.
pub(crate) struct ShiftedMoments {
    shift: Vec<f64>,
    sum: Vec<f64>,
    squares: Vec<f64>,
    rows: usize,
}

impl ShiftedMoments {
    /// Sums that start from `first`, the first row, which also gives the shifts: its own
    /// shifted values are zero, or NaN for a NaN or an infinity, which must reach the result.
    fn new(first: &[f64]) -> ShiftedMoments {
        let sum: Vec<f64> = first.iter().map(|&x| if x.is_finite() { 0.0 } else { f64::NAN }).collect();
        let squares = sum.iter().map(|&d| d * d).collect();
        ShiftedMoments { shift: first.to_vec(), sum, squares, rows: 1 }
    }

    /// Adds `rows` to `sums`, the first of them starting the sums when there are none yet,
    /// asking for the rows `ahead` meanwhile.
    pub(crate) fn extend(sums: &mut Option<ShiftedMoments>, rows: &[&[f64]], ahead: Ahead) {
        match (sums.as_mut(), rows.split_first()) {
            (Some(sums), _) => sums.add(rows, ahead),
            (None, Some((first, rest))) => sums.insert(ShiftedMoments::new(first)).add(rest, ahead),
            (None, None) => {}
        }
    }

    /// Adds `rows`, each as long as the first row, in order.
    fn add(&mut self, rows: &[&[f64]], ahead: Ahead) {
        self.rows += rows.len();
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { add_avx2(&self.shift, &mut self.sum, &mut self.squares, rows, ahead) };
        }
        add_by_window(&self.shift, &mut self.sum, &mut self.squares, rows, ahead)
    }

    /// The partial `reduce_combine` merges: rows of counts, means and M2 stacked on a new
    /// leading axis, the first axis kept with length one and the others `rest`.
    pub(crate) fn finish(self, rest: &[usize]) -> Result<Array<f64, IxDyn>> {
        let n = self.rows as f64;
        let columns = self.shift.len();
        let mut out = Vec::with_capacity(3 * columns);
        out.resize(columns, n);
        out.extend(self.shift.iter().zip(&self.sum).map(|(&k, &s)| k + s / n));
        // A tiny negative M2 is rounding; NaN (a NaN or infinity among the values) stays NaN.
        out.extend(self.squares.iter().zip(&self.sum).map(|(&q, &s)| q - (s / n) * s).map(|m2| if m2 < 0.0 { 0.0 } else { m2 }));
        Array::from_shape_vec(IxDyn(&[&[3, 1][..], rest].concat()), out).map_err(|e| internal_err!("moments partial: {e}"))
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_avx2(shift: &[f64], sum: &mut [f64], squares: &mut [f64], rows: &[&[f64]], ahead: Ahead) {
    add_by_window(shift, sum, squares, rows, ahead)
}

/// The rows folded a column window at a time (`windows`), four rows at once, so that a
/// window's sums stay in registers and L1 while each row is one memory stream, the window of the
/// rows `ahead` asked for meanwhile (the same operations in the same order for each column,
/// with or without AVX2, so the same values).
#[inline(always)]
fn add_by_window(shift: &[f64], sum: &mut [f64], squares: &mut [f64], rows: &[&[f64]], ahead: Ahead) {
    let (windows, ahead) = windows(shift.len(), ahead);
    for cols in windows {
        ahead.columns(cols.clone());
        let (shift, sum, squares) = (&shift[cols.clone()], &mut sum[cols.clone()], &mut squares[cols.clone()]);
        let (quads, rest) = rows.as_chunks::<4>();
        for quad in quads {
            let [a, b, c, d] = quad.map(|row| &row[cols.clone()]);
            for ((((((s, q), &k), &a), &b), &c), &d) in sum.iter_mut().zip(squares.iter_mut()).zip(shift).zip(a).zip(b).zip(c).zip(d) {
                let (a, b, c, d) = (a - k, b - k, c - k, d - k);
                *s = *s + a + b + c + d;
                *q = *q + a * a + b * b + c * c + d * d;
            }
        }
        for row in rest {
            for (((s, q), &k), &x) in sum.iter_mut().zip(squares.iter_mut()).zip(shift).zip(&row[cols.clone()]) {
                let d = x - k;
                *s += d;
                *q += d * d;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ahead::LONG_ROW;

    /// Two-pass (count, mean, M2) of a column, the reference.
    fn two_pass(column: &[f64]) -> [f64; 3] {
        let n = column.len() as f64;
        let mean = column.iter().sum::<f64>() / n;
        [n, mean, column.iter().map(|x| (x - mean) * (x - mean)).sum()]
    }

    fn moments_of(rows: &[Vec<f64>]) -> Vec<f64> {
        let mut acc = None;
        let all: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
        ShiftedMoments::extend(&mut acc, &all[..1], Ahead::NONE);
        ShiftedMoments::extend(&mut acc, &all[1..], Ahead(&all[..1]));
        acc.unwrap().finish(&[rows[0].len()]).unwrap().into_raw_vec_and_offset().0
    }

    #[test]
    fn matches_two_passes_even_far_from_zero() {
        // 3 columns of 1000 rows: small values, values offset by 1e9, and an outlier first value.
        let rows: Vec<Vec<f64>> = (0..1000)
            .map(|i| {
                let v = ((i * 7919) % 1000) as f64 / 1000.0;
                vec![v, 1e9 + v, if i == 0 { 1e8 } else { v }]
            })
            .collect();
        let got = moments_of(&rows);
        for c in 0..3 {
            let column: Vec<f64> = rows.iter().map(|r| r[c]).collect();
            let want = two_pass(&column);
            for (k, w) in want.iter().enumerate() {
                let g = got[k * 3 + c];
                assert!((g - w).abs() <= 1e-9 * w.abs().max(1e-300), "column {c} moment {k}: {g} against {w}");
            }
        }
    }

    /// Rows longer than `LONG_ROW`, folded whole four at a time, give each column's moments.
    #[test]
    fn long_rows_match_two_passes() {
        let width = LONG_ROW + 5;
        let rows: Vec<Vec<f64>> = (0..7).map(|i| (0..width).map(|c| ((i * 31 + c * 17) % 101) as f64 * 0.5 + c as f64).collect()).collect();
        let got = moments_of(&rows);
        for c in [0, 1, LONG_ROW, width - 1] {
            let column: Vec<f64> = rows.iter().map(|r| r[c]).collect();
            for (k, w) in two_pass(&column).iter().enumerate() {
                let g = got[k * width + c];
                assert!((g - w).abs() <= 1e-9 * w.abs().max(1e-300), "column {c} moment {k}: {g} against {w}");
            }
        }
    }

    #[test]
    fn nan_and_infinity_give_nan_variance_and_rows_are_counted() {
        let rows = vec![vec![1.0, f64::INFINITY, 2.0, f64::NAN], vec![f64::NAN, 1.0, 4.0, 1.0], vec![3.0, 2.0, 6.0, 1.0]];
        let got = moments_of(&rows);
        assert_eq!(&got[..4], &[3.0, 3.0, 3.0, 3.0]);
        assert!(got[4].is_nan() && got[8].is_nan());
        assert!(got[9].is_nan(), "infinity minus infinity in M2");
        assert_eq!((got[6], got[10]), (4.0, 8.0));
        assert!(got[11].is_nan(), "a NaN in the first row, which gives the shifts");
    }
}
