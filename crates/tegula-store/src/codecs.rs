//! How a new Zarr array is laid out and compressed, and its metadata document (written as the
//! JSON the Zarr specifications define, then validated by `zarrs` when the array is created).

use serde_json::{json, Value};
use tegula_core::{value_err, DType, Kind, Result, Scalar};

/// A compressor for every chunk (v3: the bytes-to-bytes codec; v2: the `compressor`).
#[derive(Debug, Clone, PartialEq)]
pub enum Codec {
    /// Chunks stored uncompressed.
    None,
    /// Zstandard, at a level from -7 to 22.
    Zstd {
        /// The compression level (higher: smaller and slower).
        level: i32,
    },
    /// Gzip (deflate), at a level from 0 to 9.
    Gzip {
        /// The compression level (higher: smaller and slower).
        level: u32,
    },
    /// Blosc with LZ4 and byte shuffling (the common choice for numeric data).
    Blosc {
        /// The compression level, 0 to 9 (higher: smaller and slower).
        level: u32,
    },
}

impl Codec {
    /// Parses a compressor name (`none`, `zstd`, `gzip`, `blosc`) with an optional level.
    pub fn parse(name: &str, level: Option<i32>) -> Result<Codec> {
        let unsigned = |default: u32, max: u32| -> Result<u32> {
            match level {
                None => Ok(default),
                Some(l) if (0..=max as i32).contains(&l) => Ok(l as u32),
                Some(l) => Err(value_err!("{name} level must be between 0 and {max}, got {l}")),
            }
        };
        match name.to_ascii_lowercase().as_str() {
            "none" => Ok(Codec::None),
            "zstd" => match level {
                Some(l) if !(-7..=22).contains(&l) => Err(value_err!("zstd level must be between -7 and 22, got {l}")),
                _ => Ok(Codec::Zstd { level: level.unwrap_or(1) }),
            },
            "gzip" => Ok(Codec::Gzip { level: unsigned(1, 9)? }),
            "blosc" => Ok(Codec::Blosc { level: unsigned(5, 9)? }),
            other => Err(value_err!("unknown compressor {other:?}: expected None, 'zstd', 'gzip' or 'blosc'")),
        }
    }

    fn v3(&self, dtype: DType) -> Option<Value> {
        match self {
            Codec::None => None,
            Codec::Zstd { level } => Some(json!({"name": "zstd", "configuration": {"level": level, "checksum": false}})),
            Codec::Gzip { level } => Some(json!({"name": "gzip", "configuration": {"level": level}})),
            Codec::Blosc { level } => Some(json!({"name": "blosc", "configuration": {
                "cname": "lz4", "clevel": level, "shuffle": "shuffle", "typesize": dtype.itemsize(), "blocksize": 0}})),
        }
    }

    fn v2(&self) -> Value {
        match self {
            Codec::None => Value::Null,
            Codec::Zstd { level } => json!({"id": "zstd", "level": level}),
            Codec::Gzip { level } => json!({"id": "gzip", "level": level}),
            Codec::Blosc { level } => json!({"id": "blosc", "cname": "lz4", "clevel": level, "shuffle": 1, "blocksize": 0}),
        }
    }
}

/// The layout of a new Zarr array.
#[derive(Debug, Clone, PartialEq)]
pub struct ZarrOptions {
    /// 2 or 3.
    pub format: u8,
    /// The shape of each stored chunk (the inner chunk when sharded).
    pub chunk_shape: Vec<usize>,
    /// The compressor every chunk is stored with.
    pub codec: Codec,
    /// Zarr v3 sharding: the shard shape, a multiple of `chunk_shape` per axis.
    pub shard_shape: Option<Vec<usize>>,
    /// The value of chunks never written (NumPy's zero of the dtype when `None`).
    pub fill_value: Option<Scalar>,
    /// A JSON object.
    pub attributes: String,
    /// Replace an array already at the path (otherwise that is an error).
    pub overwrite: bool,
}

