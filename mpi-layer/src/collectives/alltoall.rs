//! Alltoall and alltoallv schedules: pairwise (shifted and XOR),
//! Bruck, scattered and scattered in throttled blocks.
//!
//! Each function is one arm of [`CollRun::plan`]'s dispatch: it gives
//! the operations of the run's current step, as `plan` documents.

use super::alg::*;
use super::step::*;

impl CollRun {
    /// Step `self.step` of a alltoall family algorithm (see [`CollRun::plan`]).
    pub(super) fn plan_alltoall(&self, st: &Step<'_>, out: &mut Vec<P2p>) -> Option<u64> {
        let Step {
            p,
            me,
            k,
            s,
            lg,
            counts,
            recv_counts,
            ..
        } = *st;
        let count = |i: u32| counts.get(i as usize).copied().unwrap_or(0);
        let reduce = 0;
        match self.alg {
            CollAlg::AlltoallPairwise | CollAlg::AlltoallvPairwise => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                let i = k + 1;
                let to = (me + i) % p;
                let from = (me + p - i) % p;
                if self.alg == CollAlg::AlltoallPairwise {
                    send(out, to, s);
                    recv(out, from, s);
                } else {
                    let sb = count(to);
                    let rb = recv_counts.get(from as usize).copied().unwrap_or(0);
                    if sb > 0 {
                        send(out, to, sb);
                    }
                    if rb > 0 {
                        recv(out, from, rb);
                    }
                }
            }
            CollAlg::AlltoallBruck => {
                if k >= lg {
                    return None;
                }
                let d = 1u64 << k;
                let b = s.saturating_mul(count_bit(p as u64, k));
                send(out, ((me as u64 + d) % p as u64) as u32, b);
                recv(
                    out,
                    ((me as u64 + p as u64 - d % p as u64) % p as u64) as u32,
                    b,
                );
            }
            CollAlg::AlltoallScattered => {
                if p <= 1 || k >= 1 {
                    return None;
                }
                for i in 1..p {
                    recv(out, (me + i) % p, s);
                }
                for i in 1..p {
                    send(out, (me + p - i) % p, s);
                }
            }
            CollAlg::AlltoallvScattered => {
                if p <= 1 || k >= 1 {
                    return None;
                }
                for r in (0..p).filter(|&r| r != me) {
                    recv(out, r, recv_counts.get(r as usize).copied().unwrap_or(0));
                }
                for r in (0..p).filter(|&r| r != me) {
                    send(out, r, count(r));
                }
            }
            CollAlg::AlltoallPairwiseXor => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                debug_assert!(p.is_power_of_two(), "XOR pairs need a power of two");
                let peer = me ^ (k + 1);
                send(out, peer, s);
                recv(out, peer, s);
            }
            CollAlg::AlltoallScatteredThrottled | CollAlg::AlltoallvScatteredThrottled => {
                let b = ALLTOALL_THROTTLE;
                if p <= 1 || k >= p.div_ceil(b) {
                    return None;
                }
                let v = self.alg == CollAlg::AlltoallvScatteredThrottled;
                let block = (k * b).max(1)..((k + 1) * b).min(p);
                for i in block.clone() {
                    let from = (me + i) % p;
                    let bytes = if v {
                        recv_counts.get(from as usize).copied().unwrap_or(0)
                    } else {
                        s
                    };
                    if !v || bytes > 0 {
                        recv(out, from, bytes);
                    }
                }
                for i in block {
                    let to = (me + p - i) % p;
                    let bytes = if v { count(to) } else { s };
                    if !v || bytes > 0 {
                        send(out, to, bytes);
                    }
                }
            }
            _ => unreachable!("{:?} is not planned by plan_alltoall", self.alg),
        }
        Some(reduce)
    }
}
