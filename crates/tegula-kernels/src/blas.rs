//! A BLAS library loaded at run time (the one NumPy uses, found by the caller), whose GEMM runs
//! the products of float32/float64 blocks once `install`ed (where it is faster than faer on
//! this machine: the `tegula` crate decides). Its functions are found by name: OpenBLAS's
//! builds with 64-bit integers (`scipy_cblas_dgemm64_`, `cblas_dgemm64_`) or 32-bit ones
//! (`cblas_dgemm`). Every call runs on the calling thread alone (OpenBLAS's
//! `openblas_set_num_threads_local(1)`): a big product is cut here into panels of the output
//! that run on the current rayon pool, at places that depend on its shape only, so its bits
//! do not depend on the number of threads, and a pool thread that finishes its own task takes
//! panels of the products still running instead of idling.

use ndarray::ArrayView2;
use rayon::prelude::*;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ops::Range;
use std::sync::OnceLock;
use tegula_core::{value_err, Result};

const ROW_MAJOR: c_int = 101;
const NO_TRANS: c_int = 111;

/// Output rows (or columns) per panel of a product cut across threads: a panel repacks the
/// other operand, which at this side costs a few percent of its multiplications.
const PANEL: usize = 512;

/// The names a library's GEMMs may have, with whether its integers are 64-bit.
const GEMMS: [(&str, &str, bool); 3] = [
    ("scipy_cblas_dgemm64_", "scipy_cblas_sgemm64_", true),
    ("cblas_dgemm64_", "cblas_sgemm64_", true),
    ("cblas_dgemm", "cblas_sgemm", false),
];

/// A loaded BLAS: the addresses of its GEMMs and of its per-thread thread count.
#[derive(Debug)]
pub struct Blas {
    dgemm: usize,
    sgemm: usize,
    threads_local: usize,
    ilp64: bool,
    path: String,
    core: Option<String>,
}

static INSTALLED: OnceLock<Blas> = OnceLock::new();

/// The BLAS whose GEMM the kernels use, if one was installed.
pub fn installed() -> Option<&'static Blas> {
    INSTALLED.get()
}

/// Makes the kernels use `blas` for every float32/float64 product with both output sides
/// wider than a few columns, for the rest of the process. A second call is refused: the bits
/// of a computation must not change while it runs.
pub fn install(blas: Blas) -> Result<()> {
    INSTALLED.set(blas).map_err(|_| value_err!("a BLAS library is already installed for tegula's matrix products"))
}

