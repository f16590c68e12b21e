//! Open-loop synthetic traffic, the routing community's workload: every
//! host injects fixed-size packets straight into the transport
//! ([`topology::Network`], no MPI), by a Bernoulli process at an offered
//! load, to destinations a traffic pattern chooses; the run reports packet
//! latency and accepted throughput, and [`saturation`] finds the load at
//! which the network stops keeping up.
//!
//! # Units
//! A *cycle* is one packet's time on a host's injection link. The load
//! `λ` is a fraction of the machine's *capacity* ([`capacity`]): on a
//! torus the ideal throughput of uniform traffic, `8 b / k` per router
//! for rings of even size `k` and channel rate `b` (Dally & Towles,
//! *Principles and Practices of Interconnection Networks*, Sec. 3.3.1),
//! divided among the router's hosts and taken over the tightest
//! dimension; on other machines the injection rate. A host generates a
//! packet at each cycle boundary with probability `λ * capacity /
//! injection` (so `λ` above `injection / capacity` is refused).
//!
//! # Patterns
//! As Dally & Towles Table 3.2 and BookSim2 define them, over hosts
//! numbered `0..N` (bit patterns need `N` a power of two, transpose an
//! even number of address bits; tornado and neighbor need a torus, and
//! move the router's coordinates in every dimension, keeping the host's
//! place at its router). A packet whose pattern sends it to its own
//! source never enters the network: it counts as neither offered nor
//! accepted, as it loads no channel in the textbook's analysis.
//!
//! # Windows
//! `warmup_cycles` of warm-up, then `measure_cycles` of measurement:
//! packets generated in the measurement window are *measured*; offered
//! and accepted throughput are the packets generated and delivered in it
//! per host per cycle (in fraction of capacity). Injection goes on while
//! the measured packets drain, for at most `drain_cycles`; those still
//! undelivered then are counted, not timed.
//!
//! Randomness comes only from named streams of the scenario seed
//! ([`sim_core::RngStreams`]): `synthetic.inject` and `synthetic.dest`,
//! one per host, so a run is bit-identical for a seed.

use serde::{Deserialize, Serialize};
use sim_core::rng::{Rng, RngStreams, SimRng};
use sim_core::{Bandwidth, Engine, Model, Schedule, Scheduler, Time, transfer_time};
use topology::{
    Delivery, Machine, NetConfig, NetEvent, Network, NodeId, TorusGeom, Transfer, Transport,
};

/// A traffic pattern: who each host sends to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Every host equally likely, the source included (`λ_sd = 1/N`).
    Uniform,
    /// Address bits rotated by half: `d_i = s_{(i + b/2) mod b}`.
    Transpose,
    /// Every address bit flipped: `d_i = ¬s_i`.
    BitComplement,
    /// Address bits in reverse order: `d_i = s_{b-1-i}`.
    BitReverse,
    /// Address bits rotated left by one: `d_i = s_{(i-1) mod b}`.
    Shuffle,
    /// Torus: `⌈k/2⌉ - 1` routers the positive way in every dimension.
    Tornado,
    /// Torus: one router the positive way in every dimension.
    Neighbor,
    /// Host `hotspot_node` with probability `hotspot_fraction`, else
    /// uniform.
    Hotspot,
}

/// The offered load: a fraction of capacity, or the search for the
/// saturation throughput.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Load {
    /// Offered load, fraction of capacity.
    Fraction(f64),
    /// Find the saturation throughput ([`saturation`]).
    Saturation,
}

