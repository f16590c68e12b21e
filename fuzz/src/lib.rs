//! What each fuzz target feeds its reader, shared by the `cargo fuzz`
//! targets (`fuzz_targets/`) and by the normal test suite, which replays
//! the regression corpus (`fuzz/regressions/<target>/`) through the same
//! functions (`validate/tests/fuzz_regressions.rs` includes this file).
//!
//! Every function takes arbitrary bytes, hands them to a reader's public
//! entry point (through a temporary file for readers that take a path),
//! pulls what the reader produced, and ignores the `Result`: a reader may
//! return `Ok` or `Err`, never panic, abort or hang.
//!
//! Inputs naming more than 2^16 ranks are skipped by [`too_many_ranks`]:
//! up to `sim_core::limits::MAX_RANKS` (2^22) such a trace is valid and
//! takes gigabytes and seconds to build, which the fuzzer would report as
//! out-of-memory or a timeout, not a bug. Ranks above the limit are
//! refused at file:line by every reader, which the `bad_input` CLI tests
//! check (finding 3: CSV rank 4294967295; finding 4: GOAL `num_ranks`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use mpi_layer::OpStream;

/// A target's function: bytes in, nothing out (it must not panic).
pub type Feed = fn(&[u8]);

/// The targets, by name, with the function each feeds.
pub const TARGETS: &[(&str, Feed)] = &[
    ("ti", ti),
    ("native", native),
    ("goal", goal),
    ("dumpi", dumpi),
    ("msglist", msglist),
    ("scenario", scenario),
    ("machine", machine),
    ("platform", platform),
    ("map", map),
    ("fit", fit),
];

/// Most ranks whose streams are drained, and operations pulled per rank
/// (the readers stream, so a short input cannot make more than this).
const MAX_DRAINED_RANKS: u32 = 64;
const MAX_OPS: usize = 100_000;

/// Ranks above this are left to the readers' limits (see the module doc).
const RANK_FILTER: u64 = 1 << 16;

