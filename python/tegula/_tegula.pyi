"""Type stubs of ``tegula._tegula``, the compiled bindings to the Rust core
(``crates/tegula-py/src``). Internal: the public API is the ``tegula`` package, which checks
and normalises arguments NumPy's way before calling these.

Conventions: dtypes travel as NumPy names (``"float64"``); ``axes=None`` means every axis;
``limits`` is ``tegula.linalg``'s ``(tsqr_block_bytes, whole_matrix_bytes)``; functions that
compute take the keyword arguments of ``tegula.compute`` and return what the executor
measured as a dict."""

# Lets the stub run as well (pdoc runs the stub of a module it documents).
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, SupportsIndex, final, overload

import numpy as np
from numpy.typing import NDArray

# Every class and function the module registers (stubtest checks this against the build).
__all__ = [
    "add_host_device", "aligned_weights", "arange", "arg_extreme", "_Array", "bincount", "BlockwiseLayout",
    "broadcast_to", "checked", "digitize", "histogram", "histogramdd",
    "ClusterPlan", "compute", "Dispatch", "concatenate", "cond", "count_nonzero", "cross", "default_spec",
    "device_names", "device_transfers", "diagonal", "einsum", "fftfreq", "fftshift",
    "FragmentEvents", "from_numpy", "from_object", "full", "_Generator", "intersect1d", "isin",
    "kept_bytes", "linspace", "lstsq", "map_blocks", "matrix_norm", "matrix_power", "matrix_rank",
    "median", "memory_budget", "moveaxis", "multi_dot", "norm", "open_npy", "open_zarr", "overlap",
    "pad", "persist", "pinv", "plan_fragments", "ptp", "qr", "quantile",
    "register_hosted_executor", "remove_dead_owners", "roll", "run_fragment", "serve_worker",
    "setdiff1d", "simulate", "sort_block_bytes", "stack", "svd", "svd_compressed", "svdvals",
    "to_npy", "to_zarr", "trace", "transform", "transform_n", "trim_internal", "union1d", "unique",
    "use_loaded_blas", "vector_norm", "weak_scalar_dtype", "zarr_metadata"
]

# --- argument shapes -------------------------------------------------------------------------

# A Python scalar (bool, int, float or complex).
_Scalar = bool | int | float | complex
# A shape: one length, or one per axis.
_Shape = SupportsIndex | Sequence[SupportsIndex]
# ``chunks=`` as users write it: None or "auto", a byte size such as "64MiB", one length for
# every axis (-1: the whole axis), or one entry per axis (a length, -1, None, "auto" or the
# block lengths).
_Chunks = SupportsIndex | str | Sequence[SupportsIndex | str | None | Sequence[int]] | None
# An index item as ``tegula._indexing.normalize_key`` makes it: ("int", i),
# ("slice", start, stop, step), ("newaxis",) or ("ellipsis",).
_IndexItem = tuple[str] | tuple[str, int] | tuple[str, int | None, int | None, int | None]
# A norm order: None, "fro", "nuc" or a number.
_Order = str | float | None
_Limits = tuple[int, int]
_Path = str | os.PathLike[str]
# Object storage options as (key, value) pairs.
_StorageOptions = Sequence[tuple[str, str]]
# ``progress(done, total, bytes, seconds)``, called every ``interval`` seconds.
_Progress = Callable[[int, int, int, float], object]

# --- arrays ----------------------------------------------------------------------------------

