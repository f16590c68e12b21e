//! The level-ordered sweep: an incremental max-min solver for
//! [`Sharing::Fair`] whose work follows the flows whose rate changes.
//!
//! # Idea
//!
//! Progressive filling raises one level `x` from zero; a link direction
//! `l` fills when the flows crossing it reach its capacity, and fixes
//! its unfixed flows at that level. `lam[l]` is the level at which `l`
//! filled in the last solution (infinite if it never fixed a flow); each
//! flow `f` of rate `r_f` *follows its old trajectory*: rising with `x`
//! until `x = r_f`, then fixed. The sweep replays the filling for the
//! new set of flows in increasing level, but solves only the links on
//! which some flow leaves its old trajectory (*dirty* links); the others
//! (*clean*) fill at their old `lam`.
//!
//! * A change makes links dirty from a level on: an end from the flow's
//!   rate; a start from the level at which the link would first fill
//!   with it (found once per link and update). The new flow rises from
//!   zero.
//! * When a link becomes dirty at `x`, its flows whose old rate is below
//!   `x` keep it; those at or above are rising and get a *check* at
//!   their old rate.
//! * A dirty link pops at `rem / n` (bandwidth left over the flows still
//!   rising) and fixes them there. A flow fixed below its old rate leaves
//!   its trajectory: its clean links become dirty at that level.
//! * At a check (level `r_f`, the flow still rising) the flow stays at
//!   `r_f` if a clean link of it fills there (`lam == r_f`) or its cap is
//!   `r_f`; otherwise its clean links become dirty at `r_f`.
//!
//! Events are ordered by level, then dirty, cap, pop, check, then id:
//! the result depends on nothing but the calls. The checks of one old
//! rate on a link share one heap entry, and the flows of one batch that
//! share a cap form one chain (`cap_next`) with one cap entry, in the
//! order single entries would have had.
//!
//! # Cost
//!
//! `O(sum over dirty links of their flows)` to make links dirty, plus
//! `O(log)` heap work and a route scan per checked or re-fixed flow.
//! Whether a clean link keeps room is read in O(1) from its kept load
//! (`Kept`). A dirty link gets a pop entry only if its level is below
//! the cap of some flow rising on it. The measurements behind these
//! choices and the ideas tried are in
//! `docs/perf/2026-11-26-flow-model-notes.md`.
//!
//! # Floating point
//!
//! A re-solved flow re-fixed within a relative [`KEEP`] of its old rate
//! keeps it bit for bit and does not count as changed (bandwidth left is
//! a difference of sums); levels at which links become dirty and flows
//! count as rising are taken [`SLACK`] lower than computed (taking a
//! flow in too many is always safe).
//!
//! [`Sharing::Fair`]: crate::machine::Sharing::Fair

use super::{FlowNet, State, pack, pop_lowest, unpack};
use std::cmp::Reverse;

/// A re-fixed flow within this relative distance of its old rate keeps
/// the old rate. Rounding noise on a level is about `d^2 * 1e-16` for
/// `d` flows on a link (1e-12 at 100); a completion 1 ms away moves by
/// at most 0.1 ps at this bound.
pub(super) const KEEP: f64 = 1e-10;

/// Relative margin below a computed level at which links become dirty
/// and flows count as rising.
pub(super) const SLACK: f64 = 1e-9;

const DIRTY: u64 = 0;
const CAP: u64 = 1;
const POP: u64 = 2;
const CHECK: u64 = 3;

