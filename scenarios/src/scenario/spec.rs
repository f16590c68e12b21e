//! The sections of a scenario file as serde types: every field optional
//! with its default documented (`docs/SCENARIOS.md`), unknown fields
//! refused.

use std::path::PathBuf;

use mpi_layer::MpiParams;
use serde::{Deserialize, Serialize};

use super::{Bytes, Dur, Rate};
use crate::trace::TraceFormat;
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
}

fn one() -> u64 {
    1
}

/// Machine presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MachinePreset {
    /// Cray XE6 Gemini 3-D torus ([`TorusParams::blue_waters_dims`]).
    BlueWaters,
    /// Zhu et al.'s two racks of 15 nodes ([`EthernetParams::zhu`]).
    EthernetZhu,
    /// One InfiniBand QDR switch ([`InfinibandParams::qdr`]).
    InfinibandQdr,
    /// Contention-free private wires ([`IdealNetwork`]).
    Ideal,
}

impl MachinePreset {
    /// The name in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            MachinePreset::BlueWaters => "blue-waters",
            MachinePreset::EthernetZhu => "ethernet-zhu",
            MachinePreset::InfinibandQdr => "infiniband-qdr",
            MachinePreset::Ideal => "ideal",
        }
    }
}

/// Torus partition the mapping fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Partition {
    /// Every node (default).
    Whole,
    /// `length` routers in a row from `origin` along `dim`.
    Line,
    /// `side`^3 routers from corner `origin`.
    Cube,
}

/// A torus dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dim {
    /// x.
    X,
    /// y.
    Y,
    /// z.
    Z,
}

/// `[machine]`: a preset or a file, with overrides. Which overrides apply
/// depends on the preset (checked; see `docs/SCENARIOS.md`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    /// Preset; default `blue-waters` (unless `file` is given).
    pub preset: Option<MachinePreset>,
    /// Machine file (`topology::file` format), relative to the scenario.
    pub file: Option<PathBuf>,
    /// Torus routers per dimension; default `[23, 24, 24]` (Blue Waters).
    pub dims: Option<[u32; 3]>,
    /// Torus partition; default whole.
    pub partition: Option<Partition>,
    /// Partition corner; default `[0, 0, 0]`.
    pub origin: Option<[u32; 3]>,
    /// Line partition direction; default x.
    pub dim: Option<Dim>,
    /// Line partition length [routers]; default 4 (Bienz et al. Fig. 6).
    pub length: Option<u32>,
    /// Cube partition side [routers]; default 2.
    pub side: Option<u32>,
    /// Hosts per torus router; default 2 (Gemini).
    pub nodes_per_router: Option<u32>,
    /// Torus link rate per direction: one value for all dimensions or
    /// three (x, y, z).
    pub link_bandwidth: Option<Vec<Rate>>,
    /// Torus router-to-router hop latency.
    pub hop_latency: Option<Dur>,
    /// Torus host <-> router latency, each way.
    pub nic_latency: Option<Dur>,
    /// Node injection rate `R_N` (torus).
    pub injection: Option<Rate>,
    /// Node ejection rate (torus).
    pub ejection: Option<Rate>,
    /// Ethernet backbone cable; default optical.
    pub backbone: Option<BackboneName>,
    /// Ethernet sharing rule; default fair.
    pub sharing: Option<SharingName>,
    /// Ethernet racks; default 2.
    pub racks: Option<u32>,
    /// Ethernet nodes per rack; default 15.
    pub nodes_per_rack: Option<u32>,
    /// Ethernet NIC rate per direction; default 940 Mb/s.
    pub nic: Option<Rate>,
    /// Ethernet backbone rate (overrides `backbone`'s).
    pub backbone_rate: Option<Rate>,
    /// Nodes (infiniband-qdr, ideal); default: as many as the mapping
    /// needs (at least 2).
    pub nodes: Option<u32>,
    /// Latency: ideal wire (default 500 ns), InfiniBand node-to-node
    /// (default 1616 ns), Ethernet per cable (default 75 us).
    pub latency: Option<Dur>,
    /// Bandwidth: ideal wire (default 100 GB/s), InfiniBand link (default
    /// 3.787 GB/s).
    pub bandwidth: Option<Rate>,
    /// Sockets per node (override).
    pub sockets: Option<u16>,
    /// Cores per socket (override).
    pub cores_per_socket: Option<u16>,
}

