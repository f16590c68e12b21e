//! `netsim fit`: derive the postal parameters and the queue-search cost
//! from ping-pong and HighVolumePingPong timings, the way Bienz et al.
//! (`seeds/000_57fb22f3d7d3e7b5.txt`) derive Table 1 and eq. 4, and print
//! them as a scenario `[mpi]` section the simulator accepts.
//!
//! # Input
//!
//! CSV with a header naming at least `size,n,order,seconds` (any order;
//! an optional `locality` column takes `same_socket`, `same_node` or
//! `other_node`, default `other_node`):
//!
//! * rows with `n = 1` are ping-pong times: `seconds` is the one-way time
//!   of one message of `size` bytes (`order` is ignored, write `-`);
//! * rows with `n > 1` are HighVolumePingPong times (Algorithm 1) of `n`
//!   messages of `size` bytes, `order` `in` or `reversed`.
//!
//! # Method
//!
//! * Postal, eq. 1, per locality: the ping-pong points sorted by size are
//!   cut into three consecutive segments (short, eager, rendezvous; two or
//!   one when fewer than six distinct sizes are given), each fitted by
//!   least squares `T = alpha + s / R_b` weighted by `1 / T^2` (relative
//!   error, since sizes span decades). The cut points minimizing the total
//!   weighted error are the protocol switch points: a switch point is the
//!   largest size of the segment below it.
//! * Queue search: for every `(size, n)` measured both in order and
//!   reversed, the excess `T_rev - T_in` is the extra search. In Algorithm 1
//!   each of the two phases visits `n (n + 1) / 2` elements reversed and
//!   `n` in order, so the excess is `gamma n (n - 1)` when searches are on
//!   the critical path; `gamma` is the least-squares slope through the
//!   origin. Eq. 3's `gamma n^2` is its large-`n` form. The growth exponent
//!   of the excess (slope of log excess against log n) is reported: 2
//!   means the quadratic model holds.

use sim_core::{Bandwidth, Time};
use std::collections::BTreeMap;

/// One timing.
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
    /// Locality column, `other_node` when absent.
    pub locality: String,
}

/// Reads the CSV; errors name `source:line`.
pub fn parse_csv(text: &str, source: &str) -> Result<Vec<Sample>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let (hl, header) = lines
        .next()
        .ok_or_else(|| format!("{source}: empty file"))?;
    let cols: Vec<String> = header
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    let col = |name: &str| cols.iter().position(|c| c == name);
    let need = |name: &str| {
        col(name).ok_or_else(|| {
            format!(
                "{source}:{}: header lacks column `{name}` (need size,n,order,seconds)",
                hl + 1
            )
        })
    };
    let (ci_size, ci_n, ci_order, ci_secs) =
        (need("size")?, need("n")?, need("order")?, need("seconds")?);
    let ci_loc = col("locality");
    let mut out = Vec::new();
    for (i, line) in lines {
        let at = format!("{source}:{}", i + 1);
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != cols.len() {
            return Err(format!(
                "{at}: {} fields, header has {}",
                f.len(),
                cols.len()
            ));
        }
        let size: u64 = f[ci_size]
            .parse()
            .map_err(|_| format!("{at}: size `{}` is not a whole number of bytes", f[ci_size]))?;
        let n: u64 = f[ci_n]
            .parse()
            .map_err(|_| format!("{at}: n `{}` is not a positive whole number", f[ci_n]))?;
        if n == 0 {
            return Err(format!("{at}: n must be at least 1"));
        }
        let seconds: f64 = f[ci_secs]
            .parse()
            .map_err(|_| format!("{at}: seconds `{}` is not a number", f[ci_secs]))?;
        if !(seconds > 0.0 && seconds.is_finite()) {
            return Err(format!("{at}: seconds must be positive, got {seconds}"));
        }
        let reversed = match (n, f[ci_order]) {
            (1, _) => false,
            (_, "in") => false,
            (_, "reversed") => true,
            (_, o) => {
                return Err(format!(
                    "{at}: order `{o}` must be `in` or `reversed` when n > 1"
                ));
            }
        };
        let locality = match ci_loc.map(|c| f[c]) {
            None | Some("") => "other_node".to_string(),
            Some(l @ ("same_socket" | "same_node" | "other_node")) => l.to_string(),
            Some(l) => {
                return Err(format!(
                    "{at}: locality `{l}` must be same_socket, same_node or other_node"
                ));
            }
        };
        out.push(Sample {
            size,
            n,
            reversed,
            seconds,
            locality,
        });
    }
    Ok(out)
}

