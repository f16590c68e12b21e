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
pub use mpich::ELEMENT_BYTES;
pub use select::{
    Choice, CollKind, CollUse, MAX_OVERRIDES, Override, Selection, Selector, Tally, select,
};

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
mod tests {
    use super::*;

    /// Runs every rank's plan to the end and checks that sends and
    /// receives pair up step by step; returns (messages, bytes).
    fn census(alg: CollAlg, op: Op, p: u32) -> (u64, u64) {
        let mut runs: Vec<CollRun> = (0..p).map(|me| CollRun::new(alg, &op, p, me)).collect();
        let mut sends = std::collections::BTreeMap::<(u32, u32), Vec<u64>>::new();
        let mut recvs = std::collections::BTreeMap::<(u32, u32), Vec<u64>>::new();
        let mut out = vec![];
        // As the simulator's step: sizes only for the algorithms that
        // read them.
        let c = if alg.reads_counts() {
            counts(&op)
        } else {
            NO_COUNTS
        };
        for r in runs.iter_mut() {
            while r.plan(c, &mut out).is_some() {
                for o in &out {
                    if o.send {
                        sends.entry((r.me, o.peer)).or_default().push(o.bytes);
                    } else {
                        recvs.entry((o.peer, r.me)).or_default().push(o.bytes);
                    }
                }
                r.step += 1;
            }
        }
        assert_eq!(sends, recvs, "{alg:?} p={p}: sends and receives pair up");
        let m = sends.values().map(|v| v.len() as u64).sum();
        let b = sends.values().flatten().sum();
        (m, b)
    }

    #[test]
    fn counts_by_hand() {
        let w = crate::CommId::WORLD;
        // Dissemination barrier, P = 5: 3 steps of 5 messages.
        assert_eq!(
            census(CollAlg::BarrierDissemination, Op::Barrier { comm: w }, 5),
            (15, 0)
        );
        // Binomial bcast: P - 1 messages of s.
        let b = Op::Bcast {
            root: 2,
            bytes: 10,
            comm: w,
        };
        assert_eq!(census(CollAlg::BcastBinomial, b.clone(), 7), (6, 60));
        // Recursive doubling allreduce, P = 6: pof2 = 4, rem = 2:
        // 2 fold + 4 * 2 exchange + 2 unfold = 12 messages.
        let a = Op::Allreduce { bytes: 8, comm: w };
        assert_eq!(
            census(CollAlg::AllreduceRecursiveDoubling, a.clone(), 6),
            (12, 96)
        );
        // Rabenseifner, P = 4, s = 16: halving 4 x (8 + 4), doubling
        // 4 x (4 + 8) = 96 bytes in 16 messages.
        let a16 = Op::Allreduce { bytes: 16, comm: w };
        assert_eq!(census(CollAlg::AllreduceRabenseifner, a16, 4), (16, 96));
        // Ring allreduce P = 4, s = 16: 2 * 3 steps * 4 ranks * 4 B.
        let a16 = Op::Allreduce { bytes: 16, comm: w };
        assert_eq!(census(CollAlg::AllreduceRing, a16, 4), (24, 96));
        // Bruck alltoall, P = 5, s = 1: step k moves count_bit blocks:
        // k=0: j in {1,3} -> 2; k=1: {2,3} -> 2; k=2: {4} -> 1; times 5.
        let t = Op::Alltoall { bytes: 1, comm: w };
        assert_eq!(census(CollAlg::AlltoallBruck, t.clone(), 5), (15, 25));
        assert_eq!(census(CollAlg::AlltoallPairwise, t, 5), (20, 20));
        // Binomial gather P = 5, s = 1: every rank's byte moves once per
        // tree level it climbs: 1 (r1) + 2 (r2..3) + 1 (r3) + 1 (r4) = 5.
        let g = Op::Gather {
            root: 0,
            bytes: 1,
            comm: w,
        };
        assert_eq!(census(CollAlg::GatherBinomial, g, 5), (4, 5));
        let sc = Op::Scatter {
            root: 0,
            bytes: 1,
            comm: w,
        };
        assert_eq!(census(CollAlg::ScatterBinomial, sc, 5), (4, 5));
        // Scatter-allgather bcast P = 4, s = 8: scatter 2+1+1 chunks of 2 B,
        // ring 3 steps x 4 ranks x 2 B.
        let b = Op::Bcast {
            root: 0,
            bytes: 8,
            comm: w,
        };
        assert_eq!(census(CollAlg::BcastScatterAllgather, b, 4), (15, 32));
        let rs = Op::ReduceScatter {
            counts: vec![1, 2, 3],
            comm: w,
        };
        // Each block travels P - 1 = 2 hops: 2 * 6 bytes.
        assert_eq!(census(CollAlg::ReduceScatterRing, rs, 3), (6, 12));
        let agv = Op::Allgatherv {
            counts: vec![1, 2, 3],
            comm: w,
        };
        assert_eq!(census(CollAlg::AllgathervRing, agv, 3), (6, 12));
        // Linear gatherv and scatterv, root 0: ranks 1 to 4 each send or
        // receive their own count, 2 + 3 + 4 + 5 bytes.
        let (root, counts5) = (0, vec![1, 2, 3, 4, 5]);
        let gv = Op::Gatherv {
            root,
            counts: counts5.clone(),
            comm: w,
        };
        assert_eq!(census(CollAlg::GathervLinear, gv, 5), (4, 14));
        let sv = Op::Scatterv {
            root,
            counts: counts5,
            comm: w,
        };
        assert_eq!(census(CollAlg::ScattervLinear, sv, 5), (4, 14));
        // Pairwise alltoallv, 2 bytes to and from every other rank.
        let tv = Op::Alltoallv {
            send: vec![2; 3],
            recv: vec![2; 3],
            comm: w,
        };
        assert_eq!(census(CollAlg::AlltoallvPairwise, tv, 3), (6, 12));
        let sc = Op::Scan {
            bytes: 1,
            comm: w,
            exclusive: false,
        };
        // P = 5: d=1: 4, d=2: 3, d=4: 1.
        assert_eq!(census(CollAlg::ScanRecursiveDoubling, sc, 5), (8, 8));
        let ag = Op::Allgather { bytes: 3, comm: w };
        assert_eq!(
            census(CollAlg::AllgatherRecursiveDoubling, ag, 4),
            (8, 4 * (3 + 6))
        );
    }

