//! Any tree of SimGrid zones flattened to explicit per-pair routes
//! ([`crate::Machine::set_pair_routes`]): Full, Floyd, Dijkstra, Cluster
//! (and flat `<cluster>`s, SimGrid's star zones), Vivaldi and None zones
//! and DRAGONFLY clusters, nested, with routers, gateways, `zoneRoute`
//! and `bypassRoute`.
//!
//! Each host is a node cabled to one switch as fast as a rate can be
//! ([`NIC_RATE`], no latency: SimGrid has no such cable); each SimGrid
//! link is a cable of its own from that switch, whose first direction is
//! the link (SHARED, FATPIPE) or its UP half and whose second is the DOWN
//! half of a SPLITDUPLEX link. The route of every ordered pair of hosts
//! is SimGrid 3.32's (`NetZoneImpl::get_global_route`: common ancestor,
//! bypass routes, the local route of the ancestor between the two
//! children and, recursively, from the source to the route's source
//! gateway and from its destination gateway to the destination), with
//! each zone's own local routing (Floyd and Dijkstra by link count with
//! SimGrid's tie order). A flow shares the capacity of its route's SHARED
//! links and SPLITDUPLEX halves with every other flow crossing them, is
//! bounded by its FATPIPE links alone, and its latency is the sum of its
//! links' (CM02). Flow model only.
//!
//! Refused with `file:line`: a route crossing one link twice (SimGrid
//! counts it twice), a Dijkstra route between zones whose gateways do
//! not meet, TORUS and FAT_TREE clusters inside other zones, and
//! what the one-zone import refuses for its elements.

use super::{Cx, NIC_RATE, Platform, Policy, units};
use crate::file::MachineFileError;
use crate::link::LinkParams;
use crate::machine::{MachineBuilder, VRef};
use crate::pair_routes::PairRoute;
use roxmltree::Node;
use rustc_hash::FxHashMap;
use sim_core::{Bandwidth, Time, limits};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Why a tree of zones cannot be flattened: the message the reader puts
/// after the element's `file:line`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum FlatError {
    /// A host, router or zone name given twice.
    #[error("`{0}` is declared twice (hosts, routers and zones share one name space)")]
    NameTwice(String),
    /// A link name given twice.
    #[error("link `{0}` is declared twice")]
    LinkTwice(String),
    /// A route whose end is the root zone.
    #[error("a route from or to the root zone itself")]
    RootZone,
    /// Two zones without a common ancestor.
    #[error("two roots")]
    TwoRoots,
    /// Gateways that lead back to themselves.
    #[error("the route from `{src}` to `{dst}` recurses through gateways without end")]
    Recursion { src: String, dst: String },
    /// A route between zones without gateways.
    #[error(
        "zone `{zone}` has no gateways from `{from}` to `{to}` (a <zoneRoute> with gw_src and gw_dst)"
    )]
    NoGateways {
        zone: String,
        from: String,
        to: String,
    },
    /// A bypass route between zones without gateways.
    #[error("a bypass route between zones without gateways")]
    BypassGateways,
    /// A pair of members a zone's routing does not join.
    #[error("zone `{zone}` ({kind} routing, line {line}) has no route from `{src}` to `{dst}`")]
    NoRoute {
        zone: String,
        kind: &'static str,
        line: usize,
        src: String,
        dst: String,
    },
    /// A Dijkstra route through zone routes whose gateways do not meet.
    #[error(
        "Dijkstra zone `{zone}`: the route from `{src}` to `{dst}` joins zone routes whose gateways differ (line {line}); SimGrid 3.32 cannot resolve it either: use Floyd or Full"
    )]
    GatewaysDiffer {
        zone: String,
        src: String,
        dst: String,
        line: usize,
    },
    /// A route through a link twice (SimGrid counts it twice).
    #[error(
        "the route from `{src}` to `{dst}` crosses link `{link}` twice; SimGrid counts such a link twice, netsim once: give the route each link once"
    )]
    LinkTwiceOnRoute {
        src: String,
        dst: String,
        link: String,
    },
    /// A route whose latency exceeds `MAX_DURATION`.
    #[error(
        "the route from `{src}` to `{dst}` has a latency of {latency}, above netsim's MAX_DURATION"
    )]
    RouteTooLong {
        src: String,
        dst: String,
        latency: Time,
    },
    /// A Floyd zone too large for its tables.
    #[error(
        "<zone routing=\"Floyd\">: {0} hosts, routers and zones, above netsim's {MAX_FLOYD_MEMBERS} for Floyd's n^3 tables; use Dijkstra"
    )]
    FloydTooLarge(usize),
}

