//! Tests of `netsim fit`: synthetic data from known parameters must come
//! back; bad input must be named; every fitted scenario must run.

use super::*;
use sim_core::RngStreams;
use sim_core::rand::Rng;

const HEADER: &str = "library,kind,locality,size,n,order,window,seconds,state\n";

fn pp_row(loc: &str, size: u64, secs: f64) -> String {
    format!("lib,pingpong,{loc},{size},1,-,0,{secs:e},near\n")
}

/// A ping-pong grid like the benchmark's: 1 B .. 16 MiB, four points per
/// octave, plus both sides of the given switch points.
fn grid(extra: &[u64]) -> Vec<u64> {
    let mut v = BTreeSet::new();
    let mut p = 1u64;
    while p <= 16 << 20 {
        v.insert(p);
        if p >= 8 {
            for q in 1..4 {
                v.insert(p + p * q / 4);
            }
        }
        p <<= 1;
    }
    for &e in extra {
        v.insert(e);
        v.insert(e + 1);
    }
    v.into_iter().filter(|&s| s <= 16 << 20).collect()
}

/// Piecewise-linear one-way times: `regimes` of (largest size, alpha [s],
/// rate [B/s]); relative noise `noise` from a seeded stream.
fn synth(loc: &str, regimes: &[(u64, f64, f64)], noise: f64, seed: u64) -> String {
    let his: Vec<u64> = regimes.iter().map(|r| r.0).collect();
    let mut rng = RngStreams::new(seed).stream("fit-synth");
    let mut csv = String::from(HEADER);
    for s in grid(&his[..his.len() - 1]) {
        let &(_, a, r) = regimes.iter().find(|g| s <= g.0).unwrap();
        let e = if noise > 0.0 {
            1.0 + noise * (2.0 * rng.random::<f64>() - 1.0)
        } else {
            1.0
        };
        csv += &pp_row(loc, s, (a + s as f64 / r) * e);
    }
    csv
}

fn fit_text(csv: &str, o: &FitOptions) -> Result<Fit, Error> {
    let rows = read_csv(csv, "t.csv", None)?;
    fit_rows(&select(rows, o)?, o)
}

/// The fitted scenario runs through `netsim run`'s code, and its
/// simulated ping-pong takes exactly the fitted times (calibration
/// contract): 2 (alpha + s / R_b) per size, alpha and R_b as printed.
fn round_trip(f: &Fit) -> String {
    let text = f.to_scenario("t.csv");
    let out = check_scenario(&text, "fitted.toml", Path::new("."))
        .unwrap_or_else(|e| panic!("netsim run rejects the fit: {e}\n{text}"));
    let (short_max, eager_max) = f.thresholds().unwrap();
    let pf = &f.postal[0];
    let min_ps = f.gamma.map_or(
        mpi_layer::MpiParams::blue_waters()
            .gamma_posted
            .cost(1)
            .as_ps(),
        |g| Time::from_secs_f64(g.0).as_ps(),
    );
    let sizes: BTreeSet<u64> = pf.segments.iter().flat_map(|s| [s.lo, s.hi]).collect();
    let mut want = 0u64;
    for s in sizes {
        let p = if s <= short_max {
            0
        } else if s <= eager_max {
            1
        } else {
            2
        };
        let seg = Fit::cell(pf, p);
        let rate = Bandwidth::bytes_per_sec(rate_bps(seg.beta_s_per_b));
        want += 2 * (alpha_ps(seg.alpha_s, min_ps) + sim_core::transfer_time(s, rate).as_ps());
    }
    assert_eq!(out.results.makespan.as_ps(), want, "{text}");
    text
}

