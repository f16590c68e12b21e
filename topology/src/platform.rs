//! SimGrid platform files (XML, version 4.1 as SimGrid 3.32 writes it)
//! as netsim machines: `netsim replay --platform FILE.xml` and
//! `platform = "FILE.xml"` in a scenario's `[machine]`.
//!
//! netsim's machine is a graph in which every host has exactly one cable
//! (its network interface) and routes are shortest paths; SimGrid's is a
//! set of link resources and a route per pair. A platform that is one
//! cluster, one star or one graph is imported as such a machine (both
//! transport models); any other is flattened to SimGrid's route for
//! every pair of hosts (`flat`, flow model only). What would not give
//! SimGrid's answer is refused with `file:line` and the element (see
//! `docs/SCENARIOS.md`, "Platform import", for the table):
//!
//! - `<cluster>` (directly under `<platform>` or alone in a `<zone>`):
//!   - flat (default): one switch; host `i`'s cable has its private link
//!     (`bw`, `lat`) each way, SPLITDUPLEX or SHARED (one capacity for
//!     what the host sends and receives,
//!     [`crate::Machine::share_capacity`], flow model only). A backbone
//!     or `limiter_link` that cannot limit adds its latency (split over
//!     a route's two cables); one that could is a resource of per-pair
//!     routes. `loopback_bw`, `loopback_lat`: each host's route to itself,
//!     else up and down its own cable.
//!   - `TORUS` (`topo_parameters="X[,Y[,Z]]"`): netsim's torus, one host
//!     per router, every torus link `bw` and `lat` per hop, dimension
//!     order with SimGrid's tie rule ([`crate::TieRule::Simgrid`]); a
//!     host's cable to its router (SimGrid's torus host is its own
//!     router) is as fast as a rate can be ([`NIC_RATE`]) with no latency.
//!   - `FAT_TREE` (`topo_parameters="L;m1,..,mL;w1,..,wL;p1,..,pL"`):
//!     the XGFT SimGrid builds, `p` parallel links as one cable of `p`
//!     times the bandwidth; hosts need `w1 = p1 = 1`. Routes have
//!     SimGrid's lengths (the up port is netsim's lowest link id).
//! - `<zone routing="Full">` whose routes make a star: each host's cable
//!   carries, up, the first link of its routes and, down, the last link
//!   of the routes to it; the latency left of each route is one number,
//!   split over the cables; links in between cannot limit.
//! - `<zone routing="Floyd|Dijkstra">` whose routes are one link between
//!   a host and a router or two routers: cables, routed by shortest paths.
//! - Anything else of Full, Floyd, Dijkstra, Cluster, Vivaldi and None
//!   zones and DRAGONFLY clusters, nested, with routers, gateways,
//!   `zoneRoute` and `bypassRoute` (`flat`): per-pair routes over shared
//!   links, SimGrid 3.32's routing.
//!
//! Each host has SimGrid's route to itself (its zone's own, the model's
//! `__loopback__`, a cluster's loopback link or its cable up and down)
//! for ranks on one host ([`crate::Machine::set_loopback_routes`]).
//! A SHARED link is one capacity for both directions (CM02); the packet
//! model refuses machines with such groups or a pair table, naming the
//! element, and `auto` picks flow. Host speeds (`speed`, power state
//! `pstate`) come back as [`Platform::host_speeds`] for the TI replay
//! (each rank's `compute` at its host's speed); `core` is the cores of a
//! node's one socket. `<config>` gives the TCP window
//! ([`Platform::tcp_window`]) and SimGrid's SMPI network model
//! ([`crate::Machine::size_factors`]); what cannot change timing (free
//! `<prop>`s, disks, coordinates outside Vivaldi) is listed in
//! [`Platform::notes`]; any other attribute is refused. Time-varying profiles (`profile`): a
//! host's speed profile is integrated by its computations
//! ([`Platform::speed_profiles`]); any other change bounds the run
//! ([`Platform::changes`]). `dtd-3.32.txt` lists every attribute
//! of SimGrid 3.32's DTD with what the import does with it, and a test
//! holds the import to that list.

mod attach;
mod cluster;
mod flat;
mod profile;
mod units;
mod weighting;
mod zone;

pub use profile::{MAX_PROFILE_EVENTS, Profile};

use crate::error::MachineError;
use crate::file::MachineFileError;
use crate::machine::{Machine, MachineBuilder, Sharing};
use crate::size_factors::{FactorTable, SizeFactors};
use crate::transport::LinkId;
use roxmltree::Node;
use sim_core::{Bandwidth, Time};
use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

