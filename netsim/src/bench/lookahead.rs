//! `netsim bench lookahead`: how far ahead of the present the events that
//! cross a partition of the machine are scheduled, on the benchmark
//! workloads, for the design note on running one simulation on many cores
//! (`docs/PARALLEL.md`).
//!
//! The packet model runs behind [`Probe`], a [`Transport`] that forwards
//! everything to the real [`PacketNet`] and records, for every event the
//! transport schedules, the partition where it is scheduled (that of the
//! event being handled, or of the sending node for a start) and the
//! partition where it will be handled ([`PacketNet::event_vertex`]), and
//! the time distance `at - now`. MPI-layer events stay on their rank's
//! node, so they never cross. Nothing here runs in a normal simulation.
//! The ideal network (the `allreduce` bench workload) runs behind
//! [`IdealProbe`] the same way: its one event, an arrival, is scheduled
//! on the sending node and handled on the receiving one.
//!
//! Partitions of a torus (logical processes, LPs, grouped):
//! `node` (every host and every router its own LP), `router` (a Gemini
//! with its nodes), `block` (2x2x2 routers with their nodes), `half`
//! (the torus cut in two across its longest dimension). Of the ideal
//! network's nodes, in node order: `node` (one each), `router` (2, as a
//! Gemini's), `block` (16, as 2x2x2 Geminis' nodes), `half` (two halves).

use super::workloads::{Counted, amg, halo27, ideal, per_gemini, timed};
use crate::cli::CliError;
use mpi_layer::MpiParams;
use scenarios::workloads::{Collective, collective, grid_dims, random_pairs};
use sim_core::{Bandwidth, EventId, Schedule, Time};
use std::cell::RefCell;
use std::rc::Rc;
use topology::{
    Delivery, IdealNetwork, Machine, Mapping, Mode, NetConfig, Network, NodeId, PacketEvent,
    PacketNet, Placement, TorusParams, Transfer, Transport,
};

/// The partition schemes measured.
pub(crate) const SCHEMES: [&str; 4] = ["node", "router", "block", "half"];

/// The workloads measured: the torus workloads of `netsim bench`, the
/// bench's `allreduce` (ideal network; at P = 65 536 here) and the same
/// allreduce on the packet model, one rank per Gemini of an 8x8x8 torus.
pub(crate) const WORKLOADS: [&str; 7] = [
    "alltoall-torus",
    "halo27-512",
    "random-pairs",
    "amg-spmv",
    "halo27",
    "allreduce",
    "allreduce-torus",
];

/// Ranks of the `allreduce` lookahead workload (16 per node: 4096 nodes).
pub(crate) const ALLREDUCE_RANKS: u32 = 65_536;

/// Partition of the ideal network's `nodes` nodes under `scheme` (groups
/// of consecutive nodes, see the module doc).
pub(crate) fn node_partition(nodes: u32, scheme: &str) -> Vec<u32> {
    let group = match scheme {
        "node" => 1,
        "router" => 2,
        "block" => 16,
        _ => nodes.div_ceil(2).max(1),
    };
    (0..nodes).map(|v| v / group).collect()
}

/// Partition of every vertex of `m` (a torus) under `scheme`.
pub(crate) fn partition(m: &Machine, scheme: &str) -> Result<Vec<u32>, CliError> {
    let t = m
        .torus()
        .ok_or_else(|| "the lookahead measurement needs a torus machine".to_string())?;
    let hosts = m.nodes();
    let nv = m.vertices().len() as u32;
    let dims = t.dims();
    let router_of = |v: u32| {
        if v < hosts {
            t.router_of(NodeId(v))
        } else {
            v - hosts
        }
    };
    // Routers are the vertices after the hosts, in router-index order.
    if let Some(l) = t.port_link(0, 0) {
        if m.link(l).from != hosts {
            return Err("unexpected vertex numbering of the torus".into());
        }
    }
    let longest = (0..3).max_by_key(|&d| (dims[d], d)).expect("three dims");
    Ok((0..nv)
        .map(|v| match scheme {
            "node" => v,
            "router" => router_of(v),
            "block" => {
                let c = t.coords(router_of(v));
                let b = [dims[0].div_ceil(2), dims[1].div_ceil(2)];
                c[0] / 2 + b[0] * (c[1] / 2 + b[1] * (c[2] / 2))
            }
            _ => (t.coords(router_of(v))[longest] * 2 / dims[longest]).min(1),
        })
        .collect())
}

/// Distances (ps) of the events one run scheduled, split by whether they
/// cross partitions.
#[derive(Default)]
pub(crate) struct Tally {
    cross: Vec<u64>,
    local: u64,
}

