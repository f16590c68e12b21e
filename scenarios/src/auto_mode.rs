//! `transport.mode = "auto"` (the default): the rule that picks the
//! packet or the flow model for one run from its workload, and the
//! workload's traffic as the rule reads it ([`Traffic`]).
//!
//! The rule, in order (measured on every `netsim bench` workload:
//! docs/perf/2026-11-26-auto-mode.md; user doc: docs/SCENARIOS.md):
//! 1. the transport asks for what only the packet model has
//!    ([`packet_only`]: backpressure, a routing other than dimension
//!    order), the network has no links (ideal), the messages are not
//!    known before the run (a trace) or there are none: packet (and
//!    for synthetic traffic, which goes straight into the transport);
//! 2. the mean message is at least [`FLOW_PACKETS`] packets: flow (a
//!    packet run costs an event per packet and hop, a flow a few rate
//!    changes);
//! 3. at least [`PACKET_RANKS_PER_NODE`] ranks per node: packet (their
//!    flows start together on one node link and every start and end
//!    re-rates the others);
//! 4. otherwise flow.
//!
//! A machine whose links share one capacity (a SimGrid SHARED link
//! carrying both directions) takes flow before rules 1-4
//! ([`shared_capacity`]): the packet model refuses it; so does one
//! with SimGrid SMPI's size factors ([`size_factors`]), and a SimGrid
//! platform that needs CM02's sharing ([`cm02`]), which only the flow
//! model has.
//!
//! The choice depends only on the scenario, so a run stays
//! deterministic; the report says which mode was chosen and why.

use mpi_layer::Op;
use topology::{Mode, NetConfig, RouteMode};

/// Mean message size, in packets, from which `auto` takes the flow model
/// whatever the ranks per node. Measured: random pairs of 64 KiB (16
/// packets) run 2.7x fewer instructions in flow mode, AMG SpGEMM level 0
/// (10 KiB mean, 2.6 packets, 16 ranks per node) 2.8x more.
pub const FLOW_PACKETS: u64 = 8;

/// Ranks per node from which `auto` takes the packet model for messages
/// under [`FLOW_PACKETS`]. Measured: pairwise alltoall of 1 KiB with 8
/// ranks per node runs 1.7x more instructions in flow mode, with 1 rank
/// per node 1.3x fewer.
pub const PACKET_RANKS_PER_NODE: u32 = 8;

/// What the rule reads of a workload: its point-to-point sends (a
/// collective counts as one message of its per-rank size).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Messages.
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
}

impl Traffic {
    /// The traffic of programs held as operation lists.
    pub fn of_programs(progs: &[Vec<Op>]) -> Traffic {
        let mut t = Traffic::default();
        for op in progs.iter().flatten() {
            let bytes = match op {
                Op::Send { bytes, .. }
                | Op::Isend { bytes, .. }
                | Op::Bcast { bytes, .. }
                | Op::Reduce { bytes, .. }
                | Op::Allreduce { bytes, .. }
                | Op::Scan { bytes, .. }
                | Op::Gather { bytes, .. }
                | Op::Scatter { bytes, .. }
                | Op::Allgather { bytes, .. }
                | Op::Alltoall { bytes, .. }
                | Op::NeighborAllgather { bytes, .. }
                | Op::NeighborAlltoall { bytes, .. } => *bytes,
                Op::Sendrecv { send_bytes, .. } => *send_bytes,
                Op::Barrier { .. } => 0,
                Op::Gatherv { counts, .. }
                | Op::Scatterv { counts, .. }
                | Op::Allgatherv { counts, .. }
                | Op::ReduceScatter { counts, .. }
                | Op::Alltoallv { send: counts, .. }
                | Op::NeighborAlltoallv { send: counts, .. } => {
                    counts.iter().sum::<u64>() / (counts.len() as u64).max(1)
                }
                _ => continue,
            };
            t.messages += 1;
            t.bytes = t.bytes.saturating_add(bytes);
        }
        t
    }
}

/// The mode `auto` chose and why (for the report).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The chosen model.
    pub mode: Mode,
    /// One sentence: the rule that decided, with the workload's figures.
    pub why: String,
}

/// Why `cfg` needs the packet model whatever the workload, if it does:
/// backpressure, or a routing other than dimension order (the flow
/// model routes by dimension order only).
pub fn packet_only(cfg: &NetConfig) -> Option<Choice> {
    let why = if cfg.backpressure {
        "backpressure is modelled packet by packet".to_string()
    } else if cfg.routing != RouteMode::DimensionOrder {
        format!("routing `{}` is modelled packet by packet", cfg.routing)
    } else {
        return None;
    };
    Some(Choice {
        mode: Mode::Packet,
        why,
    })
}

/// Flow, for a machine whose links share one capacity (`why`, from
/// `Machine::shared_capacity`): only the flow model has such resources.
pub fn shared_capacity(why: &str) -> Choice {
    Choice {
        mode: Mode::Flow,
        why: format!("{why}: only the flow model has one resource for several links"),
    }
}

/// The mode for a machine with SimGrid SMPI's size factors
/// (`Machine::size_factors`): only the flow model applies them.
pub fn size_factors() -> Choice {
    Choice {
        mode: Mode::Flow,
        why: "SimGrid SMPI's size factors scale a flow's rate and latency: only the flow model has them".into(),
    }
}

