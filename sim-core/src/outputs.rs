//! Output files that are whole or absent, for every command of the
//! process (a run's timeline, a figure, a calibration's measured rows).
//!
//! Each output is written under a temporary name beside its target
//! (`.NAME.netsim-PID.part`) and renamed to the target when complete
//! ([`Partial::commit`]), so that a reader never sees half a file under
//! the name it asked for. A [`Partial`] dropped uncommitted removes its
//! temporary file. A target that is a device, a pipe or a symbolic link
//! is written in place: a rename would replace it.
//!
//! Every temporary name is in one process-wide list. A signal handler
//! calls [`remove_partials`], which removes them all and keeps the list
//! locked until the process exits. Creating, filling through a path
//! ([`write_with`], [`Partial::fill`]), renaming and removing a temporary
//! file are done under that lock, so no temporary file is created or
//! renamed after the handler has removed the others: a stop leaves no
//! `.part` file, whatever instant it lands at. A file filled through an
//! open handle ([`Partial::create`]) may still be written after its
//! removal; the writes then go to the removed file.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// An output that could not be written; the message names the target.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Creating, renaming or moving a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file named in the message (the target, not the temporary).
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// An entry of a temporary folder could not be read.
    #[error(transparent)]
    Entry(std::io::Error),
    /// What the writer of the contents reported ([`Partial::fill`]), with
    /// the temporary path replaced by the target.
    #[error("{0}")]
    Fill(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The partial files being written: (temporary path, target).
static OPEN: Mutex<Vec<(PathBuf, PathBuf)>> = Mutex::new(Vec::new());

fn open_list() -> MutexGuard<'static, Vec<(PathBuf, PathBuf)>> {
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

/// Removes every partial file still open and returns the targets they
/// stood for, with the list's lock: hold it until the process exits, and
/// no other partial file is created, filled by path or renamed.
pub fn remove_partials() -> (MutexGuard<'static, Vec<(PathBuf, PathBuf)>>, Vec<PathBuf>) {
    let list = open_list();
    for (tmp, _) in list.iter() {
        remove(tmp);
    }
    let targets = list.iter().map(|(_, t)| t.clone()).collect();
    (list, targets)
}

/// One output being written: its temporary path until
/// [`Partial::commit`] renames it to the target; dropped uncommitted, the
/// temporary file is removed.
#[derive(Debug)]
pub struct Partial {
    tmp: PathBuf,
    target: PathBuf,
    done: bool,
}

impl Partial {
    /// A temporary name beside `target`, registered for removal on a
    /// signal; nothing is created yet. A target that exists and is not a
    /// regular file is written in place.
    pub fn new(target: &Path) -> Partial {
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
        Partial::registered(tmp, target)
    }

    /// Files to be written into the folder `dir` together: a temporary
    /// folder inside it, whose files [`Partial::commit`] moves into `dir`.
    pub fn folder(dir: &Path) -> Partial {
        let tmp = dir.join(format!(".netsim-{}.part", std::process::id()));
        Partial::registered(tmp, dir)
    }

    fn registered(tmp: PathBuf, target: &Path) -> Partial {
        open_list().push((tmp.clone(), target.to_path_buf()));
        Partial {
            tmp,
            target: target.to_path_buf(),
            done: false,
        }
    }

    /// The temporary path to write.
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Creates the temporary file, buffered.
    pub fn create(&self) -> Result<std::io::BufWriter<std::fs::File>, OutputError> {
        let _list = open_list();
        std::fs::File::create(&self.tmp)
            .map(std::io::BufWriter::new)
            .map_err(io(&self.target))
    }

    /// Fills the temporary path by `f` (which creates what it writes),
    /// with no stop in between: a signal waits until `f` returns, then
    /// removes what it wrote. Errors name the target, not the temporary
    /// path. `f` must not create a [`Partial`] itself.
    pub fn fill<T, E: Display>(
        &self,
        f: impl FnOnce(&Path) -> Result<T, E>,
    ) -> Result<T, OutputError> {
        let _list = open_list();
        f(&self.tmp).map_err(|e| {
            OutputError::Fill(e.to_string().replace(
                &self.tmp.display().to_string(),
                &self.target.display().to_string(),
            ))
        })
    }

    /// Renames the complete file to its target.
    pub fn commit(mut self) -> Result<(), OutputError> {
        if self.tmp == self.target {
            return Ok(());
        }
        let mut list = open_list();
        list.retain(|(t, _)| *t != self.tmp);
        self.done = true;
        if self.tmp.is_dir() {
            // A folder of files (man pages): each moves into the target.
            std::fs::create_dir_all(&self.target).map_err(io(&self.target))?;
            let entries = std::fs::read_dir(&self.tmp).map_err(io(&self.tmp))?;
            for e in entries {
                let from = e.map_err(OutputError::Entry)?.path();
                let to = self.target.join(from.file_name().unwrap_or_default());
                std::fs::rename(&from, &to).map_err(io(&to))?;
            }
            remove(&self.tmp);
            return Ok(());
        }
        std::fs::rename(&self.tmp, &self.target).map_err(|e| {
            remove(&self.tmp);
            io(&self.target)(e)
        })
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.done {
            // Removed before it leaves the list: a signal in between
            // finds it still listed.
            let mut list = open_list();
            remove(&self.tmp);
            list.retain(|(t, _)| *t != self.tmp);
        }
    }
}

/// Writes `bytes` to `target` whole: a temporary file, then a rename.
pub fn write(target: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_with(target, |tmp| std::fs::write(tmp, bytes).map_err(io(target)))
}

/// Writes `target` whole by `f(temporary path)` ([`Partial::fill`]),
/// then renames it. Errors name the target, not the temporary file.
pub fn write_with<E: Display>(
    target: &Path,
    f: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), OutputError> {
    let p = Partial::new(target);
    p.fill(f)?;
    p.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests share the process-wide list: one at a time.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("netsim-outputs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn files_are_whole_or_absent_and_devices_written_in_place() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let d = scratch("whole");
        let t = d.join("a.csv");
        write(&t, b"x,y\n").unwrap();
        assert_eq!(std::fs::read(&t).unwrap(), b"x,y\n");
        // Dropped before its commit: neither the target nor the temporary.
        let p = Partial::new(&d.join("b.csv"));
        std::fs::write(p.path(), b"half").unwrap();
        assert!(open_list().iter().any(|(tmp, _)| tmp == p.path()));
        drop(p);
        assert_eq!(names(&d), ["a.csv"]);
        // A device is never replaced by a rename.
        let p = Partial::new(Path::new("/dev/null"));
        assert_eq!(p.path(), Path::new("/dev/null"));
        p.commit().unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A stop that lands after an output was named but before its file
    /// is written: the writer waits (the handler exits meanwhile) instead
    /// of creating a `.part` file the handler has already passed.
    #[test]
    fn no_partial_file_is_created_after_a_stop() {
        let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let d = scratch("stop");
        let (a, b) = (
            Partial::new(&d.join("a.csv")),
            Partial::new(&d.join("b.csv")),
        );
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let writer = std::thread::spawn(move || {
            wait.recv().unwrap();
            let filled = a.fill(|t| std::fs::write(t, b"rows").map_err(|e| e.to_string()));
            let created = b.create().map(drop);
            (filled, created, a.commit())
        });
        let (stop, targets) = remove_partials();
        assert_eq!(targets, [d.join("a.csv"), d.join("b.csv")]);
        go.send(()).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(
            names(&d).is_empty(),
            "written after the stop: {:?}",
            names(&d)
        );
        // A real stop exits here; the test lets the writer finish.
        drop(stop);
        let (filled, created, committed) = writer.join().unwrap();
        assert!(filled.is_ok() && created.is_ok() && committed.is_ok());
        assert_eq!(names(&d), ["a.csv"]);
        let _ = std::fs::remove_dir_all(&d);
    }
}
