//! The classic hold model, the standard benchmark of pending-event sets
//! (Vaucher and Duval, CACM 1975; Jones, CACM 1986): `n` events are
//! pending; handling one schedules one more at `now + X` with `X`
//! exponentially distributed, so the queue size stays at `n`. Used by
//! `netsim bench engine`; the model is ordinary engine code, so what it
//! measures is the engine a simulation runs on.

use crate::engine::{Engine, Model, Schedule, Scheduler};
use crate::rng::{RngStreams, SimRng};
use crate::time::Time;
use rand_distr::{Distribution, Exp};

/// Mean of the exponential hold time \[ps\]: 1 us.
pub const MEAN_HOLD_PS: f64 = 1e6;

struct Hold {
    /// Schedule with handles (`schedule_in`) instead of `post_in`.
    handles: bool,
    rng: SimRng,
    exp: Exp<f64>,
    /// Sum of handled payloads, so the work cannot be optimized away and
    /// two runs can be compared for determinism.
    checksum: u64,
}

impl Model for Hold {
    type Event = u64;
    fn handle(&mut self, ev: u64, s: &mut Scheduler<'_, u64>) {
        self.checksum = self
            .checksum
            .wrapping_mul(31)
            .wrapping_add(ev ^ s.now().as_ps());
        let d = Time::from_ps(self.exp.sample(&mut self.rng).ceil() as u64);
        if self.handles {
            s.schedule_in(d, ev.wrapping_add(1));
        } else {
            s.post_in(d, ev.wrapping_add(1));
        }
    }
}

/// What one hold run did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HoldReport {
    /// Pending events held in the queue.
    pub pending: usize,
    /// Events handled in the timed phase.
    pub events: u64,
    /// Wall time of the timed phase \[s\].
    pub wall_secs: f64,
    /// CPU time of this process in the timed phase (s) (user + system,
    /// 10 ms resolution; Linux only): on a shared machine wall time also
    /// counts the time other processes held the core.
    pub cpu_secs: Option<f64>,
    /// Simulated time reached.
    pub sim_end: Time,
    /// Order-sensitive checksum of handled events (equal for equal seeds).
    pub checksum: u64,
}

impl HoldReport {
    /// Handled events per wall-clock second.
    pub fn events_per_sec(&self) -> f64 {
        self.events as f64 / self.wall_secs
    }
    /// Handled events per CPU second of this process.
    pub fn events_per_cpu_sec(&self) -> Option<f64> {
        self.cpu_secs
            .filter(|&c| c > 0.0)
            .map(|c| self.events as f64 / c)
    }
}

/// Fills the queue with `pending` events, then handles `events` more,
/// timing only the second phase. With `handles`, every event is scheduled
/// with a cancellation handle (the indexed heap); without, it is posted
/// (the plain heap). Both give the same event order.
pub fn run_hold(pending: usize, events: u64, seed: u64, handles: bool) -> HoldReport {
    let streams = RngStreams::new(seed);
    let mut model = Hold {
        handles,
        rng: streams.stream("hold"),
        exp: Exp::new(1.0 / MEAN_HOLD_PS).expect("positive rate"),
        checksum: 0,
    };
    let mut engine = Engine::with_queue(crate::queue::EventQueue::with_capacity(pending));
    {
        let mut s = engine.scheduler();
        for i in 0..pending {
            let d = model.exp.sample(&mut model.rng).ceil() as u64;
            if handles {
                s.schedule_at(Time::from_ps(d), i as u64);
            } else {
                s.post_at(Time::from_ps(d), i as u64);
            }
        }
    }
    let cpu0 = process_cpu_secs();
    let start = std::time::Instant::now();
    for _ in 0..events {
        engine.step(&mut model);
    }
    let wall_secs = start.elapsed().as_secs_f64();
    let cpu_secs = cpu0.zip(process_cpu_secs()).map(|(a, b)| b - a);
    HoldReport {
        pending,
        events,
        wall_secs,
        cpu_secs,
        sim_end: engine.now(),
        checksum: model.checksum,
    }
}

/// User plus system CPU time of this process (s), from `/proc/self/stat`
/// (fields 14 and 15, in the kernel's fixed `USER_HZ` = 100 ticks per
/// second); `None` where that file does not exist.
pub fn process_cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces; fields resume after ')'.
    let rest = &s[s.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hold_keeps_size_and_is_deterministic() {
        let a = run_hold(100, 10_000, 7, false);
        let b = run_hold(100, 10_000, 7, false);
        let c = run_hold(100, 10_000, 8, false);
        let h = run_hold(100, 10_000, 7, true);
        assert_eq!(a.checksum, b.checksum);
        assert_eq!(a.checksum, h.checksum, "both heaps give the same order");
        assert_eq!(a.sim_end, b.sim_end);
        assert_ne!(a.checksum, c.checksum);
        // 10 000 holds of mean 1 us spread over 100 parallel chains: about
        // 100 us of simulated time.
        let us = a.sim_end.as_us_f64();
        assert!((80.0..120.0).contains(&us), "{us}");
    }
}
