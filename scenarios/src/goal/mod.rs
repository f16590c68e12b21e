//! GOAL schedules (LogGOPSim, Schedgen) in their text form, run as the
//! dependency graphs they are.
//!
//! ```text
//! num_ranks 2
//! rank 0 {
//!   l1: calc 100
//!   l2: send 8b to 1 tag 0
//!   l2 requires l1
//! }
//! rank 1 {
//!   l1: recv 8b from 0 tag 0
//!   l2: calc 50 cpu 1
//!   l2 requires l1
//! }
//! ```
//!
//! The grammar is that of LogGOPSim's converter `txt2bin` (`goal/lex.rs` says
//! exactly what it accepts): `num_ranks N` before the first block; one
//! `rank R { ... }` block per rank; inside, one item per line: an
//! operation with an optional label `l:`, `send <n>b to <r> [tag <t>] [cpu
//! <c>] [nic <k>]`, `recv <n>b from <r>|-1 [tag <t>|-1] [cpu <c>] [nic
//! <k>]` (`-1`: any source, any tag; tags are 0 to 2^32 - 2, and 2^32 - 1
//! is `-1`), `calc <n> [cpu <c>]`; or a dependency `a requires b` (a
//! starts after b completes) or `a irequires b` (a starts after b
//! starts), naming labels defined above it in the block. A label defined
//! twice in a block is an error (`txt2bin` silently keeps the first).
//! Comments are `// ...` and `/* ... */`.
//!
//! # Execution: a graph, as LogGOPSim runs it
//! Each rank's stream is a graph program ([`mpi_layer::OpStream::is_graph`]): the MPI
//! layer runs every operation whose dependencies are met at once,
//! nonblocking (`send` as `Isend`, `recv` as `Irecv`, `calc n` as
//! `Compute` of `n` x [`GoalConfig::calc_unit`]), on the rank's CPU `cpu`
//! and network interface `nic` (independent servers: two `calc 1000` on
//! `cpu 0` and `cpu 1` take 1000 units, on one CPU 2000), and reports back
//! when each starts and completes, which makes more ready. Independent
//! chains run concurrently. Among operations that become ready together,
//! sends are handed out before receives before computations, in file
//! order within each kind (LogGOPSim sorts its newly free operations by
//! type). A message is handled at the receiver on the CPU and interface
//! of the sender's indices, as in LogGOPSim.
//!
//! # Streaming
//! [`GoalSchedule::open`] reads the text once: it checks every line (an
//! error names `file:line`), resolves the labels and writes each item as
//! a compact record to an unlinked temporary file, with per rank block
//! its *look-ahead* `D` (the largest distance, in items, from an
//! operation to the last dependency line naming it) and its last root. A
//! rank's stream reads its records as it advances, and hands an
//! operation out only when its dependencies are met and the block has
//! been read `D` items past it, so no later line can still add one.
//! Memory per rank is the live window (under 100 bytes idle). A
//! dependency cycle is reported at the first operation that never ran.
//! [`GoalSchedule::compile`] (`netsim compile`) keeps the records in a
//! file ([`COMPILED_MAGIC`]) that `open` runs without the text, as
//! LogGOPSim's `txt2bin` does; a damaged file is an error naming the
//! byte. How the reading is budgeted and what it costs:
//! `docs/perf/2026-11-26-goal-streaming-notes.md`.

mod compiled;
mod lex;
mod scan;
mod stream;

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use mpi_layer::{ProgramError, Rank};
use rustc_hash::FxHashMap;
use sim_core::limits;
use sim_core::time::Time;

use crate::reader::{BoxedStream, TraceReader};
use crate::text::{error_at, file_error, open, path_name};
pub use compiled::{MAGIC as COMPILED_MAGIC, VERSION as COMPILED_VERSION};
use lex::{ANY, Kind, OpSpec};
pub use stream::GoalStream;
mod error;
pub use error::GoalError;

/// Parameters of GOAL replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalConfig {
    /// Duration of one unit of `calc` (default 1 ns: LogGOPSim counts all
    /// times, `L`, `o`, `g` and `calc` amounts alike, in nanoseconds).
    pub calc_unit: Time,
}

