//! Where netsim's own flow sharing and SimGrid's CM02 can differ: a
//! link crossed by routes of different sharing penalties.
//!
//! CM02 (SimGrid 3.32 `network_cm02.cpp`, `NetworkCm02Model::communicate`)
//! gives each flow a sharing penalty equal to its route's latency (plus
//! `network/weight-S` / bandwidth per link: 0 under CM02, 8775 B under
//! `network/model` `SMPI`; the `<config>` reader refuses other values),
//! and max-min shares a saturated link in inverse proportion to the
//! penalties; the flow also pays its latency before its bytes join the
//! sharing. netsim's own flow sharing is equal and pays the latency after
//! the bytes. When every link carries routes of one penalty (so, under
//! CM02, of one latency), every group of flows that share links has one
//! latency, the two schedules differ by that shift only and the answers
//! are equal; otherwise the import has the flow model share as CM02 does
//! (`crate::cm02`). Computed once at import, over every ordered pair of
//! hosts (including a host to itself when the machine routes it),
//! stopping at the first such link, or after as many route links as a
//! pair table may hold (then CM02's sharing is used too): deterministic,
//! bounded, no cost during a run.

use super::NIC_RATE;
use crate::machine::Machine;
use crate::transport::{LinkId, NodeId};
use sim_core::Time;

/// Two routes of different latencies that cross one link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Unequal {
    /// The two routes, as (source, destination, latency), in
    /// the order met (sources, then destinations, ascending).
    pub routes: [RouteLat; 2],
}

/// A route as (source, destination, latency).
type RouteLat = (u32, u32, Time);

/// What the walk over every pair's route found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Walk {
    /// Every link's routes have one latency.
    Equal,
    /// The first link (in pair order) whose routes do not.
    Unequal(Unequal),
    /// The routes hold more than [`MAX_WALK`] links and none was found
    /// in those: not checked further.
    TooLarge,
}

/// The most route links the walk visits: as many as a pair table may
/// hold (`limits::MAX_ROUTE_TABLE_ENTRIES / 8`, `pair_routes.rs`), so a
/// platform of per-pair routes is always walked whole and a machine
/// routed hop by hop is bounded alike (a star or graph of 10^5 hosts
/// would take 10^10 pairs).
const MAX_WALK: u64 = sim_core::limits::MAX_ROUTE_TABLE_ENTRIES / 8;

/// The first link (in pair order) whose routes have different latency
/// sums, if any. Links as fast as [`NIC_RATE`] are netsim's stand-ins
/// for what SimGrid does not have (a host's cable to its switch) and
/// never saturate: they are skipped.
/// With `weight_s` (bytes) above 0 the penalties compared add
/// `weight_s` over each link's bandwidth.
pub(super) fn unequal_latencies(m: &Machine, weight_s: f64) -> Walk {
    walk(m, weight_s, MAX_WALK)
}

/// [`unequal_latencies`], visiting at most `budget` route links.
fn walk(m: &Machine, weight_s: f64, budget: u64) -> Walk {
    // Routed hop by hop, a route's latency is its links' sum.
    if weight_s == 0.0 && !m.has_pair_routes() && m.links().iter().all(|l| l.latency == Time::ZERO)
    {
        return Walk::Equal;
    }
    let n = m.nodes();
    let mut visited = 0u64;
    // Per link: the first route met on it and that route's penalty.
    let mut first: Vec<Option<(RouteLat, f64)>> = vec![None; m.links().len()];
    let mut route = Vec::new();
    for s in 0..n {
        for d in 0..n {
            route.clear();
            let (lat, _) = m.pair_route_into(NodeId(s), NodeId(d), &mut route);
            visited += route.len() as u64;
            if visited > budget {
                return Walk::TooLarge;
            }
            let penalty = penalty(m, lat, &route, weight_s);
            for &l in &route {
                if m.link(l).bandwidth.as_bytes_per_sec() >= NIC_RATE {
                    continue;
                }
                let r = m
                    .shared
                    .as_ref()
                    .map_or(l, |sh| LinkId(sh.resource[l.index()]));
                match first[r.index()] {
                    None => first[r.index()] = Some(((s, d, lat), penalty)),
                    Some((a, p)) if p != penalty => {
                        return Walk::Unequal(Unequal {
                            routes: [a, (s, d, lat)],
                        });
                    }
                    Some(_) => {}
                }
            }
        }
    }
    Walk::Equal
}

/// CM02's sharing penalty of a route, in seconds: its latency, plus
/// `weight_s` over the bandwidth of each of its links that SimGrid has
/// (not netsim's [`NIC_RATE`] stand-ins). Under CM02 (`weight_s` 0)
/// two routes' penalties are equal exactly when their latencies are.
fn penalty(m: &Machine, lat: Time, route: &[LinkId], weight_s: f64) -> f64 {
    let mut p = lat.as_ps() as f64 * 1e-12;
    if weight_s > 0.0 {
        for &l in route {
            let bw = m.link(l).bandwidth.as_bytes_per_sec();
            if bw < NIC_RATE {
                p += weight_s / bw as f64;
            }
        }
    }
    p
}

