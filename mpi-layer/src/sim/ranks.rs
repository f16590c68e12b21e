//! Ranks: each runs its program of [`Op`]s on its core, one operation at
//! a time; blocking calls, collectives (one step at a time) and
//! communicator creation.
//!
//! A program goes on only when its core is free of the work it waits for
//! (see `host.rs`): an `Isend` returns when its CPU part is done, a
//! `Compute` when the computation is. With progress engines the MPI work
//! runs on the engine and the program does not wait for it.

use super::NONE;
use super::control::{Failed, Next, Resume, Run};
use super::host::{Job, Port, Server};
use super::local::Loc;
use super::requests::RecvCall;
use super::{Ev, RunError, Sim};
use crate::collectives::{self, CollRun};
use crate::matching::{PostedRecv, Queues};
use crate::observe::Observer;
use crate::op::{
    CommId, GraphOp, Op, OpStream, Origin, ProgramError, Rank, Ready, ReqId, Source, TagSel,
};
use crate::params::MatcherKind;
use sim_core::{Schedule, Scheduler, Time, transfer_time};
use thin_vec::ThinVec;
use topology::Transport;

type Sch<'a, NE> = Scheduler<'a, Ev<NE>>;

/// A communicator as one rank knows it.
#[derive(Clone, Copy, Debug)]
pub(super) struct CommEntry {
    pub id: CommId,
    pub global: u32,
    pub me: u32,
    pub creations: u32,
    /// Collectives started on it (wrapping, as `coll_seq`).
    pub colls: u16,
}

/// One rank's state. At a million ranks the states do not fit in any
/// cache and every step of a collective visits each of them, so the
/// layout is fixed (`repr(C)`) with what every step touches first: the
/// run state, the core, the port, the collective and the internal
/// requests in the first 112 bytes, then the match queues (whose oldest
/// posted receive sits at their start), then what ranks touch once per
/// operation or rarely. Rust's own ordering (by alignment) had spread one
/// step's fields over five cache lines.
#[repr(C)]
pub(super) struct RankState {
    pub run: Run,
    /// Inside [`Sim::advance`].
    pub active: bool,
    pub resume: Resume,
    pub waiting: u32,
    /// The rank's core.
    pub core: Server,
    /// The global index of the collective's communicator, resolved when
    /// it starts (a rank in a collective cannot free it meanwhile).
    pub coll_comm: u32,
    /// Sequence number of the collective in progress on its
    /// communicator (part of its tags, which keep its low 11 bits: u16
    /// wraps at a multiple of 2048, so nothing is lost).
    pub coll_seq: u16,
    /// Collectives started on `MPI_COMM_WORLD` (wrapping, as `coll_seq`).
    pub world_colls: u16,
    pub world_creations: u32,
    /// The rank's own port (network interface 0).
    pub port: Port,
    /// The collective in progress (its operation is `cur`'s).
    pub coll: Option<CollRun>,
    pub internal: Internal,
    pub queues: Queues,
    /// The operation the rank is blocked in or the collective's, boxed:
    /// 8 bytes in every rank's state instead of 88, one allocation per
    /// blocking call that waits (graph programs never set it).
    pub cur: Option<Box<(Op, Origin)>>,
    pub finish: Time,
    pub live_user: u32,
    /// A graph program's operations issued and not yet completed.
    pub graph_live: u32,
    /// The user request ids it made (for `WaitallPending`), and the
    /// communicators it created: one pointer each (see [`ThinVec`]),
    /// since most programs use neither and a million ranks carry them.
    pub user_reqs: ThinVec<u64>,
    pub comms: ThinVec<CommEntry>,
}

impl RankState {
    pub(super) fn new(matcher: MatcherKind) -> Self {
        RankState {
            run: Run::Ready,
            active: false,
            resume: Resume::Nothing,
            waiting: 0,
            core: Server::default(),
            port: Port::default(),
            finish: Time::ZERO,
            cur: None,
            coll: None,
            coll_comm: 0,
            coll_seq: 0,
            world_colls: 0,
            world_creations: 0,
            comms: ThinVec::new(),
            queues: Queues::new(matcher),
            internal: Internal::default(),
            user_reqs: ThinVec::new(),
            live_user: 0,
            graph_live: 0,
        }
    }
}

/// A rank's internal requests (a blocking call's, a collective step's),
/// in the order made: the first two inline in the rank's state (a
/// sendrecv, a step of recursive doubling), more on the heap.
pub(super) type Internal = smallvec::SmallVec<[u32; 2]>;

