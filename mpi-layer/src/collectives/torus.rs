//! Large broadcast and allreduce over edge-disjoint spanning trees of a
//! 3-D torus, one tree per link direction (six on a 3-D torus).
//!
//! The ranks are taken as laid out one per node on a torus of
//! [`torus_dims`]`(P)` (x fastest: rank `x + X (y + Y z)`), the layout of
//! BG/P's default `XYZT` mapping with one rank per node. The message is
//! split into one part per tree; each part is cut into segments of at
//! most [`TORUS_SEGMENT_BYTES`] that are pipelined down its tree, so that
//! in the steady state every link of every tree carries a segment at once
//! and the root feeds all its links together.
//!
//! The trees (coordinates relative to the root, in the frame of the
//! tree's first dimension `x` and sign, `y` and `z` the next two
//! dimensions cyclically): the root's x-line is reached along `+x`; a
//! node off the plane `x = 0` is reached along `+y` within the plane
//! `z = 0` and along `+z` elsewhere; a node of the plane `x = 0` through
//! the `+x` wrap-around link from `x = X - 1`. The three trees of the
//! `+` links use disjoint sets of `+` links (the `+x` links of the root's
//! x-line, the wrap-around `+x` links and the `+y` and `+z` links off
//! `x = 0` for the x-tree; the others by rotating x, y, z), and the
//! three `-` trees mirror them on the `-` links, so no link carries two
//! trees. Depth is at most `X + Y + Z - 2`. This is a construction of the
//! `2n` edge-disjoint spanning trees a `k`-ary `n`-cube has (Ku, Wang and
//! Hung, "Constructing edge-disjoint spanning trees in product networks",
//! IEEE TPDS 14(3), 2003; the hypercube case is Johnsson and Ho,
//! "Optimum broadcasting and personalized communication in hypercubes",
//! IEEE TC 38(9), 1989), laid out as BG/P's MPI runs its large torus
//! broadcast: "all six links of the torus" (Hoefler et al., EuroMPI'10,
//! Sec. 4), one of its "rectangular algorithms ... on the torus network"
//! (Faraj et al., "MPI collective communications on the Blue Gene/P
//! supercomputer", HOTI 2009, the seed's reference 7). The allreduce is the same pattern run twice: a
//! pipelined reduce up the six trees to rank 0, then the broadcast down
//! them (the seed: large allreduces "use the same message pattern as
//! broadcast, but each stage is slower because of the reduction").
//!
//! Both ends of a message plan it in the same step: a node at depth `d`
//! receives segment `j` of its tree at step `d - 1 + j` and passes it on
//! at step `d + j`; in the reduce, at step `H - d + j` (`H` the tree's
//! depth) it sends its parent segment `j`, combined from its children's.

use super::{CollAlg, CollRun, P2p};

/// Largest segment a tree pipelines \[bytes\]: 128 KiB, a netsim choice
/// (no library source): on BG/P (eq. 1 of Hoefler et al.: 9.8 us +
/// 2.67 ns/B) the per-message latency is 2.8 % of such a segment's
/// 350 us, and an 8-ary 3-cube's pipeline fill (22 segments deep) is
/// 2 % of a 960 MiB broadcast.
pub const TORUS_SEGMENT_BYTES: u64 = 128 << 10;

/// The torus the ranks are taken to fill: `[X, Y, Z]` with `X >= Y >= Z`
/// and `X Y Z = p`: the largest divisor `c` of `p` not above its cube
/// root, the largest divisor of `p / c` not above its square root, and
/// the rest, in decreasing order (a cube for `p = k^3`, as
/// MPI_Dims_create gives).
pub fn torus_dims(p: u32) -> [u32; 3] {
    let p = p.max(1) as u64;
    let z = (1..=p)
        .take_while(|c| c * c * c <= p)
        .filter(|c| p % c == 0)
        .last()
        .unwrap_or(1);
    let q = p / z;
    let y = (1..=q)
        .take_while(|b| b * b <= q)
        .filter(|b| q % b == 0)
        .last()
        .unwrap_or(1);
    let mut dims = [(q / y) as u32, y as u32, z as u32];
    dims.sort_unstable_by(|a, b| b.cmp(a));
    dims
}

