//! Rate groups: the completion bookkeeping of flows that share a rate.
//!
//! Every solved flow belongs to one group; all members of a group have
//! the group's rate. A group keeps one virtual clock, the bytes each
//! member has been served since the group began (`served` at `since`,
//! the group's last rate change, plus `rate * (now - since)`), and its
//! members in a heap by *virtual finish*, the served amount at which
//! each is done (`fin`: the clock at its join plus what it had left).
//! Only the member that finishes first has a completion event: the
//! group's [`FlowEvent::End`]. A rate change of a whole group is then
//! one clock step and at most one reschedule, however many members it
//! has; before, it was a progress step and a reschedule per flow.
//!
//! # Which group
//!
//! An update ([`FlowNet::apply`]) sorts the flows whose rate changed by
//! (new rate, old group). A group all of whose members change to the
//! same rate keeps its members and takes the new rate (*retarget*). The
//! other changed flows (members of groups that split, and new flows)
//! leave their group with what they have left and join, per new rate,
//! the largest retargeted group of that rate, or one new group. Groups
//! are never merged otherwise, so flows of equal rate can sit in
//! several groups; each then moves in O(1).
//!
//! # Times
//!
//! A member's completion time is the one the per-flow bookkeeping would
//! give, up to rounding: computed when its rate last changed (at its
//! join: `join_due`, `now + bytes_left / rate`; after a retarget at
//! `since`: `since + (fin - served) / rate`), rounded up to the
//! picosecond. A flow that keeps one rate from its start to its end
//! (an idle route) finishes at exactly its start plus
//! [`transfer_time`](sim_core::transfer_time), as before. The heap's
//! order by `fin` and these times agree up to the rounding of the
//! clock (a picosecond at most).

use super::{FlowEvent, FlowNet, time_for};
use sim_core::{EventId, Schedule, Time};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// No group (a flow not solved yet).
pub(super) const NONE: u32 = u32::MAX;

/// A set of flows of one rate with one virtual clock. See the module docs.
#[derive(Debug, Default)]
pub(super) struct Group {
    pub(super) rate: f64,
    /// Bytes served to each member from the group's beginning to `since`.
    served: f64,
    /// The group's last rate change (or its beginning).
    since: Time,
    /// Bumped at each rate change: a member's `join_due` holds while it
    /// is the group's `epoch` of its join.
    epoch: u32,
    /// Live members.
    pub(super) n: u32,
    /// Members by (virtual finish bits, flow, join sequence); entries of
    /// members that left are stale (their flow's `seq` differs) and are
    /// dropped when they reach the top or at a compaction.
    heap: BinaryHeap<Reverse<(u64, u32, u64)>>,
    end_ev: Option<EventId>,
    ev_at: Time,
    /// The update (epoch) that last queued it in `touched`.
    mark: u32,
    /// Scratch of `apply`, valid when `amark` is the update's epoch: how
    /// many members changed rate, the first one's new rate (bits), and
    /// whether all members take that one.
    amark: u32,
    acount: u32,
    anew: u64,
    whole: bool,
}

/// A flow's place in its group (the group itself is
/// `FlowNet::group_of`, a dense array the update reads for every
/// changed flow).
#[derive(Clone, Copy, Debug)]
pub(super) struct Member {
    /// Virtual finish: the group's clock when the flow is done.
    fin: f64,
    /// Unique per join (stale heap entries have an older one).
    seq: u64,
    /// The group's `epoch` (rate change count) at the join, and the completion computed then.
    join_epoch: u32,
    join_due: Time,
    /// Busy time logged up to here (link busy intervals).
    pub(super) last: Time,
}

impl Default for Member {
    fn default() -> Self {
        Member {
            fin: 0.0,
            seq: 0,
            join_epoch: 0,
            join_due: Time::ZERO,
            last: Time::ZERO,
        }
    }
}

