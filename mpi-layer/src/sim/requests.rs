//! Requests: the simulator's request table, the program's request names
//! (`ReqId`s) and MPI's completion rules for wait, waitall, waitany and
//! test.

use super::control::{Failed, Next, Resume, Run};
use super::host::Job;
use super::{Ev, Sim};
use crate::observe::Observer;
use crate::op::{OpStream, Origin, ReqId};
use rustc_hash::FxHashMap;
use sim_core::Scheduler;
use std::sync::Arc;
use topology::Transport;

type Sch<'a, NE> = Scheduler<'a, Ev<NE>>;

/// Ids per group of [`UserReqs`].
const GROUP: u64 = 8;
const NO_REQ: u32 = u32::MAX;

/// The requests of [`GROUP`] consecutive ids of one rank.
#[derive(Clone, Copy, Debug)]
struct Group([u32; GROUP as usize]);

impl Default for Group {
    fn default() -> Self {
        Group([NO_REQ; GROUP as usize])
    }
}

/// The user requests in flight: (rank, id) to the simulator's request.
///
/// Programs and readers name a rank's requests with consecutive ids
/// (workloads reuse a few, trace readers count up), and a rank posts and
/// frees them in bursts, so the table keeps the ids of a rank in groups
/// of eight consecutive ones, one slot each: a burst of requests touches
/// one slot per eight, where a slot per request took a cache miss each
/// (on halo27 P = 4096 in flow mode, `user_req` and the map's removals
/// were 18 % of the profile; `farm-bench` paired CPU after / before: 0.86
/// there, 0.77 in packet mode, 0.90 on pairs-1m).
#[derive(Default)]
pub(super) struct UserReqs {
    groups: crate::probe::ProbeMap<(u32, u64), Group>,
}

impl UserReqs {
    fn split(r: u32, id: u64) -> ((u32, u64), usize) {
        ((r, id / GROUP), (id % GROUP) as usize)
    }

    pub(super) fn get(&self, r: u32, id: u64) -> Option<u32> {
        let (k, i) = Self::split(r, id);
        let q = self.groups.get(k)?.0[i];
        (q != NO_REQ).then_some(q)
    }

    pub(super) fn contains(&self, r: u32, id: u64) -> bool {
        self.get(r, id).is_some()
    }

    /// Files `req` under absent (`r`, `id`).
    fn insert(&mut self, r: u32, id: u64, req: u32) {
        let (k, i) = Self::split(r, id);
        self.groups.entry_default(k).0[i] = req;
    }

    fn remove(&mut self, r: u32, id: u64) -> Option<u32> {
        let (k, i) = Self::split(r, id);
        let g = self.groups.get_mut(k)?;
        let q = std::mem::replace(&mut g.0[i], NO_REQ);
        if g.0.iter().all(|&x| x == NO_REQ) {
            self.groups.remove(k);
        }
        (q != NO_REQ).then_some(q)
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Req {
    pub owner: u32,
    /// The graph program's operation this request is, or `NONE`.
    pub graph: u32,
    pub done: bool,
    pub waited: bool,
    pub live: bool,
    /// A program's receive: its [`RecvCheck`] is in `recvs` at the same
    /// index. Other requests (sends, collectives' steps) have none and
    /// never touch that table.
    pub checked: bool,
}

/// A program's receive, beside its request (same index; kept apart so
/// that [`Req`] stays 16 bytes on the hot path): its buffer size and where
/// it came from, for MPI_ERR_TRUNCATE. The table grows only as far as the
/// highest request that is a program's receive: a collective's millions
/// of requests neither fill it nor read it. 24 bytes: the origin's source
/// is an index into [`RecvChecks`]' sources (a million receives posted at
/// once, bcast P = 2^20, had held 48 bytes each).
#[derive(Clone, Copy, Debug)]
pub(super) struct RecvCheck {
    /// The receive buffer \[bytes\]: a message that matches it with more
    /// bytes is an error. `u64::MAX` in a slot no program receive holds
    /// (read only when [`Req::checked`] says the slot is one).
    pub cap: u64,
    /// Its origin's line ([`Origin::line`]).
    line: u64,
    /// Its origin's source in [`RecvChecks::sources`], or [`NO_SOURCE`]:
    /// no check.
    source: u32,
    /// The receiving call.
    what: RecvCall,
}

/// No receive in this slot.
const NO_SOURCE: u32 = u32::MAX;

/// The call a checked receive came from (named in the error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RecvCall {
    Irecv,
    Recv,
    Sendrecv,
}

impl RecvCall {
    fn name(self) -> &'static str {
        match self {
            RecvCall::Irecv => "irecv",
            RecvCall::Recv => "recv",
            RecvCall::Sendrecv => "sendrecv",
        }
    }
}

