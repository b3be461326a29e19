//! Conversions between Python objects and tegula values: NumPy arrays ↔ chunks, Python
//! scalars, dtype names, chunk specifications and index keys.

use numpy::{
    PyArray, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PyString, PyTuple};
use tegula::{AxisChunks, Block, Chunk, ChunkSpec, DType, Scalar, Element, ops::IndexItem};

use crate::errors::IntoPy;

/// Calls `$body` with `$t` bound to every element type but bool; the first whose cast
/// succeeds wins.
macro_rules! each_elem {
    ($t:ident => $body:block) => {{
        { type $t = i8; $body }
        { type $t = i16; $body }
        { type $t = i32; $body }
        { type $t = i64; $body }
        { type $t = u8; $body }
        { type $t = u16; $body }
        { type $t = u32; $body }
        { type $t = u64; $body }
        { type $t = half::f16; $body }
        { type $t = f32; $body }
        { type $t = f64; $body }
        { type $t = num_complex::Complex<f32>; $body }
        { type $t = num_complex::Complex<f64>; $body }
    }};
}

/// The time dtype of a NumPy `datetime64`/`timedelta64` array (`None` for other arrays), or
/// `TypeError` for a unit tegula lacks.
pub fn numpy_time_dtype(obj: &Bound<'_, PyAny>) -> PyResult<Option<DType>> {
    let Ok(dtype) = obj.getattr("dtype") else { return Ok(None) };
    let kind: String = dtype.getattr("kind")?.extract()?;
    if kind != "M" && kind != "m" {
        return Ok(None);
    }
    let name: String = dtype.getattr("name")?.extract()?;
    DType::from_name(&name).py().map(Some)
}

/// Copies a NumPy array (any layout and byte order) into a chunk; times become their int64
/// counts (the chunk's storage: see `numpy_time_dtype` for the dtype).
pub fn chunk_from_numpy(obj: &Bound<'_, PyAny>) -> PyResult<Chunk> {
    let counts;
    let obj = if numpy_time_dtype(obj)?.is_some() {
        counts = obj.call_method1("view", ("i8",))?;
        &counts
    } else {
        obj
    };
    let normalised = native_aligned(obj)?;
    let obj = normalised.as_ref().unwrap_or(obj);
    let shape: Option<Vec<usize>> = obj.getattr("shape").and_then(|s| s.extract()).ok();
    // rust-numpy reads at most 32 axes (NumPy allows 64): more are read from a flat copy.
    let flat = match &shape {
        Some(shape) if shape.len() > NUMPY_CRATE_MAX_DIMS => Some(obj.call_method1("reshape", (-1,))?),
        _ => None,
    };
    let source = flat.as_ref().unwrap_or(obj);
    let shape = shape.as_deref();
    if source.cast::<PyArrayDyn<bool>>().is_ok() {
        // NumPy takes any nonzero byte of a bool array for True, but a Rust bool must be 0 or
        // 1: the bytes are read as such and mapped.
        let bytes = source.call_method1("view", ("u1",))?;
        let bytes = bytes.cast::<PyArrayDyn<u8>>()?;
        let data = copied(bytes, shape, |b, data| data.extend(b.iter().map(|&b| b != 0)), |&b| b != 0)?;
        return Ok(bool::wrap(data.into()));
    }
    each_elem!(T => {
        if let Ok(a) = source.cast::<PyArrayDyn<T>>() {
            let data = copied(a, shape, |values, data| data.extend_from_slice(values), |&x| x)?;
            return Ok(T::wrap(data.into()));
        }
    });
    let dtype = obj.getattr("dtype").map(|d| d.to_string()).unwrap_or_default();
    Err(PyTypeError::new_err(format!("tegula does not support arrays of dtype {dtype}")))
}

/// A new array of `a`'s elements as `each` maps them (`fill` maps a contiguous run into the
/// buffer, in huge pages when big), of `shape` when given (`a` being its flat copy).
fn copied<T: numpy::Element, U>(
    a: &Bound<'_, PyArrayDyn<T>>,
    shape: Option<&[usize]>,
    fill: impl FnOnce(&[T], &mut Vec<U>),
    each: impl FnMut(&T) -> U,
) -> PyResult<ndarray::ArrayD<U>> {
    let readonly = a.readonly();
    let view = readonly.as_array();
    Ok(match view.as_slice() {
        Some(values) => {
            let mut data = Vec::with_capacity(values.len());
            fill(values, &mut data);
            let dims = shape.map_or_else(|| view.raw_dim(), ndarray::IxDyn);
            ndarray::ArrayD::from_shape_vec(dims, data).map_err(|e| PyValueError::new_err(e.to_string()))?
        }
        None => view.map(each),
    })
}