impl FlatError {
    /// A pair a zone does not join: SimGrid fails only when a run uses
    /// it, so the importer refuses such a pair only then.
    pub(super) fn is_unrouted(&self) -> bool {
        matches!(
            self,
            FlatError::NoRoute { .. } | FlatError::NoGateways { .. }
        )
    }
}

/// A zone's local routing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Full,
    Floyd,
    Dijkstra,
    /// SimGrid's StarZone: `<cluster>` and `<zone routing="Cluster">`.
    Star,
    /// A star whose routes also take the latency of the distance between
    /// their ends' coordinates (SimGrid's `VivaldiZone`).
    Vivaldi,
    /// `routing="None"`: no route.
    Empty,
    /// A `<cluster topology="DRAGONFLY">` (SimGrid's `DragonflyZone`).
    Dragonfly,
}

impl Kind {
    /// SimGrid's name of the routing (a `<cluster>` is a Cluster zone).
    fn name(self) -> &'static str {
        match self {
            Kind::Full => "Full",
            Kind::Floyd => "Floyd",
            Kind::Dijkstra => "Dijkstra",
            Kind::Star => "Cluster",
            Kind::Vivaldi => "Vivaldi",
            Kind::Empty => "None",
            Kind::Dragonfly => "DRAGONFLY cluster",
        }
    }
}

/// A route as declared: links (link ids of the machine), gateways for a
/// route between zones, its line.
#[derive(Clone, Debug, Default)]
struct Hop {
    links: Vec<u32>,
    gw: Option<(usize, usize)>,
    line: usize,
}

/// A star zone's entry for one of its members.
#[derive(Clone, Debug, Default)]
struct StarEnd {
    up: Option<Vec<u32>>,
    down: Option<Vec<u32>>,
    gw: Option<usize>,
    /// Its route to itself (a cluster's `loopback_bw` link); `None`: up
    /// and down its own links.
    lo: Option<u32>,
}

#[derive(Debug)]
struct Zone {
    name: String,
    kind: Kind,
    parent: Option<usize>,
    /// The zone's own netpoint (a `zoneRoute`'s `src`/`dst`).
    np: usize,
    /// Netpoints directly in it, in creation order (SimGrid's ids).
    members: Vec<usize>,
    /// Full's table, Floyd's and Dijkstra's edges, by member ids.
    routes: FxHashMap<(usize, usize), Hop>,
    /// Dijkstra: edges in the order added.
    edges: Vec<(usize, usize)>,
    star: FxHashMap<usize, StarEnd>,
    bypass: FxHashMap<(usize, usize), Hop>,
    /// Floyd: predecessor table over member ids, once sealed.
    pred: Vec<Vec<Option<usize>>>,
    /// A DRAGONFLY cluster's links.
    dragonfly: Option<Box<Dragonfly>>,
    /// Dijkstra, once sealed: its graph's nodes (member ids, in the
    /// order routes named them), their indexes, their out-edges.
    graph: (Vec<usize>, FxHashMap<usize, usize>, Vec<Vec<usize>>),
    line: usize,
}

#[derive(Debug)]
struct Np {
    name: String,
    /// Its englobing zone; `None` for the root zone's netpoint.
    zone: Option<usize>,
    /// Its id in that zone.
    id: usize,
    host: Option<u32>,
    /// Vivaldi coordinates, if given.
    coords: Option<[f64; 3]>,
    /// A zone's netpoint.
    is_zone: bool,
}

/// A link as the routes see it: its machine link id(s).
#[derive(Clone, Copy, Debug)]
struct LinkRef {
    up: u32,
    down: u32,
}

