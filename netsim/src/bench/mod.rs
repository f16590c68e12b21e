//! `netsim bench`: benchmark programs that print figures. Nothing here
//! asserts a speed; machines are shared and noisy, so compare figures as
//! ratios within one run.
//!
//! `netsim bench` alone runs the fixed set of issue 7 ([`suite`]); the
//! subcommands are the engine and network micro-benchmarks.

use crate::cli::CliError;
use clap::Subcommand;
use std::process::Command as Process;
use topology::Mode;

pub(crate) mod lookahead;
pub(crate) mod net;
pub(crate) mod suite;
mod workloads;

pub(crate) use suite::SuiteArgs;

#[derive(Subcommand)]
pub(crate) enum BenchCommand {
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
    /// Cross-partition event distances of the packet model on the torus
    /// workloads and of the ideal network on the allreduce (the lookahead a parallel run could use; see
    /// docs/PARALLEL.md). Instrumentation, not a speed benchmark.
    Lookahead {
        /// Workloads: alltoall-torus, halo27-512, random-pairs, amg-spmv,
        /// halo27, allreduce (ideal network, P = 65 536), allreduce-torus.
        #[arg(long, value_delimiter = ',', default_values_t = lookahead::WORKLOADS.map(String::from))]
        only: Vec<String>,
        /// Partition schemes: node, router, block, half.
        #[arg(long, value_delimiter = ',', default_values_t = lookahead::SCHEMES.map(String::from))]
        schemes: Vec<String>,
        /// After each row, the distances per power-of-two bin of ns.
        #[arg(long)]
        histogram: bool,
    },
    /// Random permutation traffic on a Blue Waters Gemini torus (every
    /// node sends one message), in the packet and the flow model, each in
    /// a fresh process.
    Net {
        /// Torus size in Geminis, X,Y,Z (two nodes per Gemini).
        #[arg(long, value_delimiter = ',', default_values_t = [16u32, 16, 16])]
        dims: Vec<u32>,
        /// Bytes per message.
        #[arg(long, default_value_t = 65536)]
        bytes: u64,
        /// Packet payload \[bytes\] (packet model).
        #[arg(long, default_value_t = topology::DEFAULT_PACKET_BYTES)]
        packet: u64,
        /// Master seed of the permutation.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Packet model with finite link buffers and backpressure.
        #[arg(long)]
        backpressure: bool,
        /// Models to run: packet, flow.
        #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Mode::Packet, Mode::Flow])]
        mode: Vec<Mode>,
        /// Run one model in this process (used by the parent run).
        #[arg(long, hide = true)]
        child: bool,
    },
}

/// `netsim bench [FLAGS] [SUBCOMMAND]`: without a subcommand, the fixed
/// set of workloads ([`suite`]).
pub(crate) fn run(args: SuiteArgs, cmd: Option<BenchCommand>) -> Result<(), CliError> {
    let Some(cmd) = cmd else {
        return suite::run(args);
    };
    match cmd {
        BenchCommand::Lookahead {
            only,
            schemes,
            histogram,
        } => lookahead::report(&only, &schemes, histogram),
        BenchCommand::Net {
            dims,
            bytes,
            packet,
            seed,
            backpressure,
            mode,
            child,
        } => net_bench(dims, bytes, packet, seed, backpressure, mode, child),
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
                    "{:>8} {:>10} {:>12} {:>10.3} {:>14.0} {:>14} {:>12} {:>20}",
                    if handles { "handle" } else { "post" },
                    r.pending,
                    r.events,
                    r.wall_secs,
                    r.events_per_sec(),
                    r.events_per_cpu_sec()
                        .map_or("n/a".into(), |e| format!("{e:.0}")),
                    peak_rss_kib().map_or("n/a".into(), |k| format!("{:.1}", k as f64 / 1024.0)),
                    r.checksum
                );
                return Ok(());
            }
            println!(
                "hold model: exponential hold times (mean 1 us), seed {seed}, release build recommended"
            );
            println!(
                "{:>8} {:>10} {:>12} {:>10} {:>14} {:>14} {:>12} {:>20}",
                "events",
                "pending",
                "handled",
                "wall [s]",
                "events/s",
                "per cpu s",
                "peak [MiB]",
                "checksum"
            );
            println!(
                "(post: no cancellation handle; handle: cancellable. per cpu s: events per CPU second of the process, steadier than wall time on a shared machine)"
            );
            let exe = std::env::current_exe()
                .map_err(|e| CliError::input(format!("cannot find own executable: {e}")))?;
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
                        .map_err(|e| CliError::input(format!("cannot run benchmark child: {e}")))?;
                    if !status.success() {
                        return Err(CliError::input(format!(
                            "benchmark child for n = {size} failed: {status}"
                        )));
                    }
                }
            }
            Ok(())
        }
    }
}

fn net_bench(
    dims: Vec<u32>,
    bytes: u64,
    packet: u64,
    seed: u64,
    backpressure: bool,
    modes: Vec<Mode>,
    child: bool,
) -> Result<(), CliError> {
    let [x, y, z] = dims[..] else {
        return Err(CliError::input(format!(
            "--dims needs three sizes, got {dims:?}"
        )));
    };
    if child {
        let mode = modes[0];
        let r = net::run_net([x, y, z], bytes, seed, mode, packet, backpressure)?;
        let touched = r.touched.map_or("-".into(), |(u, mean, max)| {
            format!("{u} upd, mean {mean:.0}, max {max}")
        });
        println!(
            "{:>7} {:>8} {:>11} {:>9.3} {:>12.0} {:>11} {:>10} {:>20}  {}",
            modes[0],
            r.messages,
            r.events,
            r.wall_secs,
            r.events as f64 / r.wall_secs,
            r.makespan.to_string(),
            peak_rss_kib().map_or("n/a".into(), |k| format!("{:.1}", k as f64 / 1024.0)),
            r.checksum,
            touched
        );
        return Ok(());
    }
    println!(
        "random permutation, {x}x{y}x{z} Geminis ({} nodes), {bytes} B per message, packet {packet} B, seed {seed}{}",
        2 * x as u64 * y as u64 * z as u64,
        if backpressure { ", backpressure" } else { "" }
    );
    println!(
        "{:>7} {:>8} {:>11} {:>9} {:>12} {:>11} {:>10} {:>20}  flows per update",
        "mode", "messages", "events", "wall [s]", "events/s", "makespan", "peak [MiB]", "checksum",
    );
    let exe = std::env::current_exe()
        .map_err(|e| CliError::input(format!("cannot find own executable: {e}")))?;
    for m in modes {
        let status = Process::new(&exe)
            .args(["bench", "net", "--child", "--mode", &m.to_string()])
            .args([
                "--dims",
                &format!("{x},{y},{z}"),
                "--bytes",
                &bytes.to_string(),
            ])
            .args(["--packet", &packet.to_string(), "--seed", &seed.to_string()])
            .args(backpressure.then_some("--backpressure"))
            .status()
            .map_err(|e| CliError::input(format!("cannot run benchmark child: {e}")))?;
        if !status.success() {
            return Err(CliError::input(format!(
                "benchmark child for mode {m} failed: {status}"
            )));
        }
    }
    Ok(())
}

/// Peak resident set size of this process \[KiB\] (Linux `VmHWM`).
pub(crate) fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
