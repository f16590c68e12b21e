//! Collectives built from point-to-point messages, expanded lazily.
//!
//! A collective is a small per-rank state machine ([`CollRun`]): a step
//! counter and the algorithm's scalar inputs. [`CollRun::plan`] gives the
//! point-to-point operations of one step (the sends and receives this rank
//! posts together, then waits for), and the bytes it reduces after them.
//! Nothing is expanded up front, so a collective on a million ranks costs
//! a few words per rank; the per-rank sizes of the v-collectives stay in
//! the operation, which `plan` reads them from.
//!
//! Algorithms follow MPICH (Thakur, Rabenseifner and Gropp, IJHPCA 2005)
//! and the libraries whose selectors name them (each variant of
//! [`CollAlg`] says whose); the seed Hoefler et al. 2010 models binomial
//! bcast, recursive doubling allreduce and direct alltoall with the same
//! message patterns. Which algorithm a call runs is [`select`]'s answer
//! (`select.rs`); [`choose`] is netsim's own rule. Ranks and peers here
//! are ranks in the communicator. Both ends of a message plan it in the
//! same step (the step is part of its tag), so an algorithm whose ranks
//! take different paths numbers its steps by tree level, not per rank.

use crate::op::{Op, Rank};
use crate::params::{AllreduceLarge, CollectiveParams};

mod mpich;
mod openmpi;
mod select;
mod torus;
pub use mpich::ELEMENT_BYTES;
pub use select::{
    Choice, CollKind, CollUse, MAX_OVERRIDES, Override, Selection, Selector, Tally, select,
};
pub use torus::{TORUS_SEGMENT_BYTES, torus_dims};

