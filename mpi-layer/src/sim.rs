//! The simulator: ranks running programs over a [`Transport`].
//!
//! One [`Simulation`] owns every rank's state, the messages in flight, the
//! requests, the communicators and the transport; it is a
//! [`sim_core::Model`] whose events are [`Ev`]. See the crate docs for the
//! protocol state machines and the timing of a message.

use crate::collectives::{self, CollRun, P2p};
use crate::matching::{Envelope, MatchQueue, PostedRecv, Queues};
use crate::op::{CommId, Op, OpStream, Origin, ProgramError, Rank, ReqId, Source, TagSel};
use crate::params::{LOCALITIES, MatcherKind, MpiParams, Progress, Protocol, locality_index};
use rustc_hash::FxHashMap;
use serde::Serialize;
use sim_core::stats::LogHistogram;
use sim_core::{Engine, EventId, Model, Schedule, Scheduler, Time, transfer_time};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use topology::{Delivery, Locality, NodeId, Placement, Transfer, Transport};

const NONE: u32 = u32::MAX;

/// Events the MPI layer puts on the engine's queue. `NE` is the
/// transport's event type, carried in [`Ev::Net`] (the transport never
/// sees the other variant).
///
/// The layer's own events (injections, arrivals through shared memory,
/// completions, resumptions, host work ending) live in a private binary
/// heap keyed by (time, sequence) like the engine's; the engine holds one
/// [`Ev::Wake`] at the earliest of them. Many ranks acting at the same
/// instant (every step of a collective) then cost one engine event, and
/// the layer's heap needs no cancel-by-handle index. Ties: the layer's
/// events are FIFO among themselves; against transport events at the same
/// time they run when their wake pops (deterministic either way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ev<NE> {
    /// A transport event.
    Net(NE),
    /// Run the layer's own events that are due.
    Wake,
}

/// What happens when a piece of host work ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    /// The sender's overhead for a message is done: the envelope (short,
    /// eager) or the RTS (rendezvous) leaves.
    Inject(u32),
    /// A request completes.
    Complete(u32),
    /// The receiver matched an RTS: the CTS leaves.
    SendCts(u32),
    /// A rank resumes its program (start, end of compute or sleep, end of
    /// a reduction, a communicator created).
    Resume(u32),
}

/// The layer's own events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    Act(Act),
    /// A message reached its destination through shared memory (network
    /// arrivals come as transport deliveries).
    Arrive(u32),
    /// The work at the head of a host resource's FIFO is done.
    HostDone(u32),
}

/// The layer's own events by time: one FIFO bucket per distinct time, in
/// a B-tree. FIFO within a bucket is push order, so the order is exactly
/// (time, sequence number) as in the engine; but the many ranks that act
/// at one instant (each step of a symmetric collective) share a bucket,
/// so a push or a pop is a deque operation on a tree of few keys. Emptied
/// buckets are kept for reuse (no allocation in steady state).
#[derive(Default)]
struct LocalQueue {
    buckets: BTreeMap<u64, VecDeque<Loc>>,
    pool: Vec<VecDeque<Loc>>,
    /// Times of the wakes pending on the engine.
    wakes: BinaryHeap<Reverse<Time>>,
    draining: bool,
    handled: u64,
}

impl LocalQueue {
    fn push(&mut self, t: Time, ev: Loc) {
        match self.buckets.entry(t.as_ps()) {
            std::collections::btree_map::Entry::Occupied(mut e) => e.get_mut().push_back(ev),
            std::collections::btree_map::Entry::Vacant(v) => {
                let mut d = self.pool.pop().unwrap_or_default();
                d.push_back(ev);
                v.insert(d);
            }
        }
    }
    /// The first event due at or before `now`.
    fn pop_due(&mut self, now: Time) -> Option<Loc> {
        loop {
            let mut first = self.buckets.first_entry()?;
            if *first.key() > now.as_ps() {
                return None;
            }
            if let Some(ev) = first.get_mut().pop_front() {
                return Some(ev);
            }
            let d = first.remove();
            if self.pool.len() < 1024 {
                self.pool.push(d);
            }
        }
    }
    /// The time of the earliest pending event.
    fn next_time(&mut self) -> Option<Time> {
        loop {
            let first = self.buckets.first_entry()?;
            if !first.get().is_empty() {
                return Some(Time::from_ps(*first.key()));
            }
            let d = first.remove();
            if self.pool.len() < 1024 {
                self.pool.push(d);
            }
        }
    }
}

/// A host resource (a core or a progress engine): FIFO work. `busy` is
/// when the last queued work ends; `work` holds the ends of queued work
/// that triggers something, in order; only the head is on the global
/// event queue (`armed`), so a million queued sends cost one heap entry.
#[derive(Clone, Debug, Default)]
struct Host {
    busy: Time,
    armed: bool,
    work: VecDeque<(Time, Act)>,
}

/// The state of one message, named as in the literature. Short and eager:
/// `SendOverhead -> Envelope -> [Unexpected ->] done`. Rendezvous:
/// `SendOverhead -> Rts -> [Unexpected ->] Cts -> Data -> done`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MsgState {
    /// The sender's host is spending the send overhead.
    SendOverhead,
    /// Short or eager envelope (with the data) in flight.
    Envelope,
    /// Rendezvous request-to-send in flight.
    Rts,
    /// Envelope or RTS waiting in the receiver's `unexpected_msgs`.
    Unexpected,
    /// Clear-to-send in flight back to the sender (receive matched).
    Cts,
    /// Rendezvous data in flight.
    Data,
}

#[derive(Clone, Debug)]
struct Msg {
    src: u32,
    dst: u32,
    ctx: u32,
    tag: i32,
    bytes: u64,
    proto: Protocol,
    loc: Locality,
    state: MsgState,
    send_req: u32,
    recv_req: u32,
    seq: u32,
    o_r: Time,
}

impl Msg {
    /// The one place a message changes state; checks the protocol's
    /// transitions in debug builds.
    fn set_state(&mut self, to: MsgState) {
        use MsgState::*;
        let ok = matches!(
            (self.proto, self.state, to),
            (Protocol::Short | Protocol::Eager, SendOverhead, Envelope)
                | (Protocol::Short | Protocol::Eager, Envelope, Unexpected)
                | (Protocol::Rendezvous, SendOverhead, Rts)
                | (Protocol::Rendezvous, Rts, Unexpected)
                | (Protocol::Rendezvous, Rts | Unexpected, Cts)
                | (Protocol::Rendezvous, Cts, Data)
        );
        debug_assert!(
            ok,
            "bad transition {:?} -> {to:?} ({:?})",
            self.state, self.proto
        );
        self.state = to;
    }
}

#[derive(Clone, Copy, Debug)]
struct Req {
    owner: u32,
    done: bool,
    waited: bool,
    live: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    Ready,
    Blocked,
    Finished,
}

/// What a rank does when it is unblocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resume {
    /// Nothing to finish (compute, sleep, communicator creation).
    Nothing,
    /// Free the user requests named by the current op (wait, waitall).
    FreeNamed,
    /// Free the first completed request of the current waitany.
    WaitAny,
    /// Free the internal requests (blocking send/recv/sendrecv).
    Internal,
    /// A collective step's messages are done; reduce this many bytes.
    CollRound(u64),
    /// A collective step's reduction is done.
    CollNext,
}

#[derive(Clone, Copy, Debug)]
struct CommEntry {
    id: CommId,
    global: u32,
    me: u32,
    creations: u32,
}