#[test]
fn recovers_three_exact_segments() {
    let truth = [
        (1024, 2.3e-6, 1.3e9),
        (8192, 7.0e-6, 7.5e8),
        (u64::MAX, 3.0e-6, 2.9e9),
    ];
    let f = fit_text(&synth("other_node", &truth, 0.0, 1), &FitOptions::default()).unwrap();
    let segs = &f.postal[0].segments;
    assert_eq!(f.postal[0].regimes.len(), 3, "{}", f.report("t"));
    assert_eq!(
        (segs[0].hi, segs[1].lo),
        (1024, 1025),
        "short/eager bracket"
    );
    assert_eq!(
        (segs[1].hi, segs[2].lo),
        (8192, 8193),
        "eager/rendezvous bracket"
    );
    for (s, &(_, a, r)) in segs.iter().zip(&truth) {
        assert!((s.alpha_s - a).abs() < 1e-12, "{s:?}");
        assert!((s.rate() - r).abs() / r < 1e-9, "{s:?}");
        assert_eq!(s.bound, Bound::Free);
    }
    let t = round_trip(&f);
    assert!(
        t.contains("short_max = 1024   # switch between 1024 B and 1025 B"),
        "{t}"
    );
    assert!(
        t.contains("eager_max = 8192   # switch between 8192 B and 8193 B"),
        "{t}"
    );
    assert!(
        t.contains("rendezvous = { alpha = \"3000000 ps\", rate = \"2900000000 B/s\" }"),
        "{t}"
    );
    // Inter-node data: one rank per node, a wire that leaves alpha whole.
    assert!(
        t.contains("ppn = 1") && t.contains("latency = \"0 ps\""),
        "{t}"
    );
}

#[test]
fn finds_five_noisy_regimes_and_maps_them_onto_three_protocols() {
    // The shape the issue describes for UCX shared memory: short, eager,
    // multi-fragment eager, memcpy change, rendezvous. 1 % noise.
    let truth = [
        (92, 0.20e-6, 2.0e9),
        (2048, 0.35e-6, 4.0e9),
        (8248, 0.60e-6, 6.0e9),
        (262_144, 1.50e-6, 9.0e9),
        (u64::MAX, 6.00e-6, 6.0e9),
    ];
    let csv = synth("same_socket", &truth, 0.01, 7);
    let f = fit_text(&csv, &FitOptions::default()).unwrap();
    let pf = &f.postal[0];
    let r = f.report("t");
    assert_eq!(pf.regimes.len(), 5, "{r}");
    let switches: Vec<(u64, u64)> = pf.regimes.windows(2).map(|w| (w[0].hi, w[1].lo)).collect();
    assert_eq!(
        switches,
        vec![(92, 93), (2048, 2049), (8248, 8249), (262_144, 262_145)],
        "{r}"
    );
    for (s, &(_, a, rate)) in pf.regimes.iter().zip(&truth) {
        assert!((s.alpha_s - a).abs() / a < 0.1, "alpha {s:?}");
        assert!((s.rate() - rate).abs() / rate < 0.05, "rate {s:?}");
    }
    assert_eq!(pf.segments.len(), 3);
    assert!(pf.notes[0].contains("5 regimes"), "{:?}", pf.notes);
    assert!(r.contains("switch between 92 B and 93 B"), "{r}");
    let t = round_trip(&f);
    assert!(t.contains("ppn = 2") && t.contains("sockets = 1"), "{t}");
    assert!(t.contains("# Note: the data show 5 regimes"), "{t}");
    // --max-segments bounds the search.
    let o = FitOptions {
        max_segments: 2,
        ..Default::default()
    };
    let f2 = fit_text(&csv, &o).unwrap();
    assert_eq!(f2.postal[0].regimes.len(), 2);
    round_trip(&f2);
}

#[test]
fn negative_alpha_is_held_at_the_match_cost_and_said() {
    // Large sizes whose line through the points crosses zero above 0 B:
    // the free fit's alpha is negative.
    let mut csv = String::from(HEADER);
    for (s, t) in [
        (1u64, 1.0e-6),
        (8, 1.01e-6),
        (64, 1.05e-6),
        (128, 1.1e-6),
        (1 << 20, 100e-6),
        (2 << 20, 230e-6),
        (4 << 20, 490e-6),
        (8 << 20, 1010e-6),
    ] {
        csv += &pp_row("same_socket", s, t);
    }
    // gamma from an hvpp-posted pair, so alpha_min is the fitted gamma.
    for (n, i, r) in [
        (64u64, 30e-6, 30e-6 + 2e-9 * 64.0 * 63.0),
        (128, 60e-6, 60e-6 + 2e-9 * 128.0 * 127.0),
    ] {
        csv += &format!("lib,hvpp-posted,same_socket,8,{n},in,0,{i:e},near\n");
        csv += &format!("lib,hvpp-posted,same_socket,8,{n},rev,0,{r:e},near\n");
    }
    let f = fit_text(&csv, &FitOptions::default()).unwrap();
    let (g, _) = f.gamma.unwrap();
    assert!((g - 2e-9).abs() < 1e-15, "{g}");
    let pf = &f.postal[0];
    let last = pf.regimes.last().unwrap();
    assert!(last.free.0 < 0.0, "the free fit must be negative: {last:?}");
    assert_eq!(last.bound, Bound::Alpha);
    assert!((last.alpha_s - 2e-9).abs() < 1e-18, "{last:?}");
    assert!(
        f.report("t").contains("alpha >= match cost"),
        "{}",
        f.report("t")
    );
    let t = round_trip(&f);
    assert!(t.contains("alpha held at the match cost"), "{t}");
    assert!(t.contains("alpha = \"2000 ps\""), "{t}");
}

