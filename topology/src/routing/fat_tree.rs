//! Fat-tree routing: D-mod-k on the extended generalized fat tree that a
//! SimGrid `FAT_TREE` cluster describes.
//!
//! The machine's default router is the shortest-path table
//! ([`super::table`]), whose tie rule (lowest link id) sends every
//! destination through the first parent. With `[transport] routing =
//! "dmodk"` the transport replaces it by this table: going down there is
//! one shortest path; going up, a switch at level `l` (hosts are level 0)
//! with `w[l]` parents takes parent number
//!
//! ```text
//! k = floor(d / (w[0] * w[1] * ... * w[l-1])) mod w[l]
//! ```
//!
//! for destination host `d` (parents numbered as the `FAT_TREE` import
//! numbers them, the topmost digit of the parent's index): every
//! destination owns one path down from the top, so that a shift
//! permutation on a full-bisection tree puts one flow on each link
//! (`dmodk_routes_a_shift_without_contention_where_the_default_does_not`
//! in the platform tests). **Tie rule**: none needed; the route is a
//! function of `d` and the switch alone. **Source**: SimGrid's own
//! fat-tree routing, `src/kernel/routing/FatTreeZone.cpp`,
//! `FatTreeZone::get_local_route` (its up part, commented "as in
//! d-mod-k"), which divides by `w[i] * p[i]` per level and takes the port
//! modulo `w[l] * p[l]`; netsim merges a level's `p` parallel cables into
//! one, so the two agree when every `p` is 1.

use crate::link::Link;

use super::NextHopTable;

/// The shape of an extended generalized fat tree XGFT(L; m; w): `m[l]`
/// children per level-`l+1` switch, `w[l]` parents per level-`l` node
/// (`w[0] = 1`: a host has one cable), as the SimGrid `FAT_TREE` import
/// builds it (hosts, then the switches of level 1, 2, ... in index
/// order).
#[derive(Clone, Debug)]
pub struct FatTreeShape {
    /// Children per switch, level 1 first.
    pub m: Vec<u64>,
    /// Parents per node, level 0 (hosts) first.
    pub w: Vec<u64>,
    /// First vertex of each level (0 for hosts), and one past the last.
    pub(crate) first: Vec<u32>,
}

impl FatTreeShape {
    /// The shape of `m` and `w`, with `counts[l]` nodes at level `l`.
    pub(crate) fn new(m: Vec<u64>, w: Vec<u64>, counts: &[u64]) -> Self {
        let mut first = vec![0u32];
        for &c in counts {
            first.push(first.last().unwrap() + c as u32);
        }
        FatTreeShape { m, w, first }
    }

    fn level(&self, v: u32) -> usize {
        self.first.iter().rposition(|&f| f <= v).unwrap()
    }

    /// The D-mod-k table: `base` with every up-going entry replaced by
    /// the link to parent `k` of the module docs.
    pub(crate) fn dmodk(&self, links: &[Link], base: &NextHopTable) -> NextHopTable {
        let hosts = self.first[1];
        let levels = self.m.len();
        let mut out_links: Vec<Vec<u32>> = vec![Vec::new(); *self.first.last().unwrap() as usize];
        for (id, l) in links.iter().enumerate() {
            out_links[l.from as usize].push(id as u32);
        }
        let mut t = base.clone();
        for l in 1..levels {
            // wb: w[0] * ... * w[l-1]; the parent index of node i is
            // (a / m[l]) * (wb * w[l]) + b + wb * k, a = i / wb, b = i % wb.
            let wb: u64 = self.w[..l].iter().product();
            for v in self.first[l]..self.first[l + 1] {
                let i = (v - self.first[l]) as u64;
                let (a, b) = (i / wb, i % wb);
                for d in 0..hosts {
                    let cur = base.next_link(v, d);
                    if self.level(links[cur as usize].to) != l + 1 {
                        continue;
                    }
                    let k = (d as u64 / wb) % self.w[l];
                    let parent = (a / self.m[l]) * (wb * self.w[l]) + b + wb * k;
                    let pv = self.first[l + 1] + parent as u32;
                    let up = out_links[v as usize]
                        .iter()
                        .copied()
                        .find(|&id| links[id as usize].to == pv)
                        .expect("the FAT_TREE import cables every node to each of its parents");
                    t.set(v, d, up);
                }
            }
        }
        t
    }
}
