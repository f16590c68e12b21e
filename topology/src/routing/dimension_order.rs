//! Dimension-order routing on a torus: correct x first, then y, then z,
//! each the shorter way around its ring.
//!
//! **Tie rule**: when both ways around a ring are equally long (an offset
//! of exactly `k / 2` on a ring of even size `k`), go the positive way
//! (+x, +y, +z) by default; the machine's [`crate::TieRule`] (scenario
//! `machine.tie`) may say always negative, or SimGrid's rule (positive
//! except from coordinate `k / 2`). The ring distances and the tie are
//! [`TorusGeom`]'s (`offset`); this module turns them into ports.
//!
//! Deterministic and minimal; the torus machine's route for every
//! transport (the flow model's one path per flow, `idle_time`, the packet
//! model unless adaptive routing is on). Deadlock-free with bubble flow
//! control ([`crate::packet`], backpressure) or with two virtual channels
//! split at a dateline per ring ([`crate::packet::vc`]).

use crate::torus_geom::TorusGeom;

impl TorusGeom {
    /// Dimension-order output port (`2 * dim + sign`) at router index `g`
    /// towards host `dst`, or `None` when `dst` is attached to `g`.
    #[inline]
    pub fn dor_port(&self, g: u32, dst: u32) -> Option<u32> {
        let (a, b) = (self.coords(g), self.coords(dst / self.per_router));
        for d in 0..3 {
            let (n, plus, tie) = Self::offset(self.dims[d], a[d], b[d]);
            let plus = if tie {
                self.tie.plus(self.dims[d], a[d])
            } else {
                plus
            };
            if n > 0 {
                return Some(2 * d as u32 + if plus { 0 } else { 1 });
            }
        }
        None
    }

    /// Next link from router vertex `v` towards host `dst` by dimension
    /// order: a router link, or the ejection link of `dst` at its router.
    #[inline]
    pub(crate) fn dor_next(&self, v: u32, dst: u32) -> u32 {
        let g = v - self.hosts;
        match self.dor_port(g, dst) {
            Some(p) => self.port_link[(g * 6 + p) as usize],
            // Ejection link of `dst`: cable `dst` is the host's, reverse id.
            None => 2 * dst + 1,
        }
    }
}