/// The most axes rust-numpy converts (its stride buffers are 32 long).
const NUMPY_CRATE_MAX_DIMS: usize = 32;

/// Whether Rust can read a NumPy array's elements where they are: native byte order, aligned,
/// and strides whole elements apart (rust-numpy's views assume both: a stride of 9 bytes
/// between float64s, from a field of a structured array, is neither).
fn readable_in_place(array: &Bound<'_, PyUntypedArray>) -> bool {
    let dtype = array.dtype();
    let itemsize = dtype.itemsize().max(1) as isize;
    dtype.is_native_byteorder() != Some(false)
        && array.is_aligned()
        && array.strides().iter().all(|s| s % itemsize == 0)
}

/// A NumPy array Rust cannot read in place (see `readable_in_place`) as NumPy's own native,
/// aligned copy of it; `None` for anything else, read as it is.
fn native_aligned<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Ok(array) = obj.cast::<PyUntypedArray>() else {
        return Ok(None);
    };
    if readable_in_place(array) || array.dtype().has_object() {
        return Ok(None);
    }
    let native = array.dtype().call_method1("newbyteorder", ("=",))?;
    array.call_method1("astype", (native,)).map(Some)
}

/// Read borrows of NumPy arrays (rust-numpy's borrow checking, shared between extensions),
/// held while chunks over their memory are in use and released when dropped.
#[derive(Default)]
pub struct ReadBorrows<'py>(Vec<Box<dyn ReadBorrow + 'py>>);

/// A read borrow of some NumPy array, whatever its element type.
trait ReadBorrow {}
impl<T: numpy::Element> ReadBorrow for PyReadonlyArrayDyn<'_, T> {}

/// A NumPy array as a chunk over the array's own memory, without a copy, where Rust can read
/// it in place (`readable_in_place`, at most 32 axes) and its dtype is not bool (NumPy may hold
/// bytes other than 0 and 1 in a bool array, which are not Rust bools); an array of another
/// byte order, misaligned or with strides between elements is read from NumPy's native copy
/// of it, and anything else copied (`chunk_from_numpy`). The chunk holds a reference to the array, so the memory
/// outlives it; `borrows` keeps the array read-borrowed, and must outlive every use of the
/// chunk — that is what stands for "nothing writes to it" (see `Block::from_raw_parts`).
/// Letting the chunk go without the GIL is fine: pyo3 queues the reference's decrement until
/// a thread next attaches.
pub fn chunk_over_numpy<'py>(obj: &Bound<'py, PyAny>, borrows: &mut ReadBorrows<'py>) -> PyResult<Chunk> {
    in_place(obj, |array| {
        each_elem!(T => {
            if let Ok(typed) = array.cast::<PyArrayDyn<T>>() {
                if let Ok(readonly) = typed.try_readonly() {
                    // SAFETY: the read borrow kept in `borrows` for as long as the chunk is used
                    // keeps writers that respect rust-numpy's borrows away (as for any
                    // `PyReadonlyArray`, Python code writing to the array meanwhile is not
                    // stopped).
                    let chunk = unsafe { over_view(readonly.as_array(), array) };
                    borrows.0.push(Box::new(readonly));
                    return Some(chunk);
                }
            }
        });
        None
    })
}

/// A NumPy array handed over to tegula — a block a cluster's runner returns, which nothing
/// else holds — as a chunk over its memory without a copy, as `chunk_over_numpy` reads one
/// (copied where it cannot be read in place). The array is made read-only first, so a write
/// through it fails instead of changing the chunk. Copying a result block into fresh memory
/// costs about as much as receiving it on a machine where touching new pages is slow.
pub fn chunk_handed_over(obj: &Bound<'_, PyAny>) -> PyResult<Chunk> {
    if obj.cast::<PyUntypedArray>().is_ok() {
        let read_only = pyo3::types::PyDict::new(obj.py());
        read_only.set_item("write", false)?;
        obj.call_method("setflags", (), Some(&read_only))?;
    }
    in_place(obj, |array| {
        each_elem!(T => {
            if let Ok(typed) = array.cast::<PyArrayDyn<T>>() {
                // SAFETY: nothing else holds a handed-over array, and it no longer takes
                // writes through itself; rust-numpy's view reaches only its elements.
                return Some(unsafe { over_view(typed.as_array(), array) });
            }
        });
        None
    })
}