/// The rate of a torus host's cable to its router: 10^15 B/s, as fast
/// as the packet model's integer arithmetic takes without overflow in
/// practice (SimGrid's torus host is its own router: no such cable; the
/// same value as `bench/peers/peers.py`'s `NIC_BW`).
pub const NIC_RATE: u64 = 1_000_000_000_000_000;

/// SimGrid's `network/loopback-bw` default \[B/s\]: the bandwidth of the
/// network model's `__loopback__` link (10 GBps, `src/simgrid/sg_config.cpp`).
pub const SIMGRID_LOOPBACK_BW: u64 = 10_000_000_000;

/// The route of a host to itself over the network model's `__loopback__`
/// link (SimGrid 3.32's `NetworkCm02Model` constructor: FATPIPE,
/// `network/loopback-bw` [`SIMGRID_LOOPBACK_BW`], `network/loopback-lat`
/// 0), which Full, Floyd and Dijkstra zones give a host without a route to
/// itself (`FullZone::do_seal` and the others'): it bounds each flow,
/// which shares it with none.
pub(crate) fn network_loopback() -> crate::PairRoute {
    crate::PairRoute {
        links: Vec::new(),
        latency: Time::ZERO,
        cap: Some(Bandwidth::bytes_per_sec(SIMGRID_LOOPBACK_BW)),
    }
}

/// An imported platform.
#[derive(Clone, Debug)]
pub struct Platform {
    /// The machine; node `i` is the platform's `i`-th host.
    pub machine: Machine,
    /// The hosts' speed \[flop/s\] if they all have one and the same;
    /// `None` for hosts of different speeds, on which netsim's TI replay
    /// takes each host's own ([`Platform::host_speeds`]).
    pub host_speed: Option<f64>,
    /// Every host's speed \[flop/s\], node order.
    pub host_speeds: Vec<f64>,
    /// Every host's speed profile (`speed_file`, `<trace_connect
    /// kind="SPEED">`), node order; `None`: its declared speed always.
    /// A TI `compute` on such a host integrates its work over the
    /// profile ([`Profile::end_of_work`]).
    pub speed_profiles: Vec<Option<Arc<Profile>>>,
    /// The instants from which a profile changes what netsim holds
    /// constant (a host or link turning off, a link's bandwidth or
    /// latency): a run that reaches one is stopped with an error
    /// ([`ProfileChange`]); one that ends before them all has SimGrid's
    /// answer.
    pub changes: Vec<ProfileChange>,
    /// SimGrid's TCP window for this platform \[bytes\]:
    /// `network/TCP-gamma` of its `<config>`, else SimGrid's default
    /// [`crate::SIMGRID_TCP_GAMMA`]; `None` when it is set to 0 (off).
    /// The transports take it as [`crate::NetConfig::tcp_window`].
    pub tcp_window: Option<u64>,
    /// What the file says that cannot change a replay's timing and netsim
    /// therefore reads and sets aside, one `line: what` entry each (free
    /// `<prop>`s, energy properties, disks, a torus's backbone that
    /// SimGrid ignores as well, ...).
    pub notes: Vec<String>,
}

/// The first instant at which a profile changes something netsim does
/// not change during a run.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileChange {
    /// The host's node, for a host (only its ranks are concerned); `None`
    /// for a link (the whole run is).
    pub node: Option<u32>,
    /// The instant.
    pub at: Time,
    /// What changes and where it is said, e.g. ``host `Jupiter` turns
    /// off (its state profile, f.xml:6)``.
    pub what: String,
    /// The flow model follows this change (a link's bandwidth or
    /// latency, `crate::cm02`): only a packet-mode run is stopped.
    pub flow_models: bool,
}

/// The resource a profile is attached to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Target {
    Speed,
    HostState,
    LinkState,
    Bandwidth,
    Latency,
}

/// A profile attached to a host or link, as read.
struct Attached {
    target: Target,
    /// The host's or link's id.
    id: String,
    profile: Arc<Profile>,
    /// The line of the attribute's element or of the `<trace_connect>`.
    line: usize,
}

/// Reads and imports a platform file.
pub fn load(path: &Path) -> Result<Platform, MachineFileError> {
    let (name, text) = crate::file::read(path)?;
    parse(&name, &text)
}

