//! Integration tests of the MPI layer (one binary). Golden values are
//! computed by hand in the comments from the Blue Waters preset
//! (Bienz et al. 2018, Table 1) on an ideal network.

use mpi_layer::matching::{
    BinnedQueues, Envelope, HashedQueues, IndexedLinearQueues, LinearQueues, MatchQueue,
    PostedRecv, SmallLinear,
};
use mpi_layer::{
    AllreduceLarge, CommId, ConfigError, HostCosts, MatcherKind, MpiParams, MsgId, Op, OpStream,
    Origin, ProgramError, Progress, Protocol, ReqId, RunError, RunResults, Source, TagSel,
    VecProgram, run,
};
use sim_core::rand::Rng;
use sim_core::{Bandwidth, RngStreams, Time, transfer_time};
use topology::{IdealNetwork, NodeId, Placement, ProcLoc};

const W: CommId = CommId::WORLD;
/// Ideal-network wire latency used throughout: 500 ns, so that three
/// crossings (RTS, CTS, data) fit in the smallest inter-node rendezvous
/// alpha of Table 1 (3.0 us).
const L: Time = Time::from_ns(500);

fn net(nodes: u32) -> IdealNetwork {
    // 100 GB/s: faster than every R_b, so the cap R_b sets the rate.
    IdealNetwork::new(nodes, L, Bandwidth::bytes_per_sec(100_000_000_000))
}

fn loc(node: u32, socket: u16, core: u16) -> ProcLoc {
    ProcLoc {
        node: NodeId(node),
        socket,
        core,
    }
}

/// Two ranks at the given locality (index 0, 1, 2 = same socket, same
/// node, other node).
fn pair(locality: usize) -> Placement {
    Placement::from_locs(match locality {
        0 => vec![loc(0, 0, 0), loc(0, 0, 1)],
        1 => vec![loc(0, 0, 0), loc(0, 1, 8)],
        _ => vec![loc(0, 0, 0), loc(1, 0, 0)],
    })
}

fn progs(ops: Vec<Vec<Op>>) -> Vec<VecProgram> {
    ops.into_iter()
        .enumerate()
        .map(|(i, o)| VecProgram::new(&format!("rank{i}"), o))
        .collect()
}

fn send(dst: u32, tag: i32, bytes: u64) -> Op {
    Op::Send {
        dst,
        tag,
        bytes,
        comm: W,
    }
}
/// A blocking receive with a buffer large enough for any message (a
/// smaller one than the message is MPI_ERR_TRUNCATE).
fn recv(src: u32, tag: i32) -> Op {
    Op::Recv {
        src: Source::Rank(src),
        tag: TagSel::Tag(tag),
        bytes: sim_core::limits::MAX_MESSAGE_BYTES,
        comm: W,
    }
}

/// eq. 1 of Bienz et al.: alpha + s / R_b with the preset's cell.
fn postal(p: &MpiParams, proto: Protocol, locality: usize, s: u64) -> Time {
    let c = p.postal[proto as usize][locality];
    c.alpha + transfer_time(s, c.rate)
}

#[test]
fn single_message_and_ping_pong_follow_eq1_exactly() {
    let p = MpiParams::blue_waters();
    // Sizes at both ends of each protocol's range and inside it.
    let sizes = [0, 8, 1024, 1025, 4000, 8192, 8193, 100_000, 1 << 22];
    for locality in 0..3 {
        for &s in &sizes {
            let proto = p.protocol(s);
            let t = postal(&p, proto, locality, s);
            // One way: rank 1 blocks in a pre-posted receive.
            let r = run(
                pair(locality),
                net(2),
                progs(vec![vec![send(1, 0, s)], vec![recv(0, 0)]]),
                p.clone(),
            )
            .unwrap();
            assert_eq!(r.finish[1], t, "one way, {proto:?} loc {locality} s {s}");
            let cell = r.traffic[proto as usize][locality];
            assert_eq!((cell.messages, cell.bytes), (1, s));
            // Ping-pong: the round trip is exactly 2T.
            let r = run(
                pair(locality),
                net(2),
                progs(vec![
                    vec![send(1, 0, s), recv(1, 1)],
                    vec![recv(0, 0), send(0, 1, s)],
                ]),
                p.clone(),
            )
            .unwrap();
            assert_eq!(
                r.finish[0],
                t * 2,
                "ping-pong, {proto:?} loc {locality} s {s}"
            );
            let ctl = if proto == Protocol::Rendezvous { 4 } else { 0 };
            assert_eq!(r.control_messages, ctl);
        }
    }
}

#[test]
fn rendezvous_costs_the_extra_handshake() {
    // The receive is posted D = 50 us late. Inter-node, s = 100 000 B.
    let p = MpiParams::blue_waters();
    let d = Time::from_us(50);
    let s = 100_000u64;
    let late_with = |bytes: u64, p: &MpiParams| {
        run(
            pair(2),
            net(2),
            progs(vec![
                vec![send(1, 0, bytes)],
                vec![Op::Sleep { duration: d }, recv(0, 0)],
            ]),
            p.clone(),
        )
        .unwrap()
    };
    let late = |bytes: u64| late_with(bytes, &p);
    let r = late(s);
    // Rendezvous, alpha = 3.0 us, R_b = 2.9e9 B/s. The Blue Waters
    // preset derives o_send (o_recv = 0, L = 0): alpha + s/R_b - (L +
    // s/R_b) - 2L - gamma = 3000 - 1500 - 8.4 ns, spent by the sender's
    // CPU before the RTS leaves (long before D).
    let xfer = transfer_time(s, Bandwidth::bytes_per_sec(2_900_000_000));
    // The RTS waits unexpected. At D the receive finds it (one element,
    // gamma), the CTS crosses back (L), the sender's idle CPU handles it
    // at once and the data crosses (L + s/R_b): the sender's blocking
    // send returns on delivery, and the receiver (o_recv = 0) with it.
    let gamma = p.gamma_posted.gamma;
    assert_eq!(r.finish[0], d + gamma + L * 2 + xfer);
    assert_eq!(r.finish[1], d + gamma + L * 2 + xfer);
    assert_eq!(r.control_messages, 2);
    // An eager message (8000 B, alpha 7.0 us, R_b 7.5e8) posted as late:
    // after D only the search and the copy out of the library's buffer at
    // the unexpected-copy rate remain: no round trip.
    let r = late(8000);
    let copy = transfer_time(8000, p.unexpected_copy_rate.unwrap());
    assert_eq!(r.finish[1], d + gamma + copy);
    // A fixed unexpected cost comes on top of the copy; a rendezvous
    // message (no copy) does not pay it.
    let mut fixed = p.clone();
    fixed.unexpected_cost = Time::from_ns(300);
    let f = late_with(8000, &fixed);
    assert_eq!(f.finish[1], d + gamma + copy + Time::from_ns(300));
    let f = late_with(s, &fixed);
    assert_eq!(f.finish[1], d + gamma + L * 2 + xfer);
    // The eager sender returns when its CPU is done: o_send = 7000 - 500
    // - 8.4 ns (derived), held to alpha (g_cpu), then it pushes the other
    // 7999 B at R_b.
    let push = sim_core::PerByte::of_rate(Bandwidth::bytes_per_sec(750_000_000)).cost(7999);
    assert_eq!(r.finish[0], Time::from_us(7) + push);
}

/// `isend_eager_max`: a non-blocking send above it goes by rendezvous
/// (an RTS and a CTS, two control messages), a blocking one of the same
/// size stays eager; below it both are eager.
#[test]
fn isend_has_its_own_eager_limit() {
    let mut p = MpiParams::blue_waters();
    p.isend_eager_max = Some(4096);
    let ctl = |ops: Vec<Op>| {
        let n = run(
            pair(2),
            net(2),
            progs(vec![ops, vec![recv(0, 0)]]),
            p.clone(),
        )
        .unwrap();
        n.control_messages
    };
    let nonblocking = |b: u64| vec![isend(1, 0, b, 0), Op::WaitallPending];
    assert_eq!(ctl(nonblocking(6000)), 2);
    assert_eq!(ctl(vec![send(1, 0, 6000)]), 0);
    assert_eq!(ctl(nonblocking(4096)), 0);
    assert_eq!(p.send_protocol(6000, true), Protocol::Rendezvous);
    assert_eq!(p.send_protocol(6000, false), Protocol::Eager);
}

/// Algorithm 1 of Bienz et al. (HighVolumePingPong) between ranks 0 and 1
/// on one socket: n messages of `s` bytes each way.
fn hvpp(n: u32, s: u64, reversed: bool) -> RunResults {
    let send_tag = |i: u32| i as i32;
    let recv_tag = |i: u32| {
        if reversed {
            (n - 1 - i) as i32
        } else {
            i as i32
        }
    };
    let isends = |peer: u32| {
        (0..n).map(move |i| Op::Isend {
            dst: peer,
            tag: send_tag(i),
            bytes: s,
            comm: W,
            req: ReqId(i as u64),
        })
    };
    let irecvs = |peer: u32| {
        (0..n).map(move |i| Op::Irecv {
            src: Source::Rank(peer),
            tag: TagSel::Tag(recv_tag(i)),
            bytes: s,
            comm: W,
            req: ReqId(i as u64),
        })
    };
    let mut r0: Vec<Op> = isends(1).collect();
    r0.push(Op::WaitallPending);
    r0.extend(irecvs(1));
    r0.push(Op::WaitallPending);
    let mut r1: Vec<Op> = irecvs(0).collect();
    r1.push(Op::WaitallPending);
    r1.extend(isends(0));
    r1.push(Op::WaitallPending);
    run(
        pair(0),
        net(1),
        progs(vec![r0, r1]),
        MpiParams::blue_waters(),
    )
    .unwrap()
}

