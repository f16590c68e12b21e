//! Integration tests of the trace readers on the real traces in
//! `/work/shared` (skipped with a note when the data is absent) and on
//! small files written by the tests.

use std::path::{Path, PathBuf};

use mpi_layer::{CommId, Op, OpStream, ProgramError, ReqId, Source, TagSel};
use scenarios::ti::{TiConfig, TiTrace};
use sim_core::time::Time;

const W: CommId = CommId::WORLD;
const SHARED: &str = "/work/shared";

/// The shared data directory, or `None` (tests print a note and pass) when
/// it is not mounted.
fn data(rel: &str) -> Option<PathBuf> {
    let p = Path::new(SHARED).join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: {} not found", p.display());
        None
    }
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netsim-scenarios-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn ops(mut s: impl OpStream) -> Vec<Op> {
    let mut v = Vec::new();
    while let Some((op, _)) = s.next_op().unwrap() {
        v.push(op);
    }
    v
}

/// Drains a stream expecting an error; returns its message `file:line: what`.
fn first_error(mut s: impl OpStream) -> String {
    loop {
        match s.next_op() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("expected an error, stream ended"),
            Err(e) => return e.to_string(),
        }
    }
}

fn secs(s: f64) -> Time {
    Time::from_secs_f64(s)
}

// ---------------------------------------------------------------- SimGrid TI

fn ti(rel: &str) -> Option<TiTrace> {
    Some(TiTrace::open(&data(rel)?, TiConfig::default()).unwrap())
}

fn ti_rank(t: &TiTrace, r: u32) -> Vec<Op> {
    ops(t.rank_stream(r).unwrap())
}

#[test]
fn ti_split_actions0_actions1() {
    let (Some(a0), Some(a1)) = (
        data("traces/simgrid-ti/micro/actions0.txt"),
        data("traces/simgrid-ti/micro/actions1.txt"),
    ) else {
        return;
    };
    let t = TiTrace::from_rank_files(vec![a0, a1], TiConfig::default()).unwrap();
    assert_eq!(t.num_ranks(), 2);
    let send = |dst, tag| Op::Send {
        dst,
        tag,
        bytes: 1_000_000,
        comm: W,
    };
    assert_eq!(
        ti_rank(&t, 0),
        vec![
            send(1, 0),
            Op::Recv {
                src: Source::Rank(1),
                tag: TagSel::Tag(1),
                bytes: 1_000_000,
                comm: W
            },
            send(1, 2),
        ]
    );
    assert_eq!(
        ti_rank(&t, 1),
        vec![
            Op::Recv {
                src: Source::Rank(0),
                tag: TagSel::Tag(0),
                bytes: 1_000_000,
                comm: W
            },
            Op::Compute {
                duration: secs(1.0)
            },
            Op::Isend {
                dst: 0,
                tag: 1,
                bytes: 1_000_000,
                comm: W,
                req: ReqId(1)
            },
            Op::Irecv {
                src: Source::Rank(0),
                tag: TagSel::Tag(2),
                bytes: 1_000_000,
                comm: W,
                req: ReqId(2)
            },
            // `wait 0 1 2`: sender 0, receiver 1, tag 2 is the irecv.
            Op::Wait { req: ReqId(2) },
            // The isend is still pending at the end of the trace.
            Op::WaitallPending,
        ]
    );
}

