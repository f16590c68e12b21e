//! A native fat tree: the k-ary n-tree (Petrini and Vanneschi, "k-ary
//! n-trees: high performance networks for massively parallel
//! architectures", IPPS 1997), the folded Clos of full bisection that
//! BookSim2's `fattree` topology also builds.
//!
//! `levels = n` levels of `k^(n-1)` switches each; a leaf switch (at
//! level 1) has `k` hosts below it, every switch below the top has `k` parents,
//! a top switch has `k` children only: `k^n` hosts. It is the extended
//! generalized fat tree XGFT(n; k, ..., k; 1, k, ..., k), built with the
//! numbering of SimGrid's `FAT_TREE` import (hosts, then the switches of
//! level 1, 2, ... in index order; [`crate::routing::fat_tree`]), so the
//! same routings apply: D-mod-k (the default), ECMP and random, in both
//! transport models.
//!
//! Host `h` is under leaf switch `h / k`; its digits in base `k`, lowest
//! first, are its position at each level. Cables are full duplex; every
//! switch-to-switch cable has `link_bandwidth` and `hop_latency`, every
//! host cable `injection` up, `ejection` down and `nic_latency` each way.

use crate::error::MachineError;
use crate::infiniband::QDR_BYTES_PER_SEC;
use crate::link::LinkParams;
use crate::machine::{Machine, MachineBuilder, Sharing, VRef};
use crate::routing::Router;
use crate::routing::fat_tree::FatTreeShape;
use sim_core::{Bandwidth, Time, limits};

/// Default arity: 18, the k-ary 2-tree of 36-port switches (a
/// two-level InfiniBand QDR fabric of 324 nodes, half of each leaf's
/// ports down and half up; assumption: a common product size, not from
/// the seeds).
pub const DEFAULT_ARITY: u32 = 18;
/// Default levels: 2 (with [`DEFAULT_ARITY`]).
pub const DEFAULT_LEVELS: u32 = 2;
/// Default latency of every cable, 808 ns: half of Bridges et al.'s QDR
/// node-to-node latency through one switch (ExaMPI'15 Table 2, 1616 ns,
/// [`crate::infiniband::QDR_LATENCY_NS`]), so that two hosts on one leaf
/// see exactly that; a cable between switches is charged the same (an
/// assumption: one switch traversal and one cable).
pub const DEFAULT_CABLE_LATENCY_NS: u64 = 808;

/// Parameters of a k-ary n-tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FatTreeParams {
    /// Children and parents per switch, `k` (at least 2).
    pub arity: u32,
    /// Switch levels, `n` (at least 1).
    pub levels: u32,
    /// Rate of a switch-to-switch cable, each direction [bytes/s].
    pub link_bandwidth: Bandwidth,
    /// Latency of a switch-to-switch cable, each direction \[time\].
    pub hop_latency: Time,
    /// Node injection rate (host -> leaf) [bytes/s].
    pub injection: Bandwidth,
    /// Node ejection rate (leaf -> host) [bytes/s].
    pub ejection: Bandwidth,
    /// Latency of a host cable, each way \[time\].
    pub nic_latency: Time,
    /// Input buffer of every link \[bytes\].
    pub buffer: u64,
    /// Sockets per node.
    pub sockets: u16,
    /// Cores per socket.
    pub cores_per_socket: u16,
}

impl Default for FatTreeParams {
    /// [`DEFAULT_ARITY`]-ary [`DEFAULT_LEVELS`]-tree of InfiniBand QDR
    /// links ([`QDR_BYTES_PER_SEC`], [`DEFAULT_CABLE_LATENCY_NS`]),
    /// 32 KiB buffers and nodes of one socket of 8 cores (as
    /// [`crate::InfinibandParams::qdr`]).
    fn default() -> Self {
        let qdr = Bandwidth::bytes_per_sec(QDR_BYTES_PER_SEC);
        let lat = Time::from_ns(DEFAULT_CABLE_LATENCY_NS);
        FatTreeParams {
            arity: DEFAULT_ARITY,
            levels: DEFAULT_LEVELS,
            link_bandwidth: qdr,
            hop_latency: lat,
            injection: qdr,
            ejection: qdr,
            nic_latency: lat,
            buffer: crate::infiniband::QDR_BUFFER_BYTES,
            sockets: 1,
            cores_per_socket: 8,
        }
    }
}

impl FatTreeParams {
    /// Hosts, `k^n` (`None` on overflow).
    pub fn hosts(&self) -> Option<u64> {
        (self.arity as u64).checked_pow(self.levels)
    }

