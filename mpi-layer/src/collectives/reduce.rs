//! Reduce and allreduce schedules: binomial (and the binomial gather,
//! its twin), Rabenseifner's reduce-scatter + gather, the in-order
//! binary tree; recursive doubling, Rabenseifner and ring allreduce.
//!
//! Each function is one arm of [`CollRun::plan`]'s dispatch: it gives
//! the operations of the run's current step, as `plan` documents.

use super::alg::*;
use super::step::*;
use std::ops::Range;

/// Elements in blocks `b` of `count` elements split into `pof2` blocks
/// as MPICH splits them: `count / pof2` each, the first `count % pof2`
/// one more (`cnts` of `MPIR_Allreduce_intra_reduce_scatter_allgather`
/// and `MPIR_Reduce_intra_reduce_scatter_gather`).
fn block_elems(count: u64, pof2: u32, b: Range<u32>) -> u64 {
    let (q, r) = (count / u64::from(pof2), count % u64::from(pof2));
    let (lo, hi) = (u64::from(b.start), u64::from(b.end));
    (hi - lo) * q + hi.min(r) - lo.min(r)
}

/// The blocks (sent, received) by `newrank` of `pof2` at step `j` of
/// MPICH's Rabenseifner: steps `0..l` the reduce-scatter (partner
/// `newrank ^ 2^j`, recursive halving of the vector), steps `l..2l` the
/// allgather or gather (partner `newrank ^ 2^(2l-1-j)`). MPICH's index
/// loops (`send_idx`, `recv_idx`, `last_idx`) of
/// `MPIR_Allreduce_intra_reduce_scatter_allgather`, the same in
/// `MPIR_Reduce_intra_reduce_scatter_gather`. The `openmpi` selector's
/// allreduce runs Open MPI's own instead
/// ([`CollAlg::AllreduceRedscatAllgather`]).
fn rabenseifner_blocks(newrank: u32, pof2: u32, j: u32) -> (Range<u32>, Range<u32>) {
    let (mut send_idx, mut recv_idx, mut last_idx) = (0, 0, pof2);
    let mut mask = 1;
    let mut step = 0;
    while mask < pof2 {
        let half = pof2 / (mask * 2);
        let blocks = if newrank < newrank ^ mask {
            send_idx = recv_idx + half;
            (send_idx..last_idx, recv_idx..send_idx)
        } else {
            recv_idx = send_idx + half;
            (send_idx..recv_idx, recv_idx..last_idx)
        };
        if step == j {
            return blocks;
        }
        step += 1;
        send_idx = recv_idx;
        mask <<= 1;
        if mask < pof2 {
            last_idx = recv_idx + pof2 / mask;
        }
    }
    mask >>= 1;
    while mask > 0 {
        let half = pof2 / (mask * 2);
        let blocks = if newrank < newrank ^ mask {
            if mask != pof2 / 2 {
                last_idx += half;
            }
            recv_idx = send_idx + half;
            (send_idx..recv_idx, recv_idx..last_idx)
        } else {
            recv_idx = send_idx - half;
            (send_idx..last_idx, recv_idx..send_idx)
        };
        if step == j {
            return blocks;
        }
        step += 1;
        if newrank > newrank ^ mask {
            send_idx = recv_idx;
        }
        mask >>= 1;
    }
    (0..0, 0..0)
}

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
                        if self.alg == CollAlg::AllreduceRecursiveDoubling {
                            send(out, to_real(n ^ (1 << j)), s);
                            recv(out, to_real(n ^ (1 << j)), s);
                            reduce = s;
                        } else {
                            // Reduce-scatter at distance 1, 2, ..., then
                            // allgather at pof2 / 2, ..., 1, in MPICH's
                            // whole-element blocks.
                            let d = if j < l { 1 << j } else { 1 << (2 * l - 1 - j) };
                            let (count, e) = whole_elements(s, self.elem_bytes);
                            let (sb, rb) = rabenseifner_blocks(n, pof2, j);
                            let rbytes = block_elems(count, pof2, rb) * e;
                            send(out, to_real(n ^ d), block_elems(count, pof2, sb) * e);
                            recv(out, to_real(n ^ d), rbytes);
                            if j < l {
                                reduce = rbytes;
                            }
                        }
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
            CollAlg::AllreduceRedscatAllgather => {
                // `ompi_coll_base_allreduce_intra_redscat_allgather`.
                let pof2 = floor_pow2(p);
                let rem = p - pof2;
                let l = pof2.trailing_zeros();
                let (count, e) = whole_elements(s, self.elem_bytes);
                let (lhalf, rhalf) = (count / 2 * e, (count - count / 2) * e);
                let vrank = if me < 2 * rem {
                    (me % 2 == 0).then_some(me / 2)
                } else {
                    Some(me - rem)
                };
                let to_real = |v: u32| if v < rem { 2 * v } else { v + rem };
                // Window step j of `vrank`: (sent, received) elements;
                // the lower rank of a pair keeps floor(w / 2).
                let window = |v: u32, j: u32| {
                    let mut w = count;
                    let mut sr = (0, 0);
                    for i in 0..=j {
                        let keep = if v & (1 << i) == 0 { w / 2 } else { w - w / 2 };
                        sr = (w - keep, keep);
                        w = keep;
                    }
                    sr
                };
                if k == 0 {
                    // Halves traded: the even rank keeps the left half.
                    if me < 2 * rem {
                        let (mine, theirs) = if me % 2 == 0 {
                            (me + 1, lhalf)
                        } else {
                            (me - 1, rhalf)
                        };
                        send(out, mine, lhalf + rhalf - theirs);
                        recv(out, mine, theirs);
                        reduce = theirs;
                    }
                } else if k == 1 {
                    if me < 2 * rem {
                        if me % 2 == 1 {
                            send(out, me - 1, rhalf);
                        } else {
                            recv(out, me + 1, rhalf);
                        }
                    }
                } else if k < 2 + 2 * l {
                    if let Some(v) = vrank {
                        // Reduce-scatter at distance 1, 2, ..., then the
                        // allgather back, each step sending what the
                        // mirror step received.
                        let j = k - 2;
                        let (step, back) = if j < l {
                            (j, false)
                        } else {
                            (2 * l - 1 - j, true)
                        };
                        let peer = to_real(v ^ (1 << step));
                        let (sent, got) = window(v, step);
                        let (sb, rb) = if back { (got, sent) } else { (sent, got) };
                        send(out, peer, sb * e);
                        recv(out, peer, rb * e);
                        if !back {
                            reduce = got * e;
                        }
                    }
                } else if k == 2 + 2 * l {
                    if me < 2 * rem {
                        if me % 2 == 0 {
                            send(out, me + 1, s);
                        } else {
                            recv(out, me - 1, s);
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
                // Open MPI's blocks (`ompi_coll_base_allreduce_intra_ring`,
                // `COLL_BASE_COMPUTE_BLOCKCOUNT`): the first `count % P`
                // ("early") one element more than the others ("late"); step k
                // sends block me - k (reduce-scatter) or me + 1 - k
                // (allgather) and receives the left's.
                let (count, e) = whole_elements(s, self.elem_bytes);
                let p64 = u64::from(p);
                let block = |b: u32| (count / p64 + u64::from(u64::from(b) < count % p64)) * e;
                let sent = if k < p - 1 {
                    (me + p - k) % p
                } else {
                    (me + 1 + p - (k - (p - 1))) % p
                };
                send(out, right, block(sent));
                recv(out, left, block((sent + p - 1) % p));
                if k < p - 1 {
                    reduce = block((sent + p - 1) % p);
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
                // MPICH's whole-element blocks (`rabenseifner_blocks`).
                let (count, e) = whole_elements(s, self.elem_bytes);
                let bytes = |b: Range<u32>| block_elems(count, pof2, b) * e;
                if k <= l {
                    // Recursive halving, distance 2^(k-1).
                    if let Some(n) = newrank {
                        let (sb, rb) = rabenseifner_blocks(n, pof2, k - 1);
                        let dst = to_real(n ^ (1 << (k - 1)));
                        send(out, dst, bytes(sb));
                        recv(out, dst, bytes(rb.clone()));
                        reduce = bytes(rb);
                    }
                } else if k == l + 1 {
                    // A folded-away root takes newrank 0's piece.
                    let piece = bytes(0..1);
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
                            let (sb, rb) = rabenseifner_blocks(n, pof2, l + i);
                            if (n ^ newroot) & mask != 0 {
                                send(out, dst, bytes(sb));
                            } else {
                                recv(out, dst, bytes(rb));
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