    #[test]
    fn library_algorithms_pair_up_and_move_what_they_should() {
        use CollAlg::*;
        let w = crate::CommId::WORLD;
        let bcast = |root| Op::Bcast {
            root,
            bytes: 10,
            comm: w,
        };
        let rooted = |alg| {
            let (root, bytes, comm) = (3, 4, w);
            match alg {
                ReduceLinear => Op::Reduce { root, bytes, comm },
                GatherLinear => Op::Gather { root, bytes, comm },
                _ => Op::Scatter { root, bytes, comm },
            }
        };
        let v3 = |c: Vec<u64>| Op::Allgatherv { counts: c, comm: w };
        let tv = |c: u64| Op::Alltoallv {
            send: vec![c; 3],
            recv: vec![c; 3],
            comm: w,
        };
        let rs = |c: Vec<u64>| Op::ReduceScatter { counts: c, comm: w };
        let scan = |exclusive| Op::Scan {
            bytes: 1,
            comm: w,
            exclusive,
        };
        let a2a = |bytes| Op::Alltoall { bytes, comm: w };
        let ag = |bytes| Op::Allgather { bytes, comm: w };
        let ar = |bytes| Op::Allreduce { bytes, comm: w };
        // (alg, op, P, messages, bytes), counted by hand:
        let cases = [
            // Linear barrier: P - 1 reports and P - 1 answers.
            (BarrierLinear, Op::Barrier { comm: w }, 5, 8, 0),
            // Every binomial tree moves P - 1 messages of s.
            (BcastBinomialFarFirst, bcast(2), 6, 5, 50),
            (BcastBinomialFarFirst, bcast(0), 1, 0, 0),
            (BcastBinomialFarFirst, bcast(5), 8, 7, 70),
            (ReduceLinear, rooted(ReduceLinear), 5, 4, 16),
            (GatherLinear, rooted(GatherLinear), 5, 4, 16),
            (ScatterLinear, rooted(ScatterLinear), 5, 4, 16),
            // Reduce (5 messages) then bcast (5) of 8 B.
            (AllreduceReduceBcast, ar(8), 6, 10, 80),
            (AllgatherScattered, ag(3), 4, 12, 36),
            // Every rank sends its own count to the 2 others.
            (AllgathervScattered, v3(vec![1, 2, 3]), 3, 6, 12),
            (AlltoallScattered, a2a(1), 5, 20, 20),
            (AlltoallPairwiseXor, a2a(2), 8, 56, 112),
            (AlltoallvScattered, tv(2), 3, 6, 12),
            // Zero-byte messages are sent too (as SMPI's ialltoallv).
            (AlltoallvScattered, tv(0), 3, 6, 0),
            // A reduce of the 6 bytes to rank 0 (2 messages), then 2 B
            // to each of ranks 1 and 2.
            (ReduceScatterReduceScatterv, rs(vec![2, 2, 2]), 3, 4, 16),
            // Every block reaches its owner from the 2 other ranks.
            (ReduceScatterPairwise, rs(vec![1, 2, 3]), 3, 6, 12),
            // Every pair (lower, higher) once: P (P - 1) / 2.
            (ScanLinear, scan(false), 4, 6, 6),
            (ScanLinear, scan(true), 4, 6, 6),
            // Every rank to every other, whatever the blocks: 70 x 69.
            (AlltoallScatteredThrottled, a2a(1), 70, 4830, 4830),
            (AlltoallvScatteredThrottled, tv(2), 3, 6, 12),
            // Zero-byte messages are left out (as MPICH).
            (AlltoallvScatteredThrottled, tv(0), 3, 0, 0),
            // Bruck P = 5: 1, 2, then the 1 block left, per rank.
            (AllgatherBruck, ag(1), 5, 15, 20),
            (AllgatherBruck, ag(1), 4, 8, 12),
        ];
        let v = |c: Vec<u64>| Op::Allgatherv { counts: c, comm: w };
        let red = |root, bytes| Op::Reduce {
            root,
            bytes,
            comm: w,
        };
        let bc = |bytes| Op::Bcast {
            root: 0,
            bytes,
            comm: w,
        };
        let mpich_cases = [
            // Scatter of 2 B chunks (4 + 2 + 2 B), then exchanges of 2
            // and 4 B by all 4 ranks.
            (BcastScatterRdAllgather, bc(8), 4, 11, 32),
            // P = 8, 1 B chunks: scatter 4 + 2 x 2 + 4 x 1 B; exchanges
            // of 1, 2, 4 B by all 8.
            (BcastScatterRdAllgather, bc(8), 8, 31, 68),
            // P = 6, 10 B chunks: scatter 20 + 20 + 3 x 10 B; exchanges
            // of 10 B by all 6, of 20 B by 0-3, of 40 (0, 1 to 4, 5) and
            // 20 B back; then 0 and 1 hand 2 and 3 the 20 B of 4-5.
            (BcastScatterRdAllgather, bc(60), 6, 21, 370),
            // P = 4, 16 B: halving 4 x 8 + 4 x 4 B, gather 2 x 4 + 8 B.
            (ReduceScatterGather, red(0, 16), 4, 11, 64),
            // P = 5, root 1 folded away: fold 16 B, halving as above,
            // rank 0 hands its 4 B piece to the root, gather 2 x 4 + 8.
            (ReduceScatterGather, red(1, 16), 5, 13, 84),
            (ReduceScatterGather, red(4, 16), 5, 12, 80),
            // Every rank receives all the other blocks once.
            (AllgathervRecursiveDoubling, v(vec![1, 2, 3, 4]), 4, 8, 30),
            (AllgathervBruck, v(vec![1, 2, 3, 4, 5]), 5, 15, 60),
            // Halving: 7 + 7 + 3 + 3, then 2 + 1 + 4 + 3 B.
            (
                ReduceScatterRecursiveHalving,
                rs(vec![1, 2, 3, 4]),
                4,
                8,
                30,
            ),
            // P = 3: 0 folds 6 B into 1; 1 and 2 trade 3 B each; 1
            // hands rank 0 its 1 B.
            (ReduceScatterRecursiveHalving, rs(vec![1, 2, 3]), 3, 4, 13),
            (ReduceScatterRecursiveHalving, rs(vec![0, 0, 0]), 3, 0, 0),
            // Pairs (0,1), (2,3); (0,2), (1,3); (0,4).
            (ScanRecursiveDoublingExchange, scan(false), 5, 10, 10),
        ];
        let rootb = |root| Op::Bcast {
            root,
            bytes: 10,
            comm: w,
        };
        let ompi_cases = [
            (BcastLinear, rootb(3), 5, 4, 40),
            (BcastChain, rootb(2), 5, 4, 40),
            (ReduceChain, red(1, 4), 5, 4, 16),
            (ScanChain, scan(false), 5, 4, 4),
            (ScanChain, scan(true), 5, 4, 4),
            // Binary trees: P - 1 messages of s (P = 8: rank 3 has 7).
            (BcastBinaryTree, rootb(4), 7, 6, 60),
            (BcastBinaryTree, rootb(0), 8, 7, 70),
            (ReduceBinaryTree, red(2, 4), 8, 7, 28),
            // P = 6: 2 reports, 2 rounds of 4, 2 releases.
            (BarrierRecursiveDoubling, Op::Barrier { comm: w }, 6, 12, 0),
            (BarrierRecursiveDoubling, Op::Barrier { comm: w }, 4, 8, 0),
        ];
        let bc16 = |root| Op::Bcast {
            root,
            bytes: 16,
            comm: w,
        };
        let red_g = |root, bytes| Op::Gather {
            root,
            bytes,
            comm: w,
        };
        let more = [
            // k-nomial, radix 4, P = 6: 0 -> 4, 0 -> 1, 2, 3, 4 -> 5.
            (BcastKnomial, rootb(1), 6, 5, 50),
            (BcastKnomial, rootb(0), 17, 16, 160),
            // Neighbour exchange, P = 6: 1 block, then 2 steps of 2.
            (AllgatherNeighborExchange, ag(1), 6, 18, 30),
            // Open MPI's tuned reduce then bcast (4 <= P < 8, < 64 B:
            // binary trees both): P - 1 messages each way.
            (AllreduceNonoverlapping, ar(8), 4, 6, 48),
            (AllreduceNonoverlapping, ar(32), 5, 8, 256),
            // P = 3, 6 B: Open MPI reduces below 8 B by rabenseifner:
            // fold 6 B, trade 3 B, gather 3 B; then 2 B to 1 and to 2.
            (ReduceScatterNonoverlapping, rs(vec![2, 2, 2]), 3, 6, 19),
            // Butterfly, P = 4, blocks 1, 2, 3, 4: distance 1 trades
            // halves (0, 2 send 7; 1, 3 send 3), distance 2 quarters
            // (0 sends 2, 2 sends 1, 1 sends 4, 3 sends 3); then ranks
            // 1 and 2 (bit-reversed 2 and 1) swap blocks 2 and 3.
            (ReduceScatterButterfly, rs(vec![1, 2, 3, 4]), 4, 10, 35),
            // P = 3: 0 folds 6 B into 1; 1 and 2 trade 3 B; 1 sends 0
            // its block; no swap (mirror of a 1-bit number is itself).
            (ReduceScatterButterfly, rs(vec![1, 2, 3]), 3, 4, 13),
            // Gatherv of 1 + 2 + 3 B to 0 (2 messages, 5 B), then a
            // bcast of the 6 B (Open MPI, P < 4, < 32 B: pipeline).
            (AllgathervDefault, v(vec![1, 2, 3]), 3, 4, 17),
            // Neighbour exchange allgatherv, P = 4: blocks 1 + 2 + 3 + 4
            // B in step 0, pairs of 3 and 7 B in step 1; every rank gets
            // the 3 blocks not its own once (P = 6: 6 x 21 - 21 B).
            (AllgathervNeighborExchange, v(vec![1, 2, 3, 4]), 4, 8, 30),
            (
                AllgathervNeighborExchange,
                v(vec![1, 2, 3, 4, 5, 6]),
                6,
                18,
                105,
            ),
            // Split binary tree, 16 B (2 elements): P - 1 tree messages
            // of 8 B, then P = 7: 6 ranks trade 8 B; P = 6: 4 trade, the
            // root sends rank 5 relative 8 B.
            (BcastSplitBinaryTree, bc16(2), 7, 12, 96),
            (BcastSplitBinaryTree, bc16(0), 6, 10, 80),
            // In-order binary, P - 1 tree messages of 4 B, and one more
            // when the root is not P - 1.
            (ReduceInOrderBinary, red(4, 4), 5, 4, 16),
            (ReduceInOrderBinary, red(0, 4), 6, 6, 24),
            (ReduceInOrderBinary, red(0, 4), 1, 0, 0),
            // Open MPI's allreduce, P = 300, 10000 B: the in-order binary
            // reduce to 0 (299 + 1 messages), then the k-nomial bcast
            // (299).
            (AllreduceNonoverlapping, ar(10_000), 300, 599, 5_990_000),
            // Recursive doubling reduce_scatter, P = 5, blocks 1..5 (15
            // B): level 0 trades 14/13 and 12/11 B, level 1 12/8 B twice,
            // level 2 5/10 B, then rank 0's 10 B go to 2, 1, and 2 to 3.
            (
                ReduceScatterRecursiveDoubling,
                rs(vec![1, 2, 3, 4, 5]),
                5,
                13,
                135,
            ),
            // P = 4, blocks 1..4 (10 B): 9/8, 7/6 B, then 7/3 B twice.
            (
                ReduceScatterRecursiveDoubling,
                rs(vec![1, 2, 3, 4]),
                4,
                8,
                50,
            ),
            // Linear sync gather, P = 5, root 3, 4 B: 4 zero-byte syncs,
            // 4 blocks, 4 zero-byte second segments.
            (GatherLinearSync, red_g(3, 4), 5, 12, 16),
            (GatherLinearSync, red_g(0, 4), 1, 0, 0),
            // Tree barrier, P = 5: up 2 + 1 + 1, down the same.
            (BarrierTree, Op::Barrier { comm: w }, 5, 8, 0),
        ];
        for (alg, op, p, m, b) in cases
            .into_iter()
            .chain(mpich_cases)
            .chain(ompi_cases)
            .chain(more)
        {
            assert_eq!(census(alg, op, p), (m, b), "{alg:?} P = {p}");
        }
        // Far-first tree on 6 ranks from the root: children 4, 2, 1, in
        // that order; 4 then sends to 5, 2 to 3.
        let op = bcast(0);
        let mut r = CollRun::new(BcastBinomialFarFirst, &op, 6, 0);
        let mut out = vec![];
        let mut peers = vec![];
        while r.plan(NO_COUNTS, &mut out).is_some() {
            peers.extend(out.iter().map(|o| o.peer));
            r.step += 1;
        }
        assert_eq!(peers, [4, 2, 1]);
        let mut r = CollRun::new(BcastBinomialFarFirst, &op, 6, 4);
        let mut ops = vec![];
        while r.plan(NO_COUNTS, &mut out).is_some() {
            ops.extend(out.iter().map(|o| (o.send, o.peer)));
            r.step += 1;
        }
        assert_eq!(ops, [(false, 0), (true, 5)]);
    }

