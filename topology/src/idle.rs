//! The transports' answers to [`crate::Transport::idle_time`]: closed
//! forms of the time a lone transfer takes on an idle machine, `O(route)`,
//! computed exactly as the event simulations would (tests compare them).

use crate::config::{Switching, window_cap};
use crate::machine::Machine;
use crate::transport::NodeId;
use sim_core::{Bandwidth, PS_PER_SEC, Time, transfer_time};

/// Flow model on an idle machine: `sum of latencies + bytes / r`, with
/// `r` the smallest bandwidth on the route, the rate cap and the TCP
/// window's bound. `O(route)`.
pub(crate) fn flow_idle_time(
    m: &Machine,
    src: NodeId,
    dst: NodeId,
    bytes: u64,
    cap: Option<Bandwidth>,
    tcp_window: Option<u64>,
) -> Time {
    if m.has_pair_routes() || (src == dst && m.has_loopback()) {
        let mut links = Vec::new();
        let (lat, bound) = m.pair_route_into(src, dst, &mut links);
        let rate = links
            .iter()
            .map(|&l| m.link(l).bandwidth)
            .chain(cap)
            .chain(bound)
            .min();
        // No link: no bound but the source's cable, not even the
        // window's (as the flow model).
        let rate = if links.is_empty() && rate.is_none() {
            Some(m.injection_rate(src))
        } else {
            window_cap(tcp_window, lat, rate)
        };
        return delivered(m, lat, bytes, rate);
    }
    let mut lat = Time::ZERO;
    let mut rate = cap;
    let mut v = src.0;
    while v != dst.0 {
        let l = m.link(m.next_link(v, dst.0));
        lat += l.latency;
        rate = Some(rate.map_or(l.bandwidth, |r| r.min(l.bandwidth)));
        v = l.to;
    }
    let rate = window_cap(tcp_window, lat, rate);
    delivered(m, lat, bytes, rate)
}

/// A lone flow's time over a route of latency `lat` at `rate` (`None`:
/// no time to send), with the machine's size factors if it has any, as
/// the flow model applies them.
fn delivered(m: &Machine, lat: Time, bytes: u64, rate: Option<Bandwidth>) -> Time {
    match m.size_factors() {
        None => lat + rate.map_or(Time::ZERO, |r| transfer_time(bytes, r)),
        Some(fx) => {
            fx.latency_of(lat, bytes)
                + rate.map_or(Time::ZERO, |r| time_for(fx.work(bytes), r.as_f64()))
        }
    }
}

/// The sum of the latencies of the route from `src` to `dst`.
pub(crate) fn route_latency(m: &Machine, src: NodeId, dst: NodeId) -> Time {
    let mut lat = Time::ZERO;
    let mut v = src.0;
    while v != dst.0 {
        let l = m.link(m.next_link(v, dst.0));
        lat += l.latency;
        v = l.to;
    }
    lat
}

/// Packets of a message: count, full size, last size.
pub(crate) fn packetize(bytes: u64, packet: u64) -> (u64, u64, u64) {
    let n = bytes.div_ceil(packet).max(1);
    (n, packet, bytes - (n - 1) * packet)
}

/// Packet model on an idle machine, exactly as the event simulation
/// computes it. `O(route)`.
///
/// The route's servers are `j = 0..m`: the rate-cap pacer (when
/// `rate_cap` is set; bandwidth `R_b`, no latency) and then every link.
/// Let `a_j` / `b_j` be the service times of a full / the last packet at
/// server `j`, `A_j = max_{i <= j} a_i`, `n` the number of packets and
/// `L` the sum of link latencies. Latencies only shift the pipeline, so:
///
/// * cut-through: `T = L + max_j ((n - 1) * A_j + b_j)`; for one packet
///   `L + max_j b_j`: the bottleneck serialization;
/// * store-and-forward: `T = L + max_j (sum_{i<=j} a_i + (n - 2) * A_j +
///   sum_{i>=j} b_i)` for `n >= 2`, and `L + sum_j b_j` for one packet.
///
/// Both are the max-plus longest paths of the tandem-queue recurrences the
/// simulator runs (derivation in the crate docs, "Packet pipeline").
pub(crate) fn packet_idle_time(
    m: &Machine,
    src: NodeId,
    dst: NodeId,
    bytes: u64,
    cap: Option<Bandwidth>,
    packet: u64,
    sw: Switching,
) -> Time {
    let (n, full, last) = packetize(bytes, packet);
    let mut lat = Time::ZERO;
    // Servers as (a, b) pairs; the pacer first.
    let pacer = cap.map(|c| (transfer_time(full, c), transfer_time(last, c)));
    let servers = || {
        let mut v = src.0;
        let links = std::iter::from_fn(move || {
            (v != dst.0).then(|| {
                let l = m.link(m.next_link(v, dst.0));
                v = l.to;
                (
                    l.latency,
                    transfer_time(full, l.bandwidth),
                    transfer_time(last, l.bandwidth),
                )
            })
        });
        pacer
            .map(|(a, b)| (Time::ZERO, a, b))
            .into_iter()
            .chain(links)
    };
    let mut best = Time::ZERO;
    let mut amax = Time::ZERO;
    match sw {
        Switching::CutThrough => {
            for (l, a, b) in servers() {
                lat += l;
                amax = amax.max(a);
                best = best.max(amax * (n - 1) + b);
            }
        }
        Switching::StoreAndForward => {
            let total_b: Time = servers().map(|(_, _, b)| b).sum();
            if n == 1 {
                lat = servers().map(|(l, _, _)| l).sum();
                return lat + total_b;
            }
            let (mut sum_a, mut b_before) = (Time::ZERO, Time::ZERO);
            for (l, a, b) in servers() {
                lat += l;
                amax = amax.max(a);
                sum_a += a;
                best = best.max(sum_a + amax * (n - 2) + (total_b - b_before));
                b_before += b;
            }
        }
    }
    lat + best
}

/// Time to send `remaining` bytes at `rate` [bytes/s], rounded up; exact
/// ([`transfer_time`]) when both are whole numbers.
pub(crate) fn time_for(remaining: f64, rate: f64) -> Time {
    if remaining <= 0.0 {
        return Time::ZERO;
    }
    if rate <= 0.0 {
        return Time::MAX;
    }
    if remaining.fract() == 0.0 && rate.fract() == 0.0 && rate < 1.8e19 && remaining < 1.8e19 {
        if let Some(r) = Bandwidth::try_bytes_per_sec(rate as u64) {
            return transfer_time(remaining as u64, r);
        }
    }
    let ps = (remaining / rate * PS_PER_SEC as f64).ceil();
    if ps >= u64::MAX as f64 {
        Time::MAX
    } else {
        Time::from_ps(ps as u64)
    }
}
