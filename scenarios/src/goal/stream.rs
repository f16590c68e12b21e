//! One rank of a GOAL schedule: its block read as the rank advances, its
//! live operations and the dependencies among them (see the module docs
//! of [`super`]).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::rc::Rc;

use smallvec::SmallVec;

use mpi_layer::{
    CommId, GraphOp, Op, OpStream, Origin, ProgramError, Ready, ReqId, Source, TagSel,
};

use super::compiled::{Bad, Rec, decode};
use super::lex::{ANY, Kind};
use super::{Block, NONE, Shared, calc_time, check_op};
use crate::text::error_at;

/// Bytes per record a positioned read assumes (Schedgen's are 4 to 8),
/// and the least and most it reads at once.
const REC_GUESS: usize = 8;
/// Items read at least per read (when the block has them).
const BATCH: u32 = 8;
const MIN_CHUNK: usize = 256;
/// What a stream keeps read ahead, at most: 4 KiB. With 64 KiB, each
/// rank of an all-to-all (P = 1024) took its whole block (26 KB) at its
/// first read, 26.7 MB of records held for the whole run and read a
/// little at a time as the ranks advanced in turn (the first byte of a
/// record was the costliest load of `GoalStream::read`, `perf
/// annotate`); with 4 KiB the streams hold 4 MiB. a2a-goal-1024 (peers)
/// compiled: peak 34.4 -> 12.9 MiB, CPU 0.97 (`farm-bench -n 7`,
/// paired); from text: 0.96 (`-n 9`, wall 0.827 -> 0.795 s). 2 KiB
/// measured no better than 4 (1.02).
pub(super) const MAX_CHUNK: usize = 4 * 1024;
/// What all streams together keep of their blocks read ahead and not yet
/// taken in, at most [bytes]: each keeps up to `KEEP_BUDGET / P` (and
/// [`MAX_CHUNK`]), so that a long block (an all-to-all's) is read in
/// chunks, each byte once, while a million ranks keep next to nothing and
/// re-read the little they read past what they needed.
pub(super) const KEEP_BUDGET: usize = 32 << 20;

const STARTED: u8 = 1;
const DONE: u8 = 2;
const ISSUED: u8 = 4;
/// In a ready list.
const QUEUED: u8 = 8;

/// An operation read and not yet completed (40 bytes).
struct Node {
    size: u64,
    /// Its line, counted from the block's `rank R {` line.
    line: u32,
    peer: u32,
    tag: u32,
    /// Its item index in the block.
    item: u32,
    /// Dependencies not yet met.
    unmet: u32,
    /// First edge to a dependent, or `NONE`.
    child: u32,
    /// The next operation in its ready list, or `NONE`.
    next: u32,
    kind: Kind,
    cpu: u8,
    nic: u8,
    flags: u8,
}

/// `to` waits for the start (`start`) or the completion of the edge's
/// owner; `next` threads the owner's edges.
#[derive(Clone, Copy)]
struct Edge {
    to: u32,
    next: u32,
    start: bool,
}

/// The state of a rank that is running.
struct Live {
    /// The operation number of `nodes[0]`; every earlier one completed.
    base: u32,
    nodes: VecDeque<Node>,
    /// Operations whose dependencies are met, not yet handed out, by kind
    /// (send, recv, calc): first and last of a list threaded through
    /// [`Node::next`] (`NONE`: empty); entries are checked when taken.
    head: [u32; 3],
    tail: [u32; 3],
    edges: Vec<Edge>,
    free_edge: u32,
    /// Operations handed out and not completed.
    in_flight: u32,
    /// Bytes read ahead (see [`KEEP_BUDGET`]), only when the streams keep
    /// any: boxed, so that a million ranks that keep nothing do not carry
    /// an empty buffer each.
    ahead: Option<Box<Ahead>>,
}

/// A stream's block read ahead: `buf[at..]` is the block from
/// [`GoalStream::pos`] on.
#[derive(Default)]
struct Ahead {
    buf: Vec<u8>,
    at: u32,
}