/// The collective algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum CollAlg {
    /// Barrier, dissemination: `ceil(log2 P)` steps, step k sends to
    /// `r + 2^k` and receives from `r - 2^k` (mod P), zero bytes.
    BarrierDissemination,
    /// Bcast, binomial tree: step k, ranks `vr < 2^k` send to `vr + 2^k`.
    BcastBinomial,
    /// Bcast, binomial scatter of `ceil(s/P)`-byte chunks then ring
    /// allgather (van de Geijn).
    BcastScatterAllgather,
    /// Reduce, binomial tree towards the root.
    ReduceBinomial,
    /// Allreduce, recursive doubling; non-power-of-two P folds the first
    /// `2 rem` ranks pairwise before and unfolds after (MPICH).
    AllreduceRecursiveDoubling,
    /// Allreduce, recursive-halving reduce-scatter then recursive-doubling
    /// allgather (Rabenseifner), with the same folding.
    AllreduceRabenseifner,
    /// Allreduce, ring reduce-scatter then ring allgather of `ceil(s/P)`.
    AllreduceRing,
    /// Allgather, ring: P - 1 steps.
    AllgatherRing,
    /// Allgather, recursive doubling (P a power of two).
    AllgatherRecursiveDoubling,
    /// Alltoall, pairwise exchange: step i sends to `r + i`, receives
    /// from `r - i`.
    AlltoallPairwise,
    /// Alltoall, Bruck: `ceil(log2 P)` steps, step k moves the blocks
    /// whose index has bit k set.
    AlltoallBruck,
    /// Alltoallv, pairwise exchange with per-peer sizes (zero sizes skip).
    AlltoallvPairwise,
    /// Gather, binomial tree (subtree data accumulates).
    GatherBinomial,
    /// Scatter, binomial tree.
    ScatterBinomial,
    /// Gatherv, linear: every rank sends to the root in one step.
    GathervLinear,
    /// Scatterv, linear.
    ScattervLinear,
    /// Allgatherv, ring.
    AllgathervRing,
    /// Reduce_scatter, ring.
    ReduceScatterRing,
    /// Scan / exscan, recursive doubling.
    ScanRecursiveDoubling,
    /// Barrier, linear: every rank sends a zero-byte message to rank 0
    /// and waits for its reply; rank 0 receives all, then replies to all
    /// (Open MPI's `ompi_coll_base_barrier_intra_basic_linear`).
    BarrierLinear,
    /// Bcast, binomial tree as MPICH builds it: rank `vr` receives from
    /// `vr` less its lowest set bit, then sends to `vr + m` for `m` from
    /// half that bit (the root: half the next power of two) down to 1,
    /// farthest subtree first.
    BcastBinomialFarFirst,
    /// Reduce, linear: every rank sends to the root at once; the root
    /// reduces `(P - 1) s` bytes.
    ReduceLinear,
    /// Allreduce as a linear reduce to rank 0 followed by a
    /// [`CollAlg::BcastBinomialFarFirst`] bcast from rank 0.
    AllreduceReduceBcast,
    /// Gather, linear: every rank sends to the root in one step.
    GatherLinear,
    /// Scatter, linear: the root sends to every rank in one step.
    ScatterLinear,
    /// Allgather, scattered: every rank posts its sends to and receives
    /// from all other ranks at once.
    AllgatherScattered,
    /// Allgatherv, scattered (as [`CollAlg::AllgatherScattered`], with
    /// per-rank sizes).
    AllgathervScattered,
    /// Alltoall, scattered: all receives (from `r + 1`, `r + 2`, ...) then
    /// all sends (to `r - 1`, `r - 2`, ...) posted at once.
    AlltoallScattered,
    /// Alltoall, pairwise exchange by XOR: step i exchanges with `r ^ i`
    /// (P a power of two).
    AlltoallPairwiseXor,
    /// Alltoallv, scattered: all receives from then all sends to every
    /// other rank posted at once, zero-byte ones included.
    AlltoallvScattered,
    /// Reduce_scatter as a linear reduce of all blocks to rank 0 followed
    /// by a linear scatterv.
    ReduceScatterReduceScatterv,
    /// Reduce_scatter, pairwise: step i sends rank `r + i` its block and
    /// receives this rank's block from `r - i`, then reduces it.
    ReduceScatterPairwise,
    /// Scan / exscan, linear: every rank receives from all lower ranks
    /// and sends to all higher ranks at once, then reduces what it got.
    ScanLinear,
    /// Alltoall, scattered in blocks of [`ALLTOALL_THROTTLE`] peers: step
    /// j posts the receives from `r + i` then the sends to `r - i` for
    /// `i` in block j, and waits for them (MPICH's
    /// `MPIR_Alltoall_intra_scattered`; the block holding `i = 0`, this
    /// rank itself, has one peer fewer).
    AlltoallScatteredThrottled,
    /// Alltoallv, the same in blocks, leaving out zero-byte messages
    /// (MPICH's `MPIR_Alltoallv_intra_scattered`).
    AlltoallvScatteredThrottled,
    /// Allgather, Bruck: step k sends the `2^k` blocks gathered so far to
    /// `r - 2^k` and receives as many from `r + 2^k`; a last step moves
    /// the `P - 2^floor(log2 P)` blocks left (MPICH's
    /// `MPIR_Allgather_intra_brucks`).
    AllgatherBruck,
    /// Bcast, binomial scatter of `ceil(s/P)`-byte chunks then recursive
    /// doubling allgather: level j exchanges the chunks of this rank's
    /// subtree of `2^j` with `vr ^ 2^j` (MPICH's
    /// `MPIR_Bcast_intra_scatter_recursive_doubling_allgather`, which
    /// MPICH runs on powers of two only). Off powers of two, where the
    /// partner subtree is partial, `j` recursive halving steps (distance
    /// `2^(j-1)` first) hand its chunks to the ranks that had no partner
    /// (Open MPI's `ompi_coll_base_bcast_intra_scatter_allgather`,
    /// `coll_base_bcast.c`).
    BcastScatterRdAllgather,
    /// Reduce, Rabenseifner: the first `2 rem` ranks fold pairwise (odd
    /// to even), recursive halving reduce-scatter among `2^floor(log2 P)`
    /// ranks (distance 1 first), then a binomial gather of the pieces to
    /// the root (distance `pof2/2` first); a root that was folded away
    /// first gets newrank 0's piece (MPICH's
    /// `MPIR_Reduce_intra_reduce_scatter_gather`, absolute ranks).
    ReduceScatterGather,
    /// Allgatherv, recursive doubling: step k exchanges the blocks of
    /// this rank's group of `2^k` with `r ^ 2^k` (P a power of two;
    /// MPICH's `MPIR_Allgatherv_intra_recursive_doubling`).
    AllgathervRecursiveDoubling,
    /// Allgatherv, Bruck: as [`CollAlg::AllgatherBruck`] with per-rank
    /// sizes (MPICH's `MPIR_Allgatherv_intra_brucks`).
    AllgathervBruck,
    /// Reduce_scatter, recursive halving: the first `2 rem` ranks fold
    /// (even to odd), halving among `2^floor(log2 P)` ranks (distance
    /// `pof2/2` first, the half of the blocks the partner keeps), then
    /// odd ranks send their even neighbour its block; zero-byte messages
    /// are left out (MPICH's `MPIR_Reduce_scatter_intra_recursive_halving`).
    ReduceScatterRecursiveHalving,
    /// Scan / exscan, recursive doubling by exchange: step k trades the
    /// partial result with `r ^ 2^k` (when below P) and reduces what it
    /// got (MPICH's `MPIR_Scan_intra_recursive_doubling`).
    ScanRecursiveDoublingExchange,
    /// Bcast, linear: the root sends `s` to every rank at once (Open
    /// MPI's `ompi_coll_base_bcast_intra_basic_linear`).
    BcastLinear,
    /// Bcast, chain: step k, relative rank k sends to k + 1, the message
    /// whole (Open MPI's `ompi_coll_base_bcast_intra_chain` and
    /// `_pipeline` with fan-out 1 and no segments, as its fixed rules
    /// call them).
    BcastChain,
    /// Bcast, binary tree as Open MPI builds it
    /// (`ompi_coll_base_topo_build_tree`, fan-out 2): relative rank `v`
    /// on level `l` (`2^l - 1 <= v < 2^(l+1) - 1`) sends to `v + 2^l` and
    /// `v + 2^(l+1)` at once, one step per level
    /// (`ompi_coll_base_bcast_intra_bintree`, no segments).
    BcastBinaryTree,
    /// Reduce, chain towards the root: step k, relative rank `P - 1 - k`
    /// sends to the rank before it, which reduces (Open MPI's
    /// `ompi_coll_base_reduce_intra_chain` / `_pipeline`, fan-out 1, no
    /// segments).
    ReduceChain,
    /// Reduce, the binary tree of [`CollAlg::BcastBinaryTree`] from the
    /// deepest level up; a parent reduces each child's `s` (Open MPI's
    /// `ompi_coll_base_reduce_intra_binary`, no segments).
    ReduceBinaryTree,
    /// Scan / exscan, chain: step k, rank k sends to k + 1, which reduces
    /// (Open MPI's `coll/basic` `mca_coll_basic_scan_intra` and
    /// `_exscan_intra`; `coll/tuned` has no scan).
    ScanChain,
    /// Barrier, recursive doubling: ranks from `2^floor(log2 P)` up
    /// report to `r - 2^floor(log2 P)`, the others exchange zero bytes
    /// with `r ^ 2^k`, then release the extra ranks (Open MPI's
    /// `ompi_coll_base_barrier_intra_recursivedoubling`).
    BarrierRecursiveDoubling,
    /// Allreduce as a [`CollAlg::ReduceLinear`] to rank 0 then a
    /// [`CollAlg::BcastLinear`] from it (Open MPI's
    /// `ompi_coll_base_allreduce_intra_basic_linear`).
    AllreduceLinear,
    /// Bcast, k-nomial tree of radix [`KNOMIAL_RADIX`]: relative rank `v`
    /// receives from `v` with its lowest nonzero base-k digit cleared and
    /// sends to `v + m r` (`r` = 1..k-1) for every power `m` of k below
    /// that digit, one step per power, largest first (Open MPI's
    /// `ompi_coll_base_bcast_intra_knomial`, tree of
    /// `ompi_coll_base_topo_build_kmtree`, no segments).
    BcastKnomial,
    /// Allgather, neighbour exchange (P even): step 0 trades one block
    /// with a neighbour (even ranks to the right), then `P/2 - 1` steps
    /// trade two blocks, alternating neighbours (Open MPI's
    /// `ompi_coll_base_allgather_intra_neighborexchange`).
    AllgatherNeighborExchange,
    /// Barrier, tree: up a binomial tree (rank `r ^ 2^j` reports to the
    /// lower of the pair), then down it (Open MPI's
    /// `ompi_coll_base_barrier_intra_tree`).
    BarrierTree,
    /// Allreduce as Open MPI's `ompi_coll_base_allreduce_intra_nonoverlapping`:
    /// a reduce to rank 0 then a bcast from it, each the algorithm Open
    /// MPI's fixed rules pick for the size and communicator.
    AllreduceNonoverlapping,
    /// Reduce_scatter as Open MPI's
    /// `ompi_coll_base_reduce_scatter_intra_nonoverlapping`: a reduce of
    /// all blocks to rank 0 by Open MPI's fixed rules, then a linear
    /// scatterv.
    ReduceScatterNonoverlapping,
    /// Reduce_scatter, butterfly: the fold of
    /// [`CollAlg::ReduceScatterRecursiveHalving`], halving with distance
    /// 1 first, then every rank trades the block it ended with for its
    /// own with the rank of the bit-reversed number, and the folded ranks
    /// get theirs (Open MPI's `ompi_coll_base_reduce_scatter_intra_butterfly`).
    ReduceScatterButterfly,
    /// Allgatherv as Open MPI's `ompi_coll_base_allgatherv_intra_basic_default`:
    /// a linear gatherv to rank 0, then a bcast of all the blocks by the
    /// algorithm Open MPI's fixed rules pick for that size.
    AllgathervDefault,
    /// Allgatherv, neighbour exchange (P even): step 0 trades this rank's
    /// block with neighbour 0 (even ranks: `r + 1`, odd: `r - 1`); step
    /// `i` then trades with neighbour `i mod 2` the pair of blocks it got
    /// at step `i - 1` for the pair starting `2` further along (per-rank
    /// sizes; Open MPI's `ompi_coll_base_allgatherv_intra_neighborexchange`,
    /// `coll_base_allgatherv.c`).
    AllgathervNeighborExchange,
    /// Gather, linear with synchronisation: the root takes the ranks in
    /// order; step `2j` it sends the `j`-th non-root a zero-byte message,
    /// step `2j + 1` that rank sends its first segment; a last step
    /// carries every rank's second segment. Open MPI's fixed rules pass
    /// a segment size of 0, so the first segment is the whole block and
    /// the second has zero bytes (Open MPI's
    /// `ompi_coll_base_gather_intra_linear_sync`, `coll_base_gather.c`,
    /// and `COLL_BASE_COMPUTED_SEGCOUNT`).
    GatherLinearSync,
    /// Bcast, split binary tree: the tree of [`CollAlg::BcastBinaryTree`]
    /// carries the first `ceil(count / 2)` elements down the left subtree
    /// (odd relative ranks) and the rest down the right (even), then
    /// relative rank `v` trades halves with `v + 1` (odd `v`) or `v - 1`
    /// (even); on even P the root sends the last rank the second half.
    /// Open MPI's fixed rules pass a segment size of 0: one segment per
    /// half (Open MPI's `ompi_coll_base_bcast_intra_split_bintree`,
    /// `coll_base_bcast.c`; fewer than 2 elements run the chain).
    BcastSplitBinaryTree,
    /// Reduce, in-order binary tree rooted at rank `P - 1`: the subtree
    /// of `n` ranks ending at rank `r` has its right child's subtree on
    /// the first `n / 2` ranks and its left child `r - 1` on the rest
    /// (`n = 2`: the left child only); a node whose subtree holds `n`
    /// ranks sends its `s` to its parent at step `floor(log2 n)`, and the
    /// parent reduces each child's `s`. When the root is not `P - 1`, a
    /// last step sends it the result. Open MPI's fixed rules pass a
    /// segment size of 0: one segment (Open MPI's
    /// `ompi_coll_base_reduce_intra_in_order_binary`, `coll_base_reduce.c`,
    /// tree of `ompi_coll_base_topo_build_in_order_bintree`).
    ReduceInOrderBinary,
    /// Reduce_scatter, recursive doubling: level `i` trades with
    /// `r ^ 2^i` every block outside the sender's subtree of `2^i`
    /// ranks (the receiver's outside the partner's); off powers of two,
    /// where the partner subtree is partial, `i` recursive halving steps
    /// hand what was received to the ranks that had no partner; the
    /// level's reduction follows its last step (SimGrid's
    /// `reduce_scatter__mpich_rdb`, `reduce_scatter-mpich.cpp`, after
    /// MPICH's `MPIR_Reduce_scatter_intra_recursive_doubling`).
    ReduceScatterRecursiveDoubling,
    /// Bcast over the edge-disjoint spanning trees of the torus the ranks
    /// fill, one per link direction, the message split among them and
    /// pipelined in segments (BG/P's large torus broadcast; `torus.rs`).
    BcastTorusTrees,
    /// Allreduce as a pipelined reduce up the trees of
    /// [`CollAlg::BcastTorusTrees`] to rank 0, then that broadcast
    /// (`torus.rs`).
    AllreduceTorusTrees,
}