/// What the groups keep between and during updates.
#[derive(Debug, Default)]
pub(super) struct Groups {
    pub(super) groups: Vec<Group>,
    free: Vec<u32>,
    /// Groups whose next completion may have moved in this update.
    touched: Vec<u32>,
    /// Scratch of `apply`: the changed flows as (new rate bits, old
    /// group, flow), the old groups seen, and the groups that move whole
    /// as (new rate bits, largest first, group).
    moves: Vec<(u64, u32, u32)>,
    seen: Vec<u32>,
    whole: Vec<(u64, Reverse<u32>, u32)>,
    next_seq: u64,
}

impl Groups {
    fn served_at(&self, g: u32, now: Time) -> f64 {
        let gr = &self.groups[g as usize];
        gr.served + gr.rate * (now - gr.since).as_secs_f64()
    }

    /// A new empty group of `rate`.
    fn open(&mut self, rate: f64, now: Time) -> u32 {
        let g = match self.free.pop() {
            Some(g) => g,
            None => {
                self.groups.push(Group::default());
                self.groups.len() as u32 - 1
            }
        };
        let gr = &mut self.groups[g as usize];
        debug_assert!(gr.n == 0 && gr.end_ev.is_none());
        gr.heap.clear();
        gr.rate = rate;
        gr.served = 0.0;
        gr.since = now;
        gr.epoch = 0;
        gr.mark = 0;
        gr.amark = 0;
        g
    }

    fn touch(&mut self, g: u32, epoch: u32) {
        let gr = &mut self.groups[g as usize];
        if gr.mark != epoch {
            gr.mark = epoch;
            self.touched.push(g);
        }
    }
}

impl FlowNet {
    /// Flow `f`'s bytes not yet sent at `now` (from its group's clock).
    pub(super) fn bytes_left(&self, f: u32, now: Time) -> f64 {
        let m = &self.member[f as usize];
        (m.fin - self.groups.served_at(self.group_of[f as usize], now)).max(0.0)
    }

    /// When member `f` of group `g` sends its last byte.
    pub(super) fn due(&self, f: u32) -> Time {
        let m = &self.member[f as usize];
        let gr = &self.groups.groups[self.group_of[f as usize] as usize];
        if m.join_epoch == gr.epoch {
            m.join_due
        } else {
            gr.since
                .saturating_add(time_for((m.fin - gr.served).max(0.0), gr.rate))
        }
    }

    /// Group `g`'s member that finishes first (stale heap entries above
    /// it are dropped).
    fn top(&mut self, g: u32) -> Option<u32> {
        let gr = &mut self.groups.groups[g as usize];
        while let Some(&Reverse((_, f, seq))) = gr.heap.peek() {
            if self.group_of[f as usize] == g && self.member[f as usize].seq == seq {
                return Some(f);
            }
            gr.heap.pop();
        }
        None
    }

    /// Logs flow `f`'s link busy interval up to `now` at its group's
    /// current rate (when recording).
    fn log_busy(&mut self, f: u32, now: Time) {
        if !self.stats.recording() {
            return;
        }
        let m = self.member[f as usize];
        let g = self.group_of[f as usize];
        let gr = &self.groups.groups[g as usize];
        // The rate held since the later of the flow's last log and the
        // group's last rate change (earlier changes came while nothing
        // was recorded, as the per-flow log did).
        let from = m.last.max(gr.since);
        if gr.rate > 0.0 && now > from {
            let left = (m.fin - self.groups.served_at(g, from)).max(0.0);
            let moved = (gr.rate * (now - from).as_secs_f64()).min(left);
            let b = moved.round() as u64;
            for i in 0..self.scratch[f as usize].hops as usize {
                let l = self.hop(f, i);
                self.stats.busy(l, from, now, b);
            }
        }
        self.member[f as usize].last = now;
    }

