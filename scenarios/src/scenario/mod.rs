//! Scenario files: one TOML file says what to simulate (the machine, the
//! transport model, the mapping of ranks to cores, the MPI parameters, the
//! seed and the workload); [`load`] reads it, [`Scenario::run`] runs it
//! and returns a [`Report`].
//!
//! The format, every field with its unit, default and source, is in
//! `docs/SCENARIOS.md`; examples are in `examples/`. In short:
//!
//! ```toml
//! seed = 1
//! [machine]
//! preset = "blue-waters"      # or ethernet-zhu, infiniband-qdr, ideal; or file = "m.txt"
//! dims = [4, 2, 2]
//! [transport]
//! mode = "packet"
//! [mapping]
//! ppn = 1
//! [mpi]
//! preset = "blue-waters"
//! eager_max = "8 KiB"
//! [workload]
//! kind = "ping-pong"
//! sizes = ["8 B", "64 KiB"]
//! ```
//!
//! # Units and errors
//! Times, rates and sizes are strings with units, read by
//! [`sim_core::units`] (`"2.3 us"`, `"940 Mb/s"`, `"12 KiB"`); sizes may
//! also be plain non-negative integers (bytes). Unknown fields are
//! errors naming the field; every error is `file:line: what is wrong`
//! ([`ScenarioError`]). Nothing here panics on user input: the built-in
//! workloads' preconditions are checked before they are called.
//!
//! # Parameter paths
//! `--set` and sweep axes address fields by dotted path
//! (`mpi.eager_max`, `machine.dims`, `workload.size`); [`load_with`]
//! applies them to the parsed table before it is checked, so a bad value
//! is reported like a bad field in the file.

use std::path::{Path, PathBuf};

use mpi_layer::{
    AllreduceLarge, MatcherKind, MpiParams, Postal, Progress, RunError, RunResults, Simulation,
    VecProgram,
};
use serde::{Deserialize, Deserializer};
use sim_core::{Bandwidth, Time, units};
use topology::{
    Backbone, EthernetParams, IdealNetwork, InfinibandParams, Machine, Mapping, Mode, NetConfig,
    Network, NodeId, Placement, ProcLoc, RouteMode, Sharing, Switching, TorusParams, Transport,
};

use crate::msglist::{MessageList, MessageListConfig, RecvOrder as ListOrder};
use crate::trace::{BoxedStream, TraceConfig, TraceFormat, open_streams};
use crate::workloads::{self, Collective, Halo, HvppMode, RecvOrder, Stencil, ZhuPattern};

// ------------------------------------------------------------ quantities

