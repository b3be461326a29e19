//! Each thread's buffer for the bytes of a compressed chunk file: kept for the thread's next
//! chunk, where a fresh vector per chunk made the kernel fault in (and clear) every page of
//! it before the file's bytes were copied in, once per chunk.

use std::cell::RefCell;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// A buffer at most this large is kept for the thread's next chunk; a larger one (an
/// uncommonly big chunk) is given back after its read.
const KEEP: usize = 64 << 20;

thread_local! {
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `with(bytes)` on the first `len` bytes of `file`, read into this thread's buffer (a
/// file shorter than that is an error).
pub(crate) fn with_file_bytes<R>(file: &File, len: usize, with: impl FnOnce(&[u8]) -> Result<R, String>) -> Result<R, String> {
    BUFFER.with(|cell| {
        // A read while this thread's buffer is in use (reads do not nest, so never) gets a
        // buffer of its own.
        let mut own = Vec::new();
        let mut held = cell.try_borrow_mut();
        let buffer = held.as_deref_mut().unwrap_or(&mut own);
        if buffer.len() < len {
            buffer.clear();
            buffer.try_reserve_exact(len).map_err(|_| format!("a chunk file of {len} bytes does not fit in memory"))?;
            buffer.resize(len, 0);
        }
        let bytes = &mut buffer[..len];
        file.read_exact_at(bytes, 0).map_err(|e| e.to_string())?;
        let result = with(bytes);
        if buffer.capacity() > KEEP {
            *buffer = Vec::new();
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_files_of_any_length_into_a_reused_buffer() {
        let dir = std::env::temp_dir().join(format!("tegula-read-buffer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for len in [0, 1, 4095, 3 << 20, (5 << 20) + 17, 100] {
            let path = dir.join(format!("f{len}"));
            let data: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            std::fs::write(&path, &data).unwrap();
            let got = with_file_bytes(&File::open(&path).unwrap(), len, |b| Ok(b.to_vec())).unwrap();
            assert!(got == data, "length {len}");
        }
        // A file shorter than asked is an error, not a short read.
        assert!(with_file_bytes(&File::open(dir.join("f100")).unwrap(), 200, |_| Ok(())).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
