//! 3-D torus of Cray Gemini routers (Blue Waters).
//!
//! `X x Y x Z` routers with wrap-around links in every dimension and
//! [`TorusParams::nodes_per_router`] hosts on each (two on a Gemini:
//! Bienz et al., EuroMPI'18, Sec. 3: "a 3D torus Gemini interconnect, in
//! which each Gemini consists of two nodes"). Router `g` has coordinates
//! `(x, y, z)` with `g = x + X * (y + Y * z)`; its hosts are
//! `g * nodes_per_router ..`.
//!
//! The machine's geometry (coordinates, ports, ring distances,
//! partitions) is [`crate::torus_geom`]; its routing, dimension order with ties to the
//! positive way and minimal adaptive, is in [`crate::routing`].

use crate::error::MachineError;
use crate::link::LinkParams;
use crate::machine::{Machine, MachineBuilder, Sharing, VRef};
use crate::routing::Router;

pub use crate::torus_geom::{Dim, TieRule, TorusGeom};
use crate::torus_geom::{NO_LINK, step};
use sim_core::{Bandwidth, Time};

/// Parameters of a Gemini-style 3-D torus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TorusParams {
    /// Routers per dimension `[X, Y, Z]` (each at least 1).
    pub dims: [u32; 3],
    /// Hosts per router (Gemini: 2, Bienz et al. Sec. 3).
    pub nodes_per_router: u32,
    /// Router-to-router link bandwidth per dimension, each direction
    /// [bytes/s].
    pub link_bandwidth: [Bandwidth; 3],
    /// Latency of one router-to-router hop (wire plus router) \[time\].
    pub hop_latency: Time,
    /// Node injection rate `R_N` (host -> router link) [bytes/s].
    pub injection: Bandwidth,
    /// Node ejection rate (router -> host link) [bytes/s].
    pub ejection: Bandwidth,
    /// Latency of the host <-> router link, each way \[time\].
    pub nic_latency: Time,
    /// Input buffer of every link \[bytes\].
    pub buffer: u64,
    /// Sockets per node.
    pub sockets: u16,
    /// Cores per socket.
    pub cores_per_socket: u16,
    /// Dimension order's way at a half-ring tie; default
    /// [`TieRule::Plus`] (netsim's rule; SimGrid's is [`TieRule::Simgrid`]).
    pub tie: TieRule,
}

/// Blue Waters torus size `[X, Y, Z]` in Geminis: 23 x 24 x 24
/// (public NCSA Blue Waters system description; not in the seeds).
pub const BLUE_WATERS_DIMS: [u32; 3] = [23, 24, 24];
/// Hosts per Gemini router: 2 (Bienz et al. Sec. 3, seed).
pub const GEMINI_NODES_PER_ROUTER: u32 = 2;
/// Node injection rate `R_N` = 6.6e9 B/s (Bienz et al. Table 1,
/// inter-node rendezvous `R_N`; seed).
pub const BLUE_WATERS_R_N: u64 = 6_600_000_000;
/// Gemini X- and Z-dimension link bandwidth per direction = 9.375e9 B/s
/// (public figure for Gemini torus links on Blue Waters, Cray "The Gemini
/// Network" rev 1.1, 2010, and NCSA documentation; NOT from the seeds).
pub const GEMINI_XZ_LINK_BW: u64 = 9_375_000_000;
/// Gemini Y-dimension link bandwidth per direction = 4.6875e9 B/s: Y
/// cables carry half the lanes of X and Z on Blue Waters (same public
/// sources as [`GEMINI_XZ_LINK_BW`]; NOT from the seeds).
pub const GEMINI_Y_LINK_BW: u64 = 4_687_500_000;
/// Per-hop router-to-router latency = 105 ns (public figure for the
/// Gemini router pipeline plus cable, Cray "The Gemini Network"; NOT from
/// the seeds; order of magnitude only).
pub const GEMINI_HOP_LATENCY_NS: u64 = 105;
/// Host <-> Gemini latency, each way = 350 ns, so that two nodes on one
/// Gemini see 0.7 us, the low end of the 0.7-1.4 us NIC-to-NIC latency
/// Cray quotes for Gemini (as reported by the EuroBen XE6 review; NOT
/// from the seeds).
pub const GEMINI_NIC_LATENCY_NS: u64 = 350;
/// Input buffer per link = 64 KiB (an assumption, not a Gemini figure;
/// bounds queues only when backpressure is on).
pub const GEMINI_BUFFER_BYTES: u64 = 64 * 1024;

