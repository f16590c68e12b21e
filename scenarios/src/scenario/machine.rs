//! `[machine]`: one type per machine family, each with the fields that
//! apply to it and the way it builds its machine.
//!
//! The section names its family with `preset` (default `blue-waters`) or
//! names a machine file with `file`. [`MachineSpec`] reads the key and
//! hands the other fields to the family's type, whose unknown fields are
//! refused by serde; a field of *another* family is refused with the
//! fields that do apply (`machine.dims` on `ideal`). A new family is one
//! preset name, one spec type with its `build`, and its arm in
//! [`MachineSpec`].

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};
use sim_core::{Bandwidth, Time, limits};
use topology::{
    Backbone, Dim, EthernetParams, FatTreeParams, InfinibandParams, Machine, NodeId, Sharing,
    TieRule, TorusParams,
};

use super::{Dur, Limit, Rate, ScenarioError, ScenarioFile};

/// Machine presets: the `preset` of `[machine]`, and `--machine` of
/// `netsim replay`. Built from [`TorusParams::blue_waters_dims`],
/// [`EthernetParams::zhu`], [`InfinibandParams::qdr`],
/// [`FatTreeParams::default`] and [`topology::IdealNetwork`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum MachinePreset {
    /// Blue Waters' Cray Gemini 3-D torus (see --dims).
    BlueWaters,
    /// Zhu et al.'s two Ethernet racks of 15 nodes.
    EthernetZhu,
    /// One InfiniBand QDR switch, as many nodes as needed.
    InfinibandQdr,
    /// A k-ary n-tree of InfiniBand QDR links (default 18-ary 2-tree,
    /// 324 nodes).
    FatTree,
    /// Contention-free wires (500 ns, 100 GB/s).
    Ideal,
}

impl MachinePreset {
    /// Every preset.
    pub const ALL: [MachinePreset; 5] = [
        MachinePreset::BlueWaters,
        MachinePreset::EthernetZhu,
        MachinePreset::InfinibandQdr,
        MachinePreset::FatTree,
        MachinePreset::Ideal,
    ];

    /// The name in scenario files and on the command line (a test checks
    /// it is serde's and clap's).
    pub fn name(self) -> &'static str {
        match self {
            MachinePreset::BlueWaters => "blue-waters",
            MachinePreset::EthernetZhu => "ethernet-zhu",
            MachinePreset::InfinibandQdr => "infiniband-qdr",
            MachinePreset::FatTree => "fat-tree",
            MachinePreset::Ideal => "ideal",
        }
    }
}

/// [`MachinePreset::name`].
impl std::fmt::Display for MachinePreset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
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

/// `[machine]`: a preset's family with its overrides, or a machine file.
#[derive(Clone, Debug)]
pub enum MachineSpec {
    /// `preset = "blue-waters"` (the default): a Gemini torus.
    BlueWaters(TorusSpec),
    /// `preset = "ethernet-zhu"`: two racks of top-of-rack Ethernet.
    EthernetZhu(EthernetSpec),
    /// `preset = "infiniband-qdr"`: one InfiniBand switch.
    InfinibandQdr(InfinibandSpec),
    /// `preset = "fat-tree"`: a k-ary n-tree.
    FatTree(FatTreeSpec),
    /// `preset = "ideal"`: contention-free wires, no links.
    Ideal(IdealSpec),
    /// `file = "m.txt"`: any graph from a machine file.
    File(FileSpec),
    /// `platform = "p.xml"`: a SimGrid platform (`topology::platform`).
    Platform(PlatformSpec),
}

impl Default for MachineSpec {
    fn default() -> Self {
        MachineSpec::BlueWaters(TorusSpec::default())
    }
}

