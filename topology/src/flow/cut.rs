//! The level-cut solver, used under [`Sharing::Asymmetric`]: the flows a
//! change can reach are re-solved from scratch by progressive filling.
//!
//! Two facts about progressive filling bound the set:
//!
//! * **Level cut.** Filling raises one common level; a flow is fixed when
//!   a constraint it crosses fills (or its cap is reached). Removing a
//!   flow of rate `r` changes nothing below level `r`: its constraints did
//!   not fill before `r` and fill no sooner without it. Adding a flow
//!   changes nothing below the level `l0` at which one of its links would
//!   first fill with it (`first_binding`), its cap, or under the
//!   asymmetric rule the smallest rate on a reverse direction. So every
//!   flow whose rate is below the smallest such level keeps it.
//! * **Connectivity.** A change travels only through constraints shared
//!   with flows that are re-solved.
//!
//! The update searches outward from the changed constraints, taking in
//! the flows at or above the cut (and new flows); flows below it stay
//! fixed and only reduce the capacity left. The set is re-solved by
//! progressive filling with a heap of constraint levels (levels only rise
//! as flows are fixed, so stale heap entries are refreshed lazily), the
//! flows' caps being a sorted list merged with the heap in its own order.
//! An update that re-solves `S` costs `O(M_S log C_S + F_S log F_S)` for
//! `M_S` link memberships and `C_S` constraints; nothing bounds `S` but
//! the cut and connectivity (see the module docs of [`super`], "the
//! ripple"). Under fair sharing the sweep ([`super::sweep`]) is used
//! instead.
//!
//! [`Sharing::Asymmetric`]: crate::machine::Sharing::Asymmetric

use super::{FlowNet, State, pack, pop_lowest};
use crate::transport::LinkId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Heap entries for caps carry this bit above the flow id.
const CAP_TAG: u64 = 1 << 32;

/// A link direction counts as full when less than this fraction of its
/// bandwidth is left (float sums of shares rarely cancel exactly).
const SATURATED: f64 = 1e-9;

/// What the cut solver keeps between and during updates.
#[derive(Debug)]
pub(super) struct CutState {
    /// Links whose flow set changed since the last update.
    pub(super) dirty_links: Vec<u32>,
    /// Flows started since the last update.
    pub(super) dirty_flows: Vec<u32>,
    /// Rates below this level are unaffected by the pending starts and
    /// ends.
    pub(super) threshold: f64,
    cons: Vec<u32>,
    stack: Vec<u32>,
    /// Caps of the flows being re-solved, sorted.
    caps: Vec<u128>,
    saturated: Vec<u32>,
}

impl Default for CutState {
    fn default() -> Self {
        CutState {
            dirty_links: Vec::new(),
            dirty_flows: Vec::new(),
            threshold: f64::INFINITY,
            cons: Vec::new(),
            stack: Vec::new(),
            caps: Vec::new(),
            saturated: Vec::new(),
        }
    }
}

impl FlowNet {
    /// The constraint of link `l` (its own id, or with the asymmetric rule
    /// the lower id of its cable).
    #[inline]
    pub(super) fn cons_of(&self, l: u32) -> u32 {
        if self.asym {
            l.min(self.m.link(LinkId(l)).reverse.0)
        } else {
            l
        }
    }

