//! The validation suite's bookkeeping: rows comparing a simulated value
//! with a model's prediction, the rule each comparison is judged by, and
//! the table and JSON renderings of `netsim validate`.

use serde::Serialize;

/// How a simulated value is judged against a model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Check {
    /// `|sim - model| <= tol * |model|`.
    Relative {
        /// Relative tolerance.
        tol: f64,
    },
    /// `|sim - model| <= tol * |model| + resolution`: exact up to the
    /// simulator's time resolution (1 ps; a message's `s / R_b` is rounded
    /// up to whole picoseconds, which is 1.4e-6 of an 8-byte intra-socket
    /// Blue Waters message).
    Exact {
        /// Relative tolerance.
        tol: f64,
        /// Absolute resolution allowance (same unit as the values).
        resolution: f64,
    },
    /// The model is an upper bound: `sim <= model * (1 + slack)`.
    UpperBound {
        /// Relative slack.
        slack: f64,
    },
    /// The model is a lower bound: `sim >= model * (1 - slack)`.
    LowerBound {
        /// Relative slack.
        slack: f64,
    },
    /// Two models bracket the value: `low (1 - below) <= sim <= model (1 +
    /// above)`, `model` being the upper one (e.g. max-rate below and
    /// max-rate + queue search + contention above, Bienz et al. Sec. 5).
    Between {
        /// The lower model.
        low: f64,
        /// Relative slack under `low`.
        below: f64,
        /// Relative slack over the model.
        above: f64,
    },
    /// The model lies within `k` half-widths of the simulation's 95 %
    /// confidence interval: `|sim - model| <= k * half_width`.
    WithinCi {
        /// Half-width of the 95 % confidence interval (same unit).
        half_width: f64,
        /// Allowed multiple of the half-width.
        k: f64,
    },
    /// A fraction (e.g. of links within 10 %) must reach `min`.
    AtLeast {
        /// Smallest acceptable value.
        min: f64,
    },
    /// The simulator deliberately does not follow this model; the row is
    /// reported, with the reason in its note, and does not pass or fail.
    Explained,
}

/// The outcome of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Within tolerance or on the bounded side.
    Pass,
    /// Outside.
    Fail,
    /// Reported, not judged (see the note).
    Explained,
}

/// One comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Case name (`--case` selects by it).
    pub case: String,
    /// Model and parameters compared, e.g. `postal (eq. 1) rend inter-node 1 MiB`.
    pub model: String,
    /// Simulated value.
    pub simulated: f64,
    /// Model's value.
    pub predicted: f64,
    /// Unit of both values.
    pub unit: String,
    /// `(simulated - predicted) / predicted`.
    pub error: f64,
    /// The rule applied.
    pub check: Check,
    /// Outcome.
    pub verdict: Verdict,
    /// Why a row is explained rather than judged, or other context.
    pub note: String,
}

