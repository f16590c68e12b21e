//! A machine's links: one direction of a full-duplex cable each
//! ([`Link`]), the parameters a builder gives them ([`LinkParams`]), and
//! what a link connects ([`LinkClass`]).

use crate::torus_geom::Dim;
use crate::transport::LinkId;
use sim_core::{Bandwidth, Time};

/// "No link" / "no vertex" marker in compact tables.
pub(crate) const NONE: u32 = u32::MAX;

/// One direction of a cable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Link {
    /// Sending vertex.
    pub from: u32,
    /// Receiving vertex.
    pub to: u32,
    /// Serialization rate [bytes/s].
    pub bandwidth: Bandwidth,
    /// Latency from the start of sending to the head's arrival at `to`
    /// (wire plus the receiving router's pipeline) \[time\].
    pub latency: Time,
    /// Input buffer at `to` \[bytes\]; bounds the packet model's queues
    /// when [`crate::NetConfig::backpressure`] is on (0: unbounded).
    pub buffer: u64,
    /// The link of the opposite direction of the same cable.
    pub reverse: LinkId,
}

/// What a link connects, for reports and plots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkClass {
    /// Host to its router or switch: the node's injection (`R_N`).
    Injection,
    /// Router or switch to a host: the node's ejection.
    Ejection,
    /// Between two torus routers, along a dimension.
    Torus(Dim),
    /// Between routers or switches of any other machine.
    Network,
}

/// Parameters of one link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkParams {
    /// Bandwidth [bytes/s].
    pub bandwidth: Bandwidth,
    /// Latency \[time\].
    pub latency: Time,
    /// Buffer \[bytes\].
    pub buffer: u64,
}