/// Imports platform text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Platform, MachineFileError> {
    // SimGrid's files name its DTD (`<!DOCTYPE platform SYSTEM ...>`).
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let text = blank_late_declaration(text);
    let doc =
        roxmltree::Document::parse_with_options(&text, opts).map_err(|e| MachineFileError {
            file: file.into(),
            line: Some(e.pos().row as usize),
            msg: format!("not well-formed XML: {e}"),
        })?;
    let cx = Cx {
        file,
        doc: &doc,
        notes: RefCell::new(Vec::new()),
        profiles: RefCell::new(Vec::new()),
        weight_s: std::cell::Cell::new(0.0),
        unequal: std::cell::Cell::new(false),
        flat_links: RefCell::new(None),
    };
    let root = doc.root_element();
    if root.tag_name().name() != "platform" {
        return Err(cx.err(root, "the root element must be <platform>".into()));
    }
    cx.attrs(root, &["version"])?;
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
    let mut tcp_window = Some(crate::SIMGRID_TCP_GAMMA);
    let mut smpi = SmpiConfig::default();
    let mut traces: Vec<(&str, Arc<Profile>, usize)> = Vec::new();
    for c in root.children().filter(Node::is_element) {
        match c.tag_name().name() {
            "config" => cx.config(c, &mut tcp_window, &mut smpi)?,
            "trace" => {
                let (id, p) = cx.trace(c)?;
                if let Some((_, _, l)) = traces.iter().find(|t| t.0 == id) {
                    return Err(cx.err(
                        c,
                        format!("<trace id=\"{id}\">: already declared on line {l}"),
                    ));
                }
                traces.push((id, p, cx.line(c)));
            }
            "trace_connect" => {}
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
    if smpi.model {
        cx.weight_s.set(SIMGRID_SMPI_WEIGHT_S);
    }
    // The notes of `<config>` and of what precedes the body stay when
    // the body is read again to be flattened.
    let head_notes = cx.notes.borrow().len();
    let alone = body.descendants().any(|n| {
        n.attribute("topology")
            .is_some_and(|t| t == "TORUS" || t == "FAT_TREE")
    });
    let flatten = || {
        cx.notes.borrow_mut().truncate(head_notes);
        cx.profiles.borrow_mut().clear();
        cx.unequal.set(false);
        cx.flatten(body)
    };
    let mut platform = match cx.body(body) {
        Ok(p) => p,
        // What one star or one graph cannot hold, per-pair routes can;
        // a TORUS or FAT_TREE cluster is imported alone.
        Err(e) if alone => return Err(e),
        Err(_) => flatten()?,
    };
    // Link profiles follow SimGrid's links by id, which the flattened
    // import keeps.
    let link_profiles = cx
        .profiles
        .borrow()
        .iter()
        .any(|a| matches!(a.target, Target::Bandwidth | Target::Latency))
        || root.children().any(|c| {
            c.has_tag_name("trace_connect")
                && matches!(c.attribute("kind"), Some("BANDWIDTH" | "LATENCY"))
        });
    if link_profiles && !alone && cx.flat_links.borrow().is_none() {
        platform = flatten()?;
    }
    for c in root.children().filter(|c| c.has_tag_name("trace_connect")) {
        cx.trace_connect(c, &traces)?;
    }
    let profiles = cx.attach(&mut platform)?;
    platform.tcp_window = tcp_window;
    cx.note_unread_factors(&smpi);
    platform.machine.set_size_factors(smpi.factors());
    // Where netsim's own sharing can differ from CM02's, the flow model
    // shares as CM02 does (`crate::cm02`).
    if cx.unequal.get() || !profiles.is_empty() || platform.machine.size_factors().is_some() {
        platform.machine.set_cm02(Some(crate::cm02::Cm02 {
            weight_s: cx.weight_s.get(),
            stand_in: Bandwidth::bytes_per_sec(NIC_RATE),
            profiles,
        }));
    }
    platform.notes = cx.notes.take();
    Ok(platform)
}

/// SimGrid's parser (flex) reads an XML declaration after blank lines,
/// which XML forbids (Batsim's files have one): such a declaration is
/// blanked out, byte for byte, so that lines keep their numbers.
fn blank_late_declaration(text: &str) -> std::borrow::Cow<'_, str> {
    let body = text.trim_start();
    if body.len() == text.len() || !body.starts_with("<?xml") {
        return text.into();
    }
    let Some(end) = body.find("?>") else {
        return text.into();
    };
    let start = text.len() - body.len();
    let blank: String = text[start..start + end + 2]
        .chars()
        .map(|c| if c == '\n' { c } else { ' ' })
        .collect();
    format!("{}{blank}{}", &text[..start], &body[end + 2..]).into()
}

