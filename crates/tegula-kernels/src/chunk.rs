//! `Chunk`: one block of an array, a `Block` of one of tegula's element types.
//! Cloning a chunk and taking a slice or transpose of it share the data (no copy).
//! `with_chunk!` and `with_dtype!` are the only places that match over every element type.

use crate::device_block::DeviceBlock;
use crate::element::{Elem, C128, C64};
use half::f16;
use ndarray::{ArcArray, Array, ArrayRef, ArrayView, Axis, IntoNdProducer, IxDyn, RawArrayView, ShapeBuilder};
use std::any::Any;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;
use tegula_core::{DType, Result, TegulaError};

/// One block's elements, read-only: an n-dimensional view over memory that an owner keeps
/// alive — an `ndarray` array Rust allocated, or memory from elsewhere (a NumPy array's,
/// with the owner holding a reference to it), so blocks can be taken in without a copy.
/// Clones and reshaping views (`map_view`) share the owner. Reading goes through `Deref` to
/// `ndarray::ArrayRef`; nothing mutates a block (code that writes owns its data), and
/// `into_owned` gets an `Array` back, without a copy when the block alone holds Rust memory.
pub struct Block<T: 'static> {
    /// Valid for as long as `owner` lives. Never handed out with its `'static` lifetime:
    /// only borrowed for as long as the block (`Deref`), or passed through `map_view`,
    /// whose closure cannot keep it.
    view: ArrayView<'static, T, IxDyn>,
    /// Keeps the memory `view` reads alive: an `Array<T, IxDyn>` (see `into_owned`), an
    /// `ArcArray<T, IxDyn>` still shared with other holders, or a foreign owner.
    owner: Arc<dyn Any + Send + Sync>,
}

// `Block<T>` is `Send` and `Sync` exactly when `T` is `Sync`, derived from its fields: the
// view (a shared borrow of `T`s) and an owner that is `Send + Sync` by its type, which is why
// `from_raw_parts` asks its memory to be readable from any thread.

impl<T> Deref for Block<T> {
    type Target = ArrayRef<T, IxDyn>;
    #[inline]
    fn deref(&self) -> &ArrayRef<T, IxDyn> {
        // Reborrowed for as long as `&self`, which keeps the owner alive.
        &self.view
    }
}

impl<T> Clone for Block<T> {
    #[inline]
    fn clone(&self) -> Self {
        Block { view: self.view.clone(), owner: Arc::clone(&self.owner) }
    }
}

impl<T: fmt::Debug> fmt::Debug for Block<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.view.fmt(f)
    }
}

impl<T: fmt::Display> fmt::Display for Block<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.view.fmt(f)
    }
}

impl<A: PartialEq<B>, B> PartialEq<Block<B>> for Block<A> {
    fn eq(&self, other: &Block<B>) -> bool {
        *self.view == *other.view
    }
}

impl<'a, T> IntoNdProducer for &'a Block<T> {
    type Item = &'a T;
    type Dim = IxDyn;
    type Output = ArrayView<'a, T, IxDyn>;
    /// The block in `Zip`s, as a view borrowed from it.
    #[inline]
    fn into_producer(self) -> ArrayView<'a, T, IxDyn> {
        self.view.view()
    }
}

impl<'a, T> IntoIterator for &'a Block<T> {
    type Item = &'a T;
    type IntoIter = ndarray::iter::Iter<'a, T, IxDyn>;
    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.view.iter()
    }
}

impl<T: Send + Sync + 'static> From<Array<T, IxDyn>> for Block<T> {
    /// Takes the array over, without a copy.
    #[inline]
    fn from(array: Array<T, IxDyn>) -> Self {
        let raw = array.raw_view();
        let owner: Arc<dyn Any + Send + Sync> = Arc::new(array);
        // SAFETY: `raw` points into the array's heap buffer, which moving the array into the
        // `Arc` does not move; the owner keeps it alive and nothing mutates it from here on
        // (the array is reachable only as `dyn Any` behind a shared `Arc`, taken back by
        // `into_owned` only when unique).
        let view = unsafe { raw.deref_into_view() };
        Block { view, owner }
    }
}