impl<T: Transport, S: OpStream, O: Observer> Sim<T, S, O> {
    /// Rank `r`'s operation at `origin` is an error of its program: the
    /// run's error (the first one) says so.
    pub(super) fn fail(&mut self, r: u32, origin: &Origin, message: String) -> Failed {
        if self.error.is_none() {
            self.error = Some(RunError::Semantic {
                rank: r,
                origin: origin.clone(),
                message,
            });
        }
        Failed
    }

    pub(super) fn block(&mut self, r: u32, resume: Resume, waiting: u32) -> Next {
        let rk = &mut self.ranks[r as usize];
        rk.run = Run::Blocked;
        rk.resume = resume;
        rk.waiting = waiting;
        Next::Blocked
    }

    /// Rank `r` may continue: finish what it was blocked in, then run.
    pub(super) fn unblock(&mut self, s: &mut Sch<'_, T::Event>, r: u32) {
        if self.error.is_some() || self.ranks[r as usize].run == Run::Finished {
            return;
        }
        self.ranks[r as usize].run = Run::Ready;
        if O::ENABLED {
            self.obs.resumed(r, s.now());
        }
        let resume = std::mem::replace(&mut self.ranks[r as usize].resume, Resume::Nothing);
        match resume {
            Resume::Nothing => {
                if self.ranks[r as usize].coll.is_none() {
                    self.ranks[r as usize].cur = None;
                }
            }
            Resume::Internal => {
                self.free_internal(r);
                self.ranks[r as usize].cur = None;
            }
            Resume::FreeNamed => {
                let (op, _) = *self.ranks[r as usize].cur.take().expect("op");
                match op {
                    Op::Wait { req } => self.free_user(r, req),
                    Op::Waitall { reqs } => {
                        for q in reqs {
                            self.free_user(r, q);
                        }
                    }
                    Op::WaitallPending => {
                        let ids = std::mem::take(&mut self.ranks[r as usize].user_reqs);
                        for q in ids {
                            self.free_user(r, ReqId(q));
                        }
                    }
                    _ => unreachable!("FreeNamed after {op:?}"),
                }
            }
            Resume::WaitAny => {
                let (op, _) = *self.ranks[r as usize].cur.take().expect("op");
                if let Op::Waitany { reqs } = op {
                    self.finish_waitany(r, &reqs);
                }
            }
            Resume::CollRound => {
                self.free_internal(r);
                let reduce = self.ranks[r as usize].coll.as_ref().expect("coll").reduce;
                if reduce > 0 && self.params.collectives.charge_reductions {
                    let d = transfer_time(reduce, self.params.collectives.reduce_rate);
                    self.block(r, Resume::CollNext, 0);
                    if !self.submit(s, r, Job::Compute(r, d, NONE), true) {
                        return;
                    }
                    self.ranks[r as usize].run = Run::Ready;
                    self.ranks[r as usize].resume = Resume::Nothing;
                }
                self.ranks[r as usize].coll.as_mut().expect("coll").step += 1;
            }
            Resume::CollNext => {
                self.ranks[r as usize].coll.as_mut().expect("coll").step += 1;
            }
        }
        self.advance(s, r);
    }

    /// Runs rank `r`'s program until it blocks or ends.
    ///
    /// Not re-entrant per rank: an operation's work done at once may
    /// complete the very request the rank just blocked on, which unblocks
    /// it from inside this loop; the loop then goes on instead of a
    /// nested run.
    pub(super) fn advance(&mut self, s: &mut Sch<'_, T::Event>, r: u32) {
        if self.ranks[r as usize].active {
            return;
        }
        self.ranks[r as usize].active = true;
        if self.programs[r as usize].is_graph() {
            self.graph_advance(s, r);
            self.ranks[r as usize].active = false;
            return;
        }
        loop {
            if self.error.is_some() || self.ranks[r as usize].run != Run::Ready {
                break;
            }
            if self.ranks[r as usize].coll.is_some() {
                self.coll_step(s, r);
                continue;
            }
            match self.programs[r as usize].next_op() {
                Err(error) => {
                    self.error = Some(RunError::Program { rank: r, error });
                    break;
                }
                Ok(None) => {
                    let rk = &mut self.ranks[r as usize];
                    rk.run = Run::Finished;
                    rk.finish = s.now();
                    rk.cur = None;
                    if O::ENABLED {
                        self.obs.finished(r, s.now());
                    }
                    break;
                }
                Ok(Some((op, origin))) => {
                    if let Err(e) = op.check_limits() {
                        self.error = Some(RunError::Program {
                            rank: r,
                            error: ProgramError {
                                origin,
                                message: e.to_string(),
                            },
                        });
                        break;
                    }
                    if O::ENABLED {
                        self.obs.op(r, &op, &origin, s.now());
                    }
                    self.execute(s, r, op, origin)
                }
            }
        }
        self.ranks[r as usize].active = false;
        if O::ENABLED && self.ranks[r as usize].run == Run::Blocked {
            self.obs.blocked(r, s.now());
        }
    }

