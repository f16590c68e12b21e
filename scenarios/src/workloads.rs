//! Built-in workloads: the experiments of the seed papers as per-rank
//! programs of [`Op`]s.
//!
//! Every generator is a pure function of its parameters (and a seed where
//! it draws random numbers), returning one program per rank. Placement of
//! ranks on nodes is the scenario's business, except where the paper fixes
//! it (Zhu's patterns give every logical link its own pair of processes on
//! given nodes; see [`ZhuPattern`]).

use mpi_layer::{CommId, Op, Rank, ReqId, Source, TagSel};
use sim_core::rand::Rng;
use sim_core::{RngStreams, Time};
use topology::{NodeId, Placement, ProcLoc};

const W: CommId = CommId::WORLD;

/// Per-rank programs, indexed by rank.
pub type Programs = Vec<Vec<Op>>;

fn isend(dst: Rank, tag: i32, bytes: u64, req: u64) -> Op {
    Op::Isend {
        dst,
        tag,
        bytes,
        comm: W,
        req: ReqId(req),
    }
}

fn irecv(src: Rank, tag: i32, bytes: u64, req: u64) -> Op {
    Op::Irecv {
        src: Source::Rank(src),
        tag: TagSel::Tag(tag),
        bytes,
        comm: W,
        req: ReqId(req),
    }
}

fn waitall(first: u64, n: u64) -> Op {
    Op::Waitall {
        reqs: (first..first + n).map(ReqId).collect(),
    }
}

/// Ping-pong between ranks 0 and 1 (of `procs` ranks; the others idle):
/// for each size, `reps` round trips of blocking send and receive. The
/// tag of each exchange is its size index, so sizes never cross.
pub fn ping_pong(procs: u32, sizes: &[u64], reps: u32) -> Programs {
    assert!(procs >= 2, "ping-pong needs two ranks");
    let mut p: Programs = vec![Vec::new(); procs as usize];
    for (i, &s) in sizes.iter().enumerate() {
        let tag = i as i32;
        for _ in 0..reps {
            p[0].push(Op::Send {
                dst: 1,
                tag,
                bytes: s,
                comm: W,
            });
            p[0].push(Op::Recv {
                src: Source::Rank(1),
                tag: TagSel::Tag(tag),
                bytes: s,
                comm: W,
            });
            p[1].push(Op::Recv {
                src: Source::Rank(0),
                tag: TagSel::Tag(tag),
                bytes: s,
                comm: W,
            });
            p[1].push(Op::Send {
                dst: 0,
                tag,
                bytes: s,
                comm: W,
            });
        }
    }
    p
}

/// Order in which HighVolumePingPong posts its receives relative to the
/// order messages arrive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecvOrder {
    /// `send_tags[i] = recv_tags[i]`: every arrival matches the first
    /// posted receive (Bienz et al. Section 4.1, the ideal case).
    #[default]
    InOrder,
    /// `send_tags[i] = recv_tags[n - i - 1]`: every arrival scans the whole
    /// posted queue (the worst case).
    Reversed,
}

/// HighVolumePingPong, Algorithm 1 of Bienz et al. (`000_...`), between
/// every listed pair `(a, b)` with `a < b`: `a` isends `n` messages of `s`
/// bytes to `b` and waits for all, then irecvs `n` and waits; `b` does the
/// opposite. Receives are posted in `order` relative to the send tags.
pub fn high_volume_ping_pong(
    procs: u32,
    pairs: &[(Rank, Rank)],
    n: u32,
    s: u64,
    order: RecvOrder,
) -> Programs {
    let mut p: Programs = vec![Vec::new(); procs as usize];
    let n64 = n as u64;
    let send_tag = |i: u32| i as i32;
    let recv_tag = |i: u32| match order {
        RecvOrder::InOrder => i as i32,
        RecvOrder::Reversed => (n - 1 - i) as i32,
    };
    for &(a, b) in pairs {
        let (lo, hi) = (a.min(b), a.max(b));
        let sends = |peer: Rank, prog: &mut Vec<Op>, base: u64| {
            prog.extend((0..n).map(|i| isend(peer, send_tag(i), s, base + i as u64)));
            prog.push(waitall(base, n64));
        };
        let recvs = |peer: Rank, prog: &mut Vec<Op>, base: u64| {
            prog.extend((0..n).map(|i| irecv(peer, recv_tag(i), s, base + i as u64)));
            prog.push(waitall(base, n64));
        };
        sends(hi, &mut p[lo as usize], 0);
        recvs(hi, &mut p[lo as usize], n64);
        recvs(lo, &mut p[hi as usize], 0);
        sends(lo, &mut p[hi as usize], n64);
    }
    p
}

