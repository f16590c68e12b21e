//! MPI's non-overtaking rule: the envelopes of one (source, destination)
//! pair are presented for matching in send order, whatever order the wire
//! delivers them in (MPI 4.0, Section 3.5).
//!
//! Every send takes the pair's next sequence number; an arrival whose
//! predecessors have not all been released is held. Most ranks receive
//! from one peer at a time (every step of a collective), so the counters
//! of a receiver's first pair in flight live in a dense per-receiver slot,
//! touched where the receiver's state is touched anyway; further pairs in
//! flight at once live in a hash table. Both kinds run the same code: only
//! where the counters are stored differs ([`Order::counters`]).
//!
//! The same per-pair state counts the pair's envelopes out under a pair
//! window (`MpiParams::pair_window`): a pair stays in flight until its
//! last envelope is released *and* handled.

use crate::probe::ProbeMap;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

const FREE: u32 = u32::MAX;

#[derive(Clone, Copy, Default)]
struct Counters {
    /// Sequence numbers handed out.
    sent: u32,
    /// Envelopes released for matching.
    released: u32,
    /// Envelopes that took a credit and were not yet handled.
    out: u32,
}

impl Counters {
    fn idle(&self) -> bool {
        self.released == self.sent && self.out == 0
    }
}

#[derive(Clone, Copy)]
struct Slot {
    /// The source whose counters are in this receiver's slot (`FREE`: none).
    src: u32,
    c: Counters,
}

const FREE_SLOT: Slot = Slot {
    src: FREE,
    c: Counters {
        sent: 0,
        released: 0,
        out: 0,
    },
};

/// The non-overtaking state of every pair with messages in flight.
pub(super) struct Order {
    slots: Vec<Slot>,
    pairs: ProbeMap<(u32, u32), Counters>,
    /// Arrivals waiting for a predecessor: (sequence number, message).
    held: FxHashMap<(u32, u32), Vec<(u32, u32)>>,
    /// Envelopes waiting for a credit, oldest first.
    parked: FxHashMap<(u32, u32), VecDeque<u32>>,
}

impl Order {
    /// For `ranks` receivers.
    pub(super) fn new(ranks: usize) -> Self {
        Order {
            slots: vec![FREE_SLOT; ranks],
            pairs: ProbeMap::default(),
            held: FxHashMap::default(),
            parked: FxHashMap::default(),
        }
    }

    /// Message `m` of pair (`src`, `dst`) may leave under a window of
    /// `w`: `true` if a credit was free (it is taken), `false` if it waits
    /// (parked) for one.
    pub(super) fn take_credit(&mut self, src: u32, dst: u32, w: u32, m: u32) -> bool {
        let c = self.counters(src, dst);
        if c.out < w {
            c.out += 1;
            true
        } else {
            self.parked.entry((src, dst)).or_default().push_back(m);
            false
        }
    }

    /// The receiver handled an envelope of pair (`src`, `dst`): its
    /// credit comes back. Returns the pair's oldest parked message, which
    /// takes it at once, if any.
    pub(super) fn credit_back(&mut self, src: u32, dst: u32) -> Option<u32> {
        if !self.parked.is_empty() {
            if let Some(q) = self.parked.get_mut(&(src, dst)) {
                let next = q.pop_front();
                if q.is_empty() {
                    self.parked.remove(&(src, dst));
                }
                if next.is_some() {
                    return next;
                }
            }
        }
        // One lookup: the credit returns and an idle pair is freed.
        let slot = &mut self.slots[dst as usize];
        if slot.src == src {
            slot.c.out -= 1;
            if slot.c.idle() {
                *slot = FREE_SLOT;
            }
        } else if let Some(c) = self.pairs.get_mut((src, dst)) {
            c.out -= 1;
            if c.idle() {
                self.pairs.remove((src, dst));
            }
        } else {
            unreachable!("a credit came back for a pair not in flight");
        }
        None
    }

    /// The counters of pair (`src`, `dst`), wherever they are stored.
    fn counters(&mut self, src: u32, dst: u32) -> &mut Counters {
        let slot = &mut self.slots[dst as usize];
        if slot.src == src {
            &mut slot.c
        } else {
            self.pairs.get_mut((src, dst)).expect("pair in flight")
        }
    }

