//! SST DUMPI binary traces (the DOE Design Forward trace collections).
//!
//! A DUMPI trace is a text `.meta` file (`numprocs=N`, `fileprefix=P`) and
//! one binary file `P-NNNN.bin` per rank. Layout of a rank file, as written
//! by sst-dumpi's `dumpi/common/io.c` and `dumpiio.c` (all integers
//! big-endian):
//!
//! - magic `0xffaadd44554d5049` (8 bytes);
//! - the body at the offset the index names: an 8-byte preamble (time
//!   offsets), then records, then the 2-byte label `END_OF_STREAM`;
//! - the header (version, 3 bytes; start time; host and user names; mesh);
//! - the footer: magic `0xf007fee7` (8 bytes), then for every MPI function
//!   (290 of them) its call count, then its ignored count (u32 each);
//! - the datatype size table (u32 count, then u32 sizes indexed by DUMPI's
//!   datatype numbers), performance-counter labels, function addresses;
//! - the index, the last 64 bytes: magic, then the offsets of the size
//!   table, address labels, counter labels, header, body, footer, keyvals
//!   (older traces lack the first one, two or three of those).
//!
//! A record is: function label (u16), configuration mask (u8: bit 6 thread
//! id present, bit 2 CPU times, bit 3 wall times, bit 7 counters, bits 0-1
//! statuses present), thread (u16), CPU start/stop and wall start/stop
//! times when present (u16 seconds, u32 nanoseconds each), counters, then
//! the function's arguments in an order fixed per function: `int` as u32,
//! communicators, datatypes, groups as u16, MPI ops as u8, requests u32,
//! arrays as a u32 length and elements, statuses as a u32 count and
//! (bytes u32, source u32, cancelled u8, error u8, tag u32) each.
//!
//! Records have no length field: a reader must know every function's
//! layout to skip it. This reader knows the layouts of 238 of the 290 MPI
//! functions DUMPI labels (all point-to-point, request, collective,
//! communicator, group, topology, datatype, attribute, info, error and
//! environment calls, and MPI-IO up to `File_read_at`); a record of
//! another function (the rest of MPI-IO, `Win_lock`/`Win_post`,
//! `Pcontrol`, `Comm_spawn`) stops the stream with an error naming it.
//!
//! # Modules
//!
//! - [`decode`](self) (private): the binary layout above, one record at a
//!   time;
//! - [`calls`]: the call table, every function's name, argument layout
//!   and [`calls::Role`], and how a record's arguments read as a
//!   [`RecordedCall`](crate::recorded::RecordedCall);
//! - [`crate::recorded`]: what a recorded call becomes (shared with
//!   other binary trace formats);
//! - this module: [`DumpiTrace`] (the `.meta` file) and [`DumpiStream`],
//!   which adds the computation between calls: the time between the end
//!   of one recorded call and the start of the next, on the wall clock
//!   (or the CPU clock), times a scale factor, becomes a `Compute` before
//!   the next call's operations.
//!
//! Sizes are counts times the datatype size from the trace's own size
//! table; derived types are sized from their constructors' records
//! (`calls`), and a message of a type no record defines is an error. `MPI_COMM_WORLD` is `CommId::WORLD`; user
//! communicators keep their DUMPI numbers.
//!
//! Errors name the file, the record number (1-based, as `Origin::line`) and
//! the byte offset of the record.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use mpi_layer::{Op, OpStream, Origin, ProgramError, Rank};
use sim_core::time::Time;

use crate::reader::{MAX_TRACE_RANKS, TraceReader};
use crate::recorded::CallMapper;
use crate::text::{FilePool, Lines, file_error, parse_int};

pub mod calls;
pub mod coverage;
mod decode;
mod table;

pub use calls::{NUM_FUNCTIONS, function_name};
pub use decode::DEFAULT_DATATYPE_SIZES;
use decode::RankFile;

/// Which recorded clock computation gaps are measured on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// Wall-clock time stamps (default): includes waiting outside MPI.
    Wall,
    /// CPU time stamps: only time the process ran.
    Cpu,
}

