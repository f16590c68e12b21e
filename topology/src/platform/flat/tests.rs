//! Per-pair routes: each construct with times derived by hand (flow
//! model, no TCP window: `latency sum + bytes / max-min rate`).

use crate::platform::tests::{error, flow_times, import};
use crate::transport::NodeId;
use sim_core::Time;

fn us(x: u64) -> Time {
    Time::from_ps(x * 1_000_000)
}

#[test]
fn a_cluster_backbone_is_one_capacity_for_every_route() {
    // 0 -> 1 and 2 -> 3 both cross the 1 GB/s backbone: 0.5 GB/s each,
    // 1e6 B in 2 ms, after 1 us up and 1 us down.
    let c = |bb: &str| {
        import(&format!(
            r#"<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" bb_bw="{bb}"/>"#
        ))
    };
    let t = flow_times(c("1GBps"), &[(0, 1, 1_000_000), (2, 3, 1_000_000)]);
    assert_eq!(t, vec![us(2002); 2]);
    // Alone, the host links are the bound: 1 ms.
    assert_eq!(flow_times(c("1GBps"), &[(0, 1, 1_000_000)]), vec![us(1002)]);
    // The same with a limiter of 0.25 GB/s per host: 4 ms.
    let p = import(
        r#"<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" limiter_link="250MBps"/>"#,
    );
    assert_eq!(flow_times(p, &[(0, 1, 1_000_000)]), vec![us(4002)]);
}

const FULL: &str = r#"<zone id="w" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
<link id="l1" bandwidth="1GBps" latency="1us"/><link id="l2" bandwidth="1GBps" latency="1us"/><link id="l3" bandwidth="2GBps" latency="2us"/>
<route src="a" dst="b"><link_ctn id="l1"/><link_ctn id="l2"/></route>
<route src="a" dst="c"><link_ctn id="l3"/><link_ctn id="l2"/></route>
<route src="b" dst="c"><link_ctn id="l3"/></route></zone>"#;

#[test]
fn full_routes_that_are_not_a_star_share_their_common_links() {
    // a -> b is l1, l2; c -> a is l2, l3: the SHARED l2 is one capacity
    // for both directions. Routes of 2 and 3 us through it: CM02's
    // sharing. a -> b pays 2 us, then sends alone at 1 GB/s until c -> a
    // has paid its 3 us (1000 B); then l2 is shared 3:2 by the penalties
    // 2 and 3 us: 0.6 and 0.4 GB/s. a -> b's last 999 000 B take
    // 1665 us (done at 1668 us); c -> a has sent 666 000 B by then and
    // its last 334 000 B take 334 us at 1 GB/s (2002 us).
    let t = flow_times(import(FULL), &[(0, 1, 1_000_000), (2, 0, 1_000_000)]);
    assert_eq!(t, vec![us(1668), us(2002)]);
    // b -> c alone on l3 at 2 GB/s.
    assert_eq!(
        flow_times(import(FULL), &[(1, 2, 1_000_000)]),
        vec![us(502)]
    );
    // The packet model refuses it, naming it, and says to use flow mode.
    let cfg = crate::NetConfig {
        mode: crate::Mode::Packet,
        ..Default::default()
    };
    let e = crate::PacketNet::new(import(FULL).machine, cfg)
        .unwrap_err()
        .to_string();
    assert!(e.contains("p.xml:4") && e.contains("use flow mode"), "{e}");
}

#[test]
fn a_fatpipe_link_bounds_each_flow_and_is_shared_by_none() {
    let z = |policy: &str| {
        import(&format!(
            r#"<zone id="w" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
<link id="f" bandwidth="1GBps" latency="5us" sharing_policy="{policy}"/>
<route src="a" dst="b"><link_ctn id="f"/></route><route src="a" dst="c"><link_ctn id="f"/></route>
<route src="b" dst="c"><link_ctn id="f"/></route></zone>"#
        ))
    };
    let two = [(0, 1, 1_000_000), (0, 2, 1_000_000)];
    assert_eq!(flow_times(z("FATPIPE"), &two), vec![us(1005); 2]);
    assert_eq!(flow_times(z("SHARED"), &two), vec![us(2005); 2]);
}

#[test]
fn floyd_and_dijkstra_take_the_route_of_fewest_links_through_routers() {
    // a -> r1 -> r2 -> b is 3 links; a -> r2 -> b is 2 (lx, 100 us).
    // Both ways at once on SHARED links: 0.5 GB/s each, 2 ms.
    for routing in ["Floyd", "Dijkstra"] {
        let p = import(&format!(
            r#"<zone id="w" routing="{routing}"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><router id="r1"/><router id="r2"/>
<link id="l1" bandwidth="1GBps" latency="1us"/><link id="l2" bandwidth="1GBps" latency="1us"/><link id="l3" bandwidth="1GBps" latency="1us"/>
<link id="lx" bandwidth="1GBps" latency="100us"/>
<route src="a" dst="r1"><link_ctn id="l1"/></route><route src="r1" dst="r2"><link_ctn id="l2"/></route>
<route src="r2" dst="b"><link_ctn id="l3"/></route><route src="a" dst="r2"><link_ctn id="lx"/></route></zone>"#
        ));
        assert_eq!(
            flow_times(p, &[(0, 1, 1_000_000), (1, 0, 1_000_000)]),
            vec![us(2101); 2],
            "{routing}"
        );
    }
}