impl ZarrOptions {
    /// The array metadata document for an array of `shape` and `dtype`.
    pub(crate) fn metadata(&self, shape: &[usize], dtype: DType) -> Result<Value> {
        self.check(shape)?;
        let attributes: Value = serde_json::from_str(&self.attributes)
            .map_err(|e| value_err!("attributes must be a JSON object: {e}"))?;
        if !attributes.is_object() {
            return Err(value_err!("attributes must be a JSON object, got {attributes}"));
        }
        let fill = fill_json(self.fill_value.unwrap_or(Scalar::Bool(false)), dtype)?;
        match self.format {
            2 if dtype.is_time() => Err(tegula_core::dtype_err!("{dtype} cannot be written to Zarr v2 by tegula; use zarr_format=3")),
            2 => Ok(json!({
                "zarr_format": 2, "shape": shape, "chunks": self.chunk_shape, "dtype": v2_dtype(dtype),
                "compressor": self.codec.v2(), "fill_value": fill, "order": "C", "filters": null,
                "dimension_separator": ".", "attributes": attributes,
            })),
            3 => {
                let mut codecs = vec![json!({"name": "bytes", "configuration": {"endian": "little"}})];
                codecs.extend(self.codec.v3(dtype));
                let (grid, codecs) = match &self.shard_shape {
                    None => (&self.chunk_shape, codecs),
                    Some(shard) => (shard, vec![json!({"name": "sharding_indexed", "configuration": {
                        "chunk_shape": self.chunk_shape, "codecs": codecs, "index_location": "end",
                        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}})]),
                };
                Ok(json!({
                    "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": v3_dtype(dtype),
                    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": grid}},
                    "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                    "fill_value": fill, "codecs": codecs, "attributes": attributes,
                }))
            }
            f => Err(value_err!("zarr_format must be 2 or 3, got {f}")),
        }
    }

    fn check(&self, shape: &[usize]) -> Result<()> {
        if self.chunk_shape.len() != shape.len() || self.chunk_shape.contains(&0) {
            return Err(value_err!("chunk shape {:?} does not fit an array of shape {shape:?}", self.chunk_shape));
        }
        if let Some(shard) = &self.shard_shape {
            if self.format != 3 {
                return Err(value_err!("sharding needs zarr_format=3"));
            }
            let fits = shard.len() == shape.len() && shard.iter().zip(&self.chunk_shape).all(|(&s, &c)| s > 0 && s % c == 0);
            if !fits {
                return Err(value_err!("shard shape {shard:?} must be a multiple of the chunk shape {:?}", self.chunk_shape));
            }
        }
        Ok(())
    }
}

/// The little-endian NumPy type string of Zarr v2.
pub(crate) fn v2_dtype(dtype: DType) -> String {
    let code = match dtype.kind() {
        Kind::Bool => return "|b1".into(),
        Kind::DateTime | Kind::TimeDelta => return format!("<{}", time_code(dtype)),
        Kind::Int => 'i',
        Kind::UInt => 'u',
        Kind::Float => 'f',
        Kind::Complex => 'c',
    };
    let order = if dtype.itemsize() == 1 { '|' } else { '<' };
    format!("{order}{code}{}", dtype.itemsize())
}

/// The Zarr v3 data type: its name, or for times zarr-python's extension types
/// (`numpy.datetime64` with the unit in the configuration).
fn v3_dtype(dtype: DType) -> Value {
    match (dtype, dtype.time_unit()) {
        (DType::DateTime64(_), Some(unit)) => json!({"name": "numpy.datetime64", "configuration": {"unit": unit.code(), "scale_factor": 1}}),
        (_, Some(unit)) => json!({"name": "numpy.timedelta64", "configuration": {"unit": unit.code(), "scale_factor": 1}}),
        _ => json!(dtype.name()),
    }
}

/// A Zarr v3 extension data type tegula has: a time of scale 1 in a unit it has.
pub(crate) fn parse_v3_extension(data_type: &Value) -> Option<DType> {
    let config = &data_type["configuration"];
    if config["scale_factor"].as_u64() != Some(1) {
        return None;
    }
    let unit = tegula_core::TimeUnit::from_code(config["unit"].as_str()?)?;
    match data_type["name"].as_str()? {
        "numpy.datetime64" => Some(DType::DateTime64(unit)),
        "numpy.timedelta64" => Some(DType::TimeDelta64(unit)),
        _ => None,
    }
}

