//! `[workload]` to programs: one operation stream per rank for every
//! built-in workload, message list and trace, with the workload's
//! defaults for the mapping.

use std::path::{Path, PathBuf};

use mpi_layer::VecProgram;
use sim_core::Time;

use super::{Dur, ListOrderName, Scenario, ScenarioError, ScenarioFile, WorkloadSpec};
use crate::auto_mode::Traffic;
use crate::msglist::{MessageList, MessageListConfig, RecvOrder as ListOrder};
use crate::reader::{BoxedStream, TraceReader};
use crate::trace::{TraceConfig, TraceFormat, open_path};
use crate::workloads::{self, Collective, Halo, Stencil, ZhuPattern};

/// The programs of a workload and what the mapping needs to know.
pub(super) struct Programs {
    pub(super) streams: Vec<BoxedStream>,
    /// Ranks per node the workload wants by default.
    pub(super) ppn: u16,
    /// A placement the workload dictates (Zhu: rank -> node).
    pub(super) node_of_rank: Option<Vec<u32>>,
    /// The TI ranks' host speeds, to fill once they are placed (a
    /// platform whose hosts differ).
    pub(super) rank_speeds: Option<crate::ti::RankSpeeds>,
    /// Text for the report.
    pub(super) about: String,
    /// What `transport.mode = "auto"` reads; `None` for a trace (its
    /// messages are read during the run).
    pub(super) traffic: Option<Traffic>,
}

fn vec_streams(name: &str, progs: Vec<Vec<mpi_layer::Op>>) -> Vec<BoxedStream> {
    progs
        .into_iter()
        .enumerate()
        .map(|(r, ops)| Box::new(VecProgram::new(&format!("{name} rank {r}"), ops)) as BoxedStream)
        .collect()
}

/// `Ok` when `ok`, else the error `msg` at `workload.key`.
fn need(file: &ScenarioFile, ok: bool, key: &str, msg: &str) -> Result<(), ScenarioError> {
    if ok {
        Ok(())
    } else {
        Err(file.err("workload", key, msg))
    }
}

/// A workload of generated programs, without a placement of its own.
fn simple(name: &str, progs: Vec<Vec<mpi_layer::Op>>, ppn: u16, about: String) -> Programs {
    Programs {
        traffic: Some(Traffic::of_programs(&progs)),
        streams: vec_streams(name, progs),
        ppn,
        node_of_rank: None,
        rank_speeds: None,
        about,
    }
}

/// The readers' settings from a trace workload's fields and the
/// platform's host speed (see [`Scenario::programs`]).
fn trace_config(
    file: &ScenarioFile,
    host_speed: Option<Option<f64>>,
    host_speed_flops: Option<f64>,
    compute_scale: Option<f64>,
    calc_unit: Option<Dur>,
) -> Result<TraceConfig, ScenarioError> {
    let need = |ok: bool, key: &str, msg: &str| need(file, ok, key, msg);
    let mut cfg = TraceConfig::default();
    match host_speed {
        Some(Some(h)) => cfg.ti.host_speed_flops = h,
        Some(None) if host_speed_flops.is_none() => {
            cfg.ti.rank_speeds = Some(crate::ti::RankSpeeds::default());
        }
        _ => {}
    }
    if let Some(h) = host_speed_flops {
        need(
            h.is_finite() && h > 0.0,
            "host_speed_flops",
            "must be positive",
        )?;
        cfg.ti.host_speed_flops = h;
    }
    if let Some(c) = compute_scale {
        need(
            c.is_finite() && c >= 0.0,
            "compute_scale",
            "must be 0 or more",
        )?;
        cfg.dumpi.compute_scale = c;
        cfg.otf2.compute_scale = c;
    }
    if let Some(u) = calc_unit {
        cfg.goal.calc_unit = u.0;
    }
    cfg.msglist.recv_order = ListOrder::AsListed;
    Ok(cfg)
}

/// Peak memory of a run per operation of a built-in workload (the
/// programs and the run's state). Measured: `kind = "message-rate"`,
/// `iters = 100000` on the ideal machine (13.2 M operations by the
/// estimate of `check_size`) peaks at 1.39 GB (`/usr/bin/time -f %M`), 105 B
/// per operation.
const BYTES_PER_OP: u64 = 105;

