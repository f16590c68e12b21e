//! Reading a platform's elements into a [`Flat`]: zones, hosts, links,
//! routes and clusters, each checked and named by `file:line`.

use super::*;
use crate::transport::LinkId;

impl<'i> Cx<'_, 'i> {
    /// The platform under `root` flattened to per-pair routes.
    pub(in crate::platform) fn flatten(
        &self,
        body: Node<'_, 'i>,
    ) -> Result<Platform, MachineFileError> {
        let mut f = Flat::default();
        self.flat_element(&mut f, body, None)?;
        let n = f.hosts.len();
        if n == 0 {
            return Err(self.err(body, "the platform has no hosts".into()));
        }
        limits::check_nodes(n as u64).map_err(|m| self.err(body, m.to_string()))?;
        let mut b = MachineBuilder::new(format!("platform {}", body.attribute("id").unwrap_or("")));
        b.allow_one_host();
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
        // The network model's `__loopback__` (a FATPIPE link).
        let lo = crate::platform::network_loopback();
        f.loopback = Some(f.res.len() as u32);
        for _ in 0..2 {
            let bw = lo.cap.expect("the loopback has a bandwidth");
            f.res
                .push((bw, lo.latency, Policy::FatPipe, "__loopback__".into()));
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
        let err = std::cell::RefCell::new(None);
        let mut links = Vec::new();
        let mut route = |s: u32, d: u32| -> Option<PairRoute> {
            links.clear();
            if err.borrow().is_some() {
                return None;
            }
            f.extra.set(0);
            if let Err(e) = f.global(host_np[s as usize], host_np[d as usize], &mut links, 0) {
                // A pair without a route is refused only if a run uses
                // it (`Machine::unrouted`), as SimGrid fails only then.
                if !e.is_unrouted() {
                    *err.borrow_mut() = Some(e);
                }
                return None;
            }
            let (mut shared, mut lat, mut cap) = (Vec::new(), Time::ZERO, None::<Bandwidth>);
            for &l in &links {
                let r = &f.res[l as usize];
                lat = lat.saturating_add(r.1);
                if shared.contains(&LinkId(l + base))
                    || (r.2 == Policy::FatPipe && links.iter().filter(|&&x| x == l).count() > 1)
                {
                    *err.borrow_mut() = Some(FlatError::LinkTwiceOnRoute {
                        src: f.nps[host_np[s as usize]].name.clone(),
                        dst: f.nps[host_np[d as usize]].name.clone(),
                        link: r.3.clone(),
                    });
                    return None;
                }
                if r.2 == Policy::FatPipe {
                    cap = Some(cap.map_or(r.0, |c| c.min(r.0)));
                } else {
                    shared.push(LinkId(l + base));
                }
            }
            let lat = lat.saturating_add(Time::from_ps(f.extra.get()));
            if lat > limits::MAX_DURATION {
                *err.borrow_mut() = Some(FlatError::RouteTooLong {
                    src: f.nps[host_np[s as usize]].name.clone(),
                    dst: f.nps[host_np[d as usize]].name.clone(),
                    latency: lat,
                });
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
        let r = p.machine.set_pair_routes(&mut route, why);
        if let Some(e) = err.take() {
            return Err(self.err(body, e.to_string()));
        }
        r.map_err(|e| self.err(body, crate::platform::machine_msg(e)))?;
        // Each host's route to itself; if one has none (or one netsim
        // cannot take), none: two ranks on one host are then refused.
        let loops: Option<Vec<PairRoute>> = (0..n as u32).map(|h| route(h, h)).collect();
        if let Some(loops) = loops.filter(|_| err.take().is_none()) {
            p.machine
                .set_loopback_routes(loops)
                .map_err(|e| self.err(body, crate::platform::machine_msg(e)))?;
        }
        self.mark_unequal_latencies(&p.machine);
        *self.flat_links.borrow_mut() = Some(
            f.links
                .iter()
                .map(|(name, r)| {
                    let (bw, lat, policy, _) = f.res[r.up as usize].clone();
                    let mut ids = vec![LinkId(r.up + base)];
                    if r.down != r.up {
                        ids.push(LinkId(r.down + base));
                    }
                    (name.clone(), (ids, bw, lat, policy))
                })
                .collect(),
        );
        Ok(p)
    }

    pub(super) fn fail(
        &self,
        n: Node,
        r: Result<usize, FlatError>,
    ) -> Result<usize, MachineFileError> {
        r.map_err(|m| self.err(n, m.to_string()))
    }

    pub(super) fn zone_links(
        &self,
        f: &Flat,
        r: Node,
        back: bool,
    ) -> Result<Vec<u32>, MachineFileError> {
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

    pub(super) fn named(&self, f: &Flat, n: Node, attr: &str) -> Result<usize, MachineFileError> {
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
    pub(super) fn flat_element(
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
                    self.host_attrs(k)?;
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
                "peer" => self.flat_peer(f, k, z, kind, routing)?,
                "link" | "backbone" => {
                    if let Some(b) = self.flat_link(f, k, kind)? {
                        backbone = Some(b);
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
        self.flat_host_links(f, z, &hostlinks, backbone)?;
        self.seal(f, z).map_err(|m| self.err(n, m.to_string()))
    }

    /// A Vivaldi zone's `<peer>`: a host with its own links up and down
    /// (SHARED, no latency).
    fn flat_peer(
        &self,
        f: &mut Flat,
        k: Node,
        z: usize,
        kind: Kind,
        routing: &str,
    ) -> Result<(), MachineFileError> {
        self.refuse(k, &["availability_file", "state_file", "speed_file"])?;
        self.attrs(k, &["id", "speed", "bw_in", "bw_out", "lat", "coordinates"])?;
        self.only_props(k, &[])?;
        if kind != Kind::Vivaldi {
            return Err(self.err(k, "<peer> outside a Vivaldi zone".into()));
        }
        if let Some(l) = k.attribute("lat") {
            self.note(
                k,
                format!(
                    "<peer lat=\"{l}\">: ignored by SimGrid 3.32 (the z coordinate is the latency)"
                ),
            );
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
                .map_err(|m| self.err(k, m.to_string()))?;
            Ok(f.links[&name].up)
        };
        let up = mk(format!("link_{pid}_UP"), bout)?;
        let down = mk(format!("link_{pid}_DOWN"), bin)?;
        let e = f.zones[z].star.entry(f.nps[h].id).or_default();
        e.up = Some(vec![up]);
        e.down = Some(vec![down]);
        Ok(())
    }

    /// A `<link>` or `<backbone>`; a backbone's link (up direction) is
    /// returned.
    fn flat_link(
        &self,
        f: &mut Flat,
        k: Node,
        kind: Kind,
    ) -> Result<Option<u32>, MachineFileError> {
        let (lid, bw, lat, policy) = self.link_decl(k)?;
        f.link(lid, bw, lat, policy)
            .map_err(|m| self.err(k, m.to_string()))?;
        if !k.has_tag_name("backbone") {
            return Ok(None);
        }
        if kind != Kind::Star {
            return Err(self.err(k, "<backbone> outside a Cluster zone".into()));
        }
        Ok(Some(f.links[lid].up))
    }

    /// A Cluster zone's `<host_link>`s and `<cabinet>`s, each host a star
    /// point with its links up and down (and the backbone, if any).
    fn flat_host_links(
        &self,
        f: &mut Flat,
        z: usize,
        hostlinks: &[Node],
        backbone: Option<u32>,
    ) -> Result<(), MachineFileError> {
        for &k in hostlinks {
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
                            .map_err(|m| self.err(k, m.to_string()))?;
                        Ok(f.links[&name].up)
                    };
                    let u = mk(format!("link_{hid}_UP"))?;
                    let d = mk(format!("link_{hid}_DOWN"))?;
                    self.star_host(f, z, h, u, d, backbone);
                }
            }
        }
        Ok(())
    }

    /// A host's, router's or peer's `coordinates`, read in a Vivaldi zone
    /// (three numbers), noted elsewhere.
    pub(super) fn coords(
        &self,
        k: Node,
        routing: &str,
    ) -> Result<Option<[f64; 3]>, MachineFileError> {
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

    pub(super) fn add_host(
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
    pub(super) fn star_host(
        &self,
        f: &mut Flat,
        z: usize,
        h: usize,
        up: u32,
        down: u32,
        bb: Option<u32>,
    ) {
        let id = f.nps[h].id;
        let e = f.zones[z].star.entry(id).or_default();
        e.up = Some([Some(up), bb].into_iter().flatten().collect());
        e.down = Some([bb, Some(down)].into_iter().flatten().collect());
    }

    pub(super) fn new_zone(
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
            routes: FxHashMap::default(),
            edges: Vec::new(),
            star: FxHashMap::default(),
            bypass: FxHashMap::default(),
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
    pub(super) fn seal(&self, f: &mut Flat, z: usize) -> Result<(), FlatError> {
        match f.zones[z].kind {
            Kind::Star | Kind::Vivaldi => {
                for i in 0..f.zones[z].members.len() {
                    f.zones[z].star.entry(i).or_insert_with(|| StarEnd {
                        up: Some(Vec::new()),
                        down: Some(Vec::new()),
                        gw: None,
                        lo: None,
                    });
                }
            }
            Kind::Floyd => {
                let n = f.zones[z].members.len();
                if n > MAX_FLOYD_MEMBERS {
                    return Err(FlatError::FloydTooLarge(n));
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
    pub(super) fn flat_route(
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
        if src == dst {
            // The host's route to itself (SimGrid's loopback for it).
            return add(
                s,
                s,
                Hop {
                    links: fwd,
                    gw,
                    line,
                },
            );
        }
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

    /// A flat `<cluster>` as SimGrid builds it (`sg_platf_new_cluster_flat`):
    /// a star zone whose hosts go up `[limiter, private UP, backbone]` and
    /// down the reverse; its router has empty routes.
    pub(super) fn flat_cluster(
        &self,
        f: &mut Flat,
        c: Node,
        parent: Option<usize>,
    ) -> Result<(), MachineFileError> {
        for a in c.attributes() {
            if !crate::platform::cluster::CLUSTER_ATTRS.contains(&a.name()) {
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

        let loopback = self.cluster_loopback(c)?;
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
                .map_err(|m| self.err(c, m.to_string()))?;
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
                        .map_err(|m| self.err(c, m.to_string()))?;
                    Some(f.links[&name].up)
                }
                _ => None,
            };
            f.link(&lid, bw, lat, policy)
                .map_err(|m| self.err(c, m.to_string()))?;
            let l = f.links[&lid];
            let lo = match loopback {
                Some((bw, lat)) => {
                    let name = format!("{lid}_loopback");
                    f.link(&name, bw, lat, Policy::FatPipe)
                        .map_err(|m| self.err(c, m.to_string()))?;
                    Some(f.links[&name].up)
                }
                None => None,
            };
            let hid_id = f.nps[h].id;
            let up: Vec<u32> = [lim, Some(l.up), bb].into_iter().flatten().collect();
            let down: Vec<u32> = [bb, Some(l.down), lim].into_iter().flatten().collect();
            f.zones[z].star.insert(
                hid_id,
                StarEnd {
                    up: Some(up),
                    down: Some(down),
                    gw: None,
                    lo,
                },
            );
        }
        let router = match c.attribute("router_id") {
            Some(r) if !r.is_empty() => r.to_string(),
            _ => format!("{prefix}{id}_router{suffix}"),
        };
        let r = f.np(&router, Some(z), None);
        self.fail(c, r)?;
        self.seal(f, z).map_err(|m| self.err(c, m.to_string()))
    }
}
