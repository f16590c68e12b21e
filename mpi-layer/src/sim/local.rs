//! The layer's own event queue: one FIFO bucket per distinct time, in a
//! B-tree, behind one engine [`super::Ev::Wake`] per instant.
//!
//! FIFO within a bucket is push order, so the order is exactly (time,
//! sequence number) as in the engine; but the many ranks that act at one
//! instant (each step of a symmetric collective) share a bucket, so a push
//! or a pop is a deque operation on a tree of few keys. Emptied buckets
//! are kept for reuse (no allocation in steady state). The layer never
//! cancels an event, so it needs no handles.

use super::host::{End, Job};
use sim_core::Time;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

/// The layer's own events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Loc {
    /// The job in service on a server (a core or a progress engine) ends.
    Free(u32),
    /// A job set aside until a port is free is ready again on a server.
    Ready(u32, Job, bool),
    /// A job's effects that come after its CPU time (offloaded delays).
    Effects(End),
    /// A message leaves its sender: an envelope or RTS when the send port
    /// frees, rendezvous data when the CTS is back and the port frees.
    Depart(u32),
    /// A message's current leg reached the far end through shared memory
    /// (a pure delay, or a control message).
    Arrive(u32),
    /// A data-bearing leg is through the latency `L` that follows the wire.
    Landed(u32),
    /// A node's memory: the copy that ends first is done (node, version).
    ShmDone(u32, u32),
    /// A rank's program continues (start of the run, end of a sleep).
    Wake(u32),
}

#[derive(Default)]
pub(super) struct LocalQueue {
    buckets: BTreeMap<u64, VecDeque<Loc>>,
    pool: Vec<VecDeque<Loc>>,
    /// Times of the wakes pending on the engine.
    pub wakes: BinaryHeap<Reverse<Time>>,
    pub draining: bool,
    pub handled: u64,
}

impl LocalQueue {
    pub fn push(&mut self, t: Time, ev: Loc) {
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
    pub fn pop_due(&mut self, now: Time) -> Option<Loc> {
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
    pub fn next_time(&mut self) -> Option<Time> {
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
