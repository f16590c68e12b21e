//! What the trace readers share: the [`TraceReader`] trait they
//! implement, the rank limit, the per-rank spans of a shared text trace,
//! and the checks of a rank and of a list of per-rank files.
//!
//! Every reader (`ti`, `native`, `dumpi`, `otf2`, `goal`, `msglist`)
//! imports from here and the dispatcher [`crate::trace`] imports the
//! readers, so no reader depends on the dispatcher or on another reader.

use std::path::PathBuf;

use mpi_layer::{OpStream, ProgramError};

pub use crate::text::ValueError;
use crate::text::{Lines, file_error};

/// A rank's program from any reader.
pub type BoxedStream = Box<dyn OpStream>;

/// An opened trace: its number of ranks and one operation stream per
/// rank. Opening (each reader's own `open`) checks what can be checked up
/// front; the rest is checked as each stream is read.
///
/// The readers whose ranks open one at a time (TI, native, DUMPI, GOAL)
/// also give `rank_stream(rank)`; an OTF2 archive opens all its
/// locations at once, so only [`TraceReader::streams`] is common.
pub trait TraceReader {
    /// One rank's stream.
    type Stream: OpStream + 'static;

    /// The number of ranks.
    fn num_ranks(&self) -> u32;

    /// One stream per rank, rank order.
    fn streams(&self) -> Result<Vec<Self::Stream>, ProgramError>;

    /// [`TraceReader::streams`], each boxed.
    fn boxed_streams(&self) -> Result<Vec<BoxedStream>, ProgramError> {
        Ok(self
            .streams()?
            .into_iter()
            .map(|s| Box::new(s) as BoxedStream)
            .collect())
    }
}

/// The most ranks a trace may have: netsim's one rank limit,
/// [`sim_core::limits::MAX_RANKS`] (a larger rank in a trace is an error
/// naming its line).
pub const MAX_TRACE_RANKS: u32 = sim_core::limits::MAX_RANKS;

/// Where one rank's lines lie in a shared trace: the byte range from its
/// first line to the end of its last, and the first line's number (a
/// rank without lines has an empty range). A stream reads only its span,
/// so a trace written rank after rank is read once in all.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Span {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) first_line: u64,
}

impl Span {
    /// Adds the current line of `lines` to rank `r`'s span in `spans`.
    pub(crate) fn extend(spans: &mut Vec<Span>, r: u32, lines: &Lines) {
        let r = r as usize;
        if spans.len() <= r {
            spans.resize(r + 1, Span::default());
        }
        let s = &mut spans[r];
        if s.first_line == 0 {
            s.start = lines.start;
            s.first_line = lines.line;
        }
        s.end = lines.next_offset();
    }
}

/// Refuses a rank beyond [`MAX_TRACE_RANKS`].
pub(crate) fn check_rank(r: u32) -> Result<(), ValueError> {
    sim_core::limits::check_rank(r.into()).map_err(ValueError::RankLimit)
}

/// The error for a list of per-rank files longer than [`MAX_TRACE_RANKS`].
pub(crate) fn too_many_rank_files() -> String {
    format!("more than {MAX_TRACE_RANKS} per-rank files (the most ranks a trace may have)")
}

/// Refuses per-rank files beyond [`MAX_TRACE_RANKS`] (naming the first
/// one too many) and a file that does not exist, so a missing rank is
/// reported before the replay starts.
pub(crate) fn check_rank_files(paths: &[PathBuf]) -> Result<(), ProgramError> {
    if let Some(p) = paths.get(MAX_TRACE_RANKS as usize) {
        return Err(file_error(p, too_many_rank_files()));
    }
    for p in paths {
        if !p.is_file() {
            return Err(file_error(p, "per-rank trace file does not exist"));
        }
    }
    Ok(())
}
