//! The pending-event set: a priority queue keyed by (time, sequence number).
//!
//! # Ordering contract
//!
//! Every scheduled event gets a key `(time, seq)` where `seq` is drawn from
//! a per-queue counter that increases by one on every [`EventQueue::post`],
//! [`EventQueue::schedule`] and [`EventQueue::reschedule`]. Keys are
//! therefore unique, and [`EventQueue::pop`] returns events in strictly
//! increasing key order:
//!
//! * earlier time first;
//! * among equal times, the event whose key was assigned first (FIFO);
//! * a rescheduled event takes a fresh sequence number, so it runs after
//!   every event already pending at its new time, exactly as if it had been
//!   cancelled and scheduled anew at the moment of the reschedule.
//!
//! The order depends only on the sequence of calls, never on hashing,
//! addresses or wall-clock time, which makes runs bit-for-bit reproducible.
//! Any time may be scheduled, including one before the last popped event
//! (the engine forbids that, see [`crate::Schedule`], but the queue does
//! not rely on it for correctness).
//!
//! # Implementation
//!
//! Keys are packed as `time << 64 | seq` in a `u128`. Up to 768 pending
//! events live in `std`'s binary heap; beyond that, in a radix heap on
//! the time (Ahuja, Mehlhorn, Orlin and Tarjan, J. ACM 1990) whose
//! buckets keep equal times in sequence order, so ties need no sorting;
//! below 512 the entries go back to the heap. Events with a handle keep
//! their payload in a slot table, and a cancel or move leaves a stale
//! entry that is dropped later. The details and their measurements:
//! `docs/perf/2026-11-26-event-queue-notes.md`.

use crate::time::Time;
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

/// Handle of a scheduled event, used to cancel or reschedule it. A handle
/// names one scheduled event: it is never reused within one queue (the
/// slot it names may be, under a new generation; after 2^32 reuses of one
/// slot a generation repeats).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventId(u64);

impl EventId {
    /// The raw handle value (stable for the life of the queue).
    pub fn raw(self) -> u64 {
        self.0
    }

    fn new(slot: u32, generation: u32) -> Self {
        EventId((generation as u64) << 32 | slot as u64)
    }

    fn slot(self) -> usize {
        self.0 as u32 as usize
    }

    fn generation(self) -> u32 {
        (self.0 >> 32) as u32
    }
}

/// The key `(time, seq)` packed as `time << 64 | seq`, so one integer
/// comparison orders them (tuple comparison was a fifth of the
/// instructions of the hold benchmark).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key(u128);

impl Key {
    #[inline]
    fn new(time: Time, seq: u64) -> Self {
        Key((time.as_ps() as u128) << 64 | seq as u128)
    }
    #[inline]
    fn time(self) -> Time {
        Time::from_ps((self.0 >> 64) as u64)
    }
    #[inline]
    fn seq(self) -> u64 {
        self.0 as u64
    }
}

/// What a heap entry carries: the payload of a posted event, or the slot
/// of an event with a handle.
enum Item<E> {
    Posted(E),
    Handle(u32),
}

