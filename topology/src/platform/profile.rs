//! SimGrid's time-varying profiles (`speed_file`, `state_file`,
//! `bandwidth_file`, `latency_file`, an inline `<trace>`): a value that
//! changes at given instants, piecewise constant in between, once or
//! repeated.
//!
//! The text is SimGrid 3.32's deterministic profile format
//! (`ProfileBuilder.cpp`, `LegacyUpdateCb`): one `time value` pair a
//! line, times in seconds from the start of the simulation, sorted;
//! blank lines and lines starting with `#` or `%` are skipped;
//! `LOOPAFTER d` repeats the events `d` seconds after the last one,
//! `PERIODICITY p` (or a `<trace periodicity>`) every `p` seconds. So
//! event `i` of a looping profile is at `t_i + k P` for `k = 0, 1, ...`,
//! with `P = t_last + d` or `P = p`. Before the first event the resource
//! keeps its declared value. Stochastic profiles (`STOCHASTIC`, laws
//! `NORM`, `UNIF`, `EXP`, `DET`) are refused: their instants are random.
//! Every error names `file:line`.
//!
//! A speed profile's values scale the host's speed (SimGrid's
//! `speed_.scale`); [`Profile::end_of_work`] integrates a computation
//! over them. A state profile turns the resource off where its value is
//! 0 or less; bandwidth and latency profiles give the new value itself.

use crate::file::MachineFileError;
use sim_core::Time;

/// The most events one profile may hold (a bound on what a file can
/// make netsim allocate).
pub const MAX_PROFILE_EVENTS: usize = 1 << 20;

/// A piecewise-constant value over simulated time.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// `(time [s], value)`, times non-decreasing and at least 0; never
    /// empty.
    events: Vec<(f64, f64)>,
    /// The period \[s\] after which the events repeat; `None`: once.
    period: Option<f64>,
}