#[test]
fn high_volume_ping_pong_queue_search() {
    let n = 300u64;
    let inorder = hvpp(n as u32, 8, false);
    let rev = hvpp(n as u32, 8, true);
    // In order: every message is found at the head of posted_recvs: one
    // element per message, 2n in all (linear in n).
    assert_eq!(inorder.elements_visited(), 2 * n as u128);
    assert_eq!(inorder.posted_search.max(), Some(1));
    // Reversed: the first arrival walks all n posted receives, the next
    // n - 1, ...: n (n + 1) / 2 per direction (quadratic in n).
    let quad = n * (n + 1) / 2;
    assert_eq!(rev.elements_visited(), 2 * quad as u128);
    assert_eq!(rev.posted_search.max(), Some(n));
    // Intra-socket short (alpha 440 ns, R_b 2.2e9): the sender's port
    // lets one message leave per g + 7 G = 440 ns + ceil(7 x 454 545 fs)
    // = 443.182 ns; each crosses memory (two copies of 8 B at 4.4e9 B/s:
    // 3.637 ns); the receiver spends gamma v + o_r with o_r = 440 - 8.4 =
    // 431.6 ns (derived). The pair window of one message lets the next
    // leave only when the receiver has handled the last: one message per
    // max(443.182, 3.637 + gamma v + 431.6) ns. In order (v = 1) that is
    // 443.637 ns, and a phase is n of them.
    let (wire, o_r) = (Time::from_ps(3_637), Time::from_ps(431_600));
    let gamma = MpiParams::blue_waters().gamma_posted.gamma;
    assert_eq!(inorder.makespan, (wire + gamma + o_r) * n * 2);
    // Reversed, message k visits n - k elements: the window holds each
    // message until the last was handled, so the phase is the sum of the
    // pair's work, (wire + o_r) n + gamma n (n + 1) / 2: max-rate plus
    // the search (Bienz et al. Fig. 5), not overlapped.
    assert_eq!(rev.makespan, ((wire + o_r) * n + gamma * quad) * 2);
    assert_eq!(inorder.messages(), 2 * n);
}

/// A pre-posted receive is matched on arrival even under a long compute if
/// a progress engine runs MPI; on its own core it waits for the compute.
#[test]
fn progress_engine_versus_own_core() {
    let c = Time::from_us(100);
    let prog = || {
        progs(vec![
            vec![send(1, 0, 8)],
            vec![
                Op::Irecv {
                    src: Source::Rank(0),
                    tag: TagSel::Tag(0),
                    bytes: 8,
                    comm: W,
                    req: ReqId(1),
                },
                Op::Compute { duration: c },
                Op::Wait { req: ReqId(1) },
            ],
        ])
    };
    let mut p = MpiParams::blue_waters();
    let own = run(pair(0), net(1), prog(), p.clone()).unwrap();
    // Intra-socket short: the sender's CPU has the rest of alpha
    // (o_send), the receiver's only the search (o_recv = 0); the arrival's
    // search waits behind the compute, and goes before the program's
    // wait, which became ready later (time order).
    assert_eq!(own.finish[1], c + p.gamma_posted.gamma);
    p.progress = Progress::Engines { engines: 1 };
    let eng = run(pair(0), net(1), prog(), p).unwrap();
    assert_eq!(eng.finish[1], c);
}

// ----- matching against a slow reference -----------------------------------

/// The definition, literally: the earliest-posted accepting receive, the
/// earliest-arrived accepted envelope.
#[derive(Default)]
struct Reference {
    posted: Vec<PostedRecv>,
    unexpected: Vec<Envelope>,
}

fn ok(p: &PostedRecv, e: &Envelope) -> bool {
    p.ctx == e.ctx
        && (p.src.is_none() || p.src == Some(e.src))
        && (p.tag.is_none() || p.tag == Some(e.tag))
}

impl Reference {
    fn arrive(&mut self, e: Envelope) -> Option<PostedRecv> {
        for i in 0..self.posted.len() {
            if ok(&self.posted[i], &e) {
                return Some(self.posted.remove(i));
            }
        }
        self.unexpected.push(e);
        None
    }
    fn post(&mut self, p: PostedRecv) -> Option<Envelope> {
        for i in 0..self.unexpected.len() {
            if ok(&p, &self.unexpected[i]) {
                return Some(self.unexpected.remove(i));
            }
        }
        self.posted.push(p);
        None
    }
}

/// One operation on `q`: (matched, what matched, elements visited).
fn drive(q: &mut dyn MatchQueue, arrive: bool, p: PostedRecv, e: Envelope) -> (bool, u32, u64) {
    if arrive {
        let s = q.match_arrival(&e);
        match s.found {
            Some(x) => (true, x.req, s.visited),
            None => {
                q.add_unexpected(e);
                (false, u32::MAX, s.visited)
            }
        }
    } else {
        let s = q.match_post(&p);
        match s.found {
            Some(x) => (true, x.msg.0, s.visited),
            None => {
                q.add_posted(p);
                (false, u32::MAX, s.visited)
            }
        }
    }
}

#[test]
fn every_queue_matches_like_the_reference() {
    let streams = RngStreams::new(2024);
    let mut longest = 0;
    for case in 0..60u64 {
        let mut rng = streams.stream_indexed("matching", case);
        let mut reference = Reference::default();
        let mut lin = LinearQueues::default();
        let mut idx = IndexedLinearQueues::default();
        let mut small = SmallLinear::default();
        let mut hash = HashedQueues::default();
        let mut bins = BinnedQueues::default();
        // Few sources and tags make many matches; many make long queues
        // (which move SmallLinear to its indexed form).
        let (srcs, tags) = if case % 2 == 0 {
            (rng.random_range(1..6), rng.random_range(1..8))
        } else {
            (rng.random_range(10..40), rng.random_range(10..100))
        };
        let ctxs = 3;
        // Bias towards arrivals or posts so that one queue grows.
        let p_arrive = [0.5, 0.3, 0.7][(case % 3) as usize];
        // Mostly exact receives (as real codes post) in half of the cases:
        // the indexed lists add wildcard keys to a long unexpected queue
        // only when a wildcard receive first comes.
        let p_exact = if case % 4 < 2 { 0.7 } else { 0.98 };
        for i in 0..800u32 {
            let arrive = rng.random_bool(p_arrive);
            let e = Envelope {
                ctx: rng.random_range(0..ctxs),
                src: rng.random_range(0..srcs),
                tag: rng.random_range(0..tags),
                msg: MsgId(i),
            };
            let p = PostedRecv {
                ctx: rng.random_range(0..ctxs),
                src: rng.random_bool(p_exact).then(|| rng.random_range(0..srcs)),
                tag: rng.random_bool(p_exact).then(|| rng.random_range(0..tags)),
                req: i,
            };
            let want = if arrive {
                reference
                    .arrive(e)
                    .map_or((false, u32::MAX), |x| (true, x.req))
            } else {
                reference
                    .post(p)
                    .map_or((false, u32::MAX), |x| (true, x.msg.0))
            };
            let l = drive(&mut lin, arrive, p, e);
            assert_eq!((l.0, l.1), want, "linear, case {case} op {i}");
            // The indexed lists report the linear walk's lengths exactly.
            assert_eq!(
                drive(&mut idx, arrive, p, e),
                l,
                "indexed, case {case} op {i}"
            );
            assert_eq!(
                drive(&mut small, arrive, p, e),
                l,
                "small, case {case} op {i}"
            );
            let h = drive(&mut hash, arrive, p, e);
            assert_eq!((h.0, h.1), want, "hashed, case {case} op {i}");
            let b = drive(&mut bins, arrive, p, e);
            assert_eq!((b.0, b.1), want, "bins, case {case} op {i}");
            longest = longest
                .max(reference.posted.len())
                .max(reference.unexpected.len());
        }
        for q in [&lin as &dyn MatchQueue, &idx, &small, &hash, &bins] {
            assert_eq!(q.posted_recvs(), reference.posted, "case {case}");
            assert_eq!(q.posted_len(), reference.posted.len(), "case {case}");
            assert_eq!(q.unexpected_msgs(), reference.unexpected, "case {case}");
        }
    }
    // The indexed form was exercised, well past its switch point.
    assert!(longest > 4 * SmallLinear::LIMIT, "{longest}");
}

