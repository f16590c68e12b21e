//! The incremental solvers against a slow, obvious from-scratch
//! solution after every event, on seeded random workloads.

use super::*;
use crate::{TorusParams, config::Mode};
use sim_core::rand::{Rng, SeedableRng};
use sim_core::{EventQueue, Scheduler, SimRng};

/// Max-min rates of all live flows from scratch: repeatedly fix the
/// flows of the constraint (or cap) with the lowest fair level. Slow
/// (`O(F * C)` per level) and obvious: the reference the incremental,
/// per-component, heap-driven update must match.
fn reference(net: &FlowNet) -> Vec<f64> {
    let live: Vec<u32> = (0..net.flows.len() as u32)
        .filter(|f| !net.free.contains(f))
        .collect();
    let nl = net.m.links().len();
    let mut rem: Vec<f64> = net.m.links().iter().map(|l| l.bandwidth.as_f64()).collect();
    let mut cnt = vec![0u32; nl];
    for &f in &live {
        for &l in &net.flows[f as usize].route {
            cnt[l.index()] += 1;
        }
    }
    let mut rate = vec![f64::NAN; net.flows.len()];
    let mut left = live.len();
    while left > 0 {
        let mut best = f64::INFINITY;
        for l in 0..nl as u32 {
            let c = net.cons_of(l);
            for s in net.sides(c) {
                if cnt[s as usize] > 0 {
                    best = best.min(rem[s as usize] / cnt[s as usize] as f64);
                }
            }
        }
        for &f in &live {
            if rate[f as usize].is_nan() {
                best = best.min(net.scratch[f as usize].cap);
            }
        }
        // Fix every unfixed flow on a constraint at that level, or
        // capped at it.
        let mut fix = Vec::new();
        for &f in &live {
            if !rate[f as usize].is_nan() {
                continue;
            }
            let fl = &net.flows[f as usize];
            let at_level = net.scratch[f as usize].cap <= best * (1.0 + 1e-12)
                || fl.route.iter().any(|&l| {
                    net.sides(net.cons_of(l.0)).iter().any(|&s| {
                        cnt[s as usize] > 0
                            && rem[s as usize] / cnt[s as usize] as f64 <= best * (1.0 + 1e-12)
                    })
                });
            if at_level {
                fix.push(f);
            }
        }
        for f in fix {
            rate[f as usize] = best;
            for &l in &net.flows[f as usize].route {
                rem[l.index()] -= best;
                cnt[l.index()] -= 1;
            }
            left -= 1;
        }
    }
    rate
}

/// A workload shape for the differential tests.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Random pairs, sizes and start times, a third of the flows capped
    /// at one of seven rates.
    Spread,
    /// Waves of flows started at the same instant with equal sizes and
    /// one common cap: many equal rates, starts and ends in lockstep
    /// (pairwise exchange on a shared switch).
    Lockstep,
    /// Many concurrent flows per node interface (16 senders' worth), all
    /// posted within a few microseconds, small sizes: ends ripple
    /// through shared interfaces (AMG SpGEMM).
    Crowd,
    /// Pairwise exchange (node `i` sends to `i + k` in wave `k`) with
    /// every start jittered: one start or end per update, multi-hop
    /// routes crossing links that bind nothing (the peers' all-to-all
    /// on a torus).
    Pairwise,
    /// [`Shape::Pairwise`] with every flow capped at the narrowest
    /// link's bandwidth (MPI's wire rate equal to the link's, as in the
    /// peers' torus): a flow alone on such a link ties its cap with the
    /// link's fill level.
    PairwiseAtLink,
    /// Bursts of flows started at one instant between random pairs, each
    /// capped at one of four rates, long enough to overlap the next
    /// bursts: a link one flow of a burst finds with room may be the
    /// link another flow of the same burst fills.
    Burst,
}

/// Runs `count` transfers of `shape` on `m` through the flow model and
/// checks every live flow's rate against [`reference`] after every event
/// that leaves no update pending, and the rate groups' completion times
/// against the obvious per-flow bookkeeping (bytes left moved at each
/// rate change, completion `now + left / rate` rounded up): every flow's
/// due time after every update and every delivery, within a picosecond
/// (the groups' clocks round differently). Returns the deliveries.
fn check_against_reference_on(
    m: crate::machine::Machine,
    shape: Shape,
    count: u64,
    seed: u64,
) -> Vec<Delivery> {
    check_with_changes_on(m, shape, count, seed, &[])
}

