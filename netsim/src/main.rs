//! The `netsim` application: the command line (`cli`), the benchmark
//! programs (`bench`) and `netsim validate` / `netsim fit` on the
//! validation library (the `validate` crate below this one). The
//! commands are thin: scenario files are read and run by
//! `scenarios::scenario`, checks by the library's cases.

#![warn(missing_docs)]

use clap::{Parser, Subcommand};
use cli::CliError;
use std::path::PathBuf;
use std::process::ExitCode;
use validate::suite::{self, Verdict};

mod bench;
mod cli;

/// netsim: a discrete-event simulator of MPI communication over HPC
/// networks (3-D Gemini torus, two-rack Ethernet, InfiniBand).
#[derive(Parser)]
#[command(
    name = "netsim",
    version,
    about = "netsim: discrete-event simulation of MPI communication over HPC networks \
             (Gemini 3-D torus, two-rack Ethernet, InfiniBand). Start with `netsim run \
             examples/halo-torus.toml` or `netsim replay TRACE`; docs/SCENARIOS.md has the \
             scenario format.",
    long_about = None,
    after_help = "Exit codes: 0 success; 1 a validation row or a check failed; \
                  2 bad input or configuration (files, options, trace lines, limits); \
                  3 the simulation deadlocked; 130/143 stopped by SIGINT/SIGTERM \
                  (partial output files removed)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The memory netsim may plan to use (e.g. `12 GiB`): sweeps, link
    /// series and built-in workloads larger than this are refused before
    /// they are allocated. Default: the machine's available memory
    /// (MemAvailable in /proc/meminfo).
    #[arg(long, global = true, value_name = "SIZE", value_parser = sim_core::units::parse_bytes)]
    max_memory: Option<u64>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario file (TOML; docs/SCENARIOS.md) and report makespan,
    /// finish times, traffic, match-queue searches, links and events.
    Run(cli::RunArgs),
    /// Replay an MPI trace (SimGrid TI, DUMPI, OTF2, GOAL, native, CSV message
    /// list) on a preset machine.
    Replay(cli::ReplayArgs),
    /// Compile a GOAL schedule into netsim's binary form (as LogGOPSim's
    /// txt2bin does for LogGOPSim): `run` and `replay` open it (format
    /// goal) without reading and checking the text again.
    Compile(cli::CompileArgs),
    /// List the machine and MPI presets with their sources and key numbers.
    Presets,
    /// Run a scenario for every combination of parameter values, in
    /// parallel; `sweep merge` joins shard outputs.
    Sweep(cli::SweepArgs),
    /// Run the validation suite: every closed-form model of the seed
    /// papers checked against simulation, case by case. Exits non-zero if
    /// any row fails.
    Validate {
        /// Run only the cases with these names (see --list).
        #[arg(long = "case")]
        cases: Vec<String>,
        /// List the cases and exit.
        #[arg(long)]
        list: bool,
        /// Print the rows as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Write SVG figures (simulated vs modeled) into this directory.
        #[arg(long)]
        figures: Option<PathBuf>,
        /// The reduced versions the test suite runs.
        #[arg(long)]
        quick: bool,
    },
    /// Fit the MPI parameters to measured timings (CSV with kind, size,
    /// seconds, n, order, window, locality, state columns; calibrate/README.md):
    /// ping-pong segments (switch points, alpha, R_b), queue search gamma.
    /// Prints a runnable scenario on stdout and the fit report on stderr.
    Fit(FitArgs),
    /// Measure a real MPI library with netsim's microbenchmarks (built
    /// with --mpicc, run with --mpirun, two ranks), then fit it: writes
    /// OUT/LIBRARY.csv and one runnable scenario per placement state, and
    /// prints the fitted `[mpi]` sections with their reports
    /// (calibrate/README.md).
    Calibrate(CalibrateArgs),
    /// Print a shell completion script, e.g. `netsim completions bash >
    /// ~/.local/share/bash-completion/completions/netsim`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Write the manual pages (netsim.1 and one per command, e.g.
    /// netsim-replay.1) into a folder, e.g. `netsim man target/man`, then
    /// `man -l target/man/netsim.1`.
    Man {
        /// The folder to write into (created if missing).
        dir: PathBuf,
    },
    /// Benchmark programs that print figures (events/s, peak memory).
    Bench {
        #[command(flatten)]
        suite: bench::SuiteArgs,
        #[command(subcommand)]
        what: Option<bench::BenchCommand>,
    },
}

