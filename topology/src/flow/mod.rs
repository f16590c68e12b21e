//! The flow model: every transfer is a flow along its route, and flows
//! share link and interface bandwidth max-min fairly.
//!
//! # Sharing
//!
//! Rates are the max-min fair allocation (progressive filling) over the
//! constraints of the machine, with each flow's [`Transfer::rate_cap`]
//! (`R_b`, Bienz et al. eq. 2) as an upper bound of that flow alone:
//!
//! * [`Sharing::Fair`]: every link direction is a constraint: the flows
//!   crossing it share its bandwidth (Zhu et al. eq. 5: `|E|` flows on a
//!   saturated resource of inverse bandwidth `beta` each get
//!   `1 / (beta * |E|)`). Node interfaces are the hosts' links, so the
//!   node's `R_N` is shared too.
//! * [`Sharing::Asymmetric`]: both directions of a cable form one
//!   constraint whose fair level is `min(rem_in / n_in, rem_out / n_out)`
//!   over the directions that still have unfixed flows; when it binds,
//!   the unfixed flows of *both* directions get that level. With all flows
//!   bottlenecked on the cable that is Zhu et al. eq. 6: every flow gets
//!   `bandwidth / max(d+, d-)` (12 in + 1 out on a NIC: 13 flows at
//!   940/12 Mb/s). Following Zhu et al.'s Algorithm 1 (lines 16-20),
//!   contra-flow congestion applies only when the contra flows saturate
//!   the link: if the flows of one direction are held below their share
//!   elsewhere and leave capacity unused, the other direction is not
//!   slowed; if they fill the link (even when fixed by other bottlenecks),
//!   the other direction's flows get at most the largest rate among them
//!   (line 17).
//!
//! # Updates
//!
//! A start or an end only records what it affects and posts one `Update`
//! event at the current time, so all starts and ends of one instant are
//! solved together. Both solvers give the max-min allocation of a
//! from-scratch solve (a unit test checks every flow's rate after every
//! event against an obvious reference solver):
//!
//! * fair sharing: a level-ordered sweep (`sweep`) that re-solves only
//!   the link directions on which some flow leaves its old trajectory;
//! * asymmetric sharing: the flows a change can reach, at or above a
//!   level cut and connected through shared constraints, re-solved
//!   (`cut`);
//! * a machine that asks for SimGrid's CM02 ([`crate::cm02`]): shares
//!   weighted by each flow's penalty, solved from scratch, with the
//!   latency paid before the bytes and link profiles followed (`cm02`).
//!
//! Completions are kept per rate group (`group`): flows of one rate share
//! a virtual clock and one completion event. [`FlowNet::update_stats`]
//! counts the work of each update. Why the solvers are built so, and what
//! they were measured to cost: `docs/perf/2026-11-26-flow-model-notes.md`.
//!
//! # Timing
//!
//! A flow's data leaves at its current rate; when its last byte has left,
//! its bandwidth is released and the delivery follows after the route's
//! summed latency (under CM02, before its first byte). On an idle
//! machine: `latency sum + bytes / rate` with
//! [`transfer_time`](sim_core::transfer_time) exactly. Remaining bytes are tracked in `f64`; a
//! completion time is rounded up to the picosecond.

use crate::config::{NetConfig, NetConfigError, check, window_cap};
use crate::idle::flow_idle_time;
pub(crate) use crate::idle::time_for;
use crate::machine::{Machine, Sharing};
use crate::stats::{LinkStat, StatsCollector};
use crate::transport::{Delivery, LinkBusy, LinkId, NodeId, Transfer, Transport};
use sim_core::stats::Summary;
use sim_core::{Bandwidth, Schedule, Time};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod change;
mod cm02;
mod cut;
mod group;
mod sweep;

/// A heap key of the solvers: `level bits << 64 | tag`, so that one
/// integer comparison orders entries by (level, tag), as the engine's
/// queue packs its keys (levels are non-negative, so their bits order as
/// they do).
#[inline]
fn pack(level_bits: u64, tag: u64) -> u128 {
    (level_bits as u128) << 64 | tag as u128
}

/// (level bits, tag) of a key made by [`pack`].
#[inline]
fn unpack(k: u128) -> (u64, u64) {
    ((k >> 64) as u64, k as u64)
}

