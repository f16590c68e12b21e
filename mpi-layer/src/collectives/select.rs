//! Selectors: which algorithm an MPI library runs for a collective, by
//! collective, message size and communicator size.
//!
//! A trace says which collective a rank called, not how its library
//! carried it out; [`select`] answers that the way the chosen library
//! does ([`Selector`]), unless the scenario names an algorithm for that
//! collective, always or for calls within given sizes
//! ([`Selection::overrides`], [`Override`]). Every answer is a [`Choice`]:
//! the algorithm and the rule that chose it (source file and function of
//! the library), which the run report shows per collective kind.
//!
//! `netsim` is the simulator's own choice ([`super::choose`], MPICH's
//! 2005 switch points in [`CollectiveParams`]); `smpi` is SimGrid 3.32's
//! default selector (`src/smpi/colls/smpi_default_selector.cpp`);
//! `mpich` is MPICH 4.1's default tree (`mpich.rs`); `openmpi` is Open
//! MPI 4.1's `coll/tuned` fixed decisions (`openmpi.rs`). The
//! algorithms themselves are [`CollAlg`]'s.

use super::{CollAlg, choose};
use crate::op::Op;
use crate::params::CollectiveParams;
use serde::Serialize;

/// The library whose decision rules pick the collective algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Selector {
    /// netsim's own rules ([`super::choose`]): MPICH's switch points of
    /// Thakur, Rabenseifner and Gropp (IJHPCA 2005), set in
    /// [`CollectiveParams`]. The default.
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
            | Op::ReduceScatter { counts, .. } => super::total(counts),
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

/// How often one (kind, algorithm, rule) ran: a row of the run report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CollUse {
    /// The collective.
    pub kind: CollKind,
    /// The algorithm's name within the kind.
    pub algorithm: &'static str,
    /// The rule that chose it.
    pub rule: &'static str,
    /// Calls (a call on a communicator counts once, at its rank 0).
    pub calls: u64,
}

/// Counts the choices of a run, in a fixed order (kind, algorithm, rule).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally(std::collections::BTreeMap<(CollKind, Choice), u64>);

impl Tally {
    /// Rank `comm_rank` of a communicator starts collective `kind` with
    /// `choice`: counted once per call, at rank 0.
    pub fn record(&mut self, comm_rank: u32, kind: CollKind, choice: Choice) {
        if comm_rank == 0 {
            *self.0.entry((kind, choice)).or_default() += 1;
        }
    }

    /// The rows, by kind, then algorithm, then rule.
    pub fn rows(&self) -> Vec<CollUse> {
        self.0
            .iter()
            .map(|(&(kind, c), &calls)| CollUse {
                kind,
                algorithm: c.alg.name(),
                rule: c.rule,
                calls,
            })
            .collect()
    }
}

/// The algorithm collective `op` runs on a communicator of `p` ranks
/// under `c`'s selection, and why; `None` for operations that are not
/// collectives.
pub fn select(op: &Op, p: u32, c: &CollectiveParams) -> Option<Choice> {
    let kind = CollKind::of(op)?;
    let rules = &c.selection.overrides[kind as usize];
    // The size (a sum over ranks for the v-collectives) only when asked.
    let size = if rules.iter().flatten().any(|o| !o.is_always()) {
        CollKind::size_of(op)
    } else {
        0
    };
    for o in rules.iter().flatten() {
        if o.alg.fits(p) && o.applies(size, p) {
            return Some(Choice {
                alg: o.alg,
                rule: if o.is_always() {
                    "[mpi.collectives] override"
                } else {
                    "[mpi.collectives] override, its conditions met"
                },
            });
        }
    }
    Some(match c.selection.selector {
        Selector::Netsim => Choice {
            alg: choose(op, p, c)?,
            rule: "netsim: MPICH 2005 switch points ([mpi] collective parameters)",
        },
        Selector::Smpi => smpi(op, p),
        Selector::Mpich => super::mpich::mpich(op, p),
        Selector::Openmpi => super::openmpi::openmpi(op, p),
    })
}

