//! What one message costs: its chain of host, wire and protocol times, and
//! the term derived from the postal `alpha + s / R_b` so the calibration
//! contract holds (see [`crate::MpiParams`]).

use super::{ConfigError, Sim};
use crate::observe::Observer;
use crate::op::OpStream;
use crate::params::{LOCALITIES, Protocol, Rest};
use sim_core::{Bandwidth, PerByte, Time, transfer_time};
use topology::{Locality, NodeId, Transport};

/// How far the transport may exceed the calibrated time before
/// [`crate::Simulation::new`] rejects the parameters: 1 ns. When the
/// transport's per-byte rate equals `R_b` (a link as fast as the fitted
/// rate), packet mode rounds every packet's serialization up to whole
/// picoseconds on every link, which leaves it a few picoseconds over
/// `alpha + s / R_b`; that shortfall is clamped at run time (counted in
/// `RunResults::calibration_clamped`), not a configuration error.
pub(super) const CALIBRATION_SLACK: Time = Time::from_ns(1);

/// The per-message terms of one cell that do not depend on the message.
#[derive(Clone, Copy, Debug)]
pub(super) struct CellCosts {
    /// `Transfer::rate_cap` of the data (`None`: the machine only).
    pub wire: Option<Bandwidth>,
    /// `g` \[time\].
    pub gap: Time,
    /// `g_cpu` \[time\].
    pub cpu_gap: Time,
    /// `G` \[time/byte\].
    pub gap_per_byte: PerByte,
    /// `g_recv` \[time\].
    pub recv_gap: Time,
    /// Copies of the payload through a node's memory (intra-node).
    pub copies: u64,
}

/// The derived term of one message (see [`Rest`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct MsgCosts {
    /// The value of the cell's derived term (`L`, `o_recv` or `o_send`)
    /// for this message; unused with [`Rest::None`].
    pub derived: Time,
    /// The derived term would have been negative and was clamped to 0.
    pub clamped: bool,
}

impl<T: Transport, S: OpStream, O: Observer> Sim<T, S, O> {
    /// The cell table of [`CellCosts`], or a configuration error.
    pub(super) fn cell_costs(
        params: &crate::MpiParams,
    ) -> Result<[[CellCosts; 3]; 3], ConfigError> {
        let mut out = [[CellCosts {
            wire: None,
            gap: Time::ZERO,
            cpu_gap: Time::ZERO,
            gap_per_byte: PerByte::ZERO,
            recv_gap: Time::ZERO,
            copies: 1,
        }; 3]; 3];
        for proto in Protocol::ALL {
            for (li, loc) in LOCALITIES.into_iter().enumerate() {
                let wire =
                    params
                        .wire_rate(proto, loc)
                        .map_err(|message| ConfigError::Invalid {
                            name: "host.recv_cpu_per_byte",
                            message: format!("{proto}, {loc}: {message}"),
                        })?;
                let copies = params.shm.copies[proto.index()].max(1) as u64;
                if let (Some(mem), Some(w), false) = (
                    params.shm.memory_bandwidth,
                    wire,
                    loc == Locality::OtherNode,
                ) {
                    if (w.as_bytes_per_sec() as u128) * copies as u128
                        > mem.as_bytes_per_sec() as u128
                    {
                        return Err(ConfigError::Invalid {
                            name: "shm.memory_bandwidth",
                            message: format!(
                                "{mem} is below {copies} copies at the wire rate {w} of {proto}, {loc}: \
                                 a single message could not take alpha + s / R_b"
                            ),
                        });
                    }
                }
                out[proto.index()][li] = CellCosts {
                    wire,
                    gap: params.gap(proto, loc),
                    cpu_gap: params.cpu_gap(proto, loc),
                    gap_per_byte: params.gap_per_byte(proto, loc),
                    recv_gap: params.host(proto, loc).recv_gap,
                    copies,
                };
            }
        }
        Ok(out)
    }

    /// Whether messages of locality `loc` cross the transport: between
    /// nodes, and within one when the transport models a node's route to
    /// itself ([`Transport::loopback`]).
    pub(super) fn by_transport(&self, loc: Locality) -> bool {
        loc == Locality::OtherNode || self.transport.loopback()
    }

