//! Models of Hoefler, Gropp, Thakur and Traeff, "Toward Performance Models
//! of MPI Implementations for Understanding Application Scaling Issues",
//! EuroMPI'10 (`seeds/002_319ed734da42b9be.txt`), for IBM Blue Gene/P.
//!
//! Every constant below is the paper's number for BG/P, with the place it
//! is stated. Functions return seconds.

/// Eq. 1 latency terms \[s\] for S <= 256 B, 256 B < S <= 1024 B, S > 1024 B.
pub const BGP_ALPHA_S: [f64; 3] = [4.5e-6, 5.7e-6, 9.8e-6];
/// Eq. 1 switch points \[B\]: the first two pieces end at 256 B and 1024 B.
pub const BGP_SWITCH_BYTES: [u64; 2] = [256, 1024];
/// Eq. 1 inverse bandwidth [s/B]: 2.67 ns/B (1 / 374.5 MB/s).
pub const BGP_BETA_S_PER_B: f64 = 2.67e-9;
/// Worst-case matching cost per queued request \[s\] (Section 3,
/// "T_match(R) <= 100 ns R").
pub const BGP_MATCH_S: f64 = 100e-9;
/// Collective tree start-up alpha_T \[s\] (Section 4, small data).
pub const BGP_TREE_ALPHA_S: f64 = 13e-6;
/// Per-stage cost of the tree broadcast beta_T^BC \[s\] (Section 4).
pub const BGP_TREE_BETA_BCAST_S: f64 = 0.31e-6;
/// Per-stage cost of the tree integer-sum allreduce beta_T^SUM \[s\].
pub const BGP_TREE_BETA_ALLREDUCE_S: f64 = 0.37e-6;
/// Gap per peer of the small-data alltoall g \[s\] (Section 4, P = 32 000).
pub const BGP_A2A_GAP_S: f64 = 0.84e-6;
/// Ratio of large allreduce to large broadcast time (Section 4: "2.68").
pub const BGP_LARGE_ALLREDUCE_FACTOR: f64 = 2.68;
/// Torus links a node injects into at once (six, Section 3 and 4).
pub const BGP_LINKS_PER_NODE: f64 = 6.0;

/// Eq. 1: the piecewise point-to-point time \[s\] of `s` bytes on an idle
/// BG/P torus.
pub fn bgp_ptp(s: u64) -> f64 {
    let alpha = if s <= BGP_SWITCH_BYTES[0] {
        BGP_ALPHA_S[0]
    } else if s <= BGP_SWITCH_BYTES[1] {
        BGP_ALPHA_S[1]
    } else {
        BGP_ALPHA_S[2]
    };
    alpha + BGP_BETA_S_PER_B * s as f64
}

/// Section 3: upper bound of the matching cost with `r` outstanding
/// requests, `T_match(R) <= 100 ns R` \[s\].
pub fn bgp_match_bound(r: u64) -> f64 {
    BGP_MATCH_S * r as f64
}

/// Eq. 2: bounds \[s\] on a message of `s` bytes (> 1024 B) under worst-case
/// congestion on a k-ary 3-cube of `p = k^3` nodes: the idle time (lower)
/// and the time with the bandwidth term multiplied by the per-link
/// congestion `3/2 k` (upper, exclusive).
pub fn bgp_congestion_bounds(s: u64, p: u64) -> (f64, f64) {
    let k = (p as f64).cbrt();
    let lower = BGP_ALPHA_S[2] + BGP_BETA_S_PER_B * s as f64;
    let upper = BGP_ALPHA_S[2] + BGP_BETA_S_PER_B * s as f64 * 1.5 * k;
    (lower, upper)
}

/// The per-link congestion of the worst-case pattern of Section 3 on a
/// k-ary 3-cube (k even): `6 k^3 d_3` link-uses over `6 k^3` links with
/// `d_3 = 3 k / 2`, i.e. `3 k / 2` streams per link.
pub fn worst_case_link_congestion(k: u64) -> f64 {
    1.5 * k as f64
}

/// Small-data tree collective, Section 4: `alpha_T + beta_T log2 P` \[s\]
/// (use [`BGP_TREE_BETA_BCAST_S`] or [`BGP_TREE_BETA_ALLREDUCE_S`]).
pub fn tree_small(alpha_t: f64, beta_t: f64, p: u64) -> f64 {
    alpha_t + beta_t * (p as f64).log2()
}