/// SimGrid 3.32's default selector. Every rule is a function of
/// `src/smpi/colls/smpi_default_selector.cpp` (or what it calls); the
/// reductions are taken as commutative on predefined types (a trace does
/// not record the operator), the case those functions treat first.
fn smpi(op: &Op, p: u32) -> Choice {
    use CollAlg::*;
    let c = |alg, rule| Choice { alg, rule };
    match op {
        // `barrier__default` calls `barrier__ompi_basic_linear`
        // (colls/barrier/barrier-ompi.cpp).
        Op::Barrier { .. } => c(
            BarrierLinear,
            "smpi_default_selector.cpp barrier__default: barrier__ompi_basic_linear",
        ),
        // `bcast__default` calls `bcast__binomial_tree`
        // (colls/bcast/bcast-binomial-tree.cpp): MPICH's tree, farthest
        // child first.
        Op::Bcast { .. } => c(
            BcastBinomialFarFirst,
            "smpi_default_selector.cpp bcast__default: bcast__binomial_tree",
        ),
        // `reduce__default`, commutative operator: `colls::ireduce`
        // (smpi_nbc_impl.cpp), every rank sends to the root at once.
        Op::Reduce { .. } => c(
            ReduceLinear,
            "smpi_default_selector.cpp reduce__default: colls::ireduce (linear)",
        ),
        // `allreduce__default`: `reduce__default` to rank 0, then
        // `bcast__default` from it.
        Op::Allreduce { .. } => c(
            AllreduceReduceBcast,
            "smpi_default_selector.cpp allreduce__default: reduce__default to 0 + bcast__default",
        ),
        // `colls::scan` / `colls::exscan` (smpi_coll.cpp): receive from
        // every lower rank, send to every higher one, all at once.
        Op::Scan { .. } => c(
            ScanLinear,
            "smpi_coll.cpp colls::scan / colls::exscan (linear)",
        ),
        // `gather__default` / `scatter__default`: `colls::igather` /
        // `colls::iscatter` (smpi_nbc_impl.cpp); `colls::gatherv` /
        // `colls::scatterv` (smpi_coll.cpp) wait on `igatherv` /
        // `iscatterv`: the root posts one message per rank at once.
        Op::Gather { .. } => c(
            GatherLinear,
            "smpi_default_selector.cpp gather__default: colls::igather (linear)",
        ),
        Op::Scatter { .. } => c(
            ScatterLinear,
            "smpi_default_selector.cpp scatter__default: colls::iscatter (linear)",
        ),
        Op::Gatherv { .. } => c(
            GathervLinear,
            "smpi_coll.cpp colls::gatherv: colls::igatherv (linear)",
        ),
        Op::Scatterv { .. } => c(
            ScattervLinear,
            "smpi_coll.cpp colls::scatterv: colls::iscatterv (linear)",
        ),
        // `allgather(v)__default`: `colls::iallgather(v)`, a send to and a
        // receive from every other rank, all at once.
        Op::Allgather { .. } => c(
            AllgatherScattered,
            "smpi_default_selector.cpp allgather__default: colls::iallgather (all at once)",
        ),
        Op::Allgatherv { .. } => c(
            AllgathervScattered,
            "smpi_default_selector.cpp allgatherv__default: colls::iallgatherv (all at once)",
        ),
        Op::Alltoall { bytes, .. } => smpi_alltoall(*bytes, p),
        // `alltoallv__default`: `colls::ialltoallv`, all receives then
        // all sends, zero-byte ones too.
        Op::Alltoallv { .. } => c(
            AlltoallvScattered,
            "smpi_default_selector.cpp alltoallv__default: colls::ialltoallv (all at once)",
        ),
        // `reduce_scatter__default`: equal blocks: `reduce__default` of
        // all blocks to rank 0 then `colls::scatterv`; otherwise
        // `reduce_scatter__mpich` (smpi_mpich_selector.cpp): pairwise
        // above 524288 (summed counts; here bytes), recursive doubling
        // below.
        Op::ReduceScatter { counts, .. } => {
            if counts.windows(2).all(|w| w[0] == w[1]) {
                c(
                    ReduceScatterReduceScatterv,
                    "smpi_default_selector.cpp reduce_scatter__default: equal blocks: reduce__default to 0 + colls::scatterv",
                )
            } else if counts.iter().fold(0u64, |a, &b| a.saturating_add(b)) > 524_288 {
                c(
                    ReduceScatterPairwise,
                    "smpi_mpich_selector.cpp reduce_scatter__mpich: unequal blocks, total > 524288: reduce_scatter__mpich_pair",
                )
            } else {
                c(
                    ReduceScatterRecursiveDoubling,
                    "smpi_mpich_selector.cpp reduce_scatter__mpich: unequal blocks, total <= 524288: reduce_scatter__mpich_rdb",
                )
            }
        }
        _ => unreachable!("select() passes collectives only"),
    }
}

