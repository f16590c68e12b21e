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
//! A start or an end only marks what it affects and schedules one
//! `Update` event at the current time, so that all starts and ends at one
//! instant are handled together. The update re-solves only the flows that
//! can change, found from two facts about progressive filling:
//!
//! * **Level cut.** Filling raises one common level; a flow is fixed when
//!   a constraint it crosses fills (or its cap is reached). Removing a
//!   flow of rate `r` changes nothing below level `r`: its constraints did
//!   not fill before `r` and fill no sooner without it. Adding a flow
//!   changes nothing below the level `l0` at which one of its links would
//!   first fill with it (water filling of that link alone over the current
//!   rates, [`FlowNet`]'s `first_binding`), its cap, or under the
//!   asymmetric rule the smallest rate on a reverse direction. So every
//!   flow whose rate is below the smallest such level keeps it.
//! * **Connectivity.** A change travels only through constraints shared
//!   with flows that are re-solved.
//!
//! The update therefore searches outward from the changed constraints,
//! taking in the flows at or above the cut (and new flows); flows below it
//! stay fixed and only reduce the capacity left. The set is re-solved by
//! progressive filling with a heap of constraint levels (levels only rise
//! as flows are fixed, so stale heap entries are refreshed lazily):
//! `O(M log C)` for `M` flow-link memberships and `C` constraints in the
//! searched region, plus `O(d log d)` per link of a starting flow with `d`
//! flows on it. Flows whose rate changed have their completion event moved
//! with [`Schedule::reschedule`]; the others are not touched. A unit test
//! checks the rates after every event against a from-scratch solution of
//! the whole network.
//!
//! The worst case is still the whole network (the ripple that made
//! SST/macro drop its flow model): a start can lower the cut to near zero.
//! [`FlowNet::update_stats`] counts the flows each update re-solved.
//! Measured with `netsim bench net` (random permutation, 64 KiB per node,
//! 16 x 16 x 16 Geminis, 8192 flows started at once): 669 updates, the
//! first (all starts) re-solving all 8192 flows and the ends 12 on average;
//! 0.12 s of wall time. Without the level cut (connected components only)
//! the same run re-solved 6992 flows per update on average and took 7.5 s:
//! ends hit nearly the whole network through shared links, although only
//! flows at least as fast as the leaving one can change.
//!
//! # Complexity
//!
//! An update that re-solves a set `S` of flows costs
//! `O(M_S log C_S + M_S + F_S log F_S)`: `M_S` link memberships of `S`
//! scanned (`visit_cons`, progressive filling), a heap over the `C_S`
//! constraints only (the flows' caps, which do not change during the
//! filling, are a sorted list merged with it in the heap's own order), and
//! one `reschedule` of an indexed-heap completion event per flow whose
//! rate changed. A start additionally sorts the rates on each of its links
//! (`first_binding`). Starts and ends at one instant share one update.
//!
//! The bound on `S` is the level cut and connectivity above, nothing
//! more: when many flows are coupled through saturated links and node
//! interfaces and have similar rates (as they do in a busy torus, where
//! max-min gives most flows the same few bottleneck levels), the cut sits
//! below almost all of them and every start or end at a distinct instant
//! re-solves the whole coupled set. A run of `E` starts and ends then
//! costs `O(E * M)`, quadratic in the number of concurrent flows: the
//! SimGrid behaviour this simulator is meant to avoid. Exact max-min
//! fairness cannot do much better per event (in that regime the rates of
//! the whole set really do change), so the remedy is a model choice, not
//! an implementation one: use the packet model for such runs, or (future
//! work) a rate-update quantum that batches starts and ends within a
//! window. Measured with `netsim bench` (P = 1024, one rank per node,
//! 8x8x8 Blue Waters torus, random pairs, 100 rounds of 64 KiB, every
//! message a rendezvous whose RTS and CTS are flows too): 102 400
//! messages, 1.3 M events, 65 s in the flow model against 5.4 s in the
//! packet model; AMG level-0 SpGEMM at P = 8192 (111 608 large messages,
//! 16 ranks per node sharing each node's interface) does not finish in
//! 90 s in the flow model and takes 2 s in the packet model. Profile of
//! the flow run: 35 % popping the filling heap (before caps left it),
//! 33 % `visit_cons`, 15 % applying rates and rescheduling.
//!
//! # Timing
//!
//! A flow's data leaves at its current rate; when the last byte has left,
//! its bandwidth is released and the delivery follows after the route's
//! summed latency. On an idle machine: `latency sum + bytes / rate`, with
//! `rate` the smallest bandwidth on the route and the cap, converted with
//! [`transfer_time`] exactly. Remaining bytes are tracked in `f64`; a
//! completion time is rounded up to the picosecond.