/// `netsim fit` options.
#[derive(clap::Args)]
struct FitArgs {
    /// The CSV file of timings.
    csv: PathBuf,
    /// Locality of rows without a `locality` cell: same_socket, same_node
    /// or other_node. Rows with neither are an error.
    #[arg(long)]
    locality: Option<String>,
    /// Fit only the rows of this placement state (near, far, ...);
    /// required when the data mix states.
    #[arg(long)]
    state: Option<String>,
    /// Fit only the rows of this library; required when the data mix
    /// libraries.
    #[arg(long)]
    library: Option<String>,
    /// Most ping-pong segments the penalized criterion may choose.
    #[arg(long, default_value_t = 8)]
    max_segments: usize,
    /// Relative noise: reversed receives faster than in order by more
    /// than this is an error.
    #[arg(long, default_value_t = 0.1)]
    noise: f64,
    /// The library's eager limit for non-blocking sends, in bytes, where
    /// it has its own (Open MPI's pml ucx): written as `isend_eager_max`;
    /// posted streams above it fit the rendezvous cell.
    #[arg(long)]
    isend_eager_max: Option<u64>,
    /// Write the scenario to this file instead of stdout.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Fit only these rows (comma list of KIND, KIND:SIZE, or
    /// pingpong:grid for the ping-pong grid without the switch-point
    /// extras), e.g. pingpong:grid,hvpp-posted:8.
    #[arg(long, value_delimiter = ',')]
    train: Vec<String>,
    /// With --train: run every other row through the fitted scenario and
    /// write the prediction report (Markdown: per family and pooled median
    /// error, shares within 10 % and 25 %, every point) to this file.
    #[arg(long, requires = "train")]
    predict: Option<PathBuf>,
}

/// `netsim calibrate` options.
#[derive(clap::Args)]
struct CalibrateArgs {
    /// The MPI compiler wrapper, e.g. mpicc.mpich.
    #[arg(long, default_value = "mpicc")]
    mpicc: String,
    /// The MPI launcher, e.g. mpirun.mpich.
    #[arg(long, default_value = "mpirun")]
    mpirun: String,
    /// Extra launcher options, one string split at spaces (e.g. "--mca
    /// pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any").
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    mpirun_args: Option<String>,
    /// Do not add the launcher's bind-to-core option (MPICH -bind-to
    /// core, Open MPI --bind-to core); the benchmark still pins each rank
    /// to one CPU if the launcher left it several.
    #[arg(long)]
    no_bind: bool,
    /// The `library` column and the output file names; default mpich or
    /// openmpi from `mpirun --version`.
    #[arg(long)]
    library: Option<String>,
    /// Output folder: the benchmark, LIBRARY.csv, the fitted scenarios,
    /// calibrate.log.
    #[arg(long, default_value = "calibration")]
    out: PathBuf,
    /// A few seconds: the small grid, one pass, no waiting for a quiet
    /// machine or a placement state (CI smoke).
    #[arg(long)]
    quick: bool,
    /// Benchmarks to run (comma list of pingpong, hvpp-paper,
    /// hvpp-posted, hvpp-unexpected, msgrate); default all.
    #[arg(long, value_delimiter = ',')]
    kinds: Vec<String>,
    /// Time budget of the whole campaign (minutes): a wall-clock deadline
    /// from its start, which building the benchmark, waiting for a quiet
    /// machine, launching and measuring all count against. No chunk
    /// starts that the time left cannot hold (its time estimated from
    /// the longest chunk of its kind so far; the first chunk always
    /// runs); a campaign stopped on the budget says how many chunks it
    /// skipped and fits the rows it has.
    #[arg(long, default_value_t = 30.0)]
    minutes: f64,
    /// Longest total wait for a quiet machine (minutes); by default none:
    /// chunks are measured whatever the load, and the rows measured
    /// above --max-busy are kept in the CSV but left out of the fit.
    #[arg(long, default_value_t = 0.0)]
    max_wait: f64,
    /// Largest share of all CPUs other processes may use during a chunk
    /// for its rows to be fitted (percent); a chunk above it is run again
    /// within the budget.
    #[arg(long, default_value_t = 5.0)]
    max_busy: f64,
    /// Probe state boundaries (ns): A (near < A <= far) or A,B (near < A
    /// <= mid < B <= far).
    #[arg(long, value_delimiter = ',', default_value = "95,250")]
    split_ns: Vec<f64>,
    /// Placement states to cover (near, mid, far, or any: one state,
    /// whichever); each chunk is repeated until it has rows in each,
    /// within the budget.
    #[arg(long, value_delimiter = ',', default_value = "near,mid,far")]
    states: Vec<String>,
    /// Measure only; do not fit.
    #[arg(long)]
    no_fit: bool,
    /// Keep the rows of OUT/LIBRARY.csv (measured by this same benchmark)
    /// and measure only what they lack.
    #[arg(long)]
    resume: bool,
    /// Stop after this many rounds over the grid (1: one pass, every unit
    /// in whatever placement state it meets).
    #[arg(long)]
    rounds: Option<u32>,
    /// `netsim fit --noise`: reversed receives faster than in order by
    /// more than this fraction fail the fit.
    #[arg(long, default_value_t = 0.1)]
    noise: f64,
    /// `netsim fit --max-segments`.
    #[arg(long, default_value_t = 8)]
    max_segments: usize,
}

