//! Tests of `netsim calibrate`'s planning, coverage and CSV handling.

use super::*;
use rounds::Clock;

#[test]
fn proc_stat_and_tree_ticks() {
    let s = "cpu  155921 3 13294 104522 552 7 111 638 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
    let m = parse_proc_stat(s).unwrap();
    assert_eq!(m.busy, 155921 + 3 + 13294 + 7 + 111);
    assert_eq!(m.steal, 638);
    assert_eq!(m.total, 155921 + 3 + 13294 + 104522 + 552 + 7 + 111 + 638);
    assert_eq!(parse_proc_stat("cpu0 1 2 3\n"), None);
    // A command name with a space and a parenthesis.
    let own = "4242 (net (sim) x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 1";
    // Fields 14..=17 after the name: 11 12 13 14.
    assert_eq!(parse_tree_ticks(own), Some(11 + 12 + 13 + 14));
    assert_eq!(parse_tree_ticks("garbage"), None);
}

#[test]
fn load_subtracts_our_own_tree() {
    let a = Snapshot {
        machine: MachineTicks {
            busy: 100,
            steal: 0,
            total: 1000,
        },
        tree: 10,
    };
    let b = Snapshot {
        machine: MachineTicks {
            busy: 300,
            steal: 4,
            total: 1200,
        },
        tree: 200,
    };
    let l = load_between(&a, &b);
    // 200 busy ticks, 190 of them ours: 10 of 200.
    assert!((l.others_pct - 5.0).abs() < 1e-12, "{l:?}");
    assert!((l.steal_pct - 2.0).abs() < 1e-12);
}

/// A process tree's ticks: the root and its descendants (a rank in a
/// session of its own, a zombie that still holds its time), not a
/// stranger; a finished child's time moves into its parent's `cutime`
/// and the sum stays.
#[test]
fn tree_ticks_follow_descendants() {
    // Fields 14..=17 after the name: utime stime cutime cstime.
    let zombie = "12 (rank) Z 11 12 12 0 -1 0 0 0 0 0 40 2 0 0 20 0 1";
    assert_eq!(
        parse_proc_ticks(zombie),
        Some(ProcTicks {
            pid: 12,
            ppid: 11,
            ticks: 42,
            zombie: true,
        })
    );
    assert_eq!(parse_proc_ticks("12 (x) S"), None);
    let p = |pid, ppid, ticks| ProcTicks {
        pid,
        ppid,
        ticks,
        zombie: false,
    };
    // netsim 5 -> mpirun 10 -> proxy 11 -> ranks 12, 13; 20 is another's.
    let live = [
        p(1, 0, 1000),
        p(5, 1, 7),
        p(10, 5, 3),
        p(11, 10, 2),
        p(12, 11, 42),
        p(13, 11, 50),
        p(20, 1, 900),
    ];
    assert_eq!(tree_ticks(5, &live), 7 + 3 + 2 + 42 + 50);
    assert_eq!(tree_ticks(20, &live), 900);
    // The proxy waited for rank 12: its 42 ticks are the proxy's now.
    let reaped = [
        p(1, 0, 1000),
        p(5, 1, 7),
        p(10, 5, 3),
        p(11, 10, 44),
        p(13, 11, 50),
    ];
    assert_eq!(tree_ticks(5, &reaped), tree_ticks(5, &live));
}

/// Samples of a chunk: 10 s on 2 CPUs (200 ticks a second), ours busy
/// on both CPUs throughout, another process busy on one CPU from 4 s to
/// 6 s (a burst). Rows between bursts keep a low load, rows in or next
/// to the burst get it, rows off the samples' clock get none.
fn burst_samples() -> Vec<Sample> {
    (0..=100)
        .map(|i| {
            let t = 100.0 + 0.1 * f64::from(i);
            let ticks = |s: f64| (s * 200.0).round() as u64;
            // The other process's ticks so far: 100 a second in [4, 6].
            let others = ticks((0.1 * f64::from(i)).clamp(4.0, 6.0) - 4.0) / 2;
            let ours = ticks(0.1 * f64::from(i)) * 9 / 10;
            Sample {
                t,
                snap: Snapshot {
                    machine: MachineTicks {
                        busy: ours + others,
                        steal: 0,
                        total: ticks(0.1 * f64::from(i)),
                    },
                    tree: ours,
                },
                settled: true,
            }
        })
        .collect()
}

