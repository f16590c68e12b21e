//! The packet model: a message becomes packets that queue at every link
//! direction on their way (one to three events per packet per link).
//!
//! # Servers
//!
//! Every link direction is a server with its bandwidth, latency and a
//! FIFO queue of waiting packets. A packet's service at link `l` starts at
//! `S = max(head arrival, link free)` and ends at
//! `E = S + size / bandwidth` (store-and-forward) or
//! `E = max(S + size / bandwidth, tail arrival)` (virtual cut-through: the
//! packet cannot finish leaving before its tail has arrived). The head
//! reaches the next router at `S + latency` (cut-through) or
//! `E + latency` (store-and-forward), the tail at `E + latency`. The last
//! link is the destination's ejection link; the packet is delivered when
//! its tail arrives.
//!
//! # Node interface
//!
//! The source node's injection link (its NIC, rate `R_N`) is a server
//! too, shared by all messages from the node: it serves the messages that
//! have a packet ready in round-robin order, one packet at a time, so
//! concurrent messages from one node share `R_N` equally. A transfer's
//! [`Transfer::rate_cap`] (`R_b`) paces its packets: packet `k` is ready
//! no earlier than `now + k * P / R_b` (cut-through; its tail follows
//! `P / R_b` later) or `now + (k + 1) * P / R_b` (store-and-forward), as
//! if a private link of rate `R_b` fed the NIC. On an idle machine this
//! gives exactly the closed form of `network::packet_idle_time`.
//!
//! # Sharing rule
//!
//! With [`Sharing::Asymmetric`] (Zhu et al., eq. 6) each link counts the
//! messages currently crossing it (from the arrival of a message's first
//! packet to the departure of its last); a direction crossed by `n`
//! messages whose reverse direction is crossed by `n' > n` serves at
//! `bandwidth * n / n'`: every message gets `bandwidth / max(n, n')`.
//!
//! # Buffers
//!
//! By default queues are unbounded. With [`NetConfig::backpressure`]
//! each link's `buffer` bounds the packets held at its far end, in slots
//! of one full packet: a packet holds a slot of the link it crossed from
//! the start of its service there until it starts on its next link, so a
//! full downstream buffer stalls the upstream link and queues back up hop
//! by hop to the NIC. A buffer of 0 means unbounded; the ejection into a
//! host never blocks. On a torus, a packet entering a ring (from the NIC
//! or another dimension) needs two free slots (bubble flow control, as in
//! BlueGene/L's torus), and a packet already in the ring may pass one
//! that waits to enter (in a router they sit at different input ports).
//! This keeps dimension-order routing deadlock-free; machine files with
//! cyclic shortest paths get no such guarantee. `idle_time` stays exact
//! while a lone message never fills a buffer.
//!
//! # Virtual channels
//!
//! With `vcs > 0` ([`NetConfig::vcs`], backpressure on) every
//! router-bound link has that many channels of `vc_buffer` bytes each in
//! place of its one `buffer`, and the bubble rule is off: a dateline per
//! ring and one class per routing phase (or Duato's escape channels for
//! minimal adaptive routing) keep every torus routing deadlock-free
//! ([`vc`] states the classes and the allocation rule).

use crate::config::{NetConfig, NetConfigError, RouteMode, Switching, check, window_cap};
use crate::idle::{packet_idle_time, packetize, route_latency};
use crate::machine::{Machine, Sharing};
use crate::routing::adaptive;
use crate::routing::fat_tree::UpPorts;
use crate::routing::oblivious::ORDERS;
use crate::stats::{LinkStat, StatsCollector};
use crate::transport::LinkId;
use crate::transport::{Delivery, LinkBusy, NodeId, Transfer, Transport};
use sim_core::rng::{Rng, RngStreams, SimRng};
use sim_core::{Bandwidth, PS_PER_SEC, Schedule, Time, transfer_time};
use std::collections::VecDeque;

pub mod vc;

const NONE: u32 = u32::MAX;
const NODIM: u8 = u8::MAX;

