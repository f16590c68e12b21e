//! The fitting loop closed: ping-pong and HighVolumePingPong timings
//! produced by the simulator (Blue Waters preset) are fitted with
//! `netsim fit`'s method, which must give back the preset's Table 1
//! parameters, its switch points and gamma (Bienz eq. 4).

use super::{Case, Opts, ideal_pair, simulate};
use crate::Error;
use crate::fit::{Sample, fit};
use crate::suite::{Check, Row};
use mpi_layer::{MpiParams, Protocol};
use scenarios::workloads::{RecvOrder, high_volume_ping_pong, ping_pong};
use topology::Locality;

pub(super) fn cases() -> Vec<Case> {
    vec![Case {
        name: "fit",
        about: "netsim fit on simulated ping-pong and HighVolumePingPong timings gives back the preset's alpha, R_b, switch points and gamma",
        run: roundtrip,
    }]
}

fn roundtrip(o: Opts<'_>) -> Result<Vec<Row>, Error> {
    let params = MpiParams::blue_waters();
    let loc = Locality::OtherNode;
    let mut samples = Vec::new();
    let sizes: Vec<u64> = vec![
        1,
        16,
        128,
        512,
        1024,
        1025,
        2048,
        4096,
        8192,
        8193,
        32768,
        262144,
        1 << 20,
    ];
    for &s in &sizes {
        let (placement, net) = ideal_pair(loc);
        let r = simulate("fit", placement, net, ping_pong(2, &[s], 1), params.clone())?;
        samples.push(Sample {
            size: s,
            n: 1,
            reversed: false,
            seconds: r.finish[0].as_secs_f64() / 2.0,
            locality: "other_node".into(),
        });
    }
    let ns: &[u32] = if o.quick {
        &[50, 100, 200]
    } else {
        &[100, 300, 1000, 3000]
    };
    for &n in ns {
        for order in [RecvOrder::InOrder, RecvOrder::Reversed] {
            let (placement, net) = ideal_pair(Locality::SameSocket);
            let r = simulate(
                "fit",
                placement,
                net,
                high_volume_ping_pong(2, &[(0, 1)], n, 8, order),
                params.clone(),
            )?;
            samples.push(Sample {
                size: 8,
                n: n as u64,
                reversed: order == RecvOrder::Reversed,
                seconds: r.makespan.as_secs_f64(),
                locality: "same_socket".into(),
            });
        }
    }
    let f = fit(&samples)?;
    let segs = &f
        .postal
        .iter()
        .find(|p| p.locality == "other_node")
        .ok_or_else(|| Error::case("no inter-node fit"))?
        .segments;
    let mut rows = vec![
        Row::new(
            "fit",
            "short_max (largest size of the first segment)",
            segs[0].hi as f64,
            params.short_max as f64,
            "B",
            Check::Relative { tol: 0.0 },
        ),
        Row::new(
            "fit",
            "eager_max (largest size of the second segment)",
            segs[1].hi as f64,
            params.eager_max as f64,
            "B",
            Check::Relative { tol: 0.0 },
        ),
    ];
    for (seg, proto) in segs.iter().zip(Protocol::ALL) {
        let pp = params.postal(proto, loc);
        rows.push(Row::new(
            "fit",
            format!("{proto:?} alpha"),
            seg.alpha_s,
            pp.alpha.as_secs_f64(),
            "s",
            Check::Relative { tol: 1e-3 },
        ));
        rows.push(Row::new(
            "fit",
            format!("{proto:?} R_b"),
            1.0 / seg.beta_s_per_b,
            pp.rate.as_f64(),
            "B/s",
            Check::Relative { tol: 1e-3 },
        ));
    }
    let (g, exponent) = f.gamma.ok_or_else(|| Error::case("no gamma fitted"))?;
    rows.push(
        Row::new(
            "fit",
            "gamma from the reversed excess",
            g,
            params.gamma_posted.gamma.as_secs_f64(),
            "s",
            Check::Relative { tol: 0.02 },
        )
        .note(format!("excess grows as n^{exponent:.3}")),
    );
    Ok(rows)
}
