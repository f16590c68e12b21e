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

use mpi_layer::{NoObserver, Observer, RunError, RunResults, Simulation};
use sim_core::Time;
use topology::{Mode, NetConfig, Network};

use crate::sweep::SweepError;
use crate::synthetic::Load;

mod collectives;
mod error;
mod machine;
mod mpi;
mod placement;
mod programs;
mod quantity;
mod report;
mod spec;
mod transport;

pub use collectives::*;
use error::toml_error;
pub use error::{ScenarioError, ScenarioFile};
use machine::{BuiltMachine, Fabric};
pub use machine::{
    EthernetSpec, FileSpec, IdealSpec, InfinibandSpec, MachinePreset, MachineSpec, Partition,
    PlatformSpec, TorusSpec,
};
pub use mpi::*;
pub use quantity::{Bytes, Dur, Limit, Rate};
use report::Setup;
pub use report::{
    CollectiveRow, FinishSummary, LinkInfo, LinkRow, MatchReport, MpiOrigin, Outcome, RankFinish,
    RegionRow, Report, SearchStats, TrafficRow, Wall,
};
pub use spec::*;

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
pub fn parse_assignment(s: &str) -> Result<(String, toml::Value), SweepError> {
    let (p, v) = s
        .split_once('=')
        .ok_or_else(|| SweepError::Path(format!("`{s}` is not of the form path=value")))?;
    if p.trim().is_empty() {
        return Err(SweepError::Path(format!("`{s}`: empty parameter path")));
    }
    Ok((p.trim().to_string(), parse_value(v)))
}

/// Reads a scenario file's table (syntax checked, errors `file:line`).
pub fn read_table(path: &Path) -> Result<(ScenarioFile, toml::Table), ScenarioError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Input {
        file: file.clone(),
        line: None,
        message: format!("cannot read scenario: {e}"),
    })?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| toml_error(&file, &text, &e))?;
    Ok((ScenarioFile { name: file, text }, table))
}