#[test]
fn row_load_is_the_load_over_the_row() {
    let s = burst_samples();
    let at = |t0: f64, t1: f64| row_load(&s, 100.0 + t0, 100.0 + t1, 1.0).map(|l| l.others_pct);
    // 1.0-1.1 s: widened to 0.55-1.55 s, quiet.
    assert_eq!(at(1.0, 1.1), Some(0.0));
    // Inside the burst: one CPU of two.
    assert!(
        (at(4.8, 4.9).unwrap() - 50.0).abs() < 1.0,
        "{:?}",
        at(4.8, 4.9)
    );
    // 3.52-3.58 s is quiet, but its 1 s window (3.05-4.05 s, taken
    // between the samples at 3.0 and 4.1 s) holds 0.1 s of the burst:
    // 10 of 220 ticks, 4.5 % (just under a --max-busy of 5 %).
    let edge = at(3.52, 3.58).unwrap();
    assert!((edge - 100.0 * 10.0 / 220.0).abs() < 0.01, "{edge}");
    // Next to the burst: its window holds 0.45 s of it.
    assert!(at(6.0, 6.1).unwrap() > 20.0);
    // A long row takes its own interval: 2 s with 1 s of burst.
    assert!((at(5.0, 7.0).unwrap() - 25.0).abs() < 1.0);
    // At the chunk's ends the window stops at the first and last sample.
    assert_eq!(at(0.0, 0.05), Some(0.0));
    assert_eq!(at(9.95, 10.0), Some(0.0));
    // Off the samples' clock, or backwards: no load (the chunk's is used).
    assert_eq!(at(-1.0, 0.1), None);
    assert_eq!(at(9.0, 10.5), None);
    assert_eq!(at(2.0, 1.0), None);
    assert_eq!(row_load(&[], 1.0, 2.0, 1.0), None);
    // A sample taken while the ranks end (their time counted by neither
    // them nor their parent): a row's window looks past it to the next
    // settled one. 1.45-1.5 s would end at the sample of 2.0 s.
    let mut s = burst_samples();
    s[20].snap.tree -= 100;
    let ending_at_20 = |s: &[Sample]| row_load(s, 101.45, 101.5, 1.0).unwrap().others_pct;
    assert!(ending_at_20(&s) > 40.0, "{}", ending_at_20(&s));
    s[20].settled = false;
    assert_eq!(ending_at_20(&s), 0.0);
}

#[test]
fn flavours_from_version_text() {
    assert_eq!(
        Flavour::of_version("HYDRA build details:\n Version: 4.0.2"),
        Flavour::Mpich
    );
    assert_eq!(
        Flavour::of_version("mpirun.openmpi (OpenRTE) 4.1.4"),
        Flavour::OpenMpi
    );
    assert_eq!(Flavour::of_version("srun 23.02"), Flavour::Unknown);
    assert_eq!(Flavour::Unknown.bind_args(), &[] as &[&str]);
}

#[test]
fn summary_line_and_coverage() {
    let out = "noise\nnetsim_bench: kind=pingpong chunk=0/1 units=3 measured=2 skipped_state=1 skipped_mixed=0 locality=same_socket cpus=0,1\n";
    let s = parse_summary(out).unwrap();
    assert_eq!((s.units, s.measured, s.skipped_state), (3, 2, 1));
    assert_eq!(s.locality, "same_socket");
    assert!(parse_summary("nothing").is_none());

    let c = Chunk {
        kind: "pingpong",
        index: 0,
        of: 2,
    };
    let mut cov = Coverage::default();
    assert_eq!(cov.missing(c, &["near", "far"]), vec!["near", "far"]);
    cov.add(
        c,
        2,
        &[("near".into(), "a".into()), ("near".into(), "b".into())],
    );
    cov.add(c, 2, &[("far".into(), "a".into())]);
    assert_eq!(cov.missing(c, &["near", "far"]), vec!["far"]);
    assert!(cov.missing(c, &["any"]).is_empty());
    let e = Chunk { index: 1, ..c };
    cov.add(
        e,
        2,
        &[("far".into(), "a".into()), ("near".into(), "b".into())],
    );
    assert_eq!(cov.missing(e, &["any"]), vec!["any"]);
    cov.add(c, 2, &[("far".into(), "b".into())]);
    assert!(cov.missing(c, &["near", "far"]).is_empty());
    // No probe (ranks on two nodes): one pass covers it.
    let d = Chunk { index: 1, ..c };
    cov.add(d, 1, &[("-".into(), "x".into())]);
    assert!(cov.missing(d, &["near", "far"]).is_empty());
}