impl RecvCheck {
    const NONE: RecvCheck = RecvCheck {
        cap: u64::MAX,
        line: 0,
        source: NO_SOURCE,
        what: RecvCall::Irecv,
    };
}

/// The [`RecvCheck`]s by request, and the distinct sources their origins
/// name (one per trace file; every operation's [`Origin`] clones its
/// file's `Arc`, found here by address).
#[derive(Default)]
pub(super) struct RecvChecks {
    slots: Vec<RecvCheck>,
    sources: Vec<Arc<str>>,
    index: FxHashMap<usize, u32>,
}

impl RecvChecks {
    /// Slot `i` holds a receive of a `cap`-byte buffer made by `what` at
    /// `origin`.
    fn mark(&mut self, i: u32, cap: u64, what: RecvCall, origin: &Origin) {
        if self.slots.len() <= i as usize {
            self.slots.resize(i as usize + 1, RecvCheck::NONE);
        }
        let source = match self.sources.last() {
            Some(s) if Arc::ptr_eq(s, &origin.source) => self.sources.len() as u32 - 1,
            _ => {
                let key = Arc::as_ptr(&origin.source) as *const u8 as usize;
                let next = self.sources.len() as u32;
                let id = *self.index.entry(key).or_insert(next);
                if id == next {
                    self.sources.push(origin.source.clone());
                }
                id
            }
        };
        self.slots[i as usize] = RecvCheck {
            cap,
            line: origin.line,
            source,
            what,
        };
    }

    /// Slot `i` holds no receive.
    fn clear(&mut self, i: u32) {
        self.slots[i as usize] = RecvCheck::NONE;
    }

    /// Slot `i`'s buffer size (`u64::MAX` for none).
    pub(super) fn cap(&self, i: u32) -> u64 {
        self.slots.get(i as usize).map_or(u64::MAX, |c| c.cap)
    }

    /// The call and origin of the receive in slot `i`, if it holds one.
    pub(super) fn posted(&self, i: u32) -> Option<(&'static str, Origin)> {
        let c = self.slots.get(i as usize)?;
        let source = self.sources.get(c.source as usize)?.clone();
        Some((
            c.what.name(),
            Origin {
                source,
                line: c.line,
            },
        ))
    }
}

impl<T: Transport, S: OpStream, O: Observer> Sim<T, S, O> {
    pub(super) fn new_req(&mut self, owner: u32) -> u32 {
        let r = Req {
            owner,
            graph: super::NONE,
            done: false,
            waited: false,
            live: true,
            checked: false,
        };
        match self.free_reqs.pop() {
            Some(i) => {
                self.reqs[i as usize] = r;
                i
            }
            None => {
                self.reqs.push(r);
                (self.reqs.len() - 1) as u32
            }
        }
    }

    /// Request `i` is the program's receive `what` at `origin` with a
    /// buffer of `cap` bytes: a longer message matching it is an error.
    pub(super) fn mark_recv(&mut self, i: u32, cap: u64, what: RecvCall, origin: &Origin) {
        self.reqs[i as usize].checked = true;
        self.recvs.mark(i, cap, what, origin);
    }

    pub(super) fn free_req(&mut self, i: u32) {
        debug_assert!(self.reqs[i as usize].live);
        let req = &mut self.reqs[i as usize];
        req.live = false;
        if req.checked {
            req.checked = false;
            self.recvs.clear(i);
        }
        self.free_reqs.push(i);
    }