/// The lowest entry of the heap and of the sorted `sorted[*next..]`
/// together, removed, as (level bits, tag); `None` when both are
/// exhausted. The one merge the sweep and the cut both run.
#[inline]
fn pop_lowest(
    heap: &mut BinaryHeap<Reverse<u128>>,
    sorted: &[u128],
    next: &mut usize,
) -> Option<(u64, u64)> {
    let from_heap = match (heap.peek(), sorted.get(*next)) {
        (None, None) => return None,
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (Some(Reverse(h)), Some(c)) => h < c,
    };
    let k = if from_heap {
        heap.pop().expect("peeked").0
    } else {
        *next += 1;
        sorted[*next - 1]
    };
    Some(unpack(k))
}

#[cfg(test)]
mod tests;

/// Events of the flow model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowEvent {
    /// Recompute the rates of the flows marked since the last update.
    Update,
    /// The first member of a rate group (see `group`) sent its last byte.
    End(u32),
    /// A flow's last byte arrived (carries the transfer's token).
    Deliver(u64),
    /// CM02 sharing: a flow has paid its route's latency and joins the
    /// sharing (`cm02`).
    Join(u32),
    /// CM02 sharing: a link profile's next change is due (`cm02`).
    Profile(u32),
}

#[derive(Clone, Debug, Default)]
struct Flow {
    token: u64,
    route: Vec<LinkId>,
    bytes: u64,
    /// What its links carry for it \[bytes\]: `bytes`, over its
    /// bandwidth factor when the machine has SMPI's size factors.
    work: f64,
    /// Its route's latency (times its latency factor, with those).
    lat: Time,
    /// In progress (slot not on the free list).
    live: bool,
    /// Not yet solved, and sure to get its cap (see `start`).
    at_cap: bool,
}

/// What an update knows of a flow (valid when `mark` is the update's
/// epoch; any other mark means "not looked at": the flow keeps its rate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// Sweep: assumed to keep its old rate, with a check due at that rate.
    Checked,
    /// Being solved: its rate rises with the level until a constraint or
    /// its cap fixes it.
    #[default]
    Open,
    /// Fixed at `new_rate` by this update.
    Settled,
}

/// What the solvers read of a flow on every visit (its rate, cap and
/// the update's scratch), kept apart from [`Flow`] so that a visit loads
/// 32 bytes, not the flow's cold fields (the sweep's link scans, checks
/// and fixes are bound by these loads: random flows, one miss each).
#[derive(Clone, Copy, Debug, Default)]
struct Scratch {
    new_rate: f64,
    /// The flow's current rate (zero until its first update).
    rate: f64,
    /// Its [`Transfer::rate_cap`], infinite for none.
    cap: f64,
    mark: u32,
    state: State,
    /// Solved: it is a member of a rate group (`FlowNet::member`).
    solved: bool,
    /// Its route's length (the route is `FlowNet::route(f)`).
    hops: u16,
}

/// Per link direction, what a start, an end and the sweep read and keep
/// of it and its flows (the sums and counts with fair sharing only), in
/// one cache line: its bandwidth, the sweep's level, the list of its
/// flows and the statistics that every start and end also write. Each
/// had been a table of its own, a cache miss per hop each.
#[derive(Clone, Debug)]
#[repr(align(64))]
struct Kept {
    /// The sum of its flows' rates: a solved flow's rate (its new rate
    /// from the moment the running update fixes it, `sweep`'s `fix`); an
    /// unsolved [`Flow::at_cap`] flow's cap, the rate it is sure to get;
    /// nothing for the other unsolved flows. A clean link's load and a
    /// start's room are read here in O(1), not summed over the link's
    /// flows.
    ///
    /// A running sum: each rate is added and later taken off, and the
    /// sum is reset to zero only when the link empties, so its rounding
    /// grows with the link's busy period (about 1e-16 of the bandwidth
    /// per change; the flow tests hold it within 1e-12 of a fresh sum
    /// after every event). What an error `d` of it can do is bounded by
    /// `d`: a verdict that reads the link as having room when it has
    /// none (a start at its cap, a link kept clean) is wrong only when
    /// the true load is within `d` of full, so the link ends up loaded
    /// at most `d` past its bandwidth. Reaching 1e-9 of the bandwidth
    /// (the verdicts' [`sweep::SLACK`]) takes some ten million changes
    /// on one link that never empties.
    load: f64,
    /// The number of its unsolved flows that are not [`Flow::at_cap`],
    /// less those the running update has fixed (a start on a link with
    /// one cannot be at its cap without a solve; a link with one is not
    /// clean).
    open: u32,
    /// Most flows crossing it at once ([`LinkStat::peak_flows`]).
    peak_flows: u32,
    /// Bytes of the flows that crossed it and ended ([`LinkStat::bytes`]).
    bytes: u64,
    /// Its bandwidth \[bytes/s\] (the machine's link's, copied).
    bw: f64,
    /// The level at which it filled in the current solution and fixed
    /// flows, or infinity (fair sharing; see `sweep`).
    lam: f64,
    /// The flows crossing it (a flow's index here is in
    /// [`FlowNet::slot_at`]).
    flows: Vec<u32>,
}

