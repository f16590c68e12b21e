//! SimGrid time-independent (TI) traces.
//!
//! A TI trace lists, per rank, the MPI actions of one run with sizes and
//! flop counts but no times, so it can be replayed on any platform. Each
//! line is `<rank> <action> <arguments...>`; fields are separated by
//! blanks. Three layouts are accepted:
//!
//! - one file for all ranks (SimGrid's `examples/smpi/replay/actions*.txt`):
//!   each rank's stream reopens the file and keeps its own lines;
//! - one file per rank (`ti_trace0.txt`, ...), named explicitly with
//!   [`TiTrace::from_rank_files`];
//! - a *list file* with one per-rank trace path per line, rank `i` on line
//!   `i + 1` (what `smpirun -trace-ti` writes and `smpi_replay` reads);
//!   relative paths are resolved against the list file's directory first,
//!   then the working directory.
//!
//! [`TiTrace::open`] tells a shared trace from a list file by the first
//! field of the first non-blank line: a rank number or a path.
//!
//! # Actions and requests
//!
//! Every action SimGrid 3.32's replay reads (`smpi_replay.cpp`), with
//! its fields and the operations it becomes, and how `wait` and `test`
//! find their requests, is in `docs/TI-COVERAGE.md`. In short: counts
//! are in elements of a datatype (MPI_BYTE unless `init 1` makes it
//! MPI_DOUBLE; trailing datatype ids as SimGrid's, see
//! [`simgrid_datatype_size`]); the spellings are those SimGrid's tracer
//! writes; actions its replay has no handler for are refused, as are
//! fields beyond an action's last and another rank's line in a per-rank
//! file (stricter than SimGrid, on input its tracer never writes). A TI
//! trace runs on `MPI_COMM_WORLD` only, as in SimGrid. Requests are kept
//! per (sender, receiver, tag) as SimGrid keeps them, oldest first; the
//! reader assigns [`ReqId`](mpi_layer::ReqId)s 1, 2, ... in posting
//! order, and a rank's end waits for what is still pending. [`TiStream`]
//! reads a rank's lines; the `actions` module turns each into operations.

mod actions;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use mpi_layer::{Op, OpStream, Origin, ProgramError, Rank};

use crate::reader::{
    MAX_TRACE_RANKS, Span, TraceReader, check_rank, check_rank_files, too_many_rank_files,
};
use crate::text::{FilePool, Lines, PooledLines, error_at, file_error, parse_int, path_name};

use actions::State;
pub use actions::{ActionError, simgrid_datatype_size};

/// Parameters of TI replay.
#[derive(Clone, Debug, PartialEq)]
pub struct TiConfig {
    /// Speed of the host running each rank [flops/s], which turns `compute`
    /// amounts (flops) into durations. Default 1e9 (1 Gflop/s, the speed
    /// SimGrid's example cluster platforms give their hosts, e.g.
    /// `speed="1Gf"`); set it from the platform the trace is replayed on.
    pub host_speed_flops: f64,
    /// Each rank's own host speed, for a platform whose hosts differ:
    /// when set, a rank's `compute` runs at its host's speed (SimGrid's
    /// rule) and `host_speed_flops` is not used.
    pub rank_speeds: Option<RankSpeeds>,
}

impl Default for TiConfig {
    fn default() -> Self {
        TiConfig {
            host_speed_flops: 1e9,
            rank_speeds: None,
        }
    }
}

/// Every rank's host speed \[flop/s\], rank order, shared by the rank
/// streams and filled once the ranks are placed (a scenario does it
/// before the replay starts; a `compute` read before is an error).
#[derive(Clone, Debug, Default)]
pub struct RankSpeeds(Arc<std::sync::OnceLock<Vec<f64>>>);

impl PartialEq for RankSpeeds {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl RankSpeeds {
    /// Sets the speeds, rank order; only the first call has an effect.
    pub fn set(&self, speeds: Vec<f64>) {
        let _ = self.0.set(speeds);
    }

    /// Rank `rank`'s speed, `None` before the ranks are placed.
    fn get(&self, rank: Rank) -> Option<f64> {
        self.0.get().and_then(|v| v.get(rank as usize).copied())
    }
}

#[derive(Clone, Debug)]
enum Layout {
    /// One file; each rank's lines lie in its span.
    Shared(Arc<Vec<Span>>),
    /// File `i` of the pool is rank `i`'s.
    PerRank,
}

/// A TI trace: where each rank's actions are, and how many ranks there are.
///
/// The streams share one pool of open files (32 at most, whatever the
/// number of ranks): a stream remembers its byte offset and
/// reopens its file when the pool closed it.
#[derive(Clone, Debug)]
pub struct TiTrace {
    layout: Layout,
    files: Arc<Mutex<FilePool>>,
    num_ranks: u32,
    config: TiConfig,
}

impl TiTrace {
    /// Opens a shared all-ranks trace or a list file (see the module docs).
    ///
    /// A shared trace is scanned once to find the number of ranks (the
    /// largest rank field plus one); memory stays one line.
    pub fn open(path: &Path, config: TiConfig) -> Result<TiTrace, ProgramError> {
        check_config(&config, path)?;
        let mut lines = Lines::open(path)?;
        let mut first: Option<bool> = None; // Some(true): shared trace
        let mut spans: Vec<Span> = Vec::new();
        let mut files = Vec::new();
        while lines.advance()? {
            let Some(first_field) = first_field(lines.current()) else {
                continue;
            };
            let is_rank = first_field.bytes().all(|b| b.is_ascii_digit());
            let shared = *first.get_or_insert(is_rank);
            if shared {
                let r: u32 =
                    parse_int(first_field, "the rank (first field)").map_err(|m| lines.error(m))?;
                check_rank(r).map_err(|m| lines.error(m))?;
                Span::extend(&mut spans, r, &lines);
            } else {
                if files.len() >= MAX_TRACE_RANKS as usize {
                    return Err(lines.error(too_many_rank_files()));
                }
                files.push((lines.line, resolve(path, first_field)));
            }
        }
        let (layout, paths) = match first {
            None => return Err(file_error(path, "the trace holds no actions")),
            Some(true) => (Layout::Shared(Arc::new(spans)), vec![path.to_path_buf()]),
            Some(false) => {
                let source = path_name(path);
                for (line, file) in &files {
                    if !file.is_file() {
                        return Err(error_at(
                            &source,
                            *line,
                            format!("per-rank trace file {} does not exist", file.display()),
                        ));
                    }
                }
                (Layout::PerRank, files.into_iter().map(|(_, f)| f).collect())
            }
        };
        let num_ranks = match &layout {
            Layout::Shared(spans) => spans.len() as u32,
            Layout::PerRank => paths.len() as u32,
        };
        Ok(TiTrace {
            layout,
            files: FilePool::new(paths),
            num_ranks,
            config,
        })
    }

