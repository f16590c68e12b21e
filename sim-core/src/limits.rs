//! The limits every user input is checked against: one policy for every
//! reader (CSV message lists, GOAL, native, TI and DUMPI traces), scenario
//! files and the command line.
//!
//! Simulated time is a `u64` of picoseconds ([`Time`]): about 1.8e7 s.
//! The limits below keep every quantity a run derives from its input (a
//! message's time on a link, a sum of computations, a collective's bytes
//! times its ranks) far inside that range, so that arithmetic on them
//! cannot overflow, and keep the memory a run needs per rank and per node
//! within what one machine holds. Readers check counts, sizes, times and
//! ranks when they parse them and name the file and line (or the
//! parameter) and the limit; what can only be known while running (a sum
//! of many computations) is caught by [`MAX_SIM_TIME`], the horizon at
//! which a run stops with an error instead of printing a saturated time.
//!
//! Memory: every quantity a user value multiplies into memory (sweep
//! points, link-series bins, a built-in workload's operations) is
//! estimated before it is allocated and checked with [`check_memory`]
//! against [`memory_limit`]: the machine's available memory, or the
//! limit the command line set ([`set_memory_limit`], `--max-memory`).

use crate::time::{PS_PER_SEC, Time};
use std::sync::atomic::{AtomicU64, Ordering};

/// The largest number of ranks of one run: 4,194,304 (2^22).
///
/// A rank costs about 470 bytes of simulation state plus its program
/// (measured: 4,194,304 idle ranks of a CSV message list on the ideal
/// machine peak at 1.9 GB), so this keeps a run within a few GB. Ranks
/// are `u32` in the MPI layer; a rank number must be below this.
pub const MAX_RANKS: u32 = 1 << 22;

/// Simulation state per rank, without its program: 470 bytes (the
/// measurement under [`MAX_RANKS`]); the estimate a run's ranks are held
/// to the memory limit with.
pub const BYTES_PER_RANK: u64 = 470;

/// The largest number of nodes (hosts) of a machine: 4,194,304 (2^22),
/// the same as [`MAX_RANKS`] (at one rank per node, every rank has a
/// node). Checked from the family's sizes (torus dimensions times nodes
/// per router, racks times nodes per rack, `nodes`) before any vertex is
/// allocated.
pub const MAX_NODES: u32 = 1 << 22;

/// The largest number of routers of a torus: 1,048,576 (2^20; Blue
/// Waters has 12,696). Each router has a vertex, seven link pairs and its
/// coordinates.
pub const MAX_ROUTERS: u64 = 1 << 20;

/// The largest next-hop table of table routing (Ethernet racks, machine
/// files): switches times hosts entries of 4 bytes, 2^28 entries (1 GiB).
/// Ten thousand racks of ten thousand nodes would need 4e8 GB.
pub const MAX_ROUTE_TABLE_ENTRIES: u64 = 1 << 28;

/// The largest message, and the largest per-rank size of a collective:
/// 1 TiB (2^40 bytes).
///
/// At 1 GB/s such a message takes 1,100 s (1.1e15 ps), four orders of
/// magnitude below the `u64` picosecond range, and times a full
/// [`MAX_RANKS`] collective its bytes (2^62) still fit a `u64`. MPI's own
/// counts are `int` elements (2^31 times the datatype size).
pub const MAX_MESSAGE_BYTES: u64 = 1 << 40;

/// The longest simulated time a run may reach, and the longest single
/// computation, sleep or time parameter: 10^6 s (about 11.6 days),
/// 1e18 ps, a factor 18 below the `u64` picosecond range (1.8e19 ps), so
/// that a time below it plus any one step derived from limited inputs
/// cannot wrap.
///
/// A run whose next event lies beyond this stops with an error naming
/// the limit (`RunError::TimeLimit` in the MPI layer).
pub const MAX_SIM_TIME: Time = Time::from_ps(1_000_000 * PS_PER_SEC);

/// The longest single duration read from input (a `compute`, a `sleep`,
/// a scenario's time parameter): [`MAX_SIM_TIME`].
pub const MAX_DURATION: Time = MAX_SIM_TIME;

