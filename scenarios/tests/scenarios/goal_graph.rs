//! GOAL schedules run as graphs, as LogGOPSim runs them: Schedgen's
//! patterns with hand-computed LogGP times, `cpu` as independent servers,
//! the spellings LogGOPSim's converter accepts, and the streaming window.
//!
//! Every run uses LogGOPSim's default parameters on a contention-free
//! machine (as `examples/loggp-goal.toml`): L = 2500 ns, o = 1500 ns,
//! g = 1000 ns, G = 6 ns/B, O = 0, S = 65535 B (all eager). An 8 B
//! message: the sender's CPU o = 1500 (its NIC g + 7 G = 1042 < o), it
//! arrives o + L = 4000 after the send starts, the receiver's CPU takes
//! o + 7 G = 1542 for it. A 1 B message: o = 1500 on both sides.

use std::path::PathBuf;

use mpi_layer::OpStream;
use scenarios::goal::{GoalConfig, GoalSchedule};
use scenarios::scenario;
use sim_core::time::Time;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netsim-goal-graph-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `goal` with LogGOPSim's defaults; each rank's finish time in ns.
fn run(name: &str, goal: &str) -> Vec<u64> {
    let d = dir(name);
    std::fs::write(d.join("s.goal"), goal).unwrap();
    let toml = r#"
[machine]
preset = "ideal"
latency = "0 ns"
bandwidth = "unlimited"

[mpi.loggp]
L = "2500 ns"
o = "1500 ns"
g = "1000 ns"
G = "6 ns/B"
O = "0 ns/B"
S = 65535

[workload]
kind = "trace"
path = "s.goal"
format = "goal"
"#;
    let p = d.join("s.toml");
    std::fs::write(&p, toml).unwrap();
    let (file, sc) = scenario::load(&p).unwrap_or_else(|e| panic!("{e}"));
    let out = sc
        .run(&file, u64::MAX, |_, _| {})
        .unwrap_or_else(|e| panic!("{e}"));
    out.results
        .finish
        .iter()
        .map(|t| t.as_ps() / 1000)
        .collect()
}

/// Schedgen's `doublering` for P = 4, 8 B (`schedgen -p doublering -s 4
/// -d 8`): two rings in opposite directions, 0 -> 1 -> 2 -> 3 -> 0 (A)
/// and 0 -> 3 -> 2 -> 1 -> 0 (B); a rank forwards each ring's message
/// when that ring's receive is done. LogGOPSim prints 25252, 21168,
/// 15626, 19668 (same parameters).
const DOUBLERING_4: &str = "num_ranks 4

rank 0 {
l1: send 8b to 1 tag 0
l2: recv 8b from 3 tag 0
l3: send 8b to 3 tag 0
l4: recv 8b from 1 tag 0
}

rank 1 {
l1: send 8b to 2 tag 0
l2: recv 8b from 0 tag 0
l1 requires l2
l3: send 8b to 0 tag 0
l4: recv 8b from 2 tag 0
l3 requires l4
}

rank 2 {
l1: send 8b to 3 tag 0
l2: recv 8b from 1 tag 0
l1 requires l2
l3: send 8b to 1 tag 0
l4: recv 8b from 3 tag 0
l3 requires l4
}

rank 3 {
l1: send 8b to 0 tag 0
l2: recv 8b from 2 tag 0
l1 requires l2
l3: send 8b to 2 tag 0
l4: recv 8b from 0 tag 0
l3 requires l4
}
";

/// The two rings do not wait for each other. By hand (ns):
/// - rank 0 sends A [0, 1500] and B [1500, 3000]: A lands at rank 1 at
///   4000, B at rank 3 at 5500.
/// - rank 1 takes A [4000, 5542], forwards it [5542, 7042]: at rank 2 at
///   9542. Rank 3 takes B [5500, 7042], forwards it [7042, 8542]: at rank
///   2 at 11042.
/// - rank 2 takes A [9542, 11084]; B, there since 11042, goes next
///   [11084, 12626] (it was ready before A's forward); A's forward
///   [12626, 14126] lands at rank 3 at 16626, B's [14126, 15626] at rank
///   1 at 18126. Rank 2 ends at 15626.
/// - rank 3 takes A [16626, 18168], forwards [18168, 19668]: at rank 0 at
///   22168; rank 3 ends at 19668. Rank 1 takes B [18126, 19668],
///   forwards [19668, 21168]: at rank 0 at 23168; rank 1 ends at 21168.
/// - rank 0 takes A [22168, 23710] and B [23710, 25252]: 25252.
///
/// Read as a sequence (main before the graph reader: rank 2 waited for A's
/// receive before posting B's forward) the makespan was 34752 (+37.6 %).
#[test]
fn doublering_matches_loggopsim() {
    assert_eq!(
        run("doublering", DOUBLERING_4),
        vec![25252, 21168, 15626, 19668]
    );
}