impl Scenario {
    /// The workload's programs, one stream per rank, after checking that
    /// a built-in workload fits in memory.
    /// `host_speed`: a SimGrid platform's host speed, the TI replay's
    /// default (`Some(None)`: its hosts differ, and each rank takes its
    /// host's, set once placed: [`Programs::rank_speeds`]).
    pub(super) fn programs(
        &self,
        file: &ScenarioFile,
        host_speed: Option<Option<f64>>,
    ) -> Result<Programs, ScenarioError> {
        self.check_size(file)?;
        match &self.workload {
            WorkloadSpec::PingPong { .. }
            | WorkloadSpec::Hvpp { .. }
            | WorkloadSpec::MaxRate { .. }
            | WorkloadSpec::GeminiLine { .. }
            | WorkloadSpec::MessageRate { .. } => self.benchmark_programs(file),
            WorkloadSpec::Zhu { .. }
            | WorkloadSpec::Collective { .. }
            | WorkloadSpec::Halo { .. }
            | WorkloadSpec::RandomPairs { .. } => self.pattern_programs(file),
            WorkloadSpec::MessageList {
                file: list,
                ranks,
                order,
            } => self.message_list_programs(file, list, *ranks, *order),
            WorkloadSpec::Trace {
                path,
                files,
                format,
                host_speed_flops,
                compute_scale,
                calc_unit,
            } => {
                let cfg = trace_config(
                    file,
                    host_speed,
                    *host_speed_flops,
                    *compute_scale,
                    *calc_unit,
                )?;
                self.trace_programs(file, path.as_deref(), files.as_deref(), *format, cfg)
            }
            WorkloadSpec::Synthetic { .. } => {
                Err(file.err("workload", "kind", "synthetic traffic has no MPI programs"))
            }
        }
    }

