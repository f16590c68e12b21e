//! The flow model on a machine that asks for SimGrid's CM02 sharing
//! ([`crate::cm02`]): what a flow does from its start to its last byte,
//! and the weighted max-min solve.
//!
//! SimGrid 3.32 (`network_cm02.cpp`, `NetworkCm02Model::communicate`,
//! `comm_action_set_bounds`, `comm_action_set_variable`;
//! `NetworkCm02Link::set_bandwidth`, `set_latency`) and its max-min
//! solver (`kernel/lmm/maxmin.cpp`), followed here:
//!
//! * a flow pays its route's latency first (times SMPI's latency factor):
//!   until then it takes no bandwidth; from then on it shares, and it is
//!   delivered when its last byte is sent;
//! * its sharing penalty is its route's latency plus weight-S over each
//!   link's bandwidth; a flow of zero latency shares with penalty 1;
//! * max-min with penalties: at level `y` every flow not yet fixed gets
//!   `y / penalty`; a link fills when its flows' rates sum to its
//!   bandwidth and fixes them there; a flow's bound fixes it at the bound
//!   when `bound x penalty` is the lowest level. Two flows of 10 ms and
//!   20 ms on a 1 MB/s link get 2/3 and 1/3 MB/s;
//! * a flow is bound by its route's lowest bandwidth *when it starts*
//!   (a later rise of a link's bandwidth does not speed it up) and by the
//!   TCP window over twice its route's latency;
//! * a link's bandwidth change re-shares the flows on it at that instant
//!   (with weight-S, their penalties move too); a latency change moves
//!   the penalty and the TCP window of the flows past their latency on
//!   it, and the latency of the flows that start later.
//!
//! Not followed: SimGrid also gives a flow still paying its latency the
//! changed penalty, which lets it take bandwidth before its latency is
//! paid; netsim has it join with the new penalty when its latency is
//! paid. Only a latency or (with weight-S) bandwidth change on a link
//! during another flow's latency on it meets this.
//!
//! The solve is from scratch over every flow in the sharing (as SimGrid's
//! is over the flows of the changed constraints): `O(levels x links +
//! hops x flows)` per update (`solve_cm02`). Machines without
//! [`crate::cm02::Cm02`] keep the incremental solvers of `sweep` and
//! `cut`.

use super::{FlowEvent, FlowNet, State};
use crate::cm02::Cm02;
use crate::config::window_cap;
use crate::transport::{LinkId, Transfer};
use sim_core::{Bandwidth, Schedule, Time, limits};
use std::sync::Arc;

/// No profile on a link.
const NONE: u32 = u32::MAX;

/// What CM02 keeps of a flow, per flow slot.
#[derive(Clone, Copy, Debug, Default)]
struct Cm02Flow {
    /// Its sharing penalty \[s\].
    penalty: f64,
    /// The penalty it shares by: `penalty` once set, 1 for a flow of
    /// zero latency until a change sets it (SimGrid's new variable).
    share_by: f64,
    /// Its route's latency now, without SMPI's factor (the TCP window's).
    lat_now: Time,
    /// Its bound from its start: its route's lowest bandwidth then, its
    /// FATPIPE links', the transfer's own.
    bound: Option<Bandwidth>,
    /// Its latency paid: in the sharing.
    joined: bool,
}

/// The state of CM02 sharing in a [`FlowNet`].
#[derive(Debug)]
pub(super) struct Cm02State {
    spec: Arc<Cm02>,
    /// Per machine link: the index of its profile in `spec.profiles`, or
    /// [`NONE`].
    profile_of: Vec<u32>,
    /// Per profile: its link's bandwidth and latency now, and whether its
    /// next change is posted.
    now: Vec<(Bandwidth, Time, bool)>,
    flows: Vec<Cm02Flow>,
    /// Solve scratch: per link, the bandwidth left, the sum of the open
    /// flows' `1 / share_by` and their count; the links in use.
    rem: Vec<f64>,
    wsum: Vec<f64>,
    nopen: Vec<u32>,
    links: Vec<u32>,
    /// Solve scratch: the open flows' bound levels that can bind.
    bounds: Vec<(f64, u32)>,
}