impl Kept {
    fn new(bw: f64) -> Self {
        Kept {
            load: 0.0,
            open: 0,
            peak_flows: 0,
            bytes: 0,
            bw,
            lam: f64::INFINITY,
            flows: Vec::new(),
        }
    }

    /// It fixed no flow in the current solution.
    fn binds_nothing(&self) -> bool {
        self.lam == f64::INFINITY
    }
}

/// The flow transport. See the module docs.
pub struct FlowNet {
    m: Machine,
    asym: bool,
    /// [`NetConfig::tcp_window`].
    tcp_window: Option<u64>,
    flows: Vec<Flow>,
    scratch: Vec<Scratch>,
    /// Every flow slot's route at `f * stride`, a copy of
    /// [`Flow::route`] the solvers read without touching the flow.
    routes: Vec<u32>,
    /// Per hop, at the same place: the flow's index in [`Kept::flows`] of
    /// that hop's link (O(1) removal at its end, where a search costs the
    /// link's flow count).
    slot_at: Vec<u32>,
    stride: usize,
    /// Every solved flow's place in its rate group.
    member: Vec<group::Member>,
    group_of: Vec<u32>,
    groups: group::Groups,
    /// Scratch of a group's completion: the flows it ended.
    ended: Vec<u32>,
    free: Vec<u32>,
    /// Per link direction: see [`Kept`].
    kept: Vec<Kept>,
    /// Per link direction (per constraint for the cut solver): bandwidth
    /// left for the flows not yet fixed, and their number.
    rem: Vec<f64>,
    nun: Vec<u32>,
    /// Epoch in which a link (constraint) was taken into the update.
    cmark: Vec<u32>,
    epoch: u32,
    update_pending: bool,
    /// Flows looked at by the running update, in the order first seen.
    comp: Vec<u32>,
    /// Priority queue of the solvers, keyed by level bits then a tag.
    heap: BinaryHeap<Reverse<u128>>,
    /// Scratch of `first_binding`.
    lambda: Vec<f64>,
    sweep: sweep::SweepState,
    cut: cut::CutState,
    stats: StatsCollector,
    touched: Summary,
    touched_max: usize,
    /// Solved flows whose rate an update changed (see
    /// [`UpdateStats::rate_changes`]).
    rate_changes: u64,
    /// SimGrid's CM02 sharing, when the machine asks for it (`cm02`).
    cm02: Option<Box<cm02::Cm02State>>,
}

impl std::fmt::Debug for FlowNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlowNet").finish_non_exhaustive()
    }
}

/// How many flows the rate updates touched.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct UpdateStats {
    /// Updates run.
    pub updates: u64,
    /// Mean flows looked at per update (re-solved, or checked and kept).
    pub mean_flows: f64,
    /// Most flows looked at in one update.
    pub max_flows: usize,
    /// Rates changed: solved flows that an update gave a new rate (a new
    /// flow's first rate is not a change). This is the size of the exact
    /// max-min answer itself, whatever solver computes it: every one is
    /// a completion time that moves.
    pub rate_changes: u64,
}

