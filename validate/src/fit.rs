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
//! * **Host costs** per locality and protocol ([`HostFit`]), from that
//!   protocol's own in-order streams of `hvpp-posted` (else
//!   `hvpp-paper`): the time per message `tau` (half the slope of
//!   `T(n)`, `n` messages each way, relative weights) is the port's
//!   `g + (s - 1) G` (LogGP's g and G, Alexandrov et al.; Bienz et al.
//!   2018 eq. 2 bounds a process's stream the same way), `G` from two
//!   stream sizes of the protocol, else the wire's `1 / R_b`; each
//!   side's CPU cost `o = min(tau - gamma, (alpha - gamma) / 2)` keeps
//!   the CPUs within the stream's pace, and the rest of the alpha is the
//!   latency `L` (`rest = "L"`: the ping-pong stays exact by the
//!   calibration contract). A stream that grows as `n^2` gives the
//!   receives in flight their cost ([`stream_costs`], `o_inflight`). A
//!   protocol without a stream keeps the max-rate costs.
//! * **Unexpected path** ([`fit_copy_rate`]): the per-message difference
//!   of in-order `hvpp-unexpected` and `hvpp-posted` streams at their two
//!   smallest common sizes is `unexpected_cost + s /
//!   unexpected_copy_rate`; without such data the eager `R_b` and no
//!   fixed cost are written, and the scenario says so.
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
    /// The library's own eager limit for non-blocking sends
    /// (`--isend-eager-max`, e.g. UCX's rendezvous threshold for
    /// `MPI_Isend`): written to the scenario, and the posted streams
    /// (non-blocking sends) above it fit the rendezvous cell. Three stream
    /// sizes cannot place it, so it is the library's configuration, not
    /// a fitted value. Default none.
    pub isend_eager_max: Option<u64>,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            state: None,
            library: None,
            max_segments: 8,
            noise: 0.1,
            isend_eager_max: None,
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

mod queues;
mod segments;
pub use queues::*;
pub use segments::*;

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
    /// A non-blocking send's own eager limit, as given
    /// ([`FitOptions::isend_eager_max`]).
    pub isend_eager_max: Option<u64>,
    /// The unexpected path's copy rate (B/s) and the sizes it comes from
    /// ([`fit_copy_rate`]), when the data determine it.
    pub copy_rate: Option<CopyFit>,
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
    let isend_eager_max = o.isend_eager_max;
    let host = fit_host(
        &us,
        &postal,
        gamma.map_or(alpha_min, |g| g.0),
        isend_eager_max,
    );
    let eager_max = postal
        .iter()
        .find(|p| p.locality == "other_node")
        .or(postal.first())
        .map_or(u64::MAX, |p| Fit::cell(p, 1).hi);
    let copy_rate = fit_copy_rate(&streams, eager_max);
    let first = |f: fn(&Measurement) -> &Option<String>| f(&rows[0]).clone();
    Ok(Fit {
        host,
        isend_eager_max,
        copy_rate,
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

/// [`HostFit`] per locality and protocol, from that protocol's own
/// in-order streams: `hvpp-posted` (every arrival finds its receive: the
/// stream alone), else `hvpp-paper`, at every size in the protocol's
/// range. Each stream is fitted with relative weights (`fit_line`), so
/// that the short streams, whose times are small, count as much as the
/// long ones. Two or more sizes in one protocol give the port's cost per
/// byte `G` from the smallest and the largest (the slope of `tau`
/// against `s`); one size keeps the wire's `G = 1 / R_b`.
fn fit_host(
    units: &BTreeMap<UnitKey, Unit>,
    postal: &[PostalFit],
    gamma: f64,
    isend_max: Option<u64>,
) -> Vec<HostFit> {
    let mut out = Vec::new();
    for pf in postal {
        let Some(loc) = parse_locality(&pf.locality) else {
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

mod output;
pub use output::{BORROWED_POSTAL, format_secs};
#[cfg(test)]
use output::{alpha_ps, rate_bps};

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
    fit_split(text, source, locality, o, |_| true).map(|s| (s.fit, s.scenario))
}

/// [`fit_file`] on the selected rows that `train` accepts; returns the
/// other selected rows too (`netsim fit --predict`, whose `TrainSet`
/// says which rows train).
pub fn fit_split(
    text: &str,
    source: &str,
    locality: Option<Locality>,
    o: &FitOptions,
    train: impl Fn(&Measurement) -> bool,
) -> Result<Split, Failure> {
    let rows = read_csv(text, source, locality).map_err(Failure::Input)?;
    let rows = select(rows, o).map_err(|e| Failure::Input(format!("{source}: {e}")))?;
    let (rows, held): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| train(r));
    let f = fit_rows(&rows, o).map_err(|e| Failure::Input(format!("{source}: {e}")))?;
    let scenario = f.to_scenario(source);
    check_scenario(&scenario, "the fitted scenario", Path::new(".")).map_err(|e| {
        Failure::Rejected(format!(
            "netsim run rejects the fitted scenario (a bug in netsim fit; please report it \
             with the data): {e}\n{scenario}"
        ))
    })?;
    Ok(Split {
        fit: f,
        scenario,
        train: rows,
        held,
    })
}

/// A fit on the training rows of a split ([`fit_split`]).
pub struct Split {
    /// The fit.
    pub fit: Fit,
    /// Its scenario's text.
    pub scenario: String,
    /// The rows the fit used (one library and state).
    pub train: Vec<Measurement>,
    /// The rows it did not see.
    pub held: Vec<Measurement>,
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