/// Events of the packet model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEvent {
    /// A packet's head reaches the router at the end of its current link
    /// and queues for the next one.
    Head(u32),
    /// A link finished its packet and takes the next.
    Free(u32),
    /// A rate-capped message has its next packet ready.
    Pace(u32),
    /// A packet's tail reached its destination.
    Deliver(u32),
}

#[derive(Clone, Copy, Debug, Default)]
struct Msg {
    src: u32,
    dst: u32,
    token: u64,
    npk: u64,
    next_pk: u64,
    delivered: u64,
    last_size: u32,
    t0: Time,
    /// Pacer service of a full / the last packet (zero without a cap).
    pace_full: Time,
    pace_last: Time,
}

#[derive(Clone, Copy, Debug, Default)]
struct Pkt {
    msg: u32,
    size: u32,
    last: bool,
    first: bool,
    /// Link the packet is queued at or served by.
    link: u32,
    /// Link it arrived over (`NONE` while at the source NIC); its buffer
    /// holds the packet until service on `link` starts.
    prev: u32,
    /// When its tail arrives at the input of `link`.
    tail: Time,
    /// Per-packet routing ([`crate::routing::oblivious`]): the
    /// intermediate router still to reach (`NONE`: none, or reached), and
    /// the index of its dimension order in `ORDERS`.
    via: u32,
    order: u8,
    /// The source router has made its per-packet choice.
    chosen: bool,
    /// Virtual channels ([`vc`]): the channel on `link` (reserved ahead
    /// when `res`), the one on `prev`, and whether the packet has
    /// passed its intermediate router (its second phase).
    vc: u8,
    pvc: u8,
    res: bool,
    phase2: bool,
}

#[derive(Clone, Debug, Default)]
struct LinkQ {
    fifo: VecDeque<u32>,
    /// End of the current (or last) service.
    free_at: Time,
    /// A `Free` event is pending. Invariant: a link with packets (or, for
    /// an injection link, messages) waiting has one pending; an idle
    /// link with nothing waiting has none, so an uncongested packet costs
    /// no `Free` event at all.
    free_pending: bool,
    waiting_bytes: u64,
    /// The packet in service is its message's last.
    cur_last: bool,
    /// Messages crossing the link (asymmetric rule only).
    active: u32,
    /// Packets held in the input buffer at the link's far end
    /// (backpressure only): packets that started on this link and have not
    /// yet started on their next one.
    occ: u64,
    /// Idle with work waiting, but the next packet does not fit in the
    /// downstream buffer; woken when that buffer drains.
    blocked: bool,
}

/// The packet transport. See the module docs.
pub struct PacketNet {
    m: Machine,
    /// [`NetConfig::tcp_window`].
    tcp_window: Option<u64>,
    packet: u64,
    ct: bool,
    routing: RouteMode,
    /// Stream `routing.choice` of the configuration's seed.
    rng: SimRng,
    /// The fat tree's up-links under `nca`, whose packets draw among them.
    ups: Option<UpPorts>,
    asym: bool,
    bp: bool,
    /// Torus dimension of each router link (`NODIM` otherwise), for the
    /// bubble rule, and its port (`2 * dim + sign`) for the dateline.
    link_dim: Vec<u8>,
    link_port: Vec<u8>,
    /// Virtual channels per router-bound link (0: none), their slots
    /// \[packets\] and occupancy (`link * vcs + vc`); `dateline` off only
    /// in the test that shows it matters.
    vcs: u32,
    vc_slots: u64,
    vocc: Vec<u32>,
    dateline: bool,
    msgs: Vec<Msg>,
    free_msgs: Vec<u32>,
    pkts: Vec<Pkt>,
    free_pkts: Vec<u32>,
    q: Vec<LinkQ>,
    nic: Vec<VecDeque<u32>>,
    stats: StatsCollector,
}

impl std::fmt::Debug for PacketNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PacketNet").finish_non_exhaustive()
    }
}

impl PacketNet {
    /// A message's pacing rate: `rate_cap` bounded by the TCP window
    /// ([`NetConfig::tcp_window`]) over its route's latency.
    fn cap(&self, src: NodeId, dst: NodeId, rate_cap: Option<Bandwidth>) -> Option<Bandwidth> {
        match self.tcp_window {
            None => rate_cap,
            w => window_cap(w, route_latency(&self.m, src, dst), rate_cap),
        }
    }