#[test]
fn one_and_two_segments_map_onto_protocols() {
    let one = fit_text(
        &synth("same_node", &[(u64::MAX, 1e-6, 5e9)], 0.0, 1),
        &FitOptions::default(),
    )
    .unwrap();
    assert_eq!(one.postal[0].segments.len(), 1);
    let t = round_trip(&one);
    assert!(t.contains("short_max = 0\n"), "{t}");
    assert!(t.contains("sockets = 2") && t.contains("ppn = 2"), "{t}");
    let two = fit_text(
        &synth(
            "same_node",
            &[(4096, 1e-6, 5e9), (u64::MAX, 3e-6, 8e9)],
            0.0,
            1,
        ),
        &FitOptions::default(),
    )
    .unwrap();
    assert_eq!(two.postal[0].segments.len(), 2);
    let t = round_trip(&two);
    assert!(
        t.contains("eager_max = 4096   # switch between 4096 B and 4097 B"),
        "{t}"
    );
}

#[test]
fn gamma_per_kind_and_the_printed_one() {
    let mut csv = String::from(HEADER);
    for n in [2u64, 8, 32, 128, 512] {
        let x = (n * (n - 1)) as f64;
        for (kind, g) in [
            ("hvpp-paper", 5e-9),
            ("hvpp-posted", 3e-9),
            ("hvpp-unexpected", 4e-9),
        ] {
            let base = 1e-6 * n as f64;
            csv += &format!("lib,{kind},same_socket,8,{n},in,0,{base:e},near\n");
            csv += &format!(
                "lib,{kind},same_socket,8,{n},reversed,0,{:e},near\n",
                base + g * x
            );
        }
    }
    csv += &pp_row("same_socket", 8, 1e-6);
    csv += &pp_row("same_socket", 4096, 2e-6);
    let f = fit_text(&csv, &FitOptions::default()).unwrap();
    assert_eq!(f.queues.len(), 3);
    let by: BTreeMap<Kind, f64> = f.queues.iter().map(|g| (g.kind, g.gamma)).collect();
    assert!((by[&Kind::HvppPaper] - 5e-9).abs() < 1e-15);
    assert!((by[&Kind::HvppUnexpected] - 4e-9).abs() < 1e-15);
    // Posted is printed.
    assert_eq!(f.gamma_source, Some((Kind::HvppPosted, 8)));
    assert!((f.gamma.unwrap().0 - 3e-9).abs() < 1e-15);
    let e = f.queues[0].exponent.unwrap();
    assert!((e - 2.0).abs() < 0.2, "{e}");
    // In-order streams: 1 us per n.
    assert!(f.streams.iter().all(|s| (s.b - 1e-6).abs() < 1e-12));
    let t = round_trip(&f);
    assert!(
        t.contains("gamma = \"3000 ps\"   # hvpp-posted 8 B, 5 (n, in, rev) pairs"),
        "{t}"
    );
}

#[test]
fn hvpp_rows_with_n_1_stay_hvpp() {
    // Bienz's n = 1 HVPP rows are not ping-pong times any more.
    let csv = format!(
        "{HEADER}lib,hvpp-paper,same_socket,8,1,in,0,2e-6,near\nlib,hvpp-paper,same_socket,8,1,rev,0,2e-6,near\n"
    );
    let e = fit_text(&csv, &FitOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("nothing to fit"), "{e}");
}

