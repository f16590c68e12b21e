//! Text renderings of reports: the human table, CSV (`section,key,value`),
//! the sweep table, and the preset list. Schemas: `docs/OUTPUT.md`.

use super::CliError;
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

/// The synthetic-traffic section, in place of the MPI ones.
fn synthetic_table(o: &mut String, s: &scenarios::synthetic::SyntheticReport, events: u64) {
    let _ = writeln!(
        o,
        "capacity  {:.4} GB/s per host; packets of {} B; cycle {} ps",
        s.capacity_bytes_per_s / 1e9,
        s.packet_bytes,
        s.cycle_ps
    );
    if let Some(sat) = s.saturation {
        let _ = writeln!(o, "saturation {sat:.4} of capacity");
    }
    let _ = writeln!(
        o,
        "load      {:.4}  offered {:.4}  accepted {:.4} (fractions of capacity)",
        s.load, s.offered, s.accepted
    );
    let _ = writeln!(
        o,
        "latency   mean {:.0} ps  p50 {} ps  p99 {} ps  over {} measured packets ({} undelivered)",
        s.latency_ps.mean, s.latency_ps.p50, s.latency_ps.p99, s.measured_packets, s.undelivered
    );
    let _ = writeln!(o, "events    {events}");
}

/// The report as a table for a terminal.
pub(crate) fn table(r: &Report) -> String {
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
    if let (Some(why), true) = (&r.mode_auto, r.link_count > 0) {
        let _ = writeln!(o, "mode      {} (auto: {why})", r.mode);
    }
    let _ = writeln!(o, "workload  {}", r.workload);
    if let Some(s) = &r.synthetic {
        synthetic_table(&mut o, s, r.events);
        return o;
    }
    run_lines(&mut o, r);
    traffic_lines(&mut o, r);
    notes_lines(&mut o, r);
    links_lines(&mut o, r);
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

/// The MPI parameters' origin and the run's times.
fn run_lines(o: &mut String, r: &Report) {
    let origin = if r.mpi.preset_default {
        format!(
            "preset {} (the default for this machine; name one with [mpi] preset)",
            r.mpi.preset
        )
    } else {
        format!("preset {}", r.mpi.preset)
    };
    let given = if r.mpi.given.is_empty() {
        "every value from the preset".to_string()
    } else {
        format!(
            "given: {}; the rest from the preset",
            r.mpi.given.join(", ")
        )
    };
    let _ = writeln!(o, "mpi       {origin}; {given}");
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
}

/// Traffic per protocol and locality, regions and collectives.
fn traffic_lines(o: &mut String, r: &Report) {
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
    if !r.regions.is_empty() {
        let _ = writeln!(
            o,
            "\nregions   time per rank between region_begin and region_end"
        );
        for g in &r.regions {
            let _ = writeln!(
                o,
                "  region {:<4} {:>6} ranks {:>8} passes  min {}  mean {}  max {}",
                g.id,
                g.ranks,
                g.passes,
                secs(g.min_s),
                secs(g.mean_s),
                secs(g.max_s)
            );
        }
    }
    if !r.collectives.is_empty() {
        let _ = writeln!(
            o,
            "\ncollectives  selector {}; algorithm, calls and the rule that chose it",
            r.mpi.collectives
        );
        for c in &r.collectives {
            let _ = writeln!(
                o,
                "  {:<15} {:<20} {:>8}  {}",
                c.kind, c.algorithm, c.calls, c.rule
            );
        }
    }
}

/// Matching work and the notes on what the run set aside or clamped.
fn notes_lines(o: &mut String, r: &Report) {
    let _ = writeln!(o, "\nmatching  elements visited per search");
    *o += &search_line("posted_recvs", &r.matching.posted_recvs);
    *o += &search_line("unexpected_msgs", &r.matching.unexpected_msgs);
    if r.calibration_clamped > 0 {
        let _ = writeln!(
            o,
            "  note: {} message(s) had their host overhead clamped to 0 (transport slower than R_b)",
            r.calibration_clamped
        );
    }
    if let Some(w) = r.tcp_window_bytes {
        let _ = writeln!(
            o,
            "  note: TCP window {w} B: each message at most {w} B / (2 x its route latency)"
        );
    }
    if let Some(fx) = &r.size_factors {
        let _ = writeln!(o, "  note: SimGrid SMPI's {fx} per message size");
    }
    if let Some(s) = &r.flow_sharing {
        let _ = writeln!(o, "  note: {s}");
    }
    if !r.platform_notes.is_empty() {
        let _ = writeln!(o, "\nplatform  read and set aside");
        for n in &r.platform_notes {
            let _ = writeln!(o, "  {n}");
        }
    }
}

/// The most utilized link directions.
fn links_lines(o: &mut String, r: &Report) {
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
}

/// Records as CSV text, quoted where needed by the `csv` crate.
fn csv_text<I, R>(records: I) -> Result<String, CliError>
where
    I: IntoIterator<Item = R>,
    R: IntoIterator,
    R::Item: AsRef<[u8]>,
{
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in records {
        w.write_record(r).map_err(CliError::input)?;
    }
    let bytes = w.into_inner().map_err(CliError::input)?;
    String::from_utf8(bytes).map_err(CliError::input)
}

/// Every leaf of a JSON document with its dotted path, in document
/// order: object keys by name, array elements by index
/// (`finish.per_rank_ps.3`, `traffic.0.messages`). The one flattener
/// behind both CSV forms and the sweep's `--metric` paths.
pub(crate) fn leaves(v: &serde_json::Value) -> Vec<(String, &serde_json::Value)> {
    fn walk<'a>(
        path: &mut String,
        v: &'a serde_json::Value,
        out: &mut Vec<(String, &'a serde_json::Value)>,
    ) {
        let mut child = |path: &mut String, key: &str, c: &'a serde_json::Value| {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(key);
            walk(path, c, out);
            path.truncate(len);
        };
        match v {
            serde_json::Value::Object(m) => m.iter().for_each(|(k, c)| child(path, k, c)),
            serde_json::Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, c)| child(path, &i.to_string(), c)),
            leaf => out.push((path.clone(), leaf)),
        }
    }
    let mut out = Vec::new();
    walk(&mut String::new(), v, &mut out);
    out
}

