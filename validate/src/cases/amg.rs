//! Bienz et al. Section 5 (Figs. 10, 11): one SpMV and one SpGEMM on every
//! level of an AMG hierarchy (`shared/workloads/amg-elasticity/`), 8192
//! processes on 512 Blue Waters nodes at 16 per node, simulated beside the
//! paper's model terms: max-rate (eq. 2), queue search (eq. 3) and
//! contention (eqs. 5-7).

use super::{Case, Opts};
use crate::Error;
use crate::models::bienz;
use crate::suite::{Check, Row};
use mpi_layer::{MpiParams, params::BLUE_WATERS_DELTA};
use std::path::Path;

use scenarios::TraceReader;
use scenarios::msglist::{MessageList, MessageListConfig, RecvOrder};
use topology::{Mapping, Mode, NetConfig, Network, NodeId, Placement, TorusParams};

pub(super) fn cases() -> Vec<Case> {
    vec![Case {
        name: "amg",
        about: "SpMV and SpGEMM on every AMG level (Bienz Figs. 10, 11), P = 8192 on 512 Blue Waters nodes: simulated vs max-rate + queue search + contention",
        run: amg,
    }]
}

/// How far the maximum search of a level may move when the receives are
/// reversed: Bienz et al. Sec. 5 measured it "constant"; the factor is our
/// tolerance for "about".
const REVERSE_FACTOR: f64 = 1.5;

/// The model of one phase, per Bienz et al.: the slowest process's max-rate
/// and queue-search time, plus the contention penalty.
struct Terms {
    max_rate: f64,
    queue: f64,
    contention: f64,
}

fn model(
    list: &MessageList,
    placement: &Placement,
    net: &Network,
    params: &MpiParams,
    ppn: u32,
) -> Terms {
    let p = list.num_ranks() as usize;
    let (mut mr, mut recvs) = (vec![0.0f64; p], vec![0u64; p]);
    let (mut hops, mut inter_msgs, mut inter_bytes) = (0u64, 0u64, 0u64);
    for (s, d, b) in list.messages() {
        let loc = placement.locality(s, d);
        let proto = params.protocol(b);
        let pp = params.postal(proto, loc);
        mr[s as usize] += if loc == topology::Locality::OtherNode {
            let (ns, nd) = (placement.node(s), placement.node(d));
            hops += net.machine().hops(ns, nd) as u64;
            inter_msgs += 1;
            inter_bytes += b;
            // Table 1: R_N limits rendezvous only ("inf" for short, eager).
            bienz::max_rate(pp.alpha, pp.rate, bienz::table1_r_n(proto), ppn, b)
        } else {
            bienz::postal(pp.alpha, pp.rate, b)
        };
        recvs[d as usize] += 1;
    }
    let slowest = (0..p)
        .max_by(|&a, &b| {
            let ta = mr[a] + bienz::queue_search(params.gamma_posted.gamma, recvs[a]);
            let tb = mr[b] + bienz::queue_search(params.gamma_posted.gamma, recvs[b]);
            ta.total_cmp(&tb)
        })
        .unwrap_or(0);
    // eq. 7: h = average hops per inter-node message, b = average bytes a
    // process sends off-node.
    let h = if inter_msgs > 0 {
        hops as f64 / inter_msgs as f64
    } else {
        0.0
    };
    let b = inter_bytes as f64 / p as f64;
    Terms {
        max_rate: mr[slowest],
        queue: bienz::queue_search(params.gamma_posted.gamma, recvs[slowest]),
        contention: bienz::contention(BLUE_WATERS_DELTA, h, b, ppn),
    }
}

/// Per-rank elements visited in either match queue: the search work each
/// process does on its core.
struct Visits(Vec<u64>);

impl mpi_layer::Observer for Visits {
    fn search(&mut self, s: &mpi_layer::Search) {
        self.0[s.rank as usize] += s.visited;
    }
}

/// One run of a phase: its results and every rank's elements visited.
fn run_phase(
    list: &MessageList,
    placement: &Placement,
    dims: [u32; 3],
    params: &MpiParams,
) -> Result<(mpi_layer::RunResults, Vec<u64>), Error> {
    let machine = TorusParams::blue_waters_dims(dims)
        .build()
        .map_err(Error::case)?;
    let net = Network::new(machine, NetConfig::with_mode(Mode::Packet)).map_err(Error::case)?;
    let programs = list.programs();
    let visits = Visits(vec![0; list.num_ranks() as usize]);
    let sim = mpi_layer::Simulation::with_observer(
        placement.clone(),
        net,
        programs,
        params.clone(),
        visits,
    )
    .map_err(|e| Error::case(format!("amg: {e}")))?;
    let (r, _, visits) = sim.run_full(u64::MAX, |_, _| {});
    Ok((r.map_err(|e| Error::case(format!("amg: {e}")))?, visits.0))
}