impl Default for GoalConfig {
    fn default() -> Self {
        GoalConfig {
            calc_unit: Time::from_ns(1),
        }
    }
}

/// Bytes the scan reads at once.
const SCAN_CHUNK: usize = 1 << 20;

/// Reads into `buf` (retrying on interruption); 0 at the end of the file.
fn read_some(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// No item (no root in a block).
const NONE: u32 = u32::MAX;

/// Where a rank's block is and how far its stream reads ahead.
#[derive(Clone, Copy, Debug)]
struct Block {
    /// Byte offset of the line after `rank R {`.
    offset: u64,
    /// Byte offset after the block's `}` line.
    end: u64,
    /// That `rank R {` line's number.
    line: u64,
    /// `D`: the largest distance in items from an operation's definition
    /// to a dependency line naming it.
    lookahead: u32,
    /// The item of the last operation that depends on nothing, or `NONE`.
    last_root: u32,
}

/// What every stream of a schedule shares.
struct Shared {
    /// The compiled records (see [`compiled`]).
    file: File,
    /// The text's name: operations' origins and errors in their lines.
    source: Arc<str>,
    /// The compiled file's name, for a damaged record.
    data: Arc<str>,
    num_ranks: u32,
    calc_unit: Time,
    /// Bytes a stream keeps read ahead between reads, at most.
    keep: usize,
    /// The records were written by this run's scan, which checked every
    /// operation against `num_ranks` and `calc_unit` (a compiled file's
    /// are checked as the streams read them).
    checked: bool,
    /// What streams that keep nothing read through (see `stream::Window`).
    window: std::cell::RefCell<stream::Window>,
}

/// A GOAL schedule file, indexed by rank block.
pub struct GoalSchedule {
    path: PathBuf,
    shared: Rc<Shared>,
    blocks: Vec<Option<Block>>,
}

impl std::fmt::Debug for GoalSchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoalSchedule")
            .field("path", &self.path)
            .field("num_ranks", &self.shared.num_ranks)
            .finish()
    }
}

/// A label of at most 16 bytes as (its bytes little-endian, its length).
/// Byte by byte: a `copy_from_slice` of a variable length is a call to
/// `memcpy`, which was 3 % of a Schedgen file's opening scan.
#[inline]
fn short_key(l: &[u8]) -> Option<(u128, u8)> {
    (l.len() <= 16).then(|| {
        let k = l.iter().rev().fold(0u128, |k, &b| (k << 8) | u128::from(b));
        (k, l.len() as u8)
    })
}

/// Schedgen's own labels, `l0` to `l9999` (no leading zero), as an index
/// into [`Labels::dense`]; `None` for any other label. The rule looks
/// at the label alone, so a label is always in one table.
#[inline]
fn dense_index(l: &[u8]) -> Option<usize> {
    match l {
        [b'l', b'0'] => Some(0),
        [b'l', first @ b'1'..=b'9', rest @ ..] if rest.len() <= 3 => {
            rest.iter().try_fold(usize::from(first - b'0'), |n, &c| {
                c.is_ascii_digit().then(|| n * 10 + usize::from(c - b'0'))
            })
        }
        _ => None,
    }
}

/// A label table keyed by the label's bytes. Schedgen's `l1`, `l2`, ...
/// index a vector (`dense_index`): a hash and a probe per label had been
/// 15 % of the opening scan of an all-to-all's text (P = 1024, two
/// lookups per dependency line, `perf record`); with the vector, `netsim
/// compile` of that text takes 0.14-0.15 s against 0.18-0.22 (two runs
/// each, the same compiled bytes) and a run from the text 0.94 of the
/// CPU (`farm-bench -n 9`, paired). Other labels of up to
/// 16 bytes are keyed inline, longer ones by a boxed copy.
struct Labels<V> {
    dense: Vec<Option<V>>,
    /// The indices of `dense` that hold a label (cleared one by one: a
    /// million small blocks must not each clear the whole vector).
    dense_set: Vec<u32>,
    short: FxHashMap<(u128, u8), V>,
    long: FxHashMap<Box<[u8]>, V>,
}

