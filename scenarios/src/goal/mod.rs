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
//! twice names its first definition (`txt2bin` keeps the first entry of
//! its label table). Comments are `// ...` and `/* ... */`.
//!
//! # Execution: a graph, as LogGOPSim runs it
//!
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
//! of the sender's indices, as in LogGOPSim. [`mpi_layer::OpStream::next_op`] gives
//! the operations in one order the graph allows, as if each completed when
//! handed out (for tools; a run uses the graph).
//!
//! # Streaming
//!
//! [`GoalSchedule::open`] reads the file once: it checks every line (an
//! error names `file:line`), and records per rank block its byte offset,
//! its *look-ahead* `D` (the largest distance, in items, from an
//! operation's definition to the last dependency line that names it,
//! either side) and its *last root* (the last operation no line makes
//! depend on anything). A rank's stream then reads its block as the rank
//! advances: first up to the last root plus `D` (every operation free at
//! the start is known, and what it may depend on), and when an operation
//! starts, up to it plus `D` (every line naming it has been read). An
//! operation is handed out only when its dependencies are met and the
//! block has been read `D` items past it, so no later line can still add a
//! dependency. Memory per rank is the live window: the operations read
//! and not yet completed, the dependencies among them, and the labels
//! within `D` of the read position; idle, a rank holds under 100 bytes.
//! Schedgen's output has `D` of a few items; a file whose dependencies
//! reach far back degrades toward holding its block (correct, just more
//! memory). Streams read with positioned reads (`pread`) from one shared
//! open file; what a stream read past what it needed is kept for its next
//! read while all streams together keep at most 32 MiB
//! (`stream::KEEP_BUDGET / P` each, at most 64 KiB): 1024 ranks read
//! their long blocks in 32 KiB chunks, each byte once, and a million ranks
//! keep nothing between reads. Lines are read in place in the buffer
//! (`lex::next_line`). A dependency cycle is reported when a rank has nothing in
//! flight and nothing ready, at the first operation that never ran.

mod lex;
mod stream;

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use mpi_layer::{ProgramError, Rank};
use rustc_hash::FxHashMap;
use sim_core::limits;
use sim_core::time::Time;

use crate::text::{error_at, file_error, open, path_name};
use lex::{ANY, Item, Kind, OpSpec};
pub use stream::GoalStream;

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
    /// Every label has at most 16 bytes.
    short_labels: bool,
}

/// What every stream of a schedule shares.
struct Shared {
    file: File,
    source: Arc<str>,
    num_ranks: u32,
    calc_unit: Time,
    /// Bytes a stream keeps read ahead between reads, at most.
    keep: usize,
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

/// A label table keyed by the label's bytes: labels of up to 16 bytes
/// (Schedgen's `l123`) are keyed inline, longer ones by a boxed copy.
pub(super) struct Labels<V> {
    short: FxHashMap<(u128, u8), V>,
    long: FxHashMap<Box<[u8]>, V>,
}

impl<V: Copy> Labels<V> {
    pub(super) fn new() -> Self {
        Labels {
            short: FxHashMap::default(),
            long: FxHashMap::default(),
        }
    }
    fn key(l: &[u8]) -> Option<(u128, u8)> {
        (l.len() <= 16).then(|| {
            let mut b = [0u8; 16];
            b[..l.len()].copy_from_slice(l);
            (u128::from_le_bytes(b), l.len() as u8)
        })
    }
    pub(super) fn get(&self, l: &[u8]) -> Option<V> {
        match Self::key(l) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(l).copied(),
        }
    }
    /// Inserts `v` unless `l` is already there (the first definition
    /// wins); returns whether it was inserted.
    pub(super) fn insert_first(&mut self, l: &[u8], v: V) -> bool {
        match Self::key(l) {
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
    pub(super) fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&V) -> bool) {
        self.short.retain(|_, v| keep(v));
        self.long.retain(|_, v| keep(v));
    }
    pub(super) fn clear(&mut self) {
        self.short.clear();
        self.long.clear();
    }
    pub(super) fn values(&self) -> impl Iterator<Item = &V> {
        self.short.values().chain(self.long.values())
    }
}