impl Live {
    fn node(&mut self, id: u32) -> &mut Node {
        &mut self.nodes[(id - self.base) as usize]
    }

    /// Appends `id` to its kind's ready list, unless it is in it.
    fn push_ready(&mut self, id: u32) {
        let n = self.node(id);
        if n.flags & QUEUED != 0 {
            return;
        }
        n.flags |= QUEUED;
        n.next = NONE;
        let k = n.kind as usize;
        match self.tail[k] {
            NONE => self.head[k] = id,
            t => self.node(t).next = id,
        }
        self.tail[k] = id;
    }

    /// Removes the first of ready list `k`.
    fn pop_ready(&mut self, k: usize) {
        let id = self.head[k];
        let n = self.node(id);
        n.flags &= !QUEUED;
        let next = n.next;
        self.head[k] = next;
        if next == NONE {
            self.tail[k] = NONE;
        }
    }
}

/// What a stream keeps of its block's index entry (a rank without a
/// block: `end` 0, `last_root` [`NONE`]; its stream starts ended). The
/// block's first record is where [`GoalStream::pos`] starts.
#[derive(Clone, Copy)]
struct Span {
    /// [`Block::end`].
    end: u64,
    /// [`Block::line`]: the `rank R {` line.
    line: u64,
    /// [`Block::lookahead`].
    lookahead: u32,
    /// [`Block::last_root`].
    last_root: u32,
}

/// One rank of a GOAL schedule, a graph program ([`OpStream::is_graph`]).
/// A million of them are live at once (bcast, P = 2^20): each is kept
/// small (168 bytes; a test holds it to that).
pub struct GoalStream {
    sh: Rc<Shared>,
    block: Span,
    /// Offset of the next record to read in the compiled file.
    pos: u64,
    /// The text line of the last item read.
    line: u64,
    /// Items read so far.
    next_item: u32,
    /// Read until item `want` has been read.
    want: u32,
    /// The block's `}` has been read.
    ended: bool,
    live: Option<Live>,
}

impl std::fmt::Debug for GoalStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoalStream").finish_non_exhaustive()
    }
}