/// Small-data alltoall, Section 4: `alpha + g (P - 1)` \[s\].
pub fn alltoall_small(alpha: f64, g: f64, p: u64) -> f64 {
    alpha + g * (p.saturating_sub(1)) as f64
}

/// Large-data broadcast, Section 4: `alpha_T + beta_T log2 P + 2.67 ns / 6 * S`
/// \[s\]: the tree term plus `S` bytes streamed over six links at once.
pub fn bcast_large(p: u64, s: u64) -> f64 {
    tree_small(BGP_TREE_ALPHA_S, BGP_TREE_BETA_BCAST_S, p)
        + BGP_BETA_S_PER_B / BGP_LINKS_PER_NODE * s as f64
}

/// Large-data allreduce, Section 4: 2.68 times the large broadcast \[s\].
pub fn allreduce_large(p: u64, s: u64) -> f64 {
    BGP_LARGE_ALLREDUCE_FACTOR * bcast_large(p, s)
}

/// Section 4: the alltoall congestion factor bound on a k^3 torus,
/// `C(P) <= P^(1/3) (P^(1/3)/2 + 1)^3`.
pub fn alltoall_congestion(p: u64) -> f64 {
    let c = (p as f64).cbrt();
    c * (c / 2.0 + 1.0).powi(3)
}

/// Section 4: LogGP alltoall on a torus, `(P - 1) g + S G max((P-1)/6, C(P))`
/// \[s\] for `s` bytes per peer (`g`, `big_g` in s and s/B).
pub fn alltoall_loggp(p: u64, s: u64, g: f64, big_g: f64) -> f64 {
    let pm1 = p.saturating_sub(1) as f64;
    pm1 * g + s as f64 * big_g * (pm1 / BGP_LINKS_PER_NODE).max(alltoall_congestion(p))
}

/// Section 4: lower bound of a bandwidth-bound alltoall on a torus,
/// `g (P - 1) + S G P^(1/3) (P^(1/3)/2 + 1)^3` \[s\].
pub fn alltoall_lower_bound(p: u64, s: u64, g: f64, big_g: f64) -> f64 {
    g * p.saturating_sub(1) as f64 + s as f64 * big_g * alltoall_congestion(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piecewise_eq1() {
        assert!((bgp_ptp(0) - 4.5e-6).abs() < 1e-18);
        assert!((bgp_ptp(256) - (4.5e-6 + 256.0 * 2.67e-9)).abs() < 1e-18);
        assert!((bgp_ptp(257) - (5.7e-6 + 257.0 * 2.67e-9)).abs() < 1e-18);
        assert!((bgp_ptp(1025) - (9.8e-6 + 1025.0 * 2.67e-9)).abs() < 1e-18);
        // Section 3's example: a 27-point stencil traverses 13 requests.
        assert!((bgp_match_bound(13) - 1.3e-6).abs() < 1e-15);
    }

    #[test]
    fn congestion_bounds() {
        // k = 8 (P = 512): congestion 12 streams per link.
        assert_eq!(worst_case_link_congestion(8), 12.0);
        let (lo, hi) = bgp_congestion_bounds(1 << 20, 512);
        assert!((hi - 9.8e-6 - (lo - 9.8e-6) * 12.0).abs() < 1e-12);
        // C(8) = 2 * (1 + 1)^3 = 16.
        assert!((alltoall_congestion(8) - 16.0).abs() < 1e-12);
    }

    #[test]
    fn collective_forms() {
        // P = 32 000 broadcast: 13 us + 0.31 us log2(32 000).
        let t = tree_small(BGP_TREE_ALPHA_S, BGP_TREE_BETA_BCAST_S, 32_000);
        assert!((t - (13e-6 + 0.31e-6 * 32_000f64.log2())).abs() < 1e-15);
        assert!((alltoall_small(5e-6, BGP_A2A_GAP_S, 3) - (5e-6 + 2.0 * 0.84e-6)).abs() < 1e-15);
        assert!(allreduce_large(64, 1 << 20) > bcast_large(64, 1 << 20));
        // The LogGP form is never below the lower bound.
        for p in [8u64, 64, 512, 4096] {
            assert!(
                alltoall_loggp(p, 1024, 1e-6, 2.67e-9)
                    >= alltoall_lower_bound(p, 1024, 1e-6, 2.67e-9)
            );
        }
    }
}
