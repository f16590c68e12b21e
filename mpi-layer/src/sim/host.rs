//! Hosts: the CPUs that run MPI work, and the ports a process's messages
//! pass through.
//!
//! # The rule: host work in time order
//!
//! A CPU (a rank's core, or a node's progress engine) is a single server.
//! Everything that costs CPU time is a [`Job`]: a send's overhead, the
//! handling of an arrived envelope or of rendezvous data (match search,
//! receive overhead, per-byte work), a posted receive's search and copy,
//! a rendezvous CTS back at a sender that pushes the data
//! (`Rendezvous::Put`: free, but it waits its turn, so the data leave only
//! when the engine gets to it), local computation, and the rank's program
//! itself, which goes on only when the job it waits for has ended. A job
//! is *ready* when the event that causes it happens, and a CPU serves
//! ready jobs one at a time in the order they became ready (FIFO among
//! equal times), never reserving time for work that is not ready yet. A job that also needs the
//! receiving process's port while the port is still busy is set aside
//! until the port is free, and others go first meanwhile (LogGOPSim's
//! rule; Hoefler, Schneider and Lumsdaine, HPDC'10).
//!
//! What a job does when it starts and ends is the protocol's business
//! (`protocol.rs`); this module only runs the servers.

use super::local::{End, Loc};
use super::{NONE, Sim};
use crate::matching::PostedRecv;
use crate::observe::{Observer, Work};
use crate::op::OpStream;
use crate::params::Progress;
use sim_core::{Schedule, Scheduler, Time};
use topology::Transport;

/// A piece of host work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Job {
    /// A send's CPU part (`o_send`, then `(s-1) O_send`) for message `m`.
    Send(u32),
    /// An arrived envelope (short, eager) or RTS of message `m`: search
    /// `posted_recvs`, then the receive overhead (short, eager).
    Envelope(u32),
    /// Arrived rendezvous data of message `m`: the receive overhead.
    Data(u32),
    /// The CTS of rendezvous message `m` is back at its sender: the
    /// sender's progress engine sends the data when it gets to it.
    Cts(u32),
    /// A receive posted by rank `r`: search `unexpected_msgs`, copy.
    Post(u32, PostedRecv),
    /// Local computation of rank `r`; completes request `req` if any
    /// (a graph program's operation).
    Compute(u32, Time, u32),
    /// Rank `r`'s program goes on.
    Resume(u32),
}

/// What a job costs once started: CPU time, then its effects `delay`
/// after the start (`delay >= cpu`; larger when offloaded work delays the
/// message without holding the CPU).
pub(super) struct Plan {
    pub cpu: Time,
    pub delay: Time,
    pub end: End,
}

/// One CPU: 12 bytes, since every rank has one. The effects of the job in
/// service travel in its [`Loc::Free`] event, and the jobs waiting are a
/// list threaded through the simulation's [`Waiting`] arena.
#[derive(Clone, Copy, Debug)]
pub(super) struct Server {
    /// A job is in service; its [`Loc::Free`] event is pending.
    busy: bool,
    /// First and last waiting job in the arena (`NONE`: none).
    head: u32,
    tail: u32,
}

impl Default for Server {
    fn default() -> Self {
        Server {
            busy: false,
            head: NONE,
            tail: NONE,
        }
    }
}

/// The jobs waiting on all servers, each server's in the order they became
/// ready: a free-listed arena of list nodes (a job with whether its rank's
/// program waits for it, and the next node).
#[derive(Default)]
pub(super) struct Waiting {
    nodes: Vec<(Job, bool, u32)>,
    free: Vec<u32>,
}

impl Waiting {
    fn push(&mut self, srv: &mut Server, job: Job, resume: bool) {
        let node = (job, resume, NONE);
        let i = match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        if srv.tail == NONE {
            srv.head = i;
        } else {
            self.nodes[srv.tail as usize].2 = i;
        }
        srv.tail = i;
    }

    fn pop(&mut self, srv: &mut Server) -> Option<(Job, bool)> {
        if srv.head == NONE {
            return None;
        }
        let i = srv.head;
        let (job, resume, next) = self.nodes[i as usize];
        srv.head = next;
        if next == NONE {
            srv.tail = NONE;
        }
        self.free.push(i);
        Some((job, resume))
    }
}

/// A process's port: when its sending and receiving sides are free.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Port {
    pub send_free: Time,
    pub recv_free: Time,
}

