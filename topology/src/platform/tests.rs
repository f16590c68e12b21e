//! Structure tests of the import: what each element becomes.

use super::*;
use crate::TieRule;
use crate::transport::NodeId;

fn xml(body: &str) -> String {
    format!(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n{body}\n</platform>\n"
    )
}

pub(super) fn import(body: &str) -> Platform {
    parse("p.xml", &xml(body)).unwrap_or_else(|e| panic!("{e}"))
}

pub(super) fn error(body: &str) -> String {
    let e = parse("p.xml", &xml(body)).unwrap_err().to_string();
    assert!(e.starts_with("p.xml:"), "{e}");
    e
}

#[test]
fn flat_cluster_is_a_star_with_the_backbone_latency_split() {
    let p = import(
        r#"<cluster id="c" prefix="h" suffix=".x" radical="0-3" speed="2Gf" core="4"
             bw="125MBps" lat="50us" bb_bw="2.25GBps" bb_lat="501us"/>"#,
    );
    let m = &p.machine;
    assert_eq!(p.host_speed, Some(2e9));
    assert_eq!(m.nodes(), 4);
    assert_eq!(m.vertices()[2].name, "h2.x");
    assert_eq!(m.host_shape(NodeId(0)), (1, 4));
    // Route h0 -> h3: up h0's cable, down h3's: 2 links.
    let r = m.route(NodeId(0), NodeId(3));
    assert_eq!(r.len(), 2);
    let lat: u64 = r.iter().map(|&l| m.link(l).latency.as_ps()).sum();
    // 50 us + 501 us (backbone) + 50 us, the odd picosecond up.
    assert_eq!(lat, 601_000_000);
    assert_eq!(m.link(r[0]).latency.as_ps(), 50_000_000 + 250_500_000);
    for &l in &r {
        assert_eq!(m.link(l).bandwidth.as_bytes_per_sec(), 125_000_000);
    }
}

#[test]
fn torus_cluster_is_netsims_torus_with_simgrids_tie() {
    let p = import(
        r#"<zone id="z" routing="Full"><cluster id="t" prefix="n" suffix="" radical="0-15"
             speed="1Gf" bw="1GBps" lat="1us" topology="TORUS" topo_parameters="4,2,2"/></zone>"#,
    );
    let m = &p.machine;
    let g = m.torus().unwrap();
    assert_eq!(g.dims(), [4, 2, 2]);
    assert_eq!(g.tie(), TieRule::Simgrid);
    // Hop counts: x offset 2 (a tie) and y, z offsets 1: 4 router hops.
    assert_eq!(m.hops(NodeId(0), NodeId(2 + 4 + 8)), 4);
    // The route: the host's cable, 4 torus links, the ejection cable;
    // latency 4 x 1 us.
    let r = m.route(NodeId(0), NodeId(14));
    assert_eq!(r.len(), 6);
    let lat: u64 = r.iter().map(|&l| m.link(l).latency.as_ps()).sum();
    assert_eq!(lat, 4_000_000);
    // From x = 2 the tie goes -x (SimGrid): 2 -> 0 through router 1.
    let r = m.route(NodeId(2), NodeId(0));
    assert_eq!(m.link(r[1]).to - m.nodes(), 1);
    // From x = 0 it goes +x: 0 -> 2 through router 1 as well.
    let r = m.route(NodeId(0), NodeId(2));
    assert_eq!(m.link(r[1]).to - m.nodes(), 1);
}

#[test]
fn fat_tree_cluster_levels_and_route_lengths() {
    // SimGrid's example: 2 levels, 4 children per switch at both levels,
    // 1 then 2 parents, 1 then 2 parallel links: 16 hosts, 4 leaf
    // switches, 2 top switches.
    let p = import(
        r#"<cluster id="ft" prefix="h" suffix="" radical="0-15" speed="1Gf" bw="125MBps"
             lat="10us" topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2"/>"#,
    );
    let m = &p.machine;
    assert_eq!(m.nodes(), 16);
    assert_eq!(m.vertices().len(), 16 + 4 + 2);
    // Same leaf (hosts 0..3): up and down, 2 links; across leaves: 4.
    assert_eq!(m.route(NodeId(0), NodeId(3)).len(), 2);
    assert_eq!(m.route(NodeId(0), NodeId(4)).len(), 4);
    assert_eq!(m.route(NodeId(0), NodeId(15)).len(), 4);
    // 16 host cables + 4 leaves x 2 parents.
    assert_eq!(m.links().len(), 2 * (16 + 8));
    // Two parallel links between a leaf and a top switch: one cable of
    // twice the rate.
    let r = m.route(NodeId(0), NodeId(15));
    assert_eq!(m.link(r[1]).bandwidth.as_bytes_per_sec(), 250_000_000);
    // A 3-level tree: 4 x 4 x 2 = 32 hosts; farthest route 6 links.
    let p = import(
        r#"<cluster id="ft" prefix="h" suffix="" radical="0-31" speed="1Gf" bw="1GBps"
             lat="1us" topology="FAT_TREE" topo_parameters="3;4,4,2;1,2,2;1,1,1"/>"#,
    );
    assert_eq!(p.machine.route(NodeId(0), NodeId(31)).len(), 6);
    assert_eq!(p.machine.route(NodeId(0), NodeId(5)).len(), 4);
}

