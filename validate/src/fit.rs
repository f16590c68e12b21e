//! `netsim fit`: fit the MPI layer's parameters to measured timings and
//! print them as a scenario that `netsim run` accepts.
//!
//! # Input
//!
//! CSV (read with the `csv` crate; `#` starts a comment line) with a
//! header naming at least `kind`, `size` and `seconds`, any order, other
//! columns ignored. The rows of `netsim calibrate`'s benchmark
//! (`calibrate/README.md`) have exactly this form:
//!
//! | column | values |
//! |---|---|
//! | `kind` | `pingpong`, `hvpp-paper`, `hvpp-posted`, `hvpp-unexpected`, `msgrate` |
//! | `size` | message size (bytes) |
//! | `seconds` | pingpong: one-way time; hvpp-*: the whole exchange of `n` messages each way; msgrate: time per window |
//! | `n` | messages each way (hvpp-*), windows timed (msgrate), 1 (pingpong); needed for hvpp and msgrate rows |
//! | `order` | `in`/`in-order` or `rev`/`reversed` (hvpp rows); `-` or empty otherwise |
//! | `window` | messages per window (msgrate rows) |
//! | `locality` | `same_socket`, `same_node`, `other_node`; or `--locality` for rows without one. Never a silent default |
//! | `state` | placement state of the probe (`near`, `far`, `-`): data that mix states need `--state` |
//! | `library` | the MPI library: data that mix libraries need `--library` |
//!
//! Rows repeated for one measurement unit (same kind, locality, size, n,
//! order, window) are combined by their median.
//!
//! # Method
//!
//! * **Postal segments**, per locality, from the ping-pong rows (Bienz et
//!   al. eq. 1, `seeds/000_...`): the points sorted by size are cut into
//!   consecutive segments, each fitted by weighted least squares
//!   `T = alpha + s / R_b` with weights `1 / T^2` (relative error, since
//!   sizes span decades), under `alpha >= alpha_min` (the match cost the
//!   simulator charges, so that the calibration contract can hold) and
//!   `1 / R_b >= 0`; a segment whose free fit breaks a bound is refitted
//!   on the bound, and the report says so. For every number of segments
//!   `k` up to `--max-segments`, dynamic programming finds the cuts with
//!   the least total weighted squared error `SSE_k`; the `k` kept
//!   minimizes the BIC-like criterion
//!   `m ln(max(SSE_k / m, floor^2)) + (3 k - 1) ln m` (m points; each
//!   segment has two parameters and each cut one; `floor` = 0.5 % is the
//!   smallest relative noise believed, so exact synthetic data do not
//!   split further; a segment has at least three points). A switch point
//!   is reported with the two measured sizes that bracket it.
//! * **Protocols**: the MPI layer has three protocols (short, eager,
//!   rendezvous). `map_protocols` is the one place that maps segments
//!   onto them: up to three segments map directly (one: every protocol
//!   gets it; two: no short protocol); more are replaced by the best
//!   three-segment fit of the same points, with a warning naming the
//!   switch points the model cannot express.
//! * **Queue search**, per HVPP kind and size: for every `n >= 2` measured
//!   both in order and reversed, the excess `T_rev - T_in`. In each of the
//!   two directions the reversed receives visit `n (n + 1) / 2` queue
//!   elements against `n` in order (posted queue in `hvpp-posted`,
//!   unexpected queue in `hvpp-unexpected`, a mix in `hvpp-paper`), so the
//!   excess is `gamma n (n - 1)`; `gamma` is its least-squares slope
//!   through the origin, and the growth exponent of the excess (slope of
//!   log excess against log n) is reported. A pair whose reversed time is
//!   below the in-order time by more than `--noise` contradicts the
//!   model: when half or more of a kind and size's pairs do, an error
//!   names the rows (a hashed matcher, or the order column swapped);
//!   fewer are noise, left out with a note. The printed `gamma` comes
//!   from `hvpp-posted`, else `hvpp-paper`, else `hvpp-unexpected`, at
//!   the smallest size, as a cost per element by queue position
//!   ([`fit_bands`]: `gamma` and `gamma_*_bands`); the others are
//!   reported.
//! * **Host costs** per locality ([`HostFit`]), from the in-order stream
//!   of `hvpp-posted` (else `hvpp-paper`) at its smallest size: the time
//!   per message `tau` (half the slope of `T(n)`, `n` messages each way,
//!   relative weights) is the port's gap `g` (LogGP's g, Alexandrov et
//!   al.; Bienz et al. 2018 eq. 2 bounds a process's stream the same
//!   way); each side's CPU cost `o = min(tau - gamma, (alpha - gamma) /
//!   2)` keeps the CPUs within the stream's pace, and the rest of the
//!   short alpha is the latency `L` (`rest = "L"`: the ping-pong stays
//!   exact by the calibration contract).
//! * Reported: the in-order stream slope of every HVPP kind and the
//!   message rate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use scenarios::scenario::ScenarioFile;
use sim_core::{Bandwidth, Time};
use topology::Locality;

// ------------------------------------------------------------ input

/// A benchmark kind (the `kind` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Blocking ping-pong; `seconds` is the one-way time.
    PingPong,
    /// HighVolumePingPong, Bienz et al. Algorithm 1.
    HvppPaper,
    /// HVPP with every receive posted before the sends.
    HvppPosted,
    /// HVPP with every message unexpected before the receives.
    HvppUnexpected,
    /// Windowed message rate with a closing acknowledgement.
    MsgRate,
}

impl Kind {
    /// All kinds.
    pub const ALL: [Kind; 5] = [
        Kind::PingPong,
        Kind::HvppPaper,
        Kind::HvppPosted,
        Kind::HvppUnexpected,
        Kind::MsgRate,
    ];

