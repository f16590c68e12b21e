use super::*;

/// A queue that fills one instant, empties and fills again (the steps
/// of a collective) reuses the front's room instead of growing it
/// anew each time; the buckets give theirs back.
#[test]
fn stale_entries_do_not_switch_the_store() {
    // Live events between `TO_HEAP` and `TO_RADIX`, and more stale
    // entries than that: the store follows the live count, so the
    // heap stays a heap while it holds more than `TO_RADIX` entries.
    let mut q = EventQueue::new();
    let n = (TO_HEAP + TO_RADIX) / 2;
    let ids: Vec<_> = (0..n as u64)
        .map(|i| q.schedule(Time::from_ns(1000 + i), i))
        .collect();
    for (i, &id) in ids.iter().enumerate() {
        assert!(q.reschedule(id, Time::from_ns(2000 + i as u64)));
    }
    assert!(q.heap.len() > TO_RADIX);
    assert!(!q.radix, "{} live events made a radix heap", q.len());
    for i in 0..n as u64 {
        assert_eq!(q.pop().map(|e| e.2), Some(i));
    }
    assert!(q.is_empty());
}

#[test]
fn refill_reuses_the_front() {
    let mut q = EventQueue::new();
    let n = 8 * TO_RADIX;
    let mut room = 0;
    for step in 0..3u64 {
        for i in 0..n as u64 {
            q.post(Time::from_ns(step * 10 + 1), i);
        }
        for i in 0..n as u64 {
            assert_eq!(q.pop().map(|e| e.2), Some(i));
        }
        assert!(!q.radix && q.is_empty());
        assert!(q.front.capacity() >= n);
        assert!(q.buckets.iter().all(|b| b.capacity() <= KEEP_CAPACITY));
        if step > 0 {
            assert_eq!(q.front.capacity(), room, "the front grew again");
        }
        room = q.front.capacity();
    }
}

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

/// A freed slot is reused under a new generation: the old handle is
/// dead and cannot touch the new event.
#[test]
fn handles_of_reused_slots_stay_dead() {
    let mut q = EventQueue::new();
    let a = q.schedule(Time::from_ns(1), 'a');
    assert_eq!(q.pop().map(|(_, id, e)| (id, e)), Some((Some(a), 'a')));
    let b = q.schedule(Time::from_ns(2), 'b');
    assert_ne!(a, b);
    assert_eq!(a.slot(), b.slot(), "the slot was reused");
    assert_eq!(q.cancel(a), None);
    assert!(!q.reschedule(a, Time::from_ns(9)));
    assert_eq!(q.time_of(a), None);
    assert_eq!(q.time_of(b), Some(Time::from_ns(2)));
    assert_eq!(q.pop().map(|(_, id, e)| (id, e)), Some((Some(b), 'b')));
}

/// Times before the last pop (which the engine forbids) still come out
/// first and in order.
#[test]
fn keys_below_the_last_pop_come_first() {
    let mut q = EventQueue::new();
    q.post(Time::from_ns(10), 10);
    q.post(Time::from_ns(20), 20);
    assert_eq!(q.pop().unwrap().2, 10);
    q.post(Time::from_ns(3), 3);
    let h = q.schedule(Time::from_ns(2), 2);
    q.post(Time::from_ns(15), 15);
    assert_eq!(q.peek_time(), Some(Time::from_ns(2)));
    assert!(q.reschedule(h, Time::from_ns(4)));
    let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|(_, _, e)| e).collect();
    assert_eq!(order, vec![3, 2, 15, 20]);
}

/// Stale entries of moved events are dropped once they outnumber the
/// live ones: memory follows the pending events, not the history.
#[test]
fn stale_entries_are_compacted() {
    let mut q = EventQueue::new();
    let ids: Vec<EventId> = (0..10)
        .map(|i| q.schedule(Time::from_ns(1_000 + i), i))
        .collect();
    for round in 0..10_000u64 {
        for &id in &ids {
            assert!(q.reschedule(id, Time::from_ns(2_000 + round)));
        }
    }
    let held: usize = q.buckets.iter().map(Vec::len).sum::<usize>() + q.front.len() + q.heap.len();
    assert!(held <= 2 * 1024 + 10, "{held} entries held for 10 events");
    assert_eq!(q.len(), 10);
    let order: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|(_, _, e)| e).collect();
    assert_eq!(order, (0..10).collect::<Vec<_>>());
    assert_eq!(q.stale, 0);
}

/// Cancels that trigger a compaction leave the stale count equal to
/// the stale entries held (each is popped past exactly once).
#[test]
fn cancels_compact_and_count_right() {
    for n in [100u64, 3_000, 20_000] {
        let mut q = EventQueue::new();
        let ids: Vec<EventId> = (0..n).map(|i| q.schedule(Time::from_ns(i), i)).collect();
        for (i, &id) in ids.iter().enumerate() {
            if i % 4 != 0 {
                assert_eq!(q.cancel(id), Some(i as u64));
            }
        }
        let held: usize =
            q.buckets.iter().map(Vec::len).sum::<usize>() + q.front.len() + q.heap.len();
        assert_eq!(held, q.len() + q.stale, "n = {n}");
        let order: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|(_, _, e)| e).collect();
        assert_eq!(order, (0..n).step_by(4).collect::<Vec<_>>());
        assert_eq!(q.stale, 0);
    }
}

/// Extremes of the key: time zero and `Time::MAX` (bucket 64), and a
/// peek that has to skip a bucket of stale entries.
#[test]
fn extreme_times_and_stale_buckets() {
    let mut q = EventQueue::new();
    q.post(Time::ZERO, 0u32);
    let far = q.schedule(Time::MAX, 1);
    let mid = q.schedule(Time::from_ns(7), 2);
    assert_eq!(q.pop().unwrap().2, 0);
    assert_eq!(q.cancel(mid), Some(2));
    assert_eq!(q.peek_time(), Some(Time::MAX));
    assert_eq!(q.pop(), Some((Time::MAX, Some(far), 1)));
    assert!(q.is_empty());
    assert_eq!(q.peek_time(), None);
    assert!(q.pop().is_none());
}
