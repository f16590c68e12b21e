//! Models of Bienz, Gropp and Olson, "Improving Performance Models for
//! Irregular Point-to-Point Communication", EuroMPI'18
//! (`seeds/000_57fb22f3d7d3e7b5.txt`).
//!
//! All functions return seconds as `f64`; inputs use the simulator's own
//! types ([`Time`], [`Bandwidth`]) for the parameters it is configured
//! with, so a preset feeds both the simulator and its model.

use sim_core::{Bandwidth, Time};

/// Postal model, eq. 1: `T = alpha + s / R_b` \[s\] for one message of `s`
/// bytes (`beta = 1 / R_b`).
pub fn postal(alpha: Time, r_b: Bandwidth, s: u64) -> f64 {
    alpha.as_secs_f64() + s as f64 / r_b.as_f64()
}

/// Max-rate model, eq. 2: `T = alpha + ppn s / min(R_N, ppn R_b)` \[s\],
/// where `ppn` processes of a node each send `s` bytes at once and the
/// node injects at most `R_N` bytes/s (`None` = unlimited, the "inf" of
/// Table 1 for short and eager messages).
pub fn max_rate(alpha: Time, r_b: Bandwidth, r_n: Option<Bandwidth>, ppn: u32, s: u64) -> f64 {
    let ppn = ppn.max(1) as f64;
    let link = ppn * r_b.as_f64();
    let rate = r_n.map_or(link, |rn| rn.as_f64().min(link));
    alpha.as_secs_f64() + ppn * s as f64 / rate
}

/// The injection limit `R_N` of Table 1 by protocol: Blue Waters' 6.6e9
/// B/s for rendezvous, none ("inf") for short and eager.
pub fn table1_r_n(proto: mpi_layer::Protocol) -> Option<Bandwidth> {
    (proto == mpi_layer::Protocol::Rendezvous)
        .then(|| Bandwidth::bytes_per_sec(mpi_layer::params::BLUE_WATERS_R_N))
}

/// Queue search upper bound, eq. 3: `T_q = gamma n^2` \[s\] for `n` messages
/// whose receives are posted in the reverse of arrival order (`gamma` \[s\]
/// per element visited; 8.4e-9 s on Blue Waters, eq. 4).
pub fn queue_search(gamma: Time, n: u64) -> f64 {
    gamma.as_secs_f64() * (n as f64) * (n as f64)
}

/// The exact number of queue elements visited by `n` messages received in
/// the reverse of posting order: each arrival scans the whole remaining
/// posted-receive queue, `n + (n-1) + ... + 1 = n (n + 1) / 2` (Section 5:
/// "the upper bound assumes the n (n+1) / 2 elements are searched").
pub fn reversed_search_elements(n: u64) -> u64 {
    n * (n + 1) / 2
}

/// The measured variant of Section 5: the largest per-process search cost
/// in the AMG runs was "consistently around n n / 3" elements, so
/// `T_q = gamma n^2 / 3` \[s\].
pub fn queue_search_measured(gamma: Time, n: u64) -> f64 {
    queue_search(gamma, n) / 3.0
}

/// Bytes crossing each link, eq. 7: `l = 2 h^3 b ppn`, with `h` the average
/// hop count per byte, `b` the average bytes sent per process and `ppn`
/// processes per node (assumes a cube partition, Fig. 8).
pub fn contention_bytes(h: f64, b: f64, ppn: u32) -> f64 {
    2.0 * h.powi(3) * b * ppn as f64
}

/// Contention penalty, eq. 5: `T_c = delta l` \[s\] with `delta` [s/B] the
/// per-byte wait for a link (1.0e-10 s/B on Blue Waters, eq. 6) and `l`
/// from [`contention_bytes`].
pub fn contention(delta_s_per_byte: f64, h: f64, b: f64, ppn: u32) -> f64 {
    delta_s_per_byte * contention_bytes(h, b, ppn)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bw(x: u64) -> Bandwidth {
        Bandwidth::bytes_per_sec(x)
    }

    #[test]
    fn postal_and_max_rate_by_hand() {
        // Table 1, inter-node rendezvous: alpha 3.0e-6 s, R_b 2.9e9 B/s,
        // R_N 6.6e9 B/s. One 1 MB message: 3e-6 + 1e6 / 2.9e9.
        let a = Time::from_secs_f64(3.0e-6);
        let t = postal(a, bw(2_900_000_000), 1_000_000);
        assert!((t - (3.0e-6 + 1e6 / 2.9e9)).abs() < 1e-15);
        // ppn = 1: max-rate is postal.
        assert_eq!(
            max_rate(a, bw(2_900_000_000), Some(bw(6_600_000_000)), 1, 1_000_000),
            t
        );
        // ppn = 4: 4 R_b = 11.6e9 > R_N, so the node limits: 3e-6 + 4e6 / 6.6e9.
        let t4 = max_rate(a, bw(2_900_000_000), Some(bw(6_600_000_000)), 4, 1_000_000);
        assert!((t4 - (3.0e-6 + 4e6 / 6.6e9)).abs() < 1e-15);
        // No injection limit: ppn cancels.
        assert_eq!(max_rate(a, bw(2_900_000_000), None, 4, 1_000_000), t);
    }

    #[test]
    fn queue_search_and_contention_by_hand() {
        let g = Time::from_secs_f64(8.4e-9);
        assert!((queue_search(g, 100) - 8.4e-5).abs() < 1e-18);
        assert!((queue_search_measured(g, 100) - 2.8e-5).abs() < 1e-18);
        assert_eq!(reversed_search_elements(4), 10);
        // h = 2, b = 1000 B, ppn = 16: l = 2 * 8 * 1000 * 16 = 256 000 B.
        assert_eq!(contention_bytes(2.0, 1000.0, 16), 256_000.0);
        assert!((contention(1.0e-10, 2.0, 1000.0, 16) - 2.56e-5).abs() < 1e-18);
    }
}