impl Cm02State {
    pub(super) fn new(spec: Arc<Cm02>, links: usize) -> Self {
        let mut profile_of = vec![NONE; links];
        for (i, p) in spec.profiles.iter().enumerate() {
            for l in &p.links {
                profile_of[l.index()] = i as u32;
            }
        }
        let now = spec
            .profiles
            .iter()
            .map(|p| (p.bandwidth, p.latency, false))
            .collect();
        Cm02State {
            spec,
            profile_of,
            now,
            flows: Vec::new(),
            rem: vec![0.0; links],
            wsum: vec![0.0; links],
            nopen: vec![0; links],
            links: Vec::new(),
            bounds: Vec::new(),
        }
    }

    /// Whether flow slot `f` is in the sharing.
    #[cfg(test)]
    pub(super) fn joined(&self, f: u32) -> bool {
        self.flows.get(f as usize).is_some_and(|c| c.joined)
    }

    /// The penalty flow slot `f` shares by.
    #[cfg(test)]
    pub(super) fn share_by(&self, f: u32) -> f64 {
        self.flows[f as usize].share_by
    }

    /// Link `l`'s latency now less its declared one \[ps\].
    fn lat_delta(&self, l: LinkId) -> i128 {
        match self.profile_of[l.index()] {
            NONE => 0,
            p => {
                let p = p as usize;
                self.now[p].1.as_ps() as i128 - self.spec.profiles[p].latency.as_ps() as i128
            }
        }
    }
}

/// `t` moved by `d` picoseconds, at least zero.
fn shifted(t: Time, d: i128) -> Time {
    Time::from_ps((t.as_ps() as i128 + d).clamp(0, u64::MAX as i128) as u64)
}

impl FlowNet {
    /// [`crate::Transport::start`] on a CM02 machine, for flow slot `f`
    /// over `route` (capacity resources), of static latency `lat` and
    /// bound `rate_cap` (its FATPIPE links' and the transfer's).
    pub(super) fn cm02_start(
        &mut self,
        sched: &mut impl Schedule<FlowEvent>,
        f: u32,
        t: Transfer,
        route: Vec<LinkId>,
        lat: Time,
        rate_cap: Option<Bandwidth>,
    ) {
        let mut c = self.cm02.take().expect("a CM02 machine");
        if c.flows.len() < self.flows.len() {
            c.flows.resize(self.flows.len(), Cm02Flow::default());
        }
        // The profiles of its links come up to now (they are not
        // followed while no flow crosses them).
        for &l in &route {
            let p = c.profile_of[l.index()];
            if p != NONE && !c.now[p as usize].2 {
                self.cm02_tick(&mut c, p, sched, true);
            }
        }
        let delta: i128 = route.iter().map(|&l| c.lat_delta(l)).sum();
        let lat_now = shifted(lat, delta);
        let mut bound = rate_cap;
        let mut penalty = lat_now.as_secs_f64();
        for &l in &route {
            let bw = self.m.links[l.index()].bandwidth;
            bound = Some(bound.map_or(bw, |b| b.min(bw)));
            if c.spec.weight_s > 0.0 && bw < c.spec.stand_in {
                penalty += c.spec.weight_s / bw.as_f64();
            }
        }
        if route.is_empty() && bound.is_none() {
            bound = Some(self.m.injection_rate(t.src));
        }
        let cap = window_cap(self.tcp_window, lat_now, bound).map_or(f64::INFINITY, |b| b.as_f64());
        let (lat_f, work) = self.factored(lat_now, t.bytes);
        self.scratch[f as usize] = super::Scratch {
            cap,
            ..super::Scratch::default()
        };
        self.store_route(f, &route);
        self.flows[f as usize] = super::Flow {
            token: t.token,
            route,
            bytes: t.bytes,
            work,
            lat: lat_f,
            live: true,
            at_cap: false,
        };
        c.flows[f as usize] = Cm02Flow {
            penalty,
            share_by: 1.0,
            lat_now,
            bound,
            joined: false,
        };
        // Profiles its route crosses post their next change while it
        // lives.
        for i in 0..self.flows[f as usize].route.len() {
            let p = c.profile_of[self.flows[f as usize].route[i].index()];
            if p != NONE && !c.now[p as usize].2 {
                self.cm02_post_next(&mut c, p, sched);
            }
        }
        self.cm02 = Some(c);
        if lat_f > Time::ZERO {
            sched.post_in(lat_f, FlowEvent::Join(f));
        } else {
            self.cm02_join(f, sched);
        }
    }

