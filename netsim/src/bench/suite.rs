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

use mpi_layer::{
    CommId, MpiParams, Op, OpStream, Origin, ProgramError, ReqId, RunResults, Source, TagSel,
};
use scenarios::msglist::{MessageList, MessageListConfig, RecvOrder as ListOrder};
use scenarios::workloads::{
    Collective, Halo, Programs, RecvOrder, Stencil, ZhuPattern, collective, grid_dims,
    high_volume_ping_pong, random_pairs,
};
use sim_core::rand::Rng;
use sim_core::{Bandwidth, RngStreams, Time};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command as Process, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use topology::{
    Backbone, EthernetParams, IdealNetwork, InfinibandParams, Mapping, Mode, NetConfig, Network,
    NodeId, Placement, Sharing, TorusParams,
};

/// Options of the suite (flags of `netsim bench` itself).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SuiteArgs {
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

/// The child runs with a `ReportObserver` (`--observe-report`).
static OBSERVE_REPORT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// What the bench reads of a transport after a run besides the
/// results: the flow model's rate changes (none for the others).
pub(super) trait Counted: topology::Transport {
    fn rate_changes(&self) -> Option<u64> {
        None
    }
}

impl Counted for Network {
    fn rate_changes(&self) -> Option<u64> {
        self.flow_update_stats().map(|u| u.rate_changes)
    }
}

impl Counted for IdealNetwork {}