/// The tag of the zero-byte synchronization and acknowledgement messages
/// of the calibration benchmarks (`calibrate/bench/netsim_bench.c` uses
/// `MPI_TAG_UB - 1`): apart from every data tag.
pub const SYNC_TAG: i32 = i32::MAX - 1;

fn sync_send(dst: Rank) -> Op {
    Op::Send {
        dst,
        tag: SYNC_TAG,
        bytes: 0,
        comm: W,
    }
}

fn sync_recv(src: Rank) -> Op {
    Op::Recv {
        src: Source::Rank(src),
        tag: TagSel::Tag(SYNC_TAG),
        bytes: 0,
        comm: W,
    }
}

/// When HighVolumePingPong's receives are posted relative to its sends:
/// the three `hvpp-*` kinds of the calibration benchmark
/// (`calibrate/README.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HvppMode {
    /// Bienz et al. Algorithm 1: rank 0 sends n and waits, then receives
    /// n; rank 1 receives n, then sends n ([`high_volume_ping_pong`]).
    #[default]
    Paper,
    /// In each direction the receiver posts all n receives, then sends a
    /// zero-byte sync; the sender waits for it, then sends n: every
    /// arrival searches `posted_recvs`.
    Posted,
    /// In each direction the sender starts all n sends, then a zero-byte
    /// sync (behind them on the ordered channel); the receiver waits for
    /// it, then posts all n receives: every receive searches
    /// `unexpected_msgs`.
    Unexpected,
}

/// HighVolumePingPong between ranks 0 and 1 in `mode`, `n` messages of
/// `s` bytes each way, receives posted in `order` relative to the send
/// tags `0..n`; the operation sequence of the calibration benchmark, one
/// exchange (the benchmark times it on rank 0 from the end of a barrier,
/// so rank 0's finish time is what it measures).
pub fn hvpp(n: u32, s: u64, order: RecvOrder, mode: HvppMode) -> Programs {
    if mode == HvppMode::Paper {
        return high_volume_ping_pong(2, &[(0, 1)], n, s, order);
    }
    let n64 = n as u64;
    let recv_tag = |i: u32| match order {
        RecvOrder::InOrder => i as i32,
        RecvOrder::Reversed => (n - 1 - i) as i32,
    };
    let sends = |peer: Rank, base: u64| -> Vec<Op> {
        (0..n)
            .map(|i| isend(peer, i as i32, s, base + i as u64))
            .collect()
    };
    let recvs = |peer: Rank, base: u64| -> Vec<Op> {
        (0..n)
            .map(|i| irecv(peer, recv_tag(i), s, base + i as u64))
            .collect()
    };
    let mut a = Vec::with_capacity(4 * n as usize + 6);
    let mut b = Vec::with_capacity(4 * n as usize + 6);
    match mode {
        HvppMode::Posted => {
            a.push(sync_recv(1));
            a.extend(sends(1, 0));
            a.push(waitall(0, n64));
            a.extend(recvs(1, n64));
            a.push(sync_send(1));
            a.push(waitall(n64, n64));
            b.extend(recvs(0, 0));
            b.push(sync_send(0));
            b.push(waitall(0, n64));
            b.push(sync_recv(0));
            b.extend(sends(0, n64));
            b.push(waitall(n64, n64));
        }
        HvppMode::Unexpected => {
            a.extend(sends(1, 0));
            a.push(sync_send(1));
            a.push(waitall(0, n64));
            a.push(sync_recv(1));
            a.extend(recvs(1, n64));
            a.push(waitall(n64, n64));
            b.push(sync_recv(0));
            b.extend(recvs(0, 0));
            b.push(waitall(0, n64));
            b.extend(sends(0, n64));
            b.push(sync_send(0));
            b.push(waitall(n64, n64));
        }
        HvppMode::Paper => unreachable!("handled above"),
    }
    vec![a, b]
}

