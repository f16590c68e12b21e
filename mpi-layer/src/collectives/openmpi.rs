//! Open MPI 4.1's `coll/tuned` fixed decisions.
//!
//! Without a rules file or forced algorithm, `coll/tuned` picks by the
//! tables of `ompi/mca/coll/tuned/coll_tuned_decision_fixed.c`
//! (`ompi_coll_tuned_<coll>_intra_dec_fixed`): rows by communicator size,
//! columns by message size, cells an algorithm number of that
//! collective's `coll_tuned_<coll>_decision.c` list. [`openmpi`] reads
//! the tables transcribed below ([`Row`]) for a commutative operator (a
//! trace does not record it). The fixed rules pass no segment size, so
//! the pipelined and tree algorithms run unsegmented, which netsim's
//! algorithms do. Where Open MPI itself switches algorithm (odd P for
//! the neighbour exchanges, too few elements for scatter_allgather and
//! split_binary_tree), the rule names the one it runs.
//! `gatherv`, `scatterv`, `scan` and `exscan` have no `coll/tuned`
//! decision: `coll/basic` runs them (linear, and a chain for the scans).

use super::alg::CollAlg;
use super::kinds::Choice;
use super::step::{elements, floor_pow2, total};
use crate::op::Op;

/// One row of a fixed decision table: (communicator size below which the
/// row applies, \[(bytes below which the algorithm applies, algorithm
/// number)\], algorithm number for larger messages).
pub(super) type Row = (u32, &'static [(u64, u8)], u8);

/// The algorithm number `table` gives `p` ranks and `bytes`.
pub(super) fn lookup(table: &[Row], p: u32, bytes: u64) -> u8 {
    let row = table
        .iter()
        .find(|(below, _, _)| p < *below)
        .unwrap_or(&table[table.len() - 1]);
    row.1
        .iter()
        .find(|(below, _)| bytes < *below)
        .map_or(row.2, |&(_, a)| a)
}

const LAST: u32 = u32::MAX;

/// `ompi_coll_tuned_allreduce_intra_dec_fixed`, commutative branch, by
/// `dsize * count`: 1 basic_linear, 2 nonoverlapping, 3
/// recursive_doubling, 4 ring, 5 segmented_ring, 6 rabenseifner.
pub(super) const ALLREDUCE: [Row; 11] = [
    (
        4,
        &[
            (8, 4),
            (4096, 3),
            (8192, 4),
            (16384, 3),
            (65536, 4),
            (262_144, 5),
        ],
        6,
    ),
    (8, &[(16, 4), (8192, 3)], 6),
    (16, &[(8192, 3)], 6),
    (32, &[(64, 5), (4096, 3)], 6),
    (64, &[(128, 5)], 6),
    (128, &[(262_144, 3)], 6),
    (256, &[(131_072, 2), (262_144, 3)], 6),
    (512, &[(4096, 2)], 6),
    (2048, &[(2048, 2), (16384, 3)], 6),
    (4096, &[(2048, 2), (4096, 5), (16384, 3)], 6),
    (LAST, &[(2048, 2), (16384, 5), (32768, 3)], 6),
];

/// `ompi_coll_tuned_alltoall_intra_dec_fixed`, by `dsize * scount` (per
/// peer); the first row is `communicator_size == 2`: 1 linear, 2
/// pairwise, 3 modified_bruck, 4 linear_sync, 5 two_proc.
pub(super) const ALLTOALL: [Row; 12] = [
    (
        3,
        &[
            (2, 2),
            (4, 5),
            (16, 2),
            (64, 5),
            (256, 2),
            (4096, 5),
            (32768, 2),
            (262_144, 4),
            (1_048_576, 5),
        ],
        2,
    ),
    (
        8,
        &[
            (8192, 4),
            (16384, 1),
            (65536, 4),
            (524_288, 1),
            (1_048_576, 2),
        ],
        1,
    ),
    (16, &[(262_144, 4)], 1),
    (
        32,
        &[
            (4, 4),
            (512, 3),
            (8192, 4),
            (32768, 1),
            (262_144, 4),
            (524_288, 1),
        ],
        4,
    ),
    (64, &[(512, 3), (524_288, 1)], 4),
    (128, &[(1024, 3), (2048, 1), (4096, 4), (262_144, 1)], 2),
    (256, &[(1024, 3), (2048, 4), (262_144, 1)], 2),
    (512, &[(1024, 3), (8192, 4), (32768, 1)], 2),
    (
        1024,
        &[(512, 3), (8192, 4), (16384, 1), (131_072, 4), (262_144, 1)],
        2,
    ),
    (
        2048,
        &[(512, 3), (1024, 4), (2048, 1), (16384, 4), (262_144, 1)],
        4,
    ),
    (4096, &[(1024, 3), (4096, 4), (8192, 1), (131_072, 4)], 1),
    (
        LAST,
        &[(2048, 3), (8192, 4), (16384, 1), (32768, 4), (65536, 1)],
        4,
    ),
];

/// `ompi_coll_tuned_alltoallv_intra_dec_fixed`, by size only: 1
/// basic_linear, 2 pairwise.
pub(super) const ALLTOALLV: [Row; 6] = [
    (4, &[], 2),
    (64, &[], 1),
    (128, &[], 2),
    (256, &[], 1),
    (1024, &[], 2),
    (LAST, &[], 1),
];

/// `ompi_coll_tuned_barrier_intra_dec_fixed`, by size only: 1 linear, 2
/// double_ring, 3 recursive_doubling, 4 bruck, 5 two_proc, 6 tree.
pub(super) const BARRIER: [Row; 8] = [
    (4, &[], 3),
    (8, &[], 1),
    (64, &[], 3),
    (256, &[], 4),
    (512, &[], 6),
    (1024, &[], 4),
    (4096, &[], 6),
    (LAST, &[], 4),
];

/// `ompi_coll_tuned_bcast_intra_dec_fixed`, by `dsize * count`: 1
/// basic_linear, 2 chain, 3 pipeline, 4 split_binary_tree, 5
/// binary_tree, 6 binomial, 7 knomial, 8 scatter_allgather.
pub(super) const BCAST: [Row; 11] = [
    (
        4,
        &[
            (32, 3),
            (256, 5),
            (512, 3),
            (1024, 7),
            (32768, 1),
            (131_072, 5),
            (262_144, 2),
            (524_288, 1),
            (1_048_576, 6),
        ],
        5,
    ),
    (
        8,
        &[(64, 5), (128, 6), (2048, 5), (8192, 6), (1_048_576, 1)],
        2,
    ),
    (16, &[(8, 7), (64, 5), (4096, 7), (16384, 5), (32768, 6)], 1),
    (32, &[(4096, 7), (1_048_576, 6)], 8),
    (64, &[(2048, 6)], 7),
    (128, &[], 7),
    (256, &[(2, 6), (16384, 5), (32768, 1), (65536, 5)], 7),
    (1024, &[(16384, 7), (32768, 4)], 7),
    (2048, &[(524_288, 7)], 8),
    (4096, &[(262_144, 7)], 8),
    (LAST, &[(8192, 7), (16384, 5), (262_144, 7)], 8),
];

/// `ompi_coll_tuned_reduce_intra_dec_fixed`, commutative branch, by
/// `dsize * count`: 1 linear, 2 chain, 3 pipeline, 4 binary, 5 binomial,
/// 6 in-order_binary, 7 rabenseifner.
pub(super) const REDUCE: [Row; 9] = [
    (
        4,
        &[
            (8, 7),
            (16, 4),
            (32, 3),
            (262_144, 1),
            (524_288, 3),
            (1_048_576, 2),
        ],
        3,
    ),
    (
        8,
        &[
            (4096, 4),
            (65536, 2),
            (262_144, 5),
            (524_288, 1),
            (1_048_576, 5),
        ],
        1,
    ),
    (16, &[(8192, 4)], 5),
    (32, &[(4096, 4)], 5),
    (256, &[], 5),
    (512, &[(8192, 5), (16384, 6)], 5),
    (2048, &[], 5),
    (4096, &[(512, 5), (1024, 6), (8192, 5), (16384, 6)], 5),
    (
        LAST,
        &[
            (16, 5),
            (32, 6),
            (1024, 5),
            (2048, 6),
            (8192, 5),
            (16384, 6),
        ],
        5,
    ),
];

/// `ompi_coll_tuned_reduce_scatter_intra_dec_fixed`, commutative branch,
/// by the summed `rcounts` times `dsize`: 1 non-overlapping, 2
/// recursive_halving, 3 ring, 4 butterfly.
pub(super) const REDUCE_SCATTER: [Row; 11] = [
    (4, &[(65536, 3), (131_072, 4)], 3),
    (8, &[(8, 1), (262_144, 2)], 3),
    (32, &[(262_144, 2)], 3),
    (64, &[(64, 1), (2048, 2), (524_288, 4)], 3),
    (128, &[(256, 1), (512, 2), (2048, 4), (4096, 2)], 4),
    (256, &[(256, 1), (512, 2)], 4),
    (512, &[(256, 1), (1024, 2)], 4),
    (1024, &[(512, 1), (2048, 2), (8192, 4), (16384, 2)], 4),
    (2048, &[(512, 1), (4096, 2), (16384, 4), (32768, 2)], 4),
    (4096, &[(512, 1), (4096, 2)], 4),
    (LAST, &[(1024, 1), (8192, 2)], 4),
];

/// `ompi_coll_tuned_allgather_intra_dec_fixed`, by `dsize * scount` (per
/// rank); the first row is `communicator_size == 2`: 1 linear, 2 bruck,
/// 3 recursive_doubling, 4 ring, 5 neighbor, 6 two_proc.
pub(super) const ALLGATHER: [Row; 10] = [
    (3, &[], 6),
    (32, &[], 3),
    (64, &[(1024, 3), (65536, 5)], 4),
    (128, &[(512, 3), (65536, 5)], 4),
    (
        256,
        &[(512, 3), (131_072, 5), (524_288, 4), (1_048_576, 5)],
        4,
    ),
    (
        512,
        &[
            (32, 3),
            (128, 2),
            (1024, 3),
            (131_072, 5),
            (524_288, 4),
            (1_048_576, 5),
        ],
        4,
    ),
    (1024, &[(64, 3), (256, 2), (2048, 3)], 5),
    (
        2048,
        &[
            (4, 3),
            (8, 2),
            (16, 3),
            (32, 2),
            (256, 3),
            (512, 2),
            (4096, 3),
        ],
        5,
    ),
    (4096, &[(32, 2), (128, 3), (512, 2), (4096, 3)], 5),
    (LAST, &[(2, 3), (8, 2), (16, 3), (512, 2), (4096, 3)], 5),
];

/// `ompi_coll_tuned_allgatherv_intra_dec_fixed`, by the summed counts
/// divided by the communicator size; the first row is
/// `communicator_size == 2`: 1 default, 2 bruck, 3 ring, 4 neighbor, 5
/// two_proc.
pub(super) const ALLGATHERV: [Row; 10] = [
    (3, &[(2048, 3), (4096, 5), (8192, 3)], 5),
    (
        8,
        &[(256, 1), (4096, 4), (8192, 3), (16384, 4), (262_144, 2)],
        4,
    ),
    (16, &[(1024, 1)], 2),
    (32, &[(128, 1), (262_144, 2)], 3),
    (64, &[(256, 1), (8192, 2)], 3),
    (128, &[(256, 1), (4096, 2)], 3),
    (256, &[(1024, 2), (65536, 4)], 3),
    (512, &[(1024, 2)], 3),
    (1024, &[(512, 2), (1024, 1), (4096, 2), (1_048_576, 4)], 3),
    (LAST, &[(4096, 2)], 4),
];

/// `ompi_coll_tuned_gather_intra_dec_fixed`, by the per-rank block: 1
/// basic_linear, 2 binomial, 3 linear_sync.
pub(super) const GATHER: [Row; 5] = [
    (
        4,
        &[(2, 3), (4, 1), (32768, 2), (65536, 1), (131_072, 2)],
        3,
    ),
    (8, &[(1024, 2), (8192, 1), (32768, 2), (262_144, 1)], 3),
    (256, &[], 2),
    (512, &[(2048, 2), (8192, 1)], 2),
    (LAST, &[], 2),
];

/// `ompi_coll_tuned_scatter_intra_dec_fixed`, by the per-rank block: 1
/// basic_linear, 2 binomial, 3 linear_nb.
pub(super) const SCATTER: [Row; 6] = [
    (4, &[(2, 3), (131_072, 1), (262_144, 3)], 1),
    (
        8,
        &[(2048, 2), (4096, 1), (8192, 2), (32768, 1), (1_048_576, 3)],
        1,
    ),
    (16, &[(16384, 2), (1_048_576, 3)], 1),
    (32, &[(16384, 2), (32768, 1)], 3),
    (64, &[(512, 2), (8192, 3), (16384, 2)], 3),
    (LAST, &[(512, 2)], 3),
];

/// The algorithm Open MPI 4.1's `coll/tuned` runs for `op` on `p` ranks,
/// and its rule. Where `coll/base` compares a `count` with the
/// communicator size, reductions count elements of their `elem_bytes`.
pub(super) fn openmpi(op: &Op, p: u32) -> Choice {
    use CollAlg::*;
    let c = |alg, rule| Choice { alg, rule };
    let pow2 = p.is_power_of_two();
    match op {
        Op::Allreduce {
            bytes, elem_bytes, ..
        } => {
            let count = elements(*bytes, *elem_bytes);
            let few = count < u64::from(p);
            match lookup(&ALLREDUCE, p, *bytes) {
                3 => c(
                    AllreduceRecursiveDoubling,
                    "openmpi allreduce_intra_dec_fixed: 3 recursive_doubling",
                ),
                // `ompi_coll_base_allreduce_intra_ring`: count < size
                // switches to recursive doubling; the segmented ring with
                // no segment size is the ring.
                4 | 5 if few => c(
                    AllreduceRecursiveDoubling,
                    "openmpi allreduce_intra_dec_fixed: 4/5 ring, count < size: recursive_doubling",
                ),
                4 | 5 => c(
                    AllreduceRing,
                    "openmpi allreduce_intra_dec_fixed: 4 ring / 5 segmented_ring (no segments)",
                ),
                // `_redscat_allgather`: count < pof2 switches to basic_linear.
                6 if count < u64::from(floor_pow2(p)) => c(
                    AllreduceLinear,
                    "openmpi allreduce_intra_dec_fixed: 6 rabenseifner, count < pof2: basic_linear",
                ),
                6 => c(
                    AllreduceRedscatAllgather,
                    "openmpi allreduce_intra_dec_fixed: 6 rabenseifner (redscat_allgather)",
                ),
                _ => c(
                    AllreduceNonoverlapping,
                    "openmpi allreduce_intra_dec_fixed: 2 nonoverlapping (tuned reduce to 0 + tuned bcast)",
                ),
            }
        }
        Op::Alltoall { bytes, .. } => match lookup(&ALLTOALL, p, *bytes) {
            2 => c(
                AlltoallPairwise,
                "openmpi alltoall_intra_dec_fixed: 2 pairwise",
            ),
            3 => c(
                AlltoallBruck,
                "openmpi alltoall_intra_dec_fixed: 3 modified_bruck",
            ),
            // linear_sync with no request limit (max_requests 0) posts
            // everything, as linear; two_proc is one exchange.
            _ => c(
                AlltoallScattered,
                "openmpi alltoall_intra_dec_fixed: 1 linear / 4 linear_sync / 5 two_proc (all at once)",
            ),
        },
        Op::Alltoallv { .. } => match lookup(&ALLTOALLV, p, 0) {
            2 => c(
                AlltoallvPairwise,
                "openmpi alltoallv_intra_dec_fixed: 2 pairwise",
            ),
            _ => c(
                AlltoallvScattered,
                "openmpi alltoallv_intra_dec_fixed: 1 basic_linear",
            ),
        },
        Op::Barrier { .. } => match lookup(&BARRIER, p, 0) {
            1 => c(BarrierLinear, "openmpi barrier_intra_dec_fixed: 1 linear"),
            3 => c(
                BarrierRecursiveDoubling,
                "openmpi barrier_intra_dec_fixed: 3 recursive_doubling",
            ),
            4 => c(
                BarrierDissemination,
                "openmpi barrier_intra_dec_fixed: 4 bruck (dissemination)",
            ),
            _ => c(BarrierTree, "openmpi barrier_intra_dec_fixed: 6 tree"),
        },
        Op::Bcast {
            bytes, elem_bytes, ..
        } => bcast(p, *bytes, *elem_bytes),
        Op::Reduce {
            bytes, elem_bytes, ..
        } => reduce(p, *bytes, *elem_bytes),
        Op::ReduceScatter { counts, .. } => match lookup(&REDUCE_SCATTER, p, total(counts)) {
            1 => c(
                ReduceScatterNonoverlapping,
                "openmpi reduce_scatter_intra_dec_fixed: 1 non-overlapping (tuned reduce to 0 + linear scatterv)",
            ),
            2 => c(
                ReduceScatterRecursiveHalving,
                "openmpi reduce_scatter_intra_dec_fixed: 2 recursive_halving",
            ),
            3 => c(
                ReduceScatterRing,
                "openmpi reduce_scatter_intra_dec_fixed: 3 ring",
            ),
            _ => c(
                ReduceScatterButterfly,
                "openmpi reduce_scatter_intra_dec_fixed: 4 butterfly",
            ),
        },
        Op::Allgather { bytes, .. } => match lookup(&ALLGATHER, p, *bytes) {
            2 => c(AllgatherBruck, "openmpi allgather_intra_dec_fixed: 2 bruck"),
            // recursive_doubling switches to bruck on other sizes.
            3 if pow2 => c(
                AllgatherRecursiveDoubling,
                "openmpi allgather_intra_dec_fixed: 3 recursive_doubling",
            ),
            3 => c(
                AllgatherBruck,
                "openmpi allgather_intra_dec_fixed: 3 recursive_doubling, P not a power of two: bruck",
            ),
            5 if p % 2 == 0 => c(
                AllgatherNeighborExchange,
                "openmpi allgather_intra_dec_fixed: 5 neighbor",
            ),
            5 => c(
                AllgatherRing,
                "openmpi allgather_intra_dec_fixed: 5 neighbor, odd P: ring",
            ),
            6 => c(
                AllgatherRing,
                "openmpi allgather_intra_dec_fixed: 6 two_proc (one exchange)",
            ),
            _ => c(AllgatherRing, "openmpi allgather_intra_dec_fixed: 4 ring"),
        },
        Op::Allgatherv { counts, .. } => {
            match lookup(&ALLGATHERV, p, total(counts) / u64::from(p.max(1))) {
                1 => c(
                    AllgathervDefault,
                    "openmpi allgatherv_intra_dec_fixed: 1 default (linear gatherv to 0 + tuned bcast)",
                ),
                2 => c(
                    AllgathervBruck,
                    "openmpi allgatherv_intra_dec_fixed: 2 bruck",
                ),
                4 if p % 2 == 0 => c(
                    AllgathervNeighborExchange,
                    "openmpi allgatherv_intra_dec_fixed: 4 neighbor",
                ),
                4 => c(
                    AllgathervRing,
                    "openmpi allgatherv_intra_dec_fixed: 4 neighbor, odd P: ring",
                ),
                5 => c(
                    AllgathervRing,
                    "openmpi allgatherv_intra_dec_fixed: 5 two_proc (one exchange)",
                ),
                _ => c(AllgathervRing, "openmpi allgatherv_intra_dec_fixed: 3 ring"),
            }
        }
        Op::Gather { bytes, .. } => match lookup(&GATHER, p, *bytes) {
            2 => c(GatherBinomial, "openmpi gather_intra_dec_fixed: 2 binomial"),
            1 => c(
                GatherLinear,
                "openmpi gather_intra_dec_fixed: 1 basic_linear",
            ),
            _ => c(
                GatherLinearSync,
                "openmpi gather_intra_dec_fixed: 3 linear_sync (segment size 0: the block whole)",
            ),
        },
        Op::Scatter { bytes, .. } => match lookup(&SCATTER, p, *bytes) {
            2 => c(
                ScatterBinomial,
                "openmpi scatter_intra_dec_fixed: 2 binomial",
            ),
            1 => c(
                ScatterLinear,
                "openmpi scatter_intra_dec_fixed: 1 basic_linear",
            ),
            _ => c(
                ScatterLinear,
                "openmpi scatter_intra_dec_fixed: 3 linear_nb (all at once)",
            ),
        },
        Op::Gatherv { .. } => c(GathervLinear, "openmpi coll/basic gatherv_intra (linear)"),
        Op::Scatterv { .. } => c(ScattervLinear, "openmpi coll/basic scatterv_intra (linear)"),
        Op::Scan { .. } => c(
            ScanChain,
            "openmpi coll/basic scan_intra / exscan_intra (chain)",
        ),
        _ => unreachable!("select() passes collectives only"),
    }
}

/// `ompi_coll_tuned_bcast_intra_dec_fixed`'s choice for `bytes` in
/// elements of `elem_bytes` on `p` ranks: the table compares bytes, the
/// algorithms' fallbacks (`coll_base_bcast.c`:
/// `ompi_coll_base_bcast_intra_split_bintree`, `counts[1] == 0`: chain;
/// `ompi_coll_base_bcast_intra_scatter_allgather`, `count < comm_size`:
/// basic_linear) compare elements.
pub(super) fn bcast(p: u32, bytes: u64, elem_bytes: u64) -> Choice {
    use CollAlg::*;
    let c = |alg, rule| Choice { alg, rule };
    match lookup(&BCAST, p, bytes) {
        1 => c(BcastLinear, "openmpi bcast_intra_dec_fixed: 1 basic_linear"),
        2 | 3 => c(
            BcastChain,
            "openmpi bcast_intra_dec_fixed: 2 chain / 3 pipeline (fan-out 1, no segments)",
        ),
        4 if elements(bytes, elem_bytes) < 2 => c(
            BcastChain,
            "openmpi bcast_intra_dec_fixed: 4 split_binary_tree, count < 2: chain",
        ),
        4 => c(
            BcastSplitBinaryTree,
            "openmpi bcast_intra_dec_fixed: 4 split_binary_tree (segment size 0: one segment per half)",
        ),
        5 => c(
            BcastBinaryTree,
            "openmpi bcast_intra_dec_fixed: 5 binary_tree",
        ),
        6 => c(BcastBinomial, "openmpi bcast_intra_dec_fixed: 6 binomial"),
        7 => c(
            BcastKnomial,
            "openmpi bcast_intra_dec_fixed: 7 knomial (radix 4)",
        ),
        // `_scatter_allgather`: count < size switches to basic_linear.
        _ if elements(bytes, elem_bytes) < u64::from(p) => c(
            BcastLinear,
            "openmpi bcast_intra_dec_fixed: 8 scatter_allgather, count < size: basic_linear",
        ),
        _ => c(
            BcastScatterRdAllgather,
            "openmpi bcast_intra_dec_fixed: 8 scatter_allgather",
        ),
    }
}

/// `ompi_coll_tuned_reduce_intra_dec_fixed`'s choice (commutative) for
/// `bytes` in elements of `elem_bytes` on `p` ranks.
pub(super) fn reduce(p: u32, bytes: u64, elem_bytes: u64) -> Choice {
    use CollAlg::*;
    let c = |alg, rule| Choice { alg, rule };
    match lookup(&REDUCE, p, bytes) {
        1 => c(ReduceLinear, "openmpi reduce_intra_dec_fixed: 1 linear"),
        2 | 3 => c(
            ReduceChain,
            "openmpi reduce_intra_dec_fixed: 2 chain / 3 pipeline (fan-out 1, no segments)",
        ),
        4 => c(ReduceBinaryTree, "openmpi reduce_intra_dec_fixed: 4 binary"),
        5 => c(ReduceBinomial, "openmpi reduce_intra_dec_fixed: 5 binomial"),
        6 => c(
            ReduceInOrderBinary,
            "openmpi reduce_intra_dec_fixed: 6 in-order_binary (segment size 0: one segment)",
        ),
        // `_redscat_gather`: count < pof2 switches to basic_linear.
        _ if elements(bytes, elem_bytes) < u64::from(floor_pow2(p)) => c(
            ReduceLinear,
            "openmpi reduce_intra_dec_fixed: 7 rabenseifner, count < pof2: basic_linear",
        ),
        _ => c(
            ReduceScatterGather,
            "openmpi reduce_intra_dec_fixed: 7 rabenseifner",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CommId;
    use CollAlg::*;

    use crate::collectives::test_ops::{allreduce, bcast, reduce};
    const W: CommId = CommId::WORLD;

    #[test]
    fn every_table_switches_at_its_thresholds() {
        let tables: [&[Row]; 11] = [
            &ALLREDUCE,
            &ALLTOALL,
            &ALLTOALLV,
            &BARRIER,
            &BCAST,
            &REDUCE,
            &REDUCE_SCATTER,
            &ALLGATHER,
            &ALLGATHERV,
            &GATHER,
            &SCATTER,
        ];
        for t in tables {
            let mut lo = 2;
            for &(below, cells, last) in t {
                let hi = below.saturating_sub(1).max(lo);
                for p in [lo, hi] {
                    let mut prev = 0;
                    for (i, &(b, a)) in cells.iter().enumerate() {
                        assert!(b > prev, "thresholds rise");
                        assert_eq!(lookup(t, p, b - 1), a, "P = {p}, {} B", b - 1);
                        let next = cells.get(i + 1).map_or(last, |c| c.1);
                        assert_eq!(lookup(t, p, b), next, "P = {p}, {b} B");
                        prev = b;
                    }
                    assert_eq!(lookup(t, p, u64::MAX), last);
                }
                lo = below;
            }
        }
    }

    fn pick(op: Op, p: u32) -> CollAlg {
        openmpi(&op, p).alg
    }

    #[test]
    fn count_is_elements_of_the_datatype() {
        let ar = allreduce;
        let r = |bytes, elem_bytes| reduce(0, bytes, elem_bytes);
        // P = 3: below 8 B the allreduce table's cell is 4 (ring), whose
        // `count < size` switch runs recursive doubling: 4 B is 0 doubles
        // and 1 int (< 3), 2 shorts (< 3) and 4 chars (ring).
        assert_eq!(pick(ar(4, 8), 3), AllreduceRecursiveDoubling);
        assert_eq!(pick(ar(4, 2), 3), AllreduceRecursiveDoubling);
        assert_eq!(pick(ar(4, 1), 3), AllreduceRing);
        // P = 3: below 8 B the reduce cell is 7 (rabenseifner), whose
        // `count < pof2` (2) switch runs basic_linear: 4 B is 0 doubles, 1
        // int, 2 shorts (= pof2) and 4 chars.
        assert_eq!(pick(r(4, 8), 3), ReduceLinear);
        assert_eq!(pick(r(4, 4), 3), ReduceLinear);
        assert_eq!(pick(r(4, 2), 3), ReduceScatterGather);
        assert_eq!(pick(r(4, 1), 3), ReduceScatterGather);
        // bcast, 512 <= P < 1024, 16384 to 32767 B: split_binary_tree,
        // which runs chain when its second half has no element (count <
        // 2): 20000 B is 2500 doubles, 2 elements of 10000 B, 1 of 20000.
        let b = |bytes, elem_bytes| bcast(0, bytes, elem_bytes);
        assert_eq!(pick(b(20_000, 8), 600), BcastSplitBinaryTree);
        assert_eq!(pick(b(20_000, 10_000), 600), BcastSplitBinaryTree);
        assert_eq!(pick(b(20_000, 10_001), 600), BcastChain);
        // 16 <= P < 32 from 1 MiB: scatter_allgather, basic_linear when
        // count < size: 1 MiB in 61680-byte elements is 17 (= P), in
        // 61681-byte ones 16.
        assert_eq!(pick(b(1 << 20, 61_680), 17), BcastScatterRdAllgather);
        assert_eq!(pick(b(1 << 20, 61_681), 17), BcastLinear);
    }

    #[test]
    fn cells_read_off_the_source() {
        let ar = |bytes| allreduce(bytes, 8);
        let b = |bytes| Op::Bcast {
            elem_bytes: 8,
            root: 0,
            bytes,
            comm: W,
        };
        let r = |bytes| reduce(0, bytes, 8);
        let t = |bytes| Op::Alltoall { bytes, comm: W };
        let ag = |bytes| Op::Allgather { bytes, comm: W };
        let cases = [
            // allreduce, 8 <= P < 16: < 8192 recursive doubling, else
            // rabenseifner; 4 <= P < 8: < 16 ring, but 1 double < 4
            // ranks falls back to recursive doubling.
            (ar(8191), 12, AllreduceRecursiveDoubling),
            (ar(8192), 12, AllreduceRedscatAllgather),
            (ar(8), 4, AllreduceRecursiveDoubling),
            (ar(1 << 20), 2, AllreduceRedscatAllgather),
            (ar(100_000), 2, AllreduceRing),
            // 2 <= P < 4, 262144 B: rabenseifner; 64 <= P < 128 wants
            // rabenseifner from 262144 B (32768 doubles >= pof2 = 64).
            (ar(262_144), 100, AllreduceRedscatAllgather),
            (ar(131_071), 200, AllreduceNonoverlapping),
            // bcast: 8 <= P < 16: < 8 knomial,
            // < 64 binary tree; 16 <= P < 32 from 1 MiB: scatter_allgather.
            (b(7), 12, BcastKnomial),
            (b(8), 12, BcastBinaryTree),
            // reduce, 256 <= P < 512: 8192 to 16383 B in-order binary.
            (r(10_000), 300, ReduceInOrderBinary),
            (r(8191), 300, ReduceBinomial),
            // 512 <= P < 1024: 16384 to 32767 B split_binary_tree.
            (b(20_000), 600, BcastSplitBinaryTree),
            (b(16_383), 600, BcastKnomial),
            (b(1 << 20), 16, BcastScatterRdAllgather),
            (b(1 << 20), 17, BcastScatterRdAllgather),
            // P >= 4096 from 262144 B: scatter_allgather, which runs
            // basic_linear when its 32768 doubles are fewer than P.
            (b(262_144), 4096, BcastScatterRdAllgather),
            (b(262_144), 40_000, BcastLinear),
            (b(20_000), 2, BcastLinear),
            (b(200_000), 2, BcastChain),
            // reduce, 2 <= P < 4: < 8 rabenseifner, < 16 binary, < 32
            // pipeline, < 262144 linear (7 B is no double: basic_linear,
            // `count_is_elements_of_the_datatype`).
            (r(7), 3, ReduceLinear),
            (r(15), 3, ReduceBinaryTree),
            (r(31), 3, ReduceChain),
            (r(32), 3, ReduceLinear),
            (r(100), 100, ReduceBinomial),
            // alltoall: pairwise is the shifted exchange.
            (t(1 << 20), 64, AlltoallPairwise),
            (t(100), 64, AlltoallBruck),
            (t(100), 4, AlltoallScattered),
            // allgather, 32 <= P < 64: < 1024 recursive doubling (Bruck
            // off powers of two), < 65536 neighbor (ring on odd P), else
            // ring.
            (ag(1023), 32, AllgatherRecursiveDoubling),
            (ag(1023), 33, AllgatherBruck),
            (ag(1024), 32, AllgatherNeighborExchange),
            (ag(1024), 33, AllgatherRing),
            (ag(65536), 32, AllgatherRing),
        ];
        for (op, p, alg) in cases {
            assert_eq!(pick(op.clone(), p), alg, "P = {p}: {op:?}");
        }
    }

    #[test]
    fn size_only_rules_and_basic_collectives() {
        let bar = Op::Barrier { comm: W };
        for (p, alg) in [
            (3, BarrierRecursiveDoubling),
            (4, BarrierLinear),
            (8, BarrierRecursiveDoubling),
            (64, BarrierDissemination),
            (256, BarrierTree),
        ] {
            assert_eq!(pick(bar.clone(), p), alg, "P = {p}");
        }
        let tv = |p: usize| Op::Alltoallv {
            send: vec![1; p],
            recv: vec![1; p],
            comm: W,
        };
        assert_eq!(pick(tv(3), 3), AlltoallvPairwise);
        assert_eq!(pick(tv(4), 4), AlltoallvScattered);
        let rs = |per: u64, p: usize| Op::ReduceScatter {
            counts: vec![per; p],
            elem_bytes: 8,
            comm: W,
        };
        // 8 <= P < 32: total < 262144 recursive halving, else ring.
        assert_eq!(pick(rs(16383, 16), 16), ReduceScatterRecursiveHalving);
        assert_eq!(pick(rs(16384, 16), 16), ReduceScatterRing);
        // 128 <= P < 256: from 512 B butterfly.
        assert_eq!(pick(rs(2, 200), 200), ReduceScatterRecursiveHalving);
        assert_eq!(pick(rs(3, 200), 200), ReduceScatterButterfly);
        let agv = |per: u64| Op::Allgatherv {
            counts: vec![per; 12],
            comm: W,
        };
        // 8 <= P < 16: per rank < 1024 default, else bruck.
        assert_eq!(pick(agv(1023), 12), AllgathervDefault);
        assert_eq!(pick(agv(1024), 12), AllgathervBruck);
        // 3 <= P < 8: per rank 256 to 4095 neighbor (ring on odd P).
        let agv = |per: u64, p: usize| Op::Allgatherv {
            counts: vec![per; p],
            comm: W,
        };
        assert_eq!(pick(agv(1000, 6), 6), AllgathervNeighborExchange);
        assert_eq!(pick(agv(1000, 5), 5), AllgathervRing);
        assert_eq!(pick(agv(255, 6), 6), AllgathervDefault);
        let (root, bytes, comm) = (0, 100, W);
        assert_eq!(pick(Op::Gather { root, bytes, comm }, 5), GatherBinomial);
        // P < 4 below 2 B and 4 <= P < 8 from 262144 B: linear_sync.
        let g = |bytes| Op::Gather { root, bytes, comm };
        assert_eq!(pick(g(1), 3), GatherLinearSync);
        assert_eq!(pick(g(2), 3), GatherLinear);
        assert_eq!(pick(g(262_144), 5), GatherLinearSync);
        assert_eq!(pick(g(262_143), 5), GatherLinear);
        assert_eq!(pick(Op::Scatter { root, bytes, comm }, 5), ScatterBinomial);
        let sc = Op::Scan {
            bytes,
            comm,
            exclusive: true,
        };
        assert_eq!(pick(sc, 5), ScanChain);
    }
}
