//! The pair table through the machine's methods.

use super::PairRoute;
use crate::link::LinkParams;
use crate::machine::Machine;
use crate::machine::{MachineBuilder, Sharing, VRef};
use crate::transport::LinkId;
use crate::transport::NodeId;
use sim_core::{Bandwidth, Time};

fn star() -> Machine {
    let mut b = MachineBuilder::new("t");
    let p = LinkParams {
        bandwidth: Bandwidth::bytes_per_sec(100),
        latency: Time::from_ps(7),
        buffer: 0,
    };
    let h: Vec<VRef> = (0..3).map(|i| b.host(format!("h{i}"), 1, 1)).collect();
    let sw = b.net("sw", false);
    for v in h {
        b.cable(v, sw, p, p);
    }
    b.build(Sharing::Fair).unwrap()
}

#[test]
fn a_pair_table_routes_each_pair_its_own_way() {
    let mut m = star();
    let mut out = Vec::new();
    // Without a table: the machine's own route, no bound.
    let (lat, cap) = m.pair_route_into(NodeId(0), NodeId(1), &mut out);
    assert_eq!(
        (out.clone(), lat, cap),
        (vec![LinkId(0), LinkId(3)], Time::from_ps(14), None)
    );
    m.set_pair_routes(
        |s, d| {
            (s != 2 && d != 2).then(|| PairRoute {
                links: vec![LinkId(2 * s + 1), LinkId(4)],
                latency: Time::from_ps(100 + s as u64),
                cap: Some(Bandwidth::bytes_per_sec(5)),
            })
        },
        "why".into(),
    )
    .unwrap();
    out.clear();
    let (lat, cap) = m.pair_route_into(NodeId(1), NodeId(0), &mut out);
    assert_eq!(out, vec![LinkId(3), LinkId(4)]);
    assert_eq!(lat, Time::from_ps(101));
    assert_eq!(cap, Some(Bandwidth::bytes_per_sec(5)));
    assert_eq!(m.shared_capacity(), Some("why"));
    assert_eq!(m.unrouted(&[NodeId(0), NodeId(1)]), None);
    assert_eq!(
        m.unrouted(&[NodeId(1), NodeId(2)]),
        Some((NodeId(1), NodeId(2)))
    );
}

#[test]
fn a_repeated_or_unknown_link_is_refused() {
    for links in [vec![LinkId(1), LinkId(1)], vec![LinkId(99)]] {
        let mut m = star();
        let r = m.set_pair_routes(
            |_, _| {
                Some(PairRoute {
                    links: links.clone(),
                    latency: Time::ZERO,
                    cap: None,
                })
            },
            String::new(),
        );
        assert!(r.is_err());
    }
}
