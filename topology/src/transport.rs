//! The seam between the machine and the MPI layer.
//!
//! A [`Transport`] moves bytes from one node's network interface to
//! another's. The MPI layer asks it to [`Transport::start`] a transfer and
//! learns, through [`Delivery`] values returned from
//! [`Transport::handle`], when the last byte has reached the destination
//! interface. The transport schedules only its own event type; the MPI
//! layer carries it as one variant of its event enum (`Ev::Net`, through
//! a `Schedule` adapter of its own), as [`crate::Network`] carries the
//! packet, flow and ideal models' events with [`sim_core::Lift`].
//!
//! Processes on the same node never use a transport: the MPI layer models
//! shared memory itself.
//!
//! A transport with links also tells, while asked to
//! ([`Transport::record_link_busy`]), when each link was busy
//! ([`LinkBusy`]); the MPI layer hands these to its observer
//! (`mpi_layer::Observer::link_busy`), so that link timelines are built
//! outside the transport, and a run nobody observes logs nothing.

use sim_core::{Bandwidth, Schedule, Time};

/// A compute node (host) of the machine, numbered from zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct NodeId(pub u32);

/// A link direction of the machine, numbered from zero in declaration
/// order: the index into [`crate::Machine::links`]. Shown and serialized
/// as the bare number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
#[repr(transparent)]
pub struct LinkId(pub u32);

impl LinkId {
    /// The id as an index into per-link tables.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for LinkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// One transfer asked of the transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Sending node.
    pub src: NodeId,
    /// Receiving node (`src != dst`).
    pub dst: NodeId,
    /// Payload \[bytes\]. Zero is allowed (a header-only control message).
    pub bytes: u64,
    /// Highest rate this transfer may reach even on an idle machine
    /// [bytes/s]: the per-process rate `R_b` of the max-rate model (Bienz et
    /// al., eq. 2). `None` means only the machine limits it.
    pub rate_cap: Option<Bandwidth>,
    /// The caller's name for the transfer, handed back on delivery.
    pub token: u64,
}

/// A transfer whose last byte reached the destination's interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The token given in [`Transfer::token`].
    pub token: u64,
    /// When the last byte arrived.
    pub at: Time,
}

/// A link direction busy sending `bytes` from `start` to `end`: one
/// packet's service (packet model: the service time, including a wait for
/// a cut-through tail), or one flow's progress over the link between two
/// rate changes (flow model; the bytes are `rate * (end - start)`,
/// rounded, and the flows on a link overlap). Told when the transport
/// decides it (a packet's service when it starts, a flow's progress when
/// its rate changes or it ends), so not in `start` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkBusy {
    /// Link id.
    pub link: LinkId,
    /// Start of the interval.
    pub start: Time,
    /// End of the interval (`>= start`).
    pub end: Time,
    /// Bytes sent in it.
    pub bytes: u64,
}

/// Moves bytes between node interfaces.
///
/// Contract:
/// * `start` at time `now` of a transfer on an otherwise idle machine
///   delivers at exactly `now + idle_time(..)`;
/// * deliveries are returned from the `handle` call of the event at which
///   they happen, in a deterministic order;
/// * the transport never schedules events of any type but its own.
pub trait Transport {
    /// The transport's own events.
    type Event;

    /// Number of nodes.
    fn nodes(&self) -> u32;

    /// Starts `t` at `sched.now()`. Deliveries that complete at once (none
    /// in a transport with latency) are pushed to `out`.
    fn start(
        &mut self,
        sched: &mut impl Schedule<Self::Event>,
        t: Transfer,
        out: &mut Vec<Delivery>,
    );

    /// Handles one of the transport's events, pushing completed transfers
    /// to `out`.
    fn handle(
        &mut self,
        sched: &mut impl Schedule<Self::Event>,
        ev: Self::Event,
        out: &mut Vec<Delivery>,
    );

    /// The time a transfer of `bytes` from `src` to `dst` with `rate_cap`
    /// takes on the idle machine: the network part of the postal model's
    /// `alpha + s / R_b`. The MPI layer subtracts it from the calibrated
    /// time to find its host-side overhead (see mpi-layer's docs).
    fn idle_time(&self, src: NodeId, dst: NodeId, bytes: u64, rate_cap: Option<Bandwidth>) -> Time;

    /// Whether transfers from a node to itself are modelled: the messages
    /// between ranks on one node then cross the transport over the
    /// node's route to itself (SimGrid's loopback, a platform's
    /// [`crate::Machine::set_loopback_routes`]) instead of the MPI
    /// layer's node memory. False by default.
    fn loopback(&self) -> bool {
        false
    }

    /// Starts (`true`) or stops logging the links' busy intervals for
    /// [`Transport::drain_link_busy`]. Off by default; a transport
    /// without links (the ideal network) never logs any.
    fn record_link_busy(&mut self, on: bool) {
        let _ = on;
    }

    /// Moves the busy intervals logged since the last call to `out`.
    fn drain_link_busy(&mut self, out: &mut Vec<LinkBusy>) {
        let _ = out;
    }
}
