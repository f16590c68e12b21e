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
use sim_core::{Bandwidth, Time, limits};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

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

/// A DRAGONFLY cluster's links by router (SimGrid's `DragonflyZone`,
/// `generate_links`); routers are numbered `(group, chassis, blade)` in
/// that order, a host `(group, chassis, blade, node)`.
#[derive(Debug, Default)]
struct Dragonfly {
    /// Groups, chassis per group, blades per chassis, nodes per blade.
    dims: [usize; 4],
    /// Per router and node: the local link (up, down).
    local: Vec<Vec<(u32, u32)>>,
    /// Per router: its green link to each blade of its chassis, its black
    /// link to each chassis of its group, its blue link (if any).
    green: Vec<Vec<Option<u32>>>,
    black: Vec<Vec<Option<u32>>>,
    blue: Vec<Option<u32>>,
    /// Limiters of routers and of hosts (`limiter_link`).
    router_limiter: Vec<Option<u32>>,
    host_limiter: Vec<Option<u32>>,
}

impl Dragonfly {
    /// `DragonflyZone::get_local_route` between hosts `s` and `d`.
    fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) -> Option<()> {
        let [_, c, b, n] = self.dims;
        let coords = |id: usize| {
            (
                id / (c * b * n),
                id % (c * b * n) / (b * n),
                id % (b * n) / n,
                id % n,
            )
        };
        let (mg, mc, mb, mn) = coords(s);
        let (tg, tc, tb, tn) = coords(d);
        let group = |r: usize| r / (c * b);
        let chassis = |r: usize| r % (c * b) / b;
        let blade = |r: usize| r % b;
        let my = mg * c * b + mc * b + mb;
        let target = tg * c * b + tc * b + tb;
        let mut cur = my;
        let lim = |r: usize, out: &mut Vec<u32>| out.extend(self.router_limiter[r]);
        out.extend(self.host_limiter[s]);
        out.push(self.local[my][mn].0);
        if target != my {
            if group(target) != group(cur) {
                if blade(cur) != tg {
                    lim(cur, out);
                    out.push((*self.green[cur].get(tg)?)?);
                    cur = mg * c * b + mc * b + tg;
                }
                if chassis(cur) != 0 {
                    lim(cur, out);
                    out.push(self.black[cur][0]?);
                    cur = mg * c * b + tg;
                }
                out.push(self.blue.get(cur).copied().flatten()?);
                lim(cur, out);
                cur = tg * c * b + mg;
            }
            if cur >= self.local.len() {
                return None;
            }
            if blade(target) != blade(cur) {
                lim(cur, out);
                out.push((*self.green[cur].get(tb)?)?);
                cur = tg * c * b + tb;
            }
            if chassis(target) != chassis(cur) {
                lim(cur, out);
                out.push((*self.black[cur].get(tc)?)?);
            }
        }
        lim(target, out);
        out.push(self.local[target][tn].1);
        out.extend(self.host_limiter[d]);
        Some(())
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
    routes: HashMap<(usize, usize), Hop>,
    /// Dijkstra: edges in the order added.
    edges: Vec<(usize, usize)>,
    star: HashMap<usize, StarEnd>,
    bypass: HashMap<(usize, usize), Hop>,
    /// Floyd: predecessor table over member ids, once sealed.
    pred: Vec<Vec<Option<usize>>>,
    /// A DRAGONFLY cluster's links.
    dragonfly: Option<Box<Dragonfly>>,
    /// Dijkstra, once sealed: its graph's nodes (member ids, in the
    /// order routes named them), their indexes, their out-edges.
    graph: (Vec<usize>, HashMap<usize, usize>, Vec<Vec<usize>>),
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
    by_name: HashMap<String, usize>,
    zones: Vec<Zone>,
    links: HashMap<String, LinkRef>,
    /// Per machine link: bandwidth, latency, policy, name.
    res: Vec<(Bandwidth, Time, Policy, String)>,
    hosts: Vec<(String, u16, f64)>,
    /// Latency the route being resolved has beyond its links' (Vivaldi
    /// distances), picoseconds.
    extra: std::cell::Cell<u64>,
    /// Dijkstra's predecessors per (zone, source node), computed once.
    dijkstra_pred: std::cell::RefCell<HashMap<(usize, usize), Pred>>,
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
    fn np(&mut self, name: &str, zone: Option<usize>, host: Option<u32>) -> Result<usize, String> {
        if self.by_name.contains_key(name) {
            return Err(format!(
                "`{name}` is declared twice (hosts, routers and zones share one name space)"
            ));
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

    fn link(&mut self, name: &str, bw: Bandwidth, lat: Time, policy: Policy) -> Result<(), String> {
        if self.links.contains_key(name) {
            return Err(format!("link `{name}` is declared twice"));
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
    fn ancestors(&self, src: usize, dst: usize) -> Result<(usize, usize, usize), String> {
        let (Some(zs), Some(zd)) = (self.nps[src].zone, self.nps[dst].zone) else {
            return Err("a route from or to the root zone itself".into());
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
        Ok((parent.ok_or("two roots")?, a, b))
    }

    /// SimGrid's `get_global_route`: appends the route's links to `out`.
    fn global(
        &self,
        src: usize,
        dst: usize,
        out: &mut Vec<u32>,
        depth: usize,
    ) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "the route from `{}` to `{}` recurses through gateways without end",
                self.nps[src].name, self.nps[dst].name
            ));
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
            return Err(format!(
                "zone `{}` has no gateways from `{}` to `{}` (a <zoneRoute> with gw_src and gw_dst)",
                self.zones[c].name, self.zones[a].name, self.zones[b].name
            ));
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
    ) -> Result<bool, String> {
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
        let (gs, gd) =
            h.gw.ok_or("a bypass route between zones without gateways")?;
        if src != key.0 {
            self.global(src, gs, out, depth + 1)?;
        }
        out.extend_from_slice(&h.links);
        if dst != key.1 {
            self.global(gd, dst, out, depth + 1)?;
        }
        Ok(true)
    }

    fn no_route(&self, z: usize, src: usize, dst: usize) -> String {
        format!(
            "zone `{}` ({} routing, line {}) has no route from `{}` to `{}`",
            self.zones[z].name,
            self.zones[z].kind.name(),
            self.zones[z].line,
            self.nps[src].name,
            self.nps[dst].name
        )
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
    ) -> Result<Option<(usize, usize)>, String> {
        let zone = &self.zones[z];
        let (s, d) = (self.nps[src].id, self.nps[dst].id);
        if self.nps[src].zone != Some(z) || self.nps[dst].zone != Some(z) {
            return Err(self.no_route(z, src, dst));
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

    /// Dijkstra's route (SimGrid's `DijkstraZone::get_local_route`: graph
    /// nodes in the order routes named them, costs in links, a min-heap
    /// of (cost, node) with SimGrid's unsigned arithmetic).
    fn dijkstra(
        &self,
        z: usize,
        src: usize,
        dst: usize,
        out: &mut Vec<u32>,
    ) -> Result<Option<(usize, usize)>, String> {
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
                    return Err(format!(
                        "Dijkstra zone `{}`: the route from `{}` to `{}` joins zone routes whose gateways differ (line {}); SimGrid 3.32 cannot resolve it either: use Floyd or Full",
                        zone.name, self.nps[src].name, self.nps[dst].name, w[0].line
                    ));
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

impl<'i> Cx<'_, 'i> {
    /// The platform under `root` flattened to per-pair routes.
    pub(super) fn flatten(&self, body: Node<'_, 'i>) -> Result<Platform, MachineFileError> {
        let mut f = Flat::default();
        self.flat_element(&mut f, body, None)?;
        let n = f.hosts.len();
        if n < 2 {
            return Err(self.err(
                body,
                format!("the platform has {n} hosts; netsim needs at least 2"),
            ));
        }
        limits::check_nodes(n as u64).map_err(|m| self.err(body, m))?;
        let mut b = MachineBuilder::new(format!("platform {}", body.attribute("id").unwrap_or("")));
        let hv: Vec<VRef> = f.hosts.iter().map(|(h, c, _)| b.host(h, 1, *c)).collect();
        let sw = b.net("platform", false);
        let nic = LinkParams {
            bandwidth: Bandwidth::bytes_per_sec(NIC_RATE),
            latency: Time::ZERO,
            buffer: 0,
        };
        for v in hv {
            b.cable(v, sw, nic, nic);
        }
        // Machine link ids: the hosts' cables come first.
        let base = 2 * n as u32;
        for pair in f.res.chunks(2) {
            let v = b.net(format!("link {}", pair[0].3), false);
            let p = |r: &(Bandwidth, Time, Policy, String)| LinkParams {
                bandwidth: r.0,
                latency: r.1,
                buffer: 0,
            };
            b.cable(sw, v, p(&pair[0]), p(&pair[1]));
        }
        let host_np: Vec<usize> = {
            let mut v = vec![0; n];
            for (i, np) in f.nps.iter().enumerate() {
                if let Some(h) = np.host {
                    v[h as usize] = i;
                }
            }
            v
        };
        let speeds: Vec<f64> = f.hosts.iter().map(|h| h.2).collect();
        let mut p = self.build(body, b, speeds)?;
        let mut err = None;
        let mut links = Vec::new();
        let route = |s: u32, d: u32| -> Option<PairRoute> {
            links.clear();
            if err.is_some() {
                return None;
            }
            f.extra.set(0);
            if let Err(e) = f.global(host_np[s as usize], host_np[d as usize], &mut links, 0) {
                // A pair without a route is refused only if a run uses
                // it (`Machine::unrouted`), as SimGrid fails only then.
                if !e.starts_with("zone `") {
                    err = Some(e);
                }
                return None;
            }
            let (mut shared, mut lat, mut cap) = (Vec::new(), Time::ZERO, None::<Bandwidth>);
            for &l in &links {
                let r = &f.res[l as usize];
                lat = lat.saturating_add(r.1);
                if shared.contains(&(l + base))
                    || (r.2 == Policy::FatPipe && links.iter().filter(|&&x| x == l).count() > 1)
                {
                    err = Some(format!(
                        "the route from `{}` to `{}` crosses link `{}` twice; SimGrid counts such a link twice, netsim once: give the route each link once",
                        f.nps[host_np[s as usize]].name, f.nps[host_np[d as usize]].name, r.3
                    ));
                    return None;
                }
                if r.2 == Policy::FatPipe {
                    cap = Some(cap.map_or(r.0, |c| c.min(r.0)));
                } else {
                    shared.push(l + base);
                }
            }
            let lat = lat.saturating_add(Time::from_ps(f.extra.get()));
            if lat > limits::MAX_DURATION {
                err = Some(format!(
                    "the route from `{}` to `{}` has a latency of {lat}, above netsim's MAX_DURATION",
                    f.nps[host_np[s as usize]].name, f.nps[host_np[d as usize]].name
                ));
                return None;
            }
            Some(PairRoute {
                links: shared,
                latency: lat,
                cap,
            })
        };
        let why = self
            .err(body, "the platform's routes are per pair of hosts (zones, routers, gateways or links shared across routes)".into())
            .to_string();
        let r = p.machine.set_pair_routes(route, why);
        if let Some(e) = err {
            return Err(self.err(body, e));
        }
        r.map_err(|e| self.err(body, super::machine_msg(e)))?;
        Ok(p)
    }

    fn fail(&self, n: Node, r: Result<usize, String>) -> Result<usize, MachineFileError> {
        r.map_err(|m| self.err(n, m))
    }

    fn zone_links(&self, f: &Flat, r: Node, back: bool) -> Result<Vec<u32>, MachineFileError> {
        let mut ls = Vec::new();
        for k in r.children().filter(Node::is_element) {
            if k.tag_name().name() != "link_ctn" {
                return Err(self.unsupported(k, k.tag_name().name()));
            }
            self.attrs(k, &["id", "direction"])?;
            let id = self.need(k, "id")?;
            let l = *f.links.get(id).ok_or_else(|| {
                self.err(
                    k,
                    format!("<link_ctn>: unknown link `{id}` (declare it before the routes)"),
                )
            })?;
            let up = match k.attribute("direction") {
                None | Some("NONE") => {
                    if l.up != l.down {
                        return Err(self.err(k, format!("<link_ctn id=\"{id}\">: a SPLITDUPLEX link needs direction=\"UP\" or \"DOWN\"")));
                    }
                    true
                }
                Some("UP") => true,
                Some("DOWN") => false,
                Some(v) => {
                    return Err(
                        self.err(k, format!("<link_ctn direction=\"{v}\">: UP, DOWN or NONE"))
                    );
                }
            };
            ls.push(if up != back { l.up } else { l.down });
        }
        if back {
            ls.reverse();
        }
        Ok(ls)
    }

    fn named(&self, f: &Flat, n: Node, attr: &str) -> Result<usize, MachineFileError> {
        let v = self.need(n, attr)?;
        f.by_name.get(v).copied().ok_or_else(|| {
            self.err(
                n,
                format!(
                    "<{} {attr}=\"{v}\">: no host, router or zone of that name (declare it first)",
                    n.tag_name().name()
                ),
            )
        })
    }

    /// Reads `n` (a zone or cluster) into `f` under `parent`.
    fn flat_element(
        &self,
        f: &mut Flat,
        n: Node<'_, 'i>,
        parent: Option<usize>,
    ) -> Result<(), MachineFileError> {
        if n.tag_name().name() == "cluster" {
            return self.flat_cluster(f, n, parent);
        }
        self.attrs(n, &["id", "routing"])?;
        self.note_props(n)?;
        let id = self.need(n, "id")?;
        let routing = self.need(n, "routing")?;
        let kind = match routing {
            "Full" => Kind::Full,
            "Floyd" => Kind::Floyd,
            "Dijkstra" | "DijkstraCache" => Kind::Dijkstra,
            "Cluster" => Kind::Star,
            "None" => Kind::Empty,
            "Vivaldi" => Kind::Vivaldi,
            _ => {
                return Err(self.err(n, format!("<zone routing=\"{routing}\">: netsim imports Full, Floyd, Dijkstra, Cluster and None zones")));
            }
        };
        if parent.is_some_and(|p| f.path(p).len() >= MAX_DEPTH) {
            return Err(self.err(
                n,
                format!("<zone>: zones nested more than {MAX_DEPTH} deep"),
            ));
        }
        let z = self.new_zone(f, n, id, kind, parent)?;
        let mut backbone: Option<u32> = None;
        let mut hostlinks = Vec::new();
        for k in n.children().filter(Node::is_element) {
            let ln = self.line(k);
            match k.tag_name().name() {
                "prop" => {}
                "zone" | "cluster" => self.flat_element(f, k, Some(z))?,
                "host" => {
                    self.refuse(k, &["availability_file", "state_file", "speed_file"])?;
                    self.attrs(k, &["id", "speed", "core", "pstate", "coordinates"])?;
                    self.only_props(k, &["disk", "mount"])?;
                    let hid = self.need(k, "id")?;
                    let speed = self.host_speed(k)?;
                    let cores = self.cores(k)?;
                    let h = self.add_host(f, k, hid, cores, speed, z)?;
                    f.nps[h].coords = self.coords(k, routing)?;
                }
                "router" => {
                    self.attrs(k, &["id", "coordinates"])?;
                    let rid = self.need(k, "id")?;
                    let r = f.np(rid, Some(z), None);
                    let r = self.fail(k, r)?;
                    f.nps[r].coords = self.coords(k, routing)?;
                }
                "peer" => {
                    self.refuse(k, &["availability_file", "state_file", "speed_file"])?;
                    self.attrs(k, &["id", "speed", "bw_in", "bw_out", "lat", "coordinates"])?;
                    self.only_props(k, &[])?;
                    if kind != Kind::Vivaldi {
                        return Err(self.err(k, "<peer> outside a Vivaldi zone".into()));
                    }
                    if let Some(l) = k.attribute("lat") {
                        self.note(k, format!("<peer lat=\"{l}\">: ignored by SimGrid 3.32 (the z coordinate is the latency)"));
                    }
                    let pid = self.need(k, "id")?;
                    let speed = self
                        .value(k, "speed", units::speed)?
                        .ok_or_else(|| self.err(k, "<peer> needs `speed`".into()))?;
                    let bw = |a: &str| {
                        self.value(k, a, units::rate)?
                            .ok_or_else(|| self.err(k, format!("<peer> needs `{a}`")))
                    };
                    let (bin, bout) = (bw("bw_in")?, bw("bw_out")?);
                    let h = self.add_host(f, k, pid, 1, speed, z)?;
                    f.nps[h].coords = self.coords(k, routing)?;
                    // VivaldiZone::set_peer_link: SHARED, no latency.
                    let mut mk = |name: String, b| -> Result<u32, MachineFileError> {
                        f.link(&name, b, Time::ZERO, Policy::Shared)
                            .map_err(|m| self.err(k, m))?;
                        Ok(f.links[&name].up)
                    };
                    let up = mk(format!("link_{pid}_UP"), bout)?;
                    let down = mk(format!("link_{pid}_DOWN"), bin)?;
                    let e = f.zones[z].star.entry(f.nps[h].id).or_default();
                    e.up = Some(vec![up]);
                    e.down = Some(vec![down]);
                }
                "link" | "backbone" => {
                    self.refuse(k, &["bandwidth_file", "latency_file", "state_file"])?;
                    self.attrs(k, &["id", "bandwidth", "latency", "sharing_policy"])?;
                    self.only_props(k, &[])?;
                    let lid = self.need(k, "id")?;
                    let bw = self.value(k, "bandwidth", units::rate)?.ok_or_else(|| {
                        self.err(k, format!("<{}> needs `bandwidth`", k.tag_name().name()))
                    })?;
                    let lat = self.value(k, "latency", units::time)?.unwrap_or(Time::ZERO);
                    let policy = self.policy(k, "sharing_policy", Policy::Shared)?;
                    f.link(lid, bw, lat, policy).map_err(|m| self.err(k, m))?;
                    if k.has_tag_name("backbone") {
                        if kind != Kind::Star {
                            return Err(self.err(k, "<backbone> outside a Cluster zone".into()));
                        }
                        backbone = Some(f.links[lid].up);
                    }
                }
                "host_link" => {
                    self.attrs(k, &["id", "up", "down"])?;
                    if kind != Kind::Star {
                        return Err(self.err(k, "<host_link> outside a Cluster zone".into()));
                    }
                    hostlinks.push(k);
                }
                "cabinet" => {
                    self.attrs(
                        k,
                        &["id", "prefix", "suffix", "radical", "speed", "bw", "lat"],
                    )?;
                    if kind != Kind::Star {
                        return Err(self.err(k, "<cabinet> outside a Cluster zone".into()));
                    }
                    hostlinks.push(k);
                }
                "route" | "zoneRoute" | "ASroute" | "bypassRoute" | "bypassZoneRoute"
                | "bypassASroute" => {
                    self.flat_route(f, k, z, ln)?;
                }
                other => return Err(self.unsupported(k, other)),
            }
        }
        // A Cluster zone's host links and cabinets, after its backbone
        // (SimGrid populates the zone when it closes).
        for k in hostlinks {
            if k.has_tag_name("host_link") {
                let h = self.named(f, k, "id")?;
                let l = |a: &str| -> Result<u32, MachineFileError> {
                    let v = self.need(k, a)?;
                    f.links.get(v).map(|l| l.up).ok_or_else(|| {
                        self.err(k, format!("<host_link {a}=\"{v}\">: unknown link"))
                    })
                };
                let (u, d) = (l("up")?, l("down")?);
                self.star_host(f, z, h, u, d, backbone);
            } else {
                let set = self.host_set(k)?;
                let (speed, bw, lat) = (set.speed, set.bw, set.lat);
                for hid in set.names {
                    let h = self.add_host(f, k, &hid, 1, speed, z)?;
                    let mut mk = |name: String| -> Result<u32, MachineFileError> {
                        f.link(&name, bw, lat, Policy::Shared)
                            .map_err(|m| self.err(k, m))?;
                        Ok(f.links[&name].up)
                    };
                    let u = mk(format!("link_{hid}_UP"))?;
                    let d = mk(format!("link_{hid}_DOWN"))?;
                    self.star_host(f, z, h, u, d, backbone);
                }
            }
        }
        self.seal(f, z).map_err(|m| self.err(n, m))
    }

    /// A host's, router's or peer's `coordinates`, read in a Vivaldi zone
    /// (three numbers), noted elsewhere.
    fn coords(&self, k: Node, routing: &str) -> Result<Option<[f64; 3]>, MachineFileError> {
        if routing != "Vivaldi" {
            self.coordinates(k, routing);
            return Ok(None);
        }
        let Some(c) = k.attribute("coordinates") else {
            return Ok(None);
        };
        let v: Vec<f64> = c
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .filter(|x: &f64| x.is_finite())
            .collect();
        if v.len() != 3 || c.split_whitespace().count() != 3 {
            return Err(self.err(
                k,
                format!(
                    "<{} coordinates=\"{c}\">: three numbers",
                    k.tag_name().name()
                ),
            ));
        }
        Ok(Some([v[0], v[1], v[2]]))
    }

    fn add_host(
        &self,
        f: &mut Flat,
        k: Node,
        id: &str,
        cores: u16,
        speed: f64,
        z: usize,
    ) -> Result<usize, MachineFileError> {
        let h = f.hosts.len() as u32;
        if h as usize >= MAX_PAIR_HOSTS {
            return Err(self.err(k, format!(
                "host `{id}`: more than {MAX_PAIR_HOSTS} hosts in a platform that needs a route per pair of hosts (netsim's bound on its pair table); a lone <cluster> has no such bound"
            )));
        }
        let r = f.np(id, Some(z), Some(h));
        let np = self.fail(k, r)?;
        f.hosts.push((id.into(), cores, speed));
        Ok(np)
    }

    /// `sg_platf_cluster_set_hostlink`: up `[up, backbone]`, down
    /// `[backbone, down]`, not symmetrical.
    fn star_host(&self, f: &mut Flat, z: usize, h: usize, up: u32, down: u32, bb: Option<u32>) {
        let id = f.nps[h].id;
        let e = f.zones[z].star.entry(id).or_default();
        e.up = Some([Some(up), bb].into_iter().flatten().collect());
        e.down = Some([bb, Some(down)].into_iter().flatten().collect());
    }

    fn new_zone(
        &self,
        f: &mut Flat,
        n: Node,
        id: &str,
        kind: Kind,
        parent: Option<usize>,
    ) -> Result<usize, MachineFileError> {
        let z = f.zones.len();
        f.zones.push(Zone {
            name: id.into(),
            kind,
            parent,
            np: 0,
            members: Vec::new(),
            routes: HashMap::new(),
            edges: Vec::new(),
            star: HashMap::new(),
            bypass: HashMap::new(),
            pred: Vec::new(),
            graph: Default::default(),
            dragonfly: None,
            line: self.line(n),
        });
        let r = f.np(id, parent, None);
        f.zones[z].np = self.fail(n, r)?;
        f.nps[f.zones[z].np].is_zone = true;
        Ok(z)
    }

    /// Star zones give members without routes empty ones, Floyd computes
    /// its tables (SimGrid's `do_seal`).
    fn seal(&self, f: &mut Flat, z: usize) -> Result<(), String> {
        match f.zones[z].kind {
            Kind::Star | Kind::Vivaldi => {
                for i in 0..f.zones[z].members.len() {
                    f.zones[z].star.entry(i).or_insert_with(|| StarEnd {
                        up: Some(Vec::new()),
                        down: Some(Vec::new()),
                        gw: None,
                    });
                }
            }
            Kind::Floyd => {
                let n = f.zones[z].members.len();
                if n > MAX_FLOYD_MEMBERS {
                    return Err(format!(
                        "<zone routing=\"Floyd\">: {n} hosts, routers and zones, above netsim's {MAX_FLOYD_MEMBERS} for Floyd's n^3 tables; use Dijkstra"
                    ));
                }
                f.seal_floyd(z)
            }
            Kind::Dijkstra => {
                let zone = &mut f.zones[z];
                let (node, of, adj) = &mut zone.graph;
                for &(a, b) in &zone.edges {
                    for v in [a, b] {
                        if let std::collections::hash_map::Entry::Vacant(e) = of.entry(v) {
                            e.insert(node.len());
                            node.push(v);
                            adj.push(Vec::new());
                        }
                    }
                    adj[of[&a]].push(of[&b]);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `<route>`, `<zoneRoute>` and the bypass routes of zone `z`.
    fn flat_route(
        &self,
        f: &mut Flat,
        r: Node,
        z: usize,
        line: usize,
    ) -> Result<(), MachineFileError> {
        let tag = r.tag_name().name();
        let inter = tag.contains("one") || tag.contains("AS");
        let bypass = tag.starts_with("bypass");
        if inter {
            self.attrs(r, &["src", "dst", "gw_src", "gw_dst", "symmetrical"])?;
        } else {
            self.attrs(r, &["src", "dst", "symmetrical"])?;
        }
        let (src, dst) = (self.named(f, r, "src")?, self.named(f, r, "dst")?);
        let gw = if inter {
            let g = (self.named(f, r, "gw_src")?, self.named(f, r, "gw_dst")?);
            for (a, v) in [("gw_src", g.0), ("gw_dst", g.1)] {
                if f.nps[v].is_zone {
                    return Err(self.err(
                        r,
                        format!(
                            "<{tag} {a}>: `{}` is a zone; a gateway is a host or a router",
                            f.nps[v].name
                        ),
                    ));
                }
            }
            Some(g)
        } else {
            None
        };
        let sym = !bypass
            && match r.attribute("symmetrical").unwrap_or("YES") {
                "YES" | "yes" => true,
                "NO" | "no" => false,
                v => return Err(self.err(r, format!("<{tag} symmetrical=\"{v}\">: YES or NO"))),
            };
        let fwd = self.zone_links(f, r, false)?;
        if fwd.is_empty() {
            return Err(self.err(r, format!("<{tag}> has no <link_ctn>")));
        }
        if bypass {
            f.zones[z].bypass.insert(
                (src, dst),
                Hop {
                    links: fwd,
                    gw,
                    line,
                },
            );
            return Ok(());
        }
        let kind = f.zones[z].kind;
        if matches!(kind, Kind::Star | Kind::Vivaldi | Kind::Empty) {
            return Err(self.err(
                r,
                format!(
                    "<{tag}> in a {} zone: SimGrid takes none there",
                    kind.name()
                ),
            ));
        }
        for e in [src, dst] {
            if f.nps[e].zone != Some(z) {
                return Err(self.err(
                    r,
                    format!(
                        "<{tag}>: `{}` is not directly in zone `{}`",
                        f.nps[e].name, f.zones[z].name
                    ),
                ));
            }
        }
        let (s, d) = (f.nps[src].id, f.nps[dst].id);
        if src == dst {
            return Ok(()); // within a host: the node's memory in netsim
        }
        let back_links = if sym {
            Some(self.zone_links(f, r, true)?)
        } else {
            None
        };
        let mut add = |a: usize, b: usize, h: Hop| -> Result<(), MachineFileError> {
            if f.zones[z].routes.insert((a, b), h).is_some() {
                return Err(self.err(r, format!("<{tag}>: a second route from `{}` to `{}` (routes are symmetrical by default)", f.nps[f.zones[z].members[a]].name, f.nps[f.zones[z].members[b]].name)));
            }
            f.zones[z].edges.push((a, b));
            Ok(())
        };
        add(
            s,
            d,
            Hop {
                links: fwd,
                gw,
                line,
            },
        )?;
        if let Some(back) = back_links {
            add(
                d,
                s,
                Hop {
                    links: back,
                    gw: gw.map(|(a, b)| (b, a)),
                    line,
                },
            )?;
        }
        Ok(())
    }

    /// A `<cluster topology="DRAGONFLY">` as SimGrid builds it
    /// (`DragonflyZone::generate_routers`, `generate_links`): hosts only
    /// (its routers are no netpoints), links `bw` times their count per
    /// level, SPLITDUPLEX by default or else SHARED, limiters of
    /// `limiter_link` on every host and router.
    fn dragonfly(
        &self,
        f: &mut Flat,
        c: Node,
        parent: Option<usize>,
    ) -> Result<(), MachineFileError> {
        let bad = || {
            self.err(c, "<cluster topo_parameters>: DRAGONFLY takes `groups,blue;chassis,black;blades,green;nodes`, positive counts".into())
        };
        let t = self.need(c, "topo_parameters")?;
        let parts: Vec<Vec<usize>> = t
            .split(';')
            .map(|p| {
                p.split(',')
                    .map(|x| x.trim().parse::<usize>().ok().filter(|&v| v > 0))
                    .collect::<Option<Vec<_>>>()
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        if parts.len() != 4 || parts[..3].iter().any(|p| p.len() != 2) || parts[3].len() != 1 {
            return Err(bad());
        }
        let dims = [parts[0][0], parts[1][0], parts[2][0], parts[3][0]];
        let (counts, [g, ch, b, n]) = ([parts[0][1], parts[1][1], parts[2][1]], dims);
        let routers = g.saturating_mul(ch).saturating_mul(b);
        if routers.saturating_mul(n) > MAX_PAIR_HOSTS || routers.saturating_mul(b + ch) > 1 << 22 {
            return Err(self.err(c, format!("<cluster topo_parameters=\"{t}\">: above netsim's {MAX_PAIR_HOSTS} hosts for per-pair routes")));
        }
        for a in ["bb_bw", "bb_lat", "bb_sharing_policy", "router_id"] {
            if c.attribute(a).is_some() {
                self.note(c, format!("<cluster {a}>: SimGrid's DRAGONFLY clusters have no backbone or router; ignored as SimGrid does"));
            }
        }
        self.note_loopback(c);
        let id = self.need(c, "id")?;
        let set = self.host_set(c)?;
        if set.names.len() != routers * n {
            return Err(self.err(
                c,
                format!(
                    "<cluster>: the dragonfly {t} has {} hosts but `radical` names {}",
                    routers * n,
                    set.names.len()
                ),
            ));
        }
        let (speed, bw, lat) = (set.speed, set.bw, set.lat);
        let cores = self.cores(c)?;
        let policy = match self.policy(c, "sharing_policy", Policy::SplitDuplex)? {
            Policy::SplitDuplex => Policy::SplitDuplex,
            _ => Policy::Shared,
        };
        let limiter = self
            .value(c, "limiter_link", units::rate)?
            .filter(|l| l.as_bytes_per_sec() > 0);
        let z = self.new_zone(f, c, id, Kind::Dragonfly, parent)?;
        let mut df = Dragonfly {
            dims,
            ..Default::default()
        };
        for name in &set.names {
            let h = self.add_host(f, c, name, cores, speed, z)?;
            let lim = match limiter {
                Some(l) => {
                    let name = format!("{id}_link_{}_limiter", f.nps[h].id);
                    f.link(&name, l, Time::ZERO, Policy::Shared)
                        .map_err(|m| self.err(c, m))?;
                    Some(f.links[&name].up)
                }
                None => None,
            };
            df.host_limiter.push(lim);
        }
        for r in 0..routers {
            df.router_limiter.push(match limiter {
                Some(l) => {
                    let name = format!("{id}_router_{r}_limiter");
                    f.link(&name, l, Time::ZERO, Policy::Shared)
                        .map_err(|m| self.err(c, m))?;
                    Some(f.links[&name].up)
                }
                None => None,
            });
        }
        let mut mk = |name: String, k: usize| -> Result<(u32, u32), MachineFileError> {
            let rate = Bandwidth::bytes_per_sec(bw.as_bytes_per_sec().saturating_mul(k as u64));
            f.link(&name, rate, lat, policy)
                .map_err(|m| self.err(c, m))?;
            let l = f.links[&name];
            Ok((l.up, l.down))
        };
        df.green = vec![vec![None; b]; routers];
        df.black = vec![vec![None; ch]; routers];
        df.blue = vec![None; routers];
        for r in 0..routers {
            let mut v = Vec::with_capacity(n);
            for j in 0..n {
                v.push(mk(format!("{id}_local_{r}_{j}"), 1)?);
            }
            df.local.push(v);
        }
        for i in 0..g * ch {
            for j in 0..b {
                for k in j + 1..b {
                    let (u, d) = mk(format!("{id}_green_{i}_{j}_{k}"), counts[2])?;
                    df.green[i * b + j][k] = Some(u);
                    df.green[i * b + k][j] = Some(d);
                }
            }
        }
        for i in 0..g {
            for j in 0..ch {
                for k in j + 1..ch {
                    for l in 0..b {
                        let (u, d) = mk(format!("{id}_black_{i}_{j}_{k}_{l}"), counts[1])?;
                        df.black[i * b * ch + j * b + l][k] = Some(u);
                        df.black[i * b * ch + k * b + l][j] = Some(d);
                    }
                }
            }
        }
        for i in 0..g {
            for j in i + 1..g {
                let (ri, rj) = (i * b * ch + j, j * b * ch + i);
                let (u, d) = mk(format!("{id}_blue_{i}_{j}"), counts[0])?;
                if ri < routers && rj < routers {
                    df.blue[ri] = Some(u);
                    df.blue[rj] = Some(d);
                }
            }
        }
        f.zones[z].dragonfly = Some(Box::new(df));
        Ok(())
    }

    /// A flat `<cluster>` as SimGrid builds it (`sg_platf_new_cluster_flat`):
    /// a star zone whose hosts go up `[limiter, private UP, backbone]` and
    /// down the reverse; its router has empty routes.
    fn flat_cluster(
        &self,
        f: &mut Flat,
        c: Node,
        parent: Option<usize>,
    ) -> Result<(), MachineFileError> {
        for a in c.attributes() {
            if !super::cluster::CLUSTER_ATTRS.contains(&a.name()) {
                return Err(self.err(
                    c,
                    format!(
                        "<cluster {}=...>: unknown or unsupported attribute",
                        a.name()
                    ),
                ));
            }
        }
        self.only_props(c, &[])?;
        let topology = c.attribute("topology").unwrap_or("FLAT");
        if topology == "DRAGONFLY" {
            return self.dragonfly(f, c, parent);
        }
        if topology == "TORUS" || topology == "FAT_TREE" {
            return Err(self.err(c, format!("<cluster topology=\"{topology}\"> inside other zones: netsim imports a {topology} cluster alone")));
        }
        if topology != "FLAT" {
            return Err(self.err(c, format!("<cluster topology=\"{topology}\">: netsim imports FLAT, TORUS, FAT_TREE and DRAGONFLY")));
        }

        self.note_loopback(c);
        let id = self.need(c, "id")?;
        let prefix = c.attribute("prefix").unwrap_or("");
        let suffix = c.attribute("suffix").unwrap_or("");
        let set = self.host_set(c)?;
        let (speed, bw, lat) = (set.speed, set.bw, set.lat);
        let cores = self.cores(c)?;
        // SimGrid makes a private link SPLITDUPLEX or else SHARED (a
        // FATPIPE `sharing_policy` gives a SHARED link).
        let policy = match self.policy(c, "sharing_policy", Policy::SplitDuplex)? {
            Policy::SplitDuplex => Policy::SplitDuplex,
            _ => Policy::Shared,
        };
        let z = self.new_zone(f, c, id, Kind::Star, parent)?;
        let bb_bw = self.value(c, "bb_bw", units::rate)?;
        let bb_lat = self.value(c, "bb_lat", units::time)?;
        let bb = if bb_bw.is_some_and(|b| b.as_bytes_per_sec() > 0)
            || bb_lat.is_some_and(|l| l > Time::ZERO)
        {
            let p = self.policy(c, "bb_sharing_policy", Policy::Shared)?;
            let name = format!("{id}_backbone");
            let bw = bb_bw.ok_or_else(|| {
                self.err(
                    c,
                    "<cluster bb_lat> without bb_bw: a backbone of no bandwidth".into(),
                )
            })?;
            f.link(&name, bw, bb_lat.unwrap_or(Time::ZERO), p)
                .map_err(|m| self.err(c, m))?;
            Some(f.links[&name].up)
        } else {
            None
        };
        let limiter = self.value(c, "limiter_link", units::rate)?;
        for (hid, i) in set.names.iter().zip(&set.numbers) {
            let h = self.add_host(f, c, hid, cores, speed, z)?;
            let lid = format!("{id}_link_{i}");
            let lim = match limiter {
                Some(b) if b.as_bytes_per_sec() > 0 => {
                    let name = format!("{lid}_limiter");
                    f.link(&name, b, Time::ZERO, Policy::Shared)
                        .map_err(|m| self.err(c, m))?;
                    Some(f.links[&name].up)
                }
                _ => None,
            };
            f.link(&lid, bw, lat, policy).map_err(|m| self.err(c, m))?;
            let l = f.links[&lid];
            let hid_id = f.nps[h].id;
            let up: Vec<u32> = [lim, Some(l.up), bb].into_iter().flatten().collect();
            let down: Vec<u32> = [bb, Some(l.down), lim].into_iter().flatten().collect();
            f.zones[z].star.insert(
                hid_id,
                StarEnd {
                    up: Some(up),
                    down: Some(down),
                    gw: None,
                },
            );
        }
        let router = match c.attribute("router_id") {
            Some(r) if !r.is_empty() => r.to_string(),
            _ => format!("{prefix}{id}_router{suffix}"),
        };
        let r = f.np(&router, Some(z), None);
        self.fail(c, r)?;
        self.seal(f, z).map_err(|m| self.err(c, m))
    }
}

#[cfg(test)]
mod tests;