    /// Builds the machine, refusing sizes above netsim's limits before
    /// anything is allocated.
    pub fn build(&self) -> Result<Machine, MachineError> {
        let bad = |name, why: String| MachineError::Param { name, why };
        let (k, n) = (self.arity as u64, self.levels);
        if k < 2 {
            return Err(bad("arity", format!("must be at least 2, got {k}")));
        }
        if !(1..=8).contains(&n) {
            return Err(bad("levels", format!("must be 1 to 8, got {n}")));
        }
        let hosts = self
            .hosts()
            .ok_or_else(|| bad("arity", format!("{k}^{n} hosts overflow")))?;
        limits::check_nodes(hosts).map_err(|m| bad("arity", format!("{k}^{n} hosts: {m}")))?;
        let per_level = hosts / k;
        let switches = per_level * n as u64;
        if switches > limits::MAX_ROUTERS
            || switches as u128 * hosts as u128 > limits::MAX_ROUTE_TABLE_ENTRIES as u128
        {
            return Err(bad(
                "arity",
                format!(
                    "{switches} switches and a routing table of {} entries; netsim's limits are MAX_ROUTERS ({}) and MAX_ROUTE_TABLE_ENTRIES ({})",
                    switches as u128 * hosts as u128,
                    limits::MAX_ROUTERS,
                    limits::MAX_ROUTE_TABLE_ENTRIES
                ),
            ));
        }
        let mut b = MachineBuilder::new(format!("fat tree {k}-ary {n}-tree"));
        let mut below: Vec<VRef> = (0..hosts)
            .map(|h| b.host(format!("n{h}"), self.sockets, self.cores_per_socket))
            .collect();
        let up = LinkParams {
            bandwidth: self.injection,
            latency: self.nic_latency,
            buffer: self.buffer,
        };
        let down = LinkParams {
            bandwidth: self.ejection,
            ..up
        };
        let fabric = LinkParams {
            bandwidth: self.link_bandwidth,
            latency: self.hop_latency,
            buffer: self.buffer,
        };
        // XGFT(n; m = k..k; w = 1, k..k): node i of level l - 1 (i = a wb +
        // b, wb = w[0] ... w[l-2]) has parents (a / m) (wb w) + b + wb j for
        // j < w[l-1], as the FAT_TREE import numbers them.
        for l in 1..=n {
            let here: Vec<VRef> = (0..per_level)
                .map(|i| b.net(format!("L{l}-{i}"), false))
                .collect();
            let (wb, w) = if l == 1 { (1, 1) } else { (k.pow(l - 2), k) };
            for (i, &v) in below.iter().enumerate() {
                let (a, bd) = (i as u64 / wb, i as u64 % wb);
                for j in 0..w {
                    let parent = (a / k) * (wb * w) + bd + wb * j;
                    let (f, r) = if l == 1 { (up, down) } else { (fabric, fabric) };
                    b.cable(v, here[parent as usize], f, r);
                }
            }
            below = here;
        }
        let mut m = b.build(Sharing::Fair)?;
        if let Router::Table(t) = &m.router {
            let mut w = vec![1];
            w.extend(std::iter::repeat_n(k, n as usize - 1));
            let mut counts = vec![hosts];
            counts.extend(std::iter::repeat_n(per_level, n as usize));
            let shape = FatTreeShape::new(vec![k; n as usize], w, &counts);
            m.router = Router::FatTree(t.clone(), shape);
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeId;
    use crate::config::{NetConfig, RouteMode};

    fn tree(k: u32, n: u32) -> Machine {
        FatTreeParams {
            arity: k,
            levels: n,
            ..FatTreeParams::default()
        }
        .build()
        .unwrap()
    }

    #[test]
    fn shape_counts_and_route_lengths() {
        let m = tree(4, 3);
        assert_eq!(m.nodes(), 64);
        // 3 levels of 16 switches; cables: 64 host, 64 + 64 between levels.
        assert_eq!(m.vertices.len(), 64 + 48);
        assert_eq!(m.links().len(), 2 * (64 + 128));
        // Same leaf, same level-2 subtree, across the top.
        assert_eq!(m.hops(NodeId(0), NodeId(3)), 0);
        assert_eq!(m.hops(NodeId(0), NodeId(4)), 2);
        assert_eq!(m.hops(NodeId(0), NodeId(16)), 4);
        // Every route is a shortest path, every switch has 2k ports but
        // the top's k.
        for s in 0..64 {
            let d = m.bfs_distances(s);
            for t in 0..64u32 {
                if t != s {
                    assert_eq!(m.route(NodeId(s), NodeId(t)).len() as u32, d[t as usize]);
                }
            }
        }
        for v in 64..112u32 {
            let deg = m.links().iter().filter(|l| l.from == v).count();
            assert_eq!(deg, if v >= 96 { 4 } else { 8 }, "switch {v}");
        }
    }

    #[test]
    fn dmodk_up_port_is_the_destination_digit() {
        // 4-ary 2-tree: leaf L1-0 (vertex 16) sends destination d up to
        // top switch d mod 4 (vertex 20 + d mod 4), whatever the source.
        let m = crate::config::routed(
            tree(4, 2),
            &NetConfig {
                routing: RouteMode::Dmodk,
                ..NetConfig::default()
            },
        );
        for d in 4..16u32 {
            let l = m.next_link(16, d);
            assert_eq!(m.link(l).to, 20 + d % 4, "destination {d}");
        }
        // The default table sends every destination through the first.
        let plain = tree(4, 2);
        for d in 4..16u32 {
            assert_eq!(plain.link(plain.next_link(16, d)).to, 20);
        }
    }

    /// Link `from -> to`'s bytes after `n` packets from host 0 to host 4
    /// of a 4-ary 2-tree under `nca` with `seed`, one message each.
    fn nca_loads(n: usize, seed: u64) -> impl Fn(u32, u32) -> u64 {
        use crate::{Delivery, Network, Transfer, Transport};
        use sim_core::{Engine, Lift, Model, Scheduler};
        struct D(Network, Vec<Delivery>);
        impl Model for D {
            type Event = crate::NetEvent;
            fn handle(&mut self, e: crate::NetEvent, s: &mut Scheduler<'_, crate::NetEvent>) {
                self.0.handle(&mut Lift::<_, _, _>::new(s), e, &mut self.1);
            }
        }
        let cfg = NetConfig {
            routing: RouteMode::Nca,
            packet_bytes: 64,
            seed,
            ..NetConfig::default()
        };
        let mut d = D(Network::new(tree(4, 2), cfg).unwrap(), Vec::new());
        let mut eng = Engine::new();
        for i in 0..n {
            let t = Transfer {
                src: NodeId(0),
                dst: NodeId(4),
                bytes: 64,
                rate_cap: None,
                token: i as u64,
            };
            d.0.start(&mut Lift::<_, _, _>::new(&mut eng.scheduler()), t, &mut d.1);
        }
        eng.run(&mut d);
        assert_eq!(d.1.len(), n, "every packet delivered");
        let stats = d.0.link_stats(eng.now());
        move |from, to| {
            stats
                .iter()
                .filter(|s| (s.from, s.to) == (from, to))
                .map(|s| s.bytes)
                .sum()
        }
    }

    #[test]
    fn nca_spreads_a_pair_over_every_top_switch_per_packet() {
        // 400 one-packet messages from host 0 (leaf 16) to host 4 (leaf
        // 17): each goes up leaf 16 -> top 20 + k, k drawn per packet, and
        // down top -> leaf 17 -> host 4. Each top carries Binomial(400,
        // 1/4) packets, 100 +- 8.7: within 100 +- 40 (4.6 sd) and summing
        // to 400; the per-pair routings would put all 400 on one.
        let load = nca_loads(400, 1);
        let mut total = 0;
        for top in 20..24 {
            let up = load(16, top) / 64;
            assert!((60..=140).contains(&up), "top {top}: {up} packets");
            assert_eq!(load(top, 17), up * 64, "down the way it went up");
            total += up;
        }
        assert_eq!(total, 400);
        assert_eq!(load(17, 4), 400 * 64);
        // The draw is the seed's: the same loads again, others with
        // another seed.
        let again = nca_loads(400, 1);
        let other = nca_loads(400, 2);
        let per_top = |f: &dyn Fn(u32, u32) -> u64| (20..24).map(|t| f(16, t)).collect::<Vec<_>>();
        assert_eq!(per_top(&load), per_top(&again));
        assert_ne!(per_top(&load), per_top(&other));
    }

    #[test]
    fn refuses_bad_sizes() {
        let e = |k, n| {
            FatTreeParams {
                arity: k,
                levels: n,
                ..FatTreeParams::default()
            }
            .build()
            .unwrap_err()
            .to_string()
        };
        assert!(e(1, 2).contains("arity"), "{}", e(1, 2));
        assert!(e(4, 0).contains("levels"), "{}", e(4, 0));
        assert!(e(1000, 8).contains("arity"), "{}", e(1000, 8));
        // One level: a single switch of k hosts.
        assert_eq!(tree(3, 1).nodes(), 3);
    }
}