thread_local! {
    /// The read buffer of streams that keep nothing between reads.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The last stretch of the compiled file read for streams that keep
/// nothing between reads (many ranks). Ranks starting in rank order read
/// their blocks in file order; through the window, a million ranks make
/// a few hundred reads instead of one each (bcast P = 2^20: 1.11 M
/// `pread` calls before, strace). A read that does not continue the
/// window goes to the file directly and leaves the window as it is.
#[derive(Default)]
pub(super) struct Window {
    start: u64,
    data: Vec<u8>,
}

/// Bytes the window reads at once.
const WINDOW: usize = 256 * 1024;

impl Window {
    /// Reads into `out` from offset `at`, through the window when `at` is
    /// in it or just past it; returns the bytes read (fewer than asked at
    /// the window's end; 0 at the file's end).
    fn read(&mut self, file: &File, out: &mut [u8], at: u64) -> std::io::Result<usize> {
        let end = self.start + self.data.len() as u64;
        if !(self.start..end + MIN_CHUNK as u64).contains(&at) {
            return read_at(file, out, at);
        }
        if at >= end {
            self.data.resize(WINDOW, 0);
            let n = read_at(file, &mut self.data, at)?;
            self.data.truncate(n);
            self.start = at;
        }
        let from = (at - self.start) as usize;
        let n = out.len().min(self.data.len() - from);
        out[..n].copy_from_slice(&self.data[from..from + n]);
        Ok(n)
    }
}

/// A positioned read (retrying on interruption).
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    loop {
        match file.read_at(buf, at) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

impl GoalStream {
    pub(super) fn new(sh: Rc<Shared>, block: Option<Block>) -> GoalStream {
        GoalStream {
            pos: block.map_or(0, |b| b.offset),
            line: block.map_or(0, |b| b.line),
            sh,
            block: block.map_or(
                Span {
                    end: 0,
                    line: 0,
                    lookahead: 0,
                    last_root: NONE,
                },
                |b| Span {
                    end: b.end,
                    line: b.line,
                    lookahead: b.lookahead,
                    last_root: b.last_root,
                },
            ),
            next_item: 0,
            want: 0,
            ended: block.is_none(),
            live: None,
        }
    }

    /// The operations read and not yet completed: the live window (0 when
    /// the rank has not started or has ended).
    pub fn live_operations(&self) -> usize {
        self.live.as_ref().map_or(0, |l| l.nodes.len())
    }

    fn lookahead(&self) -> u32 {
        self.block.lookahead
    }

    fn err(&self, line: u64, m: impl std::fmt::Display) -> ProgramError {
        error_at(&self.sh.source, line, m)
    }

    /// A damaged compiled file (one `GoalSchedule::compile` did not write
    /// whole): names the file and the record's byte offset.
    fn corrupt(&self, m: &str) -> ProgramError {
        error_at(
            &self.sh.data,
            0,
            format!(
                "byte {}: {m} (not a whole compiled GOAL schedule)",
                self.pos
            ),
        )
    }

    /// Reads records until item `want` has been read or the block ended.
    fn read(&mut self) -> Result<(), ProgramError> {
        if self.ended || self.next_item > self.want {
            return Ok(());
        }
        // Read at least a few items at a time: fewer positioned reads for
        // a little more window.
        self.want = self.want.max(self.next_item.saturating_add(BATCH - 1));
        let end = self.block.end;
        let keep = self.sh.keep;
        // With little to keep, read into the thread's buffer and keep
        // nothing: no allocation per read for a million ranks.
        let own = keep >= MIN_CHUNK;
        let live = self.live.as_mut().expect("live");
        let mut ahead = live.ahead.take();
        let (mut buf, mut at) = match ahead.as_deref_mut() {
            Some(a) => (std::mem::take(&mut a.buf), a.at as usize),
            None if own => (Vec::new(), 0),
            None => (SCRATCH.with(|b| std::mem::take(&mut *b.borrow_mut())), 0),
        };
        let mut r = Ok(());
        while !self.ended && self.next_item <= self.want {
            let buf_end = self.pos + (buf.len() - at) as u64;
            match decode(&buf[at..]) {
                Ok((dline, rec, used)) => {
                    let Some(line) = self.line.checked_add(dline) else {
                        r = Err(self.corrupt("a line number beyond 2^64 - 1"));
                        break;
                    };
                    self.line = line;
                    r = self.item(rec);
                    at += used;
                    self.pos += used as u64;
                    if r.is_err() {
                        break;
                    }
                    if !self.ended && self.pos > end {
                        r = Err(self.corrupt("a rank's records run past its block"));
                        break;
                    }
                }
                Err(Bad::Corrupt(m)) => {
                    r = Err(self.corrupt(m));
                    break;
                }
                Err(Bad::Short) if buf_end >= end => {
                    r = Err(self.corrupt("a rank's records end without the block's end"));
                    break;
                }
                Err(Bad::Short) => {
                    // Keep the start of a record, read on after it.
                    buf.drain(..at);
                    at = 0;
                    let need = (self.want - self.next_item) as usize + 1;
                    let chunk = need
                        .saturating_mul(REC_GUESS)
                        .clamp(MIN_CHUNK, MAX_CHUNK)
                        .max(keep)
                        .min((end - buf_end) as usize);
                    let old = buf.len();
                    buf.reserve_exact(chunk);
                    buf.resize(old + chunk, 0);
                    let got = if own {
                        read_at(&self.sh.file, &mut buf[old..], buf_end)
                    } else {
                        let w = &mut *self.sh.window.borrow_mut();
                        w.read(&self.sh.file, &mut buf[old..], buf_end)
                    };
                    match got {
                        Ok(n) => buf.truncate(old + n),
                        Err(e) => {
                            buf.truncate(old);
                            r = Err(self.corrupt(&format!("cannot read: {e}")));
                            break;
                        }
                    }
                    if buf.len() == old {
                        r = Err(self.corrupt("the file ends inside a rank's records"));
                        break;
                    }
                }
            }
        }
        // Keep what was read ahead if it is little enough; else it is read
        // again when needed.
        let live = self.live.as_mut().expect("live");
        if !own {
            buf.clear();
            SCRATCH.with(|b| *b.borrow_mut() = buf);
        } else if !self.ended && buf.len() - at <= keep {
            let mut a = ahead.unwrap_or_default();
            a.buf = buf;
            a.at = at as u32;
            live.ahead = Some(a);
        }
        r
    }

    /// Takes in one item of the block (its line already counted).
    fn item(&mut self, rec: Rec) -> Result<(), ProgramError> {
        let line = self.line;
        let last_root = self.block.last_root;
        let first_line = self.block.line;
        let k = self.next_item;
        if line - first_line > u64::from(u32::MAX) || k == NONE - 1 {
            return Err(self.corrupt("a rank block beyond 2^32 - 1 lines or items"));
        }
        let sh = &self.sh;
        let err = |m: String| error_at(&sh.source, line, m);
        let live = self.live.as_mut().expect("live");
        match rec {
            Rec::End => {
                self.ended = true;
                return Ok(());
            }
            Rec::Op(o) => {
                if !sh.checked {
                    check_op(&o, sh.num_ranks, sh.calc_unit).map_err(|e| err(e.to_string()))?;
                }
                let id = live.base + live.nodes.len() as u32;
                let len = live.nodes.len();
                if len == live.nodes.capacity() && len < 64 {
                    // Small windows grow by half, from one: a million
                    // ranks of 40 live operations hold 42, not 64, and
                    // the half of a broadcast's ranks that only receive
                    // hold one, not two.
                    live.nodes.reserve_exact((len / 2).max(1));
                }
                live.nodes.push_back(Node {
                    size: o.size,
                    line: (line - first_line) as u32,
                    peer: o.peer,
                    tag: o.tag,
                    item: k,
                    unmet: 0,
                    child: NONE,
                    next: NONE,
                    kind: o.kind,
                    cpu: o.cpu,
                    nic: o.nic,
                    flags: 0,
                });
                // An operation after the last root depends on something,
                // named within `D` items: it is queued when that line is
                // read (below) or when the dependency is met (`release`).
                if k <= last_root {
                    live.push_ready(id);
                }
            }
            Rec::Dep { a, b, start } => {
                // Operations are numbered in the block; `a` and `b` count
                // back from the next one.
                let next = live.base + live.nodes.len() as u32;
                let (ia, ib) = match (next.checked_sub(a), next.checked_sub(b)) {
                    (Some(ia), Some(ib)) if a > 0 && b > 0 && ia != ib => (ia, ib),
                    _ => {
                        return Err(self.corrupt("a dependency on no earlier operation"));
                    }
                };
                // The scan's look-ahead keeps `a` from being handed out
                // before this line is read; only a damaged index breaks it.
                if ia < live.base || live.nodes[(ia - live.base) as usize].flags & ISSUED != 0 {
                    return Err(self.corrupt(
                        "a dependency of an operation already handed out (a wrong look-ahead)",
                    ));
                }
                // `b`'s state: completed (and dropped), started, or not.
                let flags = if ib < live.base {
                    STARTED | DONE
                } else {
                    live.nodes[(ib - live.base) as usize].flags
                };
                if flags & if start { STARTED } else { DONE } != 0 {
                    // Already met: `a` may be ready (checked when taken).
                    let n = &live.nodes[(ia - live.base) as usize];
                    if n.unmet == 0 {
                        live.push_ready(ia);
                    }
                } else {
                    let e = Edge {
                        to: ia,
                        next: live.nodes[(ib - live.base) as usize].child,
                        start,
                    };
                    let ei = if live.free_edge != NONE {
                        let ei = live.free_edge;
                        live.free_edge = live.edges[ei as usize].next;
                        live.edges[ei as usize] = e;
                        ei
                    } else {
                        let len = live.edges.len();
                        if len == live.edges.capacity() && len < 64 {
                            // As the operations (a `Vec`'s first
                            // allocation holds four): measured on bcast
                            // P = 2^20, this beat doubling from one or
                            // growing by half from two (malloc's chunks
                            // and what the reallocations leave free).
                            live.edges.reserve_exact((len / 2).max(1));
                        }
                        live.edges.push(e);
                        (live.edges.len() - 1) as u32
                    };
                    live.nodes[(ib - live.base) as usize].child = ei;
                    live.nodes[(ia - live.base) as usize].unmet += 1;
                }
            }
        }
        self.next_item = k + 1;
        Ok(())
    }

    /// Operation `id`'s edges: `start` ones (at its start) or the others
    /// (at its completion, which also frees them all). Returns whether it
    /// made an operation ready.
    fn release(&mut self, id: u32, start: bool) -> bool {
        let live = self.live.as_mut().expect("live");
        let mut e = live.node(id).child;
        if e == NONE {
            return false;
        }
        let mut freed = SmallVec::<[u32; 16]>::new();
        while e != NONE {
            let Edge { to, next, start: s } = live.edges[e as usize];
            if s == start {
                let n = live.node(to);
                n.unmet -= 1;
                if n.unmet == 0 {
                    freed.push(to);
                }
            }
            if !start {
                live.edges[e as usize].next = live.free_edge;
                live.free_edge = e;
            }
            e = next;
        }
        if !start {
            live.node(id).child = NONE;
        }
        // Edges are listed newest first: queue what became ready in file
        // order (LogGOPSim lists a host's executable operations in order).
        freed.sort_unstable();
        for &to in freed.iter() {
            live.push_ready(to);
        }
        !freed.is_empty()
    }

    /// The next operation to hand out: met dependencies, and the block read
    /// `D` items past it.
    fn take_ready(&mut self) -> Result<Option<u32>, ProgramError> {
        let d = self.lookahead();
        for kind in 0..3 {
            loop {
                let live = self.live.as_mut().expect("live");
                let id = live.head[kind];
                if id == NONE {
                    break;
                }
                let n = live.node(id);
                if n.flags & ISSUED != 0 || n.unmet > 0 {
                    live.pop_ready(kind);
                    continue;
                }
                let settle = n.item.saturating_add(d);
                if !self.ended && settle >= self.next_item {
                    self.want = self.want.max(settle);
                    self.read()?;
                    continue;
                }
                live.pop_ready(kind);
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    fn graph_op(&self, id: u32) -> GraphOp {
        let live = self.live.as_ref().expect("live");
        let n = &live.nodes[(id - live.base) as usize];
        let req = ReqId(u64::from(id));
        let op = match n.kind {
            Kind::Send => Op::Isend {
                dst: n.peer,
                tag: tag(n.tag),
                bytes: n.size,
                comm: CommId::WORLD,
                req,
            },
            Kind::Recv => Op::Irecv {
                src: if n.peer == ANY {
                    Source::Any
                } else {
                    Source::Rank(n.peer)
                },
                tag: if n.tag == ANY {
                    TagSel::Any
                } else {
                    TagSel::Tag(tag(n.tag))
                },
                bytes: n.size,
                comm: CommId::WORLD,
                req,
            },
            Kind::Calc => Op::Compute {
                duration: calc_time(n.size, self.sh.calc_unit).unwrap_or(sim_core::Time::MAX),
            },
        };
        GraphOp {
            id,
            op,
            origin: Origin {
                source: self.sh.source.clone(),
                line: self.block.line + u64::from(n.line),
            },
            cpu: u16::from(n.cpu),
            nic: u16::from(n.nic),
        }
    }
}

impl OpStream for GoalStream {
    /// The operations in one order the graph allows, as if each completed
    /// when handed out (a run uses [`OpStream::next_ready`]).
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        match self.next_ready()? {
            Ready::Op(g) => {
                self.started(g.id);
                self.completed(g.id);
                Ok(Some((g.op, g.origin)))
            }
            Ready::End => Ok(None),
            Ready::Wait => unreachable!("nothing in flight after each completes"),
        }
    }

    fn is_graph(&self) -> bool {
        true
    }

    fn next_ready(&mut self) -> Result<Ready, ProgramError> {
        let block = self.block;
        if self.live.is_none() {
            if self.ended {
                return Ok(Ready::End);
            }
            self.live = Some(Live {
                base: 0,
                nodes: VecDeque::new(),
                head: [NONE; 3],
                tail: [NONE; 3],
                edges: Vec::new(),
                free_edge: NONE,
                in_flight: 0,
                ahead: None,
            });
            self.want = if block.last_root == NONE {
                0
            } else {
                block.last_root.saturating_add(block.lookahead)
            };
        }
        self.read()?;
        loop {
            if let Some(id) = self.take_ready()? {
                let g = self.graph_op(id);
                let live = self.live.as_mut().expect("live");
                live.nodes[(id - live.base) as usize].flags |= ISSUED;
                live.in_flight += 1;
                return Ok(Ready::Op(g));
            }
            let live = self.live.as_ref().expect("live");
            if live.in_flight > 0 {
                return Ok(Ready::Wait);
            }
            if self.ended && live.nodes.is_empty() {
                self.live = None;
                return Ok(Ready::End);
            }
            if !self.ended {
                // Nothing in flight: nothing read so far can start; read on.
                self.want = NONE - 1;
                self.read()?;
                continue;
            }
            let live = self.live.as_ref().expect("live");
            let stuck = live.nodes.iter().find(|n| n.flags & ISSUED == 0);
            let line = stuck.map_or(self.line, |n| block.line + u64::from(n.line));
            return Err(self.err(line, "dependency cycle: this operation can never start"));
        }
    }

    /// Ready operations come only from released edges (every root is
    /// read, and queued, before the first is handed out; a dependency
    /// line already met is read by `next_ready` itself): a start that
    /// releases none made none ready.
    fn started(&mut self, id: u32) -> bool {
        let d = self.lookahead();
        let Some(live) = self.live.as_mut() else {
            return true;
        };
        if id < live.base {
            return true;
        }
        let n = &mut live.nodes[(id - live.base) as usize];
        if n.flags & STARTED != 0 {
            return false;
        }
        n.flags |= STARTED;
        // Every line naming it is within `D` items.
        self.want = self.want.max(n.item.saturating_add(d));
        self.release(id, true)
    }

    /// As [`GoalStream::started`]; and with nothing left in flight the
    /// rank reads on or ends.
    fn completed(&mut self, id: u32) -> bool {
        let mut look = self.started(id);
        let Some(live) = self.live.as_mut() else {
            return true;
        };
        if id < live.base {
            return true;
        }
        live.nodes[(id - live.base) as usize].flags |= DONE;
        live.in_flight -= 1;
        look |= self.release(id, false);
        let live = self.live.as_mut().expect("live");
        look |= live.in_flight == 0;
        while live.nodes.front().is_some_and(|n| n.flags & DONE != 0) {
            live.nodes.pop_front();
            live.base += 1;
        }
        look
    }
}

/// A GOAL tag (`txt2bin`'s u32, up to 2^32 - 2) as the MPI layer's
/// `i32`: the same 32 bits, so matching, which compares tags for
/// equality, is unchanged. The message record and the timeline of a
/// GOAL run print the bits unsigned again
/// (`crate::scenario::Scenario::goal_tags`).
fn tag(t: u32) -> i32 {
    i32::from_ne_bytes(t.to_ne_bytes())
}

#[cfg(test)]
mod tests {
    /// A million ranks hold a stream each (boxed; bcast P = 2^20): 200
    /// bytes had been a fifth of that run's heap.
    #[test]
    fn stream_is_small() {
        let n = std::mem::size_of::<super::GoalStream>();
        assert!(n <= 168, "GoalStream is {n} B");
    }
}
