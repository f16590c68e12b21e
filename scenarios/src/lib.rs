//! # scenarios: what netsim simulates
//!
//! Workloads become per-rank [`OpStream`](mpi_layer::OpStream)s of MPI
//! [`Op`](mpi_layer::Op)s:
//!
//! - [`workloads`]: the seed papers' experiments as built-in workloads
//!   (ping-pong, HighVolumePingPong, max-rate pairs, the 4-Gemini line,
//!   Zhu's random patterns, collectives, message rate, halos);
//! - [`ti`]: SimGrid time-independent text traces (shared file, per-rank
//!   files, or a list file);
//! - [`native`]: netsim's own line format, easy to write by hand or script
//!   (`TRACE-FORMAT.md`);
//! - [`msglist`]: one communication phase from a CSV `src,dst,bytes`
//!   message list (the AMG SpMV / SpGEMM patterns);
//! - [`dumpi`]: SST DUMPI binary traces (`.meta` + one `.bin` per rank),
//!   read through [`recorded`], the mapping of recorded MPI calls to
//!   operations that any binary trace format can share;
//! - [`otf2`]: OTF2 traces (Score-P), through the OTF2 library behind the
//!   `otf2` feature, read through [`recorded`] as DUMPI is;
//! - [`goal`]: GOAL schedules (LogGOPSim / Schedgen text form);
//! - [`scenario`]: scenario files (TOML): machine, transport, mapping,
//!   MPI parameters, seed and workload, run into a [`scenario::Report`];
//! - [`sweep`]: what-if sweeps over scenario parameters, shards and merge;
//! - [`synthetic`]: open-loop synthetic traffic (Bernoulli injection of
//!   packets by a pattern, straight into the transport, no MPI): latency,
//!   accepted throughput and saturation;
//! - [`reader`]: what every reader shares (the [`TraceReader`] trait,
//!   the rank limit, per-rank spans of a shared text trace), below the
//!   readers;
//! - [`shared`]: where the shared data (seed workloads, recorded traces)
//!   is found at run time;
//!
//! [`trace::open_streams`] opens any of them (format chosen or detected from
//! the file name with [`trace::TraceFormat::detect`]):
//!
//! ```no_run
//! use std::path::Path;
//! use mpi_layer::OpStream;
//! use scenarios::trace::{open_streams, TraceConfig, TraceFormat};
//!
//! let path = Path::new("traces/dumpi/sst-macro-testtrace/testtrace.meta");
//! let mut ranks = open_streams(path, TraceFormat::detect(path), &TraceConfig::default())?;
//! while let Some((op, origin)) = ranks[0].next_op()? {
//!     println!("{origin}: {op:?}");
//! }
//! # Ok::<(), mpi_layer::ProgramError>(())
//! ```
//!
//! Each module also has its own reader for finer control (`TiTrace`,
//! `DumpiTrace`, `Otf2Trace`, `GoalSchedule`, `NativeTrace`,
//! `MessageList`, each a [`TraceReader`]); all but OTF2 give one rank's
//! stream at a time.
//!
//! Every trace reader streams: a rank's stream holds an open file and the
//! operations of the line or record being read, never the whole trace, so
//! memory grows with operations in flight (pending requests), not with
//! trace length. Bad input is an error value naming the file and line
//! (text) or record and byte offset (binary); readers never panic on input.

pub mod auto_mode;
pub mod dumpi;
pub mod goal;
pub mod msglist;
pub mod native;
pub mod otf2;
pub mod reader;
pub mod recorded;
pub mod scenario;
pub mod shared;
pub mod sweep;
pub mod synthetic;
pub mod ti;
pub mod timeline;
pub mod trace;
pub mod workloads;

mod text;

pub use reader::TraceReader;