#[test]
fn chunk_cells_round_trip() {
    let c = Chunk {
        kind: "hvpp-posted",
        index: 3,
        of: 27,
    };
    assert_eq!(chunk_cell(c, 6), "hvpp-posted:3/27:6");
    assert_eq!(parse_chunk_cell("hvpp-posted:3/27:6"), Some((c, 6)));
    for bad in [
        "halo:0/1:2",
        "pingpong:3/2:1",
        "pingpong:0/1",
        "pingpong:0/1:x:y",
    ] {
        assert_eq!(parse_chunk_cell(bad), None, "{bad}");
    }
}

#[test]
fn plans_slice_every_kind() {
    let q = plan(&KINDS, true);
    assert_eq!(q.len(), 5);
    let f = plan(&KINDS, false);
    assert_eq!(f.len(), 12 + 3 * 27 + 4);
    assert!(f.iter().all(|c| c.index < c.of));
}

#[test]
fn loaded_rows_are_left_out_of_the_fit_and_counted() {
    let csv = "kind,state,seconds,others_pct\n\
               pingpong,near,1e-6,1.0\n\
               pingpong,near,9e-6,48.5\n\
               pingpong,far,2e-6,4.0\n\
               pingpong,far,3e-6,5.1\n";
    let q = quiet_rows(csv, 5.0).unwrap();
    assert_eq!(
        q.text,
        "kind,state,seconds,others_pct\npingpong,near,1e-6,1.0\npingpong,far,2e-6,4.0\n"
    );
    assert_eq!(q.kept.values().sum::<usize>(), 2);
    assert_eq!(q.dropped.get("near"), Some(&1));
    assert_eq!(q.dropped.get("far"), Some(&1));
    assert_eq!(q.max_kept_pct, 4.0);
}

/// `write_atomic` replaces the whole file and leaves no temporary name;
/// a target it cannot write (a folder) is an error naming it, and the
/// folder is untouched.
#[test]
fn csv_is_replaced_whole() {
    let dir = std::env::temp_dir().join(format!("netsim-atomic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("lib.csv");
    write_atomic(&p, b"a,b\n1,2\n").unwrap();
    write_atomic(&p, b"a,b\n1,2\n3,4\n").unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"a,b\n1,2\n3,4\n");
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("keep"), b"x").unwrap();
    let e = write_atomic(&sub, b"rows").unwrap_err().to_string();
    assert!(e.contains("sub"), "{e}");
    assert!(sub.join("keep").exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

// ------------------------------------------------------------ the budget

/// A clock that moves only when told.
struct FakeClock(std::cell::Cell<Instant>);

impl rounds::Clock for FakeClock {
    fn now(&self) -> Instant {
        self.0.get()
    }
    fn sleep(&self, d: Duration) {
        self.0.set(self.0.get() + d);
    }
}

/// Chunks that take a set time per kind on the fake clock, each unit in
/// the placement state of the round's turn; records what ran.
struct FakeRunner<'a> {
    clock: &'a FakeClock,
    cov: Coverage,
    secs: fn(&str) -> u64,
    /// Placement state the chunks find, by round (round 1 first).
    states: &'a [&'a str],
    ran: Vec<(u32, Chunk, Duration)>,
}

impl rounds::Runner for FakeRunner<'_> {
    fn coverage(&self) -> &Coverage {
        &self.cov
    }
    fn run(
        &mut self,
        round: u32,
        chunk: Chunk,
        _want: &str,
        wait_until: Instant,
        _log: &mut dyn FnMut(&str),
    ) -> Result<bool, Error> {
        let waited = wait_until.saturating_duration_since(self.clock.now());
        self.ran.push((round, chunk, waited));
        self.clock
            .sleep(Duration::from_secs((self.secs)(chunk.kind)));
        let st = self.states[(round as usize - 1).min(self.states.len() - 1)];
        self.cov.add(chunk, 1, &[(st.into(), "u".into())]);
        Ok(true)
    }
}

