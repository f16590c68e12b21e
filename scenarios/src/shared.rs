//! Where the project's shared data lives (the seed workloads and the
//! recorded traces), found at run time by one rule:
//!
//! 1. `$NETSIM_SHARED`, when set (it must be a directory);
//! 2. otherwise the first directory `D/shared` holding a `workloads` or
//!    `traces` folder, for `D` the current directory and then each of its
//!    parents;
//! 3. otherwise the same search from the directory of the running
//!    program.
//!
//! A checkout beside the data (`work/netsim` and `work/shared`) finds it
//! from anywhere inside the checkout, and so does an installed `netsim`
//! run from there; elsewhere, set `NETSIM_SHARED`. No path is fixed at
//! compile time, so a binary copied to another machine looks where it
//! runs.

use std::path::{Path, PathBuf};

/// The environment variable naming the shared data folder.
pub const ENV: &str = "NETSIM_SHARED";

/// Why the shared data folder, or a path in it, was not found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SharedError {
    /// `$NETSIM_SHARED` names no directory.
    #[error(
        "{ENV}={} is not a directory (it should name the shared data folder, \
         holding workloads/ and traces/)",
        .0.display()
    )]
    EnvNotADirectory(PathBuf),
    /// No `shared/` beside any of these starting directories or their
    /// parents.
    #[error(
        "the shared data folder was not found: no `shared/` holding workloads/ or traces/ \
         beside {} or any of their parents; set {ENV} to its path",
        joined(.0)
    )]
    NotFound(Vec<PathBuf>),
    /// The folder was found but this path is not in it.
    #[error(
        "{} is missing from the shared data folder (found by the rule: ${ENV}, else \
         `shared/` beside the current directory or a parent)",
        .0.display()
    )]
    Missing(PathBuf),
}

/// The places looked at, for [`SharedError::NotFound`].
fn joined(starts: &[PathBuf]) -> String {
    starts
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The shared data folder by the rule of this module, or an error
/// naming every place looked at.
pub fn shared_dir() -> Result<PathBuf, SharedError> {
    if let Some(v) = std::env::var_os(ENV) {
        let p = PathBuf::from(v);
        return if p.is_dir() {
            Ok(p)
        } else {
            Err(SharedError::EnvNotADirectory(p))
        };
    }
    let cwd = std::env::current_dir().ok();
    let exe = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf));
    let starts: Vec<PathBuf> = cwd.into_iter().chain(exe).collect();
    for s in &starts {
        if let Some(d) = search_up(s) {
            return Ok(d);
        }
    }
    Err(SharedError::NotFound(starts))
}

/// `rel` inside the shared data folder, or an error naming what is
/// missing.
pub fn shared_path(rel: &str) -> Result<PathBuf, SharedError> {
    let p = shared_dir()?.join(rel);
    if p.exists() {
        Ok(p)
    } else {
        Err(SharedError::Missing(p))
    }
}

/// How a scenario file marks a path inside the shared data folder:
/// `file = "shared:workloads/amg-elasticity/P512-level0-spmv.csv"`, so
/// that an example finds the data wherever the checkout is.
pub const PREFIX: &str = "shared:";

/// A path as a scenario file writes it: `shared:REL` is `REL` inside the
/// shared data folder ([`shared_dir`]); an absolute path stays as it is;
/// any other is relative to `base` (the scenario's folder). Errors only
/// when a `shared:` path's folder is not found.
pub fn resolve(base: &Path, p: &Path) -> Result<PathBuf, SharedError> {
    if let Some(rel) = p.to_str().and_then(|s| s.strip_prefix(PREFIX)) {
        return Ok(shared_dir()?.join(rel));
    }
    Ok(if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    })
}

/// The first `D/shared` with a `workloads` or `traces` folder, for `D`
/// = `start` and its ancestors.
fn search_up(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|d| {
        let s = d.join("shared");
        (s.join("workloads").is_dir() || s.join("traces").is_dir()).then_some(s)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_up_finds_a_sibling_shared_folder_from_deep_inside() {
        let root = std::env::temp_dir().join(format!("netsim-shared-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("shared/workloads")).unwrap();
        std::fs::create_dir_all(root.join("checkout/a/b")).unwrap();
        assert_eq!(
            search_up(&root.join("checkout/a/b")),
            Some(root.join("shared"))
        );
        // A `shared` without data does not count.
        std::fs::create_dir_all(root.join("checkout/shared")).unwrap();
        assert_eq!(
            search_up(&root.join("checkout/a")),
            Some(root.join("shared"))
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn resolve_keeps_absolute_paths_and_joins_relative_ones() {
        let base = Path::new("/scenarios");
        assert_eq!(
            resolve(base, Path::new("/data/a.csv")).unwrap(),
            PathBuf::from("/data/a.csv")
        );
        assert_eq!(
            resolve(base, Path::new("lists/a.csv")).unwrap(),
            PathBuf::from("/scenarios/lists/a.csv")
        );
        // Only the prefix marks the shared folder: a folder named
        // `shared` beside the scenario is an ordinary relative path.
        assert_eq!(
            resolve(base, Path::new("shared/a.csv")).unwrap(),
            PathBuf::from("/scenarios/shared/a.csv")
        );
    }
}
