//! The simulator: ranks running programs over a [`Transport`].
//!
//! One [`Simulation`] owns every rank's state, the messages in flight, the
//! requests, the communicators and the transport; it is a
//! [`sim_core::Model`] whose events are [`Ev`]. Where things live:
//!
//! * `host.rs`: the CPUs (cores, progress engines) and the rule that they
//!   serve work in time order; ports are per rank, in `ranks.rs`'s state.
//! * `protocol.rs`: short, eager and rendezvous (RTS, CTS, data) as one
//!   state machine per message, and what each host job costs; the gamma
//!   charge of a search is [`Sim::search`] there.
//! * `costs.rs`: the per-message chain and the derived term that keeps
//!   the calibration contract; the configuration check.
//! * `order.rs`: non-overtaking per (source, destination) pair.
//! * `shm.rs`: a node's memory, the shared-memory path within a node.
//! * `requests.rs`: requests, wait, waitall, waitany, test.
//! * `ranks.rs`: programs, blocking calls, collectives.
//! * `comms.rs`: communicators, groups, process topologies, neighbour
//!   collectives.
//! * `local.rs`: the layer's own event queue.
//! * `report.rs`: results, errors, the deadlock report.

mod comms;
mod control;
mod costs;
mod host;
mod local;
mod order;
mod protocol;
mod ranks;
mod report;
mod requests;
mod shm;
mod topo;

pub use protocol::MsgState;
pub use report::{
    BlockedRank, ConfigError, DeadlockReport, RegionTime, RunError, RunResults, Traffic, Truncation,
};

use crate::collectives::P2p;
use crate::observe::{NoObserver, Observer};
use crate::op::{MsgId, OpStream, Origin};
use crate::params::{MpiParams, Progress};
use comms::{Comm, PendingCreate};
use costs::CellCosts;
use host::{Job, Server};
use local::{Loc, LocalQueue};
use order::Order;
use protocol::Msg;
use ranks::RankState;
use report::Stats;
use requests::{RecvChecks, Req};
use rustc_hash::FxHashMap;
use sim_core::{Engine, EventId, Model, Schedule, Scheduler, Stop, Time, limits};
use std::cmp::Reverse;
use topology::{Delivery, LinkBusy, Placement, Transport};

/// The id that names nothing (of a request, a message, a rank, a
/// server): `u32::MAX`.
pub(super) const NONE: u32 = u32::MAX;

/// Events the MPI layer puts on the engine's queue. `NE` is the
/// transport's event type, carried in [`Ev::Net`] (the transport never
/// sees the other variant).
///
/// The layer's own events (host work ending, departures, arrivals through
/// shared memory, resumptions) live in a private queue keyed by (time,
/// sequence) like the engine's; the engine holds one [`Ev::Wake`] at the
/// earliest of them. Many ranks acting at the same instant (every step of
/// a collective) then cost one engine event, and the layer's queue needs
/// no cancel-by-handle index. Ties: the layer's events are FIFO among
/// themselves; against transport events at the same time they run when
/// their wake pops (deterministic either way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ev<NE> {
    /// A transport event.
    Net(NE),
    /// Run the layer's own events that are due.
    Wake,
}

type Sch<'a, NE> = Scheduler<'a, Ev<NE>>;

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

/// A simulation of MPI ranks running `S` programs over transport `T`,
/// reporting what happens to observer `O` (none by default).
pub struct Simulation<T: Transport, S: OpStream, O: Observer = NoObserver> {
    state: Sim<T, S, O>,
    engine: Engine<Ev<T::Event>>,
}

impl<T: Transport, S: OpStream, O: Observer> std::fmt::Debug for Simulation<T, S, O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation").finish_non_exhaustive()
    }
}

/// A rank's timed region: the open pass (its begin time and where it
/// began) and the passes so far.
#[derive(Default)]
struct Region {
    open: Option<(Time, Origin)>,
    total: Time,
    count: u32,
}