/// What the sweep keeps between and during updates.
#[derive(Debug)]
pub(super) struct SweepState {
    /// Links to make dirty at the next update; the level is in
    /// `pending_at` (infinite for a link not pending), so a link shared
    /// by many starts and ends is queued once.
    pending: Vec<u32>,
    pending_at: Vec<f64>,
    /// Flows started since the last update.
    new_flows: Vec<u32>,
    /// The sweep's current level.
    cur: f64,
    /// Links on which unsolved flows started since the last update (each
    /// once, as marked in `started_on`): made dirty from the level at
    /// which they could first fill with those flows.
    started: Vec<u32>,
    started_on: Vec<bool>,
    /// Scratch of `solve_sweep`: the caps of new flows and the pending
    /// links, sorted.
    known: Vec<u128>,
    /// Checks come in batches: the flows a link took in at one old rate
    /// share one heap entry (`batches[i]` is a range of `batch_flows`),
    /// since flows of one rate group on a link are taken in together.
    batch_flows: Vec<u32>,
    batches: Vec<(u32, u32)>,
    /// Scratch of `make_dirty`: its checks, packed (old rate bits,
    /// flow), so that sorting them compares one integer.
    checks: Vec<u128>,
    /// Per flow slot, valid for the flows that failed a check in the
    /// running update: the next flow of the same check batch and cap that
    /// failed its check too ([`NO_FLOW`] for none). Only the first of
    /// such a chain has a cap entry in the heap; the next one still
    /// rising gets its entry when that one is popped (most are fixed by
    /// a link below their cap, and one entry each had been two thirds
    /// of the heap's pushes on AMG SpGEMM).
    cap_next: Vec<u32>,
}

/// No flow (the end of a cap chain).
const NO_FLOW: u32 = u32::MAX;

impl SweepState {
    pub(super) fn new(links: usize) -> Self {
        SweepState {
            pending: Vec::new(),
            pending_at: vec![f64::INFINITY; links],
            new_flows: Vec::new(),
            cur: 0.0,
            started: Vec::new(),
            started_on: vec![false; links],
            known: Vec::new(),
            batch_flows: Vec::new(),
            batches: Vec::new(),
            checks: Vec::new(),
            cap_next: Vec::new(),
        }
    }

    /// Link `l` is to be made dirty at level `lv` or below.
    pub(super) fn note_link(&mut self, l: u32, lv: f64) {
        let lv = lv * (1.0 - SLACK);
        let at = &mut self.pending_at[l as usize];
        if *at == f64::INFINITY {
            self.pending.push(l);
        }
        *at = at.min(lv);
    }

    /// An unsolved flow started on link `l`.
    pub(super) fn note_start_on(&mut self, l: u32) {
        if !std::mem::replace(&mut self.started_on[l as usize], true) {
            self.started.push(l);
        }
    }

    /// Flow `f` started.
    pub(super) fn note_new_flow(&mut self, f: u32) {
        self.new_flows.push(f);
    }
}

#[inline]
fn entry(level: f64, kind: u64, id: u32) -> Reverse<u128> {
    debug_assert!(level >= 0.0);
    Reverse(pack(level.to_bits(), kind << 32 | id as u64))
}

