//! The `netsim` application: the command line (`cli`), the benchmark
//! programs (`bench`) and `netsim validate` / `netsim fit` on the
//! validation library (`validate`, `src/lib.rs`). The commands are thin:
//! scenario files are read and run by `scenarios::scenario`, checks by
//! the library's cases.

#![warn(missing_docs)]

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
    /// Fit alpha and R_b per protocol (with the switch points) and gamma
    /// from ping-pong and HighVolumePingPong timings (CSV:
    /// size,n,order,seconds\[,locality\]); prints a scenario \[mpi\] section.
    Fit {
        /// The CSV file of timings.
        csv: PathBuf,
    },
    /// Benchmark programs that print figures (events/s, peak memory).
    Bench {
        #[command(flatten)]
        suite: bench::SuiteArgs,
        #[command(subcommand)]
        what: Option<bench::BenchCommand>,
    },
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

fn fit_cmd(csv: PathBuf) -> Result<bool, String> {
    let name = csv.display().to_string();
    let text = std::fs::read_to_string(&csv).map_err(|e| format!("{name}: {e}"))?;
    let samples = validate::fit::parse_csv(&text, &name)?;
    let f = validate::fit::fit(&samples).map_err(|e| format!("{name}: {e}"))?;
    print!("{}", f.to_toml(&name));
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
        Command::Fit { csv } => fit_cmd(csv),
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
