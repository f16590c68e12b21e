//! The user-facing commands: `run`, `replay`, `compile`, `presets`,
//! `sweep` and `sweep merge`. Scenario reading and running live in
//! `scenarios::scenario`; this module turns command-line options into a
//! scenario table, runs it, and renders the report (table, JSON, CSV,
//! SVG). Output schemas: `docs/OUTPUT.md`.

mod error;
pub(crate) mod output;
pub(crate) mod plots;
pub(crate) mod render;
mod set;
mod sweep;

use error::scenario_err;
pub(crate) use error::{CliError, EXIT_CHECK_FAILED};
pub(crate) use output::out;
use set::{collectives_set, overrides};
pub(crate) use sweep::{SweepArgs, sweep};

use clap::Args;
use scenarios::goal::{GoalConfig, GoalSchedule};
use scenarios::scenario::{self, MachinePreset, MpiPreset, Outcome, ScenarioFile};
use scenarios::timeline::{MessageLog, Tap, Timeline};
use scenarios::trace::TraceFormat;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;
use toml::{Table, Value};
use topology::ModeChoice;

/// How a report is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// Human-readable table.
    Table,
    /// JSON document (`netsim-run/1`).
    Json,
    /// CSV, `section,key,value`.
    Csv,
}

/// Output options shared by `run` and `replay`.
#[derive(Args, Debug)]
pub(crate) struct OutputOpts {
    /// Print the report as JSON (schema: docs/OUTPUT.md).
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print the report as CSV rows `section,key,value`.
    #[arg(long)]
    csv: bool,
    /// Leave the wall-clock figures (seconds, events/s) out of the JSON
    /// and CSV, so that output of equal runs is byte-identical.
    #[arg(long)]
    no_wall: bool,
    /// Write per-rank finish times to this SVG, and link utilization to
    /// FILE-links.svg (machines with links).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Override a scenario field: `path=value`, e.g. `mpi.eager_max=16384`
    /// or `transport.mode=flow` (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
    /// Never show the progress line (it shows only on a terminal, for runs
    /// longer than a second).
    #[arg(long)]
    quiet: bool,
    /// Write a timeline of every rank's operations, waits and host work
    /// (Chrome trace-event JSON: open in ui.perfetto.dev), also for a run
    /// that deadlocks.
    #[arg(long, value_name = "FILE.json")]
    timeline: Option<PathBuf>,
    /// Write one CSV row per message: when it was posted, left, arrived,
    /// was matched (and the search length) and completed.
    #[arg(long, value_name = "FILE.csv")]
    messages: Option<PathBuf>,
    /// Write each link's traffic per time bin (CSV: link, from, to, bin
    /// start and end in ps, bytes, Gb/s; links that carried nothing are
    /// left out), in bins of --series-interval (default 1 us).
    #[arg(long, value_name = "FILE.csv")]
    link_series: Option<PathBuf>,
    /// Width of the per-link time bins, e.g. `100 ns`; also adds one track
    /// per busy link to --timeline. (Same as `--set
    /// transport.series_interval=...`.)
    #[arg(long, value_name = "TIME")]
    series_interval: Option<String>,
}

impl OutputOpts {
    fn format(&self) -> Format {
        if self.json {
            Format::Json
        } else if self.csv {
            Format::Csv
        } else {
            Format::Table
        }
    }
}

/// `netsim run`.
#[derive(Args, Debug)]
pub(crate) struct RunArgs {
    /// The scenario file (TOML; format: docs/SCENARIOS.md).
    scenario: PathBuf,
    /// Collective algorithms as this library runs them: `netsim` (the
    /// default), `smpi`, `mpich` or `openmpi` (same as `--set
    /// mpi.collectives.selector=NAME`;
    /// docs/SCENARIOS.md lists each selector's rules).
    #[arg(long, value_name = "NAME")]
    collectives: Option<String>,
    #[command(flatten)]
    out: OutputOpts,
}

