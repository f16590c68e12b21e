//! Shared pieces of the text readers: a line reader that counts lines and
//! never holds more than one line, the per-rank line readers of a trace
//! that share a bounded set of open files ([`FilePool`], [`PooledLines`]),
//! and number parsers whose errors say what was expected.

use std::fmt::Display;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use mpi_layer::{Origin, ProgramError};

/// An error at `source:line`.
pub(crate) fn error_at(source: &Arc<str>, line: u64, message: impl Display) -> ProgramError {
    ProgramError {
        origin: Origin {
            source: source.clone(),
            line,
        },
        message: message.to_string(),
    }
}

/// An error about a whole file (cannot open, empty, ...): line 0.
pub(crate) fn file_error(path: &Path, message: impl Display) -> ProgramError {
    error_at(&path_name(path), 0, message)
}

/// The name a path is reported under.
pub(crate) fn path_name(path: &Path) -> Arc<str> {
    path.display().to_string().into()
}

/// Opens `path` for reading, or an error naming it.
pub(crate) fn open(path: &Path) -> Result<File, ProgramError> {
    File::open(path).map_err(|e| file_error(path, format!("cannot open trace file: {e}")))
}

/// Reads a text file one line at a time (a reused buffer: memory is one
/// line, whatever the file's length), counting 1-based lines.
pub(crate) struct Lines {
    reader: BufReader<File>,
    /// The file's name in error messages.
    pub(crate) source: Arc<str>,
    /// The number of the line last returned (0 before the first).
    pub(crate) line: u64,
    /// The byte offset of the line last returned, and of the next one.
    pub(crate) start: u64,
    next: u64,
    buf: String,
}

impl Lines {
    /// Opens `path`.
    pub(crate) fn open(path: &Path) -> Result<Lines, ProgramError> {
        Ok(Lines {
            reader: BufReader::with_capacity(64 * 1024, open(path)?),
            source: path_name(path),
            line: 0,
            start: 0,
            next: 0,
            buf: String::new(),
        })
    }

    /// Moves to the next line; false at the end of the file.
    pub(crate) fn advance(&mut self) -> Result<bool, ProgramError> {
        self.buf.clear();
        self.start = self.next;
        let n = self.reader.read_line(&mut self.buf).map_err(|e| {
            error_at(
                &self.source,
                self.line + 1,
                format!("cannot read line (not UTF-8 text?): {e}"),
            )
        })?;
        if n == 0 {
            return Ok(false);
        }
        self.next += n as u64;
        self.line += 1;
        Ok(true)
    }

    /// The current line without its end-of-line characters.
    pub(crate) fn current(&self) -> &str {
        self.buf.trim_end_matches(['\n', '\r'])
    }

    /// The byte offset just past the current line.
    pub(crate) fn next_offset(&self) -> u64 {
        self.next
    }

    /// An error at the current line.
    pub(crate) fn error(&self, message: impl Display) -> ProgramError {
        error_at(&self.source, self.line, message)
    }
}

/// The most files a trace's streams keep open at once (issue 12: a trace
/// of more ranks than `ulimit -n` must replay).
pub(crate) const MAX_OPEN_FILES: usize = 32;

/// What the read-ahead buffers of all of a trace's streams may hold
/// together; each stream's share is kept between 512 B and 64 KiB. Ranks
/// take turns, so a large budget is mostly memory the next line is not
/// in cache from; a small one is a read per few lines. Measured with
/// `farm-bench -n 5` (paired CPU medians) on the peers' TI traces, flow
/// mode: against 64 MiB, 8 MiB gave 0.95 (all-to-all flat P = 1024, peak
/// 73.8 -> 18.1 MiB) and 0.78 (random pairs P = 4096, 83.7 -> 27.9 MiB);
/// against 8 MiB, 4 MiB gave 0.96, 0.90 and 1.00 (torus all-to-all
/// P = 512), each with 3-4 MiB less peak memory; against 4 MiB, 1 MiB
/// gave 1.11, 1.30 and 0.97.
const READ_AHEAD_BUDGET: usize = 4 << 20;

/// The files the streams of one trace read, at most [`MAX_OPEN_FILES`]
/// open at once: a stream that finds its file closed reopens it (the
/// least recently used handle is closed) and reads at its own offset.
#[derive(Debug)]
pub(crate) struct FilePool {
    paths: Vec<PathBuf>,
    /// Open handles: (file index, handle, last use).
    open: Vec<(usize, File, u64)>,
    clock: u64,
}

impl FilePool {
    /// A pool over `paths`, shared by the streams that read them.
    pub(crate) fn new(paths: Vec<PathBuf>) -> Arc<Mutex<FilePool>> {
        Arc::new(Mutex::new(FilePool {
            paths,
            open: Vec::new(),
            clock: 0,
        }))
    }

