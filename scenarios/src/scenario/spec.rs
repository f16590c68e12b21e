//! The sections of a scenario file as serde types: every field optional
//! with its default documented (`docs/SCENARIOS.md`), unknown fields
//! refused.

use std::path::PathBuf;

use serde::Deserialize;

use super::mpi::MpiSpec;
use super::{Bytes, Dur, MachineSpec};
use crate::trace::TraceFormat;
use crate::workloads::{HvppMode, RecvOrder};
use topology::{ModeChoice, RouteMode, Switching};
/// A scenario as written in the file (before presets are expanded).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Master seed of every random choice (Zhu patterns, random pairs,
    /// shuffled receive orders). Default 1.
    #[serde(default = "one")]
    pub seed: u64,
    /// The machine.
    #[serde(default)]
    pub machine: MachineSpec,
    /// The transport model.
    #[serde(default)]
    pub transport: TransportSpec,
    /// Ranks to cores.
    #[serde(default)]
    pub mapping: MappingSpec,
    /// MPI parameters.
    #[serde(default)]
    pub mpi: MpiSpec,
    /// What the ranks do.
    pub workload: WorkloadSpec,
    /// What the report shows.
    #[serde(default)]
    pub report: ReportSpec,
    /// Directory relative paths in the file are resolved against (the
    /// scenario file's directory); not a field of the file.
    #[serde(skip)]
    pub base_dir: PathBuf,
    /// The `[mpi]` values the file and the command line gave, as dotted
    /// paths below `mpi` (the others come from the preset); not a field.
    #[serde(skip)]
    pub mpi_given: Vec<String>,
}

/// `[transport] routing`: a [`RouteMode`] by name, or forwarding tables
/// read from a file.
#[derive(Clone, Debug, PartialEq)]
pub enum RoutingSpec {
    /// A routing by name.
    Named(RouteMode),
    /// `{ file = "lft.txt" }`: the machine routed by the tables of an
    /// OpenSM LFT dump, relative to the scenario (`topology::lft`).
    File(PathBuf),
}

impl RoutingSpec {
    /// The transport's routing: the named one, or the machine's own
    /// (`dimension-order`) for a file, whose tables become the machine's.
    pub fn mode(&self) -> RouteMode {
        match self {
            RoutingSpec::Named(r) => *r,
            RoutingSpec::File(_) => RouteMode::DimensionOrder,
        }
    }
}

impl<'de> Deserialize<'de> for RoutingSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct FileRouting {
            file: PathBuf,
        }
        match toml::Value::deserialize(d)? {
            v @ toml::Value::Table(_) => FileRouting::deserialize(v)
                .map(|f| RoutingSpec::File(f.file))
                .map_err(|e| D::Error::custom(format!("routing table: {}", e.message().trim()))),
            v => RouteMode::deserialize(v)
                .map(RoutingSpec::Named)
                .map_err(|e| D::Error::custom(e.message().trim())),
        }
    }
}

fn one() -> u64 {
    1
}

/// `[transport]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportSpec {
    /// `auto` (default: [`crate::auto_mode`]), `packet` or `flow`.
    pub mode: Option<ModeChoice>,
    /// Packet payload; default 4096 B.
    pub packet_size: Option<Bytes>,
    /// `cut-through` (default) or `store-and-forward`.
    pub switching: Option<Switching>,
    /// A routing by name (default `dimension-order`), or `{ file =
    /// "lft.txt" }`: InfiniBand forwarding tables (`topology::lft`).
    pub routing: Option<RoutingSpec>,
    /// Finite link buffers with backpressure (packet mode); default false
    /// (unbounded queues).
    pub backpressure: Option<bool>,
    /// Virtual channels per router-bound link (`topology::NetConfig::vcs`,
    /// needs `backpressure`); default 0 (none: bubble flow control,
    /// dimension order only).
    pub vcs: Option<u32>,
    /// Buffer of each virtual channel; default 8192 B
    /// (`topology::DEFAULT_VC_BUFFER`).
    pub vc_buffer: Option<Bytes>,
    /// TCP window bound (`topology::NetConfig::tcp_window`): a message's
    /// rate is at most `tcp_window / (2 x route latency)`; `"0 B"` turns
    /// it off. Default off, except on a SimGrid platform, where it is
    /// the platform's `network/TCP-gamma` (SimGrid's 4 MiB by default).
    pub tcp_window: Option<Bytes>,
    /// SimGrid SMPI's bandwidth factor per message size
    /// (`topology::size_factors`), in its `smpi/bw-factor` spelling
    /// `"threshold:factor;..."`, flow model only; default: a platform's
    /// (`network/model` `SMPI` in its `<config>`), else none (`"0:1"`).
    pub bw_factor: Option<String>,
    /// The same for the latency (`smpi/lat-factor`).
    pub lat_factor: Option<String>,
    /// Width of the bins of the per-link time series (bytes each link
    /// carried per bin; `--link-series`, the timeline's link tracks);
    /// default none (no series kept).
    pub series_interval: Option<Dur>,
}