/// A leaf as CSV text: strings without JSON quotes, numbers and the rest
/// as JSON writes them.
fn leaf_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The report as CSV rows `section,key,value` (long format, one value per
/// row; see docs/OUTPUT.md): every leaf of the JSON report, the section
/// its top-level key (`run` for top-level values) and the key the rest
/// of its dotted path.
pub(crate) fn csv(r: &Report) -> Result<String, CliError> {
    let json = serde_json::to_value(r).map_err(CliError::input)?;
    let rows = leaves(&json).into_iter().map(|(path, v)| {
        let (section, key) = path.split_once('.').unwrap_or(("run", &path));
        [section.to_string(), key.to_string(), leaf_text(v)]
    });
    let header = ["section", "key", "value"].map(String::from);
    csv_text(std::iter::once(header).chain(rows))
}

/// The report values of the sweep CSV, by dotted path.
const SWEEP_COLUMNS: [&str; 7] = [
    "makespan_s",
    "makespan_ps",
    "messages",
    "bytes",
    "matching.posted_recvs.mean",
    "matching.unexpected_msgs.mean",
    "events",
];

/// The synthetic-traffic values added to the sweep CSV when the first
/// point's report has them: the latency-load curve.
const SYNTHETIC_COLUMNS: [&str; 6] = [
    "synthetic.offered",
    "synthetic.accepted",
    "synthetic.latency_ps.mean",
    "synthetic.latency_ps.p50",
    "synthetic.latency_ps.p99",
    "synthetic.saturation",
];

/// A sweep as CSV: one row per point, its axis values, then the main
/// figures of its report ([`SWEEP_COLUMNS`], and [`SYNTHETIC_COLUMNS`]
/// for synthetic traffic, named by their paths).
pub(crate) fn sweep_csv(rows: &[Row]) -> Result<String, CliError> {
    let mut header = vec!["index".to_string()];
    let mut columns = SWEEP_COLUMNS.to_vec();
    if let Some(r) = rows.first() {
        header.extend(r.params.iter().map(|p| p.path.clone()));
        if r.result.get("synthetic").is_some() {
            columns.extend(SYNTHETIC_COLUMNS);
        }
    }
    header.extend(columns.iter().map(|c| c.to_string()));
    let body = rows.iter().map(|r| {
        let values = leaves(&r.result);
        let mut rec = vec![r.index.to_string()];
        rec.extend(r.params.iter().map(|p| p.value_text()));
        rec.extend(columns.iter().map(|c| {
            values
                .iter()
                .find(|(p, _)| p == c)
                .map(|(_, v)| leaf_text(v))
                .unwrap_or_default()
        }));
        rec
    });
    csv_text(std::iter::once(header).chain(body))
}

fn host_text(p: &MpiParams, proto: mpi_layer::Protocol, loc: topology::Locality) -> String {
    use mpi_layer::Rest;
    let h = p.host(proto, loc);
    let o_send = match h.rest {
        Rest::SendOverhead => "rest".to_string(),
        _ => h.o_send.to_string(),
    };
    let o_recv = match h.rest {
        Rest::RecvOverhead => "rest".to_string(),
        _ => h.o_recv.to_string(),
    };
    let l = match h.rest {
        Rest::Latency => "rest".to_string(),
        _ => h.latency.to_string(),
    };
    let g = h.gap.map_or("alpha".to_string(), |g| g.to_string());
    let g_cpu = h.cpu_gap.map_or("alpha".to_string(), |g| g.to_string());
    let big_g = h.gap_per_byte.map_or("wire".to_string(), |g| g.to_string());
    let mut t = format!("o_send {o_send}, o_recv {o_recv}, L {l}, g {g}, g_cpu {g_cpu}, G {big_g}");
    if h.recv_gap > sim_core::Time::ZERO || h.recv_gap_per_byte > sim_core::PerByte::ZERO {
        t += &format!(", g_recv {}, G_recv {}", h.recv_gap, h.recv_gap_per_byte);
    }
    for (name, v) in [
        ("O_send", h.send_cpu_per_byte),
        ("O_recv", h.recv_cpu_per_byte),
    ] {
        if v > sim_core::PerByte::ZERO {
            t += &format!(", {name} {v}");
        }
    }
    if h.o_inflight > sim_core::Time::ZERO {
        t += &format!(", o_inflight {}", h.o_inflight);
    }
    t
}

fn mpi_lines(o: &mut String, preset: &mpi_layer::params::Preset) {
    use mpi_layer::Protocol;
    use mpi_layer::params::LOCALITIES;
    let p = (preset.params)();
    let pad = "";
    let _ = writeln!(
        o,
        "  {:<16} short <= {} B, eager <= {} B",
        preset.name, p.short_max, p.eager_max
    );
    for (li, loc) in ["same_socket", "same_node", "other_node"]
        .iter()
        .enumerate()
    {
        let cells: Vec<String> = Protocol::ALL
            .iter()
            .map(|&pr| {
                let c = p.postal[pr.index()][li];
                format!(
                    "{} {} + s/{:.3} GB/s",
                    format!("{pr:?}").to_lowercase(),
                    c.alpha,
                    c.rate.as_f64() / 1e9
                )
            })
            .collect();
        let _ = writeln!(o, "  {pad:<16} postal {loc:<12} {}", cells.join("; "));
    }
    // Host costs: once if every cell has the same, else per locality.
    let all: Vec<String> = Protocol::ALL
        .iter()
        .flat_map(|&pr| LOCALITIES.iter().map(move |&l| (pr, l)))
        .map(|(pr, l)| host_text(&p, pr, l))
        .collect();
    let same_row = |pi: usize| (0..3).all(|li| all[pi * 3 + li] == all[pi * 3]);
    if all.iter().all(|t| *t == all[0]) {
        let _ = writeln!(o, "  {pad:<16} host (every cell) {}", all[0]);
    } else if (0..3).all(same_row) {
        for (pi, pr) in Protocol::ALL.iter().enumerate() {
            let name = format!("{pr:?}").to_lowercase();
            let _ = writeln!(
                o,
                "  {pad:<16} host {name:<10} (every locality) {}",
                all[pi * 3]
            );
        }
    } else {
        for (li, loc) in ["same_socket", "same_node", "other_node"]
            .iter()
            .enumerate()
        {
            for (pi, pr) in Protocol::ALL.iter().enumerate() {
                let _ = writeln!(
                    o,
                    "  {pad:<16} host {loc:<12} {:<10} {}",
                    format!("{pr:?}").to_lowercase(),
                    all[pi * 3 + li]
                );
            }
        }
    }
    let _ = writeln!(
        o,
        "  {pad:<16} gamma posted {} / unexpected {}, match_base {}, unexpected copy {}, pair window {}, node memory {} (copies {:?}), offload {}, rendezvous {:?}",
        p.gamma_posted.gamma,
        p.gamma_unexpected.gamma,
        p.match_base,
        p.unexpected_copy_rate
            .map_or("none".to_string(), |r| r.to_string()),
        p.pair_window
            .map_or("unlimited".to_string(), |w| w.to_string()),
        p.shm
            .memory_bandwidth
            .map_or("unlimited".to_string(), |r| r.to_string()),
        p.shm.copies,
        p.protocol_offload,
        p.rendezvous
    );
    for (what, src) in preset.sources {
        let _ = writeln!(o, "  {pad:<16}   {what}: {src}");
    }
}

/// `netsim presets`: machines and MPI presets with sources and key numbers.
pub(crate) fn presets() -> String {
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
        "\nMPI parameters ([mpi] preset = ...): postal alpha + s/R_b and LogGP host costs per protocol and locality\n\
         (rest: derived so one message takes alpha + s/R_b; see docs/SCENARIOS.md), with sources"
    );
    for preset in &mpi_layer::params::PRESETS {
        mpi_lines(&mut o, preset);
    }
    let _ = writeln!(
        o,
        "\nThe [mpi] preset defaults to the machine's (ethernet-zhu, infiniband-qdr), else blue-waters."
    );
    o
}
