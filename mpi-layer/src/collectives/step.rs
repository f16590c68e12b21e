//! The plumbing every schedule shares: one point-to-point operation
//! ([`P2p`]), a collective in progress on one rank ([`CollRun`]), the
//! per-rank sizes of the v-collectives ([`Counts`]), what a step reads
//! ([`Step`]) and the integer helpers of the tree and recursive
//! doubling algorithms.
//!
//! A run is plain data (a few words a rank) and holds no per-rank
//! sizes: [`CollRun::plan`] (in `mod.rs`) reads them from the operation
//! when [`CollAlg::reads_counts`] says so. Start at [`CollRun::new`].

use super::alg::CollAlg;
use crate::op::{Op, Rank};

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
    /// Bytes per element of a bcast's or reduction's datatype (see
    /// [`Op::Reduce`]); [`super::ELEMENT_BYTES`] for other collectives.
    pub elem_bytes: u32,
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

pub(super) fn floor_pow2(p: u32) -> u32 {
    if p == 0 {
        0
    } else {
        1 << (31 - p.leading_zeros())
    }
}

/// Elements of `elem_bytes` bytes in `bytes` (the `count` the libraries'
/// rules compare); an element size of 0 counts as 1.
pub(super) fn elements(bytes: u64, elem_bytes: u64) -> u64 {
    bytes / elem_bytes.max(1)
}

/// `bytes` as (elements, bytes per element) for the schedules that split
/// a vector into whole elements: `elem_bytes` when it divides `bytes`,
/// else single bytes.
pub(super) fn whole_elements(bytes: u64, elem_bytes: u32) -> (u64, u64) {
    let e = u64::from(elem_bytes.max(1));
    if bytes % e == 0 {
        (bytes / e, e)
    } else {
        (bytes, 1)
    }
}

/// The sum of `v`, saturating.
pub(super) fn total(v: &[u64]) -> u64 {
    v.iter().fold(0u64, |a, &b| a.saturating_add(b))
}

/// Number of `j` in `0..p` with bit `k` set.
pub(super) fn count_bit(p: u64, k: u32) -> u64 {
    let d = 1u64 << k;
    let full = (p >> (k + 1)) << k;
    let rem = (p % (2 * d)).saturating_sub(d);
    full + rem
}

/// Level and step within it of step `k` of a recursive doubling over
/// `p` ranks whose level `j` has, off powers of two, `j` recursive
/// halving steps after its exchange (MPICH's and Open MPI's fill-in for
/// the ranks without a partner): `(j, step in level, steps in level)`.
pub(super) fn rd_level(p: u32, k: u32) -> Option<(u32, u32, u32)> {
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
pub(super) fn rd_fill(me: u32, p: u32, mask: u32, q: u32) -> Option<(bool, u32)> {
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
    pub(super) fn first_steps(self, p: u32) -> u32 {
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
        let elem_bytes = match *op {
            Op::Bcast { elem_bytes, .. }
            | Op::Reduce { elem_bytes, .. }
            | Op::Allreduce { elem_bytes, .. }
            | Op::ReduceScatter { elem_bytes, .. } => elem_bytes,
            _ => super::ELEMENT_BYTES,
        };
        CollRun {
            alg,
            p,
            me,
            root,
            bytes,
            elem_bytes: u32::try_from(elem_bytes).unwrap_or(u32::MAX),
            step: 0,
            reduce: 0,
        }
    }
}

/// What a step of every algorithm reads: the run's scalars, the rank
/// relative to the root and its ring neighbours, and the per-rank sizes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Step<'a> {
    /// Communicator size.
    pub(super) p: u32,
    /// This rank in the communicator.
    pub(super) me: u32,
    /// The step.
    pub(super) k: u32,
    /// Size per rank \[bytes\].
    pub(super) s: u64,
    /// This rank relative to the root.
    pub(super) vr: u32,
    /// `ceil(log2 p)`.
    pub(super) lg: u32,
    /// The next rank on the ring.
    pub(super) right: u32,
    /// The previous rank on the ring.
    pub(super) left: u32,
    /// Per-rank sizes (see [`counts`]).
    pub(super) counts: &'a [u64],
    /// Receive sizes of alltoallv.
    pub(super) recv_counts: &'a [u64],
}

impl<'a> Step<'a> {
    /// Step `run.step` of `run`, with per-rank sizes `counts`.
    pub(super) fn new(run: &CollRun, counts: Counts<'a>) -> Step<'a> {
        let (counts, recv_counts) = counts;
        let (p, me, k) = (run.p, run.me, run.step);
        Step {
            p,
            me,
            k,
            s: run.bytes,
            vr: (me + p - run.root % p.max(1)) % p.max(1),
            lg: ceil_log2(p),
            right: (me + 1) % p.max(1),
            left: (me + p.max(1) - 1) % p.max(1),
            counts,
            recv_counts,
        }
    }
}

/// Pushes a send of `bytes` to `peer`.
pub(super) fn send(out: &mut Vec<P2p>, peer: u32, bytes: u64) {
    out.push(P2p {
        send: true,
        peer,
        bytes,
    })
}

/// Pushes a receive of `bytes` from `peer`.
pub(super) fn recv(out: &mut Vec<P2p>, peer: u32, bytes: u64) {
    out.push(P2p {
        send: false,
        peer,
        bytes,
    })
}
