//! The chains `compressed.rs` does not decode itself (shards, blosc, checksums, v3 chains of
//! several compressors) still go through `zarrs`, with each bytes-to-bytes codec wrapped so
//! that no chunk decodes to more than the size its place in the chain declares (the chunk's
//! shape times the item size for the last compressor): zstd and gzip are streamed into a
//! buffer of at most that size, a blosc frame whose header declares more is refused before it
//! is decoded, and any other codec's output is checked. The wrapped codecs say the same
//! metadata as the originals; only decoding changes.

use serde_json::Value;
use std::borrow::Cow;
use std::io::Read;
use std::sync::Arc;
use zarrs::array::codec::api::{PartialDecoderCapability, PartialEncoderCapability};
use zarrs::array::codec::{CodecChain, ShardingCodec};
use zarrs::array::{
    Array, ArrayBuilder, ArrayBytesRaw, ArrayMetadata, BytesRepresentation, BytesToBytesCodecTraits, CodecError,
    CodecMetadataOptions, CodecOptions, CodecTraits, RecommendedConcurrency,
};
use zarrs::metadata::Configuration;
use zarrs::metadata_ext::codec::sharding::ShardingCodecConfigurationV1;
use zarrs::plugin::{ExtensionName, ZarrVersion};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Zstd,
    Gzip,
    Blosc,
    Other,
}

#[derive(Debug)]
struct Bounded {
    inner: Arc<dyn BytesToBytesCodecTraits>,
    kind: Kind,
}

fn wrap(codec: &Arc<dyn BytesToBytesCodecTraits>) -> Arc<dyn BytesToBytesCodecTraits> {
    let kind = match codec.name(ZarrVersion::V3).as_deref() {
        Some("zstd") => Kind::Zstd,
        Some("gzip") => Kind::Gzip,
        Some("blosc") => Kind::Blosc,
        _ => Kind::Other,
    };
    Arc::new(Bounded { inner: codec.clone(), kind })
}

fn wrap_all(codecs: &[Arc<dyn BytesToBytesCodecTraits>]) -> Vec<Arc<dyn BytesToBytesCodecTraits>> {
    codecs.iter().map(wrap).collect()
}

/// `array` (opened from `meta`) rebuilt with bounded decoding, when its chain has codecs to
/// bound; `None` to read it as it is.
pub(crate) fn bounded<S: ?Sized>(array: &Array<S>, meta: &Value, store: Arc<S>) -> Option<Array<S>> {
    let chain = array.codecs();
    let sharding = match array.metadata() {
        ArrayMetadata::V3(_) => meta["codecs"].as_array()?.iter().find(|c| c["name"] == "sharding_indexed"),
        ArrayMetadata::V2(_) => None,
    };
    if chain.bytes_to_bytes_codecs().is_empty() && sharding.is_none() {
        return None;
    }
    let mut builder = ArrayBuilder::from_array(array);
    builder.bytes_to_bytes_codecs(wrap_all(chain.bytes_to_bytes_codecs()));
    if let Some(sharding) = sharding {
        let config: ShardingCodecConfigurationV1 = serde_json::from_value(sharding["configuration"].clone()).ok()?;
        let inner = CodecChain::from_metadata(&config.codecs).ok()?;
        let inner = CodecChain::new(
            inner.array_to_array_codecs().to_vec(),
            inner.array_to_bytes_codec().clone(),
            wrap_all(inner.bytes_to_bytes_codecs()),
        );
        let index = CodecChain::from_metadata(&config.index_codecs).ok()?;
        let codec = ShardingCodec::new(config.chunk_shape, Arc::new(inner), Arc::new(index), config.index_location);
        builder.array_to_bytes_codec(Arc::new(codec));
    }
    builder.build(store, "/").ok()
}

impl ExtensionName for Bounded {
    fn name(&self, version: ZarrVersion) -> Option<Cow<'static, str>> {
        self.inner.name(version)
    }
}

impl CodecTraits for Bounded {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn configuration(&self, version: ZarrVersion, options: &CodecMetadataOptions) -> Option<Configuration> {
        self.inner.configuration(version, options)
    }
    fn partial_decoder_capability(&self) -> PartialDecoderCapability {
        PartialDecoderCapability { partial_read: false, partial_decode: false }
    }
    fn partial_encoder_capability(&self) -> PartialEncoderCapability {
        self.inner.partial_encoder_capability()
    }
}

/// Streams `decoder` into a buffer of at most `limit` bytes.
fn read_bounded(mut decoder: impl Read, limit: u64, what: &str) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    (&mut decoder).take(limit).read_to_end(&mut out).map_err(|e| CodecError::Other(format!("{what}: {e}")))?;
    let mut extra = [0u8; 1];
    match decoder.read(&mut extra) {
        Ok(0) => Ok(out),
        Ok(_) => Err(too_big(limit)),
        Err(e) => Err(CodecError::Other(format!("{what}: {e}"))),
    }
}

fn too_big(limit: u64) -> CodecError {
    CodecError::Other(format!("the chunk decodes to more than its {limit} bytes (shape × item size); not reading further"))
}

impl BytesToBytesCodecTraits for Bounded {
    fn into_dyn(self: Arc<Self>) -> Arc<dyn BytesToBytesCodecTraits> {
        self
    }
    fn recommended_concurrency(&self, decoded: &BytesRepresentation) -> Result<RecommendedConcurrency, CodecError> {
        self.inner.recommended_concurrency(decoded)
    }
    fn encoded_representation(&self, decoded: &BytesRepresentation) -> BytesRepresentation {
        self.inner.encoded_representation(decoded)
    }
    fn encode<'a>(&self, decoded_value: ArrayBytesRaw<'a>, options: &CodecOptions) -> Result<ArrayBytesRaw<'a>, CodecError> {
        self.inner.encode(decoded_value, options)
    }
    fn decode<'a>(
        &self,
        encoded: ArrayBytesRaw<'a>,
        decoded: &BytesRepresentation,
        options: &CodecOptions,
    ) -> Result<ArrayBytesRaw<'a>, CodecError> {
        let Some(limit) = decoded.size() else { return self.inner.decode(encoded, decoded, options) };
        match self.kind {
            Kind::Zstd => {
                let decoder = zstd::stream::read::Decoder::with_buffer(&encoded[..]).map_err(|e| CodecError::Other(format!("zstd: {e}")))?;
                read_bounded(decoder, limit, "zstd").map(Cow::Owned)
            }
            Kind::Gzip => read_bounded(flate2::bufread::GzDecoder::new(&encoded[..]), limit, "gzip").map(Cow::Owned),
            Kind::Blosc => {
                // The header's bytes 4..8: the decoded size, which blosc allocates.
                let declared = encoded.get(4..8).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64);
                if declared.is_some_and(|n| n > limit) {
                    return Err(too_big(limit));
                }
                self.inner.decode(encoded, decoded, options)
            }
            Kind::Other => {
                let out = self.inner.decode(encoded, decoded, options)?;
                if out.len() as u64 > limit {
                    return Err(too_big(limit));
                }
                Ok(out)
            }
        }
    }
}