/// Parameters of DUMPI replay.
#[derive(Clone, Debug, PartialEq)]
pub struct DumpiConfig {
    /// The clock gaps between calls are measured on (default
    /// [`Clock::Wall`]); if the trace lacks it, no computation is emitted.
    pub clock: Clock,
    /// Factor applied to every gap \[dimensionless\] (default 1.0: replay
    /// the recorded computation; 0.5 models a host twice as fast).
    pub compute_scale: f64,
    /// Gaps shorter than this (after scaling) are dropped (default 0:
    /// every gap becomes a `Compute`).
    pub min_compute: Time,
}

impl Default for DumpiConfig {
    fn default() -> Self {
        DumpiConfig {
            clock: Clock::Wall,
            compute_scale: 1.0,
            min_compute: Time::ZERO,
        }
    }
}

/// A DUMPI trace: its `.meta` file and per-rank binary files.
///
/// The streams share one pool of open files (32 at most, whatever the
/// number of ranks): a stream remembers its byte offset and reopens its
/// file when the pool closed it.
#[derive(Clone, Debug)]
pub struct DumpiTrace {
    files: Vec<PathBuf>,
    pool: Arc<Mutex<FilePool>>,
    config: DumpiConfig,
}

impl DumpiTrace {
    /// Opens the trace described by `meta` (`numprocs`, `fileprefix`; rank
    /// files `<fileprefix>-NNNN.bin` beside it). Every rank file must
    /// exist.
    pub fn open(meta: &Path, config: DumpiConfig) -> Result<DumpiTrace, ProgramError> {
        if !(config.compute_scale.is_finite() && config.compute_scale >= 0.0) {
            return Err(file_error(
                meta,
                format!(
                    "compute scale must be a non-negative number, got {}",
                    config.compute_scale
                ),
            ));
        }
        let mut lines = Lines::open(meta)?;
        let (mut numprocs, mut prefix) = (None, None);
        while lines.advance()? {
            let l = lines.current().trim();
            if let Some((k, v)) = l.split_once('=') {
                match k.trim() {
                    "numprocs" => {
                        let n =
                            parse_int::<u32>(v.trim(), "numprocs").map_err(|m| lines.error(m))?;
                        sim_core::limits::check_ranks(n.into())
                            .map_err(|m| lines.error(format!("numprocs: {m}")))?;
                        numprocs = Some(n)
                    }
                    "fileprefix" => prefix = Some(v.trim().to_string()),
                    _ => {}
                }
            }
        }
        let numprocs = numprocs.ok_or_else(|| file_error(meta, "no `numprocs=` line"))?;
        let prefix = prefix.ok_or_else(|| file_error(meta, "no `fileprefix=` line"))?;
        let dir = meta.parent().unwrap_or(Path::new("."));
        if numprocs > MAX_TRACE_RANKS {
            return Err(file_error(
                meta,
                format!(
                    "numprocs {numprocs} is more than the {MAX_TRACE_RANKS} ranks a trace may have"
                ),
            ));
        }
        let mut files = Vec::new();
        for r in 0..numprocs {
            let f = dir.join(format!("{prefix}-{r:04}.bin"));
            if !f.is_file() {
                let what = if f.exists() {
                    "is not a file (a directory?)"
                } else {
                    "does not exist"
                };
                return Err(file_error(
                    meta,
                    format!("rank {r}'s trace file {} {what}", f.display()),
                ));
            }
            files.push(f);
        }
        Ok(DumpiTrace {
            pool: FilePool::new(files.clone()),
            files,
            config,
        })
    }

    /// Rank `rank`'s operations, decoded lazily from its file.
    ///
    /// # Panics
    /// If `rank >= self.num_ranks()`.
    pub fn rank_stream(&self, rank: Rank) -> Result<DumpiStream, ProgramError> {
        let file = RankFile::open(
            &self.files[rank as usize],
            self.config.clock,
            (&self.pool, rank as usize, self.files.len()),
        )?;
        Ok(DumpiStream::from_file(
            file,
            self.num_ranks(),
            self.config.clone(),
        ))
    }
}

impl TraceReader for DumpiTrace {
    type Stream = DumpiStream;

    fn num_ranks(&self) -> u32 {
        self.files.len() as u32
    }

    fn streams(&self) -> Result<Vec<DumpiStream>, ProgramError> {
        (0..self.num_ranks()).map(|r| self.rank_stream(r)).collect()
    }
}