    /// The name in the `kind` column.
    pub fn name(self) -> &'static str {
        match self {
            Kind::PingPong => "pingpong",
            Kind::HvppPaper => "hvpp-paper",
            Kind::HvppPosted => "hvpp-posted",
            Kind::HvppUnexpected => "hvpp-unexpected",
            Kind::MsgRate => "msgrate",
        }
    }

    /// Reads a `kind` cell (`ping-pong` is accepted for `pingpong`).
    pub fn parse(s: &str) -> Option<Kind> {
        let s = s.to_ascii_lowercase();
        if s == "ping-pong" {
            return Some(Kind::PingPong);
        }
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// One of the three HighVolumePingPong kinds.
    pub fn is_hvpp(self) -> bool {
        matches!(
            self,
            Kind::HvppPaper | Kind::HvppPosted | Kind::HvppUnexpected
        )
    }
}

/// Receive posting order of an HVPP row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Order {
    /// Receives posted in the order the messages are sent.
    In,
    /// Receives posted in reverse.
    Rev,
}

/// The name of a locality in scenario files and CSV.
pub fn locality_name(l: Locality) -> &'static str {
    match l {
        Locality::SameSocket => "same_socket",
        Locality::SameNode => "same_node",
        Locality::OtherNode => "other_node",
    }
}

/// Reads a locality name.
pub fn parse_locality(s: &str) -> Option<Locality> {
    match s {
        "same_socket" => Some(Locality::SameSocket),
        "same_node" => Some(Locality::SameNode),
        "other_node" => Some(Locality::OtherNode),
        _ => None,
    }
}

/// One row of the CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// `file:line`, for messages.
    pub at: String,
    /// `library` cell, if the column exists.
    pub library: Option<String>,
    /// What was measured.
    pub kind: Kind,
    /// Where the two ranks were.
    pub locality: Locality,
    /// Message size (bytes).
    pub size: u64,
    /// Messages each way (hvpp), windows timed (msgrate), 1 (pingpong).
    pub n: u64,
    /// Receive order (hvpp rows).
    pub order: Option<Order>,
    /// Messages per window (msgrate rows), else 0.
    pub window: u64,
    /// The measured time (s) (meaning by kind, see the module doc).
    pub seconds: f64,
    /// `state` cell, if the column exists.
    pub state: Option<String>,
}

/// Reads the CSV. `locality` is the locality of rows without one (the
/// `--locality` option); rows without either are an error. Errors name
/// `source:line` and the column.
pub fn read_csv(
    text: &str,
    source: &str,
    locality: Option<Locality>,
) -> Result<Vec<Measurement>, String> {
    let mut rdr = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header: Vec<String> = rdr
        .headers()
        .map_err(|e| format!("{source}: {e}"))?
        .iter()
        .map(|h| h.to_ascii_lowercase())
        .collect();
    if header.iter().all(|h| h.is_empty()) {
        return Err(format!("{source}: empty file (need a header line)"));
    }
    let col = |name: &str| header.iter().position(|h| h == name);
    let need = |name: &str| {
        col(name).ok_or_else(|| {
            format!(
                "{source}: header lacks column `{name}` (needs kind,size,seconds; n,order for hvpp \
                 rows, n,window for msgrate rows; calibrate/README.md)"
            )
        })
    };
    let (c_kind, c_size, c_secs) = (need("kind")?, need("size")?, need("seconds")?);
    let (c_n, c_order, c_window) = (col("n"), col("order"), col("window"));
    let (c_loc, c_state, c_lib) = (col("locality"), col("state"), col("library"));
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| match e.position() {
            Some(p) => format!("{source}:{}: {e}", p.line()),
            None => format!("{source}: {e}"),
        })?;
        let line = rec.position().map_or(0, |p| p.line());
        let at = format!("{source}:{line}");
        let cell = |c: usize| rec.get(c).unwrap_or("");
        let kind = Kind::parse(cell(c_kind)).ok_or_else(|| {
            format!(
                "{at}: column `kind`: `{}` is not one of pingpong, hvpp-paper, hvpp-posted, \
                 hvpp-unexpected, msgrate",
                cell(c_kind)
            )
        })?;
        let size: u64 = cell(c_size).parse().map_err(|_| {
            format!(
                "{at}: column `size`: `{}` is not a whole number of bytes",
                cell(c_size)
            )
        })?;
        let seconds: f64 = cell(c_secs)
            .parse()
            .map_err(|_| format!("{at}: column `seconds`: `{}` is not a number", cell(c_secs)))?;
        if !(seconds > 0.0 && seconds.is_finite()) {
            return Err(format!(
                "{at}: column `seconds`: must be positive, got {}",
                cell(c_secs)
            ));
        }
        let n = match c_n.map(cell).filter(|s| !s.is_empty() && *s != "-") {
            Some(v) => v
                .parse::<u64>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| format!("{at}: column `n`: `{v}` is not a whole number >= 1"))?,
            None if kind == Kind::PingPong => 1,
            None => {
                return Err(format!(
                    "{at}: a {} row needs column `n` (messages each way for hvpp, windows \
                     timed for msgrate)",
                    kind.name()
                ));
            }
        };
        if kind == Kind::PingPong && n != 1 {
            return Err(format!(
                "{at}: column `n`: a pingpong row has n = 1 (one message), got {n}"
            ));
        }
        let order = match c_order.map(cell).unwrap_or("") {
            "in" | "in-order" => Some(Order::In),
            "rev" | "reversed" => Some(Order::Rev),
            "" | "-" => None,
            o => {
                return Err(format!(
                    "{at}: column `order`: `{o}` is not in, in-order, rev or reversed"
                ));
            }
        };
        if kind.is_hvpp() && order.is_none() {
            return Err(format!(
                "{at}: a {} row needs column `order` (in or rev)",
                kind.name()
            ));
        }
        let window = if kind == Kind::MsgRate {
            let w = c_window.map(cell).unwrap_or("");
            w.parse::<u64>().ok().filter(|&w| w >= 1).ok_or_else(|| {
                format!("{at}: column `window`: a msgrate row needs a window >= 1, got `{w}`")
            })?
        } else {
            0
        };
        let locality = match c_loc.map(cell).unwrap_or("") {
            "" | "-" => locality.ok_or_else(|| {
                format!(
                    "{at}: no locality: give a `locality` column (same_socket, same_node, \
                     other_node) or --locality"
                )
            })?,
            l => parse_locality(l).ok_or_else(|| {
                format!(
                    "{at}: column `locality`: `{l}` is not same_socket, same_node or other_node"
                )
            })?,
        };
        let opt_cell = |c: Option<usize>| c.map(|c| cell(c).to_string()).filter(|s| !s.is_empty());
        out.push(Measurement {
            at,
            library: opt_cell(c_lib),
            kind,
            locality,
            size,
            n,
            order,
            window,
            seconds,
            state: opt_cell(c_state),
        });
    }
    if out.is_empty() {
        return Err(format!("{source}: no data rows"));
    }
    Ok(out)
}