    /// A trace with one file per rank: `paths[i]` holds rank `i`'s actions.
    /// Every file must exist (checked here, so a missing rank is reported
    /// before the replay starts).
    pub fn from_rank_files(paths: Vec<PathBuf>, config: TiConfig) -> Result<TiTrace, ProgramError> {
        check_rank_files(&paths)?;
        if let Some(p) = paths.first() {
            check_config(&config, p)?;
        }
        Ok(TiTrace {
            num_ranks: paths.len() as u32,
            layout: Layout::PerRank,
            files: FilePool::new(paths),
            config,
        })
    }

    /// Rank `rank`'s operations, read lazily from its file.
    ///
    /// # Panics
    /// If `rank >= self.num_ranks()`.
    pub fn rank_stream(&self, rank: Rank) -> Result<TiStream, ProgramError> {
        assert!(rank < self.num_ranks, "rank {rank} out of range");
        let streams = self.num_ranks as usize;
        let lines = match &self.layout {
            Layout::Shared(spans) => {
                let s = spans[rank as usize];
                PooledLines::new(&self.files, 0, (s.start, s.end), s.first_line, streams)
            }
            Layout::PerRank => {
                PooledLines::new(&self.files, rank as usize, (0, u64::MAX), 1, streams)
            }
        };
        Ok(TiStream {
            lines,
            shared: matches!(self.layout, Layout::Shared(_)),
            finished: false,
            state: State::new(rank, self.num_ranks, &self.config),
        })
    }
}

impl TraceReader for TiTrace {
    type Stream = TiStream;

    fn num_ranks(&self) -> u32 {
        self.num_ranks
    }

    fn streams(&self) -> Result<Vec<TiStream>, ProgramError> {
        (0..self.num_ranks).map(|r| self.rank_stream(r)).collect()
    }
}

fn check_config(config: &TiConfig, path: &Path) -> Result<(), ProgramError> {
    if !(config.host_speed_flops.is_finite() && config.host_speed_flops > 0.0) {
        return Err(file_error(
            path,
            format!(
                "host speed must be a positive number of flops/s, got {}",
                config.host_speed_flops
            ),
        ));
    }
    Ok(())
}

/// The first field of an action line, `None` for blank and `#` lines.
fn first_field(line: &str) -> Option<&str> {
    let f = line.split_whitespace().next()?;
    (!f.starts_with('#')).then_some(f)
}

/// A path from a list file: relative to the list's directory if it exists
/// there, else as written.
fn resolve(list: &Path, entry: &str) -> PathBuf {
    let p = Path::new(entry);
    if p.is_relative() {
        if let Some(dir) = list.parent() {
            let joined = dir.join(p);
            if joined.exists() {
                return joined;
            }
        }
    }
    p.to_path_buf()
}

/// One rank's TI actions as operations, read one line at a time.
pub struct TiStream {
    lines: PooledLines,
    /// True for a shared trace (skip other ranks' lines), false for a
    /// per-rank file (every line must be this rank's).
    shared: bool,
    finished: bool,
    state: State,
}

impl std::fmt::Debug for TiStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TiStream").finish_non_exhaustive()
    }
}

impl OpStream for TiStream {
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        loop {
            if let Some(x) = self.state.next_pending() {
                return Ok(Some(x));
            }
            if self.finished {
                return Ok(None);
            }
            if !self.lines.advance()? {
                self.finished = true;
                self.state.end(|| self.lines.origin());
                continue;
            }
            let line = self.lines.current();
            let mut fields = line.split_whitespace();
            let Some(rank_field) = fields.next() else {
                continue;
            };
            if rank_field.starts_with('#') {
                continue;
            }
            let rank: u32 =
                parse_int(rank_field, "the rank (first field)").map_err(|m| self.lines.error(m))?;
            if rank != self.state.rank() {
                if self.shared {
                    continue;
                }
                return Err(self.lines.error(format!(
                    "action for rank {rank} in the trace file of rank {}",
                    self.state.rank()
                )));
            }
            let Some(action) = fields.next() else {
                return Err(self.lines.error("missing action after the rank"));
            };
            let args: Vec<&str> = fields.collect();
            let origin = self.lines.origin();
            self.state
                .action(action, &args, &origin)
                .map_err(|m| self.lines.error(format!("{action}: {m}")))?;
        }
    }
}
