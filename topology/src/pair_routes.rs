//! Explicit per-pair routes: for every ordered pair of hosts, the list of
//! capacity resources (link ids) its flows share, the route's latency
//! and the rate no flow of it may exceed (its FATPIPE links, which bound
//! a flow but are shared by nobody).
//!
//! A machine with such a table ([`Machine::set_pair_routes`]) is routed
//! by it in the flow model ([`Machine::pair_route_into`]) instead of by
//! [`Machine::next_link`]: a route may depend on its source, cross links
//! that other routes cross in the other direction, and use one link as
//! one capacity for both directions (SimGrid's SHARED policy, CM02). The
//! packet model refuses such a machine (it follows `next_link` hop by
//! hop): [`Machine::shared_capacity`] names why, and `auto` picks flow.
//! SimGrid platforms that are not one star or one graph are imported so
//! (`platform::flat`).

use crate::error::MachineError;
use crate::machine::{Machine, SharedCapacity};
use crate::transport::NodeId;
use sim_core::{Bandwidth, Time};
use std::sync::Arc;

/// One ordered pair's route as the importer computes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairRoute {
    /// The link ids whose capacity its flows share, each once.
    pub links: Vec<u32>,
    /// The sum of the latencies of every link of the route.
    pub latency: Time,
    /// The lowest bandwidth of its links that bound a flow without being
    /// shared (FATPIPE), if any.
    pub cap: Option<Bandwidth>,
}

/// The routes of every ordered pair of hosts, flattened.
#[derive(Clone, Debug)]
pub(crate) struct PairTable {
    hosts: u32,
    /// Pair `s * hosts + d`'s links are `links[start[p]..start[p + 1]]`.
    start: Vec<u32>,
    links: Vec<u32>,
    latency: Vec<Time>,
    cap: Vec<Option<Bandwidth>>,
    /// Pairs without a route (SimGrid fails only when they communicate).
    routed: Vec<bool>,
}

impl Machine {
    /// Routes the flow model by `route(src, dst)` for every ordered pair
    /// of distinct hosts (`None`: the platform has no route between
    /// them, a run whose ranks sit on both is refused,
    /// [`Machine::unrouted`]). `why` names what needs the table, for the
    /// packet model's refusal. Errors if a link id is out of range or
    /// repeated in one route.
    pub fn set_pair_routes(
        &mut self,
        mut route: impl FnMut(u32, u32) -> Option<PairRoute>,
        why: String,
    ) -> Result<(), MachineError> {
        let n = self.hosts;
        let pairs = n as usize * n as usize;
        let mut t = PairTable {
            hosts: n,
            start: Vec::with_capacity(pairs + 1),
            links: Vec::new(),
            latency: Vec::with_capacity(pairs),
            cap: Vec::with_capacity(pairs),
            routed: Vec::with_capacity(pairs),
        };
        t.start.push(0);
        for s in 0..n {
            for d in 0..n {
                let r = if s == d { None } else { route(s, d) };
                if let Some(r) = &r {
                    for (i, &l) in r.links.iter().enumerate() {
                        if l as usize >= self.links.len() || r.links[..i].contains(&l) {
                            return Err(MachineError::Graph(format!(
                                "route {s} -> {d}: link {l} is out of range or repeated"
                            )));
                        }
                    }
                    t.links.extend_from_slice(&r.links);
                    if t.links.len() as u64 > sim_core::limits::MAX_ROUTE_TABLE_ENTRIES / 8 {
                        return Err(MachineError::Graph(format!(
                            "the routes of every pair of hosts hold more than {} links (netsim's MAX_ROUTE_TABLE_ENTRIES / 8)",
                            sim_core::limits::MAX_ROUTE_TABLE_ENTRIES / 8
                        )));
                    }
                }
                t.start.push(t.links.len() as u32);
                t.latency.push(r.as_ref().map_or(Time::ZERO, |r| r.latency));
                t.cap.push(r.as_ref().and_then(|r| r.cap));
                t.routed.push(r.is_some());
            }
        }
        self.pairs = Some(Arc::new(t));
        self.shared = Some(SharedCapacity {
            resource: (0..self.links.len() as u32).collect(),
            why,
        });
        Ok(())
    }