#[test]
fn full_zone_is_a_star_of_the_routes_ends() {
    let p = import(
        r#"<zone id="w" routing="Full">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
  <link id="la" bandwidth="125MBps" latency="10us" sharing_policy="SPLITDUPLEX"/>
  <link id="lb" bandwidth="100MBps" latency="20us" sharing_policy="SPLITDUPLEX"/>
  <link id="lc" bandwidth="125MBps" latency="30us" sharing_policy="SPLITDUPLEX"/>
  <link id="bb" bandwidth="10GBps" latency="5us"/>
  <route src="a" dst="b"><link_ctn id="la" direction="UP"/><link_ctn id="bb"/><link_ctn id="lb" direction="DOWN"/></route>
  <route src="a" dst="c"><link_ctn id="la" direction="UP"/><link_ctn id="bb"/><link_ctn id="lc" direction="DOWN"/></route>
  <route src="b" dst="c"><link_ctn id="lb" direction="UP"/><link_ctn id="bb"/><link_ctn id="lc" direction="DOWN"/></route>
</zone>"#,
    );
    let m = &p.machine;
    let lat = |a: u32, b: u32| -> u64 {
        m.route(NodeId(a), NodeId(b))
            .iter()
            .map(|&l| m.link(l).latency.as_ps())
            .sum()
    };
    // Every route's latency is SimGrid's: the sum of its links.
    assert_eq!(lat(0, 1), 35_000_000);
    assert_eq!(lat(1, 0), 35_000_000);
    assert_eq!(lat(0, 2), 45_000_000);
    assert_eq!(lat(1, 2), 55_000_000);
    let r = m.route(NodeId(0), NodeId(1));
    assert_eq!(m.link(r[1]).bandwidth.as_bytes_per_sec(), 100_000_000);
    // Two hosts and one link: the link's latency over the two cables.
    let p = import(
        r#"<zone id="w" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <link id="l" bandwidth="1GBps" latency="5ps" sharing_policy="SPLITDUPLEX"/>
  <route src="a" dst="b"><link_ctn id="l" direction="UP"/></route></zone>"#,
    );
    let m = &p.machine;
    for (a, b) in [(0, 1), (1, 0)] {
        let r = m.route(NodeId(a), NodeId(b));
        let l: u64 = r.iter().map(|&l| m.link(l).latency.as_ps()).sum();
        assert_eq!(l, 5);
    }
}

#[test]
fn floyd_zone_is_a_graph_of_one_link_routes() {
    let p = import(
        r#"<zone id="w" routing="Floyd">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
  <router id="r1"/><router id="r2"/>
  <link id="l1" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/><link id="l2" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
  <link id="l3" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/><link id="l4" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
  <route src="a" dst="r1"><link_ctn id="l1" direction="UP"/></route>
  <route src="b" dst="r1"><link_ctn id="l2" direction="UP"/></route>
  <route src="r1" dst="r2"><link_ctn id="l3" direction="UP"/></route>
  <route src="c" dst="r2"><link_ctn id="l4" direction="UP"/></route>
</zone>"#,
    );
    let m = &p.machine;
    assert_eq!(m.route(NodeId(0), NodeId(1)).len(), 2);
    assert_eq!(m.route(NodeId(0), NodeId(2)).len(), 3);
}

#[test]
fn what_does_not_map_is_an_error_at_its_line() {
    // Not XML.
    assert!(error("<cluster").contains("not well-formed XML"));
    // Unsupported elements and topologies name themselves and the line.
    let e = error(
        "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"1Gf\"/>\n<zoneRoute src=\"a\" dst=\"b\"/></zone>",
    );
    assert!(e.starts_with("p.xml:7: <zoneRoute>"), "{e}");
    let e = error(
        r#"<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" topology="BOGUS"/>"#,
    );
    assert!(e.contains("FLAT, TORUS, FAT_TREE and DRAGONFLY"), "{e}");
    // Units.
    let e = error(
        r#"<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="100GB" lat="1us"/>"#,
    );
    assert!(
        e.contains("<cluster bw>: bandwidth `100GB`: expected a number and a unit"),
        "{e}"
    );
    // A host with two interfaces in a fat tree.
    let e = error(
        r#"<cluster id="c" prefix="h" suffix="" radical="0-15" speed="1Gf" bw="1GBps" lat="1us" topology="FAT_TREE" topo_parameters="2;4,4;2,2;1,2"/>"#,
    );
    assert!(e.contains("one network interface"), "{e}");
    // Radical and torus size disagree.
    let e = error(
        r#"<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" topology="TORUS" topo_parameters="3,3"/>"#,
    );
    assert!(e.contains("9 nodes"), "{e}");
    // A route crossing one link twice (SimGrid would count it twice).
    let e = error(
        r#"<zone id="w" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
<link id="l1" bandwidth="1GBps"/><link id="l2" bandwidth="1GBps"/>
<route src="a" dst="b"><link_ctn id="l1"/><link_ctn id="l2"/><link_ctn id="l1"/></route></zone>"#,
    );
    assert!(e.contains("crosses link `l1` twice"), "{e}");
    // Version.
    let e = parse("p.xml", "<platform version=\"3\"></platform>").unwrap_err();
    assert!(e.to_string().contains("simgrid_update_xml"), "{e}");
    // A huge fat tree is refused before anything is built.
    let e = error(
        r#"<cluster id="c" prefix="h" suffix="" radical="0-15" speed="1Gf" bw="1GBps" lat="1us" topology="FAT_TREE" topo_parameters="8;1,1,1,1,1,1,1,16;1,65536,65536,65536,65536,65536,65536,65536;1,1,1,1,1,1,1,1"/>"#,
    );
    assert!(e.contains("MAX_ROUTERS"), "{e}");
}

/// Host `h`'s route to itself: (links, latency, FATPIPE bound).
fn own_route(p: &Platform, h: u32) -> (Vec<crate::transport::LinkId>, Time, Option<Bandwidth>) {
    let mut links = Vec::new();
    let (lat, cap) = p.machine.pair_route_into(NodeId(h), NodeId(h), &mut links);
    (links, lat, cap)
}