/// `netsim calibrate`'s options as the library takes them, checked.
fn calibrate_options(a: &CalibrateArgs) -> Result<validate::calibrate::Options, CliError> {
    use validate::calibrate;
    let mut kinds = Vec::new();
    for k in &a.kinds {
        match calibrate::KINDS.iter().find(|&&x| x == k) {
            Some(&x) => kinds.push(x),
            None => {
                return Err(CliError::input(format!(
                    "--kinds: `{k}` is not one of {}",
                    calibrate::KINDS.join(", ")
                )));
            }
        }
    }
    if kinds.is_empty() {
        kinds = calibrate::KINDS.to_vec();
    }
    let mut states = Vec::new();
    for s in &a.states {
        match s.as_str() {
            "near" => states.push("near"),
            "mid" => states.push("mid"),
            "far" => states.push("far"),
            "any" => states.push("any"),
            _ => {
                return Err(CliError::input(format!(
                    "--states: `{s}` is not near, mid, far or any"
                )));
            }
        }
    }
    let positive = a.minutes > 0.0 && a.minutes.is_finite();
    let non_negative = a.max_wait >= 0.0 && a.max_wait.is_finite();
    if !(positive && non_negative) {
        return Err(CliError::input(format!(
            "--minutes {} must be positive and --max-wait {} at least 0",
            a.minutes, a.max_wait
        )));
    }
    if !(0.0..1.0).contains(&a.noise) || a.max_segments == 0 {
        return Err(CliError::input(
            "--noise must be in [0, 1) and --max-segments at least 1",
        ));
    }
    let splits_ok = matches!(a.split_ns.as_slice(), [x] if *x > 0.0)
        || matches!(a.split_ns.as_slice(), [x, y] if *x > 0.0 && y > x);
    if a.max_busy.is_nan() || a.max_busy < 0.0 || !splits_ok {
        return Err(CliError::input(
            "--max-busy must be >= 0 and --split-ns A or A,B with 0 < A < B",
        ));
    }
    if a.split_ns.len() == 1 && states.contains(&"mid") {
        states.retain(|s| *s != "mid");
    }
    Ok(calibrate::Options {
        mpicc: a.mpicc.clone(),
        mpirun: a.mpirun.clone(),
        mpirun_args: a
            .mpirun_args
            .as_ref()
            .map(|s| s.split_whitespace().map(String::from).collect())
            .unwrap_or_default(),
        no_bind: a.no_bind,
        library: a.library.clone(),
        out: a.out.clone(),
        quick: a.quick,
        kinds,
        budget: std::time::Duration::from_secs_f64(a.minutes * 60.0),
        max_wait: std::time::Duration::from_secs_f64(a.max_wait * 60.0),
        max_busy: a.max_busy,
        split_ns: a.split_ns.clone(),
        states,
        chunk_timeout: std::time::Duration::from_secs(if a.quick { 120 } else { 900 }),
        resume: a.resume,
        rounds: a.rounds,
    })
}

