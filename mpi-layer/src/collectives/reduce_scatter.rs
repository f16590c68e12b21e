//! Reduce_scatter schedules: ring, pairwise, recursive halving,
//! recursive doubling and butterfly.
//!
//! Each function is one arm of [`CollRun::plan`]'s dispatch: it gives
//! the operations of the run's current step, as `plan` documents.

use super::alg::*;
use super::step::*;

impl CollRun {
    /// Step `self.step` of a reduce scatter family algorithm (see [`CollRun::plan`]).
    pub(super) fn plan_reduce_scatter(&self, st: &Step<'_>, out: &mut Vec<P2p>) -> Option<u64> {
        let Step {
            p,
            me,
            k,
            right,
            left,
            counts,
            ..
        } = *st;
        let count = |i: u32| counts.get(i as usize).copied().unwrap_or(0);
        let mut reduce = 0;
        match self.alg {
            CollAlg::ReduceScatterRing => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                send(out, right, count((me + 2 * p - k - 1) % p));
                let b = count((me + 2 * p - k - 2) % p);
                recv(out, left, b);
                reduce = b;
            }
            CollAlg::ReduceScatterPairwise => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                let i = k + 1;
                let to = (me + i) % p;
                send(out, to, count(to));
                recv(out, (me + p - i) % p, count(me));
                reduce = count(me);
            }
            CollAlg::ReduceScatterRecursiveHalving => {
                let pof2 = floor_pow2(p);
                let rem = p - pof2;
                let l = pof2.trailing_zeros();
                // The sum of all blocks, summed once (step 0); nothing to
                // do when it is 0.
                let total = if k == 0 {
                    (0..p).map(count).fold(0u64, u64::saturating_add)
                } else {
                    1
                };
                if total == 0 || k > l + 1 {
                    return None;
                }
                let both = |out: &mut Vec<P2p>, peer: u32, sb: u64, rb: u64| {
                    if sb > 0 {
                        send(out, peer, sb);
                    }
                    if rb > 0 {
                        recv(out, peer, rb);
                    }
                };
                if k == 0 {
                    if me < 2 * rem {
                        if me % 2 == 0 {
                            both(out, me + 1, total, 0);
                        } else {
                            both(out, me - 1, 0, total);
                            reduce = total;
                        }
                    }
                } else if k <= l {
                    let newrank = if me < 2 * rem {
                        (me % 2 == 1).then_some(me / 2)
                    } else {
                        Some(me - rem)
                    };
                    if let Some(n) = newrank {
                        // Blocks of the new ranking: a folding pair's two.
                        let newcnt = |i: u32| {
                            let old = if i < rem { 2 * i + 1 } else { i + rem };
                            if old < 2 * rem {
                                count(old).saturating_add(count(old - 1))
                            } else {
                                count(old)
                            }
                        };
                        let sum =
                            |a: u32, b: u32| (a..b).map(newcnt).fold(0u64, u64::saturating_add);
                        let mask = pof2 >> k;
                        let nd = n ^ mask;
                        let base = n & !(2 * mask - 1);
                        let (keep, give) = if n < nd {
                            (base, base + mask)
                        } else {
                            (base + mask, base)
                        };
                        let dst = if nd < rem { 2 * nd + 1 } else { nd + rem };
                        let rb = sum(keep, keep + mask);
                        both(out, dst, sum(give, give + mask), rb);
                        reduce = rb;
                    }
                } else if me < 2 * rem {
                    if me % 2 == 1 {
                        both(out, me - 1, count(me - 1), 0);
                    } else {
                        both(out, me + 1, 0, count(me));
                    }
                }
            }
            CollAlg::ReduceScatterRecursiveDoubling => {
                if p <= 1 {
                    return None;
                }
                let (j, sub, len) = rd_level(p, k)?;
                let mask = 1u32 << j;
                let tree = me & !(mask - 1);
                let dst = me ^ mask;
                let dtree = dst & !(mask - 1);
                let all = (0..p).map(count).fold(0u64, u64::saturating_add);
                let outside = |root: u32| {
                    let inside = (root.min(p)..root.saturating_add(mask).min(p))
                        .map(count)
                        .fold(0u64, u64::saturating_add);
                    all - inside
                };
                let fill = |q: u32| rd_fill(me, p, mask, q);
                if sub == 0 {
                    if dst < p {
                        send(out, dst, outside(tree));
                        recv(out, dst, outside(dtree));
                    }
                } else if let Some((is_send, d)) = fill(sub) {
                    out.push(P2p {
                        send: is_send,
                        peer: d,
                        bytes: outside(dtree),
                    });
                }
                if sub + 1 == len {
                    let got = dst < p || (1..len).any(|q| matches!(fill(q), Some((false, _))));
                    if got {
                        reduce = outside(dtree);
                    }
                }
            }
            CollAlg::ReduceScatterButterfly => {
                let pof2 = floor_pow2(p);
                let rem = p - pof2;
                let l = pof2.trailing_zeros();
                if p <= 1 || k > l + 1 {
                    return None;
                }
                // The sum of all blocks, folded at step 0 only.
                let total = if k == 0 {
                    (0..p).map(count).fold(0u64, u64::saturating_add)
                } else {
                    0
                };
                // New rank v's block: a folded pair's two.
                let newcnt = |i: u32| {
                    if i < rem {
                        count(2 * i).saturating_add(count(2 * i + 1))
                    } else {
                        count(i + rem)
                    }
                };
                let sum = |a: u32, b: u32| (a..b).map(newcnt).fold(0u64, u64::saturating_add);
                let real_of = |v: u32| if v < rem { 2 * v + 1 } else { v + rem };
                let mirror = |v: u32| v.reverse_bits().checked_shr(32 - l).unwrap_or(0);
                let vrank = if me < 2 * rem {
                    (me % 2 == 1).then_some(me / 2)
                } else {
                    Some(me - rem)
                };
                if k == 0 {
                    if me < 2 * rem {
                        if me % 2 == 0 {
                            send(out, me + 1, total);
                        } else {
                            recv(out, me - 1, total);
                            reduce = total;
                        }
                    }
                } else if k <= l {
                    if let Some(v) = vrank {
                        let j = k - 1;
                        let nb = pof2 >> (j + 1);
                        let base = (0..j)
                            .filter(|&i| (v >> i) & 1 == 1)
                            .map(|i| pof2 >> (i + 1))
                            .sum::<u32>();
                        let (keep, give) = if v & (1 << j) == 0 {
                            (base, base + nb)
                        } else {
                            (base + nb, base)
                        };
                        let peer = real_of(v ^ (1 << j));
                        send(out, peer, sum(give, give + nb));
                        let rb = sum(keep, keep + nb);
                        recv(out, peer, rb);
                        reduce = rb;
                    }
                } else if let Some(v) = vrank {
                    // This rank holds new block mirror(v).
                    let vp = mirror(v);
                    let peer = real_of(vp);
                    if vp < rem {
                        send(out, peer - 1, count(peer - 1));
                    }
                    if vp != v {
                        send(out, peer, count(peer));
                        recv(out, peer, count(me));
                    }
                } else {
                    recv(out, real_of(mirror(me / 2)), count(me));
                }
            }
            _ => unreachable!("{:?} is not planned by plan_reduce_scatter", self.alg),
        }
        Some(reduce)
    }
}
