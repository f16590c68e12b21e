//! Fat-tree routing: D-mod-k on the extended generalized fat tree that a
//! SimGrid `FAT_TREE` cluster describes.
//!
//! The import builds the shortest-path table ([`super::table`]), whose
//! tie rule (lowest link id) sends every destination through the first
//! parent; the transport replaces it by this table by default (and with
//! `[transport] routing = "dmodk"`), as SimGrid routes: going down there is
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

//!
//! `routing = "ecmp"` and `"random"` spread by source and destination
//! instead ([`Spread`]): the parent is `mix(key, s, d, l) mod w[l]`,
//! `mix` SplitMix64's finaliser (Steele, Lea and Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014) over the pair, the level
//! and a key: for `ecmp` a fixed key (a switch's hash of the packet's
//! addresses: the same pair always takes the same path, whatever the
//! seed; per-flow hashing as RFC 2991 surveys it); for `random` a key
//! drawn from stream `routing.choice` of the run's seed (a path drawn
//! per pair, reproducible for a seed). A
//! message's packets and a flow keep one path. The idle time of a
//! transfer is computed on the default route, which has the same links'
//! latencies on every up-path (the import gives every cable one latency).
//!
//! `routing = "nca"` (packet model) draws per packet instead: at every
//! switch where its route goes up, a packet takes parent
//! `k` uniform in `0..w[l]`, drawn from stream `routing.choice` of the
//! run's seed, and goes down from the nearest common ancestor it reaches
//! by the destination's digits ([`UpPorts`]). Every switch on the way up
//! has a path down to every host below it, so each draw leaves a
//! shortest path; the draws make every nearest common ancestor of the
//! pair equally likely. **Source**: BookSim2's `fattree_nca`
//! (`src/routefunc.cpp`: a random up-port per packet, down by the
//! destination) and Greenberg and Leiserson's randomized routing on fat
//! trees (FOCS 1985).

use crate::link::Link;
use crate::transport::LinkId;

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

    /// The level of vertex `v` (0 for hosts).
    pub(crate) fn level(&self, v: u32) -> usize {
        self.first.iter().rposition(|&f| f <= v).unwrap()
    }

    /// Every switch's up-links, parent `k` at index `k`
    /// (`[v - hosts]`; empty at the top level).
    fn parent_links(&self, links: &[Link]) -> Vec<Vec<LinkId>> {
        let hosts = self.first[1];
        let end = *self.first.last().unwrap();
        let mut out_links: Vec<Vec<LinkId>> = vec![Vec::new(); end as usize];
        for (id, l) in links.iter().enumerate() {
            out_links[l.from as usize].push(LinkId(id as u32));
        }
        let mut parents = vec![Vec::new(); (end - hosts) as usize];
        for l in 1..self.m.len() {
            // wb: w[0] * ... * w[l-1]; the parent index of node i is
            // (a / m[l]) * (wb * w[l]) + b + wb * k, a = i / wb, b = i % wb.
            let wb: u64 = self.w[..l].iter().product();
            for v in self.first[l]..self.first[l + 1] {
                let i = (v - self.first[l]) as u64;
                let (a, b) = (i / wb, i % wb);
                parents[(v - hosts) as usize] = (0..self.w[l])
                    .map(|k| {
                        let parent = (a / self.m[l]) * (wb * self.w[l]) + b + wb * k;
                        let pv = self.first[l + 1] + parent as u32;
                        out_links[v as usize]
                            .iter()
                            .copied()
                            .find(|&id| links[id.index()].to == pv)
                            .expect("the FAT_TREE import cables every node to each of its parents")
                    })
                    .collect();
            }
        }
        parents
    }

    /// Whether `link` goes up a level.
    fn is_up(&self, links: &[Link], link: LinkId) -> bool {
        let l = &links[link.index()];
        self.level(l.to) == self.level(l.from) + 1
    }

    /// The D-mod-k table: `base` with every up-going entry replaced by
    /// the link to parent `k` of the module docs.
    pub(crate) fn dmodk(&self, links: &[Link], base: &NextHopTable) -> NextHopTable {
        let hosts = self.first[1];
        let parents = self.parent_links(links);
        let mut t = base.clone();
        for l in 1..self.m.len() {
            let wb: u64 = self.w[..l].iter().product();
            for v in self.first[l]..self.first[l + 1] {
                for d in 0..hosts {
                    if self.is_up(links, base.next_link(v, d)) {
                        let k = (d as u64 / wb) % self.w[l];
                        t.set(v, d, parents[(v - hosts) as usize][k as usize]);
                    }
                }
            }
        }
        t
    }
}