/// Max-rate multi-pair ping-pong (Bienz et al. Section 3, Fig. 2): `ppn`
/// ranks on node 0 (ranks `0..ppn`) each ping-pong `reps` times with their
/// partner on node 1 (ranks `ppn..2 ppn`), all at once, with messages of
/// `s` bytes. Use a block placement of `ppn` ranks per node.
pub fn max_rate_pairs(ppn: u32, s: u64, reps: u32) -> Programs {
    let mut p: Programs = vec![Vec::new(); 2 * ppn as usize];
    for i in 0..ppn {
        let (a, b) = (i, ppn + i);
        for _ in 0..reps {
            p[a as usize].push(Op::Send {
                dst: b,
                tag: 0,
                bytes: s,
                comm: W,
            });
            p[a as usize].push(Op::Recv {
                src: Source::Rank(b),
                tag: TagSel::Tag(0),
                bytes: s,
                comm: W,
            });
            p[b as usize].push(Op::Recv {
                src: Source::Rank(a),
                tag: TagSel::Tag(0),
                bytes: s,
                comm: W,
            });
            p[b as usize].push(Op::Send {
                dst: a,
                tag: 0,
                bytes: s,
                comm: W,
            });
        }
    }
    p
}

/// The 4-Gemini line test of Bienz et al. Fig. 6: four Geminis in a line,
/// `per_gemini` ranks on each (two nodes of 16 cores: 32), ranks numbered
/// Gemini by Gemini. Every rank on G0 runs HighVolumePingPong with the
/// corresponding rank on G2, and every rank on G1 with its partner on G3,
/// so all traffic crosses the G1-G2 link.
pub fn gemini_line(per_gemini: u32, n: u32, s: u64, order: RecvOrder) -> Programs {
    let g = per_gemini;
    let pairs: Vec<(Rank, Rank)> = (0..g)
        .map(|i| (i, 2 * g + i))
        .chain((0..g).map(|i| (g + i, 3 * g + i)))
        .collect();
    high_volume_ping_pong(4 * g, &pairs, n, s, order)
}

/// One of Zhu et al.'s random bidirectional patterns (Section 7): logical
/// links between nodes of a two-rack cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZhuPattern {
    /// `(source node, destination node)` of every logical link.
    pub links: Vec<(u32, u32)>,
}

impl ZhuPattern {
    /// Section 7: for each of `nodes` nodes in turn, `rounds` times pick a
    /// different node uniformly at random and include the link with
    /// probability 1/2. Draws from the stream `zhu-pattern` of `seed`,
    /// indexed by `index` (one pattern per index).
    pub fn random(nodes: u32, rounds: u32, seed: u64, index: u64) -> Self {
        assert!(nodes >= 2, "a pattern needs two nodes");
        let mut rng = RngStreams::new(seed).stream_indexed("zhu-pattern", index);
        let mut links = Vec::new();
        for src in 0..nodes {
            for _ in 0..rounds {
                let mut dst = rng.random_range(0..nodes - 1);
                if dst >= src {
                    dst += 1;
                }
                if rng.random_bool(0.5) {
                    links.push((src, dst));
                }
            }
        }
        ZhuPattern { links }
    }

    /// The programs: logical link `i` is rank `2i` (on the source node)
    /// sending `bytes` to rank `2i + 1` (on the destination node), all at
    /// once. [`ZhuPattern::node_of_rank`] gives the placement.
    pub fn programs(&self, bytes: u64) -> Programs {
        let mut p = Vec::with_capacity(2 * self.links.len());
        for i in 0..self.links.len() as u32 {
            p.push(vec![
                isend(2 * i + 1, 0, bytes, 0),
                Op::Wait { req: ReqId(0) },
            ]);
            p.push(vec![irecv(2 * i, 0, bytes, 0), Op::Wait { req: ReqId(0) }]);
        }
        p
    }