impl TorusParams {
    /// Blue Waters (23 x 24 x 24 Geminis, 2 XE6 nodes each). Sources per
    /// constant above: `R_N` from Bienz et al. Table 1 (seed); link rates,
    /// latencies and size are public figures, not from the seeds. Nodes:
    /// two AMD 6276 sockets (Bienz et al. Sec. 3) of 16 cores (AMD's
    /// specification; Bienz et al. run 16 processes per node).
    pub fn blue_waters() -> Self {
        Self::blue_waters_dims(BLUE_WATERS_DIMS)
    }

    /// Blue Waters parameters on a torus of `dims` Geminis (for partitions
    /// and scaled experiments, e.g. 16 x 16 x 16).
    pub fn blue_waters_dims(dims: [u32; 3]) -> Self {
        let xz = Bandwidth::bytes_per_sec(GEMINI_XZ_LINK_BW);
        TorusParams {
            dims,
            nodes_per_router: GEMINI_NODES_PER_ROUTER,
            link_bandwidth: [xz, Bandwidth::bytes_per_sec(GEMINI_Y_LINK_BW), xz],
            hop_latency: Time::from_ns(GEMINI_HOP_LATENCY_NS),
            injection: Bandwidth::bytes_per_sec(BLUE_WATERS_R_N),
            ejection: Bandwidth::bytes_per_sec(BLUE_WATERS_R_N),
            nic_latency: Time::from_ns(GEMINI_NIC_LATENCY_NS),
            buffer: GEMINI_BUFFER_BYTES,
            sockets: 2,
            cores_per_socket: 16,
            tie: TieRule::Plus,
        }
    }