@final
class _Array:
    """A handle on a lazy Rust array; ``tegula.Array`` wraps one (made by this module only)."""

    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> str: ...
    @property
    def chunks(self) -> tuple[tuple[int, ...], ...]: ...
    def device(self) -> str: ...
    def to_device(self, name: str) -> _Array: ...
    def task_count(self) -> int: ...
    def describe(self, fuse: bool) -> dict[str, Any]: ...
    def explain(self, memory: int | None = None, nodes: int | None = None, node_memory: int | None = None) -> str: ...
    def unary(self, op: str) -> _Array: ...
    def binary(self, op: str, other: _Array) -> _Array: ...
    def binary_scalar(self, op: str, value: _Scalar, reflected: bool) -> _Array: ...
    def astype(self, name: str) -> _Array: ...
    def bitcast(self, name: str) -> _Array: ...
    def reduce(
        self,
        op: str,
        axes: Sequence[int] | None,
        keepdims: bool,
        ddof: float,
        dtype: str | None,
        split_every: int | None,
    ) -> _Array: ...
    def matmul(self, other: _Array) -> _Array: ...
    def linalg(
        self,
        name: str,
        others: Sequence[_Array],
        flag: bool = False,
        output: int = 0,
        rtol: float | None = None,
        row_blocks: bool = False,
    ) -> _Array: ...
    def linalg_results(self, name: str, flag: bool = False) -> list[_Array]: ...
    def transpose(self, axes: Sequence[int] | None = None) -> _Array: ...
    def expand_dims(self, axes: Sequence[int]) -> _Array: ...
    def reshape(self, shape: Sequence[int]) -> _Array: ...
    def getitem(self, key: list[_IndexItem]) -> _Array: ...
    def setitem(self, key: list[_IndexItem], values: _Array) -> _Array: ...
    def fft(self, axis: int, inverse: bool) -> _Array: ...
    def take(self, indices: _Array, axis: int | None = None) -> _Array: ...
    def take_positions(self, positions: NDArray[np.int64], axis: int) -> _Array: ...
    def take_points(self, coords: Sequence[NDArray[np.int64]], axes: Sequence[int]) -> _Array | None: ...
    def take_along_axis(self, indices: _Array, axis: int) -> _Array: ...
    def wrap_index(self, n: int, axis: int) -> _Array: ...
    def masked(self, mask: _Array) -> _Array: ...
    def nonzero(self) -> list[_Array]: ...
    def rechunk(self, chunks: _Chunks = None) -> _Array: ...
    def where_(self, a: _Array, b: _Array) -> _Array: ...
    def sliding_windows(self, axis: int, width: int) -> _Array: ...
    def cumulative(self, op: str, axis: int | None, dtype: str | None, include_initial: bool) -> _Array: ...
    def sort(self, axis: int, descending: bool, block_bytes: int | None = None) -> _Array: ...
    def argsort(self, axis: int, descending: bool, block_bytes: int | None = None) -> _Array: ...
    def sorted_take(self, indices: _Array, axis: int, block_bytes: int | None = None) -> _Array: ...
    def searchsorted(self, v: _Array, right: bool, sorter: _Array | None = None) -> _Array: ...

# --- creation and joining --------------------------------------------------------------------

def from_numpy(array: NDArray[Any], chunks: _Chunks = None) -> _Array: ...
def full(shape_: _Shape, value: _Scalar, dtype: str | None = None, chunks: _Chunks = None) -> _Array: ...
def arange(start: _Scalar, stop: _Scalar, step: _Scalar, dtype: str | None = None, chunks: _Chunks = None) -> _Array: ...
def linspace(start: float, stop: float, num: int, endpoint: bool, dtype: str, chunks: _Chunks = None) -> _Array: ...
def concatenate(arrays: Sequence[_Array], axis: int | None) -> _Array: ...
def stack(arrays: Sequence[_Array], axis: int) -> _Array: ...
def broadcast_to(x: _Array, shape: Sequence[int]) -> _Array: ...
def weak_scalar_dtype(value: _Scalar, array_dtype: str) -> str: ...

@final
class _Generator:
    """Counter-based random generator (the Rust side of ``tegula.random.Generator``)."""

    def __new__(cls, seed: int) -> _Generator: ...
    def draw(
        self, dist: str, a: float, b: float, shape_: _Shape, dtype_: str, chunks: _Chunks = None
    ) -> _Array: ...
    def compose(
        self,
        name: str,
        params: Sequence[float | _Array],
        shape_: Sequence[int] | None,
        chunks: _Chunks = None,
        dtype_: str | None = None,
    ) -> _Array: ...
    def triangular(
        self,
        left: NDArray[np.float64],
        mode: NDArray[np.float64],
        right: NDArray[np.float64],
        shape_: Sequence[int] | None,
        chunks: _Chunks = None,
    ) -> _Array: ...
    def choice(
        self, n: int, shape_: Sequence[int], replace: bool, p: Sequence[float] | None, chunks: _Chunks = None
    ) -> _Array: ...
    def draw_with(self, dist: str, a: _Array, b: _Array, shape_: _Shape, chunks: _Chunks = None) -> _Array: ...
    def multivariate_normal(
        self, mean: _Array, cov: _Array, shape_: Sequence[int], method: str, tol: float, chunks: _Chunks = None
    ) -> tuple[_Array, bool]: ...