use crate::config::{NetConfig, NetConfigError, check};
use crate::idle::flow_idle_time;
use crate::machine::{Machine, Sharing};
use crate::stats::{LinkSeries, LinkStat, StatsCollector};
use crate::transport::{Delivery, NodeId, Transfer, Transport};
use sim_core::stats::Summary;
use sim_core::{Bandwidth, EventId, PS_PER_SEC, Schedule, Time, transfer_time};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Events of the flow model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowEvent {
    /// Recompute the rates of the flows marked since the last update.
    Update,
    /// A flow sent its last byte.
    End(u32),
    /// A flow's last byte arrived (carries the transfer's token).
    Deliver(u64),
}

#[derive(Clone, Debug, Default)]
struct Flow {
    token: u64,
    route: Vec<u32>,
    bytes: u64,
    lat: Time,
    cap: f64,
    rate: f64,
    remaining: f64,
    last: Time,
    end_ev: Option<EventId>,
    /// In progress (slot not on the free list).
    live: bool,
}

/// Per-flow scratch of the rate update, kept apart from [`Flow`] so the
/// component search and the filling loop touch 16 bytes per flow.
#[derive(Clone, Copy, Debug, Default)]
struct Scratch {
    new_rate: f64,
    mark: u32,
    frozen: bool,
}

/// Heap entries for caps carry this bit above the flow id.
const CAP_TAG: u64 = 1 << 32;

/// A link direction counts as full when less than this fraction of its
/// bandwidth is left (float sums of shares rarely cancel exactly).
const SATURATED: f64 = 1e-9;

/// The flow transport. See the module docs.
pub struct FlowNet {
    m: Machine,
    asym: bool,
    flows: Vec<Flow>,
    scratch: Vec<Scratch>,
    free: Vec<u32>,
    on_link: Vec<Vec<u32>>,
    rem: Vec<f64>,
    nun: Vec<u32>,
    cmark: Vec<u32>,
    epoch: u32,
    dirty_links: Vec<u32>,
    dirty_flows: Vec<u32>,
    update_pending: bool,
    comp: Vec<u32>,
    cons: Vec<u32>,
    stack: Vec<u32>,
    heap: BinaryHeap<Reverse<(u64, u64)>>,
    /// Caps of the flows being re-solved, sorted (see `update`).
    caps: Vec<(u64, u64)>,
    saturated: Vec<u32>,
    /// Rates below this level are unaffected by the pending starts and
    /// ends (see the module docs, "Updates").
    threshold: f64,
    lambda: Vec<f64>,
    stats: StatsCollector,
    touched: Summary,
    touched_max: usize,
}

/// How many flows the rate updates touched.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct UpdateStats {
    /// Updates run.
    pub updates: u64,
    /// Mean flows recomputed per update.
    pub mean_flows: f64,
    /// Most flows recomputed in one update.
    pub max_flows: usize,
}