impl<T: Transport, S: OpStream, O: Observer> Sim<T, S, O> {
    /// Server `id`: ranks' cores are `0..n`, progress engines follow.
    pub(super) fn server(&mut self, id: u32) -> &mut Server {
        let n = self.ranks.len() as u32;
        if id < n {
            &mut self.ranks[id as usize].core
        } else {
            &mut self.engines[(id - n) as usize]
        }
    }

    /// The server of rank `r`'s CPU `cpu`: its MPI server for 0, else an
    /// extra CPU of a graph program (created at its first use).
    pub(super) fn cpu_of(&mut self, r: u32, cpu: u16) -> u32 {
        if cpu == 0 {
            return self.mpi_server(r);
        }
        let n = self.ranks.len() as u32;
        let next = n + self.engines.len() as u32;
        let id = *self.extra_cpus.entry((r, cpu)).or_insert(next);
        if id == next {
            self.engines.push(Server::default());
        }
        id
    }

    /// Rank `r`'s network interface `nic`: its own port for 0, else an
    /// extra one of a graph program.
    pub(super) fn port(&mut self, r: u32, nic: u16) -> &mut Port {
        if nic == 0 {
            &mut self.ranks[r as usize].port
        } else {
            self.extra_ports.entry((r, nic)).or_default()
        }
    }

    /// The server that runs rank `r`'s MPI work.
    pub(super) fn mpi_server(&self, r: u32) -> u32 {
        match self.params.progress {
            Progress::OwnCore => r,
            Progress::Engines { engines } => {
                let loc = self.placement.loc(r);
                let i = loc.node.0 * engines as u32 + (loc.core % engines) as u32;
                self.ranks.len() as u32 + i
            }
        }
    }

    /// `job` is ready now on server `id`. Returns `true` if it was done at
    /// once (the server was idle and the job costs no time), so a program
    /// that waits for it can go on.
    pub(super) fn submit(
        &mut self,
        s: &mut Scheduler<'_, super::Ev<T::Event>>,
        id: u32,
        job: Job,
        resume: bool,
    ) -> bool {
        let srv = *self.server(id);
        if srv.busy || srv.head != NONE {
            let mut srv = srv;
            self.waiting.push(&mut srv, job, resume);
            *self.server(id) = srv;
            return false;
        }
        let done = self.run_job(s, id, job, resume, true);
        // A job set aside or done at once leaves the server idle: serve
        // whatever its effects queued.
        self.serve(s, id);
        done
    }

    /// Starts jobs on idle server `id` until one holds it or none is left.
    fn serve(&mut self, s: &mut Scheduler<'_, super::Ev<T::Event>>, id: u32) {
        loop {
            let mut srv = *self.server(id);
            if srv.busy {
                return;
            }
            let Some((job, resume)) = self.waiting.pop(&mut srv) else {
                return;
            };
            *self.server(id) = srv;
            self.run_job(s, id, job, resume, false);
        }
    }

    /// Runs `job` on idle server `id` now. Returns `true` if its CPU part
    /// is done at once (it costs no CPU time), so whoever submitted it may
    /// go on.
    ///
    /// `sync`: called by the submitter, who goes on at once in that case;
    /// otherwise, if the rank's program waits for the job (`resume`), it
    /// goes on when the CPU part ends. The job's other effects come
    /// `delay` after the start.
    fn run_job(
        &mut self,
        s: &mut Scheduler<'_, super::Ev<T::Event>>,
        id: u32,
        job: Job,
        resume: bool,
        sync: bool,
    ) -> bool {
        let now = s.now();
        let Some(plan) = self.start_job(s, id, job) else {
            debug_assert!(!resume, "only arrivals are set aside");
            return false;
        };
        // A graph program's operation started: its `irequires` are met.
        if self.graphs {
            let req = match job {
                Job::Send(m) => self.msgs[m as usize].send_req,
                Job::Post(_, p) => p.req,
                Job::Compute(_, _, req) => req,
                _ => NONE,
            };
            if req != NONE && self.reqs[req as usize].graph != NONE {
                let (owner, g) = (self.reqs[req as usize].owner, self.reqs[req as usize].graph);
                if self.programs[owner as usize].started(g) {
                    self.visit(s, owner);
                }
            }
        }
        if O::ENABLED && plan.cpu > Time::ZERO {
            let kind = match job {
                Job::Send(_) => Work::Send,
                Job::Envelope(_) => Work::Envelope,
                Job::Data(_) | Job::Cts(_) => Work::Data,
                Job::Post(..) => Work::Post,
                Job::Compute(..) | Job::Resume(_) => Work::Compute,
            };
            let rank = self.rank_of(job);
            self.obs
                .work(id, rank, kind, now, now.saturating_add(plan.cpu));
        }
        let mut cpu_end = End::NOTHING;
        if resume && !(sync && plan.cpu == Time::ZERO) {
            cpu_end.resume = self.rank_of(job);
        }
        let mut effects = plan.end;
        if plan.delay == plan.cpu {
            effects.resume = cpu_end.resume;
            cpu_end = effects;
            effects = End::NOTHING;
        }
        if effects != End::NOTHING {
            self.push_local(s, now.saturating_add(plan.delay), Loc::Effects(effects));
        }
        if plan.cpu > Time::ZERO {
            let srv = self.server(id);
            srv.busy = true;
            self.push_local(s, now.saturating_add(plan.cpu), Loc::Free(id, cpu_end));
            return false;
        }
        if cpu_end != End::NOTHING {
            self.do_end(s, cpu_end);
        }
        true
    }

