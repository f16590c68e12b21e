//! SimGrid platform files (XML, version 4.1 as SimGrid 3.32 writes it)
//! as netsim machines: `netsim replay --platform FILE.xml` and
//! `platform = "FILE.xml"` in a scenario's `[machine]`.
//!
//! netsim's machine is a graph in which every host has exactly one cable
//! (its network interface) and routes are shortest paths; SimGrid's is a
//! set of link resources and a route per pair. What maps exactly is
//! imported; what would not is refused with `file:line` and the element
//! (see `docs/SCENARIOS.md`, "Platform import", for the table):
//!
//! - `<cluster>` (directly under `<platform>` or alone in a `<zone>`):
//!   - flat (default): one switch; host `i`'s cable has its private link
//!     (`bw`, `lat`) each way. The backbone (`bb_bw`, `bb_lat`) is
//!     crossed by every route: its latency is split over the two cables
//!     of a route (the up direction takes the odd picosecond), and its
//!     bandwidth is accepted only where it cannot limit (SHARED or
//!     SPLITDUPLEX: at least the hosts' links together; FATPIPE: at least
//!     one link). A `limiter_link` is accepted where it cannot limit (at
//!     least `2 bw`). `loopback_*` concern messages within a host, which
//!     netsim's MPI layer moves through the node's memory: ignored.
//!   - `TORUS` (`topo_parameters="X[,Y[,Z]]"`): netsim's torus, one host
//!     per router, every torus link `bw` and `lat` per hop, dimension
//!     order with SimGrid's tie rule ([`crate::TieRule::Simgrid`]); a
//!     host's cable to its router (SimGrid's torus host is its own
//!     router) is as fast as a rate can be ([`NIC_RATE`]) with no latency.
//!   - `FAT_TREE` (`topo_parameters="L;m1,..,mL;w1,..,wL;p1,..,pL"`):
//!     the XGFT SimGrid builds, levels of switches, `p` parallel links as
//!     one cable of `p` times the bandwidth; hosts need `w1 = p1 = 1`
//!     (one cable). Routes are shortest paths (the same lengths as
//!     SimGrid's; the up port is netsim's lowest link id where SimGrid
//!     takes its own choice).
//! - `<zone routing="Full">` with `<host>`, `<link>` and `<route>`s of
//!   `<link_ctn>`: a star. Each host's cable carries, up, the first link
//!   of its routes and, down, the last link of the routes to it; the
//!   latency left of each route (the links in between, or a one-link
//!   route counted twice) must be the same for every route and is split
//!   over the cables; links in between must not be able to limit.
//! - `<zone routing="Floyd|Dijkstra">`: hosts, `<router>`s and one-link
//!   routes as cables, routed by netsim's shortest paths (in hops).
//!
//! Host speeds (`speed`, the first power state) come back as
//! [`Platform::host_speed`] for the TI replay (one speed for all hosts);
//! `core` is the cores of a node's one socket.

mod units;

use crate::error::MachineError;
use crate::file::MachineFileError;
use crate::link::LinkParams;
use crate::machine::{Machine, MachineBuilder, Sharing, VRef};
use crate::torus::TorusParams;
use crate::torus_geom::TieRule;
use roxmltree::Node;
use sim_core::{Bandwidth, Time, limits};
use std::collections::HashMap;
use std::path::Path;

/// The rate of a torus host's cable to its router: 10^15 B/s, as fast
/// as the packet model's integer arithmetic takes without overflow in
/// practice (SimGrid's torus host is its own router: no such cable; the
/// same value as `bench/peers/peers.py`'s `NIC_BW`).
pub const NIC_RATE: u64 = 1_000_000_000_000_000;

/// An imported platform.
#[derive(Clone, Debug)]
pub struct Platform {
    /// The machine; node `i` is the platform's `i`-th host.
    pub machine: Machine,
    /// The hosts' speed \[flop/s\] if they all have one and the same.
    pub host_speed: Option<f64>,
}

