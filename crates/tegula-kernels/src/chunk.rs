//! `Chunk`: one block of an array, an `ndarray::ArcArray` of one of tegula's element types.
//! Cloning a chunk and taking a slice or transpose of it share the data (no copy).
//! `with_chunk!` and `with_dtype!` are the only places that match over every element type.

use crate::element::{Elem, C128, C64};
use half::f16;
use ndarray::{ArcArray, IxDyn};
use tegula_core::{DType, Result, TegulaError};

pub type Block<T> = ArcArray<T, IxDyn>;

#[derive(Debug, Clone)]
pub enum Chunk {
    Bool(Block<bool>),
    Int8(Block<i8>),
    Int16(Block<i16>),
    Int32(Block<i32>),
    Int64(Block<i64>),
    UInt8(Block<u8>),
    UInt16(Block<u16>),
    UInt32(Block<u32>),
    UInt64(Block<u64>),
    Float16(Block<f16>),
    Float32(Block<f32>),
    Float64(Block<f64>),
    Complex64(Block<C64>),
    Complex128(Block<C128>),
}

/// Runs `$body` with `$a` bound to the typed array inside chunk `$c` (generic code).
#[macro_export]
macro_rules! with_chunk {
    ($c:expr, $a:ident => $body:expr) => {
        match $c {
            $crate::Chunk::Bool($a) => $body,
            $crate::Chunk::Int8($a) => $body,
            $crate::Chunk::Int16($a) => $body,
            $crate::Chunk::Int32($a) => $body,
            $crate::Chunk::Int64($a) => $body,
            $crate::Chunk::UInt8($a) => $body,
            $crate::Chunk::UInt16($a) => $body,
            $crate::Chunk::UInt32($a) => $body,
            $crate::Chunk::UInt64($a) => $body,
            $crate::Chunk::Float16($a) => $body,
            $crate::Chunk::Float32($a) => $body,
            $crate::Chunk::Float64($a) => $body,
            $crate::Chunk::Complex64($a) => $body,
            $crate::Chunk::Complex128($a) => $body,
        }
    };
}

/// Runs `$body` with type alias `$t` set to the element type of dtype `$d`.
#[macro_export]
macro_rules! with_dtype {
    ($d:expr, $t:ident => $body:expr) => {
        match $d {
            tegula_core::DType::Bool => { type $t = bool; $body }
            tegula_core::DType::Int8 => { type $t = i8; $body }
            tegula_core::DType::Int16 => { type $t = i16; $body }
            tegula_core::DType::Int32 => { type $t = i32; $body }
            tegula_core::DType::Int64 => { type $t = i64; $body }
            tegula_core::DType::UInt8 => { type $t = u8; $body }
            tegula_core::DType::UInt16 => { type $t = u16; $body }
            tegula_core::DType::UInt32 => { type $t = u32; $body }
            tegula_core::DType::UInt64 => { type $t = u64; $body }
            tegula_core::DType::Float16 => { type $t = half::f16; $body }
            tegula_core::DType::Float32 => { type $t = f32; $body }
            tegula_core::DType::Float64 => { type $t = f64; $body }
            tegula_core::DType::Complex64 => { type $t = $crate::element::C64; $body }
            tegula_core::DType::Complex128 => { type $t = $crate::element::C128; $body }
        }
    };
}

/// Moving a typed array into a `Chunk` and back out of one.
pub trait Wrap: Elem {
    fn wrap(a: Block<Self>) -> Chunk;
    fn unwrap(c: &Chunk) -> Option<&Block<Self>>;
}

macro_rules! wrap_impl {
    ($($t:ty => $v:ident),*) => {$(
        impl Wrap for $t {
            fn wrap(a: Block<Self>) -> Chunk { Chunk::$v(a) }
            fn unwrap(c: &Chunk) -> Option<&Block<Self>> {
                match c { Chunk::$v(a) => Some(a), _ => None }
            }
        }
    )*};
}
wrap_impl!(bool => Bool, i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, u8 => UInt8,
    u16 => UInt16, u32 => UInt32, u64 => UInt64, f16 => Float16, f32 => Float32,
    f64 => Float64, C64 => Complex64, C128 => Complex128);

impl Chunk {
    pub fn dtype(&self) -> DType {
        fn of<T: Elem>(_: &Block<T>) -> DType {
            T::DTYPE
        }
        with_chunk!(self, a => of(a))
    }
    pub fn shape(&self) -> &[usize] {
        with_chunk!(self, a => a.shape())
    }
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }
    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn nbytes(&self) -> usize {
        self.len() * self.dtype().itemsize()
    }

    /// The typed array inside, or an internal error when the dtype is not `T`'s.
    pub fn typed<T: Wrap>(&self) -> Result<&Block<T>> {
        T::unwrap(self).ok_or_else(|| {
            TegulaError::Internal(format!("kernel expected {} but got {}", T::DTYPE, self.dtype()))
        })
    }

    /// This chunk converted to `dtype` (shared, not copied, when it already has that dtype).
    pub fn cast(&self, dtype: DType) -> Chunk {
        if self.dtype() == dtype {
            return self.clone();
        }
        with_chunk!(self, a => with_dtype!(dtype, D => D::wrap(a.mapv(|x| x.cast::<D>()).into_shared())))
    }

    /// A chunk of `shape` filled with `value` converted to `dtype`.
    pub fn full(dtype: DType, shape: &[usize], value: tegula_core::Scalar) -> Chunk {
        with_dtype!(dtype, T => T::wrap(ArcArray::from_elem(IxDyn(shape), T::from_scalar(value))))
    }
}
