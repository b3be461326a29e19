//! How each dtype lies in a GPU buffer: shaders read and write 32-bit words (WGSL has no
//! 8- or 16-bit storage), so booleans and narrow integers are widened to a 32-bit lane on the
//! way in and narrowed on the way out; float64 is kept where the adapter computes in it.
//! Dtypes with no lane (64-bit integers, float16, complex, float64 without the feature) are
//! kept as the host's bytes: the device holds and moves them, and their kernels run on the CPU.

use tegula_core::DType;

/// A dtype's 32- or 64-bit lane in shaders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lane {
    /// `bool`, stored as a `u32` of 0 or 1.
    Bool,
    /// `i32`: int8, int16 and int32.
    I32,
    /// `u32`: uint8, uint16 and uint32.
    U32,
    /// `f32`.
    F32,
    /// `f64`, where the adapter has it.
    F64,
}

impl Lane {
    /// The lane of `dtype`, if shaders compute in it (`f64`: whether the adapter has float64).
    pub fn of(dtype: DType, f64: bool) -> Option<Lane> {
        Some(match dtype {
            DType::Bool => Lane::Bool,
            DType::Int8 | DType::Int16 | DType::Int32 => Lane::I32,
            DType::UInt8 | DType::UInt16 | DType::UInt32 => Lane::U32,
            DType::Float32 => Lane::F32,
            DType::Float64 if f64 => Lane::F64,
            _ => return None,
        })
    }

    /// The host dtype whose bytes are the lane's (what a block is cast to on the way in).
    pub fn host_dtype(self) -> DType {
        match self {
            Lane::Bool | Lane::U32 => DType::UInt32,
            Lane::I32 => DType::Int32,
            Lane::F32 => DType::Float32,
            Lane::F64 => DType::Float64,
        }
    }

    /// The WGSL type of a value in registers.
    pub fn wgsl(self) -> &'static str {
        match self {
            Lane::Bool => "bool",
            Lane::I32 => "i32",
            Lane::U32 => "u32",
            Lane::F32 => "f32",
            Lane::F64 => "f64",
        }
    }

    /// The WGSL type of an element in a buffer.
    pub fn stored(self) -> &'static str {
        match self {
            Lane::Bool => "u32",
            other => other.wgsl(),
        }
    }

    /// The bytes of one element in a buffer.
    pub fn size(self) -> usize {
        match self {
            Lane::F64 => 8,
            _ => 4,
        }
    }

    /// Whether it is a floating-point lane.
    pub fn is_float(self) -> bool {
        matches!(self, Lane::F32 | Lane::F64)
    }
}