#[test]
fn ti_micro_collectives() {
    let Some(t) = ti("traces/simgrid-ti/micro/actions_allgatherv.txt") else {
        return;
    };
    assert_eq!(t.num_ranks(), 4);
    // Trailing `0 0`: datatype id 0 is MPI_DOUBLE (8 bytes).
    let counts = vec![275427 * 8, 275427 * 8, 275427 * 8, 204020 * 8];
    for r in 0..4 {
        assert_eq!(
            ti_rank(&t, r),
            vec![Op::Allgatherv {
                counts: counts.clone(),
                comm: W
            }]
        );
    }

    let t = ti("traces/simgrid-ti/micro/actions_allreduce.txt").unwrap();
    assert_eq!(
        ti_rank(&t, 2),
        vec![
            Op::Allreduce {
                bytes: 50_000,
                comm: W
            },
            Op::Compute {
                duration: secs(0.5)
            },
            Op::Compute {
                duration: secs(0.5)
            },
        ]
    );

    let t = ti("traces/simgrid-ti/micro/actions_alltoall.txt").unwrap();
    assert_eq!(
        ti_rank(&t, 1),
        vec![Op::Alltoall {
            bytes: 500,
            comm: W
        }]
    );

    let t = ti("traces/simgrid-ti/micro/actions_alltoallv.txt").unwrap();
    assert_eq!(
        ti_rank(&t, 0),
        vec![Op::Alltoallv {
            send: vec![1, 40, 30],
            recv: vec![1, 80, 100],
            comm: W
        }]
    );
    assert_eq!(
        ti_rank(&t, 2),
        vec![Op::Alltoallv {
            send: vec![100, 30, 1],
            recv: vec![30, 40, 1],
            comm: W
        }]
    );

    let t = ti("traces/simgrid-ti/micro/actions_barrier.txt").unwrap();
    assert_eq!(t.num_ranks(), 3);
    assert_eq!(
        ti_rank(&t, 0),
        vec![
            Op::Send {
                dst: 1,
                tag: 0,
                bytes: 10_000_000,
                comm: W
            },
            Op::Barrier { comm: W },
            Op::Compute {
                duration: secs(0.098095)
            },
        ]
    );
    assert_eq!(
        ti_rank(&t, 2),
        vec![
            Op::Barrier { comm: W },
            Op::Compute {
                duration: secs(0.076296)
            }
        ]
    );

    let t = ti("traces/simgrid-ti/micro/actions_bcast.txt").unwrap();
    let r1 = ti_rank(&t, 1);
    assert_eq!(r1.len(), 6);
    assert_eq!(
        r1[0],
        Op::Bcast {
            root: 0,
            bytes: 50_000,
            comm: W
        }
    );
    assert_eq!(
        r1[1],
        Op::Compute {
            duration: secs(0.2)
        }
    );
    assert_eq!(
        r1[4],
        Op::Reduce {
            root: 0,
            bytes: 50_000,
            comm: W
        }
    );
    assert_eq!(
        r1[5],
        Op::Compute {
            duration: secs(0.5)
        }
    );

    // `init 1`: default datatype MPI_DOUBLE; explicit ids override it.
    let t = ti("traces/simgrid-ti/micro/actions_bcast_reduce_datatypes.txt").unwrap();
    let r0 = ti_rank(&t, 0);
    assert_eq!(
        r0[0],
        Op::Bcast {
            root: 1,
            bytes: 400_000,
            comm: W
        }
    ); // id 0: double
    assert_eq!(
        r0[2],
        Op::Bcast {
            root: 0,
            bytes: 100_000,
            comm: W
        }
    ); // id 3: short
    assert_eq!(
        r0[4],
        Op::Reduce {
            root: 0,
            bytes: 400_000,
            comm: W
        }
    ); // id 4: long

    let t = ti("traces/simgrid-ti/micro/actions_gather.txt").unwrap();
    assert_eq!(
        ti_rank(&t, 3),
        vec![Op::Gather {
            root: 0,
            bytes: 68 * 8,
            comm: W
        }]
    );

    let t = ti("traces/simgrid-ti/micro/actions_reducescatter.txt").unwrap();
    assert_eq!(
        ti_rank(&t, 1),
        vec![
            Op::ReduceScatter {
                counts: vec![275427 * 8, 275427 * 8, 275427 * 8, 204020 * 8],
                comm: W
            },
            Op::Compute {
                duration: secs(12396024.0 / 1e9)
            },
        ]
    );
}