    /// Runs a graph program's ready operations, each nonblocking on the CPU
    /// and interface it names; waits when none is ready; ends when all
    /// were handed out and completed.
    fn graph_advance(&mut self, s: &mut Sch<'_, T::Event>, r: u32) {
        while self.error.is_none() && self.ranks[r as usize].run == Run::Ready {
            match self.programs[r as usize].next_ready() {
                Err(error) => self.error = Some(RunError::Program { rank: r, error }),
                Ok(Ready::Op(g)) => self.graph_issue(s, r, g),
                Ok(Ready::End) if self.ranks[r as usize].graph_live == 0 => {
                    let rk = &mut self.ranks[r as usize];
                    rk.run = Run::Finished;
                    rk.finish = s.now();
                    rk.cur = None;
                    if O::ENABLED {
                        self.obs.finished(r, s.now());
                    }
                }
                Ok(Ready::End | Ready::Wait) => {
                    self.block(r, Resume::Nothing, 0);
                }
            }
        }
    }

    /// Issues graph operation `g` of rank `r`.
    fn graph_issue(&mut self, s: &mut Sch<'_, T::Event>, r: u32, g: GraphOp) {
        if let Err(e) = g.op.check_limits() {
            self.error = Some(RunError::Program {
                rank: r,
                error: ProgramError {
                    origin: g.origin,
                    message: e.to_string(),
                },
            });
            return;
        }
        let req = self.new_req(r);
        self.reqs[req as usize].graph = g.id;
        self.ranks[r as usize].graph_live += 1;
        let origin = &g.origin;
        let issued = match g.op {
            Op::Isend {
                dst,
                tag,
                bytes,
                comm,
                ..
            } => self.resolve(r, comm, origin).and_then(|(cg, _, size)| {
                let d = self.peer(r, cg, size, dst, origin)?;
                self.post_send(s, r, d, 2 * cg, tag, bytes, req, false, (g.cpu, g.nic));
                Ok(())
            }),
            Op::Irecv {
                src,
                tag,
                comm,
                bytes,
                ..
            } => {
                self.mark_recv(req, bytes, RecvCall::Irecv, origin);
                self.posted_recv(r, src, tag, comm, origin, req).map(|p| {
                    self.post_recv(s, r, p, false, g.cpu);
                })
            }
            Op::Compute { duration } => {
                let id = self.cpu_of(r, g.cpu);
                self.submit(s, id, Job::Compute(r, duration, req), false);
                Ok(())
            }
            ref op => Err(self.fail(
                r,
                origin,
                format!("a graph program runs isend, irecv and compute only, not {op}"),
            )),
        };
        let _ = issued;
    }

    /// A graph program's operation of rank `r` started or completed: run
    /// what became ready.
    pub(super) fn graph_nudge(&mut self, s: &mut Sch<'_, T::Event>, r: u32) {
        let rk = &mut self.ranks[r as usize];
        if self.error.is_some() || rk.run == Run::Finished {
            return;
        }
        rk.run = Run::Ready;
        self.advance(s, r);
    }

