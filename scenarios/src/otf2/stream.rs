//! One rank's OTF2 events as operations: the MPI regions, their records,
//! and the computation between them. Pure Rust: the events come from an
//! [`EventSource`] (the OTF2 library's event reader with the `otf2`
//! feature, a vector in tests and in the fuzz target).
//!
//! # How events become operations
//!
//! The events of one outermost MPI region (`Enter` of a region whose
//! paradigm is MPI, or whose name starts with `MPI_`, to its `Leave`) are
//! collected and read as recorded MPI calls ([`RecordedCall`]), which the
//! shared [`CallMapper`] turns into operations, as for DUMPI:
//!
//! - `MpiSend` -> `Send`; `MpiRecv` -> `Recv`; one of each in the same
//!   region (`MPI_Sendrecv`) -> `Sendrecv`.
//! - `MpiIsend` -> `Isend` (request = the recorded request id, modulo
//!   2^32).
//! - `MpiIrecvRequest` -> `Irecv`: OTF2 records the receive's source, tag
//!   and size only when it completes (`MpiIrecv`), so the stream reads
//!   ahead to that completion (at most [`MAX_LOOKAHEAD`] events; memory is
//!   the events in between) and posts the receive where it was posted. A
//!   request cancelled (`MpiRequestCancelled`) or never completed before
//!   the trace ends posts nothing.
//! - Completions (`MpiIsendComplete`, `MpiIrecv`) in a region named
//!   `MPI_Test*` -> `Test` each; elsewhere one -> `Wait`, several ->
//!   `Waitall`. An `MpiIrecv` without a recorded request is posted and
//!   waited for where it completes.
//! - `MpiCollectiveEnd` -> the collective of its operation type, on its
//!   communicator, with the root it names and a size per rank derived
//!   from the bytes sent and received as Score-P counts them (see
//!   [`collective`]); `MpiCollectiveBegin` marks nothing more.
//! - `MpiRequestTest` (a test that found the request unfinished),
//!   `MpiRequestCancelled`, and MPI regions without records
//!   (`MPI_Comm_rank`, ...) make no operation.
//!
//! The time from one MPI region's `Leave` to the next one's `Enter` is
//! computation: ticks / resolution * the compute scale becomes a `Compute`
//! before the next region's operations (none before the first region).
//! Non-MPI regions are part of that time.
//!
//! Communicators come from the definitions: before its first event, every
//! rank creates each communicator that is not `MPI_COMM_WORLD`, in
//! definition order: one of several ranks with `MPI_Comm_create` on
//! `MPI_COMM_WORLD` and the group of its members, one that leaves every
//! rank alone (`MPI_COMM_SELF`, and what Score-P records for a split into
//! single ranks) with `MPI_Comm_split` on `MPI_COMM_WORLD`, the rank as
//! color (free, as every constructor in the MPI layer).

use rustc_hash::FxHashSet;
use std::collections::VecDeque;
use std::sync::Arc;

use mpi_layer::{CommId, GroupId, Op, OpStream, Origin, ProgramError, Rank, ReqId, TagSel};
use sim_core::time::Time;

use super::calls::{bytes, collective};
use super::defs::{CommInfo, CommKind, Layout, Otf2Error};
use crate::recorded::{CallMapper, Comm, Count, Group, Peer, RecordedCall};

/// How many events a stream reads ahead to find where a nonblocking
/// receive completes, at most (2^20, about 50 MiB of buffered events);
/// farther is an error naming the request.
pub const MAX_LOOKAHEAD: usize = 1 << 20;

/// One event of a location, as this reader uses it. Times are clock
/// ticks; peers and roots are ranks of the communicator.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the fields are OTF2's record fields of the same names
pub enum Event {
    /// `Enter`.
    Enter { time: u64, region: u32 },
    /// `Leave`.
    Leave { time: u64, region: u32 },
    /// `MpiSend`.
    Send {
        peer: u32,
        comm: u32,
        tag: u32,
        len: u64,
    },
    /// `MpiIsend`.
    Isend {
        peer: u32,
        comm: u32,
        tag: u32,
        len: u64,
        req: u64,
    },
    /// `MpiIsendComplete`.
    IsendComplete { req: u64 },
    /// `MpiIrecvRequest`.
    IrecvRequest { req: u64 },
    /// `MpiIrecv`.
    Irecv {
        peer: u32,
        comm: u32,
        tag: u32,
        len: u64,
        req: u64,
    },
    /// `MpiRecv`.
    Recv {
        peer: u32,
        comm: u32,
        tag: u32,
        len: u64,
    },
    /// `MpiRequestTest`.
    RequestTest { req: u64 },
    /// `MpiRequestCancelled`.
    RequestCancelled { req: u64 },
    /// `MpiCollectiveBegin`.
    CollectiveBegin,
    /// `MpiCollectiveEnd`.
    CollectiveEnd {
        op: u8,
        comm: u32,
        root: u32,
        sent: u64,
        received: u64,
    },
}