/// The packet model, recording where its events go.
pub(crate) struct Probe {
    net: PacketNet,
    part: Vec<u32>,
    cur: u32,
    log: Vec<(Time, PacketEvent)>,
    /// Shared with the caller, which gets it back after the run consumed
    /// the transport.
    tally: Rc<RefCell<Tally>>,
}

/// The scheduler handed to the packet model: forwards, and logs.
struct Rec<'a, S> {
    inner: &'a mut S,
    log: &'a mut Vec<(Time, PacketEvent)>,
}

impl<S: Schedule<PacketEvent>> Schedule<PacketEvent> for Rec<'_, S> {
    fn now(&self) -> Time {
        self.inner.now()
    }
    fn schedule_at(&mut self, at: Time, event: PacketEvent) -> EventId {
        self.log.push((at, event));
        self.inner.schedule_at(at, event)
    }
    fn post_at(&mut self, at: Time, event: PacketEvent) {
        self.log.push((at, event));
        self.inner.post_at(at, event)
    }
    fn cancel(&mut self, id: EventId) -> bool {
        self.inner.cancel(id)
    }
    fn reschedule(&mut self, id: EventId, at: Time) -> bool {
        self.inner.reschedule(id, at)
    }
}

impl Probe {
    /// Classifies the events logged while handling one event at `now`.
    fn flush(&mut self, now: Time) {
        let mut tally = self.tally.borrow_mut();
        for (at, ev) in self.log.drain(..) {
            let to = self.part[self.net.event_vertex(&ev) as usize];
            if to != self.cur {
                tally.cross.push((at - now).as_ps());
            } else {
                tally.local += 1;
            }
        }
    }
}

impl Counted for Probe {}

impl Transport for Probe {
    type Event = PacketEvent;

    fn nodes(&self) -> u32 {
        self.net.nodes()
    }

    fn start(
        &mut self,
        sched: &mut impl Schedule<PacketEvent>,
        t: Transfer,
        out: &mut Vec<Delivery>,
    ) {
        let now = sched.now();
        self.cur = self.part[t.src.0 as usize];
        let mut rec = Rec {
            inner: sched,
            log: &mut self.log,
        };
        self.net.start(&mut rec, t, out);
        self.flush(now);
    }

    fn handle(
        &mut self,
        sched: &mut impl Schedule<PacketEvent>,
        ev: PacketEvent,
        out: &mut Vec<Delivery>,
    ) {
        let now = sched.now();
        self.cur = self.part[self.net.event_vertex(&ev) as usize];
        let mut rec = Rec {
            inner: sched,
            log: &mut self.log,
        };
        self.net.handle(&mut rec, ev, out);
        self.flush(now);
    }

    fn idle_time(
        &self,
        src: NodeId,
        dst: NodeId,
        bytes: u64,
        rate_cap: Option<sim_core::Bandwidth>,
    ) -> Time {
        self.net.idle_time(src, dst, bytes, rate_cap)
    }
}

/// The ideal network, recording where its arrivals go: scheduled on the
/// sending node's partition, handled on the receiving node's.
pub(crate) struct IdealProbe {
    net: IdealNetwork,
    part: Vec<u32>,
    tally: Rc<RefCell<Tally>>,
}

impl Counted for IdealProbe {}

impl Transport for IdealProbe {
    type Event = <IdealNetwork as Transport>::Event;

    fn nodes(&self) -> u32 {
        self.net.nodes()
    }

    fn start(
        &mut self,
        sched: &mut impl Schedule<Self::Event>,
        t: Transfer,
        out: &mut Vec<Delivery>,
    ) {
        let d = self.net.idle_time(t.src, t.dst, t.bytes, t.rate_cap);
        let mut tally = self.tally.borrow_mut();
        if self.part[t.src.0 as usize] != self.part[t.dst.0 as usize] {
            tally.cross.push(d.as_ps());
        } else {
            tally.local += 1;
        }
        drop(tally);
        self.net.start(sched, t, out);
    }

    fn handle(
        &mut self,
        sched: &mut impl Schedule<Self::Event>,
        ev: Self::Event,
        out: &mut Vec<Delivery>,
    ) {
        self.net.handle(sched, ev, out);
    }

    fn idle_time(&self, src: NodeId, dst: NodeId, bytes: u64, rate_cap: Option<Bandwidth>) -> Time {
        self.net.idle_time(src, dst, bytes, rate_cap)
    }
}