/// Ethernet backbone names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackboneName {
    /// 10 GbE, measured 9.4 Gb/s.
    Optical,
    /// 1 GbE, measured 940 Mb/s.
    Electrical,
}

/// Sharing rule names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SharingName {
    /// Max-min fair.
    Fair,
    /// Zhu et al. eq. 6.
    Asymmetric,
}

/// `[transport]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportSpec {
    /// `packet` (default) or `flow`.
    pub mode: Option<ModeName>,
    /// Packet payload; default 4096 B.
    pub packet_size: Option<Bytes>,
    /// `cut-through` (default) or `store-and-forward`.
    pub switching: Option<SwitchingName>,
    /// `dimension-order` (default) or `adaptive` (torus, packet mode).
    pub routing: Option<RoutingName>,
    /// Finite link buffers with backpressure (packet mode); default false
    /// (unbounded queues).
    pub backpressure: Option<bool>,
}

/// Transport mode names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ModeName {
    /// Packet model.
    Packet,
    /// Flow model.
    Flow,
}

/// Switching names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwitchingName {
    /// Virtual cut-through.
    CutThrough,
    /// Store-and-forward.
    StoreAndForward,
}

/// Routing names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingName {
    /// Dimension order.
    #[serde(alias = "dor")]
    DimensionOrder,
    /// Minimal adaptive.
    #[serde(alias = "minimal-adaptive")]
    Adaptive,
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

/// MPI parameter presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MpiPreset {
    /// [`MpiParams::blue_waters`].
    BlueWaters,
    /// [`MpiParams::bgp`].
    Bgp,
    /// [`MpiParams::infiniband_qdr`].
    InfinibandQdr,
    /// [`MpiParams::ethernet_zhu`].
    EthernetZhu,
}

impl MpiPreset {
    /// The parameters.
    pub fn params(self) -> MpiParams {
        match self {
            MpiPreset::BlueWaters => MpiParams::blue_waters(),
            MpiPreset::Bgp => MpiParams::bgp(),
            MpiPreset::InfinibandQdr => MpiParams::infiniband_qdr(),
            MpiPreset::EthernetZhu => MpiParams::ethernet_zhu(),
        }
    }
}

/// `[mpi]`: a preset and overrides of any [`MpiParams`] field.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MpiSpec {
    /// Preset; default follows the machine (ethernet-zhu and
    /// infiniband-qdr have their own, everything else blue-waters).
    pub preset: Option<MpiPreset>,
    /// Largest short message.
    pub short_max: Option<Bytes>,
    /// Largest eager message.
    pub eager_max: Option<Bytes>,
    /// Cost per queue element visited.
    pub gamma: Option<Dur>,
    /// Fixed cost per successful match.
    pub match_base: Option<Dur>,
    /// Receiver copy rate for unexpected messages.
    pub memcpy_rate: Option<Rate>,
    /// Sender's share of the host overhead [percent].
    pub send_share_pct: Option<u8>,
    /// Protocol overheads on the NIC.
    pub protocol_offload: Option<bool>,
    /// Progress engines per node; 0 = every rank on its own core.
    pub progress_engines: Option<u16>,
    /// Match-queue implementation.
    pub matcher: Option<MatcherName>,
    /// Cost of one search of the offloaded matcher; default 271 ns
    /// (Bridges et al. Table 2 match latency).
    pub offload_cost: Option<Dur>,
    /// `[mpi.postal.<locality>]` overrides.
    pub postal: Option<PostalSpec>,
    /// `[mpi.collectives]` overrides.
    pub collectives: Option<CollectivesSpec>,
}

