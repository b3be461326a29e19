//! The singular values of a large real matrix by the two-stage reduction (as LAPACK's and
//! PLASMA's `gesvd_2stage`). faer's one-stage bidiagonalisation applies each reflector to the
//! whole trailing matrix as a matrix-vector product, so it runs at memory speed. Here stage 1
//! reduces the matrix to an upper band of `b` superdiagonals with block reflectors (matrix
//! products, at arithmetic speed); stage 2 chases the band down to a bidiagonal with small
//! reflectors on a compact copy of the band that stays in cache (O(n²b) work); stage 3 finds
//! the bidiagonal's singular values by implicit QR sweeps (O(n²)). Every step is orthogonal,
//! so the values have LAPACK's accuracy: an absolute error of a small multiple of
//! `n·eps·σ_max`.

use crate::element::Elem;
use crate::scaling::power_of_two_scaling;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::householder as hh;
use faer::linalg::qr::no_pivoting::factor::{qr_in_place, qr_in_place_scratch};
use faer::prelude::{Reborrow, ReborrowMut};
use faer::traits::RealField;
use faer::{Conj, Mat, MatMut, MatRef, Par};
use std::ops::Range;
use tegula_core::{linalg_err, Result};

/// Below this many rows or columns faer's one-stage SVD is as fast (the trailing matrix of its
/// reduction fits in cache).
const TWO_STAGE_FROM: usize = 512;

/// Stage 1's bandwidth for a matrix `n` columns wide (after transposing a wide one): a wider
/// band puts more arithmetic in its block reflectors' products per byte of the trailing matrix
/// read, and stage 2's work grows with it. 32 is best up to about 2000 columns, 64 beyond (at
/// 4000 it saves a quarter of stage 1, at 8000 as much as 96 would, with less for stage 2).
fn band_width(n: usize) -> usize {
    if n < 2048 { 32 } else { 64 }
}

/// The singular values of `x`, descending (NumPy's order), by two stages; `None` below
/// `TWO_STAGE_FROM` rows or columns (the caller's one-stage SVD is as fast there). An error
/// when an element is not finite (or, never seen, when the QR sweeps do not converge). The
/// caller fixes faer's parallelism first (`field::fixed_splits`, as every linear algebra
/// kernel does).
pub(crate) fn singular_values_two_stage<T: RealField + Elem>(x: MatRef<T>) -> Option<Result<Vec<T>>> {
    let n = x.nrows().min(x.ncols());
    (n >= TWO_STAGE_FROM).then(|| banded_singular_values(x, band_width(n)))
}

/// [`singular_values_two_stage`] through a band of `b` superdiagonals, whatever the size.
fn banded_singular_values<T: RealField + Elem>(x: MatRef<T>, b: usize) -> Result<Vec<T>> {
    if x.nrows() == 0 || x.ncols() == 0 {
        return Ok(Vec::new());
    }
    let (mut a, scale) = tall_scaled_copy(x).ok_or_else(not_converged)?;
    // Reducing R after a QR (2mn² − 2n³/3 flops, then 8n³/3) costs fewer flops than reducing
    // the m × n matrix directly (4mn² − 4n³/3) once m > 5n/3.
    if 3 * a.nrows() > 5 * a.ncols() {
        a = a.qr().thin_R().to_owned();
    }
    reduce_to_band(a.as_mut(), b);
    let (mut d, mut e) = Band::from_upper(a.as_ref(), b).bidiagonal();
    bidiagonal_singular_values(&mut d, &mut e)?;
    let mut values: Vec<T> = d.into_iter().map(|v| T::abs_impl(&v) * T::from_f64_impl(scale)).collect();
    // A NaN (none should come of finite input) is the error NumPy gives, not a panic.
    if values.iter().any(|v| v.partial_cmp(v).is_none()) {
        return Err(not_converged());
    }
    values.sort_by(|p, q| q.partial_cmp(p).unwrap_or(std::cmp::Ordering::Equal));
    Ok(values)
}

/// The error faer's SVD gives (and NumPy's `LinAlgError` message).
fn not_converged() -> tegula_core::TegulaError {
    linalg_err!("SVD did not converge")
}

/// `x`, transposed when wide (the same singular values, and stage 1 wants `m ≥ n`), column-major
/// and times the power of two that brings its largest magnitude into `[1, 2)`, so that sums of
/// squares neither overflow nor underflow; with the power's inverse. `None` when an element is
/// not finite (the sweeps would never converge).
fn tall_scaled_copy<T: RealField + Elem>(x: MatRef<T>) -> Option<(Mat<T>, f64)> {
    let x = if x.nrows() < x.ncols() { x.transpose() } else { x };
    let mut largest = 0f64;
    for j in 0..x.ncols() {
        for i in 0..x.nrows() {
            let v = x[(i, j)].cast::<f64>();
            if !v.is_finite() {
                return None;
            }
            largest = largest.max(v.abs());
        }
    }
    let (factors, scale) = if largest > 0.0 { power_of_two_scaling(largest) } else { ([1.0; 2], 1.0) };
    let [f, g] = factors.map(T::from_f64_impl);
    Some((Mat::from_fn(x.nrows(), x.ncols(), |i, j| x[(i, j)] * f * g), scale))
}