    /// The idle time of the data of a `bytes` message of cell (`proto`,
    /// `loc`) from node `na` to `nb`: the transport, or the node's memory.
    pub(super) fn wire_time(
        &self,
        proto: Protocol,
        loc: Locality,
        bytes: u64,
        na: NodeId,
        nb: NodeId,
    ) -> Time {
        let c = &self.cells[proto.index()][crate::params::locality_index(loc)];
        if self.by_transport(loc) {
            let wire = bytes.saturating_add(self.params.header_bytes);
            return self.transport.idle_time(na, nb, wire, c.wire);
        }
        match (c.wire, self.params.shm.memory_bandwidth) {
            (None, _) => Time::ZERO,
            (Some(w), None) => transfer_time(bytes, w),
            (Some(w), Some(_)) => {
                // The cell check guarantees copies x w <= the memory's rate.
                let rate = Bandwidth::bytes_per_sec(w.as_bytes_per_sec().saturating_mul(c.copies));
                transfer_time(bytes.saturating_mul(c.copies), rate)
            }
        }
    }

    /// The derived term of a `bytes` message of cell (`proto`, `loc`)
    /// from node `na` to `nb`.
    pub(super) fn msg_costs(
        &self,
        proto: Protocol,
        loc: Locality,
        bytes: u64,
        na: NodeId,
        nb: NodeId,
    ) -> MsgCosts {
        if self.params.host(proto, loc).rest == Rest::None {
            return MsgCosts {
                derived: Time::ZERO,
                clamped: false,
            };
        }
        let (target, needed) = self.budget(proto, loc, bytes, na, nb);
        MsgCosts {
            derived: target.saturating_sub(needed),
            clamped: needed > target,
        }
    }

    /// A message's (`o_send`, `o_recv`, `L`): the cell's given terms and
    /// the message's `derived` one.
    pub(super) fn terms(&self, proto: Protocol, loc: Locality, derived: Time) -> [Time; 3] {
        let h = self.params.host(proto, loc);
        let mut t = [h.o_send, h.o_recv, h.latency];
        match h.rest {
            Rest::SendOverhead => t[0] = derived,
            Rest::RecvOverhead => t[1] = derived,
            Rest::Latency => t[2] = derived,
            Rest::None => {}
        }
        t
    }

    /// (`alpha + s / R_b`, everything but the derived term) for one
    /// message.
    fn budget(
        &self,
        proto: Protocol,
        loc: Locality,
        bytes: u64,
        na: NodeId,
        nb: NodeId,
    ) -> (Time, Time) {
        let pp = self.params.postal(proto, loc);
        let h = self.params.host(proto, loc);
        let target = pp.alpha.saturating_add(transfer_time(bytes, pp.rate));
        let handshake = if proto == Protocol::Rendezvous && self.by_transport(loc) {
            let h = self.params.header_bytes;
            self.transport.idle_time(na, nb, h, None) + self.transport.idle_time(nb, na, h, None)
        } else {
            Time::ZERO
        };
        // The given terms; the derived one counts 0 here.
        let [o_send, o_recv, latency] = self.terms(proto, loc, Time::ZERO);
        let needed = o_send
            .saturating_add(self.wire_time(proto, loc, bytes, na, nb))
            .saturating_add(handshake)
            .saturating_add(self.params.match_one())
            .saturating_add(o_recv)
            .saturating_add(latency)
            .saturating_add(h.recv_per_byte().cost(bytes.saturating_sub(1)));
        (target, needed)
    }

    /// The calibration contract can hold: checked at the smallest size of
    /// each protocol between two nodes and within one.
    pub(super) fn check_calibration(&self) -> Result<(), ConfigError> {
        // Inter-node cells are checked only if some message may use them.
        let two_nodes = self.transport.nodes() >= 2 && self.placement.nodes_used() >= 2;
        for proto in Protocol::ALL {
            let bytes = self.params.min_size(proto);
            for loc in LOCALITIES {
                if loc == Locality::OtherNode && !two_nodes {
                    continue;
                }
                if self.params.host(proto, loc).rest == Rest::None {
                    continue;
                }
                let nb = NodeId(u32::from(loc == Locality::OtherNode));
                let (target, needed) = self.budget(proto, loc, bytes, NodeId(0), nb);
                if needed > target + CALIBRATION_SLACK {
                    let pp = self.params.postal(proto, loc);
                    return Err(ConfigError::NegativeOverhead {
                        protocol: proto,
                        locality: loc,
                        bytes,
                        alpha: pp.alpha,
                        rate: pp.rate,
                        target,
                        needed,
                    });
                }
            }
        }
        Ok(())
    }
}