#[test]
fn reversed_faster_than_in_order_names_the_rows() {
    let csv = format!(
        "{HEADER}lib,hvpp-posted,same_socket,8,64,in,0,2e-5,near\nlib,hvpp-posted,same_socket,8,64,rev,0,1e-5,near\nlib,pingpong,same_socket,8,1,-,0,1e-6,near\n"
    );
    let e = fit_text(&csv, &FitOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("reversed receives faster than in order"), "{e}");
    assert!(e.contains("t.csv:3") && e.contains("t.csv:2"), "{e}");
    // Within the noise: no error, gamma 0 and a note.
    let csv = format!(
        "{HEADER}lib,hvpp-posted,same_socket,8,64,in,0,2e-5,near\nlib,hvpp-posted,same_socket,8,64,rev,0,1.95e-5,near\nlib,pingpong,same_socket,8,1,-,0,1e-6,near\nlib,pingpong,same_socket,64,1,-,0,1.1e-6,near\n"
    );
    let f = fit_text(&csv, &FitOptions::default()).unwrap();
    assert_eq!(f.gamma.unwrap().0, 0.0);
    assert!(f.notes[0].contains("hashed"), "{:?}", f.notes);
    let t = round_trip(&f);
    assert!(!t.contains("NaN"), "{t}");
}

