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
//!
//! Partitions of a torus (logical processes, LPs, grouped):
//! `node` (every host and every router its own LP), `router` (a Gemini
//! with its nodes), `block` (2x2x2 routers with their nodes), `half`
//! (the torus cut in two across its longest dimension).

use super::suite::{amg, halo27, per_gemini, timed};
use mpi_layer::MpiParams;
use scenarios::workloads::{Collective, collective, grid_dims, random_pairs};
use sim_core::{EventId, Schedule, Time};
use std::cell::RefCell;
use std::rc::Rc;
use topology::{
    Delivery, Machine, Mapping, Mode, NetConfig, Network, NodeId, PacketEvent, PacketNet,
    Placement, TorusParams, Transfer, Transport,
};

/// The partition schemes measured.
pub const SCHEMES: [&str; 4] = ["node", "router", "block", "half"];

/// The workloads measured (torus workloads of `netsim bench`).
pub const WORKLOADS: [&str; 5] = [
    "alltoall-torus",
    "halo27-512",
    "random-pairs",
    "amg-spmv",
    "halo27",
];

/// Partition of every vertex of `m` (a torus) under `scheme`.
pub fn partition(m: &Machine, scheme: &str) -> Result<Vec<u32>, String> {
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
struct Tally {
    cross: Vec<u64>,
    local: u64,
}

/// The packet model, recording where its events go.
pub struct Probe {
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

/// One workload under one partition scheme: the run's figures and the
/// distances of the events that crossed.
pub struct Measured {
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

fn probe_of(net: Network, scheme: &str) -> Result<(Probe, Rc<RefCell<Tally>>, u32), String> {
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
pub fn measure(name: &str, scheme: &str) -> Result<Measured, String> {
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
                .map_err(|e| e.to_string())?;
            let nodes: Vec<NodeId> = (0..m.nodes()).map(NodeId).collect();
            let pl = Placement::map(p, &nodes, 1, 1, Mapping::Block).map_err(|e| e.to_string())?;
            let net =
                Network::new(m, NetConfig::with_mode(Mode::Packet)).map_err(|e| e.to_string())?;
            (pl, net, random_pairs(p, 100, 64 << 10, 1))
        }
        "amg-spmv" => {
            let p = 8192;
            let (pl, net, list) = amg(p, &format!("P{p}-level2-spmv.csv"), Mode::Packet)?;
            let (probe, tally, parts) = probe_of(net, scheme)?;
            let r = mpi_layer::run(pl, probe, list.programs(), bw()).map_err(|e| e.to_string())?;
            return Ok(finish(r.events, r.makespan, tally, parts));
        }
        _ => {
            return Err(format!(
                "unknown workload `{name}` ({})",
                WORKLOADS.join(", ")
            ));
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

/// Prints one row per workload and scheme.
pub fn report(workloads: &[String], schemes: &[String]) -> Result<(), String> {
    println!(
        "cross-partition event distances, packet model (cut-through, 4 KiB packets), Blue Waters torus"
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
        }
    }
    Ok(())
}