/// A deadlock-free random program on `p` ranks: every rank splits WORLD
/// into even and odd and dups WORLD; then messages between random pairs
/// with random tags and sizes on three communicators, received with
/// exact receives (WORLD), full wildcards (the dup), and ANY_TAG from a
/// named source (the split); then a barrier and an allreduce.
fn random_program(seed: u64, p: u32) -> Vec<VecProgram> {
    let mut rng = RngStreams::new(seed).stream("program");
    let dup = CommId(1);
    let half = CommId(2);
    let mut ops: Vec<Vec<Op>> = (0..p)
        .map(|r| {
            vec![
                Op::CommDup { comm: W, new: dup },
                Op::CommSplit {
                    comm: W,
                    color: (r % 2) as i32,
                    key: -(r as i32),
                    new: half,
                },
            ]
        })
        .collect();
    let mut recvs: Vec<Vec<Op>> = vec![vec![]; p as usize];
    let mut next_req = vec![0u64; p as usize];
    for _ in 0..20 * p {
        let a = rng.random_range(0..p);
        let b = rng.random_range(0..p);
        let bytes = [0u64, 8, 2000, 20_000][rng.random_range(0..4)];
        let tag = rng.random_range(0..5);
        let kind = rng.random_range(0..3);
        let (comm, dst, src, rtag) = match kind {
            0 => (W, b, Source::Rank(a), TagSel::Tag(tag)),
            1 => (dup, b, Source::Any, TagSel::Any),
            _ => {
                // Same parity only; ranks in the split are ordered by
                // key = -rank: the highest world rank is rank 0.
                if a % 2 != b % 2 {
                    continue;
                }
                let size = (p + 1 - a % 2) / 2;
                let cr = |w: u32| size - 1 - w / 2;
                (half, cr(b), Source::Rank(cr(a)), TagSel::Any)
            }
        };
        let q = next_req[a as usize];
        next_req[a as usize] += 1;
        ops[a as usize].push(Op::Isend {
            dst,
            tag,
            bytes,
            comm,
            req: ReqId(q),
        });
        let q = next_req[b as usize];
        next_req[b as usize] += 1;
        // Wildcard receives may match any message: every buffer holds
        // the largest size (a smaller one would be MPI_ERR_TRUNCATE).
        recvs[b as usize].push(Op::Irecv {
            src,
            tag: rtag,
            bytes: 20_000,
            comm,
            req: ReqId(q),
        });
    }
    for (r, rv) in recvs.into_iter().enumerate() {
        ops[r].extend(rv);
        ops[r].push(Op::WaitallPending);
        ops[r].push(Op::Barrier { comm: W });
        ops[r].push(Op::Allreduce {
            elem_bytes: 8,
            bytes: 64,
            comm: half,
        });
    }
    progs(ops)
}

#[test]
fn random_programs_run_alike_under_every_matcher_and_repeat_exactly() {
    let placement = Placement::block(12, 4, 2);
    for seed in 0..4 {
        let mut base: Option<RunResults> = None;
        for m in [
            MatcherKind::Linear,
            MatcherKind::Hashed,
            MatcherKind::PerSourceBins,
            MatcherKind::Offloaded {
                cost: Time::from_ns(50),
            },
        ] {
            let mut p = MpiParams::blue_waters();
            p.matcher = m;
            let r = run(
                placement.clone(),
                net(3),
                random_program(seed, 12),
                p.clone(),
            )
            .unwrap();
            // Determinism: the same program and parameters twice.
            let again = run(placement.clone(), net(3), random_program(seed, 12), p).unwrap();
            assert_eq!(r, again);
            if let Some(b) = &base {
                assert_eq!(r.traffic, b.traffic, "{m:?}");
            } else {
                base = Some(r);
            }
        }
    }
}

// ----- collectives ------------------------------------------------------

fn one_per_node(p: u32) -> Placement {
    Placement::block(p, 1, 1)
}

fn coll(p: u32, op: Op, params: MpiParams) -> RunResults {
    run(
        one_per_node(p),
        net(p),
        progs((0..p).map(|_| vec![op.clone()]).collect()),
        params,
    )
    .unwrap()
}

/// Inter-node short message of `s` bytes: T = 2.3 us + s / 1.3e9.
fn t_short(s: u64) -> Time {
    postal(&MpiParams::blue_waters(), Protocol::Short, 2, s)
}

#[test]
fn collectives_take_hand_computed_times() {
    let bw = MpiParams::blue_waters();
    let gamma = bw.gamma_posted.gamma;
    // Dissemination barrier: ceil(log2 P) rounds, each one message per
    // rank, all in parallel. A rank's send holds its CPU alpha (g_cpu);
    // its message leaves after o_send = alpha - L - gamma and arrives
    // gamma before alpha, where it waits for that CPU: the round takes
    // T(0) + gamma (the search after the send, on one core).
    let r = coll(4, Op::Barrier { comm: W }, bw.clone());
    assert_eq!(r.makespan, (t_short(0) + gamma) * 2);
    assert_eq!(r.messages(), 8);
    let r = coll(5, Op::Barrier { comm: W }, bw.clone());
    assert_eq!(r.makespan, (t_short(0) + gamma) * 3);
    assert_eq!(r.messages(), 15);
    // Binomial bcast of 8 B on 8 ranks: rank 7 gets the data through
    // 0 -> 1 -> 3 -> 7, each hop posted the moment the previous one
    // completes: 3 T(8). Every other rank finishes earlier.
    let r = coll(
        8,
        Op::Bcast {
            elem_bytes: 8,
            root: 0,
            bytes: 8,
            comm: W,
        },
        bw.clone(),
    );
    assert_eq!(r.makespan, t_short(8) * 3);
    assert_eq!(r.finish[7], t_short(8) * 3);
    assert_eq!((r.messages(), r.bytes()), (7, 56));
    // Recursive-doubling allreduce, 8 B on 4 ranks: 2 rounds of an
    // exchange followed by the reduction of 8 B at 2 GB/s (4 ns). The
    // partner's message arrives before the rank's own send is off its
    // CPU (alpha, then 7 B pushed at R_b = 1.3 GB/s), and is searched
    // after it: a round is alpha + 7 B / R_b + gamma + the reduction.
    let red = transfer_time(8, bw.collectives.reduce_rate);
    let push = sim_core::PerByte::of_rate(Bandwidth::bytes_per_sec(1_300_000_000)).cost(7);
    let round = Time::from_ns(2300) + push + gamma + red;
    let r = coll(
        4,
        Op::Allreduce {
            elem_bytes: 8,
            bytes: 8,
            comm: W,
        },
        bw.clone(),
    );
    assert_eq!(r.makespan, round * 2);
    assert_eq!((r.messages(), r.bytes()), (8, 64));
    // Reductions not charged (the `smpi` preset, as SimGrid's replay):
    // the same rounds without the 4 ns.
    let mut free = bw.clone();
    free.collectives.charge_reductions = false;
    let r = coll(
        4,
        Op::Allreduce {
            elem_bytes: 8,
            bytes: 8,
            comm: W,
        },
        free,
    );
    assert_eq!(r.makespan, (Time::from_ns(2300) + push + gamma) * 2);
    assert!(!MpiParams::smpi().collectives.charge_reductions);
}

