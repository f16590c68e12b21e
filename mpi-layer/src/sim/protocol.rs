//! The point-to-point protocols as one state machine per message, with the
//! literature's names (Bienz et al. 2018, Section 2: short, eager,
//! rendezvous):
//!
//! ```text
//! short, eager: SendOverhead -> Envelope -> [Unexpected ->] done
//! rendezvous:   SendOverhead -> Rts -> [Unexpected ->] Cts -> Data -> done
//! ```
//!
//! and the host jobs that move it along (what each costs is in
//! [`crate::HostCosts`]; the servers that run them in `host.rs`):
//!
//! * [`Job::Send`] on the sender: `max(o_send, g_cpu)` then `(s-1)
//!   O_send`; the envelope (with the data) or the RTS leaves after
//!   `o_send`, or when the sending process's port is free; an eager or
//!   short message holds the port `g + (s-1) G`. An eager send's request
//!   completes when the CPU part ends (the buffer may be reused). Under a
//!   pair window the job is submitted only once the pair has a credit.
//! * The wire: the transport between nodes, the node's memory within one
//!   (`shm.rs`; control messages cross it at once); then `L` for the leg
//!   that carries the data.
//! * [`Job::Envelope`] on the receiver, in send order per pair
//!   (`order.rs`): the search of `posted_recvs` (the match is decided when
//!   the job starts), then for short and eager `o_recv + (s-1) max(O_recv,
//!   G_recv)`, holding the receive port `g_recv + (s-1) G_recv`. Matched:
//!   the receive completes; otherwise the envelope waits in
//!   `unexpected_msgs`. A matched RTS sends the CTS.
//! * The CTS back at the sender: the data claims the port (`g + (s-1) G`)
//!   and leaves; when it is delivered the send completes, and after `L`
//!   [`Job::Data`] on the receiver spends the receive overhead and
//!   completes the receive.
//! * [`Job::Post`] for a posted receive: the search of `unexpected_msgs`;
//!   a found short or eager message is copied out of the library's buffer
//!   (`unexpected_copy_rate`) and the receive completes; a found RTS sends
//!   the CTS.

use super::NONE;
use super::host::{Job, Plan};
use super::local::End;
use super::local::Loc;
use super::{Ev, NetSched, RunError, Sim, Truncation};
use crate::matching::{Envelope, MatchQueue, PostedRecv};
use crate::observe::{MessageStep, Observer, Queue, Search, Step};
use crate::op::{MsgId, OpStream};
use crate::params::{MatcherKind, Progress, Protocol, Rendezvous, locality_index};
use serde::Serialize;
use sim_core::{Schedule, Scheduler, Time, transfer_time};
use topology::{Locality, Transfer, Transport};

type Sch<'a, NE> = Scheduler<'a, Ev<NE>>;

/// The state of one message, named as in the literature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MsgState {
    /// The sender's host is spending the send overhead, or the message
    /// waits for the sending port.
    SendOverhead,
    /// Short or eager envelope (with the data) in flight.
    Envelope,
    /// Rendezvous request-to-send in flight.
    Rts,
    /// Envelope or RTS waiting in the receiver's `unexpected_msgs`.
    Unexpected,
    /// Clear-to-send in flight back to the sender (receive matched).
    Cts,
    /// Rendezvous data waiting for the port or in flight.
    Data,
}

#[derive(Clone, Debug)]
pub(super) struct Msg {
    pub src: u32,
    pub dst: u32,
    pub ctx: u32,
    pub tag: i32,
    pub bytes: u64,
    pub proto: Protocol,
    pub loc: Locality,
    pub state: MsgState,
    pub send_req: u32,
    pub recv_req: u32,
    pub seq: u32,
    /// The value of its cell's derived term for this message (see
    /// `Sim::terms`).
    pub derived: Time,
    /// The sender's CPU and network interface (graph programs' `cpu`,
    /// `nic`; 0 otherwise); the receiver handles the message on its CPU
    /// and interface of the same indices, as LogGOPSim does.
    pub cpu: u16,
    /// See `cpu`.
    pub nic: u16,
    /// The next message in its sender's port queue, written when that
    /// one joins behind it (read only then: the queues are lists threaded
    /// through the messages).
    pub port_next: u32,
}

