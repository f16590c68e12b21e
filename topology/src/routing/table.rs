//! Table routing: a next-hop table computed once from the graph, for
//! machines built from parameters or files without arithmetic routing
//! (Ethernet racks, InfiniBand, machine files).
//!
//! For every router or switch and every destination host, the table holds
//! the first link of a shortest path (in links). **Tie rule**: among the
//! outgoing links on a shortest path, the lowest link id, i.e. the first
//! declared. Hosts never forward: a route's interior is routers and
//! switches only. Built in `O(H * (V + E))` time and `O(S * H)` memory for
//! `H` hosts and `S` routers and switches; a lookup is `O(1)`.

use std::collections::VecDeque;

use crate::link::{Link, NONE};

/// `next[(v - hosts) * hosts + dst]`: the link a packet at router or
/// switch `v` takes towards host `dst` (`NONE` if unreachable).
#[derive(Clone, Debug)]
pub struct NextHopTable {
    hosts: u32,
    next: Vec<u32>,
}

impl NextHopTable {
    /// The shortest-path table of a machine with `hosts` hosts (vertices
    /// `0..hosts`), `vertices` vertices and `links`.
    pub(crate) fn shortest_paths(links: &[Link], hosts: u32, vertices: usize) -> Self {
        let h = hosts as usize;
        let nv = vertices;
        let mut table = vec![NONE; (nv - h) * h];
        // Incoming links per vertex, for the backward search.
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nv];
        let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); nv];
        for (id, l) in links.iter().enumerate() {
            incoming[l.to as usize].push(id as u32);
            outgoing[l.from as usize].push(id as u32);
        }
        let mut dist = vec![NONE; nv];
        let mut q = VecDeque::new();
        for dst in 0..h {
            dist.fill(NONE);
            dist[dst] = 0;
            q.clear();
            q.push_back(dst as u32);
            while let Some(v) = q.pop_front() {
                for &l in &incoming[v as usize] {
                    let u = links[l as usize].from as usize;
                    // Hosts never forward: only the destination is a host
                    // on a route's interior side.
                    if dist[u] == NONE && (u >= h || v as usize == dst) {
                        dist[u] = dist[v as usize] + 1;
                        if u >= h {
                            q.push_back(u as u32);
                        }
                    }
                }
            }
            for v in h..nv {
                if dist[v] == NONE {
                    continue;
                }
                // Links are scanned in id order, so the first one on a
                // shortest path is the lowest id: the stated tie rule.
                let mut best = NONE;
                for &id in &outgoing[v] {
                    let l = &links[id as usize];
                    if dist[l.to as usize] != NONE
                        && dist[l.to as usize] + 1 == dist[v]
                        && (l.to as usize >= h || l.to as usize == dst)
                    {
                        best = id;
                        break;
                    }
                }
                table[(v - h) * h + dst] = best;
            }
        }
        NextHopTable { hosts, next: table }
    }

    /// The link router or switch vertex `v` takes towards host `dst`.
    #[inline]
    pub fn next_link(&self, v: u32, dst: u32) -> u32 {
        self.next[((v - self.hosts) * self.hosts + dst) as usize]
    }
}