impl FlowNet {
    /// A flow network over `m`.
    pub fn new(m: Machine, cfg: NetConfig) -> Result<Self, NetConfigError> {
        check(&m, &cfg)?;
        let nl = m.links().len();
        Ok(FlowNet {
            asym: m.sharing == Sharing::Asymmetric,
            flows: Vec::new(),
            scratch: Vec::new(),
            free: Vec::new(),
            on_link: vec![Vec::new(); nl],
            rem: vec![0.0; nl],
            nun: vec![0; nl],
            cmark: vec![0; nl],
            epoch: 0,
            dirty_links: Vec::new(),
            dirty_flows: Vec::new(),
            update_pending: false,
            comp: Vec::new(),
            cons: Vec::new(),
            stack: Vec::new(),
            heap: BinaryHeap::new(),
            caps: Vec::new(),
            saturated: Vec::new(),
            threshold: f64::INFINITY,
            lambda: Vec::new(),
            stats: StatsCollector::new(nl, cfg.series_interval),
            touched: Summary::default(),
            touched_max: 0,
            m,
        })
    }
    /// The machine.
    pub fn machine(&self) -> &Machine {
        &self.m
    }
    /// Per-link totals (see [`LinkStat`]).
    pub fn link_stats(&self, elapsed: Time) -> Vec<LinkStat> {
        self.stats.report(self.m.links(), elapsed, true)
    }
    /// Per-link series.
    pub fn link_series(&self) -> Vec<LinkSeries> {
        self.stats.series()
    }
    /// Flows recomputed per update so far.
    pub fn update_stats(&self) -> UpdateStats {
        UpdateStats {
            updates: self.touched.count(),
            mean_flows: self.touched.mean().unwrap_or(0.0),
            max_flows: self.touched_max,
        }
    }
    /// Current rate of every flow in progress, as (token, bytes/s), in
    /// flow-slot order (for tests and reports).
    pub fn rates(&self) -> Vec<(u64, f64)> {
        self.flows
            .iter()
            .filter(|f| f.live)
            .map(|f| (f.token, f.rate))
            .collect()
    }

    /// The constraint of link `l` (its own id, or with the asymmetric rule
    /// the lower id of its cable).
    #[inline]
    fn cons_of(&self, l: u32) -> u32 {
        if self.asym {
            l.min(self.m.link(l).reverse)
        } else {
            l
        }
    }

    #[inline]
    fn sides(&self, c: u32) -> [u32; 2] {
        if self.asym {
            [c, self.m.link(c).reverse]
        } else {
            [c, c]
        }
    }

    /// Fair level of constraint `c` now, `INFINITY` if it has no unfixed
    /// flow.
    #[inline]
    fn level(&self, c: u32) -> f64 {
        let mut lv = f64::INFINITY;
        for s in self.sides(c) {
            let n = self.nun[s as usize];
            if n > 0 {
                lv = lv.min((self.rem[s as usize] / n as f64).max(0.0));
            }
        }
        lv
    }

    fn ensure_update(&mut self, sched: &mut impl Schedule<FlowEvent>) {
        if !self.update_pending {
            self.update_pending = true;
            sched.post_in(Time::ZERO, FlowEvent::Update);
        }
    }

    /// Adds constraint `c` to this update: its flows with a rate of at
    /// least `l0` (and new flows) join the recomputed set; the others keep
    /// their rates and only reduce the capacity left for the set.
    fn visit_cons(&mut self, c: u32, l0: f64) {
        if self.cmark[c as usize] == self.epoch {
            return;
        }
        self.cmark[c as usize] = self.epoch;
        self.cons.push(c);
        let sides = self.sides(c);
        let n = if sides[0] == sides[1] { 1 } else { 2 };
        // A hair below `l0`: including a flow too many is always safe.
        let cut = l0 * (1.0 - 1e-9);
        for &s in &sides[..n] {
            let mut fixed = 0.0;
            let mut cnt = 0;
            for i in 0..self.on_link[s as usize].len() {
                let f = self.on_link[s as usize][i];
                if self.scratch[f as usize].mark == self.epoch {
                    cnt += 1;
                    continue;
                }
                let fl = &self.flows[f as usize];
                if fl.end_ev.is_none() || fl.rate >= cut {
                    self.scratch[f as usize].mark = self.epoch;
                    self.comp.push(f);
                    self.stack.push(f);
                    cnt += 1;
                } else {
                    fixed += fl.rate;
                }
            }
            self.rem[s as usize] = self.m.link(s).bandwidth.as_f64() - fixed;
            self.nun[s as usize] = cnt;
        }
    }

