//! MPICH 4.1's default choice of collective algorithms.
//!
//! With every `MPIR_CVAR_<COLL>_INTRA_ALGORITHM` at `auto`, MPICH asks
//! its selection tree (`MPIR_Csel_search`, `src/mpi/coll/src/csel.c`),
//! built from the JSON compiled in by default,
//! `maint/tuning/coll/mpir/generic.json` (4.0 and 4.1 alike). [`mpich`]
//! walks that tree for a flat intra-communicator: one rank per node, so
//! the `comm_hierarchy=parent` (node-aware `smp`) branches are not taken;
//! send buffers not `MPI_IN_PLACE`; reductions with a built-in,
//! commutative operator (a trace does not record the operator). The
//! tree's `count` is elements: the operation's bytes over its datatype's
//! `elem_bytes`. Every threshold is a named constant citing the tree's
//! key.

use super::alg::CollAlg;
use super::kinds::{Choice, CollKind};
use super::step::{elements, floor_pow2, total};
use crate::op::Op;

/// Bytes per element where a workload names no datatype: 8, an
/// `MPI_DOUBLE`, the commonest reduction datatype.
pub const ELEMENT_BYTES: u64 = 8;

/// `generic.json`, bcast: `comm_size<8`: binomial at every size.
pub(super) const BCAST_MIN_PROCS: u32 = 8;
/// `generic.json`, bcast: `avg_msg_size<=12288` \[bytes\]: binomial.
pub(super) const BCAST_SHORT_MAX: u64 = 12_288;
/// `generic.json`, bcast, `comm_size=pow2`: `avg_msg_size<=524288`
/// \[bytes\]: scatter + recursive doubling allgather; above: ring.
pub(super) const BCAST_MEDIUM_MAX: u64 = 524_288;
/// `generic.json`, allreduce: `avg_msg_size<=8` \[bytes\]: recursive
/// doubling.
pub(super) const ALLREDUCE_SHORT_MAX: u64 = 8;
/// `generic.json`, reduce: `avg_msg_size<=2048` \[bytes\]: binomial.
pub(super) const REDUCE_SHORT_MAX: u64 = 2048;
/// `generic.json`, allgather(v), `comm_size=pow2`: `total_msg_size<524288`
/// \[bytes\]: recursive doubling; above: ring.
pub(super) const ALLGATHER_RD_BELOW: u64 = 524_288;
/// `generic.json`, allgather(v), other sizes: `total_msg_size<81920`
/// \[bytes\]: Bruck; above: ring.
pub(super) const ALLGATHER_BRUCK_BELOW: u64 = 81_920;
/// `generic.json`, alltoall: `comm_size<8`: no Bruck.
pub(super) const ALLTOALL_MIN_PROCS: u32 = 8;
/// `generic.json`, alltoall: `avg_msg_size<=256` \[bytes per peer\]: Bruck.
pub(super) const ALLTOALL_SHORT_MAX: u64 = 256;
/// `generic.json`, alltoall: `avg_msg_size<=32768` \[bytes per peer\]:
/// scattered (throttled); above: pairwise.
pub(super) const ALLTOALL_MEDIUM_MAX: u64 = 32_768;
/// `generic.json`, reduce_scatter, commutative: `total_msg_size<524288`
/// \[bytes\]: recursive halving; above: pairwise.
pub(super) const REDUCE_SCATTER_HALVING_BELOW: u64 = 524_288;