/// `preset = "blue-waters"`: a torus of Gemini routers; every field
/// defaults to Blue Waters ([`TorusParams::blue_waters_dims`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorusSpec {
    /// Torus routers per dimension; default `topology::torus::BLUE_WATERS_DIMS` (Blue Waters, 23 x 24 x 24).
    pub dims: Option<[u32; 3]>,
    /// Torus partition; default whole.
    pub partition: Option<Partition>,
    /// Partition corner; default `[0, 0, 0]`.
    pub origin: Option<[u32; 3]>,
    /// Line partition direction; default x.
    pub dim: Option<Dim>,
    /// Line partition length \[routers\]; default 4 (Bienz et al. Fig. 6).
    pub length: Option<u32>,
    /// Cube partition side \[routers\]; default 2.
    pub side: Option<u32>,
    /// Hosts per torus router; default 2 (Gemini).
    pub nodes_per_router: Option<u32>,
    /// Torus link rate per direction: one value for all dimensions
    /// (`"9.375 GB/s"` or `["9.375 GB/s"]`) or three (x, y, z).
    #[serde(default, deserialize_with = "one_or_list")]
    pub link_bandwidth: Option<Vec<Rate>>,
    /// Torus router-to-router hop latency.
    pub hop_latency: Option<Dur>,
    /// Torus host <-> router latency, each way.
    pub nic_latency: Option<Dur>,
    /// Node injection rate `R_N`.
    pub injection: Option<Rate>,
    /// Node ejection rate.
    pub ejection: Option<Rate>,
    /// Sockets per node (override).
    pub sockets: Option<u16>,
    /// Cores per socket (override).
    pub cores_per_socket: Option<u16>,
    /// Dimension order's way at a half-ring tie: `"plus"` (default),
    /// `"minus"`, or `"simgrid"` (plus, except from coordinate k/2).
    pub tie: Option<TieRule>,
}

/// A rate or a list of rates (`link_bandwidth`).
fn one_or_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Rate>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrList {
        List(Vec<toml::Value>),
        One(toml::Value),
    }
    use serde::de::Error;
    let rate =
        |v: toml::Value| Rate::deserialize(v).map_err(|e| D::Error::custom(e.message().trim()));
    match OneOrList::deserialize(d)? {
        OneOrList::List(v) => v.into_iter().map(rate).collect::<Result<_, _>>().map(Some),
        OneOrList::One(v) => Ok(Some(vec![rate(v)?])),
    }
}

/// `preset = "ethernet-zhu"`: Zhu et al.'s two-rack cluster
/// ([`EthernetParams::zhu`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EthernetSpec {
    /// Backbone cable; default optical.
    pub backbone: Option<Backbone>,
    /// Sharing rule; default fair.
    pub sharing: Option<Sharing>,
    /// Racks; default 2.
    pub racks: Option<u32>,
    /// Nodes per rack; default 15.
    pub nodes_per_rack: Option<u32>,
    /// NIC rate per direction; default 940 Mb/s.
    pub nic: Option<Rate>,
    /// Backbone rate (overrides `backbone`'s).
    pub backbone_rate: Option<Rate>,
    /// Latency per cable direction; default 75 us.
    pub latency: Option<Dur>,
    /// Sockets per node (override).
    pub sockets: Option<u16>,
    /// Cores per socket (override).
    pub cores_per_socket: Option<u16>,
}

/// `preset = "infiniband-qdr"`: one QDR switch ([`InfinibandParams::qdr`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InfinibandSpec {
    /// Nodes; default: as many as the mapping needs (at least 2).
    pub nodes: Option<u32>,
    /// Node-to-node latency; default 1616 ns (Bridges et al. Table 2).
    pub latency: Option<Dur>,
    /// Link rate; default 3.787 GB/s (Bridges et al. Table 2). Read as a
    /// [`Limit`] so that `"unlimited"` gets its own error.
    pub bandwidth: Option<Limit>,
    /// Sockets per node (override).
    pub sockets: Option<u16>,
    /// Cores per socket (override).
    pub cores_per_socket: Option<u16>,
}

