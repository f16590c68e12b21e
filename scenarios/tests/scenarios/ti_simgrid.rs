//! TI traces as SimGrid 3.32's tracer writes them (`smpirun -trace-ti`):
//! each spelling its replay reads is read here, with the sizes its
//! datatype table gives.

use std::path::PathBuf;

use mpi_layer::{CommId, Op, OpStream, ReqId, Source, TagSel};
use scenarios::TraceReader;
use scenarios::ti::{TiConfig, TiTrace, simgrid_datatype_size};
use scenarios::trace::{DirTrace, TraceConfig, open_path, resolve_dir};

use super::trace_dirs::scratch;

/// Rank `rank`'s operations of the shared trace `text`.
fn rank_ops(name: &str, text: &str, rank: u32) -> Vec<Op> {
    let d = scratch(name, &[("t.txt", text)]);
    let t = TiTrace::open(&d.join("t.txt"), TiConfig::default()).unwrap();
    drain(t.rank_stream(rank).unwrap())
}

fn drain(mut s: impl OpStream) -> Vec<Op> {
    let mut v = Vec::new();
    while let Some((op, _)) = s.next_op().unwrap() {
        v.push(op);
    }
    v
}

fn bytes_of(op: &Op) -> u64 {
    match op {
        Op::Send { bytes, .. } | Op::Bcast { bytes, .. } => *bytes,
        other => panic!("not a send or bcast: {other:?}"),
    }
}

#[test]
fn waitall_with_the_request_count_is_read_and_the_count_ignored() {
    // The tracer writes `waitall <count>` (CpuTIData); the count may even
    // be wrong: SimGrid's replay waits for every pending request.
    let ops = rank_ops(
        "waitall",
        "0 isend 1 0 8\n0 irecv 1 0 8\n0 waitall 2\n0 waitall 7\n1 recv 0 0 8\n1 send 0 0 8\n",
        0,
    );
    assert_eq!(ops.len(), 3, "{ops:?}");
    assert!(matches!(ops[0], Op::Isend { req: ReqId(1), .. }));
    assert!(matches!(ops[1], Op::Irecv { req: ReqId(2), .. }));
    // One WaitallPending; the second waitall has nothing left to wait for.
    assert_eq!(ops[2], Op::WaitallPending);
}

#[test]
fn every_datatype_id_of_simgrid_3_32_has_its_size() {
    // Ids from smpi_datatype.cpp, sizes LP64 `sizeof`; ids 0-50, 57 and
    // 59 also as SimGrid 3.32's own `MPI_Type_size` gives them (a C
    // program built with smpicc, run by smpirun, 2026-11-26).
    let want: [(i64, u64, &str); 20] = [
        (-1, 0, "DATATYPE_NULL (derived types)"),
        (0, 8, "DOUBLE"),
        (6, 1, "BYTE"),
        (14, 16, "LONG_DOUBLE"),
        (15, 4, "WCHAR"),
        (25, 8, "C_FLOAT_COMPLEX"),
        (26, 16, "C_DOUBLE_COMPLEX"),
        (27, 32, "C_LONG_DOUBLE_COMPLEX"),
        (31, 16, "LONG_INT"),
        (33, 8, "SHORT_INT"),
        (37, 16, "2LONG"),
        (41, 16, "REAL16"),
        (44, 16, "COMPLEX32"),
        (45, 4, "INTEGER1"),
        (49, 16, "INTEGER16"),
        (50, 32, "LONG_DOUBLE_INT"),
        (54, 32, "CXX_LONG_DOUBLE_COMPLEX"),
        (56, 0, "LB"),
        (57, 1, "PACKED"),
        (59, 8, "COUNT"),
    ];
    for (id, size, name) in want {
        assert_eq!(simgrid_datatype_size(id), Some(size), "{name}");
    }
    assert_eq!(simgrid_datatype_size(-2), None);
    assert_eq!(simgrid_datatype_size(60), None);
    // Every id -1..=59 is known, and a trace line uses it.
    let mut text = String::from("0 init\n");
    for id in -1..=59 {
        text.push_str(&format!("0 bcast 3 0 {id}\n"));
    }
    let ops = rank_ops("datatypes", &text, 0);
    assert_eq!(ops.len(), 61);
    for (op, id) in ops.iter().zip(-1..=59) {
        assert_eq!(
            bytes_of(op),
            3 * simgrid_datatype_size(id).unwrap(),
            "id {id}"
        );
    }
    // A send with a 16-byte complex (id 26), as in the traces.
    let ops = rank_ops("dt26", "0 send 1 5 10 26\n1 recv 0 5 10 26\n", 0);
    assert_eq!(bytes_of(&ops[0]), 160);
}

#[test]
fn send_recv_as_the_tracer_writes_it() {
    // VarCollTIData("sendRecv", ...): sendcount dst recvcount src dt1 dt2.
    let ops = rank_ops(
        "sendrecv",
        "0 sendRecv 10 1 3 1 0 1\n0 sendRecv 4 1 5 1\n1 sendRecv 3 0 10 0 1 0\n1 sendRecv 5 0 4 0\n",
        0,
    );
    let sr = |send_bytes, recv_bytes| Op::Sendrecv {
        dst: 1,
        send_tag: 0,
        send_bytes,
        src: Source::Rank(1),
        recv_tag: TagSel::Tag(0),
        recv_bytes,
        comm: CommId::WORLD,
    };
    // 10 doubles out, 3 ints in; then the default datatype (bytes).
    assert_eq!(ops, vec![sr(80, 12), sr(4, 5)]);
}