// ------------------------------------------------------------ options and selection

/// How to fit.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Fit only rows of this state (`--state`); required when the rows
    /// mix states.
    pub state: Option<String>,
    /// Fit only rows of this library (`--library`); required when the rows
    /// mix libraries.
    pub library: Option<String>,
    /// Most ping-pong segments (`--max-segments`). Default 8.
    pub max_segments: usize,
    /// Relative noise below which reversed faster than in order is not a
    /// contradiction (`--noise`). Default 0.1.
    pub noise: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            state: None,
            library: None,
            max_segments: 8,
            noise: 0.1,
        }
    }
}

/// Keeps the rows of one library and one state; errors if the rows mix
/// them and the options do not choose.
pub fn select(rows: Vec<Measurement>, o: &FitOptions) -> Result<Vec<Measurement>, String> {
    fn pick(
        rows: Vec<Measurement>,
        what: &str,
        whats: &str,
        opt: &str,
        chosen: Option<&String>,
        get: impl Fn(&Measurement) -> Option<&String>,
    ) -> Result<Vec<Measurement>, String> {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for r in &rows {
            if let Some(v) = get(r) {
                *counts.entry(v.clone()).or_default() += 1;
            }
        }
        let list = || {
            counts
                .iter()
                .map(|(k, n)| format!("{k} ({n} rows)"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match chosen {
            Some(c) => {
                if counts.is_empty() {
                    return Err(format!("{opt} {c}: the data have no `{what}` column"));
                }
                let kept: Vec<Measurement> =
                    rows.into_iter().filter(|r| get(r) == Some(c)).collect();
                if kept.is_empty() {
                    return Err(format!("{opt} {c}: no rows; the data have {}", list()));
                }
                Ok(kept)
            }
            None if counts.len() > 1 => Err(format!(
                "the data mix {whats}: {}; fit one at a time with {opt}",
                list()
            )),
            None => Ok(rows),
        }
    }
    let rows = pick(
        rows,
        "library",
        "libraries",
        "--library",
        o.library.as_ref(),
        |r| r.library.as_ref(),
    )?;
    pick(rows, "state", "states", "--state", o.state.as_ref(), |r| {
        r.state.as_ref()
    })
}

// ------------------------------------------------------------ line fits

/// Ordinary least squares of `y = a + b x`: `(a, b, R^2)`. NaN with fewer
/// than two distinct x.
pub fn line_fit(pts: &[(f64, f64)]) -> (f64, f64, f64) {
    let n = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, q| (a.0 + q.0, a.1 + q.1));
    let (sxx, sxy) = pts
        .iter()
        .fold((0.0, 0.0), |a, q| (a.0 + q.0 * q.0, a.1 + q.0 * q.1));
    let b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    let a = (sy - b * sx) / n;
    let mean = sy / n;
    let ss_tot: f64 = pts.iter().map(|q| (q.1 - mean).powi(2)).sum();
    let ss_res: f64 = pts.iter().map(|q| (q.1 - a - b * q.0).powi(2)).sum();
    (a, b, 1.0 - ss_res / ss_tot)
}

/// Which bound a constrained line fit sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The free fit is within the bounds.
    Free,
    /// `alpha` held at its lower bound.
    Alpha,
    /// Slope held at 0 (time does not grow with size).
    Slope,
    /// Both.
    Both,
}

/// A weighted line fit `y = alpha + beta x` (weights `1 / y^2`) under
/// `alpha >= alpha_min`, `beta >= 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineFit {
    /// Intercept (s).
    pub alpha: f64,
    /// Slope [s/B].
    pub beta: f64,
    /// Weighted (relative) squared error.
    pub sse: f64,
    /// Which bound holds.
    pub bound: Bound,
    /// The free fit's intercept and slope, when a bound holds.
    pub free: (f64, f64),
}

fn rel_sse(pts: &[(f64, f64)], a: f64, b: f64) -> f64 {
    pts.iter()
        .map(|&(x, y)| ((y - a - b * x) / y).powi(2))
        .sum()
}

/// The constrained weighted fit of `pts` (at least one point).
pub fn fit_line(pts: &[(f64, f64)], alpha_min: f64) -> LineFit {
    let (mut sw, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, y) in pts {
        let w = 1.0 / (y * y);
        sw += w;
        sx += w * x;
        sy += w * y;
        sxx += w * x * x;
        sxy += w * x * y;
    }
    let det = sw * sxx - sx * sx;
    let free = if pts.len() >= 2 && det > 1e-12 * sw * sxx {
        ((sxx * sy - sx * sxy) / det, (sw * sxy - sx * sy) / det)
    } else {
        (sy / sw, 0.0)
    };
    if free.0 >= alpha_min && free.1 >= 0.0 {
        return LineFit {
            alpha: free.0,
            beta: free.1,
            sse: rel_sse(pts, free.0, free.1),
            bound: Bound::Free,
            free,
        };
    }
    // The error is a convex quadratic, so the bounded optimum is on a
    // bound: alpha = alpha_min with the best slope >= 0, or slope 0 with
    // the best alpha >= alpha_min.
    let b1 = if sxx > 0.0 {
        ((sxy - alpha_min * sx) / sxx).max(0.0)
    } else {
        0.0
    };
    let a2 = (sy / sw).max(alpha_min);
    let c1 = (alpha_min, b1, rel_sse(pts, alpha_min, b1));
    let c2 = (a2, 0.0, rel_sse(pts, a2, 0.0));
    let (alpha, beta, sse) = if c1.2 <= c2.2 { c1 } else { c2 };
    let bound = match (alpha <= alpha_min, beta <= 0.0) {
        (true, true) => Bound::Both,
        (true, false) => Bound::Alpha,
        (false, true) => Bound::Slope,
        (false, false) => Bound::Free,
    };
    LineFit {
        alpha,
        beta,
        sse,
        bound,
        free,
    }
}

