//! The small types the selectors and the scenario share: the library
//! whose rules choose ([`Selector`]), the kinds of collective
//! ([`CollKind`], with the names scenarios give their algorithms), an
//! algorithm with the rule that chose it ([`Choice`]), and the
//! scenario's fixed choices ([`Selection`], [`Override`]).
//!
//! They depend on nothing in the collectives but [`CollAlg`], so every
//! selector and the parameters import them from here.

use super::alg::CollAlg;
use super::step::total;
use crate::op::Op;
use serde::Serialize;

/// The library whose decision rules pick the collective algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Selector {
    /// netsim's own rules ([`super::choose`]): MPICH's switch points of
    /// Thakur, Rabenseifner and Gropp (IJHPCA 2005), set in
    /// [`crate::params::CollectiveParams`]. The default.
    Netsim,
    /// SimGrid 3.32 SMPI's default selector (`smpi/coll-selector`
    /// unset): mostly linear algorithms that post all messages at once.
    Smpi,
    /// MPICH 4.1's default selection tree (`MPIR_CVAR_*_ALGORITHM=auto`,
    /// `maint/tuning/coll/mpir/generic.json`), see `mpich.rs`.
    Mpich,
    /// Open MPI 4.1's `coll/tuned` fixed decisions
    /// (`coll_tuned_decision_fixed.c`), see `openmpi.rs`.
    Openmpi,
}

impl Selector {
    /// Every selector, in documentation order.
    pub const ALL: [Selector; 4] = [
        Selector::Netsim,
        Selector::Smpi,
        Selector::Mpich,
        Selector::Openmpi,
    ];