/// Writes `data` to the temporary file `name` of this thread (a folder
/// per process and thread, reused: fuzzing runs one input at a time,
/// tests run in parallel threads) and calls `f` with its path.
fn with_file(name: &str, data: &[u8], f: impl FnOnce(&std::path::Path)) {
    static N: AtomicU64 = AtomicU64::new(0);
    thread_local! {
        static DIR: PathBuf = {
            let n = N.fetch_add(1, Ordering::Relaxed);
            let d = std::env::temp_dir()
                .join(format!("netsim-fuzz-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&d).expect("temporary folder");
            d
        };
    }
    let path = DIR.with(|d| d.join(name));
    std::fs::write(&path, data).expect("temporary file");
    f(&path);
    let _ = std::fs::remove_file(&path);
}

/// Pulls up to [`MAX_OPS`] operations from each stream.
fn drain<S: OpStream>(streams: Vec<S>) {
    for mut s in streams {
        for _ in 0..MAX_OPS {
            match s.next_op() {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
    }
}

/// True if a decimal number above [`RANK_FILTER`] starts one of the
/// whitespace- or comma-separated fields `fields` of a line, or the field
/// after `key` (`num_ranks 99999999`).
fn too_many_ranks(data: &[u8], fields: &[usize], key: Option<&str>) -> bool {
    let text = String::from_utf8_lossy(data);
    // The number a field starts with (`709551615//` is 709551615 to the
    // GOAL reader, which strips the comment).
    let big = |t: &str| {
        let t = t.trim();
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && !t[..digits].parse::<u64>().is_ok_and(|v| v <= RANK_FILTER)
    };
    text.lines().any(|l| {
        let toks: Vec<&str> = l
            .split([',', ' ', '\t'])
            .filter(|t| !t.is_empty())
            .collect();
        fields.iter().any(|&i| toks.get(i).is_some_and(|t| big(t)))
            || key.is_some_and(|k| toks.first() == Some(&k) && toks.get(1).is_some_and(|t| big(t)))
    })
}

/// SimGrid TI trace (shared file; a list file's paths name files that do
/// not exist, or existing files read as traces).
pub fn ti(data: &[u8]) {
    with_file("trace.ti", data, |p| {
        let Ok(t) = scenarios::ti::TiTrace::open(p, Default::default()) else {
            return;
        };
        if t.num_ranks() <= MAX_DRAINED_RANKS {
            if let Ok(s) = t.streams() {
                drain(s);
            }
        }
    });
}

/// netsim's native trace (shared file), and each line through `parse_op`.
pub fn native(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        for l in text.lines() {
            let _ = scenarios::native::parse_op(l, 4);
        }
    }
    with_file("trace.native", data, |p| {
        let Ok(t) = scenarios::native::NativeTrace::open(p) else {
            return;
        };
        if t.num_ranks() <= MAX_DRAINED_RANKS {
            if let Ok(s) = t.streams() {
                drain(s);
            }
        }
    });
}

/// GOAL schedule.
pub fn goal(data: &[u8]) {
    if too_many_ranks(data, &[], Some("num_ranks")) {
        return;
    }
    with_file("trace.goal", data, |p| {
        let Ok(t) = scenarios::goal::GoalSchedule::open(p, Default::default()) else {
            return;
        };
        if t.num_ranks() <= MAX_DRAINED_RANKS {
            if let Ok(s) = t.streams() {
                drain(s);
            }
            // As the MPI layer runs a graph: everything ready handed out,
            // then started and completed newest first.
            if let Ok(s) = t.streams() {
                drain_graph(s);
            }
        }
    });
}

/// Runs graph programs: hands out what is ready, then starts and
/// completes the newest operation in flight, up to [`MAX_OPS`] steps.
fn drain_graph<S: OpStream>(streams: Vec<S>) {
    for mut s in streams {
        let mut flight = Vec::new();
        for _ in 0..MAX_OPS {
            match s.next_ready() {
                Ok(mpi_layer::Ready::Op(g)) => flight.push(g.id),
                Ok(mpi_layer::Ready::Wait) => match flight.pop() {
                    Some(id) => {
                        s.started(id);
                        s.completed(id);
                    }
                    None => break,
                },
                Ok(mpi_layer::Ready::End) | Err(_) => break,
            }
        }
    }
}

/// One DUMPI rank file (`.bin`) of a 4-rank trace.
pub fn dumpi(data: &[u8]) {
    with_file("trace-0000.bin", data, |p| {
        if let Ok(s) = scenarios::dumpi::DumpiStream::open(p, 4, Default::default()) {
            drain(vec![s]);
        }
    });
}

/// CSV message list.
pub fn msglist(data: &[u8]) {
    if too_many_ranks(data, &[0, 1], None) {
        return;
    }
    with_file("list.csv", data, |p| {
        let Ok(l) = scenarios::msglist::MessageList::read(p, &Default::default()) else {
            return;
        };
        if l.num_ranks() <= MAX_DRAINED_RANKS {
            drain(l.programs());
        }
    });
}

/// Scenario file: read, checked, and its MPI parameters built.
pub fn scenario(data: &[u8]) {
    with_file("scenario.toml", data, |p| {
        if let Ok((file, sc)) = scenarios::scenario::load(p) {
            let _ = sc.mpi_params(&file);
        }
    });
}

/// Machine file.
pub fn machine(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = topology::file::parse("fuzz.machine", text);
    }
}

/// SimGrid platform XML (`topology::platform`).
pub fn platform(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = topology::platform::parse("fuzz.xml", text);
    }
}

/// The machine the map target places on (two switches, four hosts).
const MAP_MACHINE: &str = "\
switch s0
switch s1
host a cores=4
host b cores=4 sockets=2
host c
host d cores=2
link a s0 bw=1GB/s lat=1us
link b s0 bw=1GB/s lat=1us
link c s1 bw=1GB/s lat=1us
link d s1 bw=1GB/s lat=1us
link s0 s1 bw=2GB/s lat=2us
";

/// Map file on a small fixed machine; an input holding a line `%%` is a
/// machine file, then the map.
pub fn map(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (machine_text, map_text) = match text.split_once("\n%%\n") {
        Some((m, p)) => (m, p),
        None => (MAP_MACHINE, text),
    };
    let Ok(m) = topology::file::parse("fuzz.machine", machine_text) else {
        return;
    };
    let _ = topology::Placement::parse_map("fuzz.map", map_text, &m);
}

/// Calibration CSV of `netsim fit`: read, one library and state
/// selected, fitted.
pub fn fit(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(rows) = validate::fit::read_csv(text, "fuzz.csv", None) else {
        return;
    };
    let o = validate::fit::FitOptions::default();
    if let Ok(rows) = validate::fit::select(rows, &o) {
        let _ = validate::fit::fit_rows(&rows, &o);
    }
}
