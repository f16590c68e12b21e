//! The transport behind one interface: [`Network`] selects at run time
//! the packet or the flow model over a [`Machine`], or the contention-free
//! [`IdealNetwork`]. Its configuration is [`crate::config`]; the closed
//! forms of a lone transfer's time are [`crate::idle`].

use crate::config::{Mode, NetConfig, NetConfigError};
use crate::flow::{FlowEvent, FlowNet};
use crate::ideal::{Arrive, IdealNetwork};
use crate::machine::Machine;
use crate::packet::{PacketEvent, PacketNet};
use crate::stats::LinkStat;
use crate::transport::{Delivery, LinkBusy, NodeId, Transfer, Transport};
use sim_core::{Bandwidth, Lift, Schedule, Time};

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

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network").finish_non_exhaustive()
    }
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
    /// The bytes waiting in each link's queue now, by link id, into
    /// `out` (packet mode; the flow model and the ideal network queue
    /// nothing and leave `out` empty).
    pub fn waiting_bytes(&self, out: &mut Vec<u64>) {
        out.clear();
        if let Network::Packet(n) = self {
            n.waiting_bytes(out);
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

    fn loopback(&self) -> bool {
        match self {
            Network::Flow(n) => n.loopback(),
            Network::Packet(_) | Network::Ideal(_) => false,
        }
    }

    fn record_link_busy(&mut self, on: bool) {
        match self {
            Network::Packet(n) => n.record_link_busy(on),
            Network::Flow(n) => n.record_link_busy(on),
            Network::Ideal(_) => {}
        }
    }

    #[inline]
    fn drain_link_busy(&mut self, out: &mut Vec<LinkBusy>) {
        match self {
            Network::Packet(n) => n.drain_link_busy(out),
            Network::Flow(n) => n.drain_link_busy(out),
            Network::Ideal(_) => {}
        }
    }
}