struct Cx<'a, 'i> {
    file: &'a str,
    doc: &'a roxmltree::Document<'i>,
    /// [`Platform::notes`], as read.
    notes: RefCell<Vec<String>>,
    /// The profiles attached to hosts and links, as read.
    profiles: RefCell<Vec<Attached>>,
    /// `network/weight-S` in B (`weighting`): [`SIMGRID_SMPI_WEIGHT_S`]
    /// under `network/model` `SMPI`, 0 under CM02; set by `<config>`,
    /// which precedes the body.
    weight_s: std::cell::Cell<f64>,
    /// Whether some link carries routes of different CM02 penalties
    /// (`weighting`): the flow model then shares as CM02 does.
    unequal: std::cell::Cell<bool>,
    /// After a flattening import (`flat`): every SimGrid link by its id,
    /// as the machine links it became, its bandwidth, latency and policy.
    flat_links: RefCell<Option<FlatLinks>>,
}

/// SimGrid links by id: their machine links, bandwidth, latency, policy.
type FlatLinks = rustc_hash::FxHashMap<String, (Vec<LinkId>, Bandwidth, Time, Policy)>;

/// SimGrid 3.32's `network/weight-S` under the SMPI network model, in
/// bytes (`src/surf/network_smpi.cpp`, `surf_network_model_init_SMPI`
/// sets its default to 8775; CM02 sets 0): a flow's sharing penalty is
/// its route latency plus this over each link's bandwidth.
const SIMGRID_SMPI_WEIGHT_S: f64 = 8775.0;

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
    /// The platform's one zone or cluster.
    fn body(&self, body: Node<'_, 'i>) -> Result<Platform, MachineFileError> {
        if body.tag_name().name() == "cluster" {
            return self.cluster(body);
        }
        self.attrs(body, &["id", "routing"])?;
        self.note_props(body)?;
        // A zone holding one cluster only is that cluster.
        let kids: Vec<Node> = body
            .children()
            .filter(|n| n.is_element() && n.tag_name().name() != "prop")
            .collect();
        if let Some(c) = kids.iter().find(|n| n.tag_name().name() == "cluster") {
            if kids.len() > 1 {
                return Err(self.err(
                    *c,
                    "<cluster> beside other elements of its zone: netsim imports one cluster alone, or one zone of hosts, links and routes".into(),
                ));
            }
            return self.cluster(*c);
        }
        self.zone(body)
    }

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
    /// Refuses an attribute of `n` not in `known` (what netsim reads or
    /// refuses with its own message): none is silently ignored.
    fn attrs(&self, n: Node, known: &[&str]) -> Result<(), MachineFileError> {
        match n.attributes().find(|a| !known.contains(&a.name())) {
            None => Ok(()),
            Some(a) => Err(self.err(
                n,
                format!(
                    "<{} {}=...>: unknown or unsupported attribute (netsim reads {})",
                    n.tag_name().name(),
                    a.name(),
                    known.join(", ")
                ),
            )),
        }
    }
    /// Notes what was read and set aside: see [`Platform::notes`].
    fn note(&self, n: Node, what: String) {
        self.notes
            .borrow_mut()
            .push(format!("{}:{}: {what}", self.file, self.line(n)));
    }
    /// Notes the `<prop>` children of `n`: properties no replay action
    /// reads (energy, free-form).
    fn note_props(&self, n: Node) -> Result<(), MachineFileError> {
        for k in n.children().filter(|k| k.has_tag_name("prop")) {
            self.attrs(k, &["id", "value"])?;
            self.note(
                k,
                format!(
                    "<{} {}> property `{}` = `{}`: no replay action reads it",
                    n.tag_name().name(),
                    n.attribute("id").unwrap_or(""),
                    k.attribute("id").unwrap_or(""),
                    k.attribute("value").unwrap_or("")
                ),
            );
        }
        Ok(())
    }
    /// [`Cx::note_props`], and notes the children named in `also` (a
    /// host's `<disk>`, which no replay action uses); any other child is
    /// refused.
    fn only_props(&self, n: Node, also: &[&str]) -> Result<(), MachineFileError> {
        self.note_props(n)?;
        for k in n
            .children()
            .filter(|k| k.is_element() && !k.has_tag_name("prop"))
        {
            let kind = k.tag_name().name();
            if !also.contains(&kind) {
                return Err(self.unsupported(k, kind));
            }
            self.note(
                k,
                format!(
                    "<{kind}> of <{} {}>: no replay action uses it",
                    n.tag_name().name(),
                    n.attribute("id").unwrap_or("")
                ),
            );
        }
        Ok(())
    }
    /// A `<config>`: `network/TCP-gamma` sets the TCP window; settings
    /// that cannot change timing are noted; the ones that equal netsim's
    /// physics (`bench/peers/README.md`) are accepted at those values;
    /// anything else is refused, since netsim would not follow it.
    fn config(
        &self,
        c: Node,
        tcp_window: &mut Option<u64>,
        smpi: &mut SmpiConfig,
    ) -> Result<(), MachineFileError> {
        self.attrs(c, &["id"])?;
        if let Some(id) = c.attribute("id") {
            self.note(c, format!("<config id=\"{id}\">: a name only"));
        }
        for k in c.children().filter(Node::is_element) {
            if k.tag_name().name() != "prop" {
                return Err(self.unsupported(k, k.tag_name().name()));
            }
            self.attrs(k, &["id", "value"])?;
            let key = self.need(k, "id")?;
            let value = self.need(k, "value")?.trim();
            match key {
                "network/TCP-gamma" | "network/TCP_gamma" => {
                    // 0 is no bound: SimGrid's max-min solver ignores a
                    // variable bound that is not positive (`maxmin.cpp`).
                    let w = value
                        .parse::<f64>()
                        .ok()
                        .filter(|w| w.is_finite() && *w >= 0.0 && *w < 1.8e19)
                        .ok_or_else(|| {
                            self.err(k, format!("<prop id=\"{key}\" value=\"{value}\">: a TCP window of 0 (none) or more bytes"))
                        })?;
                    *tcp_window = (w.round() >= 1.0).then_some(w.round() as u64);
                }
                "network/model" | "smpi/bw-factor" | "smpi/lat-factor"
                    if self.smpi_config(k, key, value, smpi)? => {}
                _ if NO_TIMING_CONFIG.iter().any(|p| key.starts_with(p)) => {
                    self.note(
                        k,
                        format!("<config> `{key}` = `{value}`: does not change timing in netsim"),
                    );
                }
                // SimGrid 3.32 `cpu_cas01.cpp`, flag `cpu/optim`: how
                // the CPU model updates its actions (Lazy: a heap of
                // completions; Full: every action at every step; TI:
                // speed profiles integrated in closed form), one model.
                "cpu/optim" if ["Lazy", "TI", "Full"].contains(&value) => {
                    self.note(k, format!("<config> `{key}` = `{value}`: how SimGrid updates its CPU actions, not what they compute; netsim's answer is the same"));
                }
                "maxmin/precision" | "surf/precision" => {
                    self.note(k, format!("<config> `{key}` = `{value}`: SimGrid's rounding of its double-precision times; netsim computes in whole picoseconds"));
                }
                _ => match EQUAL_PHYSICS_CONFIG.iter().find(|(k2, _)| *k2 == key) {
                    Some((_, ok)) if ok.contains(&value) => {}
                    Some((_, ok)) => {
                        return Err(self.err(k, format!("<config> `{key}` = `{value}`: netsim models only {} (the physics of docs/PEERS.md)", ok.join(" or "))));
                    }
                    None => {
                        return Err(self.err(k, format!("<config> `{key}`: a SimGrid setting netsim does not model; remove it (or set the matching netsim parameter) so the answer is not silently different")));
                    }
                },
            }
        }
        Ok(())
    }
    /// Reads `<prop id="network/model" value="SMPI">` and the SMPI
    /// factor tables into `smpi`; `false` for what is left to the equal
    /// physics (`network/model` `CM02`).
    fn smpi_config(
        &self,
        k: Node,
        key: &str,
        value: &str,
        smpi: &mut SmpiConfig,
    ) -> Result<bool, MachineFileError> {
        let table = |parse: fn(&str) -> Result<FactorTable, crate::size_factors::FactorError>| {
            parse(value).map_err(|e| {
                self.err(
                    k,
                    format!("<prop id=\"{key}\">: {e} (SimGrid's `threshold:factor;...`)"),
                )
            })
        };
        match key {
            "network/model" if value == "SMPI" => smpi.model = true,
            "network/model" => return Ok(false),
            "smpi/bw-factor" => {
                smpi.bandwidth = Some((table(FactorTable::bandwidth)?, self.line(k)))
            }
            _ => smpi.latency = Some((table(FactorTable::latency)?, self.line(k))),
        }
        Ok(true)
    }
    /// Notes the SMPI factor tables of a file whose network model is
    /// CM02, which does not read them.
    fn note_unread_factors(&self, smpi: &SmpiConfig) {
        if smpi.model {
            return;
        }
        for (key, t) in [
            ("smpi/bw-factor", &smpi.bandwidth),
            ("smpi/lat-factor", &smpi.latency),
        ] {
            if let Some((_, line)) = t {
                self.notes.borrow_mut().push(format!(
                    "{}:{line}: <config> `{key}`: read only by SimGrid's SMPI network model, not CM02",
                    self.file
                ));
            }
        }
    }
    /// Checks a `<host>`'s attributes and reads its profiles.
    fn host_attrs(&self, n: Node) -> Result<(), MachineFileError> {
        self.refuse(n, &["availability_file"])?;
        self.profile_files(n, true)?;
        self.attrs(
            n,
            &[
                "id",
                "speed",
                "core",
                "pstate",
                "coordinates",
                "speed_file",
                "state_file",
            ],
        )
    }
    /// Checks a `<link>`'s attributes and reads its profiles.
    fn link_attrs(&self, n: Node) -> Result<(), MachineFileError> {
        self.profile_files(n, false)?;
        self.attrs(
            n,
            &[
                "id",
                "bandwidth",
                "latency",
                "sharing_policy",
                "bandwidth_file",
                "latency_file",
                "state_file",
            ],
        )
    }
    fn value<T>(
        &self,
        n: Node,
        attr: &str,
        f: fn(&str) -> Result<T, units::ValueError>,
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
            // FULLDUPLEX: SimGrid 3.32's deprecated name of SPLITDUPLEX
            // (`surfxml_sax_cb.cpp`, `ETag_surfxml_link`).
            Some("SPLITDUPLEX" | "FULLDUPLEX") => Ok(Policy::SplitDuplex),
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
    /// The platform of `b`; `speeds`: every host's, node order.
    fn build(
        &self,
        n: Node,
        b: MachineBuilder,
        speeds: Vec<f64>,
    ) -> Result<Platform, MachineFileError> {
        let machine = b
            .build(Sharing::Fair)
            .map_err(|e| self.err(n, machine_msg(e)))?;
        Ok(Platform {
            machine,
            host_speed: speeds
                .first()
                .copied()
                .filter(|s| speeds.iter().all(|x| x == s)),
            host_speeds: speeds,
            speed_profiles: Vec::new(),
            changes: Vec::new(),
            tcp_window: None,
            notes: Vec::new(),
        })
    }
}

