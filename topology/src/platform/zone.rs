//! Zones of hosts, links and routes: Full (a star), Floyd and Dijkstra
//! (a graph).

use super::{Cx, Platform, Policy, SgLink, machine_msg, units};
use crate::file::MachineFileError;
use crate::link::LinkParams;
use crate::machine::{MachineBuilder, VRef};
use crate::pair_routes::PairRoute;
use crate::transport::LinkId;
use crate::transport::NodeId;
use roxmltree::Node;
use rustc_hash::FxHashMap;
use sim_core::{Bandwidth, Time, limits};

/// A route as read: source, destination, its links with their direction
/// (0 none, 1 UP, 2 DOWN), and its element (for error lines).
type Route<'s, 'n> = (&'s str, &'s str, Vec<(&'s str, u8, SgLink)>, Node<'n, 'n>);

/// A link by name and direction (0 none, 1 UP, 2 DOWN).
type Dir<'s> = (&'s str, u8);

/// A host's end of a Full zone's star: the link and direction its
/// routes start (or end) with, and that link; `None` until a route gives
/// it.
type End<'s> = Option<(Dir<'s>, SgLink)>;

/// The index of host `h` among the zone's hosts.
fn host_index(vref: &FxHashMap<&str, (VRef, usize)>, h: &str) -> usize {
    match vref[h].0 {
        VRef::Host(i) => i as usize,
        VRef::Net(_) => unreachable!("Full zones have hosts only"),
    }
}

/// The name of the zone's host number `h`, for messages.
fn host_name<'s>(vref: &FxHashMap<&'s str, (VRef, usize)>, h: usize) -> &'s str {
    vref.iter()
        .find(|(_, v)| v.0 == VRef::Host(h as u32))
        .map_or("?", |(k, _)| *k)
}

