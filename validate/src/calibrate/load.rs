//! The machine's load while a chunk runs: CPU time of every process
//! outside this command's process tree, from `/proc/stat` and
//! `/proc/self/stat`, as a share of all CPUs.

use crate::Error;

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

/// The machine's and this process tree's CPU time at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Whole machine.
    pub machine: MachineTicks,
    /// This process and its waited-for descendants.
    pub tree: u64,
}

impl Snapshot {
    /// Reads `/proc/stat` and `/proc/self/stat`.
    pub fn take() -> Result<Snapshot, Error> {
        let stat = std::fs::read_to_string("/proc/stat")
            .map_err(|e| Error::Input(format!("/proc/stat: {e} (the quiet check needs Linux)")))?;
        let own = std::fs::read_to_string("/proc/self/stat")
            .map_err(|e| Error::Input(format!("/proc/self/stat: {e}")))?;
        Ok(Snapshot {
            machine: parse_proc_stat(&stat)
                .ok_or_else(|| Error::input("/proc/stat: no `cpu` line"))?,
            tree: parse_tree_ticks(&own)
                .ok_or_else(|| Error::input("/proc/self/stat: unexpected layout"))?,
        })
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