/// Stage 1: `a` (`m × n`, `m ≥ n`) times orthogonal matrices on both sides, in place, so that
/// its top `n × n` is upper banded with `b` superdiagonals (what lies outside that band is
/// workspace). Each step takes the QR of a panel of `b` columns and applies its `Qᵀ` to the
/// columns right of it, then the LQ of the panel's `b` rows right of the band and applies its
/// `Q` to the rows below: two block reflectors, each applied as matrix products.
fn reduce_to_band<T: RealField + Copy>(mut a: MatMut<'_, T>, b: usize) {
    let n = a.ncols();
    let par = faer::get_global_parallelism();
    for k in (0..n).step_by(b) {
        let w = b.min(n - k);
        let (panel, right) = a.rb_mut().get_mut(k.., k..).split_at_col_mut(w);
        column_panel(panel, right, par);
        let (panel, below) = a.rb_mut().get_mut(k.., k + w..).split_at_row_mut(w);
        row_panel(panel, below, par);
    }
}

/// The QR of `panel` in place (`R` in its upper triangle), `Qᵀ` applied to `right`.
fn column_panel<T: RealField + Copy>(mut panel: MatMut<'_, T>, right: MatMut<'_, T>, par: Par) {
    let coeff = householder_qr(panel.rb_mut(), par);
    if right.ncols() == 0 {
        return;
    }
    let req = hh::apply_block_householder_sequence_transpose_on_the_left_in_place_scratch::<T>(panel.nrows(), coeff.nrows(), right.ncols());
    let mut buffer = MemBuffer::new(req);
    hh::apply_block_householder_sequence_transpose_on_the_left_in_place_with_conj(panel.rb(), coeff.as_ref(), Conj::No, right, par, MemStack::new(&mut buffer));
}

/// The LQ of `panel` (`w × r`): `panel = L Qᵀ`, `L` written into its lower triangle and `Q`
/// applied to `below` from the right. Taken as the QR of `panelᵀ`, copied column-major, since
/// faer's QR of a row-major view runs at a fraction of the speed.
fn row_panel<T: RealField + Copy>(mut panel: MatMut<'_, T>, below: MatMut<'_, T>, par: Par) {
    if panel.ncols() == 0 {
        return;
    }
    let mut t = panel.rb().transpose().to_owned();
    let coeff = householder_qr(t.as_mut(), par);
    let size = coeff.ncols();
    panel.rb_mut().get_mut(.., ..size).copy_from_triangular_lower(t.get(..size, ..).transpose());
    if below.nrows() == 0 {
        return;
    }
    let req = hh::apply_block_householder_sequence_on_the_right_in_place_scratch::<T>(t.nrows(), coeff.nrows(), below.nrows());
    let mut buffer = MemBuffer::new(req);
    hh::apply_block_householder_sequence_on_the_right_in_place_with_conj(t.as_ref(), coeff.as_ref(), Conj::No, below, par, MemStack::new(&mut buffer));
}

/// faer's Householder QR of `a` in place, its reflectors as one block (a panel is narrow, so
/// one block reflector applies the whole of its `Q` with one pair of matrix products): returns
/// the block's triangular factor.
fn householder_qr<T: RealField + Copy>(a: MatMut<'_, T>, par: Par) -> Mat<T> {
    let size = a.nrows().min(a.ncols());
    let mut coeff = Mat::zeros(size, size);
    let mut buffer = MemBuffer::new(qr_in_place_scratch::<T>(a.nrows(), a.ncols(), size, par, Default::default()));
    qr_in_place(a, coeff.as_mut(), par, MemStack::new(&mut buffer), Default::default());
    coeff
}

/// An `n × n` matrix stored by rows, each keeping the `3b − 1` columns from `b − 1` left of
/// the diagonal to `2b − 1` right of it: stage 1's upper band (`b` superdiagonals) and the fill
/// its bulge chasing makes. Row `i` occupies `data[i·(3b − 1)..(i + 1)·(3b − 1)]`, so a row's
/// stretch of columns is one contiguous slice.
struct Band<T> {
    n: usize,
    b: usize,
    data: Vec<T>,
}

impl<T: RealField + Copy> Band<T> {
    /// The upper band (`b` superdiagonals) of the top `n × n` of `a`.
    fn from_upper(a: MatRef<T>, b: usize) -> Band<T> {
        let n = a.ncols();
        let mut band = Band { n, b, data: vec![T::zero(); n * (3 * b - 1)] };
        for i in 0..n {
            for j in i..(i + b + 1).min(n) {
                let at = band.at(i, j);
                band.data[at] = a[(i, j)];
            }
        }
        band
    }

    /// Where element `(i, j)` is kept (`i − b < j < i + 2b`): row `i` starts at `i·(3b − 1)`
    /// with column `i − (b − 1)`, so the offset grows by one less per row than per column.
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> usize {
        i * (3 * self.b - 2) + j + self.b - 1
    }

    /// Row `i`'s elements in `cols`.
    #[inline(always)]
    fn row(&mut self, i: usize, cols: Range<usize>) -> &mut [T] {
        debug_assert!(cols.start + self.b > i && cols.end <= i + 2 * self.b, "row {i}, columns {cols:?}: outside the storage");
        let at = self.at(i, cols.start);
        &mut self.data[at..at + cols.len()]
    }