impl Blas {
    /// Loads the library at `path` (or finds it among those loaded, the same file) and checks
    /// that its GEMM multiplies correctly: a library with other integer widths than its names
    /// say would be refused here, not read past its arguments later.
    pub fn load(path: &str) -> Result<Blas> {
        let name = CString::new(path).map_err(|_| value_err!("BLAS path {path:?} holds a NUL byte"))?;
        // SAFETY: dlopen with a NUL-terminated path; the handle is never closed, so the
        // addresses found in it stay valid for the life of the process.
        let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(value_err!("cannot load BLAS library {path}: {}", dl_error()));
        }
        let find = |symbol: &str| -> usize {
            let symbol = CString::new(symbol).expect("symbol names hold no NUL");
            // SAFETY: a live handle and a NUL-terminated name.
            unsafe { libc::dlsym(handle, symbol.as_ptr()) as usize }
        };
        let Some((dgemm, sgemm, ilp64)) =
            GEMMS.iter().map(|&(d, s, wide)| (find(d), find(s), wide)).find(|&(d, s, _)| d != 0 && s != 0)
        else {
            return Err(value_err!("{path} has no cblas_dgemm/cblas_sgemm of a known name"));
        };
        let threads_local = find("openblas_set_num_threads_local");
        if threads_local == 0 {
            return Err(value_err!("{path} has no openblas_set_num_threads_local (OpenBLAS 0.3.27 or newer)"));
        }
        let core = ["scipy_openblas_get_corename64_", "openblas_get_corename64_", "openblas_get_corename"]
            .iter()
            .map(|s| find(s))
            .find(|&f| f != 0)
            .map(|f| {
                // SAFETY: OpenBLAS's `char *openblas_get_corename(void)`, a static string.
                let name = unsafe { CStr::from_ptr(std::mem::transmute::<usize, unsafe extern "C" fn() -> *const c_char>(f)()) };
                name.to_string_lossy().into_owned()
            });
        let blas = Blas { dgemm, sgemm, threads_local, ilp64, path: path.to_string(), core };
        blas.check()?;
        Ok(blas)
    }

    /// The library's path, as given to `load`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The kernel family OpenBLAS chose for this CPU (`SkylakeX`, `Haswell`, ...), if it says.
    pub fn core(&self) -> Option<&str> {
        self.core.as_deref()
    }

    /// A small product with an exact result, of operands read in place and copied.
    fn check(&self) -> Result<()> {
        let a = ndarray::Array2::from_shape_fn((3, 2), |(i, j)| (i * 2 + j) as f64 + 1.0);
        let b = ndarray::Array2::from_shape_fn((2, 4), |(i, j)| (i * 4 + j) as f64 - 3.0);
        let expected = a.dot(&b);
        let at = a.t().as_standard_layout().into_owned();
        for a in [a.view(), at.t()] {
            let mut out = vec![0.0; 12];
            if !self.product(a, b.view(), &mut out) || out.as_slice() != expected.as_slice().expect("row-major") {
                return Err(value_err!("{}: its GEMM gave {out:?} for {expected:?}", self.path));
            }
        }
        Ok(())
    }

    /// `a @ b` into the row-major `out` (`m × n`, every element written), cut into panels on
    /// the current rayon pool when big; false (nothing written) when its extents pass the
    /// library's integers.
    pub fn product<T: BlasElement>(&self, a: ArrayView2<T>, b: ArrayView2<T>, out: &mut [T]) -> bool {
        self.product_in(a, b, out, PANEL)
    }

    /// `product` in panels of at most `panel` rows or columns. OpenBLAS's bits depend on
    /// whether it reads an operand by rows or by columns (its small-matrix kernels differ), and
    /// a block's orientation on threads (a view of a Fortran-ordered array, a transposed block)
    /// need not be its orientation in a worker process: each operand is read by rows, copied
    /// into rows first where its rows are not contiguous.
    pub(crate) fn product_in<T: BlasElement>(&self, a: ArrayView2<T>, b: ArrayView2<T>, out: &mut [T], panel: usize) -> bool {
        let ((m, k), n) = (a.dim(), b.ncols());
        let (copied_a, copied_b);
        let (a, lda) = match row_stride(&a) {
            Some(ld) => (a, ld),
            None => {
                copied_a = a.as_standard_layout().into_owned();
                (copied_a.view(), k.max(1))
            }
        };
        let (b, ldb) = match row_stride(&b) {
            Some(ld) => (b, ld),
            None => {
                copied_b = b.as_standard_layout().into_owned();
                (copied_b.view(), n.max(1))
            }
        };
        if !self.fits(&[m, n, k, lda, ldb]) {
            return false;
        }
        let out = SendPtr(out.as_mut_ptr());
        let call = |rows: Range<usize>, cols: Range<usize>| {
            // SAFETY: the ranges lie inside `a`'s rows and `b`'s columns, whose rows lie `lda`
            // and `ldb` elements apart; the output pointer moves to element (rows.start,
            // cols.start) of `out` (`n` elements between rows), and the panels handed to
            // threads are disjoint.
            unsafe {
                let pa = a.as_ptr().add(rows.start * lda);
                let pb = b.as_ptr().add(cols.start);
                let pc = out.get().add(rows.start * n + cols.start);
                self.gemm(rows.len(), cols.len(), k, pa, lda, pb, ldb, pc, n);
            }
        };
        if m >= n {
            panels(m, panel).into_par_iter().for_each(|rows| call(rows, 0..n));
        } else {
            panels(n, panel).into_par_iter().for_each(|cols| call(0..m, cols));
        }
        true
    }

    /// One GEMM on the calling thread alone: `c = a @ b`, `rows × cols`, over `k`, each
    /// matrix read by rows `ld*` elements apart.
    ///
    /// # Safety
    /// The pointers and strides must describe live matrices of those extents, `c` written by
    /// no one else during the call.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm<T: BlasElement>(&self, rows: usize, cols: usize, k: usize, a: *const T, lda: usize, b: *const T, ldb: usize, c: *mut T, ldc: usize) {
        let set_threads: unsafe extern "C" fn(c_int) -> c_int = std::mem::transmute(self.threads_local);
        let before = set_threads(1);
        let f = T::gemm_of(self);
        let (one, zero) = (<T as num_traits::One>::one(), <T as num_traits::Zero>::zero());
        if self.ilp64 {
            let gemm: Gemm<T, i64> = std::mem::transmute(f);
            let i = |x: usize| x as i64;
            gemm(ROW_MAJOR, NO_TRANS, NO_TRANS, i(rows), i(cols), i(k), one, a, i(lda), b, i(ldb), zero, c, i(ldc));
        } else {
            let gemm: Gemm<T, i32> = std::mem::transmute(f);
            let i = |x: usize| x as i32;
            gemm(ROW_MAJOR, NO_TRANS, NO_TRANS, i(rows), i(cols), i(k), one, a, i(lda), b, i(ldb), zero, c, i(ldc));
        }
        set_threads(before);
    }

    /// Whether these extents fit the library's integers.
    fn fits(&self, extents: &[usize]) -> bool {
        let limit = if self.ilp64 { i64::MAX as usize } else { i32::MAX as usize };
        extents.iter().all(|&e| e <= limit)
    }
}

