//! `netsim bench` (no subcommand): the fixed set of workloads of issue 7,
//! each in its own child process so that its peak memory is its own.
//!
//! Per workload and transport mode the child prints one `RESULT` line
//! (simulated messages, engine events, wall time, peak RSS, makespan,
//! and in flow mode the rate changes of the max-min answer, the count
//! that a flow row's cost follows: `topology::UpdateStats::rate_changes`);
//! the parent turns those into the table, derives events/s and
//! messages/s, and (with `--scale`) draws events/s and memory against the
//! number of ranks as SVG. A child that runs past `--timeout` is killed
//! and reported as such.

use super::workloads::{
    AMG_LEVELS, Figures, OBSERVE_REPORT, amg_level, amg_levels, figures, ideal, timed,
};
use crate::cli::CliError;
use mpi_layer::MpiParams;
use scenarios::workloads::{Collective, collective};
use sim_core::Time;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};
use topology::{Mode, Placement};

/// Options of the suite (flags of `netsim bench` itself).
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct SuiteArgs {
    /// Run only these workloads (comma-separated names; `--list` shows them).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Small sizes (seconds in all; what the smoke test runs).
    #[arg(long)]
    pub quick: bool,
    /// Scaling curves: events/s and peak memory as P grows, printed and
    /// drawn as SVG into `--out`.
    #[arg(long)]
    pub scale: bool,
    /// Directory for the SVG figures of `--scale`.
    #[arg(long, default_value = "target/bench")]
    pub out: PathBuf,
    /// Kill a workload's child process after this many seconds.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    /// List the workloads and exit.
    #[arg(long)]
    pub list: bool,
    /// Run one workload in this process (used by the parent run).
    #[arg(long, hide = true)]
    pub child: Option<String>,
    /// In a child: transport mode (packet, flow, ideal).
    #[arg(long, hide = true, default_value = "ideal")]
    pub mode: String,
    /// In a child: number of ranks (0: the workload's own).
    #[arg(long, hide = true, default_value_t = 0)]
    pub procs: u32,
    /// In a child: attach `mpi_layer::ReportObserver` (what building the
    /// report through the observer seam would cost).
    #[arg(long, hide = true)]
    pub observe_report: bool,
}

/// A workload of the fixed set.
struct Workload {
    name: &'static str,
    about: &'static str,
    /// Transport modes it runs in (`ideal`: a network without topology).
    modes: &'static [&'static str],
    /// Ranks of the full and of the quick run.
    procs: (u32, u32),
    /// Rank counts of the scaling curve (empty: not part of `--scale`).
    scale: &'static [u32],
}

const PT: &[&str] = &["packet", "flow"];
const IDEAL: &[&str] = &["ideal"];
const SMALL_SCALE: &[u32] = &[64, 256, 1024, 4096, 8192];

