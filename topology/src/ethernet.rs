//! Two-rack top-of-rack Ethernet (Zhu, Lastovetsky, Ali, Riesen, "Communication
//! Models for Resource Constrained Hierarchical Ethernet Networks", Fig. 1).
//!
//! `racks` racks of `nodes_per_rack` nodes; each node has one NIC cabled
//! to its rack's top-of-rack (ToR) switch; the ToR switches are joined in a
//! line by backbone cables (Fig. 1 has two racks and one backbone cable).
//! All cables are full duplex. Routing is the unique shortest path (a
//! tree), taken from the machine's next-hop table.
//!
//! Rates are the *measured TCP* rates the paper's model uses, not the
//! nominal line rates: a 1 GbE NIC carries 940 Mb/s per flow (Sec. 5.1),
//! the optical 10 GbE backbone 9.4 Gb/s in aggregate (Sec. 5.1, so up to
//! 10 inter-rack flows get 940 Mb/s each and more share 9.4 Gb/s, eq. 5),
//! and the electrical 1 GbE backbone behaves like a NIC (`beta_E`, eq. 5).
//! The sharing rule of the cables is [`Sharing::Fair`] (eq. 5) or
//! [`Sharing::Asymmetric`] (eq. 6).

use crate::error::MachineError;
use crate::link::LinkParams;
use crate::machine::{Machine, MachineBuilder, Sharing, VRef};
use sim_core::{Bandwidth, Time};

/// Nodes per rack = 15 ("up to 15 nodes settled in each rack", Zhu et al.
/// Sec. 3.2).
pub const ZHU_NODES_PER_RACK: u32 = 15;
/// Nominal NIC line rate = 1 Gb/s (Zhu et al. Sec. 3.2), for reference.
pub const NIC_NOMINAL_BITS_PER_SEC: f64 = 1e9;
/// Measured per-flow TCP rate over a 1 GbE NIC = 940 Mb/s = 117.5e6 B/s
/// (Zhu et al. Sec. 5.1, `1 / beta_E`).
pub const TCP_FLOW_BYTES_PER_SEC: u64 = 117_500_000;
/// Measured aggregate rate of the optical 10 GbE backbone = 9.4 Gb/s =
/// 1.175e9 B/s (Zhu et al. Sec. 5.1, `1 / beta_O`).
pub const OPTICAL_BACKBONE_BYTES_PER_SEC: u64 = 1_175_000_000;
/// Electrical 1 GbE backbone: measured like a NIC, 940 Mb/s (Zhu et al.
/// Sec. 5.1, `beta_E`).
pub const ELECTRICAL_BACKBONE_BYTES_PER_SEC: u64 = TCP_FLOW_BYTES_PER_SEC;
/// Latency per cable direction = 75 us: the inter-rack round trip is
/// 450 us (Zhu et al. Sec. 3.2), i.e. 225 us one way over three cables
/// (NIC, backbone, NIC). An even split is our assumption.
pub const ZHU_LINK_LATENCY_US: u64 = 75;
/// Switch input buffer = 3 MiB, the TCP socket buffer size Zhu et al. set
/// (Sec. 3.2); a stand-in (bounds queues only with backpressure on).
pub const ZHU_BUFFER_BYTES: u64 = 3 * 1024 * 1024;

/// Backbone cable type (Zhu et al. Sec. 4.2: `beta_O`, `beta_E`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backbone {
    /// Optical 10 GbE, measured 9.4 Gb/s.
    Optical,
    /// Electrical 1 GbE, measured 940 Mb/s.
    Electrical,
}

/// Parameters of the rack cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EthernetParams {
    /// Racks, joined in a line by backbone cables (Fig. 1: 2).
    pub racks: u32,
    /// Nodes per rack (default 15).
    pub nodes_per_rack: u32,
    /// NIC rate per direction [bytes/s] (default 940 Mb/s measured).
    pub nic: Bandwidth,
    /// Backbone rate per direction [bytes/s].
    pub backbone: Bandwidth,
    /// Latency of every cable direction \[time\].
    pub latency: Time,
    /// Buffer of every link \[bytes\].
    pub buffer: u64,
    /// Sharing rule of cables and NICs.
    pub sharing: Sharing,
    /// Sockets per node (Zhu et al. Sec. 3.2: dual-socket).
    pub sockets: u16,
    /// Cores per socket (Zhu et al. Sec. 3.2: six-core Xeon X5670).
    pub cores_per_socket: u16,
}

impl EthernetParams {
    /// Zhu et al.'s testbed: 2 racks of 15 nodes, measured rates, the
    /// given backbone and sharing rule.
    pub fn zhu(backbone: Backbone, sharing: Sharing) -> Self {
        EthernetParams {
            racks: 2,
            nodes_per_rack: ZHU_NODES_PER_RACK,
            nic: Bandwidth::bytes_per_sec(TCP_FLOW_BYTES_PER_SEC),
            backbone: Bandwidth::bytes_per_sec(match backbone {
                Backbone::Optical => OPTICAL_BACKBONE_BYTES_PER_SEC,
                Backbone::Electrical => ELECTRICAL_BACKBONE_BYTES_PER_SEC,
            }),
            latency: Time::from_us(ZHU_LINK_LATENCY_US),
            buffer: ZHU_BUFFER_BYTES,
            sharing,
            sockets: 2,
            cores_per_socket: 6,
        }
    }

    /// Builds the machine: host `r * nodes_per_rack + i` is node `i` of
    /// rack `r`; switch `tor{r}`.
    pub fn build(&self) -> Result<Machine, MachineError> {
        if self.racks == 0 || self.nodes_per_rack == 0 {
            return Err(MachineError::Param {
                name: "racks/nodes_per_rack",
                why: "must be at least 1".into(),
            });
        }
        let hosts = self
            .racks
            .checked_mul(self.nodes_per_rack)
            .ok_or(MachineError::Param {
                name: "racks/nodes_per_rack",
                why: "too many nodes".into(),
            })?;
        let mut b = MachineBuilder::new(format!("ethernet {}x{}", self.racks, self.nodes_per_rack));
        for h in 0..hosts {
            b.host(
                format!("r{}n{}", h / self.nodes_per_rack, h % self.nodes_per_rack),
                self.sockets,
                self.cores_per_socket,
            );
        }
        let tors: Vec<VRef> = (0..self.racks)
            .map(|r| b.net(format!("tor{r}"), false))
            .collect();
        let nic = LinkParams {
            bandwidth: self.nic,
            latency: self.latency,
            buffer: self.buffer,
        };
        for h in 0..hosts {
            b.cable(
                VRef::Host(h),
                tors[(h / self.nodes_per_rack) as usize],
                nic,
                nic,
            );
        }
        let bb = LinkParams {
            bandwidth: self.backbone,
            ..nic
        };
        for r in 1..self.racks as usize {
            b.cable(tors[r - 1], tors[r], bb, bb);
        }
        b.build(self.sharing)
    }
}
