//! The collective algorithms ([`CollAlg`]) and their fixed constants.
//!
//! Each variant is one point-to-point schedule; its doc says how the
//! steps go and whose algorithm it is (library source file and
//! function). This module holds only the names: [`super::CollRun::plan`]
//! gives a variant's steps (one file per family of algorithms beside
//! this one), [`super::select`] chooses among them, and
//! [`super::CollKind::algorithms`] gives the names scenarios use.

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
    /// Allreduce, Open MPI's Rabenseifner
    /// (`ompi_coll_base_allreduce_intra_redscat_allgather`): off powers
    /// of two the first `2 rem` ranks trade halves and the odd ones hand
    /// their reduced half to the even ones; then window-halving
    /// reduce-scatter and its mirror allgather.
    AllreduceRedscatAllgather,
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
