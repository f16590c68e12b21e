//! The pending-event set: a priority queue keyed by (time, sequence number).
//!
//! # Ordering contract
//!
//! Every scheduled event gets a key `(time, seq)` where `seq` is drawn from
//! a per-queue counter that increases by one on every [`EventQueue::schedule`]
//! and every [`EventQueue::reschedule`]. Keys are therefore unique, and
//! [`EventQueue::pop`] returns events in strictly increasing key order:
//!
//! * earlier time first;
//! * among equal times, the event whose key was assigned first (FIFO);
//! * a rescheduled event takes a fresh sequence number, so it runs after
//!   every event already pending at its new time, exactly as if it had been
//!   cancelled and scheduled anew at the moment of the reschedule.
//!
//! The order depends only on the sequence of calls, never on hashing,
//! addresses or wall-clock time, which makes runs bit-for-bit reproducible.
//!
//! # Implementation
//!
//! Two heaps share one sequence counter, so the contract above holds across
//! both:
//!
//! * events scheduled with [`EventQueue::schedule`] may be cancelled and
//!   rescheduled by their [`EventId`]; they live in the `priority-queue`
//!   crate's indexed binary heap (`O(log n)` push, pop, removal and
//!   priority change by item, items found through `Borrow<u64>` so the
//!   payload lives inside the heap's item);
//! * events scheduled with [`EventQueue::post`] can never be cancelled
//!   (packet arrivals, timers that always fire: most events of a network
//!   simulation); they live in `std`'s plain binary heap, which keeps
//!   (key, payload) inline and needs no index.
//!
//! Why two: the indexed heap reaches every key through two indirections,
//! and on the hold benchmark (`netsim bench engine`) it ran at 7.2 M
//! events/s with 1 000 pending and 0.5 M events/s with 1 000 000 pending,
//! against the 10 M and 3 M this engine is meant to sustain. Paying for
//! handles only where a model asks for one keeps cancellation (flow-level
//! completion times move when shares change) without taxing every event.
//! [`EventQueue::pop`] compares the two heads; keys are unique, so the
//! merged order is exactly the (time, seq) order.
//!
//! Keys are `(time, seq)` packed as `time << 64 | seq` in a `u128`, so one
//! integer comparison orders them (tuple comparison was a fifth of the
//! instructions of the hold benchmark).

use crate::time::Time;
use priority_queue::PriorityQueue;
use rustc_hash::FxBuildHasher;
use std::borrow::Borrow;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::hash::{Hash, Hasher};

/// Handle of a scheduled event, used to cancel or reschedule it. Handles
/// are never reused within one queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventId(u64);

impl EventId {
    /// The raw handle value (stable for the life of the queue).
    pub fn raw(self) -> u64 {
        self.0
    }
}

/// A heap item: the event and its handle. Hash and equality look at the
/// handle only, which is what lets the heap find an item by `&u64`.
struct Slot<E> {
    id: u64,
    event: E,
}

impl<E> PartialEq for Slot<E> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl<E> Eq for Slot<E> {}
impl<E> Hash for Slot<E> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Must hash exactly as `u64` does, for `Borrow<u64>` lookups.
        self.id.hash(state)
    }
}
impl<E> Borrow<u64> for Slot<E> {
    fn borrow(&self) -> &u64 {
        &self.id
    }
}

/// The key `(time, seq)` packed as `time << 64 | seq`. Both heaps are
/// max-heaps, so keys are reversed.
type Key = Reverse<u128>;

/// An entry of the plain heap: ordered by key only.
struct Posted<E> {
    key: Key,
    event: E,
}

impl<E> PartialEq for Posted<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Posted<E> {}
impl<E> PartialOrd for Posted<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Posted<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

fn key(time: Time, seq: u64) -> Key {
    Reverse(((time.as_ps() as u128) << 64) | seq as u128)
}

fn key_time(k: &Key) -> Time {
    Time::from_ps((k.0 >> 64) as u64)
}