    /// Flow `f` has paid its latency: it joins the sharing of its links.
    pub(super) fn cm02_join(&mut self, f: u32, sched: &mut impl Schedule<FlowEvent>) {
        let c = self.cm02.as_mut().expect("a CM02 machine");
        let cf = &mut c.flows[f as usize];
        cf.joined = true;
        if self.flows[f as usize].lat > Time::ZERO && cf.penalty > 0.0 {
            cf.share_by = cf.penalty;
        }
        let at = f as usize * self.stride;
        for i in 0..self.scratch[f as usize].hops as usize {
            let lu = self.routes[at + i] as usize;
            let k = &mut self.kept[lu];
            self.slot_at[at + i] = k.flows.len() as u32;
            k.flows.push(f);
            k.peak_flows = k.peak_flows.max(k.flows.len() as u32);
        }
        self.ensure_update(sched);
    }

    /// Flow `f` is released: it leaves the sharing.
    pub(super) fn cm02_leave(&mut self, f: u32) {
        if let Some(c) = self.cm02.as_mut() {
            c.flows[f as usize].joined = false;
        }
    }

    /// Profile `p`'s next change is due: it is applied, and the one after
    /// is posted while flows cross the link.
    pub(super) fn cm02_profile(&mut self, p: u32, sched: &mut impl Schedule<FlowEvent>) {
        let mut c = self.cm02.take().expect("a CM02 machine");
        c.now[p as usize].2 = false;
        self.cm02_tick(&mut c, p, sched, false);
        let crossed = (0..self.flows.len() as u32).any(|f| self.cm02_crosses(&c, f, p));
        if crossed {
            self.cm02_post_next(&mut c, p, sched);
        }
        self.cm02 = Some(c);
    }

    /// Whether live flow `f` crosses a link of profile `p`.
    fn cm02_crosses(&self, c: &Cm02State, f: u32, p: u32) -> bool {
        self.flows[f as usize].live && self.route(f).iter().any(|&l| c.profile_of[l as usize] == p)
    }

    fn cm02_post_next(&mut self, c: &mut Cm02State, p: u32, sched: &mut impl Schedule<FlowEvent>) {
        let now = sched.now();
        if let (_, _, Some(next)) = c.spec.profiles[p as usize].at(now) {
            if next <= limits::MAX_SIM_TIME {
                c.now[p as usize].2 = true;
                sched.post_in(next.saturating_sub(now), FlowEvent::Profile(p));
            }
        }
    }

    /// Brings profile `p`'s link to its value now: its bandwidth, and the
    /// penalties and TCP windows of the flows crossing it. `quiet`: no
    /// update is posted (a start posts its own).
    fn cm02_tick(
        &mut self,
        c: &mut Cm02State,
        p: u32,
        sched: &mut impl Schedule<FlowEvent>,
        quiet: bool,
    ) {
        let (bw, lat, _) = c.spec.profiles[p as usize].at(sched.now());
        let (old_bw, old_lat, _) = c.now[p as usize];
        if bw == old_bw && lat == old_lat {
            return;
        }
        c.now[p as usize].0 = bw;
        c.now[p as usize].1 = lat;
        for &l in &c.spec.profiles[p as usize].links {
            self.m.links[l.index()].bandwidth = bw;
            self.kept[l.index()].bw = bw.as_f64();
        }
        let d_lat = lat.as_ps() as i128 - old_lat.as_ps() as i128;
        let d_pen = d_lat as f64 * 1e-12
            + if c.spec.weight_s > 0.0 && old_bw < c.spec.stand_in {
                c.spec.weight_s / bw.as_f64() - c.spec.weight_s / old_bw.as_f64()
            } else {
                0.0
            };
        for f in 0..self.flows.len() as u32 {
            if !self.cm02_crosses(c, f, p) {
                continue;
            }
            let cf = &mut c.flows[f as usize];
            cf.penalty += d_pen;
            cf.lat_now = shifted(cf.lat_now, d_lat);
            if cf.joined {
                cf.share_by = cf.penalty;
            }
            self.scratch[f as usize].cap = window_cap(self.tcp_window, cf.lat_now, cf.bound)
                .map_or(f64::INFINITY, |b| b.as_f64());
        }
        if !quiet {
            self.ensure_update(sched);
        }
    }