    /// A packet network over `m`.
    pub fn new(m: Machine, cfg: NetConfig) -> Result<Self, NetConfigError> {
        check(&m, &cfg)?;
        if let Some(why) = m.shared_capacity() {
            return Err(NetConfigError::SharedCapacity(why.into()));
        }
        if let Some(fx) = m.size_factors() {
            return Err(NetConfigError::SizeFactors(fx.to_string()));
        }
        let ups = match (&m.router, cfg.routing) {
            (crate::routing::Router::FatTree(_, shape), RouteMode::Nca) => {
                Some(UpPorts::new(m.links(), shape))
            }
            _ => None,
        };
        let m = crate::config::routed(m, &cfg);
        let nl = m.links().len();
        let mut link_dim = Vec::new();
        let mut link_port = Vec::new();
        if let Some(t) = m.torus() {
            link_dim = vec![NODIM; nl];
            link_port = vec![NODIM; nl];
            let routers = m.vertices().len() as u32 - m.nodes();
            for g in 0..routers {
                for port in 0..6 {
                    if let Some(l) = t.port_link(g, port) {
                        link_dim[l.index()] = (port / 2) as u8;
                        link_port[l.index()] = port as u8;
                    }
                }
            }
        }
        Ok(PacketNet {
            tcp_window: cfg.tcp_window,
            bp: cfg.backpressure,
            link_dim,
            link_port,
            vcs: cfg.vcs,
            vc_slots: cfg.vc_buffer / cfg.packet_bytes,
            vocc: vec![0; nl * cfg.vcs as usize],
            dateline: true,
            packet: cfg.packet_bytes,
            ct: cfg.switching == Switching::CutThrough,
            routing: cfg.routing,
            rng: RngStreams::new(cfg.seed).stream("routing.choice"),
            ups,
            asym: m.sharing == Sharing::Asymmetric,
            msgs: Vec::new(),
            free_msgs: Vec::new(),
            pkts: Vec::new(),
            free_pkts: Vec::new(),
            q: vec![LinkQ::default(); nl],
            nic: vec![VecDeque::new(); m.nodes() as usize],
            stats: StatsCollector::new(nl),
            m,
        })
    }
    /// The machine.
    pub fn machine(&self) -> &Machine {
        &self.m
    }
    /// The vertex (host or router) where a pending event will be handled:
    /// a head at the far end of its link, a free at the link's near end, a
    /// pacer at the message's source node, a delivery at its destination.
    /// Read-only instrumentation (the lookahead measurement of `netsim
    /// bench lookahead`); valid for an event scheduled and not yet handled.
    pub fn event_vertex(&self, ev: &PacketEvent) -> u32 {
        match *ev {
            PacketEvent::Head(p) | PacketEvent::Deliver(p) => {
                self.m.link(LinkId(self.pkts[p as usize].link)).to
            }
            PacketEvent::Free(l) => self.m.link(LinkId(l)).from,
            PacketEvent::Pace(mi) => self.msgs[mi as usize].src,
        }
    }

    /// Per-link totals (see [`LinkStat`]).
    pub fn link_stats(&self, elapsed: Time) -> Vec<LinkStat> {
        self.stats.report(self.m.links(), elapsed, false)
    }

    /// The bytes waiting in each link's queue (not yet in service), by
    /// link id, appended to `out`.
    pub fn waiting_bytes(&self, out: &mut Vec<u64>) {
        out.extend(self.q.iter().map(|q| q.waiting_bytes));
    }

    /// When packet `k` of message `m` is ready at the NIC.
    fn ready(&self, m: &Msg, k: u64) -> Time {
        let mut t = m.t0 + m.pace_full * k;
        if !self.ct {
            t += if k + 1 == m.npk {
                m.pace_last
            } else {
                m.pace_full
            };
        }
        t
    }