impl Row {
    /// A judged row.
    pub fn new(
        case: &str,
        model: impl Into<String>,
        simulated: f64,
        predicted: f64,
        unit: &str,
        check: Check,
    ) -> Row {
        let error = if predicted != 0.0 {
            (simulated - predicted) / predicted.abs()
        } else {
            simulated - predicted
        };
        let pass = match check {
            Check::Relative { tol } => (simulated - predicted).abs() <= tol * predicted.abs(),
            Check::Exact { tol, resolution } => {
                (simulated - predicted).abs() <= tol * predicted.abs() + resolution
            }
            Check::UpperBound { slack } => simulated <= predicted * (1.0 + slack),
            Check::LowerBound { slack } => simulated >= predicted * (1.0 - slack),
            Check::Between { low, below, above } => {
                simulated >= low * (1.0 - below) && simulated <= predicted * (1.0 + above)
            }
            Check::WithinCi { half_width, k } => (simulated - predicted).abs() <= k * half_width,
            Check::AtLeast { min } => simulated >= min,
            Check::Explained => false,
        };
        let verdict = match check {
            Check::Explained => Verdict::Explained,
            _ if pass && simulated.is_finite() => Verdict::Pass,
            _ => Verdict::Fail,
        };
        Row {
            case: case.into(),
            model: model.into(),
            simulated,
            predicted,
            unit: unit.into(),
            error,
            check,
            verdict,
            note: String::new(),
        }
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Row {
        self.note = note.into();
        self
    }
}

fn tolerance_text(c: &Check) -> String {
    match *c {
        Check::Relative { tol } => format!("+-{}", fmt_pct(tol)),
        Check::Exact { tol, resolution } => format!("+-{} +-{resolution:.0e}", fmt_pct(tol)),
        Check::UpperBound { slack } => format!(
            "sim <= model{}",
            if slack > 0.0 {
                format!(" +{}", fmt_pct(slack))
            } else {
                String::new()
            }
        ),
        Check::LowerBound { slack } => format!(
            "sim >= model{}",
            if slack > 0.0 {
                format!(" -{}", fmt_pct(slack))
            } else {
                String::new()
            }
        ),
        Check::Between { low, below, above } => {
            let pct = |x: f64, sign: &str| {
                if x > 0.0 {
                    format!(" {sign}{}", fmt_pct(x))
                } else {
                    String::new()
                }
            };
            format!(
                "{low:.3e}{} <= sim <= model{}",
                pct(below, "-"),
                pct(above, "+")
            )
        }
        Check::WithinCi { half_width, k } => format!("{k} x CI95 ({half_width:.3e})"),
        Check::AtLeast { min } => format!(">= {min}"),
        Check::Explained => "explained".into(),
    }
}

fn fmt_pct(x: f64) -> String {
    if x < 1e-3 {
        format!("{x:.0e}")
    } else {
        format!("{}%", (x * 1000.0).round() / 10.0)
    }
}

/// Renders rows as an aligned text table, notes under their rows.
pub fn table(rows: &[Row]) -> String {
    let head = [
        "case",
        "model",
        "simulated",
        "predicted",
        "error",
        "tolerance",
        "verdict",
    ];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|r| {
            [
                r.case.clone(),
                r.model.clone(),
                format!("{:.6e} {}", r.simulated, r.unit),
                format!("{:.6e} {}", r.predicted, r.unit),
                format!("{:+.2e}", r.error),
                tolerance_text(&r.check),
                format!("{:?}", r.verdict).to_lowercase(),
            ]
        })
        .collect();
    let mut w = head.map(|h| h.len());
    for c in &cells {
        for (i, s) in c.iter().enumerate() {
            w[i] = w[i].max(s.chars().count());
        }
    }
    let line = |c: &[String]| -> String {
        c.iter()
            .enumerate()
            .map(|(i, s)| format!("{s:<width$}", width = w[i]))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = line(&head.map(String::from)) + "\n";
    out += &(w
        .iter()
        .map(|n| "-".repeat(*n))
        .collect::<Vec<_>>()
        .join("  ")
        + "\n");
    for (r, c) in rows.iter().zip(&cells) {
        out += &(line(c) + "\n");
        if !r.note.is_empty() {
            out += &format!("    note: {}\n", r.note);
        }
    }
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    out += &format!(
        "{} passed, {} failed, {} explained\n",
        count(Verdict::Pass),
        count(Verdict::Fail),
        count(Verdict::Explained)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_judge_both_ways() {
        assert_eq!(
            Row::new(
                "c",
                "m",
                1.0,
                1.0 + 1e-7,
                "s",
                Check::Relative { tol: 1e-6 }
            )
            .verdict,
            Verdict::Pass
        );
        assert_eq!(
            Row::new("c", "m", 1.0, 1.1, "s", Check::Relative { tol: 0.05 }).verdict,
            Verdict::Fail
        );
        assert_eq!(
            Row::new("c", "m", 0.9, 1.0, "s", Check::UpperBound { slack: 0.0 }).verdict,
            Verdict::Pass
        );
        assert_eq!(
            Row::new("c", "m", 1.1, 1.0, "s", Check::UpperBound { slack: 0.0 }).verdict,
            Verdict::Fail
        );
        assert_eq!(
            Row::new("c", "m", 1.1, 1.0, "s", Check::LowerBound { slack: 0.0 }).verdict,
            Verdict::Pass
        );
        assert_eq!(
            Row::new(
                "c",
                "m",
                10.0,
                11.0,
                "s",
                Check::WithinCi {
                    half_width: 0.6,
                    k: 2.0
                }
            )
            .verdict,
            Verdict::Pass
        );
        assert_eq!(
            Row::new(
                "c",
                "m",
                10.0,
                12.0,
                "s",
                Check::WithinCi {
                    half_width: 0.6,
                    k: 2.0
                }
            )
            .verdict,
            Verdict::Fail
        );
        assert_eq!(
            Row::new(
                "c",
                "m",
                f64::NAN,
                1.0,
                "s",
                Check::UpperBound { slack: 0.0 }
            )
            .verdict,
            Verdict::Fail
        );
        assert_eq!(
            Row::new("c", "m", 1.0, 2.0, "s", Check::Explained).verdict,
            Verdict::Explained
        );
        // A bracket fails on either side.
        let between = |sim: f64| {
            Row::new(
                "c",
                "m",
                sim,
                2.0,
                "s",
                Check::Between {
                    low: 1.0,
                    below: 0.01,
                    above: 0.01,
                },
            )
            .verdict
        };
        assert_eq!(between(1.5), Verdict::Pass);
        assert_eq!(between(0.995), Verdict::Pass);
        assert_eq!(between(0.98), Verdict::Fail);
        assert_eq!(between(2.03), Verdict::Fail);
    }

    #[test]
    fn table_lists_rows_notes_and_totals() {
        let rows = vec![
            Row::new(
                "postal",
                "eq. 1",
                1.0,
                1.0,
                "s",
                Check::Relative { tol: 1e-6 },
            ),
            Row::new("zhu", "alg. 1", 0.5, 0.8, "", Check::AtLeast { min: 0.8 })
                .note("half the links"),
        ];
        let t = table(&rows);
        assert!(t.contains("postal") && t.contains("note: half the links"));
        assert!(t.ends_with("1 passed, 1 failed, 0 explained\n"), "{t}");
    }
}
