//! What a run produces: results, configuration and run errors, and the
//! deadlock report.

use super::Sim;
use super::control::Run;
use crate::matching::MatchQueue;
use crate::observe::Observer;
use crate::op::{OpStream, Origin, ProgramError, Rank};
use crate::params::Protocol;
use serde::Serialize;
use sim_core::Time;
use sim_core::stats::LogHistogram;
use topology::{Locality, Transport};

/// Messages and bytes of one (protocol, locality) cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Traffic {
    /// Messages (user and collective point-to-point; RTS and CTS are
    /// counted in `RunResults::control_messages`).
    pub messages: u64,
    /// Payload bytes.
    pub bytes: u64,
}

/// What a run produced: plain data for the CLI layer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunResults {
    /// Time the last rank finished.
    pub makespan: Time,
    /// Finish time of every world rank.
    pub finish: Vec<Time>,
    /// Traffic by protocol (rows: short, eager, rendezvous) and locality
    /// (columns: same socket, same node, other node).
    pub traffic: [[Traffic; 3]; 3],
    /// RTS and CTS messages sent.
    pub control_messages: u64,
    /// Elements visited per search of `posted_recvs` (one per arriving
    /// envelope or RTS).
    pub posted_search: LogHistogram,
    /// Elements visited per search of `unexpected_msgs` (one per posted
    /// receive).
    pub unexpected_search: LogHistogram,
    /// Messages whose derived cost term was clamped to zero (calibration
    /// could not be met; see [`crate::MpiParams`]).
    pub calibration_clamped: u64,
    /// Messages still in some `unexpected_msgs` when every rank had
    /// finished (an erroneous program: sends nobody received).
    pub unmatched_messages: u64,
    /// Events the engine handled.
    pub events: u64,
    /// Timed regions ([`crate::Op::RegionBegin`]), by region and rank.
    pub regions: Vec<RegionTime>,
    /// The collectives' algorithms, the rules that chose them and their
    /// calls, by kind.
    pub collectives: Vec<crate::CollUse>,
}

/// One rank's time in one timed region, summed over its passes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RegionTime {
    /// Region number.
    pub id: u32,
    /// World rank.
    pub rank: u32,
    /// Time between begins and ends, summed.
    pub total: Time,
    /// Passes (begin-end pairs).
    pub count: u32,
}

impl RunResults {
    /// Total messages over all protocols and localities.
    pub fn messages(&self) -> u64 {
        self.traffic.iter().flatten().map(|t| t.messages).sum()
    }
    /// Total payload bytes.
    pub fn bytes(&self) -> u64 {
        self.traffic.iter().flatten().map(|t| t.bytes).sum()
    }
    /// Total queue elements visited (both queues).
    pub fn elements_visited(&self) -> u128 {
        self.posted_search.sum() + self.unexpected_search.sum()
    }
}

/// The counters a run keeps as it goes.
#[derive(Default)]
pub(super) struct Stats {
    pub traffic: [[Traffic; 3]; 3],
    pub control_messages: u64,
    pub posted_search: LogHistogram,
    pub unexpected_search: LogHistogram,
    pub clamped: u64,
    pub collectives: crate::collectives::Tally,
}

/// Impossible parameters or inputs, found before the run starts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The calibration contract cannot hold: the transport alone (plus the
    /// handshake, the match and the given host costs) takes longer than
    /// `alpha + s / R_b`.
    #[error(
        "mpi.postal.{locality}.{protocol}: alpha = {alpha} with R_b = {rate} gives {target} \
         for {bytes} B, but the wire, handshake, match and the given host costs alone take \
         {needed}; raise alpha, lower the given o_send/o_recv/L, or lower the transport latency"
    )]
    NegativeOverhead {
        /// Protocol.
        protocol: Protocol,
        /// Locality.
        locality: Locality,
        /// Message size checked \[bytes\].
        bytes: u64,
        /// alpha.
        alpha: Time,
        /// R_b.
        rate: sim_core::Bandwidth,
        /// alpha + s / R_b.
        target: Time,
        /// What the rest takes.
        needed: Time,
    },
    /// A parameter is out of its range.
    #[error("parameter {name}: {message}")]
    Invalid {
        /// Parameter name.
        name: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// One rank blocked at the end of a deadlocked run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockedRank {
    /// World rank.
    pub rank: Rank,
    /// The operation it waits in, in MPI's words (`MPI_Waitall(requests 2, 3)`).
    pub op: String,
    /// Where the operation came from.
    pub origin: String,
    /// Its unmatched posted receives, oldest first.
    pub posted_recvs: Vec<String>,
    /// Its unmatched arrived messages, oldest first.
    pub unexpected_msgs: Vec<String>,
    /// Whether one of its posted receives or arrived messages in
    /// `MPI_COMM_WORLD` names the rank itself as the peer: rare in a
    /// program, and what a trace whose per-rank files were swapped
    /// gives.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub self_addressed: bool,
}