/// The algorithm MPICH 4.1 runs for `op` on `p` ranks, and its rule.
pub(super) fn mpich(op: &Op, p: u32) -> Choice {
    use CollAlg::*;
    let c = |alg, rule| Choice { alg, rule };
    let pow2 = p.is_power_of_two();
    // `count<pow2`: fewer elements than the largest power of two <= P.
    let few = |bytes: u64, elem: u64| elements(bytes, elem) < u64::from(floor_pow2(p));
    match op {
        Op::Barrier { .. } => c(
            BarrierDissemination,
            "mpich generic.json barrier: MPIR_Barrier_intra_k_dissemination, k=2",
        ),
        Op::Bcast { bytes, .. } => {
            let b = *bytes;
            if p < BCAST_MIN_PROCS {
                c(
                    BcastBinomialFarFirst,
                    "mpich generic.json bcast: comm_size<8: MPIR_Bcast_intra_binomial",
                )
            } else if b <= BCAST_SHORT_MAX {
                c(
                    BcastBinomialFarFirst,
                    "mpich generic.json bcast: avg_msg_size<=12288: MPIR_Bcast_intra_binomial",
                )
            } else if pow2 && b <= BCAST_MEDIUM_MAX {
                c(
                    BcastScatterRdAllgather,
                    "mpich generic.json bcast: comm_size=pow2, avg_msg_size<=524288: MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
                )
            } else {
                c(
                    BcastScatterAllgather,
                    "mpich generic.json bcast: larger: MPIR_Bcast_intra_scatter_ring_allgather",
                )
            }
        }
        Op::Reduce {
            bytes, elem_bytes, ..
        } => {
            if *bytes <= REDUCE_SHORT_MAX {
                c(
                    ReduceBinomial,
                    "mpich generic.json reduce: avg_msg_size<=2048: MPIR_Reduce_intra_binomial",
                )
            } else if few(*bytes, *elem_bytes) {
                c(
                    ReduceBinomial,
                    "mpich generic.json reduce: count<pow2: MPIR_Reduce_intra_binomial",
                )
            } else {
                c(
                    ReduceScatterGather,
                    "mpich generic.json reduce: MPIR_Reduce_intra_reduce_scatter_gather",
                )
            }
        }
        Op::Allreduce {
            bytes, elem_bytes, ..
        } => {
            if *bytes <= ALLREDUCE_SHORT_MAX {
                c(
                    AllreduceRecursiveDoubling,
                    "mpich generic.json allreduce: avg_msg_size<=8: MPIR_Allreduce_intra_recursive_doubling",
                )
            } else if few(*bytes, *elem_bytes) {
                c(
                    AllreduceRecursiveDoubling,
                    "mpich generic.json allreduce: count<pow2: MPIR_Allreduce_intra_recursive_doubling",
                )
            } else {
                c(
                    AllreduceRabenseifner,
                    "mpich generic.json allreduce: MPIR_Allreduce_intra_reduce_scatter_allgather",
                )
            }
        }
        Op::Allgather { bytes, .. } => {
            let total = bytes.saturating_mul(u64::from(p));
            allgather(total, pow2, false)
        }
        Op::Allgatherv { counts, .. } => allgather(total(counts), pow2, true),
        Op::Alltoall { bytes, .. } => {
            let b = *bytes;
            if p >= ALLTOALL_MIN_PROCS && b <= ALLTOALL_SHORT_MAX {
                c(
                    AlltoallBruck,
                    "mpich generic.json alltoall: avg_msg_size<=256: MPIR_Alltoall_intra_brucks",
                )
            } else if b <= ALLTOALL_MEDIUM_MAX {
                c(
                    AlltoallScatteredThrottled,
                    "mpich generic.json alltoall: avg_msg_size<=32768: MPIR_Alltoall_intra_scattered",
                )
            } else if pow2 {
                c(
                    AlltoallPairwiseXor,
                    "mpich generic.json alltoall: larger: MPIR_Alltoall_intra_pairwise (XOR pairs)",
                )
            } else {
                c(
                    AlltoallPairwise,
                    "mpich generic.json alltoall: larger: MPIR_Alltoall_intra_pairwise",
                )
            }
        }
        Op::Alltoallv { .. } => c(
            AlltoallvScatteredThrottled,
            "mpich generic.json alltoallv: MPIR_Alltoallv_intra_scattered",
        ),
        Op::ReduceScatter { counts, .. } => {
            if total(counts) < REDUCE_SCATTER_HALVING_BELOW {
                c(
                    ReduceScatterRecursiveHalving,
                    "mpich generic.json reduce_scatter: commutative, total_msg_size<524288: MPIR_Reduce_scatter_intra_recursive_halving",
                )
            } else {
                c(
                    ReduceScatterPairwise,
                    "mpich generic.json reduce_scatter: commutative, larger: MPIR_Reduce_scatter_intra_pairwise",
                )
            }
        }
        Op::Gather { .. } => c(
            GatherBinomial,
            "mpich generic.json gather: MPIR_Gather_intra_binomial",
        ),
        Op::Scatter { .. } => c(
            ScatterBinomial,
            "mpich generic.json scatter: MPIR_Scatter_intra_binomial",
        ),
        Op::Gatherv { .. } => c(
            GathervLinear,
            "mpich generic.json gatherv: MPIR_Gatherv_allcomm_linear",
        ),
        Op::Scatterv { .. } => c(
            ScattervLinear,
            "mpich generic.json scatterv: MPIR_Scatterv_allcomm_linear",
        ),
        // One rank per node: the node-consecutive `smp` scan is a
        // recursive doubling over the node roots.
        Op::Scan { .. } => c(
            ScanRecursiveDoublingExchange,
            "mpich generic.json scan / exscan: MPIR_Scan_intra_recursive_doubling",
        ),
        _ => unreachable!("select() passes collectives only: {:?}", CollKind::of(op)),
    }
}