#[test]
fn ti_micro_requests() {
    let Some(t) = ti("traces/simgrid-ti/micro/actions_waitall.txt") else {
        return;
    };
    assert_eq!(
        ti_rank(&t, 0),
        vec![
            Op::Irecv {
                src: Source::Rank(1),
                tag: TagSel::Tag(0),
                bytes: 2000,
                comm: W,
                req: ReqId(1)
            },
            Op::Irecv {
                src: Source::Rank(2),
                tag: TagSel::Tag(2),
                bytes: 3000,
                comm: W,
                req: ReqId(2)
            },
            Op::WaitallPending,
        ]
    );
    assert_eq!(ti_rank(&t, 1).last(), Some(&Op::WaitallPending));

    let t = ti("traces/simgrid-ti/micro/actions_with_isend.txt").unwrap();
    let half = Op::Compute {
        duration: secs(0.5),
    };
    assert_eq!(
        ti_rank(&t, 1),
        vec![
            Op::Irecv {
                src: Source::Rank(0),
                tag: TagSel::Tag(0),
                bytes: 1_000_000,
                comm: W,
                req: ReqId(1)
            },
            half.clone(),
            Op::Test { req: ReqId(1) },
            half,
            Op::Wait { req: ReqId(1) },
            Op::Send {
                dst: 2,
                tag: 1,
                bytes: 1_000_000,
                comm: W
            },
        ]
    );
    let r2 = ti_rank(&t, 2);
    assert_eq!(r2.len(), 9);
    assert_eq!(r2[3], Op::Test { req: ReqId(1) });
    assert_eq!(r2[5], Op::Wait { req: ReqId(1) });
    assert_eq!(
        r2[6],
        Op::Isend {
            dst: 0,
            tag: 2,
            bytes: 1_000_000,
            comm: W,
            req: ReqId(2)
        }
    );
    assert_eq!(r2[8], Op::WaitallPending);
}

/// The 32-rank application trace against a slow obvious count of its lines.
#[test]
fn ti_app_32_ranks() {
    let Some(dir) = data("traces/simgrid-ti/app-32ranks") else {
        return;
    };
    let files: Vec<PathBuf> = (0..32)
        .map(|r| dir.join(format!("ti_trace{r}.txt")))
        .collect();
    let t = TiTrace::from_rank_files(files.clone(), TiConfig::default()).unwrap();
    for (r, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        let mut expected = 0;
        for line in text.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.get(1).copied() {
                None | Some("init" | "comm_size" | "finalize") => {}
                Some("allreduce" | "reduce") if fields[3] != "0" => expected += 2,
                Some(_) => expected += 1,
            }
        }
        let got = ti_rank(&t, r as u32);
        assert_eq!(got.len(), expected, "rank {r}");
        assert!(got.iter().all(|op| !matches!(op, Op::WaitallPending)));
    }
    let r0 = ti_rank(&t, 0);
    assert_eq!(
        r0[0],
        Op::Compute {
            duration: secs(127161e-9)
        }
    );
    // `init 1`: `bcast 1` is one MPI_DOUBLE.
    assert_eq!(
        r0[4],
        Op::Bcast {
            root: 0,
            bytes: 8,
            comm: W
        }
    );
    assert_eq!(
        r0[5],
        Op::Compute {
            duration: secs(26057e-9)
        }
    );
    assert_eq!(r0[6], Op::Barrier { comm: W });
    // Last lines: `allreduce 32 13171326 1` (id 1: MPI_INT), then compute.
    let n = r0.len();
    assert_eq!(
        r0[n - 3],
        Op::Allreduce {
            bytes: 32 * 4,
            comm: W
        }
    );
    assert_eq!(
        r0[n - 2],
        Op::Compute {
            duration: secs(13171326e-9)
        }
    );
    assert_eq!(
        r0[n - 1],
        Op::Compute {
            duration: secs(62566160216e-9)
        }
    );
}