#[test]
fn scan_and_exscan_take_count_flops_and_datatype() {
    let ops = rank_ops("scan", "0 scan 4 0 0\n0 exscan 2 0 1\n", 0);
    assert_eq!(
        ops,
        vec![
            Op::Scan {
                bytes: 32,
                comm: CommId::WORLD,
                exclusive: false
            },
            Op::Scan {
                bytes: 8,
                comm: CommId::WORLD,
                exclusive: true
            },
        ]
    );
}

/// SimGrid's per-rank files: `<time>_rank-<pid>.txt`, pids 1..=n, each
/// holding its rank's lines (rank = pid - 1).
fn simgrid_rank_dir(name: &str) -> PathBuf {
    scratch(
        name,
        &[
            (
                "1764160000.123456_rank-1.txt",
                "0 init\n0 send 1 0 100 6\n0 waitall 0\n",
            ),
            ("1764160000.123456_rank-2.txt", "1 init\n1 recv 0 0 100 6\n"),
            ("1764160000.123456_rank-3.txt", "2 init\n2 barrier\n"),
        ],
    )
}

#[test]
fn a_folder_of_simgrid_numbered_rank_files_is_that_trace() {
    let dir = simgrid_rank_dir("dir-1based");
    let DirTrace::TiRankFiles(files) = resolve_dir(&dir, None).unwrap() else {
        panic!("not per-rank files");
    };
    let names: Vec<&str> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "1764160000.123456_rank-1.txt",
            "1764160000.123456_rank-2.txt",
            "1764160000.123456_rank-3.txt"
        ]
    );
    let mut streams = open_path(&dir, None, &TraceConfig::default()).unwrap();
    assert_eq!(streams.len(), 3);
    let mut rank1 = Vec::new();
    while let Some((op, _)) = streams[1].next_op().unwrap() {
        rank1.push(op);
    }
    assert!(
        matches!(rank1[..], [Op::Recv { bytes: 100, .. }]),
        "{rank1:?}"
    );
    // 1-based names `rank-1.txt .. rank-N.txt` too.
    let plain = scratch(
        "dir-plain",
        &[("rank-1.txt", "0 barrier\n"), ("rank-2.txt", "1 barrier\n")],
    );
    assert!(matches!(resolve_dir(&plain, None).unwrap(), DirTrace::TiRankFiles(f) if f.len() == 2));
}

#[test]
fn numbered_files_with_a_gap_are_not_a_trace() {
    // 1, 3: neither 0..n nor 1..=n.
    let gap = scratch(
        "dir-gap",
        &[("rank-1.txt", "0 barrier\n"), ("rank-3.txt", "1 barrier\n")],
    );
    let e = resolve_dir(&gap, None).unwrap_err().to_string();
    assert!(e.contains("are not one trace"), "{e}");
    // Starting at 2 is not one either.
    let late = scratch(
        "dir-late",
        &[("rank-2.txt", "0 barrier\n"), ("rank-3.txt", "1 barrier\n")],
    );
    assert!(resolve_dir(&late, None).is_err());
}

/// The list file the tracer writes names the per-rank files by paths
/// relative to where it ran: read from the list's directory.
#[test]
fn the_tracers_list_file_reads_its_rank_files() {
    let dir = simgrid_rank_dir("list");
    let files = "smpi.txt_files";
    std::fs::create_dir_all(dir.join(files)).unwrap();
    let mut list = String::new();
    for pid in 1..=3 {
        let f = format!("1764160000.123456_rank-{pid}.txt");
        std::fs::rename(dir.join(&f), dir.join(files).join(&f)).unwrap();
        list.push_str(&format!("{files}/{f}\n"));
    }
    std::fs::write(dir.join("smpi.txt"), list).unwrap();
    let t = TiTrace::open(&dir.join("smpi.txt"), TiConfig::default()).unwrap();
    assert_eq!(t.num_ranks(), 3);
    let ops = drain(t.rank_stream(0).unwrap());
    assert!(
        matches!(
            ops[..],
            [Op::Send {
                bytes: 100,
                dst: 1,
                ..
            }]
        ),
        "{ops:?}"
    );
}

#[test]
fn each_rank_computes_at_its_own_hosts_speed() {
    use scenarios::ti::RankSpeeds;
    let d = scratch(
        "rank-speeds",
        &[("t.txt", "0 compute 2e9\n1 compute 2e9\n")],
    );
    let speeds = RankSpeeds::default();
    let cfg = TiConfig {
        rank_speeds: Some(speeds.clone()),
        ..Default::default()
    };
    let t = TiTrace::open(&d.join("t.txt"), cfg).unwrap();
    // Before the ranks are placed, a compute cannot be timed.
    let e = t.rank_stream(0).unwrap().next_op().unwrap_err().to_string();
    assert!(
        e.ends_with("t.txt:1: compute: rank 0's host speed is not known (the rank is not placed)"),
        "{e}"
    );
    speeds.set(vec![2e9, 1e9]);
    let secs = |r| match drain(t.rank_stream(r).unwrap())[..] {
        [Op::Compute { duration }] => duration.as_secs_f64(),
        ref other => panic!("{other:?}"),
    };
    assert_eq!((secs(0), secs(1)), (1.0, 2.0));
}