/// One rank's DUMPI records as operations, one record at a time.
pub struct DumpiStream {
    file: RankFile,
    calls: CallMapper,
    config: DumpiConfig,
    decoded: Vec<u64>,
    pending: VecDeque<(Op, Origin)>,
    last_stop_ns: Option<u64>,
    done: bool,
}

impl std::fmt::Debug for DumpiStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DumpiStream").finish_non_exhaustive()
    }
}

impl DumpiStream {
    /// Opens one rank's binary file; `num_ranks` bounds the ranks its
    /// records may name in `MPI_COMM_WORLD`.
    pub fn open(
        path: &Path,
        num_ranks: u32,
        config: DumpiConfig,
    ) -> Result<DumpiStream, ProgramError> {
        let pool = FilePool::new(vec![path.to_path_buf()]);
        let file = RankFile::open(path, config.clock, (&pool, 0, 1))?;
        Ok(DumpiStream::from_file(file, num_ranks, config))
    }

    fn from_file(file: RankFile, num_ranks: u32, config: DumpiConfig) -> DumpiStream {
        DumpiStream {
            calls: CallMapper::new(num_ranks, file.sizes.clone()),
            file,
            config,
            decoded: vec![0; NUM_FUNCTIONS],
            pending: VecDeque::new(),
            last_stop_ns: None,
            done: false,
        }
    }

    /// Call counts per function label from the file's footer (what the
    /// tracer counted), index = label.
    pub fn footer_call_counts(&self) -> &[u32] {
        &self.file.footer_calls
    }

    /// Records decoded so far per function label.
    pub fn decoded_counts(&self) -> &[u64] {
        &self.decoded
    }

    /// The trace format version from the header.
    pub fn version(&self) -> [u8; 3] {
        self.file.version()
    }
}

impl OpStream for DumpiStream {
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        loop {
            if let Some(x) = self.pending.pop_front() {
                return Ok(Some(x));
            }
            if self.done {
                return Ok(None);
            }
            let Some(rec) = self.file.record()? else {
                self.done = true;
                continue;
            };
            let origin = Origin {
                source: self.file.source().clone(),
                line: self.file.rec_no,
            };
            let mut ops = Vec::new();
            if rec.label < NUM_FUNCTIONS {
                self.decoded[rec.label] += 1;
                let call = calls::recorded_call(table::role(rec.label), &rec.args)
                    .map_err(|m| self.file.err(m))?;
                self.calls
                    .ops(call, &mut ops)
                    .map_err(|m| self.file.err(m))?;
            }
            let times = rec.times;
            // The gap since the previous call is computation.
            // Seconds are stored as 16 bits: a gap across a wrap (every 18.2 h
            // of trace) is lost rather than made huge.
            if let Some((start, stop)) = times {
                if let Some(prev) = self.last_stop_ns {
                    if start > prev {
                        let secs = (start - prev) as f64 * 1e-9 * self.config.compute_scale;
                        let d = Time::try_from_secs_f64(secs)
                            .ok_or_else(|| self.file.err("computation gap too long"))?;
                        if d > Time::ZERO && d >= self.config.min_compute {
                            self.pending
                                .push_back((Op::Compute { duration: d }, origin.clone()));
                        }
                    }
                }
                self.last_stop_ns = Some(stop.max(start));
            }
            self.pending
                .extend(ops.into_iter().map(|op| (op, origin.clone())));
        }
    }
}

#[cfg(test)]
mod tests_comm;

#[cfg(test)]
mod tests {
    use super::decode::{END_OF_STREAM, FOOT_MAGIC, HEAD_MAGIC};
    use super::*;
    use mpi_layer::{CommId, ReqId, Source, TagSel};

    /// Every function with a fixed layout maps a record of its layout's
    /// kinds (every integer 2, which is `MPI_COMM_WORLD`, a rank and a
    /// count; arrays `[2, 2]`; both forms of the version-dependent array
    /// fields) without reading a field as the wrong kind, which would
    /// panic; most such records map.
    #[test]
    fn every_layout_maps_without_a_wrong_field_kind() {
        use super::calls::{Val, recorded_call};
        use super::table::{layout, role};
        let (mut checked, mut mapped) = (0, 0);
        for f in 0..NUM_FUNCTIONS {
            let spec = layout(f);
            if spec == "?" || spec == "g" {
                continue;
            }
            for old in [false, true] {
                let vals: Vec<Val> = spec
                    .bytes()
                    .map(|c| match c {
                        b'i' | b's' | b'b' => Val::I(2),
                        b'A' | b'R' | b'D' => Val::A(vec![2, 2]),
                        b'Y' | b'Z' if old => Val::I(2),
                        b'Y' | b'Z' => Val::A(vec![2, 2]),
                        b'G' => Val::G(vec![vec![0, 1, 1]]),
                        _ => Val::Skip,
                    })
                    .collect();
                mapped += usize::from(recorded_call(role(f), &vals).is_ok());
            }
            checked += 1;
        }
        assert!(
            checked > 200 && mapped > checked,
            "{mapped} of {checked} layouts"
        );
    }

