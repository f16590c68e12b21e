//! The report of a run: what `netsim run` prints (schema `netsim-run/1`,
//! `docs/OUTPUT.md`), built from the MPI layer's results and the
//! transport's per-link statistics.

use mpi_layer::{Protocol, RunResults};
use serde::Serialize;
use topology::{LinkClass, LinkStat, Locality};

use topology::Mode;

use super::ReportSpec;
/// What the run was (for the report header).
#[derive(Clone, Debug)]
pub(super) struct Setup {
    pub(super) mpi: MpiOrigin,
    pub(super) machine: String,
    pub(super) nodes: u32,
    pub(super) ranks: u32,
    pub(super) nodes_used: u32,
    pub(super) mode: Mode,
    /// Why `auto` chose `mode` (`None`: the scenario named it).
    pub(super) mode_why: Option<String>,
    pub(super) workload: String,
    pub(super) seed: u64,
    pub(super) tcp_window: Option<u64>,
    /// SimGrid SMPI's size factors the machine applies, if any.
    pub(super) size_factors: Option<String>,
    /// The flow model's sharing when it is SimGrid's CM02 (`topology::cm02`).
    pub(super) flow_sharing: Option<String>,
    pub(super) platform_notes: Vec<String>,
}

/// One timed region: each rank's time in it (its passes summed), as a
/// benchmark's `MPI_Wtime` differences would give it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RegionRow {
    /// Region number.
    pub id: u32,
    /// Ranks that marked it.
    pub ranks: usize,
    /// Passes (begin-end pairs) over all ranks.
    pub passes: u64,
    /// Least, mean and largest time over those ranks (s).
    pub min_s: f64,
    /// Mean time (s).
    pub mean_s: f64,
    /// Largest time (s).
    pub max_s: f64,
    /// (rank, time in ps), by rank.
    pub per_rank_ps: Vec<(u32, u64)>,
}

/// Where the run's MPI parameters came from: no value is taken from a
/// preset without the report saying so.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MpiOrigin {
    /// The `[mpi]` preset.
    pub preset: &'static str,
    /// The preset was not named: it is the machine's default.
    pub preset_default: bool,
    /// The `[mpi]` values given in the file or on the command line (dotted
    /// paths); every other value is the preset's.
    pub given: Vec<String>,
    /// The collective selector (`[mpi] collectives`).
    pub collectives: &'static str,
}

/// One collective kind run with one algorithm: which rule chose it and
/// how often.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollectiveRow {
    /// The collective (`alltoall`, `reduce_scatter`, ...).
    pub kind: &'static str,
    /// The algorithm (its `[mpi.collectives]` name).
    pub algorithm: &'static str,
    /// The rule that chose it: the library's source file and function.
    pub rule: &'static str,
    /// Calls (a call on a communicator counts once).
    pub calls: u64,
}

/// Per-link statistics, with what each link connects.
#[derive(Clone, Debug)]
pub struct LinkInfo {
    /// Every link direction, by link id.
    pub stats: Vec<LinkStat>,
    /// What each link connects, by link id.
    pub classes: Vec<LinkClass>,
    /// Vertex names by vertex id.
    pub names: Vec<String>,
    /// Torus router coordinates by vertex id (`None` for hosts, switches
    /// and routers of other machines).
    pub router_coords: Vec<Option<[u32; 3]>>,
}

/// A finished run: the report and the raw data plots need.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The report (what `--json` prints).
    pub report: Report,
    /// The MPI layer's results.
    pub results: RunResults,
    /// Link statistics (not for the ideal network).
    pub links: Option<LinkInfo>,
    /// Torus dimensions, when the machine is a torus.
    pub torus: Option<[u32; 3]>,
    /// What the report was built from besides the results.
    pub(super) setup: Setup,
    pub(super) spec: ReportSpec,
}

impl Outcome {
    /// The report this run would have with `results` in place of the
    /// MPI layer's own (the wall-clock figures kept): how a report built
    /// through the observer seam ([`mpi_layer::ReportObserver`]) is
    /// compared with the built-in one.
    pub fn report_for(&self, results: &RunResults) -> Report {
        let wall_s = self.report.wall.as_ref().map_or(0.0, |w| w.seconds);
        let mut r = Report::new(
            &self.setup,
            results,
            self.links.as_ref(),
            &self.spec,
            wall_s,
        );
        r.wall.clone_from(&self.report.wall);
        r
    }
}