/// The trees of a torus and the place of one rank in them.
struct Trees {
    dims: [u32; 3],
    /// The rank's coordinates relative to the root.
    rel: [u32; 3],
    root: [u32; 3],
}

/// One tree: its first dimension and whether it runs on the `-` links.
#[derive(Clone, Copy)]
struct Tree {
    dim: usize,
    minus: bool,
}

impl Trees {
    fn new(p: u32, me: u32, root: u32) -> Trees {
        let dims = torus_dims(p);
        let coords = |r: u32| [r % dims[0], r / dims[0] % dims[1], r / (dims[0] * dims[1])];
        let (c, rc) = (coords(me), coords(root % p.max(1)));
        let rel = [0, 1, 2].map(|d| (c[d] + dims[d] - rc[d]) % dims[d]);
        Trees {
            dims,
            rel,
            root: rc,
        }
    }

    /// The trees in use: two per dimension of more than one node.
    fn list(&self) -> impl Iterator<Item = Tree> + '_ {
        (0..3)
            .filter(|&d| self.dims[d] > 1)
            .flat_map(|dim| [false, true].map(|minus| Tree { dim, minus }))
    }

    /// The tree's dimensions in its own frame.
    fn frame_dims(&self, t: Tree) -> [u32; 3] {
        [0, 1, 2].map(|i| self.dims[(t.dim + i) % 3])
    }

    /// Relative coordinates `rel` in the frame of tree `t`.
    fn to_frame(&self, t: Tree, rel: [u32; 3]) -> [u32; 3] {
        [0, 1, 2].map(|i| {
            let d = (t.dim + i) % 3;
            if t.minus {
                (self.dims[d] - rel[d]) % self.dims[d]
            } else {
                rel[d]
            }
        })
    }

    /// The rank at frame coordinates `f` of tree `t`.
    fn rank(&self, t: Tree, f: [u32; 3]) -> u32 {
        let mut c = [0; 3];
        for (i, &v) in f.iter().enumerate() {
            let d = (t.dim + i) % 3;
            let rel = if t.minus {
                (self.dims[d] - v) % self.dims[d]
            } else {
                v
            };
            c[d] = (rel + self.root[d]) % self.dims[d];
        }
        c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])
    }

    /// Depth of frame coordinates `f` in a tree of frame dimensions `n`.
    fn depth(n: [u32; 3], f: [u32; 3]) -> u32 {
        match f {
            [0, 0, 0] => 0,
            [0, y, z] => n[0] + y + z,
            [x, y, z] => x + y + z,
        }
    }

    /// The tree's depth (its deepest node's).
    fn height(n: [u32; 3]) -> u32 {
        if n[1] > 1 || n[2] > 1 {
            n[0] + n[1] + n[2] - 2
        } else {
            n[0] - 1
        }
    }

    /// The parent of frame coordinates `f` (not the root).
    fn parent(n: [u32; 3], [x, y, z]: [u32; 3]) -> [u32; 3] {
        match (x, y, z) {
            (0, _, _) => [n[0] - 1, y, z],
            (_, _, 1..) => [x, y, z - 1],
            (_, 1.., 0) => [x, y - 1, 0],
            _ => [x - 1, 0, 0],
        }
    }

    /// The children of frame coordinates `f`, at most three.
    fn children(n: [u32; 3], [x, y, z]: [u32; 3]) -> impl Iterator<Item = [u32; 3]> {
        let along_x = if x + 1 < n[0] {
            y == 0 && z == 0
        } else {
            (y, z) != (0, 0)
        };
        [
            along_x.then(|| [(x + 1) % n[0], y, z]),
            (x != 0 && z == 0 && y + 1 < n[1]).then_some([x, y + 1, z]),
            (x != 0 && z + 1 < n[2]).then_some([x, y, z + 1]),
        ]
        .into_iter()
        .flatten()
    }
}