    pub(super) fn label(name: &str) -> u16 {
        (0..NUM_FUNCTIONS)
            .find(|&f| function_name(f) == name)
            .expect(name) as u16
    }

    /// A minimal writer of the layout described in the module docs, for
    /// records this crate's test trace does not contain.
    pub(super) struct Writer {
        body: Vec<u8>,
        clock_us: u64,
    }

    impl Writer {
        pub(super) fn new() -> Writer {
            let mut body = HEAD_MAGIC.to_be_bytes().to_vec();
            body.extend([0u8; 8]); // preamble
            Writer { body, clock_us: 0 }
        }
        pub(super) fn rec(&mut self, name: &str, gap_us: u64, args: &[Arg]) {
            self.body.extend(label(name).to_be_bytes());
            self.body.push(0x08); // wall clock only, no statuses
            self.clock_us += gap_us;
            for t in [self.clock_us, self.clock_us] {
                self.body.extend(((t / 1_000_000) as u16).to_be_bytes());
                self.body
                    .extend((((t % 1_000_000) * 1000) as u32).to_be_bytes());
            }
            for a in args {
                match a {
                    Arg::I(v) => self.body.extend((*v as u32).to_be_bytes()),
                    Arg::S(v) => self.body.extend(v.to_be_bytes()),
                    Arg::B(v) => self.body.push(*v),
                    Arg::A(v) => {
                        self.body.extend((v.len() as u32).to_be_bytes());
                        for x in v.iter() {
                            self.body.extend((*x as u32).to_be_bytes());
                        }
                    }
                    Arg::G(g) => {
                        self.body.extend((g.len() as u32).to_be_bytes());
                        for v in g {
                            self.body.extend((v.len() as u32).to_be_bytes());
                            for x in v.iter() {
                                self.body.extend((*x as u32).to_be_bytes());
                            }
                        }
                    }
                }
            }
        }
        pub(super) fn finish(mut self) -> Vec<u8> {
            let mut b = std::mem::take(&mut self.body);
            b.extend(END_OF_STREAM.to_be_bytes());
            let header = b.len() as u64;
            b.extend([1, 0, 0]);
            b.extend([0u8; 8 + 2 + 2 + 4 + 4]);
            let footer = b.len() as u64;
            b.extend(FOOT_MAGIC.to_be_bytes());
            b.extend(vec![0u8; 8 * (NUM_FUNCTIONS + 1)]);
            let sizes = b.len() as u64;
            b.extend((DEFAULT_DATATYPE_SIZES.len() as u32).to_be_bytes());
            for s in DEFAULT_DATATYPE_SIZES {
                b.extend((s as u32).to_be_bytes());
            }
            for w in [HEAD_MAGIC, sizes, 0, 0, header, 8, footer, 0] {
                b.extend(w.to_be_bytes());
            }
            b
        }
    }

    #[derive(Clone)]
    pub(super) enum Arg {
        I(i32),
        S(u16),
        B(u8),
        A(Vec<i32>),
        /// An array of int arrays.
        G(Vec<Vec<i32>>),
    }
    use Arg::*;

    fn decode(bytes: Vec<u8>, name: &str) -> (Vec<Op>, Option<String>) {
        let p = std::env::temp_dir().join(format!(
            "netsim-dumpi-unit-{}-{name}.bin",
            std::process::id()
        ));
        std::fs::write(&p, bytes).unwrap();
        let mut s = DumpiStream::open(&p, 4, DumpiConfig::default()).unwrap();
        let mut ops = Vec::new();
        let err = loop {
            match s.next_op() {
                Ok(Some((op, _))) => ops.push(op),
                Ok(None) => break None,
                Err(e) => break Some(e.to_string()),
            }
        };
        std::fs::remove_file(&p).unwrap();
        (ops, err)
    }