    /// Service time of `size` bytes at link `l`, slowed by the asymmetric
    /// rule when the reverse direction carries more messages.
    #[inline]
    fn service(&self, l: u32, size: u32) -> Time {
        let link = self.m.link(LinkId(l));
        if self.asym {
            let n = self.q[l as usize].active.max(1) as u128;
            let o = self.q[link.reverse.index()].active as u128;
            if o > n {
                let ps = (size as u128 * o * PS_PER_SEC as u128)
                    .div_ceil(link.bandwidth.as_bytes_per_sec() as u128 * n);
                return Time::from_ps(ps as u64);
            }
        }
        transfer_time(size as u64, link.bandwidth)
    }

    fn start_service(&mut self, sched: &mut impl Schedule<PacketEvent>, l: u32, p: u32) {
        let now = sched.now();
        let pk = self.pkts[p as usize];
        let mut end = now + self.service(l, pk.size);
        if self.ct {
            end = end.max(pk.tail);
        }
        let q = &mut self.q[l as usize];
        q.free_at = end;
        q.cur_last = pk.last;
        q.blocked = false;
        if self.asym {
            // The asymmetric rule needs to see a message's last packet
            // leave, so every service ends with an event.
            q.free_pending = true;
            sched.post_at(end, PacketEvent::Free(l));
        }
        self.stats.sent(l, now, end, pk.size as u64, true);
        let link = *self.m.link(LinkId(l));
        self.pkts[p as usize].tail = end + link.latency;
        if link.to == self.msgs[pk.msg as usize].dst {
            sched.post_at(end + link.latency, PacketEvent::Deliver(p));
        } else {
            let head = if self.ct { now } else { end } + link.latency;
            sched.post_at(head, PacketEvent::Head(p));
        }
        if self.bp {
            if link.to >= self.m.nodes() {
                if self.vcs > 0 {
                    let v = self.pick_vc(p, l).expect("admitted with a free channel");
                    if !pk.res {
                        self.vocc[l as usize * self.vcs as usize + v as usize] += 1;
                    }
                    let pk = &mut self.pkts[p as usize];
                    pk.vc = v;
                    pk.res = false;
                } else {
                    self.q[l as usize].occ += 1;
                }
            }
            // Last, once this link's state is complete: the wake-up may
            // run back round a ring to this very link.
            if pk.prev != NONE {
                self.release(sched, pk.prev, pk.pvc);
            }
        }
    }

    /// The injection link of `h` is free: send the next ready message's
    /// next packet, round robin.
    fn pull_nic(&mut self, sched: &mut impl Schedule<PacketEvent>, h: u32) {
        let Some(&mi) = self.nic[h as usize].front() else {
            return;
        };
        let inj = self.m.injection_link(NodeId(h)).0;
        let fits = if self.vcs > 0 {
            self.vc_any_free(inj)
        } else {
            self.fits(inj, NONE)
        };
        if !fits {
            self.q[inj as usize].blocked = true;
            return;
        }
        self.nic[h as usize].pop_front();
        let now = sched.now();
        let m = &mut self.msgs[mi as usize];
        let k = m.next_pk;
        m.next_pk += 1;
        let last = k + 1 == m.npk;
        let size = if last {
            m.last_size
        } else {
            self.packet as u32
        };
        let tail = if self.ct {
            m.t0 + m.pace_full * k + if last { m.pace_last } else { m.pace_full }
        } else {
            Time::ZERO
        };
        let more = m.next_pk < m.npk;
        let m = *m;
        let p = self.alloc_pkt(Pkt {
            msg: mi,
            size,
            last,
            first: k == 0,
            link: inj,
            prev: NONE,
            tail,
            via: NONE,
            order: 0,
            chosen: false,
            vc: 0,
            pvc: 0,
            res: false,
            phase2: false,
        });
        self.start_service(sched, inj, p);
        if more {
            let r = self.ready(&m, k + 1);
            if r <= now {
                self.nic[h as usize].push_back(mi);
            } else {
                sched.post_at(r, PacketEvent::Pace(mi));
            }
        }
    }