    #[inline]
    pub(super) fn sides(&self, c: u32) -> [u32; 2] {
        if self.asym {
            [c, self.m.link(LinkId(c)).reverse.0]
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

    /// Lowers the cut for a flow about to start on `route` with `cap`.
    pub(super) fn cut_note_start(&mut self, route: &[LinkId], cap: f64) {
        let mut l0 = cap;
        for &l in route {
            l0 = l0.min(self.first_binding(l.0));
            if self.asym {
                // A full reverse direction would cap the new flow at its
                // largest rate; its smallest is a safe lower bound.
                let rev = self.m.link(l).reverse;
                for &g in &self.kept[rev.index()].flows {
                    let sc = &self.scratch[g as usize];
                    l0 = l0.min(if sc.solved { sc.rate } else { 0.0 });
                }
            }
        }
        self.cut.threshold = self.cut.threshold.min(l0);
    }

    /// Adds constraint `c` to this update: its flows with a rate of at
    /// least `l0` (and new flows) join the recomputed set; the others keep
    /// their rates and only reduce the capacity left for the set.
    fn visit_cons(&mut self, c: u32, l0: f64) {
        if self.cmark[c as usize] == self.epoch {
            return;
        }
        self.cmark[c as usize] = self.epoch;
        self.cut.cons.push(c);
        let sides = self.sides(c);
        let n = if sides[0] == sides[1] { 1 } else { 2 };
        // A hair below `l0`: including a flow too many is always safe.
        let cut = l0 * (1.0 - 1e-9);
        for &s in &sides[..n] {
            let mut fixed = 0.0;
            let mut cnt = 0;
            for i in 0..self.kept[s as usize].flows.len() {
                let f = self.kept[s as usize].flows[i];
                if self.scratch[f as usize].mark == self.epoch {
                    cnt += 1;
                    continue;
                }
                let sc = self.scratch[f as usize];
                if !sc.solved || sc.rate >= cut {
                    self.scratch[f as usize].mark = self.epoch;
                    self.scratch[f as usize].state = State::Open;
                    self.comp.push(f);
                    self.cut.stack.push(f);
                    cnt += 1;
                } else {
                    fixed += sc.rate;
                }
            }
            self.rem[s as usize] = self.kept[s as usize].bw - fixed;
            self.nun[s as usize] = cnt;
        }
    }

    /// Fixes flow `f` at rate `x`. Under the asymmetric rule, a cable
    /// direction whose flows are now all fixed and which is full fixes
    /// the unfixed flows of the other direction at `x` too: the contra
    /// flows saturate the link, so every flow on the cable gets the
    /// largest share among them (Zhu et al. Algorithm 1, lines 16-17),
    /// which is `x`, the level at which the last of them was fixed.
    fn freeze(&mut self, f: u32, x: f64) {
        self.cut.saturated.clear();
        self.freeze_one(f, x);
        while let Some(l) = self.cut.saturated.pop() {
            let rev = self.m.link(LinkId(l)).reverse.index();
            let mut i = 0;
            while i < self.kept[rev].flows.len() {
                let g = self.kept[rev].flows[i];
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
        sc.mark == self.epoch && sc.state == State::Open
    }

    fn freeze_one(&mut self, f: u32, x: f64) {
        self.scratch[f as usize].new_rate = x;
        self.scratch[f as usize].state = State::Settled;
        for &l in &self.flows[f as usize].route {
            let lu = l.index();
            let (r, n) = (&mut self.rem[lu], &mut self.nun[lu]);
            *r -= x;
            *n -= 1;
            if self.asym && *n == 0 && *r <= SATURATED * self.kept[lu].bw {
                self.cut.saturated.push(l.0);
            }
        }
    }

    /// Finds the flows the pending changes can reach and re-solves them
    /// (into `scratch[f].new_rate` for every `f` in `comp`).
    pub(super) fn solve_cut(&mut self) {
        self.cut.cons.clear();
        let l0 = std::mem::replace(&mut self.cut.threshold, f64::INFINITY);
        let seeds_l = std::mem::take(&mut self.cut.dirty_links);
        for &l in &seeds_l {
            let c = self.cons_of(l);
            self.visit_cons(c, l0);
        }
        let seeds_f = std::mem::take(&mut self.cut.dirty_flows);
        for &f in &seeds_f {
            let sc = &mut self.scratch[f as usize];
            if sc.mark != self.epoch {
                sc.mark = self.epoch;
                sc.state = State::Open;
                self.comp.push(f);
                self.cut.stack.push(f);
            }
        }
        while let Some(f) = self.cut.stack.pop() {
            for i in 0..self.flows[f as usize].route.len() {
                let c = self.cons_of(self.flows[f as usize].route[i].0);
                self.visit_cons(c, l0);
            }
        }
        self.cut.dirty_links = seeds_l;
        self.cut.dirty_links.clear();
        self.cut.dirty_flows = seeds_f;
        self.cut.dirty_flows.clear();
        if self.comp.is_empty() {
            return;
        }

        // Progressive filling over the set (`rem` and `nun` were set by
        // `visit_cons`). Build the heap in O(C) from a vector it then
        // reuses.
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.clear();
        for i in 0..self.cut.cons.len() {
            let c = self.cut.cons[i];
            let lv = self.level(c);
            if lv.is_finite() {
                entries.push(Reverse(pack(lv.to_bits(), c as u64)));
            }
        }
        // Caps never change during the filling: they are a sorted list
        // merged with the heap, in the heap's own (key, tag) order, so the
        // heap holds constraints only (with MPI traffic every flow has a
        // cap, and the caps were most of the heap's entries and pops).
        let mut caps = std::mem::take(&mut self.cut.caps);
        caps.clear();
        for &f in &self.comp {
            let cap = self.scratch[f as usize].cap;
            if cap.is_finite() {
                caps.push(pack(cap.to_bits(), CAP_TAG | f as u64));
            }
        }
        caps.sort_unstable();
        let mut next_cap = 0;
        self.heap = BinaryHeap::from(entries);
        while let Some((key, tag)) = pop_lowest(&mut self.heap, &caps, &mut next_cap) {
            if tag & CAP_TAG != 0 {
                let f = (tag & !CAP_TAG) as u32;
                if self.unfixed(f) {
                    let cap = self.scratch[f as usize].cap;
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
                self.heap.push(Reverse(pack(lv.to_bits(), tag)));
                continue;
            }
            let sides = self.sides(c);
            let n = if sides[0] == sides[1] { 1 } else { 2 };
            for &s in &sides[..n] {
                let mut i = 0;
                while i < self.kept[s as usize].flows.len() {
                    let f = self.kept[s as usize].flows[i];
                    if self.unfixed(f) {
                        self.freeze(f, lv);
                    }
                    i += 1;
                }
            }
        }
        self.cut.caps = caps;
    }
}
