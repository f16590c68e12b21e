//! The machine's structure: hosts, routers and switches, directed links,
//! and the routing function that production code uses.
//!
//! # Numbering
//!
//! Vertices are numbered hosts first: host `n` is vertex `n` and is
//! [`NodeId`]`(n)`; routers and switches follow. Links are directed and
//! come in pairs (`reverse`), one per direction of a full-duplex cable, each
//! direction with its own bandwidth, latency and buffer.
//!
//! # The network interface is the host's link
//!
//! Every host has exactly one cable, to its router or switch. Its outgoing
//! direction is the node's *injection* link and its incoming direction the
//! *ejection* link; their bandwidths are the node's injection and ejection
//! rates, shared by all processes on the node. This is `R_N` of the
//! max-rate model (Bienz et al., EuroMPI'18, eq. 2:
//! `T = alpha + ppn * s / min(R_N, ppn * R_b)`): the per-process rate
//! `R_b` is [`crate::Transfer::rate_cap`] and the shared `R_N` is this link.
//!
//! # Structure versus routing
//!
//! The structure also lives in a petgraph [`DiGraph`] (edge index = link
//! id), which answers sanity questions: connectivity ([`Machine::is_connected`])
//! and diameter ([`Machine::diameter`]), and serves as the slow reference
//! in tests. Production routing never searches the graph: the machine's
//! [`Router`] ([`crate::routing`]) routes a torus arithmetically and other
//! machines by a next-hop table computed once ([`Machine::next_link`],
//! `O(1)`).

use crate::cm02::Cm02;
use crate::error::MachineError;
use crate::link::{Link, LinkClass, LinkParams, NONE};
use crate::pair_routes::{PairRoute, PairTable};
use crate::routing::{NextHopTable, Router};
use crate::size_factors::SizeFactors;
use crate::torus_geom::{Dim, TorusGeom};
use crate::transport::LinkId;
use crate::transport::NodeId;
use petgraph::graph::{DiGraph, NodeIndex};
use sim_core::{Bandwidth, Time};
use std::collections::VecDeque;
use std::sync::Arc;

/// What a vertex of the machine is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum VertexKind {
    /// A compute node: `sockets` sockets of `cores_per_socket` cores.
    Host {
        /// Sockets per node.
        sockets: u16,
        /// Cores per socket.
        cores_per_socket: u16,
    },
    /// A router of a direct network (a Cray Gemini of the torus).
    Router,
    /// A switch of an indirect network (top-of-rack, InfiniBand).
    Switch,
}

/// A vertex: its name (for reports and machine files) and kind.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Vertex {
    /// Name, unique within the machine.
    pub name: String,
    /// Host, router or switch.
    pub kind: VertexKind,
}

/// How the two directions of a full-duplex cable (and a node interface)
/// share bandwidth among the flows crossing them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sharing {
    /// Directions are independent; flows in one direction share its
    /// bandwidth equally (max-min fair). Zhu et al., eq. 5 (fairness
    /// property).
    #[default]
    Fair,
    /// Zhu et al.'s asymmetric property (eq. 6): on a shared cable with
    /// `d+` flows in and `d-` flows out, every flow in either direction
    /// gets at most `bandwidth / max(d+, d-)`. Measured for TCP over 1 GbE
    /// NICs and the inter-rack backbone (Zhu et al. Sec. 5.2).
    Asymmetric,
}

/// Handle to a vertex while building (hosts and switches are numbered
/// separately until [`MachineBuilder::build`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VRef {
    /// The i-th host added.
    Host(u32),
    /// The i-th router or switch added.
    Net(u32),
}

/// Builds a machine from vertices and duplex cables; [`MachineBuilder::build`]
/// validates it and computes the routing table.
#[derive(Clone, Debug, Default)]
pub struct MachineBuilder {
    name: String,
    hosts: Vec<Vertex>,
    net: Vec<Vertex>,
    cables: Vec<(VRef, VRef, LinkParams, LinkParams)>,
    /// Whether one host is a machine (a SimGrid platform of one host,
    /// whose ranks talk over its loopback); otherwise two are needed.
    one_host: bool,
}

