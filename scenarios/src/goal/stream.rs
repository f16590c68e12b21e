//! One rank of a GOAL schedule: its block read as the rank advances, its
//! live operations and the dependencies among them (see the module docs
//! of [`super`]).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::os::unix::fs::FileExt;
use std::rc::Rc;

use mpi_layer::{
    CommId, GraphOp, Op, OpStream, Origin, ProgramError, Ready, ReqId, Source, TagSel,
};

use super::lex::{self, ANY, Item, Kind};
use super::{Block, Labels, NONE, Shared, calc_time, check_op};
use crate::text::error_at;

/// Bytes per line a positioned read assumes (Schedgen's lines are 20 to
/// 35 bytes), and the least and most it reads at once (more when a line
/// is longer): reading only about what is needed keeps the copies small,
/// since a stream keeps no buffer between reads.
const LINE_GUESS: usize = 40;
/// Items read at least per read (when the block has them).
const BATCH: u32 = 8;
const MIN_CHUNK: usize = 256;
const MAX_CHUNK: usize = 64 * 1024;

const STARTED: u8 = 1;
const DONE: u8 = 2;
const ISSUED: u8 = 4;

/// An operation read and not yet completed (40 bytes).
struct Node {
    size: u64,
    line: u64,
    peer: u32,
    tag: u32,
    /// Its item index in the block.
    item: u32,
    /// Dependencies not yet met.
    unmet: u32,
    /// First edge to a dependent, or `NONE`.
    child: u32,
    kind: Kind,
    cpu: u8,
    nic: u8,
    flags: u8,
}

/// The largest `D + 1` read through a ring of labels.
const RING_MAX: u32 = 32;

/// One item's label in the ring (`len` 0: none).
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u128,
    item: u32,
    op: u32,
    len: u8,
}

/// A label of at most 16 bytes as (bytes, length).
fn short_key(l: &[u8]) -> Option<(u128, u8)> {
    (l.len() <= 16).then(|| {
        let mut b = [0u8; 16];
        b[..l.len()].copy_from_slice(l);
        (u128::from_le_bytes(b), l.len() as u8)
    })
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
    /// (send, recv, calc); entries are checked when taken.
    ready: [VecDeque<u32>; 3],
    /// Label -> (operation number, item), when the labels are not in
    /// `ring`.
    labels: Labels<(u32, u32)>,
    /// The labels of the last `D + 1` items, slot `item % (D + 1)`, when
    /// `D` is small and every label short (Schedgen's output): a line
    /// names only labels at most `D` items back, so a scan of these few
    /// slots replaces the table.
    ring: Vec<Slot>,
    /// Label count at which labels out of reach are dropped.
    label_gc: usize,
    edges: Vec<Edge>,
    free_edge: u32,
    /// Scratch: the operations one start or completion made ready.
    freed: Vec<u32>,
    /// Operations handed out and not completed.
    in_flight: u32,
}

/// One rank of a GOAL schedule, a graph program ([`OpStream::is_graph`]).
pub struct GoalStream {
    sh: Rc<Shared>,
    block: Option<Block>,
    /// Byte offset of the next line to read.
    pos: u64,
    /// Number of the last line read.
    line: u64,
    /// Items read so far.
    next_item: u32,
    /// Read until item `want` has been read.
    want: u32,
    in_comment: bool,
    /// The block's `}` has been read.
    ended: bool,
    live: Option<Box<Live>>,
}

