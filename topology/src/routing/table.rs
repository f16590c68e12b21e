//! Table routing: a next-hop table computed once from the graph, for
//! machines built from parameters or files without arithmetic routing
//! (Ethernet racks, InfiniBand, machine files).
//!
//! For every router or switch and every destination host, the table holds
//! the first link of a shortest path (in links). **Tie rule**: among the
//! outgoing links on a shortest path, the lowest link id, i.e. the first
//! declared. Hosts never forward: a route's interior is routers and
//! switches only. Built in `O(H * (S + E_S))` time and `O(S * H)` memory
//! for `H` hosts, `S` routers and switches and `E_S` links between them
//! (the hosts' cables are walked once per destination, not once per
//! search): linear in `H` for a single switch. A lookup is `O(1)`.

use std::collections::VecDeque;

use crate::link::{Link, NONE};
use crate::transport::LinkId;

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
        // Links between routers and switches, per vertex, in id order: the
        // searches below never walk a host's cable except the
        // destination's, so that a switch with H hosts costs O(1) per
        // destination, not O(H) (issue 12, finding 9).
        let mut incoming_inner: Vec<Vec<u32>> = vec![Vec::new(); nv];
        let mut outgoing_inner: Vec<Vec<u32>> = vec![Vec::new(); nv];
        // Every link into each host (its cable's far end: one, usually).
        let mut incoming_host: Vec<Vec<u32>> = vec![Vec::new(); h];
        for (id, l) in links.iter().enumerate() {
            let (from, to) = (l.from as usize, l.to as usize);
            if to < h {
                incoming_host[to].push(id as u32);
            } else if from >= h {
                incoming_inner[to].push(id as u32);
                outgoing_inner[from].push(id as u32);
            }
        }
        let mut dist = vec![NONE; nv];
        let mut touched: Vec<u32> = Vec::new();
        let mut q = VecDeque::new();
        for dst in 0..h {
            for &v in &touched {
                dist[v as usize] = NONE;
            }
            touched.clear();
            dist[dst] = 0;
            touched.push(dst as u32);
            // Backward search from `dst`. Hosts never forward: a host
            // other than `dst` gets a distance (when cabled to `dst`) but
            // is not searched from.
            for &l in &incoming_host[dst] {
                let u = links[l as usize].from as usize;
                if dist[u] == NONE {
                    dist[u] = 1;
                    touched.push(u as u32);
                    if u >= h {
                        q.push_back(u as u32);
                    }
                }
            }
            while let Some(v) = q.pop_front() {
                for &l in &incoming_inner[v as usize] {
                    let u = links[l as usize].from as usize;
                    if dist[u] == NONE {
                        dist[u] = dist[v as usize] + 1;
                        touched.push(u as u32);
                        q.push_back(u as u32);
                    }
                }
            }
            for v in h..nv {
                if dist[v] == NONE {
                    continue;
                }
                // The tie rule: the lowest link id on a shortest path,
                // among the links to routers and switches (scanned in id
                // order, the first found is the lowest) and, one hop away,
                // the links straight to `dst`.
                let mut best = NONE;
                for &id in &outgoing_inner[v] {
                    let to = links[id as usize].to as usize;
                    if dist[to] != NONE && dist[to] + 1 == dist[v] {
                        best = id;
                        break;
                    }
                }
                if dist[v] == 1 {
                    for &id in &incoming_host[dst] {
                        if links[id as usize].from as usize == v {
                            best = best.min(id);
                        }
                    }
                }
                table[(v - h) * h + dst] = best;
            }
        }
        NextHopTable { hosts, next: table }
    }

    /// Routes `v` towards host `dst` by `link`.
    pub(crate) fn set(&mut self, v: u32, dst: u32, link: LinkId) {
        self.next[((v - self.hosts) * self.hosts + dst) as usize] = link.0;
    }

    /// The link router or switch vertex `v` takes towards host `dst`.
    #[inline]
    pub fn next_link(&self, v: u32, dst: u32) -> LinkId {
        LinkId(self.next[((v - self.hosts) * self.hosts + dst) as usize])
    }
}