/// Radix of [`CollAlg::BcastKnomial`]: Open MPI's
/// `coll_tuned_bcast_knomial_radix` default, 4
/// (`ompi/mca/coll/tuned/coll_tuned_bcast_decision.c`).
pub const KNOMIAL_RADIX: u32 = 4;

/// Peers per block of the throttled scattered alltoall(v): MPICH's
/// `MPIR_CVAR_ALLTOALL_THROTTLE` default (32, `src/mpi/coll/alltoall/alltoall.c`
/// CVAR block).
pub const ALLTOALL_THROTTLE: u32 = 32;

/// One point-to-point operation of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct P2p {
    /// Send (true) or receive (false).
    pub send: bool,
    /// Peer rank in the communicator.
    pub peer: Rank,
    /// Size \[bytes\].
    pub bytes: u64,
}

/// A collective in progress on one rank: 40 bytes, plain data, so that it
/// lives inline in the rank's state (at a million ranks a boxed run was a
/// cache miss per step). The v-collectives' sizes are not copied here:
/// [`CollRun::plan`] reads them from the operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollRun {
    /// The algorithm.
    pub alg: CollAlg,
    /// Communicator size.
    pub p: u32,
    /// This rank in the communicator.
    pub me: u32,
    /// Root (rooted collectives); for [`CollAlg::ScanLinear`] and
    /// [`CollAlg::ScanChain`], 1 for an
    /// exclusive scan and 0 for an inclusive one; else 0.
    pub root: u32,
    /// Size per rank \[bytes\].
    pub bytes: u64,
    /// Next step.
    pub step: u32,
    /// Bytes the rank reduces when the current step's messages are done
    /// (what `plan` returned for it; kept here by the simulator so that a
    /// rank's state need not hold it).
    pub reduce: u64,
}

/// `ceil(log2 p)` (0 for p <= 1).
pub fn ceil_log2(p: u32) -> u32 {
    if p <= 1 {
        0
    } else {
        32 - (p - 1).leading_zeros()
    }
}

fn floor_pow2(p: u32) -> u32 {
    if p == 0 {
        0
    } else {
        1 << (31 - p.leading_zeros())
    }
}

/// The sum of `v`, saturating.
fn total(v: &[u64]) -> u64 {
    v.iter().fold(0u64, |a, &b| a.saturating_add(b))
}

/// Number of `j` in `0..p` with bit `k` set.
fn count_bit(p: u64, k: u32) -> u64 {
    let d = 1u64 << k;
    let full = (p >> (k + 1)) << k;
    let rem = (p % (2 * d)).saturating_sub(d);
    full + rem
}

/// Level and step within it of step `k` of a recursive doubling over
/// `p` ranks whose level `j` has, off powers of two, `j` recursive
/// halving steps after its exchange (MPICH's and Open MPI's fill-in for
/// the ranks without a partner): `(j, step in level, steps in level)`.
fn rd_level(p: u32, k: u32) -> Option<(u32, u32, u32)> {
    let len = |j: u32| if p.is_power_of_two() { 1 } else { 1 + j };
    let (mut j, mut sub) = (0, k);
    while j < ceil_log2(p) {
        if sub < len(j) {
            return Some((j, sub, len(j)));
        }
        sub -= len(j);
        j += 1;
    }
    None
}

/// Halving step `q` (1-based) of level `mask` for rank `me` of `p`:
/// `Some((send, peer))` when its subtree's partner subtree is partial
/// and this rank hands the partner's data on or receives it (the
/// `nprocs_completed` loop of MPICH's recursive doubling).
fn rd_fill(me: u32, p: u32, mask: u32, q: u32) -> Option<(bool, u32)> {
    let tree = me & !(mask - 1);
    let dtree = (me ^ mask) & !(mask - 1);
    if dtree + mask <= p || p <= tree + mask {
        return None;
    }
    let n = p - tree - mask;
    let m = mask >> q;
    let t = me & !(2 * m - 1);
    let d = me ^ m;
    if d > me && me < t + n && d >= t + n {
        Some((true, d))
    } else if d < me && d < t + n && me >= t + n {
        Some((false, d))
    } else {
        None
    }
}

/// netsim's own choice of the algorithm of a collective operation (the
/// [`Selector::Netsim`] rules; [`select`] applies the scenario's
/// selector); `None` for operations that are not collectives. `p` is the
/// communicator size.
pub fn choose(op: &Op, p: u32, c: &CollectiveParams) -> Option<CollAlg> {
    use CollAlg::*;
    let pow2 = p.is_power_of_two();
    Some(match op {
        Op::Barrier { .. } => BarrierDissemination,
        Op::Bcast { bytes, .. } => {
            if *bytes < c.bcast_long_min || p < c.bcast_min_procs {
                BcastBinomial
            } else {
                BcastScatterAllgather
            }
        }
        Op::Reduce { .. } => ReduceBinomial,
        Op::Allreduce { bytes, .. } => {
            if *bytes <= c.allreduce_short_max {
                AllreduceRecursiveDoubling
            } else {
                match c.allreduce_large {
                    AllreduceLarge::Rabenseifner => AllreduceRabenseifner,
                    AllreduceLarge::Ring => AllreduceRing,
                }
            }
        }
        Op::Allgather { bytes, .. } => {
            if pow2 && bytes.saturating_mul(p as u64) < c.allgather_long_min {
                AllgatherRecursiveDoubling
            } else {
                AllgatherRing
            }
        }
        Op::Alltoall { bytes, .. } => {
            if *bytes <= c.alltoall_bruck_max && p >= c.alltoall_bruck_min_procs {
                AlltoallBruck
            } else {
                AlltoallPairwise
            }
        }
        Op::Alltoallv { .. } => AlltoallvPairwise,
        Op::Gather { .. } => GatherBinomial,
        Op::Scatter { .. } => ScatterBinomial,
        Op::Gatherv { .. } => GathervLinear,
        Op::Scatterv { .. } => ScattervLinear,
        Op::Allgatherv { .. } => AllgathervRing,
        Op::ReduceScatter { .. } => ReduceScatterRing,
        Op::Scan { .. } => ScanRecursiveDoubling,
        _ => return None,
    })
}

/// A collective's per-rank sizes (v-collectives, reduce_scatter), or the
/// send and receive sizes of alltoallv; a missing entry is 0.
pub type Counts<'a> = (&'a [u64], &'a [u64]);

