//! What a run asks of the transport: [`NetConfig`] (the model, packet
//! size, switching, routing, buffers, series) with its choices as enums
//! named the same in scenario files and on the command line, and the
//! checks a machine and a configuration must pass together.

use crate::machine::{Machine, Sharing};
use crate::routing::Router;
use crate::routing::fat_tree::{ECMP_KEY, Spread};
use crate::transport::LinkId;
use sim_core::rng::{Rng, RngStreams};
use sim_core::{Bandwidth, Time};

/// Default packet payload = 4096 B: the largest InfiniBand MTU, and a
/// packet big enough that simulating 64 KiB messages on 8192 nodes stays
/// cheap. Smaller packets (Gemini moves 64-byte payloads) give finer
/// interleaving at a proportional cost in events.
pub const DEFAULT_PACKET_BYTES: u64 = 4096;

/// Which transport model: [`crate::packet`] or [`crate::flow`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Packets queue at every link direction.
    #[default]
    Packet,
    /// Max-min fair flows.
    Flow,
}

/// The transport model a scenario asks for: one of the two [`Mode`]s, or
/// `auto`, which a run turns into one of them from its workload (the
/// rule is the scenarios crate's `auto_mode`, documented in
/// docs/SCENARIOS.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum ModeChoice {
    /// Pick packet or flow per run from the workload.
    #[default]
    Auto,
    /// Always [`Mode::Packet`].
    Packet,
    /// Always [`Mode::Flow`].
    Flow,
}

impl ModeChoice {
    /// The mode asked for, if not `auto`.
    pub fn fixed(self) -> Option<Mode> {
        match self {
            ModeChoice::Auto => None,
            ModeChoice::Packet => Some(Mode::Packet),
            ModeChoice::Flow => Some(Mode::Flow),
        }
    }
}

/// How a packet moves through a router (packet mode).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// Routing choice on a torus or a SimGrid `FAT_TREE` (other machines
/// always use their tie-broken shortest path, the default). Named
/// `dimension-order` (alias `dor`; the default everywhere), `adaptive`
/// (aliases `minimal-adaptive`, `min-adaptive`), `o1turn`, `valiant`,
/// `romm` and `ugal` on a torus; `dmodk`, `ecmp`, `random` and `nca` on
/// a fat tree. Each routing's tie rule and source are in [`crate::routing`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RouteMode {
    /// Dimension order, x then y then z.
    #[default]
    #[serde(alias = "dor")]
    DimensionOrder,
    /// Minimal adaptive per packet (packet mode only; flow mode routes
    /// every flow in dimension order, since a flow has one path).
    #[serde(
        rename = "adaptive",
        alias = "minimal-adaptive",
        alias = "min-adaptive"
    )]
    MinimalAdaptive,
    /// A dimension order drawn per packet (packet mode, torus).
    O1turn,
    /// Through a random intermediate router (packet mode, torus).
    Valiant,
    /// Through a random intermediate in the minimal box (packet mode,
    /// torus).
    Romm,
    /// Minimal or Valiant by the source router's queues (packet mode,
    /// torus).
    Ugal,
    /// D-mod-k on a SimGrid `FAT_TREE` (both modes; one path per
    /// destination, [`crate::routing::fat_tree`]).
    Dmodk,
    /// ECMP by a hash of (source, destination) on a SimGrid `FAT_TREE`
    /// (both modes, [`crate::routing::fat_tree`]).
    Ecmp,
    /// A random up-path per (source, destination) on a SimGrid
    /// `FAT_TREE`, from stream `routing.choice` (both modes).
    Random,
    /// A random up-port per packet at every switch on the way up to the
    /// nearest common ancestor, from stream `routing.choice`; down by the
    /// destination (packet mode, fat tree; BookSim2's `nca`).
    Nca,
}