/// [`check_against_reference_on`] with link bandwidths changed during the
/// run: `changes` holds `(instant, link, new bandwidth)`, sorted by
/// instant ([`FlowNet::set_link_bandwidth`]).
fn check_with_changes_on(
    m: crate::machine::Machine,
    shape: Shape,
    count: u64,
    seed: u64,
    changes: &[(Time, u32, Bandwidth)],
) -> Vec<Delivery> {
    let sharing = m.sharing;
    let mut net = FlowNet::new(m, NetConfig::with_mode(Mode::Flow)).unwrap();
    let mut rng = SimRng::seed_from_u64(seed);
    let n = net.m.nodes();
    let narrowest = net
        .m
        .links()
        .iter()
        .map(|l| l.bandwidth)
        .min()
        .expect("a machine has links");
    let mut starts: Vec<(Time, Transfer)> = (0..count)
        .map(|i| {
            let src = rng.random_range(0..n);
            let (dst, cap, bytes, at) = match shape {
                Shape::Spread => (
                    (src + rng.random_range(1..n)) % n,
                    (i % 3 == 0)
                        .then(|| Bandwidth::bytes_per_sec(rng.random_range(1..8) * 1_000_000_000)),
                    rng.random_range(1..400_000),
                    Time::from_ns(rng.random_range(0..200_000)),
                ),
                Shape::Lockstep => {
                    let wave = i / n as u64;
                    let src = (i % n as u64) as u32;
                    (
                        (src + 1 + (wave as u32 % (n - 1))) % n,
                        Some(Bandwidth::bytes_per_sec(3_000_000_000)),
                        65_536,
                        Time::from_ns(wave * 20_000),
                    )
                }
                Shape::Pairwise | Shape::PairwiseAtLink => {
                    let wave = i / n as u64;
                    let src = (i % n as u64) as u32;
                    (
                        (src + 1 + (wave as u32 % (n - 1))) % n,
                        Some(if matches!(shape, Shape::Pairwise) {
                            Bandwidth::bytes_per_sec(3_000_000_000)
                        } else {
                            narrowest
                        }),
                        rng.random_range(1..4) * 1024,
                        Time::from_ns(wave * 600 + rng.random_range(0..900)),
                    )
                }
                Shape::Burst => (
                    (src + rng.random_range(1..n)) % n,
                    Some(Bandwidth::bytes_per_sec(
                        rng.random_range(1..5) * 1_500_000_000,
                    )),
                    rng.random_range(10..200) * 1024,
                    Time::from_ns(i / 6 * 3_000),
                ),
                Shape::Crowd => (
                    (src + rng.random_range(1..n)) % n,
                    Some(Bandwidth::bytes_per_sec(2_000_000_000)),
                    rng.random_range(8..2_000) * 12,
                    Time::from_ns(rng.random_range(0..5_000)),
                ),
            };
            let src = if matches!(
                shape,
                Shape::Lockstep | Shape::Pairwise | Shape::PairwiseAtLink
            ) {
                (i % n as u64) as u32
            } else {
                src
            };
            let t = Transfer {
                src: NodeId(src),
                dst: NodeId(dst),
                bytes,
                rate_cap: cap,
                token: i,
            };
            (at, t)
        })
        .collect();
    starts.sort_by_key(|s| s.0);
    let mut q = EventQueue::new();
    let mut out = Vec::new();
    let mut next = 0;
    let mut next_change = 0;
    let mut checks = 0;
    // The obvious per-flow completion bookkeeping, by token: rate, bytes
    // left at the last rate change, its time, the completion computed
    // then, the route's latency.
    let mut per_flow: rustc_hash::FxHashMap<u64, (f64, f64, Time, Time, Time)> =
        rustc_hash::FxHashMap::default();
    let mut seen = 0;
    let mut worst = 0u64;
    let mut now;
    let mut off_by_one = 0;
    loop {
        let qt = q.peek_time();
        let st = starts.get(next).map(|s| s.0);
        if let Some(&(at, l, bw)) = changes
            .get(next_change)
            .filter(|c| qt.is_none_or(|t| c.0 <= t) && st.is_none_or(|t| c.0 <= t))
        {
            next_change += 1;
            now = at;
            net.set_link_bandwidth(l, bw, &mut Scheduler::new(&mut q, at));
        } else if next < starts.len() && qt.is_none_or(|t| starts[next].0 <= t) {
            let (at, t) = starts[next];
            next += 1;
            now = at;
            net.start(&mut Scheduler::new(&mut q, at), t, &mut out);
        } else if let Some((at, _, ev)) = q.pop() {
            now = at;
            net.handle(&mut Scheduler::new(&mut q, at), ev, &mut out);
        } else {
            break;
        }
        for d in &out[seen..] {
            let (_, _, _, due, lat) = per_flow[&d.token];
            let want = due + lat;
            let off = d.at.as_ps().abs_diff(want.as_ps());
            worst = worst.max(off);
            off_by_one += usize::from(off == 1);
            assert!(
                off <= 1,
                "{sharing:?} {shape:?} seed {seed} token {}: delivered at {:?}, per flow {want:?}",
                d.token,
                d.at
            );
        }
        seen = out.len();
        if !net.update_pending {
            for (f, fl) in net.flows.iter().enumerate() {
                if !fl.live {
                    continue;
                }
                let r = net.scratch[f].rate;
                let e = per_flow.entry(fl.token).or_insert((
                    f64::NAN,
                    fl.bytes as f64,
                    now,
                    Time::ZERO,
                    fl.lat,
                ));
                if e.0 != r {
                    if e.0.is_finite() {
                        let moved = (e.0 * (now - e.2).as_secs_f64()).min(e.1);
                        e.1 -= moved;
                    }
                    e.0 = r;
                    e.2 = now;
                    e.3 = now.saturating_add(time_for(e.1, r));
                }
                // The group's time for the flow against the per-flow one.
                let due = net.due(f as u32);
                let off = due.as_ps().abs_diff(e.3.as_ps());
                worst = worst.max(off);
                assert!(
                    off <= 1,
                    "{sharing:?} {shape:?} seed {seed} flow {f}: due {due:?}, per flow {:?}",
                    e.3
                );
            }
        }
        if !net.update_pending {
            let want = reference(&net);
            for (f, fl) in net.flows.iter().enumerate() {
                if net.free.contains(&(f as u32)) {
                    continue;
                }
                let w = want[f];
                let sc = &net.scratch[f];
                assert!(net.route(f as u32).iter().eq(fl.route.iter().map(|l| &l.0)));
                assert!(
                    (sc.rate - w).abs() <= 1e-9 * w,
                    "{sharing:?} {shape:?} seed {seed} flow {f}: {} vs {w} cap {} route {:?} check {checks}",
                    sc.rate,
                    sc.cap,
                    fl.route
                );
            }
            checks += 1;
        }
        check_kept_counts(&net);
    }
    assert_eq!(out.len() as u64, count);
    assert!(checks > count / 4, "{checks} checks");
    eprintln!(
        "{sharing:?} {shape:?} seed {seed}: {off_by_one} of {count} completions 1 ps from the per-flow bookkeeping (worst {worst} ps)"
    );
    out
}