/// The mode for a SimGrid platform on which netsim follows CM02's
/// sharing (`Machine::cm02`): only the flow model shares so.
pub fn cm02() -> Choice {
    Choice {
        mode: Mode::Flow,
        why: "the SimGrid platform needs CM02's sharing (routes of different latencies through one link, SMPI's factors or a link profile): only the flow model follows it".into(),
    }
}

/// The mode when ranks share a host of a SimGrid platform with
/// loopback routes (`Machine::has_loopback`): only the flow model
/// follows a host's route to itself.
pub fn loopback() -> Choice {
    Choice {
        mode: Mode::Flow,
        why: "ranks share a host of the SimGrid platform: only the flow model follows its route to itself (SimGrid's loopback)".into(),
    }
}

/// The rule of the module doc (after [`packet_only`]). `traffic`:
/// `None` when the messages are not known before the run; `links`:
/// whether the network has links (the ideal network has none).
pub fn auto_mode(
    traffic: Option<Traffic>,
    links: bool,
    packet_bytes: u64,
    ranks: u32,
    nodes_used: u32,
) -> Choice {
    let pick = |mode, why: String| Choice { mode, why };
    if !links {
        return pick(Mode::Packet, "the network has no links to model".into());
    }
    let Some(t) = traffic else {
        return pick(
            Mode::Packet,
            "a trace's messages are not known before the run".into(),
        );
    };
    if t.messages == 0 {
        return pick(Mode::Packet, "the workload sends no message".into());
    }
    let mean = t.bytes / t.messages;
    let packets = mean.div_ceil(packet_bytes.max(1)).max(1);
    let per_node = ranks.div_ceil(nodes_used.max(1));
    let size = format!(
        "{} messages of {mean} B on average ({packets} packet(s) of {packet_bytes} B)",
        t.messages
    );
    if packets >= FLOW_PACKETS {
        pick(
            Mode::Flow,
            format!("{size}: at least {FLOW_PACKETS} packets per message"),
        )
    } else if per_node >= PACKET_RANKS_PER_NODE {
        pick(
            Mode::Packet,
            format!(
                "{size}, {per_node} ranks per node: short messages, at least {PACKET_RANKS_PER_NODE} ranks sharing a node link"
            ),
        )
    } else {
        pick(
            Mode::Flow,
            format!(
                "{size}, {per_node} rank(s) per node: short messages, fewer than {PACKET_RANKS_PER_NODE} ranks sharing a node link"
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(messages: u64, bytes: u64) -> Option<Traffic> {
        Some(Traffic { messages, bytes })
    }

    /// Each branch of the rule, at its thresholds.
    #[test]
    fn rule_branches() {
        let m = |tr, links, ranks, nodes| auto_mode(tr, links, 4096, ranks, nodes).mode;
        assert_eq!(m(t(10, 10 << 20), false, 2, 2), Mode::Packet);
        assert_eq!(m(None, true, 2, 2), Mode::Packet);
        assert_eq!(m(t(0, 0), true, 2, 2), Mode::Packet);
        // 8 packets: flow even at 16 ranks per node; 7 and a bit: not.
        assert_eq!(m(t(1, 8 * 4096), true, 16, 1), Mode::Flow);
        assert_eq!(m(t(1, 7 * 4096), true, 16, 1), Mode::Packet);
        assert_eq!(m(t(1, 7 * 4096), true, 7, 1), Mode::Flow);
        // 15 ranks on 2 nodes: 8 per node.
        assert_eq!(m(t(4, 4096), true, 15, 2), Mode::Packet);
        assert_eq!(m(t(4, 4096), true, 14, 2), Mode::Flow);
        let c = auto_mode(t(3, 3 * 1024), true, 4096, 1, 1);
        assert_eq!(
            c.why,
            "3 messages of 1024 B on average (1 packet(s) of 4096 B), 1 rank(s) per node: \
             short messages, fewer than 8 ranks sharing a node link"
        );
    }

    /// Backpressure and the routings other than dimension order keep
    /// the packet model.
    #[test]
    fn packet_only_features() {
        let mut c = NetConfig::default();
        assert_eq!(packet_only(&c), None);
        c.routing = RouteMode::Valiant;
        assert_eq!(packet_only(&c).unwrap().mode, Mode::Packet);
        c.routing = RouteMode::DimensionOrder;
        c.backpressure = true;
        assert!(packet_only(&c).unwrap().why.contains("backpressure"));
    }

    /// Sends, collectives and v-collectives count; receives and waits
    /// do not.
    #[test]
    fn traffic_counts_sends() {
        use mpi_layer::{CommId, Source, TagSel};
        let c = CommId::WORLD;
        let progs = vec![
            vec![
                Op::Send {
                    dst: 1,
                    tag: 0,
                    bytes: 100,
                    comm: c,
                },
                Op::Alltoallv {
                    send: vec![10, 30],
                    recv: vec![0, 0],
                    comm: c,
                },
            ],
            vec![
                Op::Recv {
                    src: Source::Rank(0),
                    tag: TagSel::Any,
                    bytes: 100,
                    comm: c,
                },
                Op::Barrier { comm: c },
            ],
        ];
        assert_eq!(
            Traffic::of_programs(&progs),
            Traffic {
                messages: 3,
                bytes: 120
            }
        );
    }
}