    /// The level at which link direction `s` would first bind if a new
    /// flow joined it and nothing else changed below that level: water
    /// filling of the link alone over the current rates (flows not yet
    /// solved count as unbounded, which can only lower the result).
    fn first_binding(&mut self, s: u32) -> f64 {
        let mut r = std::mem::take(&mut self.lambda);
        r.clear();
        r.extend(self.on_link[s as usize].iter().map(|&g| {
            let fl = &self.flows[g as usize];
            if fl.end_ev.is_some() {
                fl.rate
            } else {
                f64::INFINITY
            }
        }));
        r.sort_unstable_by(f64::total_cmp);
        let cap = self.m.link(s).bandwidth.as_f64();
        let d = r.len();
        let mut sum = 0.0;
        // With the k slowest flows fixed at their rates, the rest and the
        // new flow share what is left; the first k whose share does not
        // exceed the next rate is where the link fills.
        let mut lv = cap / (d + 1) as f64;
        for (k, &rk) in r.iter().enumerate() {
            lv = (cap - sum) / (d - k + 1) as f64;
            if lv <= rk {
                break;
            }
            sum += rk;
            lv = (cap - sum) / (d - k) as f64;
        }
        self.lambda = r;
        lv.max(0.0)
    }

    /// Fixes flow `f` at rate `x`. Under the asymmetric rule, a cable
    /// direction whose flows are now all fixed and which is full fixes
    /// the unfixed flows of the other direction at `x` too: the contra
    /// flows saturate the link, so every flow on the cable gets the
    /// largest share among them (Zhu et al. Algorithm 1, lines 16-17),
    /// which is `x`, the level at which the last of them was fixed.
    fn freeze(&mut self, f: u32, x: f64) {
        self.saturated.clear();
        self.freeze_one(f, x);
        while let Some(l) = self.saturated.pop() {
            let rev = self.m.link(l).reverse;
            let mut i = 0;
            while i < self.on_link[rev as usize].len() {
                let g = self.on_link[rev as usize][i];
                if self.unfixed(g) {
                    self.freeze_one(g, x);
                }
                i += 1;
            }
        }
    }

    /// Whether `f` is being re-solved in this update and not yet fixed
    /// (flows below the cut share the links but keep their rates).
    #[inline]
    fn unfixed(&self, f: u32) -> bool {
        let sc = &self.scratch[f as usize];
        sc.mark == self.epoch && !sc.frozen
    }

    fn freeze_one(&mut self, f: u32, x: f64) {
        self.scratch[f as usize] = Scratch {
            new_rate: x,
            mark: self.epoch,
            frozen: true,
        };
        for &l in &self.flows[f as usize].route {
            let (r, n) = (&mut self.rem[l as usize], &mut self.nun[l as usize]);
            *r -= x;
            *n -= 1;
            if self.asym && *n == 0 && *r <= SATURATED * self.m.link(l).bandwidth.as_f64() {
                self.saturated.push(l);
            }
        }
    }

    /// Moves flow `f`'s progress to `now` at its current rate.
    fn progress(&mut self, f: u32, now: Time) {
        let fl = &mut self.flows[f as usize];
        if fl.rate > 0.0 && now > fl.last {
            let moved = (fl.rate * (now - fl.last).as_secs_f64()).min(fl.remaining);
            fl.remaining -= moved;
            if self.stats.enabled_series() {
                let (from, b) = (fl.last, moved.round() as u64);
                for i in 0..fl.route.len() {
                    let l = self.flows[f as usize].route[i];
                    self.stats.series_only(l, from, now, b);
                }
            }
        }
        self.flows[f as usize].last = now;
    }