/// A CBLAS GEMM with integers of type `I`.
type Gemm<T, I> = unsafe extern "C" fn(c_int, c_int, c_int, I, I, I, T, *const T, I, *const T, I, T, *mut T, I);

/// The element types BLAS multiplies.
pub trait BlasElement: Copy + Send + Sync + num_traits::One + num_traits::Zero {
    /// The address of this type's GEMM in `blas`.
    fn gemm_of(blas: &Blas) -> *const c_void;
}

impl BlasElement for f64 {
    fn gemm_of(blas: &Blas) -> *const c_void {
        blas.dgemm as *const c_void
    }
}

impl BlasElement for f32 {
    fn gemm_of(blas: &Blas) -> *const c_void {
        blas.sgemm as *const c_void
    }
}

/// The elements between a view's rows when each row is contiguous (strides in elements; none
/// negative, rows not overlapping), else `None`.
fn row_stride<T>(m: &ArrayView2<T>) -> Option<usize> {
    let (rows, cols) = m.dim();
    let (rs, cs) = (m.strides()[0], m.strides()[1]);
    if cols > 1 && cs != 1 {
        return None;
    }
    if rows <= 1 {
        return Some(cols.max(1));
    }
    usize::try_from(rs).ok().filter(|&s| s >= cols.max(1))
}

/// `extent` cut into about equal panels of at most `panel`, at places that depend on it alone.
fn panels(extent: usize, panel: usize) -> Vec<Range<usize>> {
    let count = extent.div_ceil(panel).max(1);
    let size = extent.div_ceil(count);
    (0..count).map(|p| (p * size).min(extent)..((p + 1) * size).min(extent)).collect()
}

/// A pointer handed to the threads writing disjoint panels through it.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);

impl<T> SendPtr<T> {
    /// The pointer (a method, so closures capture the `Sync` wrapper, not its field).
    fn get(self) -> *mut T {
        self.0
    }
}
// SAFETY: each thread writes only its own panel of the output.
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

/// The text of the last `dlopen` error.
fn dl_error() -> String {
    // SAFETY: dlerror returns a thread-local NUL-terminated string or null.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".to_string()
    } else {
        // SAFETY: non-null, NUL-terminated.
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    #[test]
    fn rows_are_read_in_place_only_where_contiguous() {
        let a = Array2::<f64>::zeros((4, 6));
        assert_eq!(row_stride(&a.view()), Some(6));
        assert_eq!(row_stride(&a.t()), None);
        assert_eq!(row_stride(&a.slice(ndarray::s![1..3, 2..5])), Some(6));
        assert_eq!(row_stride(&a.slice(ndarray::s![.., ..;2])), None);
        assert_eq!(row_stride(&a.slice(ndarray::s![..;-1, ..])), None);
        assert_eq!(row_stride(&a.slice(ndarray::s![.., 1..2])), Some(6));
        assert_eq!(row_stride(&a.slice(ndarray::s![1..2, ..;2])), None);
    }

    #[test]
    fn panels_tile_the_extent_in_equal_pieces_of_at_most_the_panel() {
        for extent in [0, 1, 33, PANEL, PANEL + 1, 5000] {
            let p = panels(extent, PANEL);
            assert_eq!(p.first().map(|r| r.start), Some(0));
            assert_eq!(p.last().map(|r| r.end), Some(extent));
            assert!(p.windows(2).all(|w| w[0].end == w[1].start));
            assert!(p.iter().all(|r| r.len() <= PANEL));
        }
    }

    #[test]
    fn a_missing_library_is_a_value_error() {
        let e = Blas::load("/nonexistent/libblas.so").unwrap_err();
        assert!(matches!(e, tegula_core::TegulaError::Value(_)), "{e:?}");
    }
}