/// A fitted line `T = alpha + s / rate` over sizes `lo..=hi`.
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
}

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

/// Weighted least squares of `y = a + b x` with weights `1 / y^2`;
/// returns `(a, b, weighted squared error)`.
fn wls(pts: &[(f64, f64)]) -> (f64, f64, f64) {
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
    let (a, b) = if det.abs() < 1e-300 || pts.len() < 2 {
        (sy / sw, 0.0)
    } else {
        ((sxx * sy - sx * sxy) / det, (sw * sxy - sx * sy) / det)
    };
    let err = pts
        .iter()
        .map(|&(x, y)| ((y - a - b * x) / y).powi(2))
        .sum();
    (a, b, err)
}

/// Cuts `pts` (sorted by x, distinct x) into `k` segments of at least two
/// points minimizing the total weighted error. Returns the segment starts.
fn best_cuts(pts: &[(f64, f64)], k: usize) -> Vec<usize> {
    let m = pts.len();
    let cost = |a: usize, b: usize| wls(&pts[a..b]).2;
    match k {
        1 => vec![0],
        2 => {
            let i = (2..=m - 2)
                .min_by(|&a, &b| (cost(0, a) + cost(a, m)).total_cmp(&(cost(0, b) + cost(b, m))))
                .unwrap_or(2);
            vec![0, i]
        }
        _ => {
            let mut best = (f64::INFINITY, 2, 4);
            for i in 2..=m - 4 {
                let c0 = cost(0, i);
                for j in i + 2..=m - 2 {
                    let c = c0 + cost(i, j) + cost(j, m);
                    if c < best.0 {
                        best = (c, i, j);
                    }
                }
            }
            vec![0, best.1, best.2]
        }
    }
}

/// The fit of one locality.
#[derive(Clone, Debug, PartialEq)]
pub struct PostalFit {
    /// Locality name.
    pub locality: String,
    /// Segments in size order (short, eager, rendezvous when three).
    pub segments: Vec<Segment>,
}

/// Everything fitted.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Postal fits per locality.
    pub postal: Vec<PostalFit>,
    /// `gamma` [s per element] and the growth exponent of the excess, if
    /// HighVolumePingPong pairs were given.
    pub gamma: Option<(f64, f64)>,
    /// Number of (size, n) pairs the gamma fit used.
    pub gamma_points: usize,
}