const NESTED: &str = r#"<zone id="root" routing="Full">
<zone id="A" routing="Full"><host id="a1" speed="1Gf"/><host id="a2" speed="1Gf"/><router id="ga"/>
<link id="la1" bandwidth="1GBps" latency="1us"/><link id="la2" bandwidth="1GBps" latency="1us"/><link id="lx" bandwidth="1GBps" latency="50us"/>
<route src="a1" dst="ga"><link_ctn id="la1"/></route><route src="a2" dst="ga"><link_ctn id="la2"/></route>
<route src="a1" dst="a2"><link_ctn id="la1"/><link_ctn id="la2"/></route>
<bypassRoute src="a1" dst="a2"><link_ctn id="lx"/></bypassRoute></zone>
<cluster id="B" prefix="b" suffix="" radical="1-2" speed="1Gf" bw="1GBps" lat="2us" bb_bw="1GBps" bb_lat="3us"/>
<link id="bb" bandwidth="500MBps" latency="10us"/>
<zoneRoute src="A" dst="B" gw_src="ga" gw_dst="bB_router"><link_ctn id="bb"/></zoneRoute>
</zone>"#;

#[test]
fn zones_are_joined_by_their_gateways_and_bypassed_where_declared() {
    // a1 -> b1: la1 (1 us), bb (10 us, 0.5 GB/s), the cluster's
    // backbone (3 us) and b1's link (2 us): 16 us + 2 ms.
    let p = import(NESTED);
    assert_eq!(p.machine.nodes(), 4);
    assert_eq!(flow_times(p, &[(0, 2, 1_000_000)]), vec![us(2016)]);
    // b2 -> a2 goes back the same way (symmetrical): 16 us + 2 ms.
    assert_eq!(
        flow_times(import(NESTED), &[(3, 1, 1_000_000)]),
        vec![us(2016)]
    );
    // a1 -> a2 takes the bypass (50 us), a2 -> a1 the route (2 us).
    let t = flow_times(import(NESTED), &[(0, 1, 1_000_000)]);
    assert_eq!(t, vec![us(1050)]);
    let t = flow_times(import(NESTED), &[(1, 0, 1_000_000)]);
    assert_eq!(t, vec![us(1002)]);
}

#[test]
fn a_cluster_zone_routes_through_its_host_links_and_backbone() {
    let p = import(
        r#"<zone id="z" routing="Cluster"><router id="r"/>
<host id="h1" speed="1Gf"/><link id="l1" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/><host_link id="h1" up="l1_UP" down="l1_DOWN"/>
<host id="h2" speed="1Gf"/><link id="l2" bandwidth="1GBps" latency="2us"/><host_link id="h2" up="l2" down="l2"/>
<cabinet id="k" prefix="c" suffix="" radical="1-1" speed="1Gf" bw="250MBps" lat="4us"/>
<backbone id="bb" bandwidth="2GBps" latency="8us"/></zone>"#,
    );
    // Nodes: h1, h2, then the cabinet's c1 (made when the zone closes).
    assert_eq!(p.machine.vertices()[2].name, "c1");
    // h1 -> h2 and h2 -> h1 at once: h2's SHARED link is one capacity,
    // 0.5 GB/s each; 1 + 8 + 2 us.
    let t = flow_times(p.clone(), &[(0, 1, 1_000_000), (1, 0, 1_000_000)]);
    assert_eq!(t, vec![us(2011); 2]);
    // h1 -> c1: the cabinet's 0.25 GB/s DOWN link; 1 + 8 + 4 us.
    assert_eq!(flow_times(p, &[(0, 2, 1_000_000)]), vec![us(4013)]);
}

#[test]
fn hosts_without_a_route_are_refused_only_when_a_run_uses_them() {
    let p = import(
        r#"<zone id="z" routing="Full"><zone id="x" routing="None"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/></zone>
<zone id="y" routing="Full"><host id="c" speed="1Gf"/><host id="d" speed="1Gf"/><link id="l" bandwidth="1GBps"/>
<route src="c" dst="d"><link_ctn id="l"/></route></zone></zone>"#,
    );
    let m = &p.machine;
    assert_eq!(m.unrouted(&[NodeId(2), NodeId(3)]), None);
    assert_eq!(
        m.unrouted(&[NodeId(0), NodeId(1)]),
        Some((NodeId(0), NodeId(1)))
    );
    assert_eq!(
        m.unrouted(&[NodeId(2), NodeId(0)]),
        Some((NodeId(0), NodeId(2)))
    );
    // A gateway that is not there is an error at its line.
    let e = error(
        r#"<zone id="z" routing="Full"><zone id="x" routing="Full"><host id="a" speed="1Gf"/></zone>
<zone id="y" routing="Full"><host id="c" speed="1Gf"/></zone><link id="l" bandwidth="1GBps"/>
<zoneRoute src="x" dst="y" gw_src="a" gw_dst="nowhere"><link_ctn id="l"/></zoneRoute></zone>"#,
    );
    assert!(e.starts_with("p.xml:6:") && e.contains("nowhere"), "{e}");
}