#[derive(Default)]
struct Flat {
    nps: Vec<Np>,
    by_name: FxHashMap<String, usize>,
    zones: Vec<Zone>,
    links: FxHashMap<String, LinkRef>,
    /// Per machine link: bandwidth, latency, policy, name.
    res: Vec<(Bandwidth, Time, Policy, String)>,
    hosts: Vec<(String, u16, f64)>,
    /// Latency the route being resolved has beyond its links' (Vivaldi
    /// distances), picoseconds.
    extra: std::cell::Cell<u64>,
    /// Dijkstra's predecessors per (zone, source node), computed once.
    dijkstra_pred: std::cell::RefCell<FxHashMap<(usize, usize), Pred>>,
    /// The network model's `__loopback__` link, once every element is read.
    loopback: Option<u32>,
}

/// Dijkstra's predecessor of every graph node, from one source.
type Pred = std::rc::Rc<Vec<usize>>;

/// Route recursion deeper than this is a cycle of gateways; zones
/// nested deeper are refused.
const MAX_DEPTH: usize = 64;

/// The most hosts of a platform flattened to per-pair routes: the pair
/// table has `hosts^2` entries (4096^2 = 2^24, [`limits::MAX_ROUTE_TABLE_ENTRIES`] / 16).
const MAX_PAIR_HOSTS: usize = 4096;

/// The most members (hosts, routers, zones) of one Floyd zone: its
/// tables are `n^2` and its sealing `n^3` (512^3 = 1.3e8 steps).
const MAX_FLOYD_MEMBERS: usize = 512;

impl Flat {
    fn np(
        &mut self,
        name: &str,
        zone: Option<usize>,
        host: Option<u32>,
    ) -> Result<usize, FlatError> {
        if self.by_name.contains_key(name) {
            return Err(FlatError::NameTwice(name.to_string()));
        }
        let i = self.nps.len();
        let id = match zone {
            Some(z) => {
                self.zones[z].members.push(i);
                self.zones[z].members.len() - 1
            }
            None => 0,
        };
        self.nps.push(Np {
            name: name.into(),
            zone,
            id,
            host,
            coords: None,
            is_zone: false,
        });
        self.by_name.insert(name.into(), i);
        Ok(i)
    }

    fn link(
        &mut self,
        name: &str,
        bw: Bandwidth,
        lat: Time,
        policy: Policy,
    ) -> Result<(), FlatError> {
        if self.links.contains_key(name) {
            return Err(FlatError::LinkTwice(name.to_string()));
        }
        let up = self.res.len() as u32;
        let (p1, p2) = if policy == Policy::SplitDuplex {
            (format!("{name}_UP"), format!("{name}_DOWN"))
        } else {
            (name.to_string(), format!("{name} (unused)"))
        };
        self.res.push((bw, lat, policy, p1.clone()));
        self.res.push((bw, lat, policy, p2.clone()));
        let r = LinkRef {
            up,
            down: if policy == Policy::SplitDuplex {
                up + 1
            } else {
                up
            },
        };
        self.links.insert(name.into(), r);
        if policy == Policy::SplitDuplex {
            // Its halves by SimGrid's names, as `<host_link>` uses them.
            for (n, l) in [(p1, up), (p2, up + 1)] {
                self.links.insert(n, LinkRef { up: l, down: l });
            }
        }
        Ok(())
    }

    /// The ancestors of zone `z`, itself first.
    fn path(&self, mut z: usize) -> Vec<usize> {
        let mut p = vec![z];
        while let Some(q) = self.zones[z].parent {
            p.push(q);
            z = q;
        }
        p
    }

    /// SimGrid's `find_common_ancestors`: (common, src side, dst side).
    fn ancestors(&self, src: usize, dst: usize) -> Result<(usize, usize, usize), FlatError> {
        let (Some(zs), Some(zd)) = (self.nps[src].zone, self.nps[dst].zone) else {
            return Err(FlatError::RootZone);
        };
        if zs == zd {
            return Ok((zs, zs, zs));
        }
        let (mut ps, mut pd) = (self.path(zs), self.path(zd));
        let mut parent = None;
        while ps.len() > 1 && pd.len() > 1 && ps.last() == pd.last() {
            parent = ps.pop();
            pd.pop();
        }
        let (a, b) = (*ps.last().expect("path"), *pd.last().expect("path"));
        if a == b {
            return Ok((a, a, b));
        }
        Ok((parent.ok_or(FlatError::TwoRoots)?, a, b))
    }