/// The kept per-link counts of open flows and sums of rates against a
/// scan of the link's flows, and every flow's `slot_at` against its place
/// in `Kept::flows`.
fn check_kept_counts(net: &FlowNet) {
    for (l, on) in net.kept.iter().map(|k| &k.flows).enumerate() {
        if net.asym {
            continue;
        }
        let open = on
            .iter()
            .filter(|&&f| net.rate_or_bound(f) == f64::INFINITY)
            .count();
        assert_eq!(net.kept[l].open as usize, open, "link {l}: open flows");
        // The sweep's kept sum against a fresh one: equal up to rounding.
        let load: f64 = on
            .iter()
            .map(|&f| net.rate_or_bound(f))
            .filter(|r| r.is_finite())
            .sum();
        let bw = net.m.link(LinkId(l as u32)).bandwidth.as_f64();
        assert_eq!(net.kept[l].bw, bw, "link {l}: its bandwidth's copy");
        assert!(
            (net.kept[l].load - load).abs() <= 1e-12 * bw,
            "link {l}: kept load {} against {load}",
            net.kept[l].load
        );
    }
    for (f, fl) in net.flows.iter().enumerate() {
        if fl.live {
            for (i, &l) in fl.route.iter().enumerate() {
                let slot = net.slot_at[f * net.stride + i];
                assert_eq!(net.kept[l.index()].flows[slot as usize], f as u32);
            }
        }
    }
}

