//! Unit tests of the call mapping.

use super::*;
use mpi_layer::TagSel;

const BYTE: Datatype = Datatype(0);
fn n(count: i64) -> Count {
    Count {
        count,
        datatype: BYTE,
    }
}
fn run(calls: Vec<RecordedCall>) -> Result<Vec<Op>, String> {
    let mut m = CallMapper::new(4, vec![1]);
    let mut out = Vec::new();
    for c in calls {
        m.ops(c, &mut out).map_err(|e| e.to_string())?;
    }
    Ok(out)
}
const WORLD: Comm = Comm::Id(CommId::WORLD);

#[test]
fn persistent_requests_post_at_each_start() {
    let ops = run(vec![
        RecordedCall::Isend {
            data: n(8),
            dst: Peer::Rank(1),
            tag: 3,
            comm: WORLD,
            req: 5,
            persistent: true,
        },
        RecordedCall::Start { reqs: vec![5, 6] },
        RecordedCall::Start { reqs: vec![5] },
        RecordedCall::RequestFree { req: 5 },
        RecordedCall::Start { reqs: vec![5] },
    ])
    .unwrap();
    let isend = Op::Isend {
        dst: 1,
        tag: 3,
        bytes: 8,
        comm: CommId::WORLD,
        req: ReqId(5),
    };
    assert_eq!(ops, vec![isend.clone(), isend]);
}

#[test]
fn proc_null_halves_and_self_collectives_vanish() {
    let ops = run(vec![
        RecordedCall::Sendrecv {
            send: n(4),
            dst: Peer::Null,
            send_tag: 1,
            recv: n(2),
            src: Peer::Any,
            recv_tag: TagSel::Any,
            comm: WORLD,
        },
        RecordedCall::Allreduce {
            data: n(8),
            comm: Comm::SelfOnly,
        },
        RecordedCall::Any {
            reqs: vec![None, Some(ReqId(9))],
            index: 1,
            completed: false,
            wait: false,
        },
        RecordedCall::Some {
            reqs: vec![Some(ReqId(2)), None, Some(ReqId(3))],
            indices: vec![2, 1, 7],
            wait: false,
        },
    ])
    .unwrap();
    assert_eq!(
        ops,
        vec![
            Op::Recv {
                src: Source::Any,
                tag: TagSel::Any,
                bytes: 2,
                comm: CommId::WORLD
            },
            Op::Test { req: ReqId(3) },
        ]
    );
}

#[test]
fn bad_ranks_roots_and_counts_are_errors() {
    let send = |dst, count| RecordedCall::Send {
        data: n(count),
        dst,
        tag: 0,
        comm: WORLD,
    };
    let e = run(vec![send(Peer::Rank(4), 1)]).unwrap_err();
    assert_eq!(e, "rank 4 does not exist (the trace has 4 ranks)");
    assert_eq!(
        run(vec![send(Peer::Rank(1), -1)]).unwrap_err(),
        "negative count -1"
    );
    let e = run(vec![RecordedCall::Bcast {
        data: n(1),
        root: -2,
        comm: WORLD,
    }])
    .unwrap_err();
    assert_eq!(e, "invalid root -2");
    let e = run(vec![RecordedCall::Send {
        data: n(1),
        dst: Peer::Rank(1),
        tag: 0,
        comm: Comm::SelfOnly,
    }])
    .unwrap_err();
    assert!(e.contains("MPI_COMM_SELF"), "{e}");
}

#[test]
fn byte_counts_beyond_64_bits_and_huge_communicators_are_errors() {
    let define = |new: u16, blocks: Vec<(u64, Datatype)>| RecordedCall::DefineType {
        new: Datatype(new),
        blocks,
    };
    // 2^40 bytes a type, then 2^31 - 1 of it: more than 2^64 - 1 bytes.
    let big = define(7, vec![(1 << 40, BYTE)]);
    let send = RecordedCall::Send {
        data: Count {
            count: i64::from(i32::MAX),
            datatype: Datatype(7),
        },
        dst: Peer::Rank(1),
        tag: 0,
        comm: WORLD,
    };
    assert_eq!(
        run(vec![big.clone(), send]).unwrap_err(),
        "2147483647 elements of 1099511627776 bytes each: more than 2^64 - 1 bytes"
    );
    assert_eq!(
        run(vec![big.clone(), define(8, vec![(1 << 30, Datatype(7))])]).unwrap_err(),
        "1073741824 elements of 1099511627776 bytes each: more than 2^64 - 1 bytes"
    );
    assert_eq!(
        run(vec![
            define(7, vec![(u64::MAX, BYTE)]),
            define(8, vec![(1, Datatype(7)), (1, BYTE)])
        ])
        .unwrap_err(),
        "datatype 8: its blocks add up to more than 2^64 - 1 bytes"
    );
    // A Gatherv's communicator size sizes an allocation: bounded first.
    let e = run(vec![RecordedCall::Gatherv {
        rank: 1,
        size: i64::from(i32::MAX),
        own: n(1),
        root: 0,
        at_root: Vec::new(),
        comm: WORLD,
    }])
    .unwrap_err();
    assert_eq!(e, "invalid communicator size 2147483647");
    let e = run(vec![RecordedCall::Scatterv {
        rank: 4,
        size: 4,
        own: n(1),
        root: 0,
        at_root: Vec::new(),
        comm: WORLD,
    }])
    .unwrap_err();
    assert_eq!(e, "invalid rank in its communicator 4");
}