/// `alltoall__default` calls `alltoall__ompi`
/// (colls/smpi_openmpi_selector.cpp), Open MPI 4.1's fixed decision
/// table by communicator size and per-peer bytes, with its algorithms 1
/// (linear), 4 (linear_sync) and 5 (two_proc) all run as
/// `alltoall__basic_linear`, 2 as `alltoall__pair` (XOR pairs; SimGrid
/// stops with an error on other sizes, netsim runs the shifted pairwise
/// exchange there) and 3 as `alltoall__bruck`.
fn smpi_alltoall(bytes: u64, p: u32) -> Choice {
    // SimGrid's `alltoall__ompi` transcribes Open MPI 4.1's table.
    let alg = super::openmpi::lookup(&super::openmpi::ALLTOALL, p, bytes);
    let rule = "smpi_default_selector.cpp alltoall__default: smpi_openmpi_selector.cpp alltoall__ompi table";
    let alg = match alg {
        2 if p.is_power_of_two() => CollAlg::AlltoallPairwiseXor,
        2 => CollAlg::AlltoallPairwise,
        3 => CollAlg::AlltoallBruck,
        _ => CollAlg::AlltoallScattered,
    };
    Choice { alg, rule }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in CollKind::ALL {
            assert_eq!(CollKind::parse(k.name()), Some(k));
            for &(n, a) in k.algorithms() {
                assert_eq!(k.algorithm(n), Some(a));
            }
        }
        for s in Selector::ALL {
            assert_eq!(Selector::parse(s.name()), Some(s));
        }
    }

    #[test]
    fn smpi_alltoall_follows_the_ompi_table() {
        use CollAlg::*;
        // Cells of alltoall__ompi read off the source: P = 2, 100 B:
        // 64 <= s < 256: pair; P = 4, 100 B: < 8192: linear_sync;
        // P = 24, 100 B: 4 <= s < 512: Bruck; P = 64, 100 B: < 1024:
        // Bruck; P = 64, 1 MB: pair (power of two); P = 100, 1 MB: pair,
        // shifted; P = 8, 1 MB: row P < 16, >= 262144: linear; P = 5000:
        // last row, 40 000 B: linear, 1 MB: linear_sync.
        let cases = [
            (2, 100, AlltoallPairwiseXor),
            (4, 100, AlltoallScattered),
            (24, 100, AlltoallBruck),
            (64, 100, AlltoallBruck),
            (64, 1 << 20, AlltoallPairwiseXor),
            (100, 1 << 20, AlltoallPairwise),
            (8, 1 << 20, AlltoallScattered),
            (5000, 40_000, AlltoallScattered),
            (5000, 1 << 20, AlltoallScattered),
        ];
        for (p, s, alg) in cases {
            assert_eq!(smpi_alltoall(s, p).alg, alg, "P = {p}, {s} B");
        }
    }

    #[test]
    fn overrides_replace_the_selector_where_they_fit() {
        let w = crate::CommId::WORLD;
        let mut c = CollectiveParams::default();
        let t = Op::Alltoall {
            bytes: 100,
            comm: w,
        };
        assert_eq!(select(&t, 16, &c).unwrap().alg, CollAlg::AlltoallBruck);
        c.selection
            .fix(CollKind::Alltoall, CollAlg::AlltoallPairwiseXor);
        assert_eq!(
            select(&t, 16, &c).unwrap().alg,
            CollAlg::AlltoallPairwiseXor
        );
        // Not on 12 ranks: the selector's choice stands.
        assert_eq!(select(&t, 12, &c).unwrap().alg, CollAlg::AlltoallBruck);
        c.selection.selector = Selector::Smpi;
        let b = Op::Barrier { comm: w };
        assert_eq!(select(&b, 12, &c).unwrap().alg, CollAlg::BarrierLinear);
        assert_eq!(select(&Op::WaitallPending, 12, &c), None);
    }
}