    /// Stage 2: the bidiagonal (diagonal, superdiagonal) the band reduces to, its sweeps
    /// compiled for the widest vectors the CPU has.
    fn bidiagonal(mut self) -> (Vec<T>, Vec<T>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F, checked just above.
            unsafe { self.sweeps_avx512() };
        } else if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            unsafe { self.sweeps_avx2() };
        } else {
            self.sweeps();
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.sweeps();
        let n = self.n;
        let d = (0..n).map(|i| self.data[self.at(i, i)]).collect();
        let e = (1..n).map(|i| self.data[self.at(i - 1, i)]).collect();
        (d, e)
    }

    /// [`Band::sweeps`] compiled for AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn sweeps_avx512(&mut self) {
        self.sweeps()
    }

    /// [`Band::sweeps`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn sweeps_avx2(&mut self) {
        self.sweeps()
    }

    /// One sweep per row but the last two (bidiagonal already). Inlined into each of its
    /// vector-width variants, which run the same operations in the same order (no fused
    /// multiply-adds, sums in a fixed order), so every machine computes the same values.
    #[inline(always)]
    fn sweeps(&mut self) {
        if self.b < 2 {
            return;
        }
        let mut reflector = vec![T::zero(); self.b];
        let mut work = vec![T::zero(); 2 * self.b];
        for s in 0..self.n.saturating_sub(2) {
            self.sweep(s, &mut reflector, &mut work);
        }
    }

    /// Sweep `s`: a reflector from the right clears row `s` beyond its first superdiagonal; it
    /// fills the block below with a bulge, whose first column a reflector from the left clears;
    /// that one fills the rows' next `b` columns, whose first row the next reflector from the
    /// right clears, and so on down the band (Lang's bulge chasing). The rest of each bulge is
    /// cleared by later sweeps, one column further on, so the fill stays within the storage.
    #[inline(always)]
    fn sweep(&mut self, s: usize, v: &mut [T], work: &mut [T]) {
        let (n, b) = (self.n, self.b);
        let cols = s + 1..(s + 1 + b).min(n);
        self.clear_row(s, cols.clone(), s + 1..cols.end, v);
        let mut r = s + 1;
        loop {
            let rows = r..(r + b).min(n);
            if rows.len() < 2 {
                return;
            }
            self.clear_column(r, rows, r + 1..(r + 2 * b).min(n), v, work);
            let cols = r + b..(r + 2 * b).min(n);
            if cols.len() < 2 {
                return;
            }
            self.clear_row(r, cols.clone(), r + 1..cols.end, v);
            r += b;
        }
    }

    /// A reflector from the right over `cols` that leaves only the first of row `i`'s elements
    /// there, applied to `rows` too.
    #[inline(always)]
    fn clear_row(&mut self, i: usize, cols: Range<usize>, rows: Range<usize>, v: &mut [T]) {
        let v = &mut v[..cols.len()];
        let x = self.row(i, cols.clone());
        v.copy_from_slice(x);
        let (tau, beta) = reflector(v);
        x.fill(T::zero());
        x[0] = beta;
        if tau == T::zero() {
            return;
        }
        for r in rows {
            let row = self.row(r, cols.clone());
            let k = tau * dot(row, v);
            for (a, &v) in row.iter_mut().zip(v.iter()) {
                *a -= k * v;
            }
        }
    }

    /// A reflector from the left over `rows` that leaves only the first of column `j`'s
    /// elements there, applied to their elements in `cols` too (`j` not among them).
    #[inline(always)]
    fn clear_column(&mut self, j: usize, rows: Range<usize>, cols: Range<usize>, v: &mut [T], work: &mut [T]) {
        let v = &mut v[..rows.len()];
        for (v, i) in v.iter_mut().zip(rows.clone()) {
            *v = self.data[self.at(i, j)];
        }
        let (tau, beta) = reflector(v);
        for i in rows.clone() {
            let at = self.at(i, j);
            self.data[at] = T::zero();
        }
        let at = self.at(rows.start, j);
        self.data[at] = beta;
        if tau == T::zero() {
            return;
        }
        // w = vᵀ·rows, then each row −= τ·vᵢ·w: both run along rows, contiguous here.
        let w = &mut work[..cols.len()];
        w.fill(T::zero());
        for (&v, i) in v.iter().zip(rows.clone()) {
            for (w, &a) in w.iter_mut().zip(self.row(i, cols.clone()).iter()) {
                *w += v * a;
            }
        }
        for (&v, i) in v.iter().zip(rows) {
            let k = tau * v;
            for (a, &w) in self.row(i, cols.clone()).iter_mut().zip(w.iter()) {
                *a -= k * w;
            }
        }
    }
}

/// The Householder reflector `I − τ·v·vᵀ` (`v₀ = 1`) that maps `x` to `(β, 0, …, 0)`, as
/// LAPACK's `larfg`: `x` is replaced by `v`; returns `(τ, β)`. `τ = 0` (the identity) when
/// `x` is already of that form. Computed from `x` divided by its largest magnitude: the band
/// holds many tiny elements (float32's most of all), whose squares would underflow, and a `τ`
/// off by more than rounding leaves the reflector not orthogonal, an error as large as the
/// rows it is then applied to.
#[inline(always)]
fn reflector<T: RealField + Copy>(x: &mut [T]) -> (T, T) {
    let alpha = x[0];
    let tail_largest = largest_magnitude(&x[1..]);
    if tail_largest == T::zero() {
        x[0] = T::one();
        return (T::zero(), alpha);
    }
    let abs_alpha = T::abs_impl(&alpha);
    let largest = if abs_alpha > tail_largest { abs_alpha } else { tail_largest };
    for x in x.iter_mut() {
        *x /= largest;
    }
    let alpha = x[0];
    let norm = T::sqrt_impl(&(alpha * alpha + dot(&x[1..], &x[1..])));
    let beta = if alpha > T::zero() { -norm } else { norm };
    // |alpha − beta| ≥ norm ≥ 1: the reciprocal is finite and at most 1.
    let scale = T::one() / (alpha - beta);
    x[0] = T::one();
    for x in &mut x[1..] {
        *x *= scale;
    }
    ((beta - alpha) / beta, beta * largest)
}

