//! Cases on the ideal network (a private wire per pair of nodes, no
//! contention): the machine the postal, LogP and LogGP closed forms assume,
//! so the simulator must meet them exactly.

use super::{Case, Opts, simulate};
use crate::Error;
use crate::models::bienz;
use crate::plot::{Figure, Series, Style};
use crate::suite::{Check, Row};
use mpi_layer::{CommId, MpiParams, Op, Protocol, ReqId, Source, TagSel};
use scenarios::workloads::{Collective, RecvOrder, high_volume_ping_pong, ping_pong};
use sim_core::{Bandwidth, Time, transfer_time};
use topology::{IdealNetwork, Locality, NodeId, Placement, ProcLoc};

pub(super) fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "postal",
            about: "ping-pong per protocol and locality vs the postal model (Bienz eq. 1), Blue Waters preset: exact",
            run: postal,
        },
        Case {
            name: "hvpp",
            about: "HighVolumePingPong on one Blue Waters node (8 pairs), in order within 10 % of max-rate (Bienz Fig. 4), reversed within 10 % of max-rate + gamma n^2 (Fig. 5, eq. 3)",
            run: hvpp,
        },
        Case {
            name: "loggp",
            about: "binomial bcast and recursive-doubling allreduce vs their LogGP closed forms on an ideal network: exact",
            run: loggp_collectives,
        },
        Case {
            name: "hoefler-matching",
            about: "matching cost with R outstanding receives vs T_match(R) <= 100 ns R (Hoefler Sec. 3), BG/P preset: linear",
            run: hoefler_matching,
        },
    ]
}

/// The ideal network used here: 100 ns wire, 12 GB/s per wire (faster than
/// every `R_b` of the presets, so the per-process rate is what limits).
fn ideal(nodes: u32) -> IdealNetwork {
    IdealNetwork::new(
        nodes,
        Time::from_ns(100),
        Bandwidth::bytes_per_sec(12_000_000_000),
    )
}

fn loc(node: u32, socket: u16, core: u16) -> ProcLoc {
    ProcLoc {
        node: NodeId(node),
        socket,
        core,
    }
}

/// Two processes at the given locality on the ideal network.
pub fn ideal_pair(l: Locality) -> (Placement, IdealNetwork) {
    (pair(l), ideal(2))
}

/// Two processes at the given locality (Blue Waters nodes: 2 sockets).
fn pair(l: Locality) -> Placement {
    let b = match l {
        Locality::SameSocket => loc(0, 0, 1),
        Locality::SameNode => loc(0, 1, 8),
        Locality::OtherNode => loc(1, 0, 0),
    };
    Placement::from_locs(vec![loc(0, 0, 0), b])
}

/// A locality as the validation rows have always named it (`intra-socket`,
/// `intra-node`, `inter-node`: Bienz et al.'s words), kept so that the
/// rows stay comparable across versions.
fn row_word(l: Locality) -> &'static str {
    match l {
        Locality::SameSocket => "intra-socket",
        Locality::SameNode => "intra-node",
        Locality::OtherNode => "inter-node",
    }
}

/// Relative error at most 1e-6, or within the simulator's 1 ps resolution.
const PS_EXACT: Check = Check::Exact {
    tol: 1e-6,
    resolution: 1e-12,
};