const WORKLOADS: &[Workload] = &[
    Workload {
        name: "alltoall-switch",
        about: "pairwise alltoall 1 KiB, one InfiniBand QDR switch, 8 ranks per node",
        modes: PT,
        procs: (1024, 64),
        scale: SMALL_SCALE,
    },
    Workload {
        name: "alltoall-torus",
        about: "pairwise alltoall 1 KiB, one rank per Gemini of a Blue Waters torus (P = 512: 8x8x8)",
        modes: PT,
        procs: (512, 64),
        scale: &[],
    },
    Workload {
        name: "halo27-512",
        about: "27-point halo (4 KiB faces, 256 B edges, 16 B corners), 10 iterations, one rank per Gemini (8x8x8)",
        modes: PT,
        procs: (512, 64),
        scale: &[],
    },
    Workload {
        name: "halo27",
        about: "27-point halo as above, 10 iterations, P = 4096 on a 16x16x16 torus (quick: 1 iteration)",
        modes: PT,
        procs: (4096, 64),
        scale: SMALL_SCALE,
    },
    Workload {
        name: "random-pairs",
        about: "random pairs, 100 rounds x 64 KiB, one rank per node of a Blue Waters torus (P = 1024: 8x8x8)",
        modes: PT,
        procs: (1024, 64),
        scale: SMALL_SCALE,
    },
    Workload {
        name: "pairs-1m",
        about: "1 M messages (8 B) between random pairs, all posted at once, ideal network (quick: 10 k)",
        modes: IDEAL,
        procs: (1024, 64),
        scale: &[],
    },
    Workload {
        name: "hvpp",
        about: "HighVolumePingPong n = 10000, 8 B, reversed tags, ideal network (quick: n = 1000)",
        modes: IDEAL,
        procs: (2, 2),
        scale: &[],
    },
    Workload {
        name: "allreduce",
        about: "recursive-doubling allreduce 8 B, 16 ranks per node, ideal network",
        modes: IDEAL,
        procs: (1 << 20, 1 << 10),
        scale: &[64, 256, 1024, 4096, 16384, 65536, 262_144, 1_048_576],
    },
    Workload {
        name: "amg-spmv",
        about: "AMG elasticity level-2 SpMV, P = 8192 on an 8x8x4 Blue Waters torus, 16 per node (quick: P = 512, 4x2x2)",
        modes: PT,
        procs: (8192, 512),
        scale: &[],
    },
    Workload {
        name: "amg-spgemm0",
        about: "AMG elasticity level-0 SpGEMM (large messages, many concurrent flows), as amg-spmv",
        modes: PT,
        procs: (8192, 512),
        scale: &[],
    },
    Workload {
        name: AMG_LEVELS,
        about: "every AMG elasticity level as amg-spmv, one row each: SpMV 0-6 (amg-spmv-L), SpGEMM 0-5 (amg-spgemm-L); amg-spmv-2 and amg-spgemm-0 run amg-spmv and amg-spgemm0 again",
        modes: PT,
        procs: (8192, 512),
        scale: &[],
    },
    Workload {
        name: "zhu",
        about: "Zhu's random patterns (Sec. 7): 30 nodes, d = 1, 2, 3, 40 patterns each, 10 MiB, fair sharing (quick: 4 each)",
        modes: PT,
        procs: (0, 0),
        scale: &[],
    },
];

/// Entry point of `netsim bench` without a subcommand.
pub(crate) fn run(a: SuiteArgs) -> Result<(), CliError> {
    if let Some(name) = a.child.clone() {
        return child(&a, &name);
    }
    if a.list {
        for w in WORKLOADS {
            println!("{:<16} [{}] {}", w.name, w.modes.join(", "), w.about);
        }
        println!(
            "{:<16} [ideal] points/s of run_parallel on 1 and 2 threads",
            "sweep"
        );
        return Ok(());
    }
    for o in &a.only {
        if o != "sweep" && !WORKLOADS.iter().any(|w| w.name == o) {
            return Err(CliError::input(format!(
                "unknown workload `{o}` (netsim bench --list)"
            )));
        }
    }
    let wanted = |n: &str| a.only.is_empty() || a.only.iter().any(|o| o == n);
    if a.scale {
        return scale(&a, &wanted);
    }
    println!(
        "netsim bench{}: each workload in its own process, single-threaded; peak = peak RSS of that process",
        if a.quick { " --quick" } else { "" }
    );
    header();
    for w in WORKLOADS.iter().filter(|w| wanted(w.name)) {
        let p = if a.quick { w.procs.1 } else { w.procs.0 };
        let names: Vec<String> = if w.name == AMG_LEVELS {
            amg_levels().map(|r| r.0).collect()
        } else {
            vec![w.name.to_string()]
        };
        for name in &names {
            for m in w.modes {
                match spawn(&a, name, m, p)? {
                    Some(f) => row(name, p, m, &f),
                    None => println!(
                        "{:<16} {:>8} {:>7}  did not finish in {} s (killed)",
                        name, p, m, a.timeout
                    ),
                }
            }
        }
    }
    if wanted("sweep") {
        sweep_ratio(a.quick);
    }
    Ok(())
}