/// `netsim calibrate`: measure (`validate::calibrate::measure`), then
/// fit unless --no-fit.
fn calibrate_cmd(a: CalibrateArgs) -> Result<bool, CliError> {
    use validate::calibrate;
    let o = calibrate_options(&a)?;
    // Every failure below is the setup's (a folder, a compiler, a
    // launcher, the machine's load), not a failed check: exit 2.
    std::fs::create_dir_all(&a.out)
        .map_err(|e| CliError::input(format!("{}: {e}", a.out.display())))?;
    let mut log = calibrate::logger(&a.out);
    let m = calibrate::measure(&o, &mut log).map_err(CliError::input)?;
    if m.rows == 0 {
        return Err(CliError::input(format!(
            "no rows were measured (see {}): the machine may never have been quiet enough (--max-busy {} %, --max-wait {} min)",
            a.out.join("calibrate.log").display(),
            a.max_busy,
            a.max_wait
        )));
    }
    if a.no_fit {
        return Ok(true);
    }
    fit_states(&a, &m, &mut log)
}

/// `netsim calibrate` after the measurements: one fit per placement state
/// of the rows measured while the machine was quiet enough (all of them
/// with --quick, the smoke run), each written as a scenario, and the
/// state with the most rows under the library's name. Ok(false) when a
/// fitted scenario was rejected.
fn fit_states(
    a: &CalibrateArgs,
    m: &validate::calibrate::Outcome,
    log: &mut dyn FnMut(&str),
) -> Result<bool, CliError> {
    let name = m.csv.display().to_string();
    let text =
        std::fs::read_to_string(&m.csv).map_err(|e| CliError::input(format!("{name}: {e}")))?;
    let limit = if a.quick { f64::INFINITY } else { a.max_busy };
    let quiet = validate::calibrate::quiet_rows(&text, limit)
        .map_err(|e| CliError::input(format!("{name}: {e}")))?;
    let dropped: usize = quiet.dropped.values().sum();
    let under_load = format!(
        "{dropped} of {} rows were measured while other processes used more than {} % of the CPUs (--max-busy) and are left out of the fit",
        dropped + quiet.kept.values().sum::<usize>(),
        a.max_busy
    );
    if dropped > 0 {
        log(&under_load);
    }
    let mut ok = true;
    let mut written = Vec::new();
    for state in m.per_state.keys() {
        let n = quiet.kept.get(state).copied().unwrap_or(0);
        let d = quiet.dropped.get(state).copied().unwrap_or(0);
        if n == 0 {
            log(&format!(
                "state {state}: not fitted: its {d} rows were all measured under load"
            ));
            continue;
        }
        let o = validate::fit::FitOptions {
            state: Some(state.clone()),
            library: None,
            max_segments: a.max_segments,
            noise: a.noise,
            isend_eager_max: None,
        };
        match validate::fit::fit_file(&quiet.text, &name, None, &o) {
            Ok((f, scenario)) => {
                let file = if state == "-" { "unprobed" } else { state };
                let path = a.out.join(format!("{}-{file}.toml", m.library));
                let scenario = format!("{}{scenario}", quality_line(&f, n, d, quiet.max_kept_pct));
                cli::output::write(&path, scenario.as_bytes()).map_err(CliError::input)?;
                eprint!("{}", f.report(&name));
                println!(
                    "# ===== {} ({n} rows in state {state}) =====",
                    path.display()
                );
                print!("{scenario}");
                written.push((state.clone(), n, path));
            }
            Err(e @ validate::Error::Rejected(_)) => {
                ok = false;
                log(&format!("state {state}: the fit failed: {e}"));
            }
            Err(e) => {
                // Too few or contradictory rows in one state: said, and
                // the other states' fits stand.
                log(&format!("state {state}: not fitted: {e}"));
            }
        }
    }
    if written.is_empty() {
        let why = if dropped > 0 {
            format!("; {under_load}")
        } else {
            String::new()
        };
        return Err(CliError::input(format!(
            "no placement state's rows could be fitted (see {name} and the log){why}"
        )));
    }
    // The state with the most rows, under a name that does not depend on
    // the state: the one to run.
    if let Some((state, _, from)) = written.iter().max_by_key(|w| w.1) {
        let to = a.out.join(format!("{}.toml", m.library));
        let text =
            std::fs::read(from).map_err(|e| CliError::input(format!("{}: {e}", from.display())))?;
        cli::output::write(&to, &text).map_err(CliError::input)?;
        eprintln!("{}: the fit of state {state} (the most rows)", to.display());
    }
    Ok(ok)
}