#[test]
fn collectives_move_the_right_messages_and_bytes() {
    let bw = MpiParams::blue_waters();
    let with = |f: &dyn Fn(&mut MpiParams)| {
        let mut p = bw.clone();
        f(&mut p);
        p
    };
    // (P, op, params, messages, bytes), counts by hand:
    let cases: Vec<(u32, Op, MpiParams, u64, u64)> = vec![
        // Allreduce recursive doubling, P = 6: pof2 4, rem 2: 2 folds,
        // 4 x 2 exchanges, 2 unfolds.
        (
            6,
            Op::Allreduce {
                elem_bytes: 8,
                bytes: 8,
                comm: W,
            },
            bw.clone(),
            12,
            96,
        ),
        // Rabenseifner, P = 8, 64 KB: per rank 32+16+8 KB halving and
        // 8+16+32 KB doubling = 112 KB; 8 ranks x 6 messages.
        (
            8,
            Op::Allreduce {
                elem_bytes: 8,
                bytes: 65_536,
                comm: W,
            },
            bw.clone(),
            48,
            8 * 114_688,
        ),
        // Rabenseifner on P = 5: 1 fold and unfold of the full 64 KB plus
        // the P = 4 pattern (32+16+16+32 KB each of 4 ranks).
        (
            5,
            Op::Allreduce {
                elem_bytes: 8,
                bytes: 65_536,
                comm: W,
            },
            bw.clone(),
            2 + 16,
            2 * 65_536 + 4 * 98_304,
        ),
        // Ring allreduce P = 5, 1000 B: chunks of 200 B, 2 x 4 steps x 5.
        (
            5,
            Op::Allreduce {
                elem_bytes: 8,
                bytes: 1000,
                comm: W,
            },
            with(&|p| {
                p.collectives.allreduce_short_max = 0;
                p.collectives.allreduce_large = AllreduceLarge::Ring;
            }),
            40,
            40 * 200,
        ),
        // Scatter-allgather bcast P = 8, 16 KB: chunks of 2 KB; scatter
        // moves 4+2+2+1+1+1+1 chunks, the ring 7 steps x 8 ranks.
        (
            8,
            Op::Bcast {
                elem_bytes: 8,
                root: 3,
                bytes: 16_384,
                comm: W,
            },
            bw.clone(),
            7 + 56,
            12 * 2048 + 56 * 2048,
        ),
        // Alltoall pairwise P = 4, 1 KB: P (P - 1) messages.
        (
            4,
            Op::Alltoall {
                bytes: 1024,
                comm: W,
            },
            bw.clone(),
            12,
            12 * 1024,
        ),
        // Alltoall Bruck P = 8, 16 B: 3 steps, 4 blocks each, 8 ranks.
        (
            8,
            Op::Alltoall { bytes: 16, comm: W },
            bw.clone(),
            24,
            24 * 4 * 16,
        ),
        // Allgather recursive doubling P = 8, 100 B: 100 + 200 + 400 per
        // rank; ring on P = 6: 5 steps x 6 ranks.
        (
            8,
            Op::Allgather {
                bytes: 100,
                comm: W,
            },
            bw.clone(),
            24,
            8 * 700,
        ),
        (
            6,
            Op::Allgather {
                bytes: 100,
                comm: W,
            },
            bw.clone(),
            30,
            3000,
        ),
        // Reduce binomial P = 6: P - 1 messages of s.
        (
            6,
            Op::Reduce {
                elem_bytes: 8,
                root: 5,
                bytes: 10,
                comm: W,
            },
            bw.clone(),
            5,
            50,
        ),
        // Gatherv linear: P - 1 messages, sum of the others' counts.
        (
            4,
            Op::Gatherv {
                root: 1,
                counts: vec![1, 2, 3, 4],
                comm: W,
            },
            bw.clone(),
            3,
            1 + 3 + 4,
        ),
        (
            4,
            Op::Scatterv {
                root: 0,
                counts: vec![1, 2, 3, 4],
                comm: W,
            },
            bw.clone(),
            3,
            2 + 3 + 4,
        ),
        // Alltoallv with every size 5: like pairwise.
        (
            3,
            Op::Alltoallv {
                send: vec![5; 3],
                recv: vec![5; 3],
                comm: W,
            },
            bw.clone(),
            6,
            30,
        ),
        (
            4,
            Op::Scan {
                bytes: 8,
                comm: W,
                exclusive: true,
            },
            bw.clone(),
            5,
            40,
        ),
        // Binomial gather to root 2 on P = 6, 10 B each: relative ranks
        // 1, 3, 5 send 10 B; 2 sends 20 B (itself and 3); 4 sends 20 B
        // (itself and 5): 5 messages, 30 + 20 + 20 = 70 B.
        (
            6,
            Op::Gather {
                root: 2,
                bytes: 10,
                comm: W,
            },
            bw.clone(),
            5,
            70,
        ),
        // Binomial scatter mirrors it.
        (
            6,
            Op::Scatter {
                root: 2,
                bytes: 10,
                comm: W,
            },
            bw.clone(),
            5,
            70,
        ),
        // Ring allgatherv and reduce_scatter: every block travels P - 1
        // hops: 3 x (1 + 2 + 3 + 4) bytes in 4 x 3 messages.
        (
            4,
            Op::Allgatherv {
                counts: vec![1, 2, 3, 4],
                comm: W,
            },
            bw.clone(),
            12,
            30,
        ),
        (
            4,
            Op::ReduceScatter {
                counts: vec![1, 2, 3, 4],
                elem_bytes: 1,
                comm: W,
            },
            bw.clone(),
            12,
            30,
        ),
    ];
    for (p, op, params, m, b) in cases {
        let r = coll(p, op.clone(), params);
        assert_eq!((r.messages(), r.bytes()), (m, b), "{op:?} on {p}");
    }
}

#[test]
fn collective_messages_never_match_user_receives() {
    // Rank 0 posts a full-wildcard receive, then both run a barrier; the
    // barrier's messages must not satisfy it. Rank 1 sends afterwards.
    let r = run(
        one_per_node(2),
        net(2),
        progs(vec![
            vec![
                Op::Irecv {
                    src: Source::Any,
                    tag: TagSel::Any,
                    bytes: 4,
                    comm: W,
                    req: ReqId(9),
                },
                Op::Barrier { comm: W },
                Op::Wait { req: ReqId(9) },
            ],
            vec![Op::Barrier { comm: W }, send(0, 3, 4)],
        ]),
        MpiParams::blue_waters(),
    )
    .unwrap();
    // Barrier: 2 messages; then the user message.
    assert_eq!(r.messages(), 3);
    // Rank 0 finishes one T(4) after it has handled rank 1's barrier
    // message: Blue Waters' pair window of one message holds the user
    // message (its send job) until then. That barrier message arrives
    // gamma before rank 0's own barrier send is off its CPU (alpha), and
    // its search then visits two elements (the wildcard user receive
    // comes first): T(0) + 2 gamma.
    let gamma = MpiParams::blue_waters().gamma_posted.gamma;
    assert_eq!(r.finish[0], t_short(0) + gamma * 2 + t_short(4));
}

#[test]
fn split_communicators_run_their_own_collectives() {
    let p = 6;
    let ops = (0..p)
        .map(|r| {
            vec![
                Op::CommSplit {
                    comm: W,
                    color: (r % 3) as i32,
                    key: 0,
                    new: CommId(7),
                },
                Op::Bcast {
                    elem_bytes: 8,
                    root: 1,
                    bytes: 8,
                    comm: CommId(7),
                },
            ]
        })
        .collect();
    let r = run(
        one_per_node(p),
        net(p),
        progs(ops),
        MpiParams::blue_waters(),
    )
    .unwrap();
    // Three communicators of two: one message each.
    assert_eq!(r.messages(), 3);
    assert_eq!(r.makespan, t_short(8));
}

// ----- errors -------------------------------------------------------------

#[test]
fn unmatched_receive_ends_with_a_deadlock_report() {
    let err = run(
        pair(2),
        net(2),
        progs(vec![vec![recv(1, 7)], vec![send(0, 8, 16)]]),
        MpiParams::blue_waters(),
    )
    .unwrap_err();
    let RunError::Deadlock(rep) = &err else {
        panic!("expected a deadlock, got {err}");
    };
    assert_eq!(rep.blocked.len(), 1);
    let b = &rep.blocked[0];
    assert_eq!(b.rank, 0);
    assert_eq!(b.origin, "rank0:1");
    assert!(b.op.starts_with("MPI_Recv(source 1, tag 7"), "{}", b.op);
    assert_eq!(
        b.posted_recvs,
        vec!["receive from source 1, tag 7, MPI_COMM_WORLD"]
    );
    assert_eq!(
        b.unexpected_msgs,
        vec!["short message from rank 1, tag 8, 16 B, MPI_COMM_WORLD"]
    );
    let text = err.to_string();
    assert!(text.contains("rank 0 blocked in MPI_Recv("), "{text}");
    assert!(text.contains("at rank0:1"), "{text}");
}

#[test]
fn a_send_nobody_receives_is_counted() {
    // An eager send completes without its receive; the run ends normally
    // but reports the message left in rank 1's unexpected_msgs.
    let r = run(
        pair(2),
        net(2),
        progs(vec![vec![send(1, 0, 100)], vec![]]),
        MpiParams::blue_waters(),
    )
    .unwrap();
    assert_eq!(r.unmatched_messages, 1);
}