    /// The name scenarios and the CLI use.
    pub fn name(self) -> &'static str {
        match self {
            Selector::Netsim => "netsim",
            Selector::Smpi => "smpi",
            Selector::Mpich => "mpich",
            Selector::Openmpi => "openmpi",
        }
    }

    /// The selector named `name`, if any.
    pub fn parse(name: &str) -> Option<Selector> {
        Selector::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The kinds of collective operation, as scenarios name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum CollKind {
    /// `MPI_Barrier`.
    Barrier,
    /// `MPI_Bcast`.
    Bcast,
    /// `MPI_Reduce`.
    Reduce,
    /// `MPI_Allreduce`.
    Allreduce,
    /// `MPI_Scan`.
    Scan,
    /// `MPI_Exscan`.
    Exscan,
    /// `MPI_Gather`.
    Gather,
    /// `MPI_Gatherv`.
    Gatherv,
    /// `MPI_Scatter`.
    Scatter,
    /// `MPI_Scatterv`.
    Scatterv,
    /// `MPI_Allgather`.
    Allgather,
    /// `MPI_Allgatherv`.
    Allgatherv,
    /// `MPI_Alltoall`.
    Alltoall,
    /// `MPI_Alltoallv`.
    Alltoallv,
    /// `MPI_Reduce_scatter`.
    ReduceScatter,
}

impl CollKind {
    /// Number of kinds.
    pub const COUNT: usize = 15;
    /// Every kind, in table order.
    pub const ALL: [CollKind; CollKind::COUNT] = [
        CollKind::Barrier,
        CollKind::Bcast,
        CollKind::Reduce,
        CollKind::Allreduce,
        CollKind::Scan,
        CollKind::Exscan,
        CollKind::Gather,
        CollKind::Gatherv,
        CollKind::Scatter,
        CollKind::Scatterv,
        CollKind::Allgather,
        CollKind::Allgatherv,
        CollKind::Alltoall,
        CollKind::Alltoallv,
        CollKind::ReduceScatter,
    ];

    /// The name scenarios use (`[mpi.collectives]` keys).
    pub fn name(self) -> &'static str {
        match self {
            CollKind::Barrier => "barrier",
            CollKind::Bcast => "bcast",
            CollKind::Reduce => "reduce",
            CollKind::Allreduce => "allreduce",
            CollKind::Scan => "scan",
            CollKind::Exscan => "exscan",
            CollKind::Gather => "gather",
            CollKind::Gatherv => "gatherv",
            CollKind::Scatter => "scatter",
            CollKind::Scatterv => "scatterv",
            CollKind::Allgather => "allgather",
            CollKind::Allgatherv => "allgatherv",
            CollKind::Alltoall => "alltoall",
            CollKind::Alltoallv => "alltoallv",
            CollKind::ReduceScatter => "reduce_scatter",
        }
    }

    /// The kind named `name`, if any.
    pub fn parse(name: &str) -> Option<CollKind> {
        CollKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind of collective `op` (`None` for other operations).
    pub fn of(op: &Op) -> Option<CollKind> {
        Some(match op {
            Op::Barrier { .. } => CollKind::Barrier,
            Op::Bcast { .. } => CollKind::Bcast,
            Op::Reduce { .. } => CollKind::Reduce,
            Op::Allreduce { .. } => CollKind::Allreduce,
            Op::Scan {
                exclusive: false, ..
            } => CollKind::Scan,
            Op::Scan {
                exclusive: true, ..
            } => CollKind::Exscan,
            Op::Gather { .. } => CollKind::Gather,
            Op::Gatherv { .. } => CollKind::Gatherv,
            Op::Scatter { .. } => CollKind::Scatter,
            Op::Scatterv { .. } => CollKind::Scatterv,
            Op::Allgather { .. } => CollKind::Allgather,
            Op::Allgatherv { .. } => CollKind::Allgatherv,
            Op::Alltoall { .. } => CollKind::Alltoall,
            Op::Alltoallv { .. } => CollKind::Alltoallv,
            Op::ReduceScatter { .. } => CollKind::ReduceScatter,
            _ => return None,
        })
    }

    /// The size a conditional override compares for a call \[bytes\]:
    /// the per-rank size, or for the v-collectives and
    /// reduce_scatter the sum of the counts (the same on every rank);
    /// 0 for barrier and alltoallv (whose per-rank sizes differ, so an
    /// override of alltoallv cannot compare a size).
    pub fn size_of(op: &Op) -> u64 {
        match op {
            Op::Bcast { bytes, .. }
            | Op::Reduce { bytes, .. }
            | Op::Allreduce { bytes, .. }
            | Op::Scan { bytes, .. }
            | Op::Gather { bytes, .. }
            | Op::Scatter { bytes, .. }
            | Op::Allgather { bytes, .. }
            | Op::Alltoall { bytes, .. } => *bytes,
            Op::Gatherv { counts, .. }
            | Op::Scatterv { counts, .. }
            | Op::Allgatherv { counts, .. }
            | Op::ReduceScatter { counts, .. } => total(counts),
            _ => 0,
        }
    }

    /// Whether a conditional override of this kind may compare a size.
    pub fn has_size(self) -> bool {
        !matches!(self, CollKind::Barrier | CollKind::Alltoallv)
    }

    /// The algorithms that carry out this kind, with the names
    /// `[mpi.collectives]` gives them.
    pub fn algorithms(self) -> &'static [(&'static str, CollAlg)] {
        use CollAlg::*;
        match self {
            CollKind::Barrier => &[
                ("dissemination", BarrierDissemination),
                ("linear", BarrierLinear),
                ("recursive_doubling", BarrierRecursiveDoubling),
                ("tree", BarrierTree),
            ],
            CollKind::Bcast => &[
                ("binomial", BcastBinomial),
                ("binomial_far_first", BcastBinomialFarFirst),
                ("scatter_allgather", BcastScatterAllgather),
                ("scatter_rd_allgather", BcastScatterRdAllgather),
                ("linear", BcastLinear),
                ("chain", BcastChain),
                ("binary_tree", BcastBinaryTree),
                ("split_binary_tree", BcastSplitBinaryTree),
                ("knomial", BcastKnomial),
                ("torus_trees", BcastTorusTrees),
            ],
            CollKind::Reduce => &[
                ("binomial", ReduceBinomial),
                ("linear", ReduceLinear),
                ("reduce_scatter_gather", ReduceScatterGather),
                ("chain", ReduceChain),
                ("binary_tree", ReduceBinaryTree),
                ("in_order_binary", ReduceInOrderBinary),
            ],
            CollKind::Allreduce => &[
                ("recursive_doubling", AllreduceRecursiveDoubling),
                ("rabenseifner", AllreduceRabenseifner),
                ("redscat_allgather", AllreduceRedscatAllgather),
                ("ring", AllreduceRing),
                ("reduce_bcast", AllreduceReduceBcast),
                ("linear", AllreduceLinear),
                ("nonoverlapping", AllreduceNonoverlapping),
                ("torus_trees", AllreduceTorusTrees),
            ],
            CollKind::Scan | CollKind::Exscan => &[
                ("recursive_doubling", ScanRecursiveDoubling),
                ("linear", ScanLinear),
                ("recursive_doubling_exchange", ScanRecursiveDoublingExchange),
                ("chain", ScanChain),
            ],
            CollKind::Gather => &[
                ("binomial", GatherBinomial),
                ("linear", GatherLinear),
                ("linear_sync", GatherLinearSync),
            ],
            CollKind::Gatherv => &[("linear", GathervLinear)],
            CollKind::Scatter => &[("binomial", ScatterBinomial), ("linear", ScatterLinear)],
            CollKind::Scatterv => &[("linear", ScattervLinear)],
            CollKind::Allgather => &[
                ("ring", AllgatherRing),
                ("recursive_doubling", AllgatherRecursiveDoubling),
                ("bruck", AllgatherBruck),
                ("scattered", AllgatherScattered),
                ("neighbor_exchange", AllgatherNeighborExchange),
            ],
            CollKind::Allgatherv => &[
                ("ring", AllgathervRing),
                ("scattered", AllgathervScattered),
                ("recursive_doubling", AllgathervRecursiveDoubling),
                ("bruck", AllgathervBruck),
                ("default", AllgathervDefault),
                ("neighbor_exchange", AllgathervNeighborExchange),
            ],
            CollKind::Alltoall => &[
                ("pairwise", AlltoallPairwise),
                ("pairwise_xor", AlltoallPairwiseXor),
                ("bruck", AlltoallBruck),
                ("scattered", AlltoallScattered),
                ("scattered_throttled", AlltoallScatteredThrottled),
            ],
            CollKind::Alltoallv => &[
                ("pairwise", AlltoallvPairwise),
                ("scattered", AlltoallvScattered),
                ("scattered_throttled", AlltoallvScatteredThrottled),
            ],
            CollKind::ReduceScatter => &[
                ("ring", ReduceScatterRing),
                ("pairwise", ReduceScatterPairwise),
                ("reduce_scatterv", ReduceScatterReduceScatterv),
                ("recursive_halving", ReduceScatterRecursiveHalving),
                ("recursive_doubling", ReduceScatterRecursiveDoubling),
                ("nonoverlapping", ReduceScatterNonoverlapping),
                ("butterfly", ReduceScatterButterfly),
            ],
        }
    }

    /// The algorithm of this kind named `name`, if any.
    pub fn algorithm(self, name: &str) -> Option<CollAlg> {
        self.algorithms()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, a)| a)
    }
}

