//! Bienz et al. Section 5 (Figs. 10, 11): one SpMV and one SpGEMM on every
//! level of an AMG hierarchy (`shared/workloads/amg-elasticity/`), 8192
//! processes on 512 Blue Waters nodes at 16 per node, simulated beside the
//! paper's model terms: max-rate (eq. 2), queue search (eq. 3) and
//! contention (eqs. 5-7).

use super::{Case, Opts, simulate_streams};
use crate::models::bienz;
use crate::suite::{Check, Row};
use mpi_layer::{MpiParams, params::BLUE_WATERS_DELTA};
use scenarios::msglist::{MessageList, MessageListConfig, RecvOrder};
use topology::{Mapping, Mode, NetConfig, Network, NodeId, Placement, TorusParams};

pub(super) fn cases() -> Vec<Case> {
    vec![Case {
        name: "amg",
        about: "SpMV and SpGEMM on every AMG level (Bienz Figs. 10, 11), P = 8192 on 512 Blue Waters nodes: simulated vs max-rate + queue search + contention",
        run: amg,
    }]
}

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

fn amg(o: Opts<'_>) -> Result<Vec<Row>, String> {
    let params = MpiParams::blue_waters();
    let ppn: u32 = 16;
    // 512 nodes = 256 Geminis: an 8 x 8 x 4 torus of Blue Waters
    // parameters. Quick: the three coarsest levels, whose lists are short;
    // still P = 8192, the run the paper measured (its statements about
    // measured times hold for that run, not for a smaller one).
    let (procs, dims, levels): (u32, [u32; 3], Vec<u32>) = if o.quick {
        (8192, [8, 8, 4], vec![4, 5, 6])
    } else {
        (8192, [8, 8, 4], (0..=6).collect())
    };
    let dir = scenarios::shared::shared_path("workloads/amg-elasticity")
        .map_err(|e| format!("amg: {e}"))?;
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
                return Err(format!("amg: {} is missing", path.display()));
            }
            let cfg = MessageListConfig {
                num_ranks: Some(procs),
                recv_order: RecvOrder::AsListed,
                tag: 0,
            };
            let list = MessageList::read(&path, &cfg).map_err(|e| e.to_string())?;
            // Packet mode only: on the finest levels (hundreds of
            // thousands of large concurrent messages) the flow model's
            // max-min updates are too slow for the suite's time budget
            // (level 0 SpGEMM did not finish in 120 s; see the closing
            // notes of the performance work).
            let mode = Mode::Packet;
            {
                let machine = TorusParams::blue_waters_dims(dims)
                    .build()
                    .map_err(|e| e.to_string())?;
                let nodes: Vec<NodeId> = (0..machine.nodes()).map(NodeId).collect();
                let net =
                    Network::new(machine, NetConfig::with_mode(mode)).map_err(|e| e.to_string())?;
                let placement = Placement::map(procs, &nodes, ppn as u16, 2, Mapping::Block)
                    .map_err(|e| e.to_string())?;
                let terms = model(&list, &placement, &net, &params, ppn);
                let start = std::time::Instant::now();
                let r = simulate_streams("amg", placement, net, list.programs(), params.clone())?;
                let wall = start.elapsed().as_secs_f64();
                let sim = r.makespan.as_secs_f64();
                let full = terms.max_rate + terms.queue + terms.contention;
                let x = level as f64;
                fig[ki][0].push((x, sim));
                fig[ki][1].push((x, terms.max_rate));
                fig[ki][2].push((x, terms.max_rate + terms.queue));
                fig[ki][3].push((x, full));
                let mode_name = "packet";
                // Sec. 5: the measured time lies above max-rate ("a
                // fraction of the measured time") and below the full model
                // ("over-predicts"). Slack below: LogGP's first byte (a
                // process's port holds each message g + (s - 1) / R_b, so
                // its n messages take (n - 1) / R_b less than eq. 2's
                // serial sum, under 0.2 %). Slack above: the model counts
                // a process's sends only; the receiving CPU's per-message
                // work (o_recv, part of alpha) on a process whose
                // messages arrive late and together adds up to 2 % on the
                // sparse coarsest level.
                rows.push(
                    Row::new(
                        "amg",
                        format!("level {level} {kind}, {mode_name}: max-rate <= sim <= max-rate + queue search + contention"),
                        sim,
                        full,
                        "s",
                        Check::Between {
                            low: terms.max_rate,
                            below: 2e-3,
                            above: 0.025,
                        },
                    )
                    .note(format!(
                        "{} messages; terms: max-rate {:.3e} s, queue search {:.3e} s, contention {:.3e} s; max search length {}; {:.2} s wall",
                        list.num_messages(),
                        terms.max_rate,
                        terms.queue,
                        terms.contention,
                        r.posted_search.max().unwrap_or(0).max(r.unexpected_search.max().unwrap_or(0)),
                        wall
                    )),
                );
            }
        }
    }
    if let Some(dir) = o.figures {
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
    }
    Ok(rows)
}
