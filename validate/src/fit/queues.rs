//! Queue search (gamma, by queue position) and in-order streams from the
//! HVPP rows.

use super::*;
use crate::Error;

/// The queue-search fit of one HVPP kind and size.
#[derive(Clone, Debug, PartialEq)]
pub struct GammaFit {
    /// Benchmark kind.
    pub kind: Kind,
    /// Message size (bytes).
    pub size: u64,
    /// Least-squares slope of the excess against `n (n - 1)` [s per
    /// element], negative values kept (the report says so).
    pub gamma: f64,
    /// Growth exponent of the excess, when at least three pairs have a
    /// positive excess.
    pub exponent: Option<f64>,
    /// (n, T_in, T_rev) pairs used.
    pub pairs: Vec<(u64, f64, f64)>,
    /// The largest excess relative to the in-order time.
    pub max_rel_excess: f64,
    /// The cost per element by queue position ([`fit_bands`]): the
    /// cost below the first band, and `(from, cost)` bands.
    pub banded: (f64, Vec<(u64, f64)>),
}

/// The in-order stream of one HVPP kind and size: `T = a + b n`.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamFit {
    /// Benchmark kind.
    pub kind: Kind,
    /// Message size (bytes).
    pub size: u64,
    /// Intercept (s).
    pub a: f64,
    /// Time per n (one message each way) (s).
    pub b: f64,
    /// Points.
    pub points: usize,
}

/// A median per measurement unit.
#[derive(Clone, Debug)]
pub(super) struct Unit {
    pub(super) seconds: f64,
    pub(super) at: Vec<String>,
}

/// The median of `v` (reordered); NaN-free input.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

pub(super) type UnitKey = (Kind, Locality, u64, u64, Option<Order>, u64);

pub(super) fn units(rows: &[Measurement]) -> BTreeMap<UnitKey, Unit> {
    let mut m: BTreeMap<UnitKey, (Vec<f64>, Vec<String>)> = BTreeMap::new();
    for r in rows {
        let e = m
            .entry((r.kind, r.locality, r.size, r.n, r.order, r.window))
            .or_default();
        e.0.push(r.seconds);
        e.1.push(r.at.clone());
    }
    m.into_iter()
        .map(|(k, (mut v, at))| {
            (
                k,
                Unit {
                    seconds: median(&mut v),
                    at,
                },
            )
        })
        .collect()
}

/// Queue-search fits, in-order streams, and notes on pairs left out.
///
/// For every `n >= 2` measured both in order and reversed, the excess
/// `T_rev - T_in`: in each of the two directions the reversed receives
/// visit `n (n + 1) / 2` queue elements against `n` in order (posted
/// queue in `hvpp-posted`, unexpected queue in `hvpp-unexpected`, a mix
/// in `hvpp-paper`), so the excess is `gamma n (n - 1)`; `gamma` is its
/// least-squares slope through the origin, and the growth exponent of
/// the excess (slope of log excess against log n) is reported. A pair
/// whose reversed time is below the in-order time by more than `noise`
/// contradicts the model: when half or more of a kind and size's pairs
/// do, an error names the rows (a hashed matcher, or the order column
/// swapped); fewer are noise, left out with a note. The printed `gamma`
/// comes from `hvpp-posted`, else `hvpp-paper`, else `hvpp-unexpected`,
/// at the smallest size ([`fit_bands`]).
pub(super) type QueueFits = (Vec<GammaFit>, Vec<StreamFit>, Vec<String>);

