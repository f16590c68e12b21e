//! The communication model of Zhu, Lastovetsky, Ali and Riesen,
//! "Communication Models for Resource Constrained Hierarchical Ethernet
//! Networks" (`seeds/001_784c662478e23d27.txt`): congestion factors
//! (eqs. 1-4), the fairness (eq. 5) and asymmetric (eq. 6) properties, and
//! Algorithm 1, the bottleneck-driven inverse bandwidth of every logical
//! link, plus the fairness-only variant the paper compares against
//! (Section 7, second row of Fig. 2).
//!
//! The platform is Fig. 1: racks of nodes, one NIC per node to the rack's
//! top-of-rack switch, racks joined by one backbone. A *logical link* is a
//! concurrent point-to-point transfer from one node to another.
//!
//! Two evident typos of Algorithm 1 are corrected here: lines 23-24 read
//! "E-bar := E-bar \ {e}; E := E u {e}", which would never shrink E; the
//! intent (the text: "once k_ab is calculated" the link moves to the set of
//! calculated links) is `E := E \ {e}; E-bar := E-bar u {e}`.

use crate::Error;

/// Rates of the platform's resources, in bytes per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZhuPlatform {
    /// Nodes per rack (15 in Section 3.2).
    pub nodes_per_rack: u32,
    /// 1 / beta_N: what one NIC direction carries in total [B/s]
    /// (940 Mb/s measured TCP throughput of a 1 GbE NIC, Section 5.1).
    pub nic: f64,
    /// 1 / beta_O (optical, 9.4 Gb/s measured, Section 5.1) or 1 / beta_E
    /// (electrical, 1 GbE) of the backbone, per direction [B/s].
    pub backbone: f64,
    /// 1 / beta_E as the fastest any single logical link goes [B/s]
    /// (940 Mb/s: eq. 5's second case and Algorithm 1 line 32's
    /// `max(beta_E, ..)`).
    pub flow_cap: f64,
}

impl ZhuPlatform {
    /// The optical testbed of Section 3.2: 940 Mb/s per NIC and per flow,
    /// 9.4 Gb/s backbone, 15 nodes per rack.
    pub fn optical() -> Self {
        ZhuPlatform {
            nodes_per_rack: 15,
            nic: 940e6 / 8.0,
            backbone: 9.4e9 / 8.0,
            flow_cap: 940e6 / 8.0,
        }
    }

    /// The same racks joined by an electrical 1 GbE backbone (940 Mb/s).
    pub fn electrical() -> Self {
        ZhuPlatform {
            backbone: 940e6 / 8.0,
            ..Self::optical()
        }
    }

    fn rack(&self, node: u32) -> u32 {
        node / self.nodes_per_rack
    }
}

/// A logical link: a transfer from node `src` to node `dst` (`src != dst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogicalLink {
    /// Sending node.
    pub src: u32,
    /// Receiving node.
    pub dst: u32,
}

/// Which properties the model applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZhuVariant {
    /// Algorithm 1: fairness (eq. 5) and the asymmetric property (eq. 6).
    Asymmetric,
    /// Fairness only: contra-flow traffic is ignored (Section 7's baseline).
    FairnessOnly,
}

/// The three shared resources of eq. 1 and 3, in the paper's order: the
/// backbone (leaving or entering the sender's rack), the sender's NIC, the
/// receiver's NIC.
struct Sets {
    with: [Vec<usize>; 3],
    contra: [Vec<usize>; 3],
}