    fn update(&mut self, sched: &mut impl Schedule<FlowEvent>) {
        self.update_pending = false;
        self.epoch = self.epoch.wrapping_add(1).max(1);
        self.comp.clear();
        self.cons.clear();
        let l0 = std::mem::replace(&mut self.threshold, f64::INFINITY);
        let seeds_l = std::mem::take(&mut self.dirty_links);
        for &l in &seeds_l {
            let c = self.cons_of(l);
            self.visit_cons(c, l0);
        }
        let seeds_f = std::mem::take(&mut self.dirty_flows);
        for &f in &seeds_f {
            let fl = &mut self.scratch[f as usize];
            if fl.mark != self.epoch {
                fl.mark = self.epoch;
                self.comp.push(f);
                self.stack.push(f);
            }
        }
        while let Some(f) = self.stack.pop() {
            for i in 0..self.flows[f as usize].route.len() {
                let c = self.cons_of(self.flows[f as usize].route[i]);
                self.visit_cons(c, l0);
            }
        }
        self.dirty_links = seeds_l;
        self.dirty_links.clear();
        self.dirty_flows = seeds_f;
        self.dirty_flows.clear();
        self.touched.record(self.comp.len() as f64);
        self.touched_max = self.touched_max.max(self.comp.len());
        if self.comp.is_empty() {
            return;
        }

        // Progressive filling over the set (`rem` and `nun` were set by
        // `visit_cons`).
        // Build the heap in O(C) from a vector it then reuses.
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.clear();
        for i in 0..self.cons.len() {
            let c = self.cons[i];
            let lv = self.level(c);
            if lv.is_finite() {
                entries.push(Reverse((lv.to_bits(), c as u64)));
            }
        }
        // Caps never change during the filling: they are a sorted list
        // merged with the heap, in the heap's own (key, tag) order, so the
        // heap holds constraints only (with MPI traffic every flow has a
        // cap, and the caps were most of the heap's entries and pops).
        let mut caps = std::mem::take(&mut self.caps);
        caps.clear();
        for &f in &self.comp {
            self.scratch[f as usize].frozen = false;
            let cap = self.flows[f as usize].cap;
            if cap.is_finite() {
                caps.push((cap.to_bits(), CAP_TAG | f as u64));
            }
        }
        caps.sort_unstable();
        let mut next_cap = 0;
        self.heap = BinaryHeap::from(entries);
        loop {
            let from_heap = match (self.heap.peek(), caps.get(next_cap)) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some(Reverse(h)), Some(c)) => h < c,
            };
            let (key, tag) = if from_heap {
                self.heap.pop().expect("peeked").0
            } else {
                next_cap += 1;
                caps[next_cap - 1]
            };
            if tag & CAP_TAG != 0 {
                let f = (tag & !CAP_TAG) as u32;
                if !self.scratch[f as usize].frozen {
                    let cap = self.flows[f as usize].cap;
                    self.freeze(f, cap);
                }
                continue;
            }
            let c = tag as u32;
            let lv = self.level(c);
            if !lv.is_finite() {
                continue;
            }
            if lv.to_bits() > key {
                self.heap.push(Reverse((lv.to_bits(), tag)));
                continue;
            }
            let sides = self.sides(c);
            let n = if sides[0] == sides[1] { 1 } else { 2 };
            for &s in &sides[..n] {
                let mut i = 0;
                while i < self.on_link[s as usize].len() {
                    let f = self.on_link[s as usize][i];
                    if self.unfixed(f) {
                        self.freeze(f, lv);
                    }
                    i += 1;
                }
            }
        }

        self.caps = caps;

        // Apply the new rates.
        let now = sched.now();
        for i in 0..self.comp.len() {
            let f = self.comp[i];
            let (new, old, has_ev) = {
                let fl = &self.flows[f as usize];
                (
                    self.scratch[f as usize].new_rate,
                    fl.rate,
                    fl.end_ev.is_some(),
                )
            };
            if new == old && has_ev {
                continue;
            }
            self.progress(f, now);
            let fl = &mut self.flows[f as usize];
            fl.rate = new;
            let at = now.saturating_add(time_for(fl.remaining, new));
            match fl.end_ev {
                Some(id) => {
                    let ok = sched.reschedule(id, at);
                    debug_assert!(ok, "completion event of a live flow is pending");
                }
                None => fl.end_ev = Some(sched.schedule_at(at, FlowEvent::End(f))),
            }
        }
    }
}

/// Time to send `remaining` bytes at `rate` [bytes/s], rounded up; exact
/// ([`transfer_time`]) when both are whole numbers.
fn time_for(remaining: f64, rate: f64) -> Time {
    if remaining <= 0.0 {
        return Time::ZERO;
    }
    if rate <= 0.0 {
        return Time::MAX;
    }
    if remaining.fract() == 0.0 && rate.fract() == 0.0 && rate < 1.8e19 && remaining < 1.8e19 {
        if let Some(r) = Bandwidth::try_bytes_per_sec(rate as u64) {
            return transfer_time(remaining as u64, r);
        }
    }
    let ps = (remaining / rate * PS_PER_SEC as f64).ceil();
    if ps >= u64::MAX as f64 {
        Time::MAX
    } else {
        Time::from_ps(ps as u64)
    }
}