/// Fits everything the samples allow.
pub fn fit(samples: &[Sample]) -> Result<Fit, String> {
    let mut by_loc: BTreeMap<String, BTreeMap<u64, Vec<f64>>> = BTreeMap::new();
    for s in samples.iter().filter(|s| s.n == 1) {
        by_loc
            .entry(s.locality.clone())
            .or_default()
            .entry(s.size)
            .or_default()
            .push(s.seconds);
    }
    let mut postal = Vec::new();
    for (loc, sizes) in by_loc {
        let pts: Vec<(f64, f64)> = sizes
            .iter()
            .map(|(&s, v)| (s as f64, v.iter().sum::<f64>() / v.len() as f64))
            .collect();
        let k = match pts.len() {
            0 | 1 => {
                return Err(format!(
                    "{loc}: need ping-pong times at two sizes at least, got {}",
                    pts.len()
                ));
            }
            2..=3 => 1,
            4..=5 => 2,
            _ => 3,
        };
        let cuts = best_cuts(&pts, k);
        let mut segments = Vec::new();
        for (c, &start) in cuts.iter().enumerate() {
            let end = cuts.get(c + 1).copied().unwrap_or(pts.len());
            let seg = &pts[start..end];
            let (a, b, err) = wls(seg);
            segments.push(Segment {
                lo: seg[0].0 as u64,
                hi: seg[seg.len() - 1].0 as u64,
                alpha_s: a,
                beta_s_per_b: b,
                rms_rel: (err / seg.len() as f64).sqrt(),
            });
        }
        postal.push(PostalFit {
            locality: loc,
            segments,
        });
    }
    // Queue search: excess of reversed over in-order per (size, n).
    let mut pairs: BTreeMap<(u64, u64), (Option<f64>, Option<f64>)> = BTreeMap::new();
    for s in samples.iter().filter(|s| s.n > 1) {
        let e = pairs.entry((s.size, s.n)).or_default();
        if s.reversed {
            e.1 = Some(s.seconds);
        } else {
            e.0 = Some(s.seconds);
        }
    }
    let pts: Vec<(f64, f64)> = pairs
        .iter()
        .filter_map(|(&(_, n), &(i, r))| Some((n as f64, r? - i?)))
        .collect();
    let gamma = if pts.is_empty() {
        None
    } else {
        let (num, den) = pts.iter().fold((0.0, 0.0), |(a, b), &(n, ex)| {
            let x = n * (n - 1.0);
            (a + x * ex, b + x * x)
        });
        let positive: Vec<(f64, f64)> = pts
            .iter()
            .filter(|p| p.1 > 0.0)
            .map(|&(n, ex)| (n.ln(), ex.ln()))
            .collect();
        let exponent = if positive.len() >= 2 {
            line_fit(&positive).1
        } else {
            f64::NAN
        };
        Some((num / den, exponent))
    };
    if postal.is_empty() && gamma.is_none() {
        return Err(
            "no ping-pong rows (n = 1) and no in-order/reversed HighVolumePingPong pairs to fit"
                .into(),
        );
    }
    Ok(Fit {
        postal,
        gamma,
        gamma_points: pts.len(),
    })
}

const PROTOCOLS: [&str; 3] = ["short", "eager", "rendezvous"];

impl Fit {
    /// The fit as a scenario `[mpi]` section (see the scenario format),
    /// with the fit quality in comments. A segment whose slope is not
    /// positive or whose intercept is negative is clamped (with a comment
    /// saying so), since the simulator needs `alpha >= 0`, `R_b >= 1 B/s`.
    pub fn to_toml(&self, source: &str) -> String {
        let mut out = format!(
            "# Fitted by `netsim fit {source}`: postal model (Bienz et al. eq. 1) per protocol\n# segment, queue search gamma (eq. 3-4).\n[mpi]\n"
        );
        if let Some(pf) = self
            .postal
            .iter()
            .find(|p| p.locality == "other_node")
            .or(self.postal.first())
        {
            let segs = &pf.segments;
            match segs.len() {
                3 => out += &format!("short_max = {}\neager_max = {}\n", segs[0].hi, segs[1].hi),
                2 => out += &format!("short_max = 0\neager_max = {}\n", segs[0].hi),
                _ => {}
            }
        }
        if let Some((g, e)) = self.gamma {
            out += &format!(
                "gamma = \"{}\"   # from {} (size, n) pairs; excess grows as n^{e:.3}\n",
                crate::fit::format_secs(g.max(0.0)),
                self.gamma_points
            );
        }
        for pf in &self.postal {
            out += &format!("\n[mpi.postal.{}]\n", pf.locality);
            // Fewer than three segments: the last protocols share the
            // last fitted line.
            for (i, name) in PROTOCOLS.iter().enumerate() {
                let s = &pf.segments[i
                    .saturating_sub(3 - pf.segments.len())
                    .min(pf.segments.len() - 1)];
                let mut notes = vec![format!(
                    "sizes {}..{} B, rms error {:.2}%",
                    s.lo,
                    s.hi,
                    100.0 * s.rms_rel
                )];
                let alpha = if s.alpha_s < 0.0 {
                    notes.push(format!("alpha {:.3e} s clamped to 0", s.alpha_s));
                    0.0
                } else {
                    s.alpha_s
                };
                let rate = if s.beta_s_per_b > 0.0 {
                    Bandwidth::try_bytes_per_sec_f64(1.0 / s.beta_s_per_b)
                        .unwrap_or(Bandwidth::bytes_per_sec(u64::MAX / 2))
                } else {
                    notes.push("time does not grow with size: rate set to 1e15 B/s".into());
                    Bandwidth::bytes_per_sec(1_000_000_000_000_000)
                };
                out += &format!(
                    "{name} = {{ alpha = \"{}\", rate = \"{} B/s\" }}   # {}\n",
                    format_secs(alpha),
                    rate.as_bytes_per_sec(),
                    notes.join("; ")
                );
            }
        }
        out
    }
}