/// Pending events of type `E`, ordered by (time, sequence number).
pub struct EventQueue<E> {
    /// Events with handles.
    heap: PriorityQueue<Slot<E>, Key, FxBuildHasher>,
    /// Events without handles.
    posted: BinaryHeap<Posted<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An empty queue with room for `n` events before reallocating.
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            heap: PriorityQueue::with_capacity_and_default_hasher(0),
            posted: BinaryHeap::with_capacity(n),
            next_seq: 0,
        }
    }

    fn next_seq(&mut self) -> u64 {
        let s = self.next_seq;
        self.next_seq += 1;
        s
    }

    /// Schedules `event` at `time` without a handle: it cannot be cancelled
    /// or moved. Same ordering as [`EventQueue::schedule`], cheaper.
    /// `O(log n)`.
    pub fn post(&mut self, time: Time, event: E) {
        let seq = self.next_seq();
        self.posted.push(Posted {
            key: key(time, seq),
            event,
        });
    }

    /// Schedules `event` at `time` with a handle for [`EventQueue::cancel`]
    /// and [`EventQueue::reschedule`]; it will pop after every pending
    /// event whose time is earlier or equal. `O(log n)`.
    pub fn schedule(&mut self, time: Time, event: E) -> EventId {
        let seq = self.next_seq();
        // The handle is the sequence number the event first received.
        self.heap.push(Slot { id: seq, event }, key(time, seq));
        EventId(seq)
    }

    /// Removes a pending event and returns it; `None` if it already popped
    /// or was cancelled. `O(log n)`.
    pub fn cancel(&mut self, id: EventId) -> Option<E> {
        self.heap.remove(&id.0).map(|(slot, _)| slot.event)
    }

    /// Moves a pending event to `time`, behind every event already pending
    /// at that time (it takes a fresh sequence number). Returns `false` if
    /// the event is no longer pending. `O(log n)`.
    pub fn reschedule(&mut self, id: EventId, time: Time) -> bool {
        if !self.heap.contains(&id.0) {
            return false;
        }
        let seq = self.next_seq();
        self.heap.change_priority(&id.0, key(time, seq));
        true
    }

    /// The time of a pending event, or `None`.
    pub fn time_of(&self, id: EventId) -> Option<Time> {
        self.heap.get_priority(&id.0).map(key_time)
    }

    /// Whether the next event is in the plain heap (ties cannot happen:
    /// keys are unique).
    fn next_is_posted(&self) -> Option<bool> {
        match (self.posted.peek(), self.heap.peek()) {
            (None, None) => None,
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            // Reversed keys: the larger `Reverse` is the earlier event.
            (Some(p), Some((_, k))) => Some(p.key > *k),
        }
    }

    /// Removes and returns the event with the smallest key, with its handle
    /// (`None` for events scheduled with [`EventQueue::post`]).
    pub fn pop(&mut self) -> Option<(Time, Option<EventId>, E)> {
        if self.next_is_posted()? {
            self.posted.pop().map(|p| (key_time(&p.key), None, p.event))
        } else {
            self.heap
                .pop()
                .map(|(slot, k)| (key_time(&k), Some(EventId(slot.id)), slot.event))
        }
    }

    /// The time of the next event to pop, without removing it.
    pub fn peek_time(&self) -> Option<Time> {
        if self.next_is_posted()? {
            self.posted.peek().map(|p| key_time(&p.key))
        } else {
            self.heap.peek().map(|(_, k)| key_time(k))
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len() + self.posted.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.posted.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_among_equal_times() {
        let mut q = EventQueue::new();
        for i in 0..10 {
            q.schedule(Time::from_ns(5), i);
        }
        q.schedule(Time::from_ns(1), 100);
        assert_eq!(q.pop().unwrap().2, 100);
        for i in 0..10 {
            assert_eq!(q.pop().unwrap().2, i);
        }
        assert!(q.pop().is_none());
    }

    #[test]
    fn reschedule_goes_behind_existing_ties() {
        let mut q = EventQueue::new();
        let a = q.schedule(Time::from_ns(1), 'a');
        q.schedule(Time::from_ns(2), 'b');
        assert!(q.reschedule(a, Time::from_ns(2)));
        assert_eq!(q.time_of(a), Some(Time::from_ns(2)));
        assert_eq!(q.pop().unwrap().2, 'b');
        assert_eq!(q.pop().unwrap().2, 'a');
        assert!(!q.reschedule(a, Time::from_ns(3)));
        assert_eq!(q.cancel(a), None);
    }

    #[test]
    fn posted_and_handled_events_interleave_fifo() {
        let mut q = EventQueue::new();
        q.post(Time::from_ns(5), 'a');
        let b = q.schedule(Time::from_ns(5), 'b');
        q.post(Time::from_ns(5), 'c');
        q.post(Time::from_ns(4), 'z');
        assert_eq!(q.peek_time(), Some(Time::from_ns(4)));
        let order: Vec<(char, bool)> = std::iter::from_fn(|| q.pop())
            .map(|(_, id, e)| (e, id == Some(b)))
            .collect();
        assert_eq!(
            order,
            vec![('z', false), ('a', false), ('b', true), ('c', false)]
        );
    }

    #[test]
    fn cancel_removes() {
        let mut q = EventQueue::new();
        let a = q.schedule(Time::from_ns(1), 1);
        let b = q.schedule(Time::from_ns(1), 2);
        assert_eq!(q.cancel(a), Some(1));
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop().map(|(_, id, e)| (id, e)), Some((Some(b), 2)));
    }
}