/// The rank that finishes last (the critical process), lowest on ties.
fn critical(r: &mpi_layer::RunResults) -> usize {
    let last = r.finish.iter().max().copied().unwrap_or_default();
    r.finish.iter().position(|&f| f == last).unwrap_or(0)
}

fn amg(o: Opts<'_>) -> Result<Vec<Row>, Error> {
    let params = MpiParams::blue_waters();
    let gamma = params.gamma_posted.gamma.as_secs_f64();
    let ppn: u32 = 16;
    // 512 nodes = 256 Geminis: an 8 x 8 x 4 torus of Blue Waters
    // parameters. Quick: the three coarsest levels, whose lists are short;
    // still P = 8192, the run the paper measured (its statements about
    // measured times hold for that run, not for a smaller one). The
    // what-if rows (matcher, receive order) run on level 2 SpMV, the
    // level the paper's queue-search statement is about; quick runs them
    // on level 4.
    let (procs, dims, levels, whatif): (u32, [u32; 3], Vec<u32>, u32) = if o.quick {
        (8192, [8, 8, 4], vec![4, 5, 6], 4)
    } else {
        (8192, [8, 8, 4], (0..=6).collect(), 2)
    };
    let dir = scenarios::shared::shared_path("workloads/amg-elasticity")
        .map_err(|e| Error::case(format!("amg: {e}")))?;
    let mut rows = Vec::new();
    // Per kind: simulated, max-rate, + queue search, + contention by level.
    let mut fig: [[Vec<(f64, f64)>; 4]; 2] = Default::default();
    let coarsest = *levels.last().expect("levels");
    for level in levels {
        for (ki, kind) in ["spmv", "spgemm"].into_iter().enumerate() {
            // The coarsest level has no SpGEMM (nothing is coarser).
            if kind == "spgemm" && level == coarsest {
                continue;
            }
            let path = dir.join(format!("P{procs}-level{level}-{kind}.csv"));
            if !path.is_file() {
                return Err(Error::case(format!("amg: {} is missing", path.display())));
            }
            let cfg = MessageListConfig {
                num_ranks: Some(procs),
                recv_order: RecvOrder::AsListed,
                tag: 0,
            };
            let list = MessageList::read(&path, &cfg).map_err(Error::case)?;
            // Packet mode only: on the finest levels (hundreds of
            // thousands of large concurrent messages) the flow model's
            // max-min updates are too slow for the suite's time budget.
            let machine = TorusParams::blue_waters_dims(dims)
                .build()
                .map_err(Error::case)?;
            let nodes: Vec<NodeId> = (0..machine.nodes()).map(NodeId).collect();
            let net =
                Network::new(machine, NetConfig::with_mode(Mode::Packet)).map_err(Error::case)?;
            let placement = Placement::map(procs, &nodes, ppn as u16, 2, Mapping::Block)
                .map_err(Error::case)?;
            let terms = model(&list, &placement, &net, &params, ppn);
            drop(net);
            let start = std::time::Instant::now();
            let (r, visits) = run_phase(&list, &placement, dims, &params)?;
            let wall = start.elapsed().as_secs_f64();
            let sim = r.makespan.as_secs_f64();
            let full = terms.max_rate + terms.queue + terms.contention;
            let x = level as f64;
            fig[ki][0].push((x, sim));
            fig[ki][1].push((x, terms.max_rate));
            fig[ki][2].push((x, terms.max_rate + terms.queue));
            fig[ki][3].push((x, full));
            let crit = critical(&r);
            let max_visits = visits.iter().copied().max().unwrap_or(0);
            // Sec. 5: the full model "over-predicts" only because it takes
            // the search's upper bound n (n + 1) / 2, where the measured
            // maximum search "was consistently around n*n/3": the measured
            // time is at least max-rate + one third of the queue term
            // (eq. 3, gamma n^2), on the middle levels (2-4) whose cost
            // the paper says queue search dominates. On the finest and
            // coarsest levels (0-1, 5-6) the paper's text gives no such
            // share, only that max-rate "captures only a fraction" of the
            // measured time and the full model over-predicts: max-rate <=
            // sim <= full there. Slack below: LogGP's first byte (a
            // process pushes its n messages' bytes as (s - 1) / R_b each,
            // eq. 2's serial sum has s / R_b), under 0.2 %.
            let middle = (2..=4).contains(&level);
            let low = if middle {
                terms.max_rate + terms.queue / 3.0
            } else {
                terms.max_rate
            };
            let floor = if middle {
                "max-rate + queue/3"
            } else {
                "max-rate"
            };
            rows.push(
                Row::new(
                    "amg",
                    format!("level {level} {kind}: {floor} <= sim <= max-rate + queue search + contention"),
                    sim,
                    full,
                    "s",
                    Check::Between {
                        low,
                        below: 2e-3,
                        above: 0.0,
                    },
                )
                .note(format!(
                    "{} messages; terms: max-rate {:.3e} s, queue search {:.3e} s, contention {:.3e} s; critical rank {crit} visits {} elements ({:.3e} s of search), busiest {} ({:.3e} s); {:.2} s wall",
                    list.num_messages(),
                    terms.max_rate,
                    terms.queue,
                    terms.contention,
                    visits[crit],
                    visits[crit] as f64 * gamma,
                    max_visits,
                    max_visits as f64 * gamma,
                    wall
                )),
            );
            if level == whatif && kind == "spmv" {
                let phase = Phase {
                    level,
                    kind,
                    path: &path,
                    cfg: &cfg,
                    list: &list,
                    placement: &placement,
                    dims,
                    sim,
                    max_rate: terms.max_rate,
                    visits: &visits,
                    crit,
                };
                rows.extend(whatif_rows(&phase, &params)?);
            }
        }
    }
    if let Some(dir) = o.figures {
        write_figures(dir, procs, &fig)?;
    }
    Ok(rows)
}