/// One workload under one partition scheme: the run's figures and the
/// distances of the events that crossed.
pub(crate) struct Measured {
    /// Engine events of the whole run (MPI layer included).
    pub events: u64,
    /// Events the packet model scheduled.
    pub transport_events: u64,
    /// Makespan.
    pub makespan: Time,
    /// Partitions.
    pub parts: u32,
    /// Sorted distances (ps) of the events that crossed partitions.
    pub cross: Vec<u64>,
}

fn probe_of(net: Network, scheme: &str) -> Result<(Probe, Rc<RefCell<Tally>>, u32), CliError> {
    let Network::Packet(net) = net else {
        return Err("the lookahead measurement runs the packet model".into());
    };
    let part = partition(net.machine(), scheme)?;
    let parts = part.iter().max().map_or(0, |&m| m + 1);
    let tally = Rc::new(RefCell::new(Tally::default()));
    let probe = Probe {
        net,
        part,
        cur: 0,
        log: Vec::new(),
        tally: tally.clone(),
    };
    Ok((probe, tally, parts))
}

/// Runs `name` (one of [`WORKLOADS`]) in the packet model with `scheme`.
pub(crate) fn measure(name: &str, scheme: &str) -> Result<Measured, CliError> {
    let bw = MpiParams::blue_waters;
    let (pl, net, progs) = match name {
        "alltoall-torus" | "halo27-512" | "halo27" => {
            let p = if name == "halo27" { 4096 } else { 512 };
            let (pl, net) = per_gemini(p, Mode::Packet)?;
            let progs = if name == "alltoall-torus" {
                collective(Collective::Alltoall, p, 1024, 1)
            } else {
                halo27(p, 10).programs()
            };
            (pl, net, progs)
        }
        "random-pairs" => {
            let p = 1024;
            let m = TorusParams::blue_waters_dims(grid_dims(p / 2))
                .build()
                .map_err(CliError::input)?;
            let nodes: Vec<NodeId> = (0..m.nodes()).map(NodeId).collect();
            let pl = Placement::map(p, &nodes, 1, 1, Mapping::Block).map_err(CliError::input)?;
            let net =
                Network::new(m, NetConfig::with_mode(Mode::Packet)).map_err(CliError::input)?;
            (pl, net, random_pairs(p, 100, 64 << 10, 1))
        }
        "allreduce" => {
            let p = ALLREDUCE_RANKS;
            let nodes = p.div_ceil(16);
            let net = ideal(nodes);
            let part = node_partition(nodes, scheme);
            let parts = part.iter().max().map_or(0, |&m| m + 1);
            let tally = Rc::new(RefCell::new(Tally::default()));
            let probe = IdealProbe {
                net,
                part,
                tally: tally.clone(),
            };
            let progs = collective(Collective::Allreduce, p, 8, 1);
            let f = timed(Placement::block(p, 16, 2), probe, progs, bw())?;
            return Ok(finish(f.events, f.makespan, tally, parts));
        }
        "allreduce-torus" => {
            let p = 512;
            let (pl, net) = per_gemini(p, Mode::Packet)?;
            (pl, net, collective(Collective::Allreduce, p, 8, 1))
        }
        "amg-spmv" => {
            let p = 8192;
            let (pl, net, list) = amg(p, &format!("P{p}-level2-spmv.csv"), Mode::Packet)?;
            let (probe, tally, parts) = probe_of(net, scheme)?;
            let r = mpi_layer::run(pl, probe, list.programs(), bw()).map_err(CliError::input)?;
            return Ok(finish(r.events, r.makespan, tally, parts));
        }
        _ => {
            return Err(CliError::input(format!(
                "unknown workload `{name}` ({})",
                WORKLOADS.join(", ")
            )));
        }
    };
    let (probe, tally, parts) = probe_of(net, scheme)?;
    let f = timed(pl, probe, progs, bw())?;
    Ok(finish(f.events, f.makespan, tally, parts))
}

fn finish(events: u64, makespan: Time, tally: Rc<RefCell<Tally>>, parts: u32) -> Measured {
    let t = std::mem::take(&mut *tally.borrow_mut());
    let mut cross = t.cross;
    cross.sort_unstable();
    Measured {
        events,
        transport_events: cross.len() as u64 + t.local,
        makespan,
        parts,
        cross,
    }
}