impl MachineBuilder {
    /// An empty machine called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        MachineBuilder {
            name: name.into(),
            ..Default::default()
        }
    }
    /// Accepts a machine of one host (a SimGrid platform's: its ranks
    /// talk over the host's route to itself, [`Machine::set_loopback_routes`]).
    pub(crate) fn allow_one_host(&mut self) {
        self.one_host = true;
    }
    /// Adds a host; hosts are numbered in the order added.
    pub fn host(&mut self, name: impl Into<String>, sockets: u16, cores_per_socket: u16) -> VRef {
        self.hosts.push(Vertex {
            name: name.into(),
            kind: VertexKind::Host {
                sockets,
                cores_per_socket,
            },
        });
        VRef::Host(self.hosts.len() as u32 - 1)
    }
    /// Adds a router (`router = true`) or switch.
    pub fn net(&mut self, name: impl Into<String>, router: bool) -> VRef {
        self.net.push(Vertex {
            name: name.into(),
            kind: if router {
                VertexKind::Router
            } else {
                VertexKind::Switch
            },
        });
        VRef::Net(self.net.len() as u32 - 1)
    }
    /// Adds a full-duplex cable: `fwd` is the direction a -> b, `back` is
    /// b -> a. Links are numbered in the order added: a -> b gets id `2i`,
    /// b -> a gets `2i + 1` for the i-th cable.
    pub fn cable(&mut self, a: VRef, b: VRef, fwd: LinkParams, back: LinkParams) {
        self.cables.push((a, b, fwd, back));
    }
    /// Cables added so far: cable `c`'s two directions become links `2c`
    /// (`a` to `b`) and `2c + 1`.
    pub fn cables(&self) -> usize {
        self.cables.len()
    }
    /// Renames the machine.
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.name = name.into();
    }
    /// Number of hosts added so far.
    pub fn hosts(&self) -> u32 {
        self.hosts.len() as u32
    }

    fn vid(&self, v: VRef) -> u32 {
        match v {
            VRef::Host(i) => i,
            VRef::Net(i) => self.hosts.len() as u32 + i,
        }
    }

    /// Validates and builds a machine routed by shortest-path tables.
    ///
    /// Checks: at least two hosts; every host has exactly one cable and
    /// it leads to a router or switch; no self-loops; every host reaches
    /// every other. Cost: `O(H * (S + E_S))` time and `O(S * H)` table
    /// memory for `H` hosts, `S` routers/switches and `E_S` links between
    /// them (linear in `H` for one switch).
    pub fn build(self, sharing: Sharing) -> Result<Machine, MachineError> {
        self.build_with(sharing, None)
    }

    /// Validates and builds a machine routed by `router`, or by
    /// shortest-path tables when `None`.
    pub(crate) fn build_with(
        self,
        sharing: Sharing,
        router: Option<Router>,
    ) -> Result<Machine, MachineError> {
        let hosts = self.hosts.len() as u32;
        let least = if self.one_host { 1 } else { 2 };
        if hosts < least {
            return Err(MachineError::Graph(format!(
                "machine `{}` has {hosts} hosts; at least {least} are needed",
                self.name
            )));
        }
        let mut links = Vec::with_capacity(self.cables.len() * 2);
        for &(a, b, f, r) in &self.cables {
            let (a, b) = (self.vid(a), self.vid(b));
            let i = links.len() as u32;
            if a == b {
                let n = self.vertex_name(a);
                return Err(MachineError::Graph(format!("cable from `{n}` to itself")));
            }
            links.push(Link {
                from: a,
                to: b,
                bandwidth: f.bandwidth,
                latency: f.latency,
                buffer: f.buffer,
                reverse: LinkId(i + 1),
            });
            links.push(Link {
                from: b,
                to: a,
                bandwidth: r.bandwidth,
                latency: r.latency,
                buffer: r.buffer,
                reverse: LinkId(i),
            });
        }
        let mut host_link = vec![NONE; hosts as usize];
        for (id, l) in links.iter().enumerate() {
            if l.from < hosts {
                if host_link[l.from as usize] != NONE {
                    return Err(MachineError::Graph(format!(
                        "host `{}` has more than one cable (a host has exactly one network interface)",
                        self.vertex_name(l.from)
                    )));
                }
                if l.to < hosts {
                    return Err(MachineError::Graph(format!(
                        "host `{}` is cabled to host `{}`; hosts connect to routers or switches",
                        self.vertex_name(l.from),
                        self.vertex_name(l.to)
                    )));
                }
                host_link[l.from as usize] = id as u32;
            }
        }
        if let Some(h) = host_link.iter().position(|&l| l == NONE) {
            return Err(MachineError::Graph(format!(
                "host `{}` has no cable",
                self.vertex_name(h as u32)
            )));
        }
        let vertices: Vec<Vertex> = self.hosts.into_iter().chain(self.net).collect();
        let mut graph = DiGraph::with_capacity(vertices.len(), links.len());
        for v in &vertices {
            graph.add_node(v.kind);
        }
        for (id, l) in links.iter().enumerate() {
            graph.add_edge(
                NodeIndex::new(l.from as usize),
                NodeIndex::new(l.to as usize),
                id as u32,
            );
        }
        let router = match router {
            Some(r) => r,
            None => Router::Table(NextHopTable::shortest_paths(&links, hosts, vertices.len())),
        };
        let heads = links
            .iter()
            .map(|l| Head {
                to: l.to,
                latency: l.latency,
            })
            .collect();
        let m = Machine {
            name: self.name,
            vertices,
            heads,
            links,
            hosts,
            host_link,
            graph,
            router,
            sharing,
            shared: None,
            pairs: None,
            factors: None,
            cm02: None,
            loops: None,
        };
        if !m.is_connected() {
            return Err(MachineError::Graph(format!(
                "machine `{}` is not connected",
                m.name
            )));
        }
        Ok(m)
    }

    fn vertex_name(&self, v: u32) -> &str {
        let h = self.hosts.len() as u32;
        if v < h {
            &self.hosts[v as usize].name
        } else {
            &self.net[(v - h) as usize].name
        }
    }
}