/// The report of one run; the JSON schema is `docs/OUTPUT.md`
/// (`netsim-run/1`). Times are in seconds (f64) and, where exactness
/// matters, picoseconds (u64).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// `"netsim-run/1"`.
    pub schema: &'static str,
    /// Machine name.
    pub machine: String,
    /// Nodes of the machine.
    pub nodes: u32,
    /// Nodes the ranks are on.
    pub nodes_used: u32,
    /// Ranks.
    pub ranks: u32,
    /// Transport mode (the ideal network ignores it).
    pub mode: Mode,
    /// Why `transport.mode = "auto"` chose `mode`; absent when the
    /// scenario named the mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode_auto: Option<String>,
    /// Workload description.
    pub workload: String,
    /// Master seed.
    pub seed: u64,
    /// Where the MPI parameters came from.
    pub mpi: MpiOrigin,
    /// The transport's TCP window bound \[bytes\], if on
    /// (`[transport] tcp_window`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_window_bytes: Option<u64>,
    /// SimGrid SMPI's bandwidth and latency factors per message size
    /// the flow model applies (`[transport] bw_factor`, `lat_factor`, or
    /// a platform's `network/model` `SMPI`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_factors: Option<String>,
    /// How flows share links when the flow model follows SimGrid's CM02
    /// (`topology::cm02`: a SimGrid platform with routes of different
    /// latencies through one link, SMPI's factors or link profiles).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_sharing: Option<String>,
    /// What a SimGrid platform file says that cannot change the timing,
    /// read and set aside (`topology::platform::Platform::notes`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub platform_notes: Vec<String>,
    /// Time the last rank finished \[s\].
    pub makespan_s: f64,
    /// The same \[ps\].
    pub makespan_ps: u64,
    /// Per-rank finish times.
    pub finish: FinishSummary,
    /// Messages and bytes per (protocol, locality), nine rows.
    pub traffic: Vec<TrafficRow>,
    /// All messages.
    pub messages: u64,
    /// All payload bytes.
    pub bytes: u64,
    /// RTS and CTS messages.
    pub control_messages: u64,
    /// Match-queue searches.
    pub matching: MatchReport,
    /// Timed regions of the trace (`region_begin` / `region_end`), by
    /// region number; empty when the workload marks none.
    pub regions: Vec<RegionRow>,
    /// The collectives' algorithms, by kind; empty when the workload
    /// calls none.
    pub collectives: Vec<CollectiveRow>,
    /// Messages whose host overhead was clamped to 0.
    pub calibration_clamped: u64,
    /// Most utilized links (empty for the ideal network).
    pub links: Vec<LinkRow>,
    /// Link directions in the machine (0 for the ideal network).
    pub link_count: usize,
    /// Engine events.
    pub events: u64,
    /// Wall-clock figures; not deterministic, omitted from sweep rows
    /// and with `--no-wall`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall: Option<Wall>,
    /// Open-loop synthetic traffic's results (`kind = "synthetic"` only;
    /// absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthetic: Option<crate::synthetic::SyntheticReport>,
}

/// Per-rank finish times.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FinishSummary {
    /// Earliest \[s\].
    pub min_s: f64,
    /// Mean \[s\].
    pub mean_s: f64,
    /// Latest \[s\].
    pub max_s: f64,
    /// Slowest ranks, slowest first (ties: lower rank first).
    pub slowest: Vec<RankFinish>,
    /// Every rank's finish \[ps\], by rank.
    pub per_rank_ps: Vec<u64>,
}

/// A rank and its finish time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RankFinish {
    /// Rank.
    pub rank: u32,
    /// Finish \[s\].
    pub finish_s: f64,
}

/// One (protocol, locality) cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrafficRow {
    /// `short`, `eager`, `rendezvous`.
    pub protocol: &'static str,
    /// `same_socket`, `same_node`, `other_node`.
    pub locality: &'static str,
    /// Messages.
    pub messages: u64,
    /// Payload bytes.
    pub bytes: u64,
}

/// Search lengths of both queues.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchReport {
    /// Searches of `posted_recvs` (one per arriving envelope or RTS).
    pub posted_recvs: SearchStats,
    /// Searches of `unexpected_msgs` (one per posted receive).
    pub unexpected_msgs: SearchStats,
}

/// Elements visited per search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchStats {
    /// Searches.
    pub searches: u64,
    /// Mean elements visited (0 without searches).
    pub mean: f64,
    /// Most elements visited.
    pub max: u64,
    /// `[lo, hi, count]`: searches that visited `lo..=hi` elements
    /// (log-spaced bins, empty bins omitted).
    pub histogram: Vec<[u64; 3]>,
}

/// A link's totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkRow {
    /// Link id.
    pub link: topology::LinkId,
    /// `from -> to` vertex names.
    pub name: String,
    /// Bytes carried.
    pub bytes: u64,
    /// Busy time / makespan, in [0, 1].
    pub utilization: f64,
    /// Largest queue \[bytes\] (packet mode).
    pub peak_queue_bytes: u64,
    /// Most flows at once (flow mode).
    pub peak_flows: u32,
}

/// Wall-clock figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Wall {
    /// Seconds of wall-clock time the simulation took.
    pub seconds: f64,
    /// Events per wall-clock second.
    pub events_per_sec: f64,
}

fn search_stats(h: &sim_core::stats::LogHistogram) -> SearchStats {
    SearchStats {
        searches: h.count(),
        mean: h.mean().unwrap_or(0.0),
        max: h.max().unwrap_or(0),
        histogram: h
            .bins()
            .filter(|b| b.2 > 0)
            .map(|(lo, hi, n)| [lo, hi, n])
            .collect(),
    }
}

