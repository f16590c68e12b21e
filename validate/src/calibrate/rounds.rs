//! The campaign's rounds over its chunks, within its time budget.
//!
//! The budget is a wall-clock deadline for the whole campaign, from its
//! start: asking the launcher, building the benchmark, waiting for a
//! quiet machine, launching, measuring and collecting each chunk all
//! count. A chunk starts only if the time left holds it; its time is
//! estimated from the chunks already run ([`Budget::estimate`]: the
//! longest whole step, waiting and collecting included, of a chunk of
//! its kind, else of any kind). The first chunk always runs: there is no
//! estimate before it, and a campaign without rows has nothing to fit.
//! So a campaign ends by its deadline unless a chunk takes longer than
//! the longest of its kind so far, or the first chunk starts late.
//!
//! [`rounds`] is the loop; [`Runner`] runs one chunk and [`Clock`] tells
//! the time, so that the loop is tested without MPI and without waiting.

use super::{Chunk, Coverage, Options};
use crate::Error;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// The time, and a pause.
pub(super) trait Clock {
    /// Now.
    fn now(&self) -> Instant;
    /// Waits `d`.
    fn sleep(&self, d: Duration);
}

/// The machine's clock.
#[derive(Debug)]
pub(super) struct Wall;

impl Clock for Wall {
    fn now(&self) -> Instant {
        Instant::now()
    }
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
}

/// The campaign's time limits, the longest chunk step of each kind so
/// far and the chunks run.
#[derive(Debug)]
pub(super) struct Budget {
    start: Instant,
    limit: Duration,
    /// The end of waiting for a quiet machine (`--max-wait`).
    wait_deadline: Instant,
    longest: BTreeMap<&'static str, Duration>,
    ran: BTreeSet<Chunk>,
}

impl Budget {
    /// A budget of `limit` from `start`; waiting for a quiet machine
    /// ends at `wait_deadline` at the latest.
    pub(super) fn new(start: Instant, limit: Duration, wait_deadline: Instant) -> Budget {
        Budget {
            start,
            limit,
            wait_deadline,
            longest: BTreeMap::new(),
            ran: BTreeSet::new(),
        }
    }

    /// When the campaign must end.
    pub(super) fn deadline(&self) -> Instant {
        self.start + self.limit
    }

    /// The expected time of a run of `chunk`: the longest step of a
    /// chunk of its kind, else of any chunk; none before the first.
    pub(super) fn estimate(&self, chunk: Chunk) -> Option<Duration> {
        self.longest
            .get(chunk.kind)
            .or_else(|| self.longest.values().max())
            .copied()
    }

    /// Whether a run of `chunk` starting at `now` is expected to end by
    /// the deadline (always, before any chunk has run).
    pub(super) fn fits(&self, chunk: Chunk, now: Instant) -> bool {
        self.estimate(chunk)
            .is_none_or(|e| now + e <= self.deadline())
    }

    /// How long a run of `chunk` starting at `now` may wait for a quiet
    /// machine: until `--max-wait` ends or the chunk would no longer
    /// fit, whichever is first.
    pub(super) fn wait_until(&self, chunk: Chunk, now: Instant) -> Instant {
        let fit = self
            .deadline()
            .checked_sub(self.estimate(chunk).unwrap_or_default())
            .unwrap_or(now);
        self.wait_deadline.min(fit)
    }

    /// Records that a step of `chunk` took `took`.
    pub(super) fn record(&mut self, chunk: Chunk, took: Duration) {
        let l = self.longest.entry(chunk.kind).or_default();
        *l = (*l).max(took);
        self.ran.insert(chunk);
    }
}

/// How a campaign stopped on its time budget.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct BudgetStop {
    /// The budget (`--minutes`).
    pub(super) budget: Duration,
    /// Time from the campaign's start to the stop.
    pub(super) elapsed: Duration,
    /// The chunk that was next, and its expected time.
    pub(super) next: Chunk,
    /// The expected time of `next`.
    pub(super) estimate: Duration,
    /// Chunks that still lacked rows (in a wanted placement state) and
    /// were not run again.
    pub(super) skipped: usize,
    /// Of those, the chunks this campaign did not run at all (the others
    /// ran under load or found another placement state).
    pub(super) never_run: usize,
    /// Chunks in the plan.
    pub(super) planned: usize,
}