    /// Every step of every rank of `alg` on `op`, as (send, peer, bytes).
    fn schedule(alg: CollAlg, op: &Op, p: u32) -> Vec<Vec<Vec<(bool, u32, u64)>>> {
        let c = if alg.reads_counts() {
            counts(op)
        } else {
            NO_COUNTS
        };
        let mut out = vec![];
        (0..p)
            .map(|me| {
                let mut r = CollRun::new(alg, op, p, me);
                let mut steps = vec![];
                while r.plan(c, &mut out).is_some() {
                    steps.push(out.iter().map(|o| (o.send, o.peer, o.bytes)).collect());
                    r.step += 1;
                }
                steps
            })
            .collect()
    }

    #[test]
    fn allgatherv_neighbor_exchange_by_hand_and_moves_each_block_once() {
        // Block i is 2^i bytes, so a message's size names its blocks.
        let p = 6;
        let op = Op::Allgatherv {
            counts: (0..p).map(|i| 1u64 << i).collect(),
            comm: crate::CommId::WORLD,
        };
        let s = schedule(CollAlg::AllgathervNeighborExchange, &op, p);
        // Rank 0 (Open MPI's comment in coll_base_allgatherv.c): block 0
        // to 1 for block 1; blocks 0-1 to 5 for 4-5; 4-5 to 1 for 2-3.
        let rank0: Vec<Vec<(bool, u32, u64)>> = vec![
            vec![(true, 1, 1), (false, 1, 2)],
            vec![(true, 5, 3), (false, 5, 48)],
            vec![(true, 1, 48), (false, 1, 12)],
        ];
        assert_eq!(s[0], rank0);
        // Rank 3 (odd): block 3 to 2 for 2; 2-3 to 4 for 4-5; 4-5 to 2
        // for 0-1.
        let rank3: Vec<Vec<(bool, u32, u64)>> = vec![
            vec![(true, 2, 8), (false, 2, 4)],
            vec![(true, 4, 12), (false, 4, 48)],
            vec![(true, 2, 48), (false, 2, 3)],
        ];
        assert_eq!(s[3], rank3);
        // Every rank sends only blocks it holds and ends with every block
        // exactly once.
        for (me, steps) in s.iter().enumerate() {
            let mut have = 1u64 << me;
            for step in steps {
                for &(send, _, b) in step {
                    if send {
                        assert_eq!(b & have, b, "rank {me} sends {b:#b} holding {have:#b}");
                    }
                }
                for &(send, _, b) in step {
                    if !send {
                        assert_eq!(b & have, 0, "rank {me} gets {b:#b} twice");
                        have |= b;
                    }
                }
            }
            assert_eq!(have, (1 << p) - 1, "rank {me}");
        }
    }