fn postal(o: Opts<'_>) -> Result<Vec<Row>, Error> {
    let params = MpiParams::blue_waters();
    let sizes: [&[u64]; 3] = if o.quick {
        [&[8], &[4096], &[1 << 16]]
    } else {
        [&[1, 64, 1024], &[1025, 4096, 8192], &[8193, 65536, 1 << 20]]
    };
    let mut rows = Vec::new();
    let mut fig_sim = vec![Vec::new(); 3];
    let mut fig_model = vec![Vec::new(); 3];
    for (li, l) in [
        Locality::SameSocket,
        Locality::SameNode,
        Locality::OtherNode,
    ]
    .into_iter()
    .enumerate()
    {
        for (pi, proto) in Protocol::ALL.into_iter().enumerate() {
            for &s in sizes[pi] {
                assert_eq!(
                    params.protocol(s),
                    proto,
                    "size table matches the preset's switch points"
                );
                let reps = 3;
                let r = simulate(
                    "postal",
                    pair(l),
                    ideal(2),
                    ping_pong(2, &[s], reps),
                    params.clone(),
                )?;
                // Rank 0 finishes when the last pong arrives: 2 reps one-way
                // times.
                let one_way = r.finish[0].as_secs_f64() / (2 * reps) as f64;
                let pp = params.postal(proto, l);
                let model = bienz::postal(pp.alpha, pp.rate, s);
                fig_sim[li].push((s as f64, one_way));
                fig_model[li].push((s as f64, model));
                rows.push(Row::new(
                    "postal",
                    format!("postal {} {} {s} B", proto.name(), row_word(l)),
                    one_way,
                    model,
                    "s",
                    PS_EXACT,
                ));
            }
        }
    }
    // The same contract on the Blue Waters torus itself, both transport
    // modes, between neighbouring Geminis (Bienz measured neighbouring
    // nodes). Farther apart, rendezvous cannot stay exact: its alpha of
    // 3.0 us must hold three crossings (RTS, CTS, data) of 2 x 350 ns NIC
    // latency plus 105 ns per hop, which fits up to two hops; beyond, the
    // host overhead clamps at zero and the message takes longer, as a
    // real torus would.
    for mode in [topology::Mode::Packet, topology::Mode::Flow] {
        for (pi, proto) in Protocol::ALL.into_iter().enumerate() {
            for &s in sizes[pi] {
                let m = topology::TorusParams::blue_waters_dims([4, 4, 4])
                    .build()
                    .map_err(Error::case)?;
                let far = 2; // router (1, 0, 0), first node: one hop
                let net = topology::Network::new(m, topology::NetConfig::with_mode(mode))
                    .map_err(Error::case)?;
                let placement = Placement::from_locs(vec![loc(0, 0, 0), loc(far, 0, 0)]);
                let reps = 2;
                let r = simulate(
                    "postal",
                    placement,
                    net,
                    ping_pong(2, &[s], reps),
                    params.clone(),
                )?;
                let pp = params.postal(proto, Locality::OtherNode);
                rows.push(Row::new(
                    "postal",
                    format!(
                        "postal {} inter-node {s} B, Blue Waters torus, 1 hop, {mode:?}",
                        proto.name()
                    ),
                    r.finish[0].as_secs_f64() / (2 * reps) as f64,
                    bienz::postal(pp.alpha, pp.rate, s),
                    "s",
                    PS_EXACT,
                ));
            }
        }
    }
    if let Some(dir) = o.figures {
        let mut series = Vec::new();
        for (li, l) in ["intra-socket", "intra-node", "inter-node"]
            .iter()
            .enumerate()
        {
            series.push(Series {
                name: format!("{l} simulated"),
                points: fig_sim[li].clone(),
                style: Style::Points,
            });
            series.push(Series {
                name: format!("{l} postal model"),
                points: fig_model[li].clone(),
                style: Style::Line,
            });
        }
        Figure {
            title: "Ping-pong on Blue Waters parameters (Bienz Fig. 3)".into(),
            x_label: "message size [B]".into(),
            y_label: "one-way time [s]".into(),
            log_x: true,
            log_y: true,
            series,
        }
        .write_svg(&dir.join("postal.svg"))?;
    }
    Ok(rows)
}

