//! The campaign's plan: the benchmark kinds and their chunks, what the
//! benchmark says about a chunk it ran, which units are covered in which
//! placement state, and the MPI library family behind an `mpirun`.

use std::collections::{BTreeMap, BTreeSet};

/// The benchmark kinds, in the order a campaign runs them.
pub const KINDS: [&str; 5] = [
    "pingpong",
    "hvpp-paper",
    "hvpp-posted",
    "hvpp-unexpected",
    "msgrate",
];

/// The MPI library family behind an `mpirun`, for its binding options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    /// MPICH (Hydra).
    Mpich,
    /// Open MPI (ORTE / PRRTE).
    OpenMpi,
    /// Anything else: no binding options are added.
    Unknown,
}

impl Flavour {
    /// From the output of `mpirun --version`.
    pub fn of_version(text: &str) -> Flavour {
        if text.contains("HYDRA") || text.contains("MPICH") {
            Flavour::Mpich
        } else if text.contains("Open MPI") || text.contains("OpenRTE") || text.contains("PRRTE") {
            Flavour::OpenMpi
        } else {
            Flavour::Unknown
        }
    }

    /// Options binding each rank to a core.
    pub fn bind_args(self) -> &'static [&'static str] {
        match self {
            Flavour::Mpich => &["-bind-to", "core"],
            Flavour::OpenMpi => &["--bind-to", "core"],
            Flavour::Unknown => &[],
        }
    }

    /// The default `library` label.
    pub fn name(self) -> &'static str {
        match self {
            Flavour::Mpich => "mpich",
            Flavour::OpenMpi => "openmpi",
            Flavour::Unknown => "mpi",
        }
    }
}

// ------------------------------------------------------------ the plan

/// One slice of one benchmark's grid: `--kind kind --chunk index/of`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Chunk {
    /// Benchmark kind.
    pub kind: &'static str,
    /// Slice number, from 0.
    pub index: u32,
    /// Slices of the kind's grid.
    pub of: u32,
}

/// The chunks of a campaign over `kinds`: one per kind in `quick` mode,
/// else slices of a few seconds each (the placement state changes every
/// few seconds to minutes).
pub fn plan(kinds: &[&'static str], quick: bool) -> Vec<Chunk> {
    let mut v = Vec::new();
    for &kind in kinds {
        // Slices of a few to a few tens of units: hvpp slices are small
        // because one unit of 8192 reversed 16 KiB messages can take
        // seconds per exchange.
        let of = match (quick, kind) {
            (true, _) => 1,
            (false, "msgrate") => 4,
            (false, "pingpong") => 12,
            (false, _) => 27,
        };
        v.extend((0..of).map(|index| Chunk { kind, index, of }));
    }
    v
}

/// What the benchmark's summary line says about a chunk it ran.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkSummary {
    /// Units in the slice.
    pub units: u32,
    /// Units measured (rows written).
    pub measured: u32,
    /// Units skipped because the probe saw an unwanted state.
    pub skipped_state: u32,
    /// Units whose before and after probes kept disagreeing.
    pub skipped_mixed: u32,
    /// The ranks' locality.
    pub locality: String,
    /// The CPUs of rank 0 and rank 1.
    pub cpus: String,
}

/// Parses the benchmark's `netsim_bench: kind=... units=...` line.
pub fn parse_summary(stdout: &str) -> Option<ChunkSummary> {
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("netsim_bench: kind="))?;
    let mut s = ChunkSummary::default();
    for kv in line.split_whitespace().skip(1) {
        let (k, v) = kv.split_once('=')?;
        match k {
            "units" => s.units = v.parse().ok()?,
            "measured" => s.measured = v.parse().ok()?,
            "skipped_state" => s.skipped_state = v.parse().ok()?,
            "skipped_mixed" => s.skipped_mixed = v.parse().ok()?,
            "locality" => s.locality = v.into(),
            "cpus" => s.cpus = v.into(),
            _ => {}
        }
    }
    Some(s)
}

/// Which units of each chunk have rows in which state.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    units: BTreeMap<Chunk, u32>,
    have: BTreeMap<(Chunk, String), BTreeSet<String>>,
}

impl Coverage {
    /// Records a run of `chunk` with `units` units and its rows' (state,
    /// unit key) pairs.
    pub fn add(&mut self, chunk: Chunk, units: u32, rows: &[(String, String)]) {
        self.units.insert(chunk, units);
        for (state, key) in rows {
            self.have
                .entry((chunk, state.clone()))
                .or_default()
                .insert(key.clone());
        }
    }

    /// Whether `chunk` has run (with or without rows).
    pub fn has_run(&self, chunk: Chunk) -> bool {
        self.units.contains_key(&chunk)
    }

    /// Whether every unit of `chunk` has a row in `state`.
    pub fn covered(&self, chunk: Chunk, state: &str) -> bool {
        let Some(&n) = self.units.get(&chunk) else {
            return false;
        };
        self.have
            .get(&(chunk, state.to_string()))
            .is_some_and(|s| s.len() as u32 >= n)
    }

    /// The states of `wanted` that `chunk` still lacks; `any` is covered
    /// by every unit in one state, whichever. A chunk measured without a
    /// probe (`-`) lacks nothing once covered in `-`.
    pub fn missing<'a>(&self, chunk: Chunk, wanted: &[&'a str]) -> Vec<&'a str> {
        if self.covered(chunk, "-") {
            return Vec::new();
        }
        let any = || {
            self.have
                .range((chunk, String::new())..)
                .take_while(|((c, _), _)| *c == chunk)
                .any(|((_, st), _)| self.covered(chunk, st))
        };
        wanted
            .iter()
            .copied()
            .filter(|&s| {
                if s == "any" {
                    !any()
                } else {
                    !self.covered(chunk, s)
                }
            })
            .collect()
    }
}

/// The `chunk` cell of a row: `kind:index/of:units`.
pub fn chunk_cell(c: Chunk, units: u32) -> String {
    format!("{}:{}/{}:{units}", c.kind, c.index, c.of)
}

/// Reads a `chunk` cell.
pub fn parse_chunk_cell(s: &str) -> Option<(Chunk, u32)> {
    let mut it = s.split(':');
    let name = it.next()?;
    let kind = *KINDS.iter().find(|&&k| k == name)?;
    let (index, of) = it.next()?.split_once('/')?;
    let units = it.next()?.parse().ok()?;
    let c = Chunk {
        kind,
        index: index.parse().ok()?,
        of: of.parse().ok()?,
    };
    (it.next().is_none() && c.index < c.of).then_some((c, units))
}

/// A row's unit: the columns that name what was measured.
pub fn unit_key(rec: &csv::StringRecord, header: &csv::StringRecord) -> Option<String> {
    let get = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .and_then(|i| rec.get(i))
    };
    Some(format!(
        "{}|{}|{}|{}|{}",
        get("kind")?,
        get("size")?,
        get("n")?,
        get("order")?,
        get("window")?
    ))
}
