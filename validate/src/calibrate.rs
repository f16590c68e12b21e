//! `netsim calibrate`: measure a real MPI library with the project's
//! microbenchmarks (`calibrate/bench/netsim_bench.c`, embedded here) and
//! fit the simulator to the measurements.
//!
//! # Steps
//!
//! 1. Write the C source into the output folder and build it with the
//!    user's `mpicc`.
//! 2. Run it chunk by chunk (a slice of one benchmark's grid) through the
//!    user's `mpirun`, two ranks bound to cores. The load is the CPU time
//!    of every process outside this command's process tree, from
//!    `/proc/stat` and the tree's `/proc/<pid>/stat`, as a share of all
//!    CPUs. Before a chunk, wait up to `--max-wait` in all (default: not
//!    at all) for it to fall below `--max-busy` percent; then measure
//!    whatever it is.
//!    Each row records the load over its own interval (`others_pct`,
//!    [`row_load`]: the benchmark stamps every row's start and end, and
//!    netsim samples the load every 0.1 s while a chunk runs); a row
//!    measured under a higher load is kept but does not cover its unit,
//!    so its chunk is run again within the budget, while the rows
//!    measured between a compile's bursts stay. The fit ([`quiet_rows`])
//!    uses only the rows measured at or below `--max-busy` and says how
//!    many it left out.
//! 3. The benchmark labels every unit with the placement state its probe
//!    saw (`near`/`far`, or `-` when the ranks share no memory); chunks are
//!    run again, asking for the state they lack, until every unit has rows
//!    in every state or the time budget is spent. The budget is a
//!    wall-clock deadline for the whole campaign (`rounds.rs`: no chunk
//!    starts that is not expected to end by it); waiting for a quiet
//!    machine also has its own limit. On SIGINT or SIGTERM
//!    the binary stops the launcher's process group itself
//!    ([`stop_commands`]).
//! 4. Collect the rows into `<out>/<library>.csv`, fit every state with
//!    `netsim fit`'s code ([`crate::fit`]), write each fit as a runnable
//!    scenario `<out>/<library>-<state>.toml`, run it through the code
//!    `netsim run` uses, and print the scenarios and the fit reports.
//!
//! Why a subcommand and not a script: the CSV handling, the fit and the
//! scenario check are the simulator's own code, so one binary does it all
//! and the pipeline is tested with the rest; the benchmark's source is
//! inside the binary, so a user needs nothing but `netsim`, `mpicc` and
//! `mpirun`.

use crate::Error;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod group;
mod load;
mod plan;
mod rounds;

pub use group::stop_commands;
use rounds::{Budget, Runner, Wall};

pub use load::{
    Load, MachineTicks, ProcTicks, ROW_WINDOW_MIN, SAMPLE_PERIOD, Sample, Sampler, Snapshot,
    load_between, monotonic_s, parse_proc_stat, parse_proc_ticks, parse_tree_ticks, row_load,
    tree_ticks,
};
pub use plan::{
    Chunk, ChunkSummary, Coverage, Flavour, KINDS, chunk_cell, parse_chunk_cell, parse_summary,
    plan, unit_key,
};

/// The benchmark's C source.
pub const BENCH_SOURCE: &str = include_str!("../../calibrate/bench/netsim_bench.c");

// ------------------------------------------------------------ the run

/// What `netsim calibrate` was asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// The MPI compiler wrapper.
    pub mpicc: String,
    /// The MPI launcher.
    pub mpirun: String,
    /// Extra launcher options (before the program).
    pub mpirun_args: Vec<String>,
    /// Do not add the flavour's binding options.
    pub no_bind: bool,
    /// `library` column; default from the flavour.
    pub library: Option<String>,
    /// Output folder.
    pub out: PathBuf,
    /// The small grid, one pass, no waiting (CI smoke).
    pub quick: bool,
    /// Benchmarks to run.
    pub kinds: Vec<&'static str>,
    /// Time budget of the whole campaign, from its start: no chunk
    /// starts that is not expected to end by then.
    pub budget: Duration,
    /// Longest total wait for a quiet machine.
    pub max_wait: Duration,
    /// Largest share of the machine other processes may use (percent).
    pub max_busy: f64,
    /// Probe state boundaries (ns), ascending: `near < A <= far` or
    /// `near < A <= mid < B <= far`.
    pub split_ns: Vec<f64>,
    /// Placement states to cover.
    pub states: Vec<&'static str>,
    /// Longest a chunk may run before it is killed.
    pub chunk_timeout: Duration,
    /// Keep the rows of `<out>/<library>.csv` and measure only what they
    /// lack.
    pub resume: bool,
    /// Stop after this many rounds over the chunks (1: one pass, each
    /// unit in whatever state it finds).
    pub rounds: Option<u32>,
}

