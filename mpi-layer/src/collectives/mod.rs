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
//!
//! Where to start: [`CollRun::new`] and [`CollRun::plan`] (below), which
//! dispatches to one file per family of algorithms (`bcast.rs`,
//! `reduce.rs`, `reduce_scatter.rs`, `allgather.rs`, `alltoall.rs`,
//! `gather.rs`, `barrier_scan.rs`, `torus.rs`) and runs the composites (a reduce
//! then a bcast or scatterv) itself. The names are in `alg.rs`
//! ([`CollAlg`]) and `kinds.rs` ([`CollKind`], [`Selector`],
//! [`Choice`]), which import nothing of their siblings'; the shared
//! plumbing in `step.rs`; the selectors in `select.rs` (SimGrid's),
//! `netsim.rs`, `mpich.rs` and `openmpi.rs`.

mod alg;
mod allgather;
mod alltoall;
mod barrier_scan;
mod bcast;
mod gather;
pub(crate) mod kinds;
mod mpich;
mod netsim;
mod openmpi;
mod reduce;
mod reduce_scatter;
mod select;
mod step;
mod torus;

pub use alg::{ALLTOALL_THROTTLE, CollAlg, KNOMIAL_RADIX};
pub use kinds::{Choice, CollKind, MAX_OVERRIDES, Override, Selection, Selector};
pub use mpich::ELEMENT_BYTES;
pub use netsim::choose;
pub use select::{CollUse, Tally, select};
use step::Step;
pub use step::{CollRun, Counts, NO_COUNTS, P2p, ceil_log2, counts};
pub use torus::{TORUS_SEGMENT_BYTES, torus_dims};