/// `over(array)` for a NumPy array Rust can read in place (made so by NumPy's native copy
/// where its byte order, alignment or strides are not: `native_aligned`), or its copy when
/// that is None or it cannot be read in place.
fn in_place<'py>(obj: &Bound<'py, PyAny>, over: impl FnOnce(&Bound<'py, PyAny>) -> Option<Chunk>) -> PyResult<Chunk> {
    let normalised = native_aligned(obj)?;
    let obj = normalised.as_ref().unwrap_or(obj);
    let readable = match obj.cast::<PyUntypedArray>() {
        Ok(array) => array.ndim() <= NUMPY_CRATE_MAX_DIMS && readable_in_place(array),
        Err(_) => false,
    };
    match readable.then(|| over(obj)).flatten() {
        Some(chunk) => Ok(chunk),
        None => chunk_from_numpy(obj),
    }
}

/// A chunk over the elements `view` reaches, holding a reference to `array`.
///
/// # Safety
///
/// `view` is rust-numpy's view of `array` (its pointer and element strides reach only the
/// array's elements, each a valid `T` — the dtype is `T`'s and every bit pattern is a `T` —,
/// aligned, in the one buffer the array views, which the chunk's reference keeps alive), and
/// nothing writes to those elements while the chunk lives. Reading them from any thread is
/// sound: they are plain numbers.
unsafe fn over_view<T: Element>(view: ndarray::ArrayViewD<'_, T>, array: &Bound<'_, PyAny>) -> Chunk {
    T::wrap(unsafe { Block::<T>::from_raw_parts(view.as_ptr(), view.shape(), view.strides(), array.clone().unbind()) })
}

/// Moves a chunk into a new NumPy array (no copy when the chunk owns its data alone).
pub fn chunk_to_numpy<'py>(py: Python<'py>, chunk: Chunk) -> PyResult<Bound<'py, PyAny>> {
    macro_rules! out {
        ($($v:ident),*) => {
            match chunk {
                $(Chunk::$v(a) => owned_to_numpy(py, a.into_owned()),)*
                Chunk::Device(d) => Err(PyRuntimeError::new_err(format!("internal error: a block still on a device reached Python: {d:?}"))),
            }
        };
    }
    out!(Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float16, Float32, Float64, Complex64, Complex128)
}

/// A block of an array of `dtype` as a NumPy array (times viewed as their NumPy dtype).
pub fn block_to_numpy<'py>(py: Python<'py>, chunk: Chunk, dtype: DType) -> PyResult<Bound<'py, PyAny>> {
    let array = chunk_to_numpy(py, chunk)?;
    if dtype.is_time() {
        return array.call_method1("view", (dtype.name(),));
    }
    Ok(array)
}

/// `a` as a NumPy array; one of more than 32 axes goes through a flat array and NumPy's reshape.
fn owned_to_numpy<T: numpy::Element + Clone>(py: Python<'_>, a: ndarray::ArrayD<T>) -> PyResult<Bound<'_, PyAny>> {
    if a.ndim() <= NUMPY_CRATE_MAX_DIMS {
        return Ok(PyArray::from_owned_array(py, a).into_any());
    }
    let shape = a.shape().to_vec();
    let flat: Vec<T> = a.iter().cloned().collect();
    PyArray::from_vec(py, flat).call_method1("reshape", (shape,))
}

pub fn dtype(name: &str) -> PyResult<DType> {
    DType::from_name(name).py()
}

pub fn opt_dtype(name: Option<&str>) -> PyResult<Option<DType>> {
    name.map(dtype).transpose()
}

/// A Python `bool`, `int`, `float` or `complex` as a scalar.
pub fn scalar(obj: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Scalar::Bool(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj
            .extract::<i128>()
            .map(Scalar::Int)
            .map_err(|_| pyo3::exceptions::PyOverflowError::new_err(format!("Python integer {obj} is too large")));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Scalar::Float(obj.extract()?));
    }
    if let Ok(c) = obj.cast::<PyComplex>() {
        return Ok(Scalar::Complex(c.real(), c.imag()));
    }
    Err(PyTypeError::new_err(format!("expected a Python scalar, got {}", obj.get_type().name()?)))
}

