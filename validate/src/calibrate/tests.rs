//! Tests of `netsim calibrate`'s planning, coverage and CSV handling.

use super::*;

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