    /// Sets the arrival of message `m` (its rendezvous data if `data`,
    /// else its envelope) aside until `at`, when it becomes ready again
    /// on `id`.
    pub(super) fn set_aside(
        &mut self,
        s: &mut Scheduler<'_, super::Ev<T::Event>>,
        id: u32,
        m: u32,
        data: bool,
        at: Time,
    ) {
        self.push_local(s, at, Loc::Ready(id, m, data));
    }

    /// The job in service on `id` ends, with effects `end`.
    pub(super) fn server_free(
        &mut self,
        s: &mut Scheduler<'_, super::Ev<T::Event>>,
        id: u32,
        end: End,
    ) {
        self.server(id).busy = false;
        if end != End::NOTHING {
            self.do_end(s, end);
        }
        self.serve(s, id);
    }

    fn rank_of(&self, job: Job) -> u32 {
        match job {
            Job::Send(m) | Job::Cts(m) => self.msgs[m as usize].src,
            Job::Envelope(m) | Job::Data(m) => self.msgs[m as usize].dst,
            Job::Post(r, _) | Job::Compute(r, ..) | Job::Resume(r) => r,
        }
    }

    /// A job's effects.
    pub(super) fn do_end(&mut self, s: &mut Scheduler<'_, super::Ev<T::Event>>, e: End) {
        if e.complete != NONE {
            self.complete(s, e.complete);
        }
        if e.cts != NONE {
            self.send_cts(s, e.cts);
        }
        if e.credit.0 != NONE {
            self.credit_back(s, e.credit.0, e.credit.1);
        }
        if e.resume != NONE {
            self.submit(s, e.resume, Job::Resume(e.resume), false);
        }
        if e.unblock != NONE {
            self.unblock(s, e.unblock);
        }
    }

    /// How long rank `r`'s computation of `d` (at its node's declared
    /// speed) started at `now` lasts, under its node's speed profile; one
    /// that never ends ends past the horizon, which stops the run.
    fn compute_time(&self, r: u32, now: Time, d: Time) -> Time {
        let node = self.placement.node(r).0 as usize;
        match self.speed_profiles.get(node) {
            Some(Some(p)) => p.end_of_work(now, d).map_or(
                sim_core::limits::MAX_SIM_TIME + Time::from_ps(1) - now,
                |end| end - now,
            ),
            _ => d,
        }
    }

    /// What `job` costs, starting now on server `id`; `None` if it was set
    /// aside (a port is busy).
    fn start_job(
        &mut self,
        s: &mut Scheduler<'_, super::Ev<T::Event>>,
        id: u32,
        job: Job,
    ) -> Option<Plan> {
        Some(match job {
            Job::Send(m) => self.start_send(s, m),
            Job::Envelope(m) | Job::Data(m) => {
                let (dst, nic) = (self.msgs[m as usize].dst, self.msgs[m as usize].nic);
                let port = self.port(dst, nic).recv_free;
                if port > s.now() {
                    self.set_aside(s, id, m, matches!(job, Job::Data(_)), port);
                    return None;
                }
                if matches!(job, Job::Envelope(_)) {
                    self.start_envelope(s, m)
                } else {
                    self.start_data(s, m)
                }
            }
            Job::Post(r, p) => self.start_post(s.now(), r, p),
            Job::Cts(m) => self.start_cts(s, m),
            Job::Compute(r, d, req) => {
                let d = self.compute_time(r, s.now(), d);
                Plan {
                    cpu: d,
                    delay: d,
                    end: End {
                        complete: req,
                        ..End::NOTHING
                    },
                }
            }
            Job::Resume(r) => Plan {
                cpu: Time::ZERO,
                delay: Time::ZERO,
                end: End {
                    unblock: r,
                    ..End::NOTHING
                },
            },
        })
    }
}