    /// The node of every rank of [`ZhuPattern::programs`].
    pub fn node_of_rank(&self) -> Vec<u32> {
        self.links.iter().flat_map(|&(a, b)| [a, b]).collect()
    }

    /// The placement of [`ZhuPattern::programs`] on nodes numbered as in
    /// the pattern, with `sockets` sockets of `cores_per_socket` cores
    /// ([`place_in_order`]; Zhu's nodes: 2 x 6, Sec. 3.2).
    pub fn placement(&self, sockets: u16, cores_per_socket: u16) -> Placement {
        place_in_order(&self.node_of_rank(), NodeId, sockets, cores_per_socket)
    }
}

/// Rank `r` on node `node(node_of_rank[r])`, on the next unused core of
/// that node in rank order (cores fill socket 0 first; cores beyond the
/// last socket stay on it): one process per core, as Zhu et al. map their
/// logical links (Sec. 4.3).
pub fn place_in_order(
    node_of_rank: &[u32],
    node: impl Fn(u32) -> NodeId,
    sockets: u16,
    cores_per_socket: u16,
) -> Placement {
    let mut used: Vec<u16> = Vec::new();
    let locs = node_of_rank
        .iter()
        .map(|&n| {
            if used.len() <= n as usize {
                used.resize(n as usize + 1, 0);
            }
            let core = used[n as usize];
            used[n as usize] = core.saturating_add(1);
            ProcLoc {
                node: node(n),
                socket: (core / cores_per_socket.max(1)).min(sockets.saturating_sub(1)),
                core,
            }
        })
        .collect();
    Placement::from_locs(locs)
}

/// A collective to run as a workload (scenario files name it in kebab
/// case: `reduce-scatter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Collective {
    /// `MPI_Barrier`.
    Barrier,
    /// `MPI_Bcast` from rank 0.
    Bcast,
    /// `MPI_Reduce` to rank 0.
    Reduce,
    /// `MPI_Allreduce`.
    Allreduce,
    /// `MPI_Allgather`.
    Allgather,
    /// `MPI_Alltoall`.
    Alltoall,
    /// `MPI_Gather` to rank 0.
    Gather,
    /// `MPI_Scatter` from rank 0.
    Scatter,
    /// `MPI_Reduce_scatter` with equal counts.
    ReduceScatter,
}

impl Collective {
    /// All collectives, for sweeps and tests.
    pub const ALL: [Collective; 9] = [
        Collective::Barrier,
        Collective::Bcast,
        Collective::Reduce,
        Collective::Allreduce,
        Collective::Allgather,
        Collective::Alltoall,
        Collective::Gather,
        Collective::Scatter,
        Collective::ReduceScatter,
    ];

    /// The operation for `procs` ranks and `bytes` (per rank, or per peer
    /// for alltoall, as in [`Op`]).
    pub fn op(self, procs: u32, bytes: u64) -> Op {
        match self {
            Collective::Barrier => Op::Barrier { comm: W },
            Collective::Bcast => Op::Bcast {
                root: 0,
                bytes,
                elem_bytes: mpi_layer::ELEMENT_BYTES,
                comm: W,
            },
            Collective::Reduce => Op::Reduce {
                root: 0,
                bytes,
                elem_bytes: mpi_layer::ELEMENT_BYTES,
                comm: W,
            },
            Collective::Allreduce => Op::Allreduce {
                bytes,
                elem_bytes: mpi_layer::ELEMENT_BYTES,
                comm: W,
            },
            Collective::Allgather => Op::Allgather { bytes, comm: W },
            Collective::Alltoall => Op::Alltoall { bytes, comm: W },
            Collective::Gather => Op::Gather {
                root: 0,
                bytes,
                comm: W,
            },
            Collective::Scatter => Op::Scatter {
                root: 0,
                bytes,
                comm: W,
            },
            Collective::ReduceScatter => Op::ReduceScatter {
                counts: vec![bytes; procs as usize],
                elem_bytes: mpi_layer::ELEMENT_BYTES,
                comm: W,
            },
        }
    }
}