    #[test]
    fn open_mpi_scatter_allgather_off_powers_of_two_by_hand() {
        // P = 6, root 2, 10 B chunks: relative rank v is rank v + 2.
        let op = Op::Bcast {
            root: 2,
            bytes: 60,
            comm: crate::CommId::WORLD,
        };
        let s = schedule(CollAlg::BcastScatterRdAllgather, &op, 6);
        let v = |x: u32| (x + 2) % 6;
        // Scatter (3 steps), level 0 (1), level 1 (2), level 2 (3).
        for steps in &s {
            assert_eq!(steps.len(), 9);
        }
        // v0: 20 B to v4, 20 B to v2, 10 B to v1; trades 10 B with v1,
        // 20 B with v2 (then idles), 40 B for 20 with v4, then hands v2
        // the 20 B of v4-v5.
        let v0: Vec<Vec<(bool, u32, u64)>> = vec![
            vec![(true, v(4), 20)],
            vec![(true, v(2), 20)],
            vec![(true, v(1), 10)],
            vec![(true, v(1), 10), (false, v(1), 10)],
            vec![(true, v(2), 20), (false, v(2), 20)],
            vec![],
            vec![(true, v(4), 40), (false, v(4), 20)],
            vec![(true, v(2), 20)],
            vec![],
        ];
        assert_eq!(s[v(0) as usize], v0);
        // v3: its chunk from v2, trades with v2 and v1, no partner at
        // level 2 (v7), gets v4-v5's chunks from v1.
        let v3: Vec<Vec<(bool, u32, u64)>> = vec![
            vec![],
            vec![],
            vec![(false, v(2), 10)],
            vec![(true, v(2), 10), (false, v(2), 10)],
            vec![(true, v(1), 20), (false, v(1), 20)],
            vec![],
            vec![],
            vec![(false, v(1), 20)],
            vec![],
        ];
        assert_eq!(s[v(3) as usize], v3);
        // P = 5, root 0, 1 B chunks: level 2 pairs only v0 with v4,
        // whose 1 chunk then goes v0 -> v2 (distance 2), v0 -> v1 and
        // v2 -> v3 (distance 1); level 1 has no fill (v4's partner
        // subtree is empty).
        let op = Op::Bcast {
            root: 0,
            bytes: 5,
            comm: crate::CommId::WORLD,
        };
        let s = schedule(CollAlg::BcastScatterRdAllgather, &op, 5);
        assert_eq!(s[4][5], vec![]);
        assert_eq!(s[0][6], vec![(true, 4, 4), (false, 4, 1)]);
        assert_eq!(s[0][7], vec![(true, 2, 1)]);
        assert_eq!(s[0][8], vec![(true, 1, 1)]);
        assert_eq!(s[2][8], vec![(true, 3, 1)]);
        assert_eq!(s[3][8], vec![(false, 2, 1)]);
        // Every rank receives the 4 chunks it lacks at least once.
        for (me, steps) in s.iter().enumerate().skip(1) {
            let got: u64 = steps.iter().flatten().filter(|o| !o.0).map(|o| o.2).sum();
            assert!(got >= 4, "rank {me} gets {got} B");
        }
    }