/// What a campaign produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The collected rows.
    pub csv: PathBuf,
    /// Rows in it.
    pub rows: usize,
    /// The library label.
    pub library: String,
    /// Rows per state.
    pub per_state: BTreeMap<String, usize>,
}

fn command_text(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// Runs `cmd` to completion in a process group of its own
/// ([`group`]), with no standard input, killing the group after
/// `timeout`; returns (status success, stdout, stderr).
fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Result<(bool, String, String), Error> {
    let text = command_text(&cmd);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut group = group::Group::spawn(&mut cmd, &text)?;
    // Drain the pipes on threads so that a chatty child never blocks.
    let mut out = group.child().stdout.take().expect("piped");
    let mut err = group.child().stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = group.try_wait()? {
            break st;
        }
        if start.elapsed() > timeout {
            group.kill();
            return Err(Error::Input(format!(
                "`{text}` ran longer than {} s and was stopped",
                timeout.as_secs()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let so = t_out.join().unwrap_or_default();
    let se = t_err.join().unwrap_or_default();
    Ok((status.success(), so, se))
}

fn tail(s: &str, lines: usize) -> String {
    let v: Vec<&str> = s.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

/// Writes the benchmark's source into `dir` and builds it with `mpicc`.
pub fn build_bench(mpicc: &str, dir: &Path) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Input(format!("{}: {e}", dir.display())))?;
    let src = dir.join("netsim_bench.c");
    write_atomic(&src, BENCH_SOURCE.as_bytes())?;
    let exe = dir.join("netsim_bench");
    let mut cmd = Command::new(mpicc);
    cmd.arg("-O2").arg("-o").arg(&exe).arg(&src);
    let (ok, _, err) = run_with_timeout(cmd, Duration::from_secs(300))?;
    if !ok {
        return Err(Error::Input(format!(
            "`{mpicc}` could not build {}:\n{}",
            src.display(),
            tail(&err, 20)
        )));
    }
    Ok(exe)
}

/// Waits until other processes use at most `max_busy` percent of the
/// machine over one second, or until `deadline`; returns the last load
/// and whether it was quiet.
fn wait_quiet(
    max_busy: f64,
    deadline: Instant,
    log: &mut dyn FnMut(&str),
) -> Result<(Load, bool), Error> {
    let mut last_note = Instant::now() - Duration::from_secs(3600);
    loop {
        let a = Snapshot::take()?;
        std::thread::sleep(Duration::from_secs(1));
        let b = Snapshot::take()?;
        let l = load_between(&a, &b);
        if l.others_pct <= max_busy {
            return Ok((l, true));
        }
        if Instant::now() >= deadline {
            return Ok((l, false));
        }
        if last_note.elapsed() > Duration::from_secs(60) {
            log(&format!(
                "machine busy: other processes use {:.1} % of the CPUs (limit {max_busy} %); waiting",
                l.others_pct
            ));
            last_note = Instant::now();
        }
        std::thread::sleep(Duration::from_secs(2));
    }
}

/// Runs the campaign and writes `<out>/<library>.csv`.
pub fn measure(o: &Options, log: &mut dyn FnMut(&str)) -> Result<Outcome, Error> {
    // The budget counts from here: everything the campaign does.
    let start = Instant::now();
    std::fs::create_dir_all(&o.out)
        .map_err(|e| Error::Input(format!("{}: {e}", o.out.display())))?;
    let (flavour, library) = launcher(o, log)?;
    let csv_path = o.out.join(format!("{library}.csv"));
    let mut tally = if o.resume && csv_path.exists() {
        resume(o, &csv_path, log)?
    } else {
        Tally::default()
    };
    let exe = build_bench(&o.mpicc, &o.out)?;
    log(&format!("built {} with {}", exe.display(), o.mpicc));
    // The chunk's own rows, as the benchmark writes them: a partial file,
    // removed at the end, on an error or by a stop.
    let chunk_rows = sim_core::outputs::Partial::new(&o.out.join("chunk.csv"));
    // The whole CSV is kept here and replaces the file after each chunk
    // ([`write_atomic`]): an interrupted run leaves the rows of its
    // finished chunks, never a row cut in half.
    let mut before = Vec::new();
    if tally.header_written {
        before = std::fs::read(&csv_path)
            .map_err(|e| Error::Input(format!("{}: {e}", csv_path.display())))?;
        if before.last().is_some_and(|&b| b != b'\n') {
            before.push(b'\n');
        }
    }
    let mut c = Campaign {
        o,
        flavour,
        library: &library,
        exe: &exe,
        tmp: chunk_rows.path(),
        csv_path: &csv_path,
        splits: o
            .split_ns
            .iter()
            .map(|x| format!("{x}"))
            .collect::<Vec<_>>()
            .join(","),
        combined: csv::Writer::from_writer(before),
        tally: &mut tally,
        measuring: Duration::ZERO,
        loaded_noted: false,
    };
    let chunks = plan(&o.kinds, o.quick);
    let wanted: Vec<&str> = if o.quick {
        vec!["all"]
    } else {
        o.states.clone()
    };
    let mut budget = Budget::new(start, o.budget, Instant::now() + o.max_wait);
    rounds::rounds(o, &mut c, &Wall, &mut budget, &chunks, &wanted, log)?;
    let measuring = c.measuring;
    c.combined.flush().map_err(Error::input)?;
    write_atomic(&csv_path, c.combined.get_ref())?;
    drop(chunk_rows);
    let lacking: Vec<String> = chunks
        .iter()
        .filter_map(|&c| {
            let m = if o.quick {
                Vec::new()
            } else {
                tally.cov.missing(c, &wanted)
            };
            (!m.is_empty()).then(|| format!("{} {}/{} ({})", c.kind, c.index, c.of, m.join(", ")))
        })
        .collect();
    if !lacking.is_empty() {
        log(&format!(
            "chunks without rows in every state: {}",
            lacking.join("; ")
        ));
    }
    let rows = tally.rows;
    log(&format!(
        "{rows} rows in {} after {:.0} s ({:.0} s measuring)",
        csv_path.display(),
        start.elapsed().as_secs_f64(),
        measuring.as_secs_f64()
    ));
    Ok(Outcome {
        csv: csv_path,
        rows,
        library,
        per_state: tally.per_state,
    })
}

/// Asks the launcher its version: the MPI flavour, and the library label
/// (`--library`, else the flavour's name), checked for the CSV.
fn launcher(o: &Options, log: &mut dyn FnMut(&str)) -> Result<(Flavour, String), Error> {
    let (ok, version, verr) = {
        let mut c = Command::new(&o.mpirun);
        c.arg("--version");
        run_with_timeout(c, Duration::from_secs(60))?
    };
    if !ok {
        return Err(Error::Input(format!(
            "`{} --version` failed; is --mpirun an MPI launcher?\n{}",
            o.mpirun,
            tail(&verr, 10)
        )));
    }
    let flavour = Flavour::of_version(&version);
    let library = o.library.clone().unwrap_or_else(|| flavour.name().into());
    if library.is_empty() || library.contains([',', '"', '\n']) {
        return Err(Error::Input(format!(
            "--library `{library}`: no commas, quotes or newlines"
        )));
    }
    log(&format!(
        "{}: {:?} ({})",
        o.mpirun,
        flavour,
        version.lines().next().unwrap_or("").trim()
    ));
    Ok((flavour, library))
}

/// What a campaign has measured: rows in all, per placement state, and
/// which units are covered in which state.
#[derive(Debug, Default)]
struct Tally {
    cov: Coverage,
    rows: usize,
    per_state: BTreeMap<String, usize>,
    /// Whether the CSV has its header line.
    header_written: bool,
}

/// `--resume`: the rows of `csv_path`, which this very benchmark must
/// have measured, as the campaign's start.
fn resume(o: &Options, csv_path: &Path, log: &mut dyn FnMut(&str)) -> Result<Tally, Error> {
    let src_path = o.out.join("netsim_bench.c");
    if std::fs::read_to_string(&src_path).ok().as_deref() != Some(BENCH_SOURCE) {
        return Err(Error::Input(format!(
            "--resume: {} is not this netsim's benchmark source; the rows of {} were \
             measured with another version (start a new --out)",
            src_path.display(),
            csv_path.display()
        )));
    }
    let mut rd = csv::Reader::from_path(csv_path)
        .map_err(|e| Error::Input(format!("{}: {e}", csv_path.display())))?;
    let header = rd.headers().map_err(Error::input)?.clone();
    let col = |n: &str| header.iter().position(|h| h == n);
    let (Some(ci), Some(si)) = (col("chunk"), col("state")) else {
        return Err(Error::Input(format!(
            "--resume: {} has no chunk or state column",
            csv_path.display()
        )));
    };
    let mut t = Tally {
        header_written: true,
        ..Tally::default()
    };
    for rec in rd.records() {
        let rec = rec.map_err(|e| Error::Input(format!("{}: {e}", csv_path.display())))?;
        let state = rec.get(si).unwrap_or("-").to_string();
        if let (Some((chunk, units)), Some(key)) = (
            rec.get(ci).and_then(parse_chunk_cell),
            unit_key(&rec, &header),
        ) {
            t.cov.add(chunk, units, &[(state.clone(), key)]);
        }
        *t.per_state.entry(state).or_default() += 1;
        t.rows += 1;
    }
    log(&format!("resuming {}: {} rows", csv_path.display(), t.rows));
    Ok(t)
}

/// A campaign under way: what every chunk's command shares, the rows so
/// far and the time spent measuring.
struct Campaign<'a> {
    o: &'a Options,
    flavour: Flavour,
    library: &'a str,
    exe: &'a Path,
    /// Where the benchmark writes a chunk's rows.
    tmp: &'a Path,
    csv_path: &'a Path,
    /// `--split-ns` as the benchmark takes it.
    splits: String,
    /// The whole CSV.
    combined: csv::Writer<Vec<u8>>,
    tally: &'a mut Tally,
    /// The time chunks ran (the benchmark's own time, for the log).
    measuring: Duration,
    /// Whether the log already said that chunks run under load.
    loaded_noted: bool,
}

impl Runner for Campaign<'_> {
    fn coverage(&self) -> &Coverage {
        &self.tally.cov
    }

    /// Measures one chunk asking for placement state `want` (after
    /// waiting for a quiet machine, unless `--quick`) and adds its rows;
    /// returns whether it added any.
    fn run(
        &mut self,
        round: u32,
        chunk: Chunk,
        want: &str,
        wait_until: Instant,
        log: &mut dyn FnMut(&str),
    ) -> Result<bool, Error> {
        let o = self.o;
        let pre = if o.quick {
            None
        } else {
            let (l, quiet) = wait_quiet(o.max_busy, wait_until, log)?;
            if !quiet && !self.loaded_noted {
                log(&format!(
                    "measuring under load: other processes use {:.1} % of the CPUs (--max-busy {} %); rows measured above it are kept in the CSV and left out of the fit",
                    l.others_pct, o.max_busy
                ));
                self.loaded_noted = true;
            }
            Some(l)
        };
        let _ = std::fs::remove_file(self.tmp);
        let cmd = self.command(chunk, want);
        let text = command_text(&cmd);
        let sampler = Sampler::start()?;
        let ran = Instant::now();
        let (ok, so, se) = run_with_timeout(cmd, o.chunk_timeout)?;
        self.measuring += ran.elapsed();
        let samples = sampler.stop()?;
        let during = load_between(&samples[0].snap, &samples[samples.len() - 1].snap);
        if !ok {
            return Err(Error::Input(format!(
                "`{text}` failed:\n{}\n{}",
                tail(&so, 10),
                tail(&se, 20)
            )));
        }
        let summary = parse_summary(&so).ok_or_else(|| {
            Error::Input(format!(
                "`{text}` printed no summary line:\n{}",
                tail(&so, 10)
            ))
        })?;
        let added = self.add_rows(chunk, &summary, &samples, during)?;
        let note = format!(
            "round {round} {} {}/{} want {want}: {} of {} units measured ({} wrong state, {} mixed), {}, cpus {}, others {:.1} % before, {:.1} % during, steal {:.1} %",
            chunk.kind,
            chunk.index,
            chunk.of,
            summary.measured,
            summary.units,
            summary.skipped_state,
            summary.skipped_mixed,
            summary.locality,
            summary.cpus,
            pre.map_or(f64::NAN, |l| l.others_pct),
            during.others_pct,
            during.steal_pct
        );
        // Rows under load are kept (with their load) but do not cover
        // their units, so the chunk runs again within the budget.
        if added.loaded > 0 {
            log(&format!(
                "{note}; {} of {} rows measured under load: kept, not fitted, to be run again",
                added.loaded, added.rows
            ));
        } else {
            log(&note);
        }
        Ok(added.rows > 0)
    }
}

/// The rows a chunk added to the CSV, and how many of them were measured
/// under load.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Added {
    rows: usize,
    loaded: usize,
}

impl Campaign<'_> {
    /// The launcher's command that runs one chunk of the benchmark.
    fn command(&self, chunk: Chunk, want: &str) -> Command {
        let o = self.o;
        let mut cmd = Command::new(&o.mpirun);
        if !o.no_bind {
            cmd.args(self.flavour.bind_args());
        }
        cmd.args(&o.mpirun_args);
        cmd.args(["-n", "2"]).arg(self.exe);
        cmd.args(["--kind", chunk.kind, "--library", self.library]);
        cmd.arg("--chunk")
            .arg(format!("{}/{}", chunk.index, chunk.of))
            .args(["--want", want, "--split-ns"])
            .arg(&self.splits)
            .arg("--out")
            .arg(self.tmp);
        if o.quick {
            cmd.arg("--quick");
        }
        if self.flavour == Flavour::OpenMpi && is_root() {
            // Open MPI refuses root unless told; only the child sees it.
            cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
        cmd
    }

    /// Appends the chunk's rows, with their chunk and load, to the CSV
    /// and rewrites it; the rows measured at or under `--max-busy` cover
    /// their units (with `--quick`, every row). A row's load is the load
    /// over its own interval ([`row_load`] of the chunk's `samples`, from
    /// its `t_start` and `t_end`); a row without them, or outside the
    /// samples, gets the chunk's load `during`.
    fn add_rows(
        &mut self,
        chunk: Chunk,
        summary: &ChunkSummary,
        samples: &[Sample],
        during: Load,
    ) -> Result<Added, Error> {
        let tmp = self.tmp;
        let mut rd = match csv::Reader::from_path(tmp) {
            Ok(r) => r,
            Err(_) if summary.measured == 0 => {
                self.tally.cov.add(chunk, summary.units, &[]);
                return Ok(Added::default());
            }
            Err(e) => return Err(Error::Input(format!("{}: {e}", tmp.display()))),
        };
        let header = rd.headers().map_err(Error::input)?.clone();
        if !self.tally.header_written {
            let mut h = header.clone();
            h.push_field("chunk");
            h.push_field("others_pct");
            h.push_field("steal_pct");
            self.combined.write_record(&h).map_err(Error::input)?;
            self.tally.header_written = true;
        }
        let col = |name: &str| header.iter().position(|h| h == name);
        let (si, t0i, t1i) = (col("state"), col("t_start"), col("t_end"));
        let mut seen = Vec::new();
        let mut added = Added::default();
        for rec in rd.records() {
            let mut rec = rec.map_err(|e| Error::Input(format!("{}: {e}", tmp.display())))?;
            let state = si.and_then(|i| rec.get(i)).unwrap_or("-").to_string();
            let time = |i: Option<usize>| i.and_then(|i| rec.get(i)?.parse::<f64>().ok());
            let load = match (time(t0i), time(t1i)) {
                (Some(t0), Some(t1)) => row_load(samples, t0, t1, load::ROW_WINDOW_MIN),
                _ => None,
            }
            .unwrap_or(during);
            if !self.o.quick && load.others_pct > self.o.max_busy {
                added.loaded += 1;
            } else if let Some(k) = unit_key(&rec, &header) {
                seen.push((state.clone(), k));
            }
            *self.tally.per_state.entry(state).or_default() += 1;
            rec.push_field(&chunk_cell(chunk, summary.units));
            rec.push_field(&format!("{:.1}", load.others_pct));
            rec.push_field(&format!("{:.1}", load.steal_pct));
            self.combined.write_record(&rec).map_err(Error::input)?;
            self.tally.rows += 1;
            added.rows += 1;
        }
        self.combined.flush().map_err(Error::input)?;
        write_atomic(self.csv_path, self.combined.get_ref())?;
        self.tally.cov.add(chunk, summary.units, &seen);
        Ok(added)
    }
}

/// The rows a fit may use: those measured while other processes used at
/// most `max_busy` percent of the CPUs (the `others_pct` column; rows
/// without it are kept).
#[derive(Clone, Debug, PartialEq)]
pub struct QuietRows {
    /// The CSV text without the loaded rows.
    pub text: String,
    /// Rows kept, by placement state.
    pub kept: BTreeMap<String, usize>,
    /// Rows left out, by placement state.
    pub dropped: BTreeMap<String, usize>,
    /// The highest load among the kept rows (percent of all CPUs).
    pub max_kept_pct: f64,
}

/// Splits a calibration CSV into the rows measured at a load of at most
/// `max_busy` percent and the others ([`QuietRows`]).
pub fn quiet_rows(text: &str, max_busy: f64) -> Result<QuietRows, Error> {
    let mut rd = csv::Reader::from_reader(text.as_bytes());
    let header = rd.headers().map_err(Error::input)?.clone();
    let col = |name: &str| header.iter().position(|h| h == name);
    let (load, state) = (col("others_pct"), col("state"));
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(&header).map_err(Error::input)?;
    let mut q = QuietRows {
        text: String::new(),
        kept: BTreeMap::new(),
        dropped: BTreeMap::new(),
        max_kept_pct: 0.0,
    };
    for (i, rec) in rd.records().enumerate() {
        let rec = rec.map_err(|e| Error::Input(format!("row {}: {e}", i + 2)))?;
        let st = state.and_then(|c| rec.get(c)).unwrap_or("-").to_string();
        let pct = load
            .and_then(|c| rec.get(c))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0);
        if pct > max_busy {
            *q.dropped.entry(st).or_default() += 1;
            continue;
        }
        q.max_kept_pct = q.max_kept_pct.max(pct);
        *q.kept.entry(st).or_default() += 1;
        out.write_record(&rec).map_err(Error::input)?;
    }
    let bytes = out.into_inner().map_err(Error::input)?;
    q.text = String::from_utf8(bytes).map_err(Error::input)?;
    Ok(q)
}

/// Writes `bytes` to `path` whole or not at all
/// ([`sim_core::outputs::write`]: a temporary name beside it, renamed
/// over it; a stop by a signal removes the temporary file).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    sim_core::outputs::write(path, bytes).map_err(Error::input)
}

/// Appends `line` to `<out>/calibrate.log`, one whole line per write
/// (an interrupted run leaves whole lines), and prints it on stderr.
pub fn logger(out: &Path) -> impl FnMut(&str) {
    let path = out.join("calibrate.log");
    move |line: &str| {
        eprintln!("calibrate: {line}");
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            let _ = f.write_all(format!("{line}\n").as_bytes());
        }
    }
}

#[cfg(test)]
mod tests;