/// The state of a run in which nothing is left to happen but ranks are
/// still blocked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeadlockReport {
    /// Simulated time when the last event happened.
    pub at: Time,
    /// Blocked ranks, by rank.
    pub blocked: Vec<BlockedRank>,
}

impl std::fmt::Display for DeadlockReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "deadlock at {}: {} rank(s) blocked",
            self.at,
            self.blocked.len()
        )?;
        for b in &self.blocked {
            writeln!(f, "  rank {} blocked in {} at {}", b.rank, b.op, b.origin)?;
            for (name, list) in [
                ("posted_recvs", &b.posted_recvs),
                ("unexpected_msgs", &b.unexpected_msgs),
            ] {
                if !list.is_empty() {
                    writeln!(f, "    {name}: {}", list.join("; "))?;
                }
            }
        }
        Ok(())
    }
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RunError {
    /// Bad parameters.
    #[error("configuration: {0}")]
    Config(#[from] ConfigError),
    /// A rank's program could not be read.
    #[error("rank {rank}: {error}")]
    Program {
        /// World rank.
        rank: Rank,
        /// The reader's error (with file and line).
        error: ProgramError,
    },
    /// A rank did something MPI forbids.
    #[error("rank {rank}: {origin}: {message}")]
    Semantic {
        /// World rank.
        rank: Rank,
        /// Where the operation came from.
        origin: Origin,
        /// What is wrong.
        message: String,
    },
    /// Ranks are blocked and nothing is left to happen.
    #[error("{0}")]
    Deadlock(DeadlockReport),
    /// A message matched a receive whose buffer is smaller
    /// (MPI_ERR_TRUNCATE).
    #[error("{0}")]
    Truncated(Box<Truncation>),
    /// Simulated time would pass the horizon
    /// [`sim_core::limits::MAX_SIM_TIME`]: the input's sizes or durations
    /// add up to more than the simulator's time can hold (a time that
    /// overflowed saturates beyond the horizon, so it lands here too).
    #[error(
        "simulated time exceeds the limit of {} ps (10^6 s, netsim's MAX_SIM_TIME): the next event is at {} ps, the run had reached {} ps; the input's sizes or durations are too large",
        sim_core::limits::MAX_SIM_TIME.as_ps(), .at.as_ps(), .now.as_ps()
    )]
    TimeLimit {
        /// The time of the last event handled.
        now: Time,
        /// The time of the event beyond the horizon.
        at: Time,
    },
}

/// A message longer than the receive it matched: MPI_ERR_TRUNCATE.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Truncation {
    /// World rank of the sender.
    pub sender: Rank,
    /// World rank of the receiver.
    pub receiver: Rank,
    /// The message's tag.
    pub tag: i32,
    /// The message's size \[bytes\].
    pub send_bytes: u64,
    /// The receive buffer's size \[bytes\].
    pub recv_bytes: u64,
    /// The receiving operation (`recv`, `irecv`, `sendrecv`).
    pub op: &'static str,
    /// Where the receive came from (trace file and line), if known.
    pub origin: Option<Origin>,
}

impl std::fmt::Display for Truncation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rank {}: ", self.receiver)?;
        if let Some(o) = &self.origin {
            write!(f, "{o}: ")?;
        }
        write!(
            f,
            "{}: message truncated (MPI_ERR_TRUNCATE): rank {} sent {} bytes (tag {}) to rank {}, whose {} holds {} bytes",
            self.op,
            self.sender,
            self.send_bytes,
            self.tag,
            self.receiver,
            self.op,
            self.recv_bytes
        )
    }
}