    /// The point-to-point benchmarks of the seed papers (ping-pong,
    /// HighVolumePingPong, max-rate, the Gemini line, message rate).
    fn benchmark_programs(&self, file: &ScenarioFile) -> Result<Programs, ScenarioError> {
        let need = |ok: bool, key: &str, msg: &str| need(file, ok, key, msg);
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
            } => simple(
                "hvpp",
                workloads::hvpp(*n, size.0, *order, *mode),
                1,
                format!(
                    "HighVolumePingPong ({mode:?}) n = {n}, {} B, {order:?}",
                    size.0
                ),
            ),
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
                    workloads::gemini_line(*per_gemini, *n, size.0, *order),
                    (*per_gemini / 2) as u16,
                    format!(
                        "4-Gemini line, {per_gemini} ranks per Gemini, n = {n}, {} B",
                        size.0
                    ),
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
            _ => unreachable!("not a benchmark workload"),
        })
    }

    /// The traffic patterns: Zhu's random links, a collective, a halo
    /// exchange and random pairs.
    fn pattern_programs(&self, file: &ScenarioFile) -> Result<Programs, ScenarioError> {
        let need = |ok: bool, key: &str, msg: &str| need(file, ok, key, msg);
        Ok(match &self.workload {
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
                let progs = pat.programs(size.0);
                Programs {
                    traffic: Some(Traffic::of_programs(&progs)),
                    streams: vec_streams("zhu", progs),
                    ppn: 1,
                    node_of_rank: Some(pat.node_of_rank()),
                    rank_speeds: None,
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
                    _ => return Err(file.err("workload", "stencil", "must be 7 or 27")),
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
            _ => unreachable!("not a pattern workload"),
        })
    }

    /// A message list's programs (`src,dst,bytes`, one phase).
    fn message_list_programs(
        &self,
        file: &ScenarioFile,
        list: &Path,
        ranks: Option<u32>,
        order: ListOrderName,
    ) -> Result<Programs, ScenarioError> {
        let cfg = MessageListConfig {
            num_ranks: ranks,
            recv_order: match order {
                ListOrderName::AsListed => ListOrder::AsListed,
                ListOrderName::Reversed => ListOrder::Reversed,
                ListOrderName::Shuffled => ListOrder::Shuffled { seed: self.seed },
            },
            ..Default::default()
        };
        let l = MessageList::read(&self.resolve(file, list)?, &cfg)
            .map_err(|e| file.plain(e.to_string()))?;
        let about = format!(
            "message list {}: {} messages, {} B, {} ranks",
            list.file_name()
                .map_or(list.display(), |f| Path::new(f).display()),
            l.num_messages(),
            l.total_bytes(),
            l.num_ranks()
        );
        Ok(Programs {
            traffic: Some(Traffic {
                messages: l.num_messages() as u64,
                bytes: l.total_bytes(),
            }),
            streams: l
                .programs()
                .into_iter()
                .map(|p| Box::new(p) as BoxedStream)
                .collect(),
            ppn: 1,
            node_of_rank: None,
            rank_speeds: None,
            about,
        })
    }

    /// Whether the workload is a GOAL schedule (text or compiled, named
    /// or found in a directory). Its tags are unsigned 32-bit numbers that
    /// the MPI layer carries as the `i32` of the same bits
    /// (`goal::stream`), so outputs that show tags print them unsigned
    /// ([`crate::timeline::MessageLog::unsigned_tags`]).
    pub fn goal_tags(&self) -> bool {
        let WorkloadSpec::Trace {
            path: Some(p),
            format,
            ..
        } = &self.workload
        else {
            return false;
        };
        let Ok(p) = crate::shared::resolve(&self.base_dir, p) else {
            return false;
        };
        let found = if p.is_dir() {
            match crate::trace::resolve_dir(&p, *format) {
                Ok(crate::trace::DirTrace::File(_, f)) => f,
                _ => return false,
            }
        } else {
            format.unwrap_or_else(|| TraceFormat::detect(&p))
        };
        found == TraceFormat::Goal
    }

    /// A trace's programs, from one `path` or TI's per-rank `files`.
    fn trace_programs(
        &self,
        file: &ScenarioFile,
        path: Option<&Path>,
        files: Option<&[PathBuf]>,
        format: Option<TraceFormat>,
        cfg: TraceConfig,
    ) -> Result<Programs, ScenarioError> {
        let need = |ok: bool, key: &str, msg: &str| need(file, ok, key, msg);
        let streams = match (path, files) {
            (Some(p), None) => {
                let p = self.resolve(file, p)?;
                open_path(&p, format, &cfg).map_err(|e| file.plain(e.to_string()))?
            }
            (None, Some(fs)) => {
                need(
                    matches!(format, None | Some(TraceFormat::SimGridTi)),
                    "files",
                    "per-rank files are a TI layout; use `path` for other formats",
                )?;
                let fs: Vec<PathBuf> = fs
                    .iter()
                    .map(|f| self.resolve(file, f))
                    .collect::<Result<_, _>>()?;
                crate::ti::TiTrace::from_rank_files(fs, cfg.ti.clone())
                    .and_then(|t| t.boxed_streams())
                    .map_err(|e| file.plain(e.to_string()))?
            }
            _ => return Err(file.err("workload", "", "give exactly one of `path` and `files`")),
        };
        Ok(Programs {
            about: format!("trace, {} ranks", streams.len()),
            streams,
            ppn: 1,
            node_of_rank: None,
            rank_speeds: cfg.ti.rank_speeds.clone(),
            traffic: None,
        })
    }

    /// Refuses workloads too large to build in memory before building
    /// them (the generators hold every rank's program), and sizes whose
    /// products overflow.
    fn check_size(&self, file: &ScenarioFile) -> Result<(), ScenarioError> {
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
                ("iters", 2, (*window as u64 + 2) * *iters as u64 * 2)
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
            WorkloadSpec::MessageList { .. }
            | WorkloadSpec::Trace { .. }
            | WorkloadSpec::Synthetic { .. } => return Ok(()),
        };
        if ranks > MAX_RANKS {
            return Err(file.err(
                w,
                key,
                format!("{ranks} ranks is more than the {MAX_RANKS} supported"),
            ));
        }
        if ops > MAX_OPS {
            return Err(file.err(
                w,
                key,
                format!("about {ops} operations is more than the {MAX_OPS} a built-in workload may hold in memory"),
            ));
        }
        sim_core::limits::check_memory(
            &format!("a workload of about {ops} operations"),
            ops.saturating_mul(BYTES_PER_OP),
            &format!("lower `workload.{key}`"),
        )
        .map_err(|m| file.err(w, key, m.to_string()))
    }
}