struct RankState {
    run: Run,
    resume: Resume,
    waiting: u32,
    core: Host,
    finish: Time,
    cur: Option<(Op, Origin)>,
    coll: Option<Box<CollRun>>,
    coll_seq: u32,
    world_creations: u32,
    comms: Vec<CommEntry>,
    queues: Queues,
    internal: Vec<u32>,
    user_reqs: Vec<u64>,
    live_user: u32,
    /// Ids of requests a `Test` completed and freed: MPI sets the handle to
    /// `MPI_REQUEST_NULL`, so a later wait naming it returns at once (trace
    /// readers cannot know at read time whether a test succeeded).
    tested: Vec<u64>,
}

impl RankState {
    fn new(matcher: MatcherKind) -> Self {
        RankState {
            run: Run::Ready,
            resume: Resume::Nothing,
            waiting: 0,
            core: Host::default(),
            finish: Time::ZERO,
            cur: None,
            coll: None,
            coll_seq: 0,
            world_creations: 0,
            comms: Vec::new(),
            queues: Queues::new(matcher),
            internal: Vec::new(),
            user_reqs: Vec::new(),
            live_user: 0,
            tested: Vec::new(),
        }
    }
}

struct Comm {
    size: u32,
    /// World rank of each member; empty for `MPI_COMM_WORLD` (identity).
    members: Vec<u32>,
}

/// The pair (`src`, this rank) whose messages in flight are counted in
/// [`Sim::inbound`] rather than in [`Sim::pairs`] (`src == NONE`: free).
/// Most ranks receive from one peer at a time (every step of a
/// collective), and this dense array is touched where the receiver's
/// state is touched anyway, instead of a cache-missing probe of a hash
/// table of all pairs at every send and every arrival.
#[derive(Clone, Copy)]
struct InSlot {
    src: u32,
    sent: u32,
    processed: u32,
}

const FREE_SLOT: InSlot = InSlot {
    src: NONE,
    sent: 0,
    processed: 0,
};

#[derive(Default)]
struct Pair {
    sent: u32,
    processed: u32,
    held: Vec<(u32, u32)>,
}

#[derive(Default)]
struct PendingCreate {
    arrived: Vec<(u32, i32, i32, CommId)>,
}

/// Messages and bytes of one (protocol, locality) cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Traffic {
    /// Messages (user and collective point-to-point; RTS and CTS are
    /// counted in `RunResults::control_messages`).
    pub messages: u64,
    /// Payload bytes.
    pub bytes: u64,
}

/// What a run produced: plain data for the CLI layer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunResults {
    /// Time the last rank finished.
    pub makespan: Time,
    /// Finish time of every world rank.
    pub finish: Vec<Time>,
    /// Traffic by protocol (rows: short, eager, rendezvous) and locality
    /// (columns: same socket, same node, other node).
    pub traffic: [[Traffic; 3]; 3],
    /// RTS and CTS messages sent.
    pub control_messages: u64,
    /// Elements visited per search of `posted_recvs` (one per arriving
    /// envelope or RTS).
    pub posted_search: LogHistogram,
    /// Elements visited per search of `unexpected_msgs` (one per posted
    /// receive).
    pub unexpected_search: LogHistogram,
    /// Messages whose host overhead was clamped to zero (calibration
    /// could not be met; see [`MpiParams`]).
    pub calibration_clamped: u64,
    /// Messages still in some `unexpected_msgs` when every rank had
    /// finished (an erroneous program: sends nobody received).
    pub unmatched_messages: u64,
    /// Events the engine handled.
    pub events: u64,
}

impl RunResults {
    /// Total messages over all protocols and localities.
    pub fn messages(&self) -> u64 {
        self.traffic.iter().flatten().map(|t| t.messages).sum()
    }
    /// Total payload bytes.
    pub fn bytes(&self) -> u64 {
        self.traffic.iter().flatten().map(|t| t.bytes).sum()
    }
    /// Total queue elements visited (both queues).
    pub fn elements_visited(&self) -> u128 {
        self.posted_search.sum() + self.unexpected_search.sum()
    }
}

/// Impossible parameters or inputs, found before the run starts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The calibration contract cannot hold: the transport alone (plus the
    /// handshake and the match) takes longer than `alpha + s / R_b`.
    #[error(
        "postal[{protocol:?}][{locality:?}]: alpha = {alpha} with R_b = {rate} gives {target} \
         for {bytes} B, but the transport, handshake and match alone take {needed}; \
         raise alpha or lower the transport latency"
    )]
    NegativeOverhead {
        /// Protocol.
        protocol: Protocol,
        /// Locality.
        locality: Locality,
        /// Message size checked [bytes].
        bytes: u64,
        /// alpha.
        alpha: Time,
        /// R_b.
        rate: sim_core::Bandwidth,
        /// alpha + s / R_b.
        target: Time,
        /// What the rest takes.
        needed: Time,
    },
    /// A parameter is out of its range.
    #[error("parameter {name}: {message}")]
    Invalid {
        /// Parameter name.
        name: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// One rank blocked at the end of a deadlocked run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockedRank {
    /// World rank.
    pub rank: Rank,
    /// The operation it waits in (Debug form).
    pub op: String,
    /// Where the operation came from.
    pub origin: String,
    /// Its unmatched posted receives, oldest first.
    pub posted_recvs: Vec<String>,
    /// Its unmatched arrived messages, oldest first.
    pub unexpected_msgs: Vec<String>,
}

/// The state of a run in which nothing is left to happen but ranks are
/// still blocked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeadlockReport {
    /// Simulated time when the last event happened.
    pub at: Time,
    /// Blocked ranks, by rank.
    pub blocked: Vec<BlockedRank>,
}

