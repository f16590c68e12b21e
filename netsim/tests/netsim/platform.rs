//! `netsim replay --platform` (SimGrid platform XML) and
//! `--machine-file`: replays with answers computed by hand the way
//! SimGrid's CM02 model computes them, and the platform's bad inputs
//! (rows 55-60, 87, 88, 92 and 93 of docs/BAD-INPUT.md).
//!
//! SimGrid's settings the answers assume (those of
//! `bench/peers/peers.py`): `network/model:CM02`,
//! `network/crosstraffic:0`, no bandwidth or latency factors, every send
//! detached and asynchronous; SMPI's 16-byte envelope on every message.
//! netsim's default MPI preset on a platform, `smpi`, is that physics: a
//! message of `s` bytes on an idle route takes `latency + (s + 16) /
//! bandwidth`. SimGrid 3.32 (`smpirun -replay`) gave the same numbers to
//! the picosecond for both platforms here (see the report of issue 14).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netsim-platform-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn netsim(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netsim"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("netsim runs")
}

fn makespan_ps(cwd: &Path, args: &[&str]) -> u64 {
    let o = netsim(cwd, args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "netsim {args:?}: {err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["makespan_ps"].as_u64().unwrap_or_else(|| panic!("{v}"))
}

/// Writes one SimGrid TI file per rank, `{prefix}{rank}.txt` with the
/// text given, and `list`, which names them in rank order.
fn ti_trace(d: &Path, list: &str, prefix: &str, ranks: &[&str]) {
    let mut names = String::new();
    for (r, text) in ranks.iter().enumerate() {
        let name = format!("{prefix}{r}.txt");
        std::fs::write(d.join(&name), text).unwrap();
        names += &name;
        names.push('\n');
    }
    std::fs::write(d.join(list), names).unwrap();
}

/// Two ranks exchanging 1e8 B at once (`irecv`, `isend`, `waitall`)
/// replayed on `platform` (as `x.xml`): the default mode (`auto`, flow)
/// takes 1.600020256 s (20 us + 2 x (1e8 + 16) B / 125 MB/s), and the
/// packet model refuses the platform (exit 2) with `refusal` and the
/// advice to use flow mode.
fn exchange_flow_only(test: &str, platform: &str, refusal: &str) {
    let d = &dir(test);
    std::fs::write(d.join("x.xml"), platform).unwrap();
    ti_trace(
        d,
        "list.txt",
        "t",
        &[
            "0 init\n0 irecv 1 0 1e8\n0 isend 1 0 1e8\n0 waitall\n",
            "1 init\n1 irecv 0 0 1e8\n1 isend 0 0 1e8\n1 waitall\n",
        ],
    );
    let args = [
        "replay",
        "list.txt",
        "--platform",
        "x.xml",
        "--json",
        "--no-wall",
    ];
    assert_eq!(makespan_ps(d, &args), 1_600_020_256_000);
    let o = netsim(d, &[&args[..], &["--mode", "packet"]].concat());
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    let _ = std::fs::remove_dir_all(d);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(refusal), "{err}");
    assert!(err.contains("use flow mode"), "{err}");
}

/// A flat cluster of four 1 Gf hosts: private links 125 MB/s, 50 us;
/// backbone 2.25 GB/s, 500 us.
const FLAT_CLUSTER: &str = r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf"
           bw="125MBps" lat="50us" bb_bw="2.25GBps" bb_lat="500us"/>
</platform>
"#;

/// SimGrid's own example trace (`actions0.txt`, `actions1.txt` of its
/// replay examples): rank 0 sends 1e6 B (tag 0) to rank 1, which
/// receives, computes 1e9 flops, sends 1e6 B back (tag 1) and receives
/// 1e6 B (tag 2).
fn simgrid_example(d: &Path) {
    ti_trace(
        d,
        "list.txt",
        "actions",
        &[
            "0 init\n0 send 1 0 1e6\n0 recv 1 1 1e6\n0 send 1 2 1e6\n0 finalize\n",
            "1 init\n1 recv 0 0 1e6\n1 compute 1e9\n1 isend 0 1 1e6\n1 irecv 0 2 1e6\n1 wait 0 1 2\n1 finalize\n",
        ],
    );
}

#[test]
fn ti_trace_on_a_flat_cluster_is_simgrids_cm02_answer() {
    let d = dir("flat");
    simgrid_example(&d);
    std::fs::write(d.join("cluster.xml"), FLAT_CLUSTER).unwrap();
    // One message: route h0 -> h1 = private up (50 us) + backbone
    // (500 us) + private down (50 us) = 600 us; bottleneck 125 MB/s;
    // (1e6 + 16) B / 125e6 B/s = 8.000128 ms; T = 8.600128 ms.
    // Rank 1 ends after three messages in a chain and 1e9 flops at 1 Gf
    // (1 s): 3 x 8.600128 ms + 1 s = 1.025800384 s.
    // SimGrid 3.32 smpirun -replay: 1.025800384000 s.
    let t = 3 * 8_600_128_000 + 1_000_000_000_000;
    for mode in ["flow", "packet"] {
        let got = makespan_ps(
            &d,
            &[
                "replay",
                "list.txt",
                "--platform",
                "cluster.xml",
                "--mode",
                mode,
                "--json",
                "--no-wall",
            ],
        );
        if mode == "flow" {
            assert_eq!(got, t, "flow");
        } else {
            // Packets are forwarded store-and-forward through the switch.
            assert!(got >= t && got < t + t / 100, "packet {got} vs {t}");
        }
    }
    // The header is a parameter: 0 B takes 3 x 16 B / 125e6 B/s = 384 ns
    // off.
    let got = makespan_ps(
        &d,
        &[
            "replay",
            "list.txt",
            "--platform",
            "cluster.xml",
            "--mode",
            "flow",
            "--json",
            "--no-wall",
            "--set",
            "mpi.header_bytes=0",
        ],
    );
    assert_eq!(got, t - 384_000);
    let _ = std::fs::remove_dir_all(&d);
}