/// Schedgen's `pipelinedring` for P = 3, 2 B in 1 B segments (`-s 3 -d
/// 2`): rank 0 sends both segments, rank 1 forwards each when it arrived,
/// rank 2 receives both. LogGOPSim prints 3000, 10000, 14000. By hand
/// (1 B: o = 1500 each side, no G): rank 0 sends [0, 1500], [1500, 3000]
/// (o > g = 1000): they land at 4000 and 5500. Rank 1 takes segment 1
/// [4000, 5500]; at 5500 segment 2 has landed and its forward became
/// ready at the same instant: the arrival (the older event, as in
/// LogGOPSim) goes first [5500, 7000], then the forwards [7000, 8500] and
/// [8500, 10000], landing at 11000 and 12500; rank 2 takes them [11000,
/// 12500] and [12500, 14000].
#[test]
fn pipelined_ring_matches_loggopsim() {
    let goal = "num_ranks 3

rank 0 {
l1: send 1b to 1 tag 0
l2: send 1b to 1 tag 0
}

rank 1 {
l1: recv 1b from 0 tag 0
l2: send 1b to 2 tag 0
l2 requires l1
l3: recv 1b from 0 tag 0
l4: send 1b to 2 tag 0
l4 requires l3
}

rank 2 {
l1: recv 1b from 1 tag 0
l2: recv 1b from 1 tag 0
}
";
    assert_eq!(run("pipelinedring", goal), vec![3000, 10000, 14000]);
}

/// Schedgen's `gather` for P = 4, 8 B: ranks 1-3 send at once (done at
/// o = 1500); the three land at rank 0 at 4000 and its CPU takes them one
/// after the other, 1542 each: 4000 + 3 x 1542 = 8626 (LogGOPSim: 8626,
/// 1500, 1500, 1500).
#[test]
fn gather_matches_loggopsim() {
    let goal = "num_ranks 4

rank 0 {
l1: recv 8b from 1 tag 0
l2: recv 8b from 2 tag 0
l3: recv 8b from 3 tag 0
}

rank 1 {
l1: send 8b to 0 tag 0
}

rank 2 {
l1: send 8b to 0 tag 0
}

rank 3 {
l1: send 8b to 0 tag 0
}
";
    assert_eq!(run("gather", goal), vec![8626, 1500, 1500, 1500]);
}

/// `cpu` names independent servers: two `calc 1000` (1 ns units) on two
/// CPUs take 1 us, on one CPU 2 us; a chain on one CPU does not wait for
/// a computation on another.
#[test]
fn cpus_are_independent_servers() {
    let two = "num_ranks 1\nrank 0 {\na: calc 1000 cpu 0\nb: calc 1000 cpu 1\n}\n";
    assert_eq!(run("cpu2", two), vec![1000]);
    let one = "num_ranks 1\nrank 0 {\na: calc 1000 cpu 1\nb: calc 1000 cpu 1\n}\n";
    assert_eq!(run("cpu1", one), vec![2000]);
    // c waits for a (requires: after it completes), d for b's start only
    // (irequires): d runs [0, 500] on CPU 2 beside b [0, 3000] on CPU 1;
    // a [0, 1000] then c [1000, 1200] on CPU 0: the rank ends with b.
    let mixed = "num_ranks 1\nrank 0 {\na: calc 1000\nb: calc 3000 cpu 1\nc: calc 200\nd: calc 500 cpu 2\nc requires a\nd irequires b\n}\n";
    assert_eq!(run("mixed", mixed), vec![3000]);
    // d irequires b with b on d's CPU: b starts at 0, d runs after it.
    let same = "num_ranks 1\nrank 0 {\nb: calc 3000 cpu 1\nd: calc 500 cpu 1\nd irequires b\n}\n";
    assert_eq!(run("same", same), vec![3500]);
}

