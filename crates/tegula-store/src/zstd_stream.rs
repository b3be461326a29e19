//! Decoding a zstd chunk file straight into its block while the file is read, piece by piece.
//!
//! Reading a chunk file whole before decoding it leaves the core idle while the disk works,
//! and on a cold store one large read gets less from the disk than a run of small ones, which
//! the kernel's read-ahead keeps ahead of the decoder: a cold `max` over a 1.7 GB zstd store
//! took 1.5 s read whole and 0.9 s read in pieces as decoded, 2 cores. The decoder writes
//! into the block itself (zstd's stable output buffer), so no byte is copied on the way.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use zstd::zstd_safe::{DCtx, DParameter, InBuffer, OutBuffer, ResetDirective};

/// Bytes read from the file at a time: small enough to stay in the core's cache until decoded,
/// large enough that system calls cost little (256 KiB to 1 MiB read alike here).
const PIECE: usize = 256 << 10;

/// A zstd decoder and its input buffer, kept across the chunks one thread decodes.
#[derive(Default)]
pub(crate) struct ZstdStream {
    decoder: Option<DCtx<'static>>,
    piece: Vec<u8>,
}

impl ZstdStream {
    /// Decodes the zstd frames of `file` into `out`; `Ok(false)` when they do not decode to
    /// exactly `out`'s length (not zstd, damaged, shorter, longer, or trailing bytes): the
    /// caller decodes it again the slow way to say which. Reads stop at the first byte that
    /// would not fit, so a small file that decodes to far more than `out` costs no more.
    pub(crate) fn decode_into(&mut self, file: &File, out: &mut [u8]) -> io::Result<bool> {
        let expected = out.len();
        let Some(decoder) = ready(&mut self.decoder) else { return Ok(false) };
        self.piece.resize(PIECE, 0);
        let mut output = OutBuffer::around(out);
        let mut offset = 0u64;
        let mut frame_ended = false;
        loop {
            let n = match file.read_at(&mut self.piece, offset) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            offset += n as u64;
            let mut input = InBuffer::around(&self.piece[..n]);
            while input.pos < n {
                let before = (input.pos, output.pos());
                match decoder.decompress_stream(&mut output, &mut input) {
                    Ok(hint) => frame_ended = hint == 0,
                    Err(_) => return Ok(false),
                }
                // No progress with input left: the block is full and the frame goes on.
                if (input.pos, output.pos()) == before {
                    return Ok(false);
                }
            }
        }
        Ok(frame_ended && output.pos() == expected)
    }

}

/// The decoder, reset for a new file; made on first use and set then to write into the
/// caller's buffer in place (a session-only reset keeps that). None if zstd refuses (then the
/// slow way decodes).
fn ready<'a>(decoder: &'a mut Option<DCtx<'static>>) -> Option<&'a mut DCtx<'static>> {
    if decoder.is_none() {
        let mut made = DCtx::create();
        made.set_parameter(DParameter::StableOutBuffer(true)).ok()?;
        *decoder = Some(made);
    }
    let decoder = decoder.as_mut()?;
    decoder.reset(ResetDirective::SessionOnly).ok()?;
    Some(decoder)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(name: &str, bytes: &[u8]) -> (File, std::path::PathBuf) {
        let path = std::env::temp_dir().join(format!("tegula-zstd-stream-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        (File::open(&path).unwrap(), path)
    }

    fn decode(name: &str, file_bytes: &[u8], len: usize) -> (bool, Vec<u8>) {
        let (file, path) = file_with(name, file_bytes);
        let mut out = vec![0u8; len];
        let done = ZstdStream::default().decode_into(&file, &mut out).unwrap();
        std::fs::remove_file(path).unwrap();
        (done, out)
    }

    /// Bytes that compress poorly (so the file spans many pieces) but not at all uniformly.
    fn data(len: usize) -> Vec<u8> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        (0..len).map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i % 3 == 0 { 0 } else { x as u8 }
        }).collect()
    }

    #[test]
    fn decodes_single_and_concatenated_frames_of_any_length() {
        for len in [1, 1000, PIECE - 1, PIECE, 3 * PIECE + 17, 5 << 20] {
            let values = data(len);
            let one = zstd::bulk::compress(&values, 1).unwrap();
            assert_eq!(decode("one", &one, len), (true, values.clone()), "length {len}");
            let half = len / 2;
            let mut two = zstd::bulk::compress(&values[..half], 3).unwrap();
            two.extend(zstd::bulk::compress(&values[half..], 1).unwrap());
            assert_eq!(decode("two", &two, len), (true, values), "length {len}, two frames");
        }
    }

    #[test]
    fn refuses_what_does_not_decode_to_exactly_the_block() {
        let values = data(3 * PIECE);
        let file = zstd::bulk::compress(&values, 1).unwrap();
        // Shorter and longer than the block.
        assert!(!decode("long", &file, values.len() - 1).0);
        assert!(!decode("short", &file, values.len() + 1).0);
        // Truncated, trailing bytes, not zstd at all, empty.
        assert!(!decode("cut", &file[..file.len() - 10], values.len()).0);
        let mut trailing = file.clone();
        trailing.extend_from_slice(b"junk");
        assert!(!decode("trailing", &trailing, values.len()).0);
        assert!(!decode("text", b"not a zstd frame at all", 23).0);
        assert!(!decode("empty", b"", 8).0);
        // A bomb: a few bytes that decode to far more than the block.
        let bomb = zstd::bulk::compress(&vec![0u8; 64 << 20], 19).unwrap();
        assert!(!decode("bomb", &bomb, 1 << 20).0);
    }

    #[test]
    fn one_stream_decodes_many_files_in_turn() {
        let mut stream = ZstdStream::default();
        for (i, len) in [PIECE + 5, 10, 2 * PIECE].into_iter().enumerate() {
            let values = data(len);
            let (file, path) = file_with(&format!("turn{i}"), &zstd::bulk::compress(&values, 1).unwrap());
            let mut out = vec![0u8; len];
            // A failed decode in between must not leave state behind for the next file.
            let mut wrong = vec![0u8; len + 1];
            assert!(!stream.decode_into(&file, &mut wrong).unwrap());
            assert!(stream.decode_into(&file, &mut out).unwrap());
            assert!(out == values, "file {i}");
            std::fs::remove_file(path).unwrap();
        }
    }
}
