//! Output files that are whole or absent: each is written under a
//! temporary name beside its target (`.NAME.netsim-PID.part`) and renamed
//! to the target when complete ([`Partial::commit`]), so that a reader
//! never sees half a file under the name it asked for. A failed command
//! drops its [`Partial`]s, which removes them (a target that is a device,
//! a pipe or a symbolic link is written in place); SIGINT and SIGTERM
//! ([`on_signals`]) remove every partial file still open, say which, and
//! exit with 128 + the signal (130, 143).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The partial files being written: (temporary path, target).
static OPEN: Mutex<Vec<(PathBuf, PathBuf)>> = Mutex::new(Vec::new());

fn open_list() -> std::sync::MutexGuard<'static, Vec<(PathBuf, PathBuf)>> {
    // A panic elsewhere while holding the list leaves it usable.
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes a file or a folder (a temporary folder of man pages).
fn remove(p: &Path) {
    if p.is_dir() {
        let _ = std::fs::remove_dir_all(p);
    } else {
        let _ = std::fs::remove_file(p);
    }
}

/// One output being written: its temporary path until
/// [`Partial::commit`] renames it to the target; dropped uncommitted, the
/// temporary file is removed.
#[derive(Debug)]
pub(crate) struct Partial {
    tmp: PathBuf,
    target: PathBuf,
    done: bool,
}

impl Partial {
    /// A temporary name beside `target`, registered for removal on a
    /// signal; nothing is created yet. A target that exists and is not a
    /// regular file (a device such as /dev/null, a pipe, a symbolic link)
    /// is written in place: a rename would replace it.
    pub(crate) fn new(target: &Path) -> Partial {
        let in_place = std::fs::symlink_metadata(target).is_ok_and(|m| !m.is_file());
        if in_place {
            return Partial {
                tmp: target.to_path_buf(),
                target: target.to_path_buf(),
                done: true,
            };
        }
        let name = target
            .file_name()
            .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let tmp = target.with_file_name(format!(".{name}.netsim-{}.part", std::process::id()));
        open_list().push((tmp.clone(), target.to_path_buf()));
        Partial {
            tmp,
            target: target.to_path_buf(),
            done: false,
        }
    }

    /// Files to be written into the folder `dir` together: a temporary
    /// folder inside it, whose files [`Partial::commit`] moves into `dir`.
    pub(crate) fn folder(dir: &Path) -> Partial {
        let tmp = dir.join(format!(".netsim-{}.part", std::process::id()));
        open_list().push((tmp.clone(), dir.to_path_buf()));
        Partial {
            tmp,
            target: dir.to_path_buf(),
            done: false,
        }
    }

    /// The temporary path to write.
    pub(crate) fn path(&self) -> &Path {
        &self.tmp
    }

    /// Creates the temporary file, buffered.
    pub(crate) fn create(&self) -> Result<std::io::BufWriter<std::fs::File>, String> {
        std::fs::File::create(&self.tmp)
            .map(std::io::BufWriter::new)
            .map_err(|e| format!("{}: {e}", self.target.display()))
    }

    /// Renames the complete file to its target.
    pub(crate) fn commit(mut self) -> Result<(), String> {
        if self.tmp == self.target {
            return Ok(());
        }
        let mut list = open_list();
        list.retain(|(t, _)| *t != self.tmp);
        self.done = true;
        if self.tmp.is_dir() {
            // A folder of files (man pages): each moves into the target.
            std::fs::create_dir_all(&self.target)
                .map_err(|e| format!("{}: {e}", self.target.display()))?;
            let entries =
                std::fs::read_dir(&self.tmp).map_err(|e| format!("{}: {e}", self.tmp.display()))?;
            for e in entries {
                let from = e.map_err(|e| e.to_string())?.path();
                let to = self.target.join(from.file_name().unwrap_or_default());
                std::fs::rename(&from, &to).map_err(|e| format!("{}: {e}", to.display()))?;
            }
            remove(&self.tmp);
            return Ok(());
        }
        std::fs::rename(&self.tmp, &self.target).map_err(|e| {
            remove(&self.tmp);
            format!("{}: {e}", self.target.display())
        })
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.done {
            open_list().retain(|(t, _)| *t != self.tmp);
            remove(&self.tmp);
        }
    }
}

/// Writes `bytes` to `target` whole: a temporary file, then a rename.
pub(crate) fn write(target: &Path, bytes: &[u8]) -> Result<(), String> {
    write_with(target, |tmp| {
        std::fs::write(tmp, bytes).map_err(|e| format!("{}: {e}", target.display()))
    })
}

/// Writes `target` whole by `f(temporary path)`: a temporary file, then a
/// rename. Errors name the target, not the temporary file.
pub(crate) fn write_with(
    target: &Path,
    f: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let p = Partial::new(target);
    f(p.path()).map_err(|e| {
        e.replace(
            &p.path().display().to_string(),
            &target.display().to_string(),
        )
    })?;
    p.commit()
}

/// On SIGINT or SIGTERM: removes the partial files, says so, and exits
/// with 128 + the signal's number. Call once, at the start.
pub(crate) fn on_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            // Held until exit: no partial file is renamed after this.
            let list = open_list();
            for (tmp, _) in list.iter() {
                remove(tmp);
            }
            let name = if sig == SIGINT { "SIGINT" } else { "SIGTERM" };
            let targets: Vec<String> = list.iter().map(|(_, t)| t.display().to_string()).collect();
            if targets.is_empty() {
                eprintln!("\nnetsim: stopped by {name}; no output file was being written");
            } else {
                eprintln!(
                    "\nnetsim: stopped by {name}; not written (partial files removed): {}",
                    targets.join(", ")
                );
            }
            std::process::exit(128 + sig);
        }
    });
}

/// Writes `text` to standard output. A reader that went away (`netsim
/// ... | head`) ends the output quietly instead of panicking as `print!`
/// does on a closed pipe; any other failure (a full disk) is an error,
/// exit 2.
pub(crate) fn out(text: &str) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_all(text.as_bytes()).and_then(|()| o.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("netsim: error: cannot write the output: {e}");
            std::process::exit(super::error::EXIT_INPUT.into());
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_whole_or_absent_and_devices_written_in_place() {
        let d = std::env::temp_dir().join(format!("netsim-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let t = d.join("a.csv");
        write(&t, b"x,y\n").unwrap();
        assert_eq!(std::fs::read(&t).unwrap(), b"x,y\n");
        // Dropped before its commit: neither the target nor the temporary.
        let p = Partial::new(&d.join("b.csv"));
        std::fs::write(p.path(), b"half").unwrap();
        assert!(open_list().iter().any(|(tmp, _)| tmp == p.path()));
        drop(p);
        let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        assert_eq!(left.len(), 1);
        // A device is never replaced by a rename.
        let p = Partial::new(Path::new("/dev/null"));
        assert_eq!(p.path(), Path::new("/dev/null"));
        p.commit().unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
        let _ = std::fs::remove_dir_all(&d);
    }
}