impl Profile {
    /// Reads profile text; `file` names it in errors, `first_line` is
    /// the line of `text`'s first line in that file (1 for a file, the
    /// line of a `<trace>` for inline text), `periodicity` a
    /// `<trace periodicity>` (0 or less: none).
    pub fn parse(
        file: &str,
        first_line: usize,
        text: &str,
        periodicity: f64,
    ) -> Result<Profile, MachineFileError> {
        let err = |line: usize, msg: String| MachineFileError {
            file: file.into(),
            line: Some(line),
            msg,
        };
        let mut events: Vec<(f64, f64)> = Vec::new();
        let (mut period, mut loop_after) = (None, None);
        if periodicity > 0.0 {
            period = Some((periodicity, first_line));
        }
        let mut last_line = first_line;
        for (i, raw) in text.lines().enumerate() {
            let ln = first_line + i;
            last_line = ln;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let number = |w: &str, what: &str| {
                w.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| err(ln, format!("{what} `{w}`: expected a number")))
            };
            match words[0] {
                "PERIODICITY" | "LOOPAFTER" => {
                    let [kw, v] = words[..] else {
                        return Err(err(
                            ln,
                            format!("`{line}`: expected `{} <seconds>`", words[0]),
                        ));
                    };
                    let v = number(v, kw)?;
                    if v < 0.0 {
                        return Err(err(ln, format!("{kw} {v}: a delay of 0 or more seconds")));
                    }
                    if kw == "LOOPAFTER" {
                        loop_after = Some((v, ln));
                    } else {
                        period = Some((v, ln));
                    }
                }
                "STOCHASTIC" | "DET" | "NORM" | "NORMAL" | "GAUSS" | "GAUSSIAN" | "EXP"
                | "EXPONENTIAL" | "UNIF" | "UNIFORM" => {
                    return Err(err(
                        ln,
                        format!(
                            "`{}`: a stochastic profile draws its instants and values at random; netsim reads deterministic `time value` lines only",
                            words[0]
                        ),
                    ));
                }
                _ => {
                    let [t, v] = words[..] else {
                        return Err(err(ln, format!("`{line}`: expected `<time> <value>`")));
                    };
                    let (t, v) = (number(t, "time")?, number(v, "value")?);
                    if t < 0.0 {
                        return Err(err(ln, format!("time {t}: negative")));
                    }
                    if let Some(&(last, _)) = events.last() {
                        if t < last {
                            return Err(err(
                                ln,
                                format!(
                                    "time {t} before the previous event's {last}: events must be sorted"
                                ),
                            ));
                        }
                    }
                    if events.len() == MAX_PROFILE_EVENTS {
                        return Err(err(
                            ln,
                            format!("more than {MAX_PROFILE_EVENTS} events (MAX_PROFILE_EVENTS)"),
                        ));
                    }
                    events.push((t, v));
                }
            }
        }
        let Some(&(last, _)) = events.last() else {
            return Err(err(
                last_line,
                "the profile has no `<time> <value>` line".into(),
            ));
        };
        let period = match (period, loop_after) {
            (Some((_, a)), Some((_, b))) => {
                return Err(err(
                    a.max(b),
                    "both PERIODICITY and LOOPAFTER: give one".into(),
                ));
            }
            (Some((p, ln)), None) if p < last => {
                return Err(err(
                    ln,
                    format!("PERIODICITY {p} is shorter than the last event's time {last}"),
                ));
            }
            (Some((p, ln)), None) | (None, Some((p, ln))) => {
                let p = if loop_after.is_some() { last + p } else { p };
                if p <= 0.0 {
                    return Err(err(
                        ln,
                        "a loop of 0 s: events at one instant forever".into(),
                    ));
                }
                Some(p)
            }
            (None, None) => None,
        };
        Ok(Profile { events, period })
    }

    /// The value at `t` \[s\] (`before`: the value before the first
    /// event) and the instant of the next event after `t` (infinite if
    /// none).
    fn at(&self, t: f64, before: f64) -> (f64, f64) {
        let t0 = self.events[0].0;
        if t < t0 {
            return (before, t0);
        }
        let (k, u) = match self.period {
            Some(p) => {
                let k = ((t - t0) / p).floor();
                (k, (t - k * p).max(t0))
            }
            None => (0.0, t),
        };
        let i = self.events.partition_point(|e| e.0 <= u) - 1;
        let shift = self.period.map_or(0.0, |p| k * p);
        let next = match (self.events.get(i + 1), self.period) {
            (Some(e), _) => e.0 + shift,
            (None, Some(p)) => t0 + shift + p,
            (None, None) => f64::INFINITY,
        };
        // Rounding can leave `next` at `t` itself; step past it.
        let next = if next <= t {
            t + f64::EPSILON * t.max(1.0)
        } else {
            next
        };
        (self.events[i].1, next)
    }

    /// The events, `(time [s], value)`, of one repetition.
    pub fn events(&self) -> &[(f64, f64)] {
        &self.events
    }

    /// The period \[s\] after which the events repeat; `None`: once.
    pub fn period(&self) -> Option<f64> {
        self.period
    }

    /// The first instant \[s\] at which the value satisfies `changed`
    /// (values before the first event do not count); `None` if never.
    /// The events of every repetition are those of the first.
    pub fn first(&self, changed: impl Fn(f64) -> bool) -> Option<f64> {
        self.events.iter().find(|e| changed(e.1)).map(|e| e.0)
    }

    /// Whether a speed scale of this profile lets work progress forever:
    /// no negative value, and not 0 from some instant on.
    pub fn keeps_computing(&self) -> bool {
        let last = self.events.last().map_or(1.0, |e| e.1);
        self.events.iter().all(|e| e.1 >= 0.0)
            && match self.period {
                None => last > 0.0,
                Some(_) => self.events.iter().any(|e| e.1 > 0.0),
            }
    }

    /// When work started at `start` ends: `work` is its duration at the
    /// declared speed, and this profile scales that speed (1 before the
    /// first event). Integrates the scale piece by piece, skipping whole
    /// periods; `None` if it never ends (see [`Profile::keeps_computing`]),
    /// ends after `Time::MAX`, or the profile's numbers are too far apart
    /// for double precision to step through (a period's work of 0).
    pub fn end_of_work(&self, start: Time, work: Time) -> Option<Time> {
        let mut left = work.as_secs_f64();
        let mut t = start.as_secs_f64();
        let t0 = self.events[0].0;
        // Pieces visited: the events once, then at most three periods
        // after a skip; more means double precision cannot step.
        let mut budget = 4 * self.events.len() + 64;
        // The work of one whole period, from `t0`.
        let per_period = match self.period {
            None => None,
            Some(p) => {
                let mut w = 0.0;
                let mut u = t0;
                while u < t0 + p {
                    let (v, next) = self.at(u, 1.0);
                    w += v * (next.min(t0 + p) - u);
                    u = next;
                    budget = budget.checked_sub(1)?;
                }
                Some((p, w))
            }
        };
        while left > 0.0 {
            budget = budget.checked_sub(1)?;
            if let Some((p, w)) = per_period {
                if t >= t0 && w <= 0.0 {
                    return None;
                }
                if t >= t0 && left > 2.0 * w {
                    let k = (left / w).floor() - 1.0;
                    t += k * p;
                    left -= k * w;
                }
            }
            let (v, next) = self.at(t, 1.0);
            if v > 0.0 && v * (next - t) >= left {
                t += left / v;
                break;
            }
            if next.is_infinite() {
                return None;
            }
            left -= v.max(0.0) * (next - t);
            t = next;
        }
        let end = Time::try_from_secs_f64(t)?;
        Some(end.max(start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Profile {
        Profile::parse("x.profile", 1, text, -1.0).unwrap()
    }
    fn e(text: &str) -> String {
        Profile::parse("x.profile", 1, text, -1.0)
            .unwrap_err()
            .to_string()
    }
    fn secs(s: f64) -> Time {
        Time::try_from_secs_f64(s).unwrap()
    }

    #[test]
    fn reads_simgrid_profiles() {
        let j = p("0 0.5\n2 1.0\n4 0.7\n6 0.1\n8 4\nLOOPAFTER 10");
        assert_eq!(j.events.len(), 5);
        // LOOPAFTER 10 after the last event at 8: a period of 18 s.
        assert_eq!(j.period, Some(18.0));
        assert_eq!(j.at(19.0, 1.0), (0.5, 20.0));
        assert_eq!(j.at(17.0, 1.0), (4.0, 18.0));
        let q = Profile::parse("t.xml", 4, "\n    0.0 1.0\n    11.0 0.5\n", 21.0).unwrap();
        assert_eq!(q.period, Some(21.0));
        // Before the first event: the declared value.
        let f = p("% comment\n# another\n1 0\n2 1\n");
        assert_eq!(f.at(0.5, 1.0), (1.0, 1.0));
        assert_eq!(f.first(|v| v <= 0.0), Some(1.0));
        assert_eq!(f.at(5.0, 1.0), (1.0, f64::INFINITY));
    }

    #[test]
    fn bad_profiles_name_file_and_line() {
        assert_eq!(e("0 1\n\n3"), "x.profile:3: `3`: expected `<time> <value>`");
        assert_eq!(
            e("2 1\n1 0"),
            "x.profile:2: time 1 before the previous event's 2: events must be sorted"
        );
        assert!(
            e("0 x").starts_with("x.profile:1: value `x`"),
            "{}",
            e("0 x")
        );
        assert!(e("STOCHASTIC\n").contains("stochastic"));
        assert!(e("-1 2").contains("negative"));
        assert!(e("% nothing\n").starts_with("x.profile:1: the profile has no"));
        assert!(e("0 1\nLOOPAFTER 1\nPERIODICITY 2").contains("both"));
        assert!(e("0 1\n5 1\nPERIODICITY 2").contains("shorter"));
        assert!(e("0 1\nLOOPAFTER 0").contains("a loop of 0 s"));
        assert!(e("0 1 2").contains("expected `<time> <value>`"));
        assert!(e("0 inf").contains("expected a number"));
    }

    #[test]
    fn work_across_a_speed_step() {
        // 1 s of work at the declared speed, from t = 1 s, with the
        // speed halved at 1.5 s: 0.5 s at full speed, then 0.5 s of work
        // at half speed takes 1 s: ends at 2.5 s.
        let h = p("1.5 0.5\n");
        assert_eq!(h.end_of_work(secs(1.0), secs(1.0)), Some(secs(2.5)));
        // Ending exactly at the step.
        assert_eq!(h.end_of_work(secs(1.0), secs(0.5)), Some(secs(1.5)));
        // Off (speed 0) from 1 s to 2 s: 1.5 s of work from 0 ends at
        // 2.5 s.
        let off = p("1 0\n2 1\n");
        assert_eq!(off.end_of_work(Time::ZERO, secs(1.5)), Some(secs(2.5)));
        // Zero from 1 s on: never ends.
        let dead = p("1 0\n");
        assert!(!dead.keeps_computing());
        assert_eq!(dead.end_of_work(Time::ZERO, secs(2.0)), None);
        assert_eq!(dead.end_of_work(Time::ZERO, secs(0.25)), Some(secs(0.25)));
    }

    #[test]
    fn periodic_work_skips_whole_periods() {
        // Scale 1 on [0, 1), 3 on [1, 2), repeating every 2 s: 4 s of
        // work per period. 1000 s of work from 0: 250 periods.
        let r = p("0 1\n1 3\nPERIODICITY 2\n");
        assert_eq!(r.end_of_work(Time::ZERO, secs(1000.0)), Some(secs(500.0)));
        // 2 s of work from 0.5: 0.5 (to 1 s) + 1.5 at scale 3 (0.5 s).
        assert_eq!(r.end_of_work(secs(0.5), secs(2.0)), Some(secs(1.5)));
        // The same, done piece by piece without the skip.
        let mut t = Time::ZERO;
        for _ in 0..250 {
            t = r.end_of_work(t, secs(4.0)).unwrap();
        }
        assert_eq!(t, secs(500.0));
        // A period whose work underflows to 0: never, at once.
        let tiny = Profile::parse("x", 1, "0 1e-300\n1e-300 0\n", 1e-290).unwrap();
        assert!(tiny.keeps_computing());
        assert_eq!(tiny.end_of_work(Time::ZERO, secs(25.5)), None);
    }
}