pub(super) fn fit_gamma(units: &BTreeMap<UnitKey, Unit>, noise: f64) -> Result<QueueFits, Error> {
    // (kind, size) -> n -> (in, rev); localities pooled (one gamma).
    type Pair<'a> = (Option<&'a Unit>, Option<&'a Unit>);
    let mut by: BTreeMap<(Kind, u64), BTreeMap<u64, Pair<'_>>> = BTreeMap::new();
    for (&(kind, _, size, n, order, _), u) in units {
        if !kind.is_hvpp() {
            continue;
        }
        let e = by.entry((kind, size)).or_default().entry(n).or_default();
        match order {
            Some(Order::Rev) => e.1 = Some(u),
            _ => e.0 = Some(u),
        }
    }
    let mut gammas = Vec::new();
    let mut streams = Vec::new();
    let mut contradictions = Vec::new();
    let mut dropped = Vec::new();
    for (&(kind, size), ns) in &by {
        let ins: Vec<(f64, f64)> = ns
            .iter()
            .filter_map(|(&n, p)| p.0.map(|u| (n as f64, u.seconds)))
            .collect();
        if ins.len() >= 2 {
            let (a, b, _) = line_fit(&ins);
            streams.push(StreamFit {
                kind,
                size,
                a,
                b,
                points: ins.len(),
            });
        }
        let mut pairs: Vec<(u64, f64, f64)> = ns
            .iter()
            .filter(|(n, _)| **n >= 2)
            .filter_map(|(&n, p)| Some((n, p.0?.seconds, p.1?.seconds)))
            .collect();
        // Reversed faster than in order beyond the noise: a few such pairs
        // are noise and are left out (said in a note); half or more
        // contradict the model.
        let mut against = Vec::new();
        for (&n, p) in ns {
            if let (Some(i), Some(r)) = p {
                if n >= 2 && r.seconds < (1.0 - noise) * i.seconds {
                    against.push((
                        n,
                        format!(
                            "{} {size} B n = {n}: reversed {:.4e} s ({}) < in order {:.4e} s ({})",
                            kind.name(),
                            r.seconds,
                            r.at.join(", "),
                            i.seconds,
                            i.at.join(", ")
                        ),
                    ));
                }
            }
        }
        if !against.is_empty() && 2 * against.len() >= pairs.len() {
            contradictions.extend(against.into_iter().map(|a| a.1));
        } else if !against.is_empty() {
            pairs.retain(|p| !against.iter().any(|a| a.0 == p.0));
            dropped.push(format!(
                "{} {size} B: {} of {} (n, in, rev) pairs have reversed faster than in order \
                 beyond the noise and are left out (n = {})",
                kind.name(),
                against.len(),
                pairs.len() + against.len(),
                against
                    .iter()
                    .map(|a| a.0.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if pairs.is_empty() {
            continue;
        }
        let (num, den) = pairs.iter().fold((0.0, 0.0), |(a, b), &(n, i, r)| {
            let x = (n * (n - 1)) as f64;
            (a + x * (r - i), b + x * x)
        });
        let positive: Vec<(f64, f64)> = pairs
            .iter()
            .filter(|p| p.2 > p.1)
            .map(|&(n, i, r)| ((n as f64).ln(), (r - i).ln()))
            .collect();
        let exponent = (positive.len() >= 3).then(|| line_fit(&positive).1);
        let max_rel_excess = pairs
            .iter()
            .map(|&(_, i, r)| (r - i) / i)
            .fold(f64::NEG_INFINITY, f64::max);
        let banded = fit_bands(&pairs);
        gammas.push(GammaFit {
            kind,
            size,
            gamma: num / den,
            exponent,
            pairs,
            max_rel_excess,
            banded,
        });
    }
    if !contradictions.is_empty() {
        let more = contradictions.len().saturating_sub(10);
        contradictions.truncate(10);
        return Err(Error::Input(format!(
            "reversed receives faster than in order by more than the noise ({:.0} %), which \
             the queue-search model cannot fit (a reversed queue is searched at least as far); \
             check the order column, or raise --noise:\n  {}{}",
            100.0 * noise,
            contradictions.join("\n  "),
            if more > 0 {
                format!("\n  ... and {more} more")
            } else {
                String::new()
            }
        )));
    }
    Ok((gammas, streams, dropped))
}

/// Queue positions from which the search cost per element may change:
/// every factor of four from 32 (a receive or envelope of 64-128 B: the
/// L1 cache holds some hundreds, the L2 some thousands; Bienz et al. 2018
/// Sec. 4.1 see the cost per element grow with the queue).
pub const BAND_STARTS: [u64; 4] = [32, 128, 512, 2048];

/// Element visits at queue positions `lo..hi` of one direction of a
/// reversed HVPP with `n` messages, minus those of the in-order one: the
/// `k`-th arrival from the end visits positions `0..k`; in order every
/// arrival visits position 0.
pub(super) fn excess_visits(n: u64, lo: u64, hi: u64) -> f64 {
    let rev: u64 = (1..=n).map(|k| k.min(hi).saturating_sub(lo)).sum();
    let inorder = if lo == 0 { n } else { 0 };
    (rev - inorder) as f64
}

/// The search cost per element by queue position: weighted least squares
/// of the excess `T_rev - T_in` (both directions) on the visits per band,
/// relative weights `1 / T_rev^2` (so that short queues count), with the
/// cost not falling as the queue grows (a band below the one before is
/// merged into it; a negative first cost is 0). Bands that no pair
/// reaches are left out.
pub fn fit_bands(pairs: &[(u64, f64, f64)]) -> (f64, Vec<(u64, f64)>) {
    let nmax = pairs.iter().map(|p| p.0).max().unwrap_or(0);
    let mut starts = vec![0u64];
    starts.extend(BAND_STARTS.iter().copied().filter(|&b| b + 1 < nmax));
    let k = starts.len();
    let rows: Vec<(Vec<f64>, f64, f64)> = pairs
        .iter()
        .map(|&(n, tin, trev)| {
            let x = (0..k)
                .map(|b| {
                    let hi = starts.get(b + 1).copied().unwrap_or(u64::MAX);
                    2.0 * excess_visits(n, starts[b], hi)
                })
                .collect();
            (x, trev - tin, 1.0 / (trev * trev))
        })
        .collect();
    // Groups of consecutive bands sharing one cost: group[b] = its index.
    let mut group: Vec<usize> = (0..k).collect();
    loop {
        let m = group[k - 1] + 1;
        let sol = weighted_ls(&rows, &group, m);
        let Some(sol) = sol else {
            return (0.0, Vec::new());
        };
        // The first group that falls below the one before merges into it.
        match (1..m).find(|&j| sol[j] < sol[j - 1]) {
            Some(j) => {
                for g in group.iter_mut() {
                    if *g >= j {
                        *g -= 1;
                    }
                }
            }
            None => {
                let base = sol[0].max(0.0);
                let mut bands = Vec::new();
                for b in 1..k {
                    if group[b] != group[b - 1] {
                        bands.push((starts[b], sol[group[b]]));
                    }
                }
                return (base, bands);
            }
        }
    }
}

/// Weighted least squares with the columns of `rows` summed by `group`
/// into `m` unknowns (normal equations, Gaussian elimination); `None` if
/// singular.
pub(super) fn weighted_ls(
    rows: &[(Vec<f64>, f64, f64)],
    group: &[usize],
    m: usize,
) -> Option<Vec<f64>> {
    let mut a = vec![vec![0.0f64; m + 1]; m];
    for (x, y, w) in rows {
        let mut z = vec![0.0; m];
        for (b, &g) in group.iter().enumerate() {
            z[g] += x[b];
        }
        for i in 0..m {
            for j in 0..m {
                a[i][j] += w * z[i] * z[j];
            }
            a[i][m] += w * z[i] * y;
        }
    }
    for c in 0..m {
        let p = (c..m).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        a.swap(c, p);
        if a[c][c].abs() < 1e-300 {
            return None;
        }
        let pivot = a[c].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot[c];
                for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..m).map(|i| a[i][m] / a[i][i]).collect())
}

/// What an unexpected message costs its receiver beyond a posted one
/// ([`fit_copy_rate`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CopyFit {
    /// The copy out of the library's buffer (B/s).
    pub rate: f64,
    /// The fixed cost per message (s), not below 0.
    pub fixed: f64,
    /// The two stream sizes it comes from.
    pub sizes: Vec<u64>,
}

/// The unexpected path's cost: in order, a stream of `hvpp-unexpected`
/// differs from one of `hvpp-posted` at the same size by the unexpected
/// path's work per message, `fixed + s / rate` (a buffer taken back and
/// its own completion, then the copy out of the library's buffer). Taken
/// from the two smallest sizes both kinds measured up to `eager_max`
/// (small messages are copied; a larger one may go by a rendezvous the
/// ping-pong does not show, as MPICH's 16 KiB do); `None` with fewer than
/// two such sizes or a difference that does not grow with size.
pub fn fit_copy_rate(streams: &[StreamFit], eager_max: u64) -> Option<CopyFit> {
    let per_msg = |k: Kind, size: u64| {
        streams
            .iter()
            .find(|s| s.kind == k && s.size == size)
            .map(|s| s.b / 2.0)
    };
    let mut pts: Vec<(u64, f64)> = streams
        .iter()
        .filter(|s| s.kind == Kind::HvppUnexpected && s.size <= eager_max)
        .filter_map(|s| {
            let d = per_msg(Kind::HvppUnexpected, s.size)? - per_msg(Kind::HvppPosted, s.size)?;
            Some((s.size, d))
        })
        .collect();
    pts.sort_by_key(|p| p.0);
    let [(s1, d1), (s2, d2), ..] = pts[..] else {
        return None;
    };
    let k = (d2 - d1) / (s2 - s1) as f64;
    (k > 0.0).then(|| CopyFit {
        rate: 1.0 / k,
        fixed: (d1 - k * s1 as f64).max(0.0),
        sizes: vec![s1, s2],
    })
}
