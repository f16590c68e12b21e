//! Text renderings of reports: the human table, CSV (`section,key,value`),
//! the sweep table, and the preset list. Schemas: `docs/OUTPUT.md`.

use mpi_layer::MpiParams;
use scenarios::scenario::{Report, SearchStats};
use scenarios::sweep::Row;
use sim_core::Time;
use std::fmt::Write;

/// Seconds for people: the simulator's own time display.
fn secs(s: f64) -> String {
    Time::from_secs_f64(s.max(0.0)).to_string()
}

fn search_line(name: &str, s: &SearchStats) -> String {
    let hist: Vec<String> = s
        .histogram
        .iter()
        .map(|[lo, hi, n]| {
            if lo == hi {
                format!("{lo}:{n}")
            } else {
                format!("{lo}-{hi}:{n}")
            }
        })
        .collect();
    format!(
        "  {name:<16} {:>10} searches  mean {:>8.2}  max {:>6}  histogram (length:count) {}\n",
        s.searches,
        s.mean,
        s.max,
        if hist.is_empty() {
            "-".into()
        } else {
            hist.join(" ")
        }
    )
}

/// The report as a table for a terminal.
pub fn table(r: &Report) -> String {
    let mut o = String::new();
    let mode = if r.link_count == 0 {
        "contention-free wires".to_string()
    } else {
        format!("{} transport", r.mode)
    };
    let _ = writeln!(
        o,
        "machine   {} ({} nodes, {} used), {} ranks, {mode}, seed {}",
        r.machine, r.nodes, r.nodes_used, r.ranks, r.seed
    );
    let _ = writeln!(o, "workload  {}", r.workload);
    let _ = writeln!(
        o,
        "makespan  {}   ({} ps)",
        secs(r.makespan_s),
        r.makespan_ps
    );
    let _ = writeln!(
        o,
        "finish    min {}  mean {}  max {}",
        secs(r.finish.min_s),
        secs(r.finish.mean_s),
        secs(r.finish.max_s)
    );
    let slow: Vec<String> = r
        .finish
        .slowest
        .iter()
        .map(|f| format!("{} ({})", f.rank, secs(f.finish_s)))
        .collect();
    let _ = writeln!(o, "slowest   {}", slow.join(", "));
    let _ = writeln!(
        o,
        "\ntraffic   {} messages, {} bytes, {} control (RTS/CTS)",
        r.messages, r.bytes, r.control_messages
    );
    let _ = writeln!(
        o,
        "  {:<12} {:<12} {:>12} {:>16}",
        "protocol", "locality", "messages", "bytes"
    );
    for t in r.traffic.iter().filter(|t| t.messages > 0) {
        let _ = writeln!(
            o,
            "  {:<12} {:<12} {:>12} {:>16}",
            t.protocol, t.locality, t.messages, t.bytes
        );
    }
    let _ = writeln!(o, "\nmatching  elements visited per search");
    o += &search_line("posted_recvs", &r.matching.posted_recvs);
    o += &search_line("unexpected_msgs", &r.matching.unexpected_msgs);
    if r.calibration_clamped > 0 {
        let _ = writeln!(
            o,
            "  note: {} message(s) had their host overhead clamped to 0 (transport slower than R_b)",
            r.calibration_clamped
        );
    }
    if r.link_count > 0 {
        let _ = writeln!(
            o,
            "\nlinks     {} most utilized of {} link directions",
            r.links.len(),
            r.link_count
        );
        let _ = writeln!(
            o,
            "  {:<28} {:>14} {:>8} {:>14} {:>6}",
            "link", "bytes", "util", "peak queue B", "flows"
        );
        for l in &r.links {
            let _ = writeln!(
                o,
                "  {:<28} {:>14} {:>7.1}% {:>14} {:>6}",
                l.name,
                l.bytes,
                100.0 * l.utilization,
                l.peak_queue_bytes,
                l.peak_flows
            );
        }
    }
    let _ = write!(o, "\nevents    {}", r.events);
    match &r.wall {
        Some(w) => {
            let _ = writeln!(
                o,
                " in {:.3} s wall, {:.3} M events/s",
                w.seconds,
                w.events_per_sec / 1e6
            );
        }
        None => o.push('\n'),
    }
    o
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The report as CSV rows `section,key,value` (long format, one value per
/// row; see docs/OUTPUT.md).
pub fn csv(r: &Report) -> String {
    let mut rows: Vec<(String, String, String)> = Vec::new();
    let mut add = |s: &str, k: String, v: String| rows.push((s.into(), k, v));
    add("run", "machine".into(), r.machine.clone());
    add("run", "nodes".into(), r.nodes.to_string());
    add("run", "nodes_used".into(), r.nodes_used.to_string());
    add("run", "ranks".into(), r.ranks.to_string());
    add("run", "mode".into(), r.mode.to_string());
    add("run", "workload".into(), r.workload.clone());
    add("run", "seed".into(), r.seed.to_string());
    add("run", "makespan_s".into(), r.makespan_s.to_string());
    add("run", "makespan_ps".into(), r.makespan_ps.to_string());
    add("run", "messages".into(), r.messages.to_string());
    add("run", "bytes".into(), r.bytes.to_string());
    add(
        "run",
        "control_messages".into(),
        r.control_messages.to_string(),
    );
    add(
        "run",
        "calibration_clamped".into(),
        r.calibration_clamped.to_string(),
    );
    add("run", "events".into(), r.events.to_string());
    if let Some(w) = &r.wall {
        add("wall", "seconds".into(), w.seconds.to_string());
        add(
            "wall",
            "events_per_sec".into(),
            w.events_per_sec.to_string(),
        );
    }
    add("finish", "min_s".into(), r.finish.min_s.to_string());
    add("finish", "mean_s".into(), r.finish.mean_s.to_string());
    add("finish", "max_s".into(), r.finish.max_s.to_string());
    for (rank, ps) in r.finish.per_rank_ps.iter().enumerate() {
        add("rank_finish_ps", rank.to_string(), ps.to_string());
    }
    for t in &r.traffic {
        let k = format!("{}/{}", t.protocol, t.locality);
        add("traffic_messages", k.clone(), t.messages.to_string());
        add("traffic_bytes", k, t.bytes.to_string());
    }
    for (q, s) in [
        ("posted_recvs", &r.matching.posted_recvs),
        ("unexpected_msgs", &r.matching.unexpected_msgs),
    ] {
        add("matching", format!("{q}/searches"), s.searches.to_string());
        add("matching", format!("{q}/mean"), s.mean.to_string());
        add("matching", format!("{q}/max"), s.max.to_string());
        for [lo, hi, n] in &s.histogram {
            add("matching", format!("{q}/hist/{lo}-{hi}"), n.to_string());
        }
    }
    for l in &r.links {
        add("link_bytes", l.name.clone(), l.bytes.to_string());
        add(
            "link_utilization",
            l.name.clone(),
            l.utilization.to_string(),
        );
        add(
            "link_peak_queue_bytes",
            l.name.clone(),
            l.peak_queue_bytes.to_string(),
        );
    }
    let mut o = String::from("section,key,value\n");
    for (s, k, v) in rows {
        let _ = writeln!(o, "{},{},{}", csv_field(&s), csv_field(&k), csv_field(&v));
    }
    o
}

/// A TOML string value without its quotes (`"flow"` -> `flow`); other
/// values as they are.
pub fn unquote(v: &str) -> &str {
    v.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(v)
}

/// A sweep as CSV: one row per point, its axis values, then the main
/// figures of its report.
pub fn sweep_csv(rows: &[Row]) -> String {
    let axes: Vec<String> = rows
        .first()
        .map(|r| {
            r.params
                .iter()
                .map(|p| p.split(" = ").next().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let mut o = String::from("index");
    for a in &axes {
        o += &format!(",{}", csv_field(a));
    }
    o += ",makespan_s,makespan_ps,messages,bytes,posted_mean,unexpected_mean,events\n";
    for r in rows {
        let _ = write!(o, "{}", r.index);
        for p in &r.params {
            let v = p.split_once(" = ").map_or("", |x| x.1);
            let _ = write!(o, ",{}", csv_field(unquote(v)));
        }
        let g = |path: &[&str]| -> String {
            let mut v = &r.result;
            for k in path {
                v = &v[*k];
            }
            v.to_string()
        };
        let _ = writeln!(
            o,
            ",{},{},{},{},{},{},{}",
            g(&["makespan_s"]),
            g(&["makespan_ps"]),
            g(&["messages"]),
            g(&["bytes"]),
            g(&["matching", "posted_recvs", "mean"]),
            g(&["matching", "unexpected_msgs", "mean"]),
            g(&["events"])
        );
    }
    o
}

fn mpi_lines(o: &mut String, name: &str, source: &str, p: &MpiParams) {
    let _ = writeln!(o, "  {name:<16} {source}");
    let _ = writeln!(
        o,
        "  {:<16} short <= {} B, eager <= {} B, gamma {} / {}, match_base {}, unexpected copy {}, offload {}",
        "",
        p.short_max,
        p.eager_max,
        p.gamma_posted.gamma,
        p.gamma_unexpected.gamma,
        p.match_base,
        p.unexpected_copy_rate
            .map_or("none".to_string(), |r| r.to_string()),
        p.protocol_offload
    );
    for (li, loc) in ["same_socket", "same_node", "other_node"]
        .iter()
        .enumerate()
    {
        let cells: Vec<String> = ["short", "eager", "rendezvous"]
            .iter()
            .enumerate()
            .map(|(pi, pn)| {
                let c = p.postal[pi][li];
                format!("{pn} {} + s/{:.3} GB/s", c.alpha, c.rate.as_f64() / 1e9)
            })
            .collect();
        let _ = writeln!(o, "  {:<16} {loc:<12} {}", "", cells.join("; "));
    }
}

/// `netsim presets`: machines and MPI presets with sources and key numbers.
pub fn presets() -> String {
    use topology::{ethernet, infiniband, torus};
    let mut o = String::new();
    let _ = writeln!(o, "Machines ([machine] preset = ...)");
    let _ = writeln!(
        o,
        "  blue-waters      Cray XE6 Gemini 3-D torus; dims default {:?} (NCSA), {} nodes per router (Bienz et al. 2018 Sec. 3)",
        torus::BLUE_WATERS_DIMS,
        torus::GEMINI_NODES_PER_ROUTER
    );
    let _ = writeln!(
        o,
        "                   R_N {:.2} GB/s (Bienz Table 1); links x/z {:.3} GB/s, y {:.4} GB/s, hop {} ns, NIC {} ns (Cray Gemini docs, not seeds)",
        torus::BLUE_WATERS_R_N as f64 / 1e9,
        torus::GEMINI_XZ_LINK_BW as f64 / 1e9,
        torus::GEMINI_Y_LINK_BW as f64 / 1e9,
        torus::GEMINI_HOP_LATENCY_NS,
        torus::GEMINI_NIC_LATENCY_NS
    );
    let _ = writeln!(
        o,
        "                   partitions: whole, line (length routers along dim), cube (side^3); 2 sockets x 16 cores"
    );
    let _ = writeln!(
        o,
        "  ethernet-zhu     2 racks x {} nodes, top-of-rack switches (Zhu et al. Fig. 1); NIC 940 Mb/s; backbone optical {:.3} GB/s or electrical 940 Mb/s;",
        ethernet::ZHU_NODES_PER_RACK,
        ethernet::OPTICAL_BACKBONE_BYTES_PER_SEC as f64 / 1e9
    );
    let _ = writeln!(
        o,
        "                   {} us per cable (RTT 450 us, Zhu Sec. 3.2); sharing fair (eq. 5) or asymmetric (eq. 6)",
        ethernet::ZHU_LINK_LATENCY_US
    );
    let _ = writeln!(
        o,
        "  infiniband-qdr   one QDR 4x switch, {:.3} GB/s, {} ns node to node (Bridges et al. 2015 Table 2); nodes default: as many as needed",
        infiniband::QDR_BYTES_PER_SEC as f64 / 1e9,
        infiniband::QDR_LATENCY_NS
    );
    let _ = writeln!(
        o,
        "  ideal            private wire per pair: latency 500 ns, 100 GB/s (defaults; contention-free, the postal/LogP machine)"
    );
    let _ = writeln!(
        o,
        "  file = \"m.txt\"   any graph from a machine file (topology/src/file.rs)"
    );
    let _ = writeln!(
        o,
        "\nMPI parameters ([mpi] preset = ...): alpha + s/R_b per protocol and locality"
    );
    mpi_lines(
        &mut o,
        "blue-waters",
        "Bienz, Gropp, Olson, EuroMPI'18, Table 1 and eq. 4; thresholds Cray MPICH defaults",
        &MpiParams::blue_waters(),
    );
    mpi_lines(
        &mut o,
        "bgp",
        "Hoefler, Gropp, Thakur, Traeff, EuroMPI'10, eq. 1 (BG/P)",
        &MpiParams::bgp(),
    );
    mpi_lines(
        &mut o,
        "infiniband-qdr",
        "Bridges et al., ExaMPI'15, Table 2 (ConnectX-3, Open MPI 1.4.5)",
        &MpiParams::infiniband_qdr(),
    );
    mpi_lines(
        &mut o,
        "ethernet-zhu",
        "Zhu, Lastovetsky, Ali, Riesen: Open MPI over TCP, RTT 450 us, 940 Mb/s",
        &MpiParams::ethernet_zhu(),
    );
    let _ = writeln!(
        o,
        "\nThe [mpi] preset defaults to the machine's (ethernet-zhu, infiniband-qdr), else blue-waters."
    );
    o
}