/// A value beyond one of the limits above, or an estimate beyond the
/// memory limit; the message names the limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// More ranks than [`MAX_RANKS`].
    #[error("{0} ranks exceeds the limit of {MAX_RANKS} ranks (netsim's MAX_RANKS)")]
    Ranks(u64),
    /// A rank number not below [`MAX_RANKS`].
    #[error(
        "rank {0} exceeds the limit of {MAX_RANKS} ranks (netsim's MAX_RANKS; ranks are 0..{MAX_RANKS})"
    )]
    Rank(u64),
    /// More nodes than [`MAX_NODES`].
    #[error("{0} nodes exceeds the limit of {MAX_NODES} nodes (netsim's MAX_NODES)")]
    Nodes(u64),
    /// A size above [`MAX_MESSAGE_BYTES`].
    #[error(
        "{0} bytes exceeds the limit of {MAX_MESSAGE_BYTES} bytes (1 TiB, netsim's MAX_MESSAGE_BYTES)"
    )]
    Bytes(u64),
    /// A duration above [`MAX_DURATION`].
    #[error(
        "{} ps exceeds the limit of {} ps (10^6 s, netsim's MAX_DURATION)",
        .0.as_ps(),
        MAX_DURATION.as_ps()
    )]
    Duration(Time),
    /// An estimate above the [`memory_limit`] ([`check_memory`]); boxed,
    /// so that the other variants (and the errors that hold one) stay
    /// small.
    #[error(transparent)]
    Memory(Box<MemoryExcess>),
}

/// What [`check_memory`] refused: the estimate, the limit and the option
/// to change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} needs about {}, more than the {} {origin}; {remedy}, or raise the limit with --max-memory",
    bytes_text(*estimate),
    bytes_text(*limit)
)]
pub struct MemoryExcess {
    /// What needs the memory (`a sweep of 10^9 points`).
    pub what: String,
    /// The estimate, in bytes.
    pub estimate: u64,
    /// The limit, in bytes.
    pub limit: u64,
    /// Where the limit comes from ([`memory_limit`]).
    pub origin: &'static str,
    /// The option to change.
    pub remedy: String,
}

/// Checks a rank count against [`MAX_RANKS`]; the error names the limit.
pub fn check_ranks(n: u64) -> Result<(), LimitError> {
    if n > MAX_RANKS as u64 {
        return Err(LimitError::Ranks(n));
    }
    Ok(())
}

/// Checks a rank number (0-based) against [`MAX_RANKS`].
pub fn check_rank(r: u64) -> Result<(), LimitError> {
    if r >= MAX_RANKS as u64 {
        return Err(LimitError::Rank(r));
    }
    Ok(())
}

/// Checks a node count against [`MAX_NODES`].
pub fn check_nodes(n: u64) -> Result<(), LimitError> {
    if n > MAX_NODES as u64 {
        return Err(LimitError::Nodes(n));
    }
    Ok(())
}

/// Checks a message size against [`MAX_MESSAGE_BYTES`].
pub fn check_bytes(b: u64) -> Result<(), LimitError> {
    if b > MAX_MESSAGE_BYTES {
        return Err(LimitError::Bytes(b));
    }
    Ok(())
}

/// Checks a duration against [`MAX_DURATION`].
pub fn check_duration(t: Time) -> Result<(), LimitError> {
    if t > MAX_DURATION {
        return Err(LimitError::Duration(t));
    }
    Ok(())
}

/// The limit `--max-memory` set, in bytes (0: none set).
static MEMORY_LIMIT: AtomicU64 = AtomicU64::new(0);

/// The limit assumed when the machine does not say how much memory it
/// has (no `/proc/meminfo`): 8 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 8 << 30;

/// Sets the memory limit [`check_memory`] holds estimates to (the
/// command line's `--max-memory`), instead of the machine's.
pub fn set_memory_limit(bytes: u64) {
    MEMORY_LIMIT.store(bytes.max(1), Ordering::Relaxed);
}

/// The memory a run may use, in bytes, and where that number comes from:
/// the limit set by [`set_memory_limit`], else `MemAvailable` of
/// `/proc/meminfo` (the memory the kernel can give without swapping),
/// else its `MemTotal`, else [`DEFAULT_MEMORY_LIMIT`].
pub fn memory_limit() -> (u64, &'static str) {
    let set = MEMORY_LIMIT.load(Ordering::Relaxed);
    if set > 0 {
        return (set, "set by --max-memory");
    }
    let info = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    for (key, source) in [
        (
            "MemAvailable:",
            "available on this machine (MemAvailable, /proc/meminfo)",
        ),
        ("MemTotal:", "of this machine (MemTotal, /proc/meminfo)"),
    ] {
        if let Some(kb) = meminfo_kb(&info, key) {
            return (kb.saturating_mul(1024), source);
        }
    }
    (
        DEFAULT_MEMORY_LIMIT,
        "assumed (this system has no /proc/meminfo)",
    )
}