impl FlowNet {
    /// A flow network over `m`.
    pub fn new(m: Machine, cfg: NetConfig) -> Result<Self, NetConfigError> {
        check(&m, &cfg)?;
        let m = crate::config::routed(m, &cfg);
        let nl = m.links().len();
        Ok(FlowNet {
            asym: m.sharing == Sharing::Asymmetric,
            tcp_window: cfg.tcp_window,
            flows: Vec::new(),
            scratch: Vec::new(),
            routes: Vec::new(),
            slot_at: Vec::new(),
            stride: 0,
            member: Vec::new(),
            group_of: Vec::new(),
            groups: group::Groups::default(),
            ended: Vec::new(),
            free: Vec::new(),
            kept: m
                .links()
                .iter()
                .map(|l| Kept::new(l.bandwidth.as_f64()))
                .collect(),
            rem: vec![0.0; nl],
            nun: vec![0; nl],
            cmark: vec![0; nl],
            epoch: 0,
            update_pending: false,
            comp: Vec::new(),
            heap: BinaryHeap::new(),
            lambda: Vec::new(),
            sweep: sweep::SweepState::new(nl),
            cut: cut::CutState::default(),
            stats: StatsCollector::new(nl),
            touched: Summary::default(),
            touched_max: 0,
            rate_changes: 0,
            cm02: m
                .cm02()
                .filter(|_| m.sharing != Sharing::Asymmetric)
                .map(|c| Box::new(cm02::Cm02State::new(c.clone(), nl))),
            m,
        })
    }
    /// The machine.
    pub fn machine(&self) -> &Machine {
        &self.m
    }
    /// Per-link totals (see [`LinkStat`]).
    pub fn link_stats(&self, elapsed: Time) -> Vec<LinkStat> {
        self.stats.report_with(self.m.links(), elapsed, true, |l| {
            (self.kept[l].bytes, self.kept[l].peak_flows)
        })
    }
    /// Flows looked at per update so far.
    pub fn update_stats(&self) -> UpdateStats {
        UpdateStats {
            updates: self.touched.count(),
            mean_flows: self.touched.mean().unwrap_or(0.0),
            max_flows: self.touched_max,
            rate_changes: self.rate_changes,
        }
    }
    /// Flow `f`'s route (from the solvers' copy).
    #[inline]
    fn route(&self, f: u32) -> &[u32] {
        let at = f as usize * self.stride;
        &self.routes[at..at + self.scratch[f as usize].hops as usize]
    }

    /// Hop `i` of flow `f`'s route.
    #[inline]
    fn hop(&self, f: u32, i: usize) -> u32 {
        self.routes[f as usize * self.stride + i]
    }

    /// Copies `route` into flow slot `f`'s place in `routes`, widening
    /// every slot first if it is longer than the stride.
    fn store_route(&mut self, f: u32, route: &[LinkId]) {
        if route.len() > self.stride {
            let (old, new) = (self.stride, route.len().max(4));
            let slots = self.flows.len();
            for v in [&mut self.routes, &mut self.slot_at] {
                let mut wide = vec![0; slots * new];
                for g in 0..slots.min(v.len() / old.max(1)) {
                    wide[g * new..g * new + old].copy_from_slice(&v[g * old..(g + 1) * old]);
                }
                *v = wide;
            }
            self.stride = new;
        }
        let need = self.flows.len() * self.stride;
        if self.routes.len() < need {
            self.routes.resize(need, 0);
            self.slot_at.resize(need, 0);
        }
        let at = f as usize * self.stride;
        for (to, l) in self.routes[at..at + route.len()].iter_mut().zip(route) {
            *to = l.0;
        }
        self.scratch[f as usize].hops =
            u16::try_from(route.len()).expect("a route shorter than 65536 hops");
    }

    fn ensure_update(&mut self, sched: &mut impl Schedule<FlowEvent>) {
        if !self.update_pending {
            self.update_pending = true;
            sched.post_in(Time::ZERO, FlowEvent::Update);
        }
    }

    /// The level at which link direction `s` would first fill if one more
    /// flow joined it and nothing else changed below that level: water
    /// filling of the link alone over the current rates (flows not yet
    /// solved count as unbounded, which can only lower the result).
    /// Nothing below this level can change on `s` because of the new
    /// flow. Expected `O(d)` for `d` flows on the link (selection by
    /// partition, no sort: a start on a link shared by hundreds of flows
    /// must not cost a sort of their rates).
    fn first_binding(&mut self, s: u32) -> f64 {
        self.fill_level(s, 1)
    }