/// The largest `|aᵢ|`.
#[inline(always)]
fn largest_magnitude<T: RealField + Copy>(a: &[T]) -> T {
    a.iter().fold(T::zero(), |m, x| if T::abs_impl(x) > m { T::abs_impl(x) } else { m })
}

/// `Σ aᵢ·bᵢ` with eight running sums, so that it vectorises (the same order of operations, so
/// the same value, on every machine).
#[inline(always)]
fn dot<T: RealField + Copy>(a: &[T], b: &[T]) -> T {
    let mut sums = [T::zero(); 8];
    let (a8, a_rest) = a.as_chunks::<8>();
    let (b8, b_rest) = b.as_chunks::<8>();
    for (a, b) in a8.iter().zip(b8) {
        for k in 0..8 {
            sums[k] += a[k] * b[k];
        }
    }
    let mut total = ((sums[0] + sums[4]) + (sums[1] + sums[5])) + ((sums[2] + sums[6]) + (sums[3] + sums[7]));
    for (&a, &b) in a_rest.iter().zip(b_rest) {
        total += a * b;
    }
    total
}

/// Stage 3: the singular values (up to sign, in place of `d`) of the upper bidiagonal matrix
/// with diagonal `d` and superdiagonal `e`, by LAPACK's `bdsqr` without vectors: implicit QR
/// sweeps shifted by the bottom 2 × 2's smaller singular value (zero-shift sweeps when that is
/// negligible), 2 × 2 blocks in closed form. Elements below `eps·max` are set to zero, a
/// perturbation no larger than stages 1 and 2 make, so the values stay accurate to a small
/// multiple of `eps·σ_max`.
fn bidiagonal_singular_values<T: RealField + Copy>(d: &mut [T], e: &mut [T]) -> Result<()> {
    let n = d.len();
    let largest = d.iter().chain(e.iter()).fold(T::zero(), |m, &x| if T::abs_impl(&x) > m { T::abs_impl(&x) } else { m });
    let negligible = T::epsilon_impl() * largest;
    let mut budget = 6 * n * n;
    let mut hi = n;
    while hi > 1 {
        let mut lo = hi - 1;
        while lo > 0 && T::abs_impl(&e[lo - 1]) > negligible {
            lo -= 1;
        }
        if lo > 0 {
            e[lo - 1] = T::zero();
        }
        if let Some(i) = (lo..hi).find(|&i| T::abs_impl(&d[i]) <= negligible) {
            d[i] = T::zero();
            if hi - lo > 1 {
                clear_zero_diagonal(&mut d[lo..hi], &mut e[lo..hi - 1], i - lo);
                continue;
            }
        }
        match hi - lo {
            1 => hi -= 1,
            2 => {
                (d[lo], d[lo + 1]) = two_by_two(d[lo], e[lo], d[lo + 1]);
                e[lo] = T::zero();
                hi -= 2;
            }
            len => {
                budget = budget.checked_sub(len).ok_or_else(not_converged)?;
                qr_sweep(&mut d[lo..hi], &mut e[lo..hi - 1]);
            }
        }
    }
    Ok(())
}

/// With `d[i] = 0`, rotations that clear the row (`e[i]`, when `i` is not last) or, for the
/// last row, the column above (`e[i − 1]`): the zero then splits off as a singular value.
fn clear_zero_diagonal<T: RealField + Copy>(d: &mut [T], e: &mut [T], i: usize) {
    let last = d.len() - 1;
    if i < last {
        // Rotating rows j and i clears (i, j) into d[j] and moves -s·e[j] to (i, j + 1).
        let mut f = std::mem::replace(&mut e[i], T::zero());
        for j in i + 1..=last {
            let (c, s, r) = rotation(d[j], f);
            d[j] = r;
            if j < last {
                f = -(s * e[j]);
                e[j] *= c;
            }
        }
    } else {
        // Rotating columns j and `last` clears (j, last) into d[j] and moves -s·e[j-1] to
        // (j - 1, last).
        let mut f = std::mem::replace(&mut e[last - 1], T::zero());
        for j in (0..last).rev() {
            let (c, s, r) = rotation(d[j], f);
            d[j] = r;
            if j > 0 {
                f = -(s * e[j - 1]);
                e[j - 1] *= c;
            }
        }
    }
}

/// One implicit QR sweep down the unreduced bidiagonal block (`bdsqr`'s, chasing from the top).
fn qr_sweep<T: RealField + Copy>(d: &mut [T], e: &mut [T]) {
    let last = d.len() - 1;
    let (_, shift) = two_by_two(d[last - 1], e[last - 1], d[last]);
    let top = T::abs_impl(&d[0]);
    if shift / top * (shift / top) < T::epsilon_impl() {
        zero_shift_sweep(d, e);
    } else {
        shifted_sweep(d, e, shift);
    }
}

/// The sweep shifted by `shift`: the rotation that would start the QR step of `BᵀB − shift²`,
/// then rotations from both sides that chase the bulge it makes down to the bottom.
fn shifted_sweep<T: RealField + Copy>(d: &mut [T], e: &mut [T], shift: T) {
    let last = d.len() - 1;
    let sign = if d[0] < T::zero() { -T::one() } else { T::one() };
    let mut f = (T::abs_impl(&d[0]) - shift) * (sign + shift / d[0]);
    let mut g = e[0];
    for i in 0..last {
        let (c, s, r) = rotation(f, g);
        if i > 0 {
            e[i - 1] = r;
        }
        f = c * d[i] + s * e[i];
        e[i] = c * e[i] - s * d[i];
        g = s * d[i + 1];
        d[i + 1] *= c;
        let (c, s, r) = rotation(f, g);
        d[i] = r;
        f = c * e[i] + s * d[i + 1];
        d[i + 1] = c * d[i + 1] - s * e[i];
        if i + 1 < last {
            g = s * e[i + 1];
            e[i + 1] *= c;
        }
    }
    e[last - 1] = f;
}

