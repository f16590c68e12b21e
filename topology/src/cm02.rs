//! What a SimGrid platform asks of the flow model: SimGrid's CM02 sharing
//! (Casanova and Marchal, LIP RR-2002-40; SimGrid 3.32
//! `network_cm02.cpp`) and the links whose bandwidth or latency changes
//! during a run.
//!
//! Under CM02 a flow pays its route's latency *first*, then its bytes
//! join the sharing; a saturated link is shared max-min in inverse
//! proportion to each flow's sharing penalty, its route's latency plus
//! `network/weight-S` over each link's bandwidth; a flow is bound by its
//! route's lowest bandwidth when it starts and by the TCP window over
//! twice its route's latency. The flow model follows this exactly when a
//! machine carries a [`Cm02`] ([`crate::Machine::set_cm02`];
//! `flow/cm02.rs`). A platform import sets one where netsim's own
//! sharing (equal shares, latency after the bytes) can give another
//! answer: routes of different penalties through one link, SMPI's size
//! factors, or a link profile.

use crate::platform::Profile;
use crate::transport::LinkId;
use sim_core::{Bandwidth, Time};

/// CM02's sharing for one machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Cm02 {
    /// `network/weight-S` \[bytes\]: 0 under CM02, 8775 under SimGrid's
    /// `SMPI` network model.
    pub weight_s: f64,
    /// Links at least this fast are netsim's stand-ins for what SimGrid
    /// does not have (a host's cable to its switch): no weight-S term.
    pub stand_in: Bandwidth,
    /// The links whose bandwidth or latency follows a profile.
    pub profiles: Vec<LinkProfile>,
}

impl std::fmt::Display for Cm02 {
    /// One line for a run report.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SimGrid's CM02 sharing: a flow pays its route's latency, then shares each link in inverse proportion to its penalty (route latency"
        )?;
        if self.weight_s > 0.0 {
            write!(f, " + {} B over each link's bandwidth", self.weight_s)?;
        }
        write!(f, ")")?;
        if !self.profiles.is_empty() {
            let names: Vec<&str> = self.profiles.iter().map(|p| p.name.as_str()).collect();
            write!(f, "; link profiles followed: `{}`", names.join("`, `"))?;
        }
        Ok(())
    }
}

/// A SimGrid link whose bandwidth or latency follows a profile
/// (`bandwidth_file`, `latency_file`, `<trace_connect kind="BANDWIDTH">`
/// or `"LATENCY"`).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkProfile {
    /// The link's id in the platform file.
    pub name: String,
    /// The machine links it became (both halves of a SPLITDUPLEX link).
    pub links: Vec<LinkId>,
    /// Its declared bandwidth, the value before the profile's first event.
    pub bandwidth: Bandwidth,
    /// Its declared latency.
    pub latency: Time,
    /// Its bandwidth over time \[bytes/s\], if it changes.
    pub bandwidth_steps: Option<Steps>,
    /// Its latency over time \[s\], if it changes.
    pub latency_steps: Option<Steps>,
}

impl LinkProfile {
    /// The link's bandwidth and latency at `now`, and the instant of the
    /// next change after `now` (`None`: none, or beyond `Time::MAX`).
    pub fn at(&self, now: Time) -> (Bandwidth, Time, Option<Time>) {
        let mut next: Option<u64> = None;
        let mut soonest = |n: Option<u64>| {
            if let Some(n) = n {
                next = Some(next.map_or(n, |m| m.min(n)));
            }
        };
        let mut bw = self.bandwidth;
        if let Some(p) = &self.bandwidth_steps {
            let (v, n) = p.at(now.as_ps(), self.bandwidth.as_f64());
            bw = Bandwidth::try_bytes_per_sec_f64(v).unwrap_or(self.bandwidth);
            soonest(n);
        }
        let mut lat = self.latency;
        if let Some(p) = &self.latency_steps {
            let (v, n) = p.at(now.as_ps(), self.latency.as_secs_f64());
            lat = Time::try_from_secs_f64(v).unwrap_or(self.latency);
            soonest(n);
        }
        (bw, lat, next.map(Time::from_ps))
    }
}

/// A [`Profile`] on whole picoseconds: its event instants and period
/// rounded once to the picosecond, so that every repetition's instants
/// are exact (in seconds, `t_i + k P` rounds differently from one
/// repetition to the next and can fall a hair before the instant it
/// names).
#[derive(Clone, Debug, PartialEq)]
pub struct Steps {
    /// `(time [ps], value)`, times non-decreasing; never empty.
    events: Vec<(u64, f64)>,
    /// The period \[ps\], longer than the events' span; `None`: once.
    period: Option<u64>,
}

impl Steps {
    /// `p` on picoseconds; `None` if an instant is beyond `Time::MAX`.
    pub fn new(p: &Profile) -> Option<Steps> {
        let events = p
            .events()
            .iter()
            .map(|&(t, v)| Time::try_from_secs_f64(t).map(|t| (t.as_ps(), v)))
            .collect::<Option<Vec<_>>>()?;
        let span = events.last()?.0 - events[0].0;
        let period = match p.period() {
            None => None,
            Some(s) => Some(Time::try_from_secs_f64(s)?.as_ps().max(span + 1)),
        };
        Some(Steps { events, period })
    }

    /// Every value, in one repetition.
    pub fn values(&self) -> impl Iterator<Item = f64> + '_ {
        self.events.iter().map(|e| e.1)
    }

    /// The value at `t` \[ps\] (`before`: before the first event) and
    /// the instant of the next event after `t`, if any.
    pub fn at(&self, t: u64, before: f64) -> (f64, Option<u64>) {
        let t0 = self.events[0].0;
        if t < t0 {
            return (before, Some(t0));
        }
        let (shift, u) = match self.period {
            Some(p) => {
                let shift = (t - t0) / p * p;
                (shift, t - shift)
            }
            None => (0, t),
        };
        let i = self.events.partition_point(|e| e.0 <= u) - 1;
        let next = match (self.events.get(i + 1), self.period) {
            (Some(e), _) => e.0.checked_add(shift),
            (None, Some(p)) => t0.checked_add(shift).and_then(|x| x.checked_add(p)),
            (None, None) => None,
        };
        (self.events[i].1, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(text: &str) -> Steps {
        Steps::new(&Profile::parse("x", 1, text, -1.0).unwrap()).unwrap()
    }
    const S: u64 = 1_000_000_000_000;

    #[test]
    fn repeated_instants_are_exact() {
        // Events at 0.25 and 0.3 s, then every 0.55 s: in seconds
        // 0.85 - 0.55 lands below 0.3 and the change at 0.85 s was lost.
        let p = steps("0.25 0.002\n0.3 0.01\nLOOPAFTER 0.25\n");
        assert_eq!(p.at(0, 0.5), (0.5, Some(S / 4)));
        assert_eq!(p.at(S / 4, 0.5), (0.002, Some(3 * S / 10)));
        assert_eq!(p.at(8 * S / 10, 0.5), (0.002, Some(85 * S / 100)));
        assert_eq!(p.at(85 * S / 100, 0.5), (0.01, Some(S + 35 * S / 100)));
        // A thousand periods on, still exact.
        let k = 1000 * 55 * S / 100;
        assert_eq!(p.at(k + 3 * S / 10, 0.5), (0.01, Some(k + 8 * S / 10)));
        // Once: nothing after the last event.
        assert_eq!(steps("1 5\n").at(2 * S, 0.0), (5.0, None));
    }
}