impl Report {
    pub(super) fn new(
        s: &Setup,
        r: &RunResults,
        links: Option<&LinkInfo>,
        spec: &ReportSpec,
        wall_s: f64,
    ) -> Report {
        let n = r.finish.len().max(1) as f64;
        let mut order: Vec<u32> = (0..r.finish.len() as u32).collect();
        order.sort_by(|&a, &b| {
            r.finish[b as usize]
                .cmp(&r.finish[a as usize])
                .then(a.cmp(&b))
        });
        let traffic = (0..3)
            .flat_map(|p| {
                (0..3).map(move |l| TrafficRow {
                    protocol: Protocol::ALL[p].name(),
                    locality: Locality::ALL[l].name(),
                    messages: r.traffic[p][l].messages,
                    bytes: r.traffic[p][l].bytes,
                })
            })
            .collect();
        let (top, count) = match links {
            Some(li) => {
                let mut v: Vec<&LinkStat> = li.stats.iter().filter(|l| l.bytes > 0).collect();
                v.sort_by(|a, b| {
                    b.utilization
                        .total_cmp(&a.utilization)
                        .then(b.bytes.cmp(&a.bytes))
                        .then(a.link.cmp(&b.link))
                });
                let name = |i: u32| li.names.get(i as usize).cloned().unwrap_or_default();
                (
                    v.into_iter()
                        .take(spec.top_links)
                        .map(|l| LinkRow {
                            link: l.link,
                            name: format!("{} -> {}", name(l.from), name(l.to)),
                            bytes: l.bytes,
                            utilization: l.utilization,
                            peak_queue_bytes: l.peak_queue_bytes,
                            peak_flows: l.peak_flows,
                        })
                        .collect(),
                    li.stats.len(),
                )
            }
            None => (Vec::new(), 0),
        };
        Report {
            schema: "netsim-run/1",
            machine: s.machine.clone(),
            nodes: s.nodes,
            nodes_used: s.nodes_used,
            ranks: s.ranks,
            mode: s.mode,
            mode_auto: s.mode_why.clone(),
            workload: s.workload.clone(),
            seed: s.seed,
            mpi: s.mpi.clone(),
            tcp_window_bytes: s.tcp_window,
            size_factors: s.size_factors.clone(),
            flow_sharing: s.flow_sharing.clone(),
            platform_notes: s.platform_notes.clone(),
            makespan_s: r.makespan.as_secs_f64(),
            makespan_ps: r.makespan.as_ps(),
            finish: FinishSummary {
                min_s: r.finish.iter().min().map_or(0.0, |t| t.as_secs_f64()),
                mean_s: r.finish.iter().map(|t| t.as_secs_f64()).sum::<f64>() / n,
                max_s: r.makespan.as_secs_f64(),
                slowest: order
                    .iter()
                    .take(spec.slowest_ranks)
                    .map(|&k| RankFinish {
                        rank: k,
                        finish_s: r.finish[k as usize].as_secs_f64(),
                    })
                    .collect(),
                per_rank_ps: r.finish.iter().map(|t| t.as_ps()).collect(),
            },
            traffic,
            messages: r.messages(),
            bytes: r.bytes(),
            control_messages: r.control_messages,
            matching: MatchReport {
                posted_recvs: search_stats(&r.posted_search),
                unexpected_msgs: search_stats(&r.unexpected_search),
            },
            regions: region_rows(&r.regions),
            collectives: r
                .collectives
                .iter()
                .map(|c| CollectiveRow {
                    kind: c.kind.name(),
                    algorithm: c.algorithm,
                    rule: c.rule,
                    calls: c.calls,
                })
                .collect(),
            calibration_clamped: r.calibration_clamped,
            links: top,
            link_count: count,
            events: r.events,
            wall: Some(Wall {
                seconds: wall_s,
                events_per_sec: if wall_s > 0.0 {
                    r.events as f64 / wall_s
                } else {
                    0.0
                },
            }),
            synthetic: None,
        }
    }
}

/// The per-region rows of the results' (region, rank) times.
fn region_rows(times: &[mpi_layer::RegionTime]) -> Vec<RegionRow> {
    times
        .chunk_by(|a, b| a.id == b.id)
        .map(|g| {
            let secs: Vec<f64> = g.iter().map(|t| t.total.as_secs_f64()).collect();
            RegionRow {
                id: g[0].id,
                ranks: g.len(),
                passes: g.iter().map(|t| u64::from(t.count)).sum(),
                min_s: secs.iter().copied().fold(f64::INFINITY, f64::min),
                mean_s: secs.iter().sum::<f64>() / secs.len() as f64,
                max_s: secs.iter().copied().fold(0.0, f64::max),
                per_rank_ps: g.iter().map(|t| (t.rank, t.total.as_ps())).collect(),
            }
        })
        .collect()
}