impl<T: Clone + Send + Sync + 'static> From<ArcArray<T, IxDyn>> for Block<T> {
    /// Takes the array over, without a copy (sharing its data when other holders remain).
    #[inline]
    fn from(array: ArcArray<T, IxDyn>) -> Self {
        match array.try_into_owned_nocopy() {
            Ok(array) => array.into(),
            Err(shared) => {
                let raw = shared.raw_view();
                let owner: Arc<dyn Any + Send + Sync> = Arc::new(shared);
                // SAFETY: the owner holds a reference to the shared buffer, so it stays alive,
                // and no other holder can write to it while that reference exists
                // (`ArcArray` copies before writing unless it holds the buffer alone).
                let view = unsafe { raw.deref_into_view() };
                Block { view, owner }
            }
        }
    }
}

impl<T> Block<T> {
    /// A block over memory that `owner` keeps alive: the element at index `i` is at
    /// `ptr + Σ i[k]·strides[k]` (strides in elements, negative and zero ones included).
    ///
    /// # Safety
    ///
    /// `shape` and `strides` have the same length, and for as long as `owner` lives (clones
    /// of the block keep it): every element they reach is a valid, initialised, aligned `T`
    /// inside one allocation (no offset between two of them exceeds `isize::MAX` bytes), no
    /// one writes to any of them, and reading them from any thread is sound.
    pub unsafe fn from_raw_parts(ptr: *const T, shape: &[usize], strides: &[isize], owner: impl Any + Send + Sync) -> Block<T> {
        assert_eq!(shape.len(), strides.len(), "one stride per axis");
        if shape.contains(&0) {
            // No elements: nothing is read, so neither the pointer nor the strides matter.
            let empty = Array::<T, IxDyn>::from_shape_vec(IxDyn(shape), Vec::new()).expect("no elements");
            // SAFETY: a view of no elements reads nothing; its pointer, an empty vector's, is
            // dangling but aligned and non-null, as for any empty array.
            let view = unsafe { empty.raw_view().deref_into_view() };
            return Block { view, owner: Arc::new(owner) };
        }
        let mut low = ptr;
        let mut positive = Vec::with_capacity(strides.len());
        for (&len, &stride) in shape.iter().zip(strides) {
            if stride < 0 && len > 1 {
                // SAFETY: the caller promises every element lies in one allocation, so the
                // element at the far end of this axis is in it too.
                low = unsafe { low.offset(stride * (len as isize - 1)) };
            }
            positive.push(stride.unsigned_abs());
        }
        let shape = IxDyn(shape).strides(IxDyn(&positive));
        // SAFETY: `low` is the lowest address any index reaches, every element is in one
        // allocation and the strides are non-negative, as `from_shape_ptr` asks.
        let mut raw = unsafe { RawArrayView::from_shape_ptr(shape, low) };
        for (axis, &stride) in strides.iter().enumerate() {
            if stride < 0 {
                raw.invert_axis(Axis(axis));
            }
        }
        // SAFETY: the caller promises the elements valid, aligned, unwritten and alive for as
        // long as `owner`, which the block holds.
        let view = unsafe { raw.deref_into_view() };
        Block { view, owner: Arc::new(owner) }
    }

    /// A view of this block made by `f` (a slice, transpose, reshape, broadcast, …), sharing
    /// its data. `f` works for any lifetime, so it can only return views of what it is given
    /// (or of data that lives forever).
    #[inline]
    pub fn map_view(self, f: impl for<'a> FnOnce(ArrayView<'a, T, IxDyn>) -> ArrayView<'a, T, IxDyn>) -> Block<T> {
        Block { view: f(self.view), owner: self.owner }
    }

    /// `map_view` for views that may fail (`into_shape_with_order`, …).
    #[inline]
    pub fn try_map_view<E>(
        self,
        f: impl for<'a> FnOnce(ArrayView<'a, T, IxDyn>) -> std::result::Result<ArrayView<'a, T, IxDyn>, E>,
    ) -> std::result::Result<Block<T>, E> {
        Ok(Block { view: f(self.view)?, owner: self.owner })
    }

    /// A copy of the elements as an owned array (`ndarray`'s `to_owned`, which `Clone`'s
    /// `ToOwned` would otherwise shadow).
    #[inline]
    pub fn to_owned(&self) -> Array<T, IxDyn>
    where
        T: Clone,
    {
        self.view.to_owned()
    }

    /// Whether two blocks read the same memory owner (clones and views of one another).
    pub fn shares_owner(&self, other: &Block<T>) -> bool {
        Arc::ptr_eq(&self.owner, &other.owner)
    }
}