impl CollAlg {
    /// The algorithm's name within its kind (as `[mpi.collectives]`
    /// takes it).
    pub fn name(self) -> &'static str {
        CollKind::ALL
            .iter()
            .flat_map(|k| k.algorithms())
            .find(|(_, a)| *a == self)
            .map(|&(n, _)| n)
            .expect("every algorithm belongs to a kind")
    }

    /// Whether the algorithm runs on a communicator of `p` ranks: the
    /// XOR pairings need a power of two, the neighbour exchange an even
    /// size.
    pub fn fits(self, p: u32) -> bool {
        if matches!(
            self,
            CollAlg::AllgatherNeighborExchange | CollAlg::AllgathervNeighborExchange
        ) {
            return p % 2 == 0;
        }
        !matches!(
            self,
            CollAlg::AllgatherRecursiveDoubling
                | CollAlg::AlltoallPairwiseXor
                | CollAlg::AllgathervRecursiveDoubling
        ) || p.is_power_of_two()
    }
}

/// Conditional overrides a kind holds at most (`[mpi.collectives]
/// <kind> = [...]`).
pub const MAX_OVERRIDES: usize = 4;

/// An algorithm the scenario fixes for a kind, for calls whose size and
/// communicator size lie in the given ranges (inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Override {
    /// The algorithm.
    pub alg: CollAlg,
    /// Smallest and largest size \[bytes\] ([`CollKind::size_of`]).
    pub bytes: (u64, u64),
    /// Smallest and largest communicator size \[ranks\].
    pub procs: (u32, u32),
}

impl Override {
    /// `alg` for every call.
    pub fn always(alg: CollAlg) -> Override {
        Override {
            alg,
            bytes: (0, u64::MAX),
            procs: (0, u32::MAX),
        }
    }

    /// Whether the override has no condition.
    pub fn is_always(&self) -> bool {
        self.bytes == (0, u64::MAX) && self.procs == (0, u32::MAX)
    }

    /// Whether a call of `bytes` on `p` ranks meets the conditions.
    pub fn applies(&self, bytes: u64, p: u32) -> bool {
        (self.bytes.0..=self.bytes.1).contains(&bytes) && (self.procs.0..=self.procs.1).contains(&p)
    }
}

/// Which selector runs, and the algorithms the scenario fixes per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Selection {
    /// The library's rules. Default [`Selector::Netsim`].
    pub selector: Selector,
    /// By [`CollKind`] (table order), tried in order: the first
    /// override whose conditions a call meets, on a communicator it
    /// [`CollAlg::fits`], replaces the selector's choice; when none
    /// does, the selector's choice stands.
    pub overrides: [[Option<Override>; MAX_OVERRIDES]; CollKind::COUNT],
}

impl Selection {
    /// Fixes `alg` for every call of `kind` (replacing its overrides).
    pub fn fix(&mut self, kind: CollKind, alg: CollAlg) {
        self.overrides[kind as usize] = [None; MAX_OVERRIDES];
        self.overrides[kind as usize][0] = Some(Override::always(alg));
    }
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            selector: Selector::Netsim,
            overrides: [[None; MAX_OVERRIDES]; CollKind::COUNT],
        }
    }
}

/// An algorithm and the rule that chose it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Choice {
    /// The algorithm.
    pub alg: CollAlg,
    /// The rule, in words: the library's source file and function, and
    /// the branch taken.
    pub rule: &'static str,
}