    /// Whether a packet that arrived over `prev` may start on link `l`:
    /// always without backpressure, into a host, or into an unbounded
    /// (`buffer == 0`) buffer; otherwise `l`'s downstream buffer, counted
    /// in slots of one full packet (`buffer / packet_bytes`, as credits
    /// count packets, so that free space never fragments), must have a
    /// free slot, and two when the packet enters a torus ring (bubble flow
    /// control, which keeps a free slot in every ring and so rules out
    /// deadlock on the wrap-around cycles of dimension-order routing).
    #[inline]
    fn fits(&self, l: u32, prev: u32) -> bool {
        if !self.bp {
            return true;
        }
        let link = self.m.link(LinkId(l));
        if link.buffer == 0 || link.to < self.m.nodes() {
            return true;
        }
        let need = if self.entering(l, prev) { 2 } else { 1 };
        self.q[l as usize].occ + need <= link.buffer / self.packet
    }

    /// Whether a packet that arrived over `prev` enters a torus ring at `l`.
    #[inline]
    fn entering(&self, l: u32, prev: u32) -> bool {
        let dim = self.link_dim.get(l as usize).copied().unwrap_or(NODIM);
        dim != NODIM && (prev == NONE || self.link_dim[prev as usize] != dim)
    }

    /// Serves link `l` if it is idle and has work, then makes sure a
    /// `Free` event is pending if work is still waiting.
    fn kick(&mut self, sched: &mut impl Schedule<PacketEvent>, l: u32) {
        let now = sched.now();
        let q = &self.q[l as usize];
        if !q.free_pending && q.free_at <= now {
            let from = self.m.link(LinkId(l)).from;
            if from < self.m.nodes() {
                self.pull_nic(sched, from);
            } else if let Some(&p) = q.fifo.front() {
                let mut pick = Some(0);
                if self.vcs > 0 {
                    // Each packet waits for its own channels only.
                    pick = q.fifo.iter().position(|&x| self.pick_vc(x, l).is_some());
                } else if !self.fits(l, self.pkts[p as usize].prev) {
                    // The bubble rule holds only if packets already in
                    // the ring are not stuck behind one waiting to enter
                    // it (real routers queue them at different input
                    // ports): let the first ring packet that fits pass.
                    pick = None;
                    if self.entering(l, self.pkts[p as usize].prev) {
                        pick = self.q[l as usize].fifo.iter().position(|&x| {
                            let prev = self.pkts[x as usize].prev;
                            !self.entering(l, prev) && self.fits(l, prev)
                        });
                    }
                }
                let Some(i) = pick else {
                    self.q[l as usize].blocked = true;
                    return;
                };
                let q = &mut self.q[l as usize];
                let p = q.fifo.remove(i).expect("index from the queue");
                q.waiting_bytes -= self.pkts[p as usize].size as u64;
                self.start_service(sched, l, p);
            }
        }
        self.ensure_free(sched, l);
    }

    /// A packet left the buffer of link `prev`: wake `prev` if it was
    /// blocked on that buffer.
    fn release(&mut self, sched: &mut impl Schedule<PacketEvent>, prev: u32, vc: u8) {
        if self.vcs > 0 {
            self.vocc[prev as usize * self.vcs as usize + vc as usize] -= 1;
        } else {
            self.q[prev as usize].occ -= 1;
        }
        let q = &mut self.q[prev as usize];
        if q.blocked {
            q.blocked = false;
            self.kick(sched, prev);
        }
    }

    /// Schedules `Free(l)` at the end of the current service if work is
    /// waiting and none is pending.
    fn ensure_free(&mut self, sched: &mut impl Schedule<PacketEvent>, l: u32) {
        let q = &self.q[l as usize];
        if q.free_pending || q.blocked {
            return;
        }
        let from = self.m.link(LinkId(l)).from;
        let waiting = if from < self.m.nodes() {
            !self.nic[from as usize].is_empty()
        } else {
            !q.fifo.is_empty()
        };
        if waiting {
            let at = q.free_at.max(sched.now());
            self.q[l as usize].free_pending = true;
            sched.post_at(at, PacketEvent::Free(l));
        }
    }

    fn alloc_pkt(&mut self, p: Pkt) -> u32 {
        match self.free_pkts.pop() {
            Some(i) => {
                self.pkts[i as usize] = p;
                i
            }
            None => {
                self.pkts.push(p);
                self.pkts.len() as u32 - 1
            }
        }
    }

