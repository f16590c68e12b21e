//! One entry point for every trace format: pick (or detect) the format,
//! get one [`OpStream`](mpi_layer::OpStream) per rank.
//!
//! A directory is accepted where a trace is expected ([`open_path`],
//! [`resolve_dir`]): one holding exactly one DUMPI `.meta` file is that
//! DUMPI trace; one whose trace files are `<prefix><rank><suffix>` for
//! ranks `0..n` or `1..=n` (SimGrid's per-rank TI files, e.g.
//! `ti_trace0.txt` .. `ti_trace31.txt`, or the `<time>_rank-1.txt` ..
//! `<time>_rank-N.txt` its tracer writes; `README*`, `ORIGIN*` and `*.md`
//! files aside) is that
//! TI trace; one holding exactly one `.otf2`, `.trace`, `.goal` or `.csv` file is
//! that file. Anything else is refused with a message saying what to
//! pass.

use std::path::{Path, PathBuf};

use mpi_layer::ProgramError;

use crate::dumpi::{DumpiConfig, DumpiTrace};
use crate::goal::{GoalConfig, GoalSchedule};
use crate::msglist::{MessageList, MessageListConfig};
use crate::native::NativeTrace;
use crate::otf2::{Otf2Config, Otf2Trace};
use crate::reader::{BoxedStream, TraceReader};
use crate::text::file_error;
use crate::ti::{TiConfig, TiTrace};

/// The trace formats netsim reads, named `ti`, `dumpi`, `otf2`, `goal`,
/// `native` and `csv` in scenario files and on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// SimGrid time-independent trace (shared file, list file, or per-rank
    /// files; `crate::ti`).
    #[serde(rename = "ti")]
    #[cfg_attr(feature = "clap", value(name = "ti"))]
    SimGridTi,
    /// SST DUMPI binary trace, opened through its `.meta` file
    /// (`crate::dumpi`).
    Dumpi,
    /// OTF2 trace, opened through its `.otf2` anchor file (`crate::otf2`;
    /// needs the `otf2` feature).
    Otf2,
    /// GOAL schedule (`crate::goal`).
    Goal,
    /// netsim's native line format, one shared file (`crate::native`).
    Native,
    /// CSV message list `src,dst,bytes` (`crate::msglist`).
    #[serde(rename = "csv")]
    #[cfg_attr(feature = "clap", value(name = "csv"))]
    MessageList,
}

impl TraceFormat {
    /// The format a file's extension names: `.meta` DUMPI, `.otf2` OTF2, `.goal` GOAL
    /// (`.goalc` compiled GOAL),
    /// `.csv` message list, `.trace` native, anything else SimGrid TI.
    pub fn detect(path: &Path) -> TraceFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("meta") => TraceFormat::Dumpi,
            Some("otf2") => TraceFormat::Otf2,
            Some("goal" | "goalc") => TraceFormat::Goal,
            Some("csv") => TraceFormat::MessageList,
            Some("trace") => TraceFormat::Native,
            _ => TraceFormat::SimGridTi,
        }
    }
}

/// The parameters of every reader (each with its own defaults).
#[derive(Clone, Debug, Default)]
pub struct TraceConfig {
    /// SimGrid TI replay (host speed).
    pub ti: TiConfig,
    /// DUMPI replay (clock, computation scale).
    pub dumpi: DumpiConfig,
    /// OTF2 replay (computation scale).
    pub otf2: Otf2Config,
    /// GOAL replay (`calc` unit).
    pub goal: GoalConfig,
    /// Message-list phase (ranks, receive order, tag).
    pub msglist: MessageListConfig,
}

/// What a directory given as a trace holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DirTrace {
    /// One trace file, of this format.
    File(PathBuf, TraceFormat),
    /// SimGrid TI per-rank files, rank order.
    TiRankFiles(Vec<PathBuf>),
}

