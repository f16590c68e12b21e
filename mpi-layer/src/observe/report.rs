//! [`ReportObserver`]: the run's per-rank and per-message statistics
//! rebuilt from the observer seam's events alone, as a new output would
//! build its own.
//!
//! The simulator keeps these figures itself as well (a few counters
//! beside the protocol code, `Sim::stats`), because a run without an
//! observer must not pay for building events; the differential tests
//! (`scenarios/tests/scenarios/observer_report.rs`) hold the two equal on
//! built-in workloads, DUMPI and GOAL traces and a deadlock.

use super::{MessageStep, Observer, Queue, Search, Step};
use crate::collectives::{Choice, CollKind, Tally};
use crate::op::{Op, Origin};
use crate::params::{Protocol, locality_index};
use crate::sim::{RegionTime, RunResults, Traffic};
use rustc_hash::FxHashMap;
use sim_core::Time;
use sim_core::stats::LogHistogram;

/// Rebuilds [`RunResults`] (all of it but the engine's event count)
/// from the events of the seam: finish times from
/// [`Observer::finished`], traffic and clamped messages from
/// [`Step::Posted`], RTS from a rendezvous message's first departure and
/// CTS from its match, search lengths and the messages left unexpected
/// from [`Observer::search`], timed regions from the
/// [`Op::RegionBegin`] / [`Op::RegionEnd`] operations, the collectives'
/// algorithms from [`Observer::collective`]. For a run that
/// deadlocks, [`ReportObserver::waiting`] names the ranks that never
/// finished and the operation each was in.
#[derive(Default)]
pub struct ReportObserver {
    finish: Vec<Option<Time>>,
    traffic: [[Traffic; 3]; 3],
    control: u64,
    posted_search: LogHistogram,
    unexpected_search: LogHistogram,
    clamped: u64,
    /// Messages in some `unexpected_msgs` now.
    unexpected: u64,
    /// By message id: its first leg (a rendezvous message's RTS) left.
    departed: Vec<bool>,
    /// By (rank, region): (open since, total, passes).
    regions: FxHashMap<(u32, u32), (Option<Time>, Time, u32)>,
    /// By rank: the operation it started last, and where it came from.
    last_op: Vec<Option<(Op, Origin)>>,
    /// The collectives' algorithms.
    collectives: Tally,
}

impl std::fmt::Debug for ReportObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReportObserver").finish_non_exhaustive()
    }
}

/// A rank that never finished, and the operation it started last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// World rank.
    pub rank: u32,
    /// Its last operation, in MPI's words, and where it came from (`None`
    /// for a graph program, whose operations the seam does not name).
    pub op: Option<(String, String)>,
}

fn slot<T: Default + Clone>(v: &mut Vec<T>, i: u32) -> &mut T {
    if v.len() <= i as usize {
        v.resize(i as usize + 1, T::default());
    }
    &mut v[i as usize]
}

impl ReportObserver {
    /// The results the events describe; `events` is the engine's count
    /// (not an event of the seam).
    pub fn results(&self, events: u64) -> RunResults {
        let finish: Vec<Time> = self
            .finish
            .iter()
            .map(|t| t.unwrap_or(Time::ZERO))
            .collect();
        let mut regions: Vec<RegionTime> = self
            .regions
            .iter()
            .map(|(&(rank, id), &(_, total, count))| RegionTime {
                id,
                rank,
                total,
                count,
            })
            .collect();
        regions.sort_by_key(|g| (g.id, g.rank));
        RunResults {
            makespan: finish.iter().copied().max().unwrap_or(Time::ZERO),
            finish,
            traffic: self.traffic,
            control_messages: self.control,
            posted_search: self.posted_search.clone(),
            unexpected_search: self.unexpected_search.clone(),
            calibration_clamped: self.clamped,
            unmatched_messages: self.unexpected,
            events,
            regions,
            collectives: self.collectives.rows(),
        }
    }

    /// The ranks of `ranks` that never finished, by rank.
    pub fn waiting(&self, ranks: u32) -> Vec<Waiting> {
        (0..ranks)
            .filter(|&r| self.finish.get(r as usize).copied().flatten().is_none())
            .map(|rank| Waiting {
                rank,
                op: self
                    .last_op
                    .get(rank as usize)
                    .and_then(|o| o.as_ref())
                    .map(|(op, origin)| (op.to_string(), origin.to_string())),
            })
            .collect()
    }
}

impl Observer for ReportObserver {
    fn collective(
        &mut self,
        _rank: u32,
        comm_rank: u32,
        kind: CollKind,
        choice: Choice,
        _at: Time,
    ) {
        self.collectives.record(comm_rank, kind, choice);
    }
    fn op(&mut self, rank: u32, op: &Op, origin: &Origin, at: Time) {
        match *op {
            Op::RegionBegin { id } => {
                self.regions.entry((rank, id)).or_default().0 = Some(at);
            }
            Op::RegionEnd { id } => {
                // An end without a begin is the run's error, not ours.
                if let Some(g) = self.regions.get_mut(&(rank, id)) {
                    if let Some(t0) = g.0.take() {
                        g.1 = g.1.saturating_add(at.saturating_sub(t0));
                        g.2 += 1;
                    }
                }
            }
            _ => {}
        }
        *slot(&mut self.last_op, rank) = Some((op.clone(), origin.clone()));
    }

    fn message(&mut self, m: &MessageStep) {
        match m.step {
            Step::Posted { clamped } => {
                let cell = &mut self.traffic[m.protocol.index()][locality_index(m.locality)];
                cell.messages += 1;
                cell.bytes += m.bytes;
                self.clamped += u64::from(clamped);
                *slot(&mut self.departed, m.id.0) = false;
            }
            Step::Departed => {
                let first = !std::mem::replace(slot(&mut self.departed, m.id.0), true);
                if first && m.protocol == Protocol::Rendezvous {
                    // The RTS.
                    self.control += 1;
                }
            }
            Step::Matched { .. } if m.protocol == Protocol::Rendezvous => {
                // The CTS goes back once the matching job ends.
                self.control += 1;
            }
            _ => {}
        }
    }

    fn search(&mut self, s: &Search) {
        match s.queue {
            Queue::Posted => {
                self.posted_search.record(s.visited);
                if !s.found {
                    self.unexpected += 1;
                }
            }
            Queue::Unexpected => {
                self.unexpected_search.record(s.visited);
                if s.found {
                    self.unexpected -= 1;
                }
            }
        }
    }

    fn finished(&mut self, rank: u32, at: Time) {
        *slot(&mut self.finish, rank) = Some(at);
    }
}