    /// SimGrid's `get_global_route`: appends the route's links to `out`.
    fn global(
        &self,
        src: usize,
        dst: usize,
        out: &mut Vec<u32>,
        depth: usize,
    ) -> Result<(), FlatError> {
        if depth > MAX_DEPTH {
            return Err(FlatError::Recursion {
                src: self.nps[src].name.clone(),
                dst: self.nps[dst].name.clone(),
            });
        }
        let (c, a, b) = self.ancestors(src, dst)?;
        if self.bypass(c, src, dst, out, depth)? {
            return Ok(());
        }
        if a == b {
            self.local(c, src, dst, out, depth)?;
            return Ok(());
        }
        let (za, zb) = (self.zones[a].np, self.zones[b].np);
        let mut mid = Vec::new();
        let gw = self.local(c, za, zb, &mut mid, depth)?;
        let Some((gs, gd)) = gw else {
            return Err(FlatError::NoGateways {
                zone: self.zones[c].name.clone(),
                from: self.zones[a].name.clone(),
                to: self.zones[b].name.clone(),
            });
        };
        if src != gs {
            self.global(src, gs, out, depth + 1)?;
        }
        out.extend_from_slice(&mid);
        if gd != dst {
            self.global(gd, dst, out, depth + 1)?;
        }
        Ok(())
    }