/// No per-rank sizes.
pub const NO_COUNTS: Counts<'static> = (&[], &[]);

/// The per-rank sizes collective `op` names (none for the others).
pub fn counts(op: &Op) -> Counts<'_> {
    match op {
        Op::Gatherv { counts, .. }
        | Op::Scatterv { counts, .. }
        | Op::Allgatherv { counts, .. }
        | Op::ReduceScatter { counts, .. } => (counts, &[]),
        Op::Alltoallv { send, recv, .. } => (send, recv),
        _ => NO_COUNTS,
    }
}

impl CollAlg {
    /// Steps of a composite's first part (a reduce or the linear
    /// gatherv) on `p` ranks: where its second part starts.
    fn first_steps(self, p: u32) -> u32 {
        let l = floor_pow2(p).trailing_zeros();
        match self {
            CollAlg::ReduceChain => p.saturating_sub(1),
            CollAlg::ReduceBinaryTree => 31 - p.max(1).leading_zeros(),
            CollAlg::ReduceBinomial => ceil_log2(p),
            CollAlg::ReduceScatterGather => 2 * l + 2,
            // Composites reduce to rank 0, which is not the tree's root.
            CollAlg::ReduceInOrderBinary => l + u32::from(p > 1),
            _ => 1,
        }
    }

    /// Whether [`CollRun::plan`] reads the per-rank sizes: the other
    /// algorithms' steps need only the run's state, so a step does not
    /// visit the operation (boxed in the rank's state).
    pub fn reads_counts(self) -> bool {
        matches!(
            self,
            CollAlg::GathervLinear
                | CollAlg::ScattervLinear
                | CollAlg::AllgathervRing
                | CollAlg::ReduceScatterRing
                | CollAlg::AlltoallvPairwise
                | CollAlg::AllgathervScattered
                | CollAlg::AlltoallvScattered
                | CollAlg::ReduceScatterReduceScatterv
                | CollAlg::ReduceScatterPairwise
                | CollAlg::AlltoallvScatteredThrottled
                | CollAlg::AllgathervRecursiveDoubling
                | CollAlg::AllgathervBruck
                | CollAlg::ReduceScatterRecursiveHalving
                | CollAlg::ReduceScatterNonoverlapping
                | CollAlg::ReduceScatterButterfly
                | CollAlg::AllgathervDefault
                | CollAlg::AllgathervNeighborExchange
                | CollAlg::ReduceScatterRecursiveDoubling
        )
    }
}

impl CollRun {
    /// The state of collective `op` with algorithm `alg` for rank `me` of
    /// `p`.
    pub fn new(alg: CollAlg, op: &Op, p: u32, me: u32) -> CollRun {
        let (root, bytes) = match *op {
            Op::Bcast { root, bytes, .. }
            | Op::Reduce { root, bytes, .. }
            | Op::Gather { root, bytes, .. }
            | Op::Scatter { root, bytes, .. } => (root, bytes),
            Op::Allreduce { bytes, .. }
            | Op::Allgather { bytes, .. }
            | Op::Alltoall { bytes, .. }
            | Op::Scan { bytes, .. } => (0, bytes),
            Op::Gatherv { root, .. } | Op::Scatterv { root, .. } => (root, 0),
            // The linear reduce of all blocks reduces their sum.
            Op::ReduceScatter { ref counts, .. } | Op::Allgatherv { ref counts, .. }
                if matches!(
                    alg,
                    CollAlg::ReduceScatterReduceScatterv
                        | CollAlg::ReduceScatterNonoverlapping
                        | CollAlg::AllgathervDefault
                ) =>
            {
                (0, counts.iter().fold(0u64, |a, &c| a.saturating_add(c)))
            }
            _ => (0, 0),
        };
        // An exclusive scan's rank reduces one contribution fewer: the
        // linear scan keeps that in `root` (unused otherwise).
        let root = match *op {
            Op::Scan {
                exclusive: true, ..
            } if matches!(alg, CollAlg::ScanLinear | CollAlg::ScanChain) => 1,
            _ => root,
        };
        CollRun {
            alg,
            p,
            me,
            root,
            bytes,
            step: 0,
            reduce: 0,
        }
    }

