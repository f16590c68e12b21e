//! One entry point for every trace format: pick (or detect) the format,
//! get one [`OpStream`] per rank.

use std::path::Path;

use mpi_layer::{OpStream, ProgramError};

use crate::dumpi::{DumpiConfig, DumpiTrace};
use crate::goal::{GoalConfig, GoalSchedule};
use crate::msglist::{MessageList, MessageListConfig};
use crate::native::NativeTrace;
use crate::ti::{TiConfig, TiTrace};

/// The trace formats netsim reads, named `ti`, `dumpi`, `goal`, `native`
/// and `csv` in scenario files and on the command line.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// SimGrid time-independent trace (shared file, list file, or per-rank
    /// files; `crate::ti`).
    #[serde(rename = "ti")]
    #[value(name = "ti")]
    SimGridTi,
    /// SST DUMPI binary trace, opened through its `.meta` file
    /// (`crate::dumpi`).
    Dumpi,
    /// GOAL schedule (`crate::goal`).
    Goal,
    /// netsim's native line format, one shared file (`crate::native`).
    Native,
    /// CSV message list `src,dst,bytes` (`crate::msglist`).
    #[serde(rename = "csv")]
    #[value(name = "csv")]
    MessageList,
}

impl TraceFormat {
    /// The format a file's extension names: `.meta` DUMPI, `.goal` GOAL,
    /// `.csv` message list, `.trace` native, anything else SimGrid TI.
    pub fn detect(path: &Path) -> TraceFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("meta") => TraceFormat::Dumpi,
            Some("goal") => TraceFormat::Goal,
            Some("csv") => TraceFormat::MessageList,
            Some("trace") => TraceFormat::Native,
            _ => TraceFormat::SimGridTi,
        }
    }
}

/// The parameters of every reader (each with its own defaults).
#[derive(Clone, Debug, Default)]
pub struct TraceConfig {
    /// SimGrid TI replay (host speed).
    pub ti: TiConfig,
    /// DUMPI replay (clock, computation scale).
    pub dumpi: DumpiConfig,
    /// GOAL replay (`calc` unit).
    pub goal: GoalConfig,
    /// Message-list phase (ranks, receive order, tag).
    pub msglist: MessageListConfig,
}

/// The most ranks a trace may have: netsim's one rank limit,
/// [`sim_core::limits::MAX_RANKS`] (a larger rank in a trace is an error
/// naming its line).
pub const MAX_TRACE_RANKS: u32 = sim_core::limits::MAX_RANKS;

/// A rank's program from any reader.
pub type BoxedStream = Box<dyn OpStream>;

/// Opens `path` as `format` and returns one stream per rank, rank order.
/// Opening checks what can be checked up front (files exist, headers,
/// rank counts); the rest is checked as each stream is read.
pub fn open_streams(
    path: &Path,
    format: TraceFormat,
    config: &TraceConfig,
) -> Result<Vec<BoxedStream>, ProgramError> {
    fn boxed<S: OpStream + 'static>(v: Vec<S>) -> Vec<BoxedStream> {
        v.into_iter().map(|s| Box::new(s) as BoxedStream).collect()
    }
    Ok(match format {
        TraceFormat::SimGridTi => boxed(TiTrace::open(path, config.ti.clone())?.streams()?),
        TraceFormat::Dumpi => boxed(DumpiTrace::open(path, config.dumpi.clone())?.streams()?),
        TraceFormat::Goal => boxed(GoalSchedule::open(path, config.goal.clone())?.streams()?),
        TraceFormat::Native => boxed(NativeTrace::open(path)?.streams()?),
        TraceFormat::MessageList => boxed(MessageList::read(path, &config.msglist)?.programs()),
    })
}