    /// Drives the collective of rank `r`: posts the next non-empty step
    /// and blocks, or ends the collective.
    fn coll_step(&mut self, s: &mut Sch<'_, T::Event>, r: u32) -> Next {
        let mut out = std::mem::take(&mut self.scratch);
        loop {
            let rk = &self.ranks[r as usize];
            let coll = rk.coll.as_ref().expect("coll");
            let counts = if coll.alg.reads_counts() {
                collectives::counts(&rk.cur.as_ref().expect("coll op").0)
            } else {
                collectives::NO_COUNTS
            };
            let Some(reduce) = coll.plan(counts, &mut out) else {
                let rk = &mut self.ranks[r as usize];
                rk.coll = None;
                rk.cur = None;
                self.scratch = out;
                return Next::Continue;
            };
            if out.is_empty() {
                self.ranks[r as usize].coll.as_mut().expect("coll").step += 1;
                continue;
            }
            let (step, g) = (coll.step, rk.coll_comm);
            let seq = self.ranks[r as usize].coll_seq as u32;
            let tag = (((seq & 0x7ff) << 20) | (step & 0xf_ffff)) as i32;
            let ctx = 2 * g + 1;
            let n = out.len() as u32;
            // Block first: a request may complete while the step is posted.
            self.ranks[r as usize].coll.as_mut().expect("coll").reduce = reduce;
            self.block(r, Resume::CollRound, n);
            for o in &out {
                let peer = self.member(g, o.peer);
                let req = self.new_req(r);
                self.reqs[req as usize].waited = true;
                self.ranks[r as usize].internal.push(req);
                if o.send {
                    self.post_send(s, r, peer, ctx, tag, o.bytes, req, false, (0, 0));
                } else {
                    let p = PostedRecv {
                        ctx,
                        src: Some(peer),
                        tag: Some(tag),
                        req,
                    };
                    self.post_recv(s, r, p, false, 0);
                }
            }
            self.scratch = out;
            return Next::Blocked;
        }
    }

    // ----- communicators -------------------------------------------------

    pub(super) fn peer(
        &mut self,
        r: u32,
        g: u32,
        size: u32,
        peer: Rank,
        origin: &Origin,
    ) -> Result<u32, Failed> {
        if peer >= size {
            return Err(self.fail(
                r,
                origin,
                format!("rank {peer} is outside the communicator (size {size})"),
            ));
        }
        Ok(self.member(g, peer))
    }

    /// A send named by the program; `Ok(false)` if the program waits for
    /// its CPU part.
    #[allow(clippy::too_many_arguments)]
    fn isend(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        dst: Rank,
        tag: i32,
        bytes: u64,
        comm: CommId,
        origin: &Origin,
        req: u32,
        program: bool,
    ) -> Result<bool, Failed> {
        let (g, _, size) = self.resolve(r, comm, origin)?;
        let d = self.peer(r, g, size, dst, origin)?;
        Ok(self.post_send(s, r, d, 2 * g, tag, bytes, req, program, (0, 0)))
    }

    /// The posted receive an `Irecv` of rank `r` names, its source and
    /// communicator resolved.
    fn posted_recv(
        &mut self,
        r: u32,
        src: Source,
        tag: TagSel,
        comm: CommId,
        origin: &Origin,
        req: u32,
    ) -> Result<PostedRecv, Failed> {
        let (g, _, size) = self.resolve(r, comm, origin)?;
        let src = match src {
            Source::Any => None,
            Source::Rank(x) => Some(self.peer(r, g, size, x, origin)?),
        };
        let tag = match tag {
            TagSel::Any => None,
            TagSel::Tag(t) => Some(t),
        };
        Ok(PostedRecv {
            ctx: 2 * g,
            src,
            tag,
            req,
        })
    }

    /// A receive named by the program; `Ok(false)` if the program waits
    /// for its search.
    #[allow(clippy::too_many_arguments)]
    fn irecv(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        src: Source,
        tag: TagSel,
        comm: CommId,
        origin: &Origin,
        req: u32,
        program: bool,
    ) -> Result<bool, Failed> {
        let p = self.posted_recv(r, src, tag, comm, origin, req)?;
        Ok(self.post_recv(s, r, p, program, 0))
    }

    /// Continue if a job the program waits for is done, else wait for it.
    fn go_on(&mut self, r: u32, done: bool) -> Next {
        if done {
            Next::Continue
        } else {
            self.block(r, Resume::Nothing, 0)
        }
    }

    /// Executes one operation of rank `r`; remembers it (for diagnostics
    /// and waits) if the rank is still blocked in it.
    fn execute(&mut self, s: &mut Sch<'_, T::Event>, r: u32, op: Op, origin: Origin) {
        if let Ok(Next::Continue) = self.execute_inner(s, r, &op, &origin) {
            // A collective just started (its steps run from `advance`,
            // which calls this only between collectives): its operation
            // is kept for `CollRun::plan` and for reports.
            let rk = &mut self.ranks[r as usize];
            if rk.coll.is_some() {
                rk.cur = Some(Box::new((op, origin)));
            }
            return;
        }
        if self.error.is_none() {
            let rk = &mut self.ranks[r as usize];
            if rk.run == Run::Blocked && rk.cur.is_none() {
                rk.cur = Some(Box::new((op, origin)));
            }
        }
    }

