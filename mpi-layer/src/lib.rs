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
//! ## Where things are
//! * Matching ([`matching`]): two FIFO queues per rank, MPI's order,
//!   `gamma` per element visited by position ([`SearchCost`]; Bienz et
//!   al. 2018 Sec. 4.1) plus `match_base` per match (Bridges et al. 2015
//!   eq. 1-2); the implementations (linear, hashed, per-source bins,
//!   offloaded) give identical matches and differ only in cost.
//! * Protocols ([`Protocol`], [`MsgState`]): short, eager and rendezvous
//!   as one state machine per message, and the host jobs that move it
//!   (`src/sim/protocol.rs`'s module doc).
//! * Costs ([`MpiParams`], [`HostCosts`]): the calibration contract (one
//!   message on an idle machine takes `alpha + s / R_b` exactly, eq. 1),
//!   the stream contract, and one progress engine per process: a rank's
//!   core (or its node's engine, [`Progress`]) runs its sends, searches,
//!   copies, computation and program one job at a time, in the order
//!   they become ready; the port serializes injections and bytes
//!   (`ARCHITECTURE.md`).
//! * Collectives ([`collectives`]): point-to-point in a context of their
//!   own, one step at a time per rank, algorithms by a library's selector.
//!
//! Stated simplifications: RTS and CTS carry no payload; a rendezvous
//! send completes on delivery; a pair window's credit comes back at no
//! cost; `Test` lets no time pass; communicator constructors cost
//! nothing. Bad programs, semantic errors and deadlocks end the run with
//! a [`RunError`] naming the rank and the operation's origin.

pub mod collectives;
mod ids;
pub mod matching;
pub mod observe;
pub mod op;
pub mod params;
mod probe;
mod sim;
mod words;

pub use collectives::{
    Choice, CollAlg, CollKind, CollUse, ELEMENT_BYTES, MAX_OVERRIDES, Override, Selection,
    Selector, TORUS_SEGMENT_BYTES, torus_dims,
};
pub use matching::{MatchQueue, Queues};
pub use observe::{
    MessageStep, NoObserver, Observer, Queue, ReportObserver, Search, Step, Waiting, Work,
};
pub use op::{
    CommId, GraphOp, GroupId, MsgId, Op, OpLimitError, OpStream, Origin, ProgramError, Rank, Ready,
    ReqId, Source, Tag, TagSel, VecProgram,
};
pub use params::{
    AllreduceLarge, CollectiveParams, HostCosts, MatcherKind, MpiParams, OB1_HEADER_BYTES, Postal,
    Progress, Protocol, Rendezvous, Rest, SMPI_HEADER_BYTES, SearchCost, ShmParams, WireRateError,
};
pub use sim::{
    BlockedRank, ConfigError, DeadlockReport, Ev, MsgState, RegionTime, RunError, RunResults,
    Simulation, Traffic, Truncation, run,
};