    #[test]
    fn maps_calls_to_operations() {
        let w = &mut Writer::new();

        w.rec("MPI_Init", 0, &[I(0)]);
        w.rec("MPI_Send", 10, &[I(10), S(14), I(1), I(5), S(2)]);
        w.rec("MPI_Irecv", 0, &[I(3), S(9), I(-1), I(-1), S(2), I(7)]);
        w.rec("MPI_Type_contiguous", 0, &[I(5), S(14), S(30)]);
        w.rec("MPI_Isend", 0, &[I(2), S(30), I(2), I(0), S(2), I(8)]);
        w.rec("MPI_Waitany", 0, &[I(2), A(vec![7, 8]), I(1)]);
        w.rec("MPI_Waitsome", 0, &[I(2), A(vec![7, 1]), I(1), A(vec![0])]);
        w.rec(
            "MPI_Gatherv",
            0,
            &[I(2), I(3), I(4), S(9), I(0), S(2), S(9)],
        );
        w.rec(
            "MPI_Gatherv",
            0,
            &[
                I(0),
                I(3),
                I(1),
                S(9),
                I(0),
                S(2),
                A(vec![1, 2, 3]),
                A(vec![0, 1, 3]),
                S(9),
            ],
        );
        w.rec("MPI_Comm_split", 0, &[S(2), I(1), I(0), S(4)]);
        w.rec("MPI_Barrier", 0, &[S(4)]);
        w.rec("MPI_Barrier", 0, &[S(3)]);
        w.rec(
            "MPI_Cart_create",
            0,
            &[S(2), I(2), A(vec![2, 2]), A(vec![0, 0]), I(0), S(5)],
        );
        w.rec("MPI_Allreduce", 0, &[I(4), S(14), B(3), S(2)]);
        w.rec("MPI_Pcontrol", 0, &[]);
        let bytes = std::mem::replace(w, Writer::new()).finish();
        let (ops, err) = decode(bytes, "map");
        let world = CommId::WORLD;
        assert_eq!(
            ops,
            vec![
                Op::Compute {
                    duration: Time::from_us(10)
                },
                Op::Send {
                    dst: 1,
                    tag: 5,
                    bytes: 80,
                    comm: world
                },
                Op::Irecv {
                    src: Source::Any,
                    tag: TagSel::Any,
                    bytes: 12,
                    comm: world,
                    req: ReqId(7)
                },
                Op::Isend {
                    dst: 2,
                    tag: 0,
                    bytes: 80,
                    comm: world,
                    req: ReqId(8)
                },
                Op::Wait { req: ReqId(8) },
                Op::Waitall {
                    reqs: vec![ReqId(7)]
                },
                Op::Gatherv {
                    root: 0,
                    counts: vec![0, 0, 16],
                    comm: world
                },
                Op::Gatherv {
                    root: 0,
                    counts: vec![4, 8, 12],
                    comm: world
                },
                Op::CommSplit {
                    comm: world,
                    color: 1,
                    key: 0,
                    new: CommId(4)
                },
                Op::Barrier { comm: CommId(4) },
                Op::CartCreate {
                    comm: world,
                    dims: vec![2, 2],
                    periods: vec![false, false],
                    new: CommId(5)
                },
                Op::Allreduce {
                    bytes: 32,
                    elem_bytes: 8,
                    comm: world
                },
            ]
        );
        let err = err.expect("MPI_Pcontrol is not supported");
        assert!(err.contains("record 15 (MPI_Pcontrol)"), "{err}");
        assert!(
            err.ends_with(
                "records of this MPI function are not supported (layout not implemented)"
            ),
            "{err}"
        );
    }

    #[test]
    fn unknown_derived_datatype_is_an_error() {
        let mut w = Writer::new();
        w.rec("MPI_Send", 0, &[I(1), S(77), I(1), I(0), S(2)]);
        let (ops, err) = decode(w.finish(), "dt");
        assert!(ops.is_empty());
        let err = err.unwrap();
        assert!(err.ends_with("record 1 (MPI_Send) at byte offset 16: datatype 77 has no known size (a derived type this reader cannot size)"), "{err}");
    }
}