/// Bienz et al. Sec. 4.1, Figs. 4 and 5: HighVolumePingPong "among all
/// 16 processes local to a single node", 8 B messages: 8 pairs, each
/// between the two sockets (rank `i` and `i + 8`). In order the measured
/// times follow the max-rate model `2 n (alpha + s / R_b)` (two phases of
/// `n` messages); reversed, max-rate plus eq. 3's `gamma n^2`. Both are
/// two-sided (10 %): a simulator whose stream is too fast fails as well as
/// one too slow.
fn hvpp(o: Opts<'_>) -> Result<Vec<Row>, Error> {
    let params = MpiParams::blue_waters();
    let s = 8;
    let ns: &[u32] = if o.quick {
        &[1, 10, 100, 300]
    } else {
        &[1, 10, 100, 1000, 3000, 10000]
    };
    let pp = params.postal(params.protocol(s), Locality::SameNode);
    let gamma = params.gamma_posted.gamma;
    let pairs: Vec<(u32, u32)> = (0..8).map(|i| (i, i + 8)).collect();
    let node = Placement::from_locs(
        (0..16)
            .map(|i| loc(0, (i / 8) as u16, (i % 8) as u16))
            .collect(),
    );
    let mut rows = Vec::new();
    let (mut pts, mut fig_in, mut fig_rev, mut fig_mr, mut fig_model) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for &n in ns {
        let run = |order| {
            simulate(
                "hvpp",
                node.clone(),
                ideal(1),
                high_volume_ping_pong(16, &pairs, n, s, order),
                params.clone(),
            )
        };
        let (a, b) = (run(RecvOrder::InOrder)?, run(RecvOrder::Reversed)?);
        let (t_in, t_rev) = (a.makespan.as_secs_f64(), b.makespan.as_secs_f64());
        let n64 = n as u64;
        // Each of the two phases visits n (n+1)/2 elements per pair
        // reversed and n in order (Bienz Section 5).
        rows.push(Row::new(
            "hvpp",
            format!("elements visited, reversed, n = {n}"),
            b.elements_visited() as f64,
            16.0 * bienz::reversed_search_elements(n64) as f64,
            "",
            Check::Relative { tol: 0.0 },
        ));
        rows.push(Row::new(
            "hvpp",
            format!("elements visited, in order, n = {n}"),
            a.elements_visited() as f64,
            16.0 * n as f64,
            "",
            Check::Relative { tol: 0.0 },
        ));
        let max_rate = 2.0 * n as f64 * bienz::postal(pp.alpha, pp.rate, s);
        rows.push(
            Row::new(
                "hvpp",
                format!("in order ~ max-rate 2 n (alpha + s / R_b) (Fig. 4 left), n = {n}"),
                t_in,
                max_rate,
                "s",
                Check::Relative { tol: 0.10 },
            )
            .note("16 ranks of one Blue Waters node, 8 pairs across the sockets, 8 B"),
        );
        let model = max_rate + bienz::queue_search(gamma, n64);
        rows.push(Row::new(
            "hvpp",
            format!("reversed ~ max-rate + gamma n^2 (Fig. 5, eq. 3), n = {n}"),
            t_rev,
            model,
            "s",
            Check::Relative { tol: 0.10 },
        ));
        let excess = t_rev - t_in;
        if n >= 10 {
            pts.push(((n as f64).ln(), excess.ln()));
        }
        fig_in.push((n as f64, t_in));
        fig_rev.push((n as f64, t_rev));
        fig_mr.push((n as f64, max_rate));
        fig_model.push((n as f64, model));
    }
    let slope = crate::fit::line_fit(&pts).1;
    rows.push(
        Row::new(
            "hvpp",
            "growth exponent of the reversed excess",
            slope,
            2.0,
            "",
            Check::Relative { tol: 0.05 },
        )
        .note("least-squares slope of log(excess) against log(n), n >= 10"),
    );
    if let Some(dir) = o.figures {
        Figure {
            title: "HighVolumePingPong on one node (Bienz Figs. 4, 5)".into(),
            x_label: "messages n".into(),
            y_label: "time [s]".into(),
            log_x: true,
            log_y: true,
            series: vec![
                Series {
                    name: "in order, simulated".into(),
                    points: fig_in,
                    style: Style::Points,
                },
                Series {
                    name: "reversed, simulated".into(),
                    points: fig_rev,
                    style: Style::Points,
                },
                Series {
                    name: "max-rate (Fig. 4)".into(),
                    points: fig_mr,
                    style: Style::Line,
                },
                Series {
                    name: "max-rate + gamma n^2 (Fig. 5)".into(),
                    points: fig_model,
                    style: Style::Line,
                },
            ],
        }
        .write_svg(&dir.join("hvpp.svg"))?;
    }
    Ok(rows)
}