    /// The sequence number of a new message from `src` to `dst`.
    pub(super) fn next_seq(&mut self, src: u32, dst: u32) -> u32 {
        let slot = &mut self.slots[dst as usize];
        let c = if slot.src == src {
            &mut slot.c
        } else if slot.src == FREE
            && (self.pairs.is_empty() || !self.pairs.contains_key((src, dst)))
        {
            *slot = Slot {
                src,
                c: Counters::default(),
            };
            &mut slot.c
        } else {
            self.pairs.entry_default((src, dst))
        };
        c.sent += 1;
        c.sent - 1
    }

    /// Message `m` of pair (`src`, `dst`) with sequence number `seq`
    /// arrived: appends to `out`, in order, the messages now released for
    /// matching (none if a predecessor is missing; `m` and the held
    /// successors it unblocks otherwise).
    pub(super) fn arrived(&mut self, src: u32, dst: u32, seq: u32, m: u32, out: &mut Vec<u32>) {
        let key = (src, dst);
        if self.held.is_empty() || !self.held.contains_key(&key) {
            // Nothing held for the pair (the common case): one lookup.
            let slot = &mut self.slots[dst as usize];
            if slot.src == src {
                if seq == slot.c.released {
                    slot.c.released += 1;
                    out.push(m);
                    if slot.c.idle() {
                        *slot = FREE_SLOT;
                    }
                    return;
                }
            } else if let Some(c) = self.pairs.get_mut(key) {
                if seq == c.released {
                    c.released += 1;
                    out.push(m);
                    if c.idle() {
                        self.pairs.remove(key);
                    }
                    return;
                }
            }
        }
        if seq != self.counters(src, dst).released {
            self.held.entry(key).or_default().push((seq, m));
            return;
        }
        let mut next = Some(m);
        while let Some(m) = next {
            out.push(m);
            let c = self.counters(src, dst);
            c.released += 1;
            let (want, done) = (c.released, c.idle());
            next = None;
            if !self.held.is_empty() {
                if let Some(h) = self.held.get_mut(&key) {
                    next = h
                        .iter()
                        .position(|x| x.0 == want)
                        .map(|i| h.swap_remove(i).1);
                    if h.is_empty() {
                        self.held.remove(&key);
                    }
                }
            }
            if next.is_none() && done {
                let slot = &mut self.slots[dst as usize];
                if slot.src == src {
                    *slot = FREE_SLOT;
                } else {
                    self.pairs.remove(key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any delivery order of any interleaving of pairs releases each
    /// pair's messages in send order, each exactly once.
    #[test]
    fn releases_in_send_order_whatever_the_delivery_order() {
        use sim_core::rand::{Rng, seq::SliceRandom};
        let mut rng = sim_core::RngStreams::new(7).stream("order");
        for _ in 0..200 {
            let mut o = Order::new(4);
            // Messages: (src, dst, seq, id).
            let mut msgs = Vec::new();
            for id in 0..rng.random_range(1..40u32) {
                let (src, dst) = (rng.random_range(0..4u32), rng.random_range(0..4u32));
                let seq = o.next_seq(src, dst);
                msgs.push((src, dst, seq, id));
            }
            let mut order = msgs.clone();
            order.shuffle(&mut rng);
            let mut out = Vec::new();
            for &(src, dst, seq, id) in &order {
                o.arrived(src, dst, seq, id, &mut out);
            }
            assert_eq!(out.len(), msgs.len());
            for (s, d) in [(0, 0), (1, 2), (3, 1), (2, 2)] {
                let want: Vec<u32> = msgs
                    .iter()
                    .filter(|x| (x.0, x.1) == (s, d))
                    .map(|x| x.3)
                    .collect();
                let got: Vec<u32> = out
                    .iter()
                    .copied()
                    .filter(|id| {
                        let x = msgs[*id as usize];
                        (x.0, x.1) == (s, d)
                    })
                    .collect();
                assert_eq!(got, want);
            }
            assert!(o.pairs.is_empty() && o.held.is_empty());
            assert!(o.slots.iter().all(|s| s.src == FREE));
        }
    }
}