    fn execute_inner(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        op: &Op,
        origin: &Origin,
    ) -> Result<Next, Failed> {
        let now = s.now();
        match *op {
            Op::Send {
                dst,
                tag,
                bytes,
                comm,
            } => {
                let req = self.internal_req(r);
                self.block(r, Resume::Internal, 1);
                self.isend(s, r, dst, tag, bytes, comm, origin, req, false)?;
                Ok(Next::Blocked)
            }
            Op::Recv {
                src,
                tag,
                comm,
                bytes,
            } => {
                let req = self.internal_req(r);
                self.mark_recv(req, bytes, RecvCall::Recv, origin);
                self.block(r, Resume::Internal, 1);
                self.irecv(s, r, src, tag, comm, origin, req, false)?;
                Ok(Next::Blocked)
            }
            Op::Sendrecv {
                dst,
                send_tag,
                send_bytes,
                src,
                recv_tag,
                recv_bytes,
                comm,
            } => {
                let a = self.internal_req(r);
                let b = self.internal_req(r);
                self.mark_recv(b, recv_bytes, RecvCall::Sendrecv, origin);
                self.block(r, Resume::Internal, 2);
                self.isend(s, r, dst, send_tag, send_bytes, comm, origin, a, false)?;
                self.irecv(s, r, src, recv_tag, comm, origin, b, false)?;
                Ok(Next::Blocked)
            }
            Op::Isend {
                dst,
                tag,
                bytes,
                comm,
                req,
            } => {
                // Check the communicator before creating the request.
                let (g, _, size) = self.resolve(r, comm, origin)?;
                self.peer(r, g, size, dst, origin)?;
                let i = self.user_req(r, req, origin)?;
                let done = self.isend(s, r, dst, tag, bytes, comm, origin, i, true)?;
                Ok(self.go_on(r, done))
            }
            Op::Irecv {
                src,
                tag,
                comm,
                req,
                bytes,
            } => {
                let (g, _, size) = self.resolve(r, comm, origin)?;
                if let Source::Rank(x) = src {
                    self.peer(r, g, size, x, origin)?;
                }
                let i = self.user_req(r, req, origin)?;
                self.mark_recv(i, bytes, RecvCall::Irecv, origin);
                let done = self.irecv(s, r, src, tag, comm, origin, i, true)?;
                Ok(self.go_on(r, done))
            }
            Op::Wait { req } => {
                if self.null_by_test(r, req) {
                    return Ok(Next::Continue);
                }
                let i = self.known(r, req, origin)?;
                if self.reqs[i as usize].done {
                    self.free_user(r, req);
                    return Ok(Next::Continue);
                }
                self.reqs[i as usize].waited = true;
                Ok(self.block(r, Resume::FreeNamed, 1))
            }
            Op::Waitall { ref reqs } => {
                if !self.has_tested(r) {
                    self.waitall(r, reqs, origin, false)
                } else {
                    let reqs = self.live_reqs(r, reqs);
                    self.waitall(r, &reqs, origin, false)
                }
            }
            Op::WaitallPending => {
                let mut ids = std::mem::take(&mut self.ranks[r as usize].user_reqs);
                ids.sort_unstable();
                ids.dedup();
                ids.retain(|&q| self.user.contains(r, q));
                let reqs: Vec<ReqId> = ids.iter().map(|&q| ReqId(q)).collect();
                self.ranks[r as usize].user_reqs = ids;
                self.waitall(r, &reqs, origin, true)
            }
            Op::Waitany { ref reqs } => {
                // Copy only when a Test has freed some request of this rank.
                let live;
                let reqs = if !self.has_tested(r) {
                    reqs
                } else {
                    live = self.live_reqs(r, reqs);
                    &live
                };
                let mut idx = Vec::with_capacity(reqs.len());
                for &q in reqs {
                    idx.push(self.known(r, q, origin)?);
                }
                if let Some(k) = idx.iter().position(|&i| self.reqs[i as usize].done) {
                    self.free_user(r, reqs[k]);
                    return Ok(Next::Continue);
                }
                if idx.is_empty() {
                    return Ok(Next::Continue);
                }
                for &i in &idx {
                    self.reqs[i as usize].waited = true;
                }
                Ok(self.block(r, Resume::WaitAny, 1))
            }
            Op::Test { req } => {
                if self.null_by_test(r, req) {
                    // Testing MPI_REQUEST_NULL: flag true, nothing to do.
                    self.tested.entry(r).or_default().push(req.0);
                    return Ok(Next::Continue);
                }
                let i = self.known(r, req, origin)?;
                if self.reqs[i as usize].done {
                    self.free_user(r, req);
                    self.tested.entry(r).or_default().push(req.0);
                }
                Ok(Next::Continue)
            }
            Op::Compute { duration } => {
                let done = self.submit(s, r, Job::Compute(r, duration, NONE), true);
                Ok(self.go_on(r, done))
            }
            Op::Sleep { duration } => {
                self.push_local(s, now.saturating_add(duration), Loc::Wake(r));
                Ok(self.block(r, Resume::Nothing, 0))
            }
            Op::RegionBegin { id } => {
                let g = self.regions.entry((r, id)).or_default();
                if g.open.is_some() {
                    return Err(self.fail(
                        r,
                        origin,
                        format!("region {id} begun again before it ended"),
                    ));
                }
                g.open = Some((now, origin.clone()));
                Ok(Next::Continue)
            }
            Op::RegionEnd { id } => {
                match self.regions.get_mut(&(r, id)).filter(|g| g.open.is_some()) {
                    Some(g) => {
                        let (t0, _) = g.open.take().expect("filtered");
                        g.total = g.total.saturating_add(now.saturating_sub(t0));
                        g.count += 1;
                        Ok(Next::Continue)
                    }
                    None => Err(self.fail(r, origin, format!("region {id} ended but not begun"))),
                }
            }
            _ if comm_of(op).is_none() => self
                .comm_op(s, r, op, origin)
                .expect("every other operation is a communicator operation"),
            _ => {
                let comm = comm_of(op).expect("collective");
                let (g, me, size) = self.resolve(r, comm, origin)?;
                if let Some(root) = root_of(op) {
                    if root >= size {
                        return Err(self.fail(
                            r,
                            origin,
                            format!("root {root} is outside the communicator (size {size})"),
                        ));
                    }
                }
                if let Some(n) = counts_len(op) {
                    if n != size as usize {
                        return Err(self.fail(
                            r,
                            origin,
                            format!("{n} counts given for a communicator of size {size}"),
                        ));
                    }
                }
                let choice =
                    collectives::select(op, size, &self.params.collectives).expect("collective op");
                let run = CollRun::new(choice.alg, op, size, me);
                let kind = collectives::CollKind::of(op).expect("collective op");
                self.stats.collectives.record(me, kind, choice);
                if O::ENABLED {
                    self.obs.collective(r, me, kind, choice, s.now());
                }
                self.ranks[r as usize].coll_seq = self.next_coll_seq(r, comm);
                let rk = &mut self.ranks[r as usize];
                rk.coll = Some(run);
                rk.coll_comm = g;
                // `execute` keeps the operation in `cur` (no copy).
                Ok(Next::Continue)
            }
        }
    }
}

