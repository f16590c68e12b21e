//! A node's memory as the shared-memory path between ranks of one node:
//! a processor-sharing server of fixed copy bandwidth, shared max-min
//! fairly by the copies in progress, each capped at its own rate.
//!
//! With one shared resource max-min fairness is water-filling: copies in
//! order of their cap take `min(cap, left / copies left)`. Rates are whole
//! bytes per second and progress is exact integer arithmetic (bytes x
//! 10^12 against rate x picoseconds), so a copy alone at its cap ends at
//! exactly `transfer_time(bytes, cap)`: the calibration contract holds
//! through shared memory too. Work per start or end is linear in the
//! node's copies in progress (a handful: each process's port lets one
//! message at a time leave at its rate).

use crate::op::MsgId;
use sim_core::{PS_PER_SEC, Time};

#[derive(Clone, Copy, Debug)]
struct Copy {
    msg: MsgId,
    /// Work left \[bytes x 10^12\].
    left: u128,
    /// Highest rate \[bytes/s\].
    cap: u64,
    /// Current rate \[bytes/s\].
    rate: u64,
}

/// One node's memory.
#[derive(Debug)]
pub(super) struct NodeMemory {
    bandwidth: u64,
    /// Copies in progress, by cap (ties: by start).
    copies: Vec<Copy>,
    last: Time,
    /// Bumped at every change; a completion event of an older version is
    /// stale.
    pub version: u32,
}

impl NodeMemory {
    /// A memory of `bandwidth` bytes/s.
    pub(super) fn new(bandwidth: u64) -> Self {
        NodeMemory {
            bandwidth,
            copies: Vec::new(),
            last: Time::ZERO,
            version: 0,
        }
    }

    fn advance(&mut self, now: Time) {
        let dt = (now - self.last).as_ps() as u128;
        if dt > 0 {
            for c in &mut self.copies {
                c.left = c.left.saturating_sub(c.rate as u128 * dt);
            }
        }
        self.last = now;
    }

    fn reshare(&mut self) {
        let (mut left, mut n) = (self.bandwidth, self.copies.len() as u64);
        for c in &mut self.copies {
            c.rate = c.cap.min(left / n).max(1);
            left = left.saturating_sub(c.rate);
            n -= 1;
        }
    }

    /// When the next copy ends, with the version to stamp its event.
    fn next(&mut self, now: Time) -> Option<(Time, u32)> {
        self.version = self.version.wrapping_add(1);
        let dt = self
            .copies
            .iter()
            .map(|c| c.left.div_ceil(c.rate as u128))
            .min()?;
        Some((
            now.saturating_add(Time::from_ps(u64::try_from(dt).unwrap_or(u64::MAX))),
            self.version,
        ))
    }

    /// Starts a copy of `bytes` for message `msg` at no more than `cap`
    /// bytes/s; returns the next completion to schedule.
    pub(super) fn start(
        &mut self,
        now: Time,
        msg: MsgId,
        bytes: u64,
        cap: u64,
    ) -> Option<(Time, u32)> {
        self.advance(now);
        let c = Copy {
            msg,
            left: bytes as u128 * PS_PER_SEC as u128,
            cap: cap.max(1),
            rate: 0,
        };
        let at = self.copies.partition_point(|x| x.cap <= c.cap);
        self.copies.insert(at, c);
        self.reshare();
        self.next(now)
    }

    /// The completion event of `version` fired: pushes the finished copies'
    /// messages to `out` (in cap order) and returns the next completion;
    /// `None` and nothing done if the event is stale.
    pub(super) fn done(
        &mut self,
        now: Time,
        version: u32,
        out: &mut Vec<MsgId>,
    ) -> Option<(Time, u32)> {
        if version != self.version {
            return None;
        }
        self.advance(now);
        self.copies.retain(|c| {
            let finished = c.left == 0;
            if finished {
                out.push(c.msg);
            }
            !finished
        });
        self.reshare();
        self.next(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{Bandwidth, transfer_time};

    #[test]
    fn alone_a_copy_takes_transfer_time_exactly() {
        let mut m = NodeMemory::new(100_000_000_000);
        let (t, v) = m
            .start(Time::from_ns(5), MsgId(7), 8192, 6_200_000_000)
            .unwrap();
        assert_eq!(
            t,
            Time::from_ns(5) + transfer_time(8192, Bandwidth::bytes_per_sec(6_200_000_000))
        );
        let mut out = Vec::new();
        assert_eq!(m.done(t, v, &mut out), None);
        assert_eq!(out, vec![MsgId(7)]);
    }

    #[test]
    fn copies_share_the_bandwidth_max_min() {
        // 10 GB/s memory; caps 2, 6 and 6 GB/s: the 2 GB/s copy keeps its
        // cap, the other two share the remaining 8 GB/s.
        let mut m = NodeMemory::new(10_000_000_000);
        m.start(Time::ZERO, MsgId(0), 4_000_000_000, 2_000_000_000);
        m.start(Time::ZERO, MsgId(1), 4_000_000_000, 6_000_000_000);
        let (t, v) = m
            .start(Time::ZERO, MsgId(2), 8_000_000_000, 6_000_000_000)
            .unwrap();
        // Copy 1 (4 GB at 4 GB/s) ends after 1 s.
        assert_eq!(t, Time::from_secs_f64(1.0));
        let mut out = Vec::new();
        let (t, v) = m.done(t, v, &mut out).unwrap();
        assert_eq!(out, vec![MsgId(1)]);
        // Then copy 2 has 4 GB left at 6 GB/s (cap), copy 0 2 GB at 2 GB/s:
        // both end 1 s later... copy 2 at 4/6 s, copy 0 at 1 s.
        assert_eq!(t, Time::from_ps(1_666_666_666_667));
        out.clear();
        let (t, v) = m.done(t, v, &mut out).unwrap();
        assert_eq!(out, vec![MsgId(2)]);
        out.clear();
        // A stale version does nothing.
        assert_eq!(m.done(t, v.wrapping_sub(1), &mut out), None);
        assert!(out.is_empty());
        assert_eq!(m.done(t, v, &mut out), None);
        assert_eq!(out, vec![MsgId(0)]);
        assert_eq!(t, Time::from_secs_f64(2.0));
    }
}