/// Reads and imports a platform file.
pub fn load(path: &Path) -> Result<Platform, MachineFileError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| MachineFileError {
        file: name.clone(),
        line: None,
        msg: format!("cannot read: {e}"),
    })?;
    parse(&name, &text)
}

/// Imports platform text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Platform, MachineFileError> {
    // SimGrid's files name its DTD (`<!DOCTYPE platform SYSTEM ...>`).
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc =
        roxmltree::Document::parse_with_options(text, opts).map_err(|e| MachineFileError {
            file: file.into(),
            line: Some(e.pos().row as usize),
            msg: format!("not well-formed XML: {e}"),
        })?;
    let cx = Cx { file, doc: &doc };
    let root = doc.root_element();
    if root.tag_name().name() != "platform" {
        return Err(cx.err(root, "the root element must be <platform>".into()));
    }
    match root.attribute("version") {
        Some("4" | "4.1") => {}
        v => {
            return Err(cx.err(
                root,
                format!(
                    "<platform version={:?}>: netsim reads version 4.1 (SimGrid 3.32); `simgrid_update_xml` updates older files",
                    v.unwrap_or("")
                ),
            ));
        }
    }
    let mut body = None;
    for c in root.children().filter(Node::is_element) {
        match c.tag_name().name() {
            "config" | "prop" => {}
            "cluster" | "zone" => {
                if let Some(first) = body {
                    return Err(cx.err(
                        c,
                        format!(
                            "<{}>: a second zone or cluster (the first is on line {}); netsim imports one",
                            c.tag_name().name(),
                            cx.line(first)
                        ),
                    ));
                }
                body = Some(c);
            }
            other => return Err(cx.unsupported(c, other)),
        }
    }
    let Some(body) = body else {
        return Err(cx.err(root, "<platform> has no <zone> or <cluster>".into()));
    };
    if body.tag_name().name() == "cluster" {
        return cx.cluster(body);
    }
    // A zone holding one cluster only is that cluster.
    let kids: Vec<Node> = body
        .children()
        .filter(|n| n.is_element() && n.tag_name().name() != "prop")
        .collect();
    if let Some(c) = kids.iter().find(|n| n.tag_name().name() == "cluster") {
        if kids.len() > 1 {
            return Err(cx.err(
                *c,
                "<cluster> beside other elements of its zone: netsim imports one cluster alone, or one zone of hosts, links and routes".into(),
            ));
        }
        return cx.cluster(*c);
    }
    cx.zone(body)
}

struct Cx<'a, 'i> {
    file: &'a str,
    doc: &'a roxmltree::Document<'i>,
}

