//! The `netsim` command line.

use clap::{Parser, Subcommand};
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
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario file (TOML; docs/SCENARIOS.md) and report makespan,
    /// finish times, traffic, match-queue searches, links and events.
    Run(cli::RunArgs),
    /// Replay an MPI trace (SimGrid TI, DUMPI, GOAL, native, CSV message
    /// list) on a preset machine.
    Replay(cli::ReplayArgs),
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
    /// Write the scenario to this file instead of stdout.
    #[arg(long, short)]
    out: Option<PathBuf>,
}

fn validate_cmd(
    cases: Vec<String>,
    list: bool,
    json: bool,
    figures: Option<PathBuf>,
    quick: bool,
) -> Result<bool, String> {
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
        return Err(format!(
            "unknown case `{unknown}`; cases are: {}",
            names.join(", ")
        ));
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
        let r = (c.run)(validate::cases::Opts {
            quick,
            figures: figures.as_deref(),
        })?;
        eprintln!(
            "{:<20} {:>4} rows in {:.2} s",
            c.name,
            r.len(),
            start.elapsed().as_secs_f64()
        );
        rows.extend(r);
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", suite::table(&rows));
    }
    Ok(rows.iter().all(|r| r.verdict != Verdict::Fail))
}

fn fit_cmd(a: FitArgs) -> Result<bool, (u8, String)> {
    use validate::fit::{self, Failure, FitOptions};
    let name = a.csv.display().to_string();
    let locality = match &a.locality {
        None => None,
        Some(l) => Some(fit::parse_locality(l).ok_or_else(|| {
            (
                2,
                format!("--locality `{l}`: not same_socket, same_node or other_node"),
            )
        })?),
    };
    if a.max_segments == 0 {
        return Err((2, "--max-segments must be at least 1".into()));
    }
    if !(0.0..1.0).contains(&a.noise) {
        return Err((2, format!("--noise {} must be in [0, 1)", a.noise)));
    }
    let text = std::fs::read_to_string(&a.csv).map_err(|e| (2, format!("{name}: {e}")))?;
    let o = FitOptions {
        state: a.state,
        library: a.library,
        max_segments: a.max_segments,
        noise: a.noise,
    };
    let (f, scenario) = fit::fit_file(&text, &name, locality, &o).map_err(|e| match e {
        Failure::Input(m) => (2, m),
        Failure::Rejected(m) => (1, m),
    })?;
    eprint!("{}", f.report(&name));
    match &a.out {
        Some(p) => {
            std::fs::write(p, &scenario).map_err(|e| (1, format!("{}: {e}", p.display())))?;
            eprintln!("wrote {}", p.display());
        }
        None => print!("{scenario}"),
    }
    Ok(true)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Validate {
            cases,
            list,
            json,
            figures,
            quick,
        } => validate_cmd(cases, list, json, figures, quick),
        Command::Fit(a) => match fit_cmd(a) {
            Ok(ok) => Ok(ok),
            Err((code, e)) => {
                eprintln!("netsim: error: {e}");
                return ExitCode::from(code);
            }
        },
        Command::Bench { suite, what } => bench::run(suite, what).map(|()| true),
        Command::Run(a) => cli::run(a).map(|()| true),
        Command::Replay(a) => cli::replay(a).map(|()| true),
        Command::Presets => {
            print!("{}", cli::presets());
            Ok(true)
        }
        Command::Sweep(a) => cli::sweep(a).map(|()| true),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("netsim: error: {e}");
            ExitCode::FAILURE
        }
    }
}
