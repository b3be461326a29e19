//! Which GEMM runs the products of float blocks: faer (built in) or a BLAS library loaded at run
//! time — NumPy's OpenBLAS, which on some CPUs runs twice faster than faer — when it is faster
//! on this machine. The choice is measured once per machine, CPU kernel family and library,
//! and kept in a file of the user's cache directory, so every process of a machine (a
//! process pool's workers, a local cluster's) makes the same one and computes the same bits.
//! `TEGULA_GEMM=faer` or `=blas` decides without measuring. A Rust program gets NumPy's
//! choice by naming the library in `TEGULA_BLAS` (read when its first plan is made), or by
//! calling `use_blas`.

use std::io::Write;
use std::path::{Path, PathBuf};
use tegula_core::{value_err, Result, TegulaError};
use tegula_kernels::blas::{self, Blas};

/// A BLAS is chosen only when it beats faer by more than this share: when close, faer keeps
/// the bits independent of what NumPy happens to link.
const MARGIN: f64 = 1.02;

/// What decided the GEMM, and what was measured.
#[derive(Clone, Debug, PartialEq)]
pub struct GemmChoice {
    /// Whether the BLAS library runs the products (else faer does).
    pub uses_blas: bool,
    /// The library considered.
    pub library: String,
    /// Its kernel family (OpenBLAS's core name), when it says.
    pub core: Option<String>,
    /// Its GEMM rate and faer's on one thread, GFLOP/s (NaN when `TEGULA_GEMM` decided).
    pub blas_gflops: f64,
    /// faer's rate on one thread, GFLOP/s.
    pub faer_gflops: f64,
    /// `"measured"`, `"cached"` (a file of the cache directory) or `"TEGULA_GEMM"`.
    pub decided_by: &'static str,
}

/// Loads the BLAS library at `path` and installs it for tegula's products when it is faster
/// than faer here (or `TEGULA_GEMM` says so). Once per process: a later call reports the
/// choice already made.
pub fn use_blas(path: &str) -> Result<GemmChoice> {
    static CHOICE: std::sync::OnceLock<GemmChoice> = std::sync::OnceLock::new();
    if let Some(choice) = CHOICE.get() {
        return Ok(choice.clone());
    }
    let library = Blas::load(path)?;
    let choice = choose(&library)?;
    if choice.uses_blas && blas::installed().is_none() {
        blas::install(library)?;
    }
    Ok(CHOICE.get_or_init(|| choice).clone())
}

/// `use_blas` of the library `TEGULA_BLAS` names, once per process, if it names one.
pub(crate) fn use_blas_from_env() -> Result<()> {
    static DONE: std::sync::OnceLock<Result<()>> = std::sync::OnceLock::new();
    DONE.get_or_init(|| match std::env::var("TEGULA_BLAS") {
        Ok(path) if !path.is_empty() => use_blas(&path).map(|_| ()),
        _ => Ok(()),
    })
    .clone()
}

/// `use_blas` of the OpenBLAS library NumPy loaded (else the first other one this process has
/// loaded that can serve): `None` when there is none, or none can serve (too old to set its
/// threads per call), and faer runs every product.
pub fn use_loaded_blas() -> Result<Option<GemmChoice>> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    for path in numpy_first(openblas_files(&maps)) {
        match use_blas(&path) {
            Err(TegulaError::Value(reason)) if !reason.starts_with("TEGULA_GEMM") => continue,
            other => return other.map(Some),
        }
    }
    Ok(None)
}

/// The mapped files (of `/proc/self/maps`) whose names say OpenBLAS, each once, in order.
fn openblas_files(maps: &str) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    let paths = maps.lines().filter_map(|line| line.split_whitespace().nth(5));
    for path in paths.filter(|path| Path::new(path).file_name().is_some_and(|n| n.to_string_lossy().to_lowercase().contains("openblas"))) {
        if !files.iter().any(|f| f == path) {
            files.push(path.to_string());
        }
    }
    files
}

/// `files` with NumPy's own first: once SciPy is imported too (Dask's workers import it), its
/// OpenBLAS may be mapped first, and a process choosing it (or faer, where it cannot serve)
/// computed other bits than one that chose NumPy's.
fn numpy_first(mut files: Vec<String>) -> Vec<String> {
    files.sort_by_key(|f| !f.contains("numpy"));
    files
}