    /// The level at which link direction `s` would first fill with
    /// `joining` more flows and its unsolved flows all rising, everything
    /// else at its current rate (see [`FlowNet::first_binding`]).
    fn fill_level(&mut self, s: u32, joining: usize) -> f64 {
        let mut r = std::mem::take(&mut self.lambda);
        r.clear();
        r.extend(
            self.kept[s as usize]
                .flows
                .iter()
                .map(|&g| self.rate_or_bound(g)),
        );
        let lv = water_level(self.kept[s as usize].bw, &mut r, joining);
        self.lambda = r;
        lv
    }

    /// The sum of the current rates on link direction `s`, with the cap
    /// for a flow [`Flow::at_cap`] not solved yet (infinite if another
    /// flow on it is not solved yet). O(1), from the kept sum (fair
    /// sharing only): it differs from a fresh sum by rounding alone,
    /// some 1e-13 of the bandwidth, far inside the [`sweep::SLACK`]
    /// margin every comparison with them keeps.
    fn load_of(&self, s: u32) -> f64 {
        let k = &self.kept[s as usize];
        if k.open > 0 {
            return f64::INFINITY;
        }
        k.load
    }

    /// Flow `g`'s current rate; for a flow not solved yet, its cap if it
    /// is sure to get it, else infinity.
    fn rate_or_bound(&self, g: u32) -> f64 {
        let sc = &self.scratch[g as usize];
        if sc.solved {
            sc.rate
        } else if self.flows[g as usize].at_cap {
            sc.cap
        } else {
            f64::INFINITY
        }
    }

    /// Releases flow `f`, which sent its last byte at rate `rate`: its
    /// bandwidth is freed and its delivery follows after the latency. An
    /// update follows only if a link of its route fixed some flow (with
    /// fair sharing): freeing room on the others changes no rate.
    fn release(&mut self, f: u32, rate: f64, sched: &mut impl Schedule<FlowEvent>) {
        let route = std::mem::take(&mut self.flows[f as usize].route);
        let bytes = self.flows[f as usize].bytes;
        let own = self.scratch[f as usize].rate;
        // Flows slower than the one leaving cannot change.
        if self.asym {
            self.cut.threshold = self.cut.threshold.min(rate);
        }
        let cm02 = self.cm02.is_some();
        let mut binds = self.asym || cm02;
        for (i, &l) in route.iter().enumerate() {
            let lu = l.index();
            self.kept[lu].bytes += bytes;
            let pos = self.slot_at[f as usize * self.stride + i] as usize;
            let v = &mut self.kept[lu].flows;
            debug_assert_eq!(v[pos], f, "flow listed on its links");
            v.swap_remove(pos);
            if let Some(&g) = v.get(pos) {
                let j = self
                    .route(g)
                    .iter()
                    .position(|&x| x == l.0)
                    .expect("route crosses l");
                self.slot_at[g as usize * self.stride + j] = pos as u32;
            }
            if cm02 {
                continue;
            }
            if self.asym {
                self.cut.dirty_links.push(l.0);
                continue;
            }
            if self.kept[lu].flows.is_empty() {
                // No rounding left over on an empty link.
                self.kept[lu].load = 0.0;
            } else {
                self.kept[lu].load -= own;
            }
            if !self.kept[lu].binds_nothing() {
                // Removing load from a link that fixes no flow
                // changes no rate through it.
                self.sweep.note_link(l.0, rate);
                binds = true;
            }
        }
        let fl = &mut self.flows[f as usize];
        fl.route = route;
        let sc = &mut self.scratch[f as usize];
        sc.rate = 0.0;
        sc.solved = false;
        fl.live = false;
        // Under CM02 the latency was paid before the bytes.
        let delay = if cm02 { Time::ZERO } else { fl.lat };
        sched.post_in(delay, FlowEvent::Deliver(fl.token));
        self.free.push(f);
        if cm02 {
            self.cm02_leave(f);
        }
        if binds {
            self.ensure_update(sched);
        }
    }