/// What a `<config>` says of SimGrid's SMPI network model.
#[derive(Default)]
struct SmpiConfig {
    /// `network/model` is `SMPI`.
    model: bool,
    /// `smpi/bw-factor`, with its line.
    bandwidth: Option<(FactorTable, usize)>,
    /// `smpi/lat-factor`, with its line.
    latency: Option<(FactorTable, usize)>,
}

impl SmpiConfig {
    /// The factors the flow model applies: under SMPI the file's tables,
    /// else SimGrid 3.32's defaults (`network_smpi.cpp`); none under
    /// CM02, which reads neither table (`network_cm02.cpp`,
    /// `get_bandwidth_factor` is `network/bandwidth-factor`'s).
    fn factors(self) -> Option<SizeFactors> {
        if !self.model {
            return None;
        }
        let d = SizeFactors::simgrid_default();
        Some(SizeFactors {
            bandwidth: self.bandwidth.map_or(d.bandwidth, |t| t.0),
            latency: self.latency.map_or(d.latency, |t| t.0),
        })
    }
}

/// `<config>` keys (prefixes) that cannot change a simulated time:
/// context switching, tracing, file search paths.
const NO_TIMING_CONFIG: &[&str] = &["contexts/", "tracing", "path", "debug/", "exception/"];

/// `<config>` keys netsim accepts at the values that are its own physics
/// (`bench/peers/README.md`, "Settings that make the physics equal").
const EQUAL_PHYSICS_CONFIG: &[(&str, &[&str])] = &[
    ("network/model", &["CM02", "SMPI"]),
    // `compound`: the CPU and network of `cpu/model` and `network/model`
    // (SimGrid 3.32 `sg_config.cpp`, host model descriptions).
    ("host/model", &["compound"]),
    ("network/crosstraffic", &["0", "no", "off", "false"]),
    ("network/bandwidth-factor", &["1"]),
    ("network/latency-factor", &["1"]),
];

fn machine_msg(e: MachineError) -> String {
    e.to_string()
}

#[cfg(test)]
mod tests;