/// `netsim replay`.
#[derive(Args, Debug)]
pub(crate) struct ReplayArgs {
    /// Trace format; default from the extension (.meta DUMPI, .otf2 OTF2,
    /// .goal GOAL, .csv message list, .trace native, else TI).
    #[arg(long, value_enum)]
    format: Option<TraceFormat>,
    /// The trace: one file (TI shared or list file, DUMPI .meta, OTF2
    /// .otf2 anchor, GOAL, native, CSV), a directory holding one trace (one
    /// DUMPI .meta or .otf2, or only TI per-rank files), or several TI
    /// per-rank files in rank order.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Machine preset.
    #[arg(long, value_enum, default_value_t = MachinePreset::InfinibandQdr)]
    machine: MachinePreset,
    /// A SimGrid platform (XML 4.1) instead of --machine; its host speed
    /// is the TI host speed, its default MPI preset `smpi`.
    #[arg(long, value_name = "FILE.xml", conflicts_with_all = ["machine", "machine_file", "dims"])]
    platform: Option<PathBuf>,
    /// A netsim machine file (topology/MACHINE-FORMAT.md) instead of
    /// --machine.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["machine", "dims"])]
    machine_file: Option<PathBuf>,
    /// Torus dimensions for --machine blue-waters, `X,Y,Z`.
    #[arg(long, value_name = "X,Y,Z", value_delimiter = ',')]
    dims: Option<Vec<u32>>,
    /// Ranks per node (block mapping).
    #[arg(long, default_value_t = 1)]
    ppn: u16,
    /// MPI preset; default follows the machine.
    #[arg(long, value_enum)]
    mpi: Option<MpiPreset>,
    /// Collective algorithms as this library runs them: `netsim` (the
    /// default), `smpi`, `mpich` or `openmpi` (same as `--set
    /// mpi.collectives.selector=NAME`;
    /// docs/SCENARIOS.md lists each selector's rules).
    #[arg(long, value_name = "NAME")]
    collectives: Option<String>,
    /// Transport model (`auto`: chosen from the workload, see
    /// docs/SCENARIOS.md).
    #[arg(long, value_enum, default_value_t = ModeChoice::Auto)]
    mode: ModeChoice,
    /// TI host speed [flop/s] turning `compute` amounts into time.
    #[arg(long, value_name = "FLOPS")]
    host_speed: Option<f64>,
    /// DUMPI and OTF2: factor on recorded computation gaps.
    #[arg(long)]
    compute_scale: Option<f64>,
    #[command(flatten)]
    out: OutputOpts,
}

/// `netsim compile`.
#[derive(Args, Debug)]
pub(crate) struct CompileArgs {
    /// The GOAL schedule (text).
    schedule: PathBuf,
    /// The compiled file to write (e.g. `schedule.goalc`).
    out: PathBuf,
}