impl FlowNet {
    /// Solves the pending starts and ends (into `scratch[f].new_rate` for
    /// every `f` in `comp`).
    pub(super) fn solve_sweep(&mut self) {
        self.heap.clear();
        self.sweep.batch_flows.clear();
        self.sweep.batches.clear();
        self.sweep.cur = 0.0;
        // What is known before the sweep starts (the caps of new flows and
        // the pending links) is one sorted list merged with the heap in its
        // own order: sorting it once is cheaper than a heap entry each.
        let new_flows = std::mem::take(&mut self.sweep.new_flows);
        if self.sweep.pending.is_empty() && self.sweep.started.is_empty() {
            // No link to make dirty, and no new flow that could fall short
            // of its cap (any other start queues its links in `started`):
            // every new flow takes its cap, as the sweep would find at
            // each cap entry with nothing dirty. Most MPI messages on an
            // uncongested machine come here.
            for &f in &new_flows {
                if !self.flows[f as usize].live {
                    continue;
                }
                debug_assert!(self.flows[f as usize].at_cap);
                let sc = &mut self.scratch[f as usize];
                sc.new_rate = sc.cap;
                sc.mark = self.epoch;
                sc.state = State::Settled;
                self.comp.push(f);
            }
            self.sweep.new_flows = new_flows;
            self.sweep.new_flows.clear();
            return;
        }
        let mut known = std::mem::take(&mut self.sweep.known);
        known.clear();
        if self.sweep.cap_next.len() < self.flows.len() {
            self.sweep.cap_next.resize(self.flows.len(), NO_FLOW);
        }
        for &f in &new_flows {
            if !self.flows[f as usize].live {
                continue;
            }
            let sc = &mut self.scratch[f as usize];
            sc.new_rate = 0.0;
            sc.mark = self.epoch;
            sc.state = State::Open;
            let cap = sc.cap;
            self.comp.push(f);
            if cap.is_finite() {
                known.push(entry(cap, CAP, f).0);
                self.sweep.cap_next[f as usize] = NO_FLOW;
            }
        }
        self.sweep.new_flows = new_flows;
        self.sweep.new_flows.clear();
        let started = std::mem::take(&mut self.sweep.started);
        for &l in &started {
            self.sweep.started_on[l as usize] = false;
            let lv = self.fill_level(l, 0);
            debug_assert!(lv.is_finite(), "a flow started on link {l} rises");
            self.sweep.note_link(l, lv);
        }
        self.sweep.started = started;
        self.sweep.started.clear();
        for &l in &self.sweep.pending {
            let lv = std::mem::replace(&mut self.sweep.pending_at[l as usize], f64::INFINITY);
            known.push(entry(lv.max(0.0), DIRTY, l).0);
        }
        self.sweep.pending.clear();
        known.sort_unstable();
        let mut next_known = 0;

        while let Some((key, tag)) = pop_lowest(&mut self.heap, &known, &mut next_known) {
            let x = f64::from_bits(key);
            if x > self.sweep.cur {
                self.sweep.cur = x;
            }
            let id = tag as u32;
            match tag >> 32 {
                DIRTY => {
                    if self.cmark[id as usize] != self.epoch {
                        self.make_dirty(id, false);
                    }
                }
                CAP => {
                    let sc = self.scratch[id as usize];
                    if sc.mark == self.epoch && sc.state == State::Open {
                        self.fix(id, sc.cap);
                    }
                    // The next flow of its chain still rising takes the
                    // entry it would have had: same cap, a higher id. The
                    // ones fixed by now would have been no-ops.
                    let mut g = self.sweep.cap_next[id as usize];
                    while g != NO_FLOW {
                        let sg = &self.scratch[g as usize];
                        if sg.mark == self.epoch && sg.state == State::Open {
                            self.heap.push(entry(sg.cap, CAP, g));
                            break;
                        }
                        g = self.sweep.cap_next[g as usize];
                    }
                }
                POP => self.pop_link(id, key),
                _ => {
                    let (from, to) = self.sweep.batches[id as usize];
                    // The batch's flows that start to rise below a cap,
                    // chained per cap in id order (see `cap_next`).
                    let (mut head, mut tail, mut cap) = (NO_FLOW, NO_FLOW, 0.0);
                    for i in from..to {
                        let f = self.sweep.batch_flows[i as usize];
                        let sc = self.scratch[f as usize];
                        if sc.mark != self.epoch
                            || sc.state != State::Checked
                            || !self.check(f)
                            || !sc.cap.is_finite()
                        {
                            continue;
                        }
                        if head != NO_FLOW && sc.cap.to_bits() == f64::to_bits(cap) {
                            self.sweep.cap_next[tail as usize] = f;
                        } else {
                            if head != NO_FLOW {
                                self.heap.push(entry(cap, CAP, head));
                            }
                            (head, cap) = (f, sc.cap);
                        }
                        tail = f;
                        self.sweep.cap_next[f as usize] = NO_FLOW;
                    }
                    if head != NO_FLOW {
                        self.heap.push(entry(cap, CAP, head));
                    }
                }
            }
        }
        self.sweep.known = known;
    }