impl<T: Transport, S: OpStream, O: Observer> Sim<T, S, O> {
    /// The run's results once the engine has stopped at `now`: the first
    /// error, a deadlock report if ranks are still blocked, or the figures.
    pub(super) fn results(&mut self, now: Time) -> Result<RunResults, RunError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let blocked: Vec<BlockedRank> = self
            .ranks
            .iter()
            .enumerate()
            .filter(|(_, r)| r.run != Run::Finished)
            .map(|(i, _)| self.blocked_report(i as u32))
            .collect();
        if !blocked.is_empty() {
            return Err(RunError::Deadlock(DeadlockReport { at: now, blocked }));
        }
        if let Some((&(rank, id), reg)) = self
            .regions
            .iter()
            .filter(|(_, g)| g.open.is_some())
            .min_by_key(|(k, _)| **k)
        {
            let (_, origin) = reg.open.clone().expect("filtered");
            return Err(RunError::Semantic {
                rank,
                origin,
                message: format!("region {id} begun here and never ended"),
            });
        }
        let mut regions: Vec<RegionTime> = self
            .regions
            .iter()
            .map(|(&(rank, id), g)| RegionTime {
                id,
                rank,
                total: g.total,
                count: g.count,
            })
            .collect();
        regions.sort_by_key(|g| (g.id, g.rank));
        let finish: Vec<Time> = self.ranks.iter().map(|r| r.finish).collect();
        let unmatched_messages = self
            .ranks
            .iter()
            .map(|r| r.queues.unexpected_msgs().len() as u64)
            .sum();
        let st = std::mem::take(&mut self.stats);
        Ok(RunResults {
            makespan: finish.iter().copied().max().unwrap_or(Time::ZERO),
            finish,
            traffic: st.traffic,
            control_messages: st.control_messages,
            posted_search: st.posted_search,
            unexpected_search: st.unexpected_search,
            calibration_clamped: st.clamped,
            unmatched_messages,
            events: self.net_events + self.local.handled,
            regions,
            collectives: st.collectives.rows(),
        })
    }

    /// A matching context in words: the communicator, and whether the
    /// entry is its collectives' traffic (odd contexts).
    fn describe_ctx(&self, ctx: u32) -> String {
        let kind = if ctx % 2 == 0 { "" } else { " (collective)" };
        format!("{}{kind}", crate::op::CommId(ctx / 2))
    }

    fn blocked_report(&self, r: u32) -> BlockedRank {
        let rk = &self.ranks[r as usize];
        let (op, origin) = match rk.cur.as_deref() {
            Some((op, o)) => (op.to_string(), o.to_string()),
            // A graph program waits for the operations it has in flight;
            // its posted receives below say where each came from.
            None if rk.graph_live > 0 => (
                format!(
                    "a graph program with {} operation(s) in flight",
                    rk.graph_live
                ),
                "-".into(),
            ),
            None => ("(no operation)".into(), "-".into()),
        };
        const LIMIT: usize = 16;
        let mut posted = vec![];
        let mut unexp = vec![];
        let q = &rk.queues;
        let ps = q.posted_recvs();
        for p in ps.iter().take(LIMIT) {
            let src = p
                .src
                .map_or("MPI_ANY_SOURCE".into(), |x| format!("source {x}"));
            let tag = p.tag.map_or("MPI_ANY_TAG".into(), |x| format!("tag {x}"));
            let at = match self.recvs.posted(p.req) {
                // A graph program has no current operation: say where each
                // receive came from.
                Some((what, o)) if self.graphs => format!(" ({what} at {o})"),
                _ => String::new(),
            };
            posted.push(format!(
                "receive from {src}, {tag}, {}{at}",
                self.describe_ctx(p.ctx)
            ));
        }
        if ps.len() > LIMIT {
            posted.push(format!("... and {} more", ps.len() - LIMIT));
        }
        let us = q.unexpected_msgs();
        for e in us.iter().take(LIMIT) {
            let m = &self.msgs[e.msg.index()];
            unexp.push(format!(
                "{} message from rank {}, tag {}, {} B, {}",
                ["short", "eager", "rendezvous"][m.proto.index()],
                e.src,
                e.tag,
                m.bytes,
                self.describe_ctx(e.ctx)
            ));
        }
        if us.len() > LIMIT {
            unexp.push(format!("... and {} more", us.len() - LIMIT));
        }
        // Context 0: point-to-point in MPI_COMM_WORLD, where the source
        // is the world rank.
        let self_addressed = ps.iter().any(|p| p.ctx == 0 && p.src == Some(r))
            || us.iter().any(|e| e.ctx == 0 && e.src == r);
        BlockedRank {
            rank: r,
            op,
            origin,
            posted_recvs: posted,
            unexpected_msgs: unexp,
            self_addressed,
        }
    }
}