/// Checks an operation's peer, size and duration; `Err` says what is
/// wrong.
fn check_op(o: &OpSpec, num_ranks: u32, calc_unit: Time) -> Result<(), String> {
    match o.kind {
        Kind::Calc => {
            calc_time(o.size, calc_unit)?;
        }
        Kind::Send | Kind::Recv => {
            if !(o.kind == Kind::Recv && o.peer == ANY) && o.peer >= num_ranks {
                return Err(format!(
                    "rank {} does not exist (num_ranks {num_ranks})",
                    o.peer
                ));
            }
            limits::check_bytes(o.size).map_err(|m| format!("size: {m}"))?;
        }
    }
    Ok(())
}

/// `amount` units of `calc_unit`, within the duration limit.
fn calc_time(amount: u64, unit: Time) -> Result<Time, String> {
    let ps = u128::from(amount) * u128::from(unit.as_ps());
    let d = u64::try_from(ps).map(Time::from_ps).unwrap_or(Time::MAX);
    limits::check_duration(d).map_err(|m| format!("calc {amount} (x {} ps): {m}", unit.as_ps()))?;
    Ok(d)
}

/// The scan's state in one rank block.
struct BlockScan {
    rank: u32,
    start: Block,
    items: u32,
    /// Label -> (item, named as the dependent side of a dependency).
    labels: Labels<(u32, bool)>,
    last_unlabeled: u32,
}