impl CollRun {
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
        let st = Step::new(self, (counts, recv_counts));
        let (p, k, s) = (st.p, st.k, st.s);
        match self.alg {
            CollAlg::BcastTorusTrees | CollAlg::AllreduceTorusTrees => torus::plan(self, out),
            CollAlg::AllreduceReduceBcast
            | CollAlg::AllreduceLinear
            | CollAlg::ReduceScatterReduceScatterv
            | CollAlg::AllreduceNonoverlapping
            | CollAlg::ReduceScatterNonoverlapping
            | CollAlg::AllgathervDefault => {
                // A reduce (or gatherv) to rank 0, then the second
                // collective from rank 0 (its steps follow the first's).
                let elem = u64::from(self.elem_bytes);
                // Open MPI's allgatherv default bcasts one element of an
                // indexed datatype spanning every block
                // (`ompi_coll_base_allgatherv_intra_basic_default`).
                let elem_bytes = if self.alg == CollAlg::AllgathervDefault {
                    u32::try_from(s).unwrap_or(u32::MAX)
                } else {
                    self.elem_bytes
                };
                let (first, then) = match self.alg {
                    CollAlg::AllreduceReduceBcast => {
                        (CollAlg::ReduceLinear, CollAlg::BcastBinomialFarFirst)
                    }
                    CollAlg::AllreduceLinear => (CollAlg::ReduceLinear, CollAlg::BcastLinear),
                    CollAlg::ReduceScatterReduceScatterv => {
                        (CollAlg::ReduceLinear, CollAlg::ScattervLinear)
                    }
                    CollAlg::AllreduceNonoverlapping => (
                        openmpi::reduce(p, s, elem).alg,
                        openmpi::bcast(p, s, elem).alg,
                    ),
                    CollAlg::AllgathervDefault => {
                        (CollAlg::GathervLinear, openmpi::bcast(p, s, s).alg)
                    }
                    _ => (openmpi::reduce(p, s, elem).alg, CollAlg::ScattervLinear),
                };
                let n = first.first_steps(p);
                let (alg, step) = if k < n { (first, k) } else { (then, k - n) };
                let part = CollRun {
                    alg,
                    root: 0,
                    step,
                    elem_bytes,
                    ..*self
                };
                part.plan((counts, recv_counts), out)
            }
            CollAlg::BarrierDissemination
            | CollAlg::BarrierLinear
            | CollAlg::ScanLinear
            | CollAlg::ScanRecursiveDoublingExchange
            | CollAlg::ScanChain
            | CollAlg::BarrierRecursiveDoubling
            | CollAlg::BarrierTree
            | CollAlg::ScanRecursiveDoubling => self.plan_barrier_scan(&st, out),
            CollAlg::BcastBinomial
            | CollAlg::ScatterBinomial
            | CollAlg::BcastScatterAllgather
            | CollAlg::BcastBinomialFarFirst
            | CollAlg::BcastScatterRdAllgather
            | CollAlg::BcastChain
            | CollAlg::ReduceChain
            | CollAlg::BcastBinaryTree
            | CollAlg::ReduceBinaryTree
            | CollAlg::BcastSplitBinaryTree
            | CollAlg::BcastKnomial => self.plan_bcast(&st, out),
            CollAlg::ReduceBinomial
            | CollAlg::GatherBinomial
            | CollAlg::AllreduceRecursiveDoubling
            | CollAlg::AllreduceRabenseifner
            | CollAlg::AllreduceRedscatAllgather
            | CollAlg::AllreduceRing
            | CollAlg::ReduceScatterGather
            | CollAlg::ReduceInOrderBinary => self.plan_reduce(&st, out),
            CollAlg::AllgatherRing
            | CollAlg::AllgatherRecursiveDoubling
            | CollAlg::AllgathervRing
            | CollAlg::AllgatherScattered
            | CollAlg::AllgathervScattered
            | CollAlg::AllgatherBruck
            | CollAlg::AllgathervRecursiveDoubling
            | CollAlg::AllgathervBruck
            | CollAlg::AllgatherNeighborExchange
            | CollAlg::AllgathervNeighborExchange => self.plan_allgather(&st, out),
            CollAlg::AlltoallPairwise
            | CollAlg::AlltoallvPairwise
            | CollAlg::AlltoallBruck
            | CollAlg::AlltoallScattered
            | CollAlg::AlltoallvScattered
            | CollAlg::AlltoallPairwiseXor
            | CollAlg::AlltoallScatteredThrottled
            | CollAlg::AlltoallvScatteredThrottled => self.plan_alltoall(&st, out),
            CollAlg::GathervLinear
            | CollAlg::ScattervLinear
            | CollAlg::ReduceLinear
            | CollAlg::GatherLinear
            | CollAlg::ScatterLinear
            | CollAlg::BcastLinear
            | CollAlg::GatherLinearSync => self.plan_gather(&st, out),
            CollAlg::ReduceScatterRing
            | CollAlg::ReduceScatterPairwise
            | CollAlg::ReduceScatterRecursiveHalving
            | CollAlg::ReduceScatterRecursiveDoubling
            | CollAlg::ReduceScatterButterfly => self.plan_reduce_scatter(&st, out),
        }
    }
}

#[cfg(test)]
mod tests;

/// The reductions the selectors' and plans' tests build, on
/// `MPI_COMM_WORLD`.
#[cfg(test)]
pub(crate) mod test_ops {
    use crate::op::{CommId, Op};

    /// An allreduce of `bytes` per rank in elements of `elem_bytes`.
    pub(crate) fn allreduce(bytes: u64, elem_bytes: u64) -> Op {
        Op::Allreduce {
            bytes,
            elem_bytes,
            comm: CommId::WORLD,
        }
    }

    /// A bcast from `root` of `bytes` in elements of `elem_bytes`.
    pub(crate) fn bcast(root: u32, bytes: u64, elem_bytes: u64) -> Op {
        Op::Bcast {
            root,
            bytes,
            elem_bytes,
            comm: CommId::WORLD,
        }
    }

    /// A reduce to `root` of `bytes` per rank in elements of `elem_bytes`.
    pub(crate) fn reduce(root: u32, bytes: u64, elem_bytes: u64) -> Op {
        Op::Reduce {
            root,
            bytes,
            elem_bytes,
            comm: CommId::WORLD,
        }
    }
}
