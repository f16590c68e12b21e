//! The transport behind one interface: [`Network`] selects at run time
//! the packet or the flow model over a [`Machine`], or the contention-free
//! [`IdealNetwork`]; the two link models answer [`Transport::idle_time`]
//! with the closed forms below.

use crate::flow::{FlowEvent, FlowNet};
use crate::ideal::{Arrive, IdealNetwork};
use crate::machine::Machine;
use crate::packet::{PacketEvent, PacketNet};
use crate::stats::{LinkSeries, LinkStat};
use crate::transport::{Delivery, NodeId, Transfer, Transport};
use clap::ValueEnum;
use sim_core::{Bandwidth, Lift, Schedule, Time, transfer_time};

/// Default packet payload = 4096 B: the largest InfiniBand MTU, and a
/// packet big enough that simulating 64 KiB messages on 8192 nodes stays
/// cheap. Smaller packets (Gemini moves 64-byte payloads) give finer
/// interleaving at a proportional cost in events.
pub const DEFAULT_PACKET_BYTES: u64 = 4096;

/// Which transport model: [`crate::packet`] or [`crate::flow`].
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Packets queue at every link direction.
    #[default]
    Packet,
    /// Max-min fair flows.
    Flow,
}

/// How a packet moves through a router (packet mode).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Switching {
    /// Virtual cut-through: a packet starts on the next link as soon as
    /// its head arrives (and the link is free); it cannot finish there
    /// before its tail has arrived.
    #[default]
    CutThrough,
    /// Store-and-forward: a packet starts on the next link only when it
    /// has been fully received.
    StoreAndForward,
}

/// Routing choice on a torus (other machines always use their unique or
/// tie-broken shortest path). Named `dimension-order` (alias `dor`) and
/// `adaptive` (alias `minimal-adaptive`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum RouteMode {
    /// Dimension order, x then y then z.
    #[default]
    #[serde(alias = "dor")]
    #[value(alias = "dor")]
    DimensionOrder,
    /// Minimal adaptive per packet (packet mode only; flow mode routes
    /// every flow in dimension order, since a flow has one path).
    #[serde(rename = "adaptive", alias = "minimal-adaptive")]
    #[value(name = "adaptive", alias = "minimal-adaptive")]
    MinimalAdaptive,
}

/// Transport configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetConfig {
    /// Packet or flow model.
    pub mode: Mode,
    /// Packet payload \[bytes\] (packet mode); default [`DEFAULT_PACKET_BYTES`].
    pub packet_bytes: u64,
    /// Cut-through or store-and-forward (packet mode).
    pub switching: Switching,
    /// Dimension-order or adaptive routing (torus, packet mode).
    pub routing: RouteMode,
    /// If set, per-link bytes are also recorded per interval of this width
    /// ([`Network::link_series`]).
    pub series_interval: Option<Time>,
    /// Finite link buffers with backpressure (packet mode; see
    /// [`crate::packet`]). Default off: unbounded queues.
    pub backpressure: bool,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            mode: Mode::Packet,
            packet_bytes: DEFAULT_PACKET_BYTES,
            switching: Switching::CutThrough,
            routing: RouteMode::DimensionOrder,
            series_interval: None,
            backpressure: false,
        }
    }
}

impl NetConfig {
    /// Defaults with the given mode.
    pub fn with_mode(mode: Mode) -> Self {
        NetConfig {
            mode,
            ..Default::default()
        }
    }
}

/// Error in a transport configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetConfigError {
    /// `packet_bytes` is zero or above `u32::MAX`.
    #[error("packet_bytes must be between 1 and {max}, got {0}", max = u32::MAX)]
    PacketSize(u64),
    /// Adaptive routing needs a torus.
    #[error("minimal adaptive routing needs a torus machine; `{0}` is not one")]
    AdaptiveNeedsTorus(String),
    /// Adaptive routing reorders a message's packets, which the packet
    /// model's count of flows per link (asymmetric sharing) cannot follow.
    #[error("minimal adaptive routing cannot be combined with asymmetric sharing")]
    AdaptiveWithAsymmetric,
    /// Bubble flow control keeps dimension-order routing deadlock-free;
    /// adaptive routing turns between dimensions in any order and would
    /// need escape virtual channels, which the model does not have.
    #[error("minimal adaptive routing cannot be combined with backpressure (no virtual channels)")]
    AdaptiveWithBackpressure,
    /// With backpressure, a bounded buffer must hold two packets (one for
    /// the bubble rule).
    #[error(
        "link {link} has a buffer of {buffer} B; backpressure needs 0 (unbounded) or at least 2 packets ({need} B)"
    )]
    BufferTooSmall {
        /// Link id.
        link: u32,
        /// Its buffer \[bytes\].
        buffer: u64,
        /// Two packets \[bytes\].
        need: u64,
    },
}

