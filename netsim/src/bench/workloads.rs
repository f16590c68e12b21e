//! The workloads of `netsim bench`, as a child process runs them: each
//! builds its programs and machine, then times the simulation alone.

use crate::cli::CliError;
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
use std::sync::Arc;
use std::time::Instant;
use topology::{
    Backbone, EthernetParams, IdealNetwork, InfinibandParams, Mapping, Mode, NetConfig, Network,
    NodeId, Placement, Sharing, TorusParams,
};

/// The workload that stands for every AMG level: its rows are
/// [`amg_levels`].
pub(super) const AMG_LEVELS: &str = "amg-levels";

/// The rows of [`AMG_LEVELS`], one per level and kernel of the seed's
/// message lists (`shared/workloads/amg-elasticity`: SpMV has a level 6,
/// SpGEMM does not): (`amg-<kernel>-<level>`, kernel, level).
pub(super) fn amg_levels() -> impl Iterator<Item = (String, &'static str, u32)> {
    let spmv = (0..=6).map(|l| ("spmv", l));
    spmv.chain((0..=5).map(|l| ("spgemm", l)))
        .map(|(k, l)| (format!("amg-{k}-{l}"), k, l))
}

/// The kernel and level of the [`AMG_LEVELS`] row `name`, if it is one.
pub(super) fn amg_level(name: &str) -> Option<(&'static str, u32)> {
    amg_levels().find(|r| r.0 == name).map(|(_, k, l)| (k, l))
}

/// Figures one child reports.
#[derive(Clone, Debug, Default)]
pub(super) struct Figures {
    pub(super) messages: u64,
    pub(super) events: u64,
    pub(super) wall: f64,
    pub(super) peak_kib: u64,
    pub(super) makespan: Time,
    /// Rate changes of the flow model (flow mode only).
    pub(super) changes: Option<u64>,
}

/// The child runs with a `ReportObserver` (`--observe-report`).
pub(super) static OBSERVE_REPORT: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

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
) -> Result<(RunResults, Option<u64>), CliError> {
    if !OBSERVE_REPORT.load(std::sync::atomic::Ordering::Relaxed) {
        let sim = mpi_layer::Simulation::new(pl, net, progs, params).map_err(CliError::input)?;
        let (r, net) = sim.run_observed(u64::MAX, |_, _| {});
        return Ok((r.map_err(CliError::input)?, net.rate_changes()));
    }
    let obs = mpi_layer::ReportObserver::default();
    let sim = mpi_layer::Simulation::with_observer(pl, net, progs, params, obs)
        .map_err(CliError::input)?;
    let (r, net, obs) = sim.run_full(u64::MAX, |_, _| {});
    let r = r.map_err(CliError::input)?;
    if obs.results(r.events) != r {
        return Err("the observer's results differ from the built-in ones".into());
    }
    Ok((r, net.rate_changes()))
}

/// Builds and runs one workload; the wall time covers the simulation
/// only (building the programs and the machine is not counted).
pub(super) fn figures(
    name: &str,
    p: u32,
    mode: Option<Mode>,
    quick: bool,
) -> Result<Figures, CliError> {
    let mode_or = |m: Option<Mode>| {
        m.ok_or_else(|| CliError::input(format!("{name} needs a transport mode")))
    };
    match name {
        "alltoall-switch" => {
            let nodes = p.div_ceil(8);
            let m = InfinibandParams::qdr(nodes)
                .build()
                .map_err(CliError::input)?;
            let net =
                Network::new(m, NetConfig::with_mode(mode_or(mode)?)).map_err(CliError::input)?;
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
                .map_err(CliError::input)?;
            let nodes: Vec<NodeId> = (0..m.nodes()).map(NodeId).collect();
            let pl = Placement::map(p, &nodes, 1, 1, Mapping::Block).map_err(CliError::input)?;
            let net =
                Network::new(m, NetConfig::with_mode(mode_or(mode)?)).map_err(CliError::input)?;
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
            None => Err(CliError::input(format!("unknown workload `{name}`"))),
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
) -> Result<(Placement, Network, MessageList), CliError> {
    let path = scenarios::shared::shared_path("workloads/amg-elasticity")?.join(file);
    let cfg = MessageListConfig {
        num_ranks: Some(p),
        recv_order: ListOrder::AsListed,
        tag: 0,
    };
    let list = MessageList::read(&path, &cfg).map_err(CliError::input)?;
    let dims = if p >= 8192 { [8, 8, 4] } else { [4, 2, 2] };
    let m = TorusParams::blue_waters_dims(dims)
        .build()
        .map_err(CliError::input)?;
    let nodes: Vec<NodeId> = (0..m.nodes()).map(NodeId).collect();
    let pl = Placement::map(p, &nodes, 16, 2, Mapping::Block).map_err(CliError::input)?;
    let net = Network::new(m, NetConfig::with_mode(mode)).map_err(CliError::input)?;
    Ok((pl, net, list))
}

/// Runs the AMG message list `file` of `p` ranks as [`amg`] sets it up.
fn amg_run(p: u32, file: &str, mode: Mode) -> Result<Figures, CliError> {
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
) -> Result<Figures, CliError> {
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
pub(super) fn per_gemini(p: u32, mode: Mode) -> Result<(Placement, Network), CliError> {
    let m = TorusParams::blue_waters_dims(grid_dims(p))
        .build()
        .map_err(CliError::input)?;
    let nodes: Vec<NodeId> = (0..m.nodes()).step_by(2).map(NodeId).collect();
    let pl = Placement::map(p, &nodes, 1, 1, Mapping::Block).map_err(CliError::input)?;
    let net = Network::new(m, NetConfig::with_mode(mode)).map_err(CliError::input)?;
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
fn zhu(mode: Mode, quick: bool) -> Result<Figures, CliError> {
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
            let m = ep.build().map_err(CliError::input)?;
            let net = Network::new(m, NetConfig::with_mode(mode)).map_err(CliError::input)?;
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
