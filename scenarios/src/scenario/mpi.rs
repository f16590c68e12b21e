//! `[mpi]`: the MPI layer's parameters in a scenario file: a preset, then
//! overrides of any field, with units (see `docs/SCENARIOS.md`).
//!
//! The host model's LogGP costs (`[mpi.host]`) are given for every cell
//! (`[mpi.host.all]`), a locality (`[mpi.host.other_node.all]`) or one
//! cell (`[mpi.host.other_node.eager]`), applied in that order. One term
//! of each cell is derived from the postal fit so that a single message
//! takes `alpha + s / R_b` (`rest = "L"` or `"o_recv"`); giving that term
//! as well is an error rather than a value silently ignored.

use super::collectives::CollectivesField;
use super::{Bytes, Dur, Limit, Rate, Scenario, ScenarioError, ScenarioFile};
use mpi_layer::{HostCosts, MatcherKind, MpiParams, Postal, Progress, Protocol, Rest};
use serde::{Deserialize, Deserializer, Serialize};
use sim_core::{PerByte, Time, units};
use topology::Locality;

/// MPI parameter presets (also `--mpi` of `netsim replay`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum MpiPreset {
    /// Bienz et al. Table 1 (`MpiParams::blue_waters`).
    BlueWaters,
    /// Hoefler et al., BG/P (`MpiParams::bgp`).
    Bgp,
    /// Bridges et al. Table 2 (`MpiParams::infiniband_qdr`).
    InfinibandQdr,
    /// Zhu et al. (`MpiParams::ethernet_zhu`).
    EthernetZhu,
    /// SimGrid's SMPI on CM02 (`MpiParams::smpi`): the network alone,
    /// 16-byte header; the default on a SimGrid platform.
    Smpi,
}

impl MpiPreset {
    /// The parameters.
    pub fn params(self) -> MpiParams {
        match self {
            MpiPreset::BlueWaters => MpiParams::blue_waters(),
            MpiPreset::Bgp => MpiParams::bgp(),
            MpiPreset::InfinibandQdr => MpiParams::infiniband_qdr(),
            MpiPreset::EthernetZhu => MpiParams::ethernet_zhu(),
            MpiPreset::Smpi => MpiParams::smpi(),
        }
    }
    /// The name in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            MpiPreset::BlueWaters => "blue-waters",
            MpiPreset::Bgp => "bgp",
            MpiPreset::InfinibandQdr => "infiniband-qdr",
            MpiPreset::EthernetZhu => "ethernet-zhu",
            MpiPreset::Smpi => "smpi",
        }
    }
}

/// `[mpi]`: a preset and overrides of any [`MpiParams`] field.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MpiSpec {
    /// Preset; default follows the machine (ethernet-zhu and
    /// infiniband-qdr have their own, everything else blue-waters). The
    /// run's report names the preset and whether it was the default.
    pub preset: Option<MpiPreset>,
    /// Largest short message.
    pub short_max: Option<Bytes>,
    /// Largest eager message.
    pub eager_max: Option<Bytes>,
    /// Largest eager message of a non-blocking send.
    pub isend_eager_max: Option<Bytes>,
    /// Cost per queue element visited, both queues.
    pub gamma: Option<Dur>,
    /// Cost per element of `posted_recvs` (overrides `gamma`).
    pub gamma_posted: Option<Dur>,
    /// Cost per element of `unexpected_msgs` (overrides `gamma`).
    pub gamma_unexpected: Option<Dur>,
    /// `[[position, gamma], ...]`: from these queue positions on, each
    /// element of `posted_recvs` costs this (replaces the preset's bands).
    pub gamma_posted_bands: Option<Vec<(u64, Dur)>>,
    /// The same for `unexpected_msgs`.
    pub gamma_unexpected_bands: Option<Vec<(u64, Dur)>>,
    /// Fixed cost per successful match.
    pub match_base: Option<Dur>,
    /// Bytes added to every message on the network (the library's
    /// header): SMPI 16, Open MPI ob1/vader 56; default 0.
    pub header_bytes: Option<Bytes>,
    /// Receiver's copy rate for unexpected short and eager messages, or
    /// `"none"` (no copy charged).
    pub unexpected_copy_rate: Option<Limit>,
    /// Fixed receiver cost of an unexpected short or eager message.
    pub unexpected_cost: Option<Dur>,
    /// A node's memory copy bandwidth for intra-node messages, or
    /// `"unlimited"`.
    pub memory_bandwidth: Option<Limit>,
    /// Copies through memory per protocol `[short, eager, rendezvous]`.
    pub shm_copies: Option<[u8; 3]>,
    /// Envelopes of one (sender, receiver) pair out at once (credits), or
    /// `"unlimited"`.
    pub pair_window: Option<Window>,
    /// Protocol overheads on the NIC.
    pub protocol_offload: Option<bool>,
    /// Who moves rendezvous data after the CTS: `"get"` or `"put"`.
    pub rendezvous: Option<mpi_layer::Rendezvous>,
    /// Progress engines per node; 0 = every rank on its own core.
    pub progress_engines: Option<u16>,
    /// Match-queue implementation.
    pub matcher: Option<MatcherName>,
    /// Cost of one search of the offloaded matcher; default 271 ns
    /// (Bridges et al. Table 2 match latency).
    pub offload_cost: Option<Dur>,
    /// `[mpi.postal.<locality>]` overrides.
    pub postal: Option<PostalSpec>,
    /// `[mpi.host...]`: LogGP costs.
    pub host: Option<HostSpec>,
    /// `[mpi.loggp]`: LogGOPSim's parameters for every cell (replaces the
    /// preset's postal and host tables; see [`MpiParams::loggp`]).
    pub loggp: Option<LoggpSpec>,
    /// `collectives = "smpi"` (a selector's name) or the
    /// `[mpi.collectives]` table.
    pub collectives: Option<CollectivesField>,
}

