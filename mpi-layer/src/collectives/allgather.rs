//! Allgather and allgatherv schedules: ring, recursive doubling,
//! Bruck, scattered and neighbour exchange.
//!
//! Each function is one arm of [`CollRun::plan`]'s dispatch: it gives
//! the operations of the run's current step, as `plan` documents.

use super::alg::*;
use super::step::*;

impl CollRun {
    /// Step `self.step` of a allgather family algorithm (see [`CollRun::plan`]).
    pub(super) fn plan_allgather(&self, st: &Step<'_>, out: &mut Vec<P2p>) -> Option<u64> {
        let Step {
            p,
            me,
            k,
            s,
            lg,
            right,
            left,
            counts,
            ..
        } = *st;
        let count = |i: u32| counts.get(i as usize).copied().unwrap_or(0);
        let reduce = 0;
        match self.alg {
            CollAlg::AllgatherRing => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                send(out, right, s);
                recv(out, left, s);
            }
            CollAlg::AllgatherRecursiveDoubling => {
                if k >= lg {
                    return None;
                }
                let partner = me ^ (1 << k);
                let b = s.saturating_mul(1 << k);
                send(out, partner, b);
                recv(out, partner, b);
            }
            CollAlg::AllgathervRing => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                send(out, right, count((me + p - k % p) % p));
                recv(out, left, count((me + 2 * p - k - 1) % p));
            }
            CollAlg::AllgatherScattered | CollAlg::AllgathervScattered => {
                if p <= 1 || k >= 1 {
                    return None;
                }
                let v = self.alg == CollAlg::AllgathervScattered;
                for r in (0..p).filter(|&r| r != me) {
                    send(out, r, if v { count(me) } else { s });
                    recv(out, r, if v { count(r) } else { s });
                }
            }
            CollAlg::AllgatherBruck => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                // Blocks held so far: 2^k, or what is left at the end.
                let blocks = d.min(p - d) as u64;
                send(out, (me + p - d) % p, s.saturating_mul(blocks));
                recv(out, (me + d) % p, s.saturating_mul(blocks));
            }
            CollAlg::AllgathervRecursiveDoubling => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                let partner = me ^ d;
                let group = |r: u32| {
                    let base = r & !(d - 1);
                    (base..base + d).map(count).fold(0u64, u64::saturating_add)
                };
                send(out, partner, group(me));
                recv(out, partner, group(partner));
            }
            CollAlg::AllgathervBruck => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                let blocks = d.min(p - d);
                let held = |r: u32| {
                    (0..blocks)
                        .map(|i| count((r + i) % p))
                        .fold(0u64, u64::saturating_add)
                };
                send(out, (me + p - d) % p, held(me));
                recv(out, (me + d) % p, held((me + d) % p));
            }
            CollAlg::AllgatherNeighborExchange => {
                if p <= 1 || k >= p / 2 {
                    return None;
                }
                debug_assert!(p % 2 == 0, "neighbour exchange needs an even P");
                let (first, second) = if me % 2 == 0 {
                    (right, left)
                } else {
                    (left, right)
                };
                let (peer, blocks) = if k == 0 {
                    (first, 1)
                } else if k % 2 == 1 {
                    (second, 2)
                } else {
                    (first, 2)
                };
                send(out, peer, s.saturating_mul(blocks));
                recv(out, peer, s.saturating_mul(blocks));
            }
            CollAlg::AllgathervNeighborExchange => {
                if p <= 1 || k >= p / 2 {
                    return None;
                }
                debug_assert!(p % 2 == 0, "neighbour exchange needs an even P");
                let even = me % 2 == 0;
                let (n0, n1) = if even { (right, left) } else { (left, right) };
                // `recv_data_from` before any step: the first block of
                // the pair this rank holds after step 0.
                let base = if even { me } else { left };
                // The pair received at step i >= 1 starts 2 blocks
                // further per step of the same parity so far (even ranks
                // up on neighbour 0, down on 1; odd ranks the reverse).
                let from = |i: u32| {
                    if i == 0 {
                        return base;
                    }
                    let parity = i % 2;
                    let n = if parity == 1 { i.div_ceil(2) } else { i / 2 };
                    let shift = (2 * n as u64 % p as u64) as u32;
                    if (parity == 0) == even {
                        (base + shift) % p
                    } else {
                        (base + p - shift) % p
                    }
                };
                let pair = |b: u32| count(b).saturating_add(count((b + 1) % p));
                if k == 0 {
                    send(out, n0, count(me));
                    recv(out, n0, count(n0));
                } else {
                    let peer = if k % 2 == 0 { n0 } else { n1 };
                    send(out, peer, pair(from(k - 1)));
                    recv(out, peer, pair(from(k)));
                }
            }
            _ => unreachable!("{:?} is not planned by plan_allgather", self.alg),
        }
        Some(reduce)
    }
}