/// On a SimGrid platform a replay runs SimGrid's collectives (the `smpi`
/// selector) unless told otherwise; elsewhere netsim's own.
#[test]
fn a_platform_replay_defaults_to_simgrids_collectives() {
    let d = dir("selector");
    std::fs::write(d.join("cluster.xml"), FLAT_CLUSTER).unwrap();
    let t = d.join("a.ti");
    let text: String = (0..4)
        .map(|r| format!("{r} init\n{r} alltoall 100 100\n"))
        .collect();
    std::fs::write(&t, text).unwrap();
    let selector = |args: &[&str]| {
        let o = netsim(&d, args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["mpi"]["collectives"].as_str().unwrap().to_string()
    };
    let on_platform = [
        "replay",
        "a.ti",
        "--platform",
        "cluster.xml",
        "--json",
        "--no-wall",
    ];
    assert_eq!(selector(&on_platform), "smpi");
    let named = [&on_platform[..], &["--collectives", "netsim"]].concat();
    assert_eq!(selector(&named), "netsim");
    let torus = [
        "replay",
        "a.ti",
        "--machine",
        "ideal",
        "--json",
        "--no-wall",
    ];
    assert_eq!(selector(&torus), "netsim");
}

#[test]
fn full_routing_zone_with_explicit_routes() {
    let d = dir("full");
    std::fs::write(
        d.join("p.xml"),
        r#"<?xml version='1.0'?>
<platform version="4.1">
  <zone id="world" routing="Full">
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
    <host id="c" speed="1Gf"/>
    <link id="la" bandwidth="125MBps" latency="10us" sharing_policy="SPLITDUPLEX"/>
    <link id="lb" bandwidth="100MBps" latency="20us" sharing_policy="SPLITDUPLEX"/>
    <link id="lc" bandwidth="125MBps" latency="30us" sharing_policy="SPLITDUPLEX"/>
    <link id="bb" bandwidth="10GBps" latency="5us"/>
    <route src="a" dst="b"><link_ctn id="la" direction="UP"/><link_ctn id="bb"/><link_ctn id="lb" direction="DOWN"/></route>
    <route src="a" dst="c"><link_ctn id="la" direction="UP"/><link_ctn id="bb"/><link_ctn id="lc" direction="DOWN"/></route>
    <route src="b" dst="c"><link_ctn id="lb" direction="UP"/><link_ctn id="bb"/><link_ctn id="lc" direction="DOWN"/></route>
  </zone>
</platform>
"#,
    )
    .unwrap();
    ti_trace(
        &d,
        "list.txt",
        "r",
        &[
            "0 init\n0 send 1 0 1000000\n0 recv 2 1 500000\n0 finalize\n",
            "1 init\n1 recv 0 0 1000000\n1 compute 1e6\n1 send 2 2 2000000\n1 finalize\n",
            "2 init\n2 recv 1 2 2000000\n2 send 0 1 500000\n2 finalize\n",
        ],
    );
    // a -> b: 10 + 5 + 20 us = 35 us, bottleneck lb 100 MB/s:
    //   35 us + 1000016 B / 1e8 B/s = 10.035160 ms
    // b computes 1e6 flops at 1 Gf: 1 ms -> 11.035160 ms
    // b -> c: 20 + 5 + 30 us = 55 us, 100 MB/s:
    //   55 us + 2000016 / 1e8 = 20.055160 ms -> 31.090320 ms
    // c -> a: 30 + 5 + 10 us = 45 us, 125 MB/s:
    //   45 us + 500016 / 125e6 = 4.045128 ms -> 35.135448 ms
    // SimGrid 3.32 smpirun -replay: 0.035135448000 s.
    let got = makespan_ps(
        &d,
        &[
            "replay",
            "list.txt",
            "--platform",
            "p.xml",
            "--mode",
            "flow",
            "--json",
            "--no-wall",
        ],
    );
    assert_eq!(got, 35_135_448_000);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn platform_in_a_scenario_file_and_machine_file_replay() {
    let d = dir("scenario");
    simgrid_example(&d);
    std::fs::write(
        d.join("c.xml"),
        r#"<platform version="4.1"><cluster id="c" prefix="h" suffix="" radical="0-1" speed="1Gf" bw="125MBps" lat="50us"/></platform>"#,
    )
    .unwrap();
    std::fs::write(
        d.join("s.toml"),
        "[machine]\nplatform = \"c.xml\"\n[transport]\nmode = \"flow\"\n[workload]\nkind = \"trace\"\npath = \"list.txt\"\n",
    )
    .unwrap();
    // 100 us + 8.000128 ms per message; 3 of them and 1 s.
    let t = 3 * 8_100_128_000 + 1_000_000_000_000;
    assert_eq!(
        makespan_ps(&d, &["run", "s.toml", "--json", "--no-wall"]),
        t
    );
    // The same machine as a netsim machine file, with the smpi preset.
    std::fs::write(
        d.join("m.txt"),
        "switch s\nhost h0\nhost h1\nlink h0 s bw=125MB/s lat=50us\nlink h1 s bw=125MB/s lat=50us\n",
    )
    .unwrap();
    let got = makespan_ps(
        &d,
        &[
            "replay",
            "list.txt",
            "--machine-file",
            "m.txt",
            "--mpi",
            "smpi",
            "--mode",
            "flow",
            "--json",
            "--no-wall",
        ],
    );
    assert_eq!(got, t);
    // --platform and --machine-file exclude each other (and --machine).
    let o = netsim(
        &d,
        &[
            "replay",
            "list.txt",
            "--machine-file",
            "m.txt",
            "--platform",
            "c.xml",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

/// A platform's bad input (docs/BAD-INPUT.md rows 55-60, 87, 88): `netsim replay
/// t.ti --platform x.xml` exits 2 naming `x.xml:LINE` and the element.
fn bad(test: &str, xml: &str, message: &str) {
    let d = dir(test);
    std::fs::write(d.join("x.xml"), xml).unwrap();
    std::fs::write(d.join("t.ti"), "0 send 1 0 8\n1 recv 0 0 8\n").unwrap();
    let o = netsim(&d, &["replay", "t.ti", "--platform", "x.xml", "--quiet"]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    let _ = std::fs::remove_dir_all(&d);
    assert!(!err.contains("panicked"), "{test}: netsim panicked:\n{err}");
    assert_eq!(
        o.status.code(),
        Some(2),
        "{test}: exit code; stderr:\n{err}"
    );
    assert!(
        err.contains(message),
        "{test}: stderr lacks `{message}`:\n{err}"
    );
}

const HOSTS: &str = "<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"1Gf\"/>\n";

#[test]
fn bad_platform_unsupported_element() {
    bad(
        "element",
        &format!(
            "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n{HOSTS}<trace id=\"t\" periodicity=\"1\"/>\n</zone>\n</platform>\n"
        ),
        "x.xml:5: <trace> is not supported by netsim's platform import",
    );
}

#[test]
fn bad_platform_unsupported_topology() {
    bad(
        "topology",
        "<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" topology=\"BOGUS\"/>\n</platform>\n",
        "x.xml:2: <cluster topology=\"BOGUS\">: netsim imports FLAT, TORUS, FAT_TREE and DRAGONFLY",
    );
}

#[test]
fn bad_platform_route_crossing_a_link_twice() {
    bad(
        "twice",
        &format!(
            "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n{HOSTS}<link id=\"l1\" bandwidth=\"1GBps\"/><link id=\"l2\" bandwidth=\"1GBps\"/>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l1\"/><link_ctn id=\"l2\"/><link_ctn id=\"l1\"/></route>\n</zone>\n</platform>\n"
        ),
        "x.xml:2: the route from `a` to `b` crosses link `l1` twice",
    );
}

#[test]
fn bad_platform_bandwidth_of_unknown_unit() {
    bad(
        "unit",
        "<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"125 GB\" lat=\"1us\"/>\n</platform>\n",
        "x.xml:2: <cluster bw>: bandwidth `125 GB`: expected a number and a unit (Bps",
    );
}

#[test]
fn bad_platform_limiter_that_could_limit_a_torus_host() {
    // SimGrid 3.32 puts the limiter on every route from and to the host;
    // netsim has none, so it must not be ignored.
    bad(
        "limiter",
        "<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\" topology=\"TORUS\" topo_parameters=\"2,2\" limiter_link=\"1GBps\"/>\n</platform>\n",
        "x.xml:2: <cluster limiter_link>: 1.000 GB/s could limit a host sending and receiving at once",
    );
}

/// Two ranks exchanging 1e8 B at once over a Full zone's route `l1, l2`
/// (125 MB/s, 10 us each), SHARED (SimGrid's default): both messages
/// draw on each link, each at half its bandwidth. SimGrid 3.32 (equal
/// physics, docs/PEERS.md): 1.600020256000 s = 20 us + 2 x (1e8 + 16) B
/// / 125 MB/s. `auto` takes the flow model for it; the packet model
/// refuses it (exit 2, naming the link).
#[test]
fn a_shared_link_both_ways_is_one_capacity() {
    exchange_flow_only(
        "shared",
        &format!(
            "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n{HOSTS}<link id=\"l1\" bandwidth=\"125MBps\" latency=\"10us\"/><link id=\"l2\" bandwidth=\"125MBps\" latency=\"10us\"/>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l1\"/><link_ctn id=\"l2\"/></route>\n</zone>\n</platform>\n"
        ),
        "x.xml:2: link `l1` (line 5) is SHARED and carries both what host `a` sends and what it receives",
    );
}

/// SimGrid's TCP window (`network/TCP-gamma`, CM02) on a route of 2.5 ms:
/// 1e9 B there and 1e6 B back. SimGrid 3.32 (`smpirun -np 2 -platform
/// wan.xml -replay list.txt` with the equal-physics settings of
/// bench/peers/README.md): 1.198285026550 s with its default 4 MiB window,
/// 76.375241699219 s with `network/TCP-gamma` 65536 in the file's
/// `<config>`.
#[test]
fn tcp_window_on_a_long_route_is_simgrids() {
    let d = dir("window");
    let wan = |config: &str| {
        format!(
            r#"<?xml version='1.0'?>
<platform version="4.1">{config}
  <zone id="w" routing="Full">
    <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
    <link id="la" bandwidth="1.25GBps" latency="1.25ms" sharing_policy="SPLITDUPLEX"/>
    <link id="lb" bandwidth="1.25GBps" latency="1.25ms" sharing_policy="SPLITDUPLEX"/>
    <route src="a" dst="b"><link_ctn id="la" direction="UP"/><link_ctn id="lb" direction="DOWN"/></route>
  </zone>
</platform>
"#
        )
    };
    std::fs::write(d.join("wan.xml"), wan("")).unwrap();
    std::fs::write(
        d.join("wan64k.xml"),
        wan(r#"<config><prop id="network/TCP-gamma" value="65536"/></config>"#),
    )
    .unwrap();
    ti_trace(
        &d,
        "list.txt",
        "w",
        &[
            "0 init\n0 send 1 0 1e9\n0 recv 1 1 1e6\n",
            "1 init\n1 recv 0 0 1e9\n1 send 0 1 1e6\n",
        ],
    );
    let run = |p: &str, extra: &[&str]| {
        let mut a = vec![
            "replay",
            "list.txt",
            "--platform",
            p,
            "--mode",
            "flow",
            "--json",
            "--no-wall",
        ];
        a.extend_from_slice(extra);
        makespan_ps(&d, &a)
    };
    // To SimGrid's picosecond, but for its double's rounding.
    assert_eq!(run("wan.xml", &[]), 1_198_285_026_551);
    assert_eq!(run("wan64k.xml", &[]), 76_375_241_699_220);
    // Off, the links alone: 2 x 2.5 ms + (1e9 + 1e6 + 32) B / 1.25 GB/s.
    assert_eq!(
        run("wan.xml", &["--set", "transport.tcp_window=\"0 B\""]),
        805_800_025_600
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// SimGrid's SMPI network model: SimGrid 3.32's `examples/platforms/config.xml`
/// (`network/model` `SMPI`, its own `smpi/bw-factor`, the default
/// `smpi/lat-factor`). SimGrid (`smpirun -np 2 -platform config.xml
/// -replay L` with the equal-physics settings less the keys the file
/// sets, bench/peers/README.md): ping-pong of 1e6 B 0.020502071234 s;
/// six messages around the thresholds 0.005102492901 s.
#[test]
fn smpi_network_model_of_a_platforms_config_is_simgrids() {
    let d = dir("smpi");
    std::fs::write(
        d.join("config.xml"),
        r#"<?xml version='1.0'?>
<platform version="4.1">
  <config id="General">
    <prop id="maxmin/precision" value="0.000010"></prop>
    <prop id="cpu/optim" value="TI"></prop>
    <prop id="host/model" value="compound"></prop>
    <prop id="network/model" value="SMPI"></prop>
    <prop id="path" value="~/"></prop>
    <prop id="smpi/bw-factor" value="65472:0.940694;15424:0.697866;9376:0.58729"></prop>
  </config>
  <zone id="AS0" routing="Full">
    <host id="bob" speed="1Gf"/><host id="alice" speed="500Mf"/>
    <link id="link1" bandwidth="125MBps" latency="50us"/>
    <link id="link2" bandwidth="125MBps" latency="50us"/>
    <link id="link3" bandwidth="125MBps" latency="50us"/>
    <route src="bob" dst="alice"><link_ctn id="link1"/><link_ctn id="link2"/><link_ctn id="link3"/></route>
  </zone>
</platform>
"#,
    )
    .unwrap();
    ti_trace(
        &d,
        "pp.txt",
        "pp",
        &[
            "0 init\n0 send 1 0 1e6\n0 recv 1 1 1e6\n",
            "1 init\n1 recv 0 0 1e6\n1 send 0 1 1e6\n",
        ],
    );
    ti_trace(
        &d,
        "sz.txt",
        "sz",
        &[
            "0 init\n0 send 1 0 9360\n0 recv 1 1 9361\n0 send 1 2 100\n0 recv 1 3 0\n0 send 1 4 65456\n0 recv 1 5 65457\n",
            "1 init\n1 recv 0 0 9360\n1 send 0 1 9361\n1 recv 0 2 100\n1 send 0 3 0\n1 recv 0 4 65456\n1 send 0 5 65457\n",
        ],
    );
    let run = |list: &str, extra: &[&str]| {
        let mut a = vec![
            "replay",
            list,
            "--platform",
            "config.xml",
            "--json",
            "--no-wall",
        ];
        a.extend_from_slice(extra);
        makespan_ps(&d, &a)
    };
    // 2 x (150 us x 11.6436 + 1_000_016 B / (0.940694 x 125 MB/s)),
    // each term rounded to the picosecond as the flow model does.
    assert_eq!(run("pp.txt", &[]), 20_502_071_236);
    assert_eq!(run("sz.txt", &[]), 5_102_492_902);
    // Factors off: CM02, 2 x (150 us + 1_000_016 B / 125 MB/s).
    let off = [
        "--set",
        "transport.bw_factor=\"0:1\"",
        "--set",
        "transport.lat_factor=\"0:1\"",
    ];
    assert_eq!(run("pp.txt", &off), 16_300_256_000);
    let _ = std::fs::remove_dir_all(&d);
}

/// A trace as `smpirun -trace-ti` wrote it (SimGrid 3.32, a ring of
/// `MPI_Irecv`/`MPI_Isend` of 100 000 `MPI_C_DOUBLE_COMPLEX` and
/// `MPI_Waitall`, then `MPI_Sendrecv` of 5000 `MPI_LONG_DOUBLE`, three
/// times, on 4 ranks): its folder of per-rank files `<time>_rank-1.txt`
/// .. `_rank-4.txt`, unchanged. SimGrid's replay of it on the cluster
/// (`smpirun -np 4 -platform cluster.xml -replay trace.txt`, equal
/// physics): 0.040920768000 s.
#[test]
fn a_trace_simgrids_tracer_wrote_replays_unchanged() {
    let d = dir("tracer");
    let files = d.join("trace.txt_files");
    std::fs::create_dir_all(&files).unwrap();
    for r in 0..4u32 {
        let (right, left) = ((r + 1) % 4, (r + 3) % 4);
        let mut t = format!(
            "{r} init
"
        );
        for it in 0..3 {
            t += &format!(
                "{r} irecv {left} {it} 100000 26
{r} isend {right} {it} 100000 26
{r} waitall 2
{r} sendRecv 5000 {right} 5000 {left} 14 14
"
            );
        }
        t += &format!(
            "{r} finalize
"
        );
        std::fs::write(
            files.join(format!("1795709883.701463_rank-{}.txt", r + 1)),
            t,
        )
        .unwrap();
    }
    std::fs::write(
        d.join("cluster.xml"),
        r#"<platform version="4.1"><cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="125MBps" lat="50us"/></platform>"#,
    )
    .unwrap();
    for mode in ["flow", "packet"] {
        let got = makespan_ps(
            &d,
            &[
                "replay",
                "trace.txt_files",
                "--platform",
                "cluster.xml",
                "--mode",
                mode,
                "--json",
                "--no-wall",
            ],
        );
        assert_eq!(got, 40_920_768_000, "{mode}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_platform_no_route_between_the_ranks_hosts() {
    bad(
        "noroute",
        &format!(
            "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"None\">\n{HOSTS}</zone>\n</platform>\n"
        ),
        "the platform has no route from host `a` to host `b`",
    );
}

/// Two ranks on one host of a platform cross the host's route to
/// itself, as in SimGrid 3.32 (`smpirun -replay` with the equal-physics
/// settings gave each answer below to the picosecond). In this flat
/// cluster without `loopback_bw` it is up and down h0's private link and
/// the backbone (`StarZone::get_local_route`): a ping-pong of 1e6 B takes
/// 2 x (50 + 500 + 50 us + (1e6 + 16) B / 125 MB/s) = 0.017200256 s, as
/// between two hosts. With `loopback_bw="1GBps" loopback_lat="3us"`:
/// 2 x (3 us + (1e6 + 16) B / 1 GB/s) = 0.002006032 s. A Full zone's
/// host takes the network model's `__loopback__` (10^10 B/s, no
/// latency, FATPIPE): 2 x (1e6 + 16) B / 10^10 B/s = 0.000200003200 s,
/// also on a platform of one host (SimGrid's multicore_machine.xml); an
/// exchange of 1e6 B each way there shares nothing (FATPIPE): 100.0016 us.
/// The packet model, which does not follow such routes, refuses.
#[test]
fn two_ranks_on_one_platform_host_cross_its_loopback() {
    let d = dir("onehost");
    let two_cores = FLAT_CLUSTER.replace("speed=\"1Gf\"", "speed=\"1Gf\" core=\"2\"");
    std::fs::write(d.join("c.xml"), &two_cores).unwrap();
    let lo = two_cores.replace(
        "bb_lat=\"500us\"",
        "bb_lat=\"500us\" loopback_bw=\"1GBps\" loopback_lat=\"3us\"",
    );
    std::fs::write(d.join("l.xml"), lo).unwrap();
    std::fs::write(
        d.join("f.xml"),
        "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\" core=\"2\"/>\n</zone>\n</platform>\n",
    )
    .unwrap();
    std::fs::write(
        d.join("t.ti"),
        "0 send 1 0 1e6\n0 recv 1 1 1e6\n1 recv 0 0 1e6\n1 send 0 1 1e6\n",
    )
    .unwrap();
    std::fs::write(
        d.join("x.ti"),
        "0 irecv 1 0 1e6\n0 isend 1 0 1e6\n0 waitall\n1 irecv 0 0 1e6\n1 isend 0 0 1e6\n1 waitall\n",
    )
    .unwrap();
    let run = |ti: &str, xml: &str| {
        makespan_ps(
            &d,
            &[
                "replay",
                ti,
                "--platform",
                xml,
                "--ppn",
                "2",
                "--json",
                "--quiet",
            ],
        )
    };
    assert_eq!(run("t.ti", "c.xml"), 2 * (600_000_000 + 8_000_128_000));
    assert_eq!(run("t.ti", "l.xml"), 2 * (3_000_000 + 1_000_016_000));
    assert_eq!(run("t.ti", "f.xml"), 200_003_200);
    assert_eq!(run("x.ti", "f.xml"), 100_001_600);
    let o = netsim(
        &d,
        &[
            "replay",
            "t.ti",
            "--platform",
            "c.xml",
            "--ppn",
            "2",
            "--mode",
            "packet",
            "--quiet",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("ranks 0 and 1 are both placed on host `h0` of the SimGrid platform")
            && err.contains("--mode flow"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A Full zone whose routes from `a` start with different links (not a
/// star: flattened to per-pair routes). Ranks on `a` and `b` exchange
/// 1e8 B each way at once over `l1, l2`, both SHARED: each link carries
/// both flows, 62.5 MB/s each, (1e8 + 16) B in 1.600000256 s after
/// 20 us (the TCP window's 4 MiB / 40 us does not bind).
#[test]
fn full_routes_that_are_not_a_star_replay_in_flow_mode() {
    // `auto` (the default) takes flow for it.
    exchange_flow_only(
        "notstar",
        &format!(
            "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n{HOSTS}<host id=\"c\" speed=\"1Gf\"/>\n<link id=\"l1\" bandwidth=\"125MBps\" latency=\"10us\"/><link id=\"l2\" bandwidth=\"125MBps\" latency=\"10us\"/><link id=\"l3\" bandwidth=\"125MBps\" latency=\"10us\"/>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l1\"/><link_ctn id=\"l2\"/></route>\n<route src=\"a\" dst=\"c\"><link_ctn id=\"l3\"/><link_ctn id=\"l2\"/></route>\n</zone>\n</platform>\n"
        ),
        "x.xml:2: the platform's routes are per pair of hosts",
    );
}

#[test]
fn bad_platform_not_xml() {
    bad(
        "xml",
        "<platform version=\"4.1\">\n<cluster id=\"c\">\n</zone>\n</platform>\n",
        "x.xml:3: not well-formed XML",
    );
}

/// Hosts of different speeds: each rank's `compute` runs at its own
/// host's speed, as in SimGrid. Rank 0 on `a` (2 Gf) computes 1e9 flops
/// (0.5 s), sends 1e6 B over the 2.5 ms route (TCP window 4 MiB) and
/// computes 3e9 (1.5 s); rank 1 on `b` (1 Gf) receives and computes 3e9
/// flops (3 s). SimGrid 3.32 (`smpirun -np 2 -platform mixed.xml
/// -replay`, equal physics): 3.503692111969 s. `--host-speed` gives
/// every rank one speed instead.
#[test]
fn hosts_of_different_speeds_compute_at_their_own() {
    let d = dir("speeds");
    std::fs::write(
        d.join("mixed.xml"),
        r#"<platform version="4.1"><zone id="w" routing="Full">
  <host id="a" speed="2Gf"/><host id="b" speed="1Gf"/>
  <link id="la" bandwidth="1.25GBps" latency="1.25ms" sharing_policy="SPLITDUPLEX"/>
  <link id="lb" bandwidth="1.25GBps" latency="1.25ms" sharing_policy="SPLITDUPLEX"/>
  <route src="a" dst="b"><link_ctn id="la" direction="UP"/><link_ctn id="lb" direction="DOWN"/></route>
</zone></platform>"#,
    )
    .unwrap();
    ti_trace(
        &d,
        "c.txt",
        "c",
        &[
            "0 init\n0 compute 1e9\n0 send 1 0 1e6\n0 compute 3e9\n",
            "1 init\n1 recv 0 0 1e6\n1 compute 3e9\n",
        ],
    );
    let mut args = vec![
        "replay",
        "c.txt",
        "--platform",
        "mixed.xml",
        "--mode",
        "flow",
        "--json",
        "--no-wall",
    ];
    assert_eq!(makespan_ps(&d, &args), 3_503_692_111_969);
    // One speed for all: 4 Gf; rank 1 ends last, at 0.25 s + the message
    // (2.5 ms + 1000016 B / 838 860 800 B/s) + 0.75 s.
    args.extend(["--host-speed", "4e9"]);
    assert_eq!(makespan_ps(&d, &args), 1_003_692_111_969);
    let _ = std::fs::remove_dir_all(&d);
}

/// Host `a` (1 Gf) with a speed profile (scale 1, then 0.5 from 0.5 s, 2
/// from 1.5 s, repeating 1 s after the last event: period 2.5 s) computes
/// 1e9 flops, sends 1e6 B to `b`, computes 4e9. By hand: the first
/// compute does 0.5 s of work by 0.5 s and 0.5 s more at half speed, to
/// 1.5 s; the second does 3 s of work at scale 2 to 3.0 s, 0.5 s at 0.5
/// to 4.0 s, the last 0.5 s at 2 by 4.25 s. Without the profile: 5 s.
/// SimGrid 3.32 (`smpirun -replay`, equal physics): 4.250000000000 s and
/// 5.000000000000 s. `b`'s state profile turns it off at 10 s: a run in
/// which rank 1 (on `b`) lasts past that is stopped, naming it.
#[test]
fn a_speed_profile_stretches_computation_and_a_state_profile_bounds_the_run() {
    let d = dir("profiles");
    let xml = r#"<platform version="4.1"><zone id="w" routing="Full">
  <host id="a" speed="1Gf" speed_file="p/speed.txt"/><host id="b" speed="1Gf" state_file="p/state.txt"/>
  <link id="la" bandwidth="1.25GBps" latency="1.25ms" sharing_policy="SPLITDUPLEX"/>
  <link id="lb" bandwidth="1.25GBps" latency="1.25ms" sharing_policy="SPLITDUPLEX"/>
  <route src="a" dst="b"><link_ctn id="la" direction="UP"/><link_ctn id="lb" direction="DOWN"/></route>
</zone></platform>"#;
    std::fs::create_dir_all(d.join("plat/p")).unwrap();
    std::fs::write(d.join("plat/profiled.xml"), xml).unwrap();
    let plain = xml
        .replace(r#" speed_file="p/speed.txt""#, "")
        .replace(r#" state_file="p/state.txt""#, "");
    std::fs::write(d.join("plat/plain.xml"), plain).unwrap();
    std::fs::write(
        d.join("plat/p/speed.txt"),
        "% a comment\n0.5 0.5\n1.5 2\nLOOPAFTER 1\n",
    )
    .unwrap();
    std::fs::write(d.join("plat/p/state.txt"), "10 0\n11 1\n").unwrap();
    std::fs::write(
        d.join("c0.txt"),
        "0 init\n0 compute 1e9\n0 send 1 0 1e6\n0 compute 4e9\n",
    )
    .unwrap();
    std::fs::write(d.join("c1.txt"), "1 init\n1 recv 0 0 1e6\n").unwrap();
    std::fs::write(d.join("c.txt"), "c0.txt\nc1.txt\n").unwrap();
    let args = |p: &'static str| {
        vec![
            "replay",
            "c.txt",
            "--platform",
            p,
            "--mode",
            "flow",
            "--json",
            "--no-wall",
        ]
    };
    // The profile files are found beside the platform, not in the
    // current folder.
    assert_eq!(
        makespan_ps(&d, &args("plat/profiled.xml")),
        4_250_000_000_000
    );
    assert_eq!(makespan_ps(&d, &args("plat/plain.xml")), 5_000_000_000_000);
    // Rank 1 computing 1e10 flops on `b` lasts past 10 s.
    std::fs::write(d.join("c1.txt"), "1 init\n1 recv 0 0 1e6\n1 compute 1e10\n").unwrap();
    let o = netsim(&d, &args("plat/profiled.xml"));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("rank 1 lasts until 11.503")
            && err.contains("past 10.000000000000 s, when host `b` turns off"),
        "{err}"
    );
    assert!(err.contains("plat/profiled.xml:2"), "{err}");
    // A bad profile line: its own file and line, exit 2.
    std::fs::write(d.join("plat/p/speed.txt"), "0.5 0.5\n0.25 2\n").unwrap();
    let o = netsim(&d, &args("plat/profiled.xml"));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    let _ = std::fs::remove_dir_all(&d);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("speed.txt:2: time 0.25 before"), "{err}");
}

/// Three hosts: `a -> c` over `la` (10 us) and `b -> c` over `lb` (1 ms),
/// both into `c`'s 125 MB/s SPLITDUPLEX link `lc`, 1e6 B each at once,
/// then 1e9 flops on `c` after `a`'s message. SimGrid 3.32 with the
/// harness settings (`bench/peers/peers.py`, `simgrid_cfg_for`): CM02
/// 1.008158942416 s (`a`'s message at 8.16 ms: it shares `lc` with
/// penalty 20 us against 1.01 ms); with `network/model` `SMPI`
/// 1.008737367617 s. netsim's own equal sharing gave 1.016020256 s.
#[test]
fn routes_of_different_latencies_through_one_link_share_as_simgrids_cm02() {
    let d = &dir("weighted");
    let xml = |config: &str| {
        format!(
            r#"<?xml version='1.0'?>
<platform version="4.1">{config}
<zone id="z" routing="Full">
<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
<link id="la" bandwidth="10GBps" latency="10us"/><link id="lb" bandwidth="10GBps" latency="1ms"/>
<link id="lc" bandwidth="125MBps" latency="10us" sharing_policy="SPLITDUPLEX"/>
<route src="a" dst="c"><link_ctn id="la"/><link_ctn id="lc" direction="UP"/></route>
<route src="b" dst="c"><link_ctn id="lb"/><link_ctn id="lc" direction="UP"/></route>
<route src="a" dst="b"><link_ctn id="la"/><link_ctn id="lb"/></route>
</zone>
</platform>
"#
        )
    };
    std::fs::write(d.join("cm02.xml"), xml("")).unwrap();
    std::fs::write(
        d.join("smpi.xml"),
        xml(r#"<config><prop id="network/model" value="SMPI"/></config>"#),
    )
    .unwrap();
    ti_trace(
        d,
        "list.txt",
        "t",
        &[
            "0 init\n0 send 2 0 1e6\n",
            "1 init\n1 send 2 0 1e6\n",
            "2 init\n2 recv 0 0 1e6\n2 compute 1e9\n2 recv 1 0 1e6\n",
        ],
    );
    let run = |plat: &str| {
        let o = netsim(
            d,
            &[
                "replay",
                "list.txt",
                "--platform",
                plat,
                "--no-wall",
                "--json",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let v = run("cm02.xml");
    assert_eq!(v["makespan_ps"], 1_008_158_942_416u64);
    assert_eq!(
        v["flow_sharing"],
        "SimGrid's CM02 sharing: a flow pays its route's latency, then shares each link in inverse proportion to its penalty (route latency)"
    );
    assert!(v.get("platform_notes").is_none(), "{v}");
    // SimGrid 1.008737367617 s: within a picosecond (SimGrid's doubles).
    let smpi = run("smpi.xml")["makespan_ps"].as_u64().unwrap();
    assert!(smpi.abs_diff(1_008_737_367_617) <= 1, "{smpi}");
    let o = netsim(
        d,
        &["replay", "list.txt", "--platform", "cm02.xml", "--no-wall"],
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("  note: SimGrid's CM02 sharing: a flow pays its route's latency, then shares each link in inverse proportion to its penalty (route latency)\n"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(d);
}

/// One SHARED link `L` of 1 MB/s and 10 ms between `A` and `B`, whose
/// bandwidth and latency follow profiles; the conformance traces
/// (ping-pong of 1e6 B, then both ways at once and 1e8 flops). SimGrid
/// 3.32 measured (harness settings): a drop to 0.5 MB/s at 0.5 s:
/// 3.530064 s and 3.620064 s; a rise to 2 MB/s at 0.5 s: 1.520024 s
/// (the first message stays bound at the 1 MB/s it started with) and
/// 1.355016 s; the bandwidth 1 MB/s, 0.25 MB/s from 0.3 s, repeating
/// every 0.7 s, with the latency 10 ms, 2 ms from 0.25 s, repeating
/// every 0.55 s: 3.512032 s and 3.610032 s.
#[test]
fn link_profiles_change_bandwidth_and_latency_as_simgrid_does() {
    let d = &dir("link-profiles");
    let plat = |name: &str, attrs: &str| {
        std::fs::write(
            d.join(name),
            format!(
                r#"<?xml version='1.0'?>
<platform version="4.1"><zone id="z" routing="Full">
<host id="A" speed="1Gf"/><host id="B" speed="1Gf"/>
<link id="L" bandwidth="1MBps" latency="10ms" {attrs}/>
<route src="A" dst="B"><link_ctn id="L"/></route>
</zone></platform>
"#
            ),
        )
        .unwrap();
    };
    std::fs::write(d.join("down.txt"), "0.5 500000\n").unwrap();
    std::fs::write(d.join("up.txt"), "0.5 2000000\n").unwrap();
    std::fs::write(d.join("bw.txt"), "0 1000000\n0.3 250000\nLOOPAFTER 0.4\n").unwrap();
    std::fs::write(d.join("lat.txt"), "0 0.01\n0.25 0.002\nLOOPAFTER 0.3\n").unwrap();
    plat("down.xml", r#"bandwidth_file="down.txt""#);
    plat("up.xml", r#"bandwidth_file="up.txt""#);
    plat(
        "both.xml",
        r#"bandwidth_file="bw.txt" latency_file="lat.txt""#,
    );
    ti_trace(
        d,
        "pingpong.txt",
        "p",
        &[
            "0 init\n0 send 1 0 1e6\n0 recv 1 1 1e6\n",
            "1 init\n1 recv 0 0 1e6\n1 send 0 1 1e6\n",
        ],
    );
    ti_trace(
        d,
        "exchange.txt",
        "x",
        &[
            "0 init\n0 irecv 1 0 1e6\n0 isend 1 0 1e6\n0 waitall\n0 compute 1e8\n",
            "1 init\n1 irecv 0 0 1e6\n1 isend 0 0 1e6\n1 waitall\n",
        ],
    );
    let ms = |trace: &str, plat: &str| {
        makespan_ps(
            d,
            &["replay", trace, "--platform", plat, "--no-wall", "--json"],
        )
    };
    assert_eq!(ms("pingpong.txt", "down.xml"), 3_530_064_000_000);
    assert_eq!(ms("exchange.txt", "down.xml"), 3_620_064_000_000);
    assert_eq!(ms("pingpong.txt", "up.xml"), 1_520_024_000_000);
    assert_eq!(ms("exchange.txt", "up.xml"), 1_355_016_000_000);
    assert_eq!(ms("pingpong.txt", "both.xml"), 3_512_032_000_000);
    assert_eq!(ms("exchange.txt", "both.xml"), 3_610_032_000_000);
    // A bandwidth of 0 would stall the link's flows: refused at its file.
    std::fs::write(d.join("bw.txt"), "0 1000000\n0.3 0\n").unwrap();
    let o = netsim(
        d,
        &[
            "replay",
            "pingpong.txt",
            "--platform",
            "both.xml",
            "--no-wall",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("both.xml:4: link `L`'s bandwidth profile takes the value 0"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(d);
}