/// Demmel and Kahan's zero-shift sweep: what the shifted one does with no shift, in fewer
/// operations and with every value computed to high relative accuracy (the small singular
/// values converge by it).
fn zero_shift_sweep<T: RealField + Copy>(d: &mut [T], e: &mut [T]) {
    let last = d.len() - 1;
    let (mut c, mut old_c, mut old_s) = (T::one(), T::one(), T::zero());
    for i in 0..last {
        let (c1, s, r) = rotation(d[i] * c, e[i]);
        c = c1;
        if i > 0 {
            e[i - 1] = old_s * r;
        }
        let (c2, s2, r2) = rotation(old_c * r, d[i + 1] * s);
        (old_c, old_s, d[i]) = (c2, s2, r2);
    }
    let h = d[last] * c;
    d[last] = h * old_c;
    e[last - 1] = h * old_s;
}

/// `(c, s, r)` with `[c s; −s c]·(f, g) = (r, 0)`, as LAPACK's `lartg`; computed from `f` and
/// `g` divided by the larger magnitude when they lie outside the range where their squares
/// are safe (there `1/r` could overflow too).
fn rotation<T: RealField + Copy>(f: T, g: T) -> (T, T, T) {
    if g == T::zero() {
        return (T::one(), T::zero(), f);
    }
    if f == T::zero() {
        return (T::zero(), T::one(), g);
    }
    let big = if T::abs_impl(&f) > T::abs_impl(&g) { T::abs_impl(&f) } else { T::abs_impl(&g) };
    let safe = big > T::sqrt_min_positive_impl() && big < T::sqrt_max_positive_impl() / T::from_f64_impl(4.0);
    let (f, g, unit) = if safe { (f, g, T::one()) } else { (f / big, g / big, big) };
    let r = T::sqrt_impl(&(f * f + g * g));
    let r = if f < T::zero() { -r } else { r };
    let inv = T::one() / r;
    (f * inv, g * inv, r * unit)
}