/// `preset = "fat-tree"`: a k-ary n-tree ([`FatTreeParams`]; every
/// field defaults to [`FatTreeParams::default`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTreeSpec {
    /// Children and parents per switch, `k`; default 18.
    pub arity: Option<u32>,
    /// Switch levels, `n`; default 2 (`k^n` nodes).
    pub levels: Option<u32>,
    /// Switch-to-switch cable rate per direction; default 3.787 GB/s (QDR).
    pub link_bandwidth: Option<Rate>,
    /// Switch-to-switch cable latency; default 808 ns.
    pub hop_latency: Option<Dur>,
    /// Host -> leaf rate; default 3.787 GB/s.
    pub injection: Option<Rate>,
    /// Leaf -> host rate; default 3.787 GB/s.
    pub ejection: Option<Rate>,
    /// Host cable latency, each way; default 808 ns.
    pub nic_latency: Option<Dur>,
    /// Sockets per node (override).
    pub sockets: Option<u16>,
    /// Cores per socket (override).
    pub cores_per_socket: Option<u16>,
}

/// `preset = "ideal"`: a private wire between every pair of nodes.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdealSpec {
    /// Nodes; default: as many as the mapping needs (at least 2).
    pub nodes: Option<u32>,
    /// Wire latency; default 500 ns.
    pub latency: Option<Dur>,
    /// Wire bandwidth; default 100 GB/s (above every preset's `R_b`);
    /// `"unlimited"`: none, the LogGP network.
    pub bandwidth: Option<Limit>,
    /// Sockets per node; default 2.
    pub sockets: Option<u16>,
    /// Cores per socket; default 16.
    pub cores_per_socket: Option<u16>,
}

/// `file = "m.txt"`: a machine file (`topology::file` format).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    /// The file, relative to the scenario.
    pub file: PathBuf,
}

/// `platform = "p.xml"`: a SimGrid platform file (version 4.1), imported
/// by `topology::platform`; its hosts' speed is the TI replay's host
/// speed unless the workload gives one.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformSpec {
    /// The file, relative to the scenario.
    pub platform: PathBuf,
}

impl<'de> Deserialize<'de> for MachineSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(d)?;
        let preset = match table.remove("preset") {
            Some(v) => Some(MachinePreset::deserialize(v).map_err(D::Error::custom)?),
            None => None,
        };
        let (fields, what): (&[&str], String) = match preset {
            Some(p) => (p.fields(), format!("preset `{p}`")),
            None if table.contains_key("file") => (FILE_FIELDS, "a machine file".into()),
            None if table.contains_key("platform") => {
                (PLATFORM_FIELDS, "a SimGrid platform".into())
            }
            None => (
                MachinePreset::BlueWaters.fields(),
                "preset `blue-waters`".into(),
            ),
        };
        // A field of another family is named as such; one of no family is
        // left to the family's type, whose error lists the fields it has.
        for key in table.keys() {
            let elsewhere = MachinePreset::ALL
                .iter()
                .any(|p| p.fields().contains(&key.as_str()))
                || FILE_FIELDS.contains(&key.as_str())
                || PLATFORM_FIELDS.contains(&key.as_str());
            if elsewhere && !fields.contains(&key.as_str()) {
                return Err(D::Error::custom(format!(
                    "`machine.{key}`: does not apply to {what}; fields that do: {}",
                    fields.join(", ")
                )));
            }
        }
        let rest = toml::Value::Table(table);
        let family = |e: toml::de::Error| D::Error::custom(e.message().trim());
        Ok(match preset {
            Some(MachinePreset::BlueWaters) => {
                MachineSpec::BlueWaters(TorusSpec::deserialize(rest).map_err(family)?)
            }
            Some(MachinePreset::EthernetZhu) => {
                MachineSpec::EthernetZhu(EthernetSpec::deserialize(rest).map_err(family)?)
            }
            Some(MachinePreset::InfinibandQdr) => {
                MachineSpec::InfinibandQdr(InfinibandSpec::deserialize(rest).map_err(family)?)
            }
            Some(MachinePreset::Ideal) => {
                MachineSpec::Ideal(IdealSpec::deserialize(rest).map_err(family)?)
            }
            Some(MachinePreset::FatTree) => {
                MachineSpec::FatTree(FatTreeSpec::deserialize(rest).map_err(family)?)
            }
            None if fields == FILE_FIELDS => {
                MachineSpec::File(FileSpec::deserialize(rest).map_err(family)?)
            }
            None if fields == PLATFORM_FIELDS => {
                MachineSpec::Platform(PlatformSpec::deserialize(rest).map_err(family)?)
            }
            None => MachineSpec::BlueWaters(TorusSpec::deserialize(rest).map_err(family)?),
        })
    }
}