    /// Reads up to `buf.len()` bytes of file `file` at `offset`; 0 at the
    /// end of the file.
    fn read_at(&mut self, file: usize, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        self.clock += 1;
        let i = match self.open.iter().position(|(f, _, _)| *f == file) {
            Some(i) => i,
            None => {
                let handle = File::open(&self.paths[file])?;
                if self.open.len() >= MAX_OPEN_FILES {
                    let lru = (0..self.open.len())
                        .min_by_key(|&i| self.open[i].2)
                        .expect("the pool is full");
                    self.open.swap_remove(lru);
                }
                self.open.push((file, handle, 0));
                self.open.len() - 1
            }
        };
        self.open[i].2 = self.clock;
        read_at(&self.open[i].1, offset, buf)
    }
}

#[cfg(unix)]
fn read_at(f: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, offset)
}

#[cfg(windows)]
fn read_at(f: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, offset)
}

#[cfg(not(any(unix, windows)))]
fn read_at(mut f: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
    use std::io::{Read, Seek, SeekFrom};
    f.seek(SeekFrom::Start(offset))?;
    f.read(buf)
}

/// One stream's lines of a file in a [`FilePool`]: the lines starting in
/// a byte range of the file, counted from a given line number, read
/// through a small read-ahead buffer. Holds no open file; the same
/// interface as [`Lines`].
pub(crate) struct PooledLines {
    pool: Arc<Mutex<FilePool>>,
    file: usize,
    /// The file's name in error messages.
    pub(crate) source: Arc<str>,
    /// The number of the line last returned.
    pub(crate) line: u64,
    /// File offset of `ahead[pos]`: the next byte to read.
    next: u64,
    /// No line starting at or after this offset is read.
    end: u64,
    ahead: Vec<u8>,
    pos: usize,
    chunk: usize,
    buf: String,
}

impl PooledLines {
    /// The lines of file `file` of `pool` that start in `start..end`;
    /// the first is line `first_line`. `streams` is the number of
    /// streams reading the pool (their buffers share a fixed budget).
    pub(crate) fn new(
        pool: &Arc<Mutex<FilePool>>,
        file: usize,
        (start, end): (u64, u64),
        first_line: u64,
        streams: usize,
    ) -> PooledLines {
        let source = path_name(&pool.lock().expect("file pool").paths[file]);
        PooledLines {
            pool: pool.clone(),
            file,
            source,
            line: first_line.saturating_sub(1),
            next: start,
            end,
            ahead: Vec::new(),
            pos: 0,
            chunk: read_ahead(streams),
            buf: String::new(),
        }
    }

    /// Moves to the next line; false at the end of the range.
    pub(crate) fn advance(&mut self) -> Result<bool, ProgramError> {
        if self.next >= self.end {
            self.ahead = Vec::new();
            self.buf = String::new();
            return Ok(false);
        }
        // Reuse the line's buffer unless one long line made it large.
        let mut raw = std::mem::take(&mut self.buf).into_bytes();
        raw.clear();
        if raw.capacity() > self.chunk.max(4096) {
            raw = Vec::new();
        }
        loop {
            let rest = &self.ahead[self.pos..];
            if let Some(i) = rest.iter().position(|&b| b == b'\n') {
                raw.extend_from_slice(&rest[..=i]);
                self.pos += i + 1;
                self.next += i as u64 + 1;
                break;
            }
            raw.extend_from_slice(rest);
            self.next += rest.len() as u64;
            let n = self.fill()?;
            if n == 0 {
                if raw.is_empty() {
                    return Ok(false);
                }
                break;
            }
        }
        self.line += 1;
        self.buf = String::from_utf8(raw).map_err(|e| {
            error_at(
                &self.source,
                self.line,
                format!("cannot read line (not UTF-8 text?): {}", e.utf8_error()),
            )
        })?;
        Ok(true)
    }

    /// Reads the next chunk at `self.next` into the read-ahead buffer.
    fn fill(&mut self) -> Result<usize, ProgramError> {
        self.ahead.resize(self.chunk, 0);
        self.pos = 0;
        let n = self
            .pool
            .lock()
            .expect("file pool")
            .read_at(self.file, self.next, &mut self.ahead)
            .map_err(|e| {
                error_at(
                    &self.source,
                    self.line + 1,
                    format!("cannot read trace file: {e}"),
                )
            })?;
        self.ahead.truncate(n);
        Ok(n)
    }

    /// The current line without its end-of-line characters.
    pub(crate) fn current(&self) -> &str {
        self.buf.trim_end_matches(['\n', '\r'])
    }

    /// An error at the current line.
    pub(crate) fn error(&self, message: impl Display) -> ProgramError {
        error_at(&self.source, self.line, message)
    }

    /// The origin of the current line.
    pub(crate) fn origin(&self) -> Origin {
        Origin {
            source: self.source.clone(),
            line: self.line,
        }
    }
}

/// Each stream's share of [`READ_AHEAD_BUDGET`] when `streams` read.
fn read_ahead(streams: usize) -> usize {
    (READ_AHEAD_BUDGET / streams.max(1)).clamp(512, 64 << 10)
}

/// The bytes of one file of a [`FilePool`] from an offset on, through a
/// small read-ahead buffer (the binary readers' [`PooledLines`]). Holds
/// no open file.
pub(crate) struct PooledReader {
    pool: Arc<Mutex<FilePool>>,
    file: usize,
    /// File offset just past `ahead`.
    next: u64,
    ahead: Vec<u8>,
    pos: usize,
    chunk: usize,
}