/// One test per spelling LogGOPSim's converter (`txt2bin`) accepts and
/// netsim refused before: each runs the one-message ping of 8 B
/// (o + L + o + 7 G = 5542 ns at rank 1).
#[test]
fn spellings_of_txt2bin() {
    let ping = |rank0: &str, rank1: &str| {
        format!("num_ranks 2\nrank 0 {{\n{rank0}\n}}\nrank 1 {{\n{rank1}\n}}\n")
    };
    let recv = "r: recv 8b from 0 tag 0";
    // A blank before `b`.
    assert_eq!(
        run("blank-b", &ping("s: send 8 b to 1 tag 0", recv)),
        vec![1500, 5542]
    );
    // No blank after the label's colon.
    assert_eq!(
        run("colon", &ping("s:send 8b to 1 tag 0", recv)),
        vec![1500, 5542]
    );
    // `rank 0{`.
    let t = "num_ranks 2\nrank 0{\ns: send 8b to 1\n}\nrank 1{\nr: recv 8b from 0\n}\n";
    assert_eq!(run("brace", t), vec![1500, 5542]);
    // The largest tag that is not the wildcard, 2^32 - 2.
    let t = ping(
        "s: send 8b to 1 tag 4294967294",
        "r: recv 8b from 0 tag 4294967294",
    );
    assert_eq!(run("tag", &t), vec![1500, 5542]);
    // Tag 2^32 - 1 on a receive is the wildcard (-1): it takes tag 7.
    let t = ping("s: send 8b to 1 tag 7", "r: recv 8b from 0 tag 4294967295");
    assert_eq!(run("tag-any", &t), vec![1500, 5542]);
    // A label defined twice is an error naming its second line (txt2bin
    // silently keeps the first).
    let d = dir("twice");
    let p = d.join("s.goal");
    let t = ping(
        "s: send 8b to 1 tag 0",
        "a: recv 8b from 0 tag 0\na: calc 100000 cpu 1\nx: calc 1\nx requires a",
    );
    std::fs::write(&p, t).unwrap();
    let e = GoalSchedule::open(&p, GoalConfig::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("s.goal:") && e.ends_with("label `a` is defined twice in this rank's block"),
        "{e}"
    );
}

/// Out-of-range ranks are errors naming file:line, at open.
#[test]
fn out_of_range_ranks_name_the_line() {
    let d = dir("range");
    for (text, want) in [
        (
            "num_ranks 2\nrank 0 {\ns: send 8b to 2\n}\n",
            "s.goal:3: rank 2 does not exist (num_ranks 2)",
        ),
        (
            "num_ranks 2\nrank 0 {\nr: recv 8b from 7\n}\n",
            "s.goal:3: rank 7 does not exist (num_ranks 2)",
        ),
        (
            "num_ranks 2\nrank 2{\n}\n",
            "s.goal:2: rank 2 does not exist (num_ranks 2)",
        ),
        (
            "num_ranks 2\nrank 0 {\ns: send 8b to 99999999999\n}\n",
            "s.goal:3: rank 99999999999 does not exist",
        ),
    ] {
        let p = d.join("s.goal");
        std::fs::write(&p, text).unwrap();
        let e = GoalSchedule::open(&p, GoalConfig::default())
            .unwrap_err()
            .to_string();
        assert!(e.ends_with(want), "got `{e}`, want `{want}`");
    }
}