/// Checks the file as written, then applies `overrides` (dotted paths)
/// and reads the result into a [`Scenario`] whose relative paths resolve
/// against `base_dir`.
pub fn from_table(
    src: &ScenarioFile,
    table: &toml::Table,
    overrides: &[(String, toml::Value)],
    base_dir: &Path,
) -> Result<Scenario, ScenarioError> {
    // The file alone first, so that an error in it gets its line. (A
    // table built by the command line has no text: it is read below.)
    let mut sc: Option<Scenario> = None;
    if !src.text.is_empty() {
        sc = Some(toml::from_str(&src.text).map_err(|e| toml_error(&src.name, &src.text, &e))?);
    }
    let mut t = table.clone();
    collectives::collectives_as_table(&mut t);
    for (p, v) in overrides {
        crate::sweep::set_path(&mut t, p, v.clone()).map_err(|e| src.plain(e.to_string()))?;
    }
    if !overrides.is_empty() || sc.is_none() {
        let names: Vec<String> = overrides
            .iter()
            .map(|(p, v)| format!("{p} = {v}"))
            .collect();
        sc = Some(
            toml::Value::Table(t.clone())
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
    // Which [mpi] values the file and the command line gave (the report
    // says which came from the preset).
    if let Some(toml::Value::Table(m)) = t.get("mpi") {
        leaves(m, "", &mut sc.mpi_given);
    }
    Ok(sc)
}

/// The dotted paths of the values in `t`, in key order.
fn leaves(t: &toml::Table, prefix: &str, out: &mut Vec<String>) {
    for (k, v) in t {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(sub) => leaves(sub, &path, out),
            _ => out.push(path),
        }
    }
}

/// Loads a scenario file with `overrides` applied.
pub fn load_with(
    path: &Path,
    overrides: &[(String, toml::Value)],
) -> Result<(ScenarioFile, Scenario), ScenarioError> {
    let (src, table) = read_table(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let sc = from_table(&src, &table, overrides, dir)?;
    Ok((src, sc))
}

/// Loads a scenario file.
pub fn load(path: &Path) -> Result<(ScenarioFile, Scenario), ScenarioError> {
    load_with(path, &[])
}

// ------------------------------------------------------------ running

impl Scenario {
    /// A path the scenario names, by [`crate::shared::resolve`].
    fn resolve(&self, file: &ScenarioFile, p: &Path) -> Result<PathBuf, ScenarioError> {
        crate::shared::resolve(&self.base_dir, p)
            .map_err(|e| file.plain(format!("{}: {e}", p.display())))
    }

    /// Builds everything and runs it, in steps: the MPI parameters, the
    /// programs, the machine, the placement, the transport, the run and
    /// its report. `progress(now, events)` is called every
    /// `progress_every` events.
    pub fn run(
        &self,
        file: &ScenarioFile,
        progress_every: u64,
        progress: impl FnMut(Time, u64),
    ) -> Result<Outcome, ScenarioError> {
        self.run_observed(file, progress_every, progress, NoObserver)
            .0
    }

    /// `transport.series_interval`: the width of the per-link time bins
    /// an observer builds from the links' busy intervals
    /// ([`topology::SeriesBuilder`], as the command line's
    /// `--link-series` and `--timeline` do); the transport itself keeps
    /// no series.
    pub fn series_interval(&self) -> Option<Time> {
        self.transport.series_interval.map(|d| d.0)
    }

    /// As [`Scenario::run`], reporting what happens to `obs` (a timeline,
    /// a message record: [`crate::timeline`]). The observer comes back
    /// whenever the simulation started, also when it failed (a deadlock's
    /// timeline shows how it came about).
    pub fn run_observed<O: Observer>(
        &self,
        file: &ScenarioFile,
        progress_every: u64,
        progress: impl FnMut(Time, u64),
        obs: O,
    ) -> (Result<Outcome, ScenarioError>, Option<O>) {
        let ready = match self.prepare(file) {
            Ok(Prepared::Run(r)) => r,
            Ok(Prepared::Done(outcome)) => return (Ok(*outcome), None),
            Err(e) => return (Err(e), None),
        };
        let Ready {
            params,
            placement,
            net,
            streams,
            setup,
            speed_profiles,
            changes,
        } = *ready;
        let wall = std::time::Instant::now();
        let mut sim = match Simulation::with_observer(placement, net, streams, params, obs) {
            Ok(sim) => sim,
            Err(e) => return (Err(file.plain(e.to_string())), None),
        };
        sim.set_speed_profiles(speed_profiles);
        let (outcome, net, obs) = sim.run_full(progress_every, progress);
        let wall_s = wall.elapsed().as_secs_f64();
        if let Some(msg) = outcome.as_ref().ok().and_then(|r| changes.reached(r)) {
            return (Err(file.plain(msg)), Some(obs));
        }
        (self.finish(file, setup, outcome, &net, wall_s), Some(obs))
    }

    /// Every build step before the run: the MPI parameters, the programs,
    /// the machine, the placement and the transport (or, for a synthetic
    /// workload, its whole run).
    fn prepare(&self, file: &ScenarioFile) -> Result<Prepared, ScenarioError> {
        if let Some((p, saturation)) = self.synthetic_params() {
            return self
                .run_synthetic(file, &p, saturation)
                .map(|o| Prepared::Done(Box::new(o)));
        }
        let params = self.mpi_params(file)?;
        let platform = self.machine.platform(file, &self.base_dir)?;
        let progs = self.programs(file, platform.as_ref().map(|p| p.host_speed))?;
        let ranks = progs.streams.len() as u32;
        if ranks == 0 {
            return Err(self.no_ranks(file));
        }
        sim_core::limits::check_memory(
            &format!("the state of {ranks} ranks"),
            ranks as u64 * sim_core::limits::BYTES_PER_RANK,
            "run a smaller trace or workload",
        )
        .map_err(|m| file.plain(m.to_string()))?;
        let ppn = self.ppn(file, &progs)?;
        let platform_window = platform.as_ref().and_then(|p| p.tcp_window);
        let host_speeds = platform.as_ref().map(|p| p.host_speeds.clone());
        let (speed_profiles, changes) = platform
            .as_ref()
            .map(|p| (p.speed_profiles.clone(), p.changes.clone()))
            .unwrap_or_default();
        let platform_notes = platform
            .as_ref()
            .map(|p| p.notes.clone())
            .unwrap_or_default();
        let on_platform = platform.is_some();
        let machine = self.machine.build(
            file,
            &self.base_dir,
            self.nodes_needed(&progs, ranks, ppn),
            platform,
        )?;
        let machine = self.forwarding_tables(file, machine)?;
        let machine = self.size_factors(file, machine)?;
        let placement = self.placement(file, &progs, ranks, ppn, &machine)?;
        // Two ranks on one host of a platform: SimGrid moves their
        // messages over the host's route to itself.
        let shared_host = if on_platform {
            same_host_ranks(&placement, ranks)
        } else {
            None
        };
        unrouted_pair(file, &machine, &placement, ranks)?;
        // A platform's hosts of different speeds: each TI rank computes
        // at its own host's.
        if let (Some(rs), Some(hs)) = (&progs.rank_speeds, &host_speeds) {
            rs.set(
                (0..ranks)
                    .map(|r| hs[placement.node(r).0 as usize])
                    .collect(),
            );
        }
        let mut cfg = self.net_config(platform_window);
        let packet_bytes = cfg.packet_bytes;
        let why = self.choose_mode(&mut cfg, || {
            if let Fabric::Links(m) = &machine.fabric {
                if let Some(why) = m.shared_capacity() {
                    return crate::auto_mode::shared_capacity(why);
                }
                if m.size_factors().is_some() {
                    return crate::auto_mode::size_factors();
                }
                if m.cm02().is_some() {
                    return crate::auto_mode::cm02();
                }
                if shared_host.is_some() && m.has_loopback() {
                    return crate::auto_mode::loopback();
                }
            }
            crate::auto_mode::auto_mode(
                progs.traffic,
                matches!(machine.fabric, Fabric::Links(_)),
                packet_bytes,
                ranks,
                placement.nodes_used(),
            )
        });
        let (preset, preset_default) = self.mpi_preset();
        let setup = Setup {
            mpi: MpiOrigin {
                preset: preset.name(),
                preset_default,
                given: self
                    .mpi_given
                    .iter()
                    .filter(|k| *k != "preset")
                    .cloned()
                    .collect(),
                collectives: self.collective_selector().name(),
            },
            machine: machine.fabric.name(),
            nodes: machine.fabric.nodes(),
            ranks,
            nodes_used: placement.nodes_used(),
            mode: cfg.mode,
            mode_why: why,
            workload: progs.about.clone(),
            seed: self.seed,
            tcp_window: cfg.tcp_window,
            size_factors: match &machine.fabric {
                Fabric::Links(m) => m.size_factors().map(|f| f.to_string()),
                _ => None,
            },
            flow_sharing: match &machine.fabric {
                Fabric::Links(m) if cfg.mode == Mode::Flow => m.cm02().map(|c| c.to_string()),
                _ => None,
            },
            platform_notes,
        };
        let changes = Changes::new(changes, &placement, ranks, cfg.mode);
        if let Some(pair) = shared_host {
            loopback_modelled(file, &machine, cfg.mode, pair)?;
        }
        let net = transport::transport(file, machine, cfg)?;
        Ok(Prepared::Run(Box::new(Ready {
            params,
            placement,
            net,
            streams: progs.streams,
            setup,
            speed_profiles,
            changes,
        })))
    }

    /// A synthetic workload's parameters and whether it searches for
    /// saturation; `None` for every other workload.
    fn synthetic_params(&self) -> Option<(crate::synthetic::SyntheticParams, bool)> {
        let WorkloadSpec::Synthetic {
            pattern,
            load,
            warmup_cycles,
            measure_cycles,
            drain_cycles,
            hotspot_node,
            hotspot_fraction,
        } = self.workload
        else {
            return None;
        };
        let p = crate::synthetic::SyntheticParams {
            pattern,
            load: match load {
                Load::Fraction(f) => f,
                Load::Saturation => 1.0,
            },
            warmup_cycles,
            measure_cycles,
            drain_cycles,
            hotspot_node,
            hotspot_fraction,
            seed: self.seed,
        };
        Some((p, load == Load::Saturation))
    }

    /// The error for a workload without ranks, naming the file the ranks
    /// were to come from.
    fn no_ranks(&self, file: &ScenarioFile) -> ScenarioError {
        let from = match &self.workload {
            WorkloadSpec::MessageList { file, .. } => Some(file),
            WorkloadSpec::Trace { path, files, .. } => {
                path.as_ref().or(files.as_ref().and_then(|f| f.first()))
            }
            _ => None,
        };
        match from {
            Some(p) => ScenarioError::Input {
                file: crate::shared::resolve(&self.base_dir, p)
                    .unwrap_or_else(|_| p.clone())
                    .display()
                    .to_string(),
                line: None,
                message: "the workload read from this file has no ranks".into(),
            },
            None => file.err("workload", "", "has no ranks"),
        }
    }

    /// The run's results (or its error) and the transport after it, as
    /// the [`Outcome`] with its report.
    fn finish(
        &self,
        file: &ScenarioFile,
        setup: Setup,
        outcome: Result<mpi_layer::RunResults, RunError>,
        net: &Network,
        wall_s: f64,
    ) -> Result<Outcome, ScenarioError> {
        let results = outcome.map_err(|e| match e {
            RunError::Deadlock(_) => ScenarioError::Deadlock {
                file: file.name.clone(),
                message: run_error_text(&e),
            },
            _ => file.plain(run_error_text(&e)),
        })?;
        let (links, torus) = match net.links_machine() {
            Some(m) => (
                Some(LinkInfo {
                    stats: net.link_stats(results.makespan),
                    classes: (0..m.links().len() as u32)
                        .map(|l| m.link_class(topology::LinkId(l)))
                        .collect(),
                    names: m.vertices().iter().map(|v| v.name.clone()).collect(),
                    router_coords: (0..m.vertices().len() as u32)
                        .map(|v| m.router_coords(v))
                        .collect(),
                }),
                m.torus().map(|g| g.dims()),
            ),
            None => (None, None),
        };
        Ok(Outcome {
            report: Report::new(&setup, &results, links.as_ref(), &self.report, wall_s),
            results,
            links,
            torus,
            setup,
            spec: self.report.clone(),
        })
    }

    /// A `synthetic` workload: packets straight into the transport over
    /// every host of the machine, no MPI; the report's MPI fields are
    /// empty and `makespan` is the simulated end.
    fn run_synthetic(
        &self,
        file: &ScenarioFile,
        p: &crate::synthetic::SyntheticParams,
        find_saturation: bool,
    ) -> Result<Outcome, ScenarioError> {
        let platform = self.machine.platform(file, &self.base_dir)?;
        if let Some(c) = platform.as_ref().and_then(|p| p.changes.first()) {
            return Err(file.plain(format!(
                "synthetic traffic on a platform whose profiles change it during the run ({} s: {}): remove the profile",
                c.at.as_secs_f64(),
                c.what
            )));
        }
        let window = platform.as_ref().and_then(|p| p.tcp_window);
        let notes = platform
            .as_ref()
            .map(|p| p.notes.clone())
            .unwrap_or_default();
        let built = self.machine.build(file, &self.base_dir, 2, platform)?;
        let built = self.forwarding_tables(file, built)?;
        let built = self.size_factors(file, built)?;
        let Fabric::Links(machine) = built.fabric else {
            return Err(file.err(
                "machine",
                "preset",
                "synthetic traffic needs a machine with links, not the ideal network",
            ));
        };
        let mut cfg = self.net_config(window);
        let why = self.choose_mode(&mut cfg, || crate::auto_mode::Choice {
            mode: Mode::Packet,
            why: "synthetic traffic is modelled packet by packet".into(),
        });
        let wall = std::time::Instant::now();
        let r = if find_saturation {
            crate::synthetic::saturation(&machine, cfg, p)
        } else {
            crate::synthetic::run(&machine, cfg, p)
        }
        .map_err(|e| match e {
            crate::synthetic::SyntheticError::Param { name, why } => {
                file.err("workload", name, why)
            }
            other => file.err("transport", "", other.to_string()),
        })?;
        let wall_s = wall.elapsed().as_secs_f64();
        let (preset, preset_default) = self.mpi_preset();
        let setup = Setup {
            mpi: MpiOrigin {
                preset: preset.name(),
                preset_default,
                given: Vec::new(),
                collectives: self.collective_selector().name(),
            },
            machine: machine.name().to_string(),
            nodes: machine.nodes(),
            ranks: 0,
            nodes_used: machine.nodes(),
            mode: cfg.mode,
            mode_why: why,
            workload: format!("synthetic {:?}", p.pattern).to_lowercase(),
            seed: self.seed,
            tcp_window: cfg.tcp_window,
            size_factors: machine.size_factors().map(|f| f.to_string()),
            flow_sharing: None,
            platform_notes: notes,
        };
        let results = RunResults {
            makespan: Time::from_ps(r.end_ps),
            finish: Vec::new(),
            traffic: Default::default(),
            control_messages: 0,
            posted_search: Default::default(),
            unexpected_search: Default::default(),
            calibration_clamped: 0,
            unmatched_messages: 0,
            events: r.events,
            regions: Vec::new(),
            collectives: Vec::new(),
        };
        let mut report = Report::new(&setup, &results, None, &self.report, wall_s);
        report.link_count = machine.links().len();
        report.synthetic = Some(r);
        Ok(Outcome {
            report,
            results,
            links: None,
            torus: None,
            setup,
            spec: self.report.clone(),
        })
    }

    /// Sets `cfg.mode` to the mode asked for, or under `auto` (the
    /// default) to `rule`'s choice, whose reason it returns.
    fn choose_mode(
        &self,
        cfg: &mut NetConfig,
        rule: impl FnOnce() -> crate::auto_mode::Choice,
    ) -> Option<String> {
        match self.transport.mode.unwrap_or_default().fixed() {
            Some(m) => {
                cfg.mode = m;
                None
            }
            None => {
                let c = crate::auto_mode::packet_only(cfg).unwrap_or_else(rule);
                cfg.mode = c.mode;
                Some(c.why)
            }
        }
    }
}

/// What [`Scenario::prepare`] builds.
enum Prepared {
    /// A simulation ready to run.
    Run(Box<Ready>),
    /// A workload that ran without the MPI layer (synthetic traffic).
    Done(Box<Outcome>),
}

/// The parts of an MPI simulation, built and checked.
struct Ready {
    params: mpi_layer::MpiParams,
    placement: topology::Placement,
    net: Network,
    streams: Vec<crate::reader::BoxedStream>,
    setup: Setup,
    /// The platform's speed profiles by node (empty: none).
    speed_profiles: Vec<Option<std::sync::Arc<topology::platform::Profile>>>,
    changes: Changes,
}

/// A platform without a route between two hosts the ranks sit on: SimGrid
/// fails when they communicate; netsim says so before the run.
fn unrouted_pair(
    file: &ScenarioFile,
    machine: &BuiltMachine,
    placement: &topology::Placement,
    ranks: u32,
) -> Result<(), ScenarioError> {
    if let Fabric::Links(m) = &machine.fabric {
        let nodes: Vec<_> = (0..ranks).map(|r| placement.node(r)).collect();
        if let Some((a, b)) = m.unrouted(&nodes) {
            let name = |n: topology::NodeId| m.vertices()[n.0 as usize].name.clone();
            return Err(file.plain(format!(
                "the platform has no route from host `{}` to host `{}`, on which ranks are placed: add a route (or a zoneRoute) between them, or place the ranks on hosts that have one",
                name(a),
                name(b)
            )));
        }
    }
    Ok(())
}

/// Two ranks on one host, if any: (the host, the lower rank, the other).
fn same_host_ranks(
    placement: &topology::Placement,
    ranks: u32,
) -> Option<(topology::NodeId, u32, u32)> {
    let mut on: Vec<(topology::NodeId, u32)> = (0..ranks).map(|r| (placement.node(r), r)).collect();
    on.sort_unstable();
    on.windows(2)
        .find(|w| w[0].0 == w[1].0)
        .map(|w| (w[0].0, w[0].1, w[1].1))
}

/// Refuses two ranks on one host of a SimGrid platform where netsim does
/// not follow the host's route to itself: SimGrid moves their messages
/// over it (a cluster's `loopback_bw`/`loopback_lat` link, or up and down
/// its own links; in a Full, Floyd or Dijkstra zone its own route to
/// itself or the network model's `__loopback__`,
/// `platform::network_loopback`), which the flow model follows
/// (`Machine::set_loopback_routes`); the packet model does not, nor does
/// the import of a TORUS, FAT_TREE or DRAGONFLY cluster without loopback
/// or of a host in a zone of zones. netsim would move them through node
/// memory instead, a different answer given silently.
fn loopback_modelled(
    file: &ScenarioFile,
    machine: &BuiltMachine,
    mode: topology::Mode,
    (node, a, b): (topology::NodeId, u32, u32),
) -> Result<(), ScenarioError> {
    let (host, routed) = match &machine.fabric {
        Fabric::Links(m) => (m.vertices()[node.0 as usize].name.clone(), m.has_loopback()),
        Fabric::Ideal { .. } => (format!("{}", node.0), false),
    };
    let why = if !routed {
        "netsim's import gives this platform's hosts no route to themselves (a TORUS, FAT_TREE or DRAGONFLY cluster without loopback_bw, or a zone holding zones)"
    } else if mode != topology::Mode::Flow {
        "only the flow model follows a host's route to itself: use --mode flow (transport.mode = \"flow\")"
    } else {
        return Ok(());
    };
    Err(file.plain(format!(
        "ranks {a} and {b} are both placed on host `{host}` of the SimGrid platform: SimGrid sends their messages over the host's route to itself, and {why}; or place one rank per host (--ppn 1, mapping.ppn = 1, or a placement that puts each rank on its own host)"
    )))
}

/// A platform's profile changes that the run's transport does not model
/// ([`topology::platform::ProfileChange`]), with the ranks each concerns.
#[derive(Default)]
struct Changes(Vec<(topology::platform::ProfileChange, Vec<u32>)>);

impl Changes {
    /// The changes that concern the run: a host's, if some rank is on
    /// it; a link's, always.
    fn new(
        all: Vec<topology::platform::ProfileChange>,
        placement: &topology::Placement,
        ranks: u32,
        mode: topology::Mode,
    ) -> Changes {
        Changes(
            all.into_iter()
                .filter(|c| !(c.flow_models && mode == topology::Mode::Flow))
                .filter_map(|c| {
                    let on: Vec<u32> = match c.node {
                        Some(n) => (0..ranks).filter(|&r| placement.node(r).0 == n).collect(),
                        None => Vec::new(),
                    };
                    (c.node.is_none() || !on.is_empty()).then_some((c, on))
                })
                .collect(),
        )
    }

    /// The error of a run that reached a change: a rank on the host
    /// still running at its instant, or the run (for a link's) still
    /// going. SimGrid's answer differs from there on.
    fn reached(&self, r: &mpi_layer::RunResults) -> Option<String> {
        self.0.iter().find_map(|(c, on)| {
            let (who, end) = match on.iter().find(|&&k| r.finish[k as usize] >= c.at) {
                Some(&k) => (format!("rank {k}"), r.finish[k as usize]),
                None if c.node.is_none() && r.makespan >= c.at => ("the run".into(), r.makespan),
                None => return None,
            };
            Some(format!(
                "{who} lasts until {:.12} s, past {:.12} s, when {}: a run must end before then to give SimGrid's answer",
                end.as_secs_f64(),
                c.at.as_secs_f64(),
                c.what
            ))
        })
    }
}

/// A run error as text; a deadlock gets the MPI layer's diagnosis, led
/// by the ranks that wait for messages addressed to themselves and
/// their files (what per-rank trace files swapped between ranks give).
pub fn run_error_text(e: &RunError) -> String {
    match e {
        RunError::Deadlock(d) => {
            let own: Vec<String> = d
                .blocked
                .iter()
                .filter(|b| b.self_addressed)
                .map(|b| {
                    let file = b.origin.rsplit_once(':').map_or(&*b.origin, |(f, _)| f);
                    format!("rank {} ({file})", b.rank)
                })
                .collect();
            if own.is_empty() {
                format!("the run deadlocked\n{d}")
            } else {
                format!(
                    "the run deadlocked: {} wait for messages in MPI_COMM_WORLD addressed to \
                     themselves, as a rank whose file holds another rank's events does: are \
                     these per-rank trace files swapped or renamed?\n{d}",
                    own.join(", ")
                )
            }
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use error::{key_line, refine_line};

    /// A deadlock names the ranks waiting for messages to themselves
    /// and their files; one without such ranks reads as before.
    #[test]
    fn deadlock_names_self_addressed_ranks_and_files() {
        let blocked = |rank, own| mpi_layer::BlockedRank {
            rank,
            op: "MPI_Recv".into(),
            origin: format!("traces/{rank}.evt:34"),
            posted_recvs: vec![],
            unexpected_msgs: vec![],
            self_addressed: own,
        };
        let d = |b| {
            RunError::Deadlock(mpi_layer::DeadlockReport {
                at: Time::ZERO,
                blocked: b,
            })
        };
        let t = run_error_text(&d(vec![
            blocked(0, true),
            blocked(1, false),
            blocked(2, true),
        ]));
        assert!(
            t.starts_with(
                "the run deadlocked: rank 0 (traces/0.evt), rank 2 (traces/2.evt) wait for"
            ),
            "{t}"
        );
        let t = run_error_text(&d(vec![blocked(1, false)]));
        assert!(t.starts_with("the run deadlocked\ndeadlock at"), "{t}");
    }

    #[test]
    fn key_line_finds_keys_in_sections() {
        let t = "seed = 3\n[mpi]\n# c\neager_max = 5\n[workload]\nkind = \"x\"\n";
        assert_eq!(key_line(t, "mpi", "eager_max"), Some(4));
        assert_eq!(key_line(t, "", "seed"), Some(1));
        assert_eq!(key_line(t, "workload", "size"), Some(5));
        // Nested tables, dotted keys and comments that look like keys.
        let t = "[mpi]\n# o_send = 1\n[mpi.host]\ng = \"1 us\"\no_send = \"2 us\"\n";
        assert_eq!(key_line(t, "mpi.host", "o_send"), Some(5));
        assert_eq!(key_line(t, "mpi", "host"), Some(3));
        let t = "mpi.eager_max = 5\n";
        assert_eq!(key_line(t, "mpi", "eager_max"), Some(1));
    }

    #[test]
    fn errors_inside_a_table_move_to_the_field() {
        let t = "[workload]\nkind = \"hvpp\"\n# n = 3\nn = 4\nsize = -8\nbogus = 1\n[report]\n";
        assert_eq!(refine_line(t, 1, "unknown field `bogus`, expected ..."), 6);
        assert_eq!(refine_line(t, 1, "size -8 is negative"), 5);
        // Nothing to find: stay at the header; not a header: unchanged.
        assert_eq!(refine_line(t, 1, "missing field `op`"), 1);
        assert_eq!(refine_line(t, 4, "size -8 is negative"), 4);
        let t = "[machine]\npreset = \"blue-waters\"\ndims = [2, 2]\n";
        let m = "invalid length 2, expected an array of length 3";
        assert_eq!(refine_line(t, 1, m), 3);
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