    /// Request `i` completes now; if its owner waits for it and nothing
    /// else, the owner's program goes on (as a job on its core, in time
    /// order with the core's other work).
    pub(super) fn complete(&mut self, s: &mut Sch<'_, T::Event>, i: u32) {
        let req = &mut self.reqs[i as usize];
        debug_assert!(req.live && !req.done);
        req.done = true;
        if req.graph != super::NONE {
            let (owner, g) = (req.owner, req.graph);
            self.free_req(i);
            let look = self.programs[owner as usize].completed(g);
            self.ranks[owner as usize].graph_live -= 1;
            if look {
                self.visit(s, owner);
            }
            return;
        }
        if !req.waited {
            return;
        }
        let owner = req.owner;
        let rk = &mut self.ranks[owner as usize];
        if rk.run != Run::Blocked || rk.waiting == 0 {
            return;
        }
        if rk.resume == Resume::WaitAny {
            rk.waiting = 0;
        } else {
            rk.waiting -= 1;
        }
        if rk.waiting == 0 {
            self.submit(s, owner, Job::Resume(owner), false);
        }
    }

    pub(super) fn lookup(&self, r: u32, id: ReqId) -> Option<u32> {
        self.user.get(r, id.0)
    }

    pub(super) fn free_user(&mut self, r: u32, id: ReqId) {
        if let Some(i) = self.user.remove(r, id.0) {
            self.free_req(i);
            self.ranks[r as usize].live_user -= 1;
        }
    }

    pub(super) fn user_req(&mut self, r: u32, id: ReqId, origin: &Origin) -> Result<u32, Failed> {
        if self.user.contains(r, id.0) {
            return Err(self.fail(r, origin, format!("request {} is already in flight", id.0)));
        }
        if self.has_tested(r) {
            let t = self.tested.get_mut(&r).expect("has tested");
            t.retain(|&q| q != id.0);
            if t.is_empty() {
                self.tested.remove(&r);
            }
        }
        let i = self.new_req(r);
        self.user.insert(r, id.0, i);
        let rk = &mut self.ranks[r as usize];
        rk.live_user += 1;
        rk.user_reqs.push(id.0);
        // Forget freed ids now and then so the list tracks live requests.
        if rk.user_reqs.len() > 64 && rk.user_reqs.len() > 2 * rk.live_user as usize {
            let mut ids = std::mem::take(&mut self.ranks[r as usize].user_reqs);
            ids.sort_unstable();
            ids.dedup();
            ids.retain(|&q| self.user.contains(r, q));
            self.ranks[r as usize].user_reqs = ids;
        }
        Ok(i)
    }

    /// Whether `id` names a request a `Test` already completed (now
    /// `MPI_REQUEST_NULL`); forgets it, as waiting on it consumes the name.
    pub(super) fn null_by_test(&mut self, r: u32, id: ReqId) -> bool {
        if !self.has_tested(r) || self.lookup(r, id).is_some() {
            return false;
        }
        let t = self.tested.get_mut(&r).expect("has tested");
        match t.iter().position(|&q| q == id.0) {
            Some(k) => {
                t.swap_remove(k);
                if t.is_empty() {
                    self.tested.remove(&r);
                }
                true
            }
            None => false,
        }
    }

    /// Whether rank `r` has requests a `Test` completed (see
    /// [`Sim::tested`]).
    pub(super) fn has_tested(&self, r: u32) -> bool {
        !self.tested.is_empty() && self.tested.contains_key(&r)
    }

    /// `reqs` without the ones a `Test` already completed.
    pub(super) fn live_reqs(&mut self, r: u32, reqs: &[ReqId]) -> Vec<ReqId> {
        reqs.iter()
            .copied()
            .filter(|&q| !self.null_by_test(r, q))
            .collect()
    }

    pub(super) fn known(&mut self, r: u32, id: ReqId, origin: &Origin) -> Result<u32, Failed> {
        self.lookup(r, id)
            .ok_or_else(|| self.fail(r, origin, format!("request {} is unknown", id.0)))
    }

    pub(super) fn internal_req(&mut self, r: u32) -> u32 {
        let i = self.new_req(r);
        self.reqs[i as usize].waited = true;
        self.ranks[r as usize].internal.push(i);
        i
    }

    pub(super) fn free_internal(&mut self, r: u32) {
        // Taken and given back, so that a list that spilled keeps its
        // heap buffer for the rank's next steps.
        let mut list = std::mem::take(&mut self.ranks[r as usize].internal);
        for &i in &list {
            self.free_req(i);
        }
        list.clear();
        self.ranks[r as usize].internal = list;
    }

    pub(super) fn finish_waitany(&mut self, r: u32, reqs: &[ReqId]) {
        let mut freed = false;
        for &q in reqs {
            if let Some(i) = self.lookup(r, q) {
                self.reqs[i as usize].waited = false;
                if !freed && self.reqs[i as usize].done {
                    self.free_user(r, q);
                    freed = true;
                }
            }
        }
    }