    /// The weighted max-min rates of every flow in the sharing, into the
    /// update's scratch (every one settled, for `apply`): progressive
    /// filling. At each step the lowest of the links' fill levels
    /// (bandwidth left over the sum of `1 / penalty` of their open flows)
    /// and the open flows' bound levels (`bound x penalty`, sorted once)
    /// fixes either that flow at its bound or every open flow on the links
    /// that fill there at `level / penalty`. A bound above the lowest
    /// bandwidth of its flow's route never binds before a link and is left
    /// out of the sorting (one equal to it is kept: the flow then gets the
    /// bound itself, not the link's share rounded). `O(levels x links + hops x flows +
    /// bounds x log bounds)`.
    pub(super) fn solve_cm02(&mut self) {
        let mut c = self.cm02.take().expect("a CM02 machine");
        c.links.clear();
        let mut bounds = std::mem::take(&mut c.bounds);
        bounds.clear();
        let mut left = 0usize;
        for f in 0..self.flows.len() as u32 {
            if !self.flows[f as usize].live || !c.flows[f as usize].joined {
                continue;
            }
            left += 1;
            let share = c.flows[f as usize].share_by;
            let mut lowest = f64::INFINITY;
            for &l in self.route(f) {
                let lu = l as usize;
                if c.nopen[lu] == 0 {
                    c.links.push(l);
                    c.rem[lu] = self.kept[lu].bw;
                    c.wsum[lu] = 0.0;
                }
                c.nopen[lu] += 1;
                c.wsum[lu] += 1.0 / share;
                lowest = lowest.min(self.kept[lu].bw);
            }
            let cap = self.scratch[f as usize].cap;
            if cap <= lowest {
                bounds.push((cap * share, f));
            }
        }
        bounds.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let epoch = self.epoch;
        let mut next = 0;
        while left > 0 {
            let mut lam = f64::INFINITY;
            for &l in &c.links {
                if c.nopen[l as usize] > 0 {
                    lam = lam.min(fill(&c, l as usize));
                }
            }
            while next < bounds.len() && self.settled(bounds[next].1, epoch) {
                next += 1;
            }
            if let Some(f) = bounds.get(next).filter(|b| b.0 <= lam).map(|b| b.1) {
                let rate = self.scratch[f as usize].cap;
                self.cm02_fix(&mut c, f, rate);
                left -= 1;
                continue;
            }
            debug_assert!(lam.is_finite(), "{left} open flows on no link");
            if !lam.is_finite() {
                break;
            }
            // Every open flow on a link that fills at `lam`.
            let full = lam * (1.0 + 1e-12);
            for i in 0..c.links.len() {
                let l = c.links[i] as usize;
                if c.nopen[l] == 0 || fill(&c, l) > full {
                    continue;
                }
                for k in 0..self.kept[l].flows.len() {
                    let f = self.kept[l].flows[k];
                    if self.settled(f, epoch) {
                        continue;
                    }
                    let rate =
                        (lam / c.flows[f as usize].share_by).min(self.scratch[f as usize].cap);
                    self.cm02_fix(&mut c, f, rate);
                    left -= 1;
                }
            }
        }
        for &l in &c.links {
            c.nopen[l as usize] = 0;
        }
        c.bounds = bounds;
        self.cm02 = Some(c);
    }

    /// Whether flow `f` was fixed by the running update (epoch `epoch`).
    fn settled(&self, f: u32, epoch: u32) -> bool {
        let sc = &self.scratch[f as usize];
        sc.mark == epoch && sc.state == State::Settled
    }

    /// Fixes flow `f` at `rate`: its links lose its rate and weight.
    fn cm02_fix(&mut self, c: &mut Cm02State, f: u32, rate: f64) {
        let share = c.flows[f as usize].share_by;
        let sc = &mut self.scratch[f as usize];
        sc.new_rate = rate;
        sc.mark = self.epoch;
        sc.state = State::Settled;
        self.comp.push(f);
        let at = f as usize * self.stride;
        for h in 0..sc.hops as usize {
            let lu = self.routes[at + h] as usize;
            c.rem[lu] -= rate;
            c.wsum[lu] -= 1.0 / share;
            c.nopen[lu] -= 1;
        }
    }
}

/// Link `l`'s fill level: its bandwidth left over its open flows' sum of
/// `1 / penalty`, at least 0.
fn fill(c: &Cm02State, l: usize) -> f64 {
    c.rem[l].max(0.0) / c.wsum[l]
}