struct Entry<E> {
    key: Key,
    item: Item<E>,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

/// An event with a handle: its payload and live key, or free.
struct Slot<E> {
    /// Sequence number of the live key; [`FREE`] when nothing is pending.
    seq: u64,
    time: Time,
    generation: u32,
    event: Option<E>,
}

const FREE: u64 = u64::MAX;

/// Live events above which the binary heap hands over to the radix heap,
/// and below which it takes them back (the gap between the two
/// keeps a queue that hovers near one size from switching back and
/// forth). The heap wins only while it is small: with 2 Ki instead of
/// 32 Ki, `farm-bench -n 3` paired CPU medians were 0.93 on AMG level-2
/// SpMV (P = 8192, packet), 0.82 on the 27-point halo at P = 4096
/// (packet), 0.87 on the switch all-to-all, 0.99 on random pairs, and
/// unchanged on the hold model at 1 000 pending (which stayed a heap).
/// From 2 Ki down to 768 (`TO_HEAP` kept at 512; the switch counts live
/// events, see `insert`), against 2 Ki (paired CPU medians on a noisy
/// VM, `farm-bench -n 5` but where said): 0.98 on the peers' GOAL
/// all-to-all (P = 1024, compiled, `-n 9`),
/// 0.88 on the switch all-to-all (packet), 0.96 on AMG level-2 SpMV
/// (packet, `-n 3`), 0.99 on the allreduce at P = 1 M (`-n 3`), 1.00 on
/// random pairs (flow), AMG level-0 SpGEMM (flow), Zhu (packet) and the
/// 27-point halo at P = 512 (packet); the hold model at 1 000 pending,
/// now radix, posts 15.1 to 17.0 M events/s against 13.2 to 14.9 (three
/// alternating runs each; its `handle` rows within the noise). 512 with
/// `TO_HEAP` 128 cost the allreduce 2.3 % (`-n 5`, 1.02 to 1.05): its
/// steps drain through a few hundred events, where the heap is the
/// faster; 1 Ki with 256 measured 1.00 on the GOAL all-to-all and 1.03
/// on the allreduce.
const TO_RADIX: usize = 768;
const TO_HEAP: usize = 512;

/// A bucket of at most this many entries has its slots loaded ahead of
/// its pops (see `settle`).
const WARM: usize = 512;

/// Entries a drained bucket keeps room for.
const KEEP_CAPACITY: usize = 4096;

/// Number of buckets: bucket 0 (the `front`) for `last`, 1 to 64 by bit
/// length of the time's difference.
const BUCKETS: usize = 65;

/// Pending events of type `E`, ordered by (time, sequence number).
pub struct EventQueue<E> {
    /// Small queues: every entry. Large ones (`radix`): the entries with
    /// a key below `last`.
    heap: BinaryHeap<Reverse<Entry<E>>>,
    /// Whether the buckets are in use.
    radix: bool,
    /// Bucket 0: the entries at time `last`, in sequence order.
    front: VecDeque<Entry<E>>,
    /// Buckets 1 to 64 (index 0 unused), each with equal times in
    /// sequence order.
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `i - 1` set when bucket `i` (1 to 64) is not empty.
    nonempty: u64,
    /// The radix of the buckets \[ps\]: the time of the last popped event,
    /// or of a stale entry that was the smallest when the buckets were
    /// last redistributed (never above a pending time).
    last: u64,
    slots: Vec<Slot<E>>,
    free_slots: Vec<u32>,
    /// Events pending (stale entries not counted).
    live: usize,
    /// Heap entries of cancelled or moved events not yet dropped.
    stale: usize,
    next_seq: u64,
}

impl<E> std::fmt::Debug for EventQueue<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventQueue").finish_non_exhaustive()
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn bucket_of(time: u64, last: u64) -> usize {
    (64 - (time ^ last).leading_zeros()) as usize
}

impl<E> Entry<E> {
    /// The time in picoseconds (the radix heap's key).
    #[inline]
    fn ps(&self) -> u64 {
        (self.key.0 >> 64) as u64
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An empty queue. The radix heap grows its buckets as needed, so
    /// `n` only pre-sizes the handle table.
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            radix: false,
            front: VecDeque::new(),
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            nonempty: 0,
            last: 0,
            slots: Vec::with_capacity(n.min(1 << 20)),
            free_slots: Vec::new(),
            live: 0,
            stale: 0,
            next_seq: 0,
        }
    }

    fn next_seq(&mut self) -> u64 {
        let s = self.next_seq;
        self.next_seq += 1;
        s
    }

    #[inline]
    fn insert(&mut self, entry: Entry<E>) {
        let t = entry.ps();
        if !self.radix || t < self.last {
            self.heap.push(Reverse(entry));
            // Live events, as `TO_HEAP` counts them: counting the heap's
            // entries, stale ones included (up to 1024 of them before a
            // compaction), a queue that had just shrunk back with fewer
            // than `TO_HEAP` live events could be over `TO_RADIX` at once
            // and switch at every pop and push (random pairs, flow mode,
            // whose rate changes reschedule completions: 19 s against
            // 1.1 s with `TO_RADIX` 768).
            if !self.radix && self.live > TO_RADIX {
                self.grow_into_radix();
            }
            return;
        }
        self.place(entry, t);
    }