#[test]
fn order_spellings_state_library_and_locality() {
    for (o, rev) in [
        ("in", false),
        ("in-order", false),
        ("rev", true),
        ("reversed", true),
    ] {
        let csv =
            format!("kind,size,n,order,seconds,locality\nhvpp-paper,8,4,{o},1e-6,same_node\n");
        let r = read_csv(&csv, "o.csv", None).unwrap();
        assert_eq!(r[0].order == Some(Order::Rev), rev, "{o}");
    }
    // Locality: never a silent default.
    let csv = "kind,size,seconds\npingpong,8,1e-6\n";
    let e = read_csv(csv, "l.csv", None).unwrap_err().to_string();
    assert!(e.starts_with("l.csv:2: no locality"), "{e}");
    let r = read_csv(csv, "l.csv", Some(Locality::SameSocket)).unwrap();
    assert_eq!(r[0].locality, Locality::SameSocket);
    // A locality cell wins over the option.
    let csv2 = "kind,size,seconds,locality\npingpong,8,1e-6,other_node\npingpong,9,1e-6,\n";
    let r = read_csv(csv2, "l.csv", Some(Locality::SameSocket)).unwrap();
    assert_eq!(
        (r[0].locality, r[1].locality),
        (Locality::OtherNode, Locality::SameSocket)
    );
    // States: mixed data need --state.
    let mut csv = String::from(HEADER);
    csv += &pp_row("same_socket", 8, 1e-6);
    csv += &pp_row("same_socket", 64, 1.1e-6);
    csv += &pp_row("same_socket", 8, 3e-6).replace("near", "far");
    csv += &pp_row("same_socket", 64, 3.3e-6).replace("near", "far");
    let e = fit_text(&csv, &FitOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("mix states: far (2 rows), near (2 rows)"), "{e}");
    let far = FitOptions {
        state: Some("far".into()),
        ..Default::default()
    };
    let f = fit_text(&csv, &far).unwrap();
    assert_eq!(f.state.as_deref(), Some("far"));
    assert!((f.postal[0].points[0].1 - 3e-6).abs() < 1e-18);
    let e = fit_text(
        &csv,
        &FitOptions {
            state: Some("warm".into()),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("--state warm: no rows"), "{e}");
    let two_libs = csv.replacen("lib,", "other,", 1);
    let e = fit_text(&two_libs, &far).unwrap_err().to_string();
    assert!(
        e.contains("mix librarys") || e.contains("mix libraries") || e.contains("library"),
        "{e}"
    );
}

#[test]
fn bad_input_names_the_line_and_column() {
    let cases: &[(&str, &str)] = &[
        (
            "size,n,order,seconds\n8,1,-,1e-6\n",
            "header lacks column `kind`",
        ),
        (
            "kind,size,seconds,locality\npingpong,8,1e-6,same_socket\npingpong,x,1e-6,same_socket\n",
            "b.csv:3: column `size`",
        ),
        (
            "kind,size,seconds,locality\nhalo,8,1e-6,same_socket\n",
            "b.csv:2: column `kind`: `halo`",
        ),
        (
            "kind,size,n,order,seconds,locality\nhvpp-posted,8,4,sideways,1e-6,same_socket\n",
            "b.csv:2: column `order`: `sideways`",
        ),
        (
            "kind,size,n,seconds,locality\nhvpp-posted,8,4,1e-6,same_socket\n",
            "b.csv:2: a hvpp-posted row needs column `order`",
        ),
        (
            "kind,size,seconds,locality\nhvpp-posted,8,1e-6,same_socket\n",
            "needs column `n`",
        ),
        (
            "kind,size,n,seconds,locality\npingpong,8,3,1e-6,same_socket\n",
            "b.csv:2: column `n`: a pingpong row has n = 1",
        ),
        (
            "kind,size,n,seconds,locality\nmsgrate,8,3,1e-6,same_socket\n",
            "b.csv:2: column `window`",
        ),
        (
            "kind,size,seconds,locality\npingpong,8,-3,same_socket\n",
            "must be positive",
        ),
        (
            "kind,size,seconds,locality\npingpong,8,1e-6,elsewhere\n",
            "column `locality`: `elsewhere`",
        ),
        ("kind,size,seconds,locality\npingpong,8,1e-6\n", "b.csv:2:"),
        ("# only a comment\n", "b.csv"),
        (
            "kind,size,seconds,locality\n# c\n\npingpong,8,1e-6,same_socket\npingpong,8,bad,same_socket\n",
            "b.csv:5: column `seconds`",
        ),
    ];
    for (csv, want) in cases {
        let e = read_csv(csv, "b.csv", None).unwrap_err().to_string();
        assert!(e.contains(want), "{csv:?}: got {e}, want {want}");
    }
    assert!(fit_rows(&[], &FitOptions::default()).is_err());
}

#[test]
fn hvpp_only_and_two_locality_data_still_run() {
    // Only HVPP pairs: gamma, no postal cells; the machine follows the
    // rows' locality.
    let mut csv = String::from(HEADER);
    for n in [4u64, 16, 64] {
        let base = 1e-6 * n as f64;
        csv += &format!("lib,hvpp-posted,same_node,8,{n},in,0,{base:e},near\n");
        csv += &format!(
            "lib,hvpp-posted,same_node,8,{n},rev,0,{:e},near\n",
            base + 2e-9 * (n * (n - 1)) as f64
        );
    }
    let f = fit_text(&csv, &FitOptions::default()).unwrap();
    assert!(f.postal.is_empty());
    let t = f.to_scenario("t.csv");
    assert!(
        t.contains("sockets = 2") && t.contains("gamma = \"2000 ps\""),
        "{t}"
    );
    // No ping-pong rows: the scenario and the report say whose postal
    // values it runs on; a fit with them does not.
    let marker = format!("# {BORROWED_POSTAL}.\n");
    assert!(t.contains(&marker), "{t}");
    assert!(f.report("t.csv").contains(BORROWED_POSTAL));
    let pp = fit_text(
        &synth("other_node", &[(u64::MAX, 1e-6, 5e9)], 0.0, 1),
        &FitOptions::default(),
    )
    .unwrap();
    assert!(!pp.to_scenario("t.csv").contains(BORROWED_POSTAL));
    assert!(!pp.report("t.csv").contains(BORROWED_POSTAL));
    check_scenario(&t, "t.toml", Path::new(".")).unwrap();
    // Two localities whose switch points differ: one set is used, noted.
    let a = synth(
        "same_socket",
        &[(1024, 0.3e-6, 5e9), (u64::MAX, 1e-6, 8e9)],
        0.0,
        1,
    );
    let b = synth(
        "other_node",
        &[(4096, 2e-6, 3e9), (u64::MAX, 5e-6, 6e9)],
        0.0,
        1,
    );
    let both = format!("{a}{}", b.trim_start_matches(HEADER));
    let f = fit_text(&both, &FitOptions::default()).unwrap();
    assert_eq!(f.postal.len(), 2);
    assert!(
        f.notes.iter().any(|n| n.contains("taken from other_node")),
        "{:?}",
        f.notes
    );
    let t = f.to_scenario("t.csv");
    assert!(
        t.contains("eager_max = 4096") && t.contains("ppn = 1"),
        "{t}"
    );
    check_scenario(&t, "t.toml", Path::new(".")).unwrap();
}

/// The unexpected path: streams that differ by 100 ns + s / 4 GB/s per
/// message give 4 GB/s and 100 ns from the two smallest sizes; a larger size past
/// eager_max, or a difference that does not grow, gives none.
#[test]
fn copy_rate_from_the_two_smallest_streams() {
    let st = |kind, size: u64, per_msg: f64| StreamFit {
        kind,
        size,
        a: 0.0,
        b: 2.0 * per_msg,
        points: 5,
    };
    let posted = |s: u64| 150e-9 + s as f64 / 10e9;
    let unexp = |s: u64| posted(s) + 100e-9 + s as f64 / 4e9;
    let mut v = vec![];
    for s in [8u64, 1024, 16384] {
        v.push(st(Kind::HvppPosted, s, posted(s)));
        v.push(st(Kind::HvppUnexpected, s, unexp(s)));
    }
    let c = fit_copy_rate(&v, 8192).unwrap();
    assert!((c.rate / 4e9 - 1.0).abs() < 1e-9, "{}", c.rate);
    assert!((c.fixed - 100e-9).abs() < 1e-15, "{}", c.fixed);
    assert_eq!(c.sizes, [8, 1024]);
    assert_eq!(fit_copy_rate(&v, 100), None);
    v[3] = st(Kind::HvppUnexpected, 1024, posted(1024));
    assert_eq!(fit_copy_rate(&v, 8192), None);
}

/// Fuzzing (issue 12): ping-pong times for which no segmentation has a
/// finite error (one time of 2.3e-227 s among microseconds) left the fit
/// with no segment, and mapping the protocols underflowed
/// (`Fit::cell`). The fit now says no line fits.
#[test]
fn fit_csv_without_a_finite_segmentation_is_an_error() {
    let crash = include_str!("../../../fuzz/regressions/fit/crash-empty-postal-fit.csv");
    let e = fit_text(crash, &FitOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no line fits"), "{e}");
}

/// A stream whose exchange grows as `n (n - 1)` gives back its in-flight
/// cost and its time per message; a straight one, or one whose curve is
/// within the noise share, gives none.
#[test]
fn stream_costs_find_the_receives_in_flight() {
    let ns = [1.0, 2.0, 4.0, 8.0, 16.0, 64.0, 256.0, 1024.0, 4096.0];
    let pts = |c: f64| -> Vec<(f64, f64)> {
        ns.iter()
            .map(|&n| (n, 1e-6 + 2.0 * 100e-9 * n + c * n * (n - 1.0)))
            .collect()
    };
    let (tau, c) = stream_costs(&pts(2e-9));
    assert!((tau - 100e-9).abs() < 1e-12, "{tau}");
    assert!((c - 2e-9).abs() < 1e-14, "{c}");
    let (tau, c) = stream_costs(&pts(0.0));
    assert!((tau - 100e-9).abs() < 1e-15 && c == 0.0, "{tau} {c}");
    // 1 ps per receive: 17 us of 836 us at n = 4096, 2 %: noise.
    let (tau, c) = stream_costs(&pts(1e-12));
    assert_eq!(c, 0.0);
    assert!((tau / 100e-9 - 1.0).abs() < 0.05, "{tau}");
}

/// Posted streams at 64 B and 4 KiB (both eager by the ping-pong): each
/// fits its protocol's cell; with the non-blocking limit given below
/// 4 KiB, the 4 KiB stream fits the rendezvous cell instead, and the
/// scenario carries the limit.
#[test]
fn streams_fit_their_protocols_and_isend_limit() {
    let truth = [
        (32, 1.0e-6, 1.0e9),
        (8192, 2.0e-6, 2.0e9),
        (u64::MAX, 5.0e-6, 4.0e9),
    ];
    let mut csv = synth("same_socket", &truth, 0.0, 1);
    for (size, per_msg) in [(64u64, 400e-9), (4096, 900e-9)] {
        for n in [1u64, 2, 4, 8, 16, 32] {
            let t = 3e-6 + 2.0 * per_msg * n as f64;
            csv += &format!("lib,hvpp-posted,same_socket,{size},{n},in,0,{t:e},near\n");
        }
    }
    let protocols = |f: &Fit| -> Vec<(usize, Vec<u64>)> {
        f.host
            .iter()
            .map(|h| (h.protocol, h.sizes.clone()))
            .collect()
    };
    let f = fit_text(&csv, &FitOptions::default()).unwrap();
    // 64 and 4096 B are both eager (33..8192 B): one cell, G from both.
    assert_eq!(protocols(&f), [(1, vec![64, 4096])]);
    let g = f.host[0].gap_per_byte.unwrap();
    assert!((g - 500e-9 / 4032.0).abs() < 1e-18, "{g}");
    let o = FitOptions {
        isend_eager_max: Some(1024),
        ..FitOptions::default()
    };
    let f = fit_text(&csv, &o).unwrap();
    assert_eq!(protocols(&f), [(1, vec![64]), (2, vec![4096])]);
    let t = f.to_scenario("t.csv");
    assert!(t.contains("isend_eager_max = 1024"), "{t}");
    check_scenario(&t, "t.toml", Path::new(".")).unwrap();
}