/// Seconds as an exact picosecond time string for scenario files.
pub fn format_secs(s: f64) -> String {
    format!("{} ps", Time::from_secs_f64(s).as_ps())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthetic timings from known parameters: the fit must recover them.
    fn synth() -> String {
        let mut csv = String::from("size,n,order,seconds\n");
        let (a, r) = ([2.3e-6, 7.0e-6, 3.0e-6], [1.3e9, 7.5e8, 2.9e9]);
        for s in [
            1u64,
            8,
            64,
            256,
            512,
            1024,
            2048,
            4096,
            8192,
            16384,
            65536,
            1 << 20,
        ] {
            let p = if s <= 1024 {
                0
            } else if s <= 8192 {
                1
            } else {
                2
            };
            csv += &format!("{s},1,-,{}\n", a[p] + s as f64 / r[p]);
        }
        let gamma = 8.4e-9;
        for n in [10u64, 100, 1000] {
            let base = 1e-5 * n as f64;
            csv += &format!(
                "8,{n},in,{base}\n8,{n},reversed,{}\n",
                base + gamma * (n * (n - 1)) as f64
            );
        }
        csv
    }

    #[test]
    fn recovers_known_parameters() {
        let f = fit(&parse_csv(&synth(), "synth.csv").unwrap()).unwrap();
        let segs = &f.postal[0].segments;
        assert_eq!(segs.len(), 3);
        assert_eq!((segs[0].hi, segs[1].hi), (1024, 8192), "switch points");
        for (s, (a, r)) in segs
            .iter()
            .zip([(2.3e-6, 1.3e9), (7.0e-6, 7.5e8), (3.0e-6, 2.9e9)])
        {
            assert!((s.alpha_s - a).abs() < 1e-12, "{s:?}");
            assert!((1.0 / s.beta_s_per_b - r).abs() / r < 1e-9, "{s:?}");
        }
        let (g, e) = f.gamma.unwrap();
        assert!((g - 8.4e-9).abs() < 1e-15);
        // n (n - 1) over n = 10..1000 has a log-log slope of 2.02, not 2.
        assert!((e - 2.0).abs() < 0.05, "exponent {e}");
        let t = f.to_toml("synth.csv");
        assert!(t.contains("short_max = 1024\neager_max = 8192"), "{t}");
        assert!(
            t.contains("rendezvous = { alpha = \"3000000 ps\", rate = \"2900000000 B/s\" }"),
            "{t}"
        );
        assert!(t.contains("gamma = \"8400 ps\""), "{t}");
    }

    #[test]
    fn bad_input_names_the_line() {
        let e = parse_csv("size,n,order,seconds\n8,1,-,1e-6\n8,x,-,1\n", "m.csv").unwrap_err();
        assert!(e.starts_with("m.csv:3:"), "{e}");
        let e = parse_csv("size,n,seconds\n", "m.csv").unwrap_err();
        assert!(e.contains("lacks column `order`"), "{e}");
        let e = parse_csv("size,n,order,seconds\n8,4,sideways,1e-6\n", "m.csv").unwrap_err();
        assert!(e.contains("m.csv:2: order `sideways`"), "{e}");
        let e = parse_csv("size,n,order,seconds\n8,1,-,-3\n", "m.csv").unwrap_err();
        assert!(e.contains("positive"), "{e}");
        assert!(fit(&[]).is_err());
    }
}