    /// Appends `entry` (at time `t >= last`) to its bucket.
    #[inline]
    fn place(&mut self, entry: Entry<E>, t: u64) {
        let b = bucket_of(t, self.last);
        if b == 0 {
            self.front.push_back(entry);
        } else {
            self.nonempty |= 1 << (b - 1);
            self.buckets[b].push(entry);
        }
    }

    /// Whether a heap entry is the live key of its event.
    #[inline]
    fn is_live(&self, e: &Entry<E>) -> bool {
        match e.item {
            Item::Posted(_) => true,
            Item::Handle(s) => self.slots[s as usize].seq == e.key.seq(),
        }
    }

    /// Schedules `event` at `time` without a handle: it cannot be cancelled
    /// or moved. Same ordering as [`EventQueue::schedule`], cheaper.
    /// Amortized `O(1)`.
    pub fn post(&mut self, time: Time, event: E) {
        let seq = self.next_seq();
        self.live += 1;
        self.insert(Entry {
            key: Key::new(time, seq),
            item: Item::Posted(event),
        });
    }

    /// Schedules `event` at `time` with a handle for [`EventQueue::cancel`]
    /// and [`EventQueue::reschedule`]; it will pop after every pending
    /// event whose time is earlier or equal. Amortized `O(1)`.
    pub fn schedule(&mut self, time: Time, event: E) -> EventId {
        let seq = self.next_seq();
        let slot = match self.free_slots.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Slot {
                    seq: FREE,
                    time: Time::ZERO,
                    generation: 0,
                    event: None,
                });
                u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 handles pending")
            }
        };
        let s = &mut self.slots[slot as usize];
        s.seq = seq;
        s.time = time;
        s.event = Some(event);
        let id = EventId::new(slot, s.generation);
        self.live += 1;
        self.insert(Entry {
            key: Key::new(time, seq),
            item: Item::Handle(slot),
        });
        id
    }

    /// The slot of a pending event, if `id` names one.
    #[inline]
    fn pending_slot(&self, id: EventId) -> Option<usize> {
        let s = self.slots.get(id.slot())?;
        (s.seq != FREE && s.generation == id.generation()).then_some(id.slot())
    }

    /// Frees a slot whose event left the queue; its handle dies.
    fn release(&mut self, slot: usize) -> E {
        let s = &mut self.slots[slot];
        s.seq = FREE;
        s.generation = s.generation.wrapping_add(1);
        self.free_slots.push(slot as u32);
        s.event.take().expect("a pending slot holds its event")
    }

    /// Removes a pending event and returns it; `None` if it already popped
    /// or was cancelled. `O(1)` (its heap entry is dropped later).
    pub fn cancel(&mut self, id: EventId) -> Option<E> {
        let slot = self.pending_slot(id)?;
        self.live -= 1;
        // Freed first: a compaction in `add_stale` must see the entry as
        // stale (it kept it, and the count went below the stale entries
        // held: an underflow at their pop, found by the flow model's
        // groups, which cancel thousands of completions).
        let e = self.release(slot);
        self.add_stale();
        Some(e)
    }

    /// Moves a pending event to `time`, behind every event already pending
    /// at that time (it takes a fresh sequence number). Returns `false` if
    /// the event is no longer pending. Amortized `O(1)`.
    pub fn reschedule(&mut self, id: EventId, time: Time) -> bool {
        let Some(slot) = self.pending_slot(id) else {
            return false;
        };
        let seq = self.next_seq();
        let s = &mut self.slots[slot];
        s.seq = seq;
        s.time = time;
        self.add_stale();
        self.insert(Entry {
            key: Key::new(time, seq),
            item: Item::Handle(slot as u32),
        });
        true
    }

    /// The time of a pending event, or `None`.
    pub fn time_of(&self, id: EventId) -> Option<Time> {
        self.pending_slot(id).map(|s| self.slots[s].time)
    }

    /// One more stale entry; drops them all once they outnumber the live
    /// ones, so memory stays proportional to the pending events.
    fn add_stale(&mut self) {
        self.stale += 1;
        if self.stale > 1024 && self.stale > self.live {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let slots = &self.slots;
        let live = |e: &Entry<E>| match e.item {
            Item::Posted(_) => true,
            Item::Handle(s) => slots[s as usize].seq == e.key.seq(),
        };
        self.front.retain(live);
        for (i, b) in self.buckets.iter_mut().enumerate().skip(1) {
            b.retain(live);
            if b.is_empty() {
                self.nonempty &= !(1 << (i - 1));
            }
        }
        let heap = std::mem::take(&mut self.heap).into_vec();
        self.heap = heap.into_iter().filter(|Reverse(e)| live(e)).collect();
        self.stale = 0;
    }

    #[cold]
    #[inline(never)]
    /// The queue outgrew the binary heap: every entry moves to the
    /// buckets, around the smallest key.
    fn grow_into_radix(&mut self) {
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        // In key order, so that equal times enter their buckets in
        // sequence order.
        entries.sort_unstable_by_key(|Reverse(e)| e.key);
        self.last = entries.first().map_or(0, |Reverse(e)| e.ps());
        self.radix = true;
        for Reverse(e) in entries {
            let t = e.ps();
            self.place(e, t);
        }
    }

    #[cold]
    #[inline(never)]
    /// The queue shrank: every entry goes back to the binary heap.
    fn shrink_into_heap(&mut self) {
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.extend(self.front.drain(..).map(Reverse));
        for b in &mut self.buckets {
            entries.extend(b.drain(..).map(Reverse));
        }
        self.buckets
            .iter_mut()
            .for_each(|b| b.shrink_to(KEEP_CAPACITY));
        // The front keeps its room: a queue that empties between the
        // steps of a collective fills it again at the next step, where
        // every event of the step's instant lands. Given back, it was
        // mapped fresh and doubled (copied) its way up again each step:
        // at P = 1 M (allreduce, ideal network) 16 times 1 Mi entries,
        // 130 k of the run's 314 k page faults (`perf record -e
        // page-faults`). Kept: CPU time 0.97 of before (`farm-bench -n
        // 3`; system time 0.70 -> 0.43 s), and the same peak (the front's
        // peak is part of it).
        self.nonempty = 0;
        self.radix = false;
        self.heap = BinaryHeap::from(entries);
    }

    /// Makes the front start with the smallest live key of the buckets,
    /// if any: drops stale entries at the front; when it is empty,
    /// redistributes the smallest non-empty bucket around its minimum
    /// time. Liveness is looked up only at the front: a lookup per moved
    /// entry would be a random access into the slot table for every move.
    fn settle(&mut self) -> bool {
        loop {
            if let Some(e) = self.front.front() {
                if self.is_live(e) {
                    return true;
                }
                self.front.pop_front();
                self.stale -= 1;
                continue;
            }
            if self.nonempty == 0 {
                return false;
            }
            let i = self.nonempty.trailing_zeros() as usize + 1;
            self.nonempty &= !(1 << (i - 1));
            let mut b = std::mem::take(&mut self.buckets[i]);
            let min = b.iter().map(Entry::ps).min().expect("non-empty");
            self.last = min;
            if b.len() <= WARM {
                // These entries pop within the next few pops, and each pop
                // of an event with a handle reads its slot: load the slots
                // now, all at once, so that the misses overlap instead of
                // stalling each pop in turn (a prefetch without `unsafe`).
                for e in &b {
                    if let Item::Handle(s) = e.item {
                        std::hint::black_box(self.slots[s as usize].seq);
                    }
                }
            }
            if b.len() > KEEP_CAPACITY {
                // A large bucket: size the lower buckets exactly, so that
                // their doubling does not hold up to twice the queue.
                let mut count = [0usize; BUCKETS];
                for e in &b {
                    count[bucket_of(e.ps(), min)] += 1;
                }
                self.front.reserve_exact(count[0]);
                for (k, &c) in count.iter().enumerate().take(i).skip(1) {
                    if c > 0 {
                        self.buckets[k].reserve_exact(c);
                    }
                }
            }
            // In order: equal times keep their sequence order.
            for e in b.drain(..) {
                let t = e.ps();
                debug_assert!(bucket_of(t, min) < i, "a key only moves down");
                self.place(e, t);
            }
            // Keep a small allocation for the bucket's next use; a large
            // one would hold memory that the lower buckets now need.
            if b.capacity() <= KEEP_CAPACITY {
                self.buckets[i] = b;
            }
        }
    }

    /// Removes and returns the event with the smallest key, with its handle
    /// (`None` for events scheduled with [`EventQueue::post`]).
    /// Amortized `O(log(key range))`, in practice a few moves per event.
    pub fn pop(&mut self) -> Option<(Time, Option<EventId>, E)> {
        let e = loop {
            if let Some(Reverse(e)) = self.heap.pop() {
                if self.is_live(&e) {
                    break e;
                }
                self.stale -= 1;
                continue;
            }
            if !self.radix || !self.settle() {
                return None;
            }
            break self.front.pop_front().expect("settled");
        };
        self.live -= 1;
        if self.radix && self.live < TO_HEAP {
            self.shrink_into_heap();
        }
        let time = e.key.time();
        Some(match e.item {
            Item::Posted(ev) => (time, None, ev),
            Item::Handle(s) => {
                let id = EventId::new(s, self.slots[s as usize].generation);
                let ev = self.release(s as usize);
                (time, Some(id), ev)
            }
        })
    }

    /// The time of the next event to pop, like [`EventQueue::peek_time`],
    /// but it may prepare the pop: it drops stale entries at the front and
    /// settles the radix heap's smallest bucket, work the next pop then
    /// does not repeat (`peek_time` scans that bucket without moving it,
    /// and the pop scans it again). The order is unchanged. For the
    /// engine's run loop, which looks at every event's time before it
    /// pops it.
    pub fn front_time(&mut self) -> Option<Time> {
        while let Some(Reverse(e)) = self.heap.peek() {
            if self.is_live(e) {
                return Some(e.key.time());
            }
            self.heap.pop();
            self.stale -= 1;
        }
        if !self.radix || !self.settle() {
            return None;
        }
        self.front.front().map(|e| e.key.time())
    }

    /// The time of the next event to pop, without removing it. `O(k)` for
    /// `k` entries in the smallest non-empty bucket (it finds the minimum
    /// without moving anything).
    pub fn peek_time(&self) -> Option<Time> {
        if let Some(Reverse(e)) = self.heap.peek() {
            if self.is_live(e) {
                return Some(e.key.time());
            }
        }
        let early = self
            .heap
            .iter()
            .filter(|Reverse(e)| self.is_live(e))
            .map(|Reverse(e)| e.key)
            .min();
        if early.is_some() || !self.radix {
            return early.map(Key::time);
        }
        // Every front entry is at `last`: one live entry gives the time.
        if self.front.iter().any(|e| self.is_live(e)) {
            return Some(Time::from_ps(self.last));
        }
        let mut mask = self.nonempty;
        while mask != 0 {
            let i = mask.trailing_zeros() as usize + 1;
            let min = self.buckets[i]
                .iter()
                .filter(|e| self.is_live(e))
                .map(Entry::ps)
                .min();
            if let Some(t) = min {
                return Some(Time::from_ps(t));
            }
            mask &= mask - 1;
        }
        None
    }

    /// Whether the radix heap holds the events (the queue outgrew the
    /// binary heap); for tests of the switch.
    #[doc(hidden)]
    pub fn in_radix_mode(&self) -> bool {
        self.radix
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }
}

#[cfg(test)]
mod tests;