/// A link as a route walk reads it (see `Machine::heads`).
#[derive(Clone, Copy, Debug)]
struct Head {
    to: u32,
    latency: Time,
}

/// A machine: vertices, links, node interfaces and routing.
#[derive(Clone, Debug)]
pub struct Machine {
    pub(crate) name: String,
    pub(crate) vertices: Vec<Vertex>,
    pub(crate) links: Vec<Link>,
    /// What a route walk reads of each link, its head and its latency,
    /// in a table of its own: 16 bytes a link instead of a 40-byte
    /// `Link` (on a 16x16x16 torus the links take 1.6 MB). The walk at
    /// each flow start had been 8 % of halo27's flow run (P = 4096),
    /// most of it the load of `Link::to`.
    heads: Vec<Head>,
    pub(crate) hosts: u32,
    pub(crate) host_link: Vec<u32>,
    pub(crate) graph: DiGraph<VertexKind, u32>,
    pub(crate) router: Router,
    /// How cable directions share bandwidth (see [`Sharing`]).
    pub sharing: Sharing,
    /// Links that draw on one capacity (see [`Machine::share_capacity`]);
    /// `None`: every link is its own.
    pub(crate) shared: Option<SharedCapacity>,
    /// Per-pair routes the flow model follows instead of the router
    /// (see [`Machine::set_pair_routes`]); `None` for most machines.
    pub(crate) pairs: Option<Arc<PairTable>>,
    /// SimGrid SMPI's per-size factors the flow model applies (see
    /// [`Machine::set_size_factors`]); `None` for most machines.
    pub(crate) factors: Option<Arc<SizeFactors>>,
    /// SimGrid's CM02 sharing, which the flow model then follows (see
    /// [`Machine::set_cm02`]); `None` for most machines.
    pub(crate) cm02: Option<Arc<Cm02>>,
    /// Each host's route to itself, which the flow model moves the
    /// messages between ranks on one host over (see
    /// [`Machine::set_loopback_routes`]); `None`: such messages never
    /// reach the transport.
    pub(crate) loops: Option<Arc<[PairRoute]>>,
}

/// Directed links that draw on one capacity resource: SimGrid's SHARED
/// link carrying both directions of a host's traffic.
#[derive(Clone, Debug)]
pub(crate) struct SharedCapacity {
    /// Per link, the link whose capacity it draws on (the lowest id of
    /// its group; itself when it is in none).
    pub(crate) resource: Vec<u32>,
    /// What the first group is, for the packet model's refusal.
    pub(crate) why: String,
}