fn check_against_reference(sharing: Sharing, seed: u64) {
    let mut m = TorusParams::blue_waters_dims([4, 3, 1]).build().unwrap();
    m.sharing = sharing;
    check_against_reference_on(m, Shape::Spread, 120, seed);
}

#[test]
fn incremental_rates_match_a_from_scratch_reference() {
    for seed in 0..8 {
        check_against_reference(Sharing::Fair, seed);
        check_against_reference(Sharing::Asymmetric, seed);
    }
}

/// Dense ties (equal caps, sizes and start instants; caps equal to a
/// link's bandwidth) on a flat switch and on a torus, crowds of small
/// flows on shared interfaces, and bursts of starts at one instant: the
/// cases where the sweep keeps most flows by their checks, where float
/// noise on equal levels could pass for a change, and where a start
/// leaves a link with room out of the sweep.
#[test]
fn sweep_matches_the_reference_with_ties_and_crowds() {
    use crate::InfinibandParams;
    for seed in 0..3 {
        let ib = InfinibandParams::qdr(12).build().unwrap();
        check_against_reference_on(ib.clone(), Shape::Lockstep, 12 * 8, seed);
        let torus = TorusParams::blue_waters_dims([4, 2, 2]).build().unwrap();
        check_against_reference_on(torus.clone(), Shape::Lockstep, 32 * 6, seed);
        check_against_reference_on(torus.clone(), Shape::Crowd, 400, seed);
        check_against_reference_on(torus.clone(), Shape::Pairwise, 16 * 12, seed);
        check_against_reference_on(torus.clone(), Shape::PairwiseAtLink, 16 * 12, seed);
        check_against_reference_on(ib, Shape::PairwiseAtLink, 12 * 8, seed);
        check_against_reference_on(torus.clone(), Shape::Spread, 300, seed);
        check_against_reference_on(torus, Shape::Burst, 240, seed);
    }
}