/// `(σ_max, σ_min)` of `[f g; 0 h]`, as LAPACK's `las2` (no overflow, and `σ_min` to high
/// relative accuracy).
fn two_by_two<T: RealField + Copy>(f: T, g: T, h: T) -> (T, T) {
    let (fa, ga, ha) = (T::abs_impl(&f), T::abs_impl(&g), T::abs_impl(&h));
    let (small, big) = if fa < ha { (fa, ha) } else { (ha, fa) };
    let one = T::one();
    let two = one + one;
    if small == T::zero() {
        let max = if big > ga { big } else { ga };
        let min = if big > ga { ga } else { big };
        let largest = if max == T::zero() { T::zero() } else { max * T::sqrt_impl(&(one + (min / max) * (min / max))) };
        return (largest, T::zero());
    }
    if ga < big {
        let sum = one + small / big;
        let diff = (big - small) / big;
        let ratio = (ga / big) * (ga / big);
        let c = two / (T::sqrt_impl(&(sum * sum + ratio)) + T::sqrt_impl(&(diff * diff + ratio)));
        return (big / c, small * c);
    }
    let ratio = big / ga;
    if ratio == T::zero() {
        // g dwarfs f and h: σ_max = |g|, σ_min = |f·h|/|g| to full precision.
        return (ga, small * big / ga);
    }
    let sum = one + small / big;
    let diff = (big - small) / big;
    let c = one / (T::sqrt_impl(&(one + (sum * ratio) * (sum * ratio))) + T::sqrt_impl(&(one + (diff * ratio) * (diff * ratio))));
    (ga / (c + c), (small * c) * ratio * two)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic matrix of values in (−1, 1) from a 64-bit LCG.
    fn random(m: usize, n: usize, seed: u64) -> Mat<f64> {
        random_sums(m, n, seed, 1)
    }

    /// A deterministic matrix, each value the sum of `terms` values in (−1, 1) from a 64-bit
    /// LCG (about normal for a few terms).
    fn random_sums(m: usize, n: usize, seed: u64, terms: usize) -> Mat<f64> {
        let step = |s: u64| s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let mut state = step(seed);
        Mat::from_fn(m, n, |_, _| {
            (0..terms)
                .map(|_| {
                    state = step(state);
                    (state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
                })
                .sum()
        })
    }

    /// `10·max(m, n)·eps·σ_max`: the absolute error LAPACK's accuracy allows.
    fn tolerance<T: RealField + Elem>(x: MatRef<T>, largest: f64) -> f64 {
        10.0 * x.nrows().max(x.ncols()) as f64 * T::epsilon_impl().cast::<f64>() * largest
    }

    /// Every value within [`tolerance`] of `expected`'s.
    fn assert_close<T: RealField + Elem>(x: MatRef<T>, ours: &[T], expected: &[f64], what: &str) {
        assert_eq!(ours.len(), expected.len(), "{what}");
        let tol = tolerance(x, expected.first().copied().unwrap_or(0.0));
        for (i, (p, &q)) in ours.iter().zip(expected).enumerate() {
            let p = p.cast::<f64>();
            assert!((p - q).abs() <= tol, "{what} {}x{}: σ[{i}] = {p} vs {q} (tol {tol})", x.nrows(), x.ncols());
        }
    }

    /// The values through a band of `b` match faer's one-stage SVD's; returns them.
    fn assert_matches_faer<T: RealField + Elem>(x: MatRef<T>, b: usize) -> Vec<T> {
        let ours = banded_singular_values(x, b).unwrap();
        let faer: Vec<f64> = x.singular_values().unwrap().iter().map(|v| v.cast()).collect();
        assert_close(x, &ours, &faer, &format!("b={b}"));
        ours
    }

    /// The values through a band of `b` match those of the float64 copy of `x`; returns them.
    fn assert_matches_float64<T: RealField + Elem>(x: MatRef<T>, b: usize, what: &str) -> Vec<T> {
        let ours = banded_singular_values(x, b).unwrap();
        assert_close(x, &ours, &float64_values(x), what);
        ours
    }

    /// The singular values of the float64 copy of `x` by faer's SVD: of the copy times the power
    /// of two that brings its largest magnitude near 1 (exactly: faer's SVD does not scale, and
    /// fails on tiny matrices), times that power's inverse.
    fn float64_values<T: RealField + Elem>(x: MatRef<T>) -> Vec<f64> {
        let largest = x.norm_max().cast::<f64>();
        let exponent = if largest > 0.0 { largest.log2().round() as i32 } else { 0 };
        // In two steps: 2^±exponent alone can overflow to infinity or underflow to zero.
        let times_power = |v: f64, e: i32| v * 2f64.powi(e / 2) * 2f64.powi(e - e / 2);
        let x64 = Mat::<f64>::from_fn(x.nrows(), x.ncols(), |i, j| times_power(x[(i, j)].cast(), -exponent));
        x64.svd().unwrap().S().column_vector().iter().map(|&v| times_power(v, exponent)).collect()
    }

    /// `x` rounded to float32.
    fn float32(x: &Mat<f64>) -> Mat<f32> {
        Mat::from_fn(x.nrows(), x.ncols(), |i, j| x[(i, j)] as f32)
    }

    /// Kahan's `n × n` matrix: upper triangular, 1 on the diagonal and −cos θ above it, row
    /// `i` times sinⁱ θ.
    fn kahan(n: usize, theta: f64) -> Mat<f64> {
        let (c, s) = (theta.cos(), theta.sin());
        Mat::from_fn(n, n, |i, j| s.powi(i as i32) * if i == j { 1.0 } else if j > i { -c } else { 0.0 })
    }

    #[test]
    fn float32_laplacian_has_its_closed_form_values() {
        // The 1-D Laplacian, 2 on the diagonal and ∓1 beside it: σ_k = 2 − 2·cos(kπ/(n + 1)).
        // Its band after stage 1 holds many tiny elements, whose squares underflow in float32.
        let n = 700;
        let exact: Vec<f64> = (1..=n).rev().map(|k| 2.0 - 2.0 * (k as f64 * std::f64::consts::PI / (n + 1) as f64).cos()).collect();
        for beside in [-1.0f32, 1.0] {
            let x = Mat::from_fn(n, n, |i, j| if i == j { 2.0 } else if i.abs_diff(j) == 1 { beside } else { 0.0 });
            assert_close(x.as_ref(), &singular_values_two_stage(x.as_ref()).unwrap().unwrap(), &exact, "laplacian");
        }
    }

    #[test]
    fn kahan_matrices() {
        // Graded down to sin⁵⁹⁹ θ: 1e-45 for θ = 1, float32's smallest subnormal; for θ = 0.3
        // float32's last 500 rows are zero, and float64's last rows subnormal, where faer's SVD
        // fails: there the reference is LAPACK's largest six (NumPy's `svdvals`).
        for theta in [1.0, 1.2] {
            assert_matches_float64(kahan(600, theta).as_ref(), band_width(600), "kahan");
        }
        let x = kahan(600, 0.3);
        let lapack = [24.48609627649204, 0.6307649274112994, 0.17438355142873055, 0.05070678095622446, 0.014922570393298966, 0.004405131325968154];
        let ours = singular_values_two_stage(x.as_ref()).unwrap().unwrap();
        assert_close(x.as_ref(), &ours[..6], &lapack, "kahan, subnormal rows");
        for theta in [0.3, 1.0] {
            assert_matches_float64(float32(&kahan(600, theta)).as_ref(), band_width(600), "kahan, float32");
        }
        assert_matches_float64(float32(&kahan(150, 1.2)).as_ref(), 4, "kahan, float32");
    }

    #[test]
    fn graded_matrices() {
        // Rows, columns or both times powers of two, down to float32's subnormals and zero.
        let graded = |m, n, seed, exponent: fn(usize, usize) -> i32| {
            let x = random(m, n, seed);
            Mat::from_fn(m, n, |i, j| x[(i, j)] * 2f64.powi(exponent(i, j)))
        };
        let rows_down = |i: usize, _| -(i as i32) / 4;
        let rows_up = |i: usize, _| i as i32 / 8 - 40;
        let columns_down = |_, j: usize| -(j as i32) / 3;
        let both_down = |i: usize, j: usize| -((i + j) as i32) / 6;
        for (seed, exponent) in [rows_down, rows_up, columns_down, both_down].into_iter().enumerate() {
            for (m, n, b) in [(560, 530, band_width(530)), (150, 120, 4), (110, 160, 3)] {
                let x = graded(m, n, seed as u64 + 20, exponent);
                assert_matches_float64(x.as_ref(), b, "graded");
                assert_matches_float64(float32(&x).as_ref(), b, "graded, float32");
            }
        }
    }

    #[test]
    fn tiny_and_huge_matrices() {
        // Largest magnitudes below 2⁻¹²⁸ (float32) and 2⁻¹⁰²² (float64), where the scaling's
        // factor lies beyond the type's range, some subnormal, and near overflow.
        let x = random(530, 520, 23);
        for scale in [1e-39, 1e-42, 1e36] {
            let tiny = Mat::from_fn(530, 520, |i, j| (x[(i, j)] * scale) as f32);
            assert_matches_float64(tiny.as_ref(), band_width(520), &format!("float32 times {scale:e}"));
        }
        for scale in [1e-300, 1e-310, 1e300] {
            assert_matches_float64((&x * scale).as_ref(), band_width(520), &format!("times {scale:e}"));
        }
    }

    #[test]
    fn rank_deficient_and_zero_columns_at_two_stage_sizes() {
        let low_rank = &random(530, 30, 24) * &random(30, 520, 25);
        let mut zero_columns = random(530, 520, 26);
        (100..200).chain((300..520).step_by(2)).for_each(|j| zero_columns.col_mut(j).fill(0.0));
        for (x, rank) in [(low_rank, 30), (zero_columns, 310)] {
            let b = band_width(520);
            let values = assert_matches_float64(x.as_ref(), b, "rank deficient");
            let tol = tolerance(x.as_ref(), values[0]);
            assert!(values[..rank].iter().all(|&v| v > tol) && values[rank..].iter().all(|&v| v <= tol), "rank {rank}");
            let values = assert_matches_float64(float32(&x).as_ref(), b, "rank deficient, float32");
            let tol = tolerance(float32(&x).as_ref(), values[0] as f64) as f32;
            assert!(values[..rank].iter().all(|&v| v > tol) && values[rank..].iter().all(|&v| v <= tol), "rank {rank}, float32");
        }
    }

    #[test]
    fn matches_faer_on_square_tall_and_wide_matrices() {
        let mut seed = 0;
        for n in [1, 2, 3, 5, 8, 13, 31, 64, 97, 160, 300] {
            for b in [2, 3, 4, 8, 16] {
                // Square; tall (reduced directly); tall (its R reduced); wide.
                for (m, n) in [(n, n), (n + n / 3 + 1, n), (2 * n + 5, n), (n, n + n / 2 + 2)] {
                    if m * n * b > 300 * 300 * 8 {
                        continue;
                    }
                    seed += 1;
                    assert_matches_faer(random(m, n, seed).as_ref(), b);
                }
            }
        }
    }

    #[test]
    fn matches_faer_in_float32() {
        for (seed, (m, n, b)) in [(1, 1, 2), (7, 7, 3), (50, 40, 4), (40, 90, 8), (130, 129, 16), (250, 100, 8)].into_iter().enumerate() {
            let x = random(m, n, seed as u64 + 100);
            assert_matches_faer(Mat::<f32>::from_fn(m, n, |i, j| x[(i, j)] as f32).as_ref(), b);
        }
    }

    #[test]
    fn rank_deficient_matrices_have_zero_singular_values() {
        // Products of rank r; a matrix with every other column zero; one whose middle columns
        // (whole panels) are zero: faer's panel QRs skip the negligible columns.
        let product = |m, n, r, seed| &random(m, r, seed) * &random(r, n, seed + 1);
        let mut every_other = random(90, 70, 5);
        (1..70).step_by(2).for_each(|j| every_other.col_mut(j).fill(0.0));
        let mut middle = random(80, 80, 6);
        (20..50).for_each(|j| middle.col_mut(j).fill(0.0));
        for (x, rank, b) in [(product(60, 60, 7, 1), 7, 4), (product(100, 45, 20, 3), 20, 8), (product(40, 120, 1, 8), 1, 16), (every_other, 35, 4), (middle, 50, 8)] {
            let values = assert_matches_faer(x.as_ref(), b);
            let tol = tolerance(x.as_ref(), values[0]);
            assert!(values[..rank].iter().all(|&v| v > tol) && values[rank..].iter().all(|&v| v <= tol), "rank {rank}");
        }
    }

    #[test]
    fn ill_conditioned_matrix_keeps_its_small_values() {
        // U·diag(σ)·Vᵀ with σ from 1 down to 1e-10 geometrically: each value within the
        // absolute tolerance of the exact one.
        let (m, n) = (150, 120);
        let u = random(m, m, 11).qr().compute_Q();
        let v = random(n, n, 12).qr().compute_Q();
        let sigma: Vec<f64> = (0..n).map(|i| 10f64.powf(-10.0 * i as f64 / (n - 1) as f64)).collect();
        let x = u.get(.., ..n) * Mat::from_fn(n, n, |i, j| if i == j { sigma[i] } else { 0.0 }) * v.transpose();
        for b in [3, 8, 16] {
            let ours = assert_matches_faer(x.as_ref(), b);
            assert_close(x.as_ref(), &ours, &sigma, "exact");
        }
    }

    #[test]
    fn zero_matrix_one_by_one_and_vectors() {
        assert_eq!(banded_singular_values(Mat::<f64>::zeros(30, 20).as_ref(), 4).unwrap(), vec![0.0; 20]);
        assert_eq!(banded_singular_values(Mat::<f64>::zeros(0, 5).as_ref(), 4).unwrap(), Vec::<f64>::new());
        assert_eq!(banded_singular_values(faer::mat![[-3.0f64]].as_ref(), 4).unwrap(), vec![3.0]);
        let row = faer::mat![[3.0f64, 0.0, -4.0]];
        assert_eq!(banded_singular_values(row.as_ref(), 2).unwrap(), vec![5.0]);
        assert_eq!(banded_singular_values(row.transpose(), 2).unwrap(), vec![5.0]);
    }

    #[test]
    fn non_finite_elements_are_an_error() {
        for bad in [f64::NAN, f64::INFINITY] {
            let mut x = random(20, 20, 9);
            x[(3, 4)] = bad;
            assert!(banded_singular_values(x.as_ref(), 4).is_err());
        }
    }

    #[test]
    fn bidiagonal_with_zero_diagonal_elements() {
        // Zeros inside (a row rotated away) and at the bottom (a column rotated away), and
        // tiny elements below the negligible threshold.
        let n = 40;
        let mut d: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64 / 3.0).collect();
        let mut e: Vec<f64> = (1..n).map(|i| 0.5 - (i % 5) as f64 / 4.0).collect();
        (d[0], d[17], d[n - 1], e[25]) = (0.0, 0.0, 0.0, 1e-300);
        let dense = Mat::from_fn(n, n, |i, j| if i == j { d[i] } else if j == i + 1 { e[i] } else { 0.0 });
        bidiagonal_singular_values(&mut d, &mut e).unwrap();
        let mut ours: Vec<f64> = d.iter().map(|v| v.abs()).collect();
        ours.sort_by(|p, q| q.total_cmp(p));
        let faer: Vec<f64> = dense.singular_values().unwrap();
        assert_close(dense.as_ref(), &ours, &faer, "bidiagonal");
        assert_eq!(ours[n - 3..], [0.0; 3]);
    }

    #[test]
    fn rotations_of_tiny_and_huge_pairs() {
        // Outside the range of safe squares (where 1/r overflows for subnormal f and g): 3 : 4
        // pairs, so c = 0.6 and |s| = 0.8.
        for (f, g, power) in [(3.0, -4.0, -140), (-3.0, 4.0, -149), (3.0, 4.0, 100), (-3.0, -4.0, -70)] {
            let (f, g) = ((f * 2f64.powi(power)) as f32, (g * 2f64.powi(power)) as f32);
            let (c, s, r) = rotation(f, g);
            let sign = f.signum();
            for (got, want) in [(c, 0.6), (s, 0.8 * sign * g.signum()), (r / g.abs(), 1.25 * sign)] {
                assert!((got - want).abs() <= 2.0 * f32::EPSILON, "({f:e}, {g:e}): {got} vs {want}");
            }
        }
    }

    #[test]
    fn same_bits_whatever_the_thread_count() {
        crate::field::fixed_splits();
        let x = random(300, 260, 13);
        let values = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| banded_singular_values(x.as_ref(), 16).unwrap())
        };
        let one: Vec<u64> = values(1).iter().map(|v| v.to_bits()).collect();
        for threads in [2, 3] {
            assert_eq!(values(threads).iter().map(|v| v.to_bits()).collect::<Vec<_>>(), one, "{threads} threads");
        }
    }

    #[test]
    fn large_matrices_take_the_two_stage_path() {
        // Above the threshold (two stages, the default band) and below it (left to the caller).
        let x = random(TWO_STAGE_FROM + 40, TWO_STAGE_FROM + 8, 14);
        let faer: Vec<f64> = x.singular_values().unwrap();
        assert_close(x.as_ref(), &singular_values_two_stage(x.as_ref()).unwrap().unwrap(), &faer, "two-stage");
        assert!(singular_values_two_stage(x.get(..100, ..90)).is_none());
    }

    /// Times an 8000 × 8000 float64 matrix of sums of four uniforms (about normal): each
    /// stage, then faer's one-stage SVD; checks the two agree.
    #[test]
    #[ignore]
    fn timing_8000() {
        use std::time::Instant;
        crate::field::fixed_splits();
        let n = 8000;
        let x = random_sums(n, n, 1000, 4);
        let start = Instant::now();
        let (mut a, scale) = tall_scaled_copy(x.as_ref()).unwrap();
        let copied = start.elapsed().as_secs_f64();
        let b = band_width(n);
        reduce_to_band(a.as_mut(), b);
        let banded = start.elapsed().as_secs_f64();
        let (mut d, mut e) = Band::from_upper(a.as_ref(), b).bidiagonal();
        let bidiagonal = start.elapsed().as_secs_f64();
        bidiagonal_singular_values(&mut d, &mut e).unwrap();
        let total = start.elapsed().as_secs_f64();
        println!(
            "two-stage, band {b}: copy {copied:.2} s, stage 1 {:.2} s, stage 2 {:.2} s, stage 3 {:.2} s, total {total:.2} s",
            banded - copied,
            bidiagonal - banded,
            total - bidiagonal
        );
        let mut ours: Vec<f64> = d.iter().map(|v| v.abs() * scale).collect();
        ours.sort_by(|p, q| q.total_cmp(p));
        let start = Instant::now();
        let faer = x.singular_values().unwrap();
        println!("faer's singular_values: {:.2} s", start.elapsed().as_secs_f64());
        let worst = ours.iter().zip(&faer).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
        println!("largest difference {worst:e} = {:.2}·n·eps·σ_max", worst / (n as f64 * f64::EPSILON * faer[0]));
        assert_close(x.as_ref(), &ours, &faer, "8000");
    }
}