/// `n` bytes cut into `k` near-equal pieces: piece `i`'s size.
fn piece(n: u64, k: u64, i: u64) -> u64 {
    n / k + u64::from(i < n % k)
}

/// The step plan of [`CollAlg::BcastTorusTrees`] and
/// [`CollAlg::AllreduceTorusTrees`] (see [`CollRun::plan`]).
/// O(P^(1/2)) per step: finding the torus dimensions of P ranks.
pub(super) fn plan(run: &CollRun, out: &mut Vec<P2p>) -> Option<u64> {
    out.clear();
    let (p, s) = (run.p, run.bytes);
    if p <= 1 || s == 0 {
        return None;
    }
    let trees = Trees::new(p, run.me, run.root);
    let ntrees = trees.list().count() as u64;
    let nseg = s.div_ceil(ntrees).div_ceil(TORUS_SEGMENT_BYTES).max(1);
    let phase = trees
        .list()
        .map(|t| Trees::height(trees.frame_dims(t)))
        .max()
        .unwrap_or(0) as u64
        + nseg
        - 1;
    let mut k = run.step as u64;
    let reducing = run.alg == CollAlg::AllreduceTorusTrees && k < phase;
    if run.alg == CollAlg::AllreduceTorusTrees && !reducing {
        k -= phase;
    }
    if k >= phase {
        return None;
    }
    let seg = |i: u64, j: i64| {
        (0..nseg as i64)
            .contains(&j)
            .then(|| piece(piece(s, ntrees, i), nseg, j as u64))
            .filter(|&b| b > 0)
    };
    let mut reduce = 0;
    for (i, t) in trees.list().enumerate() {
        let i = i as u64;
        let n = trees.frame_dims(t);
        let f = trees.to_frame(t, trees.rel);
        let d = Trees::depth(n, f) as i64;
        let k = k as i64;
        if reducing {
            let h = Trees::height(n) as i64;
            if let Some(b) = seg(i, k - (h - d - 1)) {
                for c in Trees::children(n, f) {
                    out.push(P2p {
                        send: false,
                        peer: trees.rank(t, c),
                        bytes: b,
                    });
                    reduce += b;
                }
            }
            if let (true, Some(b)) = (d > 0, seg(i, k - (h - d))) {
                out.push(P2p {
                    send: true,
                    peer: trees.rank(t, Trees::parent(n, f)),
                    bytes: b,
                });
            }
        } else {
            if let (true, Some(b)) = (d > 0, seg(i, k - (d - 1))) {
                out.push(P2p {
                    send: false,
                    peer: trees.rank(t, Trees::parent(n, f)),
                    bytes: b,
                });
            }
            if let Some(b) = seg(i, k - d) {
                for c in Trees::children(n, f) {
                    out.push(P2p {
                        send: true,
                        peer: trees.rank(t, c),
                        bytes: b,
                    });
                }
            }
        }
    }
    Some(reduce)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_fill_p() {
        assert_eq!(torus_dims(512), [8, 8, 8]);
        assert_eq!(torus_dims(64), [4, 4, 4]);
        assert_eq!(torus_dims(24), [4, 3, 2]);
        assert_eq!(torus_dims(7), [7, 1, 1]);
        assert_eq!(torus_dims(1), [1, 1, 1]);
        for p in 1..300 {
            let [x, y, z] = torus_dims(p);
            assert_eq!(x * y * z, p);
            assert!(x >= y && y >= z, "{p}: {x} {y} {z}");
        }
    }

    /// Every tree spans the torus from the root with depths as stated,
    /// and (dimensions of at least 3) no directed link is in two trees.
    #[test]
    fn trees_span_and_share_no_link() {
        for p in [27u32, 64, 24, 60, 7, 8, 12, 1000] {
            let dims = torus_dims(p);
            for root in [0, p / 2, p - 1] {
                let at = |r| Trees::new(p, r, root);
                let t0 = at(root);
                let mut used = std::collections::BTreeSet::new();
                let mut first_hops = std::collections::BTreeSet::new();
                for t in t0.list() {
                    let n = t0.frame_dims(t);
                    let mut reached = 0;
                    for r in 0..p {
                        let me = at(r);
                        let f = me.to_frame(t, me.rel);
                        assert_eq!(me.rank(t, f), r);
                        let d = Trees::depth(n, f);
                        assert!(d <= Trees::height(n));
                        if r != root {
                            let up = Trees::parent(n, f);
                            assert!(Trees::children(n, up).any(|c| c == f));
                        }
                        for c in Trees::children(n, f) {
                            assert_eq!(Trees::parent(n, c), f);
                            assert_eq!(Trees::depth(n, c), d + 1);
                            let child = me.rank(t, c);
                            // A link: its ends (unique when every
                            // dimension has at least 3 nodes).
                            let link = (r, child);
                            if dims.iter().all(|&k| k >= 3) {
                                assert!(used.insert(link), "p {p}: {link:?} twice");
                            }
                            if r == root {
                                first_hops.insert(child);
                            }
                            reached += 1;
                        }
                    }
                    assert_eq!(reached, p - 1, "p {p}: tree spans");
                }
                if dims.iter().all(|&k| k >= 3) {
                    assert_eq!(first_hops.len(), 6, "p {p}: the root's six neighbours");
                }
            }
        }
    }

    /// Every rank's plan to the end: sends and receives pair up step by
    /// step; (messages, bytes, bytes reduced).
    fn census(alg: CollAlg, p: u32, root: u32, s: u64) -> (u64, u64, u64) {
        let mut pairs = std::collections::BTreeMap::<(u32, u32, u32, bool), Vec<u64>>::new();
        let (mut reduced, mut out) = (0, vec![]);
        for me in 0..p {
            let mut run = CollRun {
                alg,
                p,
                me,
                root,
                bytes: s,
                elem_bytes: 8,
                step: 0,
                reduce: 0,
            };
            while let Some(r) = plan(&run, &mut out) {
                reduced += r;
                for o in &out {
                    let key = if o.send {
                        (me, o.peer, run.step, true)
                    } else {
                        (o.peer, me, run.step, false)
                    };
                    pairs.entry(key).or_default().push(o.bytes);
                }
                run.step += 1;
            }
        }
        let (mut m, mut b) = (0, 0);
        for (&(from, to, step, send), v) in &pairs {
            if send {
                assert_eq!(
                    pairs.get(&(from, to, step, false)),
                    Some(v),
                    "{from} -> {to}"
                );
                m += v.len() as u64;
                b += v.iter().sum::<u64>();
            } else {
                assert!(pairs.contains_key(&(from, to, step, true)));
            }
        }
        (m, b, reduced)
    }

    #[test]
    fn every_part_crosses_every_tree_once() {
        let seg = TORUS_SEGMENT_BYTES;
        // 27 ranks, six trees: each part's segments cross 26 links.
        assert_eq!(
            census(CollAlg::BcastTorusTrees, 27, 5, 600),
            (6 * 26, 26 * 600, 0)
        );
        // Three segments per tree (the last part one byte short).
        let s = 6 * 3 * seg - 1;
        assert_eq!(
            census(CollAlg::BcastTorusTrees, 27, 0, s),
            (3 * 6 * 26, 26 * s, 0)
        );
        // A ring of 5: two trees; the allreduce moves it up and down
        // and reduces every part at every link's receiving end.
        assert_eq!(census(CollAlg::AllreduceTorusTrees, 5, 0, 10), (16, 80, 40));
        // Fewer bytes than trees: the empty parts send nothing.
        assert_eq!(
            census(CollAlg::BcastTorusTrees, 64, 3, 4),
            (4 * 63, 4 * 63, 0)
        );
        assert_eq!(census(CollAlg::BcastTorusTrees, 1, 0, 4), (0, 0, 0));
        assert_eq!(census(CollAlg::BcastTorusTrees, 8, 0, 0), (0, 0, 0));
    }
}