impl super::Cx<'_, '_> {
    /// Marks the platform for CM02 sharing (`crate::cm02`) if some link
    /// of `m` carries routes of different penalties
    /// ([`unequal_latencies`]), or the walk could not tell.
    pub(super) fn mark_unequal_latencies(&self, m: &Machine) {
        if unequal_latencies(m, self.weight_s.get()) != Walk::Equal {
            self.unequal.set(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::tests::import;

    /// Hosts `J`, `T`, `F` behind links `1`, `2`, `3`; `T -> F` crosses
    /// `1` in the middle, so the zone is not a star (per-pair routes).
    const TWO_LATENCIES: &str = r#"<zone id="z" routing="Full">
<host id="J" speed="1Gf"/><host id="T" speed="1Gf"/><host id="F" speed="1Gf"/>
<link id="1" bandwidth="1MBps" latency="5ms"/><link id="2" bandwidth="1MBps" latency="5ms"/><link id="3" bandwidth="1MBps" latency="15ms"/>
<route src="J" dst="T"><link_ctn id="1"/><link_ctn id="2"/></route>
<route src="J" dst="F"><link_ctn id="1"/><link_ctn id="3"/></route>
<route src="T" dst="F"><link_ctn id="2"/><link_ctn id="1"/><link_ctn id="3"/></route>
</zone>"#;

    /// Hosts `a`, `b`, `c` on links `la`, `lb`, `lc` of 1 MB/s and 5 ms:
    /// every route 10 ms.
    const STAR: &str = r#"<zone id="z" routing="Full">
<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
<link id="la" bandwidth="1MBps" latency="5ms"/><link id="lb" bandwidth="1MBps" latency="5ms"/><link id="lc" bandwidth="1MBps" latency="5ms"/>
<route src="a" dst="b"><link_ctn id="la"/><link_ctn id="lb"/></route>
<route src="a" dst="c"><link_ctn id="la"/><link_ctn id="lc"/></route>
<route src="b" dst="c"><link_ctn id="lb"/><link_ctn id="lc"/></route>
</zone>"#;

    #[test]
    fn routes_of_10_and_20_ms_through_one_link_share_as_cm02() {
        let p = import(TWO_LATENCIES);
        assert!(p.machine.has_pair_routes());
        let ms = |x: u64| Time::from_ps(x * 1_000_000_000);
        let Walk::Unequal(u) = unequal_latencies(&p.machine, 0.0) else {
            panic!("link 1 carries 10 and 20 ms")
        };
        assert_eq!(u.routes, [(0, 1, ms(10)), (0, 2, ms(20))]);
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        assert!(p.machine.cm02().is_some(), "CM02 sharing");
    }

    #[test]
    fn symmetric_clusters_and_stars_keep_netsims_sharing() {
        let cluster = |extra: &str| {
            import(&format!(
                r#"<cluster id="c" prefix="h" suffix="" radical="0-7" speed="1Gf" bw="1GBps" lat="1us" {extra}/>"#
            ))
        };
        for extra in [
            "",
            "bb_bw=\"10GBps\" bb_lat=\"3us\"",
            "sharing_policy=\"SHARED\"",
        ] {
            let p = cluster(extra);
            assert!(p.machine.cm02().is_none(), "{extra}");
            assert_eq!(unequal_latencies(&p.machine, 0.0), Walk::Equal, "{extra}");
        }
        // A backbone that could limit: per-pair routes, all of 2 us.
        let p = cluster("bb_bw=\"1GBps\"");
        assert!(p.machine.has_pair_routes());
        assert!(p.machine.cm02().is_none());
        // A star of equal links: every route 10 ms.
        let star = STAR;
        assert!(import(star).machine.cm02().is_none());
        // The same star with one slower link: `la` carries a -> b (10 ms)
        // and a -> c (15 ms).
        let p = import(&star.replace(
            r#"id="lc" bandwidth="1MBps" latency="5ms""#,
            r#"id="lc" bandwidth="1MBps" latency="10ms""#,
        ));
        let Walk::Unequal(u) = unequal_latencies(&p.machine, 0.0) else {
            panic!("10 and 15 ms through `la`")
        };
        let ms = |x: u64| Time::from_ps(x * 1_000_000_000);
        assert_eq!(u.routes, [(0, 1, ms(10)), (0, 2, ms(15))]);
        assert!(p.machine.cm02().is_some());
    }

    #[test]
    fn under_smpi_weight_s_makes_routes_of_one_latency_unequal() {
        // Routes of 10 ms each, `lc` ten times slower than the others:
        // penalties 10 ms + 8775 B / 1 MB/s x 2 and + (1 + 10) x 877.5 us.
        let p = import(&STAR.replace(
            r#"id="lc" bandwidth="1MBps""#,
            r#"id="lc" bandwidth="100kBps""#,
        ));
        assert!(p.machine.cm02().is_none());
        assert_eq!(unequal_latencies(&p.machine, 0.0), Walk::Equal);
        assert!(matches!(
            unequal_latencies(&p.machine, 8775.0),
            Walk::Unequal(_)
        ));
    }

    #[test]
    fn a_torus_with_hop_latency_shares_as_cm02_and_one_without_does_not() {
        let torus = |lat: &str| {
            import(&format!(
                r#"<cluster id="t" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="{lat}" topology="TORUS" topo_parameters="4"/>"#
            ))
        };
        // h0 -> h1 is one hop, h0 -> h2 two over the same first link.
        let p = torus("1us");
        let Walk::Unequal(u) = unequal_latencies(&p.machine, 0.0) else {
            panic!("1 and 2 hops")
        };
        assert_eq!(u.routes[0].2, Time::from_ps(1_000_000));
        assert_eq!(u.routes[1].2, Time::from_ps(2_000_000));
        assert!(p.machine.cm02().is_some());
        assert!(torus("0us").machine.cm02().is_none());
    }

    #[test]
    fn a_walk_past_its_budget_stops() {
        // 4 hosts, 12 routes of 3 links at most, all of 2 us.
        let p = import(
            r#"<cluster id="t" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us"/>"#,
        );
        assert_eq!(walk(&p.machine, 0.0, 1000), Walk::Equal);
        assert_eq!(walk(&p.machine, 0.0, 5), Walk::TooLarge);
    }
}