/// Where a rank's events come from, in order, each with its 1-based
/// position in the location's event file.
pub trait EventSource {
    /// The next event, `None` at the end, or an error.
    fn next_event(&mut self) -> Result<Option<(u64, Event)>, Otf2Error>;
}

impl EventSource for std::vec::IntoIter<(u64, Event)> {
    fn next_event(&mut self) -> Result<Option<(u64, Event)>, Otf2Error> {
        Ok(self.next())
    }
}

/// Parameters of OTF2 replay.
#[derive(Clone, Debug, PartialEq)]
pub struct Otf2Config {
    /// Factor applied to every computation gap \[dimensionless\] (default
    /// 1.0: the recorded time; the same option as DUMPI's).
    pub compute_scale: f64,
    /// Gaps shorter than this (after scaling) are dropped (default 0).
    pub min_compute: Time,
}

impl Default for Otf2Config {
    fn default() -> Self {
        Otf2Config {
            compute_scale: 1.0,
            min_compute: Time::ZERO,
        }
    }
}

/// One rank's operations from its events; see the module docs.
pub struct RankStream<S> {
    source: S,
    layout: Arc<Layout>,
    rank: Rank,
    config: Otf2Config,
    file: Arc<str>,
    mapper: CallMapper,
    /// Events read ahead (to find a receive's completion).
    ahead: VecDeque<(u64, Event)>,
    /// Receive requests posted from a look-ahead, not yet completed.
    posted: FxHashSet<u64>,
    /// The current outermost MPI region: its region, first position,
    /// nesting depth and events.
    region: Option<(u32, u64)>,
    depth: u32,
    collected: Vec<(u64, Event)>,
    last_leave: Option<u64>,
    /// Communicators created so far by the prelude (index into
    /// `layout.created`); `None` once done.
    prelude: Option<usize>,
    pending: VecDeque<(Op, Origin)>,
    done: bool,
}

impl<S> std::fmt::Debug for RankStream<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RankStream").finish_non_exhaustive()
    }
}

/// The prelude's groups: `MPI_COMM_WORLD`'s, and the one being built.
const WORLD_GROUP: GroupId = GroupId(1);
const NEW_GROUP: GroupId = GroupId(2);

impl<S: EventSource> RankStream<S> {
    /// Rank `rank`'s stream; `file` names its event file in errors.
    pub fn new(
        source: S,
        layout: Arc<Layout>,
        rank: Rank,
        config: Otf2Config,
        file: Arc<str>,
    ) -> Self {
        RankStream {
            source,
            mapper: CallMapper::new(layout.num_ranks(), vec![1]),
            layout,
            rank,
            config,
            file,
            ahead: VecDeque::new(),
            posted: FxHashSet::default(),
            region: None,
            depth: 0,
            collected: Vec::new(),
            last_leave: None,
            prelude: Some(0),
            pending: VecDeque::new(),
            done: false,
        }
    }

    fn error(&self, pos: u64, what: impl std::fmt::Display) -> ProgramError {
        let name = self
            .region
            .and_then(|(r, _)| self.layout.regions.get(&r))
            .map(|(n, _)| format!(" ({n})"))
            .unwrap_or_default();
        // The MPI layer names the rank; the origin names the file.
        let message = if pos == 0 {
            what.to_string()
        } else {
            format!("event {pos}{name}: {what}")
        };
        ProgramError {
            origin: Origin {
                source: self.file.clone(),
                line: pos,
            },
            message,
        }
    }

    fn next_event(&mut self) -> Result<Option<(u64, Event)>, ProgramError> {
        if let Some(e) = self.ahead.pop_front() {
            return Ok(Some(e));
        }
        self.source.next_event().map_err(|m| self.error(0, m))
    }

