//! `netsim sweep` and `netsim sweep merge`: a scenario run over the
//! product of `--vary` axes, points in parallel, rows in point order
//! (`scenarios::sweep`).

use super::error::{CliError, scenario_err};
use super::output::{self, out};
use super::set::{collectives_set, overrides};
use super::{plots, render};
use clap::{Args, Subcommand};
use scenarios::scenario::{self, ScenarioFile};
use scenarios::sweep::{self, Axis, Row, Shard};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;
use toml::{Table, Value};

/// `netsim sweep`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct SweepArgs {
    #[command(subcommand)]
    merge: Option<SweepCommand>,
    /// The base scenario.
    #[arg(required = true)]
    scenario: Option<PathBuf>,
    /// An axis: `path=v1,v2,...` (repeatable; the first varies slowest).
    #[arg(long = "vary", value_name = "PATH=V1,V2,...", required = true)]
    vary: Vec<String>,
    /// Fixed overrides applied to every point, `path=value`.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
    /// Collective algorithms as this library runs them: `netsim` (the
    /// default), `smpi`, `mpich` or `openmpi` (same as `--set
    /// mpi.collectives.selector=NAME`;
    /// docs/SCENARIOS.md lists each selector's rules).
    #[arg(long, value_name = "NAME")]
    collectives: Option<String>,
    /// Worker threads; default all cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Run only shard i of N (points whose number is i mod N).
    #[arg(long, value_name = "i/N")]
    shard: Option<String>,
    #[command(flatten)]
    rows: RowOutput,
}

/// Where a sweep's rows go, for `netsim sweep` and `netsim sweep merge`.
#[derive(Args, Debug)]
pub(super) struct RowOutput {
    /// Write the rows (JSON lines) here instead of standard output.
    #[arg(long, value_name = "FILE.jsonl")]
    out: Option<PathBuf>,
    /// Write a CSV table of the points instead of JSON lines.
    #[arg(long)]
    csv: bool,
    /// Plot the metric against each axis (one curve per combination of
    /// the others): FILE.svg for the first axis, FILE-by-AXIS.svg (AXIS: the path, non-alphanumerics as `_`) for
    /// the others.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// The report value the plot shows, a dotted path (docs/OUTPUT.md).
    #[arg(long, default_value = "makespan_s")]
    metric: String,
}

/// `netsim sweep merge`.
#[derive(Subcommand, Debug)]
pub(super) enum SweepCommand {
    /// Join the JSON-lines outputs of a sweep's shards into the full sweep,
    /// in point order (checks every point is present once).
    Merge {
        /// Shard outputs.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        #[command(flatten)]
        rows: RowOutput,
    },
}