#[test]
fn semantic_errors_name_rank_and_origin() {
    let bw = MpiParams::blue_waters();
    let e = run(
        pair(0),
        net(1),
        progs(vec![
            vec![],
            vec![
                Op::Sleep {
                    duration: Time::from_ns(1),
                },
                Op::Wait { req: ReqId(3) },
            ],
        ]),
        bw.clone(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "rank 1: rank1:2: request 3 is unknown");
    let e = run(
        pair(0),
        net(1),
        progs(vec![vec![send(2, 0, 1)], vec![]]),
        bw.clone(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "rank 0: rank0:1: rank 2 is outside the communicator (size 2)"
    );
    let e = run(
        pair(0),
        net(1),
        progs(vec![vec![Op::Barrier { comm: CommId(4) }], vec![]]),
        bw.clone(),
    )
    .unwrap_err();
    assert!(matches!(e, RunError::Semantic { rank: 0, .. }), "{e}");

    /// A reader that fails on its second line.
    struct Bad(u32);
    impl OpStream for Bad {
        fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
            self.0 += 1;
            let origin = Origin {
                source: "trace.txt".into(),
                line: self.0 as u64,
            };
            if self.0 == 2 {
                return Err(ProgramError {
                    origin,
                    message: "unknown operation `sned`".into(),
                });
            }
            Ok(Some((
                Op::Sleep {
                    duration: Time::ZERO,
                },
                origin,
            )))
        }
    }
    let e = run(pair(0), net(1), vec![Bad(0), Bad(5)], bw).unwrap_err();
    assert_eq!(
        e.to_string(),
        "rank 0: trace.txt:2: unknown operation `sned`"
    );
}

#[test]
fn impossible_calibration_is_a_configuration_error() {
    // A 5 us wire cannot fit in the 2.3 us inter-node short alpha.
    let slow = IdealNetwork::new(2, Time::from_us(5), Bandwidth::bytes_per_sec(1 << 40));
    let e = run(
        pair(2),
        slow,
        progs(vec![vec![], vec![]]),
        MpiParams::blue_waters(),
    )
    .unwrap_err();
    match e {
        RunError::Config(ConfigError::NegativeOverhead {
            protocol, locality, ..
        }) => {
            assert_eq!(protocol, Protocol::Short);
            assert_eq!(locality, topology::Locality::OtherNode);
        }
        e => panic!("{e}"),
    }
}

#[test]
fn presets_are_consistent_on_an_ideal_network() {
    // Each preset passes its own calibration check with a wire latency
    // below its smallest alpha / 3, and runs a ping-pong to eq. 1.
    for (p, lat) in [
        (MpiParams::blue_waters(), 500),
        (MpiParams::bgp(), 1000),
        (MpiParams::infiniband_qdr(), 1616),
        (MpiParams::ethernet_zhu(), 50_000),
    ] {
        let n = IdealNetwork::new(2, Time::from_ns(lat), Bandwidth::bytes_per_sec(1 << 40));
        for s in [0u64, 300, 5000, 50_000] {
            let r = run(
                pair(2),
                n.clone(),
                progs(vec![vec![send(1, 0, s)], vec![recv(0, 0)]]),
                p.clone(),
            )
            .unwrap();
            assert_eq!(r.finish[1], postal(&p, p.protocol(s), 2, s));
        }
    }
}

// ----- point-to-point semantics ---------------------------------------------

#[test]
fn non_overtaking_holds_when_the_wire_reorders() {
    // Rank 0 sends 8000 B then 8 B with the same tag through shared
    // memory; the small one reaches rank 1 first (2.5 ns against 2.5 us
    // of copy) but must not overtake: rank 1's only receive (ANY_TAG)
    // gets the big one and completes at its eq. 1 time; the small one is
    // left unmatched.
    let bw = MpiParams::blue_waters();
    let isend = |bytes, req| Op::Isend {
        dst: 1,
        tag: 1,
        bytes,
        comm: W,
        req: ReqId(req),
    };
    let r = run(
        pair(0),
        net(1),
        progs(vec![
            vec![isend(8000, 1), isend(8, 2), Op::WaitallPending],
            vec![Op::Recv {
                src: Source::Rank(0),
                tag: TagSel::Any,
                bytes: 8000,
                comm: W,
            }],
        ]),
        bw.clone(),
    )
    .unwrap();
    assert_eq!(r.finish[1], postal(&bw, Protocol::Eager, 0, 8000));
    assert_eq!(r.unmatched_messages, 1);
}

#[test]
fn sendrecv_ring_waitany_and_test() {
    let bw = MpiParams::blue_waters();
    let t8 = postal(&bw, Protocol::Short, 0, 8);
    // A ring of Sendrecv on one socket: everyone's send holds its CPU
    // alpha + 7 B / R_b, and the predecessor's message, there gamma
    // earlier, is searched after it.
    let p = 4;
    let ops = (0..p)
        .map(|r| {
            vec![Op::Sendrecv {
                dst: (r + 1) % p,
                send_tag: 0,
                send_bytes: 8,
                src: Source::Rank((r + p - 1) % p),
                recv_tag: TagSel::Tag(0),
                recv_bytes: 8,
                comm: W,
            }]
        })
        .collect();
    let r = run(Placement::block(p, 16, 2), net(1), progs(ops), bw.clone()).unwrap();
    let exchange = Time::from_ns(440)
        + sim_core::PerByte::of_rate(Bandwidth::bytes_per_sec(2_200_000_000)).cost(7)
        + bw.gamma_posted.gamma;
    assert!(r.finish.iter().all(|&f| f == exchange), "{:?}", r.finish);

    // Waitany returns with the first message (from rank 2, at T); the
    // other (rank 1 sends after sleeping 10 us) then arrives at 10 us + T.
    let irecv = |src, req| Op::Irecv {
        src: Source::Rank(src),
        tag: TagSel::Any,
        bytes: 8,
        comm: W,
        req: ReqId(req),
    };
    let d = Time::from_us(10);
    let three = |tail: Vec<Op>| {
        let mut r0 = vec![
            irecv(1, 1),
            irecv(2, 2),
            Op::Waitany {
                reqs: vec![ReqId(1), ReqId(2)],
            },
        ];
        r0.extend(tail);
        progs(vec![
            r0,
            vec![Op::Sleep { duration: d }, send(0, 0, 8)],
            vec![send(0, 0, 8)],
        ])
    };
    let pl = Placement::block(3, 16, 2);
    let r = run(
        pl.clone(),
        net(1),
        three(vec![Op::Wait { req: ReqId(1) }]),
        bw.clone(),
    )
    .unwrap();
    assert_eq!(r.finish[0], d + t8);
    // Waitany freed request 2: waiting on it again is an error.
    let e = run(
        pl,
        net(1),
        three(vec![Op::Wait { req: ReqId(2) }]),
        bw.clone(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "rank 0: rank0:4: request 2 is unknown");

    // Test completes and frees a finished request: MPI sets the handle to
    // MPI_REQUEST_NULL, so testing or waiting on it again is legal and
    // returns at once (trace readers emit such waits after tests).
    let r = run(
        pair(0),
        net(1),
        progs(vec![
            vec![send(1, 0, 8)],
            vec![
                irecv(0, 5),
                Op::Sleep { duration: d },
                Op::Test { req: ReqId(5) },
                Op::Test { req: ReqId(5) },
                Op::Wait { req: ReqId(5) },
            ],
        ]),
        bw.clone(),
    )
    .unwrap();
    assert_eq!(r.finish[1], d, "the second test and the wait cost nothing");
    // A wait on an id no operation ever named is still an error.
    let e = run(
        pair(0),
        net(1),
        progs(vec![vec![], vec![Op::Wait { req: ReqId(9) }]]),
        bw,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "rank 1: rank1:1: request 9 is unknown");
}

#[test]
fn offload_keeps_protocol_work_off_the_core() {
    // Rank 0 posts an isend then computes 1 us. Onload, the send overhead
    // o_send = 200 ns runs on the core first (the isend returns after
    // it); offload, the NIC does it and the compute starts at once.
    let c = Time::from_us(1);
    let prog = || {
        progs(vec![
            vec![
                Op::Isend {
                    dst: 1,
                    tag: 0,
                    bytes: 8,
                    comm: W,
                    req: ReqId(0),
                },
                Op::Compute { duration: c },
                Op::Wait { req: ReqId(0) },
            ],
            vec![recv(0, 0)],
        ])
    };
    let mut p = MpiParams::blue_waters();
    p.set_host_all(HostCosts {
        o_send: Time::from_ns(200),
        rest: mpi_layer::Rest::RecvOverhead,
        cpu_gap: Some(Time::ZERO),
        ..HostCosts::max_rate(None)
    });
    let on = run(pair(0), net(1), prog(), p.clone()).unwrap();
    assert_eq!(on.finish[0], c + Time::from_ns(200));
    p.protocol_offload = true;
    let off = run(pair(0), net(1), prog(), p.clone()).unwrap();
    assert_eq!(off.finish[0], c);
    // Offload moves work, not time: the message still takes eq. 1.
    assert_eq!(off.finish[1], postal(&p, Protocol::Short, 0, 8));
}

#[test]
fn ring_allgather_and_pairwise_alltoall_take_p_minus_1_steps() {
    // Both are P - 1 symmetric steps of one exchange of s bytes between
    // nodes (short): a rank's send holds its CPU alpha + (s - 1) / R_b,
    // and the partner's message, there gamma earlier, is searched after
    // it.
    let bw = MpiParams::blue_waters();
    let step = |s: u64| {
        Time::from_ns(2300)
            + sim_core::PerByte::of_rate(Bandwidth::bytes_per_sec(1_300_000_000)).cost(s - 1)
            + bw.gamma_posted.gamma
    };
    let r = coll(
        6,
        Op::Allgather {
            bytes: 100,
            comm: W,
        },
        bw.clone(),
    );
    assert_eq!(r.makespan, step(100) * 5);
    let r = coll(
        4,
        Op::Alltoall {
            bytes: 1000,
            comm: W,
        },
        bw.clone(),
    );
    assert_eq!(r.makespan, step(1000) * 3);
}

#[test]
fn a_rank_missing_from_a_barrier_is_reported() {
    // Ranks 0..3 enter a barrier; rank 3 never does.
    let mut ops: Vec<Vec<Op>> = (0..3).map(|_| vec![Op::Barrier { comm: W }]).collect();
    ops.push(vec![]);
    let err = run(
        Placement::block(4, 16, 2),
        net(1),
        progs(ops),
        MpiParams::blue_waters(),
    )
    .unwrap_err();
    let RunError::Deadlock(rep) = err else {
        panic!("expected a deadlock");
    };
    // Round 0: rank 0 waits for rank 3's message (rank 3 - 1 = 0 + 4 - 1),
    // so rank 0 is blocked; ranks 1 and 2 are stuck in later rounds
    // behind it. All three are listed, in the barrier, with its origin.
    let ranks: Vec<u32> = rep.blocked.iter().map(|b| b.rank).collect();
    assert_eq!(ranks, vec![0, 1, 2]);
    for b in &rep.blocked {
        assert_eq!(b.op, "MPI_Barrier(MPI_COMM_WORLD)");
        assert_eq!(b.origin, format!("rank{}:1", b.rank));
    }
    assert_eq!(
        rep.blocked[0].posted_recvs,
        vec!["receive from source 3, tag 1048576, MPI_COMM_WORLD (collective)"]
    );
}

#[test]
fn one_progress_engine_funnels_a_nodes_receives() {
    // Ranks 0 and 1 (nodes 0 and 1) each send 8 B at t = 0 to ranks 2
    // and 3, both on node 2. The envelopes arrive together. With one
    // progress engine on node 2 (Bridges et al.'s funnelled progress) the
    // second receive waits for the first one's search and o_r; with two
    // engines both complete at T.
    // The receive side gets 1 us of the short protocol's alpha (o_recv;
    // the sender's o_send keeps the rest, so one message still takes T).
    let mut bw = MpiParams::blue_waters();
    let o_r = Time::from_us(1);
    bw.host[Protocol::Short.index()][2].o_recv = o_r;
    let placement =
        Placement::from_locs(vec![loc(0, 0, 0), loc(1, 0, 0), loc(2, 0, 0), loc(2, 0, 1)]);
    let prog = || {
        progs(vec![
            vec![send(2, 0, 8)],
            vec![send(3, 0, 8)],
            vec![recv(0, 0)],
            vec![recv(1, 0)],
        ])
    };
    let t = t_short(8);
    let mut p = bw.clone();
    p.progress = Progress::Engines { engines: 1 };
    let one = run(placement.clone(), net(3), prog(), p.clone()).unwrap();
    let mut f = vec![one.finish[2], one.finish[3]];
    f.sort();
    assert_eq!(f, vec![t, t + bw.gamma_posted.gamma + o_r]);
    p.progress = Progress::Engines { engines: 2 };
    let two = run(placement, net(3), prog(), p).unwrap();
    assert_eq!((two.finish[2], two.finish[3]), (t, t));
}

// ----- the host model: streams, ports, time order, windows, memory -------

/// One progress engine per process: a process that sends and receives at
/// once pays its sends' CPU work and its arrivals' searches one after the
/// other on its core, so the queue implementation changes its time.
/// Rank 0 sends 4 short messages (tags 0..3) to rank 1, which has posted
/// their receives in reverse and sends 4 of its own to rank 2 meanwhile.
#[test]
fn sends_and_searches_add_up_on_one_core() {
    let mut p = MpiParams::blue_waters();
    // No flow control: only the core is shared.
    p.pair_window = None;
    let ops = |m: MatcherKind| {
        let mut p = p.clone();
        p.matcher = m;
        let irecv = |src: u32, tag: i32| Op::Irecv {
            src: Source::Rank(src),
            tag: TagSel::Tag(tag),
            bytes: 8,
            comm: W,
            req: ReqId(10 + tag as u64),
        };
        let r1: Vec<Op> = (0..4)
            .rev()
            .map(|t| irecv(0, t))
            .chain((0..4).map(|t| isend(2, t, 8, t as u64)))
            .chain([Op::WaitallPending])
            .collect();
        let r2: Vec<Op> = (0..4)
            .map(|t| irecv(1, t))
            .chain([Op::WaitallPending])
            .collect();
        let r0: Vec<Op> = (0..4)
            .map(|t| isend(1, t, 8, t as u64))
            .chain([Op::WaitallPending])
            .collect();
        run(one_per_node(3), net(3), progs(vec![r0, r1, r2]), p).unwrap()
    };
    let gamma = p.gamma_posted.gamma;
    // A send holds its core S = alpha + 7 B / R_b (inter-node short:
    // 2.3 us, 1.3 GB/s); it leaves after o_send = alpha + 8 B / R_b - L -
    // 8 B / R_b - gamma, so rank 0's message i reaches rank 1 at i S +
    // T(8) - gamma, just before rank 1's own send i is off its core.
    // Rank 1 searches each arrival when its current send ends, before its
    // program's next Isend (ready later): 4, 3, 2, 1 elements.
    let s = Time::from_ns(2300)
        + sim_core::PerByte::of_rate(Bandwidth::bytes_per_sec(1_300_000_000)).cost(7);
    let linear = ops(MatcherKind::Linear);
    assert_eq!(linear.finish[1], s * 4 + gamma * 10);
    // Its last send waited for 4 + 3 + 2 elements of search: rank 2 has it
    // T(8) after it left.
    assert_eq!(linear.finish[2], s * 3 + gamma * 9 + t_short(8));
    // A hashed queue finds each receive at once: one element each.
    let hashed = ops(MatcherKind::Hashed);
    assert_eq!(hashed.finish[1], s * 4 + gamma * 4);
    assert_eq!(hashed.finish[2], s * 3 + gamma * 3 + t_short(8));
    // A matcher on the NIC takes nothing from the core (and, costing
    // nothing, leaves gamma more of alpha to o_send): rank 1 is done when
    // rank 0's last message lands, T(8) after rank 0's last send began.
    let nic = ops(MatcherKind::Offloaded { cost: Time::ZERO });
    assert_eq!(nic.finish[1], s * 3 + t_short(8));
}

fn isend(dst: u32, tag: i32, bytes: u64, req: u64) -> Op {
    Op::Isend {
        dst,
        tag,
        bytes,
        comm: W,
        req: ReqId(req),
    }
}

fn irecv(src: u32, tag: i32, bytes: u64, req: u64) -> Op {
    Op::Irecv {
        src: Source::Rank(src),
        tag: TagSel::Tag(tag),
        bytes,
        comm: W,
        req: ReqId(req),
    }
}

/// Parameters for the stream tests: every cell alpha = 5 us, R_b = 1 GB/s,
/// gamma 10 ns per element of either queue, no window, host costs `h`.
fn stream_params(h: HostCosts) -> MpiParams {
    let mut p = MpiParams::blue_waters();
    for row in p.postal.iter_mut() {
        for c in row.iter_mut() {
            *c = mpi_layer::Postal::from_secs(5e-6, 1e9);
        }
    }
    p.gamma_posted = mpi_layer::SearchCost::flat(Time::from_ns(10));
    p.gamma_unexpected = mpi_layer::SearchCost::flat(Time::from_ns(10));
    p.pair_window = None;
    p.set_host_all(h);
    p
}

/// The stream contract (MpiParams docs): n in-order messages of s bytes,
/// receives posted first, sent back to back; message i completes at
/// t0 + T1 + i P, P the slowest of the sender's CPU and port and the
/// receiver's CPU and port. Checked for every n up to 4 (the receiver's
/// last completion), with each resource binding in turn.
#[test]
fn stream_contract_holds_for_every_binding_resource() {
    let s = 101u64; // s - 1 = 100 B: (s - 1) G = 100 ns at G = 1 ns/B
    let t1 = Time::from_ns(5000 + 101);
    let run_n = |p: &MpiParams, n: u64| {
        let sender: Vec<Op> = (0..n)
            .map(|i| isend(1, i as i32, s, i))
            .chain([Op::WaitallPending])
            .collect();
        let receiver: Vec<Op> = (0..n)
            .map(|i| irecv(0, i as i32, s, i))
            .chain([Op::WaitallPending])
            .collect();
        run(pair(2), net(2), progs(vec![sender, receiver]), p.clone())
            .unwrap()
            .finish[1]
    };
    let base = HostCosts {
        o_send: Time::ZERO,
        o_recv: Time::from_ns(100),
        latency: Time::ZERO,
        rest: mpi_layer::Rest::Latency,
        gap: Some(Time::ZERO),
        cpu_gap: Some(Time::ZERO),
        gap_per_byte: None,
        recv_gap: Time::ZERO,
        recv_gap_per_byte: sim_core::PerByte::ZERO,
        send_cpu_per_byte: sim_core::PerByte::ZERO,
        recv_cpu_per_byte: sim_core::PerByte::ZERO,
        o_inflight: Time::ZERO,
    };
    let cases = [
        // Sender CPU: o_send = 2 us.
        (
            HostCosts {
                o_send: Time::from_ns(2000),
                ..base
            },
            Time::from_ns(2000),
        ),
        // Sender port: g + (s - 1) G = 3000 + 100 ns.
        (
            HostCosts {
                gap: Some(Time::from_ns(3000)),
                ..base
            },
            Time::from_ns(3100),
        ),
        // Receiver CPU: o_recv is the rest, T1 - wire (500 + 101 ns) -
        // match (10 ns) = 4490 ns; with the match, 4500 ns.
        (
            HostCosts {
                rest: mpi_layer::Rest::RecvOverhead,
                ..base
            },
            Time::from_ns(4500),
        ),
        // Receiver port: match + g_recv = 10 + 6000 ns.
        (
            HostCosts {
                recv_gap: Time::from_ns(6000),
                ..base
            },
            Time::from_ns(6010),
        ),
    ];
    for (k, (h, period)) in cases.into_iter().enumerate() {
        let p = stream_params(h);
        for n in 1..=4u64 {
            assert_eq!(run_n(&p, n), t1 + period * (n - 1), "case {k}, n = {n}");
        }
    }
    // A pair window of one message: the next leaves when the receiver has
    // handled the last, so P = T1 - o_send = T1 here.
    let mut p = stream_params(base);
    p.pair_window = Some(1);
    for n in 1..=4u64 {
        assert_eq!(run_n(&p, n), t1 * n, "window 1, n = {n}");
    }
    // The receives in flight: with o_inflight = 5 us, the arrival that
    // leaves k receives posted holds the receiver's core 110 ns + k 5 us.
    // The sender's port spaces arrivals 3100 ns apart from a0 = t1 -
    // 110 ns; n = 3: message 0 ends at a0 + 10110, message 1 (ready at
    // a0 + 3100) at a0 + 10110 + 5110, message 2 at a0 + 15220 + 110 =
    // t1 + 15220 (without the term, t1 + 6200). A lone message pays
    // nothing.
    let p = stream_params(HostCosts {
        gap: Some(Time::from_ns(3000)),
        o_inflight: Time::from_ns(5000),
        ..base
    });
    assert_eq!(run_n(&p, 1), t1);
    assert_eq!(run_n(&p, 3), t1 + Time::from_ns(15220));
}

/// Host work in time order: a forwarding rank's send, ready when its
/// first receive completes, goes before a later arrival's receive
/// overhead, and after an earlier one's. LogGP form (o_send 0.5 us,
/// o_recv 1 us, L 2 us, no gaps) on a network without latency or
/// bandwidth limit; times by hand in the comments.
#[test]
fn a_core_serves_work_in_the_order_it_becomes_ready() {
    let h = HostCosts {
        o_send: Time::from_ns(500),
        o_recv: Time::from_ns(1000),
        latency: Time::from_ns(2000),
        rest: mpi_layer::Rest::None,
        gap: Some(Time::ZERO),
        cpu_gap: Some(Time::ZERO),
        gap_per_byte: Some(sim_core::PerByte::ZERO),
        recv_gap: Time::ZERO,
        recv_gap_per_byte: sim_core::PerByte::ZERO,
        send_cpu_per_byte: sim_core::PerByte::ZERO,
        recv_cpu_per_byte: sim_core::PerByte::ZERO,
        o_inflight: Time::ZERO,
    };
    let mut p = MpiParams::loggp(
        Time::ZERO,
        Time::ZERO,
        Time::ZERO,
        sim_core::PerByte::ZERO,
        sim_core::PerByte::ZERO,
        1 << 20,
    );
    p.set_host_all(h);
    let ring = progs(vec![
        // Chunk 0 leaves at 0.5 us, lands at rank 1 at 2.5; chunk 1
        // after a 0.8 us compute: leaves at 1.8, lands at 3.8.
        vec![
            isend(1, 0, 64, 0),
            Op::Compute {
                duration: Time::from_ns(800),
            },
            isend(1, 1, 64, 1),
            Op::WaitallPending,
        ],
        // Chunk 0 handled [2.5, 3.5]; the program goes on at 3.5 and its
        // send of chunk 0 takes [3.5, 4.0] (before chunk 1, ready only at
        // 3.8); chunk 1 handled [4.0, 5.0]; its send [5.0, 5.5].
        vec![
            irecv(0, 0, 64, 0),
            irecv(0, 1, 64, 1),
            Op::Wait { req: ReqId(0) },
            isend(2, 0, 64, 2),
            Op::Wait { req: ReqId(1) },
            isend(2, 1, 64, 3),
            Op::WaitallPending,
        ],
        // Chunks land at 6.0 and 7.5; handled [6.0, 7.0] and [7.5, 8.5].
        vec![irecv(1, 0, 64, 0), irecv(1, 1, 64, 1), Op::WaitallPending],
    ]);
    let r = run(
        one_per_node(3),
        IdealNetwork::unlimited(3, Time::ZERO),
        ring,
        p,
    )
    .unwrap();
    assert_eq!(r.finish[1], Time::from_ns(5500));
    assert_eq!(r.finish[2], Time::from_ns(8500));
}

/// Eq. 2 of Bienz et al. for one process: its concurrent sends leave
/// through its port one at a time, g + (s - 1) G each, so they share R_b
/// instead of each taking it.
#[test]
fn one_process_shares_its_rate_among_its_sends() {
    let p = MpiParams::blue_waters();
    let s = 64 << 10;
    let sender: Vec<Op> = (1..=3)
        .map(|d| isend(d, 0, s, d as u64))
        .chain([Op::WaitallPending])
        .collect();
    let mut programs = vec![sender];
    programs.extend((1..=3).map(|_| vec![recv(0, 0)]));
    let r = run(one_per_node(4), net(4), progs(programs.clone()), p.clone()).unwrap();
    // Rendezvous between nodes (alpha 3 us, R_b 2.9e9 B/s): the sender's
    // CPU spends o_send = alpha + s/R_b - (wire + handshake + gamma) =
    // 1491.6 ns (derived) on each send before its RTS leaves (no g_cpu:
    // DMA moves the data): at 1491.6, 2983.2 and 4474.8 ns. The first CTS
    // is back 2 L + gamma = 1008.4 ns later, at 2500 ns, and its data claim
    // the port, which holds each g + (s - 1) G = 0 + ceil(65535 x 344 828
    // fs) = 22 598.303 ns; the other two follow back to back. The last
    // data then cross (L + s / R_b); the receivers spend o_recv = 0.
    let first = Time::from_ns(2500);
    let hold = Time::from_ps(22_598_303);
    let xfer = transfer_time(s, Bandwidth::bytes_per_sec(2_900_000_000));
    assert_eq!(r.makespan, first + hold * 2 + L + xfer);
    assert_eq!(r.finish[1], first + L + xfer);
    // The sender pushes the data instead: the first CTS arrives while its
    // CPU is in the second send's o_send, and its one progress engine gets
    // to it at 2983.2 ns.
    let mut put = p.clone();
    put.rendezvous = mpi_layer::Rendezvous::Put;
    let r = run(one_per_node(4), net(4), progs(programs), put).unwrap();
    let first = Time::from_ps(2_983_200);
    assert_eq!(r.makespan, first + hold * 2 + L + xfer);
    assert_eq!(r.finish[1], first + L + xfer);
}

/// A node's memory is shared by the copies in progress on it: two
/// single-copy rendezvous of 1 MB at once at R_b = 3 GB/s each, on a
/// 4 GB/s memory, get 2 GB/s each.
#[test]
fn copies_on_one_node_share_its_memory() {
    let mut p = MpiParams::blue_waters();
    p.shm.memory_bandwidth = Some(Bandwidth::bytes_per_sec(4_000_000_000));
    for li in 0..2 {
        // Two copies of short and eager messages must fit in 4 GB/s.
        p.postal[0][li] = mpi_layer::Postal::from_secs(1e-6, 2e9);
        p.postal[1][li] = mpi_layer::Postal::from_secs(1e-6, 2e9);
        p.postal[2][li] = mpi_layer::Postal::from_secs(2e-6, 3e9);
    }
    let s = 1_000_000u64;
    let pairs = |n: u32| {
        let mut v = Vec::new();
        for i in 0..n {
            v.push(vec![send(2 * i + 1, 0, s)]);
            v.push(vec![recv(2 * i, 0)]);
        }
        progs(v)
    };
    let place = |n: u32| Placement::from_locs((0..2 * n).map(|i| loc(0, 0, i as u16)).collect());
    // Alone: exactly alpha + s / R_b.
    let one = run(place(1), net(1), pairs(1), p.clone()).unwrap();
    assert_eq!(
        one.finish[1],
        Time::from_us(2) + transfer_time(s, Bandwidth::bytes_per_sec(3_000_000_000))
    );
    // Two at once: the RTS and CTS cross at once; after the search
    // (gamma) both copies run at 2 GB/s for 500 us; then o_recv, the rest
    // of alpha (2 us - gamma).
    let two = run(place(2), net(1), pairs(2), p).unwrap();
    let gamma = MpiParams::blue_waters().gamma_posted.gamma;
    let done = gamma + Time::from_us(500) + Time::from_us(2) - gamma;
    assert_eq!((two.finish[1], two.finish[3]), (done, done));
}

/// What the observer seam reports for one eager message between nodes,
/// and that observing changes nothing.
#[test]
fn an_observer_sees_a_messages_life_and_changes_nothing() {
    use mpi_layer::{MessageStep, Observer, Simulation, Step, Work};
    #[derive(Default)]
    struct Record {
        steps: Vec<(Step, Time)>,
        work: Vec<(u32, Work, Time, Time)>,
        blocked: Vec<(u32, Time)>,
    }
    impl Observer for Record {
        fn message(&mut self, m: &MessageStep) {
            assert_eq!((m.src, m.dst, m.seq, m.bytes), (0, 1, 0, 4096));
            self.steps.push((m.step, m.at));
        }
        fn work(&mut self, _server: u32, rank: u32, kind: Work, start: Time, end: Time) {
            self.work.push((rank, kind, start, end));
        }
        fn blocked(&mut self, rank: u32, at: Time) {
            self.blocked.push((rank, at));
        }
    }
    let p = MpiParams::blue_waters();
    let programs = || progs(vec![vec![send(1, 0, 4096)], vec![recv(0, 0)]]);
    let sim = Simulation::with_observer(pair(2), net(2), programs(), p.clone(), Record::default())
        .unwrap();
    let (r, _, rec) = sim.run_full(u64::MAX, |_, _| {});
    let r = r.unwrap();
    assert_eq!(r, run(pair(2), net(2), programs(), p.clone()).unwrap());
    // Eager between nodes (alpha 7 us, R_b 0.75 GB/s): the sender's CPU
    // spends o_send = alpha + s/R_b - wire - gamma = 6491.6 ns (derived)
    // before it leaves, then pushes the other 4095 B at R_b; it arrives
    // after L + s / R_b, is matched at once (one element, gamma: rank 1's
    // only work, o_recv = 0) and completes at alpha + s / R_b.
    let t = postal(&p, Protocol::Eager, 2, 4096);
    let o_send = Time::from_ps(6_491_600);
    let wire = L + transfer_time(4096, Bandwidth::bytes_per_sec(750_000_000));
    assert_eq!(
        rec.steps,
        vec![
            (Step::Posted { clamped: false }, Time::ZERO),
            (Step::Departed, o_send),
            (Step::Arrived, o_send + wire),
            (Step::Matched { visited: 1 }, o_send + wire),
            (Step::Completed, t),
        ]
    );
    // The send holds rank 0's CPU alpha (g_cpu), then 4095 B at R_b.
    let push = sim_core::PerByte::of_rate(Bandwidth::bytes_per_sec(750_000_000)).cost(4095);
    assert_eq!(
        rec.work,
        vec![
            (0, Work::Send, Time::ZERO, Time::from_us(7) + push),
            (1, Work::Envelope, o_send + wire, t)
        ]
    );
    // Both block at 0: rank 1 in its receive, rank 0 in its send until the
    // send's CPU work is done (an eager send completes then).
    assert_eq!(rec.blocked, vec![(0, Time::ZERO), (1, Time::ZERO)]);
}

/// A dependency-graph program held in memory (the GOAL reader's kind of
/// program): op `i` is ready when every op in `requires[i]` completed
/// and every op in `irequires[i]` started.
struct Graph {
    ops: Vec<(Op, u16, u16)>,
    requires: Vec<Vec<usize>>,
    irequires: Vec<Vec<usize>>,
    issued: Vec<bool>,
    started: Vec<bool>,
    done: Vec<bool>,
}

impl Graph {
    fn new(
        ops: Vec<(Op, u16, u16)>,
        requires: Vec<Vec<usize>>,
        irequires: Vec<Vec<usize>>,
    ) -> Self {
        let n = ops.len();
        Graph {
            ops,
            requires,
            irequires,
            issued: vec![false; n],
            started: vec![false; n],
            done: vec![false; n],
        }
    }
    /// Independent operations.
    fn flat(ops: Vec<(Op, u16, u16)>) -> Self {
        let n = ops.len();
        Graph::new(ops, vec![vec![]; n], vec![vec![]; n])
    }
}

impl OpStream for Graph {
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        Ok(None)
    }
    fn is_graph(&self) -> bool {
        true
    }
    fn next_ready(&mut self) -> Result<mpi_layer::Ready, ProgramError> {
        let ready = (0..self.ops.len()).find(|&i| {
            !self.issued[i]
                && self.requires[i].iter().all(|&d| self.done[d])
                && self.irequires[i].iter().all(|&d| self.started[d])
        });
        Ok(match ready {
            Some(i) => {
                self.issued[i] = true;
                let (op, cpu, nic) = self.ops[i].clone();
                mpi_layer::Ready::Op(mpi_layer::GraphOp {
                    id: i as u32,
                    op,
                    origin: Origin {
                        source: "graph".into(),
                        line: i as u64 + 1,
                    },
                    cpu,
                    nic,
                })
            }
            None if self.issued.iter().all(|&x| x) => mpi_layer::Ready::End,
            None => mpi_layer::Ready::Wait,
        })
    }
    fn started(&mut self, id: u32) -> bool {
        self.started[id as usize] = true;
        true
    }
    fn completed(&mut self, id: u32) -> bool {
        self.done[id as usize] = true;
        true
    }
}

fn loggp_params(o: u64, l: u64) -> MpiParams {
    MpiParams::loggp(
        Time::from_ns(l),
        Time::from_ns(o),
        Time::ZERO,
        sim_core::PerByte::ZERO,
        sim_core::PerByte::ZERO,
        1 << 20,
    )
}

/// Graph programs: operations on different CPUs run at once, and
/// independent chains do not wait for each other (GOAL, LogGOPSim).
#[test]
fn graph_programs_run_independent_work_concurrently() {
    let compute = |ns| Op::Compute {
        duration: Time::from_ns(ns),
    };
    let one = |g: Graph| {
        run(
            one_per_node(1),
            IdealNetwork::unlimited(1, Time::ZERO),
            vec![g],
            loggp_params(0, 0),
        )
        .unwrap()
        .makespan
    };
    // Two 1 us computations: on two CPUs 1 us, on one CPU 2 us.
    assert_eq!(
        one(Graph::flat(vec![
            (compute(1000), 0, 0),
            (compute(1000), 1, 0)
        ])),
        Time::from_ns(1000)
    );
    assert_eq!(
        one(Graph::flat(vec![
            (compute(1000), 0, 0),
            (compute(1000), 0, 0)
        ])),
        Time::from_ns(2000)
    );
    // Rank 1 forwards what rank 0 (late, after a 5 us compute) and rank 2
    // (at once) send it, each back to its sender. LogGP o = 100 ns, L =
    // 1 us: rank 2's message lands at 1100, is received [1100, 1200],
    // answered [1200, 1300], back at rank 2 at 2300, received by 2400 --
    // without waiting for rank 0's, which lands at 6100 (a sequence that
    // received in a fixed order would finish rank 2 at 7400).
    let w = CommId::WORLD;
    let send_to = |dst| Op::Isend {
        dst,
        tag: 0,
        bytes: 8,
        comm: w,
        req: ReqId(0),
    };
    let recv_from = |src| Op::Irecv {
        src: Source::Rank(src),
        tag: TagSel::Tag(0),
        bytes: 8,
        comm: w,
        req: ReqId(0),
    };
    let r0 = Graph::new(
        vec![
            (compute(5000), 0, 0),
            (send_to(1), 0, 0),
            (recv_from(1), 0, 0),
        ],
        vec![vec![], vec![0], vec![1]],
        vec![vec![]; 3],
    );
    let r1 = Graph::new(
        vec![
            (recv_from(0), 0, 0),
            (send_to(0), 0, 0),
            (recv_from(2), 0, 0),
            (send_to(2), 0, 0),
        ],
        vec![vec![], vec![0], vec![], vec![2]],
        vec![vec![]; 4],
    );
    let r2 = Graph::new(
        vec![(send_to(1), 0, 0), (recv_from(1), 0, 0)],
        vec![vec![], vec![0]],
        vec![vec![]; 2],
    );
    let r = run(
        one_per_node(3),
        IdealNetwork::unlimited(3, Time::ZERO),
        vec![r0, r1, r2],
        loggp_params(100, 1000),
    )
    .unwrap();
    assert_eq!(r.finish[2], Time::from_ns(2400));
    assert_eq!(r.finish[0], Time::from_ns(7400));
    assert_eq!(r.finish[1], Time::from_ns(6300));
}

/// Timed regions: each rank's time between its `RegionBegin` and
/// `RegionEnd`, summed over passes, as `MPI_Wtime` differences would give
/// it. Rank 0 times a ping-pong of 8 B on one socket (T(8) each way) twice
/// and an empty region once; rank 1 times only its second receive: from
/// T(8) plus its first send's CPU work (short: alpha, and 7 B pushed at
/// R_b) to the arrival of rank 0's second message at
/// 3 T(8).
#[test]
fn regions_time_what_the_program_marks() {
    let bw = MpiParams::blue_waters();
    let t8 = postal(&bw, Protocol::Short, 0, 8);
    // o_send = 440 ns + 8 B / R_b - wire (two copies of 8 B at twice the
    // rate: the same 3.637 ns) - gamma = 431.6 ns, held to alpha = 440
    // ns (g_cpu), then 7 B at 2.2 GB/s.
    let push = sim_core::PerByte::of_rate(Bandwidth::bytes_per_sec(2_200_000_000)).cost(7);
    let send_cpu = Time::from_ns(440) + push;
    let (b, e) = (|id| Op::RegionBegin { id }, |id| Op::RegionEnd { id });
    let r = run(
        pair(0),
        net(1),
        progs(vec![
            vec![
                b(1),
                send(1, 0, 8),
                recv(1, 0),
                e(1),
                b(1),
                send(1, 0, 8),
                recv(1, 0),
                e(1),
                b(7),
                e(7),
            ],
            vec![
                recv(0, 0),
                send(0, 0, 8),
                b(2),
                recv(0, 0),
                e(2),
                send(0, 0, 8),
            ],
        ]),
        bw.clone(),
    )
    .unwrap();
    let rt = |id, rank, total, count| mpi_layer::RegionTime {
        id,
        rank,
        total,
        count,
    };
    assert_eq!(
        r.regions,
        [
            rt(1, 0, t8 * 4, 2),
            rt(2, 1, t8 * 2 - send_cpu, 1),
            rt(7, 0, Time::ZERO, 1)
        ]
    );
    // Unpaired markers are errors naming the rank and the operation.
    let e = run(pair(0), net(1), progs(vec![vec![e(3)], vec![]]), bw.clone()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "rank 0: rank0:1: region 3 ended but not begun"
    );
    let e = run(pair(0), net(1), progs(vec![vec![], vec![b(4)]]), bw.clone()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "rank 1: rank1:1: region 4 begun here and never ended"
    );
    let e = run(pair(0), net(1), progs(vec![vec![b(5), b(5)], vec![]]), bw).unwrap_err();
    assert_eq!(
        e.to_string(),
        "rank 0: rank0:2: region 5 begun again before it ended"
    );
}

// The crate's other integration tests, as modules of this one binary.
#[path = "mpi/collectives.rs"]
mod collectives;
#[path = "mpi/comms.rs"]
mod comms;