    #[test]
    fn open_mpi_linear_sync_gather_by_hand() {
        // P = 3, root 1, 8 B: rank 0 first, then rank 2.
        let op = Op::Gather {
            root: 1,
            bytes: 8,
            comm: crate::CommId::WORLD,
        };
        let s = schedule(CollAlg::GatherLinearSync, &op, 3);
        let root: Vec<Vec<(bool, u32, u64)>> = vec![
            vec![(true, 0, 0)],
            vec![(false, 0, 8)],
            vec![(true, 2, 0)],
            vec![(false, 2, 8)],
            vec![(false, 0, 0), (false, 2, 0)],
        ];
        assert_eq!(s[1], root);
        let r2: Vec<Vec<(bool, u32, u64)>> = vec![
            vec![],
            vec![],
            vec![(false, 1, 0)],
            vec![(true, 1, 8)],
            vec![(true, 1, 0)],
        ];
        assert_eq!(s[2], r2);
    }

    #[test]
    fn open_mpi_split_binary_tree_by_hand() {
        // P = 6, root 1, 24 B (3 elements): left half 16 B (relative 1,
        // 3, 5), right 8 B (relative 2, 4). Tree: v0 -> v1, v2; v1 -> v3,
        // v5; v2 -> v4. Then v1 <-> v2, v3 <-> v4, v0 -> v5.
        let op = Op::Bcast {
            root: 1,
            bytes: 24,
            comm: crate::CommId::WORLD,
        };
        let s = schedule(CollAlg::BcastSplitBinaryTree, &op, 6);
        let v = |x: u32| (x + 1) % 6;
        let at = |x: u32| &s[v(x) as usize];
        assert_eq!(
            *at(0),
            vec![
                vec![(true, v(1), 16), (true, v(2), 8)],
                vec![],
                vec![(true, v(5), 8)],
            ]
        );
        assert_eq!(
            *at(1),
            vec![
                vec![(false, v(0), 16)],
                vec![(true, v(3), 16), (true, v(5), 16)],
                vec![(true, v(2), 16), (false, v(2), 8)],
            ]
        );
        assert_eq!(
            *at(4),
            vec![
                vec![],
                vec![(false, v(2), 8)],
                vec![(true, v(3), 8), (false, v(3), 16)],
            ]
        );
        assert_eq!(
            *at(5),
            vec![vec![], vec![(false, v(1), 16)], vec![(false, v(0), 8)]]
        );
        // Every non-root receives 24 B in all.
        for x in 1..6 {
            let got: u64 = at(x).iter().flatten().filter(|o| !o.0).map(|o| o.2).sum();
            assert_eq!(got, 24, "v{x}");
        }
    }

