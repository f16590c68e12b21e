//! The machine's load while a chunk runs: CPU time of every process
//! outside this command's process tree, from `/proc/stat` and the
//! `/proc/<pid>/stat` of this process and its descendants, as a share of
//! all CPUs.
//!
//! A chunk's load is the load between a snapshot before it and one after
//! it. A row's load is the load over the row's own interval: a
//! [`Sampler`] takes a timestamped [`Snapshot`] every [`SAMPLE_PERIOD`]
//! while the chunk runs, the benchmark prints each row's start and end on
//! the same clock (`CLOCK_MONOTONIC`), and [`row_load`] takes the load
//! between the samples around the row, widened to [`ROW_WINDOW_MIN`].
//! Start with [`row_load`].

use crate::Error;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Time between two samples of a chunk's load. `/proc/stat` counts in
/// clock ticks of 10 ms (`USER_HZ` = 100 on Linux), so a shorter period
/// sees little more; one sample reads about a hundred small files here.
pub const SAMPLE_PERIOD: Duration = Duration::from_millis(100);

/// The shortest interval a row's load is measured over \[s\]: a row (a unit
/// of the benchmark, about 0.1 s) is widened on both sides to it. Every
/// counter of `/proc/stat` and `/proc/<pid>/stat` is cut to whole 10 ms
/// ticks, so over 1 s of 2 CPUs (200 ticks) the few ticks of error are a
/// few tenths of a percent each, well under the default `--max-busy` of
/// 5 %; a burst of load reaches the rows within 0.5 s of it.
pub const ROW_WINDOW_MIN: f64 = 1.0;

/// CPU time counters of the whole machine (the `cpu` line of
/// `/proc/stat`) [clock ticks].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MachineTicks {
    /// user + nice + system + irq + softirq (guest time is inside user).
    pub busy: u64,
    /// Time the hypervisor ran something else on our CPUs.
    pub steal: u64,
    /// Every counter (busy, idle, iowait, steal).
    pub total: u64,
}

/// Reads the `cpu` line of `/proc/stat`.
pub fn parse_proc_stat(text: &str) -> Option<MachineTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal [guest guest_nice]
    if v.len() < 8 {
        return None;
    }
    Some(MachineTicks {
        busy: v[0] + v[1] + v[2] + v[5] + v[6],
        steal: v[7],
        total: v[..8].iter().sum(),
    })
}

/// utime + stime + cutime + cstime of a `/proc/<pid>/stat` text: the CPU
/// time of a process and of every descendant it has waited for [clock
/// ticks].
pub fn parse_tree_ticks(text: &str) -> Option<u64> {
    // The command name (field 2) may hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| f.get(n - 3)?.parse::<u64>().ok();
    Some(field(14)? + field(15)? + field(16)? + field(17)?)
}

/// One process of a `/proc` scan: its id, its parent's and its CPU time
/// with that of the children it has waited for ([`parse_tree_ticks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcTicks {
    /// Process id.
    pub pid: i32,
    /// Parent's process id.
    pub ppid: i32,
    /// utime + stime + cutime + cstime [clock ticks].
    pub ticks: u64,
    /// Ended, not yet waited for by its parent.
    pub zombie: bool,
}

/// Reads the pid, the parent's pid and the ticks of a `/proc/<pid>/stat`.
pub fn parse_proc_ticks(text: &str) -> Option<ProcTicks> {
    let pid = text.split_whitespace().next()?.parse().ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    let mut f = rest.split_whitespace();
    let zombie = f.next()? == "Z";
    let ppid = f.next()?.parse().ok()?;
    Some(ProcTicks {
        pid,
        ppid,
        ticks: parse_tree_ticks(text)?,
        zombie,
    })
}

/// The CPU time of `root` and of every descendant in `procs` [clock
/// ticks]. A descendant that ended still counts: until its parent waits
/// for it, it is a zombie whose `/proc/<pid>/stat` keeps its time; after,
/// its time is in the parent's `cutime`. So the sum only grows while the
/// tree runs, as long as every process that ends is waited for inside
/// the tree (MPICH's proxy waits for its ranks, `mpirun` for its proxy,
/// netsim for `mpirun`).
pub fn tree_ticks(root: i32, procs: &[ProcTicks]) -> u64 {
    tree_of(root, procs).iter().map(|p| p.ticks).sum()
}

/// `root` and its descendants in `procs`.
fn tree_of(root: i32, procs: &[ProcTicks]) -> Vec<ProcTicks> {
    let mut pids = vec![root];
    let mut tree = Vec::new();
    let mut i = 0;
    while i < pids.len() {
        let pid = pids[i];
        for p in procs {
            if p.pid == pid {
                tree.push(*p);
            } else if p.ppid == pid && !pids.contains(&p.pid) {
                pids.push(p.pid);
            }
        }
        i += 1;
    }
    tree
}

/// Every process's [`ProcTicks`], zombies included.
fn scan_procs() -> Vec<ProcTicks> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|s| parse_proc_ticks(&s))
        .collect()
}

/// `CLOCK_MONOTONIC` \[s\]: the clock the benchmark stamps its rows with.
pub fn monotonic_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own and nothing else.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// The machine's and this process tree's CPU time at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Whole machine.
    pub machine: MachineTicks,
    /// This process and its descendants ([`tree_ticks`]).
    pub tree: u64,
}

impl Snapshot {
    /// Reads `/proc/stat`, `/proc/self/stat` and the stat of every
    /// descendant of this process (the chunk's launcher and ranks).
    pub fn take() -> Result<Snapshot, Error> {
        Ok(Snapshot::take_tree()?.0)
    }