    fn push(&mut self, pos: u64, call: RecordedCall) -> Result<(), ProgramError> {
        let mut ops = Vec::new();
        self.mapper
            .ops(call, &mut ops)
            .map_err(|m| self.error(pos, m))?;
        let origin = Origin {
            source: self.file.clone(),
            line: pos,
        };
        self.pending
            .extend(ops.into_iter().map(|op| (op, origin.clone())));
        Ok(())
    }

    /// The next prelude step (one communicator), or false when done.
    fn prelude_step(&mut self) -> Result<bool, ProgramError> {
        let Some(i) = self.prelude else {
            return Ok(false);
        };
        let layout = self.layout.clone();
        let created = &layout.created;
        if i == 0 && !created.is_empty() {
            self.push(
                0,
                RecordedCall::CommGroup {
                    comm: Comm::Id(CommId::WORLD),
                    new: Group::Id(WORLD_GROUP),
                },
            )?;
        }
        if i == created.len() {
            if i > 0 {
                self.push(
                    0,
                    RecordedCall::GroupFree {
                        group: Group::Id(WORLD_GROUP),
                    },
                )?;
            }
            self.prelude = None;
            return Ok(true);
        }
        let info = layout.comms[&created[i]].clone();
        let calls = match &info.kind {
            CommKind::Sub(members) => vec![
                RecordedCall::GroupRanks {
                    group: Group::Id(WORLD_GROUP),
                    ranks: members.iter().map(|&r| r as i64).collect(),
                    new: Group::Id(NEW_GROUP),
                    excl: false,
                },
                RecordedCall::CommCreate {
                    comm: Comm::Id(CommId::WORLD),
                    group: Group::Id(NEW_GROUP),
                    new: members.contains(&self.rank).then_some(info.id),
                },
                RecordedCall::GroupFree {
                    group: Group::Id(NEW_GROUP),
                },
            ],
            // Every rank alone: a split with the rank as color.
            CommKind::SelfOnly => vec![RecordedCall::CommSplit {
                comm: Comm::Id(CommId::WORLD),
                color: self.rank as i32,
                key: 0,
                new: Some(info.id),
            }],
            CommKind::World => unreachable!("world is not created"),
        };
        for c in calls {
            self.push(0, c)?;
        }
        self.prelude = Some(i + 1);
        Ok(true)
    }

    fn is_mpi(&self, region: u32) -> bool {
        self.layout.regions.get(&region).is_some_and(|r| r.1)
    }

    fn handle(&mut self, pos: u64, ev: Event) -> Result<(), ProgramError> {
        match ev {
            Event::Enter { time, region } if self.is_mpi(region) => {
                if self.depth == 0 {
                    self.gap(pos, time)?;
                    self.region = Some((region, pos));
                }
                self.depth += 1;
            }
            Event::Leave { time, region } if self.is_mpi(region) => {
                if self.depth == 0 {
                    return Err(self.error(pos, "Leave of an MPI region that was not entered"));
                }
                self.depth -= 1;
                if self.depth == 0 {
                    let events = std::mem::take(&mut self.collected);
                    self.translate(&events)?;
                    self.collected = events;
                    self.collected.clear();
                    self.region = None;
                    self.last_leave = Some(time);
                }
            }
            Event::Enter { .. } | Event::Leave { .. } => {}
            ev if self.depth > 0 => self.collected.push((pos, ev)),
            // An MPI record outside any MPI region: a call of its own.
            ev => self.translate(&[(pos, ev)])?,
        }
        Ok(())
    }

    /// The computation from the last MPI region's end to `time`.
    fn gap(&mut self, pos: u64, time: u64) -> Result<(), ProgramError> {
        let Some(last) = self.last_leave else {
            return Ok(());
        };
        if time <= last {
            return Ok(());
        }
        let secs = (time - last) as f64 / self.layout.resolution as f64 * self.config.compute_scale;
        let d = Time::try_from_secs_f64(secs)
            .ok_or_else(|| self.error(pos, "computation gap too long"))?;
        if d > Time::ZERO && d >= self.config.min_compute {
            self.pending.push_back((
                Op::Compute { duration: d },
                Origin {
                    source: self.file.clone(),
                    line: pos,
                },
            ));
        }
        Ok(())
    }

    fn comm(&self, pos: u64, c: u32) -> Result<CommInfo, ProgramError> {
        self.layout.comm(c).cloned().map_err(|m| self.error(pos, m))
    }