impl<V: Copy> Labels<V> {
    fn new() -> Self {
        Labels {
            dense: Vec::new(),
            dense_set: Vec::new(),
            short: FxHashMap::default(),
            long: FxHashMap::default(),
        }
    }
    /// The dense slot of label `i`, grown to it.
    fn slot(&mut self, i: usize) -> &mut Option<V> {
        if i >= self.dense.len() {
            self.dense.resize(i + 1, None);
        }
        &mut self.dense[i]
    }
    /// Sets `l`'s value (defined or not).
    fn insert(&mut self, l: &[u8], v: V) {
        if let Some(i) = dense_index(l) {
            if self.slot(i).replace(v).is_none() {
                self.dense_set.push(i as u32);
            }
            return;
        }
        match short_key(l) {
            Some(k) => {
                self.short.insert(k, v);
            }
            None => {
                self.long.insert(l.into(), v);
            }
        }
    }
    fn get(&self, l: &[u8]) -> Option<V> {
        if let Some(i) = dense_index(l) {
            return self.dense.get(i).copied().flatten();
        }
        match short_key(l) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(l).copied(),
        }
    }
    /// Inserts `v` unless `l` is already there (the first definition
    /// wins); returns whether it was inserted.
    fn insert_first(&mut self, l: &[u8], v: V) -> bool {
        if let Some(i) = dense_index(l) {
            let s = self.slot(i);
            if s.is_some() {
                return false;
            }
            *s = Some(v);
            self.dense_set.push(i as u32);
            return true;
        }
        match short_key(l) {
            Some(k) => match self.short.entry(k) {
                std::collections::hash_map::Entry::Occupied(_) => false,
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(v);
                    true
                }
            },
            None => {
                if self.long.contains_key(l) {
                    return false;
                }
                self.long.insert(l.into(), v);
                true
            }
        }
    }
    fn clear(&mut self) {
        for i in self.dense_set.drain(..) {
            self.dense[i as usize] = None;
        }
        self.short.clear();
        self.long.clear();
    }
    fn values(&self) -> impl Iterator<Item = &V> {
        self.dense_set
            .iter()
            .filter_map(|&i| self.dense[i as usize].as_ref())
            .chain(self.short.values())
            .chain(self.long.values())
    }
}

/// Checks an operation's peer, size and duration; `Err` says what is
/// wrong.
fn check_op(o: &OpSpec, num_ranks: u32, calc_unit: Time) -> Result<(), GoalError> {
    match o.kind {
        Kind::Calc => {
            calc_time(o.size, calc_unit)?;
        }
        Kind::Send | Kind::Recv => {
            if !(o.kind == Kind::Recv && o.peer == ANY) && o.peer >= num_ranks {
                return Err(GoalError::NoPeer {
                    peer: o.peer,
                    num_ranks,
                });
            }
            limits::check_bytes(o.size).map_err(GoalError::SizeLimit)?;
        }
    }
    Ok(())
}

/// `amount` units of `calc_unit`, within the duration limit.
fn calc_time(amount: u64, unit: Time) -> Result<Time, GoalError> {
    let ps = u128::from(amount) * u128::from(unit.as_ps());
    let d = u64::try_from(ps).map(Time::from_ps).unwrap_or(Time::MAX);
    limits::check_duration(d).map_err(|message| GoalError::CalcLimit {
        amount,
        unit_ps: unit.as_ps(),
        message,
    })?;
    Ok(d)
}

/// A label's definition in the scan: its item, its operation number in
/// the block, and whether a dependency names it as the dependent side.
#[derive(Clone, Copy)]
struct Def {
    item: u32,
    op: u32,
    dependent: bool,
}

/// The scan's state in one rank block.
struct BlockScan {
    rank: u32,
    start: Block,
    items: u32,
    ops: u32,
    /// The line of the block's last item (its `rank R {` line at first).
    last_line: u64,
    labels: Labels<Def>,
    last_unlabeled: u32,
}

/// Where the opening scan puts the compiled records.
enum Out<'a> {
    /// An unlinked temporary file, for this run only.
    Temporary,
    /// A file kept for later runs (`GoalSchedule::compile`).
    Kept(&'a Path),
}

