//! netsim integration tests (one binary): the `netsim` command as a user
//! runs it, its README lines, bad input, platforms, OTF2 and the benchmark
//! smoke.

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
        scenarios::shared::shared_path(rel)
            .unwrap_or_else(|e| panic!("{e}"))
            .display()
            .to_string()
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
        // 2,306,154 ps; it leaves after the sender's o_send (the rest of
        // alpha: 2.3 us - 500 ns - gamma 8.4 ns) and reaches rank 1 after
        // the ideal wire's 500 ns + 8 B / 1.3 GB/s. Rendezvous 64 KiB: 3 us
        // + 65536 B / 2.9 GB/s.
        let csv = std::fs::read_to_string(&msgs).unwrap();
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(
            rows[0],
            "src,dst,seq,tag,bytes,protocol,locality,posted_ps,departed_ps,arrived_ps,matched_ps,visited,completed_ps"
        );
        assert_eq!(
            rows[1],
            "0,1,0,0,8,short,other_node,0,1791600,2297754,2297754,1,2306154"
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
        // One arrow per message, from its send's post on the sender's
        // track to its receive's completion on the receiver's: the first
        // from rank 0 at 0 to rank 1 at 2.306154 us, as the record says.
        let flows: Vec<_> = evs.iter().filter(|e| e["cat"] == "message").collect();
        assert_eq!(flows.len(), 8, "4 messages, a start and an end each");
        let first = flows.iter().find(|e| e["ph"] == "s").unwrap();
        let end = flows
            .iter()
            .find(|e| e["ph"] == "f" && e["id"] == first["id"])
            .unwrap();
        assert_eq!(
            (first["tid"].as_u64(), first["ts"].as_f64()),
            (Some(0), Some(0.0))
        );
        assert_eq!(
            (end["tid"].as_u64(), end["ts"].as_f64()),
            (Some(1), Some(2.306154))
        );
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

    /// The Trace Event Format's rules (the format Perfetto and
    /// chrome://tracing load) for the events netsim writes: a
    /// `traceEvents` array of objects with a known `ph`; complete events
    /// (`X`) with a name, non-negative `ts` and `dur` and integer `pid` and
    /// `tid`; instants (`i`) with a name, `ts` and scope `t`/`p`/`g`;
    /// counters (`C`) with a name, `ts` and numeric `args`; flow starts
    /// and ends (`s`, `f`) paired by `id`; metadata (`M`) naming a process
    /// or thread; and every thread an event lands on named by metadata.
    /// Returns the events.
    fn check_trace_event_format(text: &str) -> Vec<serde_json::Value> {
        let v = json(text);
        let evs = v["traceEvents"]
            .as_array()
            .expect("traceEvents array")
            .clone();
        let num = |e: &serde_json::Value, k: &str| {
            let x = e[k]
                .as_f64()
                .unwrap_or_else(|| panic!("{k} not a number: {e}"));
            assert!(x >= 0.0 && x.is_finite(), "{k} < 0: {e}");
        };
        let int = |e: &serde_json::Value, k: &str| {
            e[k].as_u64()
                .unwrap_or_else(|| panic!("{k} not an integer: {e}"))
        };
        let mut named = std::collections::BTreeSet::new();
        let mut used = std::collections::BTreeSet::new();
        let mut open = std::collections::BTreeSet::new();
        for e in &evs {
            let ph = e["ph"].as_str().unwrap_or_else(|| panic!("no ph: {e}"));
            if ph != "M" {
                assert!(e["name"].is_string(), "no name: {e}");
                num(e, "ts");
            }
            match ph {
                "X" => {
                    num(e, "dur");
                    used.insert((int(e, "pid"), int(e, "tid")));
                }
                "i" | "I" => {
                    let s = e["s"].as_str().unwrap_or("t");
                    assert!(["t", "p", "g"].contains(&s), "scope {s}: {e}");
                    used.insert((int(e, "pid"), int(e, "tid")));
                }
                "C" => {
                    int(e, "pid");
                    let args = e["args"].as_object().expect("counter args");
                    assert!(
                        !args.is_empty() && args.values().all(|a| a.is_number()),
                        "{e}"
                    );
                }
                "M" => {
                    let what = e["name"].as_str().unwrap();
                    assert!(["process_name", "thread_name"].contains(&what), "{e}");
                    assert!(e["args"]["name"].is_string(), "{e}");
                    if what == "thread_name" {
                        named.insert((int(e, "pid"), int(e, "tid")));
                    }
                }
                // Flow events: a start and an end per id, on named
                // threads, the end bound to its enclosing slice.
                "s" | "f" => {
                    let id = int(e, "id");
                    used.insert((int(e, "pid"), int(e, "tid")));
                    if ph == "s" {
                        assert!(open.insert(id), "flow {id} started twice: {e}");
                    } else {
                        assert_eq!(e["bp"], "e", "{e}");
                        assert!(open.remove(&id), "flow {id} ends unstarted: {e}");
                    }
                }
                other => panic!("event type {other} is not one netsim writes: {e}"),
            }
        }
        let unnamed: Vec<_> = used.difference(&named).collect();
        assert!(unnamed.is_empty(), "threads without a name: {unnamed:?}");
        assert!(open.is_empty(), "flows never ended: {open:?}");
        evs
    }

    /// The README's timeline of `examples/halo-torus.toml` follows the
    /// trace-event format, with one counter track per busy link when a
    /// series interval is set; the link series CSV's bytes add up to the
    /// report's per-link bytes.
    #[test]
    fn halo_timeline_follows_the_trace_event_format() {
        let ex = example("halo-torus.toml");
        let d = scratch("halo-timeline");
        let (tl, ls) = (d.join("h.json"), d.join("l.csv"));
        let plain = ok(&["run", &ex, "--json", "--no-wall"]);
        let report = ok(&[
            "run",
            &ex,
            "--json",
            "--no-wall",
            "--timeline",
            &tl.display().to_string(),
            "--link-series",
            &ls.display().to_string(),
            "--series-interval",
            "1 us",
        ]);
        assert_eq!(plain, report, "observing changes nothing");
        let evs = check_trace_event_format(&std::fs::read_to_string(&tl).unwrap());
        let tracks: std::collections::BTreeSet<&str> = evs
            .iter()
            .filter(|e| e["ph"] == "C")
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        let r = json(&report);
        // A halo on a 4x2x2 torus: 32 injection links, 32 ejection links
        // and the torus links in use carry data; every one has a track.
        let busy = r["links"].as_array().unwrap();
        assert!(
            tracks.len() >= busy.len() && tracks.len() > 64,
            "{}",
            tracks.len()
        );
        let csv = std::fs::read_to_string(&ls).unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some("link,from,to,start_ps,end_ps,bytes,gbps")
        );
        let mut per_link = std::collections::BTreeMap::<u64, u64>::new();
        for l in lines {
            let f: Vec<&str> = l.split(',').collect();
            *per_link.entry(f[0].parse().unwrap()).or_default() += f[5].parse::<u64>().unwrap();
            assert_eq!(
                f[4].parse::<u64>().unwrap() - f[3].parse::<u64>().unwrap(),
                1_000_000,
                "1 us bins"
            );
        }
        for l in busy {
            let id = l["link"].as_u64().unwrap();
            assert_eq!(per_link.get(&id).copied(), l["bytes"].as_u64(), "link {id}");
            assert!(
                tracks
                    .iter()
                    .any(|t| t.starts_with(&format!("link {id}: "))),
                "{id}"
            );
        }
        // Without an interval, no link tracks (and no series kept).
        ok(&["run", &ex, "--timeline", &tl.display().to_string()]);
        let evs = check_trace_event_format(&std::fs::read_to_string(&tl).unwrap());
        assert!(evs.iter().all(|e| e["ph"] != "C"));
    }

    /// FNV-1a, 64 bits: a digest of an output file.
    fn fnv1a(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    /// The timeline's link tracks and the link series CSV are built from
    /// the transport's link busy events through the observer seam: golden
    /// outputs of these very commands, `netsim run examples/halo-torus.toml
    /// --set transport.mode=M --set workload.iters=1 --set
    /// workload.dims=[4,2,2] --json --no-wall --timeline T --link-series
    /// L --series-interval "5 us"` (the timeline's taken again when it
    /// gained the messages' flow arrows; the series are unchanged).
    #[test]
    fn link_tracks_and_series_are_unchanged_through_the_seam() {
        let ex = example("halo-torus.toml");
        let d = scratch("link-seam");
        let expect = [
            (
                "packet",
                (130_481, 0xccc0_5ca9_0b62_feea),
                (14_129, 0xf14e_5ee5_4a4e_3421),
            ),
            (
                "flow",
                (132_661, 0x215a_0a3a_449e_d37d),
                (16_642, 0xaecf_f82d_b018_41b6),
            ),
        ];
        for (mode, tl_want, ls_want) in expect {
            let (tl, ls) = (
                d.join(format!("{mode}.json")),
                d.join(format!("{mode}.csv")),
            );
            let report = ok(&[
                "run",
                &ex,
                "--set",
                &format!("transport.mode={mode}"),
                "--set",
                "workload.iters=1",
                "--set",
                "workload.dims=[4,2,2]",
                "--json",
                "--no-wall",
                "--timeline",
                &tl.display().to_string(),
                "--link-series",
                &ls.display().to_string(),
                "--series-interval",
                "5 us",
            ]);
            let tl_text = std::fs::read(&tl).unwrap();
            let ls_text = std::fs::read(&ls).unwrap();
            assert!(
                String::from_utf8_lossy(&tl_text).contains("\"cat\":\"link\""),
                "{mode}: no link tracks"
            );
            assert_eq!((tl_text.len(), fnv1a(&tl_text)), tl_want, "{mode} timeline");
            assert_eq!(
                (ls_text.len(), fnv1a(&ls_text)),
                ls_want,
                "{mode} link series"
            );
            // The report's per-link bytes are the series' sums.
            let r = json(&report);
            for l in r["links"].as_array().unwrap() {
                let id = l["link"].as_u64().unwrap().to_string();
                let sum: u64 = String::from_utf8_lossy(&ls_text)
                    .lines()
                    .skip(1)
                    .map(|row| row.split(',').collect::<Vec<_>>())
                    .filter(|f| f[0] == id)
                    .map(|f| f[5].parse::<u64>().unwrap())
                    .sum();
                let want = l["bytes"].as_u64().unwrap();
                // Packet mode: exact. Flow mode bins `rate * dt` rounded
                // per segment (a byte or so per rate change).
                let slack = if mode == "packet" { 0 } else { want / 1000 };
                assert!(
                    sum.abs_diff(want) <= slack,
                    "{mode} link {id}: {sum} vs {want}"
                );
            }
        }
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

    /// `[mpi] rendezvous`: a sender that pushes its rendezvous data
    /// (`put`) serves each CTS on its progress engine in turn, so the
    /// 16-rank halo (2 KiB-256 KiB faces, rendezvous above the eager
    /// limit), whose ranks send while CTSs come back, finishes later than
    /// when the receivers pull (`get`, the default); a misspelled value is
    /// refused with the key named.
    #[test]
    fn rendezvous_put_serves_the_cts_on_the_sender() {
        let ex = example("halo-torus.toml");
        let run = |how: &str| {
            let set = format!("mpi.rendezvous={how}");
            json(&ok(&[
                "run",
                &ex,
                "--set",
                "workload.iters=1",
                "--set",
                &set,
                "--json",
                "--no-wall",
            ]))["makespan_ps"]
                .as_u64()
                .unwrap()
        };
        let (get, put) = (run("get"), run("put"));
        assert!(put > get, "put {put} ps, get {get} ps");
        let out = netsim(&[
            "run",
            &ex,
            "--set",
            "workload.iters=1",
            "--set",
            "mpi.rendezvous=push",
        ]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("rendezvous"));
    }

    /// The seed facts of the host-model issues, through the public
    /// command line: a stream on one Blue Waters node within 15 % of the
    /// max-rate model (847 us), one process's 16 x 64 KiB no faster than
    /// R_b (>= 361.6 us), AMG between its floor and the full model on the
    /// levels the quick suite runs (`validate --case amg`), and the queue
    /// what-if: a hashed matcher at least 15 % faster on the what-if level
    /// (level 4 in the quick suite; the full suite runs level 2).
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
        // Levels 4, 5 (two operations each) and 6, then four what-if rows
        // on level 4 SpMV (matcher, three receive orders).
        assert_eq!(rows.len(), 9, "{out}");
        let model = |r: &serde_json::Value| r["model"].as_str().unwrap().to_string();
        for r in rows {
            if model(r).contains("reversed / listed") {
                assert_eq!(r["verdict"], "explained", "{r}");
                continue;
            }
            assert_eq!(r["verdict"], "pass", "{r}");
            let low = r["check"]["low"].as_f64().unwrap();
            assert!(
                r["simulated"].as_f64().unwrap() >= low * (1.0 - 2e-3),
                "{r}"
            );
        }
        let value = |key: &str| {
            rows.iter()
                .find(|r| model(r).starts_with(key))
                .map(|r| r["simulated"].as_f64().unwrap())
                .unwrap()
        };
        let saved = value("level 4 spmv: linear - hashed");
        let linear = value("level 4 spmv: max-rate + queue/3");
        assert!(saved >= 0.15 * linear, "hashed saves {saved} of {linear}");
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
        // The README's `sweep merge s*.jsonl --out sweep.jsonl` run again:
        // the glob now matches the earlier output, which is not a shard.
        let s = |f: &str| d.join(f).to_str().unwrap().to_string();
        ok(&[
            "sweep",
            "merge",
            &s("m.jsonl"),
            &s("s0.jsonl"),
            &s("s1.jsonl"),
            "--out",
            &s("m.jsonl"),
        ]);
        assert_eq!(std::fs::read(&merged).unwrap(), one, "merged again");
        // Another whole copy among the shards: both places are named.
        let e = fails(&[
            "sweep",
            "merge",
            &s("s0.jsonl"),
            &s("s1.jsonl"),
            &s("a.jsonl"),
        ]);
        assert!(
            e.contains("appears twice") && e.contains("a.jsonl:") && e.contains("s0.jsonl:"),
            "{e}"
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

    /// The fat-tree routings from the command line (docs/SCENARIOS.md,
    /// "Routings"): a shift permutation on a full-bisection SimGrid fat
    /// tree puts one flow per link under D-mod-k, four on a leaf's first
    /// up-link under the default table, three under ECMP; the makespans
    /// scale so (within 2 %: the latencies do not scale).
    #[test]
    fn fat_tree_routings_on_a_shift() {
        let (csv, xml) = (
            example("traces/shift-16x256k.csv"),
            example("platform/fat-tree.xml"),
        );
        let makespan = |routing: &str| {
            let set = format!("transport.routing={routing}");
            let v = json(&ok(&[
                "replay",
                &csv,
                "--platform",
                &xml,
                "--mode",
                "flow",
                "--set",
                &set,
                "--json",
            ]));
            v["makespan_ps"].as_u64().unwrap() as f64
        };
        let d = makespan("dmodk");
        let near = |x: f64, want: f64| (x / want - 1.0).abs() < 0.02;
        // The default is SimGrid's own rule, D-mod-k.
        assert_eq!(makespan("dor"), d);
        assert!(near(makespan("ecmp"), 3.0 * d), "{}", makespan("ecmp"));
        // D-mod-k needs the fat tree: a flat cluster is bad input.
        let flat = example("platform/cluster.xml");
        let o = netsim(&[
            "replay",
            &example("platform/list.txt"),
            "--platform",
            &flat,
            "--set",
            "transport.routing=dmodk",
        ]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("dmodk routing needs a SimGrid FAT_TREE"),
            "{err}"
        );
    }

    /// `--collectives` on `replay`, `run` and `sweep`: SimGrid's alltoall
    /// of 3 ranks runs as SMPI runs it (Open MPI's table: P = 3, 500
    /// elements = 4000 B < 8192: linear_sync, i.e. all at once), where
    /// netsim's own rule exchanges pairwise (P < 8); the report names
    /// algorithm and rule; a bad name exits 2.
    #[test]
    fn collectives_option_chooses_and_reports_the_algorithm() {
        let a2a = shared("traces/simgrid-ti/micro/actions_alltoall.txt");
        let args = |sel: &'static str| {
            [
                "replay",
                "--machine",
                "ideal",
                "--json",
                "--collectives",
                sel,
            ]
        };
        let mut a = args("smpi").to_vec();
        a.push(&a2a);
        let v = json(&ok(&a));
        assert_eq!(v["mpi"]["collectives"], "smpi");
        assert_eq!(v["collectives"][0]["algorithm"], "scattered");
        assert_eq!(v["collectives"][0]["calls"], 1);
        let mut a = args("netsim").to_vec();
        a.push(&a2a);
        let v = json(&ok(&a));
        assert_eq!(v["collectives"][0]["algorithm"], "pairwise");
        let table = ok(&[
            "replay",
            "--machine",
            "ideal",
            "--collectives",
            "smpi",
            &a2a,
        ]);
        assert!(
            table.contains("collectives  selector smpi") && table.contains("alltoall__ompi"),
            "{table}"
        );
        let ex = example("allreduce-infiniband.toml");
        let v = json(&ok(&["run", &ex, "--json", "--collectives", "smpi"]));
        assert_eq!(v["collectives"][0]["algorithm"], "reduce_bcast");
        let rows = ok(&[
            "sweep",
            &ex,
            "--vary",
            "mpi.collectives.allreduce=ring,reduce_bcast",
            "--collectives",
            "smpi",
            "--threads",
            "1",
        ]);
        let algs: Vec<String> = rows
            .lines()
            .map(|l| json(l)["result"]["collectives"][0]["algorithm"].to_string())
            .collect();
        assert_eq!(algs, ["\"ring\"", "\"reduce_bcast\""]);
        let o = netsim(&["replay", "--machine", "ideal", "--collectives", "mpi", &a2a]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("unknown selector `mpi`: one of netsim, smpi"),
            "{err}"
        );
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
    /// complete at 2 313 785 ps, below) and a GOAL schedule (the same
    /// single message).
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
        // Each rank sends and receives at once: its send holds its core
        // alpha + 7 B / 1.3 GB/s (2 305 385 ps), and the other's message,
        // there gamma (8.4 ns) before that, is searched after it.
        assert_eq!(
            (v["messages"].as_u64(), v["makespan_ps"].as_u64()),
            (Some(2), Some(2_313_785))
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
        // purpose: the deadlock is diagnosed with the schedule's line,
        // also when it runs compiled (`netsim compile`; `.goalc` is GOAL).
        let g = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/examples/goal-small.goal");
        let e = fails(&["replay", "--format", "goal", g.to_str().unwrap()]);
        assert!(
            e.contains("deadlock") && e.contains("goal-small.goal:26"),
            "{e}"
        );
        let c = d.join("small.goalc");
        ok(&["compile", g.to_str().unwrap(), c.to_str().unwrap()]);
        assert_eq!(fails(&["replay", c.to_str().unwrap()]), e);
        // A compiled file is refused by name, with the exit code of bad
        // input, when it is damaged.
        let mut bytes = std::fs::read(&c).unwrap();
        bytes.truncate(bytes.len() - 1);
        std::fs::write(&c, &bytes).unwrap();
        let o = netsim(&["replay", c.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(
            e.contains("small.goalc: byte") && !e.contains("panicked"),
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
            e.contains("deadlock")
                && e.contains(
                    "rank 1 blocked in MPI_Recv(source 0, tag 0, 8 B, MPI_COMM_WORLD) at"
                )
                && e.contains("dl.txt:4"),
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

// ------------------------------------------------------------ bad input

/// Every class of bad input of `docs/BAD-INPUT.md`: the input, the exit
/// code and the message. Each test writes its file, runs `netsim`, and
/// checks the code, the message, and that nothing panicked.
mod bad_input {
    use std::process::Command;

    /// Writes `contents` to `file` in a fresh folder, runs `netsim CMD
    /// FILE ARGS...` and checks the exit code and that stderr holds
    /// `message`; returns stdout.
    fn check(
        test: &str,
        file: &str,
        contents: &str,
        cmd: &str,
        args: &[&str],
        code: i32,
        message: &str,
    ) -> String {
        let dir = std::env::temp_dir().join(format!("netsim-bad-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(file);
        std::fs::write(&path, contents).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_netsim"))
            .arg(cmd)
            .arg(&path)
            .arg("--quiet")
            .args(args)
            .output()
            .expect("netsim runs");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(!err.contains("panicked"), "{test}: netsim panicked:\n{err}");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{test}: exit code; stderr:\n{err}"
        );
        assert!(
            err.contains(message),
            "{test}: stderr lacks `{message}`:\n{err}"
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    }

    macro_rules! bad_input {
        ($($name:ident: $file:expr, $contents:expr, $cmd:expr, [$($arg:expr),*], $code:expr, $message:expr;)*) => {$(
            #[test]
            fn $name() {
                check(stringify!($name), $file, $contents, $cmd, &[$($arg),*], $code, $message);
            }
        )*};
    }

    bad_input! {
        finding3_csv_rank_u32_max_is_a_range_error: "x.csv", "0,4294967295,8\n", "replay", [], 2, "x.csv:1: rank 4294967295 exceeds the limit of 4194304 ranks (netsim's MAX_RANKS";
        finding2_csv_u64_max_message_no_past_event: "x.csv", "0,1,18446744073709551615\n", "replay", [], 2, "x.csv:1: bytes: 18446744073709551615 bytes exceeds the limit of 1099511627776 bytes (1 TiB, netsim's MAX_MESSAGE_BYTES)";
        finding2_csv_1e18_bytes_no_1ps_inversion: "x.csv", "0,1,1000000000000000000\n1,0,1000000000000000000\n", "replay", ["--mode", "flow"], 2, "x.csv:1: bytes: 1000000000000000000 bytes exceeds the limit of 1099511627776 bytes";
        csv_negative_bytes: "x.csv", "0,1,-8\n", "replay", [], 2, "x.csv:1: bytes must not be negative, found `-8`";
        csv_bad_header: "x.csv", "a,b,c\n0,1,8\n", "replay", [], 2, "x.csv:1: expected the header `src,dst,bytes` or a message, found `a,b,c`";
        csv_wrong_field_count: "x.csv", "0,1\n", "replay", [], 2, "x.csv:1: expected 3 fields `src,dst,bytes`, found `0,1`";
        csv_rank_not_an_integer: "x.csv", "0,x,8\n", "replay", [], 2, "x.csv:1: dst must be an integer in range, found `x`";
        finding6_truncated_recv_is_mpi_err_truncate: "x.trace", "0 send dst=1 tag=0 bytes=16\n1 recv src=0 tag=0 bytes=8\n", "replay", [], 2, "x.trace:2: recv: message truncated (MPI_ERR_TRUNCATE): rank 0 sent 16 bytes (tag 0) to rank 1, whose recv holds 8 bytes";
        finding6_truncated_irecv_rendezvous: "x.trace", "0 isend dst=1 tag=3 bytes=100000 req=1\n0 wait req=1\n1 irecv src=0 tag=3 bytes=64 req=7\n1 wait req=7\n", "replay", [], 2, "x.trace:3: irecv: message truncated (MPI_ERR_TRUNCATE): rank 0 sent 100000 bytes (tag 3) to rank 1, whose irecv holds 64 bytes";
        native_unknown_time_unit: "x.trace", "0 compute 5h\n", "replay", [], 2, "x.trace:1: compute: unknown time unit `h` (ps, ns, us, ms, s)";
        native_duration_without_unit: "x.trace", "0 compute 5\n", "replay", [], 2, "x.trace:1: compute: duration `5` needs a unit (ps, ns, us, ms, s)";
        finding2_native_compute_above_duration_limit: "x.trace", "0 compute 18000000s\n", "replay", [], 2, "x.trace:1: compute: 18000000000000000000 ps exceeds the limit of 1000000000000000000 ps (10^6 s, netsim's MAX_DURATION)";
        finding2_json_never_prints_a_saturated_makespan: "x.trace", "0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n0 compute 900000s\n", "replay", ["--json"], 2, "simulated time exceeds the limit of 1000000000000000000 ps (10^6 s, netsim's MAX_SIM_TIME)";
        native_rank_beyond_rank_limit: "x.trace", "4294967295 barrier\n", "replay", [], 2, "x.trace:1: rank 4294967295 exceeds the limit of 4194304 ranks";
        native_unknown_operation: "x.trace", "0 fly\n", "replay", [], 2, "x.trace:1: fly: unknown operation";
        native_missing_field: "x.trace", "0 send dst=1 tag=0\n1 recv src=0 tag=0 bytes=8\n", "replay", [], 2, "x.trace:1: send: missing field `bytes=`";
        native_field_given_twice: "x.trace", "0 send dst=1 tag=0 tag=1 bytes=8\n1 recv src=0 tag=0 bytes=8\n", "replay", [], 2, "x.trace:1: send: field `tag` given twice";
        native_unknown_field: "x.trace", "0 send dst=1 tag=0 bytes=8 color=red\n1 recv src=0 tag=0 bytes=8\n", "replay", [], 2, "x.trace:1: send: unknown field `color`";
        native_destination_names_no_rank: "x.trace", "0 send dst=5 tag=0 bytes=8\n1 recv src=0 tag=0 bytes=8\n", "replay", [], 2, "x.trace:1: send: dst=5 names no rank (the trace has ranks 0..2)";
        native_negative_bytes: "x.trace", "0 send dst=1 tag=0 bytes=-8\n1 recv src=0 tag=0 bytes=8\n", "replay", [], 2, "x.trace:1: send: bytes must not be negative, found `-8`";
        native_bytes_above_size_limit: "x.trace", "0 send dst=1 tag=0 bytes=2000000000000\n1 recv src=0 tag=0 bytes=2000000000000\n", "replay", [], 2, "x.trace:1: send: bytes: 2000000000000 bytes exceeds the limit of 1099511627776 bytes";
        native_request_already_in_flight: "x.trace", "0 irecv src=1 tag=0 bytes=8 req=1\n0 irecv src=1 tag=0 bytes=8 req=1\n1 barrier\n", "replay", [], 2, "x.trace:2: request 1 is already in flight";
        finding8_deadlock_exits_3: "x.trace", "0 recv src=1 tag=0 bytes=8\n1 recv src=0 tag=0 bytes=8\n", "replay", [], 3, "the run deadlocked";
        finding4_goal_num_ranks_above_rank_limit: "x.goal", "num_ranks 4294967295\n", "replay", [], 2, "x.goal:1: num_ranks: 4294967295 ranks exceeds the limit of 4194304 ranks (netsim's MAX_RANKS)";
        goal_rank_block_before_num_ranks: "x.goal", "rank 0 {\n}\nnum_ranks 1\n", "replay", [], 2, "x.goal:1: `rank` block before `num_ranks`";
        goal_rank_does_not_exist: "x.goal", "num_ranks 2\nrank 5 {\n}\n", "replay", [], 2, "x.goal:2: rank 5 does not exist (num_ranks 2)";
        goal_size_above_size_limit: "x.goal", "num_ranks 2\nrank 0 {\n  s: send 18446744073709551615b to 1 tag 0\n}\nrank 1 {\n  r: recv 18446744073709551615b from 0 tag 0\n}\n", "replay", [], 2, "x.goal:3: size: 18446744073709551615 bytes exceeds the limit of 1099511627776 bytes";
        goal_size_without_b: "x.goal", "num_ranks 2\nrank 0 {\n  s: send 8 to 1 tag 0\n}\nrank 1 {\n}\n", "replay", [], 2, "x.goal:3: size `8` must be bytes, e.g. `8b`";
        goal_calc_above_duration_limit: "x.goal", "num_ranks 1\nrank 0 {\n  c: calc 18446744073709551615\n}\n", "replay", [], 2, "x.goal:3: calc 18446744073709551615 (x 1000 ps): 18446744073709551615 ps exceeds the limit of 1000000000000000000 ps";
        goal_without_num_ranks: "x.goal", "// nothing\n", "replay", [], 2, "x.goal: no `num_ranks` line";
        goal_block_never_closed: "x.goal", "num_ranks 1\nrank 0 {\n  c: calc 5\n", "replay", [], 2, "x.goal:2: `rank` block is never closed with `}`";
        ti_size_above_size_limit: "x.ti", "0 send 1 0 1e19\n1 recv 0 0 1e19\n", "replay", [], 2, "x.ti:1: send: size of 10000000000000000000 elements: 10000000000000000000 bytes exceeds the limit of 1099511627776 bytes";
        ti_compute_too_long: "x.ti", "0 compute 1e30\n1 compute 1\n", "replay", [], 2, "x.ti:1: compute: 1000000000000000000000000000000 flops is too long a computation";
        ti_negative_flops: "x.ti", "0 compute -5\n1 compute 1\n", "replay", [], 2, "x.ti:1: compute: flops must not be negative, found `-5`";
        dumpi_numprocs_above_rank_limit: "x.meta", "numprocs=4294967295\nfileprefix=d\n", "replay", [], 2, "x.meta:1: numprocs: 4294967295 ranks exceeds the limit of 4194304 ranks";
        dumpi_without_numprocs: "x.meta", "fileprefix=d\n", "replay", [], 2, "x.meta: no `numprocs=` line";
        finding4_ethernet_racks_times_nodes_above_node_limit: "x.toml", "[machine]\npreset = \"ethernet-zhu\"\nracks = 100000\nnodes_per_rack = 100000\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:4: `machine.nodes_per_rack`: 100000 racks x 100000 nodes: 10000000000 nodes exceeds the limit of 4194304 nodes (netsim's MAX_NODES)";
        finding4_ethernet_routing_table_above_limit: "x.toml", "[machine]\npreset = \"ethernet-zhu\"\nracks = 10000\nnodes_per_rack = 100\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: `machine.racks`: 10000 racks x 1000000 nodes needs a routing table of 10000000000 entries, above the limit of 268435456 (netsim's MAX_ROUTE_TABLE_ENTRIES)";
        finding4_blue_waters_nodes_per_router_above_node_limit: "x.toml", "[machine]\npreset = \"blue-waters\"\ndims = [2, 2, 2]\nnodes_per_router = 4294967295\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:4: `machine.nodes_per_router`: 4294967295 per router x 8 routers: 34359738360 nodes exceeds the limit of 4194304 nodes";
        scenario_torus_routers_above_limit: "x.toml", "[machine]\npreset = \"blue-waters\"\ndims = [2000, 2000, 2000]\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: `machine.dims`: 8000000000 routers exceeds the limit of 1048576 routers (netsim's MAX_ROUTERS)";
        scenario_ideal_nodes_above_node_limit: "x.toml", "[machine]\npreset = \"ideal\"\nnodes = 100000000\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: `machine.nodes`: 100000000 nodes exceeds the limit of 4194304 nodes";
        scenario_infiniband_nodes_above_node_limit: "x.toml", "[machine]\npreset = \"infiniband-qdr\"\nnodes = 100000000\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: `machine.nodes`: 100000000 nodes exceeds the limit of 4194304 nodes";
        finding2_scenario_compute_above_duration_limit: "x.toml", "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"halo\"\nprocs = 8\ncompute = \"2e6 s\"\n", "run", [], 2, "x.toml:6: `2e6 s`: 2000000000000000000 ps exceeds the limit of 1000000000000000000 ps (10^6 s, netsim's MAX_DURATION)";
        finding2_scenario_computes_past_horizon: "x.toml", "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"halo\"\nprocs = 8\niters = 30\ncompute = \"900000 s\"\n", "run", [], 2, "simulated time exceeds the limit of 1000000000000000000 ps (10^6 s, netsim's MAX_SIM_TIME)";
        scenario_workload_size_above_size_limit: "x.toml", "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"ping-pong\"\nsizes = [\"2000 GiB\"]\nreps = 1\n", "run", [], 2, "message size: 2147483648000 bytes exceeds the limit of 1099511627776 bytes";
        scenario_size_beyond_u64: "x.toml", "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"ping-pong\"\nsizes = [\"1e30 B\"]\nreps = 1\n", "run", [], 2, "x.toml:5: `1e30 B`: a size must be between 0 and 2^64 bytes";
        scenario_latency_above_duration_limit: "x.toml", "[machine]\npreset = \"ideal\"\nlatency = \"1e7 s\"\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: `1e7 s`: 10000000000000000000 ps exceeds the limit of 1000000000000000000 ps";
        scenario_time_without_unit: "x.toml", "[machine]\npreset = \"ideal\"\nlatency = 5\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: time 5 has no unit: write e.g. \"5 ns\" or \"5 us\"";
        scenario_unknown_time_unit: "x.toml", "[machine]\npreset = \"ideal\"\nlatency = \"5 fortnights\"\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: `5 fortnights`: unknown time unit `fortnights` (ps, ns, us, ms, s)";
        scenario_unknown_field: "x.toml", "[machine]\npreset = \"ideal\"\ncolour = \"red\"\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: unknown field `colour`";
        scenario_negative_size: "x.toml", "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"ping-pong\"\nsizes = [-8]\nreps = 1\n", "run", [], 2, "x.toml:5: size -8 is negative; sizes are 0 or more bytes";
        scenario_zero_rate: "x.toml", "[machine]\npreset = \"ideal\"\nbandwidth = \"0 B/s\"\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: `0 B/s`: a rate must be at least 1 B/s";
        scenario_bad_toml: "x.toml", "[machine\n", "run", [], 2, "x.toml:1: unclosed table, expected `]`";
        scenario_unknown_workload_kind: "x.toml", "[workload]\nkind = \"dance\"\n", "run", [], 2, "x.toml:2: unknown variant `dance`";
        everyday_torus_dims_of_two_values_at_their_line: "x.toml", "[machine]\npreset = \"blue-waters\"\ndims = [2, 2]\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: invalid length 2, expected an array of length 3";
        everyday_zero_racks_at_their_line: "x.toml", "[machine]\npreset = \"ethernet-zhu\"\nracks = 0\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: `machine.racks`: must be at least 1";
        everyday_zero_sockets_blame_the_machine: "x.toml", "[machine]\npreset = \"ideal\"\nsockets = 0\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: `machine.sockets`: must be at least 1";
        everyday_rate_too_large: "x.toml", "[machine]\npreset = \"ideal\"\nbandwidth = \"1e30 B/s\"\n[workload]\nkind = \"ping-pong\"\nsizes = [8]\nreps = 1\n", "run", [], 2, "x.toml:3: `1e30 B/s`: a rate must be below 1.8e19 B/s (2^64)";
        everyday_workload_above_the_memory_limit: "x.toml", "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"message-rate\"\niters = 10000\n", "run", ["--max-memory", "100 MB"], 2, "x.toml:5: `workload.iters`: a workload of about 1320000 operations needs about 139 MB, more than the 100 MB set by --max-memory; lower `workload.iters`, or raise the limit with --max-memory";
        everyday_workload_above_the_operation_limit: "x.toml", "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"message-rate\"\niters = 7000000\n", "run", [], 2, "x.toml:5: `workload.iters`: about 924000000 operations is more than the 268435456 a built-in workload may hold in memory";
        everyday_goal_label_defined_twice: "x.goal", "num_ranks 2\nrank 0 {\n l1: send 8b to 1 tag 0\n l1: calc 5\n}\nrank 1 {\n r: recv 8b from 0 tag 0\n}\n", "replay", [], 2, "x.goal:4: label `l1` is defined twice in this rank's block";
        everyday_ti_count_below_one_element: "x.ti", "0 send 1 0 1e-300\n1 recv 0 0 1e-300\n", "replay", [], 2, "x.ti:1: send: count 1e-300 is less than one element: counts are whole numbers";
        everyday_ranks_above_the_memory_limit: "x.csv", "0,1,8\n", "replay", ["--max-memory", "900 B"], 2, "the state of 2 ranks needs about 940 B, more than the 900 B set by --max-memory; run a smaller trace or workload";
        everyday_empty_message_list_names_its_file: "x.csv", "", "replay", [], 2, "x.csv: the workload read from this file has no ranks";
    }

    /// Finding 2: `--json` prints no report (no saturated makespan) when
    /// the run passes the horizon.
    #[test]
    fn finding2_json_prints_nothing_past_the_horizon() {
        let out = check(
            "json-nothing",
            "x.trace",
            &"0 compute 900000s\n".repeat(25),
            "replay",
            &["--json"],
            2,
            "MAX_SIM_TIME",
        );
        assert!(out.is_empty(), "no report: {out}");
    }

    /// Finding 5: the documented `1e-3s` is read (exit 0) and timed.
    #[test]
    fn finding5_native_scientific_duration_is_accepted() {
        let out = check(
            "sci",
            "x.trace",
            "0 compute 1e-3s\n1 compute 2.5E+3ns\n",
            "replay",
            &["--json", "--no-wall"],
            0,
            "",
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["makespan_ps"], 1_000_000_000u64);
    }

    /// Finding 8: a valid run exits 0, a missing file 2, a deadlock 3
    /// (above); `--help` documents the codes.
    #[test]
    fn finding8_exit_codes_success_input_and_help() {
        check("ok", "x.csv", "0,1,8\n", "replay", &[], 0, "");
        let out = Command::new(env!("CARGO_BIN_EXE_netsim"))
            .args(["replay", "/nonexistent/netsim/x.trace"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("cannot open trace file"));
        let out = Command::new(env!("CARGO_BIN_EXE_netsim"))
            .args(["validate", "--case", "no-such-case"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let help = Command::new(env!("CARGO_BIN_EXE_netsim"))
            .arg("--help")
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&help.stdout);
        assert!(
            help.contains(
                "Exit codes: 0 success; 1 a validation row or a check failed; 2 bad input"
            ),
            "{help}"
        );
        assert!(help.contains("3 the simulation deadlocked"), "{help}");
    }
}

// The crate's other integration tests, as modules of this one binary.
#[path = "netsim/bench_smoke.rs"]
mod bench_smoke;
#[path = "netsim/everyday.rs"]
mod everyday;
#[path = "netsim/first_steps.rs"]
mod first_steps;
#[path = "netsim/open_files.rs"]
mod open_files;
#[path = "netsim/otf2.rs"]
mod otf2;
#[path = "netsim/platform.rs"]
mod platform;
#[path = "netsim/plot_layout.rs"]
mod plot_layout;