/// The up-links of every switch, for the per-packet draw of `nca`
/// (module docs): the machine routes by D-mod-k, and the packet model
/// replaces an up-going link by a drawn one.
#[derive(Clone, Debug)]
pub struct UpPorts {
    /// First switch vertex (the number of hosts).
    hosts: u32,
    /// `parents[v - hosts]`: switch `v`'s up-links, parent `k` at `k`.
    parents: Vec<Vec<LinkId>>,
    /// Whether each link goes up a level.
    up: Vec<bool>,
}

impl UpPorts {
    /// The up-links of the fat tree `shape` with links `links`.
    pub(crate) fn new(links: &[Link], shape: &FatTreeShape) -> Self {
        UpPorts {
            hosts: shape.first[1],
            parents: shape.parent_links(links),
            up: (0..links.len() as u32)
                .map(|l| shape.is_up(links, LinkId(l)))
                .collect(),
        }
    }

    /// The link a packet at switch `v` takes when the machine's route
    /// gives `link`: `link` itself going down, else the up-link to
    /// parent `draw(w)` of `v`'s `w` parents (`draw` returns a number
    /// below `w`). `O(1)`.
    #[inline]
    pub fn next_link(&self, v: u32, link: LinkId, draw: impl FnOnce(u32) -> u32) -> LinkId {
        if !self.up[link.index()] {
            return link;
        }
        let ups = &self.parents[(v - self.hosts) as usize];
        ups[draw(ups.len() as u32) as usize]
    }
}

/// The up-link choice of `ecmp` and `random` (module docs).
#[derive(Clone, Debug)]
pub struct Spread {
    base: NextHopTable,
    shape: FatTreeShape,
    /// `parents[v - hosts]`: switch `v`'s up-links, parent `k` at `k`.
    parents: Vec<Vec<LinkId>>,
    key: u64,
}

/// The fixed key of `ecmp`: SplitMix64's increment.
pub const ECMP_KEY: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Spread {
    /// The spread routing of a fat tree with default table `base`.
    pub(crate) fn new(links: &[Link], base: &NextHopTable, shape: &FatTreeShape, key: u64) -> Self {
        Spread {
            base: base.clone(),
            shape: shape.clone(),
            parents: shape.parent_links(links),
            key,
        }
    }

    /// The default route's link (shortest-path table) from `v` to `dst`.
    pub fn default_link(&self, v: u32, dst: u32) -> LinkId {
        self.base.next_link(v, dst)
    }

    /// The link switch `v` takes towards host `dst` for a transfer from
    /// host `src`. `O(levels)`.
    pub fn next_link(&self, links: &[Link], v: u32, src: u32, dst: u32) -> LinkId {
        let t = self.base.next_link(v, dst);
        if !self.shape.is_up(links, t) {
            return t;
        }
        let l = self.shape.level(v);
        let ups = &self.parents[(v - self.shape.first[1]) as usize];
        let h = mix(self.key ^ mix(((src as u64) << 32 | dst as u64) ^ mix(l as u64)));
        ups[(h % ups.len() as u64) as usize]
    }
}

#[cfg(test)]
mod tests {
    use crate::FatTreeParams;
    use crate::routing::Router;

    #[test]
    fn nca_goes_up_by_the_draw_and_down_by_the_table() {
        // 4-ary 2-tree: hosts 0..16, leaves 16..20, tops 20..24.
        let m = FatTreeParams {
            arity: 4,
            levels: 2,
            ..FatTreeParams::default()
        }
        .build()
        .unwrap();
        let Router::FatTree(t, shape) = &m.router else {
            panic!("not a fat tree")
        };
        let ups = super::UpPorts::new(m.links(), shape);
        // Leaf 16 towards host 4 (leaf 17) goes up: draw k -> top 20 + k,
        // and the draw is asked for a number below the 4 parents.
        for k in 0..4 {
            let l = ups.next_link(16, t.next_link(16, 4), |w| {
                assert_eq!(w, 4);
                k
            });
            assert_eq!((m.link(l).from, m.link(l).to), (16, 20 + k));
        }
        // Going down (leaf to its host, top to a leaf) there is no draw.
        let never = |_| -> u32 { panic!("drew going down") };
        assert_eq!(ups.next_link(16, t.next_link(16, 3), never).0, 2 * 3 + 1);
        for top in 20..24 {
            let l = ups.next_link(top, t.next_link(top, 9), never);
            assert_eq!((m.link(l).from, m.link(l).to), (top, 18));
        }
    }
}