impl<T: Clone + Send + Sync + 'static> Block<T> {
    /// How many elements the Rust allocation this block reads holds, which stays alive as long
    /// as the block does: more than `len()` for a slice. `None` for memory from elsewhere (a
    /// NumPy array's), which its own holder keeps alive anyway.
    pub fn pinned_len(&self) -> Option<usize> {
        if let Some(array) = self.owner.downcast_ref::<Array<T, IxDyn>>() {
            return Some(array.len());
        }
        self.owner.downcast_ref::<ArcArray<T, IxDyn>>().map(|array| array.len())
    }

    /// The elements as an owned array: the array this block was made from, without a copy,
    /// when the block is its only holder and views all of it (as made, or rearranged over the
    /// same elements, e.g. transposed); a copy otherwise.
    pub fn into_owned(self) -> Array<T, IxDyn> {
        // Every copy below is made while the owner is still held: `view` borrows its memory.
        let Block { view, owner } = self;
        let array = match owner.downcast::<Array<T, IxDyn>>() {
            Ok(array) => array,
            Err(owner) => return copy_then_drop(&view, owner),
        };
        let same = array.as_ptr() == view.as_ptr() && array.shape() == view.shape() && array.strides() == view.strides();
        // Otherwise a rearrangement of the same elements (e.g. a transpose) can take over the
        // buffer when it covers all of it: checked against the buffer once unwrapped.
        let low = match view.as_slice_memory_order() {
            _ if same => view.as_ptr(),
            Some(run) if !run.is_empty() => run.as_ptr(),
            _ => return copy_then_drop(&view, array),
        };
        let array = match Arc::try_unwrap(array) {
            Ok(array) => array,
            Err(shared) => return copy_then_drop(&view, shared),
        };
        if same {
            return array;
        }
        let (data, _) = array.into_raw_vec_and_offset();
        if data.len() != view.len() || data.as_ptr() != low {
            return copy_then_drop(&view, data);
        }
        let strides: Vec<usize> = view.strides().iter().map(|&s| s as usize).collect();
        Array::from_shape_vec(view.raw_dim().strides(IxDyn(&strides)), data)
            .expect("a view of each element of a buffer once is a layout of that buffer")
    }
}

/// A copy of `view`, made before `owner` (what keeps its memory alive) is let go.
fn copy_then_drop<T: Clone, O>(view: &ArrayView<'static, T, IxDyn>, owner: O) -> Array<T, IxDyn> {
    let copy = view.to_owned();
    drop(owner);
    copy
}

/// One block of any dtype: a typed `Block` per element type (times are stored as int64).
#[derive(Debug, Clone)]
pub enum Chunk {
    /// A block of `bool` elements.
    Bool(Block<bool>),
    /// A block of `int8` elements.
    Int8(Block<i8>),
    /// A block of `int16` elements.
    Int16(Block<i16>),
    /// A block of `int32` elements.
    Int32(Block<i32>),
    /// A block of `int64` elements (and datetime64 and timedelta64 counts).
    Int64(Block<i64>),
    /// A block of `uint8` elements.
    UInt8(Block<u8>),
    /// A block of `uint16` elements.
    UInt16(Block<u16>),
    /// A block of `uint32` elements.
    UInt32(Block<u32>),
    /// A block of `uint64` elements.
    UInt64(Block<u64>),
    /// A block of `float16` elements.
    Float16(Block<f16>),
    /// A block of `float32` elements.
    Float32(Block<f32>),
    /// A block of `float64` elements.
    Float64(Block<f64>),
    /// A block of `complex64` elements.
    Complex64(Block<C64>),
    /// A block of `complex128` elements.
    Complex128(Block<C128>),
    /// A block in a device's memory, of any dtype (only that device's kernels read it).
    Device(DeviceBlock),
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
            $crate::Chunk::Device(d) => $crate::device_block::off_host(d),
        }
    };
}