    /// Whether flows follow a per-pair route table.
    pub fn has_pair_routes(&self) -> bool {
        self.pairs.is_some()
    }

    /// The flow model's route from `src` to `dst`: appends its links to
    /// `out` and returns its latency and the rate bound of its unshared
    /// links. From the pair table when the machine has one (an unrouted
    /// pair gives no link), else [`Machine::route_into`] with no bound.
    pub fn pair_route_into(
        &self,
        src: NodeId,
        dst: NodeId,
        out: &mut Vec<u32>,
    ) -> (Time, Option<Bandwidth>) {
        let Some(t) = &self.pairs else {
            return (self.route_into(src, dst, out), None);
        };
        let p = src.0 as usize * t.hosts as usize + dst.0 as usize;
        out.extend_from_slice(&t.links[t.start[p] as usize..t.start[p + 1] as usize]);
        (t.latency[p], t.cap[p])
    }

    /// The first ordered pair of distinct hosts among `nodes` that the
    /// pair table has no route for, if any.
    pub fn unrouted(&self, nodes: &[NodeId]) -> Option<(NodeId, NodeId)> {
        let t = self.pairs.as_ref()?;
        let mut seen: Vec<NodeId> = nodes.to_vec();
        seen.sort_unstable();
        seen.dedup();
        for &s in &seen {
            for &d in &seen {
                let p = s.0 as usize * t.hosts as usize + d.0 as usize;
                if s != d && !t.routed[p] {
                    return Some((s, d));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::LinkParams;
    use crate::machine::{MachineBuilder, Sharing, VRef};

    fn star() -> Machine {
        let mut b = MachineBuilder::new("t");
        let p = LinkParams {
            bandwidth: Bandwidth::bytes_per_sec(100),
            latency: Time::from_ps(7),
            buffer: 0,
        };
        let h: Vec<VRef> = (0..3).map(|i| b.host(format!("h{i}"), 1, 1)).collect();
        let sw = b.net("sw", false);
        for v in h {
            b.cable(v, sw, p, p);
        }
        b.build(Sharing::Fair).unwrap()
    }

    #[test]
    fn a_pair_table_routes_each_pair_its_own_way() {
        let mut m = star();
        let mut out = Vec::new();
        // Without a table: the machine's own route, no bound.
        let (lat, cap) = m.pair_route_into(NodeId(0), NodeId(1), &mut out);
        assert_eq!(
            (out.clone(), lat, cap),
            (vec![0, 3], Time::from_ps(14), None)
        );
        m.set_pair_routes(
            |s, d| {
                (s != 2 && d != 2).then(|| PairRoute {
                    links: vec![2 * s + 1, 4],
                    latency: Time::from_ps(100 + s as u64),
                    cap: Some(Bandwidth::bytes_per_sec(5)),
                })
            },
            "why".into(),
        )
        .unwrap();
        out.clear();
        let (lat, cap) = m.pair_route_into(NodeId(1), NodeId(0), &mut out);
        assert_eq!(out, vec![3, 4]);
        assert_eq!(lat, Time::from_ps(101));
        assert_eq!(cap, Some(Bandwidth::bytes_per_sec(5)));
        assert_eq!(m.shared_capacity(), Some("why"));
        assert_eq!(m.unrouted(&[NodeId(0), NodeId(1)]), None);
        assert_eq!(
            m.unrouted(&[NodeId(1), NodeId(2)]),
            Some((NodeId(1), NodeId(2)))
        );
    }

    #[test]
    fn a_repeated_or_unknown_link_is_refused() {
        for links in [vec![1, 1], vec![99]] {
            let mut m = star();
            let r = m.set_pair_routes(
                |_, _| {
                    Some(PairRoute {
                        links: links.clone(),
                        latency: Time::ZERO,
                        cap: None,
                    })
                },
                String::new(),
            );
            assert!(r.is_err());
        }
    }
}
