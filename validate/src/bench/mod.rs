//! `netsim bench`: benchmark programs that print figures. Nothing here
//! asserts a speed; machines are shared and noisy, so compare figures as
//! ratios within one run.

use clap::Subcommand;
use std::process::Command as Process;

#[derive(Subcommand)]
pub enum BenchCommand {
    /// The hold model on the bare event engine: N pending events, each
    /// handled event schedules one more after an exponential delay
    /// (mean 1 us). Each N runs in a fresh process so its peak memory is
    /// its own.
    Engine {
        /// Queue sizes to measure.
        #[arg(long, value_delimiter = ',', default_values_t = [1_000usize, 100_000, 1_000_000])]
        n: Vec<usize>,
        /// Events handled per size (after filling the queue).
        #[arg(long, default_value_t = 5_000_000)]
        events: u64,
        /// Master seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Run one size in this process (used by the parent run).
        #[arg(long, hide = true)]
        child: bool,
        /// In a child: schedule with cancellation handles.
        #[arg(long, hide = true)]
        handles: bool,
    },
}

pub fn run(cmd: BenchCommand) -> Result<(), String> {
    match cmd {
        BenchCommand::Engine {
            n,
            events,
            seed,
            child,
            handles,
        } => {
            if child {
                let r = sim_core::hold::run_hold(n[0], events, seed, handles);
                println!(
                    "{:>8} {:>10} {:>12} {:>10.3} {:>14.0} {:>12} {:>20}",
                    if handles { "handle" } else { "post" },
                    r.pending,
                    r.events,
                    r.wall_secs,
                    r.events_per_sec(),
                    peak_rss_kib().map_or("n/a".into(), |k| format!("{:.1}", k as f64 / 1024.0)),
                    r.checksum
                );
                return Ok(());
            }
            println!(
                "hold model: exponential hold times (mean 1 us), seed {seed}, release build recommended"
            );
            println!(
                "{:>8} {:>10} {:>12} {:>10} {:>14} {:>12} {:>20}",
                "events", "pending", "handled", "wall [s]", "events/s", "peak [MiB]", "checksum"
            );
            println!(
                "(post: no cancellation handle, plain heap; handle: cancellable, indexed heap)"
            );
            let exe =
                std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
            for size in n {
                for handles in [false, true] {
                    let mut cmd = Process::new(&exe);
                    cmd.args(["bench", "engine", "--child", "--n", &size.to_string()])
                        .args(["--events", &events.to_string(), "--seed", &seed.to_string()]);
                    if handles {
                        cmd.arg("--handles");
                    }
                    let status = cmd
                        .status()
                        .map_err(|e| format!("cannot run benchmark child: {e}"))?;
                    if !status.success() {
                        return Err(format!("benchmark child for n = {size} failed: {status}"));
                    }
                }
            }
            Ok(())
        }
    }
}

/// Peak resident set size of this process [KiB] (Linux `VmHWM`).
pub fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