impl Transport for FlowNet {
    type Event = FlowEvent;

    fn nodes(&self) -> u32 {
        self.m.nodes()
    }

    /// Starts `t`. Panics if `src` or `dst` is not a node or they are
    /// equal (the MPI layer handles same-node messages itself).
    fn start(
        &mut self,
        sched: &mut impl Schedule<FlowEvent>,
        t: Transfer,
        _out: &mut Vec<Delivery>,
    ) {
        assert!(
            t.src != t.dst && t.src.0 < self.m.nodes() && t.dst.0 < self.m.nodes(),
            "bad transfer {t:?}"
        );
        let f = match self.free.pop() {
            Some(i) => i,
            None => {
                self.flows.push(Flow::default());
                self.scratch.push(Scratch::default());
                self.flows.len() as u32 - 1
            }
        };
        let mut route = std::mem::take(&mut self.flows[f as usize].route);
        route.clear();
        self.m.route_into(t.src, t.dst, &mut route);
        let lat = route.iter().map(|&l| self.m.link(l).latency).sum();
        let cap = t.rate_cap.map_or(f64::INFINITY, |c| c.as_f64());
        let mut l0 = cap;
        for &l in &route {
            l0 = l0.min(self.first_binding(l));
            if self.asym {
                // A full reverse direction would cap the new flow at its
                // largest rate; its smallest is a safe lower bound.
                let rev = self.m.link(l).reverse;
                for &g in &self.on_link[rev as usize] {
                    let fl = &self.flows[g as usize];
                    l0 = l0.min(if fl.end_ev.is_some() { fl.rate } else { 0.0 });
                }
            }
        }
        self.threshold = self.threshold.min(l0);
        for &l in &route {
            let v = &mut self.on_link[l as usize];
            v.push(f);
            let n = v.len() as u32;
            self.stats.flows(l, n);
        }
        self.flows[f as usize] = Flow {
            token: t.token,
            route,
            bytes: t.bytes,
            lat,
            cap,
            rate: 0.0,
            remaining: t.bytes as f64,
            last: sched.now(),
            end_ev: None,
            live: true,
        };
        self.scratch[f as usize] = Scratch::default();
        self.dirty_flows.push(f);
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
            FlowEvent::End(f) => {
                let now = sched.now();
                self.progress(f, now);
                let route = std::mem::take(&mut self.flows[f as usize].route);
                let bytes = self.flows[f as usize].bytes;
                // Flows slower than the one leaving cannot change.
                self.threshold = self.threshold.min(self.flows[f as usize].rate);
                for &l in &route {
                    self.stats.add_total(l, bytes);
                    let v = &mut self.on_link[l as usize];
                    let pos = v
                        .iter()
                        .position(|&x| x == f)
                        .expect("flow listed on its links");
                    v.swap_remove(pos);
                    self.dirty_links.push(l);
                }
                let fl = &mut self.flows[f as usize];
                fl.route = route;
                fl.end_ev = None;
                fl.rate = 0.0;
                fl.live = false;
                sched.post_in(fl.lat, FlowEvent::Deliver(fl.token));
                self.free.push(f);
                self.ensure_update(sched);
            }
            FlowEvent::Deliver(token) => out.push(Delivery {
                token,
                at: sched.now(),
            }),
        }
    }

    fn idle_time(&self, src: NodeId, dst: NodeId, bytes: u64, rate_cap: Option<Bandwidth>) -> Time {
        flow_idle_time(&self.m, src, dst, bytes, rate_cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{TorusParams, config::Mode};
    use sim_core::rand::{Rng, SeedableRng};
    use sim_core::{EventQueue, Scheduler, SimRng};

    /// Max-min rates of all live flows from scratch: repeatedly fix the
    /// flows of the constraint (or cap) with the lowest fair level. Slow
    /// (`O(F * C)` per level) and obvious: the reference the incremental,
    /// per-component, heap-driven update must match.
    fn reference(net: &FlowNet) -> Vec<f64> {
        let live: Vec<u32> = (0..net.flows.len() as u32)
            .filter(|f| !net.free.contains(f))
            .collect();
        let nl = net.m.links().len();
        let mut rem: Vec<f64> = net.m.links().iter().map(|l| l.bandwidth.as_f64()).collect();
        let mut cnt = vec![0u32; nl];
        for &f in &live {
            for &l in &net.flows[f as usize].route {
                cnt[l as usize] += 1;
            }
        }
        let mut rate = vec![f64::NAN; net.flows.len()];
        let mut left = live.len();
        while left > 0 {
            let mut best = f64::INFINITY;
            for l in 0..nl as u32 {
                let c = net.cons_of(l);
                for s in net.sides(c) {
                    if cnt[s as usize] > 0 {
                        best = best.min(rem[s as usize] / cnt[s as usize] as f64);
                    }
                }
            }
            for &f in &live {
                if rate[f as usize].is_nan() {
                    best = best.min(net.flows[f as usize].cap);
                }
            }
            // Fix every unfixed flow on a constraint at that level, or
            // capped at it.
            let mut fix = Vec::new();
            for &f in &live {
                if !rate[f as usize].is_nan() {
                    continue;
                }
                let fl = &net.flows[f as usize];
                let at_level = fl.cap <= best * (1.0 + 1e-12)
                    || fl.route.iter().any(|&l| {
                        net.sides(net.cons_of(l)).iter().any(|&s| {
                            cnt[s as usize] > 0
                                && rem[s as usize] / cnt[s as usize] as f64 <= best * (1.0 + 1e-12)
                        })
                    });
                if at_level {
                    fix.push(f);
                }
            }
            for f in fix {
                rate[f as usize] = best;
                for &l in &net.flows[f as usize].route {
                    rem[l as usize] -= best;
                    cnt[l as usize] -= 1;
                }
                left -= 1;
            }
        }
        rate
    }

    fn check_against_reference(sharing: Sharing, seed: u64) {
        let mut m = TorusParams::blue_waters_dims([4, 3, 1]).build().unwrap();
        m.sharing = sharing;
        let mut net = FlowNet::new(m, NetConfig::with_mode(Mode::Flow)).unwrap();
        let mut rng = SimRng::seed_from_u64(seed);
        let n = net.m.nodes();
        // 120 transfers at random times in [0, 200 us), random sizes,
        // a third of them capped.
        let mut starts: Vec<(Time, Transfer)> = (0..120)
            .map(|i| {
                let src = rng.random_range(0..n);
                let dst = (src + rng.random_range(1..n)) % n;
                let cap = (i % 3 == 0)
                    .then(|| Bandwidth::bytes_per_sec(rng.random_range(1..8) * 1_000_000_000));
                let t = Transfer {
                    src: NodeId(src),
                    dst: NodeId(dst),
                    bytes: rng.random_range(1..400_000),
                    rate_cap: cap,
                    token: i,
                };
                (Time::from_ns(rng.random_range(0..200_000)), t)
            })
            .collect();
        starts.sort_by_key(|s| s.0);
        let mut q = EventQueue::new();
        let mut out = Vec::new();
        let mut next = 0;
        let mut checks = 0;
        loop {
            let qt = q.peek_time();
            if next < starts.len() && qt.is_none_or(|t| starts[next].0 <= t) {
                let (at, t) = starts[next];
                next += 1;
                net.start(&mut Scheduler::new(&mut q, at), t, &mut out);
            } else if let Some((at, _, ev)) = q.pop() {
                net.handle(&mut Scheduler::new(&mut q, at), ev, &mut out);
            } else {
                break;
            }
            if !net.update_pending {
                let want = reference(&net);
                for (f, fl) in net.flows.iter().enumerate() {
                    if net.free.contains(&(f as u32)) {
                        continue;
                    }
                    let w = want[f];
                    assert!(
                        (fl.rate - w).abs() <= 1e-9 * w,
                        "{sharing:?} seed {seed} flow {f}: {} vs {w} cap {} route {:?} check {checks}",
                        fl.rate,
                        fl.cap,
                        fl.route
                    );
                }
                checks += 1;
            }
        }
        assert_eq!(out.len(), 120);
        assert!(checks > 120);
    }

    #[test]
    fn incremental_rates_match_a_from_scratch_reference() {
        for seed in 0..8 {
            check_against_reference(Sharing::Fair, seed);
            check_against_reference(Sharing::Asymmetric, seed);
        }
    }
}
