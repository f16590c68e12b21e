//! Explicit per-pair routes: for every ordered pair of hosts, the list of
//! capacity resources (link ids) its flows share, the route's latency
//! and the rate no flow of it may exceed (its FATPIPE links, which bound
//! a flow but are shared by nobody).
//!
//! A machine with such a table
//! ([`Machine::set_pair_routes`](crate::Machine::set_pair_routes)) is
//! routed by it in the flow model
//! ([`Machine::pair_route_into`](crate::Machine::pair_route_into))
//! instead of by [`Machine::next_link`](crate::Machine::next_link): a
//! route may depend on its source, cross links that other routes cross in
//! the other direction, and use one link as one capacity for both
//! directions (SimGrid's SHARED policy, CM02). The packet model refuses
//! such a machine (it follows `next_link` hop by hop):
//! [`Machine::shared_capacity`](crate::Machine::shared_capacity) names
//! why, and `auto` picks flow.
//! SimGrid platforms that are not one star or one graph are imported so
//! (`platform::flat`).

use crate::error::MachineError;
use crate::transport::LinkId;
use crate::transport::NodeId;
use sim_core::{Bandwidth, Time};

/// One ordered pair's route as the importer computes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairRoute {
    /// The link ids whose capacity its flows share, each once.
    pub links: Vec<LinkId>,
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
    links: Vec<LinkId>,
    latency: Vec<Time>,
    cap: Vec<Option<Bandwidth>>,
    /// Pairs without a route (SimGrid fails only when they communicate).
    routed: Vec<bool>,
}

impl PairTable {
    /// The table of `hosts` hosts over `link_count` links, from
    /// `route(src, dst)` for every ordered pair of distinct hosts (`None`:
    /// no route). Errors if a link id is out of range or repeated in one
    /// route, or if the routes hold too many links.
    pub(crate) fn build(
        hosts: u32,
        link_count: usize,
        mut route: impl FnMut(u32, u32) -> Option<PairRoute>,
    ) -> Result<PairTable, MachineError> {
        let n = hosts;
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
                        if l.index() >= link_count || r.links[..i].contains(&l) {
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
        Ok(t)
    }

    /// Appends the route's links from `src` to `dst` to `out` (none for an
    /// unrouted pair) and returns its latency and the rate bound of its
    /// unshared links.
    pub(crate) fn route_into(
        &self,
        src: NodeId,
        dst: NodeId,
        out: &mut Vec<LinkId>,
    ) -> (Time, Option<Bandwidth>) {
        let p = src.0 as usize * self.hosts as usize + dst.0 as usize;
        out.extend_from_slice(&self.links[self.start[p] as usize..self.start[p + 1] as usize]);
        (self.latency[p], self.cap[p])
    }

    /// The first ordered pair of distinct hosts among `nodes` without a
    /// route, if any.
    pub(crate) fn unrouted(&self, nodes: &[NodeId]) -> Option<(NodeId, NodeId)> {
        let mut seen: Vec<NodeId> = nodes.to_vec();
        seen.sort_unstable();
        seen.dedup();
        for &s in &seen {
            for &d in &seen {
                let p = s.0 as usize * self.hosts as usize + d.0 as usize;
                if s != d && !self.routed[p] {
                    return Some((s, d));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests;