/// Creates a file in the temporary folder and unlinks it at once: the
/// open handle keeps it until the schedule is dropped, and nothing is
/// left behind however the run ends.
fn temporary_file() -> std::io::Result<File> {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir();
    loop {
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let p = dir.join(format!("netsim-goal-{}-{n}", std::process::id()));
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => {
                std::fs::remove_file(&p)?;
                return Ok(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Whether `path` starts with [`compiled::MAGIC`].
fn is_compiled(path: &Path) -> Result<bool, ProgramError> {
    let mut head = [0u8; compiled::MAGIC.len()];
    match open(path)?.read_exact(&mut head) {
        Ok(()) => Ok(&head == compiled::MAGIC),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(file_error(path, format!("cannot read: {e}"))),
    }
}

/// Bytes of one index entry after its presence byte.
const ENTRY: usize = 8 + 8 + 8 + 4 + 4;

impl GoalSchedule {
    /// Opens a GOAL schedule: its text (read once: checked line by line,
    /// errors name `file:line`, and compiled into an unlinked temporary
    /// file the streams read; see the module docs), or a file
    /// [`GoalSchedule::compile`] wrote (recognized by its first bytes).
    pub fn open(path: &Path, config: GoalConfig) -> Result<GoalSchedule, ProgramError> {
        if is_compiled(path)? {
            return Self::open_compiled(path, config);
        }
        Self::scan(path, config, Out::Temporary, None)
    }

    /// Reads the GOAL text `path` once, checks it as [`GoalSchedule::open`]
    /// does, and writes its compiled form to `out`, which later runs open
    /// without reading the text (the file names the text for operations'
    /// origins). Returns the number of ranks.
    pub fn compile(path: &Path, out: &Path, config: GoalConfig) -> Result<u32, ProgramError> {
        if is_compiled(path)? {
            return Err(file_error(path, "is already a compiled GOAL schedule"));
        }
        // Creating `out` empties it: it must not be the text.
        use std::os::unix::fs::MetadataExt;
        let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
        if id(out).is_some() && id(out) == id(path) {
            return Err(file_error(
                out,
                "is the schedule itself: name another output file",
            ));
        }
        Ok(Self::scan(path, config, Out::Kept(out), None)?.num_ranks())
    }

    /// The opening scan (`scan`), cut after byte `cut_from` if given.
    fn scan(
        path: &Path,
        config: GoalConfig,
        out: Out<'_>,
        cut_from: Option<u64>,
    ) -> Result<GoalSchedule, ProgramError> {
        let source = path_name(path);
        let mut file = open(path)?;
        let (data, out_file) = match out {
            Out::Temporary => {
                let f = temporary_file().map_err(|e| {
                    file_error(
                        path,
                        format!(
                            "cannot create a temporary file in {} for the compiled schedule: {e} \
                             (TMPDIR names another folder)",
                            std::env::temp_dir().display()
                        ),
                    )
                })?;
                (format!("{source} (compiled)").into(), f)
            }
            Out::Kept(p) => {
                let f = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(p)
                    .map_err(|e| file_error(p, format!("cannot create: {e}")))?;
                (path_name(p), f)
            }
        };
        let write_err = |e: std::io::Error| error_at(&data, 0, format!("cannot write: {e}"));
        let mut w = compiled::Writer::new(out_file);
        if let Out::Kept(_) = out {
            w.bytes(compiled::MAGIC).map_err(write_err)?;
            w.bytes(&compiled::VERSION.to_le_bytes())
                .map_err(write_err)?;
        }
        let (mut w, num_ranks, blocks) =
            scan::scan_text(path, (&source, &data), &config, &mut file, w, cut_from)?;
        let num_ranks = num_ranks.ok_or_else(|| file_error(path, "no `num_ranks` line"))?;
        if let Out::Kept(_) = out {
            // The trailer: ranks, the text's name, the index, its offset.
            let at = w.pos();
            let mut t = Vec::with_capacity(8 + source.len() + blocks.len() * (1 + ENTRY) + 8);
            t.extend(num_ranks.to_le_bytes());
            t.extend((source.len() as u32).to_le_bytes());
            t.extend(source.as_bytes());
            for b in &blocks {
                match b {
                    None => t.push(0),
                    Some(b) => {
                        t.push(1);
                        t.extend(b.offset.to_le_bytes());
                        t.extend(b.end.to_le_bytes());
                        t.extend(b.line.to_le_bytes());
                        t.extend(b.lookahead.to_le_bytes());
                        t.extend(b.last_root.to_le_bytes());
                    }
                }
            }
            t.extend(at.to_le_bytes());
            w.bytes(&t).map_err(write_err)?;
        }
        let file = w.finish().map_err(write_err)?;
        let checked = matches!(out, Out::Temporary);
        let names = (source, data);
        Ok(Self::new(
            path, file, names, num_ranks, config, blocks, checked,
        ))
    }

    fn new(
        path: &Path,
        file: File,
        (source, data): (Arc<str>, Arc<str>),
        num_ranks: u32,
        config: GoalConfig,
        blocks: Vec<Option<Block>>,
        checked: bool,
    ) -> GoalSchedule {
        GoalSchedule {
            path: path.to_path_buf(),
            shared: Rc::new(Shared {
                file,
                source,
                data,
                num_ranks,
                calc_unit: config.calc_unit,
                keep: (stream::KEEP_BUDGET / num_ranks.max(1) as usize).min(stream::MAX_CHUNK),
                checked,
                window: Default::default(),
            }),
            blocks,
        }
    }

    /// Opens a file [`GoalSchedule::compile`] wrote: reads its trailer and
    /// checks every index entry (the records are checked as streams read
    /// them).
    fn open_compiled(path: &Path, config: GoalConfig) -> Result<GoalSchedule, ProgramError> {
        let data = path_name(path);
        let bad = |at: u64, m: &str| error_at(&data, 0, format!("byte {at}: {m}"));
        let file = open(path)?;
        let len = file
            .metadata()
            .map_err(|e| file_error(path, format!("cannot read: {e}")))?
            .len();
        let head = (compiled::MAGIC.len() + 4) as u64;
        let read = |buf: &mut [u8], at: u64| {
            file.read_exact_at(buf, at)
                .map_err(|e| bad(at, &format!("cannot read: {e}")))
        };
        let mut v = [0u8; 4];
        read(&mut v, compiled::MAGIC.len() as u64)?;
        if u32::from_le_bytes(v) != compiled::VERSION {
            return Err(bad(
                12,
                &format!(
                    "compiled GOAL version {}, this netsim reads version {}: compile the text again",
                    u32::from_le_bytes(v),
                    compiled::VERSION
                ),
            ));
        }
        if len < head + 8 {
            return Err(bad(len, "the file ends before its trailer"));
        }
        let mut at = [0u8; 8];
        read(&mut at, len - 8)?;
        let start = u64::from_le_bytes(at);
        if !(head..=len - 8).contains(&start) {
            return Err(bad(len - 8, "the trailer's offset is outside the file"));
        }
        let mut t = vec![0u8; (len - 8 - start) as usize];
        read(&mut t, start)?;
        let mut i = 0usize;
        let take = |i: &mut usize, n: usize| -> Result<&[u8], ProgramError> {
            let s = t
                .get(*i..*i + n)
                .ok_or_else(|| bad(start + *i as u64, "the trailer ends early"))?;
            *i += n;
            Ok(s)
        };
        let u32_at = |s: &[u8]| u32::from_le_bytes(s.try_into().expect("4 bytes"));
        let u64_at = |s: &[u8]| u64::from_le_bytes(s.try_into().expect("8 bytes"));
        let num_ranks = u32_at(take(&mut i, 4)?);
        limits::check_ranks(u64::from(num_ranks))
            .map_err(|m| bad(start, &format!("num_ranks: {m}")))?;
        let name_len = u32_at(take(&mut i, 4)?) as usize;
        let name = std::str::from_utf8(take(&mut i, name_len)?)
            .map_err(|_| bad(start + 8, "the text's name is not UTF-8"))?;
        let source: Arc<str> = name.into();
        if t.len() - i < num_ranks as usize {
            return Err(bad(
                start,
                &format!("the index has fewer than {num_ranks} entries"),
            ));
        }
        let mut blocks = Vec::with_capacity(num_ranks as usize);
        for r in 0..num_ranks {
            let here = start + i as u64;
            match take(&mut i, 1)?[0] {
                0 => blocks.push(None),
                1 => {
                    let e = take(&mut i, ENTRY)?;
                    let b = Block {
                        offset: u64_at(&e[0..8]),
                        end: u64_at(&e[8..16]),
                        line: u64_at(&e[16..24]),
                        lookahead: u32_at(&e[24..28]),
                        last_root: u32_at(&e[28..32]),
                    };
                    if !(head <= b.offset && b.offset <= b.end && b.end <= start) {
                        return Err(bad(
                            here,
                            &format!("rank {r}'s records are outside the file"),
                        ));
                    }
                    blocks.push(Some(b));
                }
                _ => return Err(bad(here, &format!("rank {r}'s index entry is damaged"))),
            }
        }
        if i != t.len() {
            return Err(bad(start + i as u64, "bytes after the index"));
        }
        let names = (source, data);
        Ok(Self::new(
            path, file, names, num_ranks, config, blocks, false,
        ))
    }

    /// Rank `rank`'s stream (a graph program; see the module docs). Reads
    /// nothing until the rank runs.
    ///
    /// # Panics
    /// If `rank >= self.num_ranks()`.
    pub fn rank_stream(&self, rank: Rank) -> Result<GoalStream, ProgramError> {
        Ok(GoalStream::new(
            self.shared.clone(),
            self.blocks[rank as usize],
        ))
    }
}

impl TraceReader for GoalSchedule {
    type Stream = GoalStream;

    fn num_ranks(&self) -> u32 {
        self.shared.num_ranks
    }

    fn streams(&self) -> Result<Vec<GoalStream>, ProgramError> {
        (0..self.num_ranks()).map(|r| self.rank_stream(r)).collect()
    }

    /// Boxed one by one: a million streams are not held twice.
    fn boxed_streams(&self) -> Result<Vec<BoxedStream>, ProgramError> {
        (0..self.num_ranks())
            .map(|r| Ok(Box::new(self.rank_stream(r)?) as BoxedStream))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{Labels, dense_index};

    #[test]
    fn only_schedgen_labels_are_dense() {
        assert_eq!(dense_index(b"l0"), Some(0));
        assert_eq!(dense_index(b"l7"), Some(7));
        assert_eq!(dense_index(b"l9999"), Some(9999));
        for l in [
            &b"l10000"[..],
            b"l01",
            b"l00",
            b"l",
            b"x1",
            b"l1a",
            b"L1",
            b"",
        ] {
            assert_eq!(dense_index(l), None, "{}", String::from_utf8_lossy(l));
        }
    }

    /// `l1`, `l01` and `l0001` are three labels, whichever table holds
    /// each; the first definition wins; a cleared table holds nothing.
    #[test]
    fn labels_keep_spellings_apart() {
        let long = b"a_label_longer_than_sixteen_bytes";
        let mut t = Labels::new();
        for round in 0..2 {
            assert!(t.insert_first(b"l1", 1));
            assert!(t.insert_first(b"l01", 2));
            assert!(t.insert_first(b"l0001", 3));
            assert!(t.insert_first(long, 4));
            assert!(t.insert_first(b"l9999", 6));
            assert!(!t.insert_first(b"l1", 9));
            assert!(!t.insert_first(b"l01", 9));
            assert!(!t.insert_first(long, 9));
            t.insert(b"l1", 5);
            assert_eq!(t.get(b"l1"), Some(5));
            assert_eq!(t.get(b"l01"), Some(2));
            assert_eq!(t.get(b"l0001"), Some(3));
            assert_eq!(t.get(long), Some(4));
            assert_eq!(t.get(b"l2"), None);
            assert_eq!(t.get(b"l99999"), None);
            let mut v: Vec<i32> = t.values().copied().collect();
            v.sort_unstable();
            assert_eq!(v, [2, 3, 4, 5, 6], "round {round}");
            t.clear();
            assert_eq!(t.values().count(), 0);
            assert_eq!(t.get(b"l1"), None);
            assert_eq!(t.get(b"l9999"), None);
        }
    }
}