/// The value of `key` (`MemAvailable:`) in a `/proc/meminfo` text, in kB.
fn meminfo_kb(info: &str, key: &str) -> Option<u64> {
    let rest = info.lines().find_map(|l| l.strip_prefix(key))?;
    rest.split_whitespace().next()?.parse().ok()
}

/// A byte count for messages: `3.46 GB`, `423 MB`, `12 kB`, `80 B`.
pub fn bytes_text(b: u64) -> String {
    let f = b as f64;
    match b {
        0..1_000 => format!("{b} B"),
        1_000..1_000_000 => format!("{:.0} kB", f / 1e3),
        1_000_000..1_000_000_000 => format!("{:.0} MB", f / 1e6),
        _ => format!("{:.2} GB", f / 1e9),
    }
}

/// Checks that `estimate` bytes (of `what`, e.g. "a sweep of 10^9
/// points") fit the [`memory_limit`]; the error gives the estimate, the
/// limit and where it comes from, and `remedy` (the option to change).
pub fn check_memory(what: &str, estimate: u64, remedy: &str) -> Result<(), LimitError> {
    let (limit, source) = memory_limit();
    if estimate <= limit {
        return Ok(());
    }
    Err(LimitError::Memory(Box::new(MemoryExcess {
        what: what.to_string(),
        estimate,
        limit,
        origin: source,
        remedy: remedy.to_string(),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_leave_room_in_u64_picoseconds() {
        // A limited message at 1 MB/s still fits below the horizon's slack.
        let t = crate::transfer_time(
            MAX_MESSAGE_BYTES,
            crate::Bandwidth::bytes_per_sec(1_000_000),
        );
        assert!(t.as_ps() < u64::MAX - MAX_SIM_TIME.as_ps());
        // Per-rank bytes times every rank fits a u64.
        assert!(MAX_MESSAGE_BYTES.checked_mul(MAX_RANKS as u64).is_some());
        assert!(MAX_SIM_TIME.as_ps().checked_mul(16).is_some());
    }

    #[test]
    fn memory_limit_reads_meminfo_and_the_override() {
        let info = "MemTotal:       32000000 kB\nMemAvailable:   21000000 kB\n";
        assert_eq!(meminfo_kb(info, "MemAvailable:"), Some(21_000_000));
        assert_eq!(meminfo_kb(info, "Cached:"), None);
        assert_eq!(bytes_text(3_460_000_000), "3.46 GB");
        assert_eq!(bytes_text(999), "999 B");
        set_memory_limit(1_000_000);
        assert_eq!(memory_limit(), (1_000_000, "set by --max-memory"));
        let e = check_memory("a sweep of 10 points", 2_000_000, "use fewer --vary values")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "about 2 MB, more than the 1 MB set by --max-memory; use fewer --vary values"
            ),
            "{e}"
        );
        assert!(check_memory("x", 1_000_000, "").is_ok());
    }

    #[test]
    fn checks_name_the_limit() {
        assert!(
            check_rank(4_294_967_295)
                .unwrap_err()
                .to_string()
                .contains("MAX_RANKS")
        );
        assert!(check_rank(MAX_RANKS as u64 - 1).is_ok());
        assert!(check_ranks(MAX_RANKS as u64).is_ok());
        assert!(
            check_nodes(1 << 30)
                .unwrap_err()
                .to_string()
                .contains("MAX_NODES")
        );
        assert!(check_bytes(MAX_MESSAGE_BYTES).is_ok());
        assert_eq!(
            check_duration(Time::MAX).unwrap_err().to_string(),
            format!(
                "{} ps exceeds the limit of 1000000000000000000 ps (10^6 s, netsim's MAX_DURATION)",
                u64::MAX
            )
        );
        assert_eq!(
            check_rank(1 << 22).unwrap_err().to_string(),
            "rank 4194304 exceeds the limit of 4194304 ranks (netsim's MAX_RANKS; ranks are 0..4194304)"
        );
        assert!(
            check_bytes(u64::MAX)
                .unwrap_err()
                .to_string()
                .contains("MAX_MESSAGE_BYTES")
        );
        assert!(
            check_duration(Time::MAX)
                .unwrap_err()
                .to_string()
                .contains("MAX_DURATION")
        );
    }
}
