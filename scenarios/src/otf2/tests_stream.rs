use super::super::defs::{Definitions, Layout};
use super::*;
use mpi_layer::Source;

/// Three ranks (see `defs::tests::three_ranks`): world is comm 0, comm 1
/// is {2, 0} (netsim id 2), comm 2 one rank each (id 3); region 7 is
/// `MPI_Send` (MPI), 8 `compute` (not MPI). 1e9 ticks per second.
fn layout() -> Arc<Layout> {
    Arc::new(Layout::new(&crate::otf2::defs::tests::three_ranks()).unwrap())
}

fn run(rank: Rank, events: Vec<Event>) -> Result<Vec<Op>, String> {
    let evs: Vec<(u64, Event)> = events
        .into_iter()
        .enumerate()
        .map(|(i, e)| (i as u64 + 1, e))
        .collect();
    let mut s = RankStream::new(
        evs.into_iter(),
        layout(),
        rank,
        Otf2Config::default(),
        "t.evt".into(),
    );
    let mut ops = Vec::new();
    loop {
        match s.next_op() {
            Ok(Some((op, _))) => ops.push(op),
            Ok(None) => return Ok(ops),
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The operations after the prelude (which creates comms 1 and 2).
fn body(ops: Vec<Op>) -> Vec<Op> {
    let n = ops
        .iter()
        .position(|o| matches!(o, Op::GroupFree { group } if *group == WORLD_GROUP))
        .unwrap();
    ops[n + 1..].to_vec()
}

fn region(t0: u64, t1: u64, inner: Vec<Event>) -> Vec<Event> {
    let mut v = vec![Event::Enter {
        time: t0,
        region: 7,
    }];
    v.extend(inner);
    v.push(Event::Leave {
        time: t1,
        region: 7,
    });
    v
}

#[test]
fn prelude_creates_the_communicators() {
    let ops = run(1, vec![]).unwrap();
    assert_eq!(
        ops,
        vec![
            Op::CommGroup {
                comm: CommId::WORLD,
                new: WORLD_GROUP
            },
            Op::GroupIncl {
                group: WORLD_GROUP,
                ranks: vec![2, 0],
                new: NEW_GROUP
            },
            Op::CommCreate {
                comm: CommId::WORLD,
                group: NEW_GROUP,
                // Rank 1 is not a member.
                new: CommId(u32::MAX)
            },
            Op::GroupFree { group: NEW_GROUP },
            Op::CommSplit {
                comm: CommId::WORLD,
                color: 1,
                key: 0,
                new: CommId(3)
            },
            Op::GroupFree { group: WORLD_GROUP },
        ]
    );
}

#[test]
fn regions_become_calls_and_gaps_computation() {
    let send = |peer, comm| Event::Send {
        peer,
        comm,
        tag: 5,
        len: 8,
    };
    let mut ev = region(100, 200, vec![send(1, 0)]);
    // 1000 ticks of a non-MPI region and plain time: 1 us at 1e9 ticks/s.
    ev.push(Event::Enter {
        time: 300,
        region: 8,
    });
    ev.push(Event::Leave {
        time: 400,
        region: 8,
    });
    // Sendrecv: one send and one receive in one region, on comm 1 where
    // rank 0 is rank 1 and its peer (world rank 2) rank 0.
    ev.extend(region(
        1200,
        1300,
        vec![
            send(0, 1),
            Event::Recv {
                peer: 0,
                comm: 1,
                tag: 6,
                len: 16,
            },
        ],
    ));
    let ops = body(run(0, ev).unwrap());
    assert_eq!(
        ops,
        vec![
            Op::Send {
                dst: 1,
                tag: 5,
                bytes: 8,
                comm: CommId::WORLD
            },
            Op::Compute {
                duration: Time::from_ns(1000)
            },
            Op::Sendrecv {
                dst: 0,
                send_tag: 5,
                send_bytes: 8,
                src: Source::Rank(0),
                recv_tag: TagSel::Tag(6),
                recv_bytes: 16,
                comm: CommId(2)
            },
        ]
    );
}

#[test]
fn a_receive_is_posted_where_requested_with_its_completion_fields() {
    let irecv = Event::Irecv {
        peer: 2,
        comm: 0,
        tag: 3,
        len: 64,
        req: 9,
    };
    let mut ev = region(0, 10, vec![Event::IrecvRequest { req: 9 }]);
    ev.extend(region(
        10,
        20,
        vec![Event::Isend {
            peer: 1,
            comm: 0,
            tag: 4,
            len: 32,
            req: 10,
        }],
    ));
    ev.extend(region(
        20,
        30,
        vec![Event::IsendComplete { req: 10 }, irecv.clone()],
    ));
    // A receive cancelled before completing posts nothing; one completed
    // without a recorded request is posted where it completes.
    ev.extend(region(30, 40, vec![Event::IrecvRequest { req: 11 }]));
    ev.extend(region(40, 50, vec![Event::RequestCancelled { req: 11 }]));
    ev.extend(region(50, 60, vec![irecv]));
    let ops = body(run(0, ev).unwrap());
    let recv = Op::Irecv {
        src: Source::Rank(2),
        tag: TagSel::Tag(3),
        bytes: 64,
        comm: CommId::WORLD,
        req: ReqId(9),
    };
    assert_eq!(
        ops,
        vec![
            recv.clone(),
            Op::Isend {
                dst: 1,
                tag: 4,
                bytes: 32,
                comm: CommId::WORLD,
                req: ReqId(10)
            },
            Op::Waitall {
                reqs: vec![ReqId(10), ReqId(9)]
            },
            recv,
            Op::Wait { req: ReqId(9) },
        ]
    );
}

#[test]
fn a_receive_completed_in_its_own_region_is_posted_there() {
    let ev = region(
        0,
        10,
        vec![
            Event::IrecvRequest { req: 4 },
            Event::Irecv {
                peer: 1,
                comm: 0,
                tag: 0,
                len: 8,
                req: 4,
            },
        ],
    );
    let ops = body(run(0, ev).unwrap());
    assert_eq!(
        ops,
        vec![
            Op::Irecv {
                src: Source::Rank(1),
                tag: TagSel::Tag(0),
                bytes: 8,
                comm: CommId::WORLD,
                req: ReqId(4)
            },
            Op::Wait { req: ReqId(4) },
        ]
    );
}

#[test]
fn bad_events_name_the_event() {
    let e = run(
        0,
        region(
            0,
            1,
            vec![Event::Send {
                peer: 3,
                comm: 0,
                tag: 0,
                len: 1,
            }],
        ),
    )
    .unwrap_err();
    assert!(
        e.ends_with(
            "t.evt:2: event 2 (MPI_Send): rank 3 does not exist in a communicator of 3 ranks"
        ),
        "{e}"
    );
    let e = run(0, vec![Event::Enter { time: 0, region: 7 }]).unwrap_err();
    assert!(e.contains("the events end inside an MPI region"), "{e}");
    let e = run(
        0,
        region(
            0,
            1,
            vec![Event::CollectiveEnd {
                op: 0,
                comm: 44,
                root: 0,
                sent: 0,
                received: 0,
            }],
        ),
    )
    .unwrap_err();
    assert!(e.contains("communicator 44 is not defined"), "{e}");
}

#[test]
fn definitions_drive_everything() {
    // The definitions' own errors are the layout's (see `defs`).
    assert!(Layout::new(&Definitions::default()).is_err());
}

#[test]
fn request_ids_beyond_32_bits_stay_distinct() {
    // OTF2's request ids are u64: two live requests that differ only
    // above bit 31 must not become one.
    let (a, b) = ((1u64 << 32) + 5, 5u64);
    let isend = |req| Event::Isend {
        peer: 1,
        comm: 0,
        tag: 4,
        len: 32,
        req,
    };
    let mut ev = region(0, 10, vec![isend(a)]);
    ev.extend(region(10, 20, vec![isend(b)]));
    ev.extend(region(20, 30, vec![Event::IsendComplete { req: a }]));
    ev.extend(region(30, 40, vec![Event::IsendComplete { req: b }]));
    let send = |req| Op::Isend {
        dst: 1,
        tag: 4,
        bytes: 32,
        comm: CommId::WORLD,
        req: ReqId(req),
    };
    assert_eq!(
        body(run(0, ev).unwrap()),
        vec![
            send(a),
            send(b),
            Op::Wait { req: ReqId(a) },
            Op::Wait { req: ReqId(b) },
        ]
    );
}