pub(super) fn comm_of(op: &Op) -> Option<CommId> {
    Some(match op {
        Op::Barrier { comm }
        | Op::Bcast { comm, .. }
        | Op::Reduce { comm, .. }
        | Op::Allreduce { comm, .. }
        | Op::Scan { comm, .. }
        | Op::Gather { comm, .. }
        | Op::Gatherv { comm, .. }
        | Op::Scatter { comm, .. }
        | Op::Scatterv { comm, .. }
        | Op::Allgather { comm, .. }
        | Op::Allgatherv { comm, .. }
        | Op::Alltoall { comm, .. }
        | Op::Alltoallv { comm, .. }
        | Op::ReduceScatter { comm, .. } => *comm,
        _ => return None,
    })
}

fn root_of(op: &Op) -> Option<Rank> {
    match op {
        Op::Bcast { root, .. }
        | Op::Reduce { root, .. }
        | Op::Gather { root, .. }
        | Op::Gatherv { root, .. }
        | Op::Scatter { root, .. }
        | Op::Scatterv { root, .. } => Some(*root),
        _ => None,
    }
}

fn counts_len(op: &Op) -> Option<usize> {
    match op {
        Op::Gatherv { counts, .. }
        | Op::Scatterv { counts, .. }
        | Op::Allgatherv { counts, .. }
        | Op::ReduceScatter { counts, .. } => Some(counts.len()),
        Op::Alltoallv { send, recv, .. } => Some(send.len().max(recv.len())),
        _ => None,
    }
}
