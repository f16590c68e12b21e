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
//! # Mapping to operations
//!
//! - Sends (`Send`, `Bsend`, `Ssend`, `Rsend`) become `Send`; `Isend`
//!   and its variants `Isend`; `Recv`/`Irecv` likewise; `Sendrecv(_replace)`
//!   `Sendrecv`; persistent requests (`*_init`) are remembered and each
//!   `Start`/`Startall` posts them as `Isend`/`Irecv`.
//! - `Wait` -> `Wait`; `Waitall` -> `Waitall` (null requests dropped);
//!   `Waitany` -> `Wait` on the request the trace says completed;
//!   `Waitsome` -> `Waitall` on the requests it completed; `Test` -> `Test`;
//!   `Testany`/`Testsome`/`Testall` -> `Test` on each request the trace
//!   says completed. Replaying the recorded completions keeps the later
//!   calls' request arrays consistent with the simulation.
//! - Collectives map one to one; sizes are counts times the datatype size
//!   from the trace's own size table (derived types built with
//!   `Type_contiguous`, `Type_(create_)hvector`, `Type_vector`,
//!   `Type_indexed`, `Type_(create_)hindexed`, `Type_create_indexed_block`,
//!   `Type_(create_)struct`, `Type_create_subarray`, `Type_create_resized`
//!   and `Type_dup` are sized from their records; a message of another
//!   derived type is an error). DUMPI records `Gatherv`'s counts only at the root (and
//!   `Scatterv`'s): at other ranks the counts vector holds the rank's own
//!   contribution and zeros elsewhere.
//! - `Comm_dup`, `Comm_split` -> `CommDup`, `CommSplit`; `MPI_COMM_WORLD`
//!   is `CommId::WORLD`, user communicators keep their DUMPI numbers.
//!   Collectives on `MPI_COMM_SELF` are local and dropped.
//! - Every other known function (`Init`, `Comm_rank`, `Wtime`, `Probe`,
//!   `Type_commit`, ...) produces no operation.
//! - Computation: the time between the end of one recorded call and the
//!   start of the next, on the wall clock (or the CPU clock), times a scale
//!   factor, becomes a `Compute` before the next call's operations.
//!
//! Errors name the file, the record number (1-based, as `Origin::line`) and
//! the byte offset of the record.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mpi_layer::{CommId, Op, OpStream, Origin, ProgramError, Rank, ReqId, Source, TagSel};
use sim_core::time::Time;

use crate::text::{Lines, error_at, file_error, parse_int, path_name};

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
    /// Factor applied to every gap [dimensionless] (default 1.0: replay
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

/// Number of MPI functions DUMPI labels (`DUMPI_ALL_FUNCTIONS`).
pub const NUM_FUNCTIONS: usize = 290;
const FUNCTION_ENTER: u16 = 291;
const FUNCTION_EXIT: u16 = 292;
const END_OF_STREAM: u16 = 293;
const HEAD_MAGIC: u64 = 0xffaa_dd44_554d_5049;
const FOOT_MAGIC: u64 = 0xf007_fee7;
const COMM_WORLD: u16 = 2;
const COMM_SELF: u16 = 3;
const FIRST_USER_COMM: u16 = 4;
const REQUEST_NULL: u32 = 1;
const ANY: i32 = -1;

/// Sizes of DUMPI's predefined datatypes on an LP64 platform, used when a
/// trace has no size table (index = DUMPI datatype number: ERROR, NULL,
/// CHAR, SIGNED_CHAR, UNSIGNED_CHAR, BYTE, WCHAR, SHORT, UNSIGNED_SHORT,
/// INT, UNSIGNED, LONG, UNSIGNED_LONG, FLOAT, DOUBLE, LONG_DOUBLE,
/// LONG_LONG_INT, UNSIGNED_LONG_LONG, LONG_LONG, PACKED, LB, UB, FLOAT_INT,
/// DOUBLE_INT, LONG_INT, SHORT_INT, 2INT, LONG_DOUBLE_INT); the same values
/// as the table in the sst-macro test trace.
pub const DEFAULT_DATATYPE_SIZES: [u64; 28] = [
    0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20,
];

/// The MPI name of DUMPI function label `f` (`"?"` if out of range).
pub fn function_name(f: usize) -> &'static str {
    FUNCTIONS.get(f).map_or("?", |x| x.0)
}

/// A DUMPI trace: its `.meta` file and per-rank binary files.
#[derive(Clone, Debug)]
pub struct DumpiTrace {
    files: Vec<PathBuf>,
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
                        numprocs = Some(
                            parse_int::<u32>(v.trim(), "numprocs").map_err(|m| lines.error(m))?,
                        )
                    }
                    "fileprefix" => prefix = Some(v.trim().to_string()),
                    _ => {}
                }
            }
        }
        let numprocs = numprocs.ok_or_else(|| file_error(meta, "no `numprocs=` line"))?;
        let prefix = prefix.ok_or_else(|| file_error(meta, "no `fileprefix=` line"))?;
        let dir = meta.parent().unwrap_or(Path::new("."));
        let mut files = Vec::new();
        for r in 0..numprocs {
            let f = dir.join(format!("{prefix}-{r:04}.bin"));
            if !f.is_file() {
                return Err(file_error(
                    meta,
                    format!("rank {r}'s trace file {} does not exist", f.display()),
                ));
            }
            files.push(f);
        }
        Ok(DumpiTrace { files, config })
    }

    /// The number of ranks.
    pub fn num_ranks(&self) -> u32 {
        self.files.len() as u32
    }

    /// Rank `rank`'s operations, decoded lazily from its file.
    ///
    /// # Panics
    /// If `rank >= self.num_ranks()`.
    pub fn rank_stream(&self, rank: Rank) -> Result<DumpiStream, ProgramError> {
        DumpiStream::open(
            &self.files[rank as usize],
            self.num_ranks(),
            self.config.clone(),
        )
    }

    /// One stream per rank, rank order.
    pub fn streams(&self) -> Result<Vec<DumpiStream>, ProgramError> {
        (0..self.num_ranks()).map(|r| self.rank_stream(r)).collect()
    }
}

/// One rank's DUMPI records as operations, one record at a time.
pub struct DumpiStream {
    source: Arc<str>,
    reader: BufReader<File>,
    /// Byte offset of the next unread byte.
    pos: u64,
    /// Offset where the current record starts.
    rec_pos: u64,
    /// Number of the current record (1-based).
    rec_no: u64,
    rec_fn: usize,
    version: [u8; 3],
    perf_counters: u32,
    sizes: Vec<u64>,
    user_sizes: HashMap<u16, u64>,
    num_ranks: u32,
    config: DumpiConfig,
    footer_calls: Vec<u32>,
    decoded: Vec<u64>,
    pending: VecDeque<(Op, Origin)>,
    persistent: HashMap<u32, Op>,
    last_stop_ns: Option<u64>,
    done: bool,
}

/// A decoded argument.
#[derive(Clone, Debug)]
enum Val {
    I(i64),
    A(Vec<i64>),
    Skip,
}

impl Val {
    fn i(&self) -> i64 {
        match self {
            Val::I(v) => *v,
            _ => 0,
        }
    }
    fn a(&self) -> &[i64] {
        match self {
            Val::A(v) => v,
            _ => &[],
        }
    }
}