    pub(super) fn waitall(
        &mut self,
        r: u32,
        reqs: &[ReqId],
        origin: &Origin,
        pending: bool,
    ) -> Result<Next, Failed> {
        let mut left = 0;
        for &q in reqs {
            let i = self.known(r, q, origin)?;
            let rq = &mut self.reqs[i as usize];
            if !rq.done && !rq.waited {
                rq.waited = true;
                left += 1;
            }
        }
        if left == 0 {
            for &q in reqs {
                self.free_user(r, q);
            }
            if pending {
                self.ranks[r as usize].user_reqs.clear();
            }
            return Ok(Next::Continue);
        }
        Ok(self.block(r, Resume::FreeNamed, left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::rand::Rng;

    /// Receive checks give back the origin they were marked with, each
    /// source by its own `Arc` (sources taken in any order, some twice,
    /// equal text in two `Arc`s kept apart), and nothing for a cleared
    /// or never marked slot.
    #[test]
    fn receive_checks_keep_their_origins() {
        let mut rng = sim_core::RngStreams::new(9).stream("recv-checks");
        let files: Vec<Arc<str>> = ["a.trace", "b.trace", "c.trace", "a.trace"]
            .into_iter()
            .map(Arc::from)
            .collect();
        let calls = [RecvCall::Irecv, RecvCall::Recv, RecvCall::Sendrecv];
        let mut t = RecvChecks::default();
        let mut model: Vec<Option<(u64, RecvCall, usize, u64)>> = vec![None; 64];
        for _ in 0..2000 {
            let i = rng.random_range(0..64u32);
            if rng.random_bool(0.2) && model[i as usize].is_some() {
                t.clear(i);
                model[i as usize] = None;
            } else if rng.random_bool(0.8) {
                let (cap, f, line) = (
                    rng.random_range(0..1u64 << 40),
                    rng.random_range(0..4),
                    rng.random_range(1..1u64 << 40),
                );
                let what = calls[rng.random_range(0..3)];
                let o = Origin {
                    source: files[f].clone(),
                    line,
                };
                t.mark(i, cap, what, &o);
                model[i as usize] = Some((cap, what, f, line));
            }
            for (j, m) in model.iter().enumerate() {
                let j = j as u32;
                match *m {
                    Some((cap, what, f, line)) => {
                        assert_eq!(t.cap(j), cap);
                        let (w, o) = t.posted(j).expect("marked");
                        assert_eq!(w, what.name());
                        assert!(Arc::ptr_eq(&o.source, &files[f]));
                        assert_eq!(o.line, line);
                    }
                    None => {
                        assert_eq!(t.cap(j), u64::MAX);
                        assert!(t.posted(j).is_none());
                    }
                }
            }
        }
        assert_eq!(t.sources.len(), 4, "each source once");
    }

    /// The grouped table against std's map: ids dense, sparse and at the
    /// top of the range, across group boundaries, of several ranks.
    #[test]
    fn user_requests_behave_as_a_map() {
        let mut rng = sim_core::RngStreams::new(5).stream("user-reqs");
        let mut t = UserReqs::default();
        let mut m = FxHashMap::default();
        for step in 0..100_000u32 {
            let r = rng.random_range(0..3u32);
            let id = match rng.random_range(0..3) {
                0 => rng.random_range(0..40u64),
                1 => rng.random_range(0..40u64) * 1_000_003,
                _ => u64::MAX - rng.random_range(0..20u64),
            };
            if rng.random_bool(0.5) && !m.contains_key(&(r, id)) {
                t.insert(r, id, step);
                m.insert((r, id), step);
            } else {
                assert_eq!(t.remove(r, id), m.remove(&(r, id)), "step {step}");
            }
            assert_eq!(t.get(r, id), m.get(&(r, id)).copied(), "step {step}");
            assert_eq!(t.contains(r, id ^ 1), m.contains_key(&(r, id ^ 1)));
        }
        // Every group left holds a live request: none was left empty.
        let live: rustc_hash::FxHashSet<_> = m.keys().map(|&(r, id)| (r, id / GROUP)).collect();
        assert_eq!(t.groups.len(), live.len());
    }
}