/// Splits `v1,v2,...` at commas outside brackets and quotes.
fn split_values(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, false);
    for c in s.chars() {
        match c {
            '"' => quote = !quote,
            '[' | '{' if !quote => depth += 1,
            ']' | '}' if !quote => depth -= 1,
            ',' if !quote && depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out
}

fn parse_axis(s: &str) -> Result<Axis, CliError> {
    let (p, vs) = s.split_once('=').ok_or_else(|| {
        CliError::input(format!("--vary `{s}` is not of the form path=v1,v2,..."))
    })?;
    let values: Vec<Value> = split_values(vs)
        .iter()
        .map(|v| scenario::parse_value(v))
        .collect();
    if p.trim().is_empty() || values.is_empty() {
        return Err(CliError::input(format!(
            "--vary `{s}`: empty path or values"
        )));
    }
    Ok(Axis {
        path: p.trim().to_string(),
        values,
    })
}

/// `netsim sweep` and `netsim sweep merge`.
pub(crate) fn sweep(a: SweepArgs) -> Result<(), CliError> {
    if let Some(SweepCommand::Merge { shards, rows: o }) = a.merge {
        let mut inputs = Vec::new();
        // `s*.jsonl --out sweep.jsonl` also matches the output of an
        // earlier merge: that file is this merge's output, not a shard.
        let out = o.out.as_ref().and_then(|p| p.canonicalize().ok());
        for p in &shards {
            let name = p.display().to_string();
            if out.is_some() && p.canonicalize().ok() == out {
                eprintln!("netsim: note: {name} is this merge's --out file, not read as a shard");
                continue;
            }
            let text =
                std::fs::read_to_string(p).map_err(|e| CliError::input(format!("{name}: {e}")))?;
            inputs.push((name, text));
        }
        let rows = sweep::merge(&inputs)?;
        return write_rows(&rows, &o);
    }
    let path = a.scenario.ok_or("sweep needs a scenario file")?;
    let (src, mut table) = scenario::read_table(&path).map_err(scenario_err)?;
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    // Fixed overrides go into the base, so the fingerprint covers them.
    scenario::collectives_as_table(&mut table);
    for (p, v) in overrides(&a.set)?
        .into_iter()
        .chain(collectives_set(a.collectives.as_deref()))
    {
        sweep::set_path(&mut table, &p, v)?;
    }
    // The base must be a valid scenario on its own.
    scenario::from_table(&src, &table, &[], &dir).map_err(scenario_err)?;
    let axes: Vec<Axis> = a
        .vary
        .iter()
        .map(|s| parse_axis(s))
        .collect::<Result<_, _>>()?;
    let id = sweep::fingerprint(&table, &axes);
    let total = sweep::point_count(&axes)?;
    let shard: Option<Shard> = a
        .shard
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e: sweep::SweepError| e.to_string())?;
    let pts = sweep::shard_points(&axes, total, shard)?;
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let start = Instant::now();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let show = std::io::stderr().is_terminal();
    let results = sweep::run_parallel(&pts, threads, |p| {
        let r = run_point(&src, &table, &dir, p);
        let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if show {
            eprint!(
                "\r{k}/{} points, {:.1} s ",
                pts.len(),
                start.elapsed().as_secs_f64()
            );
        }
        r
    });
    if show {
        eprintln!();
    }
    let mut rows = Vec::with_capacity(results.len());
    for (p, r) in pts.iter().zip(results) {
        let result = r.map_err(|e| {
            let params: Vec<String> = p.assignment.iter().map(|a| a.to_string()).collect();
            CliError {
                code: e.code,
                message: format!("point {} ({}): {e}", p.index, params.join(", ")),
            }
        })?;
        rows.push(Row {
            sweep: id.clone(),
            total,
            index: p.index,
            params: p.assignment.clone(),
            result,
        });
    }
    write_rows(&rows, &a.rows)
}

fn run_point(
    src: &ScenarioFile,
    base: &Table,
    dir: &Path,
    p: &sweep::Point,
) -> Result<serde_json::Value, CliError> {
    let t = sweep::apply(base, p)?;
    // The point's table stands alone: its errors cannot point at lines of
    // the base file.
    let bare = ScenarioFile {
        name: src.name.clone(),
        text: String::new(),
    };
    let sc = scenario::from_table(&bare, &t, &[], dir).map_err(scenario_err)?;
    let mut o = sc.run(&bare, u64::MAX, |_, _| {}).map_err(scenario_err)?;
    o.report.wall = None;
    serde_json::to_value(&o.report).map_err(CliError::input)
}

fn write_rows(rows: &[Row], o: &RowOutput) -> Result<(), CliError> {
    let text = if o.csv {
        render::sweep_csv(rows)?
    } else {
        let mut s = String::new();
        for r in rows {
            s += &serde_json::to_string(r).map_err(CliError::input)?;
            s.push('\n');
        }
        s
    };
    match &o.out {
        Some(p) => {
            output::write(p, text.as_bytes())?;
            eprintln!("wrote {} rows to {}", rows.len(), p.display());
        }
        None => out(&text),
    }
    if let Some(p) = &o.plot {
        for f in plots::sweep_figures(rows, p, &o.metric)? {
            eprintln!("wrote {}", f.display());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_split_outside_brackets() {
        assert_eq!(split_values("1,2,3"), vec!["1", "2", "3"]);
        assert_eq!(split_values("[1,2,2],[2,2,2]"), vec!["[1,2,2]", "[2,2,2]"]);
        assert_eq!(split_values("\"a,b\",c"), vec!["\"a,b\"", "c"]);
    }
}
