//! The layer's own event queue: one FIFO bucket per distinct time,
//! behind one engine [`super::Ev::Wake`] per instant.
//!
//! FIFO within a bucket is push order, so the order is exactly (time,
//! sequence number) as in the engine; but the many ranks that act at one
//! instant (each step of a symmetric collective) share a bucket, so a push
//! is an append and a probe of a table of few keys, and a pop reads the
//! bucket being read, which is kept out of the table (no probe). The
//! other buckets are found by time in a hash table and their times
//! ordered in a binary heap (each distinct time enters it once): when
//! times are mostly distinct (point-to-point traffic on a packet network)
//! a push is a probe and a heap push, where a B-tree of buckets spent
//! hundreds of instructions searching and shifting its nodes. Emptied buckets are kept
//! for reuse (no allocation in steady state); a large bucket is a chain of
//! fixed-size chunks, each reused as soon as it has been read (see
//! `Bucket`), so that no instant holds memory beyond its own events. The
//! layer never cancels an event, so it needs no handles.

use super::NONE;
use rustc_hash::FxHashMap;
use sim_core::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// What happens when a job's work is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct End {
    /// A request completes.
    pub complete: u32,
    /// The receiver matched an RTS: the CTS of this message leaves.
    pub cts: u32,
    /// This rank's program waited for the job: it goes on (as a job).
    pub resume: u32,
    /// This rank's program goes on now (the end of a [`Job::Resume`]).
    pub unblock: u32,
    /// The receiver handled an envelope of this (sender, receiver) pair:
    /// the pair gets a credit back ([`crate::MpiParams::pair_window`]).
    pub credit: (u32, u32),
}

impl End {
    pub(super) const NOTHING: End = End {
        complete: NONE,
        cts: NONE,
        resume: NONE,
        unblock: NONE,
        credit: (NONE, NONE),
    };
}

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

/// Events per chunk of a large bucket (64 KiB at 32-byte events).
const CHUNK: usize = 2048;

/// Spare chunks kept for reuse; the rest are freed. A bucket being read
/// hands its chunks to the one being filled as it goes, so few are
/// needed; 64 held 4 MB more at the peak of the 27-point halo (P =
/// 4096), and single runs of the million-rank allreduce were no faster
/// with them (9.20 and 8.52 s, against 8.71 and 8.86 s with 8).
const SPARE_CHUNKS: usize = 8;

/// Emptied buckets kept for reuse.
const POOLED_BUCKETS: usize = 1024;

/// One instant's events in push order. Up to [`CHUNK`] events live in
/// `front`, a buffer that grows as a `Vec` does; beyond that they go to
/// fixed-size chunks, each handed back as soon as it has been read.
///
/// Why not a `VecDeque`: every step of a million-rank collective fills
/// one instant with a million events. A deque doubles its way to 32 MB
/// (copying each time), and memory that large is mapped fresh from the
/// kernel and returned at the end of the instant: at P = 1 M, 380 k of
/// the run's 680 k page faults were the layer's buckets (`perf record -e
/// page-faults`). Chunks are reused across instants: the one being read
/// gives them back as fast as the next one takes them. Against the
/// deque, at P = 1 M: CPU time 0.92 (`farm-bench -n 3`; system time 1.44
/// -> 0.70 s) and peak 672 -> 665 MiB; on the million-rank GOAL
/// broadcast (whose start-up instant holds a wake per rank) peak 669 076
/// -> 648 760 KiB (`/usr/bin/time`).
#[derive(Default)]
struct Bucket {
    /// Events of `front` already popped.
    read: usize,
    front: Vec<Loc>,
    /// Full chunks after `front`, in push order (only the last one may
    /// have room).
    rest: VecDeque<Vec<Loc>>,
}