/// `reps` back-to-back calls of one collective on `procs` ranks.
pub fn collective(c: Collective, procs: u32, bytes: u64, reps: u32) -> Programs {
    let op = c.op(procs, bytes);
    (0..procs)
        .map(|_| vec![op.clone(); reps as usize])
        .collect()
}

/// Message rate (Bridges et al. Section 4, Sandia message-rate benchmark):
/// rank 0 keeps `window` isends of `s` bytes to rank 1 in flight, rank 1
/// pre-posts `window` matching irecvs; `iters` windows, each closed by a
/// waitall on both sides.
pub fn message_rate(window: u32, s: u64, iters: u32) -> Programs {
    let mut p: Programs = vec![Vec::new(), Vec::new()];
    let w = window as u64;
    for it in 0..iters as u64 {
        let base = it * w;
        p[0].extend((0..w).map(|i| isend(1, i as i32, s, base + i)));
        p[0].push(waitall(base, w));
        p[1].extend((0..w).map(|i| irecv(0, i as i32, s, base + i)));
        p[1].push(waitall(base, w));
    }
    p
}

/// Message rate as the calibration benchmark measures it (`msgrate`,
/// after osu_bw): `iters` windows; in each, rank 0 isends `window`
/// messages of `s` bytes (tags `0..window`) and waits for them, then
/// receives rank 1's zero-byte acknowledgement; rank 1 irecvs the window,
/// waits for it, then sends the acknowledgement. The benchmark reports
/// rank 0's time divided by `iters`.
pub fn message_rate_acked(window: u32, s: u64, iters: u32) -> Programs {
    let mut p = message_rate(window, s, iters);
    // message_rate ends every window with one waitall per rank: add the
    // acknowledgement after each.
    let per = window as usize + 1;
    for (rank, op) in [(0usize, sync_recv(1)), (1, sync_send(0))] {
        let old = std::mem::take(&mut p[rank]);
        let mut v = Vec::with_capacity(old.len() + iters as usize);
        for chunk in old.chunks(per) {
            v.extend_from_slice(chunk);
            v.push(op.clone());
        }
        p[rank] = v;
    }
    p
}

/// The neighbourhood of a 3-D stencil.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stencil {
    /// Faces only: 6 neighbours.
    Point7,
    /// Faces, edges and corners: 26 neighbours.
    Point27,
}

/// A 3-D halo exchange on a `dims[0] x dims[1] x dims[2]` process grid
/// (rank = x + X (y + Y z)), periodic in every dimension when `periodic`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Halo {
    /// Process grid.
    pub dims: [u32; 3],
    /// 7- or 27-point.
    pub stencil: Stencil,
    /// Bytes per face message.
    pub face_bytes: u64,
    /// Bytes per edge message (27-point only).
    pub edge_bytes: u64,
    /// Bytes per corner message (27-point only).
    pub corner_bytes: u64,
    /// Wrap around at the grid's boundary.
    pub periodic: bool,
    /// Iterations.
    pub iters: u32,
    /// Computation between iterations.
    pub compute: Time,
}

/// The most cubic factorization `a <= b <= c` of `p` with `a b c = p`.
pub fn grid_dims(p: u32) -> [u32; 3] {
    let mut best = [1, 1, p];
    let score = |d: [u32; 3]| d[2] - d[0];
    for a in 1..=p {
        if a * a * a > p {
            break;
        }
        if p % a != 0 {
            continue;
        }
        let q = p / a;
        for b in a..=q {
            if b * b > q {
                break;
            }
            if q % b == 0 && score([a, b, q / b]) < score(best) {
                best = [a, b, q / b];
            }
        }
    }
    best
}

