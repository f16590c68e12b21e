//! What each fuzz target feeds its reader, shared by the `cargo fuzz`
//! targets (`fuzz_targets/`) and by the normal test suite, which replays
//! the regression corpus (`fuzz/regressions/<target>/`) through the same
//! functions (`validate/tests/validate/fuzz_regressions.rs` includes this file).
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
use scenarios::TraceReader;

/// A target's function: bytes in, nothing out (it must not panic).
pub type Feed = fn(&[u8]);

/// The targets, by name, with the function each feeds.
pub const TARGETS: &[(&str, Feed)] = &[
    ("ti", ti),
    ("native", native),
    ("goal", goal),
    ("goal_compiled", goal_compiled),
    ("dumpi", dumpi),
    ("otf2", otf2),
    ("msglist", msglist),
    ("scenario", scenario),
    ("machine", machine),
    ("platform", platform),
    ("profile", profile),
    ("map", map),
    ("lft", lft),
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
    with_file("trace.goal", data, run_goal);
}

/// A compiled GOAL schedule (`netsim compile`): the bytes after the
/// magic and version, which the harness writes (the fuzzer would seldom
/// find them itself).
pub fn goal_compiled(data: &[u8]) {
    use scenarios::goal::{COMPILED_MAGIC, COMPILED_VERSION};
    let mut file = COMPILED_MAGIC.to_vec();
    file.extend(COMPILED_VERSION.to_le_bytes());
    file.extend(data);
    with_file("trace.goalc", &file, run_goal);
}

