//! The `netsim` command line.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod bench;

/// netsim: a discrete-event simulator of MPI communication over HPC
/// networks (3-D Gemini torus, two-rack Ethernet, InfiniBand).
#[derive(Parser)]
#[command(name = "netsim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Benchmark programs that print figures (events/s, peak memory).
    Bench {
        #[command(subcommand)]
        what: bench::BenchCommand,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench { what } => bench::run(what),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("netsim: error: {e}");
            ExitCode::FAILURE
        }
    }
}