struct Sim<T: Transport, S: OpStream, O: Observer> {
    /// Receives the run's events.
    obs: O,
    params: MpiParams,
    /// Per (protocol, locality): wire rate, gap, copies.
    cells: [[CellCosts; 3]; 3],
    placement: Placement,
    transport: T,
    programs: Vec<S>,
    /// Some program is a dependency graph.
    graphs: bool,
    ranks: Vec<RankState>,
    comms: Vec<Comm>,
    creates: FxHashMap<(u32, u32), PendingCreate>,
    /// `CommCreateGroup`s in progress, by (parent, tag, members).
    group_creates: FxHashMap<(u32, i32, Vec<u32>), PendingCreate>,
    /// Groups by (rank, group id): world ranks in group order, interned
    /// (every rank's `MPI_Comm_group(MPI_COMM_WORLD)` is one list).
    groups: FxHashMap<(u32, u32), std::sync::Arc<[u32]>>,
    /// Every distinct group list made so far.
    group_lists: rustc_hash::FxHashSet<std::sync::Arc<[u32]>>,
    msgs: Vec<Msg>,
    free_msgs: Vec<u32>,
    reqs: Vec<Req>,
    /// Receive buffer sizes and origins by request (see [`RecvChecks`]).
    recvs: RecvChecks,
    free_reqs: Vec<u32>,
    /// User requests in flight: (rank, its id) to the request.
    user: requests::UserReqs,
    /// Per rank, ids of requests a `Test` completed and freed: MPI sets the
    /// handle to `MPI_REQUEST_NULL`, so a later wait naming it returns at
    /// once (trace readers cannot know at read time whether a test
    /// succeeded). Only ranks that have some (looked up, never iterated).
    tested: FxHashMap<u32, Vec<u64>>,
    /// Timed regions by (rank, region): only ranks that mark some.
    regions: FxHashMap<(u32, u32), Region>,
    order: Order,
    /// Messages waiting for their sender's port, by port (only ports with
    /// a queue; looked up, never iterated): the (head, tail) of a list
    /// threaded through `Msg::port_next`.
    port_q: crate::probe::ProbeMap<u64, (u32, u32)>,
    /// Graph programs' CPUs beyond the first, by (rank, cpu): server ids
    /// after the progress engines in `engines`.
    extra_cpus: FxHashMap<(u32, u16), u32>,
    /// Graph programs' network interfaces beyond the first.
    extra_ports: FxHashMap<(u32, u16), host::Port>,
    /// Progress engines, then graph programs' extra CPUs.
    engines: Vec<Server>,
    /// The jobs waiting on every server.
    waiting: host::Waiting,
    /// Nodes' memories by node, each created at its first copy (the table
    /// at the first copy of the run).
    memory: Vec<Option<Box<shm::NodeMemory>>>,
    deliveries: Vec<Delivery>,
    /// The observer wants the links' busy intervals (the transport logs
    /// them); `busy` is the buffer they pass through.
    links: bool,
    busy: Vec<LinkBusy>,
    released: Vec<u32>,
    /// The messages whose shared-memory copy a node's memory finished.
    copied: Vec<MsgId>,
    scratch: Vec<P2p>,
    error: Option<RunError>,
    stats: Stats,
    local: LocalQueue,
    net_events: u64,
    /// Nodes' speed profiles (empty: every node computes at its declared
    /// speed); see [`Simulation::set_speed_profiles`].
    speed_profiles: Vec<Option<std::sync::Arc<topology::platform::Profile>>>,
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
        Simulation::with_observer(placement, transport, programs, params, NoObserver)
    }
}

impl<T: Transport, S: OpStream, O: Observer> Simulation<T, S, O> {
    /// Gives nodes a speed that changes over time (a SimGrid platform's
    /// speed profiles), by node: a `Compute` of duration `d` (at the
    /// declared speed) on such a node lasts until its work `d` is done
    /// at the profile's scale ([`topology::platform::Profile::end_of_work`]).
    pub fn set_speed_profiles(
        &mut self,
        by_node: Vec<Option<std::sync::Arc<topology::platform::Profile>>>,
    ) {
        self.state.speed_profiles = by_node;
    }