impl BudgetStop {
    /// One line for the log.
    pub(super) fn sentence(&self) -> String {
        format!(
            "stopped on the time budget ({}, {} spent): the next chunk ({} {}/{}) was expected to take {:.0} s; {} of {} chunks still lack rows and were skipped ({} not run at all); the campaign ends with the rows measured",
            minutes(self.budget),
            minutes(self.elapsed),
            self.next.kind,
            self.next.index,
            self.next.of,
            self.estimate.as_secs_f64(),
            self.skipped,
            self.planned,
            self.never_run
        )
    }
}

/// `d` in seconds below two minutes, else in minutes.
fn minutes(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.1} min", s / 60.0)
    }
}

/// Runs one chunk of a campaign.
pub(super) trait Runner {
    /// Which units have rows in which state so far.
    fn coverage(&self) -> &Coverage;
    /// Measures `chunk` asking for placement state `want`, waiting for a
    /// quiet machine until `wait_until` at most; returns whether it
    /// added rows.
    fn run(
        &mut self,
        round: u32,
        chunk: Chunk,
        want: &str,
        wait_until: Instant,
        log: &mut dyn FnMut(&str),
    ) -> Result<bool, Error>;
}

/// The states of `wanted` that `chunk` still lacks (`--quick`: `all`
/// until it has run once).
pub(super) fn lacking<'a>(
    o: &Options,
    cov: &Coverage,
    chunk: Chunk,
    wanted: &[&'a str],
) -> Vec<&'a str> {
    if o.quick {
        if cov.has_run(chunk) {
            Vec::new()
        } else {
            vec!["all"]
        }
    } else {
        cov.missing(chunk, wanted)
    }
}

/// Runs rounds over `chunks` until each has rows in every `wanted`
/// state, the rounds asked for are done, or the next chunk would not end
/// by the budget's deadline (then logs and returns how it stopped).
pub(super) fn rounds(
    o: &Options,
    runner: &mut dyn Runner,
    clock: &dyn Clock,
    budget: &mut Budget,
    chunks: &[Chunk],
    wanted: &[&str],
    log: &mut dyn FnMut(&str),
) -> Result<Option<BudgetStop>, Error> {
    let mut round = 0;
    loop {
        round += 1;
        if o.rounds.is_some_and(|r| round > r) {
            return Ok(None);
        }
        let mut progress = false;
        for &chunk in chunks {
            let missing = lacking(o, runner.coverage(), chunk, wanted);
            if missing.is_empty() {
                continue;
            }
            let now = clock.now();
            if !budget.fits(chunk, now) {
                let stop = stopped(o, runner.coverage(), budget, chunks, wanted, chunk, now);
                log(&stop.sentence());
                return Ok(Some(stop));
            }
            let want = match missing.len() {
                1 => missing[0],
                _ if o.quick => "all",
                _ => "any",
            };
            let wait_until = budget.wait_until(chunk, now);
            progress |= runner.run(round, chunk, want, wait_until, log)?;
            budget.record(chunk, clock.now().saturating_duration_since(now));
        }
        if o.quick
            || o.rounds.is_some_and(|r| round >= r)
            || chunks
                .iter()
                .all(|&c| runner.coverage().missing(c, wanted).is_empty())
        {
            return Ok(None);
        }
        if !progress {
            // The placement stays in the state we have; look again
            // later, not past the deadline.
            let left = budget.deadline().saturating_duration_since(clock.now());
            clock.sleep(left.min(Duration::from_secs(5)));
        }
    }
}

/// The stop before `next` at `now`.
fn stopped(
    o: &Options,
    cov: &Coverage,
    budget: &Budget,
    chunks: &[Chunk],
    wanted: &[&str],
    next: Chunk,
    now: Instant,
) -> BudgetStop {
    let skipped: Vec<Chunk> = chunks
        .iter()
        .copied()
        .filter(|&c| !lacking(o, cov, c, wanted).is_empty())
        .collect();
    BudgetStop {
        budget: budget.limit,
        elapsed: now.saturating_duration_since(budget.start),
        next,
        estimate: budget.estimate(next).unwrap_or_default(),
        never_run: skipped.iter().filter(|c| !budget.ran.contains(c)).count(),
        skipped: skipped.len(),
        planned: chunks.len(),
    }
}