    /// A point-to-point peer of communicator `c`.
    fn peer(&self, pos: u64, c: &CommInfo, p: u32) -> Result<Peer, ProgramError> {
        let size = c.size(self.layout.num_ranks());
        if p >= size {
            return Err(self.error(
                pos,
                format!("rank {p} does not exist in a communicator of {size} ranks"),
            ));
        }
        Ok(Peer::Rank(p))
    }

    /// Reads ahead to the completion of receive request `req`: its
    /// (sender, communicator, tag, size), or `None` if cancelled or never
    /// completed.
    fn find_irecv(
        &mut self,
        pos: u64,
        req: u64,
    ) -> Result<Option<(u32, u32, u32, u64)>, ProgramError> {
        let mut i = 0;
        loop {
            while let Some((_, e)) = self.ahead.get(i) {
                match *e {
                    Event::Irecv {
                        peer,
                        comm,
                        tag,
                        len,
                        req: r,
                    } if r == req => return Ok(Some((peer, comm, tag, len))),
                    Event::RequestCancelled { req: r } if r == req => return Ok(None),
                    _ => i += 1,
                }
            }
            if self.ahead.len() >= MAX_LOOKAHEAD {
                return Err(self.error(
                    pos,
                    format!(
                        "receive request {req} does not complete within the next {MAX_LOOKAHEAD} \
                         events (the reader looks no farther for its source, tag and size)"
                    ),
                ));
            }
            match self.source.next_event() {
                Ok(Some(e)) => self.ahead.push_back(e),
                Ok(None) => return Ok(None),
                Err(m) => return Err(self.error(0, m)),
            }
        }
    }

    /// The operations of one MPI region's events.
    fn translate(&mut self, events: &[(u64, Event)]) -> Result<(), ProgramError> {
        let sends = events
            .iter()
            .filter(|(_, e)| matches!(e, Event::Send { .. }))
            .count();
        let recvs = events
            .iter()
            .filter(|(_, e)| matches!(e, Event::Recv { .. }))
            .count();
        let sendrecv = sends == 1 && recvs == 1;
        let mut half: Option<(u64, Count, Peer, i32, CommInfo)> = None;
        let mut done: Vec<(u64, u64)> = Vec::new();
        for (i, (pos, e)) in events.iter().enumerate() {
            let pos = *pos;
            match *e {
                Event::Send {
                    peer,
                    comm,
                    tag,
                    len,
                } => {
                    let c = self.comm(pos, comm)?;
                    let dst = self.peer(pos, &c, peer)?;
                    let data = bytes(len).map_err(|m| self.error(pos, m))?;
                    if sendrecv {
                        half = Some((pos, data, dst, mpi_tag(tag), c));
                    } else {
                        let comm = c.recorded();
                        self.push(
                            pos,
                            RecordedCall::Send {
                                data,
                                dst,
                                tag: mpi_tag(tag),
                                comm,
                            },
                        )?;
                    }
                }
                Event::Recv {
                    peer,
                    comm,
                    tag,
                    len,
                } => {
                    let c = self.comm(pos, comm)?;
                    let src = self.peer(pos, &c, peer)?;
                    let data = bytes(len).map_err(|m| self.error(pos, m))?;
                    let tag = TagSel::Tag(mpi_tag(tag));
                    match half.take() {
                        Some((spos, send, dst, send_tag, sc)) if sc.id == c.id => self.push(
                            spos,
                            RecordedCall::Sendrecv {
                                send,
                                dst,
                                send_tag,
                                recv: data,
                                src,
                                recv_tag: tag,
                                comm: c.recorded(),
                            },
                        )?,
                        other => {
                            if let Some((spos, data, dst, tag, sc)) = other {
                                let comm = sc.recorded();
                                self.push(
                                    spos,
                                    RecordedCall::Send {
                                        data,
                                        dst,
                                        tag,
                                        comm,
                                    },
                                )?;
                            }
                            self.push(
                                pos,
                                RecordedCall::Recv {
                                    data,
                                    src,
                                    tag,
                                    comm: c.recorded(),
                                },
                            )?;
                        }
                    }
                }
                Event::Isend {
                    peer,
                    comm,
                    tag,
                    len,
                    req,
                } => {
                    let c = self.comm(pos, comm)?;
                    let dst = self.peer(pos, &c, peer)?;
                    let data = bytes(len).map_err(|m| self.error(pos, m))?;
                    self.push(
                        pos,
                        RecordedCall::Isend {
                            data,
                            dst,
                            tag: mpi_tag(tag),
                            comm: c.recorded(),
                            req,
                            persistent: false,
                        },
                    )?;
                }
                Event::IrecvRequest { req } => {
                    // Completed in this same region: posted there.
                    let here = events[i + 1..]
                        .iter()
                        .any(|(_, e)| matches!(*e, Event::Irecv { req: r, .. } if r == req));
                    if here {
                        continue;
                    }
                    if let Some((peer, comm, tag, len)) = self.find_irecv(pos, req)? {
                        self.post_irecv(pos, peer, comm, tag, len, req)?;
                        self.posted.insert(req);
                    }
                }
                Event::IsendComplete { req } => done.push((pos, req)),
                Event::Irecv {
                    peer,
                    comm,
                    tag,
                    len,
                    req,
                } => {
                    if !self.posted.remove(&req) {
                        // No request was recorded: post it where it completes.
                        self.post_irecv(pos, peer, comm, tag, len, req)?;
                    }
                    done.push((pos, req));
                }
                Event::CollectiveEnd {
                    op,
                    comm,
                    root,
                    sent,
                    received,
                } => {
                    let c = self.comm(pos, comm)?;
                    let me = c.rank_of(self.rank).ok_or_else(|| {
                        self.error(pos, format!("rank is not a member of communicator {comm}"))
                    })?;
                    let n = c.size(self.layout.num_ranks());
                    let call = collective(op, c.recorded(), me, n, root, sent, received)
                        .map_err(|m| self.error(pos, m))?;
                    if let Some(call) = call {
                        self.push(pos, call)?;
                    }
                }
                Event::RequestTest { .. }
                | Event::RequestCancelled { .. }
                | Event::CollectiveBegin
                | Event::Enter { .. }
                | Event::Leave { .. } => {}
            }
        }
        if let Some((spos, data, dst, tag, sc)) = half {
            let comm = sc.recorded();
            self.push(
                spos,
                RecordedCall::Send {
                    data,
                    dst,
                    tag,
                    comm,
                },
            )?;
        }
        if let Some(&(pos, _)) = done.first() {
            let test = self
                .region
                .and_then(|(r, _)| self.layout.regions.get(&r))
                .is_some_and(|(n, _)| n.starts_with("MPI_Test"));
            let reqs: Vec<Option<ReqId>> = done.iter().map(|&(_, r)| Some(ReqId(r))).collect();
            if test {
                for req in reqs {
                    self.push(pos, RecordedCall::Test { req })?;
                }
            } else if reqs.len() == 1 {
                self.push(pos, RecordedCall::Wait { req: reqs[0] })?;
            } else {
                self.push(pos, RecordedCall::Waitall { reqs })?;
            }
        }
        Ok(())
    }

