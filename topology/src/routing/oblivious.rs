//! Torus routings through an intermediate router or in a drawn dimension
//! order, per packet (packet model only), each phase in dimension order
//! with the machine's tie rule at a half-ring tie:
//!
//! | routing | choice at the source router | source |
//! |---|---|---|
//! | O1TURN | one of the 3! dimension orders, uniformly (in 2-D: XY or YX, one half each) | Seo et al., "Near-optimal worst-case throughput routing for two-dimensional mesh networks", ISCA 2005 |
//! | Valiant | an intermediate router, uniformly among all; dimension order to it, then to the destination | Dally & Towles, *Principles and Practices of Interconnection Networks*, Sec. 9.1 |
//! | ROMM | an intermediate router uniformly in the minimal box of source and destination (each coordinate uniformly along the minimal way in its ring); two dimension-order phases | Dally & Towles Sec. 9.2 |
//! | UGAL | a Valiant intermediate, taken only if `(q_v + P) * H_v < (q_m + P) * H_m`: `q` the bytes waiting on the first link of the minimal (`m`) and the Valiant (`v`) route, `H` their hop counts, `P` the packet; ties go minimal | Singh, *Load-Balanced Routing in Interconnection Networks*, PhD thesis, Stanford, 2005 (UGAL) |
//!
//! Draws come from the packet model's named stream `routing.choice`
//! ([`sim_core::RngStreams`]), once per packet at its source router, in
//! event order: deterministic for a seed.

use crate::torus_geom::TorusGeom;
use sim_core::rng::{Rng, SimRng};

/// The six dimension orders, `ORDERS[0]` being x, y, z.
pub const ORDERS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

impl TorusGeom {
    /// The output port (`2 * dim + sign`) at router `g` towards router
    /// `t`, correcting the dimensions in `order`, each the shorter way
    /// (ties by the machine's rule); `None` when `g == t`.
    #[inline]
    pub fn port_towards(&self, g: u32, t: u32, order: [usize; 3]) -> Option<u32> {
        let (a, b) = (self.coords(g), self.coords(t));
        for d in order {
            let (n, plus, tie) = Self::offset(self.dims[d], a[d], b[d]);
            if n > 0 {
                let plus = if tie {
                    self.tie.plus(self.dims[d], a[d])
                } else {
                    plus
                };
                return Some(2 * d as u32 + if plus { 0 } else { 1 });
            }
        }
        None
    }

    /// Router-to-router hops between routers `a` and `b`.
    #[inline]
    pub fn router_hops(&self, a: u32, b: u32) -> u32 {
        let (a, b) = (self.coords(a), self.coords(b));
        (0..3)
            .map(|d| Self::offset(self.dims[d], a[d], b[d]).0)
            .sum()
    }

    /// Number of routers.
    pub fn routers(&self) -> u32 {
        self.dims.iter().product()
    }

    /// A ROMM intermediate between routers `a` and `b`: in each
    /// dimension, a coordinate drawn uniformly among the `n + 1` on the
    /// minimal way (the way dimension order takes at a tie).
    pub fn romm_intermediate(&self, a: u32, b: u32, rng: &mut SimRng) -> u32 {
        let (ca, cb) = (self.coords(a), self.coords(b));
        let mut c = ca;
        for d in 0..3 {
            let k = self.dims[d];
            let (n, plus, tie) = Self::offset(k, ca[d], cb[d]);
            if n == 0 {
                continue;
            }
            let plus = if tie { self.tie.plus(k, ca[d]) } else { plus };
            let r = rng.random_range(0..=n);
            c[d] = if plus {
                (ca[d] + r) % k
            } else {
                (ca[d] + k - r) % k
            };
        }
        self.router_at(c)
    }
}

#[cfg(test)]
mod tests {
    use crate::TorusParams;
    use sim_core::RngStreams;

    #[test]
    fn romm_stays_in_the_minimal_box() {
        let mut p = TorusParams::blue_waters_dims([8, 8, 1]);
        p.nodes_per_router = 1;
        let m = p.build().unwrap();
        let t = m.torus().unwrap();
        let mut rng = RngStreams::new(3).stream("t");
        for (a, b) in [(0u32, 2 + 8 * 3), (9, 7 * 8 + 6), (5, 5)] {
            let h = t.router_hops(a, b);
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..200 {
                let i = t.romm_intermediate(a, b, &mut rng);
                // On a minimal route: the detour costs nothing.
                assert_eq!(t.router_hops(a, i) + t.router_hops(i, b), h);
                seen.insert(i);
            }
            // (dx + 1) * (dy + 1) routers in the box, all drawn.
            let (ca, cb) = (t.coords(a), t.coords(b));
            let side = |d: usize| {
                let f = (cb[d] + 8 - ca[d]) % 8;
                f.min(8 - f) as usize + 1
            };
            assert_eq!(seen.len(), side(0) * side(1), "{a} -> {b}");
        }
    }

    #[test]
    fn any_order_reaches_the_target() {
        let m = TorusParams::blue_waters_dims([4, 3, 2]).build().unwrap();
        let t = m.torus().unwrap();
        for order in super::ORDERS {
            for (a, b) in [(0u32, 23), (5, 17), (11, 11)] {
                let mut g = a;
                let mut hops = 0;
                let first = t.port_towards(a, b, order);
                while let Some(port) = t.port_towards(g, b, order) {
                    let l = t.port_link(g, port).unwrap();
                    g = m.link(l).to - m.nodes();
                    hops += 1;
                }
                assert_eq!(g, b);
                assert_eq!(hops, t.router_hops(a, b));
                // The first dimension corrected is the order's first
                // that differs.
                if let Some(p) = first {
                    let d = (p / 2) as usize;
                    let pos = order.iter().position(|&x| x == d).unwrap();
                    assert!(
                        order[..pos]
                            .iter()
                            .all(|&e| t.coords(a)[e] == t.coords(b)[e])
                    );
                }
            }
        }
    }
}