    /// The next link for packet `p`, whose head is at the router at the
    /// end of its link: the machine's route ([`crate::routing`]) under
    /// dimension order; minimal adaptive on the queues' waiting bytes;
    /// the per-packet routings of [`crate::routing::oblivious`], whose
    /// draw is made at the packet's source router; under `nca` a draw at
    /// every switch where the route goes up ([`UpPorts`]).
    #[inline]
    fn choose(&mut self, p: u32) -> u32 {
        if self.vcs > 0 && self.routing == RouteMode::MinimalAdaptive && self.m.torus().is_some() {
            return self.adaptive_vc(p);
        }
        let pk = self.pkts[p as usize];
        let v = self.m.link(LinkId(pk.link)).to;
        let dst = self.msgs[pk.msg as usize].dst;
        let t = match (self.routing, self.m.torus()) {
            (RouteMode::DimensionOrder, _) => return self.m.next_link(v, dst).0,
            (_, None) => {
                if let Some(u) = &self.ups {
                    let rng = &mut self.rng;
                    return u
                        .next_link(v, self.m.next_link(v, dst), |w| rng.random_range(0..w))
                        .0;
                }
                let src = self.msgs[pk.msg as usize].src;
                return self.m.next_link_from(v, src, dst).0;
            }
            (RouteMode::MinimalAdaptive, Some(t)) => {
                return adaptive::least_waiting(t, v, dst, |l| self.q[l as usize].waiting_bytes);
            }
            (_, Some(t)) => t,
        };
        let g = v - self.m.nodes();
        let home = dst / t.nodes_per_router();
        let pk = &mut self.pkts[p as usize];
        if !pk.chosen {
            pk.chosen = true;
            let rng = &mut self.rng;
            match self.routing {
                RouteMode::O1turn => pk.order = rng.random_range(0..ORDERS.len() as u8),
                RouteMode::Valiant => pk.via = rng.random_range(0..t.routers()),
                RouteMode::Romm => pk.via = t.romm_intermediate(g, home, rng),
                RouteMode::Ugal => {
                    let i = rng.random_range(0..t.routers());
                    let q = |target: u32| match t.port_towards(g, target, ORDERS[0]) {
                        Some(port) => self.q[t.port_link[(g * 6 + port) as usize] as usize]
                            .waiting_bytes
                            .saturating_add(pk.size as u64),
                        None => pk.size as u64,
                    };
                    let minimal = q(home).saturating_mul(t.router_hops(g, home) as u64);
                    let detour =
                        q(i).saturating_mul((t.router_hops(g, i) + t.router_hops(i, home)) as u64);
                    if detour < minimal {
                        pk.via = i;
                    }
                }
                RouteMode::DimensionOrder
                | RouteMode::MinimalAdaptive
                | RouteMode::Dmodk
                | RouteMode::Ecmp
                | RouteMode::Random
                | RouteMode::Nca => {}
            }
        }
        if pk.via == g {
            pk.via = NONE;
            pk.phase2 = true;
        }
        let target = if pk.via == NONE { home } else { pk.via };
        match t.port_towards(g, target, ORDERS[pk.order as usize]) {
            Some(port) => t.port_link[(g * 6 + port) as usize],
            None => 2 * dst + 1,
        }
    }
}

impl Transport for PacketNet {
    type Event = PacketEvent;

    fn nodes(&self) -> u32 {
        self.m.nodes()
    }

