//! The C library's complex128 functions (C99 Annex G), which NumPy calls for its complex
//! ufuncs: their special values (infinities, NaNs, signed zeros, branch cuts) are the ones the
//! array API standard specifies, which num-complex's textbook formulas do not give.
//! `double complex` and `Complex<f64>` (`#[repr(C)]`, two doubles) share one calling
//! convention on the platforms tegula builds for (x86-64 and AArch64 System V).

use crate::element::C128;

macro_rules! c_complex_fns {
    ($($name:ident),*) => {
        mod ffi {
            use super::C128;
            #[link(name = "m")]
            extern "C" {
                $(pub fn $name(z: C128) -> C128;)*
            }
        }
        $(
            #[inline]
            pub fn $name(z: C128) -> C128 {
                // SAFETY: pure functions of a value, from the C math library.
                unsafe { ffi::$name(z) }
            }
        )*
    };
}
c_complex_fns!(csqrt, cexp, clog, csin, ccos, ctan, csinh, ccosh, ctanh, casin, cacos, catan, casinh, cacosh, catanh);