/// A number of messages, or `"unlimited"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window(pub Option<u32>);

impl<'de> Deserialize<'de> for Window {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(i64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) if (1..=u32::MAX as i64).contains(&n) => Ok(Window(Some(n as u32))),
            Raw::N(n) => Err(serde::de::Error::custom(format!(
                "{n} messages: a window holds at least 1 (or write \"unlimited\")"
            ))),
            Raw::S(s) if s.trim() == "unlimited" => Ok(Window(None)),
            Raw::S(s) => Err(serde::de::Error::custom(format!(
                "`{s}`: write a number of messages or \"unlimited\""
            ))),
        }
    }
}

/// A cost per byte with a unit (`"0.3 ns/B"`) or a rate (`"3 GB/s"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerB(pub PerByte);

impl<'de> Deserialize<'de> for PerB {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        units::parse_per_byte(&s)
            .map(PerB)
            .map_err(serde::de::Error::custom)
    }
}

/// A time, or `"alpha"` (the cell's alpha).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GapSpec(pub Option<Time>);

impl<'de> Deserialize<'de> for GapSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match s.trim() {
            "alpha" => Ok(GapSpec(None)),
            t => units::parse_time(t)
                .map(|v| GapSpec(Some(v)))
                .map_err(serde::de::Error::custom),
        }
    }
}

/// A cost per byte, or `"wire"` (`1 / wire rate`, the cell's `R_b` less
/// the receive side's per-byte cost).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GapPerByteSpec(pub Option<PerByte>);

impl<'de> Deserialize<'de> for GapPerByteSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match s.trim() {
            "wire" => Ok(GapPerByteSpec(None)),
            t => units::parse_per_byte(t)
                .map(|v| GapPerByteSpec(Some(v)))
                .map_err(serde::de::Error::custom),
        }
    }
}

/// One cell's LogGP costs, LogGP's names as keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct HostCell {
    /// `o_send`.
    pub o_send: Option<Dur>,
    /// `o_recv`.
    pub o_recv: Option<Dur>,
    /// `L`.
    pub L: Option<Dur>,
    /// Which of `L`, `o_recv`, `o_send` is derived: `"L"`, `"o_recv"`,
    /// `"o_send"` or `"none"`.
    pub rest: Option<Rest>,
    /// `g`: a time or `"alpha"`.
    pub g: Option<GapSpec>,
    /// `g_cpu`: a time or `"alpha"`.
    pub g_cpu: Option<GapSpec>,
    /// `G`: a cost per byte or `"wire"`.
    pub G: Option<GapPerByteSpec>,
    /// `g_recv`.
    pub g_recv: Option<Dur>,
    /// `G_recv`.
    pub G_recv: Option<PerB>,
    /// `O_send`.
    pub O_send: Option<PerB>,
    /// `O_recv`.
    pub O_recv: Option<PerB>,
    /// `o_inflight`.
    pub o_inflight: Option<Dur>,
}

/// `[mpi.host.<locality>]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostRow {
    /// Every protocol.
    pub all: Option<HostCell>,
    /// Short.
    pub short: Option<HostCell>,
    /// Eager.
    pub eager: Option<HostCell>,
    /// Rendezvous.
    pub rendezvous: Option<HostCell>,
}