    /// As [`Simulation::new`], reporting the run's events to `obs`.
    pub fn with_observer(
        placement: Placement,
        transport: T,
        programs: Vec<S>,
        params: MpiParams,
        obs: O,
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
        if let Err(e) = limits::check_ranks(n as u64) {
            return Err(ConfigError::Invalid {
                name: "programs",
                message: e.to_string(),
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
        if params.pair_window == Some(0) {
            return Err(ConfigError::Invalid {
                name: "pair_window",
                message: "must be at least 1 message".into(),
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
        for (name, g) in [
            ("gamma_posted", &params.gamma_posted),
            ("gamma_unexpected", &params.gamma_unexpected),
        ] {
            if g.bands.windows(2).any(|w| w[0].0 >= w[1].0) {
                return Err(ConfigError::Invalid {
                    name,
                    message: "bands must start at strictly increasing positions".into(),
                });
            }
        }
        let engines = match params.progress {
            Progress::OwnCore => Vec::new(),
            Progress::Engines { engines: 0 } => {
                return Err(ConfigError::Invalid {
                    name: "progress.engines",
                    message: "must be at least 1".into(),
                });
            }
            Progress::Engines { engines } => (0..nodes as usize * engines as usize)
                .map(|_| Server::default())
                .collect(),
        };
        let cells = Sim::<T, S, O>::cell_costs(&params)?;
        let links = O::ENABLED && obs.wants_links();
        let mut transport = transport;
        transport.record_link_busy(links);
        let graphs = programs.iter().any(|p| p.is_graph());
        let matcher = params.matcher;
        let mut sim = Sim {
            obs,
            params,
            cells,
            placement,
            transport,
            programs,
            graphs,
            ranks: (0..n).map(|_| RankState::new(matcher)).collect(),
            comms: vec![Comm {
                size: n as u32,
                members: Vec::new(),
                topo: topo::Topo::None,
            }],
            creates: FxHashMap::default(),
            group_creates: FxHashMap::default(),
            groups: FxHashMap::default(),
            group_lists: Default::default(),
            msgs: Vec::new(),
            free_msgs: Vec::new(),
            reqs: Vec::new(),
            recvs: RecvChecks::default(),
            free_reqs: Vec::new(),
            user: requests::UserReqs::default(),
            tested: FxHashMap::default(),
            regions: FxHashMap::default(),
            order: Order::new(n),
            port_q: crate::probe::ProbeMap::default(),
            extra_cpus: FxHashMap::default(),
            waiting: host::Waiting::default(),
            extra_ports: FxHashMap::default(),
            engines,
            memory: Vec::new(),
            deliveries: Vec::new(),
            links,
            busy: Vec::new(),
            released: Vec::new(),
            copied: Vec::new(),
            scratch: Vec::new(),
            error: None,
            stats: Stats::default(),
            local: LocalQueue::default(),
            speed_profiles: Vec::new(),
            net_events: 0,
        };
        sim.check_calibration()?;
        let mut engine = Engine::new();
        {
            let mut s = engine.scheduler();
            for r in 0..n as u32 {
                sim.push_local(&mut s, Time::ZERO, Loc::Wake(r));
            }
        }
        Ok(Simulation { state: sim, engine })
    }

    /// Runs to the end: the results, or the first error (a bad program, a
    /// semantic error, or a deadlock report).
    pub fn run(self) -> Result<RunResults, RunError> {
        self.run_observed(u64::MAX, |_, _| {}).0
    }

    /// Runs to the end, calling `progress(now, events)` every `every`
    /// events; returns the results and the transport (for its per-link
    /// statistics).
    pub fn run_observed(
        self,
        every: u64,
        progress: impl FnMut(Time, u64),
    ) -> (Result<RunResults, RunError>, T) {
        let (r, t, _) = self.run_full(every, progress);
        (r, t)
    }

    /// As [`Simulation::run_observed`], also handing the observer back.
    pub fn run_full(
        mut self,
        every: u64,
        mut progress: impl FnMut(Time, u64),
    ) -> (Result<RunResults, RunError>, T, O) {
        // A countdown, not `seen % every`: no division per event.
        let every = every.max(1);
        let (mut seen, mut next) = (0u64, every);
        // The horizon: an event beyond `MAX_SIM_TIME` (a time that
        // overflowed saturates at `Time::MAX`, beyond it) ends the run
        // with an error before it is handled, so no saturated time is ever
        // used or reported as a result.
        let stop = self
            .engine
            .run_while_until(&mut self.state, limits::MAX_SIM_TIME, |m, now| {
                seen += 1;
                if seen == next {
                    progress(now, seen);
                    next = next.saturating_add(every);
                }
                m.error.is_none()
            });
        if stop == Stop::TimeLimit && self.state.error.is_none() {
            self.state.error = Some(RunError::TimeLimit {
                now: self.engine.now(),
                at: self.engine.next_time().expect("an event beyond the limit"),
            });
        }
        let now = self.engine.now();
        let mut sim = self.state;
        if O::ENABLED && sim.links {
            sim.observe_links();
        }
        let outcome = sim.results(now);
        (outcome, sim.transport, sim.obs)
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

impl<T: Transport, S: OpStream, O: Observer> Model for Sim<T, S, O> {
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
                if O::ENABLED && self.links {
                    self.observe_links();
                }
            }
            Ev::Wake => self.wake(s),
        }
    }
}

impl<T: Transport, S: OpStream, O: Observer> Sim<T, S, O> {
    /// Hands the links' busy intervals logged so far to the observer
    /// (those of transfers started since the last network event too).
    fn observe_links(&mut self) {
        let mut busy = std::mem::take(&mut self.busy);
        self.transport.drain_link_busy(&mut busy);
        for b in &busy {
            self.obs.link_busy(b);
        }
        busy.clear();
        self.busy = busy;
    }

    /// Schedules the layer's event `ev` at `t` (`t >= now`).
    fn push_local(&mut self, s: &mut Sch<'_, T::Event>, t: Time, ev: Loc) {
        self.local.push(t, ev);
        self.wake_at(s, t);
    }

    /// Makes sure a wake is pending at `t`, unless the running drain of
    /// that instant takes what was queued for it.
    fn wake_at(&mut self, s: &mut Sch<'_, T::Event>, t: Time) {
        let q = &mut self.local;
        if q.draining && t == s.now() {
            return;
        }
        if q.wakes.peek().is_none_or(|w| w.0 > t) {
            q.wakes.push(Reverse(t));
            s.post_at(t, Ev::Wake);
        }
    }

    /// Graph program `r` looks for ready operations once the events of
    /// this instant are done.
    fn visit(&mut self, s: &mut Sch<'_, T::Event>, r: u32) {
        self.local.visits.push(r);
        let now = s.now();
        self.wake_at(s, now);
    }

    /// Runs every local event due now, in push order; when none is left,
    /// the graph programs' visits asked for meanwhile, in rank order, and
    /// again until neither is left. Then makes sure a wake is pending for
    /// the next event.
    ///
    /// Visits come last so that when an operation starts within its
    /// instant does not depend on how many visits were asked for: a visit
    /// that finds nothing changes nothing, and the ones that find
    /// something run at the same point and in the same order.
    fn wake(&mut self, s: &mut Sch<'_, T::Event>) {
        let now = s.now();
        let popped = self.local.wakes.pop();
        debug_assert_eq!(popped, Some(Reverse(now)));
        self.local.draining = true;
        while self.error.is_none() {
            let Some(ev) = self.local.pop_due(now) else {
                if self.local.visits.is_empty() {
                    break;
                }
                let mut v = std::mem::take(&mut self.local.visits);
                v.sort_unstable();
                v.dedup();
                for &r in &v {
                    self.local.handled += 1;
                    self.graph_nudge(s, r);
                }
                v.clear();
                if self.local.visits.is_empty() {
                    self.local.visits = v;
                }
                continue;
            };
            self.local.handled += 1;
            match ev {
                Loc::Free(id, end) => self.server_free(s, id, end),
                Loc::Ready(id, m, data) => {
                    let job = if data { Job::Data(m) } else { Job::Envelope(m) };
                    self.submit(s, id, job, false);
                }
                Loc::Effects(end) => self.do_end(s, end),
                Loc::Depart(m) => self.ready_to_leave(s, m),
                Loc::Port(r, nic) => self.port_turn(s, r, nic),
                Loc::Arrive(m) => self.arrive(s, m),
                Loc::Landed(m) => self.landed(s, m),
                Loc::ShmDone(node, v) => self.shm_done(s, node, v),
                Loc::Wake(r) => {
                    self.submit(s, r, Job::Resume(r), false);
                }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Memory per idle rank (the budget is 1 KB beyond its
    /// queues): the rank's state plus its share of fixed tables.
    #[test]
    fn idle_rank_is_small() {
        // 216 B: the collective in progress is inline (40 B; boxed it
        // was a pointer here and a 96 B allocation per rank in a
        // collective, and a cache miss per step); the operation a rank
        // is blocked in is boxed (88 B inline); its user request ids and
        // communicators are thin vectors (8 B each, 24 as `Vec`s); the
        // match queues keep their oldest entry inline and the rest boxed
        // (64 B; 88 with two `VecDeque`s).
        let per_rank = std::mem::size_of::<RankState>();
        assert!(per_rank <= 216, "RankState is {per_rank} B");
        assert!(std::mem::size_of::<Msg>() <= 64);
        assert!(std::mem::size_of::<Req>() <= 16);
        // Beside each request slot: a receive's size and origin.
        assert!(std::mem::size_of::<requests::RecvCheck>() <= 24);
    }

    /// What a step of a collective touches lies in the rank state's
    /// first 112 bytes, the match queues right after (see `RankState`).
    #[test]
    fn hot_rank_fields_first() {
        use std::mem::{offset_of, size_of};
        let end = offset_of!(RankState, internal) + size_of::<ranks::Internal>();
        assert!(end <= 112, "hot fields end at {end}");
        assert!(offset_of!(RankState, port) < end && offset_of!(RankState, coll) < end);
        assert_eq!(offset_of!(RankState, queues), end);
    }
}
