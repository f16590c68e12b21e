//! Ping-pong points cut into segments and mapped onto the protocols.

use super::*;
use crate::Error;

/// A fitted line `T = alpha + s / R_b` over measured sizes `lo..=hi`.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// Smallest size in the segment (bytes).
    pub lo: u64,
    /// Largest size in the segment (bytes).
    pub hi: u64,
    /// Intercept (s).
    pub alpha_s: f64,
    /// Slope [s/B].
    pub beta_s_per_b: f64,
    /// Root mean square relative error of the fit.
    pub rms_rel: f64,
    /// Largest relative error.
    pub max_rel: f64,
    /// Measured sizes in the segment.
    pub points: usize,
    /// Which bound the fit sits on, and the free fit's (alpha, slope).
    pub bound: Bound,
    /// The free fit's (alpha, slope) [s, s/B].
    pub free: (f64, f64),
}

impl Segment {
    fn new(pts: &[(f64, f64)], f: &LineFit) -> Segment {
        let rel: Vec<f64> = pts
            .iter()
            .map(|&(x, y)| (y - f.alpha - f.beta * x) / y)
            .collect();
        Segment {
            lo: pts[0].0 as u64,
            hi: pts[pts.len() - 1].0 as u64,
            alpha_s: f.alpha,
            beta_s_per_b: f.beta,
            rms_rel: (f.sse / pts.len() as f64).sqrt(),
            max_rel: rel.iter().fold(0.0f64, |m, r| m.max(r.abs())),
            points: pts.len(),
            bound: f.bound,
            free: f.free,
        }
    }

    /// `R_b` [bytes/s]; infinite when the slope is 0.
    pub fn rate(&self) -> f64 {
        1.0 / self.beta_s_per_b
    }

    /// The model's time at `s` bytes (s).
    pub fn at(&self, s: u64) -> f64 {
        self.alpha_s + self.beta_s_per_b * s as f64
    }
}

/// The smallest relative noise the segment count criterion believes
/// (0.5 %; the medians of repeated timings on a quiet machine scatter by
/// more), so that exact or nearly exact data do not split further.
pub const NOISE_FLOOR: f64 = 5e-3;

/// The fewest points of a segment: three, so that every segment has a
/// residual (two points fit any line exactly, and the criterion would
/// reward cutting data into pairs).
pub(super) const MIN_POINTS: usize = 3;

/// Optimal segmentations of `pts` (sorted by x, distinct x): for every
/// `k` in `1..=kmax`, the cut positions with the least total error.
pub(super) struct Segmentation {
    /// `sse[k]` for k segments (index 0 unused); infinite if impossible.
    sse: Vec<f64>,
    /// `starts[k]`: the first point of every segment.
    starts: Vec<Vec<usize>>,
}

pub(super) fn segmentations(pts: &[(f64, f64)], kmax: usize, alpha_min: f64) -> Segmentation {
    let m = pts.len();
    let kmax = kmax.max(1).min((m / MIN_POINTS).max(1));
    // cost[i][j]: points i..j (j exclusive).
    let mut cost = vec![vec![f64::INFINITY; m + 1]; m + 1];
    for i in 0..m {
        for j in i + MIN_POINTS.min(m)..=m {
            cost[i][j] = fit_line(&pts[i..j], alpha_min).sse;
        }
    }
    // best[k][j]: k segments over points 0..j; from[k][j]: start of the last.
    let mut best = vec![vec![f64::INFINITY; m + 1]; kmax + 1];
    let mut from = vec![vec![0usize; m + 1]; kmax + 1];
    best[0][0] = 0.0;
    for k in 1..=kmax {
        for j in 1..=m {
            for i in 0..j {
                let c = best[k - 1][i] + cost[i][j];
                if c < best[k][j] {
                    best[k][j] = c;
                    from[k][j] = i;
                }
            }
        }
    }
    let mut sse = vec![f64::INFINITY; kmax + 1];
    let mut starts = vec![Vec::new(); kmax + 1];
    for k in 1..=kmax {
        sse[k] = best[k][m];
        if sse[k].is_finite() {
            let mut v = Vec::with_capacity(k);
            let mut j = m;
            for kk in (1..=k).rev() {
                let i = from[kk][j];
                v.push(i);
                j = i;
            }
            v.reverse();
            starts[k] = v;
        }
    }
    Segmentation { sse, starts }
}

pub(super) fn segments_of(pts: &[(f64, f64)], starts: &[usize], alpha_min: f64) -> Vec<Segment> {
    starts
        .iter()
        .enumerate()
        .map(|(c, &a)| {
            let b = starts.get(c + 1).copied().unwrap_or(pts.len());
            Segment::new(&pts[a..b], &fit_line(&pts[a..b], alpha_min))
        })
        .collect()
}