/// `[mpi.host]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// Every cell.
    pub all: Option<HostCell>,
    /// Same socket.
    pub same_socket: Option<HostRow>,
    /// Same node, other socket.
    pub same_node: Option<HostRow>,
    /// Other node.
    pub other_node: Option<HostRow>,
}

/// `[mpi.loggp]`: LogGOPSim's parameters.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct LoggpSpec {
    /// Latency.
    pub L: Dur,
    /// CPU overhead per message, both sides.
    pub o: Dur,
    /// Gap per message, both ports.
    pub g: Dur,
    /// Gap per byte, both ports.
    pub G: PerB,
    /// CPU overhead per byte, both sides; default 0.
    pub O: Option<PerB>,
    /// Largest eager message (LogGOPSim's `S`).
    pub S: Bytes,
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

const LOCALITY_KEYS: [&str; 3] = [
    Locality::SameSocket.name(),
    Locality::SameNode.name(),
    Locality::OtherNode.name(),
];
const PROTOCOL_KEYS: [&str; 3] = [
    Protocol::Short.name(),
    Protocol::Eager.name(),
    Protocol::Rendezvous.name(),
];

/// Applies `c` to `h`; `at` names the table for errors.
fn apply_host(
    h: &mut HostCosts,
    c: &HostCell,
    at: &str,
    src: &ScenarioFile,
) -> Result<(), ScenarioError> {
    if let Some(r) = c.rest {
        h.rest = r;
    }
    let derived = |key: &str| {
        src.err(
            at,
            key,
            format!(
                "is derived from alpha + s / R_b here (rest = \"{key}\"); set `rest` to another \
                 term, or to \"none\", to give it"
            ),
        )
    };
    if let Some(v) = c.o_recv {
        if h.rest == Rest::RecvOverhead {
            return Err(derived("o_recv"));
        }
        h.o_recv = v.0;
    }
    if let Some(v) = c.L {
        if h.rest == Rest::Latency {
            return Err(derived("L"));
        }
        h.latency = v.0;
    }
    if let Some(v) = c.o_send {
        if h.rest == Rest::SendOverhead {
            return Err(derived("o_send"));
        }
        h.o_send = v.0;
    }
    if let Some(v) = c.g {
        h.gap = v.0;
    }
    if let Some(v) = c.g_cpu {
        h.cpu_gap = v.0;
    }
    if let Some(v) = c.G {
        h.gap_per_byte = v.0;
    }
    if let Some(v) = c.g_recv {
        h.recv_gap = v.0;
    }
    if let Some(v) = c.G_recv {
        h.recv_gap_per_byte = v.0;
    }
    if let Some(v) = c.O_send {
        h.send_cpu_per_byte = v.0;
    }
    if let Some(v) = c.O_recv {
        h.recv_cpu_per_byte = v.0;
    }
    if let Some(v) = c.o_inflight {
        h.o_inflight = v.0;
    }
    Ok(())
}

fn bands(
    v: &[(u64, Dur)],
    key: &str,
    src: &ScenarioFile,
) -> Result<Vec<(u64, Time)>, ScenarioError> {
    if v.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err(src.err("mpi", key, "positions must be strictly increasing"));
    }
    Ok(v.iter().map(|&(p, g)| (p, g.0)).collect())
}

impl Scenario {
    /// The MPI preset this scenario uses, and whether it was the default
    /// for the machine (not named in the file).
    pub fn mpi_preset(&self) -> (MpiPreset, bool) {
        match self.mpi.preset {
            Some(p) => (p, false),
            None => (
                match self.machine.preset() {
                    None if matches!(self.machine, super::MachineSpec::Platform(_)) => {
                        MpiPreset::Smpi
                    }
                    Some(super::MachinePreset::EthernetZhu) => MpiPreset::EthernetZhu,
                    Some(super::MachinePreset::InfinibandQdr | super::MachinePreset::FatTree) => {
                        MpiPreset::InfinibandQdr
                    }
                    _ => MpiPreset::BlueWaters,
                },
                true,
            ),
        }
    }