    /// Starts `t`. Panics if `src` or `dst` is not a node or they are
    /// equal (the MPI layer handles same-node messages itself).
    fn start(
        &mut self,
        sched: &mut impl Schedule<PacketEvent>,
        t: Transfer,
        _out: &mut Vec<Delivery>,
    ) {
        assert!(
            t.src != t.dst && t.src.0 < self.m.nodes() && t.dst.0 < self.m.nodes(),
            "bad transfer {t:?}"
        );
        let now = sched.now();
        let (npk, full, last) = packetize(t.bytes, self.packet);
        let (pace_full, pace_last) = self
            .cap(t.src, t.dst, t.rate_cap)
            .map_or((Time::ZERO, Time::ZERO), |c| {
                (transfer_time(full, c), transfer_time(last, c))
            });
        let m = Msg {
            src: t.src.0,
            dst: t.dst.0,
            token: t.token,
            npk,
            next_pk: 0,
            delivered: 0,
            last_size: last as u32,
            t0: now,
            pace_full,
            pace_last,
        };
        let mi = match self.free_msgs.pop() {
            Some(i) => {
                self.msgs[i as usize] = m;
                i
            }
            None => {
                self.msgs.push(m);
                self.msgs.len() as u32 - 1
            }
        };
        let inj = self.m.injection_link(t.src).0;
        if self.asym {
            self.q[inj as usize].active += 1;
        }
        let r = self.ready(&m, 0);
        if r <= now {
            self.nic[t.src.0 as usize].push_back(mi);
            self.kick(sched, inj);
        } else {
            sched.post_at(r, PacketEvent::Pace(mi));
        }
    }

    // Inlined into `Network::handle`, as before the ideal network became
    // its third arm: out of line it costs some 3 % of a packet-mode run
    // (instruction counts of `netsim bench`'s zhu and alltoall workloads).
    #[inline]
    fn handle(
        &mut self,
        sched: &mut impl Schedule<PacketEvent>,
        ev: PacketEvent,
        out: &mut Vec<Delivery>,
    ) {
        match ev {
            PacketEvent::Head(p) => {
                let pk = self.pkts[p as usize];
                let nl = self.choose(p);
                self.pkts[p as usize].link = nl;
                self.pkts[p as usize].prev = pk.link;
                self.pkts[p as usize].pvc = pk.vc;
                let now = sched.now();
                if self.asym && pk.first {
                    self.q[nl as usize].active += 1;
                }
                let q = &self.q[nl as usize];
                if !q.free_pending
                    && q.free_at <= now
                    && q.fifo.is_empty()
                    && if self.vcs > 0 {
                        self.pick_vc(p, nl).is_some()
                    } else {
                        self.fits(nl, pk.link)
                    }
                {
                    self.start_service(sched, nl, p);
                } else {
                    let q = &mut self.q[nl as usize];
                    q.fifo.push_back(p);
                    q.waiting_bytes += pk.size as u64;
                    let w = q.waiting_bytes;
                    self.stats.queue(nl, w);
                    self.kick(sched, nl);
                }
            }
            PacketEvent::Free(l) => {
                let q = &mut self.q[l as usize];
                q.free_pending = false;
                if self.asym && q.cur_last {
                    q.active -= 1;
                    q.cur_last = false;
                }
                self.kick(sched, l);
            }
            PacketEvent::Pace(mi) => {
                let h = self.msgs[mi as usize].src;
                self.nic[h as usize].push_back(mi);
                let inj = self.m.injection_link(NodeId(h)).0;
                self.kick(sched, inj);
            }
            PacketEvent::Deliver(p) => {
                let mi = self.pkts[p as usize].msg;
                self.free_pkts.push(p);
                let m = &mut self.msgs[mi as usize];
                m.delivered += 1;
                if m.delivered == m.npk {
                    out.push(Delivery {
                        token: m.token,
                        at: sched.now(),
                    });
                    self.free_msgs.push(mi);
                }
            }
        }
    }

    /// Exact for dimension-order and table routing; for minimal adaptive
    /// routing exact whenever no packet of the lone message waits in a
    /// queue (no downstream link slower than the rate feeding it), since
    /// with empty queues adaptive picks the dimension-order port.
    fn idle_time(&self, src: NodeId, dst: NodeId, bytes: u64, rate_cap: Option<Bandwidth>) -> Time {
        let sw = if self.ct {
            Switching::CutThrough
        } else {
            Switching::StoreAndForward
        };
        let cap = self.cap(src, dst, rate_cap);
        packet_idle_time(&self.m, src, dst, bytes, cap, self.packet, sw)
    }

    fn record_link_busy(&mut self, on: bool) {
        self.stats.record(on);
    }

    fn drain_link_busy(&mut self, out: &mut Vec<LinkBusy>) {
        self.stats.drain(out);
    }
}
