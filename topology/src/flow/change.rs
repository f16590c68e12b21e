//! A link's bandwidth changing during a run (SimGrid's `bandwidth_file`
//! and `<trace_connect kind="BANDWIDTH">`): the link's capacity is the
//! new value from the instant of the change, and the flows crossing it
//! are re-rated at that instant, max-min over the new capacities (CM02:
//! `NetworkCm02Link::set_bandwidth` changes the link constraint's bound
//! and the next solve shares it).
//!
//! Kept apart from the solvers: a change only marks the link for the
//! next update, as an end does; the solver takes it from there. A
//! machine whose links never change pays nothing for it.

use super::{FlowEvent, FlowNet};
use sim_core::{Bandwidth, Schedule};

impl FlowNet {
    /// Sets capacity resource `l`'s bandwidth (the link id a route holds;
    /// for a cable shared by both directions, the one its routes name)
    /// to `bw` from now on. The flows crossing it get their new rates at
    /// the update this posts, at the current instant; their bytes sent
    /// so far are kept. A flow started later takes it as any other link.
    /// Panics if `l` is not a link.
    pub fn set_link_bandwidth(
        &mut self,
        l: u32,
        bw: Bandwidth,
        sched: &mut impl Schedule<FlowEvent>,
    ) {
        let lu = l as usize;
        self.m.links[lu].bandwidth = bw;
        self.kept[lu].bw = bw.as_f64();
        if self.kept[lu].flows.is_empty() {
            return;
        }
        if self.cm02.is_some() {
            // The next solve is from scratch.
        } else if self.asym {
            // Every flow reachable from the link may change.
            self.cut.threshold = 0.0;
            self.cut.dirty_links.push(l);
        } else {
            // Dirty from level 0: every flow on it rises again and is
            // fixed where the new capacity (or another link) puts it.
            self.sweep.note_link(l, 0.0);
        }
        self.ensure_update(sched);
    }
}
