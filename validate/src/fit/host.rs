//! Host costs per locality and protocol from the in-order HVPP streams
//! ([`HostFit`]), and the receives in flight ([`stream_costs`]).

use super::*;

/// The host costs of one locality and protocol, from that protocol's
/// in-order HVPP streams: the time per message `tau` of a stream (half
/// the slope of `T(n)`, n messages each way) is the port's time per
/// message, `g + (s - 1) G` (LogGP's g and G; Bienz et al. 2018 eq. 2
/// bounds a process's stream by the same kind of rate), `G` from two
/// stream sizes of the protocol or else the wire's `1 / R_b`; each
/// side's CPU cost per message `o` is kept within it so that the CPUs do
/// not slow the stream: `o = min(tau - gamma - s / R_b, (alpha - gamma)
/// / 2)` (both sides, not below 0), the rest of alpha the latency `L`
/// (`rest = "L"`, the calibration contract). Written to the protocol's
/// cell.
#[derive(Clone, Debug, PartialEq)]
pub struct HostFit {
    /// Locality name.
    pub locality: String,
    /// The benchmark the streams come from.
    pub kind: Kind,
    /// The stream sizes (bytes), ascending; `tau` is the first's.
    pub sizes: Vec<u64>,
    /// Time per message of the smallest size's stream (s).
    pub tau: f64,
    /// The port's gap `g`: `tau` less the port's per-byte time (s).
    pub g: f64,
    /// The port's cost per byte `G` (s/B), when two sizes determine it.
    pub gap_per_byte: Option<f64>,
    /// CPU cost per message, each side (s).
    pub o: f64,
    /// The receiver's CPU cost per receive still posted when an arrival
    /// is handled (`o_inflight`, s), 0 where the streams show none
    /// ([`stream_costs`]).
    pub inflight: f64,
    /// Points of the stream fits.
    pub points: usize,
    /// The protocol (0 short, 1 eager, 2 rendezvous): the cell these
    /// costs are written to.
    pub protocol: usize,
}

/// [`HostFit`] per locality and protocol, from that protocol's own
/// in-order streams: `hvpp-posted` (every arrival finds its receive: the
/// stream alone), else `hvpp-paper`, at every size in the protocol's
/// range. Each stream is fitted with relative weights (`fit_line`), so
/// that the short streams, whose times are small, count as much as the
/// long ones. Two or more sizes in one protocol give the port's cost per
/// byte `G` from the smallest and the largest (the slope of `tau`
/// against `s`); one size keeps the wire's `G = 1 / R_b`.
pub(super) fn fit_host(
    units: &BTreeMap<UnitKey, Unit>,
    postal: &[PostalFit],
    gamma: f64,
    isend_max: Option<u64>,
) -> Vec<HostFit> {
    let mut out = Vec::new();
    for pf in postal {
        let Some(loc) = Locality::from_name(&pf.locality) else {
            continue;
        };
        let streams = [Kind::HvppPosted, Kind::HvppPaper].iter().find_map(|&k| {
            let mut by_size: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
            for (&(kind, l, size, n, order, _), u) in units {
                if kind == k && l == loc && order != Some(Order::Rev) && n >= 1 {
                    by_size.entry(size).or_default().push((n as f64, u.seconds));
                }
            }
            by_size.retain(|_, pts| pts.len() >= 3);
            (!by_size.is_empty()).then_some((k, by_size))
        });
        let Some((kind, streams)) = streams else {
            continue;
        };
        for protocol in 0..3 {
            let cell = Fit::cell(pf, protocol);
            // Sizes between two segments belong to the upper one; a
            // segment shared by two protocols (fewer than three
            // segments) gives each of them its streams.
            let lo = match protocol.checked_sub(1).map(|p| Fit::cell(pf, p).hi) {
                None => 0,
                Some(hi) if hi < cell.lo => hi + 1,
                Some(_) => cell.lo,
            };
            // The streams are non-blocking sends: above their own eager
            // limit, rendezvous.
            let rendezvous = |s: u64| isend_max.is_some_and(|m| s > m);
            let mine: Vec<(u64, (f64, f64), usize)> = streams
                .iter()
                .filter(|&(&s, _)| {
                    if rendezvous(s) {
                        protocol == 2
                    } else {
                        (lo..=cell.hi).contains(&s)
                    }
                })
                .map(|(&s, pts)| (s, stream_costs(pts), pts.len()))
                .collect();
            let (Some(&(s0, (tau0, _), _)), Some(&(s1, (tau1, _), _))) =
                (mine.first(), mine.last())
            else {
                continue;
            };
            // The in-flight cost: the largest the protocol's streams show.
            let inflight = mine.iter().map(|m| m.1.1).fold(0.0, f64::max);
            // The port holds a message g + (s - 1) G; the receiver's core
            // copies s / R_b, searches and spends o_recv, within tau; both
            // CPU costs and the match fit in this protocol's alpha.
            let per_byte = (s1 > s0)
                .then(|| (tau1 - tau0) / (s1 - s0) as f64)
                .filter(|&b| b > 0.0);
            let big_g = per_byte.unwrap_or(cell.beta_s_per_b);
            let g = (tau0 - (s0.saturating_sub(1)) as f64 * big_g).max(0.0);
            let o = (tau0 - gamma - s0 as f64 * cell.beta_s_per_b)
                .min((cell.alpha_s - gamma) / 2.0)
                .max(0.0);
            out.push(HostFit {
                locality: pf.locality.clone(),
                kind,
                sizes: mine.iter().map(|m| m.0).collect(),
                tau: tau0,
                g,
                gap_per_byte: per_byte,
                o,
                inflight,
                points: mine.iter().map(|m| m.2).sum(),
                protocol,
            });
        }
    }
    out
}

/// The time per message `tau` of one in-order stream (`(n, T)` points,
/// `n` messages one way into posted receives, then `n` back), and its
/// in-flight cost per receive still posted (`o_inflight`, 0 where the
/// data do not show one). The `k`-th arrival of a direction leaves
/// `n - k` receives posted, so the exchange takes `T = a + 2 tau n +
/// o_inflight n (n - 1)`: least squares with relative weights. The
/// quadratic term is kept when it is positive and at least
/// [`INFLIGHT_SHARE`] of the time at the largest `n`; else `tau` is the
/// straight line's.
pub fn stream_costs(pts: &[(f64, f64)]) -> (f64, f64) {
    let line = (fit_line(pts, 0.0).beta / 2.0, 0.0);
    let rows: Vec<(Vec<f64>, f64, f64)> = pts
        .iter()
        .map(|&(n, t)| (vec![1.0, n, n * (n - 1.0)], t, 1.0 / (t * t)))
        .collect();
    let Some(sol) = weighted_ls(&rows, &[0, 1, 2], 3) else {
        return line;
    };
    let Some(&(nmax, tmax)) = pts.iter().max_by(|a, b| a.0.total_cmp(&b.0)) else {
        return line;
    };
    let quad = sol[2] * nmax * (nmax - 1.0);
    if sol[2] > 0.0 && sol[1] > 0.0 && quad >= INFLIGHT_SHARE * tmax {
        (sol[1] / 2.0, sol[2])
    } else {
        line
    }
}

/// The least share of a stream's time at its largest `n` that the
/// in-flight term must explain to be kept ([`stream_costs`]): below it,
/// the curvature is within the benchmarks' repeat noise (10-30 % per
/// unit, `docs/CALIBRATION.md`).
pub const INFLIGHT_SHARE: f64 = 0.2;