    /// Group `g` takes rate `rate` from `now` on, with all its members.
    fn retarget(&mut self, g: u32, rate: f64, now: Time) {
        if self.stats.recording() {
            let members: Vec<u32> = self.groups.groups[g as usize]
                .heap
                .iter()
                .map(|e| e.0.1)
                .filter(|&f| self.group_of[f as usize] == g)
                .collect();
            for f in members {
                self.log_busy(f, now);
            }
        }
        let served = self.groups.served_at(g, now);
        let gr = &mut self.groups.groups[g as usize];
        gr.served = served;
        gr.since = now;
        gr.rate = rate;
        gr.epoch = gr.epoch.wrapping_add(1);
        self.groups.touch(g, self.epoch);
    }

    /// Flow `f` leaves its group at `now`; returns its bytes left.
    pub(super) fn leave(&mut self, f: u32, now: Time) -> f64 {
        self.log_busy(f, now);
        let left = self.bytes_left(f, now);
        let g = self.group_of[f as usize];
        self.groups.groups[g as usize].n -= 1;
        self.group_of[f as usize] = NONE;
        self.groups.touch(g, self.epoch);
        left
    }

    /// Flow `f`, with `left` bytes to send, joins group `g` at `now`.
    fn join(&mut self, f: u32, g: u32, left: f64, now: Time) {
        let served = self.groups.served_at(g, now);
        let seq = self.groups.next_seq;
        self.groups.next_seq += 1;
        let gr = &mut self.groups.groups[g as usize];
        let fin = served + left;
        self.group_of[f as usize] = g;
        self.member[f as usize] = Member {
            fin,
            seq,
            join_epoch: gr.epoch,
            join_due: now.saturating_add(time_for(left, gr.rate)),
            last: now,
        };
        gr.heap.push(Reverse((fin.to_bits(), f, seq)));
        gr.n += 1;
        // Drop stale entries when they outnumber the members.
        if gr.heap.len() > 2 * gr.n as usize + 16 {
            let (member, group_of) = (&self.member, &self.group_of);
            gr.heap
                .retain(|e| group_of[e.0.1 as usize] == g && member[e.0.1 as usize].seq == e.0.2);
        }
        self.groups.touch(g, self.epoch);
    }

    /// Moves (or schedules, or cancels) group `g`'s completion event to
    /// its first member's time; frees an empty group.
    fn settle_group(&mut self, g: u32, sched: &mut impl Schedule<FlowEvent>) {
        self.groups.groups[g as usize].mark = 0;
        match self.top(g) {
            None => {
                let gr = &mut self.groups.groups[g as usize];
                debug_assert_eq!(gr.n, 0);
                if let Some(id) = gr.end_ev.take() {
                    let ok = sched.cancel(id);
                    debug_assert!(ok, "completion event of a group is pending");
                }
                gr.heap.clear();
                self.groups.free.push(g);
            }
            Some(f) => {
                // Not before now: the heap's order by virtual finish and
                // the rounded times can disagree by a picosecond.
                let at = self.due(f).max(sched.now());
                let gr = &mut self.groups.groups[g as usize];
                match gr.end_ev {
                    Some(_) if gr.ev_at == at => {}
                    Some(id) => {
                        let ok = sched.reschedule(id, at);
                        debug_assert!(ok, "completion event of a group is pending");
                    }
                    None => gr.end_ev = Some(sched.schedule_at(at, FlowEvent::End(g))),
                }
                gr.ev_at = at;
            }
        }
    }

