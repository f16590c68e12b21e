//! Shared pieces of the text readers: a line reader that counts lines and
//! never holds more than one line, and number parsers whose errors say what
//! was expected.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;

use mpi_layer::{Origin, ProgramError};

/// An error at `source:line`.
pub(crate) fn error_at(source: &Arc<str>, line: u64, message: impl Into<String>) -> ProgramError {
    ProgramError {
        origin: Origin {
            source: source.clone(),
            line,
        },
        message: message.into(),
    }
}

/// An error about a whole file (cannot open, empty, ...): line 0.
pub(crate) fn file_error(path: &Path, message: impl Into<String>) -> ProgramError {
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
    buf: String,
}

impl Lines {
    /// Opens `path`.
    pub(crate) fn open(path: &Path) -> Result<Lines, ProgramError> {
        Ok(Lines {
            reader: BufReader::with_capacity(64 * 1024, open(path)?),
            source: path_name(path),
            line: 0,
            buf: String::new(),
        })
    }

    /// Moves to the next line; false at the end of the file.
    pub(crate) fn advance(&mut self) -> Result<bool, ProgramError> {
        self.buf.clear();
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
        self.line += 1;
        Ok(true)
    }

    /// The current line without its end-of-line characters.
    pub(crate) fn current(&self) -> &str {
        self.buf.trim_end_matches(['\n', '\r'])
    }

    /// An error at the current line.
    pub(crate) fn error(&self, message: impl Into<String>) -> ProgramError {
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

/// Parses a decimal integer of type `T`, naming `what` on failure.
pub(crate) fn parse_int<T: std::str::FromStr>(token: &str, what: &str) -> Result<T, String> {
    token
        .parse::<T>()
        .map_err(|_| format!("{what} must be an integer in range, found `{token}`"))
}

/// Parses a non-negative finite number written as a float (`1e6`, `5e4`,
/// `275427`), as SimGrid's traces write counts and flops.
pub(crate) fn parse_nonneg_f64(token: &str, what: &str) -> Result<f64, String> {
    let v: f64 = token
        .parse()
        .map_err(|_| format!("{what} must be a number, found `{token}`"))?;
    if !v.is_finite() {
        return Err(format!("{what} must be finite, found `{token}`"));
    }
    if v < 0.0 {
        return Err(format!("{what} must not be negative, found `{token}`"));
    }
    Ok(v)
}
