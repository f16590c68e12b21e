//! The linear rooted schedules (gather, scatter, reduce and bcast to or
//! from the root in one step, gatherv and scatterv) and Open MPI's
//! synchronised linear gather.
//!
//! Each function is one arm of [`CollRun::plan`]'s dispatch: it gives
//! the operations of the run's current step, as `plan` documents.

use super::alg::*;
use super::step::*;

impl CollRun {
    /// Step `self.step` of a gather family algorithm (see [`CollRun::plan`]).
    pub(super) fn plan_gather(&self, st: &Step<'_>, out: &mut Vec<P2p>) -> Option<u64> {
        let Step {
            p,
            me,
            k,
            s,
            counts,
            ..
        } = *st;
        let count = |i: u32| counts.get(i as usize).copied().unwrap_or(0);
        let mut reduce = 0;
        match self.alg {
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
            _ => unreachable!("{:?} is not planned by plan_gather", self.alg),
        }
        Some(reduce)
    }
}