impl<'i> Cx<'_, 'i> {
    // ------------------------------------------------------- zones

    /// A `<host>`'s speed: of its power state `pstate` (default 0) in
    /// its list of speeds, as SimGrid starts the host.
    pub(super) fn host_speed(&self, n: Node) -> Result<f64, MachineFileError> {
        let speeds = self
            .value(n, "speed", units::speeds)?
            .ok_or_else(|| self.err(n, "<host> needs `speed`".into()))?;
        let p = n.attribute("pstate").unwrap_or("0");
        p.trim()
            .parse::<f64>()
            .ok()
            .filter(|&i| i >= 0.0 && i.fract() == 0.0 && (i as usize) < speeds.len())
            .map(|i| speeds[i as usize])
            .filter(|&s| s > 0.0)
            .ok_or_else(|| {
                self.err(
                    n,
                    format!(
                        "<host pstate=\"{p}\">: not a power state of positive speed among its {} speed(s)",
                        speeds.len()
                    ),
                )
            })
    }

    /// Notes Vivaldi coordinates outside a Vivaldi zone, where SimGrid
    /// does not read them either.
    pub(super) fn coordinates(&self, n: Node, routing: &str) {
        if let Some(c) = n.attribute("coordinates") {
            self.note(n, format!("<{} coordinates=\"{c}\">: only a Vivaldi zone reads them; this zone is {routing}", n.tag_name().name()));
        }
    }

    pub(super) fn zone(&self, z: Node<'_, 'i>) -> Result<Platform, MachineFileError> {
        let routing = self.need(z, "routing")?;
        if !matches!(routing, "Full" | "Floyd" | "Dijkstra" | "DijkstraCache") {
            return Err(self.err(
                z,
                format!(
                    "<zone routing=\"{routing}\">: netsim imports Full, Floyd and Dijkstra zones"
                ),
            ));
        }
        let mut b = MachineBuilder::new(format!("zone {}", z.attribute("id").unwrap_or("")));
        let mut vref: FxHashMap<&str, (VRef, usize)> = FxHashMap::default();
        let mut links: FxHashMap<&str, SgLink> = FxHashMap::default();
        let mut routes = Vec::new();
        let mut speeds = Vec::new();
        for n in z.children().filter(Node::is_element) {
            let ln = self.line(n);
            match n.tag_name().name() {
                "prop" => {}
                "host" => {
                    self.host_attrs(n)?;
                    self.only_props(n, &["disk", "mount"])?;
                    self.coordinates(n, routing);
                    let id = self.need(n, "id")?;
                    let speed = self.host_speed(n)?;
                    speeds.push(speed);
                    if let Some((_, l)) = vref.get(id) {
                        return Err(self.err(n, format!("`{id}` is already declared on line {l}")));
                    }
                    let v = b.host(id, 1, self.cores(n)?);
                    vref.insert(id, (v, ln));
                }
                "router" if routing != "Full" => {
                    self.attrs(n, &["id", "coordinates"])?;
                    self.coordinates(n, routing);
                    let id = self.need(n, "id")?;
                    if let Some((_, l)) = vref.get(id) {
                        return Err(self.err(n, format!("`{id}` is already declared on line {l}")));
                    }
                    vref.insert(id, (b.net(id, false), ln));
                }
                "link" => {
                    let (id, l) = self.zone_link(n, &links, ln)?;
                    links.insert(id, l);
                }
                "route" => routes.push(n),
                other => return Err(self.unsupported(n, other)),
            }
        }
        if b.hosts() < 2 {
            // No star of one host: imported per pair.
            return Err(self.err(z, format!("<zone> has {} hosts", b.hosts())));
        }
        let routers = (vref.len() as u64 - b.hosts() as u64).max(1);
        if routers * b.hosts() as u64 > limits::MAX_ROUTE_TABLE_ENTRIES {
            return Err(self.err(
                z,
                format!(
                    "<zone>: {routers} routers x {} hosts needs a routing table above netsim's MAX_ROUTE_TABLE_ENTRIES ({})",
                    b.hosts(),
                    limits::MAX_ROUTE_TABLE_ENTRIES
                ),
            ));
        }
        // Each route as (src, dst, [(link, direction)], node).
        let mut parsed = Vec::new();
        // Each host's own route to itself, if it has one.
        let mut own: Vec<Option<PairRoute>> = vec![None; b.hosts() as usize];
        for r in routes {
            self.attrs(r, &["src", "dst", "symmetrical"])?;
            let src = self.need(r, "src")?;
            let dst = self.need(r, "dst")?;
            for e in [src, dst] {
                if !vref.contains_key(e) {
                    return Err(self.err(
                        r,
                        format!(
                            "<route>: `{e}` is not a host{} of this zone",
                            if routing == "Full" { "" } else { " or router" }
                        ),
                    ));
                }
            }
            let ls = self.route_links(r, &links)?;
            let sym = match r.attribute("symmetrical").unwrap_or("YES") {
                "YES" | "yes" => true,
                "NO" | "no" => false,
                v => return Err(self.err(r, format!("<route symmetrical=\"{v}\">: YES or NO"))),
            };
            if src == dst {
                // A host's route to itself: FATPIPE links only bound its
                // flows; another link is shared, which per-pair routes
                // model.
                let VRef::Host(h) = vref[src].0 else {
                    continue; // a router's: no host's route
                };
                let h = h as usize;
                if ls.iter().any(|(_, _, l)| l.policy != Policy::FatPipe) || own[h].is_some() {
                    return Err(self.err(r, format!("<route src=\"{src}\" dst=\"{dst}\">: a route to itself over a shared link or a second one: imported per pair")));
                }
                own[h] = Some(PairRoute {
                    links: Vec::new(),
                    latency: ls
                        .iter()
                        .map(|(_, _, l)| l.lat)
                        .fold(Time::ZERO, Time::saturating_add),
                    cap: ls.iter().map(|(_, _, l)| l.bw).min(),
                });
                continue;
            }
            parsed.push((src, dst, ls.clone(), r));
            if sym {
                let back: Vec<_> = ls
                    .iter()
                    .rev()
                    .map(|&(i, d, l)| (i, [0, 2, 1][d as usize], l))
                    .collect();
                parsed.push((dst, src, back, r));
            }
        }
        let mut p = if routing == "Full" {
            self.full_star(z, b, &vref, &parsed, speeds)
        } else {
            self.graph(z, b, &vref, &parsed, speeds)
        }?;
        // The other hosts take the network model's `__loopback__`.
        let lo = own
            .into_iter()
            .map(|r| r.unwrap_or_else(super::network_loopback))
            .collect();
        p.machine
            .set_loopback_routes(lo)
            .map_err(|e| self.err(z, machine_msg(e)))?;
        self.mark_unequal_latencies(&p.machine);
        Ok(p)
    }

    /// A `<link>` (or `<backbone>`) as declared: its id, bandwidth,
    /// latency (0 if not given) and sharing policy (SHARED if not given).
    pub(super) fn link_decl<'n>(
        &self,
        k: Node<'n, 'i>,
    ) -> Result<(&'n str, Bandwidth, Time, Policy), MachineFileError> {
        self.link_attrs(k)?;
        self.only_props(k, &[])?;
        let id = self.need(k, "id")?;
        let bw = self
            .value(k, "bandwidth", units::rate)?
            .ok_or_else(|| self.err(k, format!("<{}> needs `bandwidth`", k.tag_name().name())))?;
        let lat = self.value(k, "latency", units::time)?.unwrap_or(Time::ZERO);
        let policy = self.policy(k, "sharing_policy", Policy::Shared)?;
        Ok((id, bw, lat, policy))
    }

    /// A zone's `<link>` (line `ln`): its id and parameters; refused if
    /// `links` already has its id.
    fn zone_link<'n>(
        &self,
        n: Node<'n, 'i>,
        links: &FxHashMap<&str, SgLink>,
        ln: usize,
    ) -> Result<(&'n str, SgLink), MachineFileError> {
        let (id, bw, lat, policy) = self.link_decl(n)?;
        if let Some(l) = links.get(id) {
            return Err(self.err(
                n,
                format!("link `{id}` is already declared on line {}", l.line),
            ));
        }
        Ok((
            id,
            SgLink {
                bw,
                lat,
                policy,
                line: ln,
            },
        ))
    }

    /// A `<route>`'s links with their direction (0 none, 1 UP, 2 DOWN),
    /// each declared in `links`; at least one.
    fn route_links<'n>(
        &self,
        r: Node<'n, 'i>,
        links: &FxHashMap<&str, SgLink>,
    ) -> Result<Vec<(&'n str, u8, SgLink)>, MachineFileError> {
        let mut ls = Vec::new();
        for k in r.children().filter(Node::is_element) {
            if k.tag_name().name() != "link_ctn" {
                return Err(self.unsupported(k, k.tag_name().name()));
            }
            self.attrs(k, &["id", "direction"])?;
            let id = self.need(k, "id")?;
            let l = *links.get(id).ok_or_else(|| {
                self.err(
                    k,
                    format!("<link_ctn>: unknown link `{id}` (declare it before the routes)"),
                )
            })?;
            let dir = match k.attribute("direction") {
                None | Some("NONE") => {
                    if l.policy == Policy::SplitDuplex {
                        return Err(self.err(k, format!("<link_ctn id=\"{id}\">: a SPLITDUPLEX link needs direction=\"UP\" or \"DOWN\"")));
                    }
                    0u8
                }
                Some("UP") => 1,
                Some("DOWN") => 2,
                Some(v) => {
                    return Err(
                        self.err(k, format!("<link_ctn direction=\"{v}\">: UP, DOWN or NONE"))
                    );
                }
            };
            ls.push((id, dir, l));
        }
        if ls.is_empty() {
            return Err(self.err(r, "<route> has no <link_ctn>".into()));
        }
        Ok(ls)
    }

    /// Floyd and Dijkstra: a route of one link is a cable.
    fn graph(
        &self,
        z: Node,
        mut b: MachineBuilder,
        vref: &FxHashMap<&str, (VRef, usize)>,
        routes: &[Route<'_, '_>],
        speeds: Vec<f64>,
    ) -> Result<Platform, MachineFileError> {
        let mut used: FxHashMap<&str, Node> = FxHashMap::default();
        // Each link's cable (its directions are links 2c and 2c + 1), and
        // the SHARED cables crossed both ways: one capacity each.
        let mut cable: FxHashMap<&str, u32> = FxHashMap::default();
        let (mut shared, mut why) = (Vec::new(), None);
        for (src, dst, ls, r) in routes {
            let (a, bv) = (vref[src].0, vref[dst].0);
            if ls.len() != 1 {
                return Err(self.err(*r, format!("<route src=\"{src}\" dst=\"{dst}\">: {} links; in a Floyd or Dijkstra zone netsim takes a route of one link between neighbours", ls.len())));
            }
            if matches!((a, bv), (VRef::Host(_), VRef::Host(_))) {
                return Err(self.err(*r, format!("<route src=\"{src}\" dst=\"{dst}\">: hosts connect to routers in netsim; put a <router> between them")));
            }
            let (id, _, l) = ls[0];
            if l.policy == Policy::FatPipe {
                return Err(self.err(*r, format!("link `{id}` (line {}) is FATPIPE: its flows never share it in SimGrid, and netsim's cables share each direction max-min; declare it SHARED or SPLITDUPLEX", l.line)));
            }
            if let Some(first) = used.get(id) {
                if first.range() != r.range() {
                    return Err(self.err(*r, format!("link `{id}` is in a second route (the first is on line {}); netsim's cables are one link each", self.line(*first))));
                }
                if l.policy == Policy::Shared && why.is_none() {
                    why = Some(self.err(*r, format!("link `{id}` (line {}) is SHARED and this route is symmetrical: SimGrid shares the link between the two directions (one capacity for both)", l.line)).to_string());
                }
                if l.policy == Policy::Shared {
                    let c = cable[id];
                    shared.push(vec![LinkId(2 * c), LinkId(2 * c + 1)]);
                }
                continue; // the reverse of a symmetrical route
            }
            used.insert(id, *r);
            cable.insert(id, b.cables() as u32);
            let p = LinkParams {
                bandwidth: l.bw,
                latency: l.lat,
                buffer: 0,
            };
            b.cable(a, bv, p, p);
        }
        let mut p = self.build(z, b, speeds)?;
        if let Some(why) = why {
            p.machine
                .share_capacity(&shared, why)
                .map_err(|e| self.err(z, machine_msg(e)))?;
        }
        Ok(p)
    }

    /// Full routing: a star, each host's cable up its routes' first link,
    /// down the last link of the routes to it.
    fn full_star(
        &self,
        z: Node,
        mut b: MachineBuilder,
        vref: &FxHashMap<&str, (VRef, usize)>,
        routes: &[Route<'_, '_>],
        speeds: Vec<f64>,
    ) -> Result<Platform, MachineFileError> {
        let n = b.hosts() as usize;
        let (up, down) = self.star_ends(z, n, vref, routes)?;
        let both = self.shared_both_ways(z, vref, &up, &down)?;
        let res = self.star_middle(vref, routes, &up, &down)?;
        let half = res.div_euclid(2);
        let (add_up, add_down) = (res - half, half);
        let sw = b.net("switch", false);
        for h in 0..n {
            let (u, d) = (up[h].expect("checked").1, down[h].expect("checked").1);
            let lat = |base: Time, add: i128| -> Result<Time, MachineFileError> {
                let v = base.as_ps() as i128 + add;
                u64::try_from(v).map(Time::from_ps).map_err(|_| {
                    self.err(
                        z,
                        "a one-link route's latency cannot be split over two cables of this star"
                            .into(),
                    )
                })
            };
            b.cable(
                VRef::Host(h as u32),
                sw,
                LinkParams {
                    bandwidth: u.bw,
                    latency: lat(u.lat, add_up)?,
                    buffer: 0,
                },
                LinkParams {
                    bandwidth: d.bw,
                    latency: lat(d.lat, add_down)?,
                    buffer: 0,
                },
            );
        }
        let mut p = self.build(z, b, speeds)?;
        if let Some((_, why)) = both.first() {
            let m = &p.machine;
            let groups: Vec<Vec<LinkId>> = both
                .iter()
                .map(|(k, _)| {
                    let ups = (0..n).filter(|&h| up[h].expect("checked").0 == *k);
                    let downs = (0..n).filter(|&h| down[h].expect("checked").0 == *k);
                    ups.map(|h| m.injection_link(NodeId(h as u32)))
                        .chain(downs.map(|h| m.ejection_link(NodeId(h as u32))))
                        .collect()
                })
                .collect();
            p.machine
                .share_capacity(&groups, why.clone())
                .map_err(|e| self.err(z, machine_msg(e)))?;
        }
        Ok(p)
    }

    /// Each host's two ends of the star: the first link (and direction)
    /// of the routes from it, the last of the routes to it; refused when
    /// a host's routes start or end differently, a host has no route, or
    /// a link ends the routes of two hosts.
    fn star_ends<'s>(
        &self,
        z: Node,
        n: usize,
        vref: &FxHashMap<&str, (VRef, usize)>,
        routes: &[Route<'s, '_>],
    ) -> Result<(Vec<End<'s>>, Vec<End<'s>>), MachineFileError> {
        let idx = |h: &str| host_index(vref, h);
        let mut up: Vec<End> = vec![None; n];
        let mut down: Vec<End> = vec![None; n];
        for (src, dst, ls, r) in routes {
            let first = ls[0];
            let last = ls[ls.len() - 1];
            for (slot, end, who, what) in [
                (
                    &mut up[idx(src)],
                    first,
                    src,
                    "first link of the routes from",
                ),
                (&mut down[idx(dst)], last, dst, "last link of the routes to"),
            ] {
                let key = (end.0, end.1);
                match slot {
                    None => *slot = Some((key, end.2)),
                    Some((k, _)) if *k == key => {}
                    Some((k, _)) => {
                        return Err(self.err(*r, format!(
                            "<route src=\"{src}\" dst=\"{dst}\">: the {what} `{who}` is `{}` here and `{}` elsewhere; netsim maps a Full zone onto one switch with one cable per host, so every route from a host starts with the same link and every route to it ends with the same link",
                            end.0, k.0
                        )));
                    }
                }
            }
        }
        // One link (and direction) is one host's end only, except the link
        // of a one-link route, which is both hosts'.
        let single: Vec<&str> = routes
            .iter()
            .filter(|r| r.2.len() == 1)
            .map(|r| r.2[0].0)
            .collect();
        let mut owner: FxHashMap<(&str, u8, bool), usize> = FxHashMap::default();
        for (dir, ends) in [(true, &up), (false, &down)] {
            for (h, e) in ends.iter().enumerate() {
                let Some(((id, d), _)) = e else {
                    let name = host_name(vref, h);
                    return Err(self.err(
                        z,
                        format!(
                            "host `{name}` has no route {}; netsim needs one for its cable",
                            if dir { "from it" } else { "to it" }
                        ),
                    ));
                };
                if let Some(o) = owner.insert((id, *d, dir), h) {
                    if o != h && !single.contains(id) {
                        return Err(self.err(z, format!("link `{id}` starts (or ends) the routes of two hosts; netsim gives each host its own cable")));
                    }
                }
            }
        }
        Ok((up, down))
    }

    /// The SHARED links that end a host's routes both ways, each with the
    /// reason its cables share one capacity.
    fn shared_both_ways<'s>(
        &self,
        z: Node,
        vref: &FxHashMap<&str, (VRef, usize)>,
        up: &[End<'s>],
        down: &[End<'s>],
    ) -> Result<Vec<(Dir<'s>, String)>, MachineFileError> {
        // A SHARED link that ends a host's routes both ways is one
        // resource for the host's sending and receiving in SimGrid: the
        // cables that stand for it share one capacity (flow model only).
        let mut both: Vec<((&str, u8), String)> = Vec::new();
        for (h, (u, d)) in up.iter().zip(down).enumerate() {
            let (((id, dir), l), (end, dl)) = (u.expect("checked"), d.expect("checked"));
            if let Some((id, l)) = [(id, l), (end.0, dl)]
                .into_iter()
                .find(|(_, l)| l.policy == Policy::FatPipe)
            {
                return Err(self.err(z, format!(
                    "link `{id}` (line {}) ends routes and is FATPIPE: its flows never share it in SimGrid, and netsim's cables share each direction max-min; declare it SHARED or SPLITDUPLEX",
                    l.line
                )));
            }
            if l.policy == Policy::Shared && (id, dir) == end && !both.iter().any(|b| b.0 == end) {
                let name = host_name(vref, h);
                let why = self.err(z, format!(
                    "link `{id}` (line {}) is SHARED and carries both what host `{name}` sends and what it receives (one capacity for both directions)",
                    l.line
                ));
                both.push((end, why.to_string()));
            }
        }
        Ok(both)
    }

    /// The latency every route has beyond its two ends (one number for
    /// the star, split over the cables); refused when routes differ or a
    /// link between the ends could limit traffic.
    fn star_middle(
        &self,
        vref: &FxHashMap<&str, (VRef, usize)>,
        routes: &[Route<'_, '_>],
        up: &[End<'_>],
        down: &[End<'_>],
    ) -> Result<i128, MachineFileError> {
        let idx = |h: &str| host_index(vref, h);
        // The latency each route has beyond its two ends must be one
        // number, split over the cables; links in between must not limit.
        let ends: Vec<(&str, u8)> = up
            .iter()
            .chain(down.iter())
            .map(|e| e.expect("checked").0)
            .collect();
        let total_up: u128 = up
            .iter()
            .map(|e| e.expect("checked").1.bw.as_bytes_per_sec() as u128)
            .sum();
        let mut rest: Option<(i128, Node)> = None;
        for (src, dst, ls, r) in routes {
            let l_route: i128 = ls.iter().map(|(_, _, l)| l.lat.as_ps() as i128).sum();
            let (u, d) = (
                up[idx(src)].expect("checked").1,
                down[idx(dst)].expect("checked").1,
            );
            let res = l_route - u.lat.as_ps() as i128 - d.lat.as_ps() as i128;
            match rest {
                None => rest = Some((res, *r)),
                Some((x, first)) if x != res => {
                    return Err(self.err(*r, format!(
                        "<route src=\"{src}\" dst=\"{dst}\">: its latency beyond its first and last links differs from the route on line {} ({} ps against {} ps); netsim's star has one latency between the cables",
                        self.line(first), res, x
                    )));
                }
                _ => {}
            }
            for (id, dir, l) in ls.get(1..ls.len().saturating_sub(1)).unwrap_or(&[]) {
                if ends.contains(&(*id, *dir)) {
                    continue;
                }
                let need = if l.policy == Policy::FatPipe {
                    u.bw.as_bytes_per_sec() as u128
                } else {
                    total_up
                };
                if (l.bw.as_bytes_per_sec() as u128) < need {
                    return Err(self.err(*r, format!(
                        "<route src=\"{src}\" dst=\"{dst}\">: link `{id}` between its ends could limit traffic ({} below {need} B/s); netsim's star has no shared middle link",
                        l.bw
                    )));
                }
            }
        }
        Ok(rest.map_or(0, |r| r.0))
    }
}
