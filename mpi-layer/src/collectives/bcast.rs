//! Broadcast schedules (binomial, scatter + allgather, chain, binary
//! and split binary trees, k-nomial), and the chain and binary-tree
//! reduces that walk the same trees upwards.
//!
//! Each function is one arm of [`CollRun::plan`]'s dispatch: it gives
//! the operations of the run's current step, as `plan` documents.

use super::alg::*;
use super::step::*;

impl CollRun {
    /// Step `self.step` of a bcast family algorithm (see [`CollRun::plan`]).
    pub(super) fn plan_bcast(&self, st: &Step<'_>, out: &mut Vec<P2p>) -> Option<u64> {
        let Step {
            p,
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
            CollAlg::BcastBinomial => {
                if k >= lg {
                    return None;
                }
                let d = 1u32 << k;
                if vr < d && vr + d < p {
                    send(out, real(vr + d), s);
                } else if vr >= d && vr < 2 * d {
                    recv(out, real(vr - d), s);
                }
            }
            CollAlg::ScatterBinomial | CollAlg::BcastScatterAllgather => {
                let chunk = if self.alg == CollAlg::ScatterBinomial {
                    s
                } else {
                    s.div_ceil(p as u64)
                };
                if k < lg {
                    // Top level first: d = 2^(lg-1-k).
                    let d = 1u32 << (lg - 1 - k);
                    if vr % (2 * d) == 0 && vr + d < p {
                        let b = chunk.saturating_mul(d.min(p - vr - d) as u64);
                        send(out, real(vr + d), b);
                    } else if vr % (2 * d) == d {
                        let b = chunk.saturating_mul(d.min(p - vr) as u64);
                        recv(out, real(vr - d), b);
                    }
                } else if self.alg == CollAlg::BcastScatterAllgather && k < lg + p - 1 {
                    send(out, right, chunk);
                    recv(out, left, chunk);
                } else {
                    return None;
                }
            }
            CollAlg::BcastBinomialFarFirst => {
                // Step k is the tree level of distance m = 2^(lg-1-k), so
                // that both ends of a message share its step (its tag):
                // `vr` receives at the level of its lowest set bit and
                // sends at the levels below it.
                if k >= lg {
                    return None;
                }
                let m = 1u32 << (lg - 1 - k);
                let low = if vr == 0 {
                    u32::MAX
                } else {
                    1 << vr.trailing_zeros()
                };
                if m == low {
                    recv(out, real(vr - m), s);
                } else if m < low && vr + m < p {
                    send(out, real(vr + m), s);
                }
            }
            CollAlg::BcastScatterRdAllgather => {
                let chunk = s.div_ceil(p as u64);
                if k < lg {
                    let d = 1u32 << (lg - 1 - k);
                    if vr % (2 * d) == 0 && vr + d < p {
                        send(
                            out,
                            real(vr + d),
                            chunk.saturating_mul(d.min(p - vr - d) as u64),
                        );
                    } else if vr % (2 * d) == d {
                        recv(
                            out,
                            real(vr - d),
                            chunk.saturating_mul(d.min(p - vr) as u64),
                        );
                    }
                } else {
                    // Allgather level j (mask 2^j): the exchange step,
                    // then, off powers of two, j recursive halving steps.
                    let (j, sub, _) = rd_level(p, k - lg)?;
                    let mask = 1u32 << j;
                    let tree = vr & !(mask - 1);
                    let vremote = vr ^ mask;
                    let rtree = vremote & !(mask - 1);
                    // A subtree's blocks, once its ranks all hold them.
                    let held = |root: u32| chunk.saturating_mul(mask.min(p - root) as u64);
                    if sub == 0 {
                        if vremote < p {
                            send(out, real(vremote), held(tree));
                            recv(out, real(vremote), held(rtree));
                        }
                    } else if let Some((is_send, v)) = rd_fill(vr, p, mask, sub) {
                        // The partner subtree's `p - tree - mask` chunks
                        // spread to the ranks that had no partner.
                        out.push(P2p {
                            send: is_send,
                            peer: real(v),
                            bytes: chunk.saturating_mul(u64::from(p - tree - mask)),
                        });
                    }
                }
            }
            CollAlg::BcastChain | CollAlg::ReduceChain => {
                if p <= 1 || k >= p - 1 {
                    return None;
                }
                if self.alg == CollAlg::BcastChain {
                    if vr == k {
                        send(out, real(vr + 1), s);
                    } else if vr == k + 1 {
                        recv(out, real(vr - 1), s);
                    }
                } else if vr == p - 1 - k {
                    send(out, real(vr - 1), s);
                } else if vr + 2 + k == p {
                    recv(out, real(vr + 1), s);
                    reduce = s;
                }
            }
            CollAlg::BcastBinaryTree
            | CollAlg::ReduceBinaryTree
            | CollAlg::BcastSplitBinaryTree => {
                // Level of relative rank v: floor(log2(v + 1)).
                let level = |v: u32| 31 - (v + 1).leading_zeros();
                let deepest = level(p - 1);
                let split = self.alg == CollAlg::BcastSplitBinaryTree;
                // Split: the odd relative ranks (the left subtree) carry
                // the first half, ceil(count / 2) elements.
                let e = u64::from(self.elem_bytes.max(1));
                let h0 = (s / e).div_ceil(2).saturating_mul(e).min(s);
                let half = |v: u32| if v % 2 == 1 { h0 } else { s - h0 };
                let s_to = |v: u32| if split { half(v) } else { s };
                if split && k == deepest && p > 1 {
                    // Each rank trades its half with its pair in the
                    // other subtree; on even P the root sends the last
                    // rank (left subtree, no pair) the second half.
                    if p % 2 == 0 && vr == 0 {
                        send(out, real(p - 1), s - h0);
                    } else if p % 2 == 0 && vr == p - 1 {
                        recv(out, real(0), s - h0);
                    } else if vr != 0 {
                        let pair = if vr % 2 == 1 { vr + 1 } else { vr - 1 };
                        send(out, real(pair), half(vr));
                        recv(out, real(pair), half(pair));
                    }
                    return Some(0);
                }
                if k >= deepest {
                    return None;
                }
                let bcast = self.alg != CollAlg::ReduceBinaryTree;
                // The parents' level this step: top down, or bottom up.
                let l = if bcast { k } else { deepest - 1 - k };
                let (lv, d) = (level(vr), 1u32 << l);
                if lv == l {
                    for child in [vr + d, vr + 2 * d].into_iter().filter(|&c| c < p) {
                        if bcast {
                            send(out, real(child), s_to(child));
                        } else {
                            recv(out, real(child), s);
                            reduce += s;
                        }
                    }
                } else if lv == l + 1 {
                    // The parent q has children q + d and q + 2d.
                    let parent = if vr - d < 2 * d - 1 {
                        vr - d
                    } else {
                        vr - 2 * d
                    };
                    if bcast {
                        recv(out, real(parent), s_to(vr));
                    } else {
                        send(out, real(parent), s);
                    }
                }
            }
            CollAlg::BcastKnomial => {
                let kr = KNOMIAL_RADIX;
                // Levels: the least n with kr^n >= P.
                let mut levels = 0;
                let mut top = 1u64;
                while top < p as u64 {
                    top *= kr as u64;
                    levels += 1;
                }
                if k >= levels {
                    return None;
                }
                let m = (kr as u64).pow(levels - 1 - k);
                let v = vr as u64;
                if v % (kr as u64 * m) == 0 {
                    for r in 1..kr as u64 {
                        if v + m * r < p as u64 {
                            send(out, real((v + m * r) as u32), s);
                        }
                    }
                } else if v % m == 0 {
                    let parent = v / (kr as u64 * m) * (kr as u64 * m);
                    recv(out, real(parent as u32), s);
                }
            }
            _ => unreachable!("{:?} is not planned by plan_bcast", self.alg),
        }
        Some(reduce)
    }
}