fn header() {
    println!(
        "{:<16} {:>8} {:>7} {:>10} {:>11} {:>9} {:>11} {:>11} {:>10} {:>14} {:>12}",
        "workload",
        "P",
        "mode",
        "messages",
        "events",
        "wall [s]",
        "events/s",
        "msgs/s",
        "peak [MiB]",
        "makespan",
        "rate chg"
    );
}

fn row(name: &str, p: u32, mode: &str, f: &Figures) {
    println!(
        "{:<16} {:>8} {:>7} {:>10} {:>11} {:>9.3} {:>11.0} {:>11.0} {:>10.1} {:>14} {:>12}",
        name,
        p,
        mode,
        f.messages,
        f.events,
        f.wall,
        f.events as f64 / f.wall,
        f.messages as f64 / f.wall,
        f.peak_kib as f64 / 1024.0,
        f.makespan.to_string(),
        f.changes.map_or("-".to_string(), |c| c.to_string())
    );
}

/// Runs one workload in a child process; `None` if it timed out.
fn spawn(a: &SuiteArgs, name: &str, mode: &str, procs: u32) -> Result<Option<Figures>, CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::input(format!("cannot find own executable: {e}")))?;
    let mut cmd = Process::new(exe);
    cmd.args(["bench", "--child", name, "--mode", mode])
        .args(["--procs", &procs.to_string()])
        .args(a.quick.then_some("--quick"))
        .stdout(Stdio::piped());
    let mut ch = cmd
        .spawn()
        .map_err(|e| CliError::input(format!("cannot run benchmark child: {e}")))?;
    let deadline = Instant::now() + Duration::from_secs(a.timeout);
    let status = loop {
        if let Some(s) = ch.try_wait().map_err(CliError::input)? {
            break s;
        }
        if Instant::now() > deadline {
            // Our own child, by its handle.
            let _ = ch.kill();
            let _ = ch.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::new();
    if let Some(mut s) = ch.stdout.take() {
        s.read_to_string(&mut out).map_err(CliError::input)?;
    }
    if !status.success() {
        return Err(CliError::input(format!(
            "benchmark child {name} ({mode}) failed: {status}"
        )));
    }
    parse(&out)
        .ok_or_else(|| {
            CliError::input(format!(
                "benchmark child {name} ({mode}) printed no figures: {out}"
            ))
        })
        .map(Some)
}

fn parse(out: &str) -> Option<Figures> {
    let line = out.lines().find(|l| l.starts_with("RESULT "))?;
    let v: Vec<&str> = line.split_whitespace().skip(1).collect();
    Some(Figures {
        messages: v.first()?.parse().ok()?,
        events: v.get(1)?.parse().ok()?,
        wall: v.get(2)?.parse().ok()?,
        peak_kib: v.get(3)?.parse().ok()?,
        makespan: Time::from_ps(v.get(4)?.parse().ok()?),
        changes: v.get(5)?.parse().ok(),
    })
}

// ----- the children ----------------------------------------------------

fn child(a: &SuiteArgs, name: &str) -> Result<(), CliError> {
    let family = if amg_level(name).is_some() {
        AMG_LEVELS
    } else {
        name
    };
    let w = WORKLOADS
        .iter()
        .find(|w| w.name == family)
        .ok_or_else(|| CliError::input(format!("unknown workload `{name}`")))?;
    let p = match a.procs {
        0 if a.quick => w.procs.1,
        0 => w.procs.0,
        p => p,
    };
    let mode = match a.mode.as_str() {
        "packet" => Some(Mode::Packet),
        "flow" => Some(Mode::Flow),
        "ideal" => None,
        m => return Err(CliError::input(format!("unknown mode `{m}`"))),
    };
    OBSERVE_REPORT.store(a.observe_report, std::sync::atomic::Ordering::Relaxed);
    let f = figures(name, p, mode, a.quick)?;
    println!(
        "RESULT {} {} {:.6} {} {} {}",
        f.messages,
        f.events,
        f.wall,
        super::peak_rss_kib().unwrap_or(0),
        f.makespan.as_ps(),
        f.changes.map_or("-".to_string(), |c| c.to_string())
    );
    Ok(())
}

// ----- sweeps on all cores ----------------------------------------------

/// Points per second of [`scenarios::sweep::run_parallel`] on one thread
/// and on every core, over independent small simulations (alltoall,
/// P = 256, ideal network).
fn sweep_ratio(quick: bool) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let n = if quick { 4 } else { 16 };
    let pts: Vec<scenarios::sweep::Point> = (0..n)
        .map(|index| scenarios::sweep::Point {
            index,
            assignment: Vec::new(),
        })
        .collect();
    let work = |pt: &scenarios::sweep::Point| {
        let p = if quick { 64 } else { 256 };
        let f = timed(
            Placement::block(p, 16, 2),
            ideal(p / 16),
            collective(Collective::Alltoall, p, 1024 + pt.index as u64, 1),
            MpiParams::blue_waters(),
        )
        .expect("alltoall runs");
        f.events
    };
    let mut rate = Vec::new();
    for threads in [1, cores] {
        let t = Instant::now();
        let r = scenarios::sweep::run_parallel(&pts, threads, work);
        let secs = t.elapsed().as_secs_f64();
        rate.push(n as f64 / secs);
        println!(
            "sweep: {n} points (alltoall P = {}, ideal) on {threads} thread(s): {secs:.3} s, {:.2} points/s, {} events",
            if quick { 64 } else { 256 },
            n as f64 / secs,
            r.iter().sum::<u64>()
        );
    }
    println!(
        "sweep: {} cores run {:.2} x the points per second of one",
        cores,
        rate[1] / rate[0]
    );
}