/// Streaming: a rank's window holds the operations read and not completed,
/// not its block. A chain of 20 000 operations in one block (each requires
/// the one before, on the next line: look-ahead 2 items) never has more
/// than 5 operations read at once (a read takes at least 8 items: 4
/// operations and their dependency lines, plus the one in flight); a block of independent operations is
/// read whole at the start (they are all ready at once, as in LogGOPSim).
#[test]
fn window_is_bounded_by_the_lookahead() {
    let d = dir("window");
    let mut t = String::from("num_ranks 1\nrank 0 {\nc0: calc 1\n");
    for i in 1..20_000 {
        t += &format!("c{i}: calc 1\nc{i} requires c{}\n", i - 1);
    }
    t += "}\n";
    let p = d.join("chain.goal");
    std::fs::write(&p, &t).unwrap();
    let g = GoalSchedule::open(&p, GoalConfig::default()).unwrap();
    let mut s = g.rank_stream(0).unwrap();
    let (mut n, mut most) = (0, 0);
    while s.next_op().unwrap().is_some() {
        n += 1;
        most = most.max(s.live_operations());
    }
    assert_eq!(n, 20_000);
    assert!(most <= 5, "window {most}");
    // The same as a run: 20 000 ns on one CPU.
    let mut t2 = String::from("num_ranks 1\nrank 0 {\n");
    for i in 0..1000 {
        t2 += &format!("c{i}: calc 1\n");
    }
    t2 += "}\n";
    std::fs::write(&p, &t2).unwrap();
    let g = GoalSchedule::open(&p, GoalConfig::default()).unwrap();
    let mut s = g.rank_stream(0).unwrap();
    assert!(matches!(s.next_ready().unwrap(), mpi_layer::Ready::Op(_)));
    assert_eq!(s.live_operations(), 1000);
    assert_eq!(
        run("chain", &t).last().map(|&ns| Time::from_ns(ns)),
        Some(Time::from_ns(20_000))
    );
}

/// A tag of 2^31 or more (txt2bin's tags are u32): it matches, and the
/// message record and the timeline show it as the file wrote it, not as
/// the negative `i32` of the same bits (3 000 000 000 - 2^32 =
/// -1 294 967 296) the MPI layer carries. Found by the extension, in a
/// directory too; a message list's tags stay signed.
#[test]
fn a_tag_above_2_31_shows_as_written() {
    use scenarios::timeline::{MessageLog, Tap, Timeline};
    let d = dir("big-tag");
    std::fs::write(
        d.join("s.goal"),
        "num_ranks 2\nrank 0 {\ns: send 8b to 1 tag 3000000000\n}\nrank 1 {\nr: recv 8b from 0 tag 3000000000\n}\n",
    )
    .unwrap();
    let scenario_at = |name: &str, workload: &str| {
        let p = d.join(name);
        std::fs::write(
            &p,
            format!("[machine]\npreset = \"ideal\"\n\n[workload]\n{workload}"),
        )
        .unwrap();
        scenario::load(&p).unwrap_or_else(|e| panic!("{e}"))
    };
    let (file, sc) = scenario_at("s.toml", "kind = \"trace\"\npath = \"s.goal\"\n");
    assert!(sc.goal_tags());
    let tap = Tap {
        timeline: Some(Timeline::new(Vec::new()).unsigned_tags(sc.goal_tags())),
        messages: Some(MessageLog::new(Vec::new()).unsigned_tags(sc.goal_tags())),
        links: None,
    };
    let (r, tap) = sc.run_observed(&file, u64::MAX, |_, _| {}, tap);
    let out = r.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.results.finish.len(), 2);
    let tap = tap.expect("the run started");
    let csv = String::from_utf8(tap.messages.unwrap().finish().unwrap()).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 2, "{csv}");
    assert_eq!(rows[1].split(',').nth(3), Some("3000000000"), "{csv}");
    let tl = String::from_utf8(tap.timeline.unwrap().finish().unwrap()).unwrap();
    assert!(tl.contains("\"tag\":3000000000"), "{tl}");
    assert!(!tl.contains("-1294967296"), "{tl}");
    // Without the switch the same bits read as MPI's int.
    let (file, sc) = scenario_at("s.toml", "kind = \"trace\"\npath = \"s.goal\"\n");
    let log = MessageLog::new(Vec::new()).unsigned_tags(false);
    let (_, log) = sc.run_observed(&file, u64::MAX, |_, _| {}, log);
    let csv = String::from_utf8(log.unwrap().finish().unwrap()).unwrap();
    assert_eq!(
        csv.lines().nth(1).and_then(|r| r.split(',').nth(3)),
        Some("-1294967296")
    );
    // The directory holding the schedule is a GOAL run too; a message
    // list is not.
    assert!(
        scenario_at("dir.toml", "kind = \"trace\"\npath = \".\"\n")
            .1
            .goal_tags()
    );
    std::fs::write(d.join("l.csv"), "0,1,8\n").unwrap();
    assert!(
        !scenario_at("l.toml", "kind = \"trace\"\npath = \"l.csv\"\n")
            .1
            .goal_tags()
    );
}
