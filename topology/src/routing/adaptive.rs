//! Minimal adaptive routing on a torus, per packet (packet model only).
//!
//! The candidates at a router are its *productive* ports: those that
//! shorten the remaining distance, one per dimension still to correct
//! (both ways of a ring at an exact `k / 2` tie). The packet takes the
//! candidate whose output link has the fewest bytes waiting.
//!
//! **Tie rule**: the first in the order +x, -x, +y, -y, +z, -z. With
//! empty queues this is exactly the dimension-order choice, so a lone
//! message follows its dimension-order route and `idle_time` stays exact
//! while no packet of it waits.
//!
//! With backpressure it needs virtual channels: dimension-order escape
//! channels and adaptive ones (Duato's protocol, [`crate::packet::vc`]).
//! Not combined with asymmetric sharing; the configuration check refuses
//! it ([`crate::config`]).

use crate::torus_geom::TorusGeom;

/// Most candidates a router offers (six ports of a 3-D torus router).
pub const MAX_CANDIDATES: usize = 6;

impl TorusGeom {
    /// The productive output links at router vertex `v` towards host
    /// `dst`, in tie-rule order (+x, -x, +y, -y, +z, -z); the ejection
    /// link alone when `dst` is attached here. Writes into `out` and
    /// returns the count (at most 6).
    #[inline]
    pub fn productive_links(&self, v: u32, dst: u32, out: &mut [u32; 6]) -> usize {
        let g = v - self.hosts;
        let (a, b) = (self.coords(g), self.coords(dst / self.per_router));
        let mut n = 0;
        for d in 0..3 {
            let (off, plus, tie) = Self::offset(self.dims[d], a[d], b[d]);
            if off == 0 {
                continue;
            }
            if plus || tie {
                out[n] = self.port_link[g as usize * 6 + 2 * d];
                n += 1;
            }
            if !plus || tie {
                out[n] = self.port_link[g as usize * 6 + 2 * d + 1];
                n += 1;
            }
        }
        if n == 0 {
            out[0] = 2 * dst + 1;
            n = 1;
        }
        n
    }
}

/// Minimal adaptive choice at router vertex `v` for a packet bound to host
/// `dst`: the productive link with the fewest bytes `waiting`, ties to the
/// first in port order. `O(1)` (at most six candidates).
#[inline]
pub fn least_waiting(g: &TorusGeom, v: u32, dst: u32, waiting: impl Fn(u32) -> u64) -> u32 {
    let mut ports = [0u32; MAX_CANDIDATES];
    let n = g.productive_links(v, dst, &mut ports);
    let mut best = ports[0];
    let mut best_q = waiting(best);
    for &l in &ports[1..n] {
        let w = waiting(l);
        if w < best_q {
            best = l;
            best_q = w;
        }
    }
    best
}