    fn post_irecv(
        &mut self,
        pos: u64,
        peer: u32,
        comm: u32,
        tag: u32,
        len: u64,
        req: u64,
    ) -> Result<(), ProgramError> {
        let c = self.comm(pos, comm)?;
        let src = self.peer(pos, &c, peer)?;
        let data = bytes(len).map_err(|m| self.error(pos, m))?;
        self.push(
            pos,
            RecordedCall::Irecv {
                data,
                src,
                tag: TagSel::Tag(mpi_tag(tag)),
                comm: c.recorded(),
                req,
                persistent: false,
            },
        )
    }
}

impl<S: EventSource> OpStream for RankStream<S> {
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        loop {
            if let Some(x) = self.pending.pop_front() {
                return Ok(Some(x));
            }
            if self.done {
                return Ok(None);
            }
            if self.prelude_step()? {
                continue;
            }
            match self.next_event()? {
                Some((pos, ev)) => self.handle(pos, ev)?,
                None => {
                    if self.depth > 0 {
                        let pos = self.region.map_or(0, |r| r.1);
                        return Err(self.error(
                            pos,
                            "the events end inside an MPI region (a truncated event file?)",
                        ));
                    }
                    self.done = true;
                }
            }
        }
    }
}

/// An OTF2 message tag as MPI's: OTF2 records the program's `int` tag
/// as a `uint32_t`, so the same 32 bits give the `int` back (no value
/// is lost).
fn mpi_tag(t: u32) -> i32 {
    i32::from_ne_bytes(t.to_ne_bytes())
}

#[cfg(test)]
#[path = "tests_stream.rs"]
mod tests;