// ------------------------------------------------------------ segments

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
const MIN_POINTS: usize = 3;

/// Optimal segmentations of `pts` (sorted by x, distinct x): for every
/// `k` in `1..=kmax`, the cut positions with the least total error.
struct Segmentation {
    /// `sse[k]` for k segments (index 0 unused); infinite if impossible.
    sse: Vec<f64>,
    /// `starts[k]`: the first point of every segment.
    starts: Vec<Vec<usize>>,
}

fn segmentations(pts: &[(f64, f64)], kmax: usize, alpha_min: f64) -> Segmentation {
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

fn segments_of(pts: &[(f64, f64)], starts: &[usize], alpha_min: f64) -> Vec<Segment> {
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
fn criterion(sse: f64, m: usize, k: usize) -> f64 {
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

/// Fits one locality's ping-pong points (sorted, distinct sizes).
pub fn fit_postal(
    locality: Locality,
    points: &[(u64, f64)],
    max_segments: usize,
    alpha_min: f64,
) -> Result<PostalFit, String> {
    let name = locality_name(locality);
    if points.len() < 2 {
        return Err(format!(
            "{name}: need ping-pong times at two sizes at least, got {}",
            points.len()
        ));
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
fn map_protocols(
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

// ------------------------------------------------------------ queue search

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

/// The host costs of one locality, from an in-order HVPP stream: the
/// time per message `tau` of a stream (half the slope of `T(n)`, n
/// messages each way) is the port's time per message, `g + (s - 1) G`
/// (LogGP's g and G, G = 1 / R_b; Bienz et al. 2018 eq. 2 bounds a
/// process's stream by the same kind of rate), and each side's CPU cost
/// per message `o` is kept within it so that the CPUs do not slow the
/// stream: `o = min(tau - gamma - s / R_b, (alpha - gamma) / 2)` (both
/// sides, not below 0), the rest of alpha the latency `L` (`rest = "L"`,
/// the calibration contract). Written to the cell of the stream's
/// protocol.
#[derive(Clone, Debug, PartialEq)]
pub struct HostFit {
    /// Locality name.
    pub locality: String,
    /// The stream it comes from (kind, size).
    pub source: (Kind, u64),
    /// Time per message of the stream (s).
    pub tau: f64,
    /// The port's gap `g`: `tau` less the port's per-byte time (s).
    pub g: f64,
    /// CPU cost per message, each side (s).
    pub o: f64,
    /// Points of the stream fit.
    pub points: usize,
    /// The protocol (0 short, 1 eager, 2 rendezvous) of the stream's
    /// size: the cell these costs are written to.
    pub protocol: usize,
}

/// A median per measurement unit.
#[derive(Clone, Debug)]
struct Unit {
    seconds: f64,
    at: Vec<String>,
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

type UnitKey = (Kind, Locality, u64, u64, Option<Order>, u64);

fn units(rows: &[Measurement]) -> BTreeMap<UnitKey, Unit> {
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
type QueueFits = (Vec<GammaFit>, Vec<StreamFit>, Vec<String>);

fn fit_gamma(units: &BTreeMap<UnitKey, Unit>, noise: f64) -> Result<QueueFits, String> {
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
        return Err(format!(
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
        ));
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
fn excess_visits(n: u64, lo: u64, hi: u64) -> f64 {
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
fn weighted_ls(rows: &[(Vec<f64>, f64, f64)], group: &[usize], m: usize) -> Option<Vec<f64>> {
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

// ------------------------------------------------------------ the whole fit

/// Everything fitted.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Postal fits per locality.
    pub postal: Vec<PostalFit>,
    /// The printed `gamma` [s per element] and the growth exponent of its
    /// excess (NaN when fewer than three pairs have a positive excess),
    /// if HVPP pairs were given.
    pub gamma: Option<(f64, f64)>,
    /// Number of (size, n) pairs the printed gamma used.
    pub gamma_points: usize,
    /// Every queue-search fit, per HVPP kind and size.
    pub queues: Vec<GammaFit>,
    /// In-order stream slopes (every HVPP kind and size).
    pub streams: Vec<StreamFit>,
    /// The host costs fitted from a stream, per locality.
    pub host: Vec<HostFit>,
    /// Message rate per (size, window): seconds per window (reported).
    pub msgrate: Vec<(u64, u64, f64)>,
    /// Which (kind, size) the printed gamma comes from.
    pub gamma_source: Option<(Kind, u64)>,
    /// Library and state of the rows, if labelled.
    pub library: Option<String>,
    /// Placement state of the rows, if labelled.
    pub state: Option<String>,
    /// Rows per kind.
    pub rows: BTreeMap<Kind, usize>,
    /// The localities of all rows (they choose the scenario's machine).
    pub localities: BTreeSet<Locality>,
    /// Warnings.
    pub notes: Vec<String>,
}

/// Fits the selected rows (one library, one state: [`select`]).
pub fn fit_rows(rows: &[Measurement], o: &FitOptions) -> Result<Fit, String> {
    if rows.is_empty() {
        return Err("no rows to fit".into());
    }
    let us = units(rows);
    let (queues, streams, mut notes) = fit_gamma(&us, o.noise)?;
    // The printed gamma: posted, paper, unexpected; smallest size.
    let chosen = [Kind::HvppPosted, Kind::HvppPaper, Kind::HvppUnexpected]
        .iter()
        .find_map(|&k| queues.iter().find(|g| g.kind == k));
    let gamma = chosen.map(|g| {
        if g.gamma < 0.0 {
            notes.push(format!(
                "{} {} B: reversed and in-order times agree within the noise (slope {:.3e} s); \
                 gamma set to 0: a hashed matcher? (`matcher = \"hashed\"`)",
                g.kind.name(),
                g.size,
                g.gamma
            ));
        }
        (g.banded.0, g.exponent.unwrap_or(f64::NAN))
    });
    // The match cost the simulator charges a lone message; every alpha
    // must cover it (the calibration contract), in whole picoseconds.
    let gamma_ps = gamma.map(|g| Time::from_secs_f64(g.0));
    let alpha_min = gamma_ps
        .unwrap_or(mpi_layer::MpiParams::blue_waters().gamma_posted.cost(1))
        .as_secs_f64();
    let mut by_loc: BTreeMap<Locality, Vec<(u64, f64)>> = BTreeMap::new();
    for (&(kind, loc, size, ..), u) in &us {
        if kind == Kind::PingPong {
            by_loc.entry(loc).or_default().push((size, u.seconds));
        }
    }
    let mut postal = Vec::new();
    for (loc, pts) in by_loc {
        postal.push(fit_postal(loc, &pts, o.max_segments, alpha_min)?);
    }
    let msgrate = us
        .iter()
        .filter(|(k, _)| k.0 == Kind::MsgRate)
        .map(|(k, u)| (k.2, k.5, u.seconds))
        .collect();
    if postal.is_empty() && gamma.is_none() {
        return Err(
            "nothing to fit: no pingpong rows and no hvpp sizes measured both in order and \
             reversed"
                .into(),
        );
    }
    let mut rows_by_kind = BTreeMap::new();
    for r in rows {
        *rows_by_kind.entry(r.kind).or_default() += 1;
    }
    // The MPI layer's switch points are global: say so when localities
    // disagree about them.
    if let [first, rest @ ..] = postal.as_slice() {
        let switches =
            |p: &PostalFit| -> Vec<u64> { p.segments.iter().skip(1).map(|s| s.lo).collect() };
        let main = postal
            .iter()
            .find(|p| p.locality == "other_node")
            .unwrap_or(first);
        for p in std::iter::once(first).chain(rest) {
            if switches(p) != switches(main) {
                notes.push(format!(
                    "{} switches protocol at other sizes than {} ({:?} against {:?} B); the MPI \
                     layer has one set of switch points, taken from {}",
                    p.locality,
                    main.locality,
                    switches(p),
                    switches(main),
                    main.locality
                ));
            }
        }
    }
    let host = fit_host(&us, &postal, gamma.map_or(alpha_min, |g| g.0));
    let first = |f: fn(&Measurement) -> &Option<String>| f(&rows[0]).clone();
    Ok(Fit {
        host,
        postal,
        gamma_points: chosen.map_or(0, |g| g.pairs.len()),
        gamma_source: chosen.map(|g| (g.kind, g.size)),
        gamma,
        queues,
        streams,
        msgrate,
        library: first(|r| &r.library),
        state: first(|r| &r.state),
        rows: rows_by_kind,
        localities: rows.iter().map(|r| r.locality).collect(),
        notes,
    })
}

/// [`HostFit`] per locality with ping-pong segments and an in-order
/// stream: `hvpp-posted` (every arrival finds its receive: the stream
/// alone), else `hvpp-paper`, at the smallest size. The stream is fitted
/// with relative weights (`fit_line`), so that the short streams, whose
/// times are small, count as much as the long ones.
fn fit_host(units: &BTreeMap<UnitKey, Unit>, postal: &[PostalFit], gamma: f64) -> Vec<HostFit> {
    let mut out = Vec::new();
    for pf in postal {
        let Some(loc) = parse_locality(&pf.locality) else {
            continue;
        };
        let stream = [Kind::HvppPosted, Kind::HvppPaper].iter().find_map(|&k| {
            let mut by_size: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
            for (&(kind, l, size, n, order, _), u) in units {
                if kind == k && l == loc && order != Some(Order::Rev) && n >= 1 {
                    by_size.entry(size).or_default().push((n as f64, u.seconds));
                }
            }
            let (size, pts) = by_size.into_iter().next()?;
            (pts.len() >= 3).then_some((k, size, pts))
        });
        let Some((kind, size, pts)) = stream else {
            continue;
        };
        let tau = fit_line(&pts, 0.0).beta / 2.0;
        let protocol = (0..3).find(|&p| size <= Fit::cell(pf, p).hi).unwrap_or(2);
        // The port holds a message g + (s - 1) G, G = 1 / R_b (the wire
        // default); the receiver's core copies s / R_b, searches and
        // spends o_recv, within tau; both CPU costs and the match fit in
        // this protocol's alpha.
        let cell = Fit::cell(pf, protocol);
        let g = (tau - (size.saturating_sub(1)) as f64 * cell.beta_s_per_b).max(0.0);
        let o = (tau - gamma - size as f64 * cell.beta_s_per_b)
            .min((cell.alpha_s - gamma) / 2.0)
            .max(0.0);
        out.push(HostFit {
            locality: pf.locality.clone(),
            source: (kind, size),
            tau,
            g,
            o,
            points: pts.len(),
            protocol,
        });
    }
    out
}

// ------------------------------------------------------------ the old sample API

/// One timing in the shorthand of the validation case `fit`: `n = 1` is
/// a ping-pong one-way time, `n > 1` a HighVolumePingPong (Algorithm 1)
/// time. CSV input has an explicit `kind` column instead ([`read_csv`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Message size (bytes).
    pub size: u64,
    /// Messages (1 for ping-pong).
    pub n: u64,
    /// Receive posting order for `n > 1`: `true` if reversed.
    pub reversed: bool,
    /// Measured time (s).
    pub seconds: f64,
    /// Locality name.
    pub locality: String,
}

/// Fits [`Sample`]s with the default options.
pub fn fit(samples: &[Sample]) -> Result<Fit, String> {
    let rows = samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            Ok(Measurement {
                at: format!("sample {i}"),
                library: None,
                kind: if s.n == 1 {
                    Kind::PingPong
                } else {
                    Kind::HvppPaper
                },
                locality: parse_locality(&s.locality)
                    .ok_or_else(|| format!("sample {i}: locality `{}`", s.locality))?,
                size: s.size,
                n: s.n,
                order: (s.n > 1).then_some(if s.reversed { Order::Rev } else { Order::In }),
                window: 0,
                seconds: s.seconds,
                state: None,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    fit_rows(&rows, &FitOptions::default())
}

// ------------------------------------------------------------ output

const PROTOCOLS: [&str; 3] = ["short", "eager", "rendezvous"];

/// Seconds as an exact picosecond time string for scenario files.
pub fn format_secs(s: f64) -> String {
    format!("{} ps", Time::from_secs_f64(s).as_ps())
}

/// Seconds in the most readable unit.
fn human(s: f64) -> String {
    let a = s.abs();
    if a >= 1.0 {
        format!("{s:.3} s")
    } else if a >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else if a >= 1e-6 {
        format!("{:.3} us", s * 1e6)
    } else {
        format!("{:.1} ns", s * 1e9)
    }
}

/// A rate in B/s for scenario files: `1 / slope`, capped for a zero slope.
fn rate_bps(beta: f64) -> u64 {
    const CAP: u64 = 1_000_000_000_000_000; // 1 PB/s: "does not grow with size"
    if beta > 0.0 {
        Bandwidth::try_bytes_per_sec_f64(1.0 / beta)
            .map_or(CAP, |b| b.as_bytes_per_sec())
            .min(CAP)
    } else {
        CAP
    }
}

fn human_rate(bps: f64) -> String {
    if !bps.is_finite() {
        "inf".into()
    } else if bps >= 1e9 {
        format!("{:.3} GB/s", bps / 1e9)
    } else {
        format!("{:.1} MB/s", bps / 1e6)
    }
}

/// Alpha in whole picoseconds (nearest), never below `min_ps` (the match
/// cost), so that rounding cannot break the calibration contract.
fn alpha_ps(alpha_s: f64, min_ps: u64) -> u64 {
    ((alpha_s * 1e12).round().max(0.0) as u64).max(min_ps)
}

impl Fit {
    /// The protocol thresholds `(short_max, eager_max)` of the first
    /// locality, and the protocol cell of every protocol per locality.
    fn thresholds(&self) -> Option<(u64, u64)> {
        let pf = self
            .postal
            .iter()
            .find(|p| p.locality == "other_node")
            .or(self.postal.first())?;
        let s = &pf.segments;
        Some(match s.len() {
            1 => (0, s[0].hi),
            2 => (0, s[0].hi),
            _ => (s[0].hi, s[1].hi),
        })
    }

    fn cell(pf: &PostalFit, protocol: usize) -> &Segment {
        let n = pf.segments.len();
        // One segment: all three; two: no short protocol.
        &pf.segments[protocol.saturating_sub(3 - n.min(3)).min(n - 1)]
    }

    /// The fit as a runnable scenario: a machine and mapping that match
    /// the measured localities (two ranks on one node for intra-node
    /// data), the `[mpi]` section, and a ping-pong workload over a few
    /// measured sizes. `netsim run` accepts it (checked by
    /// [`check_scenario`]).
    pub fn to_scenario(&self, source: &str) -> String {
        let mut out = String::new();
        let label = [
            self.library.as_ref().map(|l| format!("library {l}")),
            self.state.as_ref().map(|s| format!("state {s}")),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ");
        out += &format!(
            "# Fitted by `netsim fit {source}`{}.\n# Run it as is (`netsim run`), or \
             replace [workload] with yours.\n",
            if label.is_empty() {
                String::new()
            } else {
                format!(" ({label})")
            }
        );
        let locs: Vec<&str> = self.postal.iter().map(|p| p.locality.as_str()).collect();
        let unfitted: Vec<&str> = ["same_socket", "same_node", "other_node"]
            .into_iter()
            .filter(|l| !locs.contains(l))
            .collect();
        out += "# Not determined by these data (the preset's values stay): match_base";
        if self.gamma.is_none() {
            out += ", gamma";
        }
        if !unfitted.is_empty() {
            out += &format!(", the postal cells of {}", unfitted.join(", "));
        }
        out += ".\n";
        for n in self
            .notes
            .iter()
            .chain(self.postal.iter().flat_map(|p| &p.notes))
        {
            out += &format!("# Note: {n}\n");
        }
        // Machine and mapping: the most remote measured locality decides.
        out += "\n[machine]\npreset = \"ideal\"\n";
        if self.localities.contains(&Locality::OtherNode) {
            // The fitted alpha holds the whole latency: a zero-latency
            // wire leaves the calibration contract room; the wire is
            // faster than every fitted R_b so that R_b limits.
            let max_rate = self
                .postal
                .iter()
                .flat_map(|p| &p.segments)
                .map(|s| rate_bps(s.beta_s_per_b))
                .max()
                .unwrap_or(0);
            out += "latency = \"0 ps\"   # the fitted alphas hold the whole latency\n";
            out += &format!(
                "bandwidth = \"{} B/s\"\n\n[mapping]\nppn = 1   # one rank per node, as measured (other_node)\n",
                max_rate.max(100_000_000_000)
            );
        } else if self.localities.contains(&Locality::SameNode) {
            out += "sockets = 2\n\n[mapping]\nppn = 2   # both ranks on one node, one per socket (same_node)\n";
        } else {
            out += "sockets = 1\n\n[mapping]\nppn = 2   # both ranks on one node and socket (same_socket)\n";
        }
        out += "\n[mpi]\npreset = \"blue-waters\"   # for what the data do not determine (above)\n";
        if let Some((short_max, eager_max)) = self.thresholds() {
            let pf = self
                .postal
                .iter()
                .find(|p| p.locality == "other_node")
                .or(self.postal.first())
                .expect("thresholds come from a postal fit");
            let s = &pf.segments;
            let bracket = |i: usize| format!("switch between {} B and {} B", s[i].hi, s[i + 1].lo);
            match s.len() {
                1 => {
                    out += &format!(
                        "short_max = 0\neager_max = {eager_max}   # one line fits every size\n"
                    )
                }
                2 => {
                    out += &format!(
                        "short_max = 0   # two segments: eager and rendezvous\neager_max = {eager_max}   # {}\n",
                        bracket(0)
                    )
                }
                _ => {
                    out += &format!(
                        "short_max = {short_max}   # {}\neager_max = {eager_max}   # {}\n",
                        bracket(0),
                        bracket(1)
                    )
                }
            }
        }
        if let (Some((g, e)), Some((kind, size))) = (self.gamma, self.gamma_source) {
            out += &format!(
                "gamma = \"{}\"   # {} {size} B, {} (n, in, rev) pairs{}\n",
                format_secs(g),
                kind.name(),
                self.gamma_points,
                if e.is_finite() {
                    format!(", excess grows as n^{e:.2}")
                } else {
                    String::new()
                }
            );
            let bands = self
                .queues
                .iter()
                .find(|q| (q.kind, q.size) == (kind, size))
                .map_or(&[][..], |q| &q.banded.1[..]);
            if !bands.is_empty() {
                let list: Vec<String> = bands
                    .iter()
                    .map(|&(from, g)| format!("[{from}, \"{}\"]", format_secs(g)))
                    .collect();
                // The unexpected queue is not in these data: the same
                // memory, the same cost per position.
                for q in ["posted", "unexpected"] {
                    out += &format!(
                        "gamma_{q}_bands = [{}]   # cost per element from these queue positions on\n",
                        list.join(", ")
                    );
                }
            }
        }
        // The Blue Waters preset's node memory and pair window describe
        // that machine; here the fitted R_b hold the memory path, and a
        // stream is limited by the fitted gap, not by a window.
        out += "memory_bandwidth = \"unlimited\"   # the fitted R_b hold the memory path\n";
        out += "pair_window = \"unlimited\"   # streams are limited by the fitted gap g\n";
        if let Some(pf) = self
            .postal
            .iter()
            .find(|p| p.locality == locality_name(self.mapped_locality()))
        {
            let eager = Self::cell(pf, 1);
            out += &format!(
                "unexpected_copy_rate = \"{} B/s\"   # not in these data: one copy at the eager R_b of {}\n",
                rate_bps(eager.beta_s_per_b),
                pf.locality
            );
        }
        let min_ps = self.gamma.map_or(
            mpi_layer::MpiParams::blue_waters()
                .gamma_posted
                .cost(1)
                .as_ps(),
            |g| Time::from_secs_f64(g.0).as_ps(),
        );
        for pf in &self.postal {
            out += &format!("\n[mpi.postal.{}]\n", pf.locality);
            for (i, name) in PROTOCOLS.iter().enumerate() {
                let s = Self::cell(pf, i);
                let mut notes = vec![format!(
                    "{}..{} B, {} sizes, rms {:.2} %, max {:.2} %",
                    s.lo,
                    s.hi,
                    s.points,
                    100.0 * s.rms_rel,
                    100.0 * s.max_rel
                )];
                match s.bound {
                    Bound::Free => {}
                    Bound::Alpha | Bound::Both => notes.push(format!(
                        "alpha held at the match cost (free fit {})",
                        human(s.free.0)
                    )),
                    Bound::Slope => notes.push("slope held at 0".into()),
                }
                out += &format!(
                    "{name} = {{ alpha = \"{} ps\", rate = \"{} B/s\" }}   # {}\n",
                    alpha_ps(s.alpha_s, min_ps),
                    rate_bps(s.beta_s_per_b),
                    notes.join("; ")
                );
            }
        }
        for h in &self.host {
            out += &format!(
                "\n# The other protocols keep the preset's max-rate costs (g = alpha: one\n\
                 # message at a time, Bienz et al. 2018 eq. 2): no stream measured for them.\n\
                 [mpi.host.{}.{}]   # {} {} B in order: {} per message ({} n)\n\
                 g = \"{} ps\"\no_send = \"{} ps\"\no_recv = \"{} ps\"\nrest = \"L\"\n",
                h.locality,
                PROTOCOLS[h.protocol],
                h.source.0.name(),
                h.source.1,
                human(h.tau),
                h.points,
                (h.g * 1e12).round() as u64,
                (h.o * 1e12).floor() as u64,
                (h.o * 1e12).floor() as u64,
            );
        }
        // A workload that runs as is: ping-pong at a few measured sizes,
        // one per protocol segment and the extremes.
        let mut sizes: BTreeSet<u64> = BTreeSet::new();
        if let Some(pf) = self.postal.first() {
            for s in &pf.segments {
                sizes.insert(s.lo);
                sizes.insert(s.hi);
            }
        } else {
            sizes.insert(8);
        }
        let list: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
        out += &format!(
            "\n[workload]\nkind = \"ping-pong\"\nsizes = [{}]\nreps = 1\n",
            list.join(", ")
        );
        out
    }

    /// A short human report: segments with residuals and switch points,
    /// the protocol mapping, queue search, streams, message rate.
    pub fn report(&self, source: &str) -> String {
        let mut o = String::new();
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|(k, n)| format!("{} {n}", k.name()))
            .collect();
        o += &format!(
            "netsim fit {source}: library {}, state {}; rows: {}\n",
            self.library.as_deref().unwrap_or("-"),
            self.state.as_deref().unwrap_or("-"),
            rows.join(", ")
        );
        let table = |o: &mut String, segs: &[Segment], names: Option<&[&str]>| {
            *o += "    segment            sizes   points       alpha          R_b      rms      max  bound\n";
            for (i, s) in segs.iter().enumerate() {
                let name = names.map_or(format!("{}", i + 1), |n| {
                    n[i.saturating_sub(3 - segs.len().min(3)).min(2)].to_string()
                });
                *o += &format!(
                    "    {name:<10} {:>16} {:>8} {:>11} {:>12} {:>7.2}% {:>7.2}%  {}\n",
                    format!("{}..{}", s.lo, s.hi),
                    s.points,
                    human(s.alpha_s),
                    human_rate(s.rate()),
                    100.0 * s.rms_rel,
                    100.0 * s.max_rel,
                    match s.bound {
                        Bound::Free => "-".to_string(),
                        Bound::Alpha | Bound::Both =>
                            format!("alpha >= match cost (free {})", human(s.free.0)),
                        Bound::Slope => "slope >= 0".to_string(),
                    }
                );
            }
            for w in segs.windows(2) {
                *o += &format!("    switch between {} B and {} B\n", w[0].hi, w[1].lo);
            }
        };
        for pf in &self.postal {
            o += &format!(
                "ping-pong {}: {} sizes, {} segment(s) by the penalized criterion\n",
                pf.locality,
                pf.points.len(),
                pf.regimes.len()
            );
            table(&mut o, &pf.regimes, None);
            if pf.regimes != pf.segments {
                o += "  mapped onto the protocols:\n";
                table(&mut o, &pf.segments, Some(&PROTOCOLS));
            }
            for n in &pf.notes {
                o += &format!("  note: {n}\n");
            }
        }
        if !self.queues.is_empty() {
            o += "queue search (reversed minus in order = gamma n (n - 1)):\n";
            for g in &self.queues {
                o += &format!(
                    "    {:<16} {:>6} B: gamma {:>10} from {:>2} pairs, excess {}, largest excess {:+.1} % of in order{}\n",
                    g.kind.name(),
                    g.size,
                    human(g.gamma),
                    g.pairs.len(),
                    g.exponent
                        .map_or("n/a (fewer than 3 positive)".into(), |e| format!(
                            "~ n^{e:.2}"
                        )),
                    100.0 * g.max_rel_excess,
                    if self.gamma_source == Some((g.kind, g.size)) {
                        "  <- printed"
                    } else {
                        ""
                    }
                );
            }
        }
        if !self.streams.is_empty() {
            o += "in-order streams, T = a + b n (unweighted; reported):\n";
            for s in &self.streams {
                o += &format!(
                    "    {:<16} {:>6} B: a {:>10}, b {:>10} per n ({} per message each way), {} points\n",
                    s.kind.name(),
                    s.size,
                    human(s.a),
                    human(s.b),
                    human(s.b / 2.0),
                    s.points
                );
            }
        }
        for h in &self.host {
            o += &format!(
                "host costs {} {}: {} {} B in order (relative weights, {} n): {} per message; \
                 g {}, o_send = o_recv {}, L the rest\n",
                h.locality,
                PROTOCOLS[h.protocol],
                h.source.0.name(),
                h.source.1,
                h.points,
                human(h.tau),
                human(h.g),
                human(h.o)
            );
        }
        if !self.msgrate.is_empty() {
            o += "message rate (reported; not fitted):\n";
            for &(size, window, t) in &self.msgrate {
                o += &format!(
                    "    {size:>6} B window {window:>3}: {} per window, {} per message, {:.3} M messages/s\n",
                    human(t),
                    human(t / window as f64),
                    window as f64 / t / 1e6
                );
            }
        }
        for n in &self.notes {
            o += &format!("note: {n}\n");
        }
        o
    }
}

/// Runs a scenario text through the code `netsim run` uses; the error
/// text if it is rejected.
pub fn check_scenario(
    text: &str,
    name: &str,
    dir: &Path,
) -> Result<scenarios::scenario::Outcome, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| format!("{name}: {e}"))?;
    run_file(
        &ScenarioFile {
            name: name.into(),
            text: text.into(),
        },
        &table,
        dir,
    )
}

/// Runs a scenario table built in code (errors name `name`, no line).
pub fn run_table(
    table: &toml::Table,
    name: &str,
    dir: &Path,
) -> Result<scenarios::scenario::Outcome, String> {
    run_file(
        &ScenarioFile {
            name: name.into(),
            text: String::new(),
        },
        table,
        dir,
    )
}

fn run_file(
    src: &ScenarioFile,
    table: &toml::Table,
    dir: &Path,
) -> Result<scenarios::scenario::Outcome, String> {
    let sc = scenarios::scenario::from_table(src, table, &[], dir).map_err(|e| e.to_string())?;
    sc.run(src, u64::MAX, |_, _| {}).map_err(|e| e.to_string())
}

/// Why `netsim fit` failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The input is wrong or contradicts the model (exit 2).
    Input(String),
    /// The fitted scenario was rejected by the simulator: a bug.
    Rejected(String),
}

/// What `netsim fit` does: read, select, fit, write the scenario and
/// check that `netsim run` accepts it. Returns the fit and the scenario.
pub fn fit_file(
    text: &str,
    source: &str,
    locality: Option<Locality>,
    o: &FitOptions,
) -> Result<(Fit, String), Failure> {
    fit_split(text, source, locality, o, None).map(|(f, s, _)| (f, s))
}

/// [`fit_file`] on the rows of `train` only (all rows when `None`);
/// returns the other selected rows too (`netsim fit --predict`).
pub fn fit_split(
    text: &str,
    source: &str,
    locality: Option<Locality>,
    o: &FitOptions,
    train: Option<&crate::predict::TrainSet>,
) -> Result<(Fit, String, Vec<Measurement>), Failure> {
    let rows = read_csv(text, source, locality).map_err(Failure::Input)?;
    let rows = select(rows, o).map_err(|e| Failure::Input(format!("{source}: {e}")))?;
    let (rows, held): (Vec<_>, Vec<_>) = match train {
        None => (rows, Vec::new()),
        Some(t) => rows.into_iter().partition(|r| t.contains(r)),
    };
    let f = fit_rows(&rows, o).map_err(|e| Failure::Input(format!("{source}: {e}")))?;
    let scenario = f.to_scenario(source);
    check_scenario(&scenario, "the fitted scenario", Path::new(".")).map_err(|e| {
        Failure::Rejected(format!(
            "netsim run rejects the fitted scenario (a bug in netsim fit; please report it \
             with the data): {e}\n{scenario}"
        ))
    })?;
    Ok((f, scenario, held))
}

impl Fit {
    /// The locality the fitted scenario's mapping reproduces: the most
    /// remote one measured.
    pub fn mapped_locality(&self) -> Locality {
        if self.localities.contains(&Locality::OtherNode) {
            Locality::OtherNode
        } else if self.localities.contains(&Locality::SameNode) {
            Locality::SameNode
        } else {
            Locality::SameSocket
        }
    }
}

#[cfg(test)]
mod tests;
