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

use super::alg::CollAlg;
use super::kinds::{Choice, CollKind, Selector};
use super::netsim::choose;
use super::step::{elements, total};
use crate::op::Op;
use crate::params::CollectiveParams;
use serde::Serialize;

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
        // when the summed receive counts (elements, not bytes) exceed
        // 524288, recursive doubling otherwise.
        Op::ReduceScatter {
            counts, elem_bytes, ..
        } => {
            if counts.windows(2).all(|w| w[0] == w[1]) {
                c(
                    ReduceScatterReduceScatterv,
                    "smpi_default_selector.cpp reduce_scatter__default: equal blocks: reduce__default to 0 + colls::scatterv",
                )
            } else if elements(total(counts), *elem_bytes) > SMPI_REDUCE_SCATTER_PAIR_ABOVE {
                c(
                    ReduceScatterPairwise,
                    "smpi_mpich_selector.cpp reduce_scatter__mpich: unequal blocks, total count > 524288 elements: reduce_scatter__mpich_pair",
                )
            } else {
                c(
                    ReduceScatterRecursiveDoubling,
                    "smpi_mpich_selector.cpp reduce_scatter__mpich: unequal blocks, total count <= 524288 elements: reduce_scatter__mpich_rdb",
                )
            }
        }
        _ => unreachable!("select() passes collectives only"),
    }
}

/// `reduce_scatter__mpich` (`smpi_mpich_selector.cpp`), unequal blocks:
/// the pairwise exchange when the summed receive counts exceed this
/// \[elements\].
const SMPI_REDUCE_SCATTER_PAIR_ABOVE: u64 = 524_288;

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
    fn smpi_reduce_scatter_switches_on_elements() {
        use CollAlg::*;
        let mut c = CollectiveParams::default();
        c.selection.selector = Selector::Smpi;
        let rs = |counts: Vec<u64>, elem_bytes| Op::ReduceScatter {
            counts,
            elem_bytes,
            comm: crate::CommId::WORLD,
        };
        let pick = |op: &Op| select(op, 4, &c).unwrap().alg;
        // Unequal blocks of 1, 2, 3 and 2 units, 8 units in all. Doubles:
        // 8 x 65536 elements = 524288 is not above the switch (4 MiB of
        // data), one element more is; the same 4 MiB as bytes is 4194304
        // elements, far above.
        let u = 65_536;
        let doubles = |extra: u64| rs(vec![8 * u, 16 * u, 24 * u, 16 * u + 8 * extra], 8);
        assert_eq!(pick(&doubles(0)), ReduceScatterRecursiveDoubling);
        assert_eq!(pick(&doubles(1)), ReduceScatterPairwise);
        assert_eq!(
            pick(&rs(vec![8 * u, 16 * u, 24 * u, 16 * u], 1)),
            ReduceScatterPairwise
        );
        // Equal blocks: reduce then scatterv, whatever the size.
        assert_eq!(pick(&rs(vec![u; 4], 8)), ReduceScatterReduceScatterv);
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
