//! Where SimGrid's CM02 and netsim's flow model may share a link
//! differently: a link crossed by routes of different latencies.
//!
//! CM02 (SimGrid 3.32 `network_cm02.cpp`, `NetworkCm02Model::communicate`)
//! gives each flow a sharing penalty equal to its route's latency (plus
//! `network/weight-S` / bandwidth per link: 0 under CM02, 8775 B under
//! `network/model` `SMPI`; the `<config>` reader refuses other values),
//! and max-min shares a saturated link in
//! inverse proportion to the penalties; the flow also pays its latency
//! before its bytes join the sharing. netsim's flow model shares equally
//! and pays the latency after the bytes. When every link carries routes
//! of one latency, every group of flows that share links has one latency,
//! the two models' schedules differ by that shift only and the answers are
//! equal; otherwise they can differ, and the import says so in
//! [`super::Platform::notes`]. Computed once at import, over every ordered
//! pair of hosts (including a host to itself when the machine routes it),
//! stopping at the first such link, or after as many route links as a pair
//! table may hold (the note then says it did not check): deterministic,
//! bounded, no cost during a run.

use super::NIC_RATE;
use crate::machine::Machine;
use crate::transport::{LinkId, NodeId};
use sim_core::Time;

/// A link crossed by two routes of different latencies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Unequal {
    /// The link (the lowest link of its capacity group).
    pub link: LinkId,
    /// Two routes crossing it, as (source, destination, latency), in
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
                            link: r,
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

impl Unequal {
    /// The report's line; `link` names the link as the file does.
    pub(super) fn note(&self, m: &Machine, link: &str) -> String {
        let host = |h: u32| &m.vertices()[h as usize].name;
        let [(s1, d1, l1), (s2, d2, l2)] = self.routes;
        format!(
            "{WHAT}, e.g. {link} (routes `{}` -> `{}`: {l1}, `{}` -> `{}`: {l2}); {SEE}",
            host(s1),
            host(d1),
            host(s2),
            host(d2)
        )
    }
}

/// The note when the walk stopped at [`MAX_WALK`].
fn too_large(m: &Machine) -> String {
    format!(
        "{WHAT}; netsim did not check whether any link of these {} hosts' routes does (their routes hold more than {MAX_WALK} links); {SEE}",
        m.nodes()
    )
}

/// The note's first half.
const WHAT: &str = "SimGrid's CM02 shares a saturated link among its flows in inverse proportion to their route latencies and has a flow pay its latency before its bytes; netsim's flow model shares equally and pays the latency after the bytes, so the answers can differ where flows of different route latencies share a link";
/// The note's last words.
const SEE: &str = "see docs/PEERS.md, \"Known difference: CM02's latency-weighted sharing\"";

/// A machine link named by its ends, for imports whose links are not
/// one SimGrid link each.
pub(super) fn by_ends(m: &Machine, l: LinkId) -> String {
    let k = m.link(l);
    let v = m.vertices();
    format!(
        "the link `{}` -> `{}`",
        v[k.from as usize].name, v[k.to as usize].name
    )
}

impl super::Cx<'_, '_> {
    /// Notes, at `n`, the first link of `m` whose routes have different
    /// latencies ([`unequal_latencies`]); `name` names a link of `m`.
    pub(super) fn note_unequal_latencies(
        &self,
        n: roxmltree::Node,
        m: &Machine,
        name: impl Fn(LinkId) -> String,
    ) {
        let weight_s = self.weight_s.get();
        let smpi = if weight_s > 0.0 {
            format!(
                " (under `network/model` `SMPI` a route's penalty also adds `network/weight-S`, {weight_s} B, over each link's bandwidth)"
            )
        } else {
            String::new()
        };
        match unequal_latencies(m, weight_s) {
            Walk::Equal => {}
            Walk::Unequal(u) => self.note(n, u.note(m, &name(u.link)) + &smpi),
            Walk::TooLarge => self.note(n, too_large(m) + &smpi),
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
    fn routes_of_10_and_20_ms_through_one_link_are_noted() {
        let p = import(TWO_LATENCIES);
        assert!(p.machine.has_pair_routes());
        let ms = |x: u64| Time::from_ps(x * 1_000_000_000);
        let Walk::Unequal(u) = unequal_latencies(&p.machine, 0.0) else {
            panic!("link 1 carries 10 and 20 ms")
        };
        assert_eq!(u.routes, [(0, 1, ms(10)), (0, 2, ms(20))]);
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert_eq!(
            p.notes[0],
            "p.xml:4: SimGrid's CM02 shares a saturated link among its flows in inverse proportion to their route latencies and has a flow pay its latency before its bytes; netsim's flow model shares equally and pays the latency after the bytes, so the answers can differ where flows of different route latencies share a link, e.g. link `1` (routes `J` -> `T`: 10.000 ms, `J` -> `F`: 20.000 ms); see docs/PEERS.md, \"Known difference: CM02's latency-weighted sharing\""
        );
    }

    #[test]
    fn symmetric_clusters_and_stars_are_not_noted() {
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
            assert!(p.notes.is_empty(), "{extra}: {:?}", p.notes);
            assert_eq!(unequal_latencies(&p.machine, 0.0), Walk::Equal, "{extra}");
        }
        // A backbone that could limit: per-pair routes, all of 2 us.
        let p = cluster("bb_bw=\"1GBps\"");
        assert!(p.machine.has_pair_routes());
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        // A star of equal links: every route 10 ms.
        let star = STAR;
        assert!(import(star).notes.is_empty());
        // The same star with one slower link: `la` carries a -> b (10 ms)
        // and a -> c (15 ms).
        let p = import(&star.replace(
            r#"id="lc" bandwidth="1MBps" latency="5ms""#,
            r#"id="lc" bandwidth="1MBps" latency="10ms""#,
        ));
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert!(
            p.notes[0].contains("e.g. the link `a` -> `switch` (routes `a` -> `b`: 10.000 ms, `a` -> `c`: 15.000 ms)"),
            "{:?}",
            p.notes
        );
    }

    #[test]
    fn under_smpi_weight_s_makes_routes_of_one_latency_unequal() {
        // Routes of 10 ms each, `lc` ten times slower than the others:
        // penalties 10 ms + 8775 B / 1 MB/s x 2 and + (1 + 10) x 877.5 us.
        let p = import(&STAR.replace(
            r#"id="lc" bandwidth="1MBps""#,
            r#"id="lc" bandwidth="100kBps""#,
        ));
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        assert_eq!(unequal_latencies(&p.machine, 0.0), Walk::Equal);
        assert!(matches!(
            unequal_latencies(&p.machine, 8775.0),
            Walk::Unequal(_)
        ));
    }

    #[test]
    fn a_torus_with_hop_latency_is_noted_and_one_without_is_not() {
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
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert!(torus("0us").notes.is_empty());
    }

    #[test]
    fn a_walk_past_its_budget_says_it_did_not_check() {
        // 4 hosts, 12 routes of 3 links at most, all of 2 us.
        let p = import(
            r#"<cluster id="t" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us"/>"#,
        );
        assert_eq!(walk(&p.machine, 0.0, 1000), Walk::Equal);
        assert_eq!(walk(&p.machine, 0.0, 5), Walk::TooLarge);
        let note = too_large(&p.machine);
        assert!(
            note.contains("netsim did not check whether any link of these 4 hosts' routes does"),
            "{note}"
        );
        assert!(note.ends_with(SEE), "{note}");
    }
}