    /// [`Snapshot::take`], and the processes of the tree.
    fn take_tree() -> Result<(Snapshot, Vec<ProcTicks>), Error> {
        let stat = std::fs::read_to_string("/proc/stat")
            .map_err(|e| Error::Input(format!("/proc/stat: {e} (the quiet check needs Linux)")))?;
        let own = std::fs::read_to_string("/proc/self/stat")
            .map_err(|e| Error::Input(format!("/proc/self/stat: {e}")))?;
        let own = parse_proc_ticks(&own)
            .ok_or_else(|| Error::input("/proc/self/stat: unexpected layout"))?;
        let mut procs = scan_procs();
        procs.retain(|p| p.pid != own.pid);
        procs.push(own);
        let tree = tree_of(own.pid, &procs);
        let snap = Snapshot {
            machine: parse_proc_stat(&stat)
                .ok_or_else(|| Error::input("/proc/stat: no `cpu` line"))?,
            tree: tree.iter().map(|p| p.ticks).sum(),
        };
        Ok((snap, tree))
    }
}

/// A [`Snapshot`] and when it was taken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// [`monotonic_s`] when taken \[s\].
    pub t: f64,
    /// The CPU time counters then.
    pub snap: Snapshot,
    /// Whether the tree's time is whole: no process of the tree is a
    /// zombie and none of the previous sample's has gone. While the
    /// launcher and ranks end, a scan may read a parent before it waits
    /// for a child and the child after (its time counted by neither) or
    /// the reverse (twice); a row's load is never taken at such a sample.
    pub settled: bool,
}

impl Sample {
    /// Takes one now; `before` holds the tree's pids at the previous
    /// sample and is updated.
    fn take(before: &mut Vec<i32>) -> Result<Sample, Error> {
        let t = monotonic_s();
        let (snap, tree) = Snapshot::take_tree()?;
        let pids: Vec<i32> = tree.iter().map(|p| p.pid).collect();
        let settled = !tree.iter().any(|p| p.zombie) && before.iter().all(|p| pids.contains(p));
        *before = pids;
        Ok(Sample { t, snap, settled })
    }
}

/// Samples every [`SAMPLE_PERIOD`] on a thread of its own, from
/// [`Sampler::start`] (which takes the first) to [`Sampler::stop`]
/// (which takes the last): the load of a chunk and of each of its rows.
#[derive(Debug)]
pub struct Sampler {
    first: Sample,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<Sample>>,
}

impl Sampler {
    /// Takes the first sample and starts sampling.
    pub fn start() -> Result<Sampler, Error> {
        let mut pids = Vec::new();
        let first = Sample::take(&mut pids)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut v = Vec::new();
            loop {
                std::thread::sleep(SAMPLE_PERIOD);
                if flag.load(Ordering::Relaxed) {
                    return v;
                }
                // A failed read leaves a longer gap, nothing worse.
                if let Ok(s) = Sample::take(&mut pids) {
                    v.push(s);
                }
            }
        });
        Ok(Sampler {
            first,
            stop,
            thread,
        })
    }

    /// Stops sampling, takes the last sample (after the chunk's command
    /// was waited for: settled) and returns them all, in time order.
    pub fn stop(self) -> Result<Vec<Sample>, Error> {
        self.stop.store(true, Ordering::Relaxed);
        let mid = self.thread.join().unwrap_or_default();
        let mut last = Sample::take(&mut Vec::new())?;
        last.settled = true;
        let mut v = Vec::with_capacity(mid.len() + 2);
        v.push(self.first);
        v.extend(mid);
        v.push(last);
        Ok(v)
    }
}

/// CPU use outside this process tree between two snapshots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Load {
    /// Busy time of other processes [percent of all CPUs].
    pub others_pct: f64,
    /// Steal time [percent of all CPUs].
    pub steal_pct: f64,
}

/// The load between `a` and `b` (`b` later).
pub fn load_between(a: &Snapshot, b: &Snapshot) -> Load {
    let total = b.machine.total.saturating_sub(a.machine.total).max(1) as f64;
    let busy = b.machine.busy.saturating_sub(a.machine.busy) as f64;
    let tree = b.tree.saturating_sub(a.tree) as f64;
    let steal = b.machine.steal.saturating_sub(a.machine.steal) as f64;
    Load {
        others_pct: 100.0 * (busy - tree).max(0.0) / total,
        steal_pct: 100.0 * steal / total,
    }
}

/// The load over a row measured from `t0` to `t1` (on the samples'
/// clock), from `samples` in time order: between the last settled sample
/// at or before the interval's start and the first settled one at or
/// after its end, the interval first widened evenly to `min_window`
/// seconds. Near the chunk's start or end the widening stops at the
/// first or last sample.
/// None when the row does not lie within the samples (its clock is not
/// theirs, e.g. rank 0 on another host) or `t1 < t0`.
pub fn row_load(samples: &[Sample], t0: f64, t1: f64, min_window: f64) -> Option<Load> {
    let (first, last) = (samples.first()?, samples.last()?);
    if !(t0 <= t1 && first.t <= t0 && t1 <= last.t) {
        return None;
    }
    let pad = 0.5 * (min_window - (t1 - t0)).max(0.0);
    let (from, to) = ((t0 - pad).max(first.t), (t1 + pad).min(last.t));
    let a = samples.iter().rev().find(|s| s.settled && s.t <= from)?;
    let b = samples.iter().find(|s| s.settled && s.t >= to)?;
    Some(load_between(&a.snap, &b.snap))
}
