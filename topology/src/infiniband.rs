//! Flat InfiniBand: one switch, `N` nodes, QDR 4x parameters from Bridges
//! et al. (ExaMPI'15) Table 2: bandwidth 3.787 GB/s and hardware latency
//! 1616 ns, measured with `ibv_rc_pingpong` between two nodes through the
//! switch (so the 1616 ns is node-to-node).

use crate::error::MachineError;
use crate::link::LinkParams;
use crate::machine::{Machine, MachineBuilder, Sharing, VRef};
use sim_core::{Bandwidth, Time};

/// QDR 4x one-way bandwidth = 3.787e9 B/s (Bridges et al. Table 2).
pub const QDR_BYTES_PER_SEC: u64 = 3_787_000_000;
/// QDR node-to-node hardware latency = 1616 ns (Bridges et al. Table 2),
/// split evenly between the node -> switch and switch -> node links.
pub const QDR_LATENCY_NS: u64 = 1616;
/// Switch input buffer = 32 KiB (assumption; bounds queues only with backpressure on).
pub const QDR_BUFFER_BYTES: u64 = 32 * 1024;

/// Parameters of a one-switch InfiniBand cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InfinibandParams {
    /// Nodes (at least 2).
    pub nodes: u32,
    /// Link rate per direction [bytes/s].
    pub bandwidth: Bandwidth,
    /// Node-to-node latency \[time\], split evenly over the two links (an
    /// odd picosecond goes to the ejection link).
    pub latency: Time,
    /// Buffer per link \[bytes\].
    pub buffer: u64,
    /// Sockets per node.
    pub sockets: u16,
    /// Cores per socket.
    pub cores_per_socket: u16,
}

impl InfinibandParams {
    /// QDR 4x with Bridges et al. Table 2 defaults; nodes of one socket of
    /// 8 cores (an assumption: Table 2's testbed core count is not given).
    pub fn qdr(nodes: u32) -> Self {
        InfinibandParams {
            nodes,
            bandwidth: Bandwidth::bytes_per_sec(QDR_BYTES_PER_SEC),
            latency: Time::from_ns(QDR_LATENCY_NS),
            buffer: QDR_BUFFER_BYTES,
            sockets: 1,
            cores_per_socket: 8,
        }
    }

    /// Builds the machine (switch `ib0`).
    pub fn build(&self) -> Result<Machine, MachineError> {
        let mut b = MachineBuilder::new(format!("infiniband x{}", self.nodes));
        for h in 0..self.nodes {
            b.host(format!("n{h}"), self.sockets, self.cores_per_socket);
        }
        let sw = b.net("ib0", false);
        let up = self.latency.as_ps() / 2;
        let inj = LinkParams {
            bandwidth: self.bandwidth,
            latency: Time::from_ps(up),
            buffer: self.buffer,
        };
        let ej = LinkParams {
            latency: Time::from_ps(self.latency.as_ps() - up),
            ..inj
        };
        for h in 0..self.nodes {
            b.cable(VRef::Host(h), sw, inj, ej);
        }
        b.build(Sharing::Fair)
    }
}
