//! `netsim fit`: fit the MPI layer's parameters to measured timings and
//! print them as a scenario that `netsim run` accepts.
//!
//! The input (CSV rows of `netsim calibrate`'s benchmark, combined per
//! measurement unit by their median) is described in [`input`]'s doc.
//!
//! # Method
//!
//! * **Postal segments** per locality from the ping-pong rows (Bienz et
//!   al. eq. 1): weighted least squares `T = alpha + s / R_b` (weights
//!   `1 / T^2`) on consecutive segments, `alpha` at least the match cost
//!   (the calibration contract); the number of segments by dynamic
//!   programming and a BIC-like criterion with a 0.5 % noise floor
//!   ([`fit_postal`]); switch points reported with the sizes that
//!   bracket them.
//! * **Protocols**: `map_protocols` is the one place that maps the
//!   segments onto short, eager and rendezvous (more than three: the
//!   best three-segment fit, with a warning naming what it cannot say).
//! * **Queue search** per HVPP kind and size from the excess `T_rev -
//!   T_in = gamma n (n - 1)` of the pairs measured both ways, as a cost
//!   per element by queue position (`fit_gamma`, [`fit_bands`]);
//!   reversed faster than in order beyond `--noise` in half the pairs is
//!   an error naming the rows.
//! * **Host costs** per locality and protocol from the protocol's own
//!   in-order posted streams ([`HostFit`]: `g`, `G`, `o`, and
//!   `o_inflight` where a stream grows as `n^2`, [`stream_costs`]); a
//!   protocol without a stream keeps the max-rate costs.
//! * **Unexpected path** ([`fit_copy_rate`]): `unexpected_cost + s /
//!   unexpected_copy_rate` from `hvpp-unexpected` against `hvpp-posted`
//!   streams; without them the eager `R_b` and no fixed cost, said in
//!   the scenario.
//! * Reported: the in-order stream slope of every HVPP kind and the
//!   message rate.

use crate::Error;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use scenarios::scenario::ScenarioFile;
use sim_core::{Bandwidth, Time};
use topology::Locality;

pub mod input;
pub use input::*;

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

mod host;
mod queues;
mod segments;
pub use host::*;
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
pub fn fit_rows(rows: &[Measurement], o: &FitOptions) -> Result<Fit, Error> {
    if rows.is_empty() {
        return Err(Error::input("no rows to fit"));
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
        return Err(Error::input(
            "nothing to fit: no pingpong rows and no hvpp sizes measured both in order and \
             reversed",
        ));
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
pub fn fit(samples: &[Sample]) -> Result<Fit, Error> {
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
                locality: Locality::from_name(&s.locality).ok_or_else(|| {
                    Error::Input(format!("sample {i}: locality `{}`", s.locality))
                })?,
                size: s.size,
                n: s.n,
                order: (s.n > 1).then_some(if s.reversed { Order::Rev } else { Order::In }),
                window: 0,
                seconds: s.seconds,
                state: None,
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
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
) -> Result<scenarios::scenario::Outcome, Error> {
    let table: toml::Table =
        toml::from_str(text).map_err(|e| Error::Rejected(format!("{name}: {e}")))?;
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
) -> Result<scenarios::scenario::Outcome, Error> {
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
) -> Result<scenarios::scenario::Outcome, Error> {
    let sc = scenarios::scenario::from_table(src, table, &[], dir).map_err(Error::rejected)?;
    sc.run(src, u64::MAX, |_, _| {}).map_err(Error::rejected)
}

/// What `netsim fit` does: read, select, fit, write the scenario and
/// check that `netsim run` accepts it. Returns the fit and the scenario.
pub fn fit_file(
    text: &str,
    source: &str,
    locality: Option<Locality>,
    o: &FitOptions,
) -> Result<(Fit, String), Error> {
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
) -> Result<Split, Error> {
    let rows = read_csv(text, source, locality)?;
    let rows = select(rows, o).map_err(|e| e.within(source))?;
    let (rows, held): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| train(r));
    let f = fit_rows(&rows, o).map_err(|e| e.within(source))?;
    let scenario = f.to_scenario(source);
    check_scenario(&scenario, "the fitted scenario", Path::new(".")).map_err(|e| {
        Error::Rejected(format!(
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

impl std::fmt::Debug for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Split").finish_non_exhaustive()
    }
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