const FILE_FIELDS: &[&str] = &["file"];
const PLATFORM_FIELDS: &[&str] = &["platform"];

impl MachinePreset {
    /// The `[machine]` fields of this preset's family, in the order of
    /// its spec type (read from the type, so the list cannot drift).
    fn fields(self) -> &'static [&'static str] {
        match self {
            MachinePreset::BlueWaters => serde_fields::<TorusSpec>(),
            MachinePreset::EthernetZhu => serde_fields::<EthernetSpec>(),
            MachinePreset::InfinibandQdr => serde_fields::<InfinibandSpec>(),
            MachinePreset::Ideal => serde_fields::<IdealSpec>(),
            MachinePreset::FatTree => serde_fields::<FatTreeSpec>(),
        }
    }
}

/// The field names a derived `Deserialize` struct accepts: serde hands
/// them to `deserialize_struct`, where a deserializer that reads nothing
/// catches them.
fn serde_fields<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    struct Catch(Option<&'static [&'static str]>);
    #[derive(Debug)]
    struct Caught;
    impl std::fmt::Display for Caught {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("field names caught")
        }
    }
    impl std::error::Error for Caught {}
    impl serde::de::Error for Caught {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Caught
        }
    }
    impl<'de> Deserializer<'de> for &mut Catch {
        type Error = Caught;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Caught> {
            Err(Caught)
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Caught> {
            self.0 = Some(fields);
            Err(Caught)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut c = Catch(None);
    let _ = T::deserialize(&mut c);
    c.0.unwrap_or(&[])
}

/// A machine built from its spec: the links (none for the ideal network),
/// the nodes the mapping fills in order, and the shape of a node.
pub(super) struct BuiltMachine {
    /// The machine, or the ideal wires' latency and bandwidth.
    pub(super) fabric: Fabric,
    /// Nodes the mapping fills, in order (a torus partition, or all).
    pub(super) nodes: Vec<NodeId>,
    /// Sockets per node.
    pub(super) sockets: u16,
    /// Cores per socket.
    pub(super) cores: u16,
}

/// What carries the messages.
pub(super) enum Fabric {
    /// A machine with links (boxed: the other variant is a few words).
    Links(Box<Machine>),
    /// Private wires between every pair of nodes.
    Ideal {
        /// Nodes.
        nodes: u32,
        /// Wire latency.
        latency: Time,
        /// Wire bandwidth; `None`: unlimited.
        bandwidth: Option<Bandwidth>,
    },
}

impl Fabric {
    /// The machine's name in reports.
    pub(super) fn name(&self) -> String {
        match self {
            Fabric::Links(m) => m.name().to_string(),
            Fabric::Ideal { .. } => "ideal".into(),
        }
    }
    /// Nodes of the machine.
    pub(super) fn nodes(&self) -> u32 {
        match self {
            Fabric::Links(m) => m.nodes(),
            Fabric::Ideal { nodes, .. } => *nodes,
        }
    }
}

impl MachineSpec {
    /// The preset, `None` for a machine file.
    pub fn preset(&self) -> Option<MachinePreset> {
        match self {
            MachineSpec::BlueWaters(_) => Some(MachinePreset::BlueWaters),
            MachineSpec::EthernetZhu(_) => Some(MachinePreset::EthernetZhu),
            MachineSpec::InfinibandQdr(_) => Some(MachinePreset::InfinibandQdr),
            MachineSpec::Ideal(_) => Some(MachinePreset::Ideal),
            MachineSpec::FatTree(_) => Some(MachinePreset::FatTree),
            MachineSpec::File(_) | MachineSpec::Platform(_) => None,
        }
    }

    /// Imports the SimGrid platform of `platform = ...` (`None` for the
    /// other kinds), before the programs: its host speed is the TI
    /// replay's default.
    pub(super) fn platform(
        &self,
        file: &ScenarioFile,
        base_dir: &Path,
    ) -> Result<Option<topology::platform::Platform>, ScenarioError> {
        let MachineSpec::Platform(p) = self else {
            return Ok(None);
        };
        let path = crate::shared::resolve(base_dir, &p.platform)
            .map_err(|e| file.plain(format!("{}: {e}", p.platform.display())))?;
        topology::platform::load(&path)
            .map(Some)
            .map_err(|e| file.plain(e.to_string()))
    }

    /// Builds the machine; `nodes_needed` sizes the families whose node
    /// count defaults to what the mapping needs; `base_dir` resolves a
    /// machine file's path.
    pub(super) fn build(
        &self,
        file: &ScenarioFile,
        base_dir: &Path,
        nodes_needed: u32,
        platform: Option<topology::platform::Platform>,
    ) -> Result<BuiltMachine, ScenarioError> {
        let err = |key: &str, e: String| file.err("machine", key, e);
        // Counts the builders need at least 1 of, named as written.
        let counts: &[(&str, Option<u32>)] = match self {
            MachineSpec::BlueWaters(t) => &[
                ("nodes_per_router", t.nodes_per_router),
                ("sockets", t.sockets.map(u32::from)),
                ("cores_per_socket", t.cores_per_socket.map(u32::from)),
            ],
            MachineSpec::EthernetZhu(e) => &[
                ("racks", e.racks),
                ("nodes_per_rack", e.nodes_per_rack),
                ("sockets", e.sockets.map(u32::from)),
                ("cores_per_socket", e.cores_per_socket.map(u32::from)),
            ],
            MachineSpec::InfinibandQdr(i) => &[
                ("nodes", i.nodes),
                ("sockets", i.sockets.map(u32::from)),
                ("cores_per_socket", i.cores_per_socket.map(u32::from)),
            ],
            MachineSpec::Ideal(i) => &[
                ("nodes", i.nodes),
                ("sockets", i.sockets.map(u32::from)),
                ("cores_per_socket", i.cores_per_socket.map(u32::from)),
            ],
            MachineSpec::FatTree(f) => &[
                ("sockets", f.sockets.map(u32::from)),
                ("cores_per_socket", f.cores_per_socket.map(u32::from)),
            ],
            MachineSpec::Platform(_) | MachineSpec::File(_) => &[],
        };
        if let Some((key, _)) = counts.iter().find(|(_, v)| *v == Some(0)) {
            return Err(err(key, "must be at least 1".into()));
        }
        let (machine, partition) = match self {
            MachineSpec::Platform(_) => (
                platform.expect("imported by MachineSpec::platform").machine,
                None,
            ),
            MachineSpec::File(f) => {
                let path = crate::shared::resolve(base_dir, &f.file)
                    .map_err(|e| file.plain(format!("{}: {e}", f.file.display())))?;
                let m = topology::file::load(&path).map_err(|e| file.plain(e.to_string()))?;
                (m, None)
            }
            MachineSpec::BlueWaters(t) => (t.build(&err)?, Some(t)),
            MachineSpec::EthernetZhu(e) => (e.build(&err)?, None),
            MachineSpec::InfinibandQdr(i) => (i.build(&err, nodes_needed)?, None),
            MachineSpec::FatTree(f) => (f.build(&err)?, None),
            MachineSpec::Ideal(i) => return i.build(&err, nodes_needed),
        };
        let nodes = match (machine.torus(), partition) {
            (Some(g), Some(t)) => match t.partition {
                Some(Partition::Line) => g
                    .line(
                        t.origin.unwrap_or([0, 0, 0]),
                        t.dim.unwrap_or(Dim::X).index(),
                        t.length.unwrap_or(4),
                    )
                    .map_err(|e| err("length", e.to_string()))?,
                Some(Partition::Cube) => g
                    .cube(t.origin.unwrap_or([0, 0, 0]), t.side.unwrap_or(2))
                    .map_err(|e| err("side", e.to_string()))?,
                Some(Partition::Whole) | None => g.whole(),
            },
            _ => (0..machine.nodes()).map(NodeId).collect(),
        };
        let (sockets, cores) = machine.host_shape(NodeId(0));
        Ok(BuiltMachine {
            fabric: Fabric::Links(Box::new(machine)),
            nodes,
            sockets,
            cores,
        })
    }
}

/// Reports a bad `[machine]` field: `(key, message)`.
type FieldErr<'a> = &'a dyn Fn(&str, String) -> ScenarioError;

impl TorusSpec {
    fn build(&self, err: FieldErr) -> Result<Machine, ScenarioError> {
        let mut tp =
            TorusParams::blue_waters_dims(self.dims.unwrap_or(topology::torus::BLUE_WATERS_DIMS));
        if let Some(v) = self.nodes_per_router {
            tp.nodes_per_router = v;
        }
        if let Some(v) = &self.link_bandwidth {
            tp.link_bandwidth = match v.as_slice() {
                [a] => [a.0; 3],
                [a, b, c] => [a.0, b.0, c.0],
                _ => {
                    return Err(err(
                        "link_bandwidth",
                        "give one rate or three (x, y, z)".into(),
                    ));
                }
            };
        }
        if let Some(v) = self.hop_latency {
            tp.hop_latency = v.0;
        }
        if let Some(v) = self.nic_latency {
            tp.nic_latency = v.0;
        }
        if let Some(v) = self.injection {
            tp.injection = v.0;
        }
        if let Some(v) = self.ejection {
            tp.ejection = v.0;
        }
        if let Some(v) = self.sockets {
            tp.sockets = v;
        }
        if let Some(v) = self.cores_per_socket {
            tp.cores_per_socket = v;
        }
        if let Some(v) = self.tie {
            tp.tie = v;
        }
        let routers: u64 = tp.dims.iter().map(|&d| d as u64).product();
        if routers > limits::MAX_ROUTERS {
            return Err(err(
                "dims",
                format!(
                    "{routers} routers exceeds the limit of {} routers (netsim's MAX_ROUTERS)",
                    limits::MAX_ROUTERS
                ),
            ));
        }
        limits::check_nodes(routers * tp.nodes_per_router as u64).map_err(|m| {
            err(
                "nodes_per_router",
                format!(
                    "{} per router x {routers} routers: {m}",
                    tp.nodes_per_router
                ),
            )
        })?;
        tp.build().map_err(|e| err("dims", e.to_string()))
    }
}

impl EthernetSpec {
    fn build(&self, err: FieldErr) -> Result<Machine, ScenarioError> {
        let mut ep = EthernetParams::zhu(
            self.backbone.unwrap_or(Backbone::Optical),
            self.sharing.unwrap_or(Sharing::Fair),
        );
        if let Some(v) = self.racks {
            ep.racks = v;
        }
        if let Some(v) = self.nodes_per_rack {
            ep.nodes_per_rack = v;
        }
        if let Some(v) = self.nic {
            ep.nic = v.0;
        }
        if let Some(v) = self.backbone_rate {
            ep.backbone = v.0;
        }
        if let Some(v) = self.latency {
            ep.latency = v.0;
        }
        if let Some(v) = self.sockets {
            ep.sockets = v;
        }
        if let Some(v) = self.cores_per_socket {
            ep.cores_per_socket = v;
        }
        let hosts = ep.racks as u64 * ep.nodes_per_rack as u64;
        limits::check_nodes(hosts).map_err(|m| {
            err(
                "nodes_per_rack",
                format!("{} racks x {} nodes: {m}", ep.racks, ep.nodes_per_rack),
            )
        })?;
        // Table routing: one entry per (switch, host).
        if ep.racks as u64 * hosts > limits::MAX_ROUTE_TABLE_ENTRIES {
            return Err(err(
                "racks",
                format!(
                    "{} racks x {hosts} nodes needs a routing table of {} entries, above the limit of {} (netsim's MAX_ROUTE_TABLE_ENTRIES)",
                    ep.racks,
                    ep.racks as u64 * hosts,
                    limits::MAX_ROUTE_TABLE_ENTRIES
                ),
            ));
        }
        ep.build().map_err(|e| err("", e.to_string()))
    }
}

impl InfinibandSpec {
    fn build(&self, err: FieldErr, nodes_needed: u32) -> Result<Machine, ScenarioError> {
        let mut ip = InfinibandParams::qdr(self.nodes.unwrap_or(nodes_needed));
        if let Some(v) = self.latency {
            ip.latency = v.0;
        }
        if let Some(v) = self.bandwidth {
            ip.bandwidth = v.0.ok_or_else(|| {
                err(
                    "bandwidth",
                    "\"unlimited\" applies to the ideal machine only".into(),
                )
            })?;
        }
        if let Some(v) = self.sockets {
            ip.sockets = v;
        }
        if let Some(v) = self.cores_per_socket {
            ip.cores_per_socket = v;
        }
        limits::check_nodes(ip.nodes.into()).map_err(|m| err("nodes", m.to_string()))?;
        ip.build().map_err(|e| err("nodes", e.to_string()))
    }
}

impl FatTreeSpec {
    fn build(&self, err: FieldErr) -> Result<Machine, ScenarioError> {
        let mut p = FatTreeParams::default();
        if let Some(v) = self.arity {
            p.arity = v;
        }
        if let Some(v) = self.levels {
            p.levels = v;
        }
        if let Some(v) = self.link_bandwidth {
            p.link_bandwidth = v.0;
        }
        if let Some(v) = self.hop_latency {
            p.hop_latency = v.0;
        }
        if let Some(v) = self.injection {
            p.injection = v.0;
        }
        if let Some(v) = self.ejection {
            p.ejection = v.0;
        }
        if let Some(v) = self.nic_latency {
            p.nic_latency = v.0;
        }
        if let Some(v) = self.sockets {
            p.sockets = v;
        }
        if let Some(v) = self.cores_per_socket {
            p.cores_per_socket = v;
        }
        p.build().map_err(|e| match e {
            topology::MachineError::Param { name, why } => err(name, why),
            e => err("", e.to_string()),
        })
    }
}

impl IdealSpec {
    fn build(&self, err: FieldErr, nodes_needed: u32) -> Result<BuiltMachine, ScenarioError> {
        let n = self.nodes.unwrap_or(nodes_needed);
        limits::check_nodes(n.into()).map_err(|m| err("nodes", m.to_string()))?;
        Ok(BuiltMachine {
            fabric: Fabric::Ideal {
                nodes: n,
                latency: self.latency.map_or(Time::from_ns(500), |v| v.0),
                bandwidth: match self.bandwidth {
                    Some(Limit(b)) => b,
                    None => Some(Bandwidth::bytes_per_sec(100_000_000_000)),
                },
            },
            nodes: (0..n).map(NodeId).collect(),
            sockets: self.sockets.unwrap_or(2),
            cores: self.cores_per_socket.unwrap_or(16),
        })
    }
}

#[cfg(test)]
mod tests;
