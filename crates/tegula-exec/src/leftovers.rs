//! What a killed process leaves behind: its spill, kept and shared directories, each named
//! `PREFIX-PID-N` inside a parent directory (the spill directory, `/dev/shm`). The next tegula
//! process that uses the same parent removes those whose process is gone, so a SIGKILL or an
//! out-of-memory kill costs disk (or, in `/dev/shm`, memory) only until then.

use std::path::Path;

/// The starts of the names of the directories a process owns (see `SpillDir::named`).
pub const OWNED_PREFIXES: [&str; 3] = ["tegula-spill", "tegula-kept", "tegula-pool"];

/// Removes the directories in `parent` named `PREFIX-PID-N` (a prefix of `OWNED_PREFIXES`)
/// whose process PID no longer runs. One listing of `parent`: done whenever a directory is
/// about to be made there, so what a process killed since is gone too.
pub fn remove_dead_owners(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(owner) else { continue };
        if pid != std::process::id() && gone(pid) && entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The process that owns a directory of this name, if it is one of tegula's.
fn owner(name: &str) -> Option<u32> {
    let rest = OWNED_PREFIXES.iter().find_map(|p| name.strip_prefix(p)?.strip_prefix('-'))?;
    let (pid, n) = rest.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether process `pid` is known not to run (where `/proc` cannot tell, it is assumed to).
fn gone(pid: u32) -> bool {
    let proc = Path::new("/proc");
    proc.join("self").exists() && !proc.join(pid.to_string()).exists()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn directories_of_dead_processes_go_and_others_stay() {
        let parent = std::env::temp_dir().join(format!("tegula-leftovers-test-{}", std::process::id()));
        std::fs::create_dir_all(&parent).unwrap();
        // A process that ran and ended: its PID is free until reused.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let me = std::process::id();
        let names = [
            format!("tegula-spill-{dead}-0"),
            format!("tegula-kept-{dead}-3"),
            format!("tegula-pool-{dead}-1"),
            format!("tegula-spill-{me}-0"),
            format!("other-{dead}-0"),
            format!("tegula-spill-{dead}"),
        ];
        for name in &names {
            std::fs::create_dir_all(parent.join(name).join("inner")).unwrap();
        }
        remove_dead_owners(&parent);
        let left: HashSet<String> = std::fs::read_dir(&parent).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        let expected: HashSet<String> = names[3..].iter().cloned().collect();
        assert_eq!(left, expected);
        std::fs::remove_dir_all(&parent).unwrap();
    }
}