    /// Gives every flow the update fixed its new rate and regroups the
    /// flows whose rate changed (see the module docs); moves the
    /// completion events of the groups that changed.
    pub(super) fn apply(&mut self, sched: &mut impl Schedule<FlowEvent>) {
        let now = sched.now();
        let ep = self.epoch;
        let mut moves = std::mem::take(&mut self.groups.moves);
        let mut seen = std::mem::take(&mut self.groups.seen);
        moves.clear();
        seen.clear();
        // What moves: per old group, whether all its changed members take
        // one rate.
        for i in 0..self.comp.len() {
            let f = self.comp[i];
            let sc = self.scratch[f as usize];
            debug_assert!(sc.mark == ep && sc.state == super::State::Settled);
            let new = sc.new_rate;
            if sc.solved && new == sc.rate {
                continue;
            }
            let bits = new.to_bits();
            let old_g = if sc.solved {
                let g = self.group_of[f as usize];
                let gr = &mut self.groups.groups[g as usize];
                if gr.amark != ep {
                    gr.amark = ep;
                    gr.acount = 0;
                    gr.anew = bits;
                    gr.whole = true;
                    seen.push(g);
                }
                gr.acount += 1;
                gr.whole &= gr.anew == bits;
                g
            } else {
                // (The sweep took it off its links' open counts when it
                // fixed it.)
                self.flows[f as usize].at_cap = false;
                NONE
            };
            moves.push((bits, old_g, f));
            let sc = &mut self.scratch[f as usize];
            sc.rate = new;
            sc.solved = true;
        }
        // The answer's own size (`UpdateStats::rate_changes`): every move
        // but those of new flows, taken off where they join a group.
        self.rate_changes += moves.len() as u64;
        // Groups whose members all take one new rate keep them.
        let mut whole = std::mem::take(&mut self.groups.whole);
        whole.clear();
        for &g in &seen {
            let gr = &mut self.groups.groups[g as usize];
            gr.whole &= gr.acount == gr.n;
            if gr.whole {
                whole.push((gr.anew, Reverse(gr.n), g));
                let rate = f64::from_bits(gr.anew);
                self.retarget(g, rate, now);
            }
        }
        // The others join, per new rate, the largest such group of that
        // rate or a new one.
        let groups = &self.groups.groups;
        moves.retain(|m| {
            m.1 == NONE || {
                let gr = &groups[m.1 as usize];
                !(gr.amark == ep && gr.whole)
            }
        });
        moves.sort_unstable();
        whole.sort_unstable();
        let mut i = 0;
        while i < moves.len() {
            let bits = moves[i].0;
            let end = i + moves[i..].partition_point(|m| m.0 == bits);
            let w = whole.partition_point(|e| e.0 < bits);
            let target = match whole.get(w) {
                Some(e) if e.0 == bits => e.2,
                _ => self.groups.open(f64::from_bits(bits), now),
            };
            for &(_, g, f) in &moves[i..end] {
                let left = if g == NONE {
                    self.rate_changes -= 1;
                    self.flows[f as usize].work
                } else {
                    self.leave(f, now)
                };
                self.join(f, target, left, now);
            }
            i = end;
        }
        self.groups.moves = moves;
        self.groups.seen = seen;
        self.groups.whole = whole;
        let touched = std::mem::take(&mut self.groups.touched);
        for &g in &touched {
            self.settle_group(g, sched);
        }
        self.groups.touched = touched;
        self.groups.touched.clear();
    }

    /// Group `g`'s completion is due: its first member leaves the group;
    /// the next ones too while they are due at the same instant (as each
    /// had its own event there before any update the first end posts).
    /// Returns the flows ended with their rate (the caller releases
    /// them), then schedules the group's next completion.
    pub(super) fn group_end(
        &mut self,
        g: u32,
        sched: &mut impl Schedule<FlowEvent>,
        ended: &mut Vec<u32>,
    ) -> f64 {
        let now = sched.now();
        let rate = self.groups.groups[g as usize].rate;
        self.groups.groups[g as usize].end_ev = None;
        while let Some(f) = self.top(g) {
            if !ended.is_empty() && self.due(f) > now {
                break;
            }
            self.leave(f, now);
            self.groups.groups[g as usize].heap.pop();
            ended.push(f);
        }
        self.groups.touched.clear();
        self.settle_group(g, sched);
        rate
    }
}
