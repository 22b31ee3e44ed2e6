//! Faults tests make on purpose. [`Immutable`] turns a folder read-only even for root.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `chattr +i` on a folder and everything in it (symbolic links left alone), undone on
/// drop. As root, permission bits do not stop writes; the immutable attribute does.
#[derive(Debug)]
pub struct Immutable {
    paths: Vec<PathBuf>,
}

impl Immutable {
    /// Sets the attribute on `dir` and everything below it. A running server may create and
    /// delete files meanwhile (search index segments): a file gone before its turn is
    /// skipped, and the folder is walked again until a pass finds nothing new. Panics when
    /// the attribute cannot be set here (no `chattr`, no privilege, or a file system
    /// without it): tests that need it are ignored by default for that reason, and one that
    /// runs must not pass without its fault.
    pub fn set(dir: &Path) -> Self {
        let mut guard = Self { paths: Vec::new() };
        for _pass in 0..10 {
            let mut found = vec![dir.to_path_buf()];
            found.extend(walk(dir).into_iter().filter(|path| !path.is_symlink()));
            let new: Vec<PathBuf> = found
                .into_iter()
                .filter(|path| !guard.paths.contains(path))
                .collect();
            if new.is_empty() {
                return guard;
            }
            for path in new {
                if chattr_immutable(&path) {
                    guard.paths.push(path);
                }
            }
        }
        panic!(
            "{} kept changing while it was made immutable",
            dir.display()
        );
    }
}

/// `chattr +i path`: `true` when set, `false` when the path no longer exists; a panic saying
/// why otherwise.
fn chattr_immutable(path: &Path) -> bool {
    match Command::new("chattr").arg("+i").arg(path).output() {
        Ok(out) if out.status.success() => true,
        Ok(_) if !path.exists() && !path.is_symlink() => false,
        Ok(out) => panic!(
            "cannot set the immutable attribute on {} ({}): {}",
            path.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(err) => panic!("cannot run chattr: {err}"),
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        for path in &self.paths {
            let _ = Command::new("chattr").arg("-i").arg(path).output();
        }
    }
}

/// Every file and folder below `dir`, deepest first within each folder.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    // A folder gone meanwhile has nothing left to protect.
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}
