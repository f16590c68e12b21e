//! The observer seam: what happened in a run, when, for reports,
//! timelines and statistics built outside the hot path.
//!
//! A [`crate::Simulation`] calls its [`Observer`] at every operation a
//! program starts, every block and resumption, every piece of host work
//! and every step of a message's life; and, for an observer that
//! [wants them](Observer::wants_links), at every interval a link of the
//! transport was busy ([`LinkBusy`], logged by the packet and flow
//! models, never by the ideal network). [`NoObserver`], the default, does
//! nothing and says so through [`Observer::ENABLED`], so the simulator
//! skips building the events: a new output is a new `Observer`, and the
//! simulator's hot path is unchanged when none is attached. A pair
//! `(A, B)` of observers is an observer that tells both.

mod report;

pub use report::{ReportObserver, Waiting};

use crate::collectives::{Choice, CollKind};
use crate::op::{MsgId, Op, Origin};
use crate::params::Protocol;
use sim_core::Time;
use topology::{LinkBusy, Locality};

/// What a piece of host work was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// A send's CPU part (`o_send`, `O_send`).
    Send,
    /// An arrived envelope or RTS: the search of `posted_recvs` and, for
    /// short and eager messages, the receive overhead.
    Envelope,
    /// Arrived rendezvous data: the receive overhead.
    Data,
    /// A posted receive: the search of `unexpected_msgs` and the copy.
    Post,
    /// Local computation (`Compute`, a collective's reduction).
    Compute,
}

/// A step of a message's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The program posted the send.
    Posted {
        /// The message's derived host cost term was clamped to zero: the
        /// calibration could not be met (see [`crate::MpiParams`]).
        clamped: bool,
    },
    /// The envelope (with short or eager data), the RTS, or the
    /// rendezvous data left the sender.
    Departed,
    /// That leg reached the receiver (before `L`).
    Arrived,
    /// The receiver matched it, after visiting this many queue elements
    /// (of `posted_recvs` for an arrival, `unexpected_msgs` for a post).
    Matched {
        /// Elements visited by the matching search.
        visited: u64,
    },
    /// The receive completed.
    Completed,
}

/// A message at one step. `id` names the message from its post to its
/// completion (a later message may take the number again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageStep {
    /// The message's number while it lives.
    pub id: MsgId,
    /// Sending world rank.
    pub src: u32,
    /// Receiving world rank.
    pub dst: u32,
    /// The message's sequence number in its pair: send order from 0,
    /// counted again from 0 once the pair has nothing in flight.
    pub seq: u32,
    /// User tag (collectives use a reserved space).
    pub tag: i32,
    /// Payload (bytes).
    pub bytes: u64,
    /// Protocol.
    pub protocol: Protocol,
    /// Locality of the pair.
    pub locality: Locality,
    /// The step.
    pub step: Step,
    /// When.
    pub at: Time,
}

/// The two match queues of a rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queue {
    /// `posted_recvs`, searched by an arriving envelope or RTS.
    Posted,
    /// `unexpected_msgs`, searched by a posted receive.
    Unexpected,
}

/// One search of a match queue, at the start of the host job that makes
/// it. A search that finds nothing leaves its envelope in
/// `unexpected_msgs` (a [`Queue::Posted`] search) or its receive in
/// `posted_recvs` (a [`Queue::Unexpected`] search).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Search {
    /// The rank whose queue it is.
    pub rank: u32,
    /// Which queue.
    pub queue: Queue,
    /// Elements visited.
    pub visited: u64,
    /// It found a match.
    pub found: bool,
    /// When.
    pub at: Time,
}

/// Receives a run's events. Every method has an empty default.
pub trait Observer {
    /// `false` only for an observer that ignores everything: the simulator
    /// then does not build the events.
    const ENABLED: bool = true;
    /// Rank `rank` starts `op` (from `origin`) at `at`.
    fn op(&mut self, rank: u32, op: &Op, origin: &Origin, at: Time) {
        let _ = (rank, op, origin, at);
    }
    /// Rank `rank` (rank `comm_rank` of the communicator) starts
    /// collective `kind` with the algorithm `choice` names, at `at`.
    fn collective(&mut self, rank: u32, comm_rank: u32, kind: CollKind, choice: Choice, at: Time) {
        let _ = (rank, comm_rank, kind, choice, at);
    }
    /// Rank `rank`'s program blocks at `at` (in a wait, a blocking call,
    /// a collective step, or for its CPU).
    fn blocked(&mut self, rank: u32, at: Time) {
        let _ = (rank, at);
    }
    /// Rank `rank`'s program goes on at `at`.
    fn resumed(&mut self, rank: u32, at: Time) {
        let _ = (rank, at);
    }
    /// Host work for rank `rank` on CPU `server` (ranks' cores are
    /// `0..ranks`, progress engines follow) from `start` to `end`.
    fn work(&mut self, server: u32, rank: u32, kind: Work, start: Time, end: Time) {
        let _ = (server, rank, kind, start, end);
    }
    /// A message reached a step.
    fn message(&mut self, step: &MessageStep) {
        let _ = step;
    }
    /// A match queue was searched.
    fn search(&mut self, search: &Search) {
        let _ = search;
    }
    /// Rank `rank`'s program ended at `at` (its finish time).
    fn finished(&mut self, rank: u32, at: Time) {
        let _ = (rank, at);
    }
    /// Whether the observer wants [`Observer::link_busy`]; asked once,
    /// when the simulation is built. Only then does the transport log its
    /// links' busy intervals (a run without costs nothing there).
    fn wants_links(&self) -> bool {
        false
    }
    /// A link of the transport was busy (see [`LinkBusy`]; told in the
    /// order the transport decides them, at the latest when the engine's
    /// event that decided it has been handled, so not in start order).
    fn link_busy(&mut self, busy: &LinkBusy) {
        let _ = busy;
    }
}

/// Both observers, `A` first.
impl<A: Observer, B: Observer> Observer for (A, B) {
    const ENABLED: bool = A::ENABLED || B::ENABLED;
    fn op(&mut self, rank: u32, op: &Op, origin: &Origin, at: Time) {
        self.0.op(rank, op, origin, at);
        self.1.op(rank, op, origin, at);
    }
    fn collective(&mut self, rank: u32, comm_rank: u32, kind: CollKind, choice: Choice, at: Time) {
        self.0.collective(rank, comm_rank, kind, choice, at);
        self.1.collective(rank, comm_rank, kind, choice, at);
    }
    fn blocked(&mut self, rank: u32, at: Time) {
        self.0.blocked(rank, at);
        self.1.blocked(rank, at);
    }
    fn resumed(&mut self, rank: u32, at: Time) {
        self.0.resumed(rank, at);
        self.1.resumed(rank, at);
    }
    fn work(&mut self, server: u32, rank: u32, kind: Work, start: Time, end: Time) {
        self.0.work(server, rank, kind, start, end);
        self.1.work(server, rank, kind, start, end);
    }
    fn message(&mut self, step: &MessageStep) {
        self.0.message(step);
        self.1.message(step);
    }
    fn search(&mut self, search: &Search) {
        self.0.search(search);
        self.1.search(search);
    }
    fn finished(&mut self, rank: u32, at: Time) {
        self.0.finished(rank, at);
        self.1.finished(rank, at);
    }
    fn wants_links(&self) -> bool {
        self.0.wants_links() || self.1.wants_links()
    }
    fn link_busy(&mut self, busy: &LinkBusy) {
        self.0.link_busy(busy);
        self.1.link_busy(busy);
    }
}

/// The observer that observes nothing (the default): no cost.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    const ENABLED: bool = false;
}