    /// The operations of step `self.step` of the collective this run was
    /// made for, whose per-rank sizes are `counts` (see [`counts`]; only
    /// the algorithms that [`CollAlg::reads_counts`] read them), pushed
    /// to `out` (cleared first) and the bytes reduced once they
    /// complete; `None` when the collective is over. A step may be empty
    /// (the rank idles in it). O(1) per step except: the linear
    /// v-collectives' root step and the block sums of the recursive
    /// halving and butterfly reduce_scatters (O(P)), the v-allgathers'
    /// recursive doubling and Bruck steps (O(2^k)), the k-nomial bcast's and
    /// the in-order binary reduce's (O(log P)); Open MPI's scatter-allgather
    /// bcast finds its level in O(log P).
    pub fn plan(&self, counts: Counts<'_>, out: &mut Vec<P2p>) -> Option<u64> {
        out.clear();
        let (counts, recv_counts) = counts;
        let count = |i: u32| counts.get(i as usize).copied().unwrap_or(0);
        let (p, me, k) = (self.p, self.me, self.step);
        let s = self.bytes;
        let send = |out: &mut Vec<P2p>, peer: u32, bytes: u64| {
            out.push(P2p {
                send: true,
                peer,
                bytes,
            })
        };
        let recv = |out: &mut Vec<P2p>, peer: u32, bytes: u64| {
            out.push(P2p {
                send: false,
                peer,
                bytes,
            })
        };
        let vr = (me + p - self.root % p.max(1)) % p.max(1);
        let real = |v: u32| (v + self.root) % p;
        let lg = ceil_log2(p);
        let right = (me + 1) % p.max(1);
        let left = (me + p.max(1) - 1) % p.max(1);
        let mut reduce = 0;
        match self.alg {
            CollAlg::BcastTorusTrees | CollAlg::AllreduceTorusTrees => {
                return torus::plan(self, out);
            }
            CollAlg::BarrierDissemination => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                send(out, ((me as u64 + d as u64) % p as u64) as u32, 0);
                recv(
                    out,
                    ((me as u64 + p as u64 - d as u64) % p as u64) as u32,
                    0,
                );
            }
            CollAlg::BcastBinomial => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                if vr < d && vr + d < p {
                    send(out, real(vr + d), s);
                } else if vr >= d && vr < 2 * d {
                    recv(out, real(vr - d), s);
                }
            }
            CollAlg::ReduceBinomial | CollAlg::GatherBinomial => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                let gather = self.alg == CollAlg::GatherBinomial;
                if vr % (2 * d) == d {
                    let b = if gather {
                        s.saturating_mul(d.min(p - vr) as u64)
                    } else {
                        s
                    };
                    send(out, real(vr - d), b);
                } else if vr % (2 * d) == 0 && vr + d < p {
                    let b = if gather {
                        s.saturating_mul(d.min(p - vr - d) as u64)
                    } else {
                        s
                    };
                    recv(out, real(vr + d), b);
                    if !gather {
                        reduce = s;
                    }
                }
            }
            CollAlg::ScatterBinomial | CollAlg::BcastScatterAllgather => {
                let chunk = if self.alg == CollAlg::ScatterBinomial {
                    s
                } else {
                    s.div_ceil(p as u64)
                };
                if k < lg {
                    // Top level first: d = 2^(lg-1-k).
                    let d = 1u32 << (lg - 1 - k);
                    if vr % (2 * d) == 0 && vr + d < p {
                        let b = chunk.saturating_mul(d.min(p - vr - d) as u64);
                        send(out, real(vr + d), b);
                    } else if vr % (2 * d) == d {
                        let b = chunk.saturating_mul(d.min(p - vr) as u64);
                        recv(out, real(vr - d), b);
                    }
                } else if self.alg == CollAlg::BcastScatterAllgather && k < lg + p - 1 {
                    send(out, right, chunk);
                    recv(out, left, chunk);
                } else {
                    return None;
                }
            }
            CollAlg::AllreduceRecursiveDoubling | CollAlg::AllreduceRabenseifner => {
                let pof2 = floor_pow2(p);
                let rem = p - pof2;
                let l = pof2.trailing_zeros();
                let newrank = if me < 2 * rem {
                    if me % 2 == 0 { None } else { Some(me / 2) }
                } else {
                    Some(me - rem)
                };
                let to_real = |n: u32| if n < rem { 2 * n + 1 } else { n + rem };
                let middle = if self.alg == CollAlg::AllreduceRabenseifner {
                    2 * l
                } else {
                    l
                };
                if k == 0 {
                    if me < 2 * rem {
                        if me % 2 == 0 {
                            send(out, me + 1, s);
                        } else {
                            recv(out, me - 1, s);
                            reduce = s;
                        }
                    }
                } else if k <= middle {
                    if let Some(n) = newrank {
                        let j = k - 1;
                        let (partner, bytes, red) =
                            if self.alg == CollAlg::AllreduceRecursiveDoubling {
                                (n ^ (1 << j), s, s)
                            } else if j < l {
                                // Recursive halving: distance pof2/2, pof2/4, ...
                                let b = s.div_ceil(1u64 << (j + 1));
                                (n ^ (pof2 >> (j + 1)), b, b)
                            } else {
                                // Recursive doubling allgather: distance 1, 2, ...
                                let i = j - l;
                                let b = s.div_ceil(1u64 << (l - i));
                                (n ^ (1 << i), b, 0)
                            };
                        send(out, to_real(partner), bytes);
                        recv(out, to_real(partner), bytes);
                        reduce = red;
                    }
                } else if k == middle + 1 {
                    if me < 2 * rem {
                        if me % 2 == 1 {
                            send(out, me - 1, s);
                        } else {
                            recv(out, me + 1, s);
                        }
                    }
                } else {
                    return None;
                }
            }
            CollAlg::AllreduceRing => {
                if p <= 1 || k >= 2 * (p - 1) {
                    return None;
                }
                let c = s.div_ceil(p as u64);
                send(out, right, c);
                recv(out, left, c);
                if k < p - 1 {
                    reduce = c;
                }
            }
            CollAlg::AllgatherRing => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                send(out, right, s);
                recv(out, left, s);
            }
            CollAlg::AllgatherRecursiveDoubling => {
                if k >= lg {
                    return None;
                }
                let partner = me ^ (1 << k);
                let b = s.saturating_mul(1 << k);
                send(out, partner, b);
                recv(out, partner, b);
            }
            CollAlg::AlltoallPairwise | CollAlg::AlltoallvPairwise => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                let i = k + 1;
                let to = (me + i) % p;
                let from = (me + p - i) % p;
                if self.alg == CollAlg::AlltoallPairwise {
                    send(out, to, s);
                    recv(out, from, s);
                } else {
                    let sb = count(to);
                    let rb = recv_counts.get(from as usize).copied().unwrap_or(0);
                    if sb > 0 {
                        send(out, to, sb);
                    }
                    if rb > 0 {
                        recv(out, from, rb);
                    }
                }
            }
            CollAlg::AlltoallBruck => {
                if k >= lg {
                    return None;
                }
                let d = 1u64 << k;
                let b = s.saturating_mul(count_bit(p as u64, k));
                send(out, ((me as u64 + d) % p as u64) as u32, b);
                recv(
                    out,
                    ((me as u64 + p as u64 - d % p as u64) % p as u64) as u32,
                    b,
                );
            }
            CollAlg::GathervLinear | CollAlg::ScattervLinear => {
                if k >= 1 {
                    return None;
                }
                let gather = self.alg == CollAlg::GathervLinear;
                let root = self.root;
                if me == root {
                    for r in (0..p).filter(|&r| r != root) {
                        out.push(P2p {
                            send: !gather,
                            peer: r,
                            bytes: count(r),
                        });
                    }
                } else {
                    out.push(P2p {
                        send: gather,
                        peer: root,
                        bytes: count(me),
                    });
                }
            }
            CollAlg::AllgathervRing => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                send(out, right, count((me + p - k % p) % p));
                recv(out, left, count((me + 2 * p - k - 1) % p));
            }
            CollAlg::ReduceScatterRing => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                send(out, right, count((me + 2 * p - k - 1) % p));
                let b = count((me + 2 * p - k - 2) % p);
                recv(out, left, b);
                reduce = b;
            }
            CollAlg::BarrierLinear => {
                if p <= 1 || k >= 2 {
                    return None;
                }
                // Step 0: everyone reports to rank 0; step 1: it answers.
                let to_root = k == 0;
                if me == 0 {
                    for r in 1..p {
                        out.push(P2p {
                            send: !to_root,
                            peer: r,
                            bytes: 0,
                        });
                    }
                } else {
                    out.push(P2p {
                        send: to_root,
                        peer: 0,
                        bytes: 0,
                    });
                }
            }
            CollAlg::BcastBinomialFarFirst => {
                // Step k is the tree level of distance m = 2^(lg-1-k), so
                // that both ends of a message share its step (its tag):
                // `vr` receives at the level of its lowest set bit and
                // sends at the levels below it.
                if k >= lg {
                    return None;
                }
                let m = 1u32 << (lg - 1 - k);
                let low = if vr == 0 {
                    u32::MAX
                } else {
                    1 << vr.trailing_zeros()
                };
                if m == low {
                    recv(out, real(vr - m), s);
                } else if m < low && vr + m < p {
                    send(out, real(vr + m), s);
                }
            }
            CollAlg::ReduceLinear
            | CollAlg::GatherLinear
            | CollAlg::ScatterLinear
            | CollAlg::BcastLinear => {
                if p <= 1 || k >= 1 {
                    return None;
                }
                let to_root = !matches!(self.alg, CollAlg::ScatterLinear | CollAlg::BcastLinear);
                if me == self.root {
                    for r in (0..p).filter(|&r| r != self.root) {
                        out.push(P2p {
                            send: !to_root,
                            peer: r,
                            bytes: s,
                        });
                    }
                    if self.alg == CollAlg::ReduceLinear {
                        reduce = s.saturating_mul(p as u64 - 1);
                    }
                } else {
                    out.push(P2p {
                        send: to_root,
                        peer: self.root,
                        bytes: s,
                    });
                }
            }
            CollAlg::AllreduceReduceBcast
            | CollAlg::AllreduceLinear
            | CollAlg::ReduceScatterReduceScatterv
            | CollAlg::AllreduceNonoverlapping
            | CollAlg::ReduceScatterNonoverlapping
            | CollAlg::AllgathervDefault => {
                // A reduce (or gatherv) to rank 0, then the second
                // collective from rank 0 (its steps follow the first's).
                let (first, then) = match self.alg {
                    CollAlg::AllreduceReduceBcast => {
                        (CollAlg::ReduceLinear, CollAlg::BcastBinomialFarFirst)
                    }
                    CollAlg::AllreduceLinear => (CollAlg::ReduceLinear, CollAlg::BcastLinear),
                    CollAlg::ReduceScatterReduceScatterv => {
                        (CollAlg::ReduceLinear, CollAlg::ScattervLinear)
                    }
                    CollAlg::AllreduceNonoverlapping => {
                        (openmpi::reduce(p, s).alg, openmpi::bcast(p, s).alg)
                    }
                    CollAlg::AllgathervDefault => {
                        (CollAlg::GathervLinear, openmpi::bcast(p, s).alg)
                    }
                    _ => (openmpi::reduce(p, s).alg, CollAlg::ScattervLinear),
                };
                let n = first.first_steps(p);
                let (alg, step) = if k < n { (first, k) } else { (then, k - n) };
                let part = CollRun {
                    alg,
                    root: 0,
                    step,
                    ..*self
                };
                return part.plan((counts, recv_counts), out);
            }
            CollAlg::AllgatherScattered | CollAlg::AllgathervScattered => {
                if p <= 1 || k >= 1 {
                    return None;
                }
                let v = self.alg == CollAlg::AllgathervScattered;
                for r in (0..p).filter(|&r| r != me) {
                    send(out, r, if v { count(me) } else { s });
                    recv(out, r, if v { count(r) } else { s });
                }
            }
            CollAlg::AlltoallScattered => {
                if p <= 1 || k >= 1 {
                    return None;
                }
                for i in 1..p {
                    recv(out, (me + i) % p, s);
                }
                for i in 1..p {
                    send(out, (me + p - i) % p, s);
                }
            }
            CollAlg::AlltoallvScattered => {
                if p <= 1 || k >= 1 {
                    return None;
                }
                for r in (0..p).filter(|&r| r != me) {
                    recv(out, r, recv_counts.get(r as usize).copied().unwrap_or(0));
                }
                for r in (0..p).filter(|&r| r != me) {
                    send(out, r, count(r));
                }
            }
            CollAlg::AlltoallPairwiseXor => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                debug_assert!(p.is_power_of_two(), "XOR pairs need a power of two");
                let peer = me ^ (k + 1);
                send(out, peer, s);
                recv(out, peer, s);
            }
            CollAlg::ReduceScatterPairwise => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                let i = k + 1;
                let to = (me + i) % p;
                send(out, to, count(to));
                recv(out, (me + p - i) % p, count(me));
                reduce = count(me);
            }
            CollAlg::ScanLinear => {
                if p <= 1 || k >= 1 {
                    return None;
                }
                for r in 0..me {
                    recv(out, r, s);
                }
                for r in me + 1..p {
                    send(out, r, s);
                }
                // An exclusive scan (root 1) leaves its own part out.
                reduce = s.saturating_mul((me as u64).saturating_sub(self.root as u64));
            }
            CollAlg::AlltoallScatteredThrottled | CollAlg::AlltoallvScatteredThrottled => {
                let b = ALLTOALL_THROTTLE;
                if p <= 1 || k >= p.div_ceil(b) {
                    return None;
                }
                let v = self.alg == CollAlg::AlltoallvScatteredThrottled;
                let block = (k * b).max(1)..((k + 1) * b).min(p);
                for i in block.clone() {
                    let from = (me + i) % p;
                    let bytes = if v {
                        recv_counts.get(from as usize).copied().unwrap_or(0)
                    } else {
                        s
                    };
                    if !v || bytes > 0 {
                        recv(out, from, bytes);
                    }
                }
                for i in block {
                    let to = (me + p - i) % p;
                    let bytes = if v { count(to) } else { s };
                    if !v || bytes > 0 {
                        send(out, to, bytes);
                    }
                }
            }
            CollAlg::AllgatherBruck => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                // Blocks held so far: 2^k, or what is left at the end.
                let blocks = d.min(p - d) as u64;
                send(out, (me + p - d) % p, s.saturating_mul(blocks));
                recv(out, (me + d) % p, s.saturating_mul(blocks));
            }
            CollAlg::BcastScatterRdAllgather => {
                let chunk = s.div_ceil(p as u64);
                if k < lg {
                    let d = 1u32 << (lg - 1 - k);
                    if vr % (2 * d) == 0 && vr + d < p {
                        send(
                            out,
                            real(vr + d),
                            chunk.saturating_mul(d.min(p - vr - d) as u64),
                        );
                    } else if vr % (2 * d) == d {
                        recv(
                            out,
                            real(vr - d),
                            chunk.saturating_mul(d.min(p - vr) as u64),
                        );
                    }
                } else {
                    // Allgather level j (mask 2^j): the exchange step,
                    // then, off powers of two, j recursive halving steps.
                    let (j, sub, _) = rd_level(p, k - lg)?;
                    let mask = 1u32 << j;
                    let tree = vr & !(mask - 1);
                    let vremote = vr ^ mask;
                    let rtree = vremote & !(mask - 1);
                    // A subtree's blocks, once its ranks all hold them.
                    let held = |root: u32| chunk.saturating_mul(mask.min(p - root) as u64);
                    if sub == 0 {
                        if vremote < p {
                            send(out, real(vremote), held(tree));
                            recv(out, real(vremote), held(rtree));
                        }
                    } else if let Some((is_send, v)) = rd_fill(vr, p, mask, sub) {
                        // The partner subtree's `p - tree - mask` chunks
                        // spread to the ranks that had no partner.
                        out.push(P2p {
                            send: is_send,
                            peer: real(v),
                            bytes: chunk.saturating_mul(u64::from(p - tree - mask)),
                        });
                    }
                }
            }
            CollAlg::ReduceScatterGather => {
                let pof2 = floor_pow2(p);
                let rem = p - pof2;
                let l = pof2.trailing_zeros();
                let root = self.root;
                let to_real = |n: u32| if n < rem { 2 * n } else { n + rem };
                // The root's role when it was folded away (odd, < 2 rem).
                let root_out = root < 2 * rem && root % 2 == 1;
                if k == 0 {
                    if me < 2 * rem {
                        if me % 2 == 1 {
                            send(out, me - 1, s);
                        } else {
                            recv(out, me + 1, s);
                            reduce = s;
                        }
                    }
                    return Some(reduce);
                }
                let newrank = if me < 2 * rem {
                    (me % 2 == 0).then_some(me / 2)
                } else {
                    Some(me - rem)
                };
                if k <= l {
                    // Recursive halving, distance 2^(k-1).
                    if let Some(n) = newrank {
                        let b = s.div_ceil(1u64 << k);
                        let dst = to_real(n ^ (1 << (k - 1)));
                        send(out, dst, b);
                        recv(out, dst, b);
                        reduce = b;
                    }
                } else if k == l + 1 {
                    // A folded-away root takes newrank 0's piece.
                    let piece = s.div_ceil(pof2 as u64);
                    if root_out && me == root {
                        recv(out, 0, piece);
                    } else if root_out && me == 0 {
                        send(out, root, piece);
                    }
                } else if k <= 2 * l + 1 {
                    // Binomial gather, distance pof2 / 2^(i+1), 2^i pieces.
                    let i = k - l - 2;
                    let mask = pof2 >> (i + 1);
                    let n = if root_out {
                        if me == root {
                            Some(0)
                        } else if me == 0 {
                            None
                        } else {
                            newrank
                        }
                    } else {
                        newrank
                    };
                    let newroot = if root_out {
                        0
                    } else if root < 2 * rem {
                        root / 2
                    } else {
                        root - rem
                    };
                    if let Some(n) = n {
                        // Still holding data: agrees with the root above
                        // this level.
                        if (n ^ newroot) / (2 * mask) == 0 {
                            let nd = n ^ mask;
                            let dst = if nd == 0 && root_out {
                                root
                            } else {
                                to_real(nd)
                            };
                            let b = s.div_ceil((pof2 >> i) as u64);
                            if (n ^ newroot) & mask != 0 {
                                send(out, dst, b);
                            } else {
                                recv(out, dst, b);
                            }
                        }
                    }
                } else {
                    return None;
                }
            }
            CollAlg::AllgathervRecursiveDoubling => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                let partner = me ^ d;
                let group = |r: u32| {
                    let base = r & !(d - 1);
                    (base..base + d).map(count).fold(0u64, u64::saturating_add)
                };
                send(out, partner, group(me));
                recv(out, partner, group(partner));
            }
            CollAlg::AllgathervBruck => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                let blocks = d.min(p - d);
                let held = |r: u32| {
                    (0..blocks)
                        .map(|i| count((r + i) % p))
                        .fold(0u64, u64::saturating_add)
                };
                send(out, (me + p - d) % p, held(me));
                recv(out, (me + d) % p, held((me + d) % p));
            }
            CollAlg::ReduceScatterRecursiveHalving => {
                let pof2 = floor_pow2(p);
                let rem = p - pof2;
                let l = pof2.trailing_zeros();
                // The sum of all blocks, summed once (step 0); nothing to
                // do when it is 0.
                let total = if k == 0 {
                    (0..p).map(count).fold(0u64, u64::saturating_add)
                } else {
                    1
                };
                if total == 0 || k > l + 1 {
                    return None;
                }
                let both = |out: &mut Vec<P2p>, peer: u32, sb: u64, rb: u64| {
                    if sb > 0 {
                        send(out, peer, sb);
                    }
                    if rb > 0 {
                        recv(out, peer, rb);
                    }
                };
                if k == 0 {
                    if me < 2 * rem {
                        if me % 2 == 0 {
                            both(out, me + 1, total, 0);
                        } else {
                            both(out, me - 1, 0, total);
                            reduce = total;
                        }
                    }
                } else if k <= l {
                    let newrank = if me < 2 * rem {
                        (me % 2 == 1).then_some(me / 2)
                    } else {
                        Some(me - rem)
                    };
                    if let Some(n) = newrank {
                        // Blocks of the new ranking: a folding pair's two.
                        let newcnt = |i: u32| {
                            let old = if i < rem { 2 * i + 1 } else { i + rem };
                            if old < 2 * rem {
                                count(old).saturating_add(count(old - 1))
                            } else {
                                count(old)
                            }
                        };
                        let sum =
                            |a: u32, b: u32| (a..b).map(newcnt).fold(0u64, u64::saturating_add);
                        let mask = pof2 >> k;
                        let nd = n ^ mask;
                        let base = n & !(2 * mask - 1);
                        let (keep, give) = if n < nd {
                            (base, base + mask)
                        } else {
                            (base + mask, base)
                        };
                        let dst = if nd < rem { 2 * nd + 1 } else { nd + rem };
                        let rb = sum(keep, keep + mask);
                        both(out, dst, sum(give, give + mask), rb);
                        reduce = rb;
                    }
                } else if me < 2 * rem {
                    if me % 2 == 1 {
                        both(out, me - 1, count(me - 1), 0);
                    } else {
                        both(out, me + 1, 0, count(me));
                    }
                }
            }
            CollAlg::ScanRecursiveDoublingExchange => {
                if k >= lg {
                    return None;
                }
                let partner = me ^ (1 << k);
                if partner < p {
                    send(out, partner, s);
                    recv(out, partner, s);
                    reduce = s;
                }
            }
            CollAlg::BcastChain | CollAlg::ReduceChain => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                if self.alg == CollAlg::BcastChain {
                    if vr == k {
                        send(out, real(vr + 1), s);
                    } else if vr == k + 1 {
                        recv(out, real(vr - 1), s);
                    }
                } else if vr == p - 1 - k {
                    send(out, real(vr - 1), s);
                } else if vr + 2 + k == p {
                    recv(out, real(vr + 1), s);
                    reduce = s;
                }
            }
            CollAlg::ScanChain => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                if me == k {
                    send(out, me + 1, s);
                } else if me == k + 1 {
                    recv(out, me - 1, s);
                    // An exclusive scan's rank 1 only keeps rank 0's part.
                    if me > self.root {
                        reduce = s;
                    }
                }
            }
            CollAlg::BcastBinaryTree
            | CollAlg::ReduceBinaryTree
            | CollAlg::BcastSplitBinaryTree => {
                // Level of relative rank v: floor(log2(v + 1)).
                let level = |v: u32| 31 - (v + 1).leading_zeros();
                let deepest = level(p - 1);
                let split = self.alg == CollAlg::BcastSplitBinaryTree;
                // Split: the odd relative ranks (the left subtree) carry
                // the first half, ceil(count / 2) elements.
                let h0 = (s / ELEMENT_BYTES)
                    .div_ceil(2)
                    .saturating_mul(ELEMENT_BYTES)
                    .min(s);
                let half = |v: u32| if v % 2 == 1 { h0 } else { s - h0 };
                let s_to = |v: u32| if split { half(v) } else { s };
                if split && k == deepest && p > 1 {
                    // Each rank trades its half with its pair in the
                    // other subtree; on even P the root sends the last
                    // rank (left subtree, no pair) the second half.
                    if p % 2 == 0 && vr == 0 {
                        send(out, real(p - 1), s - h0);
                    } else if p % 2 == 0 && vr == p - 1 {
                        recv(out, real(0), s - h0);
                    } else if vr != 0 {
                        let pair = if vr % 2 == 1 { vr + 1 } else { vr - 1 };
                        send(out, real(pair), half(vr));
                        recv(out, real(pair), half(pair));
                    }
                    return Some(0);
                }
                if k >= deepest {
                    return None;
                }
                let bcast = self.alg != CollAlg::ReduceBinaryTree;
                // The parents' level this step: top down, or bottom up.
                let l = if bcast { k } else { deepest - 1 - k };
                let (lv, d) = (level(vr), 1u32 << l);
                if lv == l {
                    for child in [vr + d, vr + 2 * d].into_iter().filter(|&c| c < p) {
                        if bcast {
                            send(out, real(child), s_to(child));
                        } else {
                            recv(out, real(child), s);
                            reduce += s;
                        }
                    }
                } else if lv == l + 1 {
                    // The parent q has children q + d and q + 2d.
                    let parent = if vr - d < 2 * d - 1 {
                        vr - d
                    } else {
                        vr - 2 * d
                    };
                    if bcast {
                        recv(out, real(parent), s_to(vr));
                    } else {
                        send(out, real(parent), s);
                    }
                }
            }
            CollAlg::BarrierRecursiveDoubling => {
                let pof2 = floor_pow2(p);
                let l = pof2.trailing_zeros();
                if p <= 1 || k > l + 1 {
                    return None;
                }
                let rem = p - pof2;
                if k == 0 {
                    if me >= pof2 {
                        send(out, me - pof2, 0);
                    } else if me < rem {
                        recv(out, me + pof2, 0);
                    }
                } else if k <= l {
                    if me < pof2 {
                        let peer = me ^ (1 << (k - 1));
                        send(out, peer, 0);
                        recv(out, peer, 0);
                    }
                } else if me < rem {
                    send(out, me + pof2, 0);
                } else if me >= pof2 {
                    recv(out, me - pof2, 0);
                }
            }
            CollAlg::BcastKnomial => {
                let kr = KNOMIAL_RADIX;
                // Levels: the least n with kr^n >= P.
                let mut levels = 0;
                let mut top = 1u64;
                while top < p as u64 {
                    top *= kr as u64;
                    levels += 1;
                }
                if k >= levels {
                    return None;
                }
                let m = (kr as u64).pow(levels - 1 - k);
                let v = vr as u64;
                if v % (kr as u64 * m) == 0 {
                    for r in 1..kr as u64 {
                        if v + m * r < p as u64 {
                            send(out, real((v + m * r) as u32), s);
                        }
                    }
                } else if v % m == 0 {
                    let parent = v / (kr as u64 * m) * (kr as u64 * m);
                    recv(out, real(parent as u32), s);
                }
            }
            CollAlg::AllgatherNeighborExchange => {
                if p <= 1 || k >= p / 2 {
                    return None;
                }
                debug_assert!(p % 2 == 0, "neighbour exchange needs an even P");
                let (first, second) = if me % 2 == 0 {
                    (right, left)
                } else {
                    (left, right)
                };
                let (peer, blocks) = if k == 0 {
                    (first, 1)
                } else if k % 2 == 1 {
                    (second, 2)
                } else {
                    (first, 2)
                };
                send(out, peer, s.saturating_mul(blocks));
                recv(out, peer, s.saturating_mul(blocks));
            }
            CollAlg::ReduceScatterRecursiveDoubling => {
                if p <= 1 {
                    return None;
                }
                let (j, sub, len) = rd_level(p, k)?;
                let mask = 1u32 << j;
                let tree = me & !(mask - 1);
                let dst = me ^ mask;
                let dtree = dst & !(mask - 1);
                let all = (0..p).map(count).fold(0u64, u64::saturating_add);
                let outside = |root: u32| {
                    let inside = (root.min(p)..root.saturating_add(mask).min(p))
                        .map(count)
                        .fold(0u64, u64::saturating_add);
                    all - inside
                };
                let fill = |q: u32| rd_fill(me, p, mask, q);
                if sub == 0 {
                    if dst < p {
                        send(out, dst, outside(tree));
                        recv(out, dst, outside(dtree));
                    }
                } else if let Some((is_send, d)) = fill(sub) {
                    out.push(P2p {
                        send: is_send,
                        peer: d,
                        bytes: outside(dtree),
                    });
                }
                if sub + 1 == len {
                    let got = dst < p || (1..len).any(|q| matches!(fill(q), Some((false, _))));
                    if got {
                        reduce = outside(dtree);
                    }
                }
            }
            CollAlg::ReduceInOrderBinary => {
                let top = 31 - p.max(1).leading_zeros();
                let io_root = p.saturating_sub(1);
                if k > top || (k == top && self.root == io_root) {
                    return None;
                }
                if k == top {
                    if me == io_root {
                        send(out, self.root, s);
                    } else if me == self.root {
                        recv(out, io_root, s);
                    }
                    return Some(0);
                }
                // A subtree (first rank, size) and its children's:
                // (right, left).
                let kids = |lo: u32, n: u32| match n {
                    0 | 1 => (None, None),
                    2 => (None, Some((lo, 1))),
                    _ => (Some((lo, n / 2)), Some((lo + n / 2, n - n / 2 - 1))),
                };
                let (mut lo, mut n) = (0, p);
                let mut parent = None;
                while me != lo + n - 1 {
                    parent = Some(lo + n - 1);
                    (lo, n) = match kids(lo, n) {
                        (Some((rlo, rn)), _) if me < rlo + rn => (rlo, rn),
                        (_, Some(left)) => left,
                        _ => unreachable!("rank {me} lies in its subtree"),
                    };
                }
                let height = |n: u32| 31 - n.leading_zeros();
                let (right, left) = kids(lo, n);
                for (clo, cn) in [left, right].into_iter().flatten() {
                    if height(cn) == k {
                        recv(out, clo + cn - 1, s);
                        reduce += s;
                    }
                }
                if let Some(up) = parent
                    && height(n) == k
                {
                    send(out, up, s);
                }
            }
            CollAlg::GatherLinearSync => {
                let others = p.saturating_sub(1);
                if p <= 1 || k > 2 * others {
                    return None;
                }
                let root = self.root;
                let last = k == 2 * others;
                if me == root {
                    if last {
                        for r in (0..p).filter(|&r| r != root) {
                            recv(out, r, 0);
                        }
                    } else {
                        // The (k / 2)-th non-root in rank order.
                        let j = k / 2;
                        let peer = if j < root { j } else { j + 1 };
                        if k % 2 == 0 {
                            send(out, peer, 0);
                        } else {
                            recv(out, peer, s);
                        }
                    }
                } else if last {
                    send(out, root, 0);
                } else {
                    let j = if me < root { me } else { me - 1 };
                    if k == 2 * j {
                        recv(out, root, 0);
                    } else if k == 2 * j + 1 {
                        send(out, root, s);
                    }
                }
            }
            CollAlg::AllgathervNeighborExchange => {
                if p <= 1 || k >= p / 2 {
                    return None;
                }
                debug_assert!(p % 2 == 0, "neighbour exchange needs an even P");
                let even = me % 2 == 0;
                let (n0, n1) = if even { (right, left) } else { (left, right) };
                // `recv_data_from` before any step: the first block of
                // the pair this rank holds after step 0.
                let base = if even { me } else { left };
                // The pair received at step i >= 1 starts 2 blocks
                // further per step of the same parity so far (even ranks
                // up on neighbour 0, down on 1; odd ranks the reverse).
                let from = |i: u32| {
                    if i == 0 {
                        return base;
                    }
                    let parity = i % 2;
                    let n = if parity == 1 { i.div_ceil(2) } else { i / 2 };
                    let shift = (2 * n as u64 % p as u64) as u32;
                    if (parity == 0) == even {
                        (base + shift) % p
                    } else {
                        (base + p - shift) % p
                    }
                };
                let pair = |b: u32| count(b).saturating_add(count((b + 1) % p));
                if k == 0 {
                    send(out, n0, count(me));
                    recv(out, n0, count(n0));
                } else {
                    let peer = if k % 2 == 0 { n0 } else { n1 };
                    send(out, peer, pair(from(k - 1)));
                    recv(out, peer, pair(from(k)));
                }
            }
            CollAlg::BarrierTree => {
                if p <= 1 || k >= 2 * lg {
                    return None;
                }
                let up = k < lg;
                let jump = if up { 1u32 << k } else { 1 << (2 * lg - 1 - k) };
                let partner = me ^ jump;
                if me % jump == 0 && partner < p {
                    // Up: the higher of the pair reports; down: the lower
                    // releases.
                    if (partner > me) == up {
                        recv(out, partner, 0);
                    } else {
                        send(out, partner, 0);
                    }
                }
            }
            CollAlg::ReduceScatterButterfly => {
                let pof2 = floor_pow2(p);
                let rem = p - pof2;
                let l = pof2.trailing_zeros();
                if p <= 1 || k > l + 1 {
                    return None;
                }
                // The sum of all blocks, folded at step 0 only.
                let total = if k == 0 {
                    (0..p).map(count).fold(0u64, u64::saturating_add)
                } else {
                    0
                };
                // New rank v's block: a folded pair's two.
                let newcnt = |i: u32| {
                    if i < rem {
                        count(2 * i).saturating_add(count(2 * i + 1))
                    } else {
                        count(i + rem)
                    }
                };
                let sum = |a: u32, b: u32| (a..b).map(newcnt).fold(0u64, u64::saturating_add);
                let real_of = |v: u32| if v < rem { 2 * v + 1 } else { v + rem };
                let mirror = |v: u32| v.reverse_bits().checked_shr(32 - l).unwrap_or(0);
                let vrank = if me < 2 * rem {
                    (me % 2 == 1).then_some(me / 2)
                } else {
                    Some(me - rem)
                };
                if k == 0 {
                    if me < 2 * rem {
                        if me % 2 == 0 {
                            send(out, me + 1, total);
                        } else {
                            recv(out, me - 1, total);
                            reduce = total;
                        }
                    }
                } else if k <= l {
                    if let Some(v) = vrank {
                        let j = k - 1;
                        let nb = pof2 >> (j + 1);
                        let base = (0..j)
                            .filter(|&i| (v >> i) & 1 == 1)
                            .map(|i| pof2 >> (i + 1))
                            .sum::<u32>();
                        let (keep, give) = if v & (1 << j) == 0 {
                            (base, base + nb)
                        } else {
                            (base + nb, base)
                        };
                        let peer = real_of(v ^ (1 << j));
                        send(out, peer, sum(give, give + nb));
                        let rb = sum(keep, keep + nb);
                        recv(out, peer, rb);
                        reduce = rb;
                    }
                } else if let Some(v) = vrank {
                    // This rank holds new block mirror(v).
                    let vp = mirror(v);
                    let peer = real_of(vp);
                    if vp < rem {
                        send(out, peer - 1, count(peer - 1));
                    }
                    if vp != v {
                        send(out, peer, count(peer));
                        recv(out, peer, count(me));
                    }
                } else {
                    recv(out, real_of(mirror(me / 2)), count(me));
                }
            }
            CollAlg::ScanRecursiveDoubling => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                if me + d < p {
                    send(out, me + d, s);
                }
                if me >= d {
                    recv(out, me - d, s);
                    reduce = s;
                }
            }
        }
        Some(reduce)
    }
}

#[cfg(test)]
mod tests;