/// `generic.json` allgather and allgatherv, by the total gathered bytes.
fn allgather(total: u64, pow2: bool, v: bool) -> Choice {
    use CollAlg::*;
    let pick = |a, av| if v { av } else { a };
    if pow2 && total < ALLGATHER_RD_BELOW {
        Choice {
            alg: pick(AllgatherRecursiveDoubling, AllgathervRecursiveDoubling),
            rule: "mpich generic.json allgather(v): comm_size=pow2, total_msg_size<524288: recursive_doubling",
        }
    } else if !pow2 && total < ALLGATHER_BRUCK_BELOW {
        Choice {
            alg: pick(AllgatherBruck, AllgathervBruck),
            rule: "mpich generic.json allgather(v): total_msg_size<81920: brucks",
        }
    } else {
        Choice {
            alg: pick(AllgatherRing, AllgathervRing),
            rule: "mpich generic.json allgather(v): larger: ring",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CommId;
    use CollAlg::*;

    use crate::collectives::test_ops::{allreduce, reduce};
    const W: CommId = CommId::WORLD;

    fn pick(op: Op, p: u32) -> CollAlg {
        mpich(&op, p).alg
    }

    #[test]
    fn bcast_by_size_and_ranks() {
        let b = |bytes| Op::Bcast {
            elem_bytes: 8,
            root: 0,
            bytes,
            comm: W,
        };
        let cases = [
            (7, 1 << 20, BcastBinomialFarFirst),
            (8, BCAST_SHORT_MAX, BcastBinomialFarFirst),
            (8, BCAST_SHORT_MAX + 1, BcastScatterRdAllgather),
            (8, BCAST_MEDIUM_MAX, BcastScatterRdAllgather),
            (8, BCAST_MEDIUM_MAX + 1, BcastScatterAllgather),
            (12, BCAST_SHORT_MAX, BcastBinomialFarFirst),
            (12, BCAST_SHORT_MAX + 1, BcastScatterAllgather),
        ];
        for (p, s, alg) in cases {
            assert_eq!(pick(b(s), p), alg, "P = {p}, {s} B");
        }
    }

    #[test]
    fn reductions_by_size_and_count() {
        let ar = |bytes| allreduce(bytes, 8);
        let r = |bytes| reduce(0, bytes, 8);
        // P = 12: pof2 = 8, so 8 doubles (64 B) is the first count that
        // is not below it.
        let cases = [
            (ar(ALLREDUCE_SHORT_MAX), AllreduceRecursiveDoubling),
            (ar(ALLREDUCE_SHORT_MAX + 8), AllreduceRecursiveDoubling),
            (ar(63), AllreduceRecursiveDoubling),
            (ar(64), AllreduceRabenseifner),
            (r(REDUCE_SHORT_MAX), ReduceBinomial),
            (r(REDUCE_SHORT_MAX + 8), ReduceScatterGather),
        ];
        for (op, alg) in cases {
            assert_eq!(pick(op.clone(), 12), alg, "{op:?}");
        }
        // On 1024 ranks 2056 B (257 doubles) is still below pof2.
        assert_eq!(pick(r(2056), 1024), ReduceBinomial);
        assert_eq!(pick(r(8192), 1024), ReduceScatterGather);
        assert_eq!(pick(ar(8), 2), AllreduceRecursiveDoubling);
        assert_eq!(pick(ar(16), 2), AllreduceRabenseifner);
    }

    #[test]
    fn allgathers_by_total_size() {
        let ag = |bytes| Op::Allgather { bytes, comm: W };
        let agv = |per: u64, p: usize| Op::Allgatherv {
            counts: vec![per; p],
            comm: W,
        };
        // P = 8: total 8 s; P = 10: total 10 s.
        let cases = [
            (
                ag(ALLGATHER_RD_BELOW / 8 - 1),
                8,
                AllgatherRecursiveDoubling,
            ),
            (ag(ALLGATHER_RD_BELOW / 8), 8, AllgatherRing),
            (ag(ALLGATHER_BRUCK_BELOW / 10 - 1), 10, AllgatherBruck),
            (ag(ALLGATHER_BRUCK_BELOW / 10), 10, AllgatherRing),
            (agv(65_535, 8), 8, AllgathervRecursiveDoubling),
            (agv(65_536, 8), 8, AllgathervRing),
            (agv(8191, 10), 10, AllgathervBruck),
            (agv(8192, 10), 10, AllgathervRing),
        ];
        for (op, p, alg) in cases {
            assert_eq!(pick(op, p), alg, "P = {p}");
        }
    }

    #[test]
    fn alltoall_by_size_and_ranks() {
        let t = |bytes| Op::Alltoall { bytes, comm: W };
        let cases = [
            (7, 1, AlltoallScatteredThrottled),
            (7, ALLTOALL_MEDIUM_MAX, AlltoallScatteredThrottled),
            (7, ALLTOALL_MEDIUM_MAX + 1, AlltoallPairwise),
            (8, ALLTOALL_SHORT_MAX, AlltoallBruck),
            (8, ALLTOALL_SHORT_MAX + 1, AlltoallScatteredThrottled),
            (8, ALLTOALL_MEDIUM_MAX, AlltoallScatteredThrottled),
            (8, ALLTOALL_MEDIUM_MAX + 1, AlltoallPairwiseXor),
            (12, ALLTOALL_MEDIUM_MAX + 1, AlltoallPairwise),
        ];
        for (p, s, alg) in cases {
            assert_eq!(pick(t(s), p), alg, "P = {p}, {s} B");
        }
        let tv = Op::Alltoallv {
            send: vec![1; 4],
            recv: vec![1; 4],
            comm: W,
        };
        assert_eq!(pick(tv, 4), AlltoallvScatteredThrottled);
    }

    #[test]
    fn count_is_elements_of_the_datatype() {
        let ar = allreduce;
        let r = |bytes, elem_bytes| reduce(0, bytes, elem_bytes);
        // P = 12, pof2 = 8. 32 B: 4 doubles < 8, 8 ints = 8, 32 chars.
        assert_eq!(pick(ar(32, 8), 12), AllreduceRecursiveDoubling);
        assert_eq!(pick(ar(32, 4), 12), AllreduceRabenseifner);
        assert_eq!(pick(ar(32, 1), 12), AllreduceRabenseifner);
        // P = 1024, pof2 = 1024, past the 2048 B short rule. 4096 B: 512
        // doubles < 1024, 1024 ints = 1024, 4096 chars.
        assert_eq!(pick(r(4096, 8), 1024), ReduceBinomial);
        assert_eq!(pick(r(4096, 4), 1024), ReduceScatterGather);
        assert_eq!(pick(r(4096, 1), 1024), ReduceScatterGather);
    }

    #[test]
    fn the_rest() {
        let rs = |per: u64| Op::ReduceScatter {
            counts: vec![per; 4],
            elem_bytes: 8,
            comm: W,
        };
        assert_eq!(
            pick(rs(REDUCE_SCATTER_HALVING_BELOW / 4 - 1), 4),
            ReduceScatterRecursiveHalving
        );
        assert_eq!(
            pick(rs(REDUCE_SCATTER_HALVING_BELOW / 4), 4),
            ReduceScatterPairwise
        );
        assert_eq!(pick(Op::Barrier { comm: W }, 5), BarrierDissemination);
        let (root, bytes, comm) = (0, 8, W);
        assert_eq!(pick(Op::Gather { root, bytes, comm }, 5), GatherBinomial);
        assert_eq!(pick(Op::Scatter { root, bytes, comm }, 5), ScatterBinomial);
        let counts = vec![1; 5];
        let gv = Op::Gatherv {
            root,
            counts: counts.clone(),
            comm,
        };
        assert_eq!(pick(gv, 5), GathervLinear);
        assert_eq!(pick(Op::Scatterv { root, counts, comm }, 5), ScattervLinear);
        for exclusive in [false, true] {
            let sc = Op::Scan {
                bytes,
                comm,
                exclusive,
            };
            assert_eq!(pick(sc, 5), ScanRecursiveDoublingExchange);
        }
    }
}