/// Opens a GOAL schedule (text or compiled) and drains its streams in
/// order, then as the MPI layer runs a graph: everything ready handed
/// out, then started and completed newest first.
fn run_goal(p: &std::path::Path) {
    let Ok(t) = scenarios::goal::GoalSchedule::open(p, Default::default()) else {
        return;
    };
    if t.num_ranks() <= MAX_DRAINED_RANKS {
        if let Ok(s) = t.streams() {
            drain(s);
        }
        if let Ok(s) = t.streams() {
            drain_graph(s);
        }
    }
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

/// OTF2: what netsim parses itself, from bytes: the global definitions
/// (ranks, regions, groups, communicators) and one rank's events, through
/// `Layout::new` and the rank's `RankStream` (the event-to-operation
/// translation shared with DUMPI). The OTF2 library's own decoding of the
/// files is not fuzzed here (it is C, fuzzed by its maintainers if at
/// all; netsim only binds it), see docs/FUZZING.md.
pub fn otf2(data: &[u8]) {
    use scenarios::otf2::defs::{CommDef, GroupDef, RegionDef};
    use scenarios::otf2::{Definitions, Event, Layout, Otf2Config, RankStream};
    let mut b = data.iter().copied();
    let mut byte = || b.next().unwrap_or(0);
    let n = u64::from(byte() % 8) + 1;
    let mut d = Definitions {
        resolution: u64::from(byte()),
        ..Default::default()
    };
    for (i, name) in ["MPI_Send", "MPI_Testall", "MPI_Waitall", "compute"]
        .iter()
        .enumerate()
    {
        d.strings.insert(i as u32, name.to_string());
        let paradigm = if byte() % 4 == 0 { 0 } else { 4 };
        d.regions.insert(
            i as u32,
            RegionDef {
                name: i as u32,
                paradigm,
            },
        );
    }
    d.locations = (0..n + u64::from(byte() % 2)).map(|l| (l, 0)).collect();
    let mut locations: Vec<u64> = (0..n).collect();
    if byte() % 8 == 0 {
        locations.reverse();
    }
    d.groups.insert(
        0,
        GroupDef {
            kind: 4,
            paradigm: 4,
            members: locations,
        },
    );
    let groups = byte() % 4;
    for g in 1..=u32::from(groups) {
        let kind = 4 + byte() % 3;
        let members = (0..byte() % 6).map(|_| u64::from(byte() % 10)).collect();
        d.groups.insert(
            g,
            GroupDef {
                kind,
                paradigm: 4,
                members,
            },
        );
    }
    d.groups.insert(
        9,
        GroupDef {
            kind: 5,
            paradigm: 4,
            members: (0..n).collect(),
        },
    );
    d.comms.push(CommDef {
        id: 0,
        group: 9,
        parent: u32::MAX,
    });
    for c in 1..=u32::from(byte() % 4) {
        let group = u32::from(byte() % (groups + 2));
        d.comms.push(CommDef {
            id: c,
            group,
            parent: 0,
        });
    }
    let Ok(layout) = Layout::new(&d) else {
        return;
    };
    let rank = u32::from(byte()) % layout.num_ranks();
    let mut events = Vec::new();
    let mut time = 0u64;
    let mut pos = 0u64;
    while let Some(k) = b.next() {
        let mut f = || b.next().unwrap_or(0);
        let (peer, comm, tag) = (u32::from(f() % 10), u32::from(f() % 5), u32::from(f()));
        let (len, req) = (u64::from(f()) << (f() % 48), u64::from(f() % 8));
        time += u64::from(f());
        let e = match k % 14 {
            0 | 1 => Event::Enter {
                time,
                region: u32::from(f() % 5),
            },
            2 | 3 => Event::Leave {
                time,
                region: u32::from(f() % 5),
            },
            4 => Event::Send {
                peer,
                comm,
                tag,
                len,
            },
            5 => Event::Recv {
                peer,
                comm,
                tag,
                len,
            },
            6 => Event::Isend {
                peer,
                comm,
                tag,
                len,
                req,
            },
            7 => Event::Irecv {
                peer,
                comm,
                tag,
                len,
                req,
            },
            8 => Event::IrecvRequest { req },
            9 => Event::IsendComplete { req },
            10 => Event::RequestTest { req },
            11 => Event::RequestCancelled { req },
            12 => Event::CollectiveBegin,
            _ => Event::CollectiveEnd {
                op: f() % 24,
                comm,
                root: if f() % 8 == 0 { u32::MAX } else { peer },
                sent: len,
                received: u64::from(f()) << (f() % 48),
            },
        };
        pos += 1;
        events.push((pos, e));
    }
    let config = Otf2Config {
        compute_scale: f64::from(data.len() as u32 % 3),
        ..Default::default()
    };
    let s = RankStream::new(
        events.into_iter(),
        std::sync::Arc::new(layout),
        rank,
        config,
        "fuzz.evt".into(),
    );
    drain(vec![s]);
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

/// A SimGrid profile (`topology::platform::Profile::parse`): the first
/// two bytes choose a `<trace periodicity>`, the rest is the text; what
/// it reads is asked for its first off instant and the end of some work
/// at a few starts (the integration must end, or say it never does),
/// and for its value at a few instants on whole picoseconds.
pub fn profile(data: &[u8]) {
    let Some((&[a, b], rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let periodicity = f64::from(a) - 8.0;
    if let Ok(p) = topology::platform::Profile::parse("fuzz.profile", 1, text, periodicity) {
        let _ = p.first(|v| v <= 0.0);
        let _ = p.keeps_computing();
        for start_s in [0u64, 1, 1000] {
            let start = sim_core::Time::from_ps(start_s * 1_000_000_000_000);
            let work = sim_core::Time::from_ps(u64::from(b) * 100_000_000_000);
            let _ = p.end_of_work(start, work);
        }
        // On whole picoseconds, as a link profile is followed.
        if let Some(steps) = topology::cm02::Steps::new(&p) {
            for t in [0u64, 1, 1_000_000_000_000, u64::from(b) << 40, u64::MAX] {
                let _ = steps.at(t, 1.0);
            }
        }
    }
}

/// InfiniBand forwarding tables (`topology::lft::parse`) on a 2-ary
/// 2-tree (hosts LIDs 1-4, switches 5-8).
pub fn lft(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let m = topology::FatTreeParams {
            arity: 2,
            levels: 2,
            ..Default::default()
        }
        .build()
        .expect("a valid tree");
        let _ = topology::lft::parse(m, "fuzz.lft", text);
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