pub(crate) fn check(machine: &Machine, cfg: &NetConfig) -> Result<(), NetConfigError> {
    if cfg.packet_bytes == 0 || cfg.packet_bytes > u32::MAX as u64 {
        return Err(NetConfigError::PacketSize(cfg.packet_bytes));
    }
    if cfg.mode == Mode::Packet && cfg.routing == RouteMode::MinimalAdaptive {
        if machine.torus().is_none() {
            return Err(NetConfigError::AdaptiveNeedsTorus(machine.name().into()));
        }
        if machine.sharing == crate::machine::Sharing::Asymmetric {
            return Err(NetConfigError::AdaptiveWithAsymmetric);
        }
    }
    if cfg.mode == Mode::Packet && cfg.backpressure {
        if cfg.routing == RouteMode::MinimalAdaptive {
            return Err(NetConfigError::AdaptiveWithBackpressure);
        }
        let need = 2 * cfg.packet_bytes;
        for (i, l) in machine.links().iter().enumerate() {
            if l.to >= machine.nodes() && l.buffer != 0 && l.buffer < need {
                return Err(NetConfigError::BufferTooSmall {
                    link: i as u32,
                    buffer: l.buffer,
                    need,
                });
            }
        }
    }
    Ok(())
}

/// The transport chosen at run time: the packet or the flow model over a
/// machine, or the ideal network, which has no machine.
// The variants differ in size, but a program holds one network; boxing
// would only add an indirection on every event.
#[allow(clippy::large_enum_variant)]
pub enum Network {
    /// Packet model.
    Packet(PacketNet),
    /// Flow model.
    Flow(FlowNet),
    /// Contention-free private wires between every pair of nodes (the
    /// postal / LogP machine): no links, no statistics.
    Ideal(IdealNetwork),
}

/// Events of a [`Network`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetEvent {
    /// A packet-model event.
    Packet(PacketEvent),
    /// A flow-model event.
    Flow(FlowEvent),
    /// An ideal-network event.
    Ideal(Arrive),
}

impl From<PacketEvent> for NetEvent {
    fn from(e: PacketEvent) -> Self {
        NetEvent::Packet(e)
    }
}
impl From<FlowEvent> for NetEvent {
    fn from(e: FlowEvent) -> Self {
        NetEvent::Flow(e)
    }
}
impl From<Arrive> for NetEvent {
    fn from(e: Arrive) -> Self {
        NetEvent::Ideal(e)
    }
}

impl Network {
    /// A network over `machine` in the model `cfg.mode`.
    pub fn new(machine: Machine, cfg: NetConfig) -> Result<Self, NetConfigError> {
        Ok(match cfg.mode {
            Mode::Packet => Network::Packet(PacketNet::new(machine, cfg)?),
            Mode::Flow => Network::Flow(FlowNet::new(machine, cfg)?),
        })
    }
    /// The machine the links belong to; `None` for the ideal network.
    pub fn links_machine(&self) -> Option<&Machine> {
        match self {
            Network::Packet(n) => Some(n.machine()),
            Network::Flow(n) => Some(n.machine()),
            Network::Ideal(_) => None,
        }
    }
    /// The machine of a link model.
    ///
    /// # Panics
    /// On the ideal network, which has no machine; use
    /// [`Network::links_machine`] where the network may be ideal.
    pub fn machine(&self) -> &Machine {
        self.links_machine()
            .expect("the ideal network has no machine")
    }
    /// Per-link totals; `elapsed` is the span utilization is relative to
    /// (usually the run's end time). Empty for the ideal network.
    pub fn link_stats(&self, elapsed: Time) -> Vec<LinkStat> {
        match self {
            Network::Packet(n) => n.link_stats(elapsed),
            Network::Flow(n) => n.link_stats(elapsed),
            Network::Ideal(_) => Vec::new(),
        }
    }
    /// How many flows the flow model's rate updates touched (`None`
    /// except in flow mode).
    pub fn flow_update_stats(&self) -> Option<crate::flow::UpdateStats> {
        match self {
            Network::Flow(n) => Some(n.update_stats()),
            Network::Packet(_) | Network::Ideal(_) => None,
        }
    }
    /// Per-link series (empty unless `series_interval` was set, and for
    /// the ideal network).
    pub fn link_series(&self) -> Vec<LinkSeries> {
        match self {
            Network::Packet(n) => n.link_series(),
            Network::Flow(n) => n.link_series(),
            Network::Ideal(_) => Vec::new(),
        }
    }
}

