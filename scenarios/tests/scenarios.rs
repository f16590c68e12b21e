//! Integration tests of the trace readers on the real traces of the
//! shared data folder (found by `scenarios::shared`: `NETSIM_SHARED`, else `shared/` beside the
//! workspace; the tests fail without it) and on small files written by
//! the tests.

use std::path::{Path, PathBuf};

use mpi_layer::{CommId, Op, OpStream, ProgramError, ReqId, Source, TagSel};
use scenarios::TraceReader;
use scenarios::ti::{TiConfig, TiTrace};
use sim_core::time::Time;

const W: CommId = CommId::WORLD;
/// A file of the shared data folder (`NETSIM_SHARED`, else `../shared`
/// beside the workspace: the rule of ARCHITECTURE.md). Missing data fail
/// the test: it does not pass without its subject.
fn data(rel: &str) -> PathBuf {
    scenarios::shared::shared_path(rel).unwrap_or_else(|e| panic!("{e}"))
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
    ops_dyn(&mut s)
}

fn ops_dyn(s: &mut dyn OpStream) -> Vec<Op> {
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

fn ti(rel: &str) -> TiTrace {
    TiTrace::open(&data(rel), TiConfig::default()).unwrap()
}

fn ti_rank(t: &TiTrace, r: u32) -> Vec<Op> {
    ops(t.rank_stream(r).unwrap())
}

#[test]
fn ti_split_actions0_actions1() {
    let (a0, a1) = (
        data("traces/simgrid-ti/micro/actions0.txt"),
        data("traces/simgrid-ti/micro/actions1.txt"),
    );
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
    let t = ti("traces/simgrid-ti/micro/actions_allgatherv.txt");
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

    let t = ti("traces/simgrid-ti/micro/actions_allreduce.txt");
    assert_eq!(
        ti_rank(&t, 2),
        vec![
            Op::Allreduce {
                elem_bytes: 1,
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

    let t = ti("traces/simgrid-ti/micro/actions_alltoall.txt");
    assert_eq!(
        ti_rank(&t, 1),
        vec![Op::Alltoall {
            bytes: 500,
            comm: W
        }]
    );

    let t = ti("traces/simgrid-ti/micro/actions_alltoallv.txt");
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

    let t = ti("traces/simgrid-ti/micro/actions_barrier.txt");
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

    let t = ti("traces/simgrid-ti/micro/actions_bcast.txt");
    let r1 = ti_rank(&t, 1);
    assert_eq!(r1.len(), 6);
    assert_eq!(
        r1[0],
        Op::Bcast {
            elem_bytes: 1,
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
            elem_bytes: 1,
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
    let t = ti("traces/simgrid-ti/micro/actions_bcast_reduce_datatypes.txt");
    let r0 = ti_rank(&t, 0);
    assert_eq!(
        r0[0],
        Op::Bcast {
            elem_bytes: 8,
            root: 1,
            bytes: 400_000,
            comm: W
        }
    ); // id 0: double
    assert_eq!(
        r0[2],
        Op::Bcast {
            elem_bytes: 2,
            root: 0,
            bytes: 100_000,
            comm: W
        }
    ); // id 3: short
    assert_eq!(
        r0[4],
        Op::Reduce {
            elem_bytes: 8,
            root: 0,
            bytes: 400_000,
            comm: W
        }
    ); // id 4: long

    let t = ti("traces/simgrid-ti/micro/actions_gather.txt");
    assert_eq!(
        ti_rank(&t, 3),
        vec![Op::Gather {
            root: 0,
            bytes: 68 * 8,
            comm: W
        }]
    );

    let t = ti("traces/simgrid-ti/micro/actions_reducescatter.txt");
    assert_eq!(
        ti_rank(&t, 1),
        vec![
            Op::ReduceScatter {
                counts: vec![275427 * 8, 275427 * 8, 275427 * 8, 204020 * 8],
                elem_bytes: 8,
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
    let t = ti("traces/simgrid-ti/micro/actions_waitall.txt");
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

    let t = ti("traces/simgrid-ti/micro/actions_with_isend.txt");
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
    let dir = data("traces/simgrid-ti/app-32ranks");
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
            elem_bytes: 8,
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
            elem_bytes: 4,
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
    let dir = data("traces/simgrid-ti/app-32ranks");
    let s = scratch("ti-list");
    let list: String = (0..32)
        .map(|r| format!("{}\n", dir.join(format!("ti_trace{r}.txt")).display()))
        .collect();
    let lf = write(&s, "list.txt", &list);
    let t = TiTrace::open(
        &lf,
        TiConfig {
            host_speed_flops: 2e9,
            ..Default::default()
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
        e.ends_with(
            "t.txt:2: bcast: unknown SimGrid datatype id 99 (SimGrid 3.32 defines -1 to 59)"
        ),
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
            .ends_with("nope.txt: per-rank trace file does not exist")
    );
}

// ---------------------------------------------------------------- native

use scenarios::native::{NativeTrace, format_op, parse_op};

fn every_op() -> Vec<Op> {
    let c = CommId(3);
    vec![
        Op::Send {
            dst: 1,
            tag: 7,
            bytes: 1024,
            comm: W,
        },
        Op::Recv {
            src: Source::Any,
            tag: TagSel::Any,
            bytes: 0,
            comm: c,
        },
        Op::Recv {
            src: Source::Rank(2),
            tag: TagSel::Tag(-5),
            bytes: 9,
            comm: W,
        },
        Op::Isend {
            dst: 3,
            tag: 0,
            bytes: sim_core::limits::MAX_MESSAGE_BYTES, // the largest a reader accepts
            comm: c,
            req: ReqId(11),
        },
        Op::Irecv {
            src: Source::Rank(0),
            tag: TagSel::Tag(1),
            bytes: 8,
            comm: W,
            req: ReqId(12),
        },
        Op::Wait { req: ReqId(11) },
        Op::Waitall {
            reqs: vec![ReqId(1), ReqId(2)],
        },
        Op::WaitallPending,
        Op::Waitany {
            reqs: vec![ReqId(4)],
        },
        Op::Test { req: ReqId(12) },
        Op::Sendrecv {
            dst: 1,
            send_tag: 2,
            send_bytes: 3,
            src: Source::Any,
            recv_tag: TagSel::Tag(4),
            recv_bytes: 5,
            comm: c,
        },
        Op::Compute {
            duration: Time::from_ps(2_500_001),
        },
        Op::Sleep {
            duration: Time::from_ms(3),
        },
        Op::RegionBegin { id: 4 },
        Op::RegionEnd { id: 4 },
        Op::Barrier { comm: c },
        Op::Bcast {
            elem_bytes: 8,
            root: 2,
            bytes: 80,
            comm: W,
        },
        Op::Reduce {
            elem_bytes: 8,
            root: 1,
            bytes: 8,
            comm: c,
        },
        Op::Allreduce {
            elem_bytes: 8,
            bytes: 8,
            comm: W,
        },
        Op::Scan {
            bytes: 16,
            comm: W,
            exclusive: false,
        },
        Op::Scan {
            bytes: 16,
            comm: c,
            exclusive: true,
        },
        Op::Gather {
            root: 0,
            bytes: 4,
            comm: W,
        },
        Op::Gatherv {
            root: 3,
            counts: vec![1, 2, 3, 0],
            comm: W,
        },
        Op::Scatter {
            root: 0,
            bytes: 4,
            comm: c,
        },
        Op::Scatterv {
            root: 1,
            counts: vec![0, 0, 0, 7],
            comm: W,
        },
        Op::Allgather { bytes: 12, comm: W },
        Op::Allgatherv {
            counts: vec![4, 4, 4, 4],
            comm: c,
        },
        Op::Alltoall {
            bytes: 500,
            comm: W,
        },
        Op::Alltoallv {
            send: vec![1, 40, 30, 0],
            recv: vec![1, 80, 100, 2],
            comm: W,
        },
        Op::ReduceScatter {
            counts: vec![8, 8, 8, 8],
            elem_bytes: 4,
            comm: W,
        },
        Op::CommDup {
            comm: W,
            new: CommId(5),
        },
        Op::CommSplit {
            comm: CommId(5),
            color: -1,
            key: 3,
            new: CommId(6),
        },
    ]
    .into_iter()
    .chain(communicator_ops())
    .collect()
}

/// The group, constructor, topology and neighbour operations.
fn communicator_ops() -> Vec<Op> {
    use mpi_layer::GroupId as G;
    let c = CommId(3);
    vec![
        Op::CommGroup { comm: c, new: G(1) },
        Op::GroupIncl {
            group: G(1),
            ranks: vec![2, 0],
            new: G(2),
        },
        Op::GroupExcl {
            group: G(1),
            ranks: vec![],
            new: G(3),
        },
        Op::GroupRangeIncl {
            group: G(1),
            ranges: vec![[3, 1, -1], [0, 0, 1]],
            new: G(4),
        },
        Op::GroupRangeExcl {
            group: G(0),
            ranges: vec![],
            new: G(5),
        },
        Op::GroupUnion {
            a: G(1),
            b: G(2),
            new: G(6),
        },
        Op::GroupIntersection {
            a: G(1),
            b: G(2),
            new: G(7),
        },
        Op::GroupDifference {
            a: G(1),
            b: G(2),
            new: G(8),
        },
        Op::GroupFree { group: G(8) },
        Op::CommCreate {
            comm: W,
            group: G(2),
            new: CommId(7),
        },
        Op::CommCreateGroup {
            comm: c,
            group: G(2),
            tag: 4,
            new: CommId(8),
        },
        Op::CommFree { comm: CommId(8) },
        Op::CartCreate {
            comm: W,
            dims: vec![2, 2],
            periods: vec![true, false],
            new: CommId(9),
        },
        Op::CartSub {
            comm: CommId(9),
            remain: vec![false, true],
            new: CommId(10),
        },
        Op::GraphCreate {
            comm: W,
            index: vec![1, 2],
            edges: vec![1, 0],
            new: CommId(11),
        },
        Op::DistGraphAdjacent {
            comm: W,
            sources: vec![3],
            destinations: vec![1, 2],
            new: CommId(12),
        },
        Op::DistGraph {
            comm: c,
            edges: vec![[0, 1], [1, 0]],
            new: CommId(13),
        },
        Op::NeighborAllgather {
            bytes: 8,
            comm: CommId(12),
        },
        Op::NeighborAlltoall { bytes: 16, comm: W },
        Op::NeighborAlltoallv {
            send: vec![1, 2],
            comm: CommId(12),
        },
    ]
}

#[test]
fn native_round_trips_every_op() {
    for op in every_op() {
        let line = format_op(&op);
        assert_eq!(parse_op(&line, 4), Ok(op.clone()), "line `{line}`");
    }
    // Through files: per-rank and shared layouts give the same programs.
    let s = scratch("native-rt");
    let text: String = every_op().iter().map(|o| format_op(o) + "\n").collect();
    let f0 = write(&s, "r0.trace", &text);
    let f1 = write(&s, "r1.trace", "# nothing but a comment\n\nbarrier\n");
    let shared: String = every_op()
        .iter()
        .map(|o| format!("0 {}\n", format_op(o)))
        .collect();
    let shared = write(&s, "all.trace", &(shared + "3 barrier # rank 3\n"));
    let t =
        NativeTrace::from_rank_files(vec![f0, f1, s.join("r1.trace"), s.join("r1.trace")]).unwrap();
    assert_eq!(ops(t.rank_stream(0).unwrap()), every_op());
    assert_eq!(
        ops(t.rank_stream(1).unwrap()),
        vec![Op::Barrier { comm: W }]
    );
    let t = NativeTrace::open(&shared).unwrap();
    assert_eq!(t.num_ranks(), 4);
    assert_eq!(ops(t.rank_stream(0).unwrap()), every_op());
    assert_eq!(ops(t.rank_stream(1).unwrap()), vec![]);
    assert_eq!(
        ops(t.rank_stream(3).unwrap()),
        vec![Op::Barrier { comm: W }]
    );
}

#[test]
fn native_example_file() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/native-ring.trace");
    let t = NativeTrace::open(&p).unwrap();
    assert_eq!(t.num_ranks(), 4);
    let mut s = t.rank_stream(2).unwrap();
    let (first, origin) = s.next_op().unwrap().unwrap();
    assert_eq!(
        first,
        Op::Irecv {
            src: Source::Rank(1),
            tag: TagSel::Tag(7),
            bytes: 1024,
            comm: W,
            req: ReqId(1)
        }
    );
    assert!(
        origin.to_string().ends_with("native-ring.trace:17"),
        "{origin}"
    );
    assert_eq!(
        ops(s),
        vec![
            Op::Isend {
                dst: 3,
                tag: 7,
                bytes: 1024,
                comm: W,
                req: ReqId(2)
            },
            Op::Compute {
                duration: Time::from_ns(2500)
            },
            Op::Waitall {
                reqs: vec![ReqId(1), ReqId(2)]
            },
            Op::Allreduce {
                elem_bytes: 8,
                bytes: 8,
                comm: W
            },
        ]
    );
}

#[test]
fn native_malformed_inputs_name_file_and_line() {
    let s = scratch("native-err");
    let cases = [
        (
            "0 send dst=0 tag=0 bytes=8\n0 send dst=4 tag=0 bytes=8\n",
            "t.trace:2: send: dst=4 names no rank (the trace has ranks 0..1)",
        ),
        (
            "0 bcast root=0 bytes=-3\n",
            "t.trace:1: bcast: bytes must not be negative, found `-3`",
        ),
        ("\n0 fly to=1\n", "t.trace:2: fly: unknown operation"),
        (
            "0 compute 5\n",
            "t.trace:1: compute: duration `5` needs a unit (ps, ns, us, ms, s)",
        ),
        (
            "0 wait req=x\n",
            "t.trace:1: wait: req must be an integer in range, found `x`",
        ),
        (
            "0 allreduce\n",
            "t.trace:1: allreduce: missing field `bytes=`",
        ),
    ];
    for (text, want) in cases {
        let f = write(&s, "t.trace", text);
        let e = match NativeTrace::open(&f) {
            Err(e) => e.to_string(),
            Ok(t) => first_error(t.rank_stream(0).unwrap()),
        };
        assert!(e.ends_with(want), "got `{e}`, want `{want}`");
    }
    let f = write(&s, "r.trace", "0 barrier\n");
    let e = first_error(
        NativeTrace::from_rank_files(vec![f])
            .unwrap()
            .rank_stream(0)
            .unwrap(),
    );
    assert!(
        e.ends_with(
            "r.trace:1: a rank column in a per-rank file (use one shared file or no rank column)"
        ),
        "{e}"
    );
    let e = NativeTrace::from_rank_files(vec![s.join("missing.trace")])
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("missing.trace: per-rank trace file does not exist"),
        "{e}"
    );
}

/// A million-line trace is read one line at a time: the first operation
/// comes before the reader has seen the bad last line, and the error names
/// line 1 000 000. (Peak memory is measured by the `stream_memory` example
/// in a release build, not here.)
#[test]
fn native_streams_large_trace_lazily() {
    let s = scratch("native-big");
    let p = s.join("big.trace");
    {
        use std::io::Write;
        let mut w = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        for i in 0..999_999u64 {
            writeln!(w, "isend dst=1 tag=0 bytes={} req={i}", i % 4096).unwrap();
        }
        writeln!(w, "isend dst=1 tag=0 bytes=oops req=0").unwrap();
    }
    let t = NativeTrace::from_rank_files(vec![p.clone(), p]).unwrap();
    let mut st = t.rank_stream(0).unwrap();
    let (op, o) = st.next_op().unwrap().unwrap();
    assert_eq!(
        op,
        Op::Isend {
            dst: 1,
            tag: 0,
            bytes: 0,
            comm: W,
            req: ReqId(0)
        }
    );
    assert_eq!(o.line, 1);
    let mut n = 1;
    let err = loop {
        match st.next_op() {
            Ok(Some(_)) => n += 1,
            Ok(None) => panic!("no error"),
            Err(e) => break e,
        }
    };
    assert_eq!(n, 999_999);
    assert_eq!(err.origin.line, 1_000_000);
    assert!(err.message.contains("bytes must be an integer"), "{err}");
    std::fs::remove_dir_all(&s).unwrap();
}

// ---------------------------------------------------------------- message lists

use scenarios::msglist::{MessageList, MessageListConfig, RecvOrder};

/// The receive sources of a rank's program, in posting order, after
/// checking the program's shape: irecvs, isends, one waitall on all.
/// (peer, bytes) of each message.
type Peers = Vec<(u32, u64)>;

fn msglist_shape(ml: &MessageList, r: u32) -> (Peers, Peers) {
    let prog = ops(ml.program(r));
    let (mut recvs, mut sends) = (Vec::new(), Vec::new());
    for (k, op) in prog.iter().enumerate() {
        match op {
            Op::Irecv {
                src: Source::Rank(s),
                tag: TagSel::Tag(0),
                bytes,
                req,
                ..
            } => {
                assert!(sends.is_empty(), "irecv after isend");
                assert_eq!(*req, ReqId(k as u64));
                recvs.push((*s, *bytes));
            }
            Op::Isend {
                dst,
                tag: 0,
                bytes,
                req,
                ..
            } => {
                assert_eq!(*req, ReqId(k as u64));
                sends.push((*dst, *bytes));
            }
            Op::Waitall { reqs } => {
                assert_eq!(k, prog.len() - 1);
                assert_eq!(reqs.len(), k);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    (recvs, sends)
}

#[test]
fn msglist_p512_level0_spmv() {
    let p = data("workloads/amg-elasticity/P512-level0-spmv.csv");
    // Slow obvious reference: the rows, per sender and per receiver.
    let text = std::fs::read_to_string(&p).unwrap();
    let rows: Vec<(u32, u32, u64)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    let cfg = MessageListConfig {
        num_ranks: Some(512),
        ..Default::default()
    };
    let ml = MessageList::read(&p, &cfg).unwrap();
    assert_eq!(ml.num_ranks(), 512);
    assert_eq!(ml.num_messages(), rows.len());
    assert_eq!(ml.total_bytes(), rows.iter().map(|r| r.2).sum::<u64>());
    let rev = MessageList::read(
        &p,
        &MessageListConfig {
            recv_order: RecvOrder::Reversed,
            ..cfg.clone()
        },
    )
    .unwrap();
    let shuf = |seed| {
        MessageList::read(
            &p,
            &MessageListConfig {
                recv_order: RecvOrder::Shuffled { seed },
                ..cfg.clone()
            },
        )
        .unwrap()
    };
    let (s1, s1b, s2) = (shuf(1), shuf(1), shuf(2));
    let mut shuffled_differs = false;
    for r in 0..512u32 {
        let want_recvs: Vec<(u32, u64)> = rows
            .iter()
            .filter(|m| m.1 == r)
            .map(|m| (m.0, m.2))
            .collect();
        let want_sends: Vec<(u32, u64)> = rows
            .iter()
            .filter(|m| m.0 == r)
            .map(|m| (m.1, m.2))
            .collect();
        let (recvs, sends) = msglist_shape(&ml, r);
        assert_eq!(recvs, want_recvs, "rank {r}");
        assert_eq!(sends, want_sends, "rank {r}");
        assert_eq!((ml.recvs_of(r), ml.sends_of(r)), (recvs.len(), sends.len()));
        let (mut rr, rs) = msglist_shape(&rev, r);
        rr.reverse();
        assert_eq!((rr, rs), (want_recvs.clone(), want_sends.clone()));
        let (a, sa) = msglist_shape(&s1, r);
        assert_eq!(sa, want_sends, "sends keep listed order");
        assert_eq!(msglist_shape(&s1b, r).0, a, "same seed, same order");
        let (b, _) = msglist_shape(&s2, r);
        let mut sorted = a.clone();
        sorted.sort();
        let mut want_sorted = want_recvs.clone();
        want_sorted.sort();
        assert_eq!(sorted, want_sorted, "a permutation");
        if a.len() > 3 && a != b && a != want_recvs {
            shuffled_differs = true;
        }
    }
    assert!(
        shuffled_differs,
        "seeds 1 and 2 give different orders, unlike the listed one"
    );
    // Every message is sent once and received once.
    let sent: usize = (0..512).map(|r| ml.sends_of(r)).sum();
    let recvd: usize = (0..512).map(|r| ml.recvs_of(r)).sum();
    assert_eq!((sent, recvd), (rows.len(), rows.len()));
}

#[test]
fn msglist_malformed_inputs_name_file_and_line() {
    let s = scratch("msglist-err");
    let cfg = MessageListConfig {
        num_ranks: Some(4),
        ..Default::default()
    };
    let cases = [
        (
            "src,dst,bytes\n0,1,8\n1,0,-8\n",
            "m.csv:3: bytes must not be negative, found `-8`",
        ),
        (
            "src,dst,bytes\n0,1,8\n1,9,8\n",
            "m.csv:3: rank 9 does not exist (num_ranks = 4)",
        ),
        (
            "src,dst,bytes\n0,1\n",
            "m.csv:2: expected 3 fields `src,dst,bytes`, found `0,1`",
        ),
        (
            "from,to,size\n",
            "m.csv:1: expected the header `src,dst,bytes` or a message, found `from,to,size`",
        ),
        (
            "0,1,x\n",
            "m.csv:1: bytes must be an integer in range, found `x`",
        ),
    ];
    for (text, want) in cases {
        let f = write(&s, "m.csv", text);
        let e = MessageList::read(&f, &cfg).unwrap_err().to_string();
        assert!(e.ends_with(want), "got `{e}`, want `{want}`");
    }
    let e = MessageList::read(&s.join("none.csv"), &cfg)
        .unwrap_err()
        .to_string();
    assert!(e.contains("none.csv: cannot open trace file"), "{e}");
    // Ranks without messages get empty programs.
    let f = write(&s, "ok.csv", "# a comment\n0,1,8\n\n0,1,16\n");
    let ml = MessageList::read(&f, &cfg).unwrap();
    assert_eq!(ops(ml.program(3)), vec![]);
    let (o, origin) = ml.program(1).next_op().unwrap().unwrap();
    assert_eq!(
        o,
        Op::Irecv {
            src: Source::Rank(0),
            tag: TagSel::Tag(0),
            bytes: 8,
            comm: W,
            req: ReqId(0)
        }
    );
    assert!(origin.to_string().ends_with("ok.csv:2"));
}

// ---------------------------------------------------------------- DUMPI

use scenarios::dumpi::{DumpiConfig, DumpiStream, DumpiTrace, NUM_FUNCTIONS, function_name};

fn dumpi_dir() -> PathBuf {
    data("traces/dumpi/sst-macro-testtrace")
}

#[test]
fn dumpi_testtrace_decodes_completely() {
    let dir = dumpi_dir();
    let t = DumpiTrace::open(&dir.join("testtrace.meta"), DumpiConfig::default()).unwrap();
    assert_eq!(t.num_ranks(), 4);
    for r in 0..4u32 {
        let mut s = t.rank_stream(r).unwrap();
        assert_eq!(s.version(), [1, 0, 0]);
        let mut all = Vec::new();
        while let Some((op, origin)) = s.next_op().unwrap() {
            assert!(
                origin
                    .to_string()
                    .contains(&format!("testtrace-000{r}.bin:"))
            );
            all.push(op);
        }
        // The recorded calls, per function, are those the footer counted.
        let footer = s.footer_call_counts();
        let decoded = s.decoded_counts();
        for f in 0..NUM_FUNCTIONS {
            assert_eq!(
                decoded[f],
                footer[f] as u64,
                "rank {r} {}",
                function_name(f)
            );
        }
        let names: Vec<&str> = (0..NUM_FUNCTIONS)
            .filter(|&f| decoded[f] > 0)
            .map(function_name)
            .collect();
        assert_eq!(
            names,
            [
                "MPI_Recv",
                "MPI_Isend",
                "MPI_Wait",
                "MPI_Barrier",
                "MPI_Allreduce",
                "MPI_Comm_size",
                "MPI_Comm_rank",
                "MPI_Init",
                "MPI_Finalize"
            ]
        );
        // Communication: a ring, one MPI_INT (4 bytes, from the trace's
        // datatype table) to the right neighbour, tag 1337.
        let comm: Vec<Op> = all
            .iter()
            .filter(|o| !matches!(o, Op::Compute { .. }))
            .cloned()
            .collect();
        assert_eq!(
            comm,
            vec![
                Op::Barrier { comm: W },
                Op::Isend {
                    dst: (r + 1) % 4,
                    tag: 1337,
                    bytes: 4,
                    comm: W,
                    req: ReqId(2)
                },
                Op::Recv {
                    src: Source::Rank((r + 3) % 4),
                    tag: TagSel::Tag(1337),
                    bytes: 4,
                    comm: W
                },
                Op::Wait { req: ReqId(2) },
                Op::Allreduce {
                    elem_bytes: 4,
                    bytes: 4,
                    comm: W
                },
            ],
            "rank {r}"
        );
        // Computation: one gap before each of the 8 calls after MPI_Init.
        assert_eq!(all.len() - comm.len(), 8, "rank {r}");
    }
    // Rank 0: MPI_Init ends at 737.670 ms (wall), MPI_Comm_rank starts at
    // 737.694 ms: 24 us of computation.
    let first = ops(t.rank_stream(0).unwrap());
    assert_eq!(
        first[0],
        Op::Compute {
            duration: Time::from_us(24)
        }
    );
    // The CPU clock and a scale factor.
    let cfg = DumpiConfig {
        clock: scenarios::dumpi::Clock::Cpu,
        compute_scale: 0.5,
        ..Default::default()
    };
    let t = DumpiTrace::open(&dir.join("testtrace.meta"), cfg).unwrap();
    // CPU: Init stops at 7.716 ms, Comm_rank starts at 7.739 ms: 23 us, halved.
    assert_eq!(
        ops(t.rank_stream(0).unwrap())[0],
        Op::Compute {
            duration: Time::from_ps(11_500_000)
        }
    );
}

/// Copies the test trace into a scratch directory, letting `edit` change
/// rank 0's bytes.
fn dumpi_copy(name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let dir = dumpi_dir();
    let s = scratch(name);
    for f in [
        "testtrace.meta",
        "testtrace-0000.bin",
        "testtrace-0001.bin",
        "testtrace-0002.bin",
        "testtrace-0003.bin",
    ] {
        std::fs::copy(dir.join(f), s.join(f)).unwrap();
    }
    let p = s.join("testtrace-0000.bin");
    let mut b = std::fs::read(&p).unwrap();
    edit(&mut b);
    std::fs::write(&p, b).unwrap();
    s
}

#[test]
fn dumpi_malformed_inputs_name_file_and_record() {
    // MPI_Init's argv[0] claims 65535 characters: the record runs off the
    // end of the file.
    let s = dumpi_copy("dumpi-trunc", |b| {
        assert_eq!(&b[0x31..0x35], &[0, 0, 0, 5]);
        b[0x33] = 0xff;
        b[0x34] = 0xff;
    });
    let t = DumpiTrace::open(&s.join("testtrace.meta"), DumpiConfig::default()).unwrap();
    let e = first_error(t.rank_stream(0).unwrap());
    assert!(
        e.contains("testtrace-0000.bin:1: record 1 (MPI_Init) at byte offset 16: truncated: file ends inside the record"),
        "{e}"
    );
    // An unknown function label in the second record.
    let s = dumpi_copy("dumpi-label", |b| {
        b[0x3a] = 0x7f;
        b[0x3b] = 0x00;
    });
    let t = DumpiTrace::open(&s.join("testtrace.meta"), DumpiConfig::default()).unwrap();
    let e = first_error(t.rank_stream(0).unwrap());
    assert!(e.ends_with("testtrace-0000.bin:2: record 2 (?) at byte offset 58: unknown function label 32512: corrupt file?"), "{e}");
    // The Isend's destination is rank 9 of 4.
    let s = dumpi_copy("dumpi-rank", |b| {
        // Isend record at 0x9f: label 2, mask 1, thread 2, times 24, then
        // count (4), datatype (2), dest (4).
        assert_eq!(&b[0x9f..0xa1], &[0, 8]);
        b[0x9f + 29 + 6 + 3] = 9;
    });
    let t = DumpiTrace::open(&s.join("testtrace.meta"), DumpiConfig::default()).unwrap();
    let e = first_error(t.rank_stream(0).unwrap());
    assert!(e.ends_with("testtrace-0000.bin:5: record 5 (MPI_Isend) at byte offset 159: rank 9 does not exist (the trace has 4 ranks)"), "{e}");
    // A file cut short loses its index.
    let s = dumpi_copy("dumpi-cut", |b| b.truncate(0x100));
    let t = DumpiTrace::open(&s.join("testtrace.meta"), DumpiConfig::default()).unwrap();
    let e = t.rank_stream(0).err().unwrap().to_string();
    assert!(
        e.contains("testtrace-0000.bin: no DUMPI index record in the last 64 bytes"),
        "{e}"
    );
    // Not a DUMPI file at all.
    let s = dumpi_copy("dumpi-magic", |b| b[0] = 0);
    let e = DumpiStream::open(&s.join("testtrace-0000.bin"), 4, DumpiConfig::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.ends_with("testtrace-0000.bin: not a DUMPI file (no magic number at byte 0)"),
        "{e}"
    );
    // A missing rank file.
    std::fs::write(
        s.join("testtrace.meta"),
        "numprocs=5\nfileprefix=testtrace\n",
    )
    .unwrap();
    let e = DumpiTrace::open(&s.join("testtrace.meta"), DumpiConfig::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("testtrace.meta: rank 4's trace file")
            && e.ends_with("testtrace-0004.bin does not exist"),
        "{e}"
    );
}

// ---------------------------------------------------------------- GOAL

use scenarios::goal::{GoalConfig, GoalSchedule};

/// The example read in one order its graph allows (`next_op`: each
/// operation completes when handed out; among ready ones sends go before
/// receives before computations).
#[test]
fn goal_example_in_graph_order() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/goal-small.goal");
    let g = GoalSchedule::open(&p, GoalConfig::default()).unwrap();
    assert_eq!(g.num_ranks(), 3);
    let isend = |dst, tag, req| Op::Isend {
        dst,
        tag,
        bytes: 8,
        comm: W,
        req: ReqId(req),
    };
    let irecv = |src, tag, bytes, req| Op::Irecv {
        src,
        tag,
        bytes,
        comm: W,
        req: ReqId(req),
    };
    let s0 = g.rank_stream(0).unwrap();
    assert!(s0.is_graph());
    assert_eq!(
        ops(s0),
        vec![
            Op::Compute {
                duration: Time::from_ns(100)
            },
            isend(1, 5, 1),
            isend(2, 5, 2),
        ]
    );
    assert_eq!(
        ops(g.rank_stream(1).unwrap()),
        vec![
            irecv(Source::Rank(0), TagSel::Tag(5), 8, 0),
            // The independent receive is posted before the computation
            // that became ready with it.
            irecv(Source::Any, TagSel::Any, 16, 3),
            Op::Compute {
                duration: Time::from_ns(50)
            },
            isend(2, 6, 2),
        ]
    );
    let mut s2 = g.rank_stream(2).unwrap();
    let (first, o) = s2.next_op().unwrap().unwrap();
    assert_eq!(first, irecv(Source::Rank(0), TagSel::Tag(5), 8, 0));
    assert!(o.to_string().ends_with("goal-small.goal:30"), "{o}");
    assert_eq!(
        ops(s2),
        vec![
            irecv(Source::Rank(1), TagSel::Tag(6), 8, 1),
            Op::Compute {
                duration: Time::from_ns(10)
            },
        ]
    );
    // calc units are a parameter.
    let g = GoalSchedule::open(
        &p,
        GoalConfig {
            calc_unit: Time::from_us(1),
        },
    )
    .unwrap();
    assert_eq!(
        ops(g.rank_stream(0).unwrap())[0],
        Op::Compute {
            duration: Time::from_us(100)
        }
    );
}

/// A binomial-tree broadcast written as GOAL: a rank's sends follow its
/// receive.
#[test]
fn goal_binomial_tree() {
    let s = scratch("goal-tree");
    let mut text = String::from("num_ranks 8\n");
    for r in 0..8u32 {
        text += &format!("rank {r} {{\n");
        let low = if r == 0 { 8 } else { r & r.wrapping_neg() };
        if r != 0 {
            text += &format!("  in: recv 4b from {} tag 0\n", r - low);
        }
        let mut k = 0;
        let mut bit = low >> 1;
        while bit > 0 {
            text += &format!("  o{k}: send 4b to {} tag 0\n", r + bit);
            if r != 0 {
                text += &format!("  o{k} requires in\n");
            }
            k += 1;
            bit >>= 1;
        }
        text += "}\n";
    }
    let f = write(&s, "tree.goal", &text);
    let g = GoalSchedule::open(&f, GoalConfig::default()).unwrap();
    let r0 = ops(g.rank_stream(0).unwrap());
    assert_eq!(r0.len(), 3);
    assert!(matches!(r0[0], Op::Isend { dst: 4, .. }));
    let r2 = ops(g.rank_stream(2).unwrap());
    assert_eq!(
        r2,
        vec![
            Op::Irecv {
                src: Source::Rank(0),
                tag: TagSel::Tag(0),
                bytes: 4,
                comm: W,
                req: ReqId(0)
            },
            Op::Isend {
                dst: 3,
                tag: 0,
                bytes: 4,
                comm: W,
                req: ReqId(1)
            },
        ]
    );
    assert_eq!(ops(g.rank_stream(7).unwrap()).len(), 1);
}

/// A GOAL stream that asks its rank to look for ready operations after
/// every start and completion (what the MPI layer did before the stream
/// said when none can have become ready).
struct AlwaysLook(scenarios::goal::GoalStream);

impl OpStream for AlwaysLook {
    fn next_op(&mut self) -> Result<Option<(Op, mpi_layer::Origin)>, ProgramError> {
        self.0.next_op()
    }
    fn is_graph(&self) -> bool {
        true
    }
    fn next_ready(&mut self) -> Result<mpi_layer::Ready, ProgramError> {
        self.0.next_ready()
    }
    fn started(&mut self, id: u32) -> bool {
        self.0.started(id);
        true
    }
    fn completed(&mut self, id: u32) -> bool {
        self.0.completed(id);
        true
    }
}

/// A GOAL stream's answer to "may this start or completion have made an
/// operation ready" (`OpStream::started`, `completed`) only saves the
/// rank visits that find nothing: random schedules (sends, receives and
/// calcs on two CPUs, `requires` and `irequires`, some deadlocking) run
/// to the same finish times, makespan, traffic and errors as with a visit
/// after every start and completion, with fewer events.
#[test]
fn goal_visits_only_when_something_may_be_ready() {
    use mpi_layer::MpiParams;
    use sim_core::rand::Rng;
    use topology::Placement;
    let s = scratch("goal-look");
    let mut rng = sim_core::RngStreams::new(11).stream("goal-look");
    // (makespan, finish times, traffic, control messages) and events.
    fn sim<S: OpStream>(p: u32, streams: Vec<S>) -> Result<(String, u64), String> {
        let net = topology::ideal::IdealNetwork::unlimited(p, Time::ZERO);
        let params = MpiParams::loggp(
            Time::from_ns(2500),
            Time::from_ns(1500),
            Time::from_ns(1000),
            sim_core::PerByte::from_ps(6),
            sim_core::PerByte::ZERO,
            64,
        );
        mpi_layer::run(Placement::block(p, 1, 1), net, streams, params)
            .map(|r| {
                let what = (r.makespan, r.finish, r.traffic, r.control_messages);
                (format!("{what:?}"), r.events)
            })
            .map_err(|e| e.to_string())
    }
    let run = |g: &GoalSchedule, always: bool| {
        let st = g.streams().unwrap();
        if always {
            sim(g.num_ranks(), st.into_iter().map(AlwaysLook).collect())
        } else {
            sim(g.num_ranks(), st)
        }
    };
    let (mut fewer, mut errors) = (0, 0);
    for case in 0..60 {
        let p: u32 = rng.random_range(2..6);
        let mut blocks = vec![Vec::new(); p as usize];
        for m in 0..rng.random_range(1..30u32) {
            let (a, b) = (rng.random_range(0..p), rng.random_range(0..p));
            let size = [1u32, 8, 100, 5000][rng.random_range(0..4)];
            blocks[a as usize].push(format!("send {size}b to {b} tag {m}"));
            blocks[b as usize].push(format!("recv {size}b from {a} tag {m}"));
        }
        let mut text = format!("num_ranks {p}\n");
        for (r, ops) in blocks.iter_mut().enumerate() {
            for _ in 0..rng.random_range(0..4) {
                ops.push(format!("calc {}", rng.random_range(1..3000u32)));
            }
            // Shuffle, then each operation depends on up to two earlier
            // ones (a schedule acyclic within its rank).
            for i in (1..ops.len()).rev() {
                ops.swap(i, rng.random_range(0..=i));
            }
            text += &format!("rank {r} {{\n");
            for (i, op) in ops.iter().enumerate() {
                let cpu = rng.random_range(0..2);
                text += &format!("l{i}: {op} cpu {cpu}\n");
                for _ in 0..rng.random_range(0..3usize).min(i) {
                    let j = rng.random_range(0..i);
                    let kw = if rng.random_bool(0.3) {
                        "irequires"
                    } else {
                        "requires"
                    };
                    text += &format!("l{i} {kw} l{j}\n");
                }
            }
            text += "}\n";
        }
        let f = write(&s, &format!("case{case}.goal"), &text);
        let g = GoalSchedule::open(&f, GoalConfig::default()).unwrap();
        let (now, before) = (run(&g, false), run(&g, true));
        match (&now, &before) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.0, b.0, "case {case}:\n{text}");
                assert!(a.1 <= b.1, "case {case}: {} events, {} before", a.1, b.1);
                fewer += usize::from(a.1 < b.1);
            }
            _ => {
                assert_eq!(now, before, "case {case}:\n{text}");
                errors += 1;
            }
        }
    }
    // Both kinds of case occurred, and the visits saved show.
    assert!(
        fewer > 10 && errors > 0 && errors < 50,
        "{fewer} fewer, {errors} errors"
    );
    let _ = std::fs::remove_dir_all(&s);
}

/// Every rank's operations with their origins, or the first error.
fn goal_run(g: &GoalSchedule) -> Result<Vec<Vec<(Op, String)>>, String> {
    let mut all = Vec::new();
    for r in 0..g.num_ranks() {
        let mut st = g.rank_stream(r).map_err(|e| e.to_string())?;
        let mut v = Vec::new();
        while let Some((op, o)) = st.next_op().map_err(|e| e.to_string())? {
            v.push((op, o.to_string()));
        }
        all.push(v);
    }
    Ok(all)
}

/// A compiled schedule (`GoalSchedule::compile`, `netsim compile`) runs
/// as its text: the same operations in the same order with the same
/// origins (the text's lines). A damaged compiled file is an error
/// naming it, never a panic or a hang: cut anywhere, it is refused; with
/// any one byte changed, it runs or is refused.
#[test]
fn goal_compiled_runs_as_its_text() {
    let s = scratch("goal-compiled");
    // Labels longer than 16 bytes, `irequires`, any source and tag,
    // cpu and nic, comments and blank lines: every record kind.
    let mut text = String::from("num_ranks 3\n// a comment\n");
    for r in 0..3u32 {
        text += &format!("rank {r} {{\n\n");
        text += &format!("  a_label_longer_than_sixteen: calc {} cpu 1\n", 10 + r);
        text += &format!("  s: send 8b to {} tag {r} nic 1\n", (r + 1) % 3);
        text += "  v: recv 8b from -1 tag -1 cpu 1 /* any */\n";
        text += "  s irequires a_label_longer_than_sixteen\n  t: calc 5\n  t requires v\n}\n";
    }
    let f = write(&s, "g.goal", &text);
    let c = s.join("g.goalc");
    let config = GoalConfig::default;
    assert_eq!(GoalSchedule::compile(&f, &c, config()).unwrap(), 3);
    let want = goal_run(&GoalSchedule::open(&f, config()).unwrap()).unwrap();
    assert_eq!(want.iter().map(Vec::len).sum::<usize>(), 12);
    // Rank 1's receive, on its block's fifth line.
    assert!(want[1][0].1.ends_with("g.goal:16"), "{:?}", want[1][0]);
    assert_eq!(
        goal_run(&GoalSchedule::open(&c, config()).unwrap()),
        Ok(want)
    );
    // A compiled file is checked with the run's `calc` unit.
    let f2 = write(
        &s,
        "c.goal",
        "num_ranks 1\nrank 0 {\n  c: calc 1000000000000000\n}\n",
    );
    let c2 = s.join("c.goalc");
    let ps = GoalConfig {
        calc_unit: Time::from_ps(1),
    };
    GoalSchedule::compile(&f2, &c2, ps.clone()).unwrap();
    assert!(goal_run(&GoalSchedule::open(&c2, ps).unwrap()).is_ok());
    let ms = GoalConfig {
        calc_unit: Time::from_us(1000),
    };
    let e = goal_run(&GoalSchedule::open(&c2, ms).unwrap()).unwrap_err();
    assert!(e.contains("c.goal:3: calc 1000000000000000"), "{e}");
    // Compiling onto the text itself is refused before anything is written.
    let e = GoalSchedule::compile(&f, &f, config()).unwrap_err();
    assert!(e.to_string().contains("is the schedule itself"), "{e}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
    // Compiling a compiled file is refused.
    let e = GoalSchedule::compile(&c, &s.join("x"), config()).unwrap_err();
    assert!(
        e.to_string().contains("already a compiled GOAL schedule"),
        "{e}"
    );

    let bytes = std::fs::read(&c).unwrap();
    let d = s.join("d.goalc");
    let name = d.display().to_string();
    for cut in 12..bytes.len() {
        std::fs::write(&d, &bytes[..cut]).unwrap();
        let r = GoalSchedule::open(&d, config()).map_err(|e| e.to_string());
        let e = r.and_then(|g| goal_run(&g)).expect_err("a cut file runs");
        assert!(e.starts_with(&name), "cut at {cut}: {e}");
    }
    for at in 0..bytes.len() {
        for x in [0x01, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[at] ^= x;
            std::fs::write(&d, &b).unwrap();
            if let Ok(g) = GoalSchedule::open(&d, config()) {
                let _ = goal_run(&g);
            }
        }
    }
}

/// Drains every rank of `text` in graph order; the first error.
fn goal_error(s: &Path, text: &str) -> String {
    let f = write(s, "g.goal", text);
    let g = match GoalSchedule::open(&f, GoalConfig::default()) {
        Ok(g) => g,
        Err(e) => return e.to_string(),
    };
    for r in 0..g.num_ranks() {
        let mut st = g.rank_stream(r).unwrap();
        loop {
            match st.next_op() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => return e.to_string(),
            }
        }
    }
    panic!("no error in {text}");
}

#[test]
fn goal_malformed_inputs_name_file_and_line() {
    let s = scratch("goal-err");
    let cases = [
        (
            "num_ranks 2\nrank 0 {\n l1: send 8 to 1\n}\n",
            "g.goal:3: size `8` must be bytes, e.g. `8b`",
        ),
        (
            "num_ranks 2\nrank 0 {\n l1: send 8b to 2\n}\n",
            "g.goal:3: rank 2 does not exist (num_ranks 2)",
        ),
        (
            "num_ranks 2\nrank 0 {\n recv 8b from 4294967294\n}\n",
            "g.goal:3: rank 4294967294 does not exist (num_ranks 2)",
        ),
        (
            "num_ranks 2\nrank 0 {\n l1: jump 8b\n}\n",
            "g.goal:3: expected `send`, `recv` or `calc` after the label, found `jump`",
        ),
        (
            "num_ranks 2\nrank 0 {\n jump 8b\n}\n",
            "g.goal:3: unknown operation `jump` (send, recv, calc, a label `l:`, or a dependency `a requires b`)",
        ),
        (
            "num_ranks 2\nrank 0 {\n l1: calc 5\n l1 requires l9\n}\n",
            "g.goal:4: dependency names label `l9`, undefined above",
        ),
        (
            "num_ranks 1\nrank 0 {\n a: calc 1\n b: calc 2\n a requires b\n b requires a\n}\n",
            "g.goal:3: dependency cycle: this operation can never start",
        ),
        (
            "num_ranks 1\nrank 0 {\n x: calc 1\n a: calc 1\n b: calc 2\n a requires b\n b requires a\n}\n",
            "g.goal:4: dependency cycle: this operation can never start",
        ),
        (
            "num_ranks 2\nrank 0 {\n l1: send -8b to 1\n}\n",
            "g.goal:3: size must not be negative, found `-8b`",
        ),
        (
            "num_ranks 2\nrank 0 {\n l1: send 8b to 1 tag -1\n}\n",
            "g.goal:3: a send's tag 4294967295 (-1) is LogGOPSim's wildcard, which netsim's sends do not have",
        ),
        ("rank 0 {\n}\n", "g.goal:1: `rank` block before `num_ranks`"),
        (
            "num_ranks 2\nrank 5 {\n}\n",
            "g.goal:2: rank 5 does not exist (num_ranks 2)",
        ),
        (
            "num_ranks 2\nrank 0 {\n l1: calc 1\n",
            "g.goal:2: `rank` block is never closed with `}`",
        ),
        (
            "num_ranks 2\nsend 8b to 1\n",
            "g.goal:2: expected `num_ranks N` or `rank R {`, found `send 8b to 1`",
        ),
    ];
    for (text, want) in cases {
        let e = goal_error(&s, text);
        assert!(e.ends_with(want), "got `{e}`, want `{want}`");
    }
}

// ---------------------------------------------------------------- any format

use scenarios::trace::{TraceConfig, TraceFormat, open_streams};

#[test]
fn open_streams_detects_every_format() {
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let cfg = TraceConfig::default();
    for (file, format, ranks) in [
        ("native-ring.trace", TraceFormat::Native, 4),
        ("goal-small.goal", TraceFormat::Goal, 3),
    ] {
        let p = ex.join(file);
        assert_eq!(TraceFormat::detect(&p), format);
        let streams = open_streams(&p, format, &cfg).unwrap();
        assert_eq!(streams.len(), ranks);
        for mut s in streams {
            assert!(!ops_dyn(&mut *s).is_empty());
        }
    }
    let cases = [
        (
            "traces/dumpi/sst-macro-testtrace/testtrace.meta",
            TraceFormat::Dumpi,
            4,
        ),
        (
            "traces/simgrid-ti/micro/actions_bcast.txt",
            TraceFormat::SimGridTi,
            3,
        ),
        (
            "workloads/amg-elasticity/P512-level6-spmv.csv",
            TraceFormat::MessageList,
            0,
        ),
    ];
    for (rel, format, ranks) in cases {
        let p = data(rel);
        assert_eq!(TraceFormat::detect(&p), format);
        let streams = open_streams(&p, format, &cfg).unwrap();
        if ranks > 0 {
            assert_eq!(streams.len(), ranks);
        }
        for mut s in streams {
            ops_dyn(&mut *s);
        }
    }
}

// ---------------------------------------------------------------- scenario files

mod scenario_files {
    use super::{data, scratch, write};
    use scenarios::scenario::{self, Outcome, Report};
    use std::path::{Path, PathBuf};

    fn example(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples")
            .join(name)
    }

    /// Loads and runs a scenario file; the report without wall-clock figures.
    fn run(path: &Path) -> Outcome {
        let (src, sc) = scenario::load(path).unwrap_or_else(|e| panic!("{e}"));
        let mut o = sc
            .run(&src, u64::MAX, |_, _| {})
            .unwrap_or_else(|e| panic!("{e}"));
        o.report.wall = None;
        o
    }

    fn run_err(path: &Path) -> String {
        match scenario::load(path) {
            Err(e) => e.to_string(),
            Ok((src, sc)) => match sc.run(&src, u64::MAX, |_, _| {}) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("{} ran but should have failed", path.display()),
            },
        }
    }

    /// `transport.mode` defaults to `auto`: the report says which mode
    /// the rule chose and why; a named mode gets no reason. Large
    /// messages with one rank per node run in flow mode, short ones with
    /// 8 ranks per node in packet mode, and a named mode is kept.
    #[test]
    fn auto_mode_is_chosen_and_reported() {
        let s = scratch("auto-mode");
        let scenario = |size: &str, ppn: u32, mode: &str| {
            format!(
                "[machine]\npreset = \"blue-waters\"\ndims = [2, 2, 2]\n{mode}\n\
                 [mapping]\nppn = {ppn}\n[workload]\nkind = \"random-pairs\"\n\
                 procs = 16\nrounds = 1\nsize = \"{size}\"\n"
            )
        };
        let big = run(&write(&s, "big.toml", &scenario("64 KiB", 1, "")));
        assert_eq!(big.report.mode, topology::Mode::Flow);
        let why = big.report.mode_auto.as_deref().unwrap();
        assert!(
            why.contains("65536 B") && why.contains("16 packet"),
            "{why}"
        );
        let json = serde_json::to_value(&big.report).unwrap();
        assert_eq!(json["mode"], "flow");
        assert_eq!(json["mode_auto"], why);
        let small = run(&write(&s, "small.toml", &scenario("1 KiB", 8, "")));
        assert_eq!(small.report.mode, topology::Mode::Packet);
        assert!(small.report.mode_auto.unwrap().contains("8 ranks per node"));
        let named = scenario("64 KiB", 1, "[transport]\nmode = \"packet\"");
        let named = run(&write(&s, "named.toml", &named));
        assert_eq!(named.report.mode, topology::Mode::Packet);
        assert!(named.report.mode_auto.is_none());
        let json = serde_json::to_value(&named.report).unwrap();
        assert!(json.get("mode_auto").is_none(), "{json}");
        // A packet-only routing keeps auto on packets (flow would refuse it).
        let valiant = scenario("64 KiB", 1, "[transport]\nrouting = \"valiant\"");
        let valiant = run(&write(&s, "valiant.toml", &valiant));
        assert_eq!(valiant.report.mode, topology::Mode::Packet);
        assert!(valiant.report.mode_auto.unwrap().contains("valiant"));
    }

    /// Open-loop uniform traffic at 40 % of capacity: the network keeps
    /// up, so offered and accepted throughput are the load less the 1/64
    /// of packets a host draws for itself (never injected).
    #[test]
    fn synthetic_torus() {
        let o = run(&example("synthetic-torus.toml"));
        let s = o.report.synthetic.expect("a synthetic section");
        let want = 0.4 * 63.0 / 64.0;
        assert!((s.offered - want).abs() < 0.02 * want, "{s:?}");
        assert!((s.accepted - want).abs() < 0.02 * want, "{s:?}");
        assert_eq!(s.undelivered, 0);
        assert!(s.latency_ps.p50 <= s.latency_ps.p99);
        assert!(s.saturation.is_none());
        // A torus pattern on a machine without one, and the ideal
        // network, are refused naming the field.
        let dir = scratch("synthetic");
        let f = write(
            &dir,
            "eth.toml",
            "[machine]\npreset = \"ethernet-zhu\"\n[workload]\nkind = \"synthetic\"\npattern = \"tornado\"\n",
        );
        let e = run_err(&f);
        assert!(e.contains("pattern") && e.contains("torus"), "{e}");
        let f = write(
            &dir,
            "ideal.toml",
            "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"synthetic\"\n",
        );
        assert!(run_err(&f).contains("links"), "ideal accepted");
        let f = write(
            &dir,
            "load.toml",
            "[machine]\npreset = \"blue-waters\"\ndims = [2, 2, 2]\n[workload]\nkind = \"synthetic\"\nload = \"half\"\n",
        );
        assert!(run_err(&f).contains("saturation"), "bad load accepted");
    }

    /// `routing = { file = ... }`: the LFT of `topology::lft`'s tests on
    /// a 2-ary 2-tree sends bit-complement's 2 -> 1 and 3 -> 0 both
    /// through top switch 1 (two flows on a link: Θ = 1/2 of the NIC),
    /// where D-mod-k gives each its own (Θ = 1): at 75 % of the NIC
    /// D-mod-k keeps up and the file does not.
    #[test]
    fn forwarding_tables_from_a_file() {
        let dir = scratch("lft");
        let lft = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../fuzz/regressions/lft/valid-2-ary-2-tree"),
        )
        .unwrap();
        write(&dir, "lft.txt", &lft);
        let toml = |routing: &str| {
            format!(
                "[machine]\npreset = \"fat-tree\"\narity = 2\nlevels = 2\n\
                 [transport]\nmode = \"packet\"\npacket_size = \"64 B\"\nrouting = {routing}\n\
                 [workload]\nkind = \"synthetic\"\npattern = \"bit-complement\"\nload = 0.75\n\
                 warmup_cycles = 500\nmeasure_cycles = 2000\ndrain_cycles = 1000\n"
            )
        };
        let s = |o: scenarios::scenario::Outcome| o.report.synthetic.unwrap();
        let d = s(run(&write(&dir, "dmodk.toml", &toml("\"dmodk\""))));
        assert!((d.accepted - 0.75).abs() < 0.02, "{d:?}");
        let f = s(run(&write(
            &dir,
            "file.toml",
            &toml("{ file = \"lft.txt\" }"),
        )));
        // Hosts 0 and 1 keep up (0.75 each); hosts 2 and 3 share one
        // link of the NIC's rate, 0.5 each: (0.75 + 0.75 + 0.5 + 0.5) / 4.
        assert!((f.accepted - 0.625).abs() < 0.02, "{f:?}");
        // A bad table names the file and line; a bad key is refused.
        write(
            &dir,
            "bad.txt",
            &lft.replace("0x0003 004 :", "0x0003 009 :"),
        );
        let e = run_err(&write(&dir, "bad.toml", &toml("{ file = \"bad.txt\" }")));
        assert!(e.contains("bad.txt:7:") && e.contains("ports"), "{e}");
        let e = run_err(&write(&dir, "key.toml", &toml("{ path = \"lft.txt\" }")));
        assert!(e.contains("path"), "{e}");
    }

    fn cell(r: &Report, protocol: &str, locality: &str) -> (u64, u64) {
        let t = r
            .traffic
            .iter()
            .find(|t| t.protocol == protocol && t.locality == locality)
            .unwrap();
        (t.messages, t.bytes)
    }

    /// Ideal network, Blue Waters Table 1, other node. A one-way message is
    /// alpha + s / R_b (rounded up to the picosecond) exactly, and a round
    /// trip two of them:
    ///   8 B short:       2.3 us + 8 / 1.3e9 s  = 2 300 000 + 6 154 ps  = 2 306 154 ps
    ///   64 KiB rendezv.: 3.0 us + 65536 / 2.9e9 = 3 000 000 + 22 598 621 = 25 598 621 ps
    /// makespan = 2 x 2 306 154 + 2 x 25 598 621 = 55 809 550 ps.
    #[test]
    fn example_ping_pong_ideal_is_the_postal_model() {
        let o = run(&example("ping-pong-ideal.toml"));
        assert_eq!(o.report.makespan_ps, 2 * 2_306_154 + 2 * 25_598_621);
        assert_eq!(cell(&o.report, "short", "other_node"), (2, 16));
        assert_eq!(cell(&o.report, "rendezvous", "other_node"), (2, 131_072));
        // One RTS and one CTS per rendezvous message.
        assert_eq!(o.report.control_messages, 4);
        assert!(o.links.is_none(), "the ideal network has no links");
    }

    /// Reversed HighVolumePingPong, n = 64, both directions: the k-th
    /// arriving message finds its receive at position 64 - k + 1 of
    /// `posted_recvs`, so every length 1..=64 is searched twice (once per
    /// direction): mean 32.5, max 64.
    #[test]
    fn example_hvpp_fitted_parameters() {
        let o = run(&example("hvpp-fitted.toml"));
        let m = &o.report.matching.posted_recvs;
        assert_eq!((m.searches, m.max), (128, 64));
        assert_eq!(m.mean, 32.5);
        assert_eq!(cell(&o.report, "short", "other_node"), (128, 1024));
    }

    /// 64 ranks, 6 faces each, 2 iterations: 768 messages of 32 KiB, all
    /// rendezvous (eager_max 8 KiB) with an RTS and a CTS each. With 2 ranks
    /// per node on an x-extent of 4, ranks 2k and 2k + 1 are each other's
    /// x-neighbour once: 2 messages per node per iteration inside the node,
    /// 32 x 2 x 2 = 128; block mapping spreads a node's 2 ranks over its 2
    /// sockets (cores split evenly), so they are `same_node`.
    #[test]
    fn example_halo_torus_counts() {
        let o = run(&example("halo-torus.toml"));
        let r = &o.report;
        assert_eq!(r.messages, 768);
        assert_eq!(r.bytes, 768 * 32_768);
        assert_eq!(r.control_messages, 2 * 768);
        assert_eq!(cell(r, "rendezvous", "same_node").0, 128);
        assert_eq!(cell(r, "rendezvous", "other_node").0, 640);
        assert_eq!(r.links.len(), 5, "[report] top_links = 5");
        assert!(r.links[0].utilization > 0.0 && r.links[0].utilization <= 1.0);
        assert_eq!(o.torus, Some([4, 2, 2]));
    }

    /// Ring allreduce of 64 KiB on 16 ranks: 15 reduce-scatter and 15
    /// allgather steps, every rank sending one 64 KiB / 16 = 4 KiB chunk per
    /// step: 2 x 15 x 16 = 480 messages, 480 x 4096 B. Block mapping with 4
    /// ranks per node on 1 socket of 8 cores: of each rank's ring successor,
    /// 3 in 4 are on its node.
    #[test]
    fn example_allreduce_infiniband_ring() {
        let o = run(&example("allreduce-infiniband.toml"));
        let r = &o.report;
        assert_eq!((r.messages, r.bytes), (480, 480 * 4096));
        assert_eq!(cell(r, "eager", "same_socket").0, 360);
        assert_eq!(cell(r, "eager", "other_node").0, 120);
        assert_eq!(r.nodes, 4);
    }

    /// Rank 0 computes 2 ms and sends 8 B, rank 1 computes 1 ms and
    /// answers: 3 ms + 2 x (2.3 us + 8 B / 1.3 GB/s) = 3 004 612 308 ps.
    #[test]
    fn example_trace_ti_by_hand() {
        let o = run(&example("trace-ti.toml"));
        assert_eq!(o.report.makespan_ps, 3_000_000_000 + 2 * 2_306_154);
        assert_eq!(o.report.messages, 2);
    }

    /// Machine file and map file: 2 x (2.3 us + 8 B / 1.3 GB/s) whatever
    /// the cables; each of the 6 link directions on the path carries one
    /// 8 B message.
    #[test]
    fn example_machine_file_and_map_file() {
        let o = run(&example("machine-file.toml"));
        assert_eq!(o.report.makespan_ps, 2 * 2_306_154);
        assert_eq!(o.report.machine, "two-switches");
        assert_eq!(cell(&o.report, "short", "other_node"), (2, 16));
        let names: Vec<&str> = o.report.links.iter().map(|l| l.name.as_str()).collect();
        assert!(
            names.contains(&"sw0 -> sw1") && names.contains(&"sw1 -> sw0"),
            "{names:?}"
        );
        assert!(o.report.links.iter().all(|l| l.bytes == 8));
        // A map file naming a host that does not exist names its line.
        let d = scratch("bad-map");
        let m = std::fs::read_to_string(example("machines/two-switches.machine")).unwrap();
        write(&d, "m.machine", &m);
        write(&d, "bad.map", "0 0\n# comment\n9 0\n");
        let e = run_err(&write(
            &d,
            "s.toml",
            "[machine]\nfile = \"m.machine\"\n[mapping]\nkind = \"file\"\nfile = \"bad.map\"\n[workload]\nkind = \"ping-pong\"\n",
        ));
        assert!(e.contains("bad.map:3:") && e.contains("node 9"), "{e}");
        // And a bad machine file names its own line.
        write(
            &d,
            "b.machine",
            "host a\nhost b\nlink a b bw=fast lat=1us\n",
        );
        let e = run_err(&write(
            &d,
            "t.toml",
            "[machine]\nfile = \"b.machine\"\n[workload]\nkind = \"ping-pong\"\n",
        ));
        assert!(e.contains("b.machine:3:"), "{e}");
    }

    /// The six-tree broadcast, scaled to 96 MiB (128 segments of 128 KiB
    /// per tree): every part crosses 63 tree links, and the broadcast
    /// runs faster than five links' worth (5 x 374.5 MB/s); with the
    /// preset's port (`G` = 1 / R_b, one process's sends sharing R_b)
    /// it cannot exceed one link.
    #[test]
    fn example_bgp_bcast_torus_uses_six_links() {
        let text = std::fs::read_to_string(example("bgp-bcast-torus.toml")).unwrap();
        let d = scratch("bgp-bcast");
        let s: u64 = 96 << 20;
        let small = text.replace("\"960 MiB\"", "\"96 MiB\"");
        let o = run(&write(&d, "six.toml", &small));
        let r = &o.report;
        assert_eq!((r.messages, r.bytes), (63 * 6 * 128, 63 * s));
        let rate = |ps: u64| s as f64 / (ps as f64 * 1e-12);
        assert!(
            rate(r.makespan_ps) > 5.0 * 374.5e6,
            "{}",
            rate(r.makespan_ps)
        );
        let one = small.replace("G = \"0 s/B\"", "G = \"wire\"");
        let o = run(&write(&d, "one.toml", &one));
        assert!(rate(o.report.makespan_ps) < 374.6e6);
    }

    #[test]
    fn every_example_is_tested() {
        let mut names: Vec<String> = std::fs::read_dir(example(""))
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        names.sort();
        let me = include_str!("scenarios.rs");
        for n in names {
            assert!(me.contains(&format!("example(\"{n}\")")), "{n} has no test");
        }
    }

    /// The Zhu pattern is drawn from the scenario seed: one message per
    /// logical link, two ranks per link.
    #[test]
    fn example_zhu_matches_its_pattern() {
        let o = run(&example("zhu-ethernet.toml"));
        let pat = scenarios::workloads::ZhuPattern::random(8, 2, 2012, 0);
        let links = pat.links.len() as u64;
        assert_eq!(o.report.messages, links);
        assert_eq!(o.report.bytes, links << 20);
        assert_eq!(o.report.ranks as u64, 2 * links);
        assert!(o.links.is_some());
    }

    /// The AMG SpMV phase: every row of the CSV is one message.
    #[test]
    fn example_amg_spmv_moves_the_list() {
        let csv = data("workloads/amg-elasticity/P512-level0-spmv.csv");
        let text = std::fs::read_to_string(csv).unwrap();
        let (mut n, mut bytes) = (0u64, 0u64);
        for l in text.lines() {
            let f: Vec<&str> = l.split(',').collect();
            if let Ok(b) = f.get(2).map_or("", |s| s.trim()).parse::<u64>() {
                n += 1;
                bytes += b;
            }
        }
        let o = run(&example("amg-spmv.toml"));
        assert_eq!((o.report.messages, o.report.bytes), (n, bytes));
        assert_eq!(o.report.ranks, 512);
    }

    fn inline(name: &str, text: &str) -> Outcome {
        let d = scratch(&format!("kind-{name}"));
        run(&write(&d, &format!("{name}.toml"), text))
    }

    /// Every built-in workload kind through a scenario file, with message
    /// counts from the workload's definition.
    #[test]
    fn every_workload_kind_runs_with_its_message_count() {
        let ideal = "[machine]\npreset = \"ideal\"\n";
        // Windows of 8 messages, 3 windows, each acknowledged by a
        // zero-byte message.
        let o = inline(
            "rate",
            &format!(
                "{ideal}[workload]\nkind = \"message-rate\"\nwindow = 8\nsize = 64\niters = 3\n"
            ),
        );
        assert_eq!((o.report.messages, o.report.bytes), (24 + 3, 24 * 64));
        // Every rank sends once per round.
        let o = inline(
            "pairs",
            &format!(
                "{ideal}[workload]\nkind = \"random-pairs\"\nprocs = 8\nrounds = 3\nsize = \"1 KiB\"\n"
            ),
        );
        assert_eq!(o.report.messages, 24);
        // ppn pairs, each reps round trips of 2 messages.
        let o = inline(
            "maxrate",
            "[machine]\npreset = \"blue-waters\"\ndims = [2, 1, 1]\n[transport]\nmode = \"flow\"\n\
             [workload]\nkind = \"max-rate\"\nppn = 4\nsize = \"64 KiB\"\nreps = 2\n",
        );
        assert_eq!(o.report.messages, 4 * 2 * 2);
        assert_eq!(o.report.nodes_used, 2);
        // 2 x per_gemini HighVolumePingPong pairs, n messages each way.
        let o = inline(
            "line",
            "[machine]\npreset = \"blue-waters\"\ndims = [8, 2, 2]\npartition = \"line\"\nlength = 4\n\
             [workload]\nkind = \"gemini-line\"\nper_gemini = 4\nn = 2\nsize = \"4 KiB\"\n",
        );
        assert_eq!(o.report.messages, 2 * 4 * 2 * 2);
        assert_eq!((o.report.ranks, o.report.nodes_used), (16, 8));
        // Dissemination barrier on 8 ranks: 3 steps x 8 ranks.
        let o = inline(
            "barrier",
            &format!("{ideal}[workload]\nkind = \"collective\"\nop = \"barrier\"\nprocs = 8\n"),
        );
        assert_eq!(o.report.messages, 24);
        // 27-point halo on a periodic 3x3x3 grid: 26 neighbours each.
        let o = inline(
            "halo27",
            &format!(
                "{ideal}[workload]\nkind = \"halo\"\ndims = [3, 3, 3]\nstencil = 27\nface = \"4 KiB\"\n"
            ),
        );
        assert_eq!(o.report.messages, 27 * 26);
        assert_eq!(o.report.bytes, 27 * (6 * 4096 + 12 * 256 + 8 * 16));
    }

    #[test]
    fn oversized_workloads_are_refused_before_building() {
        let d = scratch("huge");
        let e = run_err(&write(
            &d,
            "h.toml",
            "[workload]\nkind = \"collective\"\nop = \"reduce-scatter\"\nprocs = 100000\n",
        ));
        assert!(e.contains("h.toml:4:") && e.contains("operations"), "{e}");
        let e = run_err(&write(
            &d,
            "g.toml",
            "[workload]\nkind = \"halo\"\ndims = [100000, 100000, 100000]\n",
        ));
        assert!(e.contains("g.toml:3:") && e.contains("ranks"), "{e}");
    }

    #[test]
    fn same_scenario_and_seed_give_identical_reports() {
        let a = run(&example("zhu-ethernet.toml"));
        let b = run(&example("zhu-ethernet.toml"));
        assert_eq!(
            serde_json::to_string(&a.report).unwrap(),
            serde_json::to_string(&b.report).unwrap()
        );
    }

    #[test]
    fn overrides_are_applied_and_checked() {
        let p = example("ping-pong-ideal.toml");
        let (src, table) = scenario::read_table(&p).unwrap();
        let sets = vec![scenario::parse_assignment("workload.sizes=[8]").unwrap()];
        let sc = scenario::from_table(&src, &table, &sets, p.parent().unwrap()).unwrap();
        let o = sc.run(&src, u64::MAX, |_, _| {}).unwrap();
        assert_eq!(o.report.makespan_ps, 2 * 2_306_154);
        let bad = vec![scenario::parse_assignment("mpi.eager_max=-1").unwrap()];
        let e = scenario::from_table(&src, &table, &bad, p.parent().unwrap()).unwrap_err();
        assert!(e.to_string().contains("mpi.eager_max = -1"), "{e}");
        assert!(e.to_string().contains("negative"), "{e}");
    }

    // ------------------------------------------------------------ bad input

    fn bad(name: &str, text: &str) -> String {
        let d = scratch(&format!("bad-{name}"));
        run_err(&write(&d, &format!("{name}.toml"), text))
    }

    #[test]
    fn unknown_field_is_named_with_its_line() {
        let e = bad(
            "unknown",
            "seed = 1\n[machine]\npreset = \"ideal\"\nlatncy = \"1 us\"\n[workload]\nkind = \"ping-pong\"\n",
        );
        assert!(e.contains("unknown.toml:4: unknown field `latncy`"), "{e}");
        let e = bad(
            "unknown-w",
            "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"hvpp\"\nn = 4\nsise = 8\n",
        );
        assert!(e.contains("unknown-w.toml:6: unknown field `sise`"), "{e}");
    }

    #[test]
    fn bad_units_and_negative_sizes_name_the_line() {
        let e = bad(
            "unit",
            "[machine]\npreset = \"ideal\"\nlatency = \"3 fortnights\"\n[workload]\nkind = \"ping-pong\"\n",
        );
        assert!(
            e.contains("unit.toml:3:") && e.contains("unknown time unit"),
            "{e}"
        );
        let e = bad(
            "nounit",
            "[machine]\npreset = \"ideal\"\n\nbandwidth = 1000\n[workload]\nkind = \"ping-pong\"\n",
        );
        assert!(e.contains("nounit.toml:4:") && e.contains("no unit"), "{e}");
        let e = bad(
            "neg",
            "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"ping-pong\"\nsizes = [8,\n -64]\n",
        );
        assert!(e.contains("neg.toml:6:") && e.contains("negative"), "{e}");
    }

    #[test]
    fn fields_of_another_preset_and_bad_values_are_refused() {
        let e = bad(
            "dims",
            "[machine]\npreset = \"ideal\"\ndims = [2, 2, 2]\n[workload]\nkind = \"ping-pong\"\n",
        );
        assert!(
            e.contains("dims.toml:3: `machine.dims`: does not apply"),
            "{e}"
        );
        let e = bad(
            "stencil",
            "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"halo\"\nstencil = 9\n",
        );
        assert!(e.contains("stencil.toml:5: `workload.stencil`"), "{e}");
        let e = bad(
            "pairs",
            "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"random-pairs\"\nprocs = 7\n",
        );
        assert!(e.contains("pairs.toml:5:") && e.contains("even"), "{e}");
        let e = bad("kind", "[workload]\nkind = \"pingpong\"\n");
        assert!(
            e.contains("kind.toml:") && e.contains("unknown variant `pingpong`"),
            "{e}"
        );
        let e = bad("syntax", "seed = 1\n[machine\npreset = 1\n");
        assert!(e.contains("syntax.toml:2:"), "{e}");
    }

    #[test]
    fn bad_rank_and_missing_files_name_the_trace() {
        let d = scratch("bad-trace");
        write(
            &d,
            "t.txt",
            "0 init\n1 init\n0 send 1 0 100\n1 recv 7 0 100\n",
        );
        let e = run_err(&write(
            &d,
            "s.toml",
            "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"trace\"\npath = \"t.txt\"\nformat = \"ti\"\n",
        ));
        assert!(e.contains("t.txt:4:") && e.contains("rank 7"), "{e}");
        let e = run_err(&write(
            &d,
            "m.toml",
            "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"message-list\"\nfile = \"absent.csv\"\n",
        ));
        assert!(e.contains("absent.csv"), "{e}");
        let e = run_err(&write(
            &d,
            "f.toml",
            "[machine]\nfile = \"absent-machine.txt\"\n[workload]\nkind = \"ping-pong\"\n",
        ));
        assert!(e.contains("absent-machine.txt"), "{e}");
    }

    #[test]
    fn a_deadlocked_trace_gets_the_diagnosis() {
        let d = scratch("deadlock");
        write(&d, "t.txt", "0 init\n1 init\n0 recv 1 0 8\n1 recv 0 0 8\n");
        let s = write(
            &d,
            "s.toml",
            "[machine]\npreset = \"ideal\"\n[workload]\nkind = \"trace\"\npath = \"t.txt\"\n",
        );
        // A deadlock is its own outcome, not bad input.
        let (src, sc) = scenario::load(&s).unwrap();
        let Err(err) = sc.run(&src, u64::MAX, |_, _| {}) else {
            panic!("the run should deadlock");
        };
        assert!(
            matches!(&err, scenario::ScenarioError::Deadlock { file, .. } if file.ends_with("s.toml")),
            "{err:?}"
        );
        let e = run_err(&s);
        assert!(e.contains("deadlock"), "{e}");
        assert!(
            e.contains("rank 0 blocked in MPI_Recv(source 1, tag 0, 8 B, MPI_COMM_WORLD) at")
                && e.contains("t.txt:3"),
            "{e}"
        );
    }

    /// Bienz et al. Fig. 4 (left), through a scenario file: 1000 x 8 B
    /// in order between the sockets of one Blue Waters node take the
    /// max-rate model's 1000 (alpha + s / R_b) = 846.667 us.
    #[test]
    fn example_stream_on_one_node_follows_max_rate() {
        let o = run(&example("stream-node.toml"));
        assert_eq!(o.report.makespan_ps, 846_667_000);
        assert_eq!(cell(&o.report, "short", "same_node"), (1000, 8000));
    }

    /// Bienz et al. eq. 2 with ppn = 1: one process's 16 x 64 KiB to 16
    /// nodes take at least alpha + 16 s / R_b = 364.6 us (the node alone
    /// could inject at R_N) and at most the serial sum 409.6 us.
    #[test]
    fn example_one_process_cannot_exceed_r_b() {
        let o = run(&example("one-to-many.toml"));
        let s = o.report.makespan_s;
        assert!((364.6e-6..=409.6e-6).contains(&s), "{s}");
        assert_eq!(cell(&o.report, "rendezvous", "other_node"), (16, 16 << 16));
    }

    /// LogGOPSim's answers on its own input: GOAL schedules replayed with
    /// `[mpi.loggp]` on a network without latency or bandwidth limit. The
    /// times are LogGP's by hand (in each .goal file's comment) with
    /// LogGOPSim's defaults L = 2500, o = 1500, g = 1000, G = 6, O = 0 ns.
    #[test]
    fn loggp_goal_schedules_take_loggopsims_times() {
        let base = example("loggp-goal.toml");
        let run_with = |goal: &str, g: &str| {
            let o = [
                (
                    "workload.path".to_string(),
                    toml::Value::String(format!("loggp/{goal}")),
                ),
                ("mpi.loggp.g".to_string(), toml::Value::String(g.into())),
            ];
            let (src, sc) = scenario::load_with(&base, &o).unwrap_or_else(|e| panic!("{e}"));
            sc.run(&src, u64::MAX, |_, _| {})
                .unwrap_or_else(|e| panic!("{e}"))
                .report
                .makespan_ps
        };
        // 2 (o + L + o + 99 G).
        assert_eq!(run(&base).report.makespan_ps, 12_188_000);
        assert_eq!(run_with("pingpong.goal", "1000 ns"), 12_188_000);
        // o + L, then three receives of o + 999 G on one CPU.
        assert_eq!(run_with("incast.goal", "1000 ns"), 26_482_000);
        // 5000 + 2 (o + L + o + 999 G) + 2000.
        assert_eq!(run_with("chain.goal", "1000 ns"), 29_988_000);
        // g < o: the sender's CPU spaces the messages o apart; the last
        // lands at 2 o + o + L = 7000 and waits for the receiver's CPU
        // (free at 5542 + 1542 = 7084): 7084 + o + 7 G.
        assert_eq!(run_with("train.goal", "1000 ns"), 8_626_000);
        // g > o: the port spaces them g + 7 G = 3042 apart.
        assert_eq!(run_with("train.goal", "3000 ns"), 11_626_000);
    }

    /// The calibration benchmark's workloads on the ideal machine, two
    /// ranks on one socket, by hand. Parameters: short alpha = 1 us,
    /// R_b = 1 GB/s (8 B: 8 ns through the node's memory, 0 B: 0),
    /// gamma = 10 ns per element visited, unexpected copy 3.2 GB/s (8 B:
    /// 2.5 ns), match_base 0; `[mpi.host]`: o_send = 495 ns, L = 0, no
    /// stream gap (g = G = 0), o_recv the rest of the calibration
    /// contract: alpha + s/R_b - s/R_b - gamma - o_send = 495 ns. Every
    /// host cost queues FIFO on the rank's core, and the copy out of the
    /// node's memory (s/R_b) is the receiver's core's work: a message that
    /// lands while the core is busy is copied when it frees, then searched
    /// (gamma per element), then o_recv. An unexpected message costs its
    /// o_recv on arrival; its receive costs the search and the copy.
    fn calib(workload: &str) -> Outcome {
        // A directory per call: the tests run in parallel, and `scratch`
        // empties its directory (one shared directory lost a file to
        // another test's call between its write and its read).
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d = scratch(&format!("calibration-workloads-{n}"));
        let text = format!(
            "[machine]\npreset = \"ideal\"\nsockets = 1\n[mapping]\nppn = 2\n[mpi]\n\
             gamma = \"10 ns\"\nunexpected_copy_rate = \"3.2 GB/s\"\n\
             [mpi.postal.same_socket]\n\
             short = {{ alpha = \"1 us\", rate = \"1 GB/s\" }}\n\
             [mpi.host.all]\no_send = \"495 ns\"\nrest = \"o_recv\"\nL = \"0 ns\"\n\
             g = \"0 ns\"\ng_cpu = \"0 ns\"\nG = \"0 ps/B\"\nO_send = \"0 ps/B\"\n[workload]\n{workload}"
        );
        let o = run(&write(&d, "calib.toml", &text));
        let _ = std::fs::remove_dir_all(&d);
        o
    }

    fn rank0_ns(o: &Outcome) -> f64 {
        o.results.finish[0].as_ps() as f64 / 1000.0
    }

    /// hvpp, mode posted, n = 2, 8 B, as `hvpp_paper_by_hand` with the
    /// sync messages of the posted mode: every second message of a pair
    /// waits for the pair's credit (window of one) before its o_send.
    /// Reversed: the first arrival of each direction visits 2 elements:
    /// + 2 x 10 ns.
    #[test]
    fn hvpp_posted_by_hand() {
        let w = "kind = \"hvpp\"\nmode = \"posted\"\nn = 2\nsize = 8\n";
        let o = calib(&format!("{w}order = \"in-order\"\n"));
        assert_eq!(rank0_ns(&o), 6032.0);
        assert_eq!(o.results.finish[1].as_ps(), 5_519_000);
        let r = calib(&format!("{w}order = \"reversed\"\n"));
        assert_eq!(rank0_ns(&r), 6052.0);
    }

    /// hvpp, mode unexpected, n = 2, 8 B, as `hvpp_paper_by_hand`: the
    /// data messages arrive unexpected (their receives are posted after
    /// the sync), each later message of a pair injected (o_send) only when
    /// the receiver has handled the one before (window of one); the
    /// receives then search `unexpected_msgs` and copy 2.5 ns each.
    /// Reversed: the first receive of each direction visits 2: + 2 x 10 ns.
    #[test]
    fn hvpp_unexpected_by_hand() {
        let w = "kind = \"hvpp\"\nmode = \"unexpected\"\nn = 2\nsize = 8\n";
        let o = calib(&format!("{w}order = \"in-order\"\n"));
        assert_eq!(rank0_ns(&o), 6082.0);
        assert_eq!(o.results.finish[1].as_ps(), 5_552_000);
        let r = calib(&format!("{w}order = \"reversed\"\n"));
        assert_eq!(rank0_ns(&r), 6102.0);
        // Every receive found its message in `unexpected_msgs`: at the
        // head in order, one further back reversed.
        assert_eq!(o.report.matching.unexpected_msgs.max, 1);
        assert_eq!(r.report.matching.unexpected_msgs.max, 2);
    }

    /// hvpp, mode paper (Algorithm 1), n = 2, 8 B. Rank 0's first send:
    /// o_send 0..495, copy ..503; rank 1 (receives posted at 0): search
    /// ..513, o_r ..1008, which hands the pair's one credit back. Rank 0's
    /// second send was parked without it: o_send 1008..1503, copy ..1511,
    /// search ..1521, o_r ..2016. Rank 1 then sends the same way: o_send
    /// 2016..2511, rank 0 ..3024; o_send 3024..3519, rank 0 ..4032 ns.
    #[test]
    fn hvpp_paper_by_hand() {
        let o = calib("kind = \"hvpp\"\nn = 2\nsize = 8\n");
        assert_eq!(rank0_ns(&o), 4032.0);
    }

    /// message-rate, window 2, 2 windows, 8 B, acknowledged: window 1:
    /// o_send 0..495; rank 1 ..1008 gives the credit back, and the parked
    /// second message's o_send runs 1008..1503; rank 1 ..2016, ack o_send
    /// ..2511; rank 0 matches it ..2521, o_r ..3016. Window 2 is the
    /// same 3016 ns later: 6032 ns. Without the acknowledgement rank 0's
    /// last message waits for the credit of its third: 3 x 1008 + 495 ns.
    #[test]
    fn message_rate_acknowledged_by_hand() {
        let w = "kind = \"message-rate\"\nwindow = 2\niters = 2\nsize = 8\n";
        let o = calib(w);
        assert_eq!(rank0_ns(&o), 6032.0);
        let n = calib(&format!("{w}ack = false\n"));
        assert_eq!(rank0_ns(&n), 3.0 * 1008.0 + 495.0);
    }
    /// A native trace's timed region reaches the report: rank 0 times a
    /// 4 KiB ping-pong between two Blue Waters nodes (the ideal machine of
    /// eq. 1: 2 x (7 000 000 ps + 4096 B / 0.75 GB/s = 5 461 334 ps, rounded
    /// up) = 24 922 668 ps).
    #[test]
    fn native_regions_in_the_report() {
        let d = scratch("regions");
        write(
            &d,
            "pp.trace",
            "0 region_begin id=1\n0 send dst=1 tag=0 bytes=4096\n0 recv src=1 tag=0 bytes=4096\n\
             0 region_end id=1\n1 recv src=0 tag=0 bytes=4096\n1 send dst=0 tag=0 bytes=4096\n",
        );
        let sc = write(
            &d,
            "r.toml",
            "[machine]\npreset = \"ideal\"\nlatency = \"0 ns\"\nbandwidth = \"unlimited\"\n\
             [workload]\nkind = \"trace\"\npath = \"pp.trace\"\nformat = \"native\"\n",
        );
        let o = run(&sc);
        let g = &o.report.regions;
        assert_eq!(g.len(), 1);
        assert_eq!((g[0].id, g[0].ranks, g[0].passes), (1, 1, 1));
        assert_eq!(g[0].per_rank_ps, [(0, o.results.finish[0].as_ps())]);
        assert_eq!(g[0].per_rank_ps[0].1, 24_922_668);
    }
}

// The crate's other integration tests, as modules of this one binary.
#[path = "scenarios/communicators.rs"]
mod communicators;
#[path = "scenarios/dumpi_coverage.rs"]
mod dumpi_coverage;
#[path = "scenarios/goal_graph.rs"]
mod goal_graph;
#[path = "scenarios/observer_report.rs"]
mod observer_report;
#[path = "scenarios/otf2.rs"]
mod otf2;
#[path = "scenarios/selectors.rs"]
mod selectors;
#[path = "scenarios/ti_simgrid.rs"]
mod ti_simgrid;
#[path = "scenarios/trace_dirs.rs"]
mod trace_dirs;