impl RouteMode {
    /// Least number of virtual channels this routing needs on torus `t`
    /// (the table in `packet/vc.rs`'s module docs).
    pub fn vc_classes(self, t: &crate::torus_geom::TorusGeom) -> u32 {
        match self {
            RouteMode::O1turn => 2 * t.dims().iter().filter(|&&k| k > 1).count().max(1) as u32,
            RouteMode::Valiant | RouteMode::Romm | RouteMode::Ugal => 4,
            RouteMode::MinimalAdaptive => 3,
            RouteMode::DimensionOrder
            | RouteMode::Dmodk
            | RouteMode::Ecmp
            | RouteMode::Random
            | RouteMode::Nca => 2,
        }
    }

    /// Whether the routing chooses a fat tree's up-links (and needs a
    /// fat tree).
    pub fn fat_tree(self) -> bool {
        matches!(
            self,
            RouteMode::Dmodk | RouteMode::Ecmp | RouteMode::Random | RouteMode::Nca
        )
    }

    /// Whether the packet model chooses the route per packet (the torus
    /// routings but dimension order, and `nca`; the other fat-tree
    /// routings are functions of source and destination).
    pub fn per_packet(self) -> bool {
        !matches!(
            self,
            RouteMode::DimensionOrder | RouteMode::Dmodk | RouteMode::Ecmp | RouteMode::Random
        )
    }
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
    /// The routing ([`RouteMode`]: torus or SimGrid fat tree).
    pub routing: RouteMode,
    /// Finite link buffers with backpressure (packet mode; see
    /// [`crate::packet`]). Default off: unbounded queues.
    pub backpressure: bool,
    /// Virtual channels per router-bound link with backpressure
    /// ([`crate::packet`], "Virtual channels"); 0 (default) keeps the
    /// model without them (bubble flow control, dimension order only).
    pub vcs: u32,
    /// Buffer of each virtual channel \[bytes\], counted in whole
    /// packets; default [`DEFAULT_VC_BUFFER`]. Used only when `vcs > 0`.
    pub vc_buffer: u64,
    /// TCP window bound \[bytes\]: a message's rate is at most
    /// `tcp_window / (2 x route latency)` (none on a route of zero
    /// latency), in both transport modes. SimGrid's CM02 model bounds
    /// every flow so, with `network/TCP-gamma` (default 4 MiB,
    /// [`SIMGRID_TCP_GAMMA`]): `src/surf/network_cm02.cpp`,
    /// `NetworkCm02Model::comm_action_set_variable`. Default off (`None`)
    /// for netsim's machines; a SimGrid platform turns it on with
    /// SimGrid's value.
    pub tcp_window: Option<u64>,
    /// Master seed of the routings' random draws (stream
    /// `routing.choice`); default 1.
    pub seed: u64,
}

/// Default buffer of one virtual channel: two packets of
/// [`DEFAULT_PACKET_BYTES`] (8 KiB), the least that lets a channel
/// accept a packet while it forwards another (Dally & Towles,
/// *Principles and Practices of Interconnection Networks*, Ch. 13,
/// credit-based flow control: credits must cover the round trip to
/// stream at full rate).
pub const DEFAULT_VC_BUFFER: u64 = 2 * DEFAULT_PACKET_BYTES;

/// SimGrid's default TCP window, `network/TCP-gamma` = 4 MiB
/// (`src/kernel/resource/NetworkModel.cpp`, `cfg_tcp_gamma`).
pub const SIMGRID_TCP_GAMMA: u64 = 4 * 1024 * 1024;

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            mode: Mode::Packet,
            packet_bytes: DEFAULT_PACKET_BYTES,
            switching: Switching::CutThrough,
            routing: RouteMode::DimensionOrder,
            backpressure: false,
            vcs: 0,
            vc_buffer: DEFAULT_VC_BUFFER,
            tcp_window: None,
            seed: 1,
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