/// Mapping kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MappingKind {
    /// Fill each node before the next (default).
    #[default]
    Block,
    /// Deal ranks to nodes in turn.
    RoundRobin,
    /// `cores = [[node, core], ...]`.
    Explicit,
    /// A map file: `<node> <core>` per line.
    File,
}

/// `[mapping]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MappingSpec {
    /// Block, round-robin, explicit or file.
    #[serde(default)]
    pub kind: MappingKind,
    /// Ranks per node; default: what the workload needs (max-rate: its
    /// `ppn`; gemini-line: `per_gemini / 2`), else 1.
    pub ppn: Option<u16>,
    /// Explicit `[node, core]` per rank (kind = explicit).
    pub cores: Option<Vec<[u32; 2]>>,
    /// Map file (kind = file), relative to the scenario.
    pub file: Option<PathBuf>,
}

/// Receive posting orders of a message list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ListOrderName {
    /// As listed (default).
    #[default]
    AsListed,
    /// Reversed.
    Reversed,
    /// Shuffled with the scenario seed.
    Shuffled,
}

fn d_sizes() -> Vec<Bytes> {
    vec![Bytes(8)]
}
fn d_1() -> u32 {
    1
}
fn d_2() -> u32 {
    2
}
fn d_4() -> u32 {
    4
}
fn d_8() -> u32 {
    8
}
fn d_16() -> u32 {
    16
}
fn d_32() -> u32 {
    32
}
fn d_64() -> u32 {
    64
}
fn d_b8() -> Bytes {
    Bytes(8)
}
fn d_1mib() -> Bytes {
    Bytes(1 << 20)
}
fn d_16kib() -> Bytes {
    Bytes(16 << 10)
}
fn d_true() -> bool {
    true
}
fn d_7() -> u32 {
    7
}
fn d_uniform() -> crate::synthetic::Pattern {
    crate::synthetic::Pattern::Uniform
}
fn d_load() -> crate::synthetic::Load {
    crate::synthetic::Load::Fraction(0.1)
}
fn d_tenth() -> f64 {
    0.1
}
fn d_2000() -> u64 {
    2000
}
fn d_4000() -> u64 {
    4000
}
fn d_20000() -> u64 {
    20_000
}