    /// The latency and the link work of a flow of `bytes` over a route of
    /// latency `lat`: as they are, or with the machine's size factors
    /// (`crate::size_factors`; the TCP window's bound, computed before,
    /// keeps the route's own latency).
    #[inline]
    fn factored(&self, lat: Time, bytes: u64) -> (Time, f64) {
        match self.m.size_factors() {
            None => (lat, bytes as f64),
            Some(fx) => (fx.latency_of(lat, bytes), fx.work(bytes)),
        }
    }

    fn update(&mut self, sched: &mut impl Schedule<FlowEvent>) {
        self.update_pending = false;
        self.epoch = self.epoch.wrapping_add(1).max(1);
        self.comp.clear();
        if self.cm02.is_some() {
            self.solve_cm02();
        } else if self.asym {
            self.solve_cut();
        } else {
            self.solve_sweep();
        }
        self.touched.record(self.comp.len() as f64);
        self.touched_max = self.touched_max.max(self.comp.len());
        self.apply(sched);
    }
}

/// The level `y` at which a link of bandwidth `cap` fills when `joining`
/// new flows join flows of the given rates (infinite for flows that rise
/// without bound): `sum(min(r, y)) + joining * y = cap`; infinite if it
/// never fills. Expected `O(n)`: quickselect on the rates (`rates` is
/// reordered).
fn water_level(cap: f64, rates: &mut [f64], joining: usize) -> f64 {
    // `lo` = sum of rates known to be below the level, `hi` = flows known
    // to reach it (the new ones included); `cand` = rates not yet placed.
    let (mut lo, mut hi) = (0.0f64, joining);
    let mut cand: &mut [f64] = rates;
    while !cand.is_empty() {
        let mid = cand.len() / 2;
        let (less, pivot, greater) = cand.select_nth_unstable_by(mid, f64::total_cmp);
        let p = *pivot;
        let sum_less: f64 = less.iter().sum();
        // Load at level p with everything at or above the pivot rising.
        let at_p = lo + sum_less + p * (hi + 1 + greater.len()) as f64;
        if at_p >= cap {
            // The link fills at or below p: the pivot and above reach it.
            hi += 1 + greater.len();
            cand = less;
        } else {
            lo += sum_less + p;
            cand = greater;
        }
    }
    if hi == 0 {
        return f64::INFINITY;
    }
    ((cap - lo) / hi as f64).max(0.0)
}

impl Transport for FlowNet {
    type Event = FlowEvent;

    fn nodes(&self) -> u32 {
        self.m.nodes()
    }

