//! # sim-core: netsim's discrete-event engine
//!
//! Knows nothing of networks or MPI. It provides:
//!
//! * [`Time`], integer picoseconds, and [`Bandwidth`], integer bytes per
//!   second, with [`transfer_time`] as the single (bytes, rate) -> time
//!   conversion (exact `u128`, rounded up); [`PerByte`], LogGP's costs per
//!   byte in femtoseconds, for costs given per byte rather than as a rate;
//! * [`EventQueue`], the pending-event set keyed by (time, sequence number):
//!   unique keys, FIFO among equal times, cancel and reschedule by handle.
//!   The ordering contract is stated in the [`queue`] module;
//! * [`Engine`] and [`Model`], the loop that hands events to a model, and
//!   [`Schedule`] / [`Lift`], through which layers schedule their own event
//!   types inside the enum of the layer above;
//! * [`RngStreams`]: one master seed, independent named ChaCha8 streams,
//!   and `rand_distr` re-exported for service-time laws;
//! * [`stats`]: summaries and log-binned histograms, both
//!   mergeable;
//! * [`limits`]: the limits every input is checked against (ranks,
//!   nodes, message size, durations, the simulated-time horizon);
//! * [`outputs`]: output files written whole or not at all, and removed
//!   by a signal handler when a stop interrupts them;
//! * [`units`]: times, rates and sizes written with their units
//!   (`"2.3 us"`, `"940 Mb/s"`, `"12 KiB"`), for every input format.
//!
//! Determinism: the same calls in the same order give the same events in
//! the same order, the same random numbers and the same statistics, on every
//! platform.

pub mod engine;
pub mod hold;
pub mod limits;
pub mod outputs;
pub mod queue;
pub mod rng;
pub mod stats;
pub mod time;
pub mod units;

pub use engine::{Engine, Lift, Model, Schedule, Scheduler, Stop};
pub use queue::{EventId, EventQueue};
pub use rng::{RngStreams, SimRng};
pub use time::{Bandwidth, PS_PER_SEC, PerByte, Time, transfer_time};

/// The `rand` crate, re-exported so every layer draws with the same version.
pub use rand;
/// The `rand_distr` crate (exponential and other service-time laws).
pub use rand_distr;