fn read_u64_at(f: &mut File, off: u64) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    f.seek(SeekFrom::Start(off))?;
    f.read_exact(&mut b)?;
    Ok(u64::from_be_bytes(b))
}

fn read_u32_at(f: &mut File, off: u64) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    f.seek(SeekFrom::Start(off))?;
    f.read_exact(&mut b)?;
    Ok(u32::from_be_bytes(b))
}

impl DumpiStream {
    /// Opens one rank's binary file; `num_ranks` bounds the ranks its
    /// records may name in `MPI_COMM_WORLD`.
    pub fn open(
        path: &Path,
        num_ranks: u32,
        config: DumpiConfig,
    ) -> Result<DumpiStream, ProgramError> {
        let ioerr = |what: &str, e: std::io::Error| file_error(path, format!("{what}: {e}"));
        let mut f = File::open(path).map_err(|e| ioerr("cannot open DUMPI file", e))?;
        let len = f
            .metadata()
            .map_err(|e| ioerr("cannot read file size", e))?
            .len();
        if len < 8 + 64 || read_u64_at(&mut f, 0).ok() != Some(HEAD_MAGIC) {
            return Err(file_error(
                path,
                "not a DUMPI file (no magic number at byte 0)",
            ));
        }
        // The index: magic followed by 4 to 7 offsets, ending the file.
        let mut index = None;
        for extra in 0..4u64 {
            let off = len - 64 + 8 * extra;
            if read_u64_at(&mut f, off).map_err(|e| ioerr("cannot read index", e))? == HEAD_MAGIC {
                let words: Vec<u64> = (off + 8..len)
                    .step_by(8)
                    .map(|o| read_u64_at(&mut f, o))
                    .collect::<Result<_, _>>()
                    .map_err(|e| ioerr("cannot read index", e))?;
                index = Some(words);
                break;
            }
        }
        let Some(words) = index else {
            return Err(file_error(
                path,
                format!(
                    "no DUMPI index record in the last 64 bytes (byte offset {}): truncated file?",
                    len - 64
                ),
            ));
        };
        let n = words.len(); // 4..=7: [sizelbl] [addrlbl] [perflbl] header body footer keyval
        let (header, body, footer) = (words[n - 4], words[n - 3], words[n - 2]);
        let perflbl = if n >= 5 { words[n - 5] } else { 0 };
        let sizelbl = if n >= 7 { words[n - 7] } else { 0 };
        for (name, off) in [("header", header), ("body", body), ("footer", footer)] {
            if off == 0 || off >= len {
                return Err(file_error(
                    path,
                    format!("index names {name} offset {off} outside the file ({len} bytes)"),
                ));
            }
        }
        let mut version = [0u8; 3];
        f.seek(SeekFrom::Start(header))
            .and_then(|_| f.read_exact(&mut version))
            .map_err(|e| ioerr("cannot read header", e))?;
        let sizes = if sizelbl > 0 {
            let count =
                read_u32_at(&mut f, sizelbl).map_err(|e| ioerr("cannot read datatype sizes", e))?;
            if sizelbl + 4 + 4 * count as u64 > len {
                return Err(file_error(
                    path,
                    format!("datatype size table at byte offset {sizelbl} runs past the end"),
                ));
            }
            (0..count as u64)
                .map(|i| read_u32_at(&mut f, sizelbl + 4 + 4 * i).map(u64::from))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| ioerr("cannot read datatype sizes", e))?
        } else {
            DEFAULT_DATATYPE_SIZES.to_vec()
        };
        let perf_counters = if perflbl > 0 {
            read_u32_at(&mut f, perflbl).map_err(|e| ioerr("cannot read counter labels", e))?
        } else {
            0
        };
        let mut footer_calls = vec![0u32; NUM_FUNCTIONS];
        if read_u64_at(&mut f, footer).ok() == Some(FOOT_MAGIC) {
            for (i, c) in footer_calls.iter_mut().enumerate() {
                *c = read_u32_at(&mut f, footer + 8 + 4 * i as u64)
                    .map_err(|e| ioerr("cannot read footer", e))?;
            }
        } else {
            return Err(file_error(
                path,
                format!("no footer magic at byte offset {footer}"),
            ));
        }
        f.seek(SeekFrom::Start(body))
            .map_err(|e| ioerr("cannot seek to body", e))?;
        let mut s = DumpiStream {
            source: path_name(path),
            reader: BufReader::with_capacity(64 * 1024, f),
            pos: body,
            rec_pos: body,
            rec_no: 0,
            rec_fn: 0,
            version,
            perf_counters,
            sizes,
            user_sizes: HashMap::new(),
            num_ranks,
            config,
            footer_calls,
            decoded: vec![0; NUM_FUNCTIONS],
            pending: VecDeque::new(),
            persistent: HashMap::new(),
            last_stop_ns: None,
            done: false,
        };
        // Preamble: the CPU and wall time offsets (u32 each). Gaps are
        // differences on one clock, so the offsets cancel.
        s.bytes(8)?;
        Ok(s)
    }

    /// Call counts per function label from the file's footer (what the
    /// tracer counted), index = label.
    pub fn footer_call_counts(&self) -> &[u32] {
        &self.footer_calls
    }

    /// Records decoded so far per function label.
    pub fn decoded_counts(&self) -> &[u64] {
        &self.decoded
    }

    /// The trace format version from the header.
    pub fn version(&self) -> [u8; 3] {
        self.version
    }

    fn has_version(&self, v: [u8; 3]) -> bool {
        self.version >= v
    }

    fn err(&self, message: impl std::fmt::Display) -> ProgramError {
        error_at(
            &self.source,
            self.rec_no,
            format!(
                "record {} ({}) at byte offset {}: {message}",
                self.rec_no,
                function_name(self.rec_fn),
                self.rec_pos
            ),
        )
    }

    fn bytes(&mut self, n: usize) -> Result<[u8; 8], ProgramError> {
        let mut b = [0u8; 8];
        self.reader.read_exact(&mut b[..n]).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                self.err(format!(
                    "truncated: file ends inside the record (reading {n} bytes at offset {})",
                    self.pos
                ))
            } else {
                self.err(format!("read error: {e}"))
            }
        })?;
        self.pos += n as u64;
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8, ProgramError> {
        Ok(self.bytes(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, ProgramError> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, ProgramError> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn skip(&mut self, n: u64) -> Result<(), ProgramError> {
        let mut left = n;
        while left > 0 {
            let k = left.min(8);
            self.bytes(k as usize)?;
            left -= k;
        }
        Ok(())
    }
    /// A u32 element count, checked against what is left of the file so a
    /// corrupt count is an error rather than a huge allocation.
    fn count(&mut self, elem: u64) -> Result<u64, ProgramError> {
        let n = self.u32()? as u64;
        if n > (1 << 28) || n * elem > (1 << 31) {
            return Err(self.err(format!("implausible array length {n}: corrupt record?")));
        }
        Ok(n)
    }
    fn int_array(&mut self) -> Result<Vec<i64>, ProgramError> {
        let n = self.count(4)?;
        (0..n).map(|_| Ok(self.u32()? as i32 as i64)).collect()
    }
    fn dtype_array(&mut self) -> Result<Vec<i64>, ProgramError> {
        let n = self.count(2)?;
        (0..n).map(|_| Ok(self.u16()? as i64)).collect()
    }
    fn statuses(&mut self, mask: u8) -> Result<(), ProgramError> {
        if mask & 0x03 != 0 {
            let n = self.count(14)?;
            let each = if self.has_version([0, 6, 3]) { 14 } else { 10 };
            self.skip(n * each)?;
        }
        Ok(())
    }
    fn char_array(&mut self) -> Result<(), ProgramError> {
        let n = self.count(1)?;
        self.skip(n)
    }

    /// Reads the next record into (label, start_ns, stop_ns, args); `None`
    /// at the end of the stream.
    #[allow(clippy::type_complexity)]
    fn record(&mut self) -> Result<Option<(usize, Option<(u64, u64)>, Vec<Val>)>, ProgramError> {
        self.rec_pos = self.pos;
        self.rec_no += 1;
        self.rec_fn = usize::MAX;
        let label = self.u16()?;
        if label == END_OF_STREAM {
            return Ok(None);
        }
        if label as usize >= NUM_FUNCTIONS && label != FUNCTION_ENTER && label != FUNCTION_EXIT {
            return Err(self.err(format!("unknown function label {label}: corrupt file?")));
        }
        self.rec_fn = label as usize;
        let mask = self.u8()?;
        if mask & 0x40 != 0 {
            self.u16()?; // thread
        }
        let mut times = [None, None]; // cpu, wall
        for (k, bit) in [(0usize, 0x04u8), (1, 0x08)] {
            if mask & bit != 0 {
                let s0 = self.u16()? as u64;
                let n0 = self.u32()? as u64;
                let s1 = self.u16()? as u64;
                let n1 = self.u32()? as u64;
                times[k] = Some((s0 * 1_000_000_000 + n0, s1 * 1_000_000_000 + n1));
            }
        }
        if mask & 0x80 != 0 {
            self.u8()?;
            self.skip(16 * self.perf_counters as u64)?;
        }
        let t = times[match self.config.clock {
            Clock::Cpu => 0,
            Clock::Wall => 1,
        }];
        if label == FUNCTION_ENTER || label == FUNCTION_EXIT {
            self.skip(8)?;
            return Ok(Some((label as usize, t, Vec::new())));
        }
        let spec = FUNCTIONS[label as usize].1;
        let mut vals = Vec::with_capacity(spec.len());
        match spec {
            "?" => {
                return Err(self.err(
                    "records of this MPI function are not supported (layout not implemented)",
                ));
            }
            "g" => self.root_dependent(label as usize, mask, &mut vals)?,
            _ => {
                for c in spec.bytes() {
                    vals.push(match c {
                        b'i' => Val::I(self.u32()? as i32 as i64),
                        b's' => Val::I(self.u16()? as i64),
                        b'b' => Val::I(self.u8()? as i64),
                        b'A' | b'R' => Val::A(self.int_array()?),
                        b'D' => Val::A(self.dtype_array()?),
                        b'S' | b'T' => {
                            self.statuses(mask)?;
                            Val::Skip
                        }
                        b'C' | b'B' => {
                            self.char_array()?;
                            Val::Skip
                        }
                        b'q' => {
                            self.skip(8)?;
                            Val::Skip
                        }
                        // Arrays written as one int by older DUMPI versions:
                        // Type_struct's indices before 0.6.9, Cart_get's
                        // coords before 0.6.8.
                        b'Y' | b'Z' => {
                            let since = if c == b'Y' { [0, 6, 9] } else { [0, 6, 8] };
                            if self.has_version(since) {
                                Val::A(self.int_array()?)
                            } else {
                                Val::I(self.u32()? as i32 as i64)
                            }
                        }
                        b'G' => {
                            let n = self.count(4)?;
                            for _ in 0..n {
                                self.int_array()?;
                            }
                            Val::Skip
                        }
                        b'I' => {
                            let argc = self.count(4)?;
                            if !self.has_version([0, 6, 2]) {
                                self.u32()?; // written twice before 0.6.2
                            }
                            for _ in 0..argc {
                                self.char_array()?;
                            }
                            Val::Skip
                        }
                        _ => unreachable!("bad layout spec"),
                    });
                }
            }
        }
        Ok(Some((label as usize, t, vals)))
    }

    /// Gather, Gatherv, Scatter, Scatterv: fields present only at the root.
    fn root_dependent(
        &mut self,
        f: usize,
        _mask: u8,
        v: &mut Vec<Val>,
    ) -> Result<(), ProgramError> {
        let int =
            |s: &mut Self| -> Result<Val, ProgramError> { Ok(Val::I(s.u32()? as i32 as i64)) };
        let short = |s: &mut Self| -> Result<Val, ProgramError> { Ok(Val::I(s.u16()? as i64)) };
        match f {
            54 | 56 => {
                // commrank, count, type, root, comm, [count, type]
                v.push(int(self)?);
                v.push(int(self)?);
                v.push(short(self)?);
                v.push(int(self)?);
                v.push(short(self)?);
                if v[0].i() == v[3].i() {
                    v.push(int(self)?);
                    v.push(short(self)?);
                }
            }
            55 => {
                // commrank, commsize, sendcount, sendtype, root, comm,
                // [recvcounts, displs], recvtype
                for k in 0..6 {
                    v.push(if k == 3 || k == 5 {
                        short(self)?
                    } else {
                        int(self)?
                    });
                }
                if v[0].i() == v[4].i() {
                    v.push(Val::A(self.int_array()?));
                    v.push(Val::A(self.int_array()?));
                } else {
                    v.push(Val::Skip);
                    v.push(Val::Skip);
                }
                v.push(short(self)?);
            }
            57 => {
                // commrank, commsize, sendtype, recvcount, recvtype, root,
                // comm, [sendcounts, displs]
                for k in 0..7 {
                    v.push(if k == 2 || k == 4 || k == 6 {
                        short(self)?
                    } else {
                        int(self)?
                    });
                }
                if v[0].i() == v[5].i() {
                    v.push(Val::A(self.int_array()?));
                    v.push(Val::A(self.int_array()?));
                }
            }
            _ => unreachable!(),
        }
        Ok(())
    }

    fn dt(&self, d: i64) -> Result<u64, ProgramError> {
        let d16 = d as u16;
        if let Some(&s) = self.sizes.get(d16 as usize) {
            return Ok(s);
        }
        self.user_sizes.get(&d16).copied().ok_or_else(|| {
            self.err(format!(
                "datatype {d} has no known size (a derived type this reader cannot size)"
            ))
        })
    }

    fn bytes_of(&self, count: i64, d: i64) -> Result<u64, ProgramError> {
        if count < 0 {
            return Err(self.err(format!("negative count {count}")));
        }
        Ok(count as u64 * self.dt(d)?)
    }

    fn counts_of(&self, counts: &[i64], d: i64) -> Result<Vec<u64>, ProgramError> {
        counts.iter().map(|&c| self.bytes_of(c, d)).collect()
    }

    /// `Some(comm)`, or `None` for `MPI_COMM_SELF`.
    fn comm(&self, c: i64) -> Result<Option<CommId>, ProgramError> {
        match c as u16 {
            COMM_WORLD => Ok(Some(CommId::WORLD)),
            COMM_SELF => Ok(None),
            x if x >= FIRST_USER_COMM => Ok(Some(CommId(x as u32))),
            x => Err(self.err(format!("invalid communicator {x}"))),
        }
    }

    fn p2p_comm(&self, c: i64) -> Result<CommId, ProgramError> {
        self.comm(c)?
            .ok_or_else(|| self.err("point-to-point on MPI_COMM_SELF is not supported"))
    }

    fn peer(&self, r: i64, comm: CommId) -> Result<Option<Rank>, ProgramError> {
        if r < 0 {
            return Ok(None); // MPI_PROC_NULL and friends: no communication
        }
        if comm == CommId::WORLD && r >= self.num_ranks as i64 {
            return Err(self.err(format!(
                "rank {r} does not exist (the trace has {} ranks)",
                self.num_ranks
            )));
        }
        Ok(Some(r as Rank))
    }

    fn source(&self, r: i64, comm: CommId) -> Result<Option<Source>, ProgramError> {
        if r == ANY as i64 {
            return Ok(Some(Source::Any));
        }
        Ok(self.peer(r, comm)?.map(Source::Rank))
    }

    fn root(&self, r: i64, comm: CommId) -> Result<Rank, ProgramError> {
        self.peer(r, comm)?
            .ok_or_else(|| self.err(format!("invalid root {r}")))
    }

    /// The operations of one record.
    fn map(&mut self, f: usize, v: &[Val], out: &mut Vec<Op>) -> Result<(), ProgramError> {
        let name = function_name(f);
        let tag_sel = |t: i64| {
            if t == ANY as i64 {
                TagSel::Any
            } else {
                TagSel::Tag(t as i32)
            }
        };
        let req = |r: i64| ReqId(r as u32 as u64);
        let live = |rs: &[i64]| -> Vec<ReqId> {
            rs.iter()
                .filter(|&&r| r as u32 != REQUEST_NULL && r != 0)
                .map(|&r| req(r))
                .collect()
        };
        match name {
            "MPI_Send" | "MPI_Bsend" | "MPI_Ssend" | "MPI_Rsend" => {
                let comm = self.p2p_comm(v[4].i())?;
                if let Some(dst) = self.peer(v[2].i(), comm)? {
                    let bytes = self.bytes_of(v[0].i(), v[1].i())?;
                    out.push(Op::Send {
                        dst,
                        tag: v[3].i() as i32,
                        bytes,
                        comm,
                    });
                }
            }
            "MPI_Isend" | "MPI_Ibsend" | "MPI_Issend" | "MPI_Irsend" | "MPI_Send_init"
            | "MPI_Bsend_init" | "MPI_Ssend_init" | "MPI_Rsend_init" => {
                let comm = self.p2p_comm(v[4].i())?;
                if let Some(dst) = self.peer(v[2].i(), comm)? {
                    let bytes = self.bytes_of(v[0].i(), v[1].i())?;
                    let op = Op::Isend {
                        dst,
                        tag: v[3].i() as i32,
                        bytes,
                        comm,
                        req: req(v[5].i()),
                    };
                    if name.ends_with("_init") {
                        self.persistent.insert(v[5].i() as u32, op);
                    } else {
                        out.push(op);
                    }
                }
            }
            "MPI_Recv" | "MPI_Irecv" | "MPI_Recv_init" => {
                let comm = self.p2p_comm(v[4].i())?;
                if let Some(src) = self.source(v[2].i(), comm)? {
                    let bytes = self.bytes_of(v[0].i(), v[1].i())?;
                    let tag = tag_sel(v[3].i());
                    match name {
                        "MPI_Recv" => out.push(Op::Recv {
                            src,
                            tag,
                            bytes,
                            comm,
                        }),
                        _ => {
                            let op = Op::Irecv {
                                src,
                                tag,
                                bytes,
                                comm,
                                req: req(v[5].i()),
                            };
                            if name == "MPI_Irecv" {
                                out.push(op);
                            } else {
                                self.persistent.insert(v[5].i() as u32, op);
                            }
                        }
                    }
                }
            }
            "MPI_Start" => {
                if let Some(op) = self.persistent.get(&(v[0].i() as u32)) {
                    out.push(op.clone());
                }
            }
            "MPI_Startall" => {
                for r in v[1].a() {
                    if let Some(op) = self.persistent.get(&(*r as u32)) {
                        out.push(op.clone());
                    }
                }
            }
            "MPI_Request_free" => {
                self.persistent.remove(&(v[0].i() as u32));
            }
            "MPI_Sendrecv" | "MPI_Sendrecv_replace" => {
                let replace = name == "MPI_Sendrecv_replace";
                let (sc, st, dst, stag) = (v[0].i(), v[1].i(), v[2].i(), v[3].i());
                let (rc, rt, src, rtag, c) = if replace {
                    (sc, st, v[4].i(), v[5].i(), v[6].i())
                } else {
                    (v[4].i(), v[5].i(), v[6].i(), v[7].i(), v[8].i())
                };
                let comm = self.p2p_comm(c)?;
                let dst = self.peer(dst, comm)?;
                let src = self.source(src, comm)?;
                let send_bytes = self.bytes_of(sc, st)?;
                let recv_bytes = self.bytes_of(rc, rt)?;
                match (dst, src) {
                    (Some(dst), Some(src)) => out.push(Op::Sendrecv {
                        dst,
                        send_tag: stag as i32,
                        send_bytes,
                        src,
                        recv_tag: tag_sel(rtag),
                        recv_bytes,
                        comm,
                    }),
                    (Some(dst), None) => out.push(Op::Send {
                        dst,
                        tag: stag as i32,
                        bytes: send_bytes,
                        comm,
                    }),
                    (None, Some(src)) => out.push(Op::Recv {
                        src,
                        tag: tag_sel(rtag),
                        bytes: recv_bytes,
                        comm,
                    }),
                    (None, None) => {}
                }
            }
            "MPI_Wait" => {
                if let Some(&r) = live(&[v[0].i()]).first() {
                    out.push(Op::Wait { req: r });
                }
            }
            "MPI_Test" => {
                if let Some(&r) = live(&[v[0].i()]).first() {
                    out.push(Op::Test { req: r });
                }
            }
            "MPI_Waitall" => {
                let reqs = live(v[1].a());
                if !reqs.is_empty() {
                    out.push(Op::Waitall { reqs });
                }
            }
            "MPI_Waitany" | "MPI_Testany" => {
                let (reqs, index) = (v[1].a(), v[2].i());
                let flag = name == "MPI_Waitany" || v[3].i() != 0;
                if flag && index >= 0 && (index as usize) < reqs.len() {
                    if let Some(&r) = live(&reqs[index as usize..=index as usize]).first() {
                        out.push(if name == "MPI_Waitany" {
                            Op::Wait { req: r }
                        } else {
                            Op::Test { req: r }
                        });
                    }
                }
            }
            "MPI_Waitsome" | "MPI_Testsome" => {
                let reqs = v[1].a();
                let done: Vec<i64> = v[3]
                    .a()
                    .iter()
                    .filter(|&&i| i >= 0 && (i as usize) < reqs.len())
                    .map(|&i| reqs[i as usize])
                    .collect();
                let done = live(&done);
                if name == "MPI_Waitsome" {
                    if !done.is_empty() {
                        out.push(Op::Waitall { reqs: done });
                    }
                } else {
                    out.extend(done.into_iter().map(|req| Op::Test { req }));
                }
            }
            "MPI_Testall" if v[2].i() != 0 => {
                out.extend(live(v[1].a()).into_iter().map(|req| Op::Test { req }));
            }
            "MPI_Barrier" => {
                if let Some(comm) = self.comm(v[0].i())? {
                    out.push(Op::Barrier { comm });
                }
            }
            "MPI_Bcast" => {
                if let Some(comm) = self.comm(v[3].i())? {
                    let bytes = self.bytes_of(v[0].i(), v[1].i())?;
                    out.push(Op::Bcast {
                        root: self.root(v[2].i(), comm)?,
                        bytes,
                        comm,
                    });
                }
            }
            "MPI_Reduce" => {
                if let Some(comm) = self.comm(v[4].i())? {
                    let bytes = self.bytes_of(v[0].i(), v[1].i())?;
                    out.push(Op::Reduce {
                        root: self.root(v[3].i(), comm)?,
                        bytes,
                        comm,
                    });
                }
            }
            "MPI_Allreduce" | "MPI_Scan" | "MPI_Exscan" => {
                if let Some(comm) = self.comm(v[3].i())? {
                    let bytes = self.bytes_of(v[0].i(), v[1].i())?;
                    out.push(match name {
                        "MPI_Allreduce" => Op::Allreduce { bytes, comm },
                        _ => Op::Scan {
                            bytes,
                            comm,
                            exclusive: name == "MPI_Exscan",
                        },
                    });
                }
            }
            "MPI_Allgather" | "MPI_Alltoall" => {
                if let Some(comm) = self.comm(v[4].i())? {
                    let bytes = self.bytes_of(v[0].i(), v[1].i())?;
                    out.push(if name == "MPI_Allgather" {
                        Op::Allgather { bytes, comm }
                    } else {
                        Op::Alltoall { bytes, comm }
                    });
                }
            }
            "MPI_Allgatherv" => {
                if let Some(comm) = self.comm(v[6].i())? {
                    let counts = self.counts_of(v[3].a(), v[5].i())?;
                    out.push(Op::Allgatherv { counts, comm });
                }
            }
            "MPI_Alltoallv" => {
                if let Some(comm) = self.comm(v[7].i())? {
                    let send = self.counts_of(v[1].a(), v[3].i())?;
                    let recv = self.counts_of(v[4].a(), v[6].i())?;
                    out.push(Op::Alltoallv { send, recv, comm });
                }
            }
            "MPI_Alltoallw" => {
                if let Some(comm) = self.comm(v[7].i())? {
                    let per = |counts: &[i64], types: &[i64]| -> Result<Vec<u64>, ProgramError> {
                        counts
                            .iter()
                            .enumerate()
                            .map(|(i, &c)| self.bytes_of(c, types.get(i).copied().unwrap_or(0)))
                            .collect()
                    };
                    let send = per(v[1].a(), v[3].a())?;
                    let recv = per(v[4].a(), v[6].a())?;
                    out.push(Op::Alltoallv { send, recv, comm });
                }
            }
            "MPI_Reduce_scatter" => {
                if let Some(comm) = self.comm(v[4].i())? {
                    let counts = self.counts_of(v[1].a(), v[2].i())?;
                    out.push(Op::ReduceScatter { counts, comm });
                }
            }
            "MPI_Gather" | "MPI_Scatter" => {
                if let Some(comm) = self.comm(v[4].i())? {
                    let root = self.root(v[3].i(), comm)?;
                    let bytes = self.bytes_of(v[1].i(), v[2].i())?;
                    out.push(if name == "MPI_Gather" {
                        Op::Gather { root, bytes, comm }
                    } else {
                        Op::Scatter { root, bytes, comm }
                    });
                }
            }
            "MPI_Gatherv" => {
                if let Some(comm) = self.comm(v[5].i())? {
                    let (me, n, root) = (
                        v[0].i(),
                        v[1].i().max(0) as usize,
                        self.root(v[4].i(), comm)?,
                    );
                    let counts = if me == root as i64 {
                        self.counts_of(v[6].a(), v[8].i())?
                    } else {
                        let mut c = vec![0; n];
                        if let Some(x) = c.get_mut(me as usize) {
                            *x = self.bytes_of(v[2].i(), v[3].i())?;
                        }
                        c
                    };
                    out.push(Op::Gatherv { root, counts, comm });
                }
            }
            "MPI_Scatterv" => {
                if let Some(comm) = self.comm(v[6].i())? {
                    let (me, n, root) = (
                        v[0].i(),
                        v[1].i().max(0) as usize,
                        self.root(v[5].i(), comm)?,
                    );
                    let counts = if me == root as i64 {
                        self.counts_of(v[7].a(), v[2].i())?
                    } else {
                        let mut c = vec![0; n];
                        if let Some(x) = c.get_mut(me as usize) {
                            *x = self.bytes_of(v[3].i(), v[4].i())?;
                        }
                        c
                    };
                    out.push(Op::Scatterv { root, counts, comm });
                }
            }
            "MPI_Comm_dup" => {
                if let (Some(comm), Some(new)) = (self.comm(v[0].i())?, self.comm(v[1].i())?) {
                    out.push(Op::CommDup { comm, new });
                }
            }
            "MPI_Comm_split" => {
                if let Some(comm) = self.comm(v[0].i())? {
                    let (color, key) = (v[1].i() as i32, v[2].i() as i32);
                    // With MPI_UNDEFINED the new communicator is MPI_COMM_NULL.
                    let new = match v[3].i() as u16 {
                        x if x >= FIRST_USER_COMM || x == COMM_WORLD => CommId(x as u32),
                        _ => CommId(u32::MAX),
                    };
                    let color = if new == CommId(u32::MAX) {
                        color.min(-1)
                    } else {
                        color
                    };
                    out.push(Op::CommSplit {
                        comm,
                        color,
                        key,
                        new,
                    });
                }
            }
            "MPI_Comm_create" => {
                return Err(self.err("MPI_Comm_create has no operation in netsim's vocabulary (groups are not modelled)"));
            }
            // Derived datatypes: remember their sizes.
            "MPI_Type_contiguous" => {
                let size = self.dt(v[1].i()).map(|d| v[0].i().max(0) as u64 * d);
                self.derive(v[2].i(), size);
            }
            "MPI_Type_vector" | "MPI_Type_hvector" | "MPI_Type_create_hvector" => {
                let size = self
                    .dt(v[3].i())
                    .map(|d| (v[0].i() * v[1].i()).max(0) as u64 * d);
                self.derive(v[4].i(), size);
            }
            "MPI_Type_indexed" | "MPI_Type_hindexed" | "MPI_Type_create_hindexed" => {
                let n: u64 = v[1].a().iter().map(|&l| l.max(0) as u64).sum();
                let size = self.dt(v[3].i()).map(|d| n * d);
                self.derive(v[4].i(), size);
            }
            "MPI_Type_create_indexed_block" => {
                let n = (v[0].i() * v[1].i()).max(0) as u64;
                let size = self.dt(v[3].i()).map(|d| n * d);
                self.derive(v[4].i(), size);
            }
            "MPI_Type_create_resized" => {
                let size = self.dt(v[0].i());
                self.derive(v[3].i(), size);
            }
            "MPI_Type_create_subarray" => {
                let n: u64 = v[2].a().iter().map(|&l| l.max(0) as u64).product();
                let size = self.dt(v[5].i()).map(|d| n * d);
                self.derive(v[6].i(), size);
            }
            "MPI_Type_struct" | "MPI_Type_create_struct" => {
                let size = v[1]
                    .a()
                    .iter()
                    .enumerate()
                    .map(|(i, &l)| {
                        Ok(l.max(0) as u64 * self.dt(v[3].a().get(i).copied().unwrap_or(0))?)
                    })
                    .sum::<Result<u64, ProgramError>>();
                self.derive(v[4].i(), size);
            }
            "MPI_Type_dup" => {
                let size = self.dt(v[0].i());
                self.derive(v[1].i(), size);
            }
            _ => {}
        }
        Ok(())
    }

    /// Records the size of derived datatype `new` if `size` can be computed.
    fn derive(&mut self, new: i64, size: Result<u64, ProgramError>) {
        if let Ok(s) = size {
            self.user_sizes.insert(new as u16, s);
        }
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
            let Some((f, times, vals)) = self.record()? else {
                self.done = true;
                continue;
            };
            let origin = Origin {
                source: self.source.clone(),
                line: self.rec_no,
            };
            if f < NUM_FUNCTIONS {
                self.decoded[f] += 1;
            }
            let mut ops = Vec::new();
            if f < NUM_FUNCTIONS {
                self.map(f, &vals, &mut ops)?;
            }
            // The gap since the previous call is computation.
            // Seconds are stored as 16 bits: a gap across a wrap (every 18.2 h
            // of trace) is lost rather than made huge.
            if let Some((start, stop)) = times {
                if let Some(prev) = self.last_stop_ns {
                    if start > prev {
                        let secs = (start - prev) as f64 * 1e-9 * self.config.compute_scale;
                        let d = Time::try_from_secs_f64(secs)
                            .ok_or_else(|| self.err("computation gap too long"))?;
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

/// MPI name and argument layout of every DUMPI function label (index =
/// label). Layout letters: `i` int (u32), `s` handle (u16: comm, datatype,
/// group, keyval, info, win, file, errhandler), `b` u8 (op, comparison,
/// thread level, ...), `A`/`R` int or request array, `D` datatype array,
/// `S`/`T` status(es), `C` char array, `B` u8 array, `q` u64, `G` array of
/// int arrays, `I` Init's argv, `Y`/`Z` int array (one int in old
/// versions); `g` root-dependent (Gather family); `?` unknown layout.
/// Transcribed from the field order of sst-dumpi's `dumpiio.c`.
const FUNCTIONS: [(&str, &str); NUM_FUNCTIONS] = [
    ("MPI_Send", "isiis"),                      // 0
    ("MPI_Recv", "isiisS"),                     // 1
    ("MPI_Get_count", "Ssi"),                   // 2
    ("MPI_Bsend", "isiis"),                     // 3
    ("MPI_Ssend", "isiis"),                     // 4
    ("MPI_Rsend", "isiis"),                     // 5
    ("MPI_Buffer_attach", "i"),                 // 6
    ("MPI_Buffer_detach", "i"),                 // 7
    ("MPI_Isend", "isiisi"),                    // 8
    ("MPI_Ibsend", "isiisi"),                   // 9
    ("MPI_Issend", "isiisi"),                   // 10
    ("MPI_Irsend", "isiisi"),                   // 11
    ("MPI_Irecv", "isiisi"),                    // 12
    ("MPI_Wait", "iS"),                         // 13
    ("MPI_Test", "iiS"),                        // 14
    ("MPI_Request_free", "i"),                  // 15
    ("MPI_Waitany", "iRiS"),                    // 16
    ("MPI_Testany", "iRiiS"),                   // 17
    ("MPI_Waitall", "iRT"),                     // 18
    ("MPI_Testall", "iRiT"),                    // 19
    ("MPI_Waitsome", "iRiAT"),                  // 20
    ("MPI_Testsome", "iRiAT"),                  // 21
    ("MPI_Iprobe", "iisiS"),                    // 22
    ("MPI_Probe", "iisS"),                      // 23
    ("MPI_Cancel", "i"),                        // 24
    ("MPI_Test_cancelled", "Si"),               // 25
    ("MPI_Send_init", "isiisi"),                // 26
    ("MPI_Bsend_init", "isiisi"),               // 27
    ("MPI_Ssend_init", "isiisi"),               // 28
    ("MPI_Rsend_init", "isiisi"),               // 29
    ("MPI_Recv_init", "isiisi"),                // 30
    ("MPI_Start", "i"),                         // 31
    ("MPI_Startall", "iR"),                     // 32
    ("MPI_Sendrecv", "isiiisiisS"),             // 33
    ("MPI_Sendrecv_replace", "isiiiisS"),       // 34
    ("MPI_Type_contiguous", "iss"),             // 35
    ("MPI_Type_vector", "iiiss"),               // 36
    ("MPI_Type_hvector", "iiiss"),              // 37
    ("MPI_Type_indexed", "iAAss"),              // 38
    ("MPI_Type_hindexed", "iAAss"),             // 39
    ("MPI_Type_struct", "iAYDs"),               // 40
    ("MPI_Address", "i"),                       // 41
    ("MPI_Type_extent", "si"),                  // 42
    ("MPI_Type_size", "si"),                    // 43
    ("MPI_Type_lb", "si"),                      // 44
    ("MPI_Type_ub", "si"),                      // 45
    ("MPI_Type_commit", "s"),                   // 46
    ("MPI_Type_free", "s"),                     // 47
    ("MPI_Get_elements", "Ssi"),                // 48
    ("MPI_Pack", "isiiis"),                     // 49
    ("MPI_Unpack", "iiiiss"),                   // 50
    ("MPI_Pack_size", "issi"),                  // 51
    ("MPI_Barrier", "s"),                       // 52
    ("MPI_Bcast", "isis"),                      // 53
    ("MPI_Gather", "g"),                        // 54
    ("MPI_Gatherv", "g"),                       // 55
    ("MPI_Scatter", "g"),                       // 56
    ("MPI_Scatterv", "g"),                      // 57
    ("MPI_Allgather", "isiss"),                 // 58
    ("MPI_Allgatherv", "iisAAss"),              // 59
    ("MPI_Alltoall", "isiss"),                  // 60
    ("MPI_Alltoallv", "iAAsAAss"),              // 61
    ("MPI_Reduce", "isbis"),                    // 62
    ("MPI_Op_create", "ib"),                    // 63
    ("MPI_Op_free", "b"),                       // 64
    ("MPI_Allreduce", "isbs"),                  // 65
    ("MPI_Reduce_scatter", "iAsbs"),            // 66
    ("MPI_Scan", "isbs"),                       // 67
    ("MPI_Group_size", "si"),                   // 68
    ("MPI_Group_rank", "si"),                   // 69
    ("MPI_Group_translate_ranks", "siAsA"),     // 70
    ("MPI_Group_compare", "ssb"),               // 71
    ("MPI_Comm_group", "ss"),                   // 72
    ("MPI_Group_union", "sss"),                 // 73
    ("MPI_Group_intersection", "sss"),          // 74
    ("MPI_Group_difference", "sss"),            // 75
    ("MPI_Group_incl", "siAs"),                 // 76
    ("MPI_Group_excl", "siAs"),                 // 77
    ("MPI_Group_range_incl", "siGs"),           // 78
    ("MPI_Group_range_excl", "siGs"),           // 79
    ("MPI_Group_free", "s"),                    // 80
    ("MPI_Comm_size", "si"),                    // 81
    ("MPI_Comm_rank", "si"),                    // 82
    ("MPI_Comm_compare", "ssb"),                // 83
    ("MPI_Comm_dup", "ss"),                     // 84
    ("MPI_Comm_create", "sss"),                 // 85
    ("MPI_Comm_split", "siis"),                 // 86
    ("MPI_Comm_free", "s"),                     // 87
    ("MPI_Comm_test_inter", "si"),              // 88
    ("MPI_Comm_remote_size", "si"),             // 89
    ("MPI_Comm_remote_group", "ss"),            // 90
    ("MPI_Intercomm_create", "sisiis"),         // 91
    ("MPI_Intercomm_merge", "sis"),             // 92
    ("MPI_Keyval_create", "s"),                 // 93
    ("MPI_Keyval_free", "s"),                   // 94
    ("MPI_Attr_put", "si"),                     // 95
    ("MPI_Attr_get", "sii"),                    // 96
    ("MPI_Attr_delete", "si"),                  // 97
    ("MPI_Topo_test", "sb"),                    // 98
    ("MPI_Cart_create", "siAAis"),              // 99
    ("MPI_Dims_create", "iiAA"),                // 100
    ("MPI_Graph_create", "isiAAis"),            // 101
    ("MPI_Graphdims_get", "sii"),               // 102
    ("MPI_Graph_get", "iisiiAA"),               // 103
    ("MPI_Cartdim_get", "si"),                  // 104
    ("MPI_Cart_get", "isiAAZ"),                 // 105
    ("MPI_Cart_rank", "isAi"),                  // 106
    ("MPI_Cart_coords", "isiiA"),               // 107
    ("MPI_Graph_neighbors_count", "sii"),       // 108
    ("MPI_Graph_neighbors", "isiiA"),           // 109
    ("MPI_Cart_shift", "siiii"),                // 110
    ("MPI_Cart_sub", "isAs"),                   // 111
    ("MPI_Cart_map", "siAAi"),                  // 112
    ("MPI_Graph_map", "isiAAi"),                // 113
    ("MPI_Get_processor_name", "Ci"),           // 114
    ("MPI_Get_version", "ii"),                  // 115
    ("MPI_Errhandler_create", "s"),             // 116
    ("MPI_Errhandler_set", "ss"),               // 117
    ("MPI_Errhandler_get", "ss"),               // 118
    ("MPI_Errhandler_free", "s"),               // 119
    ("MPI_Error_string", "iCi"),                // 120
    ("MPI_Error_class", "ii"),                  // 121
    ("MPI_Wtime", ""),                          // 122
    ("MPI_Wtick", ""),                          // 123
    ("MPI_Init", "I"),                          // 124
    ("MPI_Finalize", ""),                       // 125
    ("MPI_Initialized", "i"),                   // 126
    ("MPI_Abort", "si"),                        // 127
    ("MPI_Pcontrol", "?"),                      // 128
    ("MPI_Close_port", "C"),                    // 129
    ("MPI_Comm_accept", "Csiss"),               // 130
    ("MPI_Comm_connect", "Csiss"),              // 131
    ("MPI_Comm_disconnect", "s"),               // 132
    ("MPI_Comm_get_parent", "s"),               // 133
    ("MPI_Comm_join", "is"),                    // 134
    ("MPI_Comm_spawn", "?"),                    // 135
    ("MPI_Comm_spawn_multiple", "?"),           // 136
    ("MPI_Lookup_name", "CsC"),                 // 137
    ("MPI_Open_port", "sC"),                    // 138
    ("MPI_Publish_name", "CsC"),                // 139
    ("MPI_Unpublish_name", "CsC"),              // 140
    ("MPI_Accumulate", "isiiisbs"),             // 141
    ("MPI_Get", "isiiiss"),                     // 142
    ("MPI_Put", "isiiiss"),                     // 143
    ("MPI_Win_complete", "s"),                  // 144
    ("MPI_Win_create", "iisss"),                // 145
    ("MPI_Win_fence", "bs"),                    // 146
    ("MPI_Win_free", "s"),                      // 147
    ("MPI_Win_get_group", "ss"),                // 148
    ("MPI_Win_lock", "?"),                      // 149
    ("MPI_Win_post", "?"),                      // 150
    ("MPI_Win_start", "sbs"),                   // 151
    ("MPI_Win_test", "si"),                     // 152
    ("MPI_Win_unlock", "is"),                   // 153
    ("MPI_Win_wait", "s"),                      // 154
    ("MPI_Alltoallw", "iAADAADs"),              // 155
    ("MPI_Exscan", "isbs"),                     // 156
    ("MPI_Add_error_class", "i"),               // 157
    ("MPI_Add_error_code", "ii"),               // 158
    ("MPI_Add_error_string", "iC"),             // 159
    ("MPI_Comm_call_errhandler", "si"),         // 160
    ("MPI_Comm_create_keyval", "s"),            // 161
    ("MPI_Comm_delete_attr", "ss"),             // 162
    ("MPI_Comm_free_keyval", "s"),              // 163
    ("MPI_Comm_get_attr", "ssi"),               // 164
    ("MPI_Comm_get_name", "sCi"),               // 165
    ("MPI_Comm_set_attr", "ss"),                // 166
    ("MPI_Comm_set_name", "sC"),                // 167
    ("MPI_File_call_errhandler", "si"),         // 168
    ("MPI_Grequest_complete", "i"),             // 169
    ("MPI_Grequest_start", "i"),                // 170
    ("MPI_Init_thread", "Ibb"),                 // 171
    ("MPI_Is_thread_main", "i"),                // 172
    ("MPI_Query_thread", "b"),                  // 173
    ("MPI_Status_set_cancelled", "Si"),         // 174
    ("MPI_Status_set_elements", "Ssi"),         // 175
    ("MPI_Type_create_keyval", "s"),            // 176
    ("MPI_Type_delete_attr", "ss"),             // 177
    ("MPI_Type_dup", "ss"),                     // 178
    ("MPI_Type_free_keyval", "s"),              // 179
    ("MPI_Type_get_attr", "ssi"),               // 180
    ("MPI_Type_get_contents", "iiisiiiAAD"),    // 181
    ("MPI_Type_get_envelope", "siiib"),         // 182
    ("MPI_Type_get_name", "sCi"),               // 183
    ("MPI_Type_set_attr", "ss"),                // 184
    ("MPI_Type_set_name", "sC"),                // 185
    ("MPI_Type_match_size", "bis"),             // 186
    ("MPI_Win_call_errhandler", "si"),          // 187
    ("MPI_Win_create_keyval", "s"),             // 188
    ("MPI_Win_delete_attr", "ss"),              // 189
    ("MPI_Win_free_keyval", "s"),               // 190
    ("MPI_Win_get_attr", "ssi"),                // 191
    ("MPI_Win_get_name", "sCi"),                // 192
    ("MPI_Win_set_attr", "ss"),                 // 193
    ("MPI_Win_set_name", "sC"),                 // 194
    ("MPI_Alloc_mem", "is"),                    // 195
    ("MPI_Comm_create_errhandler", "s"),        // 196
    ("MPI_Comm_get_errhandler", "ss"),          // 197
    ("MPI_Comm_set_errhandler", "ss"),          // 198
    ("MPI_File_create_errhandler", "s"),        // 199
    ("MPI_File_get_errhandler", "ss"),          // 200
    ("MPI_File_set_errhandler", "ss"),          // 201
    ("MPI_Finalized", "i"),                     // 202
    ("MPI_Free_mem", ""),                       // 203
    ("MPI_Get_address", "i"),                   // 204
    ("MPI_Info_create", "s"),                   // 205
    ("MPI_Info_delete", "sC"),                  // 206
    ("MPI_Info_dup", "ss"),                     // 207
    ("MPI_Info_free", "s"),                     // 208
    ("MPI_Info_get", "sCiCi"),                  // 209
    ("MPI_Info_get_nkeys", "si"),               // 210
    ("MPI_Info_get_nthkey", "siC"),             // 211
    ("MPI_Info_get_valuelen", "sCii"),          // 212
    ("MPI_Info_set", "sCC"),                    // 213
    ("MPI_Pack_external", "Cisiii"),            // 214
    ("MPI_Pack_external_size", "Cisi"),         // 215
    ("MPI_Request_get_status", "iiS"),          // 216
    ("MPI_Type_create_darray", "iiiABAAbss"),   // 217
    ("MPI_Type_create_hindexed", "iAAss"),      // 218
    ("MPI_Type_create_hvector", "iiiss"),       // 219
    ("MPI_Type_create_indexed_block", "iiAss"), // 220
    ("MPI_Type_create_resized", "siis"),        // 221
    ("MPI_Type_create_struct", "iAADs"),        // 222
    ("MPI_Type_create_subarray", "iAAAbss"),    // 223
    ("MPI_Type_get_extent", "sii"),             // 224
    ("MPI_Type_get_true_extent", "sii"),        // 225
    ("MPI_Unpack_external", "Ciiiis"),          // 226
    ("MPI_Win_create_errhandler", "s"),         // 227
    ("MPI_Win_get_errhandler", "ss"),           // 228
    ("MPI_Win_set_errhandler", "ss"),           // 229
    ("MPI_File_open", "sCbss"),                 // 230
    ("MPI_File_close", "s"),                    // 231
    ("MPI_File_delete", "Cs"),                  // 232
    ("MPI_File_set_size", "sq"),                // 233
    ("MPI_File_preallocate", "sq"),             // 234
    ("MPI_File_get_size", "sq"),                // 235
    ("MPI_File_get_group", "ss"),               // 236
    ("MPI_File_get_amode", "sb"),               // 237
    ("MPI_File_set_info", "ss"),                // 238
    ("MPI_File_get_info", "ss"),                // 239
    ("MPI_File_set_view", "sqssCs"),            // 240
    ("MPI_File_get_view", "sqssC"),             // 241
    ("MPI_File_read_at", "sqisS"),              // 242
    ("MPI_File_read_at_all", "?"),              // 243
    ("MPI_File_write_at", "?"),                 // 244
    ("MPI_File_write_at_all", "?"),             // 245
    ("MPI_File_iread_at", "?"),                 // 246
    ("MPI_File_iwrite_at", "?"),                // 247
    ("MPI_File_read", "?"),                     // 248
    ("MPI_File_read_all", "?"),                 // 249
    ("MPI_File_write", "?"),                    // 250
    ("MPI_File_write_all", "?"),                // 251
    ("MPI_File_iread", "?"),                    // 252
    ("MPI_File_iwrite", "?"),                   // 253
    ("MPI_File_seek", "?"),                     // 254
    ("MPI_File_get_position", "?"),             // 255
    ("MPI_File_get_byte_offset", "?"),          // 256
    ("MPI_File_read_shared", "?"),              // 257
    ("MPI_File_write_shared", "?"),             // 258
    ("MPI_File_iread_shared", "?"),             // 259
    ("MPI_File_iwrite_shared", "?"),            // 260
    ("MPI_File_read_ordered", "?"),             // 261
    ("MPI_File_write_ordered", "?"),            // 262
    ("MPI_File_seek_shared", "?"),              // 263
    ("MPI_File_get_position_shared", "?"),      // 264
    ("MPI_File_read_at_all_begin", "?"),        // 265
    ("MPI_File_read_at_all_end", "?"),          // 266
    ("MPI_File_write_at_all_begin", "?"),       // 267
    ("MPI_File_write_at_all_end", "?"),         // 268
    ("MPI_File_read_all_begin", "?"),           // 269
    ("MPI_File_read_all_end", "?"),             // 270
    ("MPI_File_write_all_begin", "?"),          // 271
    ("MPI_File_write_all_end", "?"),            // 272
    ("MPI_File_read_ordered_begin", "?"),       // 273
    ("MPI_File_read_ordered_end", "?"),         // 274
    ("MPI_File_write_ordered_begin", "?"),      // 275
    ("MPI_File_write_ordered_end", "?"),        // 276
    ("MPI_File_get_type_extent", "?"),          // 277
    ("MPI_Register_datarep", "?"),              // 278
    ("MPI_File_set_atomicity", "?"),            // 279
    ("MPI_File_get_atomicity", "?"),            // 280
    ("MPI_File_sync", "?"),                     // 281
    ("MPIO_Test", "?"),                         // 282
    ("MPIO_Wait", "?"),                         // 283
    ("MPIO_Testall", "?"),                      // 284
    ("MPIO_Waitall", "?"),                      // 285
    ("MPIO_Testany", "?"),                      // 286
    ("MPIO_Waitany", "?"),                      // 287
    ("MPIO_Waitsome", "?"),                     // 288
    ("MPIO_Testsome", "?"),                     // 289
];

#[cfg(test)]
mod tests {
    use super::*;

    fn label(name: &str) -> u16 {
        (0..NUM_FUNCTIONS)
            .find(|&f| function_name(f) == name)
            .expect(name) as u16
    }

    /// A minimal writer of the layout described in the module docs, for
    /// records this crate's test trace does not contain.
    struct Writer {
        body: Vec<u8>,
        clock_us: u64,
    }

    impl Writer {
        fn new() -> Writer {
            let mut body = HEAD_MAGIC.to_be_bytes().to_vec();
            body.extend([0u8; 8]); // preamble
            Writer { body, clock_us: 0 }
        }
        fn rec(&mut self, name: &str, gap_us: u64, args: &[Arg]) {
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
                }
            }
        }
        fn finish(mut self) -> Vec<u8> {
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
    enum Arg {
        I(i32),
        S(u16),
        B(u8),
        A(Vec<i32>),
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
                Op::Allreduce {
                    bytes: 32,
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