pub fn shape(obj: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    if let Ok(n) = obj.extract::<i128>() {
        return one_dim(n).map(|n| vec![n]);
    }
    let items: Vec<i128> = obj.extract()?;
    items.into_iter().map(one_dim).collect()
}

/// One axis length, refused as NumPy refuses it: negative, or beyond an `isize`.
fn one_dim(n: i128) -> PyResult<usize> {
    if n < 0 {
        return Err(PyValueError::new_err("negative dimensions are not allowed"));
    }
    i64::try_from(n).map(|n| n as usize).map_err(|_| PyValueError::new_err("Maximum allowed dimension exceeded"))
}

/// `chunks=` as Python users write it: `"auto"`, a byte size string, an int (-1: whole axis),
/// or a tuple with one entry per axis (int, -1, None, "auto" or a tuple of block lengths).
pub fn chunk_spec(obj: Option<&Bound<'_, PyAny>>) -> PyResult<ChunkSpec> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(ChunkSpec::Auto(tegula::creation::AUTO_CHUNK_BYTES));
    };
    if let Ok(s) = obj.cast::<PyString>() {
        return text_spec(&s.to_string()).map(ChunkSpec::Auto);
    }
    if integer(obj).is_some() {
        return axis_chunks(obj).map(ChunkSpec::All);
    }
    if obj.is_instance_of::<PyTuple>() || obj.is_instance_of::<PyList>() {
        let items = obj.try_iter()?.map(|i| axis_chunks(&i?)).collect::<PyResult<Vec<_>>>()?;
        return Ok(ChunkSpec::PerAxis(items));
    }
    Err(PyValueError::new_err(format!("cannot understand chunks={obj}")))
}

/// A Python or NumPy integer (anything with `__index__` but a bool), as NumPy takes sizes.
fn integer(obj: &Bound<'_, PyAny>) -> Option<i64> {
    if obj.is_instance_of::<PyBool>() {
        return None;
    }
    obj.extract::<i64>().ok()
}

fn text_spec(text: &str) -> PyResult<usize> {
    if text == "auto" {
        return Ok(tegula::creation::AUTO_CHUNK_BYTES);
    }
    tegula::creation::parse_bytes(text).py()
}

fn axis_chunks(obj: &Bound<'_, PyAny>) -> PyResult<AxisChunks> {
    if obj.is_none() {
        return Ok(AxisChunks::Full);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return match s.to_string().as_str() {
            "auto" => Ok(AxisChunks::Auto),
            other => Err(PyValueError::new_err(format!("cannot understand chunk size '{other}'"))),
        };
    }
    if let Some(n) = integer(obj) {
        return match n {
            -1 => Ok(AxisChunks::Full),
            n if n > 0 => Ok(AxisChunks::Size(n as usize)),
            n => Err(PyValueError::new_err(format!("chunk sizes must be positive or -1, got {n}"))),
        };
    }
    let sizes: Vec<i64> = obj
        .extract()
        .map_err(|_| PyValueError::new_err(format!("cannot understand chunks entry {obj}")))?;
    sizes
        .into_iter()
        .map(|s| usize::try_from(s).map_err(|_| PyValueError::new_err("chunk sizes must be non-negative")))
        .collect::<PyResult<Vec<_>>>()
        .map(AxisChunks::Explicit)
}

/// A key normalised in Python into a list of `("int", i)`, `("slice", start, stop, step)`,
/// `("newaxis",)` and `("ellipsis",)` tuples.
pub fn index_items(key: &Bound<'_, PyList>) -> PyResult<Vec<IndexItem>> {
    key.iter()
        .map(|item| {
            let tag: String = item.get_item(0)?.extract()?;
            Ok(match tag.as_str() {
                "int" => IndexItem::Int(item.get_item(1)?.extract()?),
                "slice" => IndexItem::Slice {
                    start: item.get_item(1)?.extract()?,
                    stop: item.get_item(2)?.extract()?,
                    step: item.get_item(3)?.extract()?,
                },
                "newaxis" => IndexItem::NewAxis,
                "ellipsis" => IndexItem::Ellipsis,
                other => return Err(PyValueError::new_err(format!("bad index item {other}"))),
            })
        })
        .collect()
}