/// `cap` bounded by the TCP window `window` over a route of latency
/// `lat`: `window / (2 lat)`, rounded to the nearest byte per second
/// (`None` window, or a zero latency, leaves `cap` as it is).
pub(crate) fn window_cap(
    window: Option<u64>,
    lat: Time,
    cap: Option<Bandwidth>,
) -> Option<Bandwidth> {
    let (Some(w), false) = (window, lat == Time::ZERO) else {
        return cap;
    };
    let two_lat = 2 * lat.as_ps() as u128;
    let rate = (w as u128 * 1_000_000_000_000 + two_lat / 2) / two_lat;
    let bound = Bandwidth::bytes_per_sec(rate.clamp(1, u64::MAX as u128) as u64);
    Some(cap.map_or(bound, |c| c.min(bound)))
}

/// Error in a transport configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetConfigError {
    /// `packet_bytes` is zero or above `u32::MAX`.
    #[error("packet_bytes must be between 1 and {max}, got {0}", max = u32::MAX)]
    PacketSize(u64),
    /// D-mod-k, ECMP, random and NCA need a fat tree.
    #[error(
        "{0} routing needs a SimGrid FAT_TREE or a `preset = \"fat-tree\"` machine; `{1}` is not one"
    )]
    NeedsFatTree(RouteMode, String),
    /// A per-packet routing needs a torus.
    #[error("{0} routing needs a torus machine; `{1}` is not one")]
    RoutingNeedsTorus(RouteMode, String),
    /// A per-packet routing reorders a message's packets, which the
    /// packet model's count of flows per link (asymmetric sharing) cannot
    /// follow.
    #[error("{0} routing cannot be combined with asymmetric sharing")]
    RoutingWithAsymmetric(RouteMode),
    /// Bubble flow control keeps only dimension-order routing
    /// deadlock-free; the per-packet routings need virtual channels, and
    /// any routing given channels on a torus needs its classes (`vcs`,
    /// at least the number given).
    #[error(
        "{0} routing with backpressure needs at least {1} virtual channels (`[transport] vcs`), got {2}"
    )]
    RoutingWithBackpressure(RouteMode, u32, u32),
    /// `vcs` without backpressure (buffers unbounded: nothing to
    /// allocate), above 255, or `vc_buffer` smaller than one packet.
    #[error(
        "virtual channels need `backpressure = true`, at most 255 of them and `vc_buffer` of at least one packet ({packet} B); got vcs = {vcs}, vc_buffer = {vc_buffer} B"
    )]
    BadVirtualChannels {
        /// `vcs`.
        vcs: u32,
        /// `vc_buffer` \[bytes\].
        vc_buffer: u64,
        /// The packet \[bytes\].
        packet: u64,
    },
    /// The flow model routes a flow once, by the machine's route; only
    /// minimal adaptive falls back to it (as documented), the others are
    /// refused rather than silently replaced.
    #[error(
        "{0} routing is a packet-model choice; the flow model routes a flow by one path (dimension order, or `dmodk`, `ecmp` or `random` on a fat tree)"
    )]
    NeedsPacketMode(RouteMode),
    /// With backpressure, a bounded buffer must hold two packets (one for
    /// the bubble rule).
    #[error(
        "link {link} has a buffer of {buffer} B; backpressure needs 0 (unbounded) or at least 2 packets ({need} B)"
    )]
    BufferTooSmall {
        /// Link id.
        link: LinkId,
        /// Its buffer \[bytes\].
        buffer: u64,
        /// Two packets \[bytes\].
        need: u64,
    },
    /// Links that share one capacity (a SimGrid SHARED link carrying
    /// both directions) are modelled by the flow model only, with fair
    /// sharing.
    #[error(
        "{0}; the packet model and asymmetric sharing give each link direction its own queue and capacity: use flow mode (`--mode flow`, or `mode = \"flow\"` under `[transport]`) with fair sharing"
    )]
    SharedCapacity(String),
    /// The packet model was given a machine with SimGrid SMPI's size
    /// factors ([`crate::Machine::set_size_factors`]), which scale a
    /// fluid flow's rate and latency.
    #[error(
        "SimGrid SMPI's size factors ({0}) scale a flow's rate and latency, which the packet model does not have: use flow mode (`--mode flow`, or `mode = \"flow\"` under `[transport]`)"
    )]
    SizeFactors(String),
}