    /// Takes link `l` into the sweep at the current level: flows on it
    /// below the level keep their rates; the others are rising.
    /// `rising` says that a flow on `l` has just started to rise (a
    /// failed check), which makes it dirty whatever its load.
    #[inline]
    fn make_dirty(&mut self, l: u32, rising: bool) {
        let lu = l as usize;
        let bw = self.kept[lu].bw;
        // A link that fixed no flow in the last solution, carries no flow
        // being solved whose level is open, and keeps room to spare with
        // every other flow at its rate (the new one for those fixed so
        // far, its cap for a new flow sure to get it) cannot fill: it
        // stays clean. A flow that later rises on it makes it dirty. The
        // open flows are the new ones not at their caps and not fixed yet
        // (counted in `Kept::open`) and those that failed a check, whose
        // links are all dirty from then on (`rising`). The load is the
        // kept sum (`Kept::load`), not a scan of the link's flows: the
        // many changed flows crossing one clean link each come here.
        if self.kept[lu].binds_nothing()
            && !rising
            && self.kept[lu].open == 0
            && self.kept[lu].load < bw * (1.0 - SLACK)
        {
            return;
        }
        self.take_dirty(l);
    }

    /// [`FlowNet::make_dirty`] past its test for a link that stays
    /// clean, out of line: the test is inlined at each call (half the
    /// calls on the peers' torus all-to-all stop there), so those calls
    /// do not pay for saving the registers the rest needs.
    #[inline(never)]
    fn take_dirty(&mut self, l: u32) {
        let lu = l as usize;
        let below = self.sweep.cur * (1.0 - SLACK);
        let bw = self.kept[lu].bw;
        self.cmark[lu] = self.epoch;
        self.kept[lu].lam = f64::INFINITY;
        let mut rem = bw;
        let mut n = 0u32;
        // The largest cap among the flows that may rise on it.
        let mut top_cap = 0.0f64;
        let mut checks = std::mem::take(&mut self.sweep.checks);
        checks.clear();
        for i in 0..self.kept[lu].flows.len() {
            let f = self.kept[lu].flows[i];
            let sc = &mut self.scratch[f as usize];
            if sc.mark == self.epoch {
                match sc.state {
                    State::Settled => rem -= sc.new_rate,
                    State::Open | State::Checked => {
                        n += 1;
                        if sc.cap > top_cap {
                            top_cap = sc.cap;
                        }
                    }
                }
                continue;
            }
            let r = sc.rate;
            if r >= below {
                sc.new_rate = r;
                sc.mark = self.epoch;
                sc.state = State::Checked;
                self.comp.push(f);
                checks.push(pack(r.to_bits(), u64::from(f)));
                n += 1;
                if sc.cap > top_cap {
                    top_cap = sc.cap;
                }
            } else {
                rem -= r;
            }
        }
        // One heap entry per old rate, its flows in id order.
        checks.sort_unstable();
        let mut i = 0;
        while i < checks.len() {
            let bits = unpack(checks[i]).0;
            let end = i + checks[i..].partition_point(|&c| unpack(c).0 == bits);
            let from = self.sweep.batch_flows.len() as u32;
            self.sweep
                .batch_flows
                .extend(checks[i..end].iter().map(|&c| unpack(c).1 as u32));
            let b = self.sweep.batches.len() as u32;
            self.sweep
                .batches
                .push((from, self.sweep.batch_flows.len() as u32));
            self.heap.push(entry(f64::from_bits(bits), CHECK, b));
            i = end;
        }
        self.sweep.checks = checks;
        self.rem[lu] = rem;
        self.nun[lu] = n;
        // Its level `rem / n` only rises as its flows are fixed (each at
        // most at the level), and each rising flow is fixed at its cap at
        // the latest, by a cap entry that comes before a pop at the same
        // level: if the level is already at every cap, the link fixes
        // none and its pop would find no flow left. Such pops had been
        // 43 % of the sweep's pops on the peers' torus all-to-all (a
        // lone rising flow whose cap is the link's bandwidth), 61 % on
        // AMG level-2 SpMV and 72 % on random pairs (instrumented build).
        // Measured: a2a-torus-512 CPU 0.95, random-pairs 0.90 (paired
        // medians, `farm-bench -n 7`); cachegrind: amg-spmv -1.5 %
        // instructions, amg-spgemm0 +1.0 % (the cap compare per rising
        // flow; few of its pops are skipped). Same events and makespans.
        let lv = (rem / n as f64).max(0.0);
        if n > 0 && lv < top_cap {
            self.heap.push(entry(lv, POP, l));
        }
    }