fn loggp_collectives(o: Opts<'_>) -> Result<Vec<Row>, Error> {
    // LogGP's own machine (the `loggp` preset on a network of no latency
    // and no bandwidth limit, as LogGOPSim runs it): L = 1.3 us, o = 0.5
    // us on each side (L + 2o = Blue Waters' inter-node short alpha, 2.3
    // us), g = 0, G = 1 / 1.3 GB/s (its R_b), no matching cost. A message
    // of s bytes takes L + 2o + (s - 1) G (Alexandrov et al.).
    let s = 8u64;
    let big_g = sim_core::PerByte::of_rate(sim_core::Bandwidth::bytes_per_sec(1_300_000_000));
    let params = MpiParams::loggp(
        Time::from_ns(1300),
        Time::from_ns(500),
        Time::ZERO,
        big_g,
        sim_core::PerByte::ZERO,
        1 << 20,
    );
    let t = Time::from_ns(1300 + 2 * 500) + big_g.cost(s - 1);
    let ideal = |p: u32| IdealNetwork::unlimited(p, Time::ZERO);
    let reduce = transfer_time(s, params.collectives.reduce_rate);
    let ps: &[u32] = if o.quick {
        &[2, 4, 8]
    } else {
        &[2, 4, 8, 16, 32, 64]
    };
    let mut rows = Vec::new();
    for &p in ps {
        let d = p.trailing_zeros() as u64;
        let placement = Placement::from_locs((0..p).map(|i| loc(i, 0, 0)).collect());
        // Binomial tree: the last rank (all bits set) is reached after d
        // hops of T each; every other path has fewer hops and o < T.
        let bcast = simulate(
            "loggp",
            placement.clone(),
            ideal(p),
            scenarios::workloads::collective(Collective::Bcast, p, s, 1),
            params.clone(),
        )?;
        rows.push(Row::new(
            "loggp",
            format!("binomial bcast {s} B, P = {p}: log2(P) (L + 2o + (s-1)G)"),
            bcast.makespan.as_secs_f64(),
            (t * d).as_secs_f64(),
            "s",
            Check::Relative { tol: 1e-6 },
        ));
        // Recursive doubling: d rounds, each one message each way at once
        // (each CPU sends, o, then receives, o) plus the reduction of s
        // bytes.
        let ar = simulate(
            "loggp",
            placement,
            ideal(p),
            scenarios::workloads::collective(Collective::Allreduce, p, s, 1),
            params.clone(),
        )?;
        rows.push(Row::new(
            "loggp",
            format!(
                "recursive-doubling allreduce {s} B, P = {p}: log2(P) (L + 2o + (s-1)G + s/R_red)"
            ),
            ar.makespan.as_secs_f64(),
            ((t + reduce) * d).as_secs_f64(),
            "s",
            Check::Relative { tol: 1e-6 },
        ));
        rows.push(Row::new(
            "loggp",
            format!("allreduce messages, P = {p}: P log2 P"),
            ar.messages() as f64,
            (p as u64 * d) as f64,
            "",
            Check::Relative { tol: 0.0 },
        ));
    }
    Ok(rows)
}

fn hoefler_matching(o: Opts<'_>) -> Result<Vec<Row>, Error> {
    let params = MpiParams::bgp();
    let rs: &[u32] = if o.quick {
        &[0, 10, 100]
    } else {
        &[0, 1, 13, 100, 1000, 4000]
    };
    let w = CommId::WORLD;
    let mut rows = Vec::new();
    let mut base = None;
    let mut pts = Vec::new();
    for &r in rs {
        // Rank 1 posts R receives from rank 2 (decoys), then the receive of
        // rank 0's ping, which therefore sits behind R elements; it answers
        // with a pong. Rank 2 matches the decoys long after rank 0 is done.
        let mut p1: Vec<Op> = (0..r)
            .map(|i| Op::Irecv {
                src: Source::Rank(2),
                tag: TagSel::Tag(i as i32),
                bytes: 8,
                comm: w,
                req: ReqId(i as u64),
            })
            .collect();
        p1.push(Op::Recv {
            src: Source::Rank(0),
            tag: TagSel::Tag(0),
            bytes: 8,
            comm: w,
        });
        p1.push(Op::Send {
            dst: 0,
            tag: 0,
            bytes: 8,
            comm: w,
        });
        p1.push(Op::Waitall {
            reqs: (0..r as u64).map(ReqId).collect(),
        });
        let p0 = vec![
            Op::Send {
                dst: 1,
                tag: 0,
                bytes: 8,
                comm: w,
            },
            Op::Recv {
                src: Source::Rank(1),
                tag: TagSel::Tag(0),
                bytes: 8,
                comm: w,
            },
        ];
        let mut p2 = vec![Op::Sleep {
            duration: Time::from_ms(100),
        }];
        p2.extend((0..r).map(|i| Op::Send {
            dst: 1,
            tag: i as i32,
            bytes: 8,
            comm: w,
        }));
        let placement = Placement::from_locs((0..3).map(|i| loc(i, 0, 0)).collect());
        let res = simulate(
            "hoefler-matching",
            placement,
            ideal(3),
            vec![p0, p1, p2],
            params.clone(),
        )?;
        let t = res.finish[0].as_secs_f64();
        let b = *base.get_or_insert(t);
        let excess = t - b;
        pts.push((r as f64, excess));
        rows.push(Row::new(
            "hoefler-matching",
            format!("added latency with R = {r} queued receives <= 100 ns R"),
            excess,
            crate::models::hoefler::bgp_match_bound(r as u64),
            "s",
            Check::UpperBound { slack: 1e-9 },
        ));
    }
    let (sxx, sxy) = pts
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 * p.0, a.1 + p.0 * p.1));
    rows.push(
        Row::new(
            "hoefler-matching",
            "slope of added latency per queued receive",
            sxy / sxx,
            100e-9,
            "s",
            Check::Relative { tol: 1e-6 },
        )
        .note("linear in R: least-squares slope through the origin"),
    );
    Ok(rows)
}