    #[test]
    fn open_mpi_in_order_binary_tree_by_hand() {
        // P = 7 (tree of coll_base_topo.c): 6 has right child 2 (ranks
        // 0-2) and left child 5 (3-5); 2 has 0 and 1; 5 has 3 and 4.
        // Leaves send at step 0, 2 and 5 at step 1; root 1 gets the
        // result from 6 at step 2.
        let op = Op::Reduce {
            root: 1,
            bytes: 8,
            comm: crate::CommId::WORLD,
        };
        let s = schedule(CollAlg::ReduceInOrderBinary, &op, 7);
        type Steps = Vec<Vec<(bool, u32, u64)>>;
        let want: [Steps; 7] = [
            vec![vec![(true, 2, 8)], vec![], vec![]],
            vec![vec![(true, 2, 8)], vec![], vec![(false, 6, 8)]],
            vec![
                vec![(false, 1, 8), (false, 0, 8)],
                vec![(true, 6, 8)],
                vec![],
            ],
            vec![vec![(true, 5, 8)], vec![], vec![]],
            vec![vec![(true, 5, 8)], vec![], vec![]],
            vec![
                vec![(false, 4, 8), (false, 3, 8)],
                vec![(true, 6, 8)],
                vec![],
            ],
            vec![
                vec![],
                vec![(false, 5, 8), (false, 2, 8)],
                vec![(true, 1, 8)],
            ],
        ];
        for (r, w) in want.iter().enumerate() {
            assert_eq!(&s[r], w, "rank {r}");
        }
        // P = 4: 3 has right child 1 (0-1, which has left child 0) and
        // left child 2: 0 and 2 send at step 0, 1 at step 1.
        let op = Op::Reduce {
            root: 3,
            bytes: 8,
            comm: crate::CommId::WORLD,
        };
        let s = schedule(CollAlg::ReduceInOrderBinary, &op, 4);
        assert_eq!(s[3], vec![vec![(false, 2, 8)], vec![(false, 1, 8)]]);
        assert_eq!(s[1], vec![vec![(false, 0, 8)], vec![(true, 3, 8)]]);
    }

