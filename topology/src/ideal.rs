//! The ideal network: every pair of nodes is joined by a private wire of
//! fixed latency and bandwidth, so transfers never contend.
//!
//! This is the network of the postal, LogP and LogGP models (the machine
//! those closed forms assume), used by the validation suite to check the
//! MPI layer against them exactly, and by what-if studies that want to
//! switch contention off. A transfer of `s` bytes takes
//! `latency + s / min(bandwidth, rate_cap)`; without a bandwidth limit and
//! a rate cap it takes `latency` alone (LogGP's network, whose bytes are
//! charged at the endpoints).

use crate::transport::{Delivery, NodeId, Transfer, Transport};
use sim_core::{Bandwidth, Schedule, Time, transfer_time};

/// Parameters and state of the ideal network.
#[derive(Clone, Debug)]
pub struct IdealNetwork {
    nodes: u32,
    /// Wire latency between any two nodes \[time\].
    pub latency: Time,
    /// Bandwidth of every wire [bytes/s]; `None`: unlimited.
    pub bandwidth: Option<Bandwidth>,
}

/// The ideal network's only event: a transfer arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrive(pub u64);

impl IdealNetwork {
    /// `nodes` nodes joined pairwise by wires of `latency` and `bandwidth`.
    pub fn new(nodes: u32, latency: Time, bandwidth: Bandwidth) -> Self {
        IdealNetwork {
            nodes,
            latency,
            bandwidth: Some(bandwidth),
        }
    }

    /// `nodes` nodes joined pairwise by wires of `latency` and no
    /// bandwidth limit.
    pub fn unlimited(nodes: u32, latency: Time) -> Self {
        IdealNetwork {
            nodes,
            latency,
            bandwidth: None,
        }
    }
}

impl Transport for IdealNetwork {
    type Event = Arrive;

    fn nodes(&self) -> u32 {
        self.nodes
    }

    fn start(&mut self, sched: &mut impl Schedule<Arrive>, t: Transfer, _out: &mut Vec<Delivery>) {
        let d = self.idle_time(t.src, t.dst, t.bytes, t.rate_cap);
        sched.post_in(d, Arrive(t.token));
    }

    fn handle(&mut self, sched: &mut impl Schedule<Arrive>, ev: Arrive, out: &mut Vec<Delivery>) {
        out.push(Delivery {
            token: ev.0,
            at: sched.now(),
        });
    }

    fn idle_time(
        &self,
        _src: NodeId,
        _dst: NodeId,
        bytes: u64,
        rate_cap: Option<Bandwidth>,
    ) -> Time {
        let rate = match (rate_cap, self.bandwidth) {
            (Some(c), Some(b)) => Some(c.min(b)),
            (c, b) => c.or(b),
        };
        self.latency + rate.map_or(Time::ZERO, |r| transfer_time(bytes, r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{EventQueue, Scheduler};

    #[test]
    fn delivers_after_latency_plus_serialization() {
        let mut net = IdealNetwork::new(
            4,
            Time::from_ns(1000),
            Bandwidth::bytes_per_sec(1_000_000_000),
        );
        let mut q = EventQueue::new();
        let mut out = vec![];
        let t = Transfer {
            src: NodeId(0),
            dst: NodeId(1),
            bytes: 1000,
            rate_cap: Some(Bandwidth::bytes_per_sec(500_000_000)),
            token: 7,
        };
        net.start(&mut Scheduler::new(&mut q, Time::ZERO), t, &mut out);
        let (at, _, ev) = q.pop().unwrap();
        // 1 us latency + 1000 B at the 0.5 GB/s cap = 2 us.
        assert_eq!(at, Time::from_ns(3000));
        net.handle(&mut Scheduler::new(&mut q, at), ev, &mut out);
        assert_eq!(out, vec![Delivery { token: 7, at }]);
    }
}