impl Bucket {
    fn push(&mut self, ev: Loc, spare: &mut Vec<Vec<Loc>>) {
        if self.rest.is_empty() && self.front.len() < CHUNK {
            if self.front.len() == self.front.capacity() {
                let want = (2 * self.front.capacity()).clamp(4, CHUNK);
                self.front.reserve_exact(want - self.front.len());
            }
            self.front.push(ev);
            return;
        }
        match self.rest.back_mut() {
            Some(c) if c.len() < CHUNK => c.push(ev),
            _ => {
                let mut c = spare.pop().unwrap_or_else(|| Vec::with_capacity(CHUNK));
                c.push(ev);
                self.rest.push_back(c);
            }
        }
    }

    /// The first event not yet popped; a chunk read to its end goes to
    /// `spare`.
    fn pop(&mut self, spare: &mut Vec<Vec<Loc>>) -> Option<Loc> {
        loop {
            if let Some(&ev) = self.front.get(self.read) {
                self.read += 1;
                return Some(ev);
            }
            let next = self.rest.pop_front()?;
            let done = std::mem::replace(&mut self.front, next);
            self.read = 0;
            give(spare, done);
        }
    }

    fn is_empty(&self) -> bool {
        self.read == self.front.len() && self.rest.is_empty()
    }
}

/// Keeps a full-size chunk for reuse, up to [`SPARE_CHUNKS`].
fn give(spare: &mut Vec<Vec<Loc>>, mut c: Vec<Loc>) {
    if c.capacity() == CHUNK && spare.len() < SPARE_CHUNKS {
        c.clear();
        spare.push(c);
    }
}

#[derive(Default)]
pub(super) struct LocalQueue {
    /// The bucket being read: the earliest pending time, out of
    /// `buckets` and `times`, so that a pop (and a push at that very
    /// instant) needs no hash probe. Against a probe per pop: 2.4 % fewer
    /// instructions on the peers' GOAL all-to-all at P = 1024 (compiled)
    /// and 1.2 % on the allreduce at P = 65 536 (cachegrind); CPU time
    /// 0.95 on the first (`farm-bench -n 9`, 0.95-1.10) and 0.96 on the
    /// allreduce at P = 1 M (`-n 4`, 0.91-0.97).
    head: Option<(u64, Bucket)>,
    /// The other pending events by time \[ps\], each time's in push
    /// order; none is empty.
    buckets: FxHashMap<u64, Bucket>,
    /// The times of `buckets`, each once.
    times: BinaryHeap<Reverse<u64>>,
    /// Emptied buckets, their small buffers kept.
    pool: Vec<Bucket>,
    /// Chunks read to their end, for the next large bucket.
    spare: Vec<Vec<Loc>>,
    /// Times of the wakes pending on the engine.
    pub wakes: BinaryHeap<Reverse<Time>>,
    pub draining: bool,
    pub handled: u64,
    /// Ranks of graph programs to visit once this instant's events are
    /// done: an operation of theirs started or completed, and their
    /// program says that may have made operations ready
    /// (`OpStream::started`, `completed`).
    pub visits: Vec<u32>,
}