/// Runs `$body` with type alias `$t` set to the element type of dtype `$d` (its storage's:
/// times are int64 counts).
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
            tegula_core::DType::DateTime64(_) | tegula_core::DType::TimeDelta64(_) => { type $t = i64; $body }
        }
    };
}

/// Moving a typed array into a `Chunk` and back out of one.
pub trait Wrap: Elem {
    /// The chunk holding `a`.
    fn wrap(a: Block<Self>) -> Chunk;
    /// The typed block inside `c`, if `c` holds this type.
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
    /// The dtype of its elements (int64 for stored times).
    pub fn dtype(&self) -> DType {
        fn of<T: Elem>(_: &Block<T>) -> DType {
            T::DTYPE
        }
        match self {
            Chunk::Device(d) => d.dtype().storage(),
            _ => with_chunk!(self, a => of(a)),
        }
    }
    /// Its length along each axis.
    pub fn shape(&self) -> &[usize] {
        match self {
            Chunk::Device(d) => d.shape(),
            _ => with_chunk!(self, a => a.shape()),
        }
    }
    /// The number of axes.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }
    /// The number of elements (NumPy's `size`).
    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The bytes of its elements (NumPy's `nbytes`); for a block on a device, the bytes it
    /// takes there.
    pub fn nbytes(&self) -> usize {
        match self {
            Chunk::Device(d) => d.device_bytes(),
            _ => self.len() * self.dtype().itemsize(),
        }
    }
    /// Whether its elements are in a device's memory rather than the host's.
    pub fn is_on_device(&self) -> bool {
        matches!(self, Chunk::Device(_))
    }

    /// The typed array inside, or an internal error when the dtype is not `T`'s.
    pub fn typed<T: Wrap>(&self) -> Result<&Block<T>> {
        T::unwrap(self).ok_or_else(|| {
            TegulaError::Internal(format!("kernel expected {} but got {}", T::DTYPE, self.dtype()))
        })
    }

    /// This chunk converted to `dtype`'s storage type (shared, not copied, when it already
    /// has it).
    pub fn cast(&self, dtype: DType) -> Chunk {
        if self.dtype() == dtype.storage() {
            return self.clone();
        }
        with_chunk!(self, a => with_dtype!(dtype, D => D::wrap(a.mapv(|x| x.cast::<D>()).into())))
    }

    /// A chunk of `shape` filled with `value` converted to `dtype`.
    pub fn full(dtype: DType, shape: &[usize], value: tegula_core::Scalar) -> Chunk {
        with_dtype!(dtype, T => T::wrap(Array::from_elem(IxDyn(shape), T::from_scalar(value)).into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, ArrayD};
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn counting(shape: &[usize]) -> ArrayD<f64> {
        let n = shape.iter().product::<usize>();
        ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(|v| v as f64).collect()).unwrap()
    }

    #[test]
    fn clones_share_the_memory_and_the_owner() {
        let a = Block::from(counting(&[3, 4]));
        let b = a.clone();
        assert_eq!(a.as_ptr(), b.as_ptr());
        assert!(a.shares_owner(&b));
        assert_eq!(a, b);
    }

    #[test]
    fn views_share_the_memory() {
        let a = Block::from(counting(&[3, 4]));
        let row = a.clone().map_view(|v| v.slice_move(s![1, ..]).into_dyn());
        assert_eq!(row.as_ptr(), a.as_ptr().wrapping_add(4));
        assert_eq!(row.iter().copied().collect::<Vec<_>>(), [4.0, 5.0, 6.0, 7.0]);
        let t = a.clone().map_view(|v| v.reversed_axes());
        assert_eq!(t.as_ptr(), a.as_ptr());
        assert_eq!(t.shape(), [4, 3]);
        assert_eq!(t[[3, 2]], 11.0);
        assert!(t.shares_owner(&a));
        let bad = a.clone().try_map_view(|v| v.into_shape_with_order(IxDyn(&[5])));
        assert!(bad.is_err());
    }

    #[test]
    fn into_owned_takes_the_array_back_when_the_block_is_its_only_holder() {
        let array = counting(&[3, 4]);
        let ptr = array.as_ptr();
        let back = Block::from(array).into_owned();
        assert_eq!(back.as_ptr(), ptr);
        assert_eq!(back, counting(&[3, 4]));

        // A transpose of all the elements keeps them where they are.
        let t = Block::from(counting(&[3, 4])).map_view(|v| v.reversed_axes());
        let expected = counting(&[3, 4]).reversed_axes();
        let ptr = t.as_ptr();
        let back = t.into_owned();
        assert_eq!(back.as_ptr(), ptr);
        assert_eq!(back, expected);

        // An array made from a shared `ArcArray` that no one else holds any more.
        let shared = counting(&[2, 2]).into_shared();
        let ptr = shared.as_ptr();
        assert_eq!(Block::from(shared).into_owned().as_ptr(), ptr);
    }

    #[test]
    fn into_owned_copies_what_others_hold_or_part_of_an_array() {
        let a = Block::from(counting(&[3, 4]));
        let b = a.clone();
        let copy = b.into_owned();
        assert_ne!(copy.as_ptr(), a.as_ptr());
        assert_eq!(copy, counting(&[3, 4]));

        let part = a.clone().map_view(|v| v.slice_move(s![1.., ..;2]).into_dyn());
        drop(a);
        let copy = part.into_owned();
        assert_eq!(copy, counting(&[3, 4]).slice(s![1.., ..;2]).into_dyn());
        assert!(copy.is_standard_layout());

    }

    #[test]
    fn an_arc_array_still_shared_is_taken_without_a_copy_and_not_seen_changing() {
        let mut shared = counting(&[4]).into_shared();
        let block = Block::from(shared.clone());
        assert_eq!(block.as_ptr(), shared.as_ptr());
        shared[0] = 100.0; // copies on write: the block keeps a reference
        assert_eq!(block[[0]], 0.0);
        assert_eq!(block.into_owned(), counting(&[4]));
    }

    #[test]
    fn equality_compares_shapes_and_elements_whatever_the_layout() {
        let a = Block::from(counting(&[3, 4]));
        let t = Block::from(counting(&[4, 3]).reversed_axes().as_standard_layout().into_owned());
        assert_ne!(a, t);
        let tt = t.clone().map_view(|v| v.reversed_axes());
        assert_eq!(a, Block::from(counting(&[3, 4])));
        assert_eq!(tt, Block::from(counting(&[4, 3])));
        assert_ne!(a, Block::from(counting(&[12])));
        assert_ne!(a, a.clone().map_view(|v| v.slice_move(s![.., ..;-1]).into_dyn()));
    }

    struct Counted(Vec<f64>, Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn foreign_memory_with_negative_and_zero_strides_lives_as_long_as_its_blocks() {
        let dropped = Arc::new(AtomicUsize::new(0));
        let owner = Counted((0..12).map(f64::from).collect(), Arc::clone(&dropped));
        let last_row = owner.0.as_ptr().wrapping_add(8);
        // Rows in reverse, every column, then the same twice along a new axis.
        // SAFETY: every index reaches one of the owner's 12 elements, which nothing writes.
        let block = unsafe { Block::from_raw_parts(last_row, &[3, 4, 2], &[-4, 1, 0], owner) };
        let expected = counting(&[3, 4]).slice_move(s![..;-1, ..]).into_dyn().insert_axis(Axis(2));
        let expected = expected.broadcast(IxDyn(&[3, 4, 2])).unwrap().to_owned();
        assert_eq!(block.to_owned(), expected);
        let view = block.clone().map_view(|v| v.index_axis_move(Axis(2), 1));
        drop(block);
        assert_eq!(dropped.load(Ordering::SeqCst), 0);
        assert_eq!(view.into_owned(), counting(&[3, 4]).slice_move(s![..;-1, ..]).into_dyn());
        assert_eq!(dropped.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn foreign_memory_without_elements_is_read_whatever_its_strides() {
        let owner = vec![1.0f64];
        // SAFETY: no index reaches any element.
        let block = unsafe { Block::from_raw_parts(owner.as_ptr(), &[0, 3], &[-3, 1], owner.clone()) };
        assert_eq!(block.shape(), [0, 3]);
        assert_eq!(block.into_owned(), ArrayD::<f64>::zeros(IxDyn(&[0, 3])));
    }

    #[test]
    fn blocks_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Block<f64>>();
        check::<Chunk>();
    }
}