// ----- scaling curves ---------------------------------------------------

fn scale(a: &SuiteArgs, wanted: &dyn Fn(&str) -> bool) -> Result<(), CliError> {
    use crate_plot::{Figure, Series, Style};
    println!("netsim bench --scale: events/s and peak memory as P grows");
    header();
    let mut ev_series = Vec::new();
    let mut mem_series = Vec::new();
    for w in WORKLOADS
        .iter()
        .filter(|w| !w.scale.is_empty() && wanted(w.name))
    {
        let mode = w.modes[0];
        let (mut ev, mut mem) = (Vec::new(), Vec::new());
        for &p in w.scale {
            if a.quick && p > 4096 {
                continue;
            }
            match spawn(a, w.name, mode, p)? {
                Some(f) => {
                    row(w.name, p, mode, &f);
                    ev.push((p as f64, f.events as f64 / f.wall));
                    mem.push((p as f64, f.peak_kib as f64 / 1024.0));
                }
                None => println!("{:<16} {:>8} {:>7}  timed out", w.name, p, mode),
            }
        }
        let name = format!("{} ({mode})", w.name);
        ev_series.push(Series {
            name: name.clone(),
            points: ev,
            style: Style::Line,
        });
        mem_series.push(Series {
            name,
            points: mem,
            style: Style::Line,
        });
    }
    std::fs::create_dir_all(&a.out).map_err(CliError::input)?;
    let figs = [
        (
            "bench-scale-events.svg",
            "events handled per second",
            "events/s",
            ev_series,
        ),
        (
            "bench-scale-memory.svg",
            "peak memory of the process",
            "peak RSS [MiB]",
            mem_series,
        ),
    ];
    for (file, title, y, series) in figs {
        let f = Figure {
            title: format!("netsim bench --scale: {title}"),
            x_label: "ranks P".into(),
            y_label: y.into(),
            log_x: true,
            log_y: true,
            series,
        };
        let path = a.out.join(file);
        f.write_svg(&path)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

use validate::plot as crate_plot;