#[test]
fn ti_list_file_and_host_speed() {
    let Some(dir) = data("traces/simgrid-ti/app-32ranks") else {
        return;
    };
    let s = scratch("ti-list");
    let list: String = (0..32)
        .map(|r| format!("{}\n", dir.join(format!("ti_trace{r}.txt")).display()))
        .collect();
    let lf = write(&s, "list.txt", &list);
    let t = TiTrace::open(
        &lf,
        TiConfig {
            host_speed_flops: 2e9,
        },
    )
    .unwrap();
    assert_eq!(t.num_ranks(), 32);
    let r5 = ti_rank(&t, 5);
    assert_eq!(
        r5[0],
        Op::Compute {
            duration: secs(127149.0 / 2e9)
        }
    );
}

fn ti_err(text: &str, rank: u32) -> String {
    let s = scratch(&format!("ti-err-{:x}", text.len() * 31 + rank as usize));
    let f = write(&s, "t.txt", text);
    match TiTrace::open(&f, TiConfig::default()) {
        Err(e) => e.to_string(),
        Ok(t) => first_error(t.rank_stream(rank).unwrap()),
    }
}

#[test]
fn ti_malformed_inputs_name_file_and_line() {
    let e = ti_err("0 init\n1 init\n0 send 5 0 10\n", 0);
    assert!(
        e.ends_with("t.txt:3: send: partner rank 5 does not exist (the trace has ranks 0..2)"),
        "{e}"
    );
    let e = ti_err("0 init\n1 init\n\n0 send 1 0 -10\n", 0);
    assert!(
        e.ends_with("t.txt:4: send: count must not be negative, found `-10`"),
        "{e}"
    );
    let e = ti_err("0 init\n0 frobnicate 3\n", 0);
    assert!(e.ends_with("t.txt:2: frobnicate: unknown action"), "{e}");
    let e = ti_err("0 init\n0 bcast x\n", 0);
    assert!(
        e.ends_with("t.txt:2: bcast: count must be a number, found `x`"),
        "{e}"
    );
    let e = ti_err("0 init\n0 send 0 1\n", 0);
    assert!(
        e.ends_with("t.txt:2: send: expected 3 to 4 fields after the action, found 2"),
        "{e}"
    );
    let e = ti_err("0 init\n0 wait 0 0 1\n", 0);
    assert!(
        e.ends_with("t.txt:2: wait: not preceded by any isend or irecv"),
        "{e}"
    );
    let e = ti_err("0 init\nx send 0 1\n", 0);
    assert!(
        e.ends_with("t.txt:2: the rank (first field) must be an integer in range, found `x`"),
        "{e}"
    );
    let e = ti_err("0 init\n0 bcast 10 0 99\n", 0);
    assert!(
        e.ends_with("t.txt:2: bcast: unknown SimGrid datatype id 99"),
        "{e}"
    );
    // A list file naming a missing per-rank file.
    let s = scratch("ti-missing");
    let lf = write(&s, "list.txt", "rank0.txt\nrank1.txt\n");
    write(&s, "rank0.txt", "0 init\n");
    let e = TiTrace::open(&lf, TiConfig::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("list.txt:2: per-rank trace file") && e.ends_with("rank1.txt does not exist"),
        "{e}"
    );
    // A per-rank file holding another rank's line.
    let e = TiTrace::from_rank_files(
        vec![s.join("rank0.txt"), s.join("rank0.txt")],
        TiConfig::default(),
    )
    .unwrap()
    .rank_stream(1)
    .map(first_error)
    .unwrap();
    assert!(
        e.ends_with("rank0.txt:1: action for rank 0 in the trace file of rank 1"),
        "{e}"
    );
    let e: ProgramError =
        TiTrace::from_rank_files(vec![s.join("nope.txt")], TiConfig::default()).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("nope.txt:0: per-rank trace file does not exist")
    );
}