impl Machine {
    /// Makes each group of `groups` one capacity resource in the flow
    /// model: a flow crossing any of a group's links draws on the
    /// bandwidth of the group's lowest link, once per flow however many
    /// of the group's links its route crosses; its bytes and flow counts
    /// are reported on that link, the others report none. The links of
    /// a group must have one bandwidth. `why` names the first group (file,
    /// line, link) for the packet model, which refuses such a machine.
    /// Errors if a link id is out of range, a link is in two groups or a
    /// group's bandwidths differ.
    pub fn share_capacity(
        &mut self,
        groups: &[Vec<LinkId>],
        why: String,
    ) -> Result<(), MachineError> {
        let n = self.links.len();
        let mut resource: Vec<u32> = (0..n as u32).collect();
        let mut taken = vec![false; n];
        for g in groups {
            let Some(&lo) = g.iter().min() else { continue };
            for &l in g {
                let bad = l.index() >= n
                    || std::mem::replace(&mut taken[l.index()], true)
                    || self.links[l.index()].bandwidth != self.links[lo.index()].bandwidth;
                if bad {
                    return Err(MachineError::Graph(format!(
                        "link {l} cannot share the capacity of link {lo}"
                    )));
                }
                resource[l.index()] = lo.0;
            }
        }
        if groups.iter().any(|g| g.len() > 1) {
            self.shared = Some(SharedCapacity { resource, why });
        }
        Ok(())
    }
    /// Why links of this machine share one capacity (the first such
    /// group), if any do: the packet model refuses such a machine.
    pub fn shared_capacity(&self) -> Option<&str> {
        self.shared.as_ref().map(|s| s.why.as_str())
    }

    /// Routes the flow model by `route(src, dst)` for every ordered pair
    /// of distinct hosts (`None`: the platform has no route between
    /// them, a run whose ranks sit on both is refused,
    /// [`Machine::unrouted`]); see `pair_routes.rs`. `why` names what
    /// needs the table, for the packet model's refusal. Errors if a link
    /// id is out of range or repeated in one route.
    pub fn set_pair_routes(
        &mut self,
        route: impl FnMut(u32, u32) -> Option<PairRoute>,
        why: String,
    ) -> Result<(), MachineError> {
        let t = PairTable::build(self.hosts, self.links.len(), route)?;
        self.pairs = Some(Arc::new(t));
        self.shared = Some(SharedCapacity {
            resource: (0..self.links.len() as u32).collect(),
            why,
        });
        Ok(())
    }

    /// Makes the flow model apply SimGrid SMPI's bandwidth and latency
    /// factors per message size (`crate::size_factors`); `None`, or
    /// tables of 1 everywhere, applies none. The packet model refuses a
    /// machine with factors.
    pub fn set_size_factors(&mut self, factors: Option<SizeFactors>) {
        self.factors = factors.and_then(SizeFactors::if_any).map(Arc::new);
    }

    /// Has the flow model share as SimGrid's CM02 does, with `cm02`'s
    /// link profiles (`crate::cm02`); `None`: netsim's own sharing. The
    /// packet model refuses a machine whose links follow profiles.
    pub fn set_cm02(&mut self, cm02: Option<Cm02>) {
        self.cm02 = cm02.map(Arc::new);
    }

    /// The sharing of [`Machine::set_cm02`], if any.
    pub fn cm02(&self) -> Option<&Arc<Cm02>> {
        self.cm02.as_ref()
    }

    /// The factors of [`Machine::set_size_factors`], if any.
    pub fn size_factors(&self) -> Option<&SizeFactors> {
        self.factors.as_deref()
    }

    /// Gives every host a route to itself, host `i` the `i`-th of
    /// `routes` (SimGrid's loopback: the messages between ranks on one
    /// host cross it in the flow model, [`Machine::has_loopback`]).
    /// Errors unless there is one route per host, each of links in range
    /// and none repeated.
    pub fn set_loopback_routes(&mut self, routes: Vec<PairRoute>) -> Result<(), MachineError> {
        if routes.len() != self.hosts as usize {
            return Err(MachineError::Graph(format!(
                "{} loopback routes for {} hosts",
                routes.len(),
                self.hosts
            )));
        }
        for (h, r) in routes.iter().enumerate() {
            for (i, &l) in r.links.iter().enumerate() {
                if l.index() >= self.links.len() || r.links[..i].contains(&l) {
                    return Err(MachineError::Graph(format!(
                        "loopback route of host {h}: link {l} is out of range or repeated"
                    )));
                }
            }
        }
        self.loops = Some(routes.into());
        Ok(())
    }

