//! # mpi-layer: MPI semantics on top of a transport
//!
//! Ranks run programs of [`Op`]s pulled one at a time from [`OpStream`]s;
//! the layer turns them into point-to-point messages with MPI's matching
//! rules, runs each message's protocol as a state machine, charges host
//! costs on a FIFO resource per core (or per progress engine), and moves
//! bytes through any [`topology::Transport`] (between nodes) or a
//! shared-memory path (within a node). Entry point: [`run`] or
//! [`Simulation`].
//!
//! ## Example: one message obeys eq. 1
//!
//! ```
//! use mpi_layer::{CommId, MpiParams, Op, Source, TagSel, VecProgram, run};
//! use sim_core::{Bandwidth, Time, transfer_time};
//! use topology::{IdealNetwork, Placement};
//!
//! // Two ranks on two nodes joined by an ideal 500 ns wire.
//! let placement = Placement::block(2, 1, 1);
//! let net = IdealNetwork::new(2, Time::from_ns(500), Bandwidth::bytes_per_sec(10_000_000_000));
//! let w = CommId::WORLD;
//! let programs = vec![
//!     VecProgram::new("sender", vec![Op::Send { dst: 1, tag: 0, bytes: 4096, comm: w }]),
//!     VecProgram::new(
//!         "receiver",
//!         vec![Op::Recv { src: Source::Rank(0), tag: TagSel::Tag(0), bytes: 4096, comm: w }],
//!     ),
//! ];
//! let results = run(placement, net, programs, MpiParams::blue_waters()).unwrap();
//! // Blue Waters, eager, inter-node (Bienz et al. Table 1): 7.0 us + s / 7.5e8 B/s.
//! let t = Time::from_ns(7000) + transfer_time(4096, Bandwidth::bytes_per_sec(750_000_000));
//! assert_eq!(results.finish[1], t);
//! ```
//!
//! ## Matching
//! Every rank has two FIFO queues, `posted_recvs` and `unexpected_msgs`
//! ([`matching`]). An arriving envelope searches `posted_recvs`; a posted
//! receive searches `unexpected_msgs`. Each element visited costs `gamma`
//! of the receiving host's time (Bienz et al. 2018, Section 4.1, eq. 3-4:
//! `T_q = gamma n^2` for a reversed HighVolumePingPong); a successful
//! match costs `match_base` more (Bridges et al. 2015, eq. 1-2: match
//! delay linear in queue length). Search lengths are recorded in
//! histograms. Envelopes of one (source, destination) pair are matched in
//! send order whatever order the transport delivers them in
//! (non-overtaking). Implementations (linear, hashed, per-source bins,
//! offloaded) give identical matches and differ only in cost.
//!
//! ## Protocols ([`Protocol`], [`MsgState`])
//! * **short / eager**: `SendOverhead` (sender host, `o_s`) -> `Envelope`
//!   (data with the envelope; the send completes when it leaves) ->
//!   receiver: search `posted_recvs`; matched: receive overhead `o_r`, done;
//!   else `Unexpected` until a receive is posted, then search, copy at
//!   `memcpy_rate`, `o_r`, done.
//! * **rendezvous**: `SendOverhead` -> `Rts` (zero payload) -> receiver
//!   search; `Unexpected` until matched -> `Cts` (zero payload, back to the
//!   sender) -> `Data` (at `R_b`) -> the send completes on delivery; the
//!   receiver spends `o_r`, done.
//!
//! ## Timing contract
//! A single message on an idle machine (receive pre-posted, send posted at
//! `t0`) completes its receive at exactly `t0 + alpha + s / R_b` for its
//! protocol and locality (eq. 1 of Bienz et al.); see [`MpiParams`] for
//! how alpha is split into host overheads, wire time, handshake and
//! matching, and how `R_b` and the transport's `R_N` give the max-rate
//! model (eq. 2).
//!
//! ## Host and progress
//! Host work (overheads, searches, copies, reductions, `Compute`) is
//! queued FIFO on a resource: the rank's own core ([`Progress::OwnCore`])
//! or one of a node's progress engines ([`Progress::Engines`]; `Compute`
//! always occupies the rank's own core). A decision (which receive
//! matches) is made when the event happens; its cost then waits in the
//! FIFO. With `protocol_offload` the overheads `o_s`, `o_r` delay the
//! message without occupying a core (Bridges et al., onload/offload).
//!
//! ## Collectives ([`collectives`])
//! Built from point-to-point in a context of their own (communicator
//! context `2g + 1`; user point-to-point uses `2g`), so they never match
//! user messages; expanded lazily, one step at a time per rank.
//!
//! ## Cost of simulating
//! Per rank: 360 bytes of state plus its program; match queues, requests
//! and per-pair ordering state exist only while messages are in flight.
//! The layer's events (injections, completions, host work ending) are in
//! its own time-bucketed FIFO queue with one engine event per instant;
//! each host resource has at most one of them pending. Long linear match
//! queues are indexed (same matches and search lengths, `O(log n)` per
//! search). `netsim bench` prints events per second, wall times and
//! peak memory for the workloads the performance issue names.
//!
//! ## Simplifications (stated, not hidden)
//! * A receive's size is not checked against the message's: the message
//!   is the sender's size (no truncation errors).
//! * `CommDup` / `CommSplit` synchronize the parent's members (each waits
//!   until all have called it) but cost no time and send no messages.
//! * RTS and CTS carry zero payload bytes; they are counted in
//!   `RunResults::control_messages`, not in the traffic table.
//! * A rendezvous send completes when its data is delivered (the
//!   transport reports deliveries, not departures).
//! * `Test` never lets time pass; a trace that polls must record the time
//!   between polls (as compute or sleep).
//! * Gatherv and scatterv are linear (the root posts all receives or
//!   sends in one step); allgather by recursive doubling is used only on
//!   power-of-two communicators (ring otherwise).
//!
//! ## Errors
//! Bad programs, semantic errors and deadlocks end the run with a
//! [`RunError`] naming the rank and the operation's origin; nothing panics
//! on user input.

#![warn(missing_docs)]

pub mod collectives;
pub mod matching;
pub mod op;
pub mod params;
mod sim;

pub use collectives::CollAlg;
pub use matching::{MatchQueue, Queues};
pub use op::{
    CommId, Op, OpStream, Origin, ProgramError, Rank, ReqId, Source, Tag, TagSel, VecProgram,
};
pub use params::{
    AllreduceLarge, CollectiveParams, HostCosts, MatcherKind, MpiParams, Postal, Progress,
    Protocol, Rest, SearchCost, ShmParams,
};
pub use sim::{
    BlockedRank, ConfigError, DeadlockReport, Ev, MsgState, RunError, RunResults, Simulation,
    Traffic, run,
};