/// A link as declared.
#[derive(Clone, Copy)]
struct SgLink {
    bw: Bandwidth,
    lat: Time,
    policy: Policy,
    line: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Policy {
    Shared,
    SplitDuplex,
    FatPipe,
}

impl<'i> Cx<'_, 'i> {
    fn line(&self, n: Node) -> usize {
        self.doc.text_pos_at(n.range().start).row as usize
    }
    fn err(&self, n: Node, msg: String) -> MachineFileError {
        MachineFileError {
            file: self.file.into(),
            line: Some(self.line(n)),
            msg,
        }
    }
    fn unsupported(&self, n: Node, what: &str) -> MachineFileError {
        self.err(
            n,
            format!(
                "<{what}> is not supported by netsim's platform import (it reads one <cluster> of topology flat, TORUS or FAT_TREE, or one <zone> of routing Full, Floyd or Dijkstra with <host>, <router>, <link> and <route>); see docs/SCENARIOS.md"
            ),
        )
    }
    fn need<'n>(&self, n: Node<'n, 'i>, attr: &str) -> Result<&'n str, MachineFileError> {
        n.attribute(attr)
            .ok_or_else(|| self.err(n, format!("<{}> needs `{attr}`", n.tag_name().name())))
    }
    /// Refuses attributes netsim cannot honour.
    fn refuse(&self, n: Node, attrs: &[&str]) -> Result<(), MachineFileError> {
        for a in attrs {
            if n.attribute(*a).is_some() {
                return Err(self.err(
                    n,
                    format!(
                        "<{} {a}=...>: time-varying or external profiles are not supported",
                        n.tag_name().name()
                    ),
                ));
            }
        }
        Ok(())
    }
    fn value<T>(
        &self,
        n: Node,
        attr: &str,
        f: fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, MachineFileError> {
        match n.attribute(attr) {
            None => Ok(None),
            Some(v) => f(v)
                .map(Some)
                .map_err(|m| self.err(n, format!("<{} {attr}>: {m}", n.tag_name().name()))),
        }
    }
    fn policy(&self, n: Node, attr: &str, default: Policy) -> Result<Policy, MachineFileError> {
        match n.attribute(attr) {
            None => Ok(default),
            Some("SHARED") => Ok(Policy::Shared),
            Some("SPLITDUPLEX") => Ok(Policy::SplitDuplex),
            Some("FATPIPE") => Ok(Policy::FatPipe),
            Some(v) => Err(self.err(
                n,
                format!(
                    "<{} {attr}=\"{v}\">: netsim takes SHARED, SPLITDUPLEX or FATPIPE",
                    n.tag_name().name()
                ),
            )),
        }
    }
    fn cores(&self, n: Node) -> Result<u16, MachineFileError> {
        match n.attribute("core") {
            None => Ok(1),
            Some(v) => v
                .trim()
                .parse::<u16>()
                .ok()
                .filter(|&c| c > 0)
                .ok_or_else(|| {
                    self.err(
                        n,
                        format!(
                            "<{} core=\"{v}\">: expected a positive integer below 65536",
                            n.tag_name().name()
                        ),
                    )
                }),
        }
    }
    fn build(
        &self,
        n: Node,
        b: MachineBuilder,
        speed: Option<f64>,
    ) -> Result<Platform, MachineFileError> {
        let machine = b
            .build(Sharing::Fair)
            .map_err(|e| self.err(n, machine_msg(e)))?;
        Ok(Platform {
            machine,
            host_speed: speed,
        })
    }

    // ------------------------------------------------------ clusters

    fn cluster(&self, c: Node<'_, 'i>) -> Result<Platform, MachineFileError> {
        for a in c.attributes() {
            if !CLUSTER_ATTRS.contains(&a.name()) {
                return Err(self.err(
                    c,
                    format!(
                        "<cluster {}=...>: unknown or unsupported attribute (netsim reads {})",
                        a.name(),
                        CLUSTER_ATTRS.join(", ")
                    ),
                ));
            }
        }
        if let Some(k) = c
            .children()
            .find(|n| n.is_element() && n.tag_name().name() != "prop")
        {
            return Err(self.unsupported(k, k.tag_name().name()));
        }
        let id = self.need(c, "id")?;
        let prefix = c.attribute("prefix").unwrap_or("");
        let suffix = c.attribute("suffix").unwrap_or("");
        let radical = radical(self.need(c, "radical")?)
            .map_err(|m| self.err(c, format!("<cluster radical>: {m}")))?;
        let speed = self
            .value(c, "speed", units::speed)?
            .ok_or_else(|| self.err(c, "<cluster> needs `speed`".into()))?;
        let bw = self
            .value(c, "bw", units::rate)?
            .ok_or_else(|| self.err(c, "<cluster> needs `bw`".into()))?;
        let lat = self.value(c, "lat", units::time)?.unwrap_or(Time::ZERO);
        let cores = self.cores(c)?;
        let policy = self.policy(c, "sharing_policy", Policy::SplitDuplex)?;
        let names: Vec<String> = radical
            .iter()
            .map(|i| format!("{prefix}{i}{suffix}"))
            .collect();
        match c.attribute("topology").unwrap_or("FLAT") {
            "FLAT" => self.flat(c, id, &names, bw, lat, policy, cores, speed),
            "TORUS" => {
                let dims = self.topo_numbers(c, ",")?;
                if dims.is_empty() || dims.len() > 3 || dims.contains(&0) {
                    return Err(self.err(c, "<cluster topo_parameters>: TORUS takes 1 to 3 positive ring sizes, `X,Y,Z`".into()));
                }
                let mut d = [1u32; 3];
                d[..dims.len()].copy_from_slice(&dims);
                let n: u64 = d.iter().map(|&k| k as u64).product();
                if n != names.len() as u64 {
                    return Err(self.err(
                        c,
                        format!(
                            "<cluster>: the torus {} has {n} nodes but `radical` names {} hosts",
                            dims.iter()
                                .map(u32::to_string)
                                .collect::<Vec<_>>()
                                .join("x"),
                            names.len()
                        ),
                    ));
                }
                limits::check_nodes(n).map_err(|m| self.err(c, m))?;
                let nic = Bandwidth::bytes_per_sec(NIC_RATE);
                let tp = TorusParams {
                    dims: d,
                    nodes_per_router: 1,
                    link_bandwidth: [bw; 3],
                    hop_latency: lat,
                    injection: nic,
                    ejection: nic,
                    nic_latency: Time::ZERO,
                    buffer: crate::torus::GEMINI_BUFFER_BYTES,
                    sockets: 1,
                    cores_per_socket: cores,
                    tie: TieRule::Simgrid,
                };
                let machine = tp.build().map_err(|e| self.err(c, machine_msg(e)))?;
                Ok(Platform {
                    machine,
                    host_speed: Some(speed),
                })
            }
            "FAT_TREE" => self.fat_tree(c, id, &names, bw, lat, cores, speed),
            other => Err(self.err(
                c,
                format!("<cluster topology=\"{other}\">: netsim imports FLAT, TORUS and FAT_TREE"),
            )),
        }
    }

    fn topo_numbers(&self, c: Node, sep: &str) -> Result<Vec<u32>, MachineFileError> {
        let t = self.need(c, "topo_parameters")?;
        t.split(sep)
            .map(|v| {
                v.trim().parse::<u32>().map_err(|_| {
                    self.err(
                        c,
                        format!("<cluster topo_parameters=\"{t}\">: `{v}` is not a count"),
                    )
                })
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn flat(
        &self,
        c: Node,
        id: &str,
        names: &[String],
        bw: Bandwidth,
        lat: Time,
        policy: Policy,
        cores: u16,
        speed: f64,
    ) -> Result<Platform, MachineFileError> {
        if policy == Policy::FatPipe {
            return Err(self.err(c, "<cluster sharing_policy=\"FATPIPE\">: private links that never share are not netsim's links (each direction is shared max-min); use SPLITDUPLEX".into()));
        }
        let n = names.len() as u64;
        limits::check_nodes(n).map_err(|m| self.err(c, m))?;
        let bb_lat = self.value(c, "bb_lat", units::time)?.unwrap_or(Time::ZERO);
        if let Some(bb) = self.value(c, "bb_bw", units::rate)? {
            let bbp = self.policy(c, "bb_sharing_policy", Policy::Shared)?;
            let need = if bbp == Policy::FatPipe {
                bw.as_bytes_per_sec() as u128
            } else {
                bw.as_bytes_per_sec() as u128 * n as u128
            };
            if (bb.as_bytes_per_sec() as u128) < need {
                return Err(self.err(c, format!(
                    "<cluster bb_bw>: the backbone's {bb} could limit traffic ({}: {need} B/s would never be limited); netsim has no shared backbone resource, only per-host cables to one switch: raise bb_bw or leave it out",
                    if bbp == Policy::FatPipe { "FATPIPE, one host link" } else { "the hosts' links together" }
                )));
            }
        }
        if let Some(lim) = self.value(c, "limiter_link", units::rate)? {
            if (lim.as_bytes_per_sec() as u128) < 2 * bw.as_bytes_per_sec() as u128 {
                return Err(self.err(c, format!("<cluster limiter_link>: {lim} could limit a host sending and receiving at once (2 x {bw}); netsim has no per-host limiter")));
            }
        }
        // The backbone's latency over the two cables of every route.
        let half = bb_lat.as_ps() / 2;
        let up = LinkParams {
            bandwidth: bw,
            latency: lat.saturating_add(Time::from_ps(bb_lat.as_ps() - half)),
            buffer: 0,
        };
        let down = LinkParams {
            bandwidth: bw,
            latency: lat.saturating_add(Time::from_ps(half)),
            buffer: 0,
        };
        let mut b = MachineBuilder::new(format!("cluster {id}"));
        let hosts: Vec<VRef> = names.iter().map(|h| b.host(h, 1, cores)).collect();
        let sw = b.net(format!("{id}-switch"), false);
        for h in hosts {
            b.cable(h, sw, up, down);
        }
        self.build(c, b, Some(speed))
    }

    #[allow(clippy::too_many_arguments)]
    fn fat_tree(
        &self,
        c: Node,
        id: &str,
        names: &[String],
        bw: Bandwidth,
        lat: Time,
        cores: u16,
        speed: f64,
    ) -> Result<Platform, MachineFileError> {
        let t = self.need(c, "topo_parameters")?;
        let bad = |m: String| self.err(c, format!("<cluster topo_parameters=\"{t}\">: {m}"));
        let parts: Vec<&str> = t.split(';').collect();
        if parts.len() != 4 {
            return Err(bad(
                "FAT_TREE takes `levels;down;up;parallel`, e.g. `2;4,4;1,2;1,2`".into(),
            ));
        }
        let levels: usize = parts[0]
            .trim()
            .parse()
            .ok()
            .filter(|&l| (1..=8).contains(&l))
            .ok_or_else(|| bad("levels must be 1 to 8".into()))?;
        let list = |s: &str, what: &str| -> Result<Vec<u64>, MachineFileError> {
            let v: Vec<u64> = s
                .split(',')
                .map(|x| {
                    x.trim()
                        .parse::<u64>()
                        .ok()
                        .filter(|&k| k > 0 && k <= 1 << 16)
                })
                .collect::<Option<_>>()
                .ok_or_else(|| bad(format!("{what}: positive counts up to 65536")))?;
            if v.len() != levels {
                return Err(bad(format!(
                    "{what}: {} values for {levels} levels",
                    v.len()
                )));
            }
            Ok(v)
        };
        let (m, w, p) = (
            list(parts[1], "down")?,
            list(parts[2], "up")?,
            list(parts[3], "parallel")?,
        );
        if w[0] != 1 || p[0] != 1 {
            return Err(bad("a host has one network interface in netsim: the first `up` and `parallel` must be 1".into()));
        }
        let hosts: u64 = m.iter().product();
        if hosts != names.len() as u64 {
            return Err(self.err(
                c,
                format!(
                    "<cluster>: the fat tree has {hosts} hosts but `radical` names {}",
                    names.len()
                ),
            ));
        }
        limits::check_nodes(hosts).map_err(|m| self.err(c, m))?;
        // Nodes at level l: prod(m[l..]) * prod(w[..l]); a node's index is
        // (its a-digits above l) * prod(w[..l]) + (its b-digits).
        let count =
            |l: usize| -> u64 { m[l..].iter().product::<u64>() * w[..l].iter().product::<u64>() };
        let total: u64 = (1..=levels).map(count).sum();
        if total > limits::MAX_ROUTERS {
            return Err(self.err(
                c,
                format!(
                    "<cluster>: {total} switches exceeds netsim's MAX_ROUTERS ({})",
                    limits::MAX_ROUTERS
                ),
            ));
        }
        let mut b = MachineBuilder::new(format!("fat tree {id}"));
        let mut below: Vec<VRef> = names.iter().map(|h| b.host(h, 1, cores)).collect();
        for l in 1..=levels {
            let here: Vec<VRef> = (0..count(l))
                .map(|i| b.net(format!("{id}-L{l}-{i}"), false))
                .collect();
            let wb: u64 = w[..l - 1].iter().product();
            let par = p[l - 1];
            let cable = LinkParams {
                bandwidth: Bandwidth::bytes_per_sec(bw.as_bytes_per_sec().saturating_mul(par)),
                latency: lat,
                buffer: 0,
            };
            for (i, &v) in below.iter().enumerate() {
                let i = i as u64;
                let (a, bd) = (i / wb, i % wb);
                for k in 0..w[l - 1] {
                    let parent = (a / m[l - 1]) * (wb * w[l - 1]) + bd + wb * k;
                    b.cable(v, here[parent as usize], cable, cable);
                }
            }
            below = here;
        }
        self.build(c, b, Some(speed))
    }

    // ------------------------------------------------------- zones

    fn zone(&self, z: Node<'_, 'i>) -> Result<Platform, MachineFileError> {
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
        let mut vref: HashMap<&str, (VRef, usize)> = HashMap::new();
        let mut links: HashMap<&str, SgLink> = HashMap::new();
        let mut routes = Vec::new();
        let mut speeds = Vec::new();
        for n in z.children().filter(Node::is_element) {
            let ln = self.line(n);
            match n.tag_name().name() {
                "prop" => {}
                "host" => {
                    self.refuse(n, &["availability_file", "state_file", "speed_file"])?;
                    let id = self.need(n, "id")?;
                    let speed = self
                        .value(n, "speed", units::speed)?
                        .ok_or_else(|| self.err(n, "<host> needs `speed`".into()))?;
                    speeds.push(speed);
                    if let Some((_, l)) = vref.get(id) {
                        return Err(self.err(n, format!("`{id}` is already declared on line {l}")));
                    }
                    let v = b.host(id, 1, self.cores(n)?);
                    vref.insert(id, (v, ln));
                }
                "router" if routing != "Full" => {
                    let id = self.need(n, "id")?;
                    if let Some((_, l)) = vref.get(id) {
                        return Err(self.err(n, format!("`{id}` is already declared on line {l}")));
                    }
                    vref.insert(id, (b.net(id, false), ln));
                }
                "link" => {
                    self.refuse(n, &["bandwidth_file", "latency_file", "state_file"])?;
                    let id = self.need(n, "id")?;
                    let bw = self
                        .value(n, "bandwidth", units::rate)?
                        .ok_or_else(|| self.err(n, "<link> needs `bandwidth`".into()))?;
                    let lat = self.value(n, "latency", units::time)?.unwrap_or(Time::ZERO);
                    let policy = self.policy(n, "sharing_policy", Policy::Shared)?;
                    if let Some(l) = links.get(id) {
                        return Err(self.err(
                            n,
                            format!("link `{id}` is already declared on line {}", l.line),
                        ));
                    }
                    links.insert(
                        id,
                        SgLink {
                            bw,
                            lat,
                            policy,
                            line: ln,
                        },
                    );
                }
                "route" => routes.push(n),
                other => return Err(self.unsupported(n, other)),
            }
        }
        if b.hosts() < 2 {
            return Err(self.err(
                z,
                format!("<zone> has {} hosts; netsim needs at least 2", b.hosts()),
            ));
        }
        let speed = speeds
            .first()
            .copied()
            .filter(|s| speeds.iter().all(|x| x == s));
        if speed.is_none() {
            return Err(self.err(
                z,
                "<zone>: hosts of different speeds; netsim's TI replay has one host speed".into(),
            ));
        }
        // Each route as (src, dst, [(link, direction)], node).
        let mut parsed = Vec::new();
        for r in routes {
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
            let mut ls = Vec::new();
            for k in r.children().filter(Node::is_element) {
                if k.tag_name().name() != "link_ctn" {
                    return Err(self.unsupported(k, k.tag_name().name()));
                }
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
            let sym = match r.attribute("symmetrical").unwrap_or("YES") {
                "YES" | "yes" => true,
                "NO" | "no" => false,
                v => return Err(self.err(r, format!("<route symmetrical=\"{v}\">: YES or NO"))),
            };
            if src == dst {
                continue; // within a host: the node's memory in netsim
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
        let speed = speed.expect("checked");
        if routing == "Full" {
            self.full_star(z, b, &vref, &parsed, speed)
        } else {
            self.graph(z, b, &vref, &parsed, speed)
        }
    }

    /// Floyd and Dijkstra: a route of one link is a cable.
    fn graph(
        &self,
        z: Node,
        mut b: MachineBuilder,
        vref: &HashMap<&str, (VRef, usize)>,
        routes: &[(&str, &str, Vec<(&str, u8, SgLink)>, Node)],
        speed: f64,
    ) -> Result<Platform, MachineFileError> {
        let mut used: HashMap<&str, Node> = HashMap::new();
        for (src, dst, ls, r) in routes {
            let (a, bv) = (vref[src].0, vref[dst].0);
            if ls.len() != 1 {
                return Err(self.err(*r, format!("<route src=\"{src}\" dst=\"{dst}\">: {} links; in a Floyd or Dijkstra zone netsim takes a route of one link between neighbours", ls.len())));
            }
            if matches!((a, bv), (VRef::Host(_), VRef::Host(_))) {
                return Err(self.err(*r, format!("<route src=\"{src}\" dst=\"{dst}\">: hosts connect to routers in netsim; put a <router> between them")));
            }
            let (id, _, l) = ls[0];
            if let Some(first) = used.get(id) {
                if first.range() != r.range() {
                    return Err(self.err(*r, format!("link `{id}` is in a second route (the first is on line {}); netsim's cables are one link each", self.line(*first))));
                }
                continue; // the reverse of a symmetrical route
            }
            used.insert(id, *r);
            let p = LinkParams {
                bandwidth: l.bw,
                latency: l.lat,
                buffer: 0,
            };
            b.cable(a, bv, p, p);
        }
        self.build(z, b, Some(speed))
    }

    /// Full routing: a star, each host's cable up its routes' first link,
    /// down the last link of the routes to it.
    fn full_star(
        &self,
        z: Node,
        mut b: MachineBuilder,
        vref: &HashMap<&str, (VRef, usize)>,
        routes: &[(&str, &str, Vec<(&str, u8, SgLink)>, Node)],
        speed: f64,
    ) -> Result<Platform, MachineFileError> {
        type End<'s> = Option<((&'s str, u8), SgLink)>;
        let n = b.hosts() as usize;
        let idx = |h: &str| match vref[h].0 {
            VRef::Host(i) => i as usize,
            VRef::Net(_) => unreachable!("Full zones have hosts only"),
        };
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
        let mut owner: HashMap<(&str, u8, bool), usize> = HashMap::new();
        for (dir, ends) in [(true, &up), (false, &down)] {
            for (h, e) in ends.iter().enumerate() {
                let Some(((id, d), _)) = e else {
                    let name = &vref
                        .iter()
                        .find(|(_, v)| v.0 == VRef::Host(h as u32))
                        .map(|(k, _)| *k)
                        .unwrap_or("?");
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
            for (id, dir, l) in &ls[1..ls.len().saturating_sub(1)] {
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
        let res = rest.map_or(0, |r| r.0);
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
        self.build(z, b, Some(speed))
    }
}

const CLUSTER_ATTRS: &[&str] = &[
    "id",
    "prefix",
    "suffix",
    "radical",
    "speed",
    "core",
    "bw",
    "lat",
    "sharing_policy",
    "topology",
    "topo_parameters",
    "bb_bw",
    "bb_lat",
    "bb_sharing_policy",
    "loopback_bw",
    "loopback_lat",
    "limiter_link",
    "router_id",
];

fn machine_msg(e: MachineError) -> String {
    e.to_string()
}

/// `0-99` or `0-3,8,10-12`: the host numbers in order.
fn radical(text: &str) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let p = part.trim();
        let num = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| format!("`{p}` is not `N` or `A-B`"))
        };
        let (a, b) = match p.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(p)?, num(p)?),
        };
        if b < a {
            return Err(format!("`{p}`: the range ends before it starts"));
        }
        if (out.len() as u64).saturating_add(b - a + 1) > limits::MAX_NODES as u64 {
            return Err(format!(
                "more than netsim's MAX_NODES ({}) hosts",
                limits::MAX_NODES
            ));
        }
        out.extend(a..=b);
    }
    Ok(out)
}