/// The key of a rank's network interface in tables of ports.
fn port_key(r: u32, nic: u16) -> u64 {
    ((r as u64) << 16) | nic as u64
}

impl Msg {
    /// The one place a message changes state; checks the protocol's
    /// transitions in debug builds.
    fn set_state(&mut self, to: MsgState) {
        use MsgState::*;
        let ok = matches!(
            (self.proto, self.state, to),
            (Protocol::Short | Protocol::Eager, SendOverhead, Envelope)
                | (Protocol::Short | Protocol::Eager, Envelope, Unexpected)
                | (Protocol::Rendezvous, SendOverhead, Rts)
                | (Protocol::Rendezvous, Rts, Unexpected)
                | (Protocol::Rendezvous, Rts | Unexpected, Cts)
                | (Protocol::Rendezvous, Cts, Data)
        );
        debug_assert!(
            ok,
            "bad transition {:?} -> {to:?} ({:?})",
            self.state, self.proto
        );
        self.state = to;
    }
}

impl<T: Transport, S: OpStream, O: Observer> Sim<T, S, O> {
    /// Tells the observer that message `m` reached `step` at `at`.
    #[inline]
    pub(super) fn note(&mut self, m: u32, step: Step, at: Time) {
        if O::ENABLED {
            let msg = &self.msgs[m as usize];
            let e = MessageStep {
                id: MsgId(m),
                src: msg.src,
                dst: msg.dst,
                seq: msg.seq,
                tag: msg.tag,
                bytes: msg.bytes,
                protocol: msg.proto,
                locality: msg.loc,
                step,
                at,
            };
            self.obs.message(&e);
        }
    }

    /// Tells the observer of a match-queue search.
    #[inline]
    fn note_search(&mut self, rank: u32, queue: Queue, visited: u64, found: bool, at: Time) {
        if O::ENABLED {
            self.obs.search(&Search {
                rank,
                queue,
                visited,
                found,
                at,
            });
        }
    }

    fn new_msg(&mut self, m: Msg) -> u32 {
        match self.free_msgs.pop() {
            Some(i) => {
                self.msgs[i as usize] = m;
                i
            }
            None => {
                self.msgs.push(m);
                (self.msgs.len() - 1) as u32
            }
        }
    }

    /// Whether the program of a rank waits for the MPI jobs it submits:
    /// with its own core doing the work, an MPI call returns when its
    /// CPU part is done; a progress engine works beside the program.
    pub(super) fn program_waits(&self) -> bool {
        self.params.progress == Progress::OwnCore
    }