/// One simulated phase (a level's SpMV or SpGEMM), for the what-if rows
/// that rerun it.
struct Phase<'a> {
    level: u32,
    kind: &'a str,
    path: &'a Path,
    cfg: &'a MessageListConfig,
    list: &'a MessageList,
    placement: &'a Placement,
    dims: [u32; 3],
    /// Its simulated time \[s\].
    sim: f64,
    /// Its max-rate term \[s\].
    max_rate: f64,
    visits: &'a [u64],
    /// The critical process.
    crit: usize,
}

/// The what-if rows of Sec. 5 on one phase: a hashed matcher, and the
/// receive order reversed or shuffled.
fn whatif_rows(phase: &Phase<'_>, params: &MpiParams) -> Result<Vec<Row>, Error> {
    let &Phase {
        level,
        kind,
        path,
        cfg,
        list,
        placement,
        dims,
        sim,
        max_rate,
        visits,
        crit,
    } = phase;
    let gamma = params.gamma_posted.gamma.as_secs_f64();
    let max_visits = visits.iter().copied().max().unwrap_or(0);
    let mut rows = Vec::new();
    // The queue what-if (Sec. 5: the search is the majority of the
    // middle levels' cost, "motivating efforts for minimizing" it):
    // a hashed matcher must save at least half the search the
    // linear run's critical process does (gamma times its elements
    // visited), and cannot take the run below max-rate.
    let hashed = MpiParams {
        matcher: mpi_layer::MatcherKind::Hashed,
        ..params.clone()
    };
    let (rh, _) = run_phase(list, placement, dims, &hashed)?;
    let saved = sim - rh.makespan.as_secs_f64();
    let crit_search = visits[crit] as f64 * gamma;
    rows.push(
        Row::new(
            "amg",
            format!("level {level} {kind}: linear - hashed matcher >= half the critical process's search"),
            saved,
            sim - max_rate * (1.0 - 2e-3),
            "s",
            Check::Between {
                low: 0.5 * crit_search,
                below: 0.0,
                above: 0.0,
            },
        )
        .note(format!(
            "linear {sim:.4e} s, hashed {:.4e} s: {:.1} % faster; the critical process (rank {crit}) searches {crit_search:.3e} s, the busiest {:.3e} s; bound above: down to max-rate",
            rh.makespan.as_secs_f64(),
            100.0 * saved / sim,
            max_visits as f64 * gamma
        )),
    );
    // Reversing the receive order moves the maximum search to
    // another process "but this cost stays constant" (Sec. 5).
    // Here every process starts the phase at the same instant and
    // sends in list order, so arrivals come in an order tied to the
    // listed one; a seeded shuffle of the receives stands for a
    // machine whose arrival order is unrelated to it.
    let max_of = |order: RecvOrder| -> Result<(u64, usize, f64), Error> {
        let l = MessageList::read(
            path,
            &MessageListConfig {
                recv_order: order,
                ..*cfg
            },
        )
        .map_err(Error::case)?;
        let (r, v) = run_phase(&l, placement, dims, params)?;
        let m = v.iter().copied().max().unwrap_or(0);
        Ok((
            m,
            v.iter().position(|&x| x == m).unwrap_or(0),
            r.makespan.as_secs_f64(),
        ))
    };
    let (rev_max, rev_arg, rev_time) = max_of(RecvOrder::Reversed)?;
    let (shuf_max, shuf_arg, shuf_time) = max_of(RecvOrder::Shuffled { seed: 1 })?;
    let (other_max, other_arg, _) = max_of(RecvOrder::Shuffled { seed: 2 })?;
    let arg = visits.iter().position(|&v| v == max_visits).unwrap_or(0);
    rows.push(
        Row::new(
            "amg",
            format!("level {level} {kind}: max search, reversed / listed receive order (measured: constant)"),
            rev_max as f64 / max_visits.max(1) as f64,
            1.0,
            "",
            Check::Explained,
        )
        .note(format!(
            "not the paper's machine: every simulated process starts the phase at the same instant and posts its sends in list order, so arrivals follow the listed order and reversing the receives turns the worst order into nearly the best (listed: rank {arg} visits {max_visits}; reversed: rank {rev_arg} visits {rev_max}; makespans {sim:.4e} and {rev_time:.4e} s); the two rows below take an order unrelated to the arrivals"
        )),
    );
    // With receives in an order unrelated to the arrivals (as on a
    // machine whose processes do not start in lockstep) the
    // busiest process visits about n n / 3 elements (Sec. 5, n its
    // receives), whichever such order is taken.
    let n = list.recvs_of(shuf_arg as u32) as f64;
    rows.push(
        Row::new(
            "amg",
            format!("level {level} {kind}: shuffled receives, max search ~ n n / 3 (factor {REVERSE_FACTOR})"),
            shuf_max as f64,
            n * n / 3.0,
            "elements",
            Check::Between {
                low: n * n / 3.0 / REVERSE_FACTOR,
                below: 0.0,
                above: REVERSE_FACTOR - 1.0,
            },
        )
        .note(format!(
            "rank {shuf_arg} receives n = {n} messages; makespan {shuf_time:.4e} s"
        )),
    );
    rows.push(
        Row::new(
            "amg",
            format!("level {level} {kind}: max search, another shuffle / the first ~ 1 (factor {REVERSE_FACTOR})"),
            other_max as f64 / shuf_max.max(1) as f64,
            1.0,
            "",
            Check::Between {
                low: 1.0 / REVERSE_FACTOR,
                below: 0.0,
                above: REVERSE_FACTOR - 1.0,
            },
        )
        .note(format!(
            "seed 1: rank {shuf_arg} visits {shuf_max}; seed 2: rank {other_arg} visits {other_max}"
        )),
    );
    Ok(rows)
}

/// Figs. 10 and 11: per level, simulated beside the three model sums.
fn write_figures(dir: &Path, procs: u32, fig: &[[Vec<(f64, f64)>; 4]; 2]) -> Result<(), Error> {
    for (ki, (kind, figno)) in [("SpMV", 10), ("SpGEMM", 11)].into_iter().enumerate() {
        let names = [
            "simulated (packet)",
            "max-rate",
            "+ queue search",
            "+ contention",
        ];
        let series = names
            .iter()
            .enumerate()
            .map(|(i, n)| crate::plot::Series {
                name: n.to_string(),
                points: fig[ki][i].clone(),
                style: if i == 0 {
                    crate::plot::Style::Points
                } else {
                    crate::plot::Style::Line
                },
            })
            .collect();
        crate::plot::Figure {
            title: format!("AMG {kind} per level, P = {procs} (Bienz Fig. {figno})"),
            x_label: "AMG level".into(),
            y_label: "time [s]".into(),
            log_x: false,
            log_y: true,
            series,
        }
        .write_svg(&dir.join(format!("amg-{}.svg", kind.to_lowercase())))?;
    }
    Ok(())
}