impl Transport for Network {
    type Event = NetEvent;

    fn nodes(&self) -> u32 {
        match self {
            Network::Packet(n) => n.machine().nodes(),
            Network::Flow(n) => n.machine().nodes(),
            Network::Ideal(n) => n.nodes(),
        }
    }

    fn start(&mut self, sched: &mut impl Schedule<NetEvent>, t: Transfer, out: &mut Vec<Delivery>) {
        match self {
            Network::Packet(n) => {
                n.start(&mut Lift::<_, NetEvent, PacketEvent>::new(sched), t, out)
            }
            Network::Flow(n) => n.start(&mut Lift::<_, NetEvent, FlowEvent>::new(sched), t, out),
            Network::Ideal(n) => n.start(&mut Lift::<_, NetEvent, Arrive>::new(sched), t, out),
        }
    }

    fn handle(
        &mut self,
        sched: &mut impl Schedule<NetEvent>,
        ev: NetEvent,
        out: &mut Vec<Delivery>,
    ) {
        match (self, ev) {
            (Network::Packet(n), NetEvent::Packet(e)) => {
                n.handle(&mut Lift::<_, NetEvent, PacketEvent>::new(sched), e, out)
            }
            (Network::Flow(n), NetEvent::Flow(e)) => {
                n.handle(&mut Lift::<_, NetEvent, FlowEvent>::new(sched), e, out)
            }
            (Network::Ideal(n), NetEvent::Ideal(e)) => {
                n.handle(&mut Lift::<_, NetEvent, Arrive>::new(sched), e, out)
            }
            _ => panic!("event of another transport mode"),
        }
    }

    fn idle_time(&self, src: NodeId, dst: NodeId, bytes: u64, rate_cap: Option<Bandwidth>) -> Time {
        match self {
            Network::Packet(n) => n.idle_time(src, dst, bytes, rate_cap),
            Network::Flow(n) => n.idle_time(src, dst, bytes, rate_cap),
            Network::Ideal(n) => n.idle_time(src, dst, bytes, rate_cap),
        }
    }
}

/// Flow model on an idle machine: `sum of latencies + bytes / r`, with
/// `r` the smallest bandwidth on the route and the rate cap. `O(route)`.
pub(crate) fn flow_idle_time(
    m: &Machine,
    src: NodeId,
    dst: NodeId,
    bytes: u64,
    cap: Option<Bandwidth>,
) -> Time {
    let mut lat = Time::ZERO;
    let mut rate = cap;
    let mut v = src.0;
    while v != dst.0 {
        let l = m.link(m.next_link(v, dst.0));
        lat += l.latency;
        rate = Some(rate.map_or(l.bandwidth, |r| r.min(l.bandwidth)));
        v = l.to;
    }
    lat + rate.map_or(Time::ZERO, |r| transfer_time(bytes, r))
}

/// Packets of a message: count, full size, last size.
pub(crate) fn packetize(bytes: u64, packet: u64) -> (u64, u64, u64) {
    let n = bytes.div_ceil(packet).max(1);
    (n, packet, bytes - (n - 1) * packet)
}

