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
//! of the receiving host's time, per queue and optionally by position
//! ([`SearchCost`]; Bienz et al. 2018, Section 4.1, eq. 3-4: `T_q = gamma
//! n^2` for a reversed HighVolumePingPong); a successful match costs
//! `match_base` more (Bridges et al. 2015, eq. 1-2: match delay linear in
//! queue length). The match is decided when the host's job for the
//! envelope (or the posted receive) starts. Search lengths are recorded in
//! histograms. Envelopes of one (source, destination) pair are matched in
//! send order whatever order the transport delivers them in
//! (non-overtaking). Implementations (linear, hashed, per-source bins,
//! offloaded) give identical matches and differ only in cost.
//!
//! ## Protocols ([`Protocol`], [`MsgState`])
//! * **short / eager**: `SendOverhead` (the sender's CPU spends `o_send`;
//!   the envelope leaves when the process's port is free, holding it
//!   `g + (s-1) G`) -> `Envelope` (data with the envelope through the
//!   transport or the node's memory, then `L`) -> receiver: search
//!   `posted_recvs`, `o_recv`; matched: done; else `Unexpected` until a
//!   receive is posted, then search and the copy out of the library's
//!   buffer, done.
//! * **rendezvous**: `SendOverhead` -> `Rts` (zero payload) -> receiver
//!   search; `Unexpected` until matched -> `Cts` (zero payload, back to the
//!   sender) -> `Data` (claims the sender's port, crosses at the wire
//!   rate) -> the send completes on delivery; after `L` the receiver
//!   spends `o_recv`, done.
//!
//! ## Two contracts
//! A single message on an idle machine (receive pre-posted, send posted at
//! `t0`) completes its receive at exactly `t0 + alpha + s / R_b` for its
//! protocol and locality (eq. 1 of Bienz et al.); a stream of in-order
//! messages completes one message per the slowest of the sender's CPU and
//! port and the receiver's CPU and port (and the pair window). See
//! [`MpiParams`] for both, for how alpha is split into [`HostCosts`]
//! (LogGP's `o`, `g`, `G`, `O`, `L`), wire time, handshake and matching,
//! and how a process's port and the transport's `R_N` give the max-rate
//! model (eq. 2).
//!
//! ## Host and progress
//! Host work (overheads, searches, copies, reductions, `Compute`, and the
//! rank's program itself) runs on a CPU, one job at a time, in the order
//! the jobs become ready in simulated time: the rank's own core
//! ([`Progress::OwnCore`]), whose program goes on only when the MPI job it
//! issued is done, or one of a node's progress engines
//! ([`Progress::Engines`]; `Compute` always occupies the rank's own core).
//! With `protocol_offload` the overheads delay the message without
//! occupying a core (Bridges et al., onload/offload). Within a node, data
//! crosses the node's memory, a bandwidth shared max-min fairly by the
//! copies in progress ([`ShmParams`]).

//! ## Collectives ([`collectives`])
//! Built from point-to-point in a context of their own (communicator
//! context `2g + 1`; user point-to-point uses `2g`), so they never match
//! user messages; expanded lazily, one step at a time per rank.
//!
//! ## Cost of simulating
//! Per rank: about 400 bytes of state plus its program; match queues,
//! requests, per-pair ordering and flow-control state exist only while
//! messages are in flight. The layer's events (host work ending,
//! departures, arrivals through memory) are in its own time-bucketed FIFO
//! queue with one engine event per instant; each CPU has at most one of
//! them pending. Long linear match
//! queues are indexed (same matches and search lengths, `O(log n)` per
//! search). `netsim bench` prints events per second, wall times and
//! peak memory for the workloads the performance issue names.
//!
//! ## Simplifications (stated, not hidden)
//! * A receive's size is not checked against the message's: the message
//!   is the sender's size (no truncation errors).
//! * Communicator constructors (`CommDup`, `CommSplit`, `CommCreate`,
//!   the topology constructors; `CommCreateGroup` over the group's
//!   members) synchronize the members (each waits until all have called
//!   it) but cost no time and send no messages; group operations and
//!   `CommFree` are local and free. Topology constructors never reorder
//!   ranks. Neighbour collectives are one round of point-to-point
//!   messages (every receive posted, then every send, then wait for
//!   all), as MPICH and Open MPI implement them by default.
//! * RTS and CTS carry zero payload bytes; they are counted in
//!   `RunResults::control_messages`, not in the traffic table.
//! * A rendezvous send completes when its data is delivered (the
//!   transport reports deliveries, not departures).
//! * A pair window's credit comes back at no cost (no message, no
//!   latency), as LogGOPSim releases a rendezvous sender.
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
pub mod observe;
pub mod op;
pub mod params;
mod probe;
mod sim;
mod words;

pub use collectives::{
    Choice, CollAlg, CollKind, CollUse, MAX_OVERRIDES, Override, Selection, Selector,
};
pub use matching::{MatchQueue, Queues};
pub use observe::{
    MessageStep, NoObserver, Observer, Queue, ReportObserver, Search, Step, Waiting, Work,
};
pub use op::{
    CommId, GraphOp, GroupId, Op, OpStream, Origin, ProgramError, Rank, Ready, ReqId, Source, Tag,
    TagSel, VecProgram,
};
pub use params::{
    AllreduceLarge, CollectiveParams, HostCosts, MatcherKind, MpiParams, OB1_HEADER_BYTES, Postal,
    Progress, Protocol, Rest, SMPI_HEADER_BYTES, SearchCost, ShmParams,
};
pub use sim::{
    BlockedRank, ConfigError, DeadlockReport, Ev, MsgState, RegionTime, RunError, RunResults,
    Simulation, Traffic, Truncation, run,
};