impl LocalQueue {
    pub(super) fn push(&mut self, t: Time, ev: Loc) {
        let t = t.as_ps();
        match &mut self.head {
            Some((h, b)) if *h == t => return b.push(ev, &mut self.spare),
            // Before the head's instant (the layer never does this, since
            // the head is due): the head goes back among the others.
            Some((h, _)) if t < *h => {
                let (h, b) = self.head.take().expect("head");
                if b.is_empty() {
                    self.recycle(b);
                } else {
                    self.times.push(Reverse(h));
                    self.buckets.insert(h, b);
                }
            }
            _ => {}
        }
        let b = match self.buckets.entry(t) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                self.times.push(Reverse(t));
                v.insert(self.pool.pop().unwrap_or_default())
            }
        };
        b.push(ev, &mut self.spare);
    }

    /// The first event due at or before `now`.
    pub(super) fn pop_due(&mut self, now: Time) -> Option<Loc> {
        loop {
            if let Some((h, b)) = &mut self.head {
                if *h > now.as_ps() {
                    return None;
                }
                if let Some(ev) = b.pop(&mut self.spare) {
                    return Some(ev);
                }
                self.retire_head();
            }
            let t = self.times.peek()?.0;
            if t > now.as_ps() {
                return None;
            }
            self.times.pop();
            let b = self.buckets.remove(&t).expect("bucket");
            self.head = Some((t, b));
        }
    }

    /// The time of the earliest pending event.
    pub(super) fn next_time(&mut self) -> Option<Time> {
        if let Some((h, b)) = &self.head {
            if !b.is_empty() {
                return Some(Time::from_ps(*h));
            }
            self.retire_head();
        }
        // Only the head is ever read, so no other bucket is empty.
        self.times.peek().map(|t| Time::from_ps(t.0))
    }

    /// Drops the head, read to its end.
    fn retire_head(&mut self) {
        let (_, b) = self.head.take().expect("head");
        self.recycle(b);
    }

    /// Keeps an emptied bucket for reuse (a full-size buffer goes to the
    /// spare chunks instead).
    fn recycle(&mut self, mut b: Bucket) {
        debug_assert!(b.is_empty());
        b.read = 0;
        if b.front.capacity() == CHUNK {
            give(&mut self.spare, std::mem::take(&mut b.front));
        }
        b.front.clear();
        if self.pool.len() < POOLED_BUCKETS {
            self.pool.push(b);
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

    /// Large instants (many chunks, pushes into the instant being read,
    /// instants read in turn) keep push order, and the spare chunks stay
    /// bounded.
    #[test]
    fn large_instants_keep_push_order() {
        use sim_core::rand::Rng;
        let mut rng = sim_core::RngStreams::new(5).stream("local-large");
        let mut q = LocalQueue::default();
        let mut model = std::collections::BTreeMap::<(u64, u32), u32>::new();
        let mut seq = 0u32;
        for now in 0..6u64 {
            // The next instant fills while this one drains, and some of
            // this one's events add to it (zero-delay effects).
            for _ in 0..(3 * CHUNK + rng.random_range(0..CHUNK)) {
                let t = now + rng.random_range(0..2u64);
                q.push(Time::from_ps(t), Loc::Wake(seq));
                model.insert((t, seq), seq);
                seq += 1;
            }
            while let Some(ev) = q.pop_due(Time::from_ps(now)) {
                let ((_, _), want) = model.pop_first().expect("model has it");
                assert_eq!(ev, Loc::Wake(want));
                if rng.random_bool(0.3) {
                    q.push(Time::from_ps(now), Loc::Wake(seq));
                    model.insert((now, seq), seq);
                    seq += 1;
                }
                assert!(q.spare.len() <= SPARE_CHUNKS);
            }
            assert!(model.first_key_value().is_none_or(|(k, _)| k.0 > now));
            assert!(!q.spare.is_empty(), "read chunks are kept for reuse");
        }
        while let Some(ev) = q.pop_due(Time::MAX) {
            let ((_, _), want) = model.pop_first().expect("model has it");
            assert_eq!(ev, Loc::Wake(want));
        }
        assert!(model.is_empty(), "{} events lost", model.len());
        assert!(
            q.pool
                .iter()
                .all(|b| b.front.capacity() < CHUNK && b.rest.is_empty())
        );
    }

    /// A push before the head's instant (never from the layer, which
    /// only reads due instants) still comes out first, whether the head
    /// has events left or not.
    #[test]
    fn push_before_the_head_comes_first() {
        for left in [false, true] {
            let mut q = LocalQueue::default();
            q.push(Time::from_ps(10), Loc::Wake(1));
            if left {
                q.push(Time::from_ps(10), Loc::Wake(2));
            }
            assert_eq!(q.pop_due(Time::from_ps(10)), Some(Loc::Wake(1)));
            q.push(Time::from_ps(5), Loc::Wake(0));
            assert_eq!(q.next_time(), Some(Time::from_ps(5)));
            assert_eq!(q.pop_due(Time::from_ps(5)), Some(Loc::Wake(0)));
            assert_eq!(q.pop_due(Time::from_ps(5)), None);
            let rest: Vec<Loc> = std::iter::from_fn(|| q.pop_due(Time::MAX)).collect();
            assert_eq!(rest, if left { vec![Loc::Wake(2)] } else { vec![] });
            assert_eq!(q.next_time(), None);
        }
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