/// The machine `cfg` routes on: `m` itself, or with its fat-tree table
/// replaced by D-mod-k's (also the default, `dimension-order`: SimGrid
/// routes its `FAT_TREE` so, `FatTreeZone::get_local_route`; and under
/// `nca`, whose packets replace its up-links by drawn ones) or by the
/// ECMP or random spread.
pub(crate) fn routed(mut m: Machine, cfg: &NetConfig) -> Machine {
    if let Router::FatTree(t, shape) = &m.router {
        let router = match cfg.routing {
            RouteMode::Dmodk | RouteMode::DimensionOrder | RouteMode::Nca => {
                Router::Table(shape.dmodk(m.links(), t))
            }
            RouteMode::Ecmp => Router::Spread(Box::new(Spread::new(m.links(), t, shape, ECMP_KEY))),
            RouteMode::Random => {
                let key = RngStreams::new(cfg.seed)
                    .stream("routing.choice")
                    .random::<u64>();
                Router::Spread(Box::new(Spread::new(m.links(), t, shape, key)))
            }
            _ => return m,
        };
        m.router = router;
    }
    m
}

pub(crate) fn check(machine: &Machine, cfg: &NetConfig) -> Result<(), NetConfigError> {
    if cfg.packet_bytes == 0 || cfg.packet_bytes > u32::MAX as u64 {
        return Err(NetConfigError::PacketSize(cfg.packet_bytes));
    }
    let r = cfg.routing;
    if r.fat_tree() && !matches!(machine.router, Router::FatTree(..)) {
        return Err(NetConfigError::NeedsFatTree(r, machine.name().into()));
    }
    if cfg.mode == Mode::Flow && r.per_packet() && r != RouteMode::MinimalAdaptive {
        return Err(NetConfigError::NeedsPacketMode(r));
    }
    if cfg.mode == Mode::Packet && r.per_packet() {
        if machine.torus().is_none() && !r.fat_tree() {
            return Err(NetConfigError::RoutingNeedsTorus(r, machine.name().into()));
        }
        if machine.sharing == Sharing::Asymmetric {
            return Err(NetConfigError::RoutingWithAsymmetric(r));
        }
    }
    if cfg.vcs > 0
        && (!cfg.backpressure || cfg.vc_buffer < cfg.packet_bytes || cfg.vcs > u8::MAX as u32)
    {
        return Err(NetConfigError::BadVirtualChannels {
            vcs: cfg.vcs,
            vc_buffer: cfg.vc_buffer,
            packet: cfg.packet_bytes,
        });
    }
    if let Some(why) = machine.shared_capacity() {
        if machine.sharing == Sharing::Asymmetric {
            return Err(NetConfigError::SharedCapacity(why.into()));
        }
    }
    if cfg.mode == Mode::Packet && cfg.backpressure {
        // Dimension order without channels has the bubble rule; a fat
        // tree's routes go up, then down: no cycle of waiting links.
        if (r.per_packet() && !r.fat_tree()) || cfg.vcs > 0 {
            let need = machine.torus().map_or(1, |t| r.vc_classes(t));
            if cfg.vcs < need {
                return Err(NetConfigError::RoutingWithBackpressure(r, need, cfg.vcs));
            }
        }
        let need = 2 * cfg.packet_bytes;
        // With virtual channels the links' own buffers are not used.
        let links = if cfg.vcs > 0 {
            &[][..]
        } else {
            machine.links()
        };
        for (i, l) in links.iter().enumerate() {
            if l.to >= machine.nodes() && l.buffer != 0 && l.buffer < need {
                return Err(NetConfigError::BufferTooSmall {
                    link: LinkId(i as u32),
                    buffer: l.buffer,
                    need,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_caps_the_rate_at_window_over_two_latencies() {
        let lat = Time::from_us(2500);
        // 4 MiB / 5 ms = 838 860 800 B/s; 1 B / 3 ps rounds to nearest.
        let c = window_cap(Some(SIMGRID_TCP_GAMMA), lat, None).unwrap();
        assert_eq!(c.as_bytes_per_sec(), 838_860_800);
        let c = window_cap(Some(1), Time::from_ps(3), None).unwrap();
        assert_eq!(c.as_bytes_per_sec(), 166_666_666_667);
        // The smaller of the window and the given cap.
        let slow = Bandwidth::bytes_per_sec(1000);
        let fast = Bandwidth::bytes_per_sec(1_000_000_000);
        assert_eq!(
            window_cap(Some(SIMGRID_TCP_GAMMA), lat, Some(fast))
                .unwrap()
                .as_bytes_per_sec(),
            838_860_800
        );
        assert_eq!(
            window_cap(Some(SIMGRID_TCP_GAMMA), lat, Some(slow)),
            Some(slow)
        );
        // Off, or no latency: the cap as given.
        assert_eq!(window_cap(None, lat, Some(slow)), Some(slow));
        assert_eq!(window_cap(Some(1), Time::ZERO, None), None);
    }

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
        let h: Sharing = serde_json::from_str("\"asymmetric\"").unwrap();
        assert_eq!(h, crate::Sharing::Asymmetric);
        assert!(serde_json::from_str::<Mode>("\"packets\"").is_err());
    }

    /// Every choice has one name: serde's (files, reports) and `Display`
    /// agree, and each parses back.
    #[test]
    fn one_name_per_choice() {
        fn check<T>(all: &[T])
        where
            T: serde::Serialize + serde::de::DeserializeOwned + PartialEq,
            T: std::fmt::Debug + std::fmt::Display,
        {
            for v in all {
                let name = v.to_string();
                assert_eq!(serde_json::to_value(v).unwrap(), name.as_str());
                let back: T = serde_json::from_value(name.clone().into()).unwrap();
                assert_eq!(&back, v);
            }
        }
        check(&[Mode::Packet, Mode::Flow]);
        check(&[ModeChoice::Auto, ModeChoice::Packet, ModeChoice::Flow]);
        check(&[Switching::CutThrough, Switching::StoreAndForward]);
        use RouteMode::*;
        check(&[
            DimensionOrder,
            MinimalAdaptive,
            O1turn,
            Valiant,
            Romm,
            Ugal,
            Dmodk,
            Ecmp,
            Random,
        ]);
        check(&[Sharing::Fair, Sharing::Asymmetric]);
        check(&[crate::Backbone::Optical, crate::Backbone::Electrical]);
        check(&[crate::Dim::X, crate::Dim::Y, crate::Dim::Z]);
        assert_eq!(RouteMode::MinimalAdaptive.to_string(), "adaptive");
        assert_eq!(Switching::StoreAndForward.to_string(), "store-and-forward");
        assert_eq!(format!("{:>7}", Mode::Flow), "   flow");
    }

    /// The command line's names (the `clap` feature, which the netsim
    /// application turns on) are serde's.
    #[cfg(feature = "clap")]
    #[test]
    fn command_line_names_are_serde_names() {
        use clap::ValueEnum;
        fn check<T: ValueEnum + std::fmt::Display + PartialEq + std::fmt::Debug>() {
            for v in T::value_variants() {
                let name = v.to_possible_value().unwrap().get_name().to_string();
                assert_eq!(name, v.to_string());
                assert_eq!(&T::from_str(&name, false).unwrap(), v);
            }
        }
        check::<Mode>();
        check::<ModeChoice>();
    }
}
