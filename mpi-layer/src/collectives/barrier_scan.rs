//! Barrier and scan / exscan schedules: dissemination, linear,
//! recursive doubling and tree barriers; linear, chain and recursive
//! doubling scans.
//!
//! Each function is one arm of [`CollRun::plan`]'s dispatch: it gives
//! the operations of the run's current step, as `plan` documents.

use super::alg::*;
use super::step::*;

impl CollRun {
    /// Step `self.step` of a barrier scan family algorithm (see [`CollRun::plan`]).
    pub(super) fn plan_barrier_scan(&self, st: &Step<'_>, out: &mut Vec<P2p>) -> Option<u64> {
        let Step {
            p, me, k, s, lg, ..
        } = *st;
        let mut reduce = 0;
        match self.alg {
            CollAlg::BarrierDissemination => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                send(out, ((me as u64 + d as u64) % p as u64) as u32, 0);
                recv(
                    out,
                    ((me as u64 + p as u64 - d as u64) % p as u64) as u32,
                    0,
                );
            }
            CollAlg::BarrierLinear => {
                if p <= 1 || k >= 2 {
                    return None;
                }
                // Step 0: everyone reports to rank 0; step 1: it answers.
                let to_root = k == 0;
                if me == 0 {
                    for r in 1..p {
                        out.push(P2p {
                            send: !to_root,
                            peer: r,
                            bytes: 0,
                        });
                    }
                } else {
                    out.push(P2p {
                        send: to_root,
                        peer: 0,
                        bytes: 0,
                    });
                }
            }
            CollAlg::ScanLinear => {
                if p <= 1 || k >= 1 {
                    return None;
                }
                for r in 0..me {
                    recv(out, r, s);
                }
                for r in me + 1..p {
                    send(out, r, s);
                }
                // An exclusive scan (root 1) leaves its own part out.
                reduce = s.saturating_mul((me as u64).saturating_sub(self.root as u64));
            }
            CollAlg::ScanRecursiveDoublingExchange => {
                if k >= lg {
                    return None;
                }
                let partner = me ^ (1 << k);
                if partner < p {
                    send(out, partner, s);
                    recv(out, partner, s);
                    reduce = s;
                }
            }
            CollAlg::ScanChain => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                if me == k {
                    send(out, me + 1, s);
                } else if me == k + 1 {
                    recv(out, me - 1, s);
                    // An exclusive scan's rank 1 only keeps rank 0's part.
                    if me > self.root {
                        reduce = s;
                    }
                }
            }
            CollAlg::BarrierRecursiveDoubling => {
                let pof2 = floor_pow2(p);
                let l = pof2.trailing_zeros();
                if p <= 1 || k > l + 1 {
                    return None;
                }
                let rem = p - pof2;
                if k == 0 {
                    if me >= pof2 {
                        send(out, me - pof2, 0);
                    } else if me < rem {
                        recv(out, me + pof2, 0);
                    }
                } else if k <= l {
                    if me < pof2 {
                        let peer = me ^ (1 << (k - 1));
                        send(out, peer, 0);
                        recv(out, peer, 0);
                    }
                } else if me < rem {
                    send(out, me + pof2, 0);
                } else if me >= pof2 {
                    recv(out, me - pof2, 0);
                }
            }
            CollAlg::BarrierTree => {
                if p <= 1 || k >= 2 * lg {
                    return None;
                }
                let up = k < lg;
                let jump = if up { 1u32 << k } else { 1 << (2 * lg - 1 - k) };
                let partner = me ^ jump;
                if me % jump == 0 && partner < p {
                    // Up: the higher of the pair reports; down: the lower
                    // releases.
                    if (partner > me) == up {
                        recv(out, partner, 0);
                    } else {
                        send(out, partner, 0);
                    }
                }
            }
            CollAlg::ScanRecursiveDoubling => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                if me + d < p {
                    send(out, me + d, s);
                }
                if me >= d {
                    recv(out, me - d, s);
                    reduce = s;
                }
            }
            _ => unreachable!("{:?} is not planned by plan_barrier_scan", self.alg),
        }
        Some(reduce)
    }
}