/// A time with a unit (`"2.3 us"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dur(pub Time);
/// A rate with a unit (`"940 Mb/s"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate(pub Bandwidth);
/// A size in bytes: a non-negative integer or a string with a unit
/// (`"12 KiB"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(pub u64);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match UnitValue::deserialize(d)? {
            UnitValue::Text(s) => units::parse_time(&s)
                .map(Dur)
                .map_err(serde::de::Error::custom),
            UnitValue::Int(i) => Err(serde::de::Error::custom(format!(
                "time {i} has no unit: write e.g. \"{i} ns\" or \"{i} us\""
            ))),
            UnitValue::Float(f) => Err(serde::de::Error::custom(format!(
                "time {f} has no unit: write e.g. \"{f} us\""
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match UnitValue::deserialize(d)? {
            UnitValue::Text(s) => units::parse_rate(&s)
                .map(Rate)
                .map_err(serde::de::Error::custom),
            UnitValue::Int(i) => Err(serde::de::Error::custom(format!(
                "rate {i} has no unit: write e.g. \"{i} B/s\" or \"{i} Gb/s\""
            ))),
            UnitValue::Float(f) => Err(serde::de::Error::custom(format!(
                "rate {f} has no unit: write e.g. \"{f} GB/s\""
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match UnitValue::deserialize(d)? {
            UnitValue::Text(s) => units::parse_bytes(&s)
                .map(Bytes)
                .map_err(serde::de::Error::custom),
            UnitValue::Int(i) if i < 0 => Err(serde::de::Error::custom(format!(
                "size {i} is negative; sizes are 0 or more bytes"
            ))),
            UnitValue::Int(i) => Ok(Bytes(i as u64)),
            UnitValue::Float(f) => Err(serde::de::Error::custom(format!(
                "size {f} is not a whole number of bytes; write e.g. \"12 KiB\""
            ))),
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum UnitValue {
    Int(i64),
    Float(f64),
    Text(String),
}

mod spec;
pub use spec::*;

// ------------------------------------------------------------ errors

/// A scenario error: where (file and line when known) and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", location(.file, .line))]
pub struct ScenarioError {
    /// The file.
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

fn location(file: &str, line: &Option<usize>) -> String {
    match (file.is_empty(), line) {
        (true, _) => String::new(),
        (false, Some(l)) => format!("{file}:{l}: "),
        (false, None) => format!("{file}: "),
    }
}

/// The line of `key` inside table `[section]` of `text` (the first
/// `key =` after the section header), for errors found after parsing.
fn key_line(text: &str, section: &str, key: &str) -> Option<usize> {
    let mut inside = section.is_empty();
    let mut section_line = None;
    for (i, raw) in text.lines().enumerate() {
        let l = raw.trim();
        if l.starts_with('[') {
            let name = l.trim_matches(|c| c == '[' || c == ']').trim();
            inside = name == section;
            if inside && section_line.is_none() {
                section_line = Some(i + 1);
            }
            continue;
        }
        if inside {
            if let Some((k, _)) = l.split_once('=') {
                if k.trim() == key {
                    return Some(i + 1);
                }
            }
        }
    }
    section_line
}

/// Context for errors found while building: the file name and text.
#[derive(Clone, Debug, Default)]
pub struct Source {
    /// File name for messages.
    pub file: String,
    /// The file's text (to find the line of a key).
    pub text: String,
}

impl Source {
    fn err(&self, section: &str, key: &str, message: impl Into<String>) -> ScenarioError {
        let name = if key.is_empty() {
            section.to_string()
        } else if section.is_empty() {
            key.to_string()
        } else {
            format!("{section}.{key}")
        };
        ScenarioError {
            file: self.file.clone(),
            line: key_line(&self.text, section, key),
            message: format!("`{name}`: {}", message.into()),
        }
    }
    fn plain(&self, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: self.file.clone(),
            line: None,
            message: message.into(),
        }
    }
}

fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> ScenarioError {
    let message = e.message().trim().to_string();
    let line = e
        .span()
        .map(|s| {
            let upto = &text.as_bytes()[..s.start.min(text.len())];
            upto.iter().filter(|&&b| b == b'\n').count() + 1
        })
        .map(|l| refine_line(text, l, &message));
    ScenarioError {
        file: file.into(),
        line,
        message,
    }
}

/// The TOML reader reports errors inside `[workload]` (an internally
/// tagged table, read through a buffer) at the table's header; point at
/// the field instead: the line of the unknown field, or the first line of
/// the table that holds the offending value quoted in the message.
fn refine_line(text: &str, line: usize, message: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let Some(header) = lines.get(line - 1).map(|l| l.trim()) else {
        return line;
    };
    if !header.starts_with('[') {
        return line;
    }
    let section = header.trim_matches(|c| c == '[' || c == ']').trim();
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let key = rest.split('`').next().unwrap_or("");
        return key_line(text, section, key).unwrap_or(line);
    }
    // A value named in the message: `...` or a number such as -5.
    let needle = message.split('`').nth(1).map(str::to_string).or_else(|| {
        message
            .split_whitespace()
            .find(|w| w.parse::<f64>().is_ok())
            .map(str::to_string)
    });
    let Some(needle) = needle.filter(|n| !n.is_empty()) else {
        return line;
    };
    for (i, l) in lines.iter().enumerate().skip(line) {
        if l.trim().starts_with('[') {
            break;
        }
        if l.split('#').next().unwrap_or("").contains(&needle) {
            return i + 1;
        }
    }
    line
}

// ------------------------------------------------------------ loading

/// A `path=value` override (`--set`, sweep points): the value is read as
/// TOML (`8192`, `"8 KiB"`, `[2, 2, 2]`, `true`), and a bare word that is
/// not TOML is taken as a string (`--set transport.mode=flow`).
pub fn parse_value(text: &str) -> toml::Value {
    let t = text.trim();
    match toml::from_str::<toml::Table>(&format!("v = {t}")) {
        Ok(mut tab) => tab.remove("v").unwrap_or(toml::Value::from(t)),
        Err(_) => toml::Value::from(t),
    }
}

/// Parses `path=value`.
pub fn parse_assignment(s: &str) -> Result<(String, toml::Value), String> {
    let (p, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not of the form path=value"))?;
    if p.trim().is_empty() {
        return Err(format!("`{s}`: empty parameter path"));
    }
    Ok((p.trim().to_string(), parse_value(v)))
}

/// Reads a scenario file's table (syntax checked, errors `file:line`).
pub fn read_table(path: &Path) -> Result<(Source, toml::Table), ScenarioError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: file.clone(),
        line: None,
        message: format!("cannot read scenario: {e}"),
    })?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| toml_error(&file, &text, &e))?;
    Ok((Source { file, text }, table))
}

/// Checks the file as written, then applies `overrides` (dotted paths)
/// and reads the result into a [`Scenario`] whose relative paths resolve
/// against `base_dir`.
pub fn from_table(
    src: &Source,
    table: &toml::Table,
    overrides: &[(String, toml::Value)],
    base_dir: &Path,
) -> Result<Scenario, ScenarioError> {
    // The file alone first, so that an error in it gets its line. (A
    // table built by the command line has no text: it is read below.)
    let mut sc: Option<Scenario> = None;
    if !src.text.is_empty() {
        sc = Some(toml::from_str(&src.text).map_err(|e| toml_error(&src.file, &src.text, &e))?);
    }
    if !overrides.is_empty() || sc.is_none() {
        let mut t = table.clone();
        for (p, v) in overrides {
            crate::sweep::set_path(&mut t, p, v.clone()).map_err(|e| src.plain(e))?;
        }
        let names: Vec<String> = overrides
            .iter()
            .map(|(p, v)| format!("{p} = {v}"))
            .collect();
        sc = Some(
            toml::Value::Table(t)
                .try_into()
                .map_err(|e: toml::de::Error| {
                    if names.is_empty() {
                        src.plain(e.message().trim())
                    } else {
                        src.plain(format!("with {}: {}", names.join(", "), e.message().trim()))
                    }
                })?,
        );
    }
    let mut sc = sc.expect("read from the text or the table above");
    sc.base_dir = base_dir.to_path_buf();
    Ok(sc)
}

/// Loads a scenario file with `overrides` applied.
pub fn load_with(
    path: &Path,
    overrides: &[(String, toml::Value)],
) -> Result<(Source, Scenario), ScenarioError> {
    let (src, table) = read_table(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let sc = from_table(&src, &table, overrides, dir)?;
    Ok((src, sc))
}

/// Loads a scenario file.
pub fn load(path: &Path) -> Result<(Source, Scenario), ScenarioError> {
    load_with(path, &[])
}

// ------------------------------------------------------------ building

/// The programs of a workload and what the mapping needs to know.
struct Programs {
    streams: Vec<BoxedStream>,
    /// Ranks per node the workload wants by default.
    ppn: u16,
    /// A placement the workload dictates (Zhu: rank -> node).
    node_of_rank: Option<Vec<u32>>,
    /// Text for the report.
    about: String,
}

fn vec_streams(name: &str, progs: Vec<Vec<mpi_layer::Op>>) -> Vec<BoxedStream> {
    progs
        .into_iter()
        .enumerate()
        .map(|(r, ops)| Box::new(VecProgram::new(&format!("{name} rank {r}"), ops)) as BoxedStream)
        .collect()
}

impl Scenario {
    fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base_dir.join(p)
        }
    }

    fn programs(&self, src: &Source) -> Result<Programs, ScenarioError> {
        let w = "workload";
        let need = |ok: bool, key: &str, msg: &str| -> Result<(), ScenarioError> {
            if ok {
                Ok(())
            } else {
                Err(src.err(w, key, msg))
            }
        };
        let simple = |name: &str, progs, ppn: u16, about: String| Programs {
            streams: vec_streams(name, progs),
            ppn,
            node_of_rank: None,
            about,
        };
        Ok(match &self.workload {
            WorkloadSpec::PingPong { sizes, reps } => {
                need(!sizes.is_empty(), "sizes", "needs at least one size")?;
                let s: Vec<u64> = sizes.iter().map(|b| b.0).collect();
                simple(
                    "ping-pong",
                    workloads::ping_pong(2, &s, *reps),
                    1,
                    format!("ping-pong, {} size(s), {reps} round trip(s) each", s.len()),
                )
            }
            WorkloadSpec::Hvpp {
                n,
                size,
                order,
                mode,
            } => {
                let m = match mode {
                    HvppModeName::Paper => HvppMode::Paper,
                    HvppModeName::Posted => HvppMode::Posted,
                    HvppModeName::Unexpected => HvppMode::Unexpected,
                };
                simple(
                    "hvpp",
                    workloads::hvpp(*n, size.0, order_of(*order), m),
                    1,
                    format!(
                        "HighVolumePingPong ({m:?}) n = {n}, {} B, {order:?}",
                        size.0
                    ),
                )
            }
            WorkloadSpec::MaxRate { ppn, size, reps } => {
                need(
                    (1..=4096).contains(ppn),
                    "ppn",
                    "must be between 1 and 4096",
                )?;
                simple(
                    "max-rate",
                    workloads::max_rate_pairs(*ppn, size.0, *reps),
                    *ppn as u16,
                    format!("max-rate, {ppn} pairs, {} B, {reps} round trips", size.0),
                )
            }
            WorkloadSpec::GeminiLine {
                per_gemini,
                n,
                size,
                order,
            } => {
                need(
                    *per_gemini >= 2 && per_gemini % 2 == 0 && *per_gemini <= 8192,
                    "per_gemini",
                    "must be even, between 2 and 8192 (two nodes per Gemini)",
                )?;
                simple(
                    "gemini-line",
                    workloads::gemini_line(*per_gemini, *n, size.0, order_of(*order)),
                    (*per_gemini / 2) as u16,
                    format!(
                        "4-Gemini line, {per_gemini} ranks per Gemini, n = {n}, {} B",
                        size.0
                    ),
                )
            }
            WorkloadSpec::Zhu {
                nodes,
                rounds,
                size,
                pattern,
            } => {
                need(*nodes >= 2, "nodes", "a pattern needs at least 2 nodes")?;
                let pat = ZhuPattern::random(*nodes, *rounds, self.seed, *pattern);
                need(
                    !pat.links.is_empty(),
                    "pattern",
                    "this seed and pattern number draw no link; pick another",
                )?;
                Programs {
                    streams: vec_streams("zhu", pat.programs(size.0)),
                    ppn: 1,
                    node_of_rank: Some(pat.node_of_rank()),
                    about: format!(
                        "Zhu pattern |N| = {nodes}, d = {rounds}, {} logical links, {} B",
                        pat.links.len(),
                        size.0
                    ),
                }
            }
            WorkloadSpec::Collective {
                op,
                procs,
                size,
                reps,
            } => {
                need(*procs >= 1, "procs", "must be at least 1")?;
                let c = *op;
                simple(
                    "collective",
                    workloads::collective(c, *procs, size.0, *reps),
                    1,
                    format!("{c:?} on {procs} ranks, {} B, {reps} time(s)", size.0),
                )
            }
            WorkloadSpec::MessageRate {
                window,
                size,
                iters,
                ack,
            } => simple(
                "message-rate",
                if *ack {
                    workloads::message_rate_acked(*window, size.0, *iters)
                } else {
                    workloads::message_rate(*window, size.0, *iters)
                },
                1,
                format!(
                    "message rate, window {window}, {} B, {iters} windows{}",
                    size.0,
                    if *ack { ", acknowledged" } else { "" }
                ),
            ),
            WorkloadSpec::Halo {
                procs,
                dims,
                stencil,
                face,
                edge,
                corner,
                periodic,
                iters,
                compute,
            } => {
                let st = match stencil {
                    7 => Stencil::Point7,
                    27 => Stencil::Point27,
                    _ => return Err(src.err(w, "stencil", "must be 7 or 27")),
                };
                let d = match dims {
                    Some(d) => *d,
                    None => {
                        need(*procs >= 1, "procs", "must be at least 1")?;
                        workloads::grid_dims(*procs)
                    }
                };
                need(d.iter().all(|&k| k >= 1), "dims", "every dim must be >= 1")?;
                let face = face.map_or(8192, |b| b.0);
                let h = Halo {
                    dims: d,
                    stencil: st,
                    face_bytes: face,
                    edge_bytes: edge.map_or(face / 16, |b| b.0),
                    corner_bytes: corner.map_or(face / 256, |b| b.0),
                    periodic: *periodic,
                    iters: *iters,
                    compute: compute.map_or(Time::ZERO, |c| c.0),
                };
                simple(
                    "halo",
                    h.programs(),
                    1,
                    format!(
                        "{stencil}-point halo on a {}x{}x{} grid, face {face} B, {iters} iteration(s)",
                        d[0], d[1], d[2]
                    ),
                )
            }
            WorkloadSpec::RandomPairs {
                procs,
                rounds,
                size,
            } => {
                need(
                    *procs >= 2 && procs % 2 == 0,
                    "procs",
                    "must be even and at least 2",
                )?;
                simple(
                    "random-pairs",
                    workloads::random_pairs(*procs, *rounds, size.0, self.seed),
                    1,
                    format!(
                        "random pairs, {procs} ranks, {rounds} round(s), {} B",
                        size.0
                    ),
                )
            }
            WorkloadSpec::MessageList { file, ranks, order } => {
                let cfg = MessageListConfig {
                    num_ranks: *ranks,
                    recv_order: match order {
                        ListOrderName::AsListed => ListOrder::AsListed,
                        ListOrderName::Reversed => ListOrder::Reversed,
                        ListOrderName::Shuffled => ListOrder::Shuffled { seed: self.seed },
                    },
                    ..Default::default()
                };
                let l = MessageList::read(&self.resolve(file), &cfg)
                    .map_err(|e| src.plain(e.to_string()))?;
                let about = format!(
                    "message list {}: {} messages, {} B, {} ranks",
                    file.file_name()
                        .map_or(file.display(), |f| Path::new(f).display()),
                    l.num_messages(),
                    l.total_bytes(),
                    l.num_ranks()
                );
                Programs {
                    streams: l
                        .programs()
                        .into_iter()
                        .map(|p| Box::new(p) as BoxedStream)
                        .collect(),
                    ppn: 1,
                    node_of_rank: None,
                    about,
                }
            }
            WorkloadSpec::Trace {
                path,
                files,
                format,
                host_speed_flops,
                compute_scale,
                calc_unit,
            } => {
                let mut cfg = TraceConfig::default();
                if let Some(h) = host_speed_flops {
                    need(
                        h.is_finite() && *h > 0.0,
                        "host_speed_flops",
                        "must be positive",
                    )?;
                    cfg.ti.host_speed_flops = *h;
                }
                if let Some(c) = compute_scale {
                    need(
                        c.is_finite() && *c >= 0.0,
                        "compute_scale",
                        "must be 0 or more",
                    )?;
                    cfg.dumpi.compute_scale = *c;
                }
                if let Some(u) = calc_unit {
                    cfg.goal.calc_unit = u.0;
                }
                cfg.msglist.recv_order = ListOrder::AsListed;
                let streams = match (path, files) {
                    (Some(p), None) => {
                        let p = self.resolve(p);
                        let f = format.map_or_else(|| TraceFormat::detect(&p), |f| f.format());
                        open_streams(&p, f, &cfg).map_err(|e| src.plain(e.to_string()))?
                    }
                    (None, Some(fs)) => {
                        need(
                            matches!(format, None | Some(FormatName::Ti)),
                            "files",
                            "per-rank files are a TI layout; use `path` for other formats",
                        )?;
                        let fs: Vec<PathBuf> = fs.iter().map(|f| self.resolve(f)).collect();
                        crate::ti::TiTrace::from_rank_files(fs, cfg.ti.clone())
                            .and_then(|t| t.streams())
                            .map_err(|e| src.plain(e.to_string()))?
                            .into_iter()
                            .map(|s| Box::new(s) as BoxedStream)
                            .collect()
                    }
                    _ => return Err(src.err(w, "", "give exactly one of `path` and `files`")),
                };
                Programs {
                    about: format!("trace, {} ranks", streams.len()),
                    streams,
                    ppn: 1,
                    node_of_rank: None,
                }
            }
        })
    }

    /// Refuses workloads too large to build in memory before building
    /// them (the generators hold every rank's program), and sizes whose
    /// products overflow.
    fn check_size(&self, src: &Source) -> Result<(), ScenarioError> {
        const MAX_RANKS: u64 = 1 << 22;
        const MAX_OPS: u64 = 1 << 28;
        let w = "workload";
        let (key, ranks, ops): (&str, u64, u64) = match &self.workload {
            WorkloadSpec::PingPong { sizes, reps } => {
                ("reps", 2, sizes.len() as u64 * *reps as u64 * 4)
            }
            WorkloadSpec::Hvpp { n, .. } => ("n", 2, *n as u64 * 4 + 8),
            WorkloadSpec::MaxRate { ppn, reps, .. } => {
                ("reps", 2 * *ppn as u64, *ppn as u64 * *reps as u64 * 4)
            }
            WorkloadSpec::GeminiLine { per_gemini, n, .. } => (
                "n",
                4 * *per_gemini as u64,
                4 * *per_gemini as u64 * *n as u64 * 2,
            ),
            WorkloadSpec::Zhu { nodes, rounds, .. } => {
                ("rounds", *nodes as u64, *nodes as u64 * *rounds as u64 * 4)
            }
            WorkloadSpec::Collective {
                op, procs, reps, ..
            } => {
                let p = *procs as u64;
                // A reduce-scatter op holds one count per rank.
                let per = if *op == Collective::ReduceScatter {
                    p
                } else {
                    1
                };
                ("procs", p, p * *reps as u64 * per)
            }
            WorkloadSpec::MessageRate { window, iters, .. } => {
                ("window", 2, (*window as u64 + 2) * *iters as u64 * 2)
            }
            WorkloadSpec::Halo {
                procs, dims, iters, ..
            } => {
                let p = dims.map_or(*procs as u64, |d| d.iter().map(|&k| k as u64).product());
                (
                    if dims.is_some() { "dims" } else { "procs" },
                    p,
                    p * *iters as u64 * 54,
                )
            }
            WorkloadSpec::RandomPairs { procs, rounds, .. } => {
                ("rounds", *procs as u64, *procs as u64 * *rounds as u64 * 3)
            }
            WorkloadSpec::MessageList { .. } | WorkloadSpec::Trace { .. } => return Ok(()),
        };
        if ranks > MAX_RANKS {
            return Err(src.err(
                w,
                key,
                format!("{ranks} ranks is more than the {MAX_RANKS} supported"),
            ));
        }
        if ops > MAX_OPS {
            return Err(src.err(
                w,
                key,
                format!("about {ops} operations is more than the {MAX_OPS} a built-in workload may hold in memory"),
            ));
        }
        Ok(())
    }

    fn machine_preset(&self) -> Option<MachinePreset> {
        match (self.machine.preset, &self.machine.file) {
            (Some(p), _) => Some(p),
            (None, Some(_)) => None,
            (None, None) => Some(MachinePreset::BlueWaters),
        }
    }

    /// The MPI parameters: preset and overrides.
    pub fn mpi_params(&self, src: &Source) -> Result<MpiParams, ScenarioError> {
        let m = &self.mpi;
        let preset = m.preset.unwrap_or(match self.machine_preset() {
            Some(MachinePreset::EthernetZhu) => MpiPreset::EthernetZhu,
            Some(MachinePreset::InfinibandQdr) => MpiPreset::InfinibandQdr,
            _ => MpiPreset::BlueWaters,
        });
        let mut p = preset.params();
        if let Some(v) = m.short_max {
            p.short_max = v.0;
        }
        if let Some(v) = m.eager_max {
            p.eager_max = v.0;
        }
        if p.eager_max < p.short_max {
            return Err(src.err(
                "mpi",
                "eager_max",
                format!("{} B is below short_max = {} B", p.eager_max, p.short_max),
            ));
        }
        if let Some(v) = m.gamma {
            p.gamma = v.0;
        }
        if let Some(v) = m.match_base {
            p.match_base = v.0;
        }
        if let Some(v) = m.memcpy_rate {
            p.memcpy_rate = v.0;
        }
        if let Some(v) = m.send_share_pct {
            if v > 100 {
                return Err(src.err("mpi", "send_share_pct", "is a percentage, 0..=100"));
            }
            p.send_share_pct = v;
        }
        if let Some(v) = m.protocol_offload {
            p.protocol_offload = v;
        }
        if let Some(v) = m.progress_engines {
            p.progress = if v == 0 {
                Progress::OwnCore
            } else {
                Progress::Engines { engines: v }
            };
        }
        if let Some(v) = m.matcher {
            p.matcher = match v {
                MatcherName::Linear => MatcherKind::Linear,
                MatcherName::Hashed => MatcherKind::Hashed,
                MatcherName::PerSourceBins => MatcherKind::PerSourceBins,
                MatcherName::Offloaded => MatcherKind::Offloaded {
                    cost: m.offload_cost.map_or(Time::from_ns(271), |c| c.0),
                },
            };
        } else if m.offload_cost.is_some() {
            return Err(src.err(
                "mpi",
                "offload_cost",
                "applies only with matcher = \"offloaded\"",
            ));
        }
        if let Some(ps) = &m.postal {
            for (li, row) in [&ps.same_socket, &ps.same_node, &ps.other_node]
                .into_iter()
                .enumerate()
            {
                let Some(row) = row else { continue };
                for (pi, cell) in [&row.short, &row.eager, &row.rendezvous]
                    .into_iter()
                    .enumerate()
                {
                    let Some(c) = cell else { continue };
                    let old = p.postal[pi][li];
                    p.postal[pi][li] = Postal {
                        alpha: c.alpha.map_or(old.alpha, |a| a.0),
                        rate: c.rate.map_or(old.rate, |r| r.0),
                    };
                }
            }
        }
        if let Some(c) = &m.collectives {
            let cp = &mut p.collectives;
            if let Some(v) = c.bcast_long_min {
                cp.bcast_long_min = v.0;
            }
            if let Some(v) = c.bcast_min_procs {
                cp.bcast_min_procs = v;
            }
            if let Some(v) = c.allreduce_short_max {
                cp.allreduce_short_max = v.0;
            }
            if let Some(v) = c.allreduce_large {
                cp.allreduce_large = match v {
                    AllreduceName::Rabenseifner => AllreduceLarge::Rabenseifner,
                    AllreduceName::Ring => AllreduceLarge::Ring,
                };
            }
            if let Some(v) = c.allgather_long_min {
                cp.allgather_long_min = v.0;
            }
            if let Some(v) = c.alltoall_bruck_max {
                cp.alltoall_bruck_max = v.0;
            }
            if let Some(v) = c.alltoall_bruck_min_procs {
                cp.alltoall_bruck_min_procs = v;
            }
            if let Some(v) = c.reduce_rate {
                cp.reduce_rate = v.0;
            }
        }
        Ok(p)
    }

    /// Checks that every `[machine]` field given applies to the preset.
    fn check_machine_fields(&self, src: &Source) -> Result<(), ScenarioError> {
        let m = &self.machine;
        let given: [(&str, bool); 24] = [
            ("file", m.file.is_some()),
            ("dims", m.dims.is_some()),
            ("partition", m.partition.is_some()),
            ("origin", m.origin.is_some()),
            ("dim", m.dim.is_some()),
            ("length", m.length.is_some()),
            ("side", m.side.is_some()),
            ("nodes_per_router", m.nodes_per_router.is_some()),
            ("link_bandwidth", m.link_bandwidth.is_some()),
            ("hop_latency", m.hop_latency.is_some()),
            ("nic_latency", m.nic_latency.is_some()),
            ("injection", m.injection.is_some()),
            ("ejection", m.ejection.is_some()),
            ("backbone", m.backbone.is_some()),
            ("sharing", m.sharing.is_some()),
            ("racks", m.racks.is_some()),
            ("nodes_per_rack", m.nodes_per_rack.is_some()),
            ("nic", m.nic.is_some()),
            ("backbone_rate", m.backbone_rate.is_some()),
            ("nodes", m.nodes.is_some()),
            ("latency", m.latency.is_some()),
            ("bandwidth", m.bandwidth.is_some()),
            ("sockets", m.sockets.is_some()),
            ("cores_per_socket", m.cores_per_socket.is_some()),
        ];
        let torus: &[&str] = &[
            "dims",
            "partition",
            "origin",
            "dim",
            "length",
            "side",
            "nodes_per_router",
            "link_bandwidth",
            "hop_latency",
            "nic_latency",
            "injection",
            "ejection",
        ];
        let shape: &[&str] = &["sockets", "cores_per_socket"];
        let allowed: Vec<&str> = match self.machine_preset() {
            Some(MachinePreset::BlueWaters) => [torus, shape].concat(),
            Some(MachinePreset::EthernetZhu) => [
                &[
                    "backbone",
                    "sharing",
                    "racks",
                    "nodes_per_rack",
                    "nic",
                    "backbone_rate",
                    "latency",
                ][..],
                shape,
            ]
            .concat(),
            Some(MachinePreset::InfinibandQdr) => {
                [&["nodes", "latency", "bandwidth"][..], shape].concat()
            }
            Some(MachinePreset::Ideal) => [&["nodes", "latency", "bandwidth"][..], shape].concat(),
            None => vec!["file"],
        };
        let name = match self.machine_preset() {
            Some(p) => format!("preset `{}`", p.name()),
            None => "a machine file".into(),
        };
        for (k, set) in given {
            if set && !allowed.contains(&k) {
                return Err(src.err(
                    "machine",
                    k,
                    format!(
                        "does not apply to {name}; fields that do: {}",
                        allowed.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    fn net_config(&self) -> NetConfig {
        let t = &self.transport;
        NetConfig {
            mode: match t.mode {
                Some(ModeName::Flow) => Mode::Flow,
                _ => Mode::Packet,
            },
            packet_bytes: t
                .packet_size
                .map_or(topology::DEFAULT_PACKET_BYTES, |b| b.0),
            switching: match t.switching {
                Some(SwitchingName::StoreAndForward) => Switching::StoreAndForward,
                _ => Switching::CutThrough,
            },
            routing: match t.routing {
                Some(RoutingName::Adaptive) => RouteMode::MinimalAdaptive,
                _ => RouteMode::DimensionOrder,
            },
            series_interval: None,
            backpressure: t.backpressure.unwrap_or(false),
        }
    }

    /// Builds everything and runs it. `progress(now, events)` is called
    /// every `progress_every` events.
    pub fn run(
        &self,
        src: &Source,
        progress_every: u64,
        progress: impl FnMut(Time, u64),
    ) -> Result<Outcome, ScenarioError> {
        self.check_machine_fields(src)?;
        let params = self.mpi_params(src)?;
        self.check_size(src)?;
        let progs = self.programs(src)?;
        let ranks = progs.streams.len() as u32;
        if ranks == 0 {
            return Err(src.err("workload", "", "has no ranks"));
        }
        let ppn = self.mapping.ppn.unwrap_or(progs.ppn);
        if ppn == 0 {
            return Err(src.err("mapping", "ppn", "must be at least 1"));
        }
        let nodes_needed = match &progs.node_of_rank {
            Some(v) => v.iter().copied().max().unwrap_or(0) + 1,
            None => match (self.mapping.kind, &self.mapping.cores) {
                (MappingKind::Explicit, Some(c)) => c.iter().map(|x| x[0]).max().unwrap_or(0) + 1,
                _ => ranks.div_ceil(ppn as u32),
            },
        }
        .max(2);
        let m = &self.machine;
        let cfg = self.net_config();
        let mode = match cfg.mode {
            Mode::Packet => ModeName::Packet,
            Mode::Flow => ModeName::Flow,
        };
        let merr = |key: &str, e: String| src.err("machine", key, e);
        let machine: Option<Machine> = match self.machine_preset() {
            None => {
                let f = self.resolve(m.file.as_deref().unwrap_or(Path::new("")));
                Some(topology::file::load(&f).map_err(|e| src.plain(e.to_string()))?)
            }
            Some(MachinePreset::BlueWaters) => {
                let mut tp = TorusParams::blue_waters_dims(m.dims.unwrap_or([23, 24, 24]));
                if let Some(v) = m.nodes_per_router {
                    tp.nodes_per_router = v;
                }
                if let Some(v) = &m.link_bandwidth {
                    tp.link_bandwidth = match v.as_slice() {
                        [a] => [a.0; 3],
                        [a, b, c] => [a.0, b.0, c.0],
                        _ => {
                            return Err(merr(
                                "link_bandwidth",
                                "give one rate or three (x, y, z)".into(),
                            ));
                        }
                    };
                }
                if let Some(v) = m.hop_latency {
                    tp.hop_latency = v.0;
                }
                if let Some(v) = m.nic_latency {
                    tp.nic_latency = v.0;
                }
                if let Some(v) = m.injection {
                    tp.injection = v.0;
                }
                if let Some(v) = m.ejection {
                    tp.ejection = v.0;
                }
                if let Some(v) = m.sockets {
                    tp.sockets = v;
                }
                if let Some(v) = m.cores_per_socket {
                    tp.cores_per_socket = v;
                }
                let routers: u64 = tp.dims.iter().map(|&d| d as u64).product();
                if routers > 1 << 20 {
                    return Err(merr("dims", format!("{routers} routers is too many")));
                }
                Some(tp.build().map_err(|e| merr("dims", e.to_string()))?)
            }
            Some(MachinePreset::EthernetZhu) => {
                let mut ep = EthernetParams::zhu(
                    match m.backbone {
                        Some(BackboneName::Electrical) => Backbone::Electrical,
                        _ => Backbone::Optical,
                    },
                    match m.sharing {
                        Some(SharingName::Asymmetric) => Sharing::Asymmetric,
                        _ => Sharing::Fair,
                    },
                );
                if let Some(v) = m.racks {
                    ep.racks = v;
                }
                if let Some(v) = m.nodes_per_rack {
                    ep.nodes_per_rack = v;
                }
                if let Some(v) = m.nic {
                    ep.nic = v.0;
                }
                if let Some(v) = m.backbone_rate {
                    ep.backbone = v.0;
                }
                if let Some(v) = m.latency {
                    ep.latency = v.0;
                }
                if let Some(v) = m.sockets {
                    ep.sockets = v;
                }
                if let Some(v) = m.cores_per_socket {
                    ep.cores_per_socket = v;
                }
                Some(ep.build().map_err(|e| merr("", e.to_string()))?)
            }
            Some(MachinePreset::InfinibandQdr) => {
                let mut ip = InfinibandParams::qdr(m.nodes.unwrap_or(nodes_needed));
                if let Some(v) = m.latency {
                    ip.latency = v.0;
                }
                if let Some(v) = m.bandwidth {
                    ip.bandwidth = v.0;
                }
                if let Some(v) = m.sockets {
                    ip.sockets = v;
                }
                if let Some(v) = m.cores_per_socket {
                    ip.cores_per_socket = v;
                }
                if ip.nodes > 1 << 20 {
                    return Err(merr("nodes", "too many nodes".into()));
                }
                Some(ip.build().map_err(|e| merr("nodes", e.to_string()))?)
            }
            Some(MachinePreset::Ideal) => None,
        };
        // Node shape and the node list the mapping fills.
        let (nodes, sockets, cores) = match &machine {
            Some(mach) => {
                let list: Vec<NodeId> = match (mach.torus(), m.partition) {
                    (Some(g), Some(Partition::Line)) => g
                        .line(
                            m.origin.unwrap_or([0, 0, 0]),
                            m.dim.unwrap_or(Dim::X) as usize,
                            m.length.unwrap_or(4),
                        )
                        .map_err(|e| merr("length", e.to_string()))?,
                    (Some(g), Some(Partition::Cube)) => g
                        .cube(m.origin.unwrap_or([0, 0, 0]), m.side.unwrap_or(2))
                        .map_err(|e| merr("side", e.to_string()))?,
                    _ => (0..mach.nodes()).map(NodeId).collect(),
                };
                let (s, c) = mach.host_shape(NodeId(0));
                (list, s, c)
            }
            None => {
                let n = m.nodes.unwrap_or(nodes_needed);
                if n > 1 << 24 {
                    return Err(merr("nodes", "too many nodes".into()));
                }
                (
                    (0..n).map(NodeId).collect(),
                    m.sockets.unwrap_or(2),
                    m.cores_per_socket.unwrap_or(16),
                )
            }
        };
        let ppn_ok = |p: u16| -> Result<(), ScenarioError> {
            let per_node = sockets as u32 * cores as u32;
            if p as u32 > per_node {
                Err(src.err(
                    "mapping",
                    "ppn",
                    format!("{p} ranks per node, but nodes have {per_node} cores"),
                ))
            } else {
                Ok(())
            }
        };
        let placement = if let Some(nor) = &progs.node_of_rank {
            if let Some(&bad) = nor.iter().find(|&&n| n as usize >= nodes.len()) {
                return Err(src.err(
                    "workload",
                    "nodes",
                    format!(
                        "the pattern uses node {bad} but the machine has {} nodes",
                        nodes.len()
                    ),
                ));
            }
            crate::workloads::place_in_order(nor, |n| nodes[n as usize], sockets, cores)
        } else {
            match self.mapping.kind {
                MappingKind::Block | MappingKind::RoundRobin => {
                    ppn_ok(ppn)?;
                    let how = if self.mapping.kind == MappingKind::Block {
                        Mapping::Block
                    } else {
                        Mapping::RoundRobin
                    };
                    Placement::map(ranks, &nodes, ppn, sockets, how)
                        .map_err(|e| src.err("mapping", "ppn", e.to_string()))?
                }
                MappingKind::Explicit => {
                    let Some(list) = &self.mapping.cores else {
                        return Err(src.err(
                            "mapping",
                            "cores",
                            "kind = \"explicit\" needs `cores = [[node, core], ...]`",
                        ));
                    };
                    if list.len() != ranks as usize {
                        return Err(src.err(
                            "mapping",
                            "cores",
                            format!("lists {} ranks but the workload has {ranks}", list.len()),
                        ));
                    }
                    let mut locs = Vec::with_capacity(list.len());
                    for (r, &[n, c]) in list.iter().enumerate() {
                        if n as usize >= nodes.len() || c >= sockets as u32 * cores as u32 {
                            return Err(src.err(
                                "mapping",
                                "cores",
                                format!(
                                    "rank {r}: node {n} core {c} does not exist ({} nodes of {} cores)",
                                    nodes.len(),
                                    sockets as u32 * cores as u32
                                ),
                            ));
                        }
                        locs.push(ProcLoc {
                            node: NodeId(n),
                            socket: (c / cores as u32) as u16,
                            core: c as u16,
                        });
                    }
                    match &machine {
                        Some(mach) => Placement::explicit(locs, mach)
                            .map_err(|e| src.err("mapping", "cores", e.to_string()))?,
                        None => Placement::from_locs(locs),
                    }
                }
                MappingKind::File => {
                    let Some(f) = &self.mapping.file else {
                        return Err(src.err("mapping", "file", "kind = \"file\" needs `file`"));
                    };
                    let Some(mach) = &machine else {
                        return Err(src.err(
                            "mapping",
                            "file",
                            "map files need a machine (not `ideal`)",
                        ));
                    };
                    let path = self.resolve(f);
                    let name = path.display().to_string();
                    let text = std::fs::read_to_string(&path)
                        .map_err(|e| src.plain(format!("{name}: cannot read map file: {e}")))?;
                    let p = Placement::parse_map(&name, &text, mach)
                        .map_err(|e| src.plain(e.to_string()))?;
                    if p.len() != ranks as usize {
                        return Err(src.plain(format!(
                            "{name}: places {} ranks but the workload has {ranks}",
                            p.len()
                        )));
                    }
                    p
                }
            }
        };
        let setup = Setup {
            machine: machine
                .as_ref()
                .map_or_else(|| "ideal".into(), |m| m.name().to_string()),
            nodes: machine.as_ref().map_or(nodes.len() as u32, |m| m.nodes()),
            ranks,
            nodes_used: placement.nodes_used(),
            mode,
            workload: progs.about.clone(),
            seed: self.seed,
        };
        let wall = std::time::Instant::now();
        let (outcome, links, torus) = match machine {
            None => {
                let net = IdealNetwork::new(
                    nodes.len() as u32,
                    m.latency.map_or(Time::from_ns(500), |v| v.0),
                    m.bandwidth
                        .map_or(Bandwidth::bytes_per_sec(100_000_000_000), |v| v.0),
                );
                let (o, _) = simulate(
                    placement,
                    net,
                    progs.streams,
                    params,
                    progress_every,
                    progress,
                )
                .map_err(|e| src.plain(e))?;
                (o, None, None)
            }
            Some(mach) => {
                let net =
                    Network::new(mach, cfg).map_err(|e| src.err("transport", "", e.to_string()))?;
                let (o, net) = simulate(
                    placement,
                    net,
                    progs.streams,
                    params,
                    progress_every,
                    progress,
                )
                .map_err(|e| src.plain(e))?;
                let (links, torus) = match &o {
                    Ok(r) => {
                        let stats = net.link_stats(r.makespan);
                        let names = net
                            .machine()
                            .vertices()
                            .iter()
                            .map(|v| v.name.clone())
                            .collect::<Vec<_>>();
                        (
                            Some(LinkInfo { stats, names }),
                            net.machine().torus().map(|g| g.dims()),
                        )
                    }
                    Err(_) => (None, None),
                };
                (o, links, torus)
            }
        };
        let wall_s = wall.elapsed().as_secs_f64();
        match outcome {
            Ok(results) => Ok(Outcome {
                report: Report::new(&setup, &results, links.as_ref(), &self.report, wall_s),
                results,
                links,
                torus,
            }),
            Err(e) => Err(src.plain(run_error_text(&e))),
        }
    }
}

/// A run error as text; a deadlock gets the MPI layer's diagnosis.
pub fn run_error_text(e: &RunError) -> String {
    match e {
        RunError::Deadlock(d) => format!("the run deadlocked\n{d}"),
        other => other.to_string(),
    }
}

fn simulate<T: Transport>(
    placement: Placement,
    net: T,
    streams: Vec<BoxedStream>,
    params: MpiParams,
    every: u64,
    progress: impl FnMut(Time, u64),
) -> Result<(Result<RunResults, RunError>, T), String> {
    let sim = Simulation::new(placement, net, streams, params).map_err(|e| e.to_string())?;
    Ok(sim.run_observed(every, progress))
}

fn order_of(o: OrderName) -> RecvOrder {
    match o {
        OrderName::InOrder => RecvOrder::InOrder,
        OrderName::Reversed => RecvOrder::Reversed,
    }
}

mod report;
use report::Setup;
pub use report::{
    FinishSummary, LinkInfo, LinkRow, MatchReport, Outcome, RankFinish, Report, SearchStats,
    TrafficRow, Wall,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_line_finds_keys_in_sections() {
        let t = "seed = 3\n[mpi]\n# c\neager_max = 5\n[workload]\nkind = \"x\"\n";
        assert_eq!(key_line(t, "mpi", "eager_max"), Some(4));
        assert_eq!(key_line(t, "", "seed"), Some(1));
        assert_eq!(key_line(t, "workload", "size"), Some(5));
    }

    #[test]
    fn errors_inside_a_table_move_to_the_field() {
        let t = "[workload]\nkind = \"hvpp\"\n# n = 3\nn = 4\nsize = -8\nbogus = 1\n[report]\n";
        assert_eq!(refine_line(t, 1, "unknown field `bogus`, expected ..."), 6);
        assert_eq!(refine_line(t, 1, "size -8 is negative"), 5);
        // Nothing to find: stay at the header; not a header: unchanged.
        assert_eq!(refine_line(t, 1, "missing field `op`"), 1);
        assert_eq!(refine_line(t, 4, "size -8 is negative"), 4);
    }

    #[test]
    fn values_parse_as_toml_or_words() {
        assert_eq!(parse_value("8192"), toml::Value::from(8192));
        assert_eq!(parse_value("flow"), toml::Value::from("flow"));
        assert_eq!(parse_value("\"8 KiB\""), toml::Value::from("8 KiB"));
        assert_eq!(parse_value("8 KiB"), toml::Value::from("8 KiB"));
        assert!(matches!(parse_value("[2, 2, 2]"), toml::Value::Array(_)));
    }
}