/// Runs one simulation, observed when `--observe-report` asked for it;
/// the results and the transport's rate changes ([`Counted`]).
fn simulate<T: Counted, S: OpStream>(
    pl: Placement,
    net: T,
    progs: Vec<S>,
    params: MpiParams,
) -> Result<(RunResults, Option<u64>), String> {
    if !OBSERVE_REPORT.load(std::sync::atomic::Ordering::Relaxed) {
        let sim = mpi_layer::Simulation::new(pl, net, progs, params).map_err(|e| e.to_string())?;
        let (r, net) = sim.run_observed(u64::MAX, |_, _| {});
        return Ok((r.map_err(|e| e.to_string())?, net.rate_changes()));
    }
    let obs = mpi_layer::ReportObserver::default();
    let sim = mpi_layer::Simulation::with_observer(pl, net, progs, params, obs)
        .map_err(|e| e.to_string())?;
    let (r, net, obs) = sim.run_full(u64::MAX, |_, _| {});
    let r = r.map_err(|e| e.to_string())?;
    if obs.results(r.events) != r {
        return Err("the observer's results differ from the built-in ones".into());
    }
    Ok((r, net.rate_changes()))
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

/// The workload that stands for every AMG level: its rows are
/// [`amg_levels`].
const AMG_LEVELS: &str = "amg-levels";

/// The rows of [`AMG_LEVELS`], one per level and kernel of the seed's
/// message lists (`shared/workloads/amg-elasticity`: SpMV has a level 6,
/// SpGEMM does not): (`amg-<kernel>-<level>`, kernel, level).
fn amg_levels() -> impl Iterator<Item = (String, &'static str, u32)> {
    let spmv = (0..=6).map(|l| ("spmv", l));
    spmv.chain((0..=5).map(|l| ("spgemm", l)))
        .map(|(k, l)| (format!("amg-{k}-{l}"), k, l))
}

/// The kernel and level of the [`AMG_LEVELS`] row `name`, if it is one.
fn amg_level(name: &str) -> Option<(&'static str, u32)> {
    amg_levels().find(|r| r.0 == name).map(|(_, k, l)| (k, l))
}

/// Figures one child reports.
#[derive(Clone, Debug, Default)]
pub(super) struct Figures {
    pub(super) messages: u64,
    pub(super) events: u64,
    pub(super) wall: f64,
    peak_kib: u64,
    pub(super) makespan: Time,
    /// Rate changes of the flow model (flow mode only).
    changes: Option<u64>,
}

/// Entry point of `netsim bench` without a subcommand.
pub fn run(a: SuiteArgs) -> Result<(), String> {
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
            return Err(format!("unknown workload `{o}` (netsim bench --list)"));
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
fn spawn(a: &SuiteArgs, name: &str, mode: &str, procs: u32) -> Result<Option<Figures>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    let mut cmd = Process::new(exe);
    cmd.args(["bench", "--child", name, "--mode", mode])
        .args(["--procs", &procs.to_string()])
        .args(a.quick.then_some("--quick"))
        .stdout(Stdio::piped());
    let mut ch = cmd
        .spawn()
        .map_err(|e| format!("cannot run benchmark child: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(a.timeout);
    let status = loop {
        if let Some(s) = ch.try_wait().map_err(|e| e.to_string())? {
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
        s.read_to_string(&mut out).map_err(|e| e.to_string())?;
    }
    if !status.success() {
        return Err(format!("benchmark child {name} ({mode}) failed: {status}"));
    }
    parse(&out)
        .ok_or_else(|| format!("benchmark child {name} ({mode}) printed no figures: {out}"))
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

fn child(a: &SuiteArgs, name: &str) -> Result<(), String> {
    let family = if amg_level(name).is_some() {
        AMG_LEVELS
    } else {
        name
    };
    let w = WORKLOADS
        .iter()
        .find(|w| w.name == family)
        .ok_or_else(|| format!("unknown workload `{name}`"))?;
    let p = match a.procs {
        0 if a.quick => w.procs.1,
        0 => w.procs.0,
        p => p,
    };
    let mode = match a.mode.as_str() {
        "packet" => Some(Mode::Packet),
        "flow" => Some(Mode::Flow),
        "ideal" => None,
        m => return Err(format!("unknown mode `{m}`")),
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

/// Builds and runs one workload; the wall time covers the simulation
/// only (building the programs and the machine is not counted).
fn figures(name: &str, p: u32, mode: Option<Mode>, quick: bool) -> Result<Figures, String> {
    let mode_or = |m: Option<Mode>| m.ok_or_else(|| format!("{name} needs a transport mode"));
    match name {
        "alltoall-switch" => {
            let nodes = p.div_ceil(8);
            let m = InfinibandParams::qdr(nodes)
                .build()
                .map_err(|e| e.to_string())?;
            let net =
                Network::new(m, NetConfig::with_mode(mode_or(mode)?)).map_err(|e| e.to_string())?;
            let progs = collective(Collective::Alltoall, p, 1024, 1);
            timed(
                Placement::block(p, 8, 1),
                net,
                progs,
                MpiParams::infiniband_qdr(),
            )
        }
        "alltoall-torus" => {
            let (pl, net) = per_gemini(p, mode_or(mode)?)?;
            timed(
                pl,
                net,
                collective(Collective::Alltoall, p, 1024, 1),
                MpiParams::blue_waters(),
            )
        }
        "halo27" | "halo27-512" => {
            let (pl, net) = per_gemini(p, mode_or(mode)?)?;
            let iters = if quick { 1 } else { 10 };
            timed(
                pl,
                net,
                halo27(p, iters).programs(),
                MpiParams::blue_waters(),
            )
        }
        "random-pairs" => {
            let m = TorusParams::blue_waters_dims(grid_dims(p.div_ceil(2)))
                .build()
                .map_err(|e| e.to_string())?;
            let nodes: Vec<NodeId> = (0..m.nodes()).map(NodeId).collect();
            let pl = Placement::map(p, &nodes, 1, 1, Mapping::Block).map_err(|e| e.to_string())?;
            let net =
                Network::new(m, NetConfig::with_mode(mode_or(mode)?)).map_err(|e| e.to_string())?;
            let rounds = if quick { 4 } else { 100 };
            timed(
                pl,
                net,
                random_pairs(p, rounds, 64 << 10, 1),
                MpiParams::blue_waters(),
            )
        }
        "pairs-1m" => {
            let msgs = if quick { 10_000 } else { 1_000_000 };
            timed(
                Placement::block(p, 16, 2),
                ideal(p.div_ceil(16)),
                pairs_posted(p, msgs),
                MpiParams::blue_waters(),
            )
        }
        "hvpp" => {
            let n = if quick { 1000 } else { 10_000 };
            timed(
                Placement::block(2, 16, 2),
                ideal(1),
                high_volume_ping_pong(2, &[(0, 1)], n, 8, RecvOrder::Reversed),
                MpiParams::blue_waters(),
            )
        }
        "allreduce" => timed(
            Placement::block(p, 16, 2),
            ideal(p.div_ceil(16)),
            collective(Collective::Allreduce, p, 8, 1),
            MpiParams::blue_waters(),
        ),
        "amg-spmv" | "amg-spgemm0" => {
            let file = if name == "amg-spmv" {
                format!("P{p}-level2-spmv.csv")
            } else {
                format!("P{p}-level0-spgemm.csv")
            };
            amg_run(p, &file, mode_or(mode)?)
        }
        "zhu" => zhu(mode_or(mode)?, quick),
        _ => match amg_level(name) {
            Some((kernel, level)) => amg_run(
                p,
                &format!("P{p}-level{level}-{kernel}.csv"),
                mode_or(mode)?,
            ),
            None => Err(format!("unknown workload `{name}`")),
        },
    }
}

/// The bench's 27-point halo: 4 KiB faces, 256 B edges, 16 B corners,
/// periodic, on the most cubic grid of `p` ranks.
pub(super) fn halo27(p: u32, iters: u32) -> Halo {
    Halo {
        dims: grid_dims(p),
        stencil: Stencil::Point27,
        face_bytes: 4096,
        edge_bytes: 256,
        corner_bytes: 16,
        periodic: true,
        iters,
        compute: Time::ZERO,
    }
}

/// The AMG message list `file` of `p` ranks (shared data,
/// found by `scenarios::shared`), 16 ranks per node on a Blue Waters torus
/// (8 x 8 x 4 from 8192 ranks, else 4 x 2 x 2) in `mode`.
pub(super) fn amg(
    p: u32,
    file: &str,
    mode: Mode,
) -> Result<(Placement, Network, MessageList), String> {
    let path = scenarios::shared::shared_path("workloads/amg-elasticity")?.join(file);
    let cfg = MessageListConfig {
        num_ranks: Some(p),
        recv_order: ListOrder::AsListed,
        tag: 0,
    };
    let list = MessageList::read(&path, &cfg).map_err(|e| e.to_string())?;
    let dims = if p >= 8192 { [8, 8, 4] } else { [4, 2, 2] };
    let m = TorusParams::blue_waters_dims(dims)
        .build()
        .map_err(|e| e.to_string())?;
    let nodes: Vec<NodeId> = (0..m.nodes()).map(NodeId).collect();
    let pl = Placement::map(p, &nodes, 16, 2, Mapping::Block).map_err(|e| e.to_string())?;
    let net = Network::new(m, NetConfig::with_mode(mode)).map_err(|e| e.to_string())?;
    Ok((pl, net, list))
}

/// Runs the AMG message list `file` of `p` ranks as [`amg`] sets it up.
fn amg_run(p: u32, file: &str, mode: Mode) -> Result<Figures, String> {
    let (pl, net, list) = amg(p, file, mode)?;
    let t = Instant::now();
    let r = simulate(pl, net, list.programs(), MpiParams::blue_waters())?;
    Ok(of(r, t))
}

fn of((r, changes): (RunResults, Option<u64>), t: Instant) -> Figures {
    Figures {
        messages: r.messages(),
        events: r.events,
        wall: t.elapsed().as_secs_f64(),
        peak_kib: 0,
        makespan: r.makespan,
        changes,
    }
}

pub(super) fn timed<T: Counted>(
    pl: Placement,
    net: T,
    progs: Programs,
    params: MpiParams,
) -> Result<Figures, String> {
    let name: Arc<str> = Arc::from("bench");
    let progs: Vec<Program> = progs
        .into_iter()
        .map(|mut ops| Program {
            ops: if ops.len() == 1 {
                Ops::One(ops.pop())
            } else {
                Ops::Many(ops.into_iter())
            },
            name: name.clone(),
            index: 0,
        })
        .collect();
    let t = Instant::now();
    let r = simulate(pl, net, progs, params)?;
    Ok(of(r, t))
}

/// A rank's program in the benchmarks: one shared name, and a program
/// of one operation (a collective) kept inline rather than in a vector of
/// its own, so that the harness does not dominate the memory per rank.
struct Program {
    ops: Ops,
    name: Arc<str>,
    index: u64,
}

enum Ops {
    One(Option<Op>),
    Many(std::vec::IntoIter<Op>),
}

impl OpStream for Program {
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        let op = match &mut self.ops {
            Ops::One(o) => o.take(),
            Ops::Many(it) => it.next(),
        };
        Ok(op.map(|op| {
            self.index += 1;
            (
                op,
                Origin {
                    source: self.name.clone(),
                    line: self.index,
                },
            )
        }))
    }
}

pub(super) fn ideal(nodes: u32) -> IdealNetwork {
    IdealNetwork::new(
        nodes,
        Time::from_ns(500),
        Bandwidth::bytes_per_sec(100_000_000_000),
    )
}

/// `p` ranks, one per Gemini of the most cubic Blue Waters torus of `p`
/// Geminis (the first node of each).
pub(super) fn per_gemini(p: u32, mode: Mode) -> Result<(Placement, Network), String> {
    let m = TorusParams::blue_waters_dims(grid_dims(p))
        .build()
        .map_err(|e| e.to_string())?;
    let nodes: Vec<NodeId> = (0..m.nodes()).step_by(2).map(NodeId).collect();
    let pl = Placement::map(p, &nodes, 1, 1, Mapping::Block).map_err(|e| e.to_string())?;
    let net = Network::new(m, NetConfig::with_mode(mode)).map_err(|e| e.to_string())?;
    Ok((pl, net))
}

/// `msgs` messages of 8 B between seeded random pairs of `p` ranks: every
/// rank posts all its isends, then all its irecvs, then waits for all.
fn pairs_posted(p: u32, msgs: u32) -> Programs {
    let mut rng = RngStreams::new(1).stream("pairs");
    let mut ops: Programs = vec![vec![]; p as usize];
    let mut recvs: Programs = vec![vec![]; p as usize];
    let mut next = vec![0u64; p as usize];
    for _ in 0..msgs {
        let a = rng.random_range(0..p);
        let b = rng.random_range(0..p);
        let q = next[a as usize];
        next[a as usize] += 1;
        ops[a as usize].push(Op::Isend {
            dst: b,
            tag: 0,
            bytes: 8,
            comm: CommId::WORLD,
            req: ReqId(q),
        });
        let q = next[b as usize];
        next[b as usize] += 1;
        recvs[b as usize].push(Op::Irecv {
            src: Source::Rank(a),
            tag: TagSel::Tag(0),
            bytes: 8,
            comm: CommId::WORLD,
            req: ReqId(q),
        });
    }
    ops.into_iter()
        .zip(recvs)
        .map(|(mut o, r)| {
            o.extend(r);
            o.push(Op::WaitallPending);
            o
        })
        .collect()
}

/// Zhu's random patterns, summed over all patterns.
fn zhu(mode: Mode, quick: bool) -> Result<Figures, String> {
    let nodes = 30u32;
    let patterns = if quick { 4 } else { 40 };
    let bytes: u64 = 10 << 20;
    let mut params = MpiParams::ethernet_zhu();
    params.eager_max = params.eager_max.max(bytes);
    let mut total = Figures::default();
    for d in 1..=3u32 {
        for k in 0..patterns {
            let pat = ZhuPattern::random(nodes, d, 2012, (nodes * 100 + d * 10) as u64 * 1000 + k);
            if pat.links.is_empty() {
                continue;
            }
            let mut ep = EthernetParams::zhu(Backbone::Optical, Sharing::Fair);
            ep.nodes_per_rack = nodes.div_ceil(2);
            let m = ep.build().map_err(|e| e.to_string())?;
            let net = Network::new(m, NetConfig::with_mode(mode)).map_err(|e| e.to_string())?;
            let placement = pat.placement(ep.sockets, ep.cores_per_socket);
            let f = timed(placement, net, pat.programs(bytes), params.clone())?;
            total.messages += f.messages;
            total.events += f.events;
            total.wall += f.wall;
            total.makespan = total.makespan.max(f.makespan);
            if let Some(c) = f.changes {
                *total.changes.get_or_insert(0) += c;
            }
        }
    }
    Ok(total)
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

fn scale(a: &SuiteArgs, wanted: &dyn Fn(&str) -> bool) -> Result<(), String> {
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
    std::fs::create_dir_all(&a.out).map_err(|e| e.to_string())?;
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