    /// Builds the machine. Errors name the bad parameter.
    pub fn build(&self) -> Result<Machine, MachineError> {
        for (i, &k) in self.dims.iter().enumerate() {
            if k == 0 {
                return Err(MachineError::Param {
                    name: ["dims.x", "dims.y", "dims.z"][i],
                    why: "must be at least 1".into(),
                });
            }
        }
        if self.nodes_per_router == 0 {
            return Err(MachineError::Param {
                name: "nodes_per_router",
                why: "must be at least 1".into(),
            });
        }
        let routers = self.dims.iter().try_fold(1u32, |a, &k| a.checked_mul(k));
        let hosts = routers.and_then(|r| r.checked_mul(self.nodes_per_router));
        let (routers, hosts) = match (routers, hosts) {
            (Some(r), Some(h)) if h.checked_add(r).is_some() => (r, h),
            _ => {
                return Err(MachineError::Param {
                    name: "dims",
                    why: "too many routers".into(),
                });
            }
        };
        if self.sockets == 0 || self.cores_per_socket == 0 {
            return Err(MachineError::Param {
                name: "sockets/cores_per_socket",
                why: "must be at least 1".into(),
            });
        }
        let [x, y, z] = self.dims;
        let mut b = MachineBuilder::new(format!("torus {x}x{y}x{z}"));
        for h in 0..hosts {
            b.host(format!("n{h}"), self.sockets, self.cores_per_socket);
        }
        let mut rv = Vec::with_capacity(routers as usize);
        for g in 0..routers {
            let (cx, cy, cz) = (g % x, (g / x) % y, g / (x * y));
            rv.push(b.net(format!("g{cx}.{cy}.{cz}"), true));
        }
        let inj = LinkParams {
            bandwidth: self.injection,
            latency: self.nic_latency,
            buffer: self.buffer,
        };
        let ej = LinkParams {
            bandwidth: self.ejection,
            ..inj
        };
        for h in 0..hosts {
            b.cable(
                VRef::Host(h),
                rv[(h / self.nodes_per_router) as usize],
                inj,
                ej,
            );
        }
        let mut port_link = vec![NO_LINK; routers as usize * 6];
        let mut next_id = 2 * hosts;
        for g in 0..routers {
            for d in 0..3 {
                if self.dims[d] < 2 {
                    continue;
                }
                let n = step(self.dims, g, d, true);
                let p = LinkParams {
                    bandwidth: self.link_bandwidth[d],
                    latency: self.hop_latency,
                    buffer: self.buffer,
                };
                b.cable(rv[g as usize], rv[n as usize], p, p);
                port_link[g as usize * 6 + d * 2] = next_id;
                port_link[n as usize * 6 + d * 2 + 1] = next_id + 1;
                next_id += 2;
            }
        }
        let geom = TorusGeom::new(self.dims, self.nodes_per_router, hosts, port_link, self.tie);
        b.build_with(Sharing::Fair, Some(Router::DimensionOrder(geom)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::NodeId;

    #[test]
    fn tie_goes_positive_and_routes_are_minimal() {
        let m = TorusParams::blue_waters_dims([4, 1, 1]).build().unwrap();
        let t = m.torus().unwrap();
        // Router 0 to router 2 on a ring of 4: both ways are 2 hops; the
        // tie rule says +x, i.e. through router 1.
        assert_eq!(t.dor_port(0, 2 * 2), Some(0));
        // Router 0 to router 3: one hop the negative way.
        assert_eq!(t.dor_port(0, 3 * 2), Some(1));
        assert_eq!(m.hops(NodeId(0), NodeId(4)), 2);
        assert_eq!(m.hops(NodeId(0), NodeId(6)), 1);
        assert_eq!(m.hops(NodeId(0), NodeId(1)), 0);
        // The route of 0 -> 4: injection, g0->g1, g1->g2, ejection.
        let r = m.route(NodeId(0), NodeId(4));
        assert_eq!(r.len(), 4);
        assert_eq!(m.link(r[1]).to, m.link(r[2]).from);
    }

    #[test]
    fn tie_rules_on_a_4_ring() {
        // One host per router on a ring of 4: host n is router n. The
        // half-ring pairs are (0, 2), (1, 3) and back; the first hop's
        // far router says which way the route went.
        let first_hop = |tie: TieRule, a: u32, b: u32| {
            let mut p = TorusParams::blue_waters_dims([4, 1, 1]);
            p.nodes_per_router = 1;
            p.tie = tie;
            let m = p.build().unwrap();
            let r = m.route(NodeId(a), NodeId(b));
            // injection, the router hops, ejection: minimal either way
            assert_eq!(r.len() as u32, 2 + m.hops(NodeId(a), NodeId(b)));
            m.link(r[1]).to - m.nodes()
        };
        for (a, b) in [(0, 2), (1, 3), (2, 0), (3, 1)] {
            assert_eq!(first_hop(TieRule::Plus, a, b), (a + 1) % 4, "plus {a}->{b}");
            assert_eq!(
                first_hop(TieRule::Minus, a, b),
                (a + 3) % 4,
                "minus {a}->{b}"
            );
        }
        // SimGrid: + except from coordinate k / 2 = 2, which goes -.
        assert_eq!(first_hop(TieRule::Simgrid, 0, 2), 1);
        assert_eq!(first_hop(TieRule::Simgrid, 1, 3), 2);
        assert_eq!(first_hop(TieRule::Simgrid, 2, 0), 1);
        assert_eq!(first_hop(TieRule::Simgrid, 3, 1), 0);
        // Not a tie: the rule does not matter (0 -> 1 is one hop, +).
        assert_eq!(first_hop(TieRule::Simgrid, 0, 1), 1);
    }

    #[test]
    fn partitions() {
        let m = TorusParams::blue_waters_dims([8, 2, 2]).build().unwrap();
        let t = m.torus().unwrap();
        let line = t.line([2, 1, 0], 0, 4).unwrap();
        assert_eq!(line.len(), 8);
        // Consecutive routers of the line are one hop apart.
        assert_eq!(m.hops(line[0], line[2]), 1);
        assert_eq!(m.hops(line[0], line[6]), 3);
        // A job of 32 processes, 16 per node, on the line (Bienz et al.
        // Fig. 6 runs 32 processes per Gemini): block mapping fills the
        // two nodes of the first Gemini.
        let p = crate::Placement::map(32, &line, 16, 2, crate::Mapping::Block).unwrap();
        assert_eq!(p.node(0), line[0]);
        assert_eq!(p.node(16), line[1]);
        assert_eq!(p.nodes_used(), 2);
        assert_eq!(p.locality(0, 8), crate::Locality::SameNode);
        assert_eq!(p.locality(0, 16), crate::Locality::OtherNode);
        let rr = crate::Placement::map(8, &line, 16, 2, crate::Mapping::RoundRobin).unwrap();
        assert_eq!(rr.nodes_used(), 8);
        assert!(crate::Placement::map(129, &line, 16, 2, crate::Mapping::Block).is_err());
        let cube = t.cube([0, 0, 0], 2).unwrap();
        assert_eq!(cube.len(), 16);
        assert!(t.cube([0, 0, 0], 3).is_err());
        assert!(t.line([9, 0, 0], 0, 2).is_err());
        assert!(TorusParams::blue_waters_dims([0, 1, 1]).build().is_err());
    }
}