#[test]
fn vivaldi_latency_is_the_distance_between_coordinates() {
    // |(0,0) - (3,4)| + |1| + |2| = 8 ms; the peers' links 1 GB/s.
    let p = import(
        r#"<zone id="v" routing="Vivaldi">
<peer id="a" coordinates="0 0 1" speed="1Gf" bw_in="1GBps" bw_out="1GBps"/>
<peer id="b" coordinates="3 4 2" speed="1Gf" bw_in="1GBps" bw_out="1GBps"/></zone>"#,
    );
    assert_eq!(flow_times(p, &[(0, 1, 1_000_000)]), vec![us(9000)]);
    // Hosts without links: nothing bounds the flow but the source's own
    // cable (1e15 B/s: 1 ns for 1e6 B), not even a TCP window.
    let p = import(
        r#"<zone id="v" routing="Vivaldi"><host id="a" coordinates="0 0 1" speed="1Gf"/>
<host id="b" coordinates="3 4 2" speed="1Gf"/></zone>"#,
    );
    assert_eq!(
        flow_times(p, &[(0, 1, 1_000_000)]),
        vec![us(8000) + Time::from_ps(1000)]
    );
    // No coordinates: no route.
    let p = import(
        r#"<zone id="v" routing="Vivaldi"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/></zone>"#,
    );
    assert!(p.machine.unrouted(&[NodeId(0), NodeId(1)]).is_some());
}

#[test]
fn a_dragonfly_routes_as_simgrids_minimal_routing() {
    // 2 groups of 1 chassis of 2 blades of 1 node: hosts (group, blade)
    // 0 = (0, 0), 1 = (0, 1), 2 = (1, 0), 3 = (1, 1); every link 1 GB/s,
    // 1 us. 0 -> 1: local, green, local (3 us); 0 -> 3: local, green to
    // the blade linked to group 1, blue, green, local (5 us). SimGrid
    // 3.32 gives 1.003016 and 1.005016 ms with its 16-byte envelope.
    let d = |extra: &str| {
        import(&format!(
            r#"<cluster id="d" topology="DRAGONFLY" topo_parameters="2,1;1,1;2,1;1" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us"{extra}/>"#
        ))
    };
    assert_eq!(flow_times(d(""), &[(0, 1, 1_000_000)]), vec![us(1003)]);
    assert_eq!(flow_times(d(""), &[(0, 3, 1_000_000)]), vec![us(1005)]);
    // Limiters of 0.5 GB/s on hosts and routers: 2 ms.
    let t = flow_times(d(r#" limiter_link="500MBps""#), &[(0, 3, 1_000_000)]);
    assert_eq!(t, vec![us(2005)]);
    // Both ways at once through one router's limiter: 0.25 GB/s each.
    let t = flow_times(
        d(r#" limiter_link="500MBps""#),
        &[(0, 1, 1_000_000), (1, 0, 1_000_000)],
    );
    assert_eq!(t, vec![us(4003); 2]);
}

/// The flattening's errors, whole: the texts the importer printed as
/// strings before they were typed.
#[test]
fn flat_errors_read_as_before() {
    use super::FlatError as E;
    let s = |x: &str| x.to_string();
    let cases = [
        (
            E::NameTwice(s("h")),
            "`h` is declared twice (hosts, routers and zones share one name space)",
        ),
        (E::LinkTwice(s("l")), "link `l` is declared twice"),
        (E::RootZone, "a route from or to the root zone itself"),
        (
            E::NoRoute {
                zone: s("z"),
                kind: "Floyd",
                line: 3,
                src: s("a"),
                dst: s("b"),
            },
            "zone `z` (Floyd routing, line 3) has no route from `a` to `b`",
        ),
        (
            E::NoGateways {
                zone: s("z"),
                from: s("x"),
                to: s("y"),
            },
            "zone `z` has no gateways from `x` to `y` (a <zoneRoute> with gw_src and gw_dst)",
        ),
        (
            E::FloydTooLarge(600),
            "<zone routing=\"Floyd\">: 600 hosts, routers and zones, above netsim's 512 for Floyd's n^3 tables; use Dijkstra",
        ),
        (
            E::RouteTooLong {
                src: s("a"),
                dst: s("b"),
                latency: Time::from_ps(7),
            },
            &format!(
                "the route from `a` to `b` has a latency of {}, above netsim's MAX_DURATION",
                Time::from_ps(7)
            ),
        ),
    ];
    for (e, text) in cases {
        assert_eq!(e.to_string(), text);
    }
    assert!(
        E::NoRoute {
            zone: s("z"),
            kind: "Full",
            line: 1,
            src: s("a"),
            dst: s("b")
        }
        .is_unrouted()
    );
    assert!(!E::RootZone.is_unrouted());
}