/// `netsim compile`: a GOAL schedule's compiled form, which `run` and
/// `replay` open without reading the text again.
pub(crate) fn compile(a: CompileArgs) -> Result<(), CliError> {
    let t = Instant::now();
    // The smallest `calc` unit: the runs check durations with their own.
    let config = GoalConfig {
        calc_unit: sim_core::Time::from_ps(1),
    };
    // Written under a temporary name, which hides from the library that
    // the output may be the schedule itself: checked here.
    use std::os::unix::fs::MetadataExt;
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    if id(&a.out).is_some() && id(&a.out) == id(&a.schedule) {
        return Err(format!(
            "{}: is the schedule itself: name another output file",
            a.out.display()
        )
        .into());
    }
    let out = output::Partial::new(&a.out);
    let ranks = GoalSchedule::compile(&a.schedule, out.path(), config).map_err(|e| {
        e.to_string().replace(
            &out.path().display().to_string(),
            &a.out.display().to_string(),
        )
    })?;
    out.commit()?;
    let bytes = std::fs::metadata(&a.out).map_or(0, |m| m.len());
    eprintln!(
        "wrote {} ({ranks} ranks, {bytes} bytes) in {:.2} s",
        a.out.display(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A progress line on stderr: shown only on a terminal, only once a run
/// has lasted a second, rewritten in place at most ten times a second and
/// cleared at the end.
struct Progress {
    start: Instant,
    enabled: bool,
    shown: bool,
    last: f64,
}

/// Events between progress callbacks (cheap: one closure call).
const PROGRESS_EVERY: u64 = 1 << 16;

impl Progress {
    fn new(quiet: bool) -> Self {
        Progress {
            start: Instant::now(),
            enabled: !quiet && std::io::stderr().is_terminal(),
            shown: false,
            last: 0.0,
        }
    }
    fn tick(&mut self, now: sim_core::Time, events: u64) {
        if !self.enabled {
            return;
        }
        let el = self.start.elapsed().as_secs_f64();
        if el < 1.0 || el - self.last < 0.1 {
            return;
        }
        self.last = el;
        self.shown = true;
        let spin = ['|', '/', '-', '\\'][(el * 10.0) as usize % 4];
        eprint!(
            "\r{spin} simulated {:<12} {:>8.2} M events  {:>6.2} M events/s  {:>5.1} s wall ",
            now.to_string(),
            events as f64 / 1e6,
            events as f64 / el / 1e6,
            el
        );
    }
    fn finish(&self) {
        if self.shown {
            eprint!("\r{:80}\r", "");
        }
    }
}

fn run_table(
    src: &ScenarioFile,
    table: &Table,
    opts: &OutputOpts,
    dir: &Path,
    collectives: Option<&str>,
) -> Result<(), CliError> {
    let mut sets = overrides(&opts.set)?;
    sets.extend(collectives_set(collectives));
    // The link series: the interval given, else 1 us for --link-series
    // when neither the file nor --set chose one.
    let chosen = sets.iter().any(|(p, _)| p == "transport.series_interval")
        || table
            .get("transport")
            .and_then(|t| t.get("series_interval"))
            .is_some();
    let interval = match (&opts.series_interval, &opts.link_series) {
        (Some(i), _) => Some(i.clone()),
        (None, Some(_)) if !chosen => Some("1 us".to_string()),
        _ => None,
    };
    if let Some(i) = interval {
        sets.push(("transport.series_interval".into(), Value::String(i)));
    }
    let sc = scenario::from_table(src, table, &sets, dir).map_err(scenario_err)?;
    let mut progress = Progress::new(opts.quiet);
    let tick = |now, ev| progress.tick(now, ev);
    // The link series, built through the observer seam from the links'
    // busy intervals, only when an output uses it.
    let series = if opts.timeline.is_some() || opts.link_series.is_some() {
        let (limit, _) = sim_core::limits::memory_limit();
        sc.series_interval()
            .and_then(|i| topology::SeriesBuilder::with_limit(i, limit))
    } else {
        None
    };
    let mut link_series = Vec::new();
    // The timeline and message files, under temporary names until the
    // run and their last record are written.
    let timeline = opts.timeline.as_deref().map(output::Partial::new);
    let messages = opts.messages.as_deref().map(output::Partial::new);
    let result = if timeline.is_none() && messages.is_none() && series.is_none() {
        sc.run(src, PROGRESS_EVERY, tick)
    } else {
        let goal = sc.goal_tags();
        let tap = Tap {
            timeline: timeline
                .as_ref()
                .map(output::Partial::create)
                .transpose()?
                .map(|w| Timeline::new(w).unsigned_tags(goal)),
            messages: messages
                .as_ref()
                .map(output::Partial::create)
                .transpose()?
                .map(|w| MessageLog::new(w).unsigned_tags(goal)),
            links: series,
        };
        let (result, tap) = sc.run_observed(src, PROGRESS_EVERY, tick, tap);
        if let Some(mut tap) = tap {
            if let Some(b) = tap.links.take() {
                series_fits(&b)?;
                link_series = b.series();
            }
            let links = result.as_ref().ok().and_then(|o| o.links.as_ref());
            if let (Some(t), Some(li)) = (tap.timeline.as_mut(), links) {
                t.link_tracks(&link_series, |l| link_ends(li, l));
            }
            finish_tap(tap, opts)?;
        }
        result
    };
    // Written also for a run that deadlocked or failed: they show how.
    for p in [timeline, messages].into_iter().flatten() {
        p.commit()?;
    }
    progress.finish();
    let mut outcome = result.map_err(scenario_err)?;
    if opts.no_wall {
        outcome.report.wall = None;
    }
    if let Some(p) = &opts.link_series {
        output::write_with(p, |tmp| write_link_series(&outcome, &link_series, tmp))?;
    }
    emit(&outcome, opts)
}

/// Refuses a link series whose bins did not fit in memory, with the
/// interval that would.
fn series_fits(b: &topology::SeriesBuilder) -> Result<(), CliError> {
    let Some(need) = b.refused() else {
        return Ok(());
    };
    let (limit, _) = sim_core::limits::memory_limit();
    let wider = sim_core::Time::from_ps(
        b.interval()
            .as_ps()
            .saturating_mul(need.div_ceil(limit.max(1)).max(2)),
    );
    Ok(sim_core::limits::check_memory(
        &format!("the link series in bins of {}", b.interval()),
        need,
        &format!("choose a wider --series-interval (at least {wider})"),
    )?)
}

/// The names of link `l`'s two vertices.
fn link_ends(li: &scenario::LinkInfo, l: topology::LinkId) -> (String, String) {
    let st = &li.stats[l.index()];
    let name = |v: u32| li.names.get(v as usize).cloned().unwrap_or_default();
    (name(st.from), name(st.to))
}

/// `--link-series FILE.csv`: one row per link and bin with traffic.
fn write_link_series(o: &Outcome, series: &[topology::LinkSeries], p: &Path) -> Result<(), String> {
    let named = |e: &dyn std::fmt::Display| format!("{}: {e}", p.display());
    let mut w = csv::Writer::from_path(p).map_err(|e| named(&e))?;
    let head = ["link", "from", "to", "start_ps", "end_ps", "bytes", "gbps"];
    w.write_record(head).map_err(|e| named(&e))?;
    let Some(li) = &o.links else {
        return Err(named(&"the ideal network has no links to record"));
    };
    for ls in series {
        let (a, b) = link_ends(li, ls.link);
        let iv = ls.interval.as_ps();
        for (i, &bytes) in ls.bytes.iter().enumerate().filter(|(_, b)| **b > 0) {
            let start = iv * i as u64;
            let rec = [
                ls.link.to_string(),
                a.clone(),
                b.clone(),
                start.to_string(),
                (start + iv).to_string(),
                bytes.to_string(),
                ls.gbps(i).to_string(),
            ];
            w.write_record(&rec).map_err(|e| named(&e))?;
        }
    }
    w.flush().map_err(|e| named(&e))
}

fn emit(o: &Outcome, opts: &OutputOpts) -> Result<(), CliError> {
    match opts.format() {
        Format::Table => out(&render::table(&o.report)),
        Format::Json => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&o.report).map_err(CliError::input)?
        )),
        Format::Csv => out(&render::csv(&o.report)?),
    }
    if let Some(p) = &opts.plot {
        for f in plots::run_figures(o, p)? {
            eprintln!("wrote {}", f.display());
        }
    }
    Ok(())
}