    /// Whether the machine has a route from each host to itself
    /// ([`Machine::set_loopback_routes`]).
    pub fn has_loopback(&self) -> bool {
        self.loops.is_some()
    }

    /// Whether flows follow a per-pair route table.
    pub fn has_pair_routes(&self) -> bool {
        self.pairs.is_some()
    }

    /// The flow model's route from `src` to `dst`: appends its links to
    /// `out` and returns its latency and the rate bound of its unshared
    /// links. A host's route to itself is its loopback route (none
    /// without one); from the pair table when the machine has one (an
    /// unrouted pair gives no link), else [`Machine::route_into`] with no
    /// bound.
    pub fn pair_route_into(
        &self,
        src: NodeId,
        dst: NodeId,
        out: &mut Vec<LinkId>,
    ) -> (Time, Option<Bandwidth>) {
        if src == dst {
            let Some(r) = self.loops.as_ref().map(|l| &l[src.0 as usize]) else {
                return (Time::ZERO, None);
            };
            out.extend_from_slice(&r.links);
            return (r.latency, r.cap);
        }
        match &self.pairs {
            Some(t) => t.route_into(src, dst, out),
            None => (self.route_into(src, dst, out), None),
        }
    }

    /// The first ordered pair of distinct hosts among `nodes` that the
    /// pair table has no route for, if any.
    pub fn unrouted(&self, nodes: &[NodeId]) -> Option<(NodeId, NodeId)> {
        self.pairs.as_ref()?.unrouted(nodes)
    }
    /// The machine's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Number of hosts (compute nodes).
    pub fn nodes(&self) -> u32 {
        self.hosts
    }
    /// All vertices, hosts first.
    pub fn vertices(&self) -> &[Vertex] {
        &self.vertices
    }
    /// All directed links; the index is the link id.
    pub fn links(&self) -> &[Link] {
        &self.links
    }
    /// Link `id`. Panics if out of range.
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.index()]
    }
    /// The petgraph view of the structure (edge weight = link id).
    pub fn graph(&self) -> &DiGraph<VertexKind, u32> {
        &self.graph
    }
    /// What link `id` connects. `O(1)`.
    pub fn link_class(&self, id: LinkId) -> LinkClass {
        let l = &self.links[id.index()];
        if l.from < self.hosts {
            return LinkClass::Injection;
        }
        if l.to < self.hosts {
            return LinkClass::Ejection;
        }
        match (self.router_coords(l.from), self.router_coords(l.to)) {
            (Some(a), Some(b)) => {
                let d = (0..3).find(|&d| a[d] != b[d]).unwrap_or(0);
                LinkClass::Torus(Dim::ALL[d])
            }
            _ => LinkClass::Network,
        }
    }
    /// The coordinates of vertex `v` if it is a torus router.
    pub fn router_coords(&self, v: u32) -> Option<[u32; 3]> {
        match self.torus() {
            Some(t) if v >= self.hosts => Some(t.coords(v - self.hosts)),
            _ => None,
        }
    }
    /// The torus geometry, if this machine is a torus.
    pub fn torus(&self) -> Option<&TorusGeom> {
        self.router.torus()
    }
    /// Injection link (node -> network) of `node`.
    pub fn injection_link(&self, node: NodeId) -> LinkId {
        LinkId(self.host_link[node.0 as usize])
    }
    /// Ejection link (network -> node) of `node`.
    pub fn ejection_link(&self, node: NodeId) -> LinkId {
        self.links[self.host_link[node.0 as usize] as usize].reverse
    }
    /// Injection rate `R_N` of `node` [bytes/s].
    pub fn injection_rate(&self, node: NodeId) -> Bandwidth {
        self.links[self.injection_link(node).index()].bandwidth
    }
    /// Sockets and cores per socket of `node`.
    pub fn host_shape(&self, node: NodeId) -> (u16, u16) {
        match self.vertices[node.0 as usize].kind {
            VertexKind::Host {
                sockets,
                cores_per_socket,
            } => (sockets, cores_per_socket),
            _ => unreachable!("vertices below `hosts` are hosts"),
        }
    }

    /// The link a packet at vertex `v` bound for host `dst` takes next,
    /// by the machine's deterministic routing: at a host (the source) its
    /// injection link; on a torus dimension-order routing
    /// ([`TorusGeom::dor_port`]); otherwise the precomputed shortest-path
    /// table, whose tie rule is "lowest link id" (declaration order).
    /// `O(1)`. Panics if `v == dst` (the packet has arrived).
    #[inline]
    pub fn next_link(&self, v: u32, dst: u32) -> LinkId {
        assert_ne!(v, dst, "packet already at its destination");
        if v < self.hosts {
            return LinkId(self.host_link[v as usize]);
        }
        self.router.next_link(v, dst)
    }

    /// [`Machine::next_link`] for a transfer from host `src`: the same
    /// link, except on a fat tree routed by `ecmp` or `random`, whose
    /// up-link depends on the source too. `O(levels)` there, else `O(1)`.
    #[inline]
    pub fn next_link_from(&self, v: u32, src: u32, dst: u32) -> LinkId {
        match &self.router {
            Router::Spread(s) if v >= self.hosts => {
                assert_ne!(v, dst, "packet already at its destination");
                s.next_link(&self.links, v, src, dst)
            }
            _ => self.next_link(v, dst),
        }
    }

    /// Appends the links of the deterministic route from `src` to `dst`
    /// (injection link first, ejection link last) to `out`; returns the
    /// sum of their latencies. `O(route)`.
    pub fn route_into(&self, src: NodeId, dst: NodeId, out: &mut Vec<LinkId>) -> Time {
        let (mut v, mut lat) = (src.0, Time::ZERO);
        while v != dst.0 {
            let l = self.next_link_from(v, src.0, dst.0);
            out.push(l);
            let h = self.heads[l.index()];
            lat += h.latency;
            v = h.to;
        }
        lat
    }

    /// The deterministic route from `src` to `dst` (allocates; for
    /// analysis and tests, not hot paths).
    pub fn route(&self, src: NodeId, dst: NodeId) -> Vec<LinkId> {
        let mut r = Vec::new();
        self.route_into(src, dst, &mut r);
        r
    }

    /// Hops of the deterministic route: links between routers or
    /// switches, i.e. the route's links minus injection and ejection
    /// (the `h` of Bienz et al.'s contention model, Sec. 4.2). Zero for
    /// `src == dst` and for two hosts on the same router or switch.
    pub fn hops(&self, src: NodeId, dst: NodeId) -> u32 {
        if src == dst {
            return 0;
        }
        if let Some(t) = self.torus() {
            return t.hops(src.0, dst.0);
        }
        let mut n = 0;
        let mut v = src.0;
        while v != dst.0 {
            v = self.heads[self.next_link(v, dst.0).index()].to;
            n += 1;
        }
        n - 2
    }

    /// Mean hops over `pairs` (0 for an empty set).
    pub fn average_hops(&self, pairs: &[(NodeId, NodeId)]) -> f64 {
        if pairs.is_empty() {
            return 0.0;
        }
        let sum: u64 = pairs.iter().map(|&(a, b)| self.hops(a, b) as u64).sum();
        sum as f64 / pairs.len() as f64
    }

    /// Whether every vertex reaches every other (one strongly connected
    /// component). `O(V + E)`.
    pub fn is_connected(&self) -> bool {
        petgraph::algo::kosaraju_scc(&self.graph).len() == 1
    }

    /// Hop distances (in links) from vertex `from` to every vertex, by
    /// breadth-first search on the graph; `u32::MAX` if unreachable. The
    /// slow reference that tests compare routes against. `O(V + E)`.
    pub fn bfs_distances(&self, from: u32) -> Vec<u32> {
        let mut dist = vec![NONE; self.vertices.len()];
        let mut q = VecDeque::new();
        dist[from as usize] = 0;
        q.push_back(NodeIndex::new(from as usize));
        while let Some(v) = q.pop_front() {
            let d = dist[v.index()];
            for u in self.graph.neighbors(v) {
                if dist[u.index()] == NONE {
                    dist[u.index()] = d + 1;
                    q.push_back(u);
                }
            }
        }
        dist
    }

    /// Largest host-to-host distance in router/switch hops (links minus
    /// injection and ejection). `O(H * (V + E))`: a sanity check, not for
    /// hot paths.
    pub fn diameter(&self) -> u32 {
        let mut best = 0;
        for h in 0..self.hosts {
            let d = self.bfs_distances(h);
            for (t, &dt) in d.iter().enumerate().take(self.hosts as usize) {
                if t as u32 != h {
                    best = best.max(dt.saturating_sub(2));
                }
            }
        }
        best
    }
}
