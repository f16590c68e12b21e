//! LogP (Culler et al., 1993), LogGP (Alexandrov et al., 1995) and LogGPS
//! (Ino et al., 2001), as Hoefler et al. use them
//! (`seeds/002_319ed734da42b9be.txt`, Section 3: "the simpler
//! latency-bandwidth model T = alpha + S beta is covered by setting g = 0,
//! beta = G ... and alpha = L + 2o").

/// LogGP parameters, all in seconds (G in seconds per byte).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogGp {
    /// L: wire latency \[s\].
    pub l: f64,
    /// o: per-message CPU overhead at the sender and at the receiver \[s\].
    pub o: f64,
    /// g: minimum gap between consecutive message injections \[s\].
    pub g: f64,
    /// G: gap per byte of a long message [s/B].
    pub big_g: f64,
}

impl LogGp {
    /// The LogGP parameters equivalent to a postal model `alpha + s beta`
    /// (Hoefler et al. Section 3): `L = alpha`, `o = 0`, `g = 0`, `G = beta`.
    pub fn from_postal(alpha: f64, beta: f64) -> Self {
        LogGp {
            l: alpha,
            o: 0.0,
            g: 0.0,
            big_g: beta,
        }
    }

    /// Time \[s\] from the start of a send of `s` bytes to the end of its
    /// receive: `o + (s - 1) G + L + o` (LogGP; `s = 0` and `s = 1` cost
    /// `L + 2o`).
    pub fn ptp(&self, s: u64) -> f64 {
        self.l + 2.0 * self.o + s.saturating_sub(1) as f64 * self.big_g
    }

    /// LogP's time for a small message, `L + 2o` \[s\].
    pub fn logp_ptp(&self) -> f64 {
        self.ptp(1)
    }

    /// Time \[s\] for the sender to inject `k` messages of `s` bytes back to
    /// back: the last starts after `(k - 1) max(g, o + (s-1) G)`.
    pub fn inject_train(&self, k: u64, s: u64) -> f64 {
        if k == 0 {
            return 0.0;
        }
        let per = self.g.max(self.o + s.saturating_sub(1) as f64 * self.big_g);
        (k - 1) as f64 * per + self.ptp(s)
    }

    /// LogGPS: a message longer than `s_threshold` bytes synchronizes with
    /// its receiver first (request-to-send, clear-to-send: two small control
    /// messages of `L + 2o` each), then moves the data.
    pub fn ptp_loggps(&self, s: u64, s_threshold: u64) -> f64 {
        if s > s_threshold {
            2.0 * self.logp_ptp() + self.ptp(s)
        } else {
            self.ptp(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loggp_by_hand() {
        let m = LogGp {
            l: 2e-6,
            o: 1e-6,
            g: 3e-6,
            big_g: 1e-9,
        };
        assert!((m.ptp(1) - 4e-6).abs() < 1e-18);
        assert!((m.ptp(1001) - (4e-6 + 1000e-9)).abs() < 1e-18);
        // Three 1-byte messages: gaps of max(g, o) = 3 us.
        assert!((m.inject_train(3, 1) - (6e-6 + 4e-6)).abs() < 1e-18);
        // Rendezvous adds two control messages.
        assert!((m.ptp_loggps(100_000, 12_288) - (8e-6 + m.ptp(100_000))).abs() < 1e-18);
        assert_eq!(m.ptp_loggps(100, 12_288), m.ptp(100));
        // The postal equivalence.
        let p = LogGp::from_postal(5e-6, 2e-9);
        assert!((p.ptp(1001) - (5e-6 + 2e-6)).abs() < 1e-18);
    }
}