    /// The MPI parameters: preset and overrides.
    pub fn mpi_params(&self, src: &ScenarioFile) -> Result<MpiParams, ScenarioError> {
        let m = &self.mpi;
        let mut p = self.mpi_preset().0.params();
        // A SimGrid user's trace on their own platform runs SimGrid's
        // collectives unless the file names others (issue 33: SMPI's
        // default selector is what that user's replay has done so far).
        p.collectives.selection.selector = self.default_selector();
        if let Some(l) = &m.loggp {
            let lp = MpiParams::loggp(
                l.L.0,
                l.o.0,
                l.g.0,
                l.G.0,
                l.O.map_or(PerByte::ZERO, |v| v.0),
                l.S.0,
            );
            if m.postal.is_some() || m.host.is_some() {
                return Err(src.err(
                    "mpi",
                    "loggp",
                    "replaces the postal and host tables; give [mpi.loggp] or [mpi.postal]/[mpi.host], not both",
                ));
            }
            p = MpiParams {
                collectives: p.collectives,
                progress: p.progress,
                ..lp
            };
        }
        if let Some(v) = m.short_max {
            p.short_max = v.0;
        }
        if let Some(v) = m.eager_max {
            p.eager_max = v.0;
        }
        if let Some(v) = m.isend_eager_max {
            p.isend_eager_max = Some(v.0);
        }
        if p.eager_max < p.short_max {
            return Err(src.err(
                "mpi",
                "eager_max",
                format!("{} B is below short_max = {} B", p.eager_max, p.short_max),
            ));
        }
        if let Some(v) = m.gamma {
            p.gamma_posted.gamma = v.0;
            p.gamma_unexpected.gamma = v.0;
        }
        if let Some(v) = m.gamma_posted {
            p.gamma_posted.gamma = v.0;
        }
        if let Some(v) = m.gamma_unexpected {
            p.gamma_unexpected.gamma = v.0;
        }
        if let Some(v) = &m.gamma_posted_bands {
            p.gamma_posted.bands = bands(v, "gamma_posted_bands", src)?;
        }
        if let Some(v) = &m.gamma_unexpected_bands {
            p.gamma_unexpected.bands = bands(v, "gamma_unexpected_bands", src)?;
        }
        if let Some(v) = m.match_base {
            p.match_base = v.0;
        }
        if let Some(v) = m.header_bytes {
            p.header_bytes = v.0;
        }
        if let Some(v) = m.unexpected_copy_rate {
            p.unexpected_copy_rate = v.0;
        }
        if let Some(v) = m.unexpected_cost {
            p.unexpected_cost = v.0;
        }
        if let Some(v) = m.memory_bandwidth {
            p.shm.memory_bandwidth = v.0;
        }
        if let Some(v) = m.shm_copies {
            if v.contains(&0) {
                return Err(src.err("mpi", "shm_copies", "each protocol copies at least once"));
            }
            p.shm.copies = v;
        }
        if let Some(v) = m.pair_window {
            p.pair_window = v.0;
        }
        if let Some(v) = m.protocol_offload {
            p.protocol_offload = v;
        }
        if let Some(v) = m.rendezvous {
            p.rendezvous = v;
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
            apply_postal(&mut p, ps);
        }
        if let Some(hs) = &m.host {
            apply_host_tables(&mut p, hs, src)?;
        }
        if let Some(CollectivesField(c)) = &m.collectives {
            c.apply(&mut p.collectives, src)?;
        }
        Ok(p)
    }
}

/// `[mpi.postal]`: each cell given replaces its alpha or rate.
fn apply_postal(p: &mut MpiParams, ps: &PostalSpec) {
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

/// `[mpi.host]`: every cell (`all`), then a locality's (`other_node.all`),
/// then one cell (`other_node.eager`), in that order.
fn apply_host_tables(
    p: &mut MpiParams,
    hs: &HostSpec,
    src: &ScenarioFile,
) -> Result<(), ScenarioError> {
    if let Some(c) = &hs.all {
        for (pi, row) in p.host.iter_mut().enumerate() {
            for (li, h) in row.iter_mut().enumerate() {
                let at = format!("mpi.host.all ({} {})", PROTOCOL_KEYS[pi], LOCALITY_KEYS[li]);
                apply_host(h, c, &at, src)?;
            }
        }
    }
    for (li, row) in [&hs.same_socket, &hs.same_node, &hs.other_node]
        .into_iter()
        .enumerate()
    {
        let Some(row) = row else { continue };
        if let Some(c) = &row.all {
            for (pi, prow) in p.host.iter_mut().enumerate() {
                let at = format!("mpi.host.{}.all ({})", LOCALITY_KEYS[li], PROTOCOL_KEYS[pi]);
                apply_host(&mut prow[li], c, &at, src)?;
            }
        }
        for (pi, cell) in [&row.short, &row.eager, &row.rendezvous]
            .into_iter()
            .enumerate()
        {
            if let Some(c) = cell {
                let at = format!("mpi.host.{}.{}", LOCALITY_KEYS[li], PROTOCOL_KEYS[pi]);
                apply_host(&mut p.host[pi][li], c, &at, src)?;
            }
        }
    }
    Ok(())
}