/// Matcher names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatcherName {
    /// Two linear FIFO lists.
    Linear,
    /// Hash tables.
    Hashed,
    /// One list per source.
    PerSourceBins,
    /// On the NIC, constant cost.
    Offloaded,
}

/// `[mpi.postal]`: per-locality rows.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostalSpec {
    /// Same socket.
    pub same_socket: Option<PostalRow>,
    /// Same node, other socket.
    pub same_node: Option<PostalRow>,
    /// Other node.
    pub other_node: Option<PostalRow>,
}

/// Per-protocol cells of one locality.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostalRow {
    /// Short protocol.
    pub short: Option<PostalCell>,
    /// Eager protocol.
    pub eager: Option<PostalCell>,
    /// Rendezvous protocol.
    pub rendezvous: Option<PostalCell>,
}

/// `{ alpha = "...", rate = "..." }`.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostalCell {
    /// Latency alpha.
    pub alpha: Option<Dur>,
    /// Per-process rate R_b.
    pub rate: Option<Rate>,
}

/// `[mpi.collectives]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectivesSpec {
    /// Bcast scatter-allgather from this size.
    pub bcast_long_min: Option<Bytes>,
    /// Bcast binomial below this many ranks.
    pub bcast_min_procs: Option<u32>,
    /// Allreduce recursive doubling up to this size.
    pub allreduce_short_max: Option<Bytes>,
    /// `rabenseifner` or `ring`.
    pub allreduce_large: Option<AllreduceName>,
    /// Allgather ring from this total size.
    pub allgather_long_min: Option<Bytes>,
    /// Alltoall Bruck up to this size.
    pub alltoall_bruck_max: Option<Bytes>,
    /// Alltoall never Bruck below this many ranks.
    pub alltoall_bruck_min_procs: Option<u32>,
    /// Reduction rate.
    pub reduce_rate: Option<Rate>,
}

/// Large-allreduce algorithm names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AllreduceName {
    /// Rabenseifner.
    Rabenseifner,
    /// Ring.
    Ring,
}

/// Receive posting orders of HighVolumePingPong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum OrderName {
    /// In arrival order (default).
    #[default]
    InOrder,
    /// Reversed.
    Reversed,
}

/// When HighVolumePingPong posts its receives ([`crate::workloads::HvppMode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum HvppModeName {
    /// Bienz et al. Algorithm 1 (default).
    #[default]
    Paper,
    /// Every receive posted before the sends (a zero-byte sync).
    Posted,
    /// Every message unexpected before the receives (a zero-byte sync).
    Unexpected,
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

/// Trace format names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FormatName {
    /// SimGrid TI.
    Ti,
    /// SST DUMPI.
    Dumpi,
    /// GOAL.
    Goal,
    /// netsim native.
    Native,
    /// CSV message list.
    Csv,
}

impl FormatName {
    /// The reader's format.
    pub fn format(self) -> TraceFormat {
        match self {
            FormatName::Ti => TraceFormat::SimGridTi,
            FormatName::Dumpi => TraceFormat::Dumpi,
            FormatName::Goal => TraceFormat::Goal,
            FormatName::Native => TraceFormat::Native,
            FormatName::Csv => TraceFormat::MessageList,
        }
    }
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
        order: OrderName,
        /// When receives are posted. Default paper.
        #[serde(default)]
        mode: HvppModeName,
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
        order: OrderName,
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
    /// A trace.
    Trace {
        /// The trace (a TI shared or list file, a DUMPI `.meta`, ...).
        path: Option<PathBuf>,
        /// TI per-rank files, rank order (instead of `path`).
        files: Option<Vec<PathBuf>>,
        /// Format; default from the extension.
        format: Option<FormatName>,
        /// TI host speed [flop/s]. Default 1e9.
        host_speed_flops: Option<f64>,
        /// DUMPI computation scale. Default 1.0.
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