    #[test]
    fn smpi_mpich_rdb_reduce_scatter_by_hand() {
        let op = Op::ReduceScatter {
            counts: vec![1, 2, 3, 4, 5],
            comm: crate::CommId::WORLD,
        };
        let s = schedule(CollAlg::ReduceScatterRecursiveDoubling, &op, 5);
        // Rank 0: levels of 1, 2 and 3 steps.
        let r0: Vec<Vec<(bool, u32, u64)>> = vec![
            vec![(true, 1, 14), (false, 1, 13)],
            vec![(true, 2, 12), (false, 2, 8)],
            vec![],
            vec![(true, 4, 5), (false, 4, 10)],
            vec![(true, 2, 10)],
            vec![(true, 1, 10)],
        ];
        assert_eq!(s[0], r0);
        let r3: Vec<Vec<(bool, u32, u64)>> = vec![
            vec![(true, 2, 11), (false, 2, 12)],
            vec![(true, 1, 8), (false, 1, 12)],
            vec![],
            vec![],
            vec![],
            vec![(false, 2, 10)],
        ];
        assert_eq!(s[3], r3);
        // Reductions follow each level's last step: rank 0 reduces 13,
        // 8 and 10 B; rank 3 (no partner at level 2) 12, 12 and 10.
        let reduced = |me| {
            let mut r = CollRun::new(CollAlg::ReduceScatterRecursiveDoubling, &op, 5, me);
            let mut out = vec![];
            let mut v = vec![];
            while let Some(b) = r.plan(counts(&op), &mut out) {
                v.push(b);
                r.step += 1;
            }
            v
        };
        assert_eq!(reduced(0), [13, 0, 8, 0, 0, 10]);
        assert_eq!(reduced(3), [12, 0, 12, 0, 0, 10]);
    }
}
