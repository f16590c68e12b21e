//! The layer's own event queue: one FIFO bucket per distinct time,
//! behind one engine [`super::Ev::Wake`] per instant.
//!
//! FIFO within a bucket is push order, so the order is exactly (time,
//! sequence number) as in the engine; but the many ranks that act at one
//! instant (each step of a symmetric collective) share a bucket, so a push
//! or a pop is a deque operation and a probe of a table of few keys.
//! Buckets are found by time in a hash table and their times ordered in a
//! binary heap (each distinct time enters it once): when times are mostly
//! distinct (point-to-point traffic on a packet network) a push is a probe
//! and a heap push, where a B-tree of buckets spent hundreds of
//! instructions searching and shifting its nodes. Emptied buckets are kept
//! for reuse (no allocation in steady state), except large ones (more
//! than 4096 events), which would hold their peak for the whole run. The
//! layer never cancels an event, so it needs no handles.

use super::host::End;
use rustc_hash::FxHashMap;
use sim_core::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The layer's own events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Loc {
    /// The job in service on a server (a core or a progress engine) ends,
    /// with these effects.
    Free(u32, End),
    /// An arrival set aside until its port is free is ready again on a
    /// server (server, message, rendezvous data rather than an
    /// envelope): the only jobs ever set aside, so the event need not
    /// carry a `Job` (32 bytes; the event is 32 bytes, 40 with it).
    Ready(u32, u32, bool),
    /// A job's effects that come after its CPU time (offloaded delays).
    Effects(End),
    /// A message leaves its sender when its `o_send` is over (an RTS, or
    /// an envelope joining its port's queue).
    Depart(u32),
    /// The head of a rank's port queue leaves (rank, interface).
    Port(u32, u16),
    /// A graph program's operation started or completed and its program
    /// says that may have made operations ready (`OpStream::started`,
    /// `completed`): the rank looks for them.
    Graph(u32),
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

/// Events an emptied bucket may hold room for and still be kept.
const POOLED_CAPACITY: usize = 4096;

#[derive(Default)]
pub(super) struct LocalQueue {
    /// The pending events by time \[ps\], each time's in push order.
    buckets: FxHashMap<u64, VecDeque<Loc>>,
    /// The times of `buckets`, each once.
    times: BinaryHeap<Reverse<u64>>,
    pool: Vec<VecDeque<Loc>>,
    /// Times of the wakes pending on the engine.
    pub wakes: BinaryHeap<Reverse<Time>>,
    pub draining: bool,
    pub handled: u64,
}

impl LocalQueue {
    pub fn push(&mut self, t: Time, ev: Loc) {
        match self.buckets.entry(t.as_ps()) {
            std::collections::hash_map::Entry::Occupied(mut e) => e.get_mut().push_back(ev),
            std::collections::hash_map::Entry::Vacant(v) => {
                let mut d = self.pool.pop().unwrap_or_default();
                d.push_back(ev);
                v.insert(d);
                self.times.push(Reverse(t.as_ps()));
            }
        }
    }

    /// The first event due at or before `now`.
    pub fn pop_due(&mut self, now: Time) -> Option<Loc> {
        loop {
            let t = self.times.peek()?.0;
            if t > now.as_ps() {
                return None;
            }
            if let Some(ev) = self.buckets.get_mut(&t).expect("bucket").pop_front() {
                return Some(ev);
            }
            self.retire(t);
        }
    }

    /// The time of the earliest pending event.
    pub fn next_time(&mut self) -> Option<Time> {
        loop {
            let t = self.times.peek()?.0;
            if !self.buckets[&t].is_empty() {
                return Some(Time::from_ps(t));
            }
            self.retire(t);
        }
    }

    /// Drops the earliest time, whose bucket is empty (kept for reuse
    /// unless large).
    fn retire(&mut self, t: u64) {
        self.times.pop();
        let d = self.buckets.remove(&t).expect("bucket");
        // A large bucket (every rank's event at one instant) is freed: kept
        // for reuse it held its peak (a million start-up wakes at a million
        // ranks, 42 MB when an event was 40 bytes) for the rest of the run.
        if self.pool.len() < 1024 && d.capacity() <= POOLED_CAPACITY {
            self.pool.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A million-rank instant holds a million events (the start-up
    /// wakes): each is 32 bytes.
    #[test]
    fn events_are_small() {
        assert!(std::mem::size_of::<Loc>() <= 32);
    }

    /// Events come out in (time, push order), whatever order their times
    /// were pushed in, with pushes between pops, and none is lost.
    #[test]
    fn pops_in_time_then_push_order() {
        use sim_core::rand::Rng;
        let mut rng = sim_core::RngStreams::new(3).stream("local");
        let mut q = LocalQueue::default();
        let mut model = std::collections::BTreeMap::<(u64, u32), u32>::new();
        let (mut seq, mut now) = (0u32, 0u64);
        for _ in 0..5000 {
            if rng.random_range(0..3) > 0 {
                let t = now + rng.random_range(0..20u64);
                q.push(Time::from_ps(t), Loc::Wake(seq));
                model.insert((t, seq), seq);
                seq += 1;
            } else {
                now += rng.random_range(0..4u64);
                while let Some(ev) = q.pop_due(Time::from_ps(now)) {
                    let ((_, _), want) = model.pop_first().expect("model has it");
                    assert_eq!(ev, Loc::Wake(want));
                }
                // Not after every drain: pushes at `now` right after its
                // bucket was emptied must find a new one by themselves.
                if rng.random_bool(0.5) {
                    let next = model.first_key_value().map(|(k, _)| Time::from_ps(k.0));
                    assert_eq!(q.next_time(), next);
                    assert!(next.is_none_or(|t| t.as_ps() > now));
                }
            }
        }
        while let Some(ev) = q.pop_due(Time::MAX) {
            let ((_, _), want) = model.pop_first().expect("model has it");
            assert_eq!(ev, Loc::Wake(want));
        }
        assert!(model.is_empty(), "{} events lost", model.len());
    }
}
