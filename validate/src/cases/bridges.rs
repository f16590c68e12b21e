//! Bridges et al. (`seeds/004_b35bed2464969e91.txt`): the closed
//! queueing network of Table 1 solved by MVA, checked against the same
//! network simulated with exponential service times; and the MPI
//! simulator's ping-pong and message rate on the InfiniBand QDR machine
//! against the model.

use super::{Case, Opts, simulate};
use crate::Error;
use crate::models::bridges::{self as qn, BridgesParams};
use crate::plot::{Figure, Series, Style};
use crate::suite::{Check, Row};
use mpi_layer::MpiParams;
use scenarios::workloads::{message_rate, ping_pong};
use sim_core::Time;
use topology::{InfinibandParams, Mode, NetConfig, Network, Placement};

pub(super) fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "bridges-mva",
            about: "Bridges' queueing network (Table 1): exact MVA vs the network simulated with exponential service, within the 95 % CI",
            run: mva_vs_des,
        },
        Case {
            name: "bridges-mpi",
            about: "ping-pong latency and message rate of the MPI simulator (InfiniBand QDR preset) vs Bridges' model",
            run: mpi_vs_model,
        },
    ]
}

fn mva_vs_des(o: Opts<'_>) -> Result<Vec<Row>, Error> {
    let p = BridgesParams::default();
    let nets: Vec<(String, qn::Network)> = vec![
        ("ping-pong 8 B (eager)".into(), qn::pingpong_network(&p, 8)),
        (
            "ping-pong 13 KiB (rendezvous)".into(),
            qn::pingpong_network(&p, 13 << 10),
        ),
        (
            "message rate 1 KiB x 16, match delay 1 + 0.004 x 256 us".into(),
            qn::message_rate_network(&p, 1024, 16, qn::match_delay_heavyweight(256)),
        ),
        (
            "message rate 64 B x 32, match delay 10 + 0.06 x 64 us".into(),
            qn::message_rate_network(&p, 64, 32, qn::match_delay_many_core(64)),
        ),
    ];
    let horizon = if o.quick {
        Time::from_ms(10)
    } else {
        Time::from_ms(40)
    };
    let mut rows = Vec::new();
    for (i, (name, net)) in nets.iter().enumerate() {
        let m = qn::mva(net);
        let sims = qn::simulate(net, 100 + i as u64, Time::from_ms(1), horizon, 30);
        let s = &sims[0];
        rows.push(
            Row::new(
                "bridges-mva",
                format!("{name}: throughput [cycles/s]"),
                s.throughput,
                m.throughput[0],
                "1/s",
                Check::WithinCi {
                    half_width: s.throughput_ci,
                    k: 1.0,
                },
            )
            .note(format!("{} cycles simulated, 30 batches", s.cycles)),
        );
        rows.push(Row::new(
            "bridges-mva",
            format!("{name}: response (cycle) time"),
            s.cycle_time,
            m.cycle_time[0],
            "s",
            Check::WithinCi {
                half_width: s.cycle_time_ci,
                k: 1.0,
            },
        ));
    }
    Ok(rows)
}

fn mpi_vs_model(o: Opts<'_>) -> Result<Vec<Row>, Error> {
    let params = MpiParams::infiniband_qdr();
    let bp = BridgesParams::default();
    let sizes: &[u64] = if o.quick {
        &[8, 4096, 65536]
    } else {
        &[
            1,
            8,
            64,
            512,
            4096,
            12288,
            12289,
            32768,
            65536,
            262144,
            1 << 20,
        ]
    };
    let mut rows = Vec::new();
    let (mut fig_sim, mut fig_model) = (Vec::new(), Vec::new());
    let ib = |n: u32, mode: Mode| -> Result<Network, Error> {
        let m = InfinibandParams::qdr(n).build().map_err(Error::case)?;
        Network::new(m, NetConfig::with_mode(mode)).map_err(Error::case)
    };
    for &s in sizes {
        let reps = 2;
        let r = simulate(
            "bridges-mpi",
            Placement::block(2, 1, 1),
            ib(2, Mode::Flow)?,
            ping_pong(2, &[s], reps),
            params.clone(),
        )?;
        let sim = r.finish[0].as_secs_f64() / (2 * reps) as f64;
        let model = qn::mva(&qn::pingpong_network(&bp, s)).cycle_time[0] / 2.0;
        fig_sim.push((s as f64, sim));
        fig_model.push((s as f64, model));
        rows.push(Row::new(
            "bridges-mpi",
            format!("ping-pong latency {s} B (Figs. 2, 4)"),
            sim,
            model,
            "s",
            Check::Relative { tol: 0.02 },
        ));
    }
    // Message rate (Fig. 6): a window of 64 outstanding sends.
    let window = 64;
    let msizes: &[u64] = if o.quick {
        &[8, 4096]
    } else {
        &[8, 64, 512, 4096, 32768]
    };
    for &s in msizes {
        let iters = if o.quick { 4 } else { 20 };
        let r = simulate(
            "bridges-mpi",
            Placement::block(2, 1, 1),
            ib(2, Mode::Flow)?,
            message_rate(window, s, iters),
            params.clone(),
        )?;
        let sim = (window * iters) as f64 / r.makespan.as_secs_f64();
        let model = qn::mva(&qn::message_rate_network(&bp, s, window, bp.match_s)).throughput[0];
        rows.push(
            Row::new("bridges-mpi", format!("message rate {s} B, window {window} (Fig. 6) [msg/s]"), sim, model, "1/s", Check::Explained).note(
                "not judged: the benchmark closes every window with a waitall (bursts), the model is a closed loop at steady state with exponential service; shown for the shape",
            ),
        );
    }
    if let Some(dir) = o.figures {
        Figure {
            title: "Ping-pong latency, InfiniBand QDR (Bridges Figs. 2, 4)".into(),
            x_label: "message size [B]".into(),
            y_label: "one-way latency [s]".into(),
            log_x: true,
            log_y: true,
            series: vec![
                Series {
                    name: "simulated (netsim)".into(),
                    points: fig_sim,
                    style: Style::Points,
                },
                Series {
                    name: "queueing model (MVA)".into(),
                    points: fig_model,
                    style: Style::Line,
                },
            ],
        }
        .write_svg(&dir.join("bridges-pingpong.svg"))?;
    }
    Ok(rows)
}