/// The first line of a fitted scenario: how far the ping-pong fit is
/// from its own rows (pooled relative rms and largest error over its
/// segments), how many rows it used and left out, and the highest load
/// among them.
fn quality_line(f: &validate::fit::Fit, used: usize, dropped: usize, load_pct: f64) -> String {
    let segs = f.postal.iter().flat_map(|p| &p.segments);
    let (sq, pts, max) = segs.fold((0.0, 0, 0.0f64), |(sq, n, mx), g| {
        (
            sq + g.rms_rel * g.rms_rel * g.points as f64,
            n + g.points,
            mx.max(g.max_rel),
        )
    });
    let error = if pts == 0 {
        "no ping-pong rows of its own".to_string()
    } else {
        format!(
            "ping-pong training error rms {:.1} %, max {:.1} % over {pts} points",
            100.0 * (sq / pts as f64).sqrt(),
            100.0 * max
        )
    };
    format!(
        "# Fit quality: {error}; {used} rows used, {dropped} left out as measured under load; the load of other processes during the rows used was at most {load_pct:.1} % of the CPUs\n"
    )
}

fn validate_cmd(
    cases: Vec<String>,
    list: bool,
    json: bool,
    figures: Option<PathBuf>,
    quick: bool,
) -> Result<bool, CliError> {
    let all = validate::cases::all();
    if list {
        for c in &all {
            println!("{:<20} {}", c.name, c.about);
        }
        return Ok(true);
    }
    if let Some(unknown) = cases
        .iter()
        .find(|n| !all.iter().any(|c| c.name == n.as_str()))
    {
        let names: Vec<&str> = all.iter().map(|c| c.name).collect();
        return Err(CliError::input(format!(
            "unknown case `{unknown}`; cases are: {}",
            names.join(", ")
        )));
    }
    if let Some(dir) = &figures {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create figure directory: {e}", dir.display()))?;
    }
    let mut rows = Vec::new();
    for c in all
        .iter()
        .filter(|c| cases.is_empty() || cases.iter().any(|n| n == c.name))
    {
        let start = std::time::Instant::now();
        // A case that cannot run its experiment is exit 2, whatever the
        // reason.
        let r = (c.run)(validate::cases::Opts {
            quick,
            figures: figures.as_deref(),
        })
        .map_err(CliError::input)?;
        eprintln!(
            "{:<20} {:>4} rows in {:.2} s",
            c.name,
            r.len(),
            start.elapsed().as_secs_f64()
        );
        rows.extend(r);
    }
    if json {
        cli::out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?
        ));
    } else {
        cli::out(&suite::table(&rows));
    }
    Ok(rows.iter().all(|r| r.verdict != Verdict::Fail))
}