impl Halo {
    /// The neighbours of `rank` with the bytes sent to each, in a fixed
    /// order (z, y, x offsets from -1 to 1); a neighbour reached by
    /// several offsets (grids thinner than 3) appears once per offset, as
    /// a real stencil code sends one message per direction.
    pub fn neighbours(&self, rank: Rank) -> Vec<(Rank, u64, i32)> {
        let [nx, ny, nz] = self.dims;
        let (x, y, z) = (rank % nx, rank / nx % ny, rank / (nx * ny));
        let mut out = Vec::new();
        for dz in -1i64..=1 {
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let nonzero = (dx != 0) as u32 + (dy != 0) as u32 + (dz != 0) as u32;
                    let bytes = match (nonzero, self.stencil) {
                        (0, _) => continue,
                        (1, _) => self.face_bytes,
                        (2, Stencil::Point27) => self.edge_bytes,
                        (3, Stencil::Point27) => self.corner_bytes,
                        _ => continue,
                    };
                    let wrap = |c: u32, d: i64, n: u32| -> Option<u32> {
                        let v = c as i64 + d;
                        if (0..n as i64).contains(&v) {
                            Some(v as u32)
                        } else if self.periodic {
                            Some(v.rem_euclid(n as i64) as u32)
                        } else {
                            None
                        }
                    };
                    let (Some(a), Some(b), Some(c)) =
                        (wrap(x, dx, nx), wrap(y, dy, ny), wrap(z, dz, nz))
                    else {
                        continue;
                    };
                    // The tag names the direction, so that the receiver can
                    // tell apart two messages from one peer (thin grids).
                    let dir = ((dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)) as i32;
                    out.push((a + nx * (b + ny * c), bytes, dir));
                }
            }
        }
        out
    }

    /// The programs: each iteration posts every irecv, then every isend,
    /// waits for all, then computes.
    pub fn programs(&self) -> Programs {
        let p = self.dims.iter().product::<u32>();
        (0..p)
            .map(|r| {
                let nb = self.neighbours(r);
                let k = nb.len() as u64;
                let mut prog = Vec::with_capacity(self.iters as usize * (2 * nb.len() + 2));
                for it in 0..self.iters as u64 {
                    let base = it * 2 * k;
                    // A message sent in direction d arrives from direction
                    // 26 - d (the opposite offset).
                    prog.extend(nb.iter().enumerate().map(|(i, &(src, bytes, dir))| {
                        irecv(src, 26 - dir, bytes, base + i as u64)
                    }));
                    prog.extend(nb.iter().enumerate().map(|(i, &(dst, bytes, dir))| {
                        isend(dst, dir, bytes, base + k + i as u64)
                    }));
                    prog.push(waitall(base, 2 * k));
                    if self.compute > Time::ZERO {
                        prog.push(Op::Compute {
                            duration: self.compute,
                        });
                    }
                }
                prog
            })
            .collect()
    }
}

/// Random pairs: `rounds` rounds in which the ranks are paired by a random
/// perfect matching (`procs` even) and every pair exchanges `bytes` both
/// ways with isend/irecv and a waitall. Seeded.
pub fn random_pairs(procs: u32, rounds: u32, bytes: u64, seed: u64) -> Programs {
    assert!(procs % 2 == 0, "random pairs need an even number of ranks");
    let mut rng = RngStreams::new(seed).stream("random-pairs");
    let mut p: Programs = vec![Vec::new(); procs as usize];
    let mut perm: Vec<u32> = (0..procs).collect();
    for r in 0..rounds as u64 {
        for i in (1..perm.len()).rev() {
            let j = rng.random_range(0..=i);
            perm.swap(i, j);
        }
        for pair in perm.chunks(2) {
            let (a, b) = (pair[0], pair[1]);
            for (me, peer) in [(a, b), (b, a)] {
                let prog = &mut p[me as usize];
                prog.push(irecv(peer, r as i32, bytes, 2 * r));
                prog.push(isend(peer, r as i32, bytes, 2 * r + 1));
                prog.push(waitall(2 * r, 2));
            }
        }
    }
    p
}

#[cfg(test)]
mod tests;