# --- algorithms ------------------------------------------------------------------------------

def arg_extreme(x: _Array, maximum: bool, axis: int | None, keepdims: bool) -> _Array: ...
def quantile(
    x: _Array,
    q: NDArray[np.float64],
    q_dtype: str,
    weak: bool,
    axes: Sequence[int] | None,
    method: str,
    keepdims: bool,
    weights: _Array | None,
    skip_nan: bool,
) -> _Array: ...
def median(x: _Array, axes: Sequence[int] | None, keepdims: bool, skip_nan: bool) -> _Array: ...
def ptp(x: _Array, axes: Sequence[int] | None, keepdims: bool) -> _Array: ...
def aligned_weights(x: _Array, weights: _Array, axes: Sequence[int] | None) -> _Array: ...
def count_nonzero(x: _Array, axes: Sequence[int] | None, keepdims: bool) -> _Array: ...
def unique(
    x: _Array, equal_nan: bool, index: bool, inverse: bool, counts: bool, axis: int | None
) -> tuple[_Array, _Array | None, _Array | None, _Array | None]: ...
def union1d(a: _Array, b: _Array) -> _Array: ...
def intersect1d(
    a: _Array, b: _Array, assume_unique: bool, return_indices: bool
) -> tuple[_Array, _Array | None, _Array | None, None]: ...
def setdiff1d(a: _Array, b: _Array, assume_unique: bool) -> _Array: ...
def isin(x: _Array, test: _Array, invert: bool) -> _Array: ...
def moveaxis(x: _Array, source: Sequence[int], destination: Sequence[int]) -> _Array: ...
def pad(
    x: _Array,
    widths: Sequence[Sequence[int]],
    mode: str,
    values: Sequence[tuple[_Array, _Array]] | None,
    odd: bool,
    lengths: Sequence[Sequence[int]] | None,
) -> _Array: ...
def einsum(subscripts: str, operands: Sequence[_Array], dtype: str | None) -> _Array: ...
def overlap(
    x: _Array, depths: Sequence[Sequence[int]], boundary: Sequence[str | _Array], allow_rechunk: bool
) -> _Array: ...
def trim_internal(x: _Array, depths: Sequence[Sequence[int]], boundary: Sequence[str | _Array]) -> _Array: ...
def roll(x: _Array, shifts: Sequence[int], axes: Sequence[int] | None) -> _Array: ...

# --- linear algebra --------------------------------------------------------------------------

def qr(x: _Array, complete: bool, limits: _Limits) -> tuple[_Array, _Array]: ...
def svd(x: _Array, full: bool, limits: _Limits) -> tuple[_Array, _Array, _Array]: ...
def svdvals(x: _Array, limits: _Limits) -> _Array: ...
def pinv(x: _Array, rtol: float | None, per_matrix: _Array | None, limits: _Limits) -> _Array: ...
def matrix_rank(x: _Array, rtol: _Array | None, limits: _Limits) -> _Array: ...
def lstsq(a: _Array, b: _Array, rcond: float | None, limits: _Limits) -> tuple[_Array, _Array, int, _Array]: ...
def matrix_power(x: _Array, n: int) -> _Array: ...
def multi_dot(arrays: Sequence[_Array]) -> _Array: ...
def cross(a: _Array, b: _Array, axis: int) -> _Array: ...
def diagonal(x: _Array, offset: int) -> _Array: ...
def trace(x: _Array, offset: int, dtype: str | None = None) -> _Array: ...
def vector_norm(x: _Array, axes: Sequence[int] | None, keepdims: bool, ord: _Order) -> _Array: ...
def matrix_norm(x: _Array, keepdims: bool, ord: _Order, limits: _Limits) -> _Array: ...
def norm(x: _Array, ord: _Order, axes: Sequence[int] | None, keepdims: bool, limits: _Limits) -> _Array: ...
def cond(x: _Array, p: _Order, limits: _Limits) -> _Array: ...
def svd_compressed(
    a: _Array,
    k: int,
    power_iterations: int,
    oversamples: int,
    orthonormalise_each: bool,
    seed: int,
    coerce_signs: bool,
    limits: _Limits,
) -> tuple[_Array, _Array, _Array]: ...