fn fit_cmd(a: FitArgs) -> Result<bool, CliError> {
    use validate::fit::{self, FitOptions};
    let name = a.csv.display().to_string();
    let locality = match &a.locality {
        None => None,
        Some(l) => Some(topology::Locality::from_name(l).ok_or_else(|| {
            CliError::input(format!(
                "--locality `{l}`: not same_socket, same_node or other_node"
            ))
        })?),
    };
    if a.max_segments == 0 {
        return Err("--max-segments must be at least 1".into());
    }
    if !(0.0..1.0).contains(&a.noise) {
        return Err(format!("--noise {} must be in [0, 1)", a.noise).into());
    }
    let text = std::fs::read_to_string(&a.csv).map_err(|e| format!("{name}: {e}"))?;
    let o = FitOptions {
        state: a.state,
        library: a.library,
        max_segments: a.max_segments,
        noise: a.noise,
        isend_eager_max: a.isend_eager_max,
    };
    let train = if a.train.is_empty() {
        None
    } else {
        Some(validate::predict::TrainSet::parse(&a.train)?)
    };
    let fit::Split {
        fit: f,
        scenario,
        train: trained,
        held,
    } = fit::fit_split(&text, &name, locality, &o, |m| {
        train.as_ref().is_none_or(|t| t.contains(m))
    })?;
    eprint!("{}", f.report(&name));
    if let Some(p) = &a.predict {
        use validate::predict;
        let (points, skipped) = predict::predict(&scenario, f.mapped_locality(), &held)?;
        if points.is_empty() {
            return Err(format!("--predict: {name} has no rows outside --train").into());
        }
        let (training, _) = predict::predict(&scenario, f.mapped_locality(), &trained)?;
        let noise = predict::repeat_noise(&held);
        let title = format!(
            "{}{}: fitted on {}, {} units predicted",
            f.library.as_deref().unwrap_or("the data"),
            f.state
                .as_ref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default(),
            a.train.join(", "),
            points.len()
        );
        let text = predict::report(&points, &training, noise, skipped, &title);
        cli::output::write(p, text.as_bytes())?;
        let all: Vec<_> = points.iter().collect();
        let (med, w10, w25) = predict::summary(&all);
        let (tmed, _, _) = predict::summary(&training.iter().collect::<Vec<_>>());
        eprintln!(
            "predicted {} units: median |error| {:.1} %, {:.0} % within 10 %, {:.0} % within 25 % \
             (target median {:.1} %{}); training units: median |error| {:.1} %; wrote {}",
            points.len(),
            100.0 * med,
            100.0 * w10,
            100.0 * w25,
            100.0 * predict::median_target(noise.map(|n| n.0)),
            noise.map_or(String::new(), |(n, _, w)| format!(
                ", repeat noise {:.1} %, {:.0} % of repeats within 25 %",
                100.0 * n,
                100.0 * w
            )),
            100.0 * tmed,
            p.display()
        );
    }
    match &a.out {
        Some(p) => {
            cli::output::write(p, scenario.as_bytes())?;
            eprintln!("wrote {}", p.display());
        }
        None => cli::out(&scenario),
    }
    Ok(true)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli::output::on_signals();
    if let Some(m) = cli.max_memory {
        sim_core::limits::set_memory_limit(m);
    }
    let result: Result<bool, CliError> = match cli.command {
        Command::Validate {
            cases,
            list,
            json,
            figures,
            quick,
        } => validate_cmd(cases, list, json, figures, quick),
        Command::Fit(a) => fit_cmd(a),
        Command::Calibrate(a) => calibrate_cmd(a),
        Command::Bench { suite, what } => bench::run(suite, what).map(|()| true),
        Command::Run(a) => cli::run(a).map(|()| true),
        Command::Replay(a) => cli::replay(a).map(|()| true),
        Command::Compile(a) => cli::compile(a).map(|()| true),
        Command::Presets => {
            cli::out(&cli::presets());
            Ok(true)
        }
        Command::Sweep(a) => cli::sweep(a).map(|()| true),
        Command::Completions { shell } => {
            // Into memory first: clap_complete panics on a failed write
            // (a full disk); `cli::out` says so and exits 2.
            use clap::CommandFactory;
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "netsim", &mut script);
            cli::out(&String::from_utf8_lossy(&script));
            Ok(true)
        }
        Command::Man { dir } => man_pages(&dir).map(|()| true),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(cli::EXIT_CHECK_FAILED),
        Err(e) => {
            eprintln!("netsim: error: {e}");
            ExitCode::from(e.code)
        }
    }
}

/// `netsim man DIR`: the manual pages clap_mangen renders from the
/// command definitions, so they say what `--help` says.
fn man_pages(dir: &std::path::Path) -> Result<(), CliError> {
    use clap::CommandFactory;
    let io = |e: std::io::Error| CliError::input(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    // Into a temporary folder inside, then moved out page by page.
    let pages = cli::output::Partial::folder(dir);
    pages.fill(|p| {
        std::fs::create_dir_all(p)
            .and_then(|()| clap_mangen::generate_to(Cli::command(), p))
            .map_err(|e| format!("{}: {e}", dir.display()))
    })?;
    Ok(pages.commit()?)
}

#[cfg(test)]
mod tests {
    /// The quality line of a fit of the committed MPICH data: its
    /// training error, rows and load, on one comment line.
    #[test]
    fn fitted_scenarios_open_with_their_quality() {
        let csv = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../calibrate/data/mpich/mpich.csv"
        );
        let text = std::fs::read_to_string(csv).unwrap();
        let q = validate::calibrate::quiet_rows(&text, 5.0).unwrap();
        let o = validate::fit::FitOptions {
            state: Some("mid".into()),
            library: None,
            max_segments: 8,
            noise: 0.1,
            isend_eager_max: None,
        };
        let (f, _) = validate::fit::fit_file(&q.text, "mpich.csv", None, &o)
            .unwrap_or_else(|_| panic!("the committed data fit"));
        let n = q.kept["mid"];
        let line = super::quality_line(&f, n, 3, q.max_kept_pct);
        assert!(
            line.starts_with("# Fit quality: ping-pong training error rms "),
            "{line}"
        );
        assert!(
            line.contains(&format!("; {n} rows used, 3 left out")),
            "{line}"
        );
        assert!(
            line.ends_with("% of the CPUs\n") && line.lines().count() == 1,
            "{line}"
        );
    }
}