fn options(quick: bool, budget_s: u64) -> Options {
    Options {
        mpicc: "cc".into(),
        mpirun: "run".into(),
        mpirun_args: Vec::new(),
        no_bind: false,
        library: None,
        out: "out".into(),
        quick,
        kinds: KINDS.to_vec(),
        budget: Duration::from_secs(budget_s),
        max_wait: Duration::ZERO,
        max_busy: 5.0,
        split_ns: vec![95.0],
        states: vec!["near", "far"],
        chunk_timeout: Duration::from_secs(60),
        resume: false,
        rounds: None,
    }
}

/// Runs the rounds of `chunks` with a fake clock from `now`, a budget of
/// `o.budget` from `t0` and waiting until `t0 + wait` at most; returns
/// how they stopped, what ran, the final time and the log.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn fake_rounds(
    o: &Options,
    t0: Instant,
    now: Instant,
    wait: Duration,
    chunks: &[Chunk],
    wanted: &[&str],
    secs: fn(&str) -> u64,
    states: &[&str],
) -> (
    Option<rounds::BudgetStop>,
    Vec<(u32, Chunk, Duration)>,
    Instant,
    Vec<String>,
) {
    let clock = FakeClock(std::cell::Cell::new(now));
    let mut r = FakeRunner {
        clock: &clock,
        cov: Coverage::default(),
        secs,
        states,
        ran: Vec::new(),
    };
    let mut budget = rounds::Budget::new(t0, o.budget, t0 + wait);
    let mut lines = Vec::new();
    let stop = rounds::rounds(o, &mut r, &clock, &mut budget, chunks, wanted, &mut |l| {
        lines.push(l.to_string())
    })
    .unwrap();
    (stop, r.ran, clock.0.get(), lines)
}

/// The deadline counts from the campaign's start, 30 s before its first
/// chunk (the build): chunks of 4 s (pingpong) and 10 s (the others) in
/// a 60 s budget. pingpong at 30 s (no estimate yet: runs), hvpp-paper at
/// 34 s (estimate 4 s, any kind's longest), hvpp-posted at 44 s
/// (estimate 10 s: ends at 54), hvpp-unexpected at 54 s would end at 64:
/// the campaign stops there, two of five chunks skipped, both never run.
#[test]
fn budget_is_a_deadline_from_the_campaign_start() {
    let t0 = Instant::now();
    let o = options(true, 60);
    let (stop, ran, end, lines) = fake_rounds(
        &o,
        t0,
        t0 + Duration::from_secs(30),
        Duration::from_secs(3600),
        &plan(&KINDS, true),
        &["all"],
        |k| if k == "pingpong" { 4 } else { 10 },
        &["near"],
    );
    let stop = stop.expect("stopped on the budget");
    let kinds: Vec<&str> = ran.iter().map(|(_, c, _)| c.kind).collect();
    assert_eq!(kinds, ["pingpong", "hvpp-paper", "hvpp-posted"]);
    assert_eq!(end, t0 + Duration::from_secs(54));
    assert_eq!(stop.next.kind, "hvpp-unexpected");
    assert_eq!(stop.estimate, Duration::from_secs(10));
    assert_eq!(stop.elapsed, Duration::from_secs(54));
    assert_eq!((stop.skipped, stop.never_run, stop.planned), (2, 2, 5));
    // The wait for a quiet machine ends when the chunk would no longer
    // fit: hvpp-posted at 44 s may wait until 60 - 10 = 50 s.
    assert_eq!(ran[2].2, Duration::from_secs(6));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("stopped on the time budget (60 s, 54 s spent): the next chunk (hvpp-unexpected 0/1) was expected to take 10 s; 2 of 5 chunks still lack rows and were skipped (2 not run at all)"),
        "{}",
        lines[0]
    );
}

/// The first chunk runs even past the deadline (no estimate, no rows
/// otherwise); the next one does not.
#[test]
fn first_chunk_always_runs() {
    let t0 = Instant::now();
    let (stop, ran, _, _) = fake_rounds(
        &options(true, 60),
        t0,
        t0 + Duration::from_secs(90),
        Duration::ZERO,
        &plan(&["pingpong", "msgrate"], true),
        &["all"],
        |_| 1,
        &["near"],
    );
    let stop = stop.expect("stopped on the budget");
    assert_eq!(ran.len(), 1);
    assert_eq!((stop.skipped, stop.never_run), (1, 1));
}