/// Eq. 1 and 3: the with-flow and contra-flow link sets of every link.
/// An intra-rack link does not use the backbone: its backbone sets are
/// empty.
fn link_sets(p: &ZhuPlatform, links: &[LogicalLink]) -> Vec<Sets> {
    let inter = |l: &LogicalLink| p.rack(l.src) != p.rack(l.dst);
    links
        .iter()
        .map(|e| {
            let ra = p.rack(e.src);
            let pick = |f: &dyn Fn(&LogicalLink) -> bool| -> Vec<usize> {
                links
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| f(l))
                    .map(|(i, _)| i)
                    .collect()
            };
            let e_inter = inter(e);
            Sets {
                with: [
                    if e_inter {
                        pick(&|l| inter(l) && p.rack(l.src) == ra)
                    } else {
                        vec![]
                    },
                    pick(&|l| l.src == e.src),
                    pick(&|l| l.dst == e.dst),
                ],
                contra: [
                    if e_inter {
                        pick(&|l| inter(l) && p.rack(l.dst) == ra)
                    } else {
                        vec![]
                    },
                    pick(&|l| l.dst == e.src),
                    pick(&|l| l.src == e.dst),
                ],
            }
        })
        .collect()
}

/// Relative equality for the "==" tests of Algorithm 1 (lines 9, 13, 16).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Algorithm 1: the inverse bandwidth beta_ab [s/B] of every logical link.
/// The time to move `m` bytes over link `i` is `m * result[i]`.
///
/// Ties in the priority queue (eq. 7's key) go to the lower link index.
/// Returns an error for a link from a node to itself. `O(|E|^2)` per
/// iteration, at most `4 |E|` iterations (each contra-flow set can be
/// disabled once).
pub fn inverse_bandwidths(
    p: &ZhuPlatform,
    links: &[LogicalLink],
    variant: ZhuVariant,
) -> Result<Vec<f64>, Error> {
    if let Some((i, l)) = links.iter().enumerate().find(|(_, l)| l.src == l.dst) {
        return Err(Error::Input(format!(
            "logical link {i} goes from node {} to itself",
            l.src
        )));
    }
    let beta = [1.0 / p.backbone, 1.0 / p.nic, 1.0 / p.nic];
    let beta_e = 1.0 / p.flow_cap;
    let mut sets = link_sets(p, links);
    if variant == ZhuVariant::FairnessOnly {
        for s in &mut sets {
            s.contra = [vec![], vec![], vec![]];
        }
    }
    // `None` while uncalculated (the set E), `Some(beta)` once in E-bar.
    let mut result: Vec<Option<f64>> = vec![None; links.len()];
    let factor = |set: &[Vec<usize>; 3], i: usize| beta[i] * set[i].len() as f64;
    let k_of = |set: &[Vec<usize>; 3]| (0..3).map(|i| factor(set, i)).fold(0.0, f64::max);

    loop {
        // Line 5: the most congested uncalculated link, by eq. 7's key.
        let mut best: Option<(usize, (f64, f64, f64))> = None;
        for (e, s) in sets.iter().enumerate() {
            if result[e].is_some() {
                continue;
            }
            let (k, kb) = (k_of(&s.with), k_of(&s.contra));
            let key = (k.max(kb), k, kb);
            if best.is_none_or(|(_, b)| key > b) {
                best = Some((e, key));
            }
        }
        let Some((e, (_, k, kb))) = best else { break };
        let mut b_ab = 0.0f64;
        if k >= kb {
            // Lines 8-10: fairness on the with-flow bottleneck(s).
            #[allow(clippy::needless_range_loop)] // i names a resource in three arrays
            for i in 0..3 {
                if !sets[e].with[i].is_empty() && close(factor(&sets[e].with, i), k) {
                    // Lines 27-32: the bandwidth left on resource i by links
                    // already calculated, shared among those not yet.
                    let (mut used, mut waiting) = (0.0, 0usize);
                    for &x in &sets[e].with[i] {
                        match result[x] {
                            Some(bx) => used += 1.0 / bx,
                            None => waiting += 1,
                        }
                    }
                    let left = (1.0 / beta[i] - used).max(1e-9 / beta[i]);
                    b_ab = b_ab.max(beta_e.max(waiting as f64 / left));
                }
            }
        } else {
            // Lines 12-20: the asymmetric property on the contra-flow
            // bottleneck(s).
            #[allow(clippy::needless_range_loop)] // i names a resource in three arrays
            for i in 0..3 {
                if sets[e].contra[i].is_empty() || !close(factor(&sets[e].contra, i), kb) {
                    continue;
                }
                let done: Vec<f64> = sets[e].contra[i]
                    .iter()
                    .filter_map(|&x| result[x])
                    .collect();
                let carried: f64 = done.iter().map(|b| 1.0 / b).sum();
                if !done.is_empty() && close(carried, 1.0 / beta[i]) {
                    // Line 17: the contra-flow links saturate the resource;
                    // this link gets the rate of the slowest of them.
                    let m = done.iter().cloned().fold(f64::INFINITY, f64::min);
                    b_ab = b_ab.max(m);
                } else {
                    // Lines 19-20: not saturated: drop this contra-flow
                    // congestion and analyze the link again.
                    sets[e].contra[i].clear();
                }
            }
        }
        if b_ab > 0.0 {
            result[e] = Some(b_ab);
        }
    }
    Ok(result
        .into_iter()
        .map(|b| b.expect("every link calculated"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bits per second of a link with inverse bandwidth `b` [s/B].
    fn rate(b: f64) -> f64 {
        8.0 / b
    }

    /// Section 5.2: 12 incoming and 1 outgoing logical link on one NIC
    /// give every link 940/12 Mb/s (aggregate 13/12 x 940 Mb/s); 2 in and
    /// 1 out give 470 Mb/s each.
    #[test]
    fn asymmetric_property_cases() {
        let p = ZhuPlatform::optical();
        for n_in in [12u32, 2] {
            let mut links: Vec<LogicalLink> =
                (1..=n_in).map(|i| LogicalLink { src: i, dst: 0 }).collect();
            links.push(LogicalLink { src: 0, dst: 14 });
            let b = inverse_bandwidths(&p, &links, ZhuVariant::Asymmetric).unwrap();
            for (i, bi) in b.iter().enumerate() {
                let r = rate(*bi);
                assert!(
                    (r - 940e6 / n_in as f64).abs() < 1.0,
                    "n_in {n_in} link {i}: {r}"
                );
            }
            // Fairness only: the lone outgoing link gets the full 940 Mb/s.
            let f = inverse_bandwidths(&p, &links, ZhuVariant::FairnessOnly).unwrap();
            assert!((rate(f[n_in as usize]) - 940e6).abs() < 1.0);
        }
    }

    /// Eq. 5: up to 10 inter-rack links get 940 Mb/s each on the optical
    /// backbone; beyond 10 they share 9.4 Gb/s.
    #[test]
    fn backbone_fairness() {
        let p = ZhuPlatform::optical();
        for n in [1u32, 10, 12, 15] {
            let links: Vec<LogicalLink> = (0..n)
                .map(|i| LogicalLink {
                    src: i,
                    dst: 15 + i,
                })
                .collect();
            let b = inverse_bandwidths(&p, &links, ZhuVariant::Asymmetric).unwrap();
            let want = if n <= 10 { 940e6 } else { 9.4e9 / n as f64 };
            for bi in b {
                assert!((rate(bi) - want).abs() < 1.0, "n {n}: {}", rate(bi));
            }
        }
        // Electrical backbone: the backbone is shared from two links on.
        let e = inverse_bandwidths(
            &ZhuPlatform::electrical(),
            &[
                LogicalLink { src: 0, dst: 15 },
                LogicalLink { src: 1, dst: 16 },
            ],
            ZhuVariant::Asymmetric,
        )
        .unwrap();
        assert!((rate(e[0]) - 470e6).abs() < 1.0);
    }

    #[test]
    fn self_link_is_an_error() {
        let p = ZhuPlatform::optical();
        let err = inverse_bandwidths(
            &p,
            &[LogicalLink { src: 3, dst: 3 }],
            ZhuVariant::Asymmetric,
        );
        assert!(err.unwrap_err().to_string().contains("node 3"));
    }
}
