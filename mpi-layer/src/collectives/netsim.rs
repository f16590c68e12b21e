//! netsim's own choice of collective algorithms ([`choose`], the
//! [`super::Selector::Netsim`] rules): MPICH's switch points of Thakur,
//! Rabenseifner and Gropp (IJHPCA 2005), set in [`CollectiveParams`].

use super::alg::CollAlg;
use crate::op::Op;
use crate::params::{AllreduceLarge, CollectiveParams};

/// netsim's own choice of the algorithm of a collective operation (the
/// [`super::Selector::Netsim`] rules; [`super::select`] applies the scenario's
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
