//! Reduce and allreduce schedules: binomial (and the binomial gather,
//! its twin), Rabenseifner's reduce-scatter + gather, the in-order
//! binary tree; recursive doubling, Rabenseifner and ring allreduce.
//!
//! Each function is one arm of [`CollRun::plan`]'s dispatch: it gives
//! the operations of the run's current step, as `plan` documents.

use super::alg::*;
use super::step::*;

impl CollRun {
    /// Step `self.step` of a reduce family algorithm (see [`CollRun::plan`]).
    pub(super) fn plan_reduce(&self, st: &Step<'_>, out: &mut Vec<P2p>) -> Option<u64> {
        let Step {
            p,
            me,
            k,
            s,
            vr,
            lg,
            right,
            left,
            ..
        } = *st;
        let real = |v: u32| (v + self.root) % p;
        let mut reduce = 0;
        match self.alg {
            CollAlg::ReduceBinomial | CollAlg::GatherBinomial => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                let gather = self.alg == CollAlg::GatherBinomial;
                if vr % (2 * d) == d {
                    let b = if gather {
                        s.saturating_mul(d.min(p - vr) as u64)
                    } else {
                        s
                    };
                    send(out, real(vr - d), b);
                } else if vr % (2 * d) == 0 && vr + d < p {
                    let b = if gather {
                        s.saturating_mul(d.min(p - vr - d) as u64)
                    } else {
                        s
                    };
                    recv(out, real(vr + d), b);
                    if !gather {
                        reduce = s;
                    }
                }
            }
            CollAlg::AllreduceRecursiveDoubling | CollAlg::AllreduceRabenseifner => {
                let pof2 = floor_pow2(p);
                let rem = p - pof2;
                let l = pof2.trailing_zeros();
                let newrank = if me < 2 * rem {
                    if me % 2 == 0 { None } else { Some(me / 2) }
                } else {
                    Some(me - rem)
                };
                let to_real = |n: u32| if n < rem { 2 * n + 1 } else { n + rem };
                let middle = if self.alg == CollAlg::AllreduceRabenseifner {
                    2 * l
                } else {
                    l
                };
                if k == 0 {
                    if me < 2 * rem {
                        if me % 2 == 0 {
                            send(out, me + 1, s);
                        } else {
                            recv(out, me - 1, s);
                            reduce = s;
                        }
                    }
                } else if k <= middle {
                    if let Some(n) = newrank {
                        let j = k - 1;
                        let (partner, bytes, red) =
                            if self.alg == CollAlg::AllreduceRecursiveDoubling {
                                (n ^ (1 << j), s, s)
                            } else if j < l {
                                // Recursive halving: distance pof2/2, pof2/4, ...
                                let b = s.div_ceil(1u64 << (j + 1));
                                (n ^ (pof2 >> (j + 1)), b, b)
                            } else {
                                // Recursive doubling allgather: distance 1, 2, ...
                                let i = j - l;
                                let b = s.div_ceil(1u64 << (l - i));
                                (n ^ (1 << i), b, 0)
                            };
                        send(out, to_real(partner), bytes);
                        recv(out, to_real(partner), bytes);
                        reduce = red;
                    }
                } else if k == middle + 1 {
                    if me < 2 * rem {
                        if me % 2 == 1 {
                            send(out, me - 1, s);
                        } else {
                            recv(out, me + 1, s);
                        }
                    }
                } else {
                    return None;
                }
            }
            CollAlg::AllreduceRing => {
                if p <= 1 || k >= 2 * (p - 1) {
                    return None;
                }
                let c = s.div_ceil(p as u64);
                send(out, right, c);
                recv(out, left, c);
                if k < p - 1 {
                    reduce = c;
                }
            }
            CollAlg::ReduceScatterGather => {
                let pof2 = floor_pow2(p);
                let rem = p - pof2;
                let l = pof2.trailing_zeros();
                let root = self.root;
                let to_real = |n: u32| if n < rem { 2 * n } else { n + rem };
                // The root's role when it was folded away (odd, < 2 rem).
                let root_out = root < 2 * rem && root % 2 == 1;
                if k == 0 {
                    if me < 2 * rem {
                        if me % 2 == 1 {
                            send(out, me - 1, s);
                        } else {
                            recv(out, me + 1, s);
                            reduce = s;
                        }
                    }
                    return Some(reduce);
                }
                let newrank = if me < 2 * rem {
                    (me % 2 == 0).then_some(me / 2)
                } else {
                    Some(me - rem)
                };
                if k <= l {
                    // Recursive halving, distance 2^(k-1).
                    if let Some(n) = newrank {
                        let b = s.div_ceil(1u64 << k);
                        let dst = to_real(n ^ (1 << (k - 1)));
                        send(out, dst, b);
                        recv(out, dst, b);
                        reduce = b;
                    }
                } else if k == l + 1 {
                    // A folded-away root takes newrank 0's piece.
                    let piece = s.div_ceil(pof2 as u64);
                    if root_out && me == root {
                        recv(out, 0, piece);
                    } else if root_out && me == 0 {
                        send(out, root, piece);
                    }
                } else if k <= 2 * l + 1 {
                    // Binomial gather, distance pof2 / 2^(i+1), 2^i pieces.
                    let i = k - l - 2;
                    let mask = pof2 >> (i + 1);
                    let n = if root_out {
                        if me == root {
                            Some(0)
                        } else if me == 0 {
                            None
                        } else {
                            newrank
                        }
                    } else {
                        newrank
                    };
                    let newroot = if root_out {
                        0
                    } else if root < 2 * rem {
                        root / 2
                    } else {
                        root - rem
                    };
                    if let Some(n) = n {
                        // Still holding data: agrees with the root above
                        // this level.
                        if (n ^ newroot) / (2 * mask) == 0 {
                            let nd = n ^ mask;
                            let dst = if nd == 0 && root_out {
                                root
                            } else {
                                to_real(nd)
                            };
                            let b = s.div_ceil((pof2 >> i) as u64);
                            if (n ^ newroot) & mask != 0 {
                                send(out, dst, b);
                            } else {
                                recv(out, dst, b);
                            }
                        }
                    }
                } else {
                    return None;
                }
            }
            CollAlg::ReduceInOrderBinary => {
                let top = 31 - p.max(1).leading_zeros();
                let io_root = p.saturating_sub(1);
                if k > top || (k == top && self.root == io_root) {
                    return None;
                }
                if k == top {
                    if me == io_root {
                        send(out, self.root, s);
                    } else if me == self.root {
                        recv(out, io_root, s);
                    }
                    return Some(0);
                }
                // A subtree (first rank, size) and its children's:
                // (right, left).
                let kids = |lo: u32, n: u32| match n {
                    0 | 1 => (None, None),
                    2 => (None, Some((lo, 1))),
                    _ => (Some((lo, n / 2)), Some((lo + n / 2, n - n / 2 - 1))),
                };
                let (mut lo, mut n) = (0, p);
                let mut parent = None;
                while me != lo + n - 1 {
                    parent = Some(lo + n - 1);
                    (lo, n) = match kids(lo, n) {
                        (Some((rlo, rn)), _) if me < rlo + rn => (rlo, rn),
                        (_, Some(left)) => left,
                        _ => unreachable!("rank {me} lies in its subtree"),
                    };
                }
                let height = |n: u32| 31 - n.leading_zeros();
                let (right, left) = kids(lo, n);
                for (clo, cn) in [left, right].into_iter().flatten() {
                    if height(cn) == k {
                        recv(out, clo + cn - 1, s);
                        reduce += s;
                    }
                }
                if let Some(up) = parent
                    && height(n) == k
                {
                    send(out, up, s);
                }
            }
            _ => unreachable!("{:?} is not planned by plan_reduce", self.alg),
        }
        Some(reduce)
    }
}