thread_local! {
    /// The read buffer and the comment-stripping buffer, shared by every
    /// stream of the thread (a stream keeps no buffer between reads).
    static BUFS: RefCell<(Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

impl GoalStream {
    pub(super) fn new(sh: Rc<Shared>, block: Option<Block>) -> GoalStream {
        GoalStream {
            pos: block.map_or(0, |b| b.offset),
            line: block.map_or(0, |b| b.line),
            sh,
            block,
            next_item: 0,
            want: 0,
            in_comment: false,
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
        self.block.map_or(0, |b| b.lookahead)
    }

    fn err(&self, line: u64, m: impl Into<String>) -> ProgramError {
        error_at(&self.sh.source, line, m)
    }

    /// Reads lines until item `want` has been read or the block ended.
    fn read(&mut self) -> Result<(), ProgramError> {
        if self.ended || self.next_item > self.want {
            return Ok(());
        }
        // Read at least a few items at a time: fewer positioned reads for
        // a little more window.
        self.want = self.want.max(self.next_item.saturating_add(BATCH - 1));
        BUFS.with(|b| {
            let (buf, strip) = &mut *b.borrow_mut();
            let need = (self.want - self.next_item) as usize + 1;
            let mut chunk = need.saturating_mul(LINE_GUESS).clamp(MIN_CHUNK, MAX_CHUNK);
            while !self.ended && self.next_item <= self.want {
                buf.resize(chunk, 0);
                let n = self
                    .sh
                    .file
                    .read_at(buf, self.pos)
                    .map_err(|e| self.err(self.line + 1, format!("cannot read: {e}")))?;
                if n == 0 {
                    return Err(self.err(self.line, "end of file inside a rank block"));
                }
                let data = &buf[..n];
                let mut at = 0;
                let mut progressed = false;
                while !self.ended && self.next_item <= self.want {
                    let rest = &data[at..];
                    let (text, used) = match rest.iter().position(|&c| c == b'\n') {
                        Some(i) => (&rest[..i], i + 1),
                        None if n < chunk && !rest.is_empty() => (rest, rest.len()),
                        None => break,
                    };
                    at += used;
                    self.pos += used as u64;
                    self.line += 1;
                    progressed = true;
                    let text = if lex::strip_comments(text, &mut self.in_comment, strip) {
                        &strip[..]
                    } else {
                        text
                    };
                    self.item(text)?;
                }
                if !progressed {
                    chunk *= 2; // a line longer than the chunk
                }
            }
            Ok(())
        })
    }

    /// Takes in one line of the block.
    fn item(&mut self, text: &[u8]) -> Result<(), ProgramError> {
        let line = self.line;
        let d = self.lookahead();
        let last_root = self.block.map_or(NONE, |b| b.last_root);
        let k = self.next_item;
        let sh = &self.sh;
        let err = |m: String| error_at(&sh.source, line, m);
        let item = lex::line(text).map_err(err)?;
        let live = self.live.as_mut().expect("live");
        match item {
            Item::Empty => return Ok(()),
            Item::Close => {
                self.ended = true;
                return Ok(());
            }
            Item::NumRanks(_) | Item::Open(_) => {
                return Err(err("`num_ranks` or `rank` inside a rank block".into()));
            }
            Item::Op(label, o) => {
                check_op(&o, sh.num_ranks, sh.calc_unit).map_err(err)?;
                let id = live.base + live.nodes.len() as u32;
                if !live.ring.is_empty() {
                    let n = live.ring.len() as u32;
                    live.ring[(k % n) as usize] = match label.and_then(short_key) {
                        Some((key, len)) => Slot {
                            key,
                            item: k,
                            op: id,
                            len,
                        },
                        None => Slot::default(),
                    };
                } else if let Some(l) = label {
                    live.labels.insert_first(l, (id, k));
                    if live.labels.len() >= live.label_gc {
                        // Labels more than `D` items back are named by no
                        // line still to come.
                        let next = u64::from(k);
                        live.labels
                            .retain(|&(_, i)| u64::from(i) + u64::from(d) >= next);
                        live.label_gc = (2 * live.labels.len()).max(64);
                    }
                }
                live.nodes.push_back(Node {
                    size: o.size,
                    line,
                    peer: o.peer,
                    tag: o.tag,
                    item: k,
                    unmet: 0,
                    child: NONE,
                    kind: o.kind,
                    cpu: o.cpu,
                    nic: o.nic,
                    flags: 0,
                });
                // An operation after the last root depends on something,
                // named within `D` items: it is queued when that line is
                // read (below) or when the dependency is met (`release`).
                if k <= last_root {
                    live.ready[o.kind as usize].push_back(id);
                }
            }
            Item::Dep(a, b, start) => {
                let find = |l: &[u8]| {
                    let found = if live.ring.is_empty() {
                        live.labels.get(l).map(|v| v.0)
                    } else {
                        // The first definition: the earliest match.
                        short_key(l).and_then(|(key, len)| {
                            live.ring
                                .iter()
                                .filter(|x| x.len == len && x.key == key && x.item < k)
                                .min_by_key(|x| x.item)
                                .map(|x| x.op)
                        })
                    };
                    found.ok_or_else(|| {
                        err(format!(
                            "dependency names label `{}`, undefined above",
                            String::from_utf8_lossy(l)
                        ))
                    })
                };
                let (ia, ib) = (find(a)?, find(b)?);
                // `b`'s state: completed (and dropped), started, or not.
                let flags = if ib < live.base {
                    STARTED | DONE
                } else {
                    live.nodes[(ib - live.base) as usize].flags
                };
                let met = flags & if start { STARTED } else { DONE } != 0;
                // The scan's look-ahead guarantees `a` is not handed out yet.
                if met {
                    // Already met: `a` may be ready (checked when taken).
                    if ia >= live.base {
                        let n = &live.nodes[(ia - live.base) as usize];
                        if n.unmet == 0 && n.flags & ISSUED == 0 {
                            live.ready[n.kind as usize].push_back(ia);
                        }
                    }
                } else if ia >= live.base {
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
                        live.edges.push(e);
                        (live.edges.len() - 1) as u32
                    };
                    live.nodes[(ib - live.base) as usize].child = ei;
                    live.nodes[(ia - live.base) as usize].unmet += 1;
                }
                if !live.ring.is_empty() {
                    let n = live.ring.len() as u32;
                    live.ring[(k % n) as usize] = Slot::default();
                }
            }
        }
        self.next_item = k + 1;
        Ok(())
    }

    /// Operation `id`'s edges: `start` ones (at its start) or the others
    /// (at its completion, which also frees them all).
    fn release(&mut self, id: u32, start: bool) {
        let live = self.live.as_mut().expect("live");
        let mut e = live.nodes[(id - live.base) as usize].child;
        while e != NONE {
            let Edge { to, next, start: s } = live.edges[e as usize];
            if s == start {
                let n = &mut live.nodes[(to - live.base) as usize];
                n.unmet -= 1;
                if n.unmet == 0 {
                    live.freed.push(to);
                }
            }
            if !start {
                live.edges[e as usize].next = live.free_edge;
                live.free_edge = e;
            }
            e = next;
        }
        if !start {
            live.nodes[(id - live.base) as usize].child = NONE;
        }
        // Edges are listed newest first: queue what became ready in file
        // order (LogGOPSim lists a host's executable operations in order).
        live.freed.sort_unstable();
        for i in 0..live.freed.len() {
            let to = live.freed[i];
            let kind = live.nodes[(to - live.base) as usize].kind;
            live.ready[kind as usize].push_back(to);
        }
        live.freed.clear();
    }

    /// The next operation to hand out: met dependencies, and the block read
    /// `D` items past it.
    fn take_ready(&mut self) -> Result<Option<u32>, ProgramError> {
        let d = self.lookahead();
        for kind in 0..3 {
            loop {
                let live = self.live.as_mut().expect("live");
                let Some(&id) = live.ready[kind].front() else {
                    break;
                };
                if id < live.base {
                    live.ready[kind].pop_front();
                    continue;
                }
                let n = &live.nodes[(id - live.base) as usize];
                if n.flags & ISSUED != 0 || n.unmet > 0 {
                    live.ready[kind].pop_front();
                    continue;
                }
                let settle = n.item.saturating_add(d);
                if !self.ended && settle >= self.next_item {
                    self.want = self.want.max(settle);
                    self.read()?;
                    continue;
                }
                live.ready[kind].pop_front();
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
                tag: n.tag as i32,
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
                    TagSel::Tag(n.tag as i32)
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
                line: n.line,
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
        let Some(block) = self.block else {
            return Ok(Ready::End);
        };
        if self.live.is_none() {
            if self.ended {
                return Ok(Ready::End);
            }
            self.live = Some(Box::new(Live {
                base: 0,
                nodes: VecDeque::new(),
                ready: Default::default(),
                labels: Labels::new(),
                ring: if block.short_labels && block.lookahead < RING_MAX {
                    vec![Slot::default(); block.lookahead as usize + 1]
                } else {
                    Vec::new()
                },
                label_gc: 64,
                edges: Vec::new(),
                free_edge: NONE,
                freed: Vec::new(),
                in_flight: 0,
            }));
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
            let line = stuck.map_or(self.line, |n| n.line);
            return Err(self.err(line, "dependency cycle: this operation can never start"));
        }
    }

    fn started(&mut self, id: u32) {
        let d = self.lookahead();
        let Some(live) = self.live.as_mut() else {
            return;
        };
        if id < live.base {
            return;
        }
        let n = &mut live.nodes[(id - live.base) as usize];
        if n.flags & STARTED != 0 {
            return;
        }
        n.flags |= STARTED;
        // Every line naming it is within `D` items.
        self.want = self.want.max(n.item.saturating_add(d));
        self.release(id, true);
    }

    fn completed(&mut self, id: u32) {
        self.started(id);
        let Some(live) = self.live.as_mut() else {
            return;
        };
        if id < live.base {
            return;
        }
        live.nodes[(id - live.base) as usize].flags |= DONE;
        live.in_flight -= 1;
        self.release(id, false);
        let live = self.live.as_mut().expect("live");
        while live.nodes.front().is_some_and(|n| n.flags & DONE != 0) {
            live.nodes.pop_front();
            live.base += 1;
        }
    }
}