/// `[workload]`: `kind` and the kind's parameters (defaults in
/// `docs/SCENARIOS.md`).
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum WorkloadSpec {
    /// Ranks 0 and 1 ping-pong each size `reps` times (blocking send and
    /// receive, as the calibration benchmark's `pingpong`).
    PingPong {
        /// Sizes, in order. Default `[8]`.
        #[serde(default = "d_sizes")]
        sizes: Vec<Bytes>,
        /// Round trips per size. Default 1.
        #[serde(default = "d_1")]
        reps: u32,
    },
    /// HighVolumePingPong between ranks 0 and 1 (Bienz et al. Sec. 4.1).
    Hvpp {
        /// Messages each way. Default 32.
        #[serde(default = "d_32")]
        n: u32,
        /// Message size. Default 8 B.
        #[serde(default = "d_b8")]
        size: Bytes,
        /// Receive order. Default in-order.
        #[serde(default)]
        order: RecvOrder,
        /// When receives are posted. Default paper (Algorithm 1).
        #[serde(default)]
        mode: HvppMode,
    },
    /// `ppn` pairs ping-pong at once between two nodes (Bienz eq. 2).
    MaxRate {
        /// Pairs (ranks per node). Default 16.
        #[serde(default = "d_16")]
        ppn: u32,
        /// Message size. Default 1 MiB.
        #[serde(default = "d_1mib")]
        size: Bytes,
        /// Round trips. Default 2.
        #[serde(default = "d_2")]
        reps: u32,
    },
    /// The 4-Gemini line (Bienz et al. Fig. 6).
    GeminiLine {
        /// Ranks per Gemini. Default 32.
        #[serde(default = "d_32")]
        per_gemini: u32,
        /// Messages per pair each way. Default 4.
        #[serde(default = "d_4")]
        n: u32,
        /// Message size. Default 16 KiB.
        #[serde(default = "d_16kib")]
        size: Bytes,
        /// Receive order. Default in-order.
        #[serde(default)]
        order: RecvOrder,
    },
    /// Zhu et al.'s random bidirectional pattern.
    Zhu {
        /// Nodes |N|. Default 8.
        #[serde(default = "d_8")]
        nodes: u32,
        /// Rounds d. Default 2.
        #[serde(default = "d_2")]
        rounds: u32,
        /// Message size. Default 1 MiB.
        #[serde(default = "d_1mib")]
        size: Bytes,
        /// Pattern number under the seed. Default 0.
        #[serde(default)]
        pattern: u64,
    },
    /// One collective, repeated.
    Collective {
        /// The operation.
        op: crate::workloads::Collective,
        /// Ranks. Default 16.
        #[serde(default = "d_16")]
        procs: u32,
        /// Size per rank. Default 8 B.
        #[serde(default = "d_b8")]
        size: Bytes,
        /// Repetitions. Default 1.
        #[serde(default = "d_1")]
        reps: u32,
    },
    /// Rank 0 streams windows of messages to rank 1.
    MessageRate {
        /// Messages per window. Default 64.
        #[serde(default = "d_64")]
        window: u32,
        /// Message size. Default 8 B.
        #[serde(default = "d_b8")]
        size: Bytes,
        /// Windows. Default 16.
        #[serde(default = "d_16")]
        iters: u32,
        /// Rank 1 acknowledges every window with a zero-byte message
        /// (the calibration benchmark, osu_bw). Default true.
        #[serde(default = "d_true")]
        ack: bool,
    },
    /// 3-D halo exchange.
    Halo {
        /// Ranks; the grid is the most cubic factorization. Default 8.
        #[serde(default = "d_8")]
        procs: u32,
        /// Grid dims (overrides `procs`).
        dims: Option<[u32; 3]>,
        /// 7 or 27 points. Default 7.
        #[serde(default = "d_7")]
        stencil: u32,
        /// Face message size. Default 8 KiB.
        face: Option<Bytes>,
        /// Edge message size (27-point). Default face / 16.
        edge: Option<Bytes>,
        /// Corner message size (27-point). Default face / 256.
        corner: Option<Bytes>,
        /// Periodic boundaries. Default true.
        #[serde(default = "d_true")]
        periodic: bool,
        /// Iterations. Default 1.
        #[serde(default = "d_1")]
        iters: u32,
        /// Computation per iteration. Default 0.
        compute: Option<Dur>,
    },
    /// Random pairs exchange each round.
    RandomPairs {
        /// Ranks (even). Default 16.
        #[serde(default = "d_16")]
        procs: u32,
        /// Rounds. Default 1.
        #[serde(default = "d_1")]
        rounds: u32,
        /// Message size. Default 8 B.
        #[serde(default = "d_b8")]
        size: Bytes,
    },
    /// A CSV message list `src,dst,bytes`.
    MessageList {
        /// The file, relative to the scenario.
        file: PathBuf,
        /// Ranks; default largest rank + 1.
        ranks: Option<u32>,
        /// Receive order. Default as-listed.
        #[serde(default)]
        order: ListOrderName,
    },
    /// Open-loop synthetic traffic: packets straight into the transport,
    /// no MPI ([`crate::synthetic`]).
    Synthetic {
        /// Destination pattern. Default uniform.
        #[serde(default = "d_uniform")]
        pattern: crate::synthetic::Pattern,
        /// Offered load, fraction of capacity, or `"saturation"`.
        /// Default 0.1.
        #[serde(default = "d_load")]
        load: crate::synthetic::Load,
        /// Warm-up window \[cycles\]. Default 2000.
        #[serde(default = "d_2000")]
        warmup_cycles: u64,
        /// Measurement window \[cycles\]. Default 4000.
        #[serde(default = "d_4000")]
        measure_cycles: u64,
        /// Longest drain \[cycles\]. Default 20000.
        #[serde(default = "d_20000")]
        drain_cycles: u64,
        /// The hot host (`hotspot`). Default 0.
        #[serde(default)]
        hotspot_node: u32,
        /// Share of packets to the hot host (`hotspot`). Default 0.1.
        #[serde(default = "d_tenth")]
        hotspot_fraction: f64,
    },
    /// A trace.
    Trace {
        /// The trace (a TI shared or list file, a DUMPI `.meta`, ...).
        path: Option<PathBuf>,
        /// TI per-rank files, rank order (instead of `path`).
        files: Option<Vec<PathBuf>>,
        /// Format; default from the extension.
        format: Option<TraceFormat>,
        /// TI host speed [flop/s]. Default 1e9.
        host_speed_flops: Option<f64>,
        /// DUMPI and OTF2 computation scale. Default 1.0.
        compute_scale: Option<f64>,
        /// GOAL `calc` unit. Default 1 ns.
        calc_unit: Option<Dur>,
    },
}

/// `[report]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportSpec {
    /// Most utilized links listed. Default 10.
    #[serde(default = "d_10")]
    pub top_links: usize,
    /// Slowest ranks listed. Default 5.
    #[serde(default = "d_5")]
    pub slowest_ranks: usize,
}

fn d_10() -> usize {
    10
}
fn d_5() -> usize {
    5
}

impl Default for ReportSpec {
    fn default() -> Self {
        ReportSpec {
            top_links: 10,
            slowest_ranks: 5,
        }
    }
}