/// Counts of `sorted` distances (ps) per power-of-two bin of
/// nanoseconds: bin 0 is `[0, 1)` ns, bin `k` is `[2^(k-1), 2^k)` ns.
pub(crate) fn octaves(sorted: &[u64]) -> Vec<(u64, u64, u64)> {
    let mut bins: Vec<(u64, u64, u64)> = Vec::new();
    for &d in sorted {
        let k = 64 - (d / 1000).leading_zeros();
        let (lo, hi) = if k == 0 {
            (0, 1)
        } else {
            (1u64 << (k - 1), 1u64 << k)
        };
        match bins.last_mut() {
            Some(b) if b.0 == lo => b.2 += 1,
            _ => bins.push((lo, hi, 1)),
        }
    }
    bins
}

/// Prints one row per workload and scheme; with `histogram`, each row is
/// followed by the distances' counts per power-of-two bin of nanoseconds.
pub(crate) fn report(
    workloads: &[String],
    schemes: &[String],
    histogram: bool,
) -> Result<(), CliError> {
    println!(
        "cross-partition event distances: packet model (cut-through, 4 KiB packets) on a Blue Waters torus; `allreduce`: the ideal network (500 ns, 100 GB/s)"
    );
    println!(
        "{:<15} {:>7} {:>6} {:>11} {:>11} {:>7} {:>9} {:>9} {:>9} {:>9} {:>10} {:>12}",
        "workload",
        "scheme",
        "parts",
        "events",
        "net events",
        "cross%",
        "min [ns]",
        "p1 [ns]",
        "p50 [ns]",
        "p99 [ns]",
        "windows",
        "events/win"
    );
    for w in workloads {
        for s in schemes {
            let m = measure(w, s)?;
            let q = |f: f64| {
                if m.cross.is_empty() {
                    f64::NAN
                } else {
                    let i = ((m.cross.len() - 1) as f64 * f).round() as usize;
                    m.cross[i] as f64 / 1e3
                }
            };
            // Conservative windows as wide as the smallest crossing
            // distance: how many, and how many events each holds.
            let la = m.cross.first().copied().unwrap_or(0);
            let windows = if la > 0 {
                m.makespan.as_ps().div_ceil(la)
            } else {
                0
            };
            println!(
                "{:<15} {:>7} {:>6} {:>11} {:>11} {:>7.2} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>10} {:>12.1}",
                w,
                s,
                m.parts,
                m.events,
                m.transport_events,
                100.0 * m.cross.len() as f64 / m.transport_events.max(1) as f64,
                q(0.0),
                q(0.01),
                q(0.5),
                q(0.99),
                windows,
                m.events as f64 / windows.max(1) as f64
            );
            if histogram {
                let n = m.cross.len().max(1) as f64;
                let bins: Vec<String> = octaves(&m.cross)
                    .iter()
                    .map(|&(lo, hi, c)| format!("[{lo},{hi}) {:.2}%", 100.0 * c as f64 / n))
                    .collect();
                println!("    ns: {}", bins.join("  "));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octaves_bin_by_powers_of_two_ns() {
        // 0.5 ns -> [0,1); 1 ns and 1.999 ns -> [1,2); 105 ns -> [64,128);
        // 128 ns -> [128,256).
        let d = [500, 1_000, 1_999, 105_000, 128_000];
        assert_eq!(
            octaves(&d),
            vec![(0, 1, 1), (1, 2, 2), (64, 128, 1), (128, 256, 1)]
        );
        assert!(octaves(&[]).is_empty());
    }

    #[test]
    fn node_groups() {
        assert_eq!(node_partition(4, "node"), vec![0, 1, 2, 3]);
        assert_eq!(node_partition(5, "router"), vec![0, 0, 1, 1, 2]);
        assert_eq!(node_partition(5, "half"), vec![0, 0, 0, 1, 1]);
        assert_eq!(node_partition(33, "block").last(), Some(&2));
    }

    /// Between Geminis, nothing crosses sooner than one router-to-router
    /// hop (105 ns, `GEMINI_HOP_LATENCY_NS`); the recursive-doubling
    /// allreduce of 512 ranks has 9 rounds of 512 messages, every one of
    /// them between two Geminis.
    #[test]
    fn torus_allreduce_crosses_no_sooner_than_a_hop() {
        let m = measure("allreduce-torus", "router").unwrap();
        assert_eq!(m.parts, 512);
        assert!(!m.cross.is_empty());
        assert_eq!(m.cross[0], 105_000, "the smallest distance is one hop");
        let whole = measure("allreduce-torus", "half").unwrap();
        assert_eq!(whole.parts, 2);
        assert!(whole.cross.len() < m.cross.len(), "coarser cuts cross less");
        assert_eq!(whole.events, m.events, "the probe does not change the run");
        assert_eq!(whole.makespan, m.makespan);
    }
}