/// The trace in directory `dir` (see the module docs); `format`, if
/// given, is the only layout looked for. Errors say what the directory
/// holds and what to pass instead.
pub fn resolve_dir(dir: &Path, format: Option<TraceFormat>) -> Result<DirTrace, ProgramError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| file_error(dir, format!("cannot list the directory: {e}")))?;
    let mut files: Vec<PathBuf> = Vec::new();
    for e in entries {
        let p = e
            .map_err(|e| file_error(dir, format!("cannot list the directory: {e}")))?
            .path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let doc = name.starts_with('.')
            || name.starts_with("README")
            || name.starts_with("ORIGIN")
            || name.ends_with(".md");
        if p.is_file() && !doc {
            files.push(p);
        }
    }
    files.sort();
    let with = |ext: &str| -> Vec<PathBuf> {
        files
            .iter()
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(ext))
            .cloned()
            .collect()
    };
    let names = |v: &[PathBuf]| -> String {
        v.iter()
            .filter_map(|p| p.file_name()?.to_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let wants = |f: TraceFormat| format.is_none_or(|g| g == f);
    if wants(TraceFormat::Dumpi) {
        let metas = with("meta");
        match metas.len() {
            1 => return Ok(DirTrace::File(metas[0].clone(), TraceFormat::Dumpi)),
            0 => {}
            _ => {
                return Err(file_error(
                    dir,
                    format!(
                        "is a directory holding {} DUMPI traces ({}): pass the .meta file of one",
                        metas.len(),
                        names(&metas)
                    ),
                ));
            }
        }
    }
    if wants(TraceFormat::SimGridTi) {
        if let Some(ranks) = rank_files(&files) {
            return Ok(DirTrace::TiRankFiles(ranks));
        }
    }
    for (ext, f) in [
        ("otf2", TraceFormat::Otf2),
        ("trace", TraceFormat::Native),
        ("goal", TraceFormat::Goal),
        ("csv", TraceFormat::MessageList),
    ] {
        let v = with(ext);
        if wants(f) && v.len() == 1 {
            return Ok(DirTrace::File(v[0].clone(), f));
        }
    }
    let shown = if files.len() > 6 {
        format!("{}, ...", names(&files[..6]))
    } else {
        names(&files)
    };
    Err(file_error(
        dir,
        format!(
            "is a directory, and its {} files ({shown}) are not one trace: pass a trace file \
             (a DUMPI .meta, an OTF2 .otf2 anchor, a TI shared or list file, a .trace, .goal or .csv file), or a \
             directory holding one DUMPI .meta or only the TI per-rank files <prefix>0<suffix> \
             .. <prefix>N-1<suffix> (or 1 .. N)",
            files.len()
        ),
    ))
}

/// `files` as per-rank files, if every one is `<prefix><rank><suffix>`
/// with one prefix and suffix and ranks exactly `0..n` or `1..=n`.
///
/// The rank is the digits ending the name before its first `.`
/// (`ti_trace0.txt`), or else the last digits of the name (SimGrid's
/// tracer writes `<run time>_rank-<pid>.txt` with pids `1..=n`, e.g.
/// `1764160000.123456_rank-1.txt`: `src/instr/instr_config.cpp`,
/// `on_container_creation_ti`).
fn rank_files(files: &[PathBuf]) -> Option<Vec<PathBuf>> {
    [split_at_first_dot, split_at_last_digits]
        .into_iter()
        .find_map(|split| numbered(files, split))
}

/// `files` in rank order if `split` cuts every name into one prefix, a
/// number and one suffix, the numbers being `0..n` or `1..=n`.
fn numbered(
    files: &[PathBuf],
    split: fn(&str) -> Option<(&str, &str, &str)>,
) -> Option<Vec<PathBuf>> {
    let mut key: Option<(String, String)> = None;
    let mut ranked: Vec<(usize, PathBuf)> = Vec::new();
    for p in files {
        let (prefix, num, suffix) = split(p.file_name()?.to_str()?)?;
        let k = (prefix.to_string(), suffix.to_string());
        if key.get_or_insert_with(|| k.clone()) != &k {
            return None;
        }
        ranked.push((num.parse().ok()?, p.clone()));
    }
    ranked.sort();
    let base = ranked.first()?.0;
    let contiguous = base <= 1 && ranked.iter().enumerate().all(|(i, (r, _))| *r == base + i);
    contiguous.then(|| ranked.into_iter().map(|(_, p)| p).collect())
}

/// `ti_trace12.txt` as (`ti_trace`, `12`, `.txt`): the digits ending the
/// name before its first `.`.
fn split_at_first_dot(name: &str) -> Option<(&str, &str, &str)> {
    let (stem, suffix) = name.split_at(name.find('.').unwrap_or(name.len()));
    let digits = stem.len() - stem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    (digits > 0).then(|| {
        let (prefix, num) = stem.split_at(stem.len() - digits);
        (prefix, num, suffix)
    })
}

/// `1764.5_rank-12.txt` as (`1764.5_rank-`, `12`, `.txt`): the last
/// digits of the name.
fn split_at_last_digits(name: &str) -> Option<(&str, &str, &str)> {
    let end = name.rfind(|c: char| c.is_ascii_digit())? + 1;
    let head = &name[..end];
    let start = head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    Some((&name[..start], &name[start..end], &name[end..]))
}

/// Opens the trace at `path`: a file (of `format`, or the format its name
/// says), or a directory holding one trace (see the module docs).
pub fn open_path(
    path: &Path,
    format: Option<TraceFormat>,
    config: &TraceConfig,
) -> Result<Vec<BoxedStream>, ProgramError> {
    if !path.is_dir() {
        let f = format.unwrap_or_else(|| TraceFormat::detect(path));
        return open_streams(path, f, config);
    }
    match resolve_dir(path, format)? {
        DirTrace::File(p, f) => open_streams(&p, f, config),
        DirTrace::TiRankFiles(fs) => {
            TiTrace::from_rank_files(fs, config.ti.clone())?.boxed_streams()
        }
    }
}

/// Opens `path` as `format` and returns one stream per rank, rank order.
/// Opening checks what can be checked up front (files exist, headers,
/// rank counts); the rest is checked as each stream is read. A directory
/// is looked into for a trace of `format` ([`open_path`]).
pub fn open_streams(
    path: &Path,
    format: TraceFormat,
    config: &TraceConfig,
) -> Result<Vec<BoxedStream>, ProgramError> {
    if path.is_dir() {
        return open_path(path, Some(format), config);
    }
    match format {
        TraceFormat::SimGridTi => TiTrace::open(path, config.ti.clone())?.boxed_streams(),
        TraceFormat::Dumpi => DumpiTrace::open(path, config.dumpi.clone())?.boxed_streams(),
        TraceFormat::Otf2 => Otf2Trace::open(path, config.otf2.clone())?.boxed_streams(),
        TraceFormat::Goal => GoalSchedule::open(path, config.goal.clone())?.boxed_streams(),
        TraceFormat::Native => NativeTrace::open(path)?.boxed_streams(),
        TraceFormat::MessageList => MessageList::read(path, &config.msglist)?.boxed_streams(),
    }
}