    /// SimGrid's `get_bypass_route` of zone `c`.
    fn bypass(
        &self,
        c: usize,
        src: usize,
        dst: usize,
        out: &mut Vec<u32>,
        depth: usize,
    ) -> Result<bool, FlatError> {
        let z = &self.zones[c];
        if z.bypass.is_empty() {
            return Ok(false);
        }
        let (zs, zd) = (
            self.nps[src].zone.expect("host"),
            self.nps[dst].zone.expect("host"),
        );
        if zs == c && zd == c {
            if let Some(h) = z.bypass.get(&(src, dst)) {
                out.extend_from_slice(&h.links);
                return Ok(true);
            }
            return Ok(false);
        }
        let (mut ps, mut pd) = (self.path(zs), self.path(zd));
        while ps.len() > 1 && pd.len() > 1 && ps.last() == pd.last() {
            ps.pop();
            pd.pop();
        }
        let look = |i: usize, j: usize| -> Option<((usize, usize), &Hop)> {
            let key = (self.zones[*ps.get(i)?].np, self.zones[*pd.get(j)?].np);
            z.bypass.get(&key).map(|h| (key, h))
        };
        let mut found = None;
        'outer: for max in 0..ps.len().max(pd.len()) {
            for i in 0..max {
                if let Some(f) = look(i, max).or_else(|| look(max, i)) {
                    found = Some(f);
                    break 'outer;
                }
            }
            if let Some(f) = look(max, max) {
                found = Some(f);
                break;
            }
        }
        let Some((key, h)) = found else {
            return Ok(false);
        };
        let (gs, gd) = h.gw.ok_or(FlatError::BypassGateways)?;
        if src != key.0 {
            self.global(src, gs, out, depth + 1)?;
        }
        out.extend_from_slice(&h.links);
        if dst != key.1 {
            self.global(gd, dst, out, depth + 1)?;
        }
        Ok(true)
    }

    fn no_route(&self, z: usize, src: usize, dst: usize) -> FlatError {
        FlatError::NoRoute {
            zone: self.zones[z].name.clone(),
            kind: self.zones[z].kind.name(),
            line: self.zones[z].line,
            src: self.nps[src].name.clone(),
            dst: self.nps[dst].name.clone(),
        }
    }

    /// Zone `z`'s local route from member `src` to member `dst`: appends
    /// its links, returns its gateways.
    fn local(
        &self,
        z: usize,
        src: usize,
        dst: usize,
        out: &mut Vec<u32>,
        depth: usize,
    ) -> Result<Option<(usize, usize)>, FlatError> {
        let zone = &self.zones[z];
        let (s, d) = (self.nps[src].id, self.nps[dst].id);
        if self.nps[src].zone != Some(z) || self.nps[dst].zone != Some(z) {
            return Err(self.no_route(z, src, dst));
        }
        if src == dst {
            if let Some(lo) = self.loopback_of(z, s) {
                out.extend_from_slice(&lo);
                return Ok(None);
            }
            if !matches!(zone.kind, Kind::Star | Kind::Vivaldi) {
                return Err(self.no_route(z, src, dst));
            }
        }
        match zone.kind {
            Kind::Empty => Err(self.no_route(z, src, dst)),
            Kind::Full => {
                let h = zone
                    .routes
                    .get(&(s, d))
                    .ok_or_else(|| self.no_route(z, src, dst))?;
                out.extend_from_slice(&h.links);
                Ok(h.gw)
            }
            Kind::Star | Kind::Vivaldi => {
                let mut gw = None;
                if zone.kind == Kind::Vivaldi {
                    let (Some(a), Some(b)) = (self.nps[src].coords, self.nps[dst].coords) else {
                        return Err(self.no_route(z, src, dst));
                    };
                    // VivaldiZone::get_local_route: milliseconds.
                    let sq = |i: usize| (a[i] - b[i]) * (a[i] - b[i]);
                    let ms = (sq(0) + sq(1)).sqrt() + a[2].abs() + b[2].abs();
                    self.extra
                        .set(self.extra.get().saturating_add((ms * 1e9).round() as u64));
                    if self.nps[src].is_zone {
                        let r = |n: usize| {
                            self.by_name
                                .get(&format!("router_{}", self.nps[n].name))
                                .copied()
                        };
                        gw = r(src).zip(r(dst));
                    }
                }
                let (Some(a), Some(b)) = (zone.star.get(&s), zone.star.get(&d)) else {
                    return Err(self.no_route(z, src, dst));
                };
                let (Some(up), Some(down)) = (&a.up, &b.down) else {
                    return Err(self.no_route(z, src, dst));
                };
                let from = out.len();
                for &l in up.iter().chain(down) {
                    if !out[from..].contains(&l) {
                        out.push(l);
                    }
                }
                Ok(gw.or(match (a.gw, b.gw) {
                    (Some(x), Some(y)) => Some((x, y)),
                    _ => None,
                }))
            }
            Kind::Floyd => {
                let mut stack = Vec::new();
                let mut cur = d;
                loop {
                    let p = zone.pred[s][cur].ok_or_else(|| self.no_route(z, src, dst))?;
                    if stack.len() > zone.members.len() {
                        return Err(self.no_route(z, src, dst));
                    }
                    stack.push(&zone.routes[&(p, cur)]);
                    cur = p;
                    if cur == s {
                        break;
                    }
                }
                let gw = match (stack.last().and_then(|h| h.gw), stack[0].gw) {
                    (Some((g, _)), Some((_, h))) => Some((g, h)),
                    _ => None,
                };
                let mut prev: Option<usize> = None;
                while let Some(h) = stack.pop() {
                    if let (Some(p), Some((g, _))) = (prev, h.gw) {
                        if p != g {
                            self.global(p, g, out, depth + 1)?;
                        }
                    }
                    out.extend_from_slice(&h.links);
                    prev = h.gw.map(|g| g.1);
                }
                Ok(gw)
            }
            Kind::Dijkstra => self.dijkstra(z, src, dst, out),
            Kind::Dragonfly => {
                let df = zone
                    .dragonfly
                    .as_ref()
                    .expect("a dragonfly zone has its links");
                let hosts = df.dims.iter().product::<usize>();
                if s >= hosts || d >= hosts {
                    return Ok(None); // routers: SimGrid's route is empty
                }
                df.route(s, d, out)
                    .ok_or_else(|| self.no_route(z, src, dst))?;
                Ok(None)
            }
        }
    }

    /// The links of member `s` of zone `z`'s route to itself: in a Full,
    /// Floyd or Dijkstra zone, its own route to itself, or else, in a zone
    /// without zones inside, the network model's `__loopback__` (SimGrid's
    /// `do_seal` of those zones); in a star, its loopback link if it has
    /// one. `None` otherwise: a star's host goes up and down its links,
    /// other zones have no route.
    fn loopback_of(&self, z: usize, s: usize) -> Option<Vec<u32>> {
        let zone = &self.zones[z];
        match zone.kind {
            Kind::Full | Kind::Floyd | Kind::Dijkstra => {
                if let Some(h) = zone.routes.get(&(s, s)) {
                    return Some(h.links.clone());
                }
                let base = !self.zones.iter().any(|c| c.parent == Some(z));
                self.loopback.filter(|_| base).map(|l| vec![l])
            }
            Kind::Star | Kind::Vivaldi => zone.star.get(&s).and_then(|e| e.lo).map(|l| vec![l]),
            Kind::Empty | Kind::Dragonfly => None,
        }
    }

    /// Dijkstra's route (SimGrid's `DijkstraZone::get_local_route`: graph
    /// nodes in the order routes named them, costs in links, a min-heap
    /// of (cost, node) with SimGrid's unsigned arithmetic).
    fn dijkstra(
        &self,
        z: usize,
        src: usize,
        dst: usize,
        out: &mut Vec<u32>,
    ) -> Result<Option<(usize, usize)>, FlatError> {
        let zone = &self.zones[z];
        let (node, of, adj) = &zone.graph;
        let (Some(&s), Some(&d)) = (of.get(&self.nps[src].id), of.get(&self.nps[dst].id)) else {
            return Err(self.no_route(z, src, dst));
        };
        let n = node.len();
        let cached = self.dijkstra_pred.borrow().get(&(z, s)).cloned();
        let pred = match cached {
            Some(p) => p,
            None => {
                let mut cost = vec![u64::MAX; n];
                let mut pred = vec![0usize; n];
                cost[s] = 0;
                let mut q: BinaryHeap<Reverse<(u64, usize)>> =
                    (0..n).map(|i| Reverse((cost[i], i))).collect();
                while let Some(Reverse((_, v))) = q.pop() {
                    for &u in &adj[v] {
                        let w = zone.routes[&(node[v], node[u])].links.len() as u64;
                        let c = w.wrapping_add(cost[v]);
                        if c < cost[u] {
                            pred[u] = v;
                            cost[u] = c;
                            q.push(Reverse((c, u)));
                        }
                    }
                }
                let p = std::rc::Rc::new(pred);
                self.dijkstra_pred.borrow_mut().insert((z, s), p.clone());
                p
            }
        };
        let mut hops = Vec::new();
        let mut v = d;
        let mut guard = 0;
        while v != s {
            let h = zone
                .routes
                .get(&(node[pred[v]], node[v]))
                .ok_or_else(|| self.no_route(z, src, dst))?;
            hops.push(h);
            v = pred[v];
            guard += 1;
            if guard > n {
                return Err(self.no_route(z, src, dst));
            }
        }
        for w in hops.windows(2) {
            // Walking back: w[0] follows w[1] on the route.
            if let (Some((g, _)), Some((_, h))) = (w[0].gw, w[1].gw) {
                if g != h {
                    return Err(FlatError::GatewaysDiffer {
                        zone: zone.name.clone(),
                        src: self.nps[src].name.clone(),
                        dst: self.nps[dst].name.clone(),
                        line: w[0].line,
                    });
                }
            }
        }
        for h in hops.iter().rev() {
            out.extend_from_slice(&h.links);
        }
        let gw = match (
            hops.last().and_then(|h| h.gw),
            hops.first().and_then(|h| h.gw),
        ) {
            (Some((g, _)), Some((_, h))) => Some((g, h)),
            _ => None,
        };
        Ok(gw)
    }

    /// Floyd's tables (SimGrid's `FloydZone::do_seal`, its loop order).
    fn seal_floyd(&mut self, z: usize) {
        let zone = &mut self.zones[z];
        let n = zone.members.len();
        let mut cost = vec![vec![u64::MAX; n]; n];
        let mut pred = vec![vec![None; n]; n];
        for (&(a, b), h) in &zone.routes {
            cost[a][b] = h.links.len() as u64;
            pred[a][b] = Some(a);
        }
        for c in 0..n {
            for a in 0..n {
                for b in 0..n {
                    if cost[a][c] < u64::MAX
                        && cost[c][b] < u64::MAX
                        && (cost[a][b] == u64::MAX || cost[a][c] + cost[c][b] < cost[a][b])
                    {
                        cost[a][b] = cost[a][c] + cost[c][b];
                        pred[a][b] = pred[c][b];
                    }
                }
            }
        }
        zone.pred = pred;
    }
}

mod dragonfly;
use dragonfly::Dragonfly;
mod read;

#[cfg(test)]
mod tests;