/// The penalized criterion of `k` segments over `m` points.
pub(super) fn criterion(sse: f64, m: usize, k: usize) -> f64 {
    let m_f = m as f64;
    m_f * (sse / m_f).max(NOISE_FLOOR * NOISE_FLOOR).ln() + (3 * k - 1) as f64 * m_f.ln()
}

/// The fit of one locality's ping-pong points.
#[derive(Clone, Debug, PartialEq)]
pub struct PostalFit {
    /// Locality name.
    pub locality: String,
    /// The segments chosen by the penalized criterion, in size order.
    pub regimes: Vec<Segment>,
    /// The segments of the three protocols, in size order (short, eager,
    /// rendezvous when three): `map_protocols`.
    pub segments: Vec<Segment>,
    /// The points (size, median one-way time (s)).
    pub points: Vec<(u64, f64)>,
    /// What the mapping onto protocols changed.
    pub notes: Vec<String>,
}

/// Fits one locality's ping-pong points (sorted, distinct sizes; Bienz
/// et al. eq. 1): the points are cut into consecutive segments, each
/// fitted by weighted least squares `T = alpha + s / R_b` with weights
/// `1 / T^2` (relative error, since sizes span decades), under `alpha >=
/// alpha_min` (the match cost the simulator charges, so that the
/// calibration contract can hold) and `1 / R_b >= 0`; a segment whose
/// free fit breaks a bound is refitted on the bound, and the report says
/// so. For every number of segments `k` up to `--max-segments`, dynamic
/// programming finds the cuts with the least total weighted squared
/// error `SSE_k`; the `k` kept minimizes the BIC-like criterion
/// `m ln(max(SSE_k / m, floor^2)) + (3 k - 1) ln m` (m points; each
/// segment has two parameters and each cut one; `floor` = 0.5 % is the
/// smallest relative noise believed, so exact synthetic data do not
/// split further; a segment has at least three points).
pub fn fit_postal(
    locality: Locality,
    points: &[(u64, f64)],
    max_segments: usize,
    alpha_min: f64,
) -> Result<PostalFit, Error> {
    let name = locality.name();
    if points.len() < 2 {
        return Err(Error::Input(format!(
            "{name}: need ping-pong times at two sizes at least, got {}",
            points.len()
        )));
    }
    let pts: Vec<(f64, f64)> = points.iter().map(|&(s, t)| (s as f64, t)).collect();
    let seg = segmentations(&pts, max_segments.max(3), alpha_min);
    let m = pts.len();
    let kmax = max_segments.max(1).min(seg.sse.len() - 1);
    let k = (1..=kmax)
        .filter(|&k| seg.sse[k].is_finite())
        .min_by(|&a, &b| criterion(seg.sse[a], m, a).total_cmp(&criterion(seg.sse[b], m, b)))
        .unwrap_or(1);
    let regimes = segments_of(&pts, &seg.starts[k], alpha_min);
    if regimes.is_empty() {
        // No segmentation had a finite error (times such as 1e-227 s):
        // nothing to map onto protocols.
        return Err(Error::Input(format!(
            "{name}: no line fits the ping-pong times (are they in seconds?)"
        )));
    }
    let (segments, notes) = map_protocols(&pts, &regimes, &seg, alpha_min);
    Ok(PostalFit {
        locality: name.to_string(),
        regimes,
        segments,
        points: points.to_vec(),
        notes,
    })
}

/// The protocols' segments from the regimes: the one place where the
/// general segment fit meets the MPI layer's three protocols. Up to three
/// regimes map directly; more become the best three-segment fit of the
/// same points, with a note naming the switch points lost.
pub(super) fn map_protocols(
    pts: &[(f64, f64)],
    regimes: &[Segment],
    seg: &Segmentation,
    alpha_min: f64,
) -> (Vec<Segment>, Vec<String>) {
    if regimes.len() <= 3 {
        return (regimes.to_vec(), Vec::new());
    }
    let three = segments_of(pts, &seg.starts[3], alpha_min);
    let rms = |s: &[Segment]| {
        let (e, n) = s.iter().fold((0.0, 0), |(e, n), g| {
            (e + g.rms_rel * g.rms_rel * g.points as f64, n + g.points)
        });
        (e / n as f64).sqrt()
    };
    let kept: BTreeSet<u64> = three.iter().skip(1).map(|s| s.lo).collect();
    let lost: Vec<String> = regimes
        .windows(2)
        .filter(|w| !kept.contains(&w[1].lo))
        .map(|w| format!("{}..{} B", w[0].hi, w[1].lo))
        .collect();
    let note = format!(
        "the data show {} regimes but the MPI layer has three protocols (short, eager, \
         rendezvous): the best three-segment fit is used (rms {:.2} % against {:.2} % with {} \
         segments); switches it cannot express: {}",
        regimes.len(),
        100.0 * rms(&three),
        100.0 * rms(regimes),
        regimes.len(),
        lost.join(", ")
    );
    (three, vec![note])
}