/// Same inputs, same deliveries, bit for bit; and a different seed gives
/// different ones (the test can fail).
#[test]
fn flow_runs_are_deterministic() {
    let torus = || TorusParams::blue_waters_dims([4, 2, 2]).build().unwrap();
    let a = check_against_reference_on(torus(), Shape::Crowd, 300, 5);
    let b = check_against_reference_on(torus(), Shape::Crowd, 300, 5);
    let c = check_against_reference_on(torus(), Shape::Crowd, 300, 6);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

/// What a start, an end and the sweep read of a link direction is one
/// cache line.
#[test]
fn kept_is_one_cache_line() {
    assert_eq!(std::mem::size_of::<Kept>(), 64);
    assert_eq!(std::mem::align_of::<Kept>(), 64);
}

/// The incremental solvers against the reference with link bandwidths
/// rising and falling during the run, on busy links and idle ones.
#[test]
fn bandwidth_changes_match_the_reference() {
    for (sharing, seed) in [
        (Sharing::Fair, 0),
        (Sharing::Fair, 1),
        (Sharing::Asymmetric, 2),
    ] {
        let mut m = TorusParams::blue_waters_dims([4, 3, 1]).build().unwrap();
        m.sharing = sharing;
        let mut rng = SimRng::seed_from_u64(seed + 100);
        let links = m.links().len() as u32;
        let base: Vec<u64> = m
            .links()
            .iter()
            .map(|l| l.bandwidth.as_bytes_per_sec())
            .collect();
        let mut changes: Vec<(Time, u32, Bandwidth)> = (0..60)
            .map(|_| {
                let l = rng.random_range(0..links);
                // A tenth to three times the link's own bandwidth.
                let bw = base[l as usize] / 10 * rng.random_range(1..30);
                (
                    Time::from_ns(rng.random_range(0..250_000)),
                    l,
                    Bandwidth::bytes_per_sec(bw),
                )
            })
            .collect();
        changes.sort_by_key(|c| c.0);
        check_with_changes_on(m, Shape::Spread, 120, seed, &changes);
    }
}

/// Two hosts on one switch, 1 GB/s and 1 us per link: a flow host 0 to
/// host 1 crosses link `up` (host 0 to the switch) and then the
/// switch's link to host 1.
fn two_hosts() -> (crate::machine::Machine, u32) {
    use crate::link::LinkParams;
    use crate::machine::MachineBuilder;
    let mut b = MachineBuilder::new("two hosts");
    let h0 = b.host("a", 1, 1);
    let h1 = b.host("b", 1, 1);
    let s = b.net("s", false);
    let p = LinkParams {
        bandwidth: Bandwidth::bytes_per_sec(1_000_000_000),
        latency: Time::from_us(1),
        buffer: 0,
    };
    b.cable(h0, s, p, p);
    b.cable(h1, s, p, p);
    let m = b.build(Sharing::Fair).unwrap();
    let up = m.links().iter().position(|l| l.from == 0).unwrap() as u32;
    (m, up)
}

/// When a flow of `bytes` from host 0, started at `start`, is delivered
/// with link `up`'s bandwidth set to `bw` at `at`.
fn delivered_across_a_step(bytes: u64, start: Time, at: Time, bw: u64) -> Time {
    let (m, up) = two_hosts();
    let mut net = FlowNet::new(m, NetConfig::with_mode(Mode::Flow)).unwrap();
    let mut q = EventQueue::new();
    let mut out = Vec::new();
    let t = Transfer {
        src: NodeId(0),
        dst: NodeId(1),
        bytes,
        rate_cap: None,
        token: 7,
    };
    let mut pending = [(start, true), (at, false)];
    pending.sort_by_key(|p| (p.0, p.1));
    let mut next = 0;
    loop {
        let qt = q.peek_time();
        if next < 2 && qt.is_none_or(|t| pending[next].0 <= t) {
            let (when, is_start) = pending[next];
            next += 1;
            let mut s = Scheduler::new(&mut q, when);
            if is_start {
                net.start(&mut s, t, &mut out);
            } else {
                net.set_link_bandwidth(up, Bandwidth::bytes_per_sec(bw), &mut s);
            }
        } else if let Some((when, _, ev)) = q.pop() {
            net.handle(&mut Scheduler::new(&mut q, when), ev, &mut out);
        } else {
            break;
        }
    }
    assert_eq!(out.len(), 1);
    out[0].at
}

/// Hand-computed: 3 MB at 1 GB/s from 0, the first link's bandwidth
/// changed at 1 ms (1 MB sent by then), plus the route's 2 us.
#[test]
fn a_flow_across_a_bandwidth_step() {
    let ms = Time::from_ms;
    let lat = Time::from_us(2);
    // Up to 2 GB/s: the other link (1 GB/s) still bounds it: 3 ms.
    assert_eq!(
        delivered_across_a_step(3_000_000, Time::ZERO, ms(1), 2_000_000_000),
        ms(3) + lat
    );
    // Down to 0.5 GB/s: 2 MB left take 4 ms: 5 ms.
    assert_eq!(
        delivered_across_a_step(3_000_000, Time::ZERO, ms(1), 500_000_000),
        ms(5) + lat
    );
    // Down to 0.25 GB/s at 2.5 ms, the flow started at 1 ms: 1.5 MB
    // sent by then, 1.5 MB at 0.25 GB/s take 6 ms: 8.5 ms.
    assert_eq!(
        delivered_across_a_step(3_000_000, ms(1), Time::from_us(2_500), 250_000_000),
        Time::from_us(8_500) + lat
    );
    // A change after the flow ended changes nothing.
    assert_eq!(
        delivered_across_a_step(3_000_000, Time::ZERO, ms(4), 250_000_000),
        ms(3) + lat
    );
    // A flow started after a change on an idle link takes the new
    // bandwidth from its start: 3 MB at 0.5 GB/s from 2 ms: 8 ms.
    assert_eq!(
        delivered_across_a_step(3_000_000, ms(2), ms(1), 500_000_000),
        ms(8) + lat
    );
}

/// Hosts `a`, `b`, `c` on one switch: `a` and `b` on fast cables of 5
/// and 15 ms, `c` on a 1 MB/s cable of 5 ms; routes `a -> c` of 10 ms
/// and `b -> c` of 20 ms share `c`'s down-link. CM02 sharing.
fn cm02_star() -> crate::machine::Machine {
    use crate::link::LinkParams;
    use crate::machine::MachineBuilder;
    let mut b = MachineBuilder::new("star");
    let hs = [b.host("a", 1, 1), b.host("b", 1, 1), b.host("c", 1, 1)];
    let s = b.net("s", false);
    for (h, bw, ms) in [
        (hs[0], 1_000_000_000, 5),
        (hs[1], 1_000_000_000, 15),
        (hs[2], 1_000_000, 5),
    ] {
        let p = LinkParams {
            bandwidth: Bandwidth::bytes_per_sec(bw),
            latency: Time::from_ms(ms),
            buffer: 0,
        };
        b.cable(h, s, p, p);
    }
    let mut m = b.build(Sharing::Fair).unwrap();
    m.set_cm02(Some(crate::cm02::Cm02 {
        weight_s: 0.0,
        stand_in: Bandwidth::bytes_per_sec(u64::MAX),
        profiles: Vec::new(),
    }));
    m
}

/// Runs `starts` (time, source, destination, bytes) on `m` to the end,
/// checking CM02's max-min conditions after every update; returns each
/// transfer's delivery, by start index.
fn run_cm02(m: crate::machine::Machine, starts: &[(Time, u32, u32, u64)]) -> Vec<Time> {
    let mut net = FlowNet::new(m, NetConfig::with_mode(Mode::Flow)).unwrap();
    let mut q = EventQueue::new();
    let mut out = Vec::new();
    let mut next = 0;
    loop {
        let qt = q.peek_time();
        if next < starts.len() && qt.is_none_or(|t| starts[next].0 <= t) {
            let (at, src, dst, bytes) = starts[next];
            let t = Transfer {
                src: NodeId(src),
                dst: NodeId(dst),
                bytes,
                rate_cap: None,
                token: next as u64,
            };
            next += 1;
            net.start(&mut Scheduler::new(&mut q, at), t, &mut out);
        } else if let Some((at, _, ev)) = q.pop() {
            net.handle(&mut Scheduler::new(&mut q, at), ev, &mut out);
        } else {
            break;
        }
        if !net.update_pending {
            check_weighted_max_min(&net);
        }
    }
    let mut at = vec![Time::MAX; starts.len()];
    for d in out {
        at[d.token as usize] = d.at;
    }
    at
}

/// The conditions that make rates the weighted max-min answer (unique):
/// no link over its bandwidth, and every flow in the sharing either at
/// its cap or on a full link where no flow has a higher level
/// (`rate x penalty`).
fn check_weighted_max_min(net: &FlowNet) {
    let c = net.cm02.as_ref().expect("CM02 sharing");
    let joined: Vec<u32> = (0..net.flows.len() as u32)
        .filter(|&f| net.flows[f as usize].live && c.joined(f))
        .collect();
    let nl = net.m.links().len();
    let mut load = vec![0.0; nl];
    let mut top = vec![0.0f64; nl];
    for &f in &joined {
        let r = net.scratch[f as usize].rate;
        for &l in net.route(f) {
            load[l as usize] += r;
            top[l as usize] = top[l as usize].max(r * c.share_by(f));
        }
    }
    for (l, k) in net.kept.iter().enumerate() {
        assert!(
            load[l] <= k.bw * (1.0 + 1e-9),
            "link {l}: {} > {}",
            load[l],
            k.bw
        );
    }
    for &f in &joined {
        let sc = &net.scratch[f as usize];
        let level = sc.rate * c.share_by(f);
        let bottleneck = net.route(f).iter().any(|&l| {
            let lu = l as usize;
            load[lu] >= net.kept[lu].bw * (1.0 - 1e-9) && level >= top[lu] * (1.0 - 1e-9)
        });
        assert!(
            (sc.rate - sc.cap).abs() <= 1e-9 * sc.cap || bottleneck,
            "flow {f}: rate {} cap {} without a bottleneck",
            sc.rate,
            sc.cap
        );
    }
}

/// Hand-computed: `a -> c` pays its 10 ms and sends alone until `b -> c`
/// has paid its 20 ms (10 kB sent); then `c`'s 1 MB/s is shared 2:1 by
/// the penalties 10 and 20 ms: `a`'s 990 kB take 1.485 s (done at
/// 1.505 s), `b` has sent 495 kB by then and its last 505 kB take
/// 0.505 s alone (2.010 s). Delivery is at the last byte, the latency
/// paid first. netsim's own sharing would give them 1.5 MB/s each after
/// the latencies' shift instead.
#[test]
fn cm02_shares_in_inverse_proportion_to_route_latency() {
    let at = run_cm02(
        cm02_star(),
        &[(Time::ZERO, 0, 2, 1_000_000), (Time::ZERO, 1, 2, 1_000_000)],
    );
    let near = |t: Time, us: u64| t.as_ps().abs_diff(us * 1_000_000) <= 2;
    assert!(near(at[0], 1_505_000), "{:?}", at[0]);
    assert!(near(at[1], 2_010_000), "{:?}", at[1]);
    // Alone, a flow takes its latency and its bytes: 10 ms + 1 s.
    let at = run_cm02(cm02_star(), &[(Time::ZERO, 0, 2, 1_000_000)]);
    assert_eq!(at[0], Time::from_ms(1010));
}

/// 200 transfers among the star's three hosts, of 1 to `bytes` bytes,
/// started within 3 s, in time order.
fn random_starts(seed: u64, bytes: u64) -> Vec<(Time, u32, u32, u64)> {
    let mut rng = SimRng::seed_from_u64(seed);
    let mut starts: Vec<(Time, u32, u32, u64)> = (0..200)
        .map(|_| {
            let s = rng.random_range(0..3);
            let d = (s + rng.random_range(1..3)) % 3;
            (
                Time::from_us(rng.random_range(0..3_000_000)),
                s,
                d,
                rng.random_range(1..bytes),
            )
        })
        .collect();
    starts.sort_by_key(|s| s.0);
    starts
}

/// Random starts among the star's hosts: every update satisfies the
/// weighted max-min conditions, every transfer is delivered, and a rerun
/// gives the same deliveries.
#[test]
fn cm02_rates_are_weighted_max_min_after_every_update() {
    let starts = random_starts(11, 300_000);
    let a = run_cm02(cm02_star(), &starts);
    assert!(a.iter().all(|&t| t < Time::MAX));
    assert_eq!(a, run_cm02(cm02_star(), &starts));
}

/// [`cm02_star`] with `c`'s cable following a periodic bandwidth profile
/// and a periodic latency profile, and SMPI's weight-S (so a bandwidth
/// change moves penalties too): random starts keep the weighted max-min
/// conditions after every update, against the capacity of the moment,
/// every transfer is delivered, and a rerun gives the same deliveries.
#[test]
fn cm02_profiles_keep_weighted_max_min_and_deliver_everything() {
    let profiled = || {
        let mut m = cm02_star();
        let links: Vec<LinkId> = (0..m.links().len() as u32)
            .map(LinkId)
            .filter(|&l| m.link(l).from == 2 || m.link(l).to == 2)
            .collect();
        assert_eq!(links.len(), 2, "c's cable, both ways");
        let steps = |text: &str| {
            crate::cm02::Steps::new(&crate::platform::Profile::parse("x", 1, text, -1.0).unwrap())
        };
        m.set_cm02(Some(crate::cm02::Cm02 {
            weight_s: 8775.0,
            stand_in: Bandwidth::bytes_per_sec(u64::MAX),
            profiles: vec![crate::cm02::LinkProfile {
                name: "c".into(),
                links,
                bandwidth: Bandwidth::bytes_per_sec(1_000_000),
                latency: Time::from_ms(5),
                bandwidth_steps: steps("0 1000000\n0.3 250000\nLOOPAFTER 0.4\n"),
                latency_steps: steps("0.25 0.002\n0.3 0.01\nLOOPAFTER 0.25\n"),
            }],
        }));
        m
    };
    let starts = random_starts(29, 100_000);
    let a = run_cm02(profiled(), &starts);
    assert!(a.iter().all(|&t| t < Time::MAX));
    assert_eq!(a, run_cm02(profiled(), &starts));
    // The profiles change the answer: the same starts on the plain star.
    assert_ne!(a, run_cm02(cm02_star(), &starts));
}