    /// A dirty link's turn: if its level is still the heap key, it fills
    /// and fixes its rising flows; otherwise it goes back at its level.
    fn pop_link(&mut self, l: u32, key: u64) {
        let lu = l as usize;
        if self.cmark[lu] != self.epoch || self.nun[lu] == 0 {
            return;
        }
        let lv = (self.rem[lu] / self.nun[lu] as f64).max(0.0);
        if lv.to_bits() > key {
            self.heap.push(entry(lv, POP, l));
            return;
        }
        let level = lv.max(self.sweep.cur);
        self.kept[lu].lam = level;
        // `nun` counts the rising flows left on the link (each `fix`
        // takes one off): the scan stops at the last of them.
        let mut i = 0;
        while self.nun[lu] > 0 {
            let f = self.kept[lu].flows[i];
            let sc = self.scratch[f as usize];
            if sc.mark == self.epoch && sc.state != State::Settled {
                self.fix(f, level);
            }
            i += 1;
        }
        debug_assert!(self.kept[lu].flows[i..].iter().all(|&f| {
            let sc = &self.scratch[f as usize];
            sc.mark != self.epoch || sc.state == State::Settled
        }));
    }

    /// The check of a flow still rising at its old rate; true if it goes
    /// on rising (its cap entry is the caller's).
    fn check(&mut self, f: u32) -> bool {
        let sc = self.scratch[f as usize];
        let (r, cap) = (sc.rate, sc.cap);
        let tol = 2.0 * KEEP * r;
        let mut bound = cap <= r + tol;
        if !bound {
            for &l in self.route(f) {
                if self.cmark[l as usize] != self.epoch
                    && (self.kept[l as usize].lam - r).abs() <= tol
                {
                    bound = true;
                    break;
                }
            }
        }
        if bound {
            self.fix(f, r);
            return false;
        }
        self.scratch[f as usize].state = State::Open;
        for i in 0..sc.hops as usize {
            let l = self.hop(f, i);
            if self.cmark[l as usize] != self.epoch {
                self.make_dirty(l, true);
            }
        }
        true
    }

    /// Fixes rising flow `f` at level `y` (its old rate if within
    /// [`KEEP`]). A flow that changed makes its clean links dirty.
    fn fix(&mut self, f: u32, y: f64) {
        let (old, is_new, hops, cap) = {
            let sc = &self.scratch[f as usize];
            debug_assert!(sc.solved || sc.state == State::Open, "a new flow is open");
            (sc.rate, !sc.solved, sc.hops as usize, sc.cap)
        };
        // What its links' kept loads hold for it, and whether they count
        // it open (see `Kept`).
        let (held, open) = match (is_new, is_new && self.flows[f as usize].at_cap) {
            (false, _) => (old, false),
            (true, true) => (cap, false),
            (true, false) => (0.0, true),
        };
        let v = if !is_new && (y - old).abs() <= KEEP * old {
            old
        } else {
            y
        };
        let sc = &mut self.scratch[f as usize];
        sc.state = State::Settled;
        sc.new_rate = v;
        // A new flow's links are all queued to become dirty at the level
        // where they could first fill with it, so they need not be now.
        let changed = !is_new && v != old;
        for i in 0..hops {
            let l = self.hop(f, i) as usize;
            // The link's kept load takes the new rate now.
            if v != held {
                self.kept[l].load += v - held;
            }
            if open {
                self.kept[l].open -= 1;
            }
            if self.cmark[l] == self.epoch {
                // A rising flow counts on every dirty link it crosses.
                self.rem[l] -= v;
                self.nun[l] -= 1;
            } else if changed {
                self.make_dirty(l as u32, false);
            }
        }
    }
}
