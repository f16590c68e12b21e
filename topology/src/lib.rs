//! # topology: the machine
//!
//! Hosts (nodes with sockets and cores), routers and switches, directed
//! links, routing, and the transport that moves bytes between node network
//! interfaces. Knows nothing of MPI: no tags, no communicators, no
//! protocols. The MPI layer drives it through [`Transport`].
//!
//! * [`machine`]: the structure ([`Machine`], on a petgraph graph), the
//!   node interface (a host's one cable: injection and ejection rate,
//!   `R_N` of Bienz et al. eq. 2), routing tables, hop counts.
//! * Families built from parameters, with documented presets:
//!   [`torus`] (Cray Gemini 3-D torus, Blue Waters; partitions of a line
//!   or a cube of Geminis, Bienz et al. Figs. 6 and 8), [`ethernet`]
//!   (Zhu et al.'s two-rack top-of-rack cluster, Fig. 1; `fair` and
//!   `asymmetric` sharing, eqs. 5 and 6), [`infiniband`] (one QDR switch,
//!   Bridges et al. Table 2), [`fat_tree`] (the k-ary n-tree), and
//!   [`mod@file`] (any graph from a text file).
//! * Routing: dimension order and minimal adaptive on the torus
//!   ([`torus`] states the tie rules); shortest-path tables elsewhere
//!   (tie: lowest link id).
//! * Transport: [`packet`] (packets queue at every link direction,
//!   cut-through or store-and-forward) and [`flow`] (max-min fair flows,
//!   updated over the flows a change can affect); [`Network`] selects one at run
//!   time. Both satisfy the [`Transport`] contract that a lone transfer
//!   arrives at exactly `now + idle_time`.
//! * [`stats`]: per-link bytes, busy time, utilization, peak queue, and
//!   optional per-interval series.
//! * [`placement`]: processes to cores (block, round robin, explicit list
//!   or map file) and the locality of a pair.
//!
//! ## Packet pipeline
//!
//! Drop the latencies (they only shift each server's times by the sum of
//! the latencies before it). With `E(i, k)` the time packet `k` leaves
//! server `i`, cut-through gives `S(i, k) = E(i, k - 1)` and
//! `E(i, k) = max_{j <= i} (E(j, k - 1) + s(j, k))`, so `E(m, n - 1)` is
//! the largest sum over non-decreasing server choices `j_0 <= .. <=
//! j_{n-1}` of `s(j_k, k)`; store-and-forward is the classic tandem queue
//! whose `E(m, n - 1)` is the heaviest monotone lattice path. With full
//! packets alike and a shorter last one both reduce to the `O(route)`
//! forms in [`network`] (`packet_idle_time`), which tests compare with the
//! simulation exactly.
//!
//! Packet mode optionally bounds link buffers with backpressure (bubble
//! flow control on the torus, or virtual channels); see [`packet`].

/// `Display` for choice enums: the name serde gives the variant, so
/// files, command lines (clap's `ValueEnum`, with the `clap` feature; its
/// tests check the names agree) and reports write one name.
macro_rules! display_choice {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match serde_json::to_value(self) {
                    Ok(serde_json::Value::String(name)) => f.pad(&name),
                    _ => unreachable!("a choice serializes as its name"),
                }
            }
        }
    )*};
}

pub mod cm02;
pub mod config;
pub mod error;
pub mod ethernet;
pub mod fat_tree;
pub mod file;
pub mod flow;
pub mod ideal;
pub mod idle;
pub mod infiniband;
pub mod lft;
pub mod link;
pub mod machine;
pub mod network;
pub mod packet;
pub mod pair_routes;
pub mod placement;
pub mod platform;
pub mod routing;
pub mod size_factors;
pub mod stats;
pub mod torus;
pub mod torus_geom;
pub mod transport;

pub use config::{
    DEFAULT_PACKET_BYTES, DEFAULT_VC_BUFFER, Mode, ModeChoice, NetConfig, NetConfigError,
    RouteMode, SIMGRID_TCP_GAMMA, Switching,
};
pub use error::MachineError;
pub use ethernet::{Backbone, EthernetParams};
pub use fat_tree::FatTreeParams;
pub use file::MachineFileError;
pub use flow::{FlowEvent, FlowNet, UpdateStats};
pub use ideal::IdealNetwork;
pub use infiniband::InfinibandParams;
pub use link::{Link, LinkClass, LinkParams};
pub use machine::{Machine, MachineBuilder, Sharing, VRef, Vertex, VertexKind};
pub use network::{NetEvent, Network};
pub use packet::{PacketEvent, PacketNet};
pub use pair_routes::PairRoute;
pub use placement::{Locality, Mapping, Placement, PlacementError, ProcLoc};
pub use routing::Router;
pub use size_factors::{FactorError, FactorTable, SizeFactors};
pub use stats::{LinkSeries, LinkStat, SeriesBuilder};
pub use torus::{Dim, TieRule, TorusGeom, TorusParams};

display_choice!(
    Mode, ModeChoice, Switching, RouteMode, Sharing, Backbone, Dim
);
pub use transport::{Delivery, LinkBusy, LinkId, NodeId, Transfer, Transport};