impl GoalSchedule {
    /// Reads `path` once: checks every line and records where each rank
    /// block starts and how far its stream must read ahead (see the
    /// module docs). Errors name `file:line`.
    pub fn open(path: &Path, config: GoalConfig) -> Result<GoalSchedule, ProgramError> {
        let source = path_name(path);
        let mut file = open(path)?;
        // The file in chunks: `buf[lo..hi]` is what is not read yet.
        let (mut buf, mut lo, mut hi, mut eof) = (vec![0u8; SCAN_CHUNK], 0, 0, false);
        let (mut pos, mut line, mut in_comment) = (0u64, 0u64, false);
        let mut stripped = Vec::new();
        let mut num_ranks: Option<u32> = None;
        let mut blocks: Vec<Option<Block>> = Vec::new();
        let mut cur: Option<BlockScan> = None;
        let mut labels = Labels::new();
        loop {
            let Some((item, used)) =
                lex::next_line(&buf[lo..hi], eof, &mut in_comment, &mut stripped)
            else {
                if eof {
                    break;
                }
                buf.copy_within(lo..hi, 0);
                (hi, lo) = (hi - lo, 0);
                if hi == buf.len() {
                    buf.resize(2 * hi, 0); // a line longer than the buffer
                }
                let n = read_some(&mut file, &mut buf[hi..])
                    .map_err(|e| error_at(&source, line + 1, format!("cannot read: {e}")))?;
                eof = n == 0;
                hi += n;
                continue;
            };
            let text = &buf[lo..lo + used];
            lo += used;
            pos += used as u64;
            line += 1;
            let err = |m: String| error_at(&source, line, m);
            let item = item.map_err(err)?;
            let Some(b) = cur.as_mut() else {
                match item {
                    Item::Empty => {}
                    Item::NumRanks(n) => {
                        if num_ranks.is_some() {
                            return Err(err("a second `num_ranks` line".into()));
                        }
                        limits::check_ranks(n).map_err(|m| err(format!("num_ranks: {m}")))?;
                        let n = n as u32;
                        num_ranks = Some(n);
                        blocks = vec![None; n as usize];
                    }
                    Item::Open(r) => {
                        let n = num_ranks
                            .ok_or_else(|| err("`rank` block before `num_ranks`".into()))?;
                        if r >= u64::from(n) {
                            return Err(err(format!("rank {r} does not exist (num_ranks {n})")));
                        }
                        if blocks[r as usize].is_some() {
                            return Err(err(format!("rank {r} has two blocks")));
                        }
                        labels.clear();
                        cur = Some(BlockScan {
                            rank: r as u32,
                            start: Block {
                                offset: pos,
                                end: pos,
                                line,
                                lookahead: 0,
                                last_root: NONE,
                                short_labels: true,
                            },
                            items: 0,
                            labels: std::mem::replace(&mut labels, Labels::new()),
                            last_unlabeled: NONE,
                        });
                    }
                    _ => {
                        let mut plain = Vec::new();
                        let text = if lex::strip_comments(text, &mut false, &mut plain) {
                            &plain[..]
                        } else {
                            text
                        };
                        return Err(err(format!(
                            "expected `num_ranks N` or `rank R {{`, found `{}`",
                            String::from_utf8_lossy(text).trim()
                        )));
                    }
                }
                continue;
            };
            let k = b.items;
            if line - b.start.line > u64::from(u32::MAX) {
                return Err(err("more than 2^32 - 1 lines in one rank block".into()));
            }
            match item {
                Item::Empty => continue,
                Item::Close => {
                    let mut root = b.last_unlabeled;
                    for &(i, dependent) in b.labels.values() {
                        if !dependent && (root == NONE || i > root) {
                            root = i;
                        }
                    }
                    b.start.last_root = root;
                    b.start.end = pos;
                    blocks[b.rank as usize] = Some(b.start);
                    labels = std::mem::replace(&mut b.labels, Labels::new());
                    cur = None;
                    continue;
                }
                Item::NumRanks(_) | Item::Open(_) => {
                    return Err(err(
                        "`num_ranks` or `rank` inside a rank block (a `}` is missing)".into(),
                    ));
                }
                Item::Op(label, o) => {
                    check_op(&o, num_ranks.unwrap_or(0), config.calc_unit).map_err(err)?;
                    if label.is_some_and(|l| l.len() > 16) {
                        b.start.short_labels = false;
                    }
                    let named = label.is_some_and(|l| b.labels.insert_first(l, (k, false)));
                    if !named {
                        b.last_unlabeled = k;
                    }
                }
                Item::Dep(a, d, _) => {
                    let find = |l: &[u8]| {
                        b.labels.get(l).ok_or_else(|| {
                            err(format!(
                                "dependency names label `{}`, undefined above",
                                String::from_utf8_lossy(l)
                            ))
                        })
                    };
                    let ((ia, _), (id, _)) = (find(a)?, find(d)?);
                    if ia == id {
                        return Err(err(format!(
                            "`{}` depends on itself",
                            String::from_utf8_lossy(a)
                        )));
                    }
                    set_dependent(&mut b.labels, a, ia);
                    b.start.lookahead = b.start.lookahead.max(k - ia.min(id));
                }
            }
            b.items = k
                .checked_add(1)
                .filter(|&n| n < NONE)
                .ok_or_else(|| err("more than 2^32 - 2 items in one rank block".into()))?;
        }
        if let Some(b) = cur {
            return Err(error_at(
                &source,
                b.start.line,
                "`rank` block is never closed with `}`",
            ));
        }
        let num_ranks = num_ranks.ok_or_else(|| file_error(path, "no `num_ranks` line"))?;
        Ok(GoalSchedule {
            path: path.to_path_buf(),
            shared: Rc::new(Shared {
                file: open(path)?,
                source,
                num_ranks,
                calc_unit: config.calc_unit,
                keep: (stream::KEEP_BUDGET / num_ranks.max(1) as usize).min(stream::MAX_CHUNK),
            }),
            blocks,
        })
    }

    /// The number of ranks.
    pub fn num_ranks(&self) -> u32 {
        self.shared.num_ranks
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

    /// One stream per rank, rank order.
    pub fn streams(&self) -> Result<Vec<GoalStream>, ProgramError> {
        (0..self.num_ranks()).map(|r| self.rank_stream(r)).collect()
    }
}

/// Marks label `l` (defined at item `i`) as the dependent side of a
/// dependency.
fn set_dependent(labels: &mut Labels<(u32, bool)>, l: &[u8], i: u32) {
    match Labels::<(u32, bool)>::key(l) {
        Some(k) => {
            labels.short.insert(k, (i, true));
        }
        None => {
            labels.long.insert(l.into(), (i, true));
        }
    }
}