    /// Starts `t`. Panics if `src` or `dst` is not a node, or they are
    /// equal on a machine without loopback routes (the MPI layer then
    /// handles same-node messages itself).
    fn start(
        &mut self,
        sched: &mut impl Schedule<FlowEvent>,
        t: Transfer,
        _out: &mut Vec<Delivery>,
    ) {
        assert!(
            (t.src != t.dst || self.m.has_loopback())
                && t.src.0 < self.m.nodes()
                && t.dst.0 < self.m.nodes(),
            "bad transfer {t:?}"
        );
        let f = match self.free.pop() {
            Some(i) => i,
            None => {
                self.flows.push(Flow::default());
                self.scratch.push(Scratch::default());
                self.member.push(group::Member::default());
                self.group_of.push(group::NONE);
                self.flows.len() as u32 - 1
            }
        };
        let mut route = std::mem::take(&mut self.flows[f as usize].route);
        route.clear();
        let (lat, bound) = self.m.pair_route_into(t.src, t.dst, &mut route);
        let rate_cap = match (t.rate_cap, bound) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(sh) = &self.m.shared {
            // Each capacity resource once per flow, in route order.
            let mut n = 0;
            for i in 0..route.len() {
                let r = LinkId(sh.resource[route[i].index()]);
                if !route[..n].contains(&r) {
                    route[n] = r;
                    n += 1;
                }
            }
            route.truncate(n);
        }
        if self.cm02.is_some() {
            self.cm02_start(sched, f, t, route, lat, rate_cap);
            return;
        }
        // A pair route of no link at all has no bound, not even the TCP
        // window's (CM02: a flow without constraints is done when its
        // latency is): only the source's own cable, the fastest there is.
        let cap = if route.is_empty()
            && rate_cap.is_none()
            && (self.m.has_pair_routes() || t.src == t.dst)
        {
            self.m.injection_rate(t.src).as_f64()
        } else {
            window_cap(self.tcp_window, lat, rate_cap).map_or(f64::INFINITY, |c| c.as_f64())
        };
        let mut at_cap = false;
        if self.asym {
            self.cut_note_start(&route, cap);
        } else {
            // A capped flow whose links bind nothing and keep room for
            // its cap over the current rates gets its cap: none of its
            // links can fill unless some flow rises above its old rate,
            // which makes the link dirty anyway. Its links need not be
            // queued (most MPI messages are such flows). The link's load
            // is summed only when the cheap tests pass.
            //
            // Where a link has no room, where it could first fill is
            // found at the update, once per link for all the flows
            // started on it since (hundreds of messages posted at one
            // instant on one link must not each scan all the others).
            // A link with room needs nothing even when another link of
            // the flow has none: nothing on it changes unless some flow
            // on it rises (which makes it dirty) or another flow starts
            // on it (which finds this one open, so no room, and queues
            // the link), and this flow stops at its cap before the link
            // fills. On the peers' torus all-to-all, whose caps are the
            // network links' bandwidth, a node's own links (1e15 B/s)
            // then never enter the sweep: 1.2 % fewer instructions there
            // (P = 512), 1.6 % on AMG level-0 SpGEMM, 0.1 % more on the
            // switch all-to-all, whose links all lack room (cachegrind;
            // same events and makespans).
            at_cap = cap.is_finite();
            for &l in &route {
                let k = &self.kept[l.index()];
                if !(k.binds_nothing() && self.load_of(l.0) + cap < k.bw * (1.0 - sweep::SLACK)) {
                    self.sweep.note_start_on(l.0);
                    at_cap = false;
                }
            }
            self.sweep.note_new_flow(f);
        }
        self.scratch[f as usize] = Scratch {
            cap,
            ..Scratch::default()
        };
        self.store_route(f, &route);
        let at = f as usize * self.stride;
        for (i, &l) in route.iter().enumerate() {
            let lu = l.index();
            let k = &mut self.kept[lu];
            self.slot_at[at + i] = k.flows.len() as u32;
            k.flows.push(f);
            let n = k.flows.len() as u32;
            k.peak_flows = k.peak_flows.max(n);
            if !self.asym {
                if at_cap {
                    k.load += cap;
                } else {
                    k.open += 1;
                }
            }
        }
        let (lat, work) = self.factored(lat, t.bytes);
        self.flows[f as usize] = Flow {
            token: t.token,
            route,
            bytes: t.bytes,
            work,
            lat,
            live: true,
            at_cap,
        };
        if self.asym {
            self.cut.dirty_flows.push(f);
        }
        self.ensure_update(sched);
    }

    fn handle(
        &mut self,
        sched: &mut impl Schedule<FlowEvent>,
        ev: FlowEvent,
        out: &mut Vec<Delivery>,
    ) {
        match ev {
            FlowEvent::Update => self.update(sched),
            FlowEvent::End(g) => {
                let mut ended = std::mem::take(&mut self.ended);
                let rate = self.group_end(g, sched, &mut ended);
                for &f in &ended {
                    self.release(f, rate, sched);
                }
                ended.clear();
                self.ended = ended;
            }
            FlowEvent::Deliver(token) => out.push(Delivery {
                token,
                at: sched.now(),
            }),
            FlowEvent::Join(f) => self.cm02_join(f, sched),
            FlowEvent::Profile(p) => self.cm02_profile(p, sched),
        }
    }

    fn loopback(&self) -> bool {
        self.m.has_loopback()
    }

    fn idle_time(&self, src: NodeId, dst: NodeId, bytes: u64, rate_cap: Option<Bandwidth>) -> Time {
        flow_idle_time(&self.m, src, dst, bytes, rate_cap, self.tcp_window)
    }

    fn record_link_busy(&mut self, on: bool) {
        self.stats.record(on);
    }

    fn drain_link_busy(&mut self, out: &mut Vec<LinkBusy>) {
        self.stats.drain(out);
    }
}