/// Rounds that look for placement states: the estimate of a kind is
/// its own longest chunk, the pause between rounds without progress
/// never passes the deadline, and a campaign that covers everything in
/// time ends without a budget stop.
#[test]
fn rounds_stop_by_the_deadline_or_when_covered() {
    let t0 = Instant::now();
    let o = options(false, 100);
    let chunks = [Chunk {
        kind: "msgrate",
        index: 0,
        of: 4,
    }];
    // Every round finds `near`: `far` is never covered.
    let wanted = ["near", "far"];
    let (stop, ran, end, _) = fake_rounds(
        &o,
        t0,
        t0,
        Duration::ZERO,
        &chunks,
        &wanted,
        |_| 30,
        &["near"],
    );
    let stop = stop.expect("stopped on the budget");
    // Runs at 0, 30 and 60 s; at 90 s a 30 s chunk would end at 120.
    assert_eq!(ran.len(), 3);
    assert_eq!(stop.elapsed, Duration::from_secs(90));
    assert_eq!((stop.skipped, stop.never_run), (1, 0));
    assert!(end <= t0 + o.budget);

    // Round 1 finds `near`, round 2 `far`: covered, no stop.
    let (stop, ran, _, _) = fake_rounds(
        &o,
        t0,
        t0,
        Duration::ZERO,
        &chunks,
        &wanted,
        |_| 30,
        &["near", "far"],
    );
    assert_eq!(stop, None);
    assert_eq!(ran.len(), 2);

    // Per kind: a short kind's estimate is its own, not the longest.
    let mut b = rounds::Budget::new(t0, Duration::from_secs(10), t0 + Duration::from_secs(5));
    let pp = Chunk {
        kind: "pingpong",
        index: 0,
        of: 12,
    };
    b.record(chunks[0], Duration::from_secs(9));
    assert_eq!(b.estimate(pp), Some(Duration::from_secs(9)));
    b.record(pp, Duration::from_secs(2));
    assert_eq!(b.estimate(pp), Some(Duration::from_secs(2)));
    assert!(b.fits(pp, t0 + Duration::from_secs(8)));
    assert!(!b.fits(chunks[0], t0 + Duration::from_secs(8)));
    // Waiting ends at --max-wait (5 s) or when the chunk would no
    // longer fit (10 - 9 s), whichever is first.
    assert_eq!(b.wait_until(pp, t0), t0 + Duration::from_secs(5));
    assert_eq!(b.wait_until(chunks[0], t0), t0 + Duration::from_secs(1));
}

/// `/proc/<pid>/stat` lines whatever the command's name holds; a
/// command's tree is its group and every descendant, also one in a
/// session of its own (MPICH's proxies and ranks); a command started by
/// the campaign leads a group of its own.
#[test]
fn process_groups_and_trees() {
    let s = "4242 (sh (x) y) S 17 4243 4244 0 -1 4194560";
    let p = group::parse_stat(s).unwrap();
    assert_eq!((p.pid, p.state, p.ppid, p.pgrp), (4242, 'S', 17, 4243));
    assert_eq!(group::parse_stat("garbage"), None);
    let st = |pid, ppid, pgrp| group::Stat {
        pid,
        state: 'S',
        ppid,
        pgrp,
    };
    // mpirun 10 leads group 10; its proxy 11 and the proxy's ranks 12,
    // 13 have sessions of their own; 20 is someone else's.
    let procs = [
        st(1, 0, 1),
        st(13, 11, 13),
        st(10, 1, 10),
        st(11, 10, 11),
        st(12, 11, 12),
        st(20, 1, 20),
    ];
    let mut t = group::tree(10, &procs);
    t.sort();
    assert_eq!(t, [10, 11, 12, 13]);
    assert!(group::tree(99, &procs).is_empty());

    let mut cmd = Command::new("sleep");
    cmd.arg("5");
    let mut g = group::Group::spawn(&mut cmd, "sleep 5").unwrap();
    let pid = g.child().id();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    assert_eq!(group::parse_stat(&stat).map(|p| p.pgrp), Some(pid as i32));
    g.kill();
    assert_eq!(g.try_wait().unwrap().map(|s| s.success()), Some(false));
}