/// `netsim run`.
pub(crate) fn run(a: RunArgs) -> Result<(), CliError> {
    let (src, table) = scenario::read_table(&a.scenario).map_err(scenario_err)?;
    let dir = a.scenario.parent().unwrap_or(Path::new(".")).to_path_buf();
    run_table(&src, &table, &a.out, &dir, a.collectives.as_deref())
}

/// `netsim replay`: the options become a scenario table with a `trace`
/// workload, so `--set` reaches every scenario field.
pub(crate) fn replay(a: ReplayArgs) -> Result<(), CliError> {
    let mut t = Table::new();
    // Each option goes in as the value serde writes for it: the same
    // name a scenario file uses, since the types are the file's.
    let mut set = |p: &str, v: &dyn ErasedValue| -> Result<(), CliError> {
        Ok(scenarios::sweep::set_path(&mut t, p, v.toml()?)?)
    };
    if let Some(p) = &a.platform {
        set("machine.platform", p)?;
    } else if let Some(f) = &a.machine_file {
        set("machine.file", f)?;
    } else if let Some(d) = &a.dims {
        set("machine.preset", &a.machine)?;
        if a.machine != MachinePreset::BlueWaters {
            return Err("--dims applies to --machine blue-waters".into());
        }
        if d.len() != 3 {
            return Err(format!("--dims: expected X,Y,Z, got {} values", d.len()).into());
        }
        set("machine.dims", d)?;
    } else {
        set("machine.preset", &a.machine)?;
        if a.machine == MachinePreset::BlueWaters {
            // A small torus unless asked: the full machine's routing
            // tables are slow to build for a replay of a few ranks.
            set("machine.dims", &[4, 4, 4])?;
        }
    }
    set("mapping.ppn", &a.ppn)?;
    if let Some(m) = &a.mpi {
        set("mpi.preset", m)?;
    }
    set("transport.mode", &a.mode)?;
    set("workload.kind", &"trace")?;
    if a.paths.len() == 1 {
        set("workload.path", &a.paths[0])?;
    } else {
        if !matches!(a.format, None | Some(TraceFormat::SimGridTi)) {
            return Err("several paths are TI per-rank files; other formats take one path".into());
        }
        set("workload.files", &a.paths)?;
    }
    if let Some(f) = &a.format {
        set("workload.format", f)?;
    }
    if let Some(h) = &a.host_speed {
        set("workload.host_speed_flops", h)?;
    }
    if let Some(c) = &a.compute_scale {
        set("workload.compute_scale", c)?;
    }
    // Options, not a file: errors name the trace and the field.
    let src = ScenarioFile::default();
    run_table(&src, &t, &a.out, Path::new(""), a.collectives.as_deref())
}

/// Ends the timeline and message files, naming the file a write failed
/// on.
fn finish_tap(
    tap: Tap<std::io::BufWriter<std::fs::File>>,
    opts: &OutputOpts,
) -> Result<(), CliError> {
    let named = |p: &Option<PathBuf>, e: std::io::Error| {
        format!("{}: {e}", p.as_deref().unwrap_or(Path::new("")).display())
    };
    if let Some(t) = tap.timeline {
        t.finish().map_err(|e| named(&opts.timeline, e))?;
    }
    if let Some(m) = tap.messages {
        m.finish().map_err(|e| named(&opts.messages, e))?;
    }
    Ok(())
}

/// A command-line value as the TOML a scenario file would hold.
trait ErasedValue {
    fn toml(&self) -> Result<Value, CliError>;
}

impl<T: serde::Serialize + ?Sized> ErasedValue for T {
    fn toml(&self) -> Result<Value, CliError> {
        Value::try_from(self).map_err(CliError::input)
    }
}

/// `netsim presets`.
pub(crate) fn presets() -> String {
    render::presets()
}