# --- FFT -------------------------------------------------------------------------------------

def transform(x: _Array, kind: str, n: int | None, axis: int, norm: str | None) -> _Array: ...
def transform_n(
    x: _Array, kind: str, s: Sequence[int | None] | None, axes: Sequence[int] | None, norm: str | None
) -> _Array: ...
def fftfreq(n: int, d: float, dtype: str | None, real: bool) -> _Array: ...
def fftshift(x: _Array, axes: Sequence[int] | None, inverse: bool) -> _Array: ...

# --- computing -------------------------------------------------------------------------------

def compute(
    arrays: Sequence[_Array],
    scheduler: str = "threads",
    num_workers: int | None = None,
    fuse: bool = True,
    memory: int | None = None,
    spill_dir: _Path | None = None,
    progress: _Progress | None = None,
    interval: float = 0.1,
    trace: bool = False,
) -> tuple[list[NDArray[Any]], dict[str, Any]]: ...
def persist(
    arrays: Sequence[_Array],
    scheduler: str = "threads",
    num_workers: int | None = None,
    fuse: bool = True,
    memory: int | None = None,
    spill_dir: _Path | None = None,
    progress: _Progress | None = None,
    interval: float = 0.1,
    trace: bool = False,
) -> tuple[list[_Array], dict[str, Any]]: ...
def map_blocks(
    function: Callable[[tuple[int, ...], list[NDArray[Any]]], NDArray[Any]],
    arrays: Sequence[_Array],
    chunks: Sequence[Sequence[int]],
    dtype_: str,
    name: str,
) -> _Array: ...

@final
class BlockwiseLayout:
    """Dask's ``blockwise`` layout of arrays on shared internal axes (the Rust crate's)."""

    def __new__(
        cls,
        out_index: str,
        arrays: Sequence[_Array],
        indices: Sequence[str],
        new_axes: Sequence[tuple[str, int]],
        whole: str = "",
    ) -> BlockwiseLayout: ...
    @property
    def axes(self) -> list[list[int]]: ...
    def apply(
        self, function: Callable[[tuple[int, ...], list[NDArray[Any]]], NDArray[Any]], dtype_: str, name: str
    ) -> _Array: ...

# --- counting and data checks ----------------------------------------------------------------

def checked(value: _Array, failed: _Array, error: str, message: str) -> _Array: ...
def histogram(
    x: _Array,
    count: int | None,
    edges: _Array | None,
    estimator: str | None,
    range: tuple[float, float] | None,
    density: bool,
    weights: _Array | None,
) -> tuple[_Array, _Array, bool]: ...
def histogramdd(
    columns: Sequence[_Array],
    counts: Sequence[int | None],
    edges: Sequence[_Array | None],
    ranges: Sequence[tuple[float, float] | None],
    density: bool,
    weights: _Array | None,
) -> tuple[_Array, list[_Array]]: ...
def bincount(x: _Array, weights: _Array | None, minlength: int) -> _Array: ...
def digitize(x: _Array, bins: _Array, right: bool) -> _Array: ...

# --- memory and settings ---------------------------------------------------------------------

def default_spec() -> tuple[int, Path]: ...
def kept_bytes() -> int: ...
def sort_block_bytes(memory: int, arg: bool) -> int: ...
def memory_budget(text: str) -> int: ...
def use_loaded_blas() -> dict[str, Any] | None: ...
def remove_dead_owners(parent: _Path) -> None: ...

# --- storage ---------------------------------------------------------------------------------