impl<'de> Deserialize<'de> for Load {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Load;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a fraction of capacity (e.g. 0.4) or \"saturation\"")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Load, E> {
                Ok(Load::Fraction(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Load, E> {
                Ok(Load::Fraction(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Load, E> {
                Ok(Load::Fraction(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Load, E> {
                match v {
                    "saturation" => Ok(Load::Saturation),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// What a synthetic run does (the `[workload]` fields of
/// `kind = "synthetic"`, defaults in `docs/SCENARIOS.md`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SyntheticParams {
    /// Destination pattern.
    pub pattern: Pattern,
    /// Offered load, fraction of capacity (for [`run`]).
    pub load: f64,
    /// Warm-up window \[cycles\].
    pub warmup_cycles: u64,
    /// Measurement window \[cycles\].
    pub measure_cycles: u64,
    /// Longest drain after the measurement window \[cycles\].
    pub drain_cycles: u64,
    /// The hot host (`hotspot`).
    pub hotspot_node: u32,
    /// Share of packets sent to the hot host (`hotspot`).
    pub hotspot_fraction: f64,
    /// Master seed.
    pub seed: u64,
}

impl Default for SyntheticParams {
    fn default() -> Self {
        SyntheticParams {
            pattern: Pattern::Uniform,
            load: 0.1,
            warmup_cycles: 2000,
            measure_cycles: 4000,
            drain_cycles: 20_000,
            hotspot_node: 0,
            hotspot_fraction: 0.1,
            seed: 1,
        }
    }
}

/// Packet latency over the measured packets delivered \[ps\].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LatencyPs {
    /// Mean.
    pub mean: f64,
    /// Median (nearest rank).
    pub p50: u64,
    /// 99th percentile (nearest rank).
    pub p99: u64,
}

/// The `synthetic` section of the JSON report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SyntheticReport {
    /// Pattern.
    pub pattern: Pattern,
    /// The load of the run reported, fraction of capacity (for
    /// `"saturation"`: the highest load found sustained).
    pub load: f64,
    /// Capacity per host \[bytes/s\] ([`capacity`]).
    pub capacity_bytes_per_s: f64,
    /// Packet size \[bytes\].
    pub packet_bytes: u64,
    /// One cycle \[ps\].
    pub cycle_ps: u64,
    /// Packets generated into the network per host per cycle in the
    /// measurement window, fraction of capacity.
    pub offered: f64,
    /// Packets delivered per host per cycle in the measurement window,
    /// fraction of capacity.
    pub accepted: f64,
    /// Latency of the measured packets, generation to delivery.
    pub latency_ps: LatencyPs,
    /// Packets generated in the measurement window.
    pub measured_packets: u64,
    /// Measured packets still undelivered at the end of the drain.
    pub undelivered: u64,
    /// The most any one link's queue grew over the measurement window,
    /// as a fraction of what the link carries in the window at its rate
    /// (packet mode; 0 in the flow model). Not in the JSON report.
    #[serde(skip)]
    pub worst_link_growth: f64,
    /// For `load = "saturation"`: the saturation throughput, fraction of
    /// capacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturation: Option<f64>,
    /// Simulated time at the end \[ps\].
    pub end_ps: u64,
    /// Engine events.
    pub events: u64,
}

/// Capacity per host \[bytes/s\]: on a torus the ideal uniform-traffic
/// throughput (Dally & Towles Sec. 3.3.1: `8 b / k` per router for a ring
/// of even size `k`, `8 b k / (k² - 1)` for odd `k`, from the average
/// ring distance), the smallest over the dimensions with `k >= 2`,
/// divided by the hosts per router; elsewhere (or on a torus of one
/// router) the injection rate of host 0.
pub fn capacity(m: &Machine) -> f64 {
    let inj = injection(m).as_f64();
    let Some(t) = m.torus() else {
        return inj;
    };
    let mut best = f64::INFINITY;
    for (d, &k) in t.dims().iter().enumerate() {
        let Some(l) = t.port_link(0, 2 * d as u32) else {
            continue;
        };
        let b = m.link(l).bandwidth.as_f64();
        let k = k as f64;
        let per_router = if k as u64 % 2 == 0 {
            8.0 * b / k
        } else {
            8.0 * b * k / (k * k - 1.0)
        };
        best = best.min(per_router / t.nodes_per_router() as f64);
    }
    if best.is_finite() { best } else { inj }
}

/// Why a synthetic run cannot start.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SyntheticError {
    /// A parameter out of range; names it.
    #[error("workload.{name}: {why}")]
    Param {
        /// The `[workload]` field.
        name: &'static str,
        /// What is wrong.
        why: String,
    },
    /// The transport refused the configuration.
    #[error("transport: {0}")]
    Net(String),
}

fn param(name: &'static str, why: impl Into<String>) -> SyntheticError {
    SyntheticError::Param {
        name,
        why: why.into(),
    }
}

const RANDOM: u32 = u32::MAX;

/// The fixed destination of every host (`RANDOM` for uniform and hot
/// spot), after checking that the pattern fits the machine.
fn destinations(m: &Machine, p: &SyntheticParams) -> Result<Vec<u32>, SyntheticError> {
    let n = m.nodes();
    let bits = n.trailing_zeros();
    let pow2 = n.is_power_of_two();
    let need_pow2 = || {
        if pow2 {
            Ok(())
        } else {
            Err(param(
                "pattern",
                format!(
                    "{:?} needs a power-of-two number of hosts, the machine has {n}",
                    p.pattern
                ),
            ))
        }
    };
    let mask = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    let rot = |s: u32, r: u32| {
        if bits == 0 {
            s
        } else {
            ((s << r) | (s >> (bits - r))) & mask
        }
    };
    let torus = |f: &dyn Fn(&TorusGeom, [u32; 3]) -> [u32; 3]| -> Result<Vec<u32>, SyntheticError> {
        let t = m.torus().ok_or_else(|| {
            param(
                "pattern",
                format!(
                    "{:?} needs a torus machine; `{}` is not one",
                    p.pattern,
                    m.name()
                ),
            )
        })?;
        let per = t.nodes_per_router();
        Ok((0..n)
            .map(|s| {
                let c = t.coords(s / per);
                t.router_at(f(t, c)) * per + s % per
            })
            .collect())
    };
    Ok(match p.pattern {
        Pattern::Uniform => vec![RANDOM; n as usize],
        Pattern::Hotspot => {
            if p.hotspot_node >= n {
                return Err(param(
                    "hotspot_node",
                    format!("{} is not a host (the machine has {n})", p.hotspot_node),
                ));
            }
            if !(0.0..=1.0).contains(&p.hotspot_fraction) {
                return Err(param("hotspot_fraction", "must be between 0 and 1"));
            }
            vec![RANDOM; n as usize]
        }
        Pattern::BitComplement => {
            need_pow2()?;
            (0..n).map(|s| !s & mask).collect()
        }
        Pattern::BitReverse => {
            need_pow2()?;
            (0..n)
                .map(|s| {
                    if bits == 0 {
                        s
                    } else {
                        s.reverse_bits() >> (32 - bits)
                    }
                })
                .collect()
        }
        Pattern::Shuffle => {
            need_pow2()?;
            (0..n).map(|s| rot(s, 1 % bits.max(1))).collect()
        }
        Pattern::Transpose => {
            need_pow2()?;
            if bits % 2 == 1 {
                return Err(param(
                    "pattern",
                    format!(
                        "transpose needs an even number of address bits; {n} hosts have {bits}"
                    ),
                ));
            }
            (0..n).map(|s| rot(s, bits / 2)).collect()
        }
        Pattern::Tornado => torus(&|t, c| {
            let k = t.dims();
            [0, 1, 2].map(|d| c[d] + k[d].div_ceil(2) - 1)
        })?,
        Pattern::Neighbor => torus(&|_, c| c.map(|x| x + 1))?,
    })
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// Host generates a packet now.
    Gen(u32),
    Net(NetEvent),
}

impl From<NetEvent> for Ev {
    fn from(e: NetEvent) -> Self {
        Ev::Net(e)
    }
}

struct Driver {
    net: Network,
    dst: Vec<u32>,
    p: SyntheticParams,
    /// Probability of a packet per host per cycle.
    prob: f64,
    packet: u64,
    cycle: Time,
    warm_end: Time,
    meas_end: Time,
    inject: Vec<SimRng>,
    dest: Vec<SimRng>,
    /// Generation time of each packet in flight, by token; `Time::MAX`
    /// marks a free slot.
    born: Vec<Time>,
    free: Vec<u32>,
    /// Measured packets in flight.
    outstanding: u64,
    measured: u64,
    generated_in_window: u64,
    delivered_in_window: u64,
    latencies: Vec<u64>,
    out: Vec<Delivery>,
    /// Snapshots taken (0, 1 at the window's start, 2 at its end), the
    /// links' waiting bytes at the start, and [`SyntheticReport::worst_link_growth`].
    marks: usize,
    backlog: Vec<u64>,
    worst_growth: f64,
}

impl Driver {
    /// Cycles until the next packet of host `h`, counting this boundary
    /// as 0: Bernoulli trials, one per cycle.
    fn next_gap(&mut self, h: u32) -> Option<u64> {
        let rng = &mut self.inject[h as usize];
        // Bounded, so that a tiny probability cannot spin: beyond the run.
        let horizon = self.p.warmup_cycles + self.p.measure_cycles + self.p.drain_cycles + 1;
        (0..horizon).find(|_| rng.random_bool(self.prob))
    }

    fn schedule_next(&mut self, sched: &mut impl Schedule<Ev>, h: u32, from: Time) {
        if let Some(g) = self.next_gap(h) {
            sched.post_at(from + self.cycle * g, Ev::Gen(h));
        }
    }

    fn destination(&mut self, h: u32) -> u32 {
        let n = self.dst.len() as u32;
        match self.dst[h as usize] {
            RANDOM => {
                let rng = &mut self.dest[h as usize];
                if self.p.pattern == Pattern::Hotspot && rng.random_bool(self.p.hotspot_fraction) {
                    self.p.hotspot_node
                } else {
                    rng.random_range(0..n)
                }
            }
            d => d,
        }
    }

    fn generate(&mut self, sched: &mut impl Schedule<Ev>, h: u32) {
        let now = sched.now();
        let d = self.destination(h);
        if d != h {
            let measured = now >= self.warm_end && now < self.meas_end;
            if measured {
                self.generated_in_window += 1;
                self.measured += 1;
                self.outstanding += 1;
            }
            let token = match self.free.pop() {
                Some(i) => {
                    self.born[i as usize] = now;
                    i
                }
                None => {
                    self.born.push(now);
                    self.born.len() as u32 - 1
                }
            };
            // The low bit of the token says whether the packet is measured.
            let t = Transfer {
                src: NodeId(h),
                dst: NodeId(d),
                bytes: self.packet,
                rate_cap: None,
                token: (token as u64) << 1 | measured as u64,
            };
            let mut out = std::mem::take(&mut self.out);
            self.net.start(
                &mut sim_core::Lift::<_, Ev, NetEvent>::new(sched),
                t,
                &mut out,
            );
            self.out = out;
        }
        self.schedule_next(sched, h, now + self.cycle);
    }

    fn deliveries(&mut self) {
        for d in self.out.drain(..) {
            let slot = (d.token >> 1) as usize;
            let born = self.born[slot];
            self.free.push(slot as u32);
            if d.at >= self.warm_end && d.at < self.meas_end {
                self.delivered_in_window += 1;
            }
            if d.token & 1 == 1 {
                self.outstanding -= 1;
                self.latencies.push((d.at - born).as_ps());
            }
        }
    }

    /// Takes the links' backlog at the measurement window's edges, before
    /// the first event at or after each is handled (the state at the
    /// edge itself).
    fn mark(&mut self, now: Time) {
        while self.marks < 2 && now >= [self.warm_end, self.meas_end][self.marks] {
            if self.marks == 0 {
                self.net.waiting_bytes(&mut self.backlog);
            } else {
                let mut end = Vec::new();
                self.net.waiting_bytes(&mut end);
                let window = (self.meas_end - self.warm_end).as_secs_f64();
                let links = self.net.machine().links();
                self.worst_growth = end
                    .iter()
                    .zip(&self.backlog)
                    .zip(links)
                    .map(|((&e, &s), l)| (e as f64 - s as f64) / (l.bandwidth.as_f64() * window))
                    .fold(0.0, f64::max);
            }
            self.marks += 1;
        }
    }
}

impl Model for Driver {
    type Event = Ev;
    fn handle(&mut self, ev: Ev, sched: &mut Scheduler<'_, Ev>) {
        self.mark(sched.now());
        match ev {
            Ev::Gen(h) => self.generate(sched, h),
            Ev::Net(e) => {
                let mut out = std::mem::take(&mut self.out);
                self.net.handle(
                    &mut sim_core::Lift::<_, Ev, NetEvent>::new(sched),
                    e,
                    &mut out,
                );
                self.out = out;
            }
        }
        self.deliveries();
    }
}

/// One synthetic run at `p.load` on `machine` with transport `cfg`.
pub fn run(
    machine: &Machine,
    cfg: NetConfig,
    p: &SyntheticParams,
) -> Result<SyntheticReport, SyntheticError> {
    if p.measure_cycles == 0 {
        return Err(param("measure_cycles", "must be at least 1"));
    }
    let cap = capacity(machine);
    let inj = injection(machine);
    let max = inj.as_f64() / cap;
    if !(p.load.is_finite() && p.load > 0.0 && p.load <= max * (1.0 + 1e-12)) {
        return Err(param(
            "load",
            format!(
                "{} is not in (0, {max:.4}]: the injection rate is {max:.4} of capacity",
                p.load
            ),
        ));
    }
    let dst = destinations(machine, p)?;
    let net = Network::new(machine.clone(), cfg).map_err(|e| SyntheticError::Net(e.to_string()))?;
    let packet = cfg.packet_bytes;
    let cycle = transfer_time(packet, inj);
    let total = p
        .warmup_cycles
        .checked_add(p.measure_cycles)
        .and_then(|c| c.checked_add(p.drain_cycles))
        .and_then(|c| c.checked_add(1))
        .and_then(|c| c.checked_mul(cycle.as_ps()))
        // Generation events may be posted up to a run's length ahead.
        .and_then(|ps| ps.checked_mul(4));
    if total.is_none() {
        return Err(param(
            "measure_cycles",
            "warm-up, measurement and drain together come near the end of the simulator's clock (2^64 ps)",
        ));
    }
    let rng = RngStreams::new(p.seed);
    let n = machine.nodes();
    let warm_end = cycle * p.warmup_cycles;
    let meas_end = warm_end + cycle * p.measure_cycles;
    let mut d = Driver {
        net,
        dst,
        p: *p,
        prob: (p.load / max).min(1.0),
        packet,
        cycle,
        warm_end,
        meas_end,
        inject: (0..n as u64)
            .map(|h| rng.stream_indexed("synthetic.inject", h))
            .collect(),
        dest: (0..n as u64)
            .map(|h| rng.stream_indexed("synthetic.dest", h))
            .collect(),
        born: Vec::new(),
        free: Vec::new(),
        outstanding: 0,
        measured: 0,
        generated_in_window: 0,
        delivered_in_window: 0,
        latencies: Vec::new(),
        out: Vec::new(),
        marks: 0,
        backlog: Vec::new(),
        worst_growth: 0.0,
    };
    let mut eng: Engine<Ev> = Engine::new();
    {
        let mut s = eng.scheduler();
        for h in 0..n {
            d.schedule_next(&mut s, h, Time::ZERO);
        }
    }
    let limit = meas_end + cycle * p.drain_cycles;
    eng.run_while_until(&mut d, limit, |d, now| {
        now < d.meas_end || d.outstanding > 0
    });
    d.mark(Time::MAX);
    let per = |count: u64| count as f64 / (n as f64 * p.measure_cycles as f64) * inj.as_f64() / cap;
    let mut lat = std::mem::take(&mut d.latencies);
    lat.sort_unstable();
    let rank = |q: f64| -> u64 {
        if lat.is_empty() {
            return 0;
        }
        let i = ((q * lat.len() as f64).ceil() as usize).clamp(1, lat.len());
        lat[i - 1]
    };
    let mean = if lat.is_empty() {
        0.0
    } else {
        lat.iter().map(|&x| x as f64).sum::<f64>() / lat.len() as f64
    };
    Ok(SyntheticReport {
        pattern: p.pattern,
        load: p.load,
        capacity_bytes_per_s: cap,
        packet_bytes: packet,
        cycle_ps: cycle.as_ps(),
        offered: per(d.generated_in_window),
        accepted: per(d.delivered_in_window),
        latency_ps: LatencyPs {
            mean,
            p50: rank(0.5),
            p99: rank(0.99),
        },
        measured_packets: d.measured,
        undelivered: d.outstanding,
        worst_link_growth: d.worst_growth,
        saturation: None,
        end_ps: eng.now().as_ps(),
        events: eng.events_handled(),
    })
}

/// Whether the network kept up at a run's load: every measured packet
/// delivered within the drain, accepted throughput within
/// [`SUSTAINED_TOLERANCE`] of offered, and no link's queue grown over
/// the measurement window by more than [`LINK_GROWTH_TOLERANCE`] of what
/// the link carries in it. The last is the worst link's test: under a
/// routing that loads links unevenly (ECMP, per-pair random) the
/// busiest link may carry a few per cent of the traffic, so its backlog
/// hardly moves the aggregate and drains in time, yet it grows for as
/// long as the load lasts.
pub fn sustained(r: &SyntheticReport) -> bool {
    r.undelivered == 0
        && r.accepted >= r.offered * (1.0 - SUSTAINED_TOLERANCE)
        && r.worst_link_growth <= LINK_GROWTH_TOLERANCE
}

/// How far below offered throughput accepted throughput may fall at a
/// sustained load: 1 % (the window's edges move a few packets across it).
pub const SUSTAINED_TOLERANCE: f64 = 0.01;

/// How much one link's queue may grow over the measurement window at a
/// sustained load, as a fraction of the bytes the link carries in the
/// window at its rate: 5 %. Below saturation a queue's length wanders
/// (by some `sqrt(n)` packets over a window of `n` near full load: 2 %
/// of the validation's 2000-packet windows), so the bound sits above
/// that; a link loaded 5 % past its rate grows by 5 %.
pub const LINK_GROWTH_TOLERANCE: f64 = 0.05;

/// Bisection steps of [`saturation`]: the final bracket is
/// `max_load / 2^SATURATION_STEPS` wide (0.4 % of the injection rate).
pub const SATURATION_STEPS: u32 = 8;

/// The saturation throughput, fraction of capacity: bisection on
/// `(0, injection / capacity]` ([`SATURATION_STEPS`] steps, each a
/// [`run`] with `p`'s windows and seed) between loads [`sustained`] and
/// not; the answer is the final bracket's midpoint (within half a step of
/// the boundary). Returns the report of the run at the highest sustained
/// load with `saturation` set (the injection rate itself when even that
/// is sustained).
pub fn saturation(
    machine: &Machine,
    cfg: NetConfig,
    p: &SyntheticParams,
) -> Result<SyntheticReport, SyntheticError> {
    let max = injection(machine).as_f64() / capacity(machine);
    let at = |load: f64| run(machine, cfg, &SyntheticParams { load, ..*p });
    let top = at(max)?;
    if sustained(&top) {
        return Ok(SyntheticReport {
            saturation: Some(max),
            ..top
        });
    }
    let (mut lo, mut hi) = (0.0, max);
    let mut best: Option<SyntheticReport> = None;
    for _ in 0..SATURATION_STEPS {
        let mid = (lo + hi) / 2.0;
        let r = at(mid)?;
        if sustained(&r) {
            lo = mid;
            best = Some(r);
        } else {
            hi = mid;
        }
    }
    let r = match best {
        Some(r) => r,
        None => at(lo.max(max / f64::from(1u32 << SATURATION_STEPS)))?,
    };
    Ok(SyntheticReport {
        saturation: Some((lo + hi) / 2.0),
        ..r
    })
}

/// Bandwidth of host 0's injection link (the cycle's rate).
pub fn injection(m: &Machine) -> Bandwidth {
    m.link(m.injection_link(NodeId(0))).bandwidth
}

mod bound;
pub use bound::channel_load_bound;

#[cfg(test)]
mod tests;