    /// Posts a send of `bytes` from world rank `src` to world rank `dst`
    /// with request `req`, on the sender's CPU and interface `lane` (0, 0
    /// but for graph programs). `program`: a non-blocking send named by
    /// the rank's program (its `Isend`): the program waits for the send's
    /// CPU part, and `isend_eager_max` applies. Returns `false` if the
    /// program must wait (it is resumed when the job ends).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn post_send(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        src: u32,
        dst: u32,
        ctx: u32,
        tag: i32,
        bytes: u64,
        req: u32,
        program: bool,
        lane: (u16, u16),
    ) -> bool {
        let loc = self.placement.locality(src, dst);
        let proto = self.params.send_protocol(bytes, program);
        let (na, nb) = (self.placement.node(src), self.placement.node(dst));
        let c = self.msg_costs(proto, loc, bytes, na, nb);
        self.stats.clamped += c.clamped as u64;
        let cell = &mut self.stats.traffic[proto.index()][locality_index(loc)];
        cell.messages += 1;
        cell.bytes += bytes;
        let seq = self.order.next_seq(src, dst);
        let m = self.new_msg(Msg {
            src,
            dst,
            ctx,
            tag,
            bytes,
            proto,
            loc,
            state: MsgState::SendOverhead,
            send_req: req,
            recv_req: NONE,
            seq,
            derived: c.derived,
            cpu: lane.0,
            nic: lane.1,
            port_next: u32::MAX,
        });
        self.note(m, Step::Posted { clamped: c.clamped }, s.now());
        if !self.take_credit(src, dst, m) {
            // Its send job is ready when the pair's credit comes back
            // (`credit_back`); the call returns meanwhile.
            return true;
        }
        let wait = program && self.program_waits();
        let id = self.cpu_of(src, lane.0);
        self.submit(s, id, Job::Send(m), wait) || !wait
    }

    /// [`Job::Send`] starts.
    pub(super) fn start_send(&mut self, s: &mut Sch<'_, T::Event>, m: u32) -> Plan {
        let now = s.now();
        let msg = &self.msgs[m as usize];
        let (proto, loc, b1) = (msg.proto, msg.loc, msg.bytes.saturating_sub(1));
        let [o_send, ..] = self.terms(proto, loc, msg.derived);
        let per_byte = self.params.host(proto, loc).send_cpu_per_byte;
        let cpu_gap = self.cells[proto.index()][locality_index(loc)].cpu_gap;
        let cpu_part = o_send.max(cpu_gap).saturating_add(per_byte.cost(b1));
        let leave = now.saturating_add(o_send);
        self.leave_at(s, m, leave);
        let end = if proto == Protocol::Rendezvous {
            End::NOTHING
        } else {
            End {
                complete: self.msgs[m as usize].send_req,
                ..End::NOTHING
            }
        };
        Plan {
            cpu: if self.params.protocol_offload {
                Time::ZERO
            } else {
                cpu_part
            },
            delay: cpu_part,
            end,
        }
    }

    /// The envelope or RTS of `m` (its pair's credit taken) is ready to
    /// leave at `ready` (after `o_send`).
    fn leave_at(&mut self, s: &mut Sch<'_, T::Event>, m: u32, ready: Time) {
        if ready > s.now() {
            self.push_local(s, ready, Loc::Depart(m));
        } else {
            self.ready_to_leave(s, m);
        }
    }

    /// Message `m` is ready to leave now: an RTS leaves at once (the data
    /// claims the port when the CTS is back); an envelope or rendezvous
    /// data goes through the sending process's port.
    pub(super) fn ready_to_leave(&mut self, s: &mut Sch<'_, T::Event>, m: u32) {
        let msg = &self.msgs[m as usize];
        if msg.proto == Protocol::Rendezvous && msg.state == MsgState::SendOverhead {
            self.depart(s, m);
            return;
        }
        let (src, nic) = (msg.src, msg.nic);
        let now = s.now();
        let key = port_key(src, nic);
        if !self.port_q.contains_key(key) && self.port(src, nic).send_free <= now {
            let hold = self.port_hold(m);
            self.port(src, nic).send_free = now.saturating_add(hold);
            self.depart(s, m);
            return;
        }
        match self.port_q.get_mut(key) {
            Some((_, tail)) => {
                self.msgs[*tail as usize].port_next = m;
                *tail = m;
            }
            None => {
                self.port_q.insert(key, (m, m));
                let at = self.port(src, nic).send_free;
                self.push_local(s, at, Loc::Port(src, nic));
            }
        }
    }

    /// How long message `m` holds its sender's port: `g + (s-1) G`.
    fn port_hold(&self, m: u32) -> Time {
        let msg = &self.msgs[m as usize];
        let c = &self.cells[msg.proto.index()][locality_index(msg.loc)];
        c.gap
            .saturating_add(c.gap_per_byte.cost(msg.bytes.saturating_sub(1)))
    }

    /// Rank `r`'s port `nic` is free: the head of its queue leaves, and
    /// the next gets its turn when that one's hold is over.
    pub(super) fn port_turn(&mut self, s: &mut Sch<'_, T::Event>, r: u32, nic: u16) {
        let now = s.now();
        let key = port_key(r, nic);
        let Some(q) = self.port_q.get_mut(key) else {
            unreachable!("a port turn for an empty queue");
        };
        let (m, tail) = *q;
        if m == tail {
            self.port_q.remove(key);
        } else {
            q.0 = self.msgs[m as usize].port_next;
        }
        let free = now.saturating_add(self.port_hold(m));
        self.port(r, nic).send_free = free;
        if m != tail {
            self.push_local(s, free, Loc::Port(r, nic));
        }
        self.depart(s, m);
    }

    /// Whether message `m` of pair (`src`, `dst`) may be injected now (a
    /// credit is taken), or waits for one (parked, its send job not yet
    /// ready).
    fn take_credit(&mut self, src: u32, dst: u32, m: u32) -> bool {
        match self.params.pair_window {
            None => true,
            Some(w) => self.order.take_credit(src, dst, w, m),
        }
    }

    /// The receiver handled an envelope of pair (`src`, `dst`): its credit
    /// comes back, and the send job of the pair's oldest parked message
    /// becomes ready on the sender's CPU (a progress engine injects a
    /// queued send when flow control allows it, and pays its `o_send`
    /// then).
    pub(super) fn credit_back(&mut self, s: &mut Sch<'_, T::Event>, src: u32, dst: u32) {
        if let Some(m) = self.order.credit_back(src, dst) {
            let id = self.cpu_of(src, self.msgs[m as usize].cpu);
            self.submit(s, id, Job::Send(m), false);
        }
    }

    /// Message `m` leaves its sender now.
    pub(super) fn depart(&mut self, s: &mut Sch<'_, T::Event>, m: u32) {
        self.note(m, Step::Departed, s.now());
        let msg = &mut self.msgs[m as usize];
        let (src, dst, bytes) = (msg.src, msg.dst, msg.bytes);
        match (msg.proto, msg.state) {
            (Protocol::Rendezvous, MsgState::SendOverhead) => {
                msg.set_state(MsgState::Rts);
                self.stats.control_messages += 1;
                self.transmit(s, m, src, dst, 0, false);
            }
            (_, MsgState::SendOverhead) => {
                msg.set_state(MsgState::Envelope);
                self.transmit(s, m, src, dst, bytes, true);
            }
            (_, MsgState::Data) => self.transmit(s, m, src, dst, bytes, true),
            (_, st) => unreachable!("message {m} departs in state {st:?}"),
        }
    }

    /// Moves `bytes` of message `m` from world rank `a` to `b`: through
    /// the transport between nodes (data at the cell's wire rate), and
    /// within one when the transport models a node's route to itself
    /// (SimGrid's loopback); else through the node's memory (data only;
    /// control messages cross at once).
    fn transmit(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        m: u32,
        a: u32,
        b: u32,
        bytes: u64,
        data: bool,
    ) {
        let msg = &self.msgs[m as usize];
        let cell = &self.cells[msg.proto.index()][locality_index(msg.loc)];
        let now = s.now();
        if self.by_transport(msg.loc) {
            let t = Transfer {
                src: self.placement.node(a),
                dst: self.placement.node(b),
                bytes: bytes.saturating_add(self.params.header_bytes),
                rate_cap: if data { cell.wire } else { None },
                token: m as u64,
            };
            let mut out = std::mem::take(&mut self.deliveries);
            self.transport
                .start(&mut NetSched { inner: s }, t, &mut out);
            if out.is_empty() {
                self.deliveries = out;
            } else {
                // Rare (a transport without latency): deliver at once.
                let ready: Vec<u32> = out.drain(..).map(|d| d.token as u32).collect();
                self.deliveries = out;
                for tok in ready {
                    self.arrive(s, tok);
                }
            }
            return;
        }
        if !data {
            self.push_local(s, now, Loc::Arrive(m));
            return;
        }
        let (wire, copies) = (cell.wire, cell.copies);
        match self.params.shm.memory_bandwidth {
            None => {
                let d = wire.map_or(Time::ZERO, |w| transfer_time(bytes, w));
                self.push_local(s, now.saturating_add(d), Loc::Arrive(m));
            }
            Some(mem) => {
                let node = self.placement.node(a).0;
                let cap = wire.map_or(u64::MAX, |w| w.as_bytes_per_sec().saturating_mul(copies));
                if self.memory.is_empty() {
                    self.memory
                        .resize_with(self.transport.nodes() as usize, || None);
                }
                let nm = self.memory[node as usize].get_or_insert_with(|| {
                    Box::new(super::shm::NodeMemory::new(mem.as_bytes_per_sec()))
                });
                if let Some((t, v)) = nm.start(now, MsgId(m), bytes.saturating_mul(copies), cap) {
                    self.push_local(s, t, Loc::ShmDone(node, v));
                }
            }
        }
    }

    /// A node's memory finished copies (event of `version`).
    pub(super) fn shm_done(&mut self, s: &mut Sch<'_, T::Event>, node: u32, version: u32) {
        let now = s.now();
        let mut out = std::mem::take(&mut self.copied);
        out.clear();
        let next = self.memory[node as usize]
            .as_mut()
            .and_then(|nm| nm.done(now, version, &mut out));
        if let Some((t, v)) = next {
            self.push_local(s, t, Loc::ShmDone(node, v));
        }
        for &m in &out {
            self.arrive(s, m.0);
        }
        self.copied = out;
    }

    /// Message `m`'s current leg reached the far end.
    pub(super) fn arrive(&mut self, s: &mut Sch<'_, T::Event>, m: u32) {
        if self.msgs[m as usize].state != MsgState::Cts {
            self.note(m, Step::Arrived, s.now());
        }
        let msg = &mut self.msgs[m as usize];
        match msg.state {
            MsgState::Envelope | MsgState::Data => {
                if msg.state == MsgState::Data {
                    // The data is delivered: the sender's buffer is free.
                    let req = msg.send_req;
                    self.complete(s, req);
                }
                let msg = &self.msgs[m as usize];
                let [.., lat] = self.terms(msg.proto, msg.loc, msg.derived);
                if lat > Time::ZERO {
                    let at = s.now().saturating_add(lat);
                    self.push_local(s, at, Loc::Landed(m));
                } else {
                    self.landed(s, m);
                }
            }
            MsgState::Rts => self.landed(s, m),
            MsgState::Cts
                if self.params.rendezvous == Rendezvous::Put && !self.params.protocol_offload =>
            {
                // Back at the sender: its progress engine sends the data
                // when it gets to it.
                let (src, cpu) = (msg.src, msg.cpu);
                let id = self.cpu_of(src, cpu);
                self.submit(s, id, Job::Cts(m), false);
            }
            MsgState::Cts => {
                // Back at the sender's NIC: the data claims the port and
                // leaves.
                msg.set_state(MsgState::Data);
                self.ready_to_leave(s, m);
            }
            st @ (MsgState::SendOverhead | MsgState::Unexpected) => {
                unreachable!("message {m} arrived in state {st:?}")
            }
        }
    }

    /// Message `m` is at its receiver (after `L` for the data): its job
    /// is ready there, envelopes in send order per pair.
    pub(super) fn landed(&mut self, s: &mut Sch<'_, T::Event>, m: u32) {
        let msg = &self.msgs[m as usize];
        let (src, dst, seq, state, cpu) = (msg.src, msg.dst, msg.seq, msg.state, msg.cpu);
        let id = self.cpu_of(dst, cpu);
        if state == MsgState::Data {
            self.submit(s, id, Job::Data(m), false);
            return;
        }
        let mut out = std::mem::take(&mut self.released);
        out.clear();
        self.order.arrived(src, dst, seq, m, &mut out);
        if out.len() == 1 {
            self.released = out;
            self.submit(s, id, Job::Envelope(m), false);
            return;
        }
        for &r in &out {
            self.submit(s, id, Job::Envelope(r), false);
        }
        self.released = out;
    }

    /// The search cost of `visited` elements of a queue with cost `gamma`
    /// that found a match or not: (CPU time, delay).
    fn search(
        &self,
        gamma: &crate::params::SearchCost,
        visited: u64,
        matched: bool,
    ) -> (Time, Time) {
        match self.params.matcher {
            MatcherKind::Offloaded { cost } => (Time::ZERO, cost),
            _ => {
                let mut d = gamma.cost(visited);
                if matched {
                    d = d.saturating_add(self.params.match_base);
                }
                (d, d)
            }
        }
    }

    /// The receive side of a short or eager message or of rendezvous data
    /// starts now, after a search of `search`: holds the receive port for
    /// the search and `g_recv + (s-1) G_recv`; returns (CPU time, delay).
    fn receive_part(&mut self, now: Time, m: u32, search: Time) -> (Time, Time) {
        let msg = &self.msgs[m as usize];
        let (dst, nic, b1) = (msg.dst, msg.nic, msg.bytes.saturating_sub(1));
        let h = self.params.host(msg.proto, msg.loc);
        let gap = self.cells[msg.proto.index()][locality_index(msg.loc)].recv_gap;
        let [_, o_recv, _] = self.terms(msg.proto, msg.loc, msg.derived);
        let work = o_recv.saturating_add(h.recv_per_byte().cost(b1));
        let hold = search
            .saturating_add(gap)
            .saturating_add(h.recv_gap_per_byte.cost(b1));
        self.port(dst, nic).recv_free = now.saturating_add(hold);
        let cpu = if self.params.protocol_offload {
            Time::ZERO
        } else {
            work
        };
        (cpu, work)
    }

    /// [`Job::Envelope`] starts: the match is decided now.
    pub(super) fn start_envelope(&mut self, s: &mut Sch<'_, T::Event>, m: u32) -> Plan {
        let now = s.now();
        let msg = &self.msgs[m as usize];
        let dst = msg.dst;
        let env = Envelope {
            ctx: msg.ctx,
            src: msg.src,
            tag: msg.tag,
            msg: MsgId(m),
        };
        let (proto, loc) = (msg.proto, msg.loc);
        let found = self.ranks[dst as usize].queues.match_arrival(&env);
        let per_open = self.params.host(proto, loc).o_inflight;
        let others = if per_open > Time::ZERO {
            let open = self.ranks[dst as usize].queues.posted_len() as u64;
            per_open.saturating_mul(open)
        } else {
            Time::ZERO
        };
        self.stats.posted_search.record(found.visited);
        self.note_search(
            dst,
            Queue::Posted,
            found.visited,
            found.found.is_some(),
            now,
        );
        let (mut cpu, mut delay) = self.search(
            &self.params.gamma_posted,
            found.visited,
            found.found.is_some(),
        );
        cpu = cpu.saturating_add(others);
        delay = delay.saturating_add(others);
        let mut end = End::NOTHING;
        if self.params.pair_window.is_some() {
            end.credit = (env.src, dst);
        }
        if proto == Protocol::Rendezvous {
            // An RTS holds the port for its search; the data holds the gap.
            let nic = self.msgs[m as usize].nic;
            self.port(dst, nic).recv_free = now.saturating_add(delay);
        } else {
            let (c, d) = self.receive_part(now, m, delay);
            cpu = cpu.saturating_add(c);
            delay = delay.saturating_add(d);
        }
        if found.found.is_some() {
            self.note(
                m,
                Step::Matched {
                    visited: found.visited,
                },
                now,
            );
        }
        if let Some(p) = found.found {
            self.check_truncation(m, p.req);
        }
        match found.found {
            Some(p) if proto == Protocol::Rendezvous => {
                self.msgs[m as usize].recv_req = p.req;
                end.cts = m;
            }
            Some(p) => {
                self.note(m, Step::Completed, now.saturating_add(delay));
                self.free_msgs.push(m);
                end.complete = p.req;
            }
            None => {
                self.msgs[m as usize].set_state(MsgState::Unexpected);
                self.ranks[dst as usize].queues.add_unexpected(env);
            }
        }
        Plan { cpu, delay, end }
    }

    /// Message `m` matched receive request `req`: a message longer than
    /// the receive's buffer is MPI_ERR_TRUNCATE, an error of the run
    /// (MPI's default error handler aborts). A longer buffer is fine.
    fn check_truncation(&mut self, m: u32, req: u32) {
        if !self.reqs[req as usize].checked {
            // A collective's receive: its buffer holds what it matches.
            return;
        }
        let (msg, cap) = (&self.msgs[m as usize], self.recvs.cap(req));
        if msg.bytes <= cap || self.error.is_some() {
            return;
        }
        let (op, origin) = self
            .recvs
            .posted(req)
            .map_or(("receive", None), |(w, o)| (w, Some(o)));
        self.error = Some(RunError::Truncated(Box::new(Truncation {
            sender: msg.src,
            receiver: msg.dst,
            tag: msg.tag,
            send_bytes: msg.bytes,
            recv_bytes: cap,
            op,
            origin,
        })));
    }

    /// [`Job::Data`] starts: the receive overhead of rendezvous data.
    pub(super) fn start_data(&mut self, s: &mut Sch<'_, T::Event>, m: u32) -> Plan {
        let (cpu, delay) = self.receive_part(s.now(), m, Time::ZERO);
        self.note(m, Step::Completed, s.now().saturating_add(delay));
        let req = self.msgs[m as usize].recv_req;
        self.free_msgs.push(m);
        Plan {
            cpu,
            delay,
            end: End {
                complete: req,
                ..End::NOTHING
            },
        }
    }

    /// The receiver matched the RTS of `m`: the CTS leaves.
    pub(super) fn send_cts(&mut self, s: &mut Sch<'_, T::Event>, m: u32) {
        self.msgs[m as usize].set_state(MsgState::Cts);
        self.stats.control_messages += 1;
        let (d, src) = (self.msgs[m as usize].dst, self.msgs[m as usize].src);
        self.transmit(s, m, d, src, 0, false);
    }

    /// [`Job::Cts`] starts: the data claims the port and leaves. It costs
    /// no CPU time, but waits its turn behind the work queued before it.
    pub(super) fn start_cts(&mut self, s: &mut Sch<'_, T::Event>, m: u32) -> Plan {
        self.msgs[m as usize].set_state(MsgState::Data);
        self.ready_to_leave(s, m);
        Plan {
            cpu: Time::ZERO,
            delay: Time::ZERO,
            end: End::NOTHING,
        }
    }

    /// Posts a receive at world rank `r` on its CPU `cpu` (see
    /// [`Self::post_send`] for `program` and the result).
    pub(super) fn post_recv(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        p: PostedRecv,
        program: bool,
        cpu: u16,
    ) -> bool {
        let wait = program && self.program_waits();
        let id = self.cpu_of(r, cpu);
        self.submit(s, id, Job::Post(r, p), wait) || !wait
    }

    /// [`Job::Post`] starts: the match is decided now.
    pub(super) fn start_post(&mut self, now: Time, r: u32, p: PostedRecv) -> Plan {
        let found = self.ranks[r as usize].queues.match_post(&p);
        self.stats.unexpected_search.record(found.visited);
        self.note_search(
            r,
            Queue::Unexpected,
            found.visited,
            found.found.is_some(),
            now,
        );
        let (mut cpu, mut delay) = self.search(
            &self.params.gamma_unexpected,
            found.visited,
            found.found.is_some(),
        );
        let mut end = End::NOTHING;
        match found.found {
            Some(e) => {
                let m = e.msg.0;
                self.check_truncation(m, p.req);
                self.note(
                    m,
                    Step::Matched {
                        visited: found.visited,
                    },
                    now,
                );
                let msg = &mut self.msgs[m as usize];
                if msg.proto == Protocol::Rendezvous {
                    msg.recv_req = p.req;
                    end.cts = m;
                } else {
                    let copy = self
                        .params
                        .unexpected_copy_rate
                        .map_or(Time::ZERO, |rate| transfer_time(msg.bytes, rate))
                        .saturating_add(self.params.unexpected_cost);
                    cpu = cpu.saturating_add(copy);
                    delay = delay.saturating_add(copy);
                    self.note(m, Step::Completed, now.saturating_add(delay));
                    self.free_msgs.push(m);
                    end.complete = p.req;
                }
            }
            None => self.ranks[r as usize].queues.add_posted(p),
        }
        Plan { cpu, delay, end }
    }
}