def open_zarr(path: str, chunks: _Chunks = None, storage_options: _StorageOptions = ...) -> tuple[_Array, str]: ...
def open_npy(path: str, chunks: _Chunks = None) -> _Array: ...
def zarr_metadata(url: str, storage_options: _StorageOptions = ...) -> str: ...
def to_zarr(
    array: _Array,
    path: str,
    chunks: _Shape | None = None,
    compressor: str | None = None,
    level: int | None = None,
    shards: _Shape | None = None,
    fill_value: _Scalar | None = None,
    attributes: str = "{}",
    overwrite: bool = False,
    zarr_format: int = 3,
    scheduler: str = "threads",
    num_workers: int | None = None,
    fuse: bool = True,
    memory: int | None = None,
    spill_dir: _Path | None = None,
    storage_options: _StorageOptions = ...,
) -> dict[str, Any]: ...
def to_npy(
    array: _Array,
    path: str,
    overwrite: bool = False,
    scheduler: str = "threads",
    num_workers: int | None = None,
    fuse: bool = True,
    memory: int | None = None,
    spill_dir: _Path | None = None,
) -> dict[str, Any]: ...
def from_object(
    object: Any,
    shape_: _Shape,
    dtype_: str,
    chunks: _Chunks = None,
    name: str | None = None,
    read_unit: Sequence[int] | None = None,
) -> _Array: ...

# --- clusters and worker processes -----------------------------------------------------------

@final
class ClusterPlan:
    """A plan cut into fragments and placed on a cluster's nodes, as a hosted executor's runner
    receives it (made by this module only)."""

    def fragments(self) -> list[tuple[bytes, list[int], list[int], int, int]]: ...
    def given(self) -> list[tuple[int, int]]: ...
    def given_block(self, task: int) -> NDArray[Any]: ...
    def peaks(self) -> list[int]: ...
    def outputs(self) -> list[list[int]]: ...
    def dispatch(
        self,
        slots: Sequence[int] | None = None,
        memory: Sequence[int | None] | None = None,
        pooled: int | None = None,
        whole: bool = False,
        fetch_batch: int | None = None,
    ) -> Dispatch: ...

@final
class Dispatch:
    """The dispatch of a plan's fragments: which starts next, what to let go of and fetch."""

    def start(self) -> int | None: ...
    def ended(self, k: int, sizes: Sequence[int]) -> tuple[list[int], list[int]]: ...
    def unfetched(self) -> list[int]: ...
    def running(self) -> list[int]: ...
    def started_all(self) -> bool: ...

@final
class FragmentEvents:
    """What a runner calls as fragments end (made by this module only)."""

    def done(self, fragment: int, node: int, start: float, end: float) -> None: ...

class _Runner(Protocol):
    """What ``register_hosted_executor`` takes (see ``crates/tegula-py/src/hosted.rs``)."""

    def nodes(self, workers: int | None, /) -> tuple[int, int | None]: ...
    def run(
        self, plan: ClusterPlan, events: FragmentEvents, /
    ) -> tuple[dict[int, NDArray[Any]], dict[str, Any] | None] | None: ...

def simulate(
    arrays: Sequence[_Array],
    nodes: int,
    node_memory: int | None = None,
    memory: int | None = None,
    placement: str = "tegula",
) -> dict[str, Any]: ...
def register_hosted_executor(name: str, runner: _Runner) -> None: ...
def plan_fragments(
    arrays: Sequence[_Array], fuse: bool = True, memory: int | None = None
) -> tuple[list[tuple[bytes, list[int], list[int]]], list[list[int]]]: ...
@overload
def run_fragment(
    fragment: bytes,
    inputs: Sequence[NDArray[Any]],
    memory: int | None = None,
    num_workers: int = 1,
    return_peak: Literal[False] = False,
) -> list[NDArray[Any]]: ...
@overload
def run_fragment(
    fragment: bytes,
    inputs: Sequence[NDArray[Any]],
    memory: int | None = None,
    num_workers: int = 1,
    *,
    return_peak: Literal[True],
) -> tuple[list[NDArray[Any]], int]: ...
@overload
def run_fragment(
    fragment: bytes,
    inputs: Sequence[NDArray[Any]],
    memory: int | None = None,
    num_workers: int = 1,
    return_peak: bool = False,
) -> list[NDArray[Any]] | tuple[list[NDArray[Any]], int]: ...
def serve_worker(input: int, output: int) -> None: ...

# --- devices ---------------------------------------------------------------------------------

def device_names() -> list[str]: ...
def add_host_device(name: str, memory: int | None = None) -> None: ...
def device_transfers(name: str) -> tuple[int, int]: ...