impl std::fmt::Display for DeadlockReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "deadlock at {}: {} rank(s) blocked",
            self.at,
            self.blocked.len()
        )?;
        for b in &self.blocked {
            writeln!(f, "  rank {} blocked in {} at {}", b.rank, b.op, b.origin)?;
            for (name, list) in [
                ("posted_recvs", &b.posted_recvs),
                ("unexpected_msgs", &b.unexpected_msgs),
            ] {
                if !list.is_empty() {
                    writeln!(f, "    {name}: {}", list.join("; "))?;
                }
            }
        }
        Ok(())
    }
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RunError {
    /// Bad parameters.
    #[error("configuration: {0}")]
    Config(#[from] ConfigError),
    /// A rank's program could not be read.
    #[error("rank {rank}: {error}")]
    Program {
        /// World rank.
        rank: Rank,
        /// The reader's error (with file and line).
        error: ProgramError,
    },
    /// A rank did something MPI forbids.
    #[error("rank {rank}: {origin}: {message}")]
    Semantic {
        /// World rank.
        rank: Rank,
        /// Where the operation came from.
        origin: Origin,
        /// What is wrong.
        message: String,
    },
    /// Ranks are blocked and nothing is left to happen.
    #[error("{0}")]
    Deadlock(DeadlockReport),
}

/// Adapter scheduling the transport's events as [`Ev::Net`].
struct NetSched<'a, 'b, NE> {
    inner: &'a mut Scheduler<'b, Ev<NE>>,
}

impl<NE> Schedule<NE> for NetSched<'_, '_, NE> {
    fn now(&self) -> Time {
        self.inner.now()
    }
    fn schedule_at(&mut self, at: Time, event: NE) -> EventId {
        self.inner.schedule_at(at, Ev::Net(event))
    }
    fn post_at(&mut self, at: Time, event: NE) {
        self.inner.post_at(at, Ev::Net(event))
    }
    fn cancel(&mut self, id: EventId) -> bool {
        self.inner.cancel(id)
    }
    fn reschedule(&mut self, id: EventId, at: Time) -> bool {
        self.inner.reschedule(id, at)
    }
}

/// How far the transport may exceed the calibrated time before
/// [`Simulation::new`] rejects the parameters: 1 ns. When the transport's
/// per-byte rate equals `R_b` (a link as fast as the fitted rate), packet
/// mode rounds every packet's serialization up to whole picoseconds on
/// every link, which leaves it a few picoseconds over `alpha + s / R_b`;
/// that shortfall is clamped at run time (counted in
/// `RunResults::calibration_clamped`), not a configuration error.
pub const CALIBRATION_SLACK: Time = Time::from_ns(1);

/// A simulation of MPI ranks running `S` programs over transport `T`.
pub struct Simulation<T: Transport, S: OpStream> {
    state: Sim<T, S>,
    engine: Engine<Ev<T::Event>>,
}

struct Sim<T: Transport, S: OpStream> {
    params: MpiParams,
    placement: Placement,
    transport: T,
    programs: Vec<S>,
    ranks: Vec<RankState>,
    comms: Vec<Comm>,
    creates: FxHashMap<(u32, u32), PendingCreate>,
    msgs: Vec<Msg>,
    free_msgs: Vec<u32>,
    reqs: Vec<Req>,
    free_reqs: Vec<u32>,
    user: FxHashMap<(u32, u64), u32>,
    /// Non-overtaking state of the pairs with messages in flight: one
    /// pair per receiver in `inbound`, the others in `pairs` (a pair is
    /// in one place at a time; held arrivals of `inbound` pairs wait in
    /// `held`).
    pairs: FxHashMap<(u32, u32), Pair>,
    inbound: Vec<InSlot>,
    held: FxHashMap<(u32, u32), Vec<(u32, u32)>>,
    engines: Vec<Host>,
    deliveries: Vec<Delivery>,
    scratch: Vec<P2p>,
    error: Option<RunError>,
    traffic: [[Traffic; 3]; 3],
    control_messages: u64,
    posted_search: LogHistogram,
    unexpected_search: LogHistogram,
    clamped: u64,
    local: LocalQueue,
    net_events: u64,
}

impl<T: Transport, S: OpStream> Simulation<T, S> {
    /// A simulation of `programs.len()` ranks (world rank `i` runs
    /// `programs[i]` on the core `placement.loc(i)`), over `transport`,
    /// with `params`. Checks the parameters against the calibration
    /// contract (see [`MpiParams`]).
    pub fn new(
        placement: Placement,
        transport: T,
        programs: Vec<S>,
        params: MpiParams,
    ) -> Result<Self, ConfigError> {
        let n = programs.len();
        if placement.len() != n {
            return Err(ConfigError::Invalid {
                name: "placement",
                message: format!(
                    "places {} processes but {n} programs given",
                    placement.len()
                ),
            });
        }
        if n > (u32::MAX / 2) as usize {
            return Err(ConfigError::Invalid {
                name: "programs",
                message: format!("{n} ranks is too many"),
            });
        }
        let nodes = transport.nodes();
        if let Some(p) = (0..n as u32).find(|&p| placement.node(p).0 >= nodes) {
            return Err(ConfigError::Invalid {
                name: "placement",
                message: format!(
                    "process {p} is on node {} but the transport has {nodes} nodes",
                    placement.node(p).0
                ),
            });
        }
        if params.send_share_pct > 100 {
            return Err(ConfigError::Invalid {
                name: "send_share_pct",
                message: format!("{} is above 100", params.send_share_pct),
            });
        }
        if params.eager_max < params.short_max {
            return Err(ConfigError::Invalid {
                name: "eager_max",
                message: format!(
                    "{} is below short_max = {}",
                    params.eager_max, params.short_max
                ),
            });
        }
        let engines = match params.progress {
            Progress::OwnCore => Vec::new(),
            Progress::Engines { engines: 0 } => {
                return Err(ConfigError::Invalid {
                    name: "progress.engines",
                    message: "must be at least 1".into(),
                });
            }
            Progress::Engines { engines } => {
                vec![Host::default(); nodes as usize * engines as usize]
            }
        };
        let matcher = params.matcher;
        let mut sim = Sim {
            params,
            placement,
            transport,
            programs,
            ranks: (0..n).map(|_| RankState::new(matcher)).collect(),
            comms: vec![Comm {
                size: n as u32,
                members: Vec::new(),
            }],
            creates: FxHashMap::default(),
            msgs: Vec::new(),
            free_msgs: Vec::new(),
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            user: FxHashMap::default(),
            pairs: FxHashMap::default(),
            inbound: vec![FREE_SLOT; n],
            held: FxHashMap::default(),
            engines,
            deliveries: Vec::new(),
            scratch: Vec::new(),
            error: None,
            traffic: Default::default(),
            control_messages: 0,
            posted_search: LogHistogram::default(),
            unexpected_search: LogHistogram::default(),
            clamped: 0,
            local: LocalQueue::default(),
            net_events: 0,
        };
        sim.check_calibration()?;
        let mut engine = Engine::new();
        {
            let mut s = engine.scheduler();
            for r in 0..n as u32 {
                sim.push_local(&mut s, Time::ZERO, Loc::Act(Act::Resume(r)));
            }
        }
        Ok(Simulation { state: sim, engine })
    }

    /// Runs to the end: the results, or the first error (a bad program, a
    /// semantic error, or a deadlock report).
    pub fn run(self) -> Result<RunResults, RunError> {
        self.run_observed(u64::MAX, |_, _| {}).0
    }

    pub fn run_observed(
        mut self,
        every: u64,
        mut progress: impl FnMut(Time, u64),
    ) -> (Result<RunResults, RunError>, T) {
        // A countdown, not `seen % every`: no division per event.
        let every = every.max(1);
        let (mut seen, mut next) = (0u64, every);
        self.engine.run_while(&mut self.state, |m, now| {
            seen += 1;
            if seen == next {
                progress(now, seen);
                next = next.saturating_add(every);
            }
            m.error.is_none()
        });
        let now = self.engine.now();
        let mut sim = self.state;
        let outcome = sim.results(now);
        (outcome, sim.transport)
    }
}

/// Builds and runs a simulation: see [`Simulation::new`] and
/// [`Simulation::run`].
pub fn run<T: Transport, S: OpStream>(
    placement: Placement,
    transport: T,
    programs: Vec<S>,
    params: MpiParams,
) -> Result<RunResults, RunError> {
    Simulation::new(placement, transport, programs, params)?.run()
}

enum Flow {
    Continue,
    Blocked,
}

type Sch<'a, NE> = Scheduler<'a, Ev<NE>>;

impl<T: Transport, S: OpStream> Model for Sim<T, S> {
    type Event = Ev<T::Event>;
    fn handle(&mut self, ev: Self::Event, s: &mut Scheduler<'_, Self::Event>) {
        match ev {
            Ev::Net(e) => {
                self.net_events += 1;
                let mut out = std::mem::take(&mut self.deliveries);
                self.transport
                    .handle(&mut NetSched { inner: s }, e, &mut out);
                for d in out.drain(..) {
                    self.arrive(s, d.token as u32);
                }
                self.deliveries = out;
            }
            Ev::Wake => self.wake(s),
        }
    }
}

impl<T: Transport, S: OpStream> Sim<T, S> {
    // ----- calibration ---------------------------------------------------

    /// Host overhead split (sender, receiver) and whether it was clamped.
    fn overheads(
        &self,
        proto: Protocol,
        loc: Locality,
        bytes: u64,
        a: u32,
        b: u32,
    ) -> (Time, Time, bool) {
        let (na, nb) = (self.placement.node(a), self.placement.node(b));
        let (target, needed) = self.budget(proto, loc, bytes, na, nb);
        let clamped = needed > target;
        let h = target.saturating_sub(needed).as_ps();
        let o_s = (h as u128 * self.params.send_share_pct as u128 / 100) as u64;
        (Time::from_ps(o_s), Time::from_ps(h - o_s), clamped)
    }

    /// (alpha + s / R_b, wire + handshake + match) for one message.
    fn budget(
        &self,
        proto: Protocol,
        loc: Locality,
        bytes: u64,
        na: NodeId,
        nb: NodeId,
    ) -> (Time, Time) {
        let pp = self.params.postal(proto, loc);
        let target = pp.alpha.saturating_add(transfer_time(bytes, pp.rate));
        let net = loc == Locality::OtherNode;
        let wire = if net {
            self.transport.idle_time(na, nb, bytes, Some(pp.rate))
        } else {
            transfer_time(bytes, pp.rate)
        };
        let handshake = if proto == Protocol::Rendezvous && net {
            self.transport.idle_time(na, nb, 0, None) + self.transport.idle_time(nb, na, 0, None)
        } else {
            Time::ZERO
        };
        (
            target,
            wire.saturating_add(handshake)
                .saturating_add(self.params.match_one()),
        )
    }

    fn check_calibration(&self) -> Result<(), ConfigError> {
        // Inter-node cells are checked only if some message may use them.
        let two_nodes = self.transport.nodes() >= 2 && self.placement.nodes_used() >= 2;
        for proto in Protocol::ALL {
            let bytes = self.params.min_size(proto);
            for loc in LOCALITIES {
                if loc == Locality::OtherNode && !two_nodes {
                    continue;
                }
                let (target, needed) = self.budget(proto, loc, bytes, NodeId(0), NodeId(1));
                if needed > target + CALIBRATION_SLACK {
                    let pp = self.params.postal(proto, loc);
                    return Err(ConfigError::NegativeOverhead {
                        protocol: proto,
                        locality: loc,
                        bytes,
                        alpha: pp.alpha,
                        rate: pp.rate,
                        target,
                        needed,
                    });
                }
            }
        }
        Ok(())
    }

    // ----- the layer's own events ------------------------------------------

    /// Schedules the layer's event `ev` at `t` (`t >= now`).
    fn push_local(&mut self, s: &mut Sch<'_, T::Event>, t: Time, ev: Loc) {
        let q = &mut self.local;
        q.push(t, ev);
        if q.draining && t == s.now() {
            // The running drain takes it.
            return;
        }
        if q.wakes.peek().is_none_or(|w| w.0 > t) {
            q.wakes.push(Reverse(t));
            s.post_at(t, Ev::Wake);
        }
    }

    /// Runs every local event due now, in key order, then makes sure a
    /// wake is pending for the next one.
    fn wake(&mut self, s: &mut Sch<'_, T::Event>) {
        let now = s.now();
        let popped = self.local.wakes.pop();
        debug_assert_eq!(popped, Some(Reverse(now)));
        self.local.draining = true;
        while self.error.is_none() {
            let Some(ev) = self.local.pop_due(now) else {
                break;
            };
            self.local.handled += 1;
            match ev {
                Loc::Act(a) => self.act(s, a),
                Loc::Arrive(m) => self.arrive(s, m),
                Loc::HostDone(h) => self.host_done(s, h),
            }
        }
        self.local.draining = false;
        if let Some(t) = self.local.next_time() {
            if self.local.wakes.peek().is_none_or(|w| w.0 > t) {
                self.local.wakes.push(Reverse(t));
                s.post_at(t, Ev::Wake);
            }
        }
    }

    /// The run's results once the engine has stopped at `now`: the first
    /// error, a deadlock report if ranks are still blocked, or the figures.
    fn results(&mut self, now: Time) -> Result<RunResults, RunError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let blocked: Vec<BlockedRank> = self
            .ranks
            .iter()
            .enumerate()
            .filter(|(_, r)| r.run != Run::Finished)
            .map(|(i, _)| self.blocked_report(i as u32))
            .collect();
        if !blocked.is_empty() {
            return Err(RunError::Deadlock(DeadlockReport { at: now, blocked }));
        }
        let finish: Vec<Time> = self.ranks.iter().map(|r| r.finish).collect();
        let unmatched_messages = self
            .ranks
            .iter()
            .map(|r| r.queues.unexpected_msgs().len() as u64)
            .sum();
        Ok(RunResults {
            makespan: finish.iter().copied().max().unwrap_or(Time::ZERO),
            finish,
            traffic: self.traffic,
            control_messages: self.control_messages,
            posted_search: std::mem::take(&mut self.posted_search),
            unexpected_search: std::mem::take(&mut self.unexpected_search),
            calibration_clamped: self.clamped,
            unmatched_messages,
            events: self.net_events + self.local.handled,
        })
    }

    // ----- host resources ------------------------------------------------

    fn act(&mut self, s: &mut Sch<'_, T::Event>, a: Act) {
        match a {
            Act::Inject(m) => self.inject(s, m),
            Act::SendCts(m) => {
                self.msgs[m as usize].set_state(MsgState::Cts);
                self.control_messages += 1;
                let (d, src) = (self.msgs[m as usize].dst, self.msgs[m as usize].src);
                self.transmit(s, m, d, src, 0, false);
            }
            Act::Complete(r) => self.complete(s, r),
            Act::Resume(r) => self.unblock(s, r),
        }
    }

    /// Host resource `id`: ranks' cores are `0..n`, progress engines
    /// follow.
    fn host(&mut self, id: u32) -> &mut Host {
        let n = self.ranks.len() as u32;
        if id < n {
            &mut self.ranks[id as usize].core
        } else {
            &mut self.engines[(id - n) as usize]
        }
    }

    /// The resource that runs rank `r`'s MPI progress.
    fn progress_res(&self, r: u32) -> u32 {
        match self.params.progress {
            Progress::OwnCore => r,
            Progress::Engines { engines } => {
                let loc = self.placement.loc(r);
                let i = loc.node.0 * engines as u32 + (loc.core % engines) as u32;
                self.ranks.len() as u32 + i
            }
        }
    }

    /// Does `a` at `t`: through resource `res`'s FIFO when `t` is the end
    /// of the work last queued there (the common case), else through the
    /// global event queue.
    fn at(&mut self, s: &mut Sch<'_, T::Event>, res: u32, t: Time, a: Act) {
        let h = self.host(res);
        if h.busy == t {
            h.work.push_back((t, a));
            if !h.armed {
                h.armed = true;
                self.push_local(s, t, Loc::HostDone(res));
            }
        } else {
            self.push_local(s, t, Loc::Act(a));
        }
    }

    fn host_done(&mut self, s: &mut Sch<'_, T::Event>, id: u32) {
        let now = s.now();
        self.host(id).armed = false;
        loop {
            let h = self.host(id);
            match h.work.front() {
                Some(&(t, a)) if t <= now => {
                    h.work.pop_front();
                    self.act(s, a);
                }
                _ => break,
            }
        }
        let h = self.host(id);
        if let Some(&(t, _)) = h.work.front() {
            if !h.armed {
                h.armed = true;
                self.push_local(s, t, Loc::HostDone(id));
            }
        }
    }

    /// Queues `dur` of work on resource `id`, not before `earliest`;
    /// returns its end. FIFO: work starts when the resource is free.
    fn work(&mut self, id: u32, earliest: Time, dur: Time) -> Time {
        let h = self.host(id);
        // Saturating: a `Compute` of absurd length must not wrap the clock.
        let end = earliest.max(h.busy).saturating_add(dur);
        h.busy = end;
        end
    }

    /// Queues `dur` of MPI progress work for rank `r` (see [`Self::work`]).
    fn progress_work(&mut self, r: u32, earliest: Time, dur: Time) -> Time {
        let id = self.progress_res(r);
        self.work(id, earliest, dur)
    }

    /// Protocol overhead `dur` (send or receive side): on the progress
    /// resource (onload) or a pure delay on the NIC (offload).
    fn protocol_work(&mut self, r: u32, earliest: Time, dur: Time) -> Time {
        if self.params.protocol_offload {
            earliest + dur
        } else {
            self.progress_work(r, earliest, dur)
        }
    }

    /// Charges a search of `visited` elements at rank `r` that found a
    /// match or not; returns when the search is over.
    fn search_work(&mut self, r: u32, now: Time, visited: u64, matched: bool) -> Time {
        match self.params.matcher {
            MatcherKind::Offloaded { cost } => now + cost,
            _ => {
                let mut d = self.params.gamma * visited;
                if matched {
                    d += self.params.match_base;
                }
                self.progress_work(r, now, d)
            }
        }
    }

    // ----- requests ------------------------------------------------------

    fn new_req(&mut self, owner: u32) -> u32 {
        let r = Req {
            owner,
            done: false,
            waited: false,
            live: true,
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

    fn free_req(&mut self, i: u32) {
        debug_assert!(self.reqs[i as usize].live);
        self.reqs[i as usize].live = false;
        self.free_reqs.push(i);
    }

    /// Request `i` completes now; wakes its owner if it waits for it.
    fn complete(&mut self, s: &mut Sch<'_, T::Event>, i: u32) {
        let req = &mut self.reqs[i as usize];
        debug_assert!(req.live && !req.done);
        req.done = true;
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
            self.unblock(s, owner);
        }
    }

    fn lookup(&self, r: u32, id: ReqId) -> Option<u32> {
        self.user.get(&(r, id.0)).copied()
    }

    fn free_user(&mut self, r: u32, id: ReqId) {
        if let Some(i) = self.user.remove(&(r, id.0)) {
            self.free_req(i);
            self.ranks[r as usize].live_user -= 1;
        }
    }

    // ----- communicators -------------------------------------------------

    /// (global index, my rank, size) of communicator `c` at rank `r`.
    fn comm(&self, r: u32, c: CommId) -> Option<(u32, u32, u32)> {
        if c == CommId::WORLD {
            return Some((0, r, self.comms[0].size));
        }
        self.ranks[r as usize]
            .comms
            .iter()
            .rev()
            .find(|e| e.id == c)
            .map(|e| (e.global, e.me, self.comms[e.global as usize].size))
    }

    fn member(&self, g: u32, i: u32) -> u32 {
        if g == 0 {
            i
        } else {
            self.comms[g as usize].members[i as usize]
        }
    }

    // ----- messages ------------------------------------------------------

    fn new_msg(&mut self, m: Msg) -> u32 {
        match self.free_msgs.pop() {
            Some(i) => {
                self.msgs[i as usize] = m;
                i
            }
            None => {
                self.msgs.push(m);
                (self.msgs.len() - 1) as u32
            }
        }
    }

    /// Posts a send of `bytes` from world rank `src` to world rank `dst`.
    #[allow(clippy::too_many_arguments)]
    fn post_send(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        src: u32,
        dst: u32,
        ctx: u32,
        tag: i32,
        bytes: u64,
        req: u32,
    ) {
        let loc = self.placement.locality(src, dst);
        let proto = self.params.protocol(bytes);
        let (o_s, o_r, clamped) = self.overheads(proto, loc, bytes, src, dst);
        self.clamped += clamped as u64;
        let cell = &mut self.traffic[proto.index()][locality_index(loc)];
        cell.messages += 1;
        cell.bytes += bytes;
        let slot = &mut self.inbound[dst as usize];
        let seq = if slot.src == src {
            slot.sent += 1;
            slot.sent - 1
        } else if slot.src == NONE
            && (self.pairs.is_empty() || !self.pairs.contains_key(&(src, dst)))
        {
            *slot = InSlot {
                src,
                sent: 1,
                processed: 0,
            };
            0
        } else {
            let pair = self.pairs.entry((src, dst)).or_default();
            pair.sent += 1;
            pair.sent - 1
        };
        let m = self.new_msg(Msg {
            src,
            dst,
            ctx,
            tag,
            bytes,
            proto,
            loc,
            state: MsgState::SendOverhead,
            send_req: req,
            recv_req: NONE,
            seq,
            o_r,
        });
        let at = self.protocol_work(src, s.now(), o_s);
        let res = self.progress_res(src);
        self.at(s, res, at, Act::Inject(m));
    }

    fn inject(&mut self, s: &mut Sch<'_, T::Event>, m: u32) {
        let msg = &mut self.msgs[m as usize];
        let (src, dst, bytes) = (msg.src, msg.dst, msg.bytes);
        if msg.proto == Protocol::Rendezvous {
            msg.set_state(MsgState::Rts);
            self.control_messages += 1;
            self.transmit(s, m, src, dst, 0, false);
        } else {
            msg.set_state(MsgState::Envelope);
            let req = msg.send_req;
            self.transmit(s, m, src, dst, bytes, true);
            // The data is in the envelope or the NIC's hands: the send
            // buffer may be reused.
            self.complete(s, req);
        }
    }

    /// Moves `bytes` of message `m` from world rank `a` to `b`: through
    /// the transport between nodes (capped at the protocol's `R_b` for
    /// data), or through shared memory (`transfer_time(bytes, R_b)` for
    /// data, zero for control messages).
    fn transmit(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        m: u32,
        a: u32,
        b: u32,
        bytes: u64,
        data: bool,
    ) {
        let msg = &self.msgs[m as usize];
        let rate = self.params.postal(msg.proto, msg.loc).rate;
        if msg.loc == Locality::OtherNode {
            let t = Transfer {
                src: self.placement.node(a),
                dst: self.placement.node(b),
                bytes,
                rate_cap: data.then_some(rate),
                token: m as u64,
            };
            let mut out = std::mem::take(&mut self.deliveries);
            self.transport
                .start(&mut NetSched { inner: s }, t, &mut out);
            if out.is_empty() {
                self.deliveries = out;
            } else {
                // Rare (a transport without latency): deliver at once.
                let ready: Vec<u32> = out.drain(..).map(|d| d.token as u32).collect();
                self.deliveries = out;
                for tok in ready {
                    self.arrive(s, tok);
                }
            }
        } else {
            let d = if data {
                transfer_time(bytes, rate)
            } else {
                Time::ZERO
            };
            let at = s.now() + d;
            self.push_local(s, at, Loc::Arrive(m));
        }
    }

    /// An envelope or RTS of a pair counted in `inbound` arrived: the
    /// same non-overtaking rule as for `pairs`.
    fn arrive_inbound(&mut self, s: &mut Sch<'_, T::Event>, m: u32, key: (u32, u32), seq: u32) {
        let d = key.1 as usize;
        if seq != self.inbound[d].processed {
            self.held.entry(key).or_default().push((seq, m));
            return;
        }
        let mut next = Some(m);
        while let Some(m) = next {
            self.on_envelope(s, m);
            let slot = &mut self.inbound[d];
            slot.processed += 1;
            let want = slot.processed;
            next = None;
            if !self.held.is_empty() {
                if let Some(h) = self.held.get_mut(&key) {
                    next = h
                        .iter()
                        .position(|x| x.0 == want)
                        .map(|i| h.swap_remove(i).1);
                    if h.is_empty() {
                        self.held.remove(&key);
                    }
                }
            }
            let slot = &mut self.inbound[d];
            if next.is_none() && slot.processed == slot.sent {
                *slot = FREE_SLOT;
            }
        }
    }

    /// Message `m` reached the far end of its current leg.
    fn arrive(&mut self, s: &mut Sch<'_, T::Event>, m: u32) {
        let msg = &self.msgs[m as usize];
        match msg.state {
            MsgState::Envelope | MsgState::Rts => {
                // Non-overtaking: envelopes of a pair are matched in send
                // order, whatever order the network delivers them in.
                let key = (msg.src, msg.dst);
                let seq = msg.seq;
                if self.inbound[key.1 as usize].src == key.0 {
                    self.arrive_inbound(s, m, key, seq);
                    return;
                }
                let pair = self
                    .pairs
                    .get_mut(&key)
                    .expect("pair of a message in flight");
                if seq != pair.processed {
                    pair.held.push((seq, m));
                    return;
                }
                let mut next = Some(m);
                while let Some(m) = next {
                    self.on_envelope(s, m);
                    let pair = self.pairs.get_mut(&key).expect("pair");
                    pair.processed += 1;
                    let want = pair.processed;
                    next = pair
                        .held
                        .iter()
                        .position(|h| h.0 == want)
                        .map(|i| pair.held.swap_remove(i).1);
                    if next.is_none() && pair.held.is_empty() && pair.processed == pair.sent {
                        self.pairs.remove(&key);
                    }
                }
            }
            MsgState::Cts => {
                let (a, b, bytes) = (msg.src, msg.dst, msg.bytes);
                self.msgs[m as usize].set_state(MsgState::Data);
                self.transmit(s, m, a, b, bytes, true);
            }
            MsgState::Data => {
                let (send_req, recv_req, dst, o_r) = (msg.send_req, msg.recv_req, msg.dst, msg.o_r);
                self.free_msgs.push(m);
                self.complete(s, send_req);
                let at = self.protocol_work(dst, s.now(), o_r);
                let res = self.progress_res(dst);
                self.at(s, res, at, Act::Complete(recv_req));
            }
            MsgState::SendOverhead | MsgState::Unexpected => {
                unreachable!("message {m} arrived in state {:?}", msg.state)
            }
        }
    }

    fn queues(&mut self, r: u32) -> &mut Queues {
        &mut self.ranks[r as usize].queues
    }

    /// An envelope or RTS is presented for matching at its destination.
    fn on_envelope(&mut self, s: &mut Sch<'_, T::Event>, m: u32) {
        let msg = &self.msgs[m as usize];
        let dst = msg.dst;
        let env = Envelope {
            ctx: msg.ctx,
            src: msg.src,
            tag: msg.tag,
            msg: m,
        };
        let found = self.queues(dst).match_arrival(&env);
        self.posted_search.record(found.visited);
        let now = s.now();
        let done = self.search_work(dst, now, found.visited, found.found.is_some());
        match found.found {
            Some(p) => self.matched(s, m, p.req, done, Time::ZERO),
            None => {
                self.msgs[m as usize].set_state(MsgState::Unexpected);
                self.queues(dst).add_unexpected(env);
            }
        }
    }

    /// Message `m` matched receive request `req`; the search ends at
    /// `after`; `copy` is the unexpected-buffer copy time.
    fn matched(&mut self, s: &mut Sch<'_, T::Event>, m: u32, req: u32, after: Time, copy: Time) {
        let msg = &mut self.msgs[m as usize];
        msg.recv_req = req;
        let (dst, o_r, proto) = (msg.dst, msg.o_r, msg.proto);
        let res = self.progress_res(dst);
        if proto == Protocol::Rendezvous {
            self.at(s, res, after, Act::SendCts(m));
        } else {
            self.free_msgs.push(m);
            let t = self.progress_work(dst, after, copy);
            let t = self.protocol_work(dst, t, o_r);
            self.at(s, res, t, Act::Complete(req));
        }
    }

    /// Posts a receive at world rank `r`.
    fn post_recv(&mut self, s: &mut Sch<'_, T::Event>, r: u32, p: PostedRecv) {
        let found = self.queues(r).match_post(&p);
        self.unexpected_search.record(found.visited);
        let now = s.now();
        let done = self.search_work(r, now, found.visited, found.found.is_some());
        match found.found {
            Some(e) => {
                let msg = &self.msgs[e.msg as usize];
                let copy = if msg.proto == Protocol::Rendezvous {
                    Time::ZERO
                } else {
                    transfer_time(msg.bytes, self.params.memcpy_rate)
                };
                self.matched(s, e.msg, p.req, done, copy);
            }
            None => self.queues(r).add_posted(p),
        }
    }

    // ----- ranks ---------------------------------------------------------

    fn fail(&mut self, r: u32, origin: &Origin, message: String) -> Flow {
        if self.error.is_none() {
            self.error = Some(RunError::Semantic {
                rank: r,
                origin: origin.clone(),
                message,
            });
        }
        Flow::Blocked
    }

    fn block(&mut self, r: u32, resume: Resume, waiting: u32) -> Flow {
        let rk = &mut self.ranks[r as usize];
        rk.run = Run::Blocked;
        rk.resume = resume;
        rk.waiting = waiting;
        Flow::Blocked
    }

    /// Rank `r` may continue: finish what it was blocked in, then run.
    fn unblock(&mut self, s: &mut Sch<'_, T::Event>, r: u32) {
        if self.error.is_some() || self.ranks[r as usize].run == Run::Finished {
            return;
        }
        self.ranks[r as usize].run = Run::Ready;
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
                let (op, _) = self.ranks[r as usize].cur.take().expect("op");
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
                let (op, _) = self.ranks[r as usize].cur.take().expect("op");
                if let Op::Waitany { reqs } = op {
                    self.finish_waitany(r, &reqs);
                }
            }
            Resume::CollRound(reduce) => {
                self.free_internal(r);
                if reduce > 0 {
                    let d = transfer_time(reduce, self.params.collectives.reduce_rate);
                    let at = self.compute(r, s.now(), d);
                    self.block(r, Resume::CollNext, 0);
                    self.at(s, r, at, Act::Resume(r));
                    return;
                }
                self.ranks[r as usize].coll.as_mut().expect("coll").step += 1;
            }
            Resume::CollNext => {
                self.ranks[r as usize].coll.as_mut().expect("coll").step += 1;
            }
        }
        self.advance(s, r);
    }

    /// Occupies rank `r`'s own core for `d` from `now` (FIFO behind work
    /// already queued on it); returns the end.
    fn compute(&mut self, r: u32, now: Time, d: Time) -> Time {
        self.work(r, now, d)
    }

    fn free_internal(&mut self, r: u32) {
        let list = std::mem::take(&mut self.ranks[r as usize].internal);
        for &i in &list {
            self.free_req(i);
        }
        let mut list = list;
        list.clear();
        self.ranks[r as usize].internal = list;
    }

    fn finish_waitany(&mut self, r: u32, reqs: &[ReqId]) {
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

    /// Runs rank `r`'s program until it blocks or ends.
    fn advance(&mut self, s: &mut Sch<'_, T::Event>, r: u32) {
        loop {
            if self.error.is_some() || self.ranks[r as usize].run != Run::Ready {
                return;
            }
            if self.ranks[r as usize].coll.is_some() {
                if let Flow::Blocked = self.coll_step(s, r) {
                    return;
                }
                continue;
            }
            match self.programs[r as usize].next_op() {
                Err(error) => {
                    self.error = Some(RunError::Program { rank: r, error });
                    return;
                }
                Ok(None) => {
                    let rk = &mut self.ranks[r as usize];
                    rk.run = Run::Finished;
                    rk.finish = s.now().max(rk.core.busy);
                    rk.cur = None;
                    return;
                }
                Ok(Some((op, origin))) => {
                    if let Flow::Blocked = self.execute(s, r, op, origin) {
                        return;
                    }
                }
            }
        }
    }

    /// Drives the collective of rank `r`: posts the next non-empty step
    /// and blocks, or ends the collective.
    fn coll_step(&mut self, s: &mut Sch<'_, T::Event>, r: u32) -> Flow {
        let mut out = std::mem::take(&mut self.scratch);
        loop {
            let coll = self.ranks[r as usize].coll.as_ref().expect("coll");
            let Some(reduce) = coll.plan(&mut out) else {
                let rk = &mut self.ranks[r as usize];
                rk.coll = None;
                rk.cur = None;
                self.scratch = out;
                return Flow::Continue;
            };
            if out.is_empty() {
                self.ranks[r as usize].coll.as_mut().expect("coll").step += 1;
                continue;
            }
            let step = coll.step;
            let (op, _) = self.ranks[r as usize].cur.as_ref().expect("coll op");
            let comm_id = comm_of(op).expect("collective names its comm");
            let Some((g, _, _)) = self.comm(r, comm_id) else {
                // Cloned only here: an `Arc` count update per step and
                // rank was 3 % of a large allreduce.
                let origin = self.ranks[r as usize]
                    .cur
                    .as_ref()
                    .expect("coll op")
                    .1
                    .clone();
                self.scratch = out;
                return self.fail(r, &origin, format!("unknown communicator {comm_id:?}"));
            };
            let seq = self.ranks[r as usize].coll_seq;
            let tag = (((seq & 0x7ff) << 20) | (step & 0xf_ffff)) as i32;
            let ctx = 2 * g + 1;
            let n = out.len() as u32;
            for o in &out {
                let peer = self.member(g, o.peer);
                let req = self.new_req(r);
                self.reqs[req as usize].waited = true;
                self.ranks[r as usize].internal.push(req);
                if o.send {
                    self.post_send(s, r, peer, ctx, tag, o.bytes, req);
                } else {
                    let p = PostedRecv {
                        ctx,
                        src: Some(peer),
                        tag: Some(tag),
                        req,
                    };
                    self.post_recv(s, r, p);
                }
            }
            self.scratch = out;
            return self.block(r, Resume::CollRound(reduce), n);
        }
    }

    fn resolve(&mut self, r: u32, c: CommId, origin: &Origin) -> Result<(u32, u32, u32), Flow> {
        self.comm(r, c).ok_or_else(|| {
            self.fail(
                r,
                origin,
                format!("communicator {} is unknown to this rank", c.0),
            )
        })
    }

    fn peer(
        &mut self,
        r: u32,
        g: u32,
        size: u32,
        peer: Rank,
        origin: &Origin,
    ) -> Result<u32, Flow> {
        if peer >= size {
            return Err(self.fail(
                r,
                origin,
                format!("rank {peer} is outside the communicator (size {size})"),
            ));
        }
        Ok(self.member(g, peer))
    }

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
    ) -> Result<(), Flow> {
        let (g, _, size) = self.resolve(r, comm, origin)?;
        let d = self.peer(r, g, size, dst, origin)?;
        self.post_send(s, r, d, 2 * g, tag, bytes, req);
        Ok(())
    }

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
    ) -> Result<(), Flow> {
        let (g, _, size) = self.resolve(r, comm, origin)?;
        let src = match src {
            Source::Any => None,
            Source::Rank(x) => Some(self.peer(r, g, size, x, origin)?),
        };
        let tag = match tag {
            TagSel::Any => None,
            TagSel::Tag(t) => Some(t),
        };
        self.post_recv(
            s,
            r,
            PostedRecv {
                ctx: 2 * g,
                src,
                tag,
                req,
            },
        );
        Ok(())
    }

    fn user_req(&mut self, r: u32, id: ReqId, origin: &Origin) -> Result<u32, Flow> {
        if self.user.contains_key(&(r, id.0)) {
            return Err(self.fail(r, origin, format!("request {} is already in flight", id.0)));
        }
        let i = self.new_req(r);
        self.user.insert((r, id.0), i);
        let rk = &mut self.ranks[r as usize];
        rk.tested.retain(|&q| q != id.0);
        rk.live_user += 1;
        rk.user_reqs.push(id.0);
        // Forget freed ids now and then so the list tracks live requests.
        if rk.user_reqs.len() > 64 && rk.user_reqs.len() > 2 * rk.live_user as usize {
            let mut ids = std::mem::take(&mut self.ranks[r as usize].user_reqs);
            ids.sort_unstable();
            ids.dedup();
            ids.retain(|&q| self.user.contains_key(&(r, q)));
            self.ranks[r as usize].user_reqs = ids;
        }
        Ok(i)
    }

    /// Whether `id` names a request a `Test` already completed (now
    /// `MPI_REQUEST_NULL`); forgets it, as waiting on it consumes the name.
    fn null_by_test(&mut self, r: u32, id: ReqId) -> bool {
        let t = &self.ranks[r as usize].tested;
        if t.is_empty() || self.lookup(r, id).is_some() {
            return false;
        }
        match t.iter().position(|&q| q == id.0) {
            Some(k) => {
                self.ranks[r as usize].tested.swap_remove(k);
                true
            }
            None => false,
        }
    }

    /// `reqs` without the ones a `Test` already completed.
    fn live_reqs(&mut self, r: u32, reqs: &[ReqId]) -> Vec<ReqId> {
        reqs.iter()
            .copied()
            .filter(|&q| !self.null_by_test(r, q))
            .collect()
    }

    fn known(&mut self, r: u32, id: ReqId, origin: &Origin) -> Result<u32, Flow> {
        self.lookup(r, id)
            .ok_or_else(|| self.fail(r, origin, format!("request {} is unknown", id.0)))
    }

    fn internal_req(&mut self, r: u32) -> u32 {
        let i = self.new_req(r);
        self.reqs[i as usize].waited = true;
        self.ranks[r as usize].internal.push(i);
        i
    }

    /// Executes one operation of rank `r`.
    fn execute(&mut self, s: &mut Sch<'_, T::Event>, r: u32, op: Op, origin: Origin) -> Flow {
        match self.execute_inner(s, r, &op, &origin) {
            Ok(Flow::Continue) => Flow::Continue,
            Ok(Flow::Blocked) | Err(Flow::Blocked) | Err(Flow::Continue) => {
                if self.error.is_none() {
                    let rk = &mut self.ranks[r as usize];
                    if rk.cur.is_none() {
                        rk.cur = Some((op, origin));
                    }
                }
                Flow::Blocked
            }
        }
    }

    fn execute_inner(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        op: &Op,
        origin: &Origin,
    ) -> Result<Flow, Flow> {
        let now = s.now();
        match *op {
            Op::Send {
                dst,
                tag,
                bytes,
                comm,
            } => {
                let req = self.internal_req(r);
                self.isend(s, r, dst, tag, bytes, comm, origin, req)?;
                Ok(self.block(r, Resume::Internal, 1))
            }
            Op::Recv {
                src,
                tag,
                comm,
                bytes: _,
            } => {
                let req = self.internal_req(r);
                self.irecv(s, r, src, tag, comm, origin, req)?;
                Ok(self.block(r, Resume::Internal, 1))
            }
            Op::Sendrecv {
                dst,
                send_tag,
                send_bytes,
                src,
                recv_tag,
                recv_bytes: _,
                comm,
            } => {
                let a = self.internal_req(r);
                self.isend(s, r, dst, send_tag, send_bytes, comm, origin, a)?;
                let b = self.internal_req(r);
                self.irecv(s, r, src, recv_tag, comm, origin, b)?;
                Ok(self.block(r, Resume::Internal, 2))
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
                self.isend(s, r, dst, tag, bytes, comm, origin, i)?;
                Ok(Flow::Continue)
            }
            Op::Irecv {
                src,
                tag,
                comm,
                req,
                bytes: _,
            } => {
                let (g, _, size) = self.resolve(r, comm, origin)?;
                if let Source::Rank(x) = src {
                    self.peer(r, g, size, x, origin)?;
                }
                let i = self.user_req(r, req, origin)?;
                self.irecv(s, r, src, tag, comm, origin, i)?;
                Ok(Flow::Continue)
            }
            Op::Wait { req } => {
                if self.null_by_test(r, req) {
                    return Ok(Flow::Continue);
                }
                let i = self.known(r, req, origin)?;
                if self.reqs[i as usize].done {
                    self.free_user(r, req);
                    return Ok(Flow::Continue);
                }
                self.reqs[i as usize].waited = true;
                Ok(self.block(r, Resume::FreeNamed, 1))
            }
            Op::Waitall { ref reqs } => {
                if self.ranks[r as usize].tested.is_empty() {
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
                ids.retain(|&q| self.user.contains_key(&(r, q)));
                let reqs: Vec<ReqId> = ids.iter().map(|&q| ReqId(q)).collect();
                self.ranks[r as usize].user_reqs = ids;
                self.waitall(r, &reqs, origin, true)
            }
            Op::Waitany { ref reqs } => {
                // Copy only when a Test has freed some request of this rank.
                let live;
                let reqs = if self.ranks[r as usize].tested.is_empty() {
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
                    return Ok(Flow::Continue);
                }
                if idx.is_empty() {
                    return Ok(Flow::Continue);
                }
                for &i in &idx {
                    self.reqs[i as usize].waited = true;
                }
                Ok(self.block(r, Resume::WaitAny, 1))
            }
            Op::Test { req } => {
                if self.null_by_test(r, req) {
                    // Testing MPI_REQUEST_NULL: flag true, nothing to do.
                    self.ranks[r as usize].tested.push(req.0);
                    return Ok(Flow::Continue);
                }
                let i = self.known(r, req, origin)?;
                if self.reqs[i as usize].done {
                    self.free_user(r, req);
                    self.ranks[r as usize].tested.push(req.0);
                }
                Ok(Flow::Continue)
            }
            Op::Compute { duration } => {
                let at = self.compute(r, now, duration);
                self.at(s, r, at, Act::Resume(r));
                Ok(self.block(r, Resume::Nothing, 0))
            }
            Op::Sleep { duration } => {
                self.push_local(s, now.saturating_add(duration), Loc::Act(Act::Resume(r)));
                Ok(self.block(r, Resume::Nothing, 0))
            }
            Op::CommDup { comm, new } => {
                let (_, me, _) = self.resolve(r, comm, origin)?;
                self.comm_create(s, r, comm, 0, me as i32, new, origin)
            }
            Op::CommSplit {
                comm,
                color,
                key,
                new,
            } => self.comm_create(s, r, comm, color, key, new, origin),
            _ => {
                let comm = comm_of(op).expect("collective");
                let (_, me, size) = self.resolve(r, comm, origin)?;
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
                let alg =
                    collectives::choose(op, size, &self.params.collectives).expect("collective op");
                let run = CollRun::new(alg, op.clone(), size, me);
                let rk = &mut self.ranks[r as usize];
                rk.coll_seq = rk.coll_seq.wrapping_add(1);
                rk.coll = Some(Box::new(run));
                rk.cur = Some((op.clone(), origin.clone()));
                Ok(Flow::Continue)
            }
        }
    }

    fn waitall(
        &mut self,
        r: u32,
        reqs: &[ReqId],
        origin: &Origin,
        pending: bool,
    ) -> Result<Flow, Flow> {
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
            return Ok(Flow::Continue);
        }
        Ok(self.block(r, Resume::FreeNamed, left))
    }

    #[allow(clippy::too_many_arguments)]
    fn comm_create(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        comm: CommId,
        color: i32,
        key: i32,
        new: CommId,
        origin: &Origin,
    ) -> Result<Flow, Flow> {
        if new == CommId::WORLD {
            return Err(self.fail(r, origin, "cannot redefine MPI_COMM_WORLD (id 0)".into()));
        }
        let (g, me, size) = self.resolve(r, comm, origin)?;
        let counter = if comm == CommId::WORLD {
            &mut self.ranks[r as usize].world_creations
        } else {
            let e = self.ranks[r as usize]
                .comms
                .iter_mut()
                .rev()
                .find(|e| e.id == comm)
                .expect("resolved");
            &mut e.creations
        };
        let seq = *counter;
        *counter += 1;
        let pending = self.creates.entry((g, seq)).or_default();
        pending.arrived.push((me, color, key, new));
        if pending.arrived.len() == size as usize {
            let mut all = self.creates.remove(&(g, seq)).expect("pending").arrived;
            // Ranks of the new communicators: by (color, key, parent rank).
            all.sort_by_key(|&(m, c, k, _)| (c, k, m));
            let mut i = 0;
            while i < all.len() {
                let c = all[i].1;
                let j = i + all[i..].iter().take_while(|x| x.1 == c).count();
                if c >= 0 {
                    let members: Vec<u32> = all[i..j].iter().map(|x| self.member(g, x.0)).collect();
                    let global = self.comms.len() as u32;
                    for (k, &w) in members.iter().enumerate() {
                        let id = all[i + k].3;
                        self.ranks[w as usize].comms.push(CommEntry {
                            id,
                            global,
                            me: k as u32,
                            creations: 0,
                        });
                    }
                    self.comms.push(Comm {
                        size: members.len() as u32,
                        members,
                    });
                }
                i = j;
            }
            for &(m, ..) in &all {
                let w = self.member(g, m);
                let now = s.now();
                self.push_local(s, now, Loc::Act(Act::Resume(w)));
            }
        }
        Ok(self.block(r, Resume::Nothing, 0))
    }

    // ----- diagnostics ---------------------------------------------------

    fn describe_ctx(&self, ctx: u32) -> String {
        let kind = if ctx % 2 == 0 { "" } else { " (collective)" };
        format!("comm #{}{kind}", ctx / 2)
    }

    fn blocked_report(&self, r: u32) -> BlockedRank {
        let rk = &self.ranks[r as usize];
        let (op, origin) = match &rk.cur {
            Some((op, o)) => (format!("{op:?}"), o.to_string()),
            None => ("(no operation)".into(), "-".into()),
        };
        const LIMIT: usize = 16;
        let mut posted = vec![];
        let mut unexp = vec![];
        {
            let q = &rk.queues;
            let ps = q.posted_recvs();
            for p in ps.iter().take(LIMIT) {
                let src = p.src.map_or("ANY_SOURCE".into(), |x| format!("rank {x}"));
                let tag = p.tag.map_or("ANY_TAG".into(), |x| format!("tag {x}"));
                posted.push(format!(
                    "recv from {src} {tag} on {}",
                    self.describe_ctx(p.ctx)
                ));
            }
            if ps.len() > LIMIT {
                posted.push(format!("... and {} more", ps.len() - LIMIT));
            }
            let us = q.unexpected_msgs();
            for e in us.iter().take(LIMIT) {
                let m = &self.msgs[e.msg as usize];
                unexp.push(format!(
                    "{:?} message from rank {} tag {} ({} B) on {}",
                    m.proto,
                    e.src,
                    e.tag,
                    m.bytes,
                    self.describe_ctx(e.ctx)
                ));
            }
            if us.len() > LIMIT {
                unexp.push(format!("... and {} more", us.len() - LIMIT));
            }
        }
        BlockedRank {
            rank: r,
            op,
            origin,
            posted_recvs: posted,
            unexpected_msgs: unexp,
        }
    }
}

fn comm_of(op: &Op) -> Option<CommId> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Memory per idle rank (the budget is 1 KB beyond its
    /// queues): the rank's state plus its share of fixed tables.
    #[test]
    fn idle_rank_is_small() {
        let per_rank = std::mem::size_of::<RankState>();
        assert!(per_rank <= 400, "RankState is {per_rank} B");
        assert!(std::mem::size_of::<Msg>() <= 64);
        assert!(std::mem::size_of::<Req>() <= 12);
    }
}
