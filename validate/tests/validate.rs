//! validate integration tests (one binary): every validation case in its
//! quick form must pass, or be explained.

use validate::cases::{self, Opts};
use validate::suite::Verdict;

#[test]
fn every_case_passes_quick() {
    let mut failures = Vec::new();
    for case in cases::all() {
        let rows = (case.run)(Opts {
            quick: true,
            figures: None,
        })
        .unwrap_or_else(|e| panic!("case {} failed to run: {e}", case.name));
        assert!(!rows.is_empty(), "case {} produced no rows", case.name);
        for r in rows {
            if r.verdict == Verdict::Fail {
                failures.push(format!(
                    "{}: {}: simulated {:.9e} predicted {:.9e} (error {:+.3e})",
                    r.case, r.model, r.simulated, r.predicted, r.error
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "failing rows:\n{}",
        failures.join("\n")
    );
}

// ------------------------------------------------------------ the netsim command

mod cli {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};

    fn netsim(args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_netsim"))
            .args(args)
            .output()
            .expect("netsim runs")
    }

    fn ok(args: &[&str]) -> String {
        let o = netsim(args);
        assert!(
            o.status.success(),
            "netsim {args:?} failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    }

    /// stderr of a run that must fail (non-zero exit, no panic).
    fn fails(args: &[&str]) -> String {
        let o = netsim(args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(!o.status.success(), "netsim {args:?} should fail");
        assert!(
            !err.contains("panicked"),
            "netsim {args:?} panicked:\n{err}"
        );
        err
    }

    fn example(name: &str) -> String {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples")
            .join(name)
            .display()
            .to_string()
    }

    /// A file of the shared data folder (`NETSIM_SHARED`, else
    /// `../shared` beside the workspace); missing data fail the test.
    fn shared(rel: &str) -> String {
        let p = validate::cases::amg::shared_dir().join(rel);
        assert!(
            p.exists(),
            "{} not found: set NETSIM_SHARED to the shared data folder",
            p.display()
        );
        p.display().to_string()
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("netsim-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn json(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
    }

    /// `--timeline` and `--messages`: what happened when, with the
    /// hand-computed times of the ping-pong (alpha + s / R_b each way),
    /// and observing changes nothing in the report.
    #[test]
    fn timeline_and_message_record_show_when() {
        let ex = example("ping-pong-ideal.toml");
        let d = scratch("timeline");
        let (tl, msgs) = (d.join("t.json"), d.join("m.csv"));
        let (tl_s, msgs_s) = (tl.display().to_string(), msgs.display().to_string());
        let plain = ok(&["run", &ex, "--json", "--no-wall"]);
        let observed = ok(&[
            "run",
            &ex,
            "--json",
            "--no-wall",
            "--timeline",
            &tl_s,
            "--messages",
            &msgs_s,
        ]);
        assert_eq!(plain, observed, "observing changes nothing");
        // Short 8 B between nodes: alpha 2.3 us + 8 B / 1.3 GB/s =
        // 2,306,154 ps; it reaches rank 1 after the ideal wire's 500 ns
        // + 8 B / 1.3 GB/s. Rendezvous 64 KiB: 3 us + 65536 B / 2.9 GB/s.
        let csv = std::fs::read_to_string(&msgs).unwrap();
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(
            rows[0],
            "src,dst,seq,tag,bytes,protocol,locality,posted_ps,departed_ps,arrived_ps,matched_ps,visited,completed_ps"
        );
        assert_eq!(
            rows[1],
            "0,1,0,0,8,short,other_node,0,0,506154,506154,1,2306154"
        );
        assert_eq!(rows.len(), 5, "{csv}");
        assert!(rows[3].starts_with("0,1,0,1,65536,rendezvous,other_node,4612308,"));
        assert!(rows[4].ends_with(",55809550"), "{csv}");
        let v = json(&std::fs::read_to_string(&tl).unwrap());
        let evs = v["traceEvents"].as_array().unwrap();
        // Rank 1 waits in its first receive until the 8 B message is in.
        let wait = evs
            .iter()
            .find(|e| e["cat"] == "wait" && e["tid"] == 1)
            .expect("rank 1 blocked");
        assert_eq!(wait["name"], "blocked in recv");
        assert_eq!(
            (wait["ts"].as_f64(), wait["dur"].as_f64()),
            (Some(0.0), Some(2.306154))
        );
        let ops = evs.iter().filter(|e| e["cat"] == "op").count();
        assert_eq!(ops, 8, "2 ranks x (send, recv) x 2 sizes");
        // A deadlocked run still writes its timeline, up to the deadlock.
        let t = d.join("dl.txt");
        std::fs::write(&t, "0 init\n1 init\n0 recv 1 0 8\n1 recv 0 0 8\n").unwrap();
        let e = fails(&[
            "replay",
            "--machine",
            "ideal",
            &t.display().to_string(),
            "--timeline",
            &tl_s,
        ]);
        assert!(e.contains("deadlock"), "{e}");
        let v = json(&std::fs::read_to_string(&tl).unwrap());
        let waits = v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["cat"] == "wait")
            .count();
        assert_eq!(waits, 2, "both ranks blocked in recv");
    }

    #[test]
    fn run_json_is_deterministic_and_exact() {
        let ex = example("ping-pong-ideal.toml");
        let a = ok(&["run", &ex, "--json", "--no-wall"]);
        let b = ok(&["run", &ex, "--json", "--no-wall"]);
        assert_eq!(a, b, "same scenario and seed: byte-identical JSON");
        let v = json(&a);
        assert_eq!(v["schema"], "netsim-run/1");
        // 2 x (2.3 us + 8 B / 1.3 GB/s) + 2 x (3 us + 64 KiB / 2.9 GB/s).
        assert_eq!(v["makespan_ps"], 55_809_550u64);
        assert!(v.get("wall").is_none());
        let with_wall = json(&ok(&["run", &ex, "--json"]));
        assert!(with_wall["wall"]["events_per_sec"].as_f64().unwrap() >= 0.0);
    }

    #[test]
    fn run_table_csv_plot_and_set() {
        let ex = example("halo-torus.toml");
        let t = ok(&["run", &ex]);
        for want in [
            "makespan",
            "slowest",
            "rendezvous",
            "posted_recvs",
            "most utilized",
            "events",
        ] {
            assert!(t.contains(want), "table lacks {want}:\n{t}");
        }
        let csv = ok(&["run", &ex, "--csv", "--set", "transport.mode=flow"]);
        assert!(csv.starts_with("section,key,value\n"), "{csv}");
        assert!(csv.contains("run,mode,flow\n"), "{csv}");
        assert!(csv.contains("run,messages,768\n"), "{csv}");
        let d = scratch("plot");
        let svg = d.join("halo.svg");
        ok(&["run", &ex, "--plot", svg.to_str().unwrap()]);
        let fin = std::fs::read_to_string(&svg).unwrap();
        assert!(fin.starts_with("<svg") && fin.contains("Finish time per rank"));
        let links = std::fs::read_to_string(d.join("halo-links.svg")).unwrap();
        assert!(links.contains("x links") && links.contains("injection"));
        let map = std::fs::read_to_string(d.join("halo-torus.svg")).unwrap();
        assert!(map.contains("z = 1") && map.contains("Busiest outgoing torus link per router"));
    }

    /// The three seed facts of the host-model issue, through the public
    /// command line: a stream on one Blue Waters node within 15 % of the
    /// max-rate model (847 us), one process's 16 x 64 KiB no faster than
    /// R_b (>= 361.6 us), and AMG above max-rate and below the full model
    /// on the levels the quick suite runs (`validate --case amg`).
    #[test]
    fn host_model_seed_facts_through_the_cli() {
        let makespan = |name: &str| {
            json(&ok(&["run", &example(name), "--json", "--no-wall"]))["makespan_s"]
                .as_f64()
                .unwrap()
        };
        let t = makespan("stream-node.toml");
        assert!((t - 846.7e-6).abs() <= 0.15 * 846.7e-6, "{t}");
        assert!(makespan("one-to-many.toml") >= 361.6e-6);
        let out = ok(&["validate", "--case", "amg", "--quick", "--json"]);
        let rows = json(&out);
        let rows = rows.as_array().unwrap();
        assert_eq!(rows.len(), 5, "levels 4, 5 (two operations each) and 6");
        for r in rows {
            assert_eq!(r["verdict"], "pass", "{r}");
            let low = r["check"]["low"].as_f64().unwrap();
            assert!(
                r["simulated"].as_f64().unwrap() >= low * (1.0 - 2e-3),
                "{r}"
            );
        }
    }

    #[test]
    fn presets_list_sources_and_numbers() {
        let t = ok(&["presets"]);
        for want in [
            "blue-waters",
            "ethernet-zhu",
            "infiniband-qdr",
            "ideal",
            "bgp",
            "Table 1",
            "Table 2",
            "1616 ns",
        ] {
            assert!(t.contains(want), "presets lack {want}:\n{t}");
        }
    }

    #[test]
    fn sweeps_repeat_and_shards_merge_identically() {
        let ex = example("hvpp-fitted.toml");
        let d = scratch("sweep");
        let vary = [
            "--vary",
            "workload.order=in-order,reversed",
            "--vary",
            "mpi.matcher=linear,hashed,per-source-bins",
        ];
        let full = |out: &Path, extra: &[&str]| {
            let mut a = vec!["sweep", ex.as_str()];
            a.extend_from_slice(&vary);
            a.extend_from_slice(extra);
            a.extend_from_slice(&["--out", out.to_str().unwrap()]);
            ok(&a);
            std::fs::read(out).unwrap()
        };
        let one = full(&d.join("a.jsonl"), &["--threads", "2"]);
        let two = full(&d.join("b.jsonl"), &["--threads", "1"]);
        assert_eq!(one, two, "a sweep run twice is byte-identical");
        full(&d.join("s0.jsonl"), &["--shard", "0/2"]);
        full(&d.join("s1.jsonl"), &["--shard", "1/2"]);
        let merged = d.join("m.jsonl");
        ok(&[
            "sweep",
            "merge",
            d.join("s1.jsonl").to_str().unwrap(),
            d.join("s0.jsonl").to_str().unwrap(),
            "--out",
            merged.to_str().unwrap(),
        ]);
        assert_eq!(
            std::fs::read(&merged).unwrap(),
            one,
            "shards merged = whole sweep"
        );
        let text = String::from_utf8(one).unwrap();
        let rows: Vec<serde_json::Value> = text.lines().map(json).collect();
        assert_eq!(rows.len(), 6);
        // Reversed receives with the linear matcher search 32.5 elements on
        // average; in order, one.
        assert_eq!(rows[0]["result"]["matching"]["posted_recvs"]["mean"], 1.0);
        assert_eq!(rows[3]["result"]["matching"]["posted_recvs"]["mean"], 32.5);
        // A missing shard is named.
        let e = fails(&["sweep", "merge", d.join("s0.jsonl").to_str().unwrap()]);
        assert!(e.contains("points missing"), "{e}");
        // CSV table and plot.
        let csv = ok(&[
            "sweep",
            "merge",
            merged.to_str().unwrap(),
            "--csv",
            "--plot",
            d.join("sw.svg").to_str().unwrap(),
        ]);
        assert!(
            csv.starts_with("index,workload.order,mpi.matcher,makespan_s"),
            "{csv}"
        );
        assert!(
            std::fs::read_to_string(d.join("sw.svg"))
                .unwrap()
                .contains("Sweep")
        );
        let by = std::fs::read_to_string(d.join("sw-by-mpi_matcher.svg")).unwrap();
        assert!(by.contains("against mpi.matcher"), "one figure per axis");
        let e = fails(&[
            "sweep",
            "merge",
            merged.to_str().unwrap(),
            "--plot",
            d.join("x.svg").to_str().unwrap(),
            "--metric",
            "nope",
        ]);
        assert!(e.contains("--metric `nope`"), "{e}");
    }

    /// SimGrid's `actions0.txt` / `actions1.txt` on the ideal network with
    /// Blue Waters parameters. Every message is 1e6 B, rendezvous between
    /// nodes: D = 3 us + 1e6 B / 2.9e9 B/s = 3 000 000 + 344 827 587 ps =
    /// 347 827 587 ps, with the receive always posted before the data.
    /// Rank 1 receives message 1 at D, computes 1e9 flops at 1 Gflop/s
    /// (1 s), sends message 2 (received by rank 0 at D + 1 s + D), and
    /// rank 0 then sends message 3, received at 3 D + 1 s, after which
    /// both ranks are done: makespan = 1 000 000 000 000 + 3 x 347 827 587
    /// = 1 001 043 482 761 ps.
    #[test]
    fn replay_simgrid_micro_trace_by_hand() {
        let (a0, a1) = (
            shared("traces/simgrid-ti/micro/actions0.txt"),
            shared("traces/simgrid-ti/micro/actions1.txt"),
        );
        let v = json(&ok(&[
            "replay",
            "--format",
            "ti",
            "--machine",
            "ideal",
            "--mpi",
            "blue-waters",
            &a0,
            &a1,
            "--json",
        ]));
        assert_eq!(v["makespan_ps"], 1_001_043_482_761u64);
        assert_eq!(v["messages"], 3);
        // Twice the host speed halves the computation: 0.5 s + 3 D.
        let v = json(&ok(&[
            "replay",
            "--machine",
            "ideal",
            "--host-speed",
            "2e9",
            &a0,
            &a1,
            "--json",
        ]));
        assert_eq!(v["makespan_ps"], 500_000_000_000u64 + 3 * 347_827_587);
    }

    /// Per-rank computation of a TI trace [s] at 1 Gflop/s: `compute`
    /// amounts and the flops of `reduce`/`allreduce`, read from the file.
    fn compute_secs(text: &str, rank: Option<&str>) -> Vec<f64> {
        let mut per: std::collections::BTreeMap<String, f64> = Default::default();
        let ranks: std::collections::BTreeSet<&str> = text
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        for l in text.lines() {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() < 2 || rank.is_some_and(|r| r != w[0]) {
                continue;
            }
            let flops = match w[1] {
                "compute" => w.get(2).and_then(|x| x.parse::<f64>().ok()),
                "allreduce" | "reduce" => w.get(3).and_then(|x| x.parse::<f64>().ok()),
                // `reducescatter recvcounts[n] flops [dt]`.
                "reducescatter" => w.get(2 + ranks.len()).and_then(|x| x.parse::<f64>().ok()),
                _ => None,
            };
            *per.entry(w[0].to_string()).or_default() += flops.unwrap_or(0.0) / 1e9;
        }
        per.into_values().collect()
    }

    /// The other micro traces replay on InfiniBand QDR. Each is bounded by
    /// hand: the makespan is at least the busiest rank's computation
    /// (flops at SimGrid's default 1 Gflop/s) and exceeds it by less than
    /// 10 ms (at most a few MB per rank at 3.787 GB/s, reductions at 2 GB/s).
    #[test]
    fn replay_simgrid_micro_traces_complete() {
        for name in [
            "actions_barrier.txt",
            "actions_bcast.txt",
            "actions_allreduce.txt",
            "actions_alltoall.txt",
            "actions_gather.txt",
            "actions_reducescatter.txt",
        ] {
            let p = shared(&format!("traces/simgrid-ti/micro/{name}"));
            let text = std::fs::read_to_string(&p).unwrap();
            let lower = compute_secs(&text, None).into_iter().fold(0.0, f64::max);
            let v = json(&ok(&["replay", &p, "--json"]));
            let m = v["makespan_s"].as_f64().unwrap();
            assert!(
                m >= lower * (1.0 - 1e-12) && m <= lower + 1e-2,
                "{name}: makespan {m} s, computation {lower} s"
            );
        }
        // `actions_with_isend.txt`: rank 2's `wait` names a request its
        // earlier `test` completed (the message arrived at 2.0003 s, the
        // test runs at 2.25 s), which MPI has freed, so the wait returns at
        // once. Rank 2 computes 2 + 0.25 + 0.25 + 0.5 = 3.0 s at 1 Gflop/s
        // and finishes last: 3.0 s plus one match, under a millisecond.
        {
            let p = shared("traces/simgrid-ti/micro/actions_with_isend.txt");
            let v = json(&ok(&["replay", &p, "--json"]));
            let m = v["makespan_s"].as_f64().unwrap();
            assert!(
                (3.0..3.001).contains(&m),
                "actions_with_isend: makespan {m} s"
            );
        }
    }

    /// The 32-rank application trace completes on InfiniBand QDR, and every
    /// rank finishes after its own computation (sum of `compute` flops at
    /// 1 Gflop/s, read from its file here).
    #[test]
    fn replay_32_rank_application_trace() {
        let dir = shared("traces/simgrid-ti/app-32ranks");
        let files: Vec<String> = (0..32).map(|r| format!("{dir}/ti_trace{r}.txt")).collect();
        let mut args = vec![
            "replay",
            "--machine",
            "ideal",
            "--ppn",
            "4",
            "--json",
            "--no-wall",
        ];
        args.extend(files.iter().map(String::as_str));
        let v = json(&ok(&args));
        assert_eq!(v["ranks"], 32);
        let per_rank = v["finish"]["per_rank_ps"].as_array().unwrap();
        for (r, f) in files.iter().enumerate() {
            let text = std::fs::read_to_string(f).unwrap();
            let flops: f64 = text
                .lines()
                .filter_map(|l| {
                    let w: Vec<&str> = l.split_whitespace().collect();
                    match w.get(1) {
                        Some(&"compute") => w[2].parse::<f64>().ok(),
                        Some(&"allreduce" | &"reduce") => w[3].parse::<f64>().ok(),
                        _ => None,
                    }
                })
                .sum();
            let fin = per_rank[r].as_u64().unwrap() as f64 * 1e-12;
            assert!(
                fin >= flops / 1e9 * (1.0 - 1e-9),
                "rank {r}: {fin} s < {} s",
                flops / 1e9
            );
        }
        assert!(v["messages"].as_u64().unwrap() > 0);
    }

    /// SST/macro's DUMPI test trace (4 ranks) replays to completion with
    /// the operations its records hold, counted here from the reader: every
    /// `MPI_Isend` is one message; every `MPI_Barrier` is dissemination on
    /// 4 ranks (2 steps x 4 ranks = 8 zero-byte messages) and every small
    /// `MPI_Allreduce` recursive doubling (2 steps x 4 ranks = 8 messages).
    #[test]
    fn replay_dumpi_testtrace() {
        let meta = shared("traces/dumpi/sst-macro-testtrace/testtrace.meta");
        use mpi_layer::{Op, OpStream};
        let mut streams = scenarios::trace::open_streams(
            Path::new(&meta),
            scenarios::trace::TraceFormat::Dumpi,
            &Default::default(),
        )
        .unwrap();
        let (mut sends, mut send_bytes, mut barriers, mut allreduces) = (0u64, 0u64, 0u64, 0u64);
        for s in &mut streams {
            while let Some((op, _)) = s.next_op().unwrap() {
                match op {
                    Op::Send { bytes, .. } | Op::Isend { bytes, .. } => {
                        sends += 1;
                        send_bytes += bytes;
                    }
                    Op::Barrier { .. } => barriers += 1,
                    Op::Allreduce { bytes, .. } => {
                        assert!(bytes <= 2048, "small: recursive doubling");
                        allreduces += 1;
                    }
                    _ => {}
                }
            }
        }
        let v = json(&ok(&["replay", "--format", "dumpi", &meta, "--json"]));
        assert_eq!(v["ranks"], 4);
        // Each rank's call is counted: 4 calls per collective.
        assert!(barriers > 0 && allreduces > 0);
        assert_eq!(
            v["messages"].as_u64().unwrap(),
            sends + (barriers + allreduces) / 4 * 8
        );
        assert!(v["bytes"].as_u64().unwrap() >= send_bytes);
    }

    /// The other readers through `replay`: a native trace (one 8 B message:
    /// the receive completes at 2.3 us + 8 B / 1.3 GB/s = 2 306 154 ps), a
    /// CSV message list (one message each way, posted at once: both
    /// complete at 2 306 154 ps too) and a GOAL schedule (the same single
    /// message).
    #[test]
    fn replay_native_csv_and_goal() {
        let d = scratch("formats");
        let n = d.join("one.trace");
        std::fs::write(
            &n,
            "0 send dst=1 tag=0 bytes=8\n1 recv src=0 tag=0 bytes=8\n",
        )
        .unwrap();
        let v = json(&ok(&[
            "replay",
            "--format",
            "native",
            n.to_str().unwrap(),
            "--machine",
            "ideal",
            "--json",
        ]));
        assert_eq!(v["makespan_ps"], 2_306_154u64);
        let c = d.join("list.csv");
        std::fs::write(&c, "src,dst,bytes\n0,1,8\n1,0,8\n").unwrap();
        let v = json(&ok(&[
            "replay",
            c.to_str().unwrap(),
            "--machine",
            "ideal",
            "--json",
        ]));
        assert_eq!(
            (v["messages"].as_u64(), v["makespan_ps"].as_u64()),
            (Some(2), Some(2_306_154))
        );
        let g = d.join("two.goal");
        std::fs::write(
            &g,
            "num_ranks 2\nrank 0 {\n  s: send 8b to 1 tag 5\n}\nrank 1 {\n  r: recv 8b from 0 tag 5\n}\n",
        )
        .unwrap();
        let v = json(&ok(&[
            "replay",
            "--format",
            "goal",
            g.to_str().unwrap(),
            "--machine",
            "ideal",
            "--json",
        ]));
        assert_eq!(v["makespan_ps"], 2_306_154u64);
        // The reader's example leaves a wildcard receive unmatched on
        // purpose: the deadlock is diagnosed with the schedule's line.
        let g = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/examples/goal-small.goal");
        let e = fails(&["replay", "--format", "goal", g.to_str().unwrap()]);
        assert!(
            e.contains("deadlock") && e.contains("goal-small.goal:21"),
            "{e}"
        );
    }

    /// A truncated DUMPI record and a missing per-rank file are named with
    /// the file (and the record and byte offset) and a non-zero exit.
    #[test]
    fn broken_dumpi_traces_are_named() {
        let meta = shared("traces/dumpi/sst-macro-testtrace/testtrace.meta");
        let src = Path::new(&meta).parent().unwrap();
        let d = scratch("dumpi");
        for f in std::fs::read_dir(src).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, d.join(f.file_name().unwrap())).unwrap();
        }
        let bin = d.join("testtrace-0001.bin");
        let bytes = std::fs::read(&bin).unwrap();
        std::fs::write(&bin, &bytes[..bytes.len() / 2]).unwrap();
        let m = d.join("testtrace.meta").display().to_string();
        let e = fails(&["replay", "--format", "dumpi", &m]);
        assert!(e.contains("testtrace-0001.bin"), "{e}");
        std::fs::remove_file(d.join("testtrace-0003.bin")).unwrap();
        let e = fails(&["replay", "--format", "dumpi", &m]);
        assert!(e.contains("testtrace-0003.bin"), "{e}");
    }

    #[test]
    fn bad_input_names_the_place_and_exits_non_zero() {
        let d = scratch("bad");
        let w = |name: &str, text: &str| {
            let p = d.join(name);
            std::fs::write(&p, text).unwrap();
            p.display().to_string()
        };
        let f = w(
            "u.toml",
            "[machine]\npreset = \"ideal\"\nspeed = 3\n[workload]\nkind = \"ping-pong\"\n",
        );
        let e = fails(&["run", &f]);
        assert!(e.contains("u.toml:3: unknown field `speed`"), "{e}");
        let e = fails(&["run", &d.join("absent.toml").display().to_string()]);
        assert!(
            e.contains("absent.toml") && e.contains("cannot read"),
            "{e}"
        );
        let f = w("p.toml", "[workload]\nkind = \"ping-pong\"\n");
        let e = fails(&["run", &f, "--set", "workload.sizes=[-8]"]);
        assert!(
            e.contains("workload.sizes") && e.contains("negative"),
            "{e}"
        );
        let e = fails(&["run", &f, "--set", "mpi.eagr_max=64"]);
        assert!(
            e.contains("mpi.eagr_max = 64") && e.contains("unknown field `eagr_max`"),
            "{e}"
        );
        let e = fails(&["run", &f, "--set", "nonsense"]);
        assert!(e.contains("path=value"), "{e}");
        let t = w("r.txt", "0 init\n1 init\n0 send 9 0 10\n1 recv 0 0 10\n");
        let e = fails(&["replay", "--format", "ti", &t]);
        assert!(e.contains("r.txt:3:") && e.contains("rank 9"), "{e}");
        let t = w("x.txt", "0 init\n1 init\n0 sendd 1 0 10\n1 recv 0 0 10\n");
        let e = fails(&["replay", &t]);
        assert!(e.contains("x.txt:3:"), "{e}");
        let e = fails(&[
            "replay",
            "--format",
            "dumpi",
            &d.join("none.meta").display().to_string(),
        ]);
        assert!(e.contains("none.meta"), "{e}");
        let t = w("dl.txt", "0 init\n1 init\n0 recv 1 0 8\n1 recv 0 0 8\n");
        let e = fails(&["replay", "--machine", "ideal", &t]);
        assert!(
            e.contains("deadlock") && e.contains("rank 1 blocked in Recv"),
            "{e}"
        );
        let e = fails(&[
            "sweep",
            &example("hvpp-fitted.toml"),
            "--vary",
            "mpi.eager_max=8192,x",
        ]);
        assert!(
            e.contains("point 1") && e.contains("eager_max = \"x\""),
            "{e}"
        );
    }
}