/// NumPy's short code of a time dtype (`M8[ns]`).
fn time_code(dtype: DType) -> String {
    let letter = if dtype.kind() == Kind::DateTime { 'M' } else { 'm' };
    match dtype.time_unit() {
        Some(tegula_core::TimeUnit::Generic) | None => format!("{letter}8"),
        Some(unit) => format!("{letter}8[{}]", unit.code()),
    }
}

/// Parses a Zarr v3 data type name or a v2 NumPy type string.
pub(crate) fn parse_dtype(text: &str) -> Result<DType> {
    let unsupported = || tegula_core::dtype_err!("data type {text:?} is not supported by tegula");
    if let Ok(d) = DType::from_name(text) {
        return Ok(d);
    }
    if let Some(time) = text.strip_prefix(['<', '=']).and_then(parse_time_code) {
        return Ok(time);
    }
    let mut chars = text.chars();
    let (Some(order), Some(code)) = (chars.next(), chars.next()) else { return Err(unsupported()) };
    let size: usize = chars.as_str().parse().map_err(|_| unsupported())?;
    if !"<>|=".contains(order) {
        return Err(unsupported());
    }
    let name = match code {
        'b' if size == 1 => "bool".to_string(),
        'i' => format!("int{}", size * 8),
        'u' => format!("uint{}", size * 8),
        'f' => format!("float{}", size * 8),
        'c' => format!("complex{}", size * 8),
        _ => return Err(unsupported()),
    };
    DType::from_name(&name).map_err(|_| unsupported())
}

/// A time dtype from NumPy's short code (`M8[ns]`, `m8[s]`).
fn parse_time_code(code: &str) -> Option<DType> {
    let (kind, rest) = code.split_at_checked(1)?;
    let unit = match rest {
        "8" => tegula_core::TimeUnit::Generic,
        _ => tegula_core::TimeUnit::from_code(rest.strip_prefix("8[")?.strip_suffix(']')?)?,
    };
    match kind {
        "M" => Some(DType::DateTime64(unit)),
        "m" => Some(DType::TimeDelta64(unit)),
        _ => None,
    }
}

/// A fill value as Zarr's JSON writes it for `dtype`.
fn fill_json(value: Scalar, dtype: DType) -> Result<Value> {
    let float = |x: f64| -> Value {
        if x.is_nan() {
            json!("NaN")
        } else if x.is_infinite() {
            json!(if x > 0.0 { "Infinity" } else { "-Infinity" })
        } else {
            json!(x)
        }
    };
    let (re, im) = match value {
        Scalar::Bool(b) => (b as i32 as f64, 0.0),
        Scalar::Int(i) => (i as f64, 0.0),
        Scalar::Float(x) => (x, 0.0),
        Scalar::Complex(r, i) => (r, i),
    };
    let lossy = || value_err!("fill value {value} cannot be stored as {dtype}");
    Ok(match dtype.storage().kind() {
        Kind::Bool => json!(re != 0.0),
        Kind::Int | Kind::UInt => {
            let int = match value {
                Scalar::Int(i) => i,
                Scalar::Bool(b) => b as i128,
                _ if re.fract() == 0.0 && im == 0.0 && re.is_finite() => re as i128,
                _ => return Err(lossy()),
            };
            let (lo, hi) = dtype.storage().integer_bounds().ok_or_else(lossy)?;
            if int < lo || int > hi {
                return Err(lossy());
            }
            if int > i64::MAX as i128 { json!(int as u64) } else { json!(int as i64) }
        }
        Kind::Float if im == 0.0 => float(re),
        Kind::Float => return Err(lossy()),
        Kind::Complex => json!([float(re), float(im)]),
        Kind::DateTime | Kind::TimeDelta => return Err(lossy()),
    })
}