impl PooledReader {
    /// Reads file `file` of `pool` from byte `offset`; `streams` readers
    /// share the read-ahead budget.
    pub(crate) fn new(
        pool: &Arc<Mutex<FilePool>>,
        file: usize,
        offset: u64,
        streams: usize,
    ) -> PooledReader {
        PooledReader {
            pool: pool.clone(),
            file,
            next: offset,
            ahead: Vec::new(),
            pos: 0,
            chunk: read_ahead(streams),
        }
    }
}

impl std::io::Read for PooledReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.ahead.len() {
            self.ahead.resize(self.chunk, 0);
            self.pos = 0;
            let n = self
                .pool
                .lock()
                .map_err(|_| std::io::Error::other("file pool poisoned"))?
                .read_at(self.file, self.next, &mut self.ahead);
            let n = n.inspect_err(|_| self.ahead.clear())?;
            self.ahead.truncate(n);
            self.next += n as u64;
            if n == 0 {
                self.ahead = Vec::new();
                return Ok(0);
            }
        }
        let n = out.len().min(self.ahead.len() - self.pos);
        out[..n].copy_from_slice(&self.ahead[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A value of a trace line that does not read as what it should be; the
/// reader adds the file and line. `what` names the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// Not a decimal integer of the field's type.
    #[error("{what} must be an integer in range, found `{token}`")]
    NotAnInteger {
        /// The field.
        what: String,
        /// The text found.
        token: String,
    },
    /// Not a number.
    #[error("{what} must be a number, found `{token}`")]
    NotANumber {
        /// The field.
        what: String,
        /// The text found.
        token: String,
    },
    /// An infinity or NaN.
    #[error("{what} must be finite, found `{token}`")]
    NotFinite {
        /// The field.
        what: String,
        /// The text found.
        token: String,
    },
    /// Below zero.
    #[error("{what} must not be negative, found `{token}`")]
    Negative {
        /// The field.
        what: String,
        /// The text found.
        token: String,
    },
    /// A rank beyond [`MAX_TRACE_RANKS`](crate::reader::MAX_TRACE_RANKS) (`sim_core::limits`' message).
    #[error("{0}")]
    RankLimit(sim_core::limits::LimitError),
}

/// Parses a decimal integer of type `T`, naming `what` on failure.
pub(crate) fn parse_int<T: std::str::FromStr>(token: &str, what: &str) -> Result<T, ValueError> {
    token.parse::<T>().map_err(|_| ValueError::NotAnInteger {
        what: what.into(),
        token: token.into(),
    })
}

/// Parses a non-negative finite number written as a float (`1e6`, `5e4`,
/// `275427`), as SimGrid's traces write counts and flops.
pub(crate) fn parse_nonneg_f64(token: &str, what: &str) -> Result<f64, ValueError> {
    let what = || what.to_string();
    let token_s = || token.to_string();
    let v: f64 = token.parse().map_err(|_| ValueError::NotANumber {
        what: what(),
        token: token_s(),
    })?;
    if !v.is_finite() {
        return Err(ValueError::NotFinite {
            what: what(),
            token: token_s(),
        });
    }
    if v < 0.0 {
        return Err(ValueError::Negative {
            what: what(),
            token: token_s(),
        });
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 12, finding 1: streams over more files than the pool keeps
    /// open read every line of their own file, in turn, while the pool
    /// never holds more than [`MAX_OPEN_FILES`] handles; a stream on a span
    /// of a shared file reads that span only, numbering lines from its
    /// first.
    #[test]
    fn pooled_lines_keep_open_files_bounded() {
        let dir = std::env::temp_dir().join(format!("netsim-pool-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = 3 * MAX_OPEN_FILES;
        let paths: Vec<PathBuf> = (0..n)
            .map(|i| {
                let p = dir.join(format!("f{i}"));
                // The last line has no newline.
                std::fs::write(&p, format!("{i} a\n{i} b\r\n\n{i} c")).unwrap();
                p
            })
            .collect();
        let pool = FilePool::new(paths);
        let mut streams: Vec<PooledLines> = (0..n)
            .map(|i| PooledLines::new(&pool, i, (0, u64::MAX), 1, n))
            .collect();
        for (k, want) in ["a", "b", "", "c"].iter().enumerate() {
            for (i, s) in streams.iter_mut().enumerate() {
                assert!(s.advance().unwrap());
                let expect = if want.is_empty() {
                    String::new()
                } else {
                    format!("{i} {want}")
                };
                assert_eq!(s.current(), expect);
                assert_eq!(s.line, k as u64 + 1);
                assert!(pool.lock().unwrap().open.len() <= MAX_OPEN_FILES);
            }
        }
        assert!(streams.iter_mut().all(|s| !s.advance().unwrap()));

        // A span: bytes 4.. up to the end of the second line, from line 2.
        let mut span = PooledLines::new(&pool, 1, (4, 9), 2, 1);
        assert!(span.advance().unwrap());
        assert_eq!((span.current(), span.line), ("1 b", 2));
        assert!(!span.advance().unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