fn choose(library: &Blas) -> Result<GemmChoice> {
    let base = |uses_blas, blas_gflops, faer_gflops, decided_by| GemmChoice {
        uses_blas,
        library: library.path().to_string(),
        core: library.core().map(str::to_string),
        blas_gflops,
        faer_gflops,
        decided_by,
    };
    match std::env::var("TEGULA_GEMM").ok().as_deref() {
        Some("faer") => return Ok(base(false, f64::NAN, f64::NAN, "TEGULA_GEMM")),
        Some("blas") => return Ok(base(true, f64::NAN, f64::NAN, "TEGULA_GEMM")),
        None | Some("" | "auto") => {}
        Some(other) => return Err(value_err!("TEGULA_GEMM={other:?}: expected 'faer', 'blas' or 'auto'")),
    }
    let file = cache_file(library);
    if let Some((blas, faer)) = file.as_deref().and_then(read_rates) {
        return Ok(base(blas > faer * MARGIN, blas, faer, "cached"));
    }
    let (blas, faer) = tegula_kernels::matmul::gemm_rates(library);
    // The first process to write the file decides for every other: one that lost the race
    // takes the winner's rates, so all of a machine's processes choose alike.
    let (blas, faer, decided_by) = match file.as_deref().map(|f| write_rates(f, blas, faer)) {
        Some(Ok(true)) | None | Some(Err(_)) => (blas, faer, "measured"),
        Some(Ok(false)) => file.as_deref().and_then(read_rates).map_or((blas, faer, "measured"), |(b, f)| (b, f, "cached")),
    };
    Ok(base(blas > faer * MARGIN, blas, faer, decided_by))
}

/// The cache file of this CPU, library and kernel family, in `TEGULA_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/tegula`, else `~/.cache/tegula`.
fn cache_file(library: &Blas) -> Option<PathBuf> {
    use std::hash::{Hash, Hasher};
    let dir = std::env::var_os("TEGULA_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("tegula")))
        .or_else(|| std::env::var_os("HOME").map(|d| PathBuf::from(d).join(".cache").join("tegula")))?;
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| info.lines().find(|l| l.starts_with("model name")).map(str::to_string))
        .unwrap_or_default();
    let name = Path::new(library.path()).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (cpu, name, library.core(), env!("CARGO_PKG_VERSION")).hash(&mut hasher);
    Some(dir.join(format!("gemm-{:016x}", hasher.finish())))
}

fn read_rates(file: &Path) -> Option<(f64, f64)> {
    let text = std::fs::read_to_string(file).ok()?;
    let mut words = text.split_whitespace().map(str::parse::<f64>);
    match (words.next(), words.next(), words.next()) {
        (Some(Ok(blas)), Some(Ok(faer)), None) if blas.is_finite() && faer.is_finite() => Some((blas, faer)),
        _ => None,
    }
}

/// Writes the rates to `file` unless it exists: true when written, false when another process
/// wrote it first. Written to a temporary file and linked in, so no reader sees half of it.
fn write_rates(file: &Path, blas: f64, faer: f64) -> std::io::Result<bool> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let temporary = dir.join(format!(".gemm-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::File::create(&temporary)?.write_all(format!("{blas} {faer}\n").as_bytes())?;
    let linked = std::fs::hard_link(&temporary, file);
    let _ = std::fs::remove_file(&temporary);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpys_openblas_is_tried_before_scipys_whatever_the_order_of_the_map() {
        let maps = "7f00-7f10 r--p 00000000 08:01 11 /env/site-packages/scipy.libs/libscipy_openblas-6cdc.so\n\
                    7f10-7f20 r-xp 00010000 08:01 11 /env/site-packages/scipy.libs/libscipy_openblas-6cdc.so\n\
                    7f20-7f30 r--p 00000000 08:01 12 /usr/lib/libm.so.6\n\
                    7f30-7f40 r-xp 00000000 08:01 13 /env/site-packages/numpy.libs/libscipy_openblas64_-32a4.so\n\
                    7f40-7f50 rw-p 00000000 00:00 0\n";
        let files = openblas_files(maps);
        assert_eq!(files.len(), 2);
        assert_eq!(numpy_first(files), ["/env/site-packages/numpy.libs/libscipy_openblas64_-32a4.so", "/env/site-packages/scipy.libs/libscipy_openblas-6cdc.so"]);
    }

    #[test]
    fn the_first_writer_decides_and_later_ones_read_its_rates() {
        let dir = std::env::temp_dir().join(format!("tegula-gemm-test-{}", std::process::id()));
        let file = dir.join("gemm-test");
        assert!(write_rates(&file, 60.0, 30.0).unwrap());
        assert!(!write_rates(&file, 10.0, 90.0).unwrap());
        assert_eq!(read_rates(&file), Some((60.0, 30.0)));
        std::fs::write(&file, "60 not-a-number\n").unwrap();
        assert_eq!(read_rates(&file), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