/// Every host's route to itself is SimGrid 3.32's: in a Full, Floyd or
/// Dijkstra zone without zones inside, the network model's `__loopback__`
/// (10 GB/s, no latency, bounding each flow alone) unless the zone routes
/// the host to itself (`FullZone::do_seal`); in a flat cluster, its
/// `loopback_bw`/`loopback_lat` link or else up and down its own cable
/// (`StarZone::get_local_route`); a platform of one host (SimGrid's
/// multicore_machine.xml) has it too. A zone holding zones gives its
/// hosts none (`RoutingMode::recursive`), so the machine has no loopback.
#[test]
fn a_hosts_route_to_itself_is_simgrids_loopback() {
    let lo = (
        Vec::new(),
        Time::ZERO,
        Some(Bandwidth::bytes_per_sec(SIMGRID_LOOPBACK_BW)),
    );
    let one = import(
        r#"<zone id="AS0" routing="Full"><host id="Tremblay" speed="98.095Mf" core="6"/></zone>"#,
    );
    assert_eq!(one.machine.nodes(), 1);
    assert_eq!(own_route(&one, 0), lo);
    let full = r#"<zone id="z" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><link id="l" bandwidth="1GBps" latency="1us"/><link id="lo" bandwidth="498MBps" latency="15us" sharing_policy="FATPIPE"/><route src="a" dst="b"><link_ctn id="l"/></route>@</zone>"#;
    let star = import(&full.replace('@', ""));
    assert!(star.machine.has_loopback() && !star.machine.has_pair_routes());
    assert_eq!(own_route(&star, 1), lo);
    // small_platform.xml's own FATPIPE loopback on `a`; `b` keeps SimGrid's.
    let own = import(&full.replace('@', r#"<route src="a" dst="a"><link_ctn id="lo"/></route>"#));
    let fat = Some(Bandwidth::bytes_per_sec(498_000_000));
    assert_eq!(
        own_route(&own, 0),
        (Vec::new(), Time::from_ps(15_000_000), fat)
    );
    assert_eq!(own_route(&own, 1), lo);
    // A route to itself over a shared link: per-pair routes, that link.
    let shared = import(&full.replace('@', r#"<route src="a" dst="a"><link_ctn id="l"/></route>"#));
    assert!(shared.machine.has_pair_routes());
    let (links, lat, cap) = own_route(&shared, 0);
    assert_eq!((links.len(), lat, cap), (1, Time::from_ps(1_000_000), None));
    assert_eq!(own_route(&shared, 1), lo);
    let floyd = import(
        r#"<zone id="z" routing="Floyd"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><router id="r"/><link id="l1" bandwidth="1GBps" latency="1us"/><link id="l2" bandwidth="1GBps" latency="1us"/><route src="a" dst="r"><link_ctn id="l1"/></route><route src="b" dst="r"><link_ctn id="l2"/></route></zone>"#,
    );
    assert_eq!(own_route(&floyd, 0), lo);
    let cluster = r#"<cluster id="c" prefix="h" suffix="" radical="0-1" speed="1Gf" bw="125MBps" lat="50us" bb_bw="2.25GBps" bb_lat="500us"@/>"#;
    let up_down = import(&cluster.replace('@', ""));
    let (links, lat, cap) = own_route(&up_down, 1);
    let m = &up_down.machine;
    assert_eq!(
        links,
        vec![m.injection_link(NodeId(1)), m.ejection_link(NodeId(1))]
    );
    assert_eq!((lat, cap), (Time::from_ps(600_000_000), None));
    let with_lo = import(&cluster.replace('@', r#" loopback_bw="1GBps" loopback_lat="3us""#));
    let gb = Some(Bandwidth::bytes_per_sec(1_000_000_000));
    assert_eq!(
        own_route(&with_lo, 0),
        (Vec::new(), Time::from_ps(3_000_000), gb)
    );
    let e = error(&cluster.replace('@', r#" loopback_lat="3us""#));
    assert!(e.contains("loopback_lat> without loopback_bw"), "{e}");
    // Flattened: a cluster's loopback link inside a zone of zones; the
    // outer zone's own host has none (a zone holding zones).
    let nested = import(&format!(
        r#"<zone id="w" routing="Full"><host id="x" speed="1Gf"/>{}<link id="l" bandwidth="1GBps"/><zoneRoute src="x" dst="c" gw_src="x" gw_dst="hc_router"><link_ctn id="l"/></zoneRoute></zone>"#,
        cluster.replace('@', r#" loopback_bw="1GBps" loopback_lat="3us""#)
    ));
    assert!(nested.machine.has_pair_routes() && !nested.machine.has_loopback());
    let flat = import(&format!(
        r#"<zone id="w" routing="Full"><zone id="v" routing="Full"><host id="x" speed="1Gf"/></zone>{}<link id="l" bandwidth="1GBps"/><zoneRoute src="v" dst="c" gw_src="x" gw_dst="hc_router"><link_ctn id="l"/></zoneRoute></zone>"#,
        cluster.replace('@', r#" loopback_bw="1GBps" loopback_lat="3us""#)
    ));
    assert!(flat.machine.has_loopback());
    assert_eq!(own_route(&flat, 0), lo);
    assert_eq!(
        own_route(&flat, 1),
        (Vec::new(), Time::from_ps(3_000_000), gb)
    );
}

/// A small platform in which the element marked `@` is the one under
/// test (see `dtd-3.32.txt`).
fn context(name: &str, element: &str) -> String {
    let cluster = |extra: &str| {
        format!(
            r#"<cluster@ id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us"{extra}/>"#
        )
    };
    let plain = |s: String| s.replace('@', "");
    let zone = |slot: &str| {
        let mark = |s: &str| if s == slot { "@" } else { "" };
        let inner = match slot {
            "inhost" => format!("<{element}@/>"),
            "hprop" => r#"<prop@ id="x" value="y"/>"#.to_string(),
            _ => String::new(),
        };
        let inzone = if slot == "inzone" {
            format!("<{element}@/>")
        } else {
            String::new()
        };
        format!(
            r#"<zone{} id="z" routing="Full">
<host{} id="a" speed="1Gf,2Gf">{inner}</host>
<host{} id="b" speed="1Gf,2Gf"/>
<link{} id="la" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
<link id="lb" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
<route{} src="a" dst="b"><link_ctn{} id="la" direction="UP"/><link_ctn id="lb" direction="DOWN"/></route>
{inzone}</zone>"#,
            mark("zone"),
            if slot == "host" || slot == "hosts" {
                "@"
            } else {
                ""
            },
            mark("hosts"),
            mark("link"),
            mark("route"),
            mark("ctn"),
        )
    };
    let body = match name {
        "platform" | "flat" => cluster(""),
        "flatbb" => cluster(r#" bb_bw="2GBps""#),
        "torus" => cluster(r#" topology="TORUS" topo_parameters="2,2""#),
        "fattree" => cluster(r#" topology="FAT_TREE" topo_parameters="2;2,2;1,2;1,2""#),
        "top" => format!("<{element}@/>{}", plain(cluster(""))),
        "config" => format!(
            r#"<config@><prop id="network/model" value="CM02"/></config>{}"#,
            plain(cluster(""))
        ),
        "cprop" => format!(
            r#"<config><prop@ id="network/TCP-gamma" value="1000"/></config>{}"#,
            plain(cluster(""))
        ),
        "router" => r#"<zone id="z" routing="Floyd"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><router@ id="r"/>
<link id="l1" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/><link id="l2" bandwidth="1GBps" latency="2us" sharing_policy="SPLITDUPLEX"/>
<route src="a" dst="r"><link_ctn id="l1" direction="UP"/></route><route src="b" dst="r"><link_ctn id="l2" direction="UP"/></route></zone>"#
            .to_string(),
        other => zone(other),
    };
    let root = if name == "platform" {
        "<platform@ version=\"4.1\">"
    } else {
        "<platform version=\"4.1\">"
    };
    let body = if name == "platform" {
        plain(body)
    } else {
        body
    };
    format!("<?xml version='1.0'?>\n{root}\n{body}\n</platform>\n")
}

/// `text` with `attr="value"` set on every element marked `@` (replacing
/// the attribute if the element has it), marks removed.
fn with_attr(text: &str, element: &str, attr: &str, value: Option<&str>) -> String {
    let mut out = String::new();
    let mut rest = text;
    let open = format!("<{element}@");
    while let Some(i) = rest.find(&open) {
        let end = i + rest[i..].find('>').unwrap();
        let close = if rest[..end].ends_with('/') {
            end - 1
        } else {
            end
        };
        let mut tag = rest[i + open.len()..close].to_string();
        if let Some(v) = value {
            let key = format!(" {attr}=\"");
            if let Some(a) = tag.find(&key) {
                let b = a + key.len() + tag[a + key.len()..].find('"').unwrap();
                tag.replace_range(a + key.len()..b, v);
            } else {
                tag.push_str(&format!(" {attr}=\"{v}\""));
            }
        }
        out.push_str(&rest[..i]);
        out.push_str(&format!("<{element}{tag}"));
        rest = &rest[close..];
    }
    out.push_str(rest);
    assert!(!out.contains('@'), "context left a mark: {out}");
    out
}

/// What can change a replay's timing: the machine, host speeds and TCP
/// window.
fn timing(p: &Platform) -> String {
    format!("{:?} {:?} {:?}", p.machine, p.host_speeds, p.tcp_window)
}

#[test]
fn every_dtd_attribute_is_modelled_noted_or_refused() {
    let table = include_str!("dtd-3.32.txt");
    let mut pairs = std::collections::BTreeSet::new();
    for (n, line) in table.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() || f[0].starts_with('#') {
            continue;
        }
        let (element, attr, ctx, expect) = (f[0], f[1], f[2], f[3]);
        let at = format!("dtd-3.32.txt:{}: <{element} {attr}> in {ctx}", n + 1);
        pairs.insert((element, attr));
        let text = context(ctx, element);
        assert!(
            text.contains(&format!("<{element}@")),
            "{at}: no {element} in the context"
        );
        let run = |v: Option<&str>| parse("p.xml", &with_attr(&text, element, attr, v));
        let ok = |v: &str| run(Some(v)).unwrap_or_else(|e| panic!("{at} = {v}: {e}"));
        let refused = |v: &str| {
            let e = run(Some(v))
                .map(|_| ())
                .expect_err(&format!("{at} = {v} accepted"));
            assert!(e.line.is_some(), "{at}: {e}");
            e.to_string()
        };
        match expect {
            "modelled" => assert_ne!(timing(&ok(f[4])), timing(&ok(f[5])), "{at}: no effect"),
            "checked" => {
                ok(f[4]);
                refused(f[5]);
            }
            "noted" => {
                let p = ok(f[4]);
                assert!(
                    p.notes
                        .iter()
                        .any(|m| m.contains(element) || m.contains(attr)),
                    "{at}: not listed in {:?}",
                    p.notes
                );
                let without = run(None).unwrap_or_else(|e| panic!("{at} without it: {e}"));
                assert_eq!(timing(&p), timing(&without), "{at}: changes the machine");
            }
            "refused" => {
                let e = refused(f[4]);
                assert!(e.contains(&format!("<{element}")), "{at}: {e}");
            }
            other => panic!("{at}: unknown expectation {other}"),
        }
    }
    // The table is the whole DTD: its 131 attributes, of all its 32
    // elements.
    assert_eq!(pairs.len(), 131);
    let elements: std::collections::BTreeSet<_> = pairs.iter().map(|p| p.0).collect();
    assert_eq!(elements.len(), 32);
}

#[test]
fn blank_lines_before_the_xml_declaration_keep_line_numbers() {
    // Batsim's files: SimGrid's parser reads them.
    let text = "\n\n<?xml version='1.0'?>\n<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0\"/>\n</platform>\n";
    let p = parse("p.xml", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.machine.nodes(), 2);
    // An error still names the line as the file numbers it.
    let bad = text.replace("lat=\"0\"", "lat=\"x\"");
    let e = parse("p.xml", &bad).unwrap_err();
    assert_eq!(e.line, Some(5), "{e}");
}

/// Transfers `(src, dst, bytes)` all started at time 0 on `p` in the
/// flow model; each one's delivery time.
pub(super) fn flow_times(p: Platform, transfers: &[(u32, u32, u64)]) -> Vec<Time> {
    use crate::Transport;
    use sim_core::{EventQueue, Scheduler};
    let cfg = crate::NetConfig {
        mode: crate::Mode::Flow,
        ..Default::default()
    };
    let mut net = crate::flow::FlowNet::new(p.machine, cfg).unwrap();
    let (mut q, mut out) = (EventQueue::new(), Vec::new());
    for (i, &(src, dst, bytes)) in transfers.iter().enumerate() {
        let t = crate::Transfer {
            src: NodeId(src),
            dst: NodeId(dst),
            bytes,
            rate_cap: None,
            token: i as u64,
        };
        net.start(&mut Scheduler::new(&mut q, Time::ZERO), t, &mut out);
    }
    while let Some((at, _, ev)) = q.pop() {
        net.handle(&mut Scheduler::new(&mut q, at), ev, &mut out);
    }
    let mut at = vec![Time::ZERO; transfers.len()];
    for d in out {
        at[d.token as usize] = d.at;
    }
    at
}

/// SimGrid's `two_hosts.xml` (link `1`: 125 MB/s, 100 us), SHARED, or
/// SPLITDUPLEX (route `UP`, its symmetrical reverse `DOWN`).
fn two_hosts(split: bool) -> Platform {
    let (policy, dir) = if split {
        (r#" sharing_policy="SPLITDUPLEX""#, r#" direction="UP""#)
    } else {
        ("", "")
    };
    import(&format!(
        r#"<zone id="world" routing="Full"><host id="Tremblay" speed="25Mf"/><host id="Jupiter" speed="25Mf"/>
<link id="1" bandwidth="125MBps" latency="100us"{policy}/>
<route src="Tremblay" dst="Jupiter"><link_ctn id="1"{dir}/></route></zone>"#
    ))
}

#[test]
fn a_shared_link_carrying_both_directions_is_one_capacity() {
    // An exchange of 1e6 B each way at once, as SMPI sends it: payload
    // plus its 16-byte envelope (bench/peers/peers.py, SMPI_ENVELOPE),
    // S = 1_000_016 B. CM02 with the equal-physics settings (bw-factor
    // and lat-factor 1, no cross traffic, TCP window far above
    // 125 MB/s x 2 x 100 us) is plain max-min over SimGrid's resources:
    // - SHARED: one resource for both flows, each at B / 2:
    //   lat + 2 S / B = 100 us + 2_000_032 B / 125e6 B/s
    //   = 100 us + 16.000256 ms = 16.100256 ms (SimGrid 3.32's answer);
    // - SPLITDUPLEX: one resource each way, each flow at B:
    //   100 us + 1_000_016 / 125e6 s = 8.100128 ms.
    let s = 1_000_016;
    let xfers = [(0, 1, s), (1, 0, s)];
    let shared = flow_times(two_hosts(false), &xfers);
    assert_eq!(shared, vec![Time::from_ps(16_100_256_000); 2]);
    let split = two_hosts(true);
    assert!(split.machine.shared_capacity().is_none());
    assert_eq!(
        flow_times(split, &xfers),
        vec![Time::from_ps(8_100_128_000); 2]
    );
    // One way alone is not slowed by the sharing.
    assert_eq!(
        flow_times(two_hosts(false), &xfers[..1]),
        vec![Time::from_ps(8_100_128_000)]
    );
    // A Floyd zone's SHARED cables crossed both ways by a symmetrical
    // route: one capacity each (latency 2 x 100 us).
    let floyd = import(
        r#"<zone id="w" routing="Floyd"><host id="a" speed="1Gf"/><router id="r"/><host id="b" speed="1Gf"/>
<link id="l1" bandwidth="125MBps" latency="100us"/><link id="l2" bandwidth="125MBps" latency="100us"/>
<route src="a" dst="r"><link_ctn id="l1"/></route><route src="b" dst="r"><link_ctn id="l2"/></route></zone>"#,
    );
    assert!(
        floyd
            .machine
            .shared_capacity()
            .unwrap()
            .contains("link `l1`")
    );
    assert_eq!(
        flow_times(floyd, &xfers),
        vec![Time::from_ps(16_200_256_000); 2]
    );
    // A cluster's SHARED private links (50 us each, 100 us a route).
    let cluster = import(
        r#"<cluster id="c" prefix="h" suffix="" radical="0-1" speed="1Gf" bw="125MBps" lat="50us" sharing_policy="SHARED"/>"#,
    );
    assert_eq!(
        flow_times(cluster, &xfers),
        vec![Time::from_ps(16_100_256_000); 2]
    );
}

#[test]
fn the_packet_model_refuses_a_shared_capacity() {
    let p = two_hosts(false);
    let e = crate::packet::PacketNet::new(p.machine, crate::NetConfig::default())
        .expect_err("refused")
        .to_string();
    assert!(e.starts_with("p.xml:4: link `1` (line 5) is SHARED"), "{e}");
    assert!(e.contains("use flow mode"), "{e}");
}

#[test]
fn config_sets_the_tcp_window_and_refuses_other_physics() {
    let c =
        r#"<cluster id="c" prefix="h" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us"/>"#;
    assert_eq!(import(c).tcp_window, Some(crate::SIMGRID_TCP_GAMMA));
    let p = import(&format!(
        r#"<config><prop id="network/TCP-gamma" value="65536"/><prop id="contexts/factory" value="thread"/></config>{c}"#
    ));
    assert_eq!(p.tcp_window, Some(65536));
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    let p = import(&format!(
        r#"<config><prop id="network/TCP-gamma" value="0"/></config>{c}"#
    ));
    assert_eq!(p.tcp_window, None);
    let e = error(&format!(
        r#"<config><prop id="network/TCP-gamma" value="-1"/></config>{c}"#
    ));
    assert!(e.contains("a TCP window of 0 (none) or more bytes"), "{e}");
    let e = error(&format!(
        r#"<config><prop id="network/model" value="LV08"/></config>{c}"#
    ));
    assert!(e.contains("netsim models only CM02"), "{e}");
    let p = import(&format!(
        r#"<config><prop id="cpu/optim" value="TI"/><prop id="host/model" value="compound"/></config>{c}"#
    ));
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    assert!(p.notes[0].contains("`cpu/optim` = `TI`"), "{:?}", p.notes);
    let e = error(&format!(
        r#"<config><prop id="cpu/optim" value="Fast"/></config>{c}"#
    ));
    assert!(e.contains("`cpu/optim`: a SimGrid setting"), "{e}");
    let e = error(&format!(
        r#"<config><prop id="host/model" value="ptask_L07"/></config>{c}"#
    ));
    assert!(e.contains("netsim models only compound"), "{e}");
    let e = error(&format!(
        r#"<config><prop id="smpi/os" value="0:1e-6"/></config>{c}"#
    ));
    assert!(
        e.contains("`smpi/os`: a SimGrid setting netsim does not model"),
        "{e}"
    );
}

#[test]
fn hosts_keep_their_own_speeds() {
    let p = import(
        r#"<zone id="w" routing="Full"><host id="a" speed="2Gf"/><host id="b" speed="1Gf,3Gf" pstate="1"/>
<link id="l" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/>
<route src="a" dst="b"><link_ctn id="l" direction="UP"/></route></zone>"#,
    );
    assert_eq!(p.host_speeds, vec![2e9, 3e9]);
    assert_eq!(p.host_speed, None);
    let p = import(
        r#"<cluster id="c" prefix="h" suffix="" radical="0-2" speed="1Gf" bw="1GBps" lat="0"/>"#,
    );
    assert_eq!((p.host_speed, p.host_speeds), (Some(1e9), vec![1e9; 3]));
}

/// The vertices a route passes (after the source host).
fn path_names(m: &crate::Machine, s: u32, d: u32) -> Vec<String> {
    m.route(NodeId(s), NodeId(d))
        .iter()
        .map(|&l| m.vertices()[m.link(l).to as usize].name.clone())
        .collect()
}

fn routed(p: Platform, routing: crate::RouteMode, seed: u64) -> crate::Machine {
    let cfg = crate::NetConfig {
        routing,
        seed,
        ..Default::default()
    };
    crate::config::routed(p.machine, &cfg)
}

fn dmodk(p: Platform) -> crate::Machine {
    routed(p, crate::RouteMode::Dmodk, 1)
}

#[test]
fn dmodk_routes_are_the_hand_computed_ones() {
    // XGFT(3; 4,4,2; 1,2,2): level-1 switch up-port d mod 2, level 2
    // up-port (d / 2) mod 2 (fat_tree module docs). Host 0 to 31: L1-0
    // takes parent 1 (L2-1); L2-1 (a = 0, b = 1) takes parent
    // 0 * 4 + 1 + 2 * 1 = 3; down through L2-3 and L1-7 (31 / 4 = 7).
    let tree = r#"<cluster id="ft" prefix="h" suffix="" radical="0-31" speed="1Gf" bw="1GBps"
             lat="1us" topology="FAT_TREE" topo_parameters="3;4,4,2;1,2,2;1,1,1"/>"#;
    let m = dmodk(import(tree));
    let names = |s, d| path_names(&m, s, d).join(" ");
    assert_eq!(names(0, 31), "ft-L1-0 ft-L2-1 ft-L3-3 ft-L2-3 ft-L1-7 h31");
    // 2 to 17: 17 mod 2 = 1, (17 / 2) mod 2 = 0: L2-1, then L3-1.
    assert_eq!(names(2, 17), "ft-L1-0 ft-L2-1 ft-L3-1 ft-L2-3 ft-L1-4 h17");
    // The default table's tie rule takes the first parent every time.
    let m = import(tree).machine;
    assert_eq!(
        path_names(&m, 0, 31).join(" "),
        "ft-L1-0 ft-L2-0 ft-L3-0 ft-L2-2 ft-L1-7 h31"
    );
}

#[test]
fn dmodk_routes_a_shift_without_contention_where_the_default_does_not() {
    // Full bisection XGFT(2; 4,4; 1,4): the shift d = s + 4 mod 16. D-mod-k
    // gives leaf up-link k to the one source of the leaf whose
    // destination is k mod 4: every link carries one flow. The default
    // table sends each leaf's four flows up its first link.
    let tree = r#"<cluster id="ft" prefix="h" suffix="" radical="0-15" speed="1Gf" bw="1GBps"
             lat="1us" topology="FAT_TREE" topo_parameters="2;4,4;1,4;1,1"/>"#;
    let max_load = |m: &crate::Machine| {
        let mut load = vec![0u32; m.links().len()];
        for s in 0..16 {
            for l in m.route(NodeId(s), NodeId((s + 4) % 16)) {
                load[l.index()] += 1;
            }
        }
        *load.iter().max().unwrap()
    };
    assert_eq!(max_load(&dmodk(import(tree))), 1);
    assert_eq!(max_load(&import(tree).machine), 4);
}

#[test]
fn dmodk_needs_a_fat_tree() {
    let p = import(
        r#"<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us"/>"#,
    );
    let cfg = crate::NetConfig {
        routing: crate::RouteMode::Dmodk,
        ..Default::default()
    };
    let e = crate::PacketNet::new(p.machine, cfg)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("dmodk routing needs a SimGrid FAT_TREE"), "{e}");
}

/// A folder of its own under the system's temporary one, emptied.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("netsim-platform-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("profiles")).unwrap();
    d
}

const PROFILED: &str = r#"<zone id="AS0" routing="Full">
<host id="A" speed="10f" speed_file="profiles/a.txt" state_file="profiles/a_state.txt"/>
<host id="B" speed="10f"/>
<link id="L" bandwidth="10MBps" latency="200ms" latency_file="profiles/l_lat.txt"/>
<route src="A" dst="B"><link_ctn id="L"/></route>
</zone>"#;

#[test]
fn profile_files_are_read_beside_the_platform() {
    let d = scratch("files");
    std::fs::write(d.join("profiles/a.txt"), "0 1.0\n11 0.5\nLOOPAFTER 1\n").unwrap();
    std::fs::write(d.join("profiles/a_state.txt"), "1 0\n2 1\nLOOPAFTER 8\n").unwrap();
    std::fs::write(d.join("profiles/l_lat.txt"), "3 0.015\n").unwrap();
    let plat = d.join("p.xml");
    std::fs::write(&plat, xml(PROFILED)).unwrap();
    let p = load(&plat).unwrap_or_else(|e| panic!("{e}"));
    let a = p.speed_profiles[0].as_ref().expect("A's speed profile");
    // Work of 20 s (at 10 f/s: 200 flops) from 0: 11 s at scale 1, then
    // 9 s of work at 0.5 take 18 s, to 29 s; but the loop (period 12 s)
    // brings scale 1 back at 12 s: 11 + 1 x 0.5 (to 12), 8.5 s at 1 (to
    // 20.5 s).
    assert_eq!(
        a.end_of_work(Time::ZERO, Time::from_ps(20_000_000_000_000)),
        Some(Time::from_ps(20_500_000_000_000))
    );
    assert!(p.speed_profiles[1].is_none());
    let line = |what: &str| p.changes.iter().find(|c| c.what.contains(what)).unwrap();
    let off = line("host `A` turns off");
    assert_eq!(
        (off.node, off.at),
        (Some(0), Time::from_ps(1_000_000_000_000))
    );
    assert!(off.what.contains("p.xml:5"), "{}", off.what);
    let lat = line("latency changes");
    assert_eq!((lat.node, lat.at), (None, Time::from_ps(3_000_000_000_000)));
    // A bad line of a profile file is refused at its own file:line.
    std::fs::write(d.join("profiles/l_lat.txt"), "3 0.015\n1 0.1\n").unwrap();
    let e = load(&plat).unwrap_err().to_string();
    assert!(e.contains("l_lat.txt:2: time 1 before"), "{e}");
    // A missing one at the element that names it.
    std::fs::remove_file(d.join("profiles/a.txt")).unwrap();
    let e = load(&plat).unwrap_err().to_string();
    assert!(
        e.contains("p.xml:5: <host speed_file=\"profiles/a.txt\">: cannot read the profile"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn inline_traces_connect_to_hosts_and_links() {
    let body = |connect: &str| {
        format!(
            r#"<trace id="A" periodicity="21.0">
    0.0 1.0
    11.0 0.5
  </trace>
  <trace id="F">
1 0.0
2 1.0
</trace>
<zone id="AS0" routing="Full"><host id="Cpu A" speed="10f"/><host id="Cpu B" speed="10f"/>
<link id="LinkA" bandwidth="10MBps" latency="200ms"/>
<route src="Cpu A" dst="Cpu B"><link_ctn id="LinkA"/></route></zone>
{connect}"#
        )
    };
    let p = import(&body(
        r#"<trace_connect kind="SPEED" trace="A" element="Cpu B"/><trace_connect kind="HOST_AVAIL" trace="F" element="Cpu A"/><trace_connect kind="BANDWIDTH" trace="A" element="LinkA"/>"#,
    ));
    assert!(p.speed_profiles[0].is_none());
    // 12 s of work: 11 s at 1, then 1 s of work at 0.5 takes 2 s.
    assert_eq!(
        p.speed_profiles[1]
            .as_ref()
            .unwrap()
            .end_of_work(Time::ZERO, Time::from_ps(12_000_000_000_000)),
        Some(Time::from_ps(13_000_000_000_000))
    );
    // In time order: LinkA's bandwidth at 0 s, then Cpu A off at 1 s.
    assert_eq!(p.changes.len(), 2, "{:?}", p.changes);
    assert_eq!((p.changes[0].node, p.changes[0].at), (None, Time::ZERO));
    assert_eq!(
        (p.changes[1].node, p.changes[1].at),
        (Some(0), Time::from_ps(1_000_000_000_000))
    );
    let e = error(&body(
        r#"<trace_connect kind="SPEED" trace="X" element="Cpu B"/>"#,
    ));
    assert!(e.contains("no <trace> of that id"), "{e}");
    let e = error(&body(
        r#"<trace_connect kind="SPEED" trace="A" element="Cpu C"/>"#,
    ));
    assert!(e.contains("no host `Cpu C`"), "{e}");
    let e = error(&body(
        r#"<trace_connect kind="LATENCY" trace="A" element="L"/>"#,
    ));
    assert!(e.contains("no link `L`"), "{e}");
    let e = error(&body(
        r#"<trace_connect kind="SPEED" trace="A" element="Cpu B"/><trace_connect kind="SPEED" trace="A" element="Cpu B"/>"#,
    ));
    assert!(e.contains("a second Speed profile"), "{e}");
    let e = error(
        &body(r#"<trace_connect kind="SPEED" trace="F" element="Cpu B"/>"#).replace("2 1.0", "2 0"),
    );
    assert!(e.contains("never end"), "{e}");
    let e = error(&body(
        r#"<trace_connect kind="POWER" trace="A" element="Cpu B"/>"#,
    ));
    assert!(e.contains("kind=\"POWER\""), "{e}");
    // An inline trace's bad line is refused at its line in the platform.
    let e = error(&body("").replace("11.0 0.5", "11.0 0.5 x"));
    assert!(
        e.starts_with("p.xml:6: <trace id=\"A\">: `11.0 0.5 x`"),
        "{e}"
    );
}

/// SimGrid 3.32's `examples/platforms/config.xml` (its `<config>` and
/// zone as written): SMPI network model, a bandwidth-factor table of its
/// own and SimGrid's default latency factors.
const CONFIG_XML: &str = r#"<config id="General">
<prop id="maxmin/precision" value="0.000010"></prop>
<prop id="cpu/optim" value="TI"></prop>
<prop id="host/model" value="compound"></prop>
<prop id="network/model" value="SMPI"></prop>
<prop id="path" value="~/"></prop>
<prop id="smpi/bw-factor" value="65472:0.940694;15424:0.697866;9376:0.58729"></prop>
</config>
<zone id="AS0" routing="Full"><host id="bob" speed="1Gf"/><host id="alice" speed="500Mf"/>
<link id="link1" bandwidth="125MBps" latency="50us"/><link id="link2" bandwidth="125MBps" latency="50us"/>
<link id="link3" bandwidth="125MBps" latency="50us"/>
<route src="bob" dst="alice"><link_ctn id="link1"/><link_ctn id="link2"/><link_ctn id="link3"/></route></zone>"#;

#[test]
fn smpi_network_model_applies_the_files_bandwidth_factors_and_default_latency_factors() {
    let p = import(CONFIG_XML);
    let fx = p.machine.size_factors().expect("SMPI factors");
    // Flattened (a three-link route), with its `<config>` notes kept.
    assert!(p.machine.has_pair_routes());
    let notes = p.notes.join("\n");
    for k in [
        "config id=\"General\"",
        "maxmin/precision",
        "cpu/optim",
        "`path`",
    ] {
        assert!(notes.contains(k), "{k}: {notes}");
    }
    assert_eq!(
        fx.bandwidth.to_string(),
        "9376:0.58729;15424:0.697866;65472:0.940694"
    );
    assert_eq!(fx.latency, crate::SizeFactors::simgrid_default().latency);
    // Route: 3 SHARED links of 125 MB/s and 50 us, 150 us; the TCP
    // window's bound (4 MiB / 300 us) does not bind.
    // 1e6 B + SMPI's 16-byte envelope = 1_000_016 B > 65472: bandwidth
    // factor 0.940694, latency factor 11.6436 (SimGrid's default):
    //   1_000_016 / (0.940694 x 125e6) s = 8.504495618 ms (rounded up)
    //   + 150 us x 11.6436 = 1.746540 ms -> 10.251035618 ms.
    let s = 1_000_016;
    assert_eq!(
        flow_times(import(CONFIG_XML), &[(0, 1, s)]),
        vec![Time::from_ps(10_251_035_618)]
    );
    // Both ways at once: one capacity per SHARED link, each flow takes
    // 62.5 MB/s of it and moves its bytes at 0.940694 x 62.5 MB/s (the
    // factor scales the progress, not the share):
    //   17.008991235 ms + 1.746540 ms = 18.755531235 ms.
    assert_eq!(
        flow_times(import(CONFIG_XML), &[(0, 1, s), (1, 0, s)]),
        vec![Time::from_ps(18_755_531_235); 2]
    );
    // At the file's smallest threshold (9376 B): bandwidth factor 1;
    // latency factor of 5776 < 9376 <= 9376, 2.18796:
    //   9376 B / 125 MB/s = 75.008 us + 328.194 us = 403.202 us.
    // One byte above: 0.58729 and 2.59299:
    //   9377 / (0.58729 x 125e6) s = 127.732467 us + 388.9485 us.
    assert_eq!(
        flow_times(import(CONFIG_XML), &[(0, 1, 9376)]),
        vec![Time::from_ps(403_202_000)]
    );
    assert_eq!(
        flow_times(import(CONFIG_XML), &[(0, 1, 9377)]),
        vec![Time::from_ps(516_680_967)]
    );
    // The idle-time closed form agrees.
    use crate::Transport;
    let net = crate::flow::FlowNet::new(
        import(CONFIG_XML).machine,
        crate::NetConfig {
            mode: crate::Mode::Flow,
            tcp_window: Some(crate::SIMGRID_TCP_GAMMA),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        net.idle_time(NodeId(0), NodeId(1), 9377, None),
        Time::from_ps(516_680_967)
    );
    // The packet model refuses them.
    let e = crate::packet::PacketNet::new(import(CONFIG_XML).machine, Default::default())
        .expect_err("refused")
        .to_string();
    assert!(e.contains("use flow mode"), "{e}");
}

#[test]
fn smpi_defaults_and_tables_under_cm02() {
    let c = r#"<cluster id="c" prefix="h" suffix="" radical="0-1" speed="1Gf" bw="125MBps" lat="50us"/>"#;
    // SMPI with nothing else: both of SimGrid's default tables. A 16 B
    // message (an empty one's envelope): 16 / (0.812084 x 125e6) s =
    // 157.620 ns (rounded up) + 100 us x 2.01467 = 201.467 us.
    let p = import(&format!(
        r#"<config><prop id="network/model" value="SMPI"/></config>{c}"#
    ));
    assert_eq!(
        p.machine.size_factors(),
        Some(&crate::SizeFactors::simgrid_default())
    );
    assert_eq!(
        flow_times(p, &[(0, 1, 16)]),
        vec![Time::from_ps(201_624_620)]
    );
    // Tables of 1 are no factors; CM02 reads no table (noted).
    let p = import(&format!(
        r#"<config><prop id="network/model" value="SMPI"/><prop id="smpi/bw-factor" value="0:1"/><prop id="smpi/lat-factor" value="0:1"/></config>{c}"#
    ));
    assert!(p.machine.size_factors().is_none());
    let p = import(&format!(
        r#"<config><prop id="smpi/bw-factor" value="0:0.5"/></config>{c}"#
    ));
    assert!(p.machine.size_factors().is_none());
    assert!(
        p.notes[0].contains("p.xml:4: <config> `smpi/bw-factor`: read only by SimGrid's SMPI"),
        "{:?}",
        p.notes
    );
    let e = error(&format!(
        r#"<config><prop id="smpi/lat-factor" value="0:1;0:2"/></config>{c}"#
    ));
    assert!(
        e.contains("<prop id=\"smpi/lat-factor\">: threshold 0 given twice"),
        "{e}"
    );
}