/// Packet model on an idle machine, exactly as the event simulation
/// computes it. `O(route)`.
///
/// The route's servers are `j = 0..m`: the rate-cap pacer (when
/// `rate_cap` is set; bandwidth `R_b`, no latency) and then every link.
/// Let `a_j` / `b_j` be the service times of a full / the last packet at
/// server `j`, `A_j = max_{i <= j} a_i`, `n` the number of packets and
/// `L` the sum of link latencies. Latencies only shift the pipeline, so:
///
/// * cut-through: `T = L + max_j ((n - 1) * A_j + b_j)`; for one packet
///   `L + max_j b_j`: the bottleneck serialization;
/// * store-and-forward: `T = L + max_j (sum_{i<=j} a_i + (n - 2) * A_j +
///   sum_{i>=j} b_i)` for `n >= 2`, and `L + sum_j b_j` for one packet.
///
/// Both are the max-plus longest paths of the tandem-queue recurrences the
/// simulator runs (derivation in the crate docs, "Packet pipeline").
pub(crate) fn packet_idle_time(
    m: &Machine,
    src: NodeId,
    dst: NodeId,
    bytes: u64,
    cap: Option<Bandwidth>,
    packet: u64,
    sw: Switching,
) -> Time {
    let (n, full, last) = packetize(bytes, packet);
    let mut lat = Time::ZERO;
    // Servers as (a, b) pairs; the pacer first.
    let pacer = cap.map(|c| (transfer_time(full, c), transfer_time(last, c)));
    let servers = || {
        let mut v = src.0;
        let links = std::iter::from_fn(move || {
            (v != dst.0).then(|| {
                let l = m.link(m.next_link(v, dst.0));
                v = l.to;
                (
                    l.latency,
                    transfer_time(full, l.bandwidth),
                    transfer_time(last, l.bandwidth),
                )
            })
        });
        pacer
            .map(|(a, b)| (Time::ZERO, a, b))
            .into_iter()
            .chain(links)
    };
    let mut best = Time::ZERO;
    let mut amax = Time::ZERO;
    match sw {
        Switching::CutThrough => {
            for (l, a, b) in servers() {
                lat += l;
                amax = amax.max(a);
                best = best.max(amax * (n - 1) + b);
            }
        }
        Switching::StoreAndForward => {
            let total_b: Time = servers().map(|(_, _, b)| b).sum();
            if n == 1 {
                lat = servers().map(|(l, _, _)| l).sum();
                return lat + total_b;
            }
            let (mut sum_a, mut b_before) = (Time::ZERO, Time::ZERO);
            for (l, a, b) in servers() {
                lat += l;
                amax = amax.max(a);
                sum_a += a;
                best = best.max(sum_a + amax * (n - 2) + (total_b - b_before));
                b_before += b;
            }
        }
    }
    lat + best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_names_for_scenario_files() {
        // Scenario files name the choices in kebab case.
        let m: Mode = serde_json::from_str("\"flow\"").unwrap();
        assert_eq!(m, Mode::Flow);
        let s: Switching = serde_json::from_str("\"store-and-forward\"").unwrap();
        assert_eq!(s, Switching::StoreAndForward);
        let r: RouteMode = serde_json::from_str("\"minimal-adaptive\"").unwrap();
        assert_eq!(r, RouteMode::MinimalAdaptive);
        let r: RouteMode = serde_json::from_str("\"dor\"").unwrap();
        assert_eq!(r, RouteMode::DimensionOrder);
        let h: crate::Sharing = serde_json::from_str("\"asymmetric\"").unwrap();
        assert_eq!(h, crate::Sharing::Asymmetric);
        assert!(serde_json::from_str::<Mode>("\"packets\"").is_err());
    }

    /// Every choice has one name: serde's (files, reports), clap's
    /// (command line) and `Display` agree, and each parses back.
    #[test]
    fn one_name_per_choice() {
        fn check<T>(all: &[T])
        where
            T: ValueEnum + serde::Serialize + serde::de::DeserializeOwned + PartialEq,
            T: std::fmt::Debug + std::fmt::Display,
        {
            for v in all {
                let name = v.to_string();
                assert_eq!(serde_json::to_value(v).unwrap(), name.as_str());
                let back: T = serde_json::from_value(name.clone().into()).unwrap();
                assert_eq!(&back, v);
                assert_eq!(&T::from_str(&name, false).unwrap(), v);
            }
        }
        check(Mode::value_variants());
        check(Switching::value_variants());
        check(RouteMode::value_variants());
        check(crate::Sharing::value_variants());
        check(crate::Backbone::value_variants());
        check(crate::Dim::value_variants());
        assert_eq!(RouteMode::MinimalAdaptive.to_string(), "adaptive");
    }
}
