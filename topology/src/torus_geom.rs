//! The torus's geometry, which its routing and its partitions compute
//! with (Blue Waters' Gemini torus: [`crate::torus`]).
//!
//! Router `g` has coordinates `(x, y, z)` with `g = x + X * (y + Y * z)`;
//! its hosts are `g * nodes_per_router ..`; vertex ids of routers follow
//! the hosts'.

use crate::error::MachineError;
use crate::transport::LinkId;
use crate::transport::NodeId;

/// No link on this port (a ring of size 1).
pub(crate) const NO_LINK: u32 = u32::MAX;

/// A dimension of the torus (`x`, `y`, `z` in files and on the command
/// line).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Dim {
    /// x.
    X,
    /// y.
    Y,
    /// z.
    Z,
}

impl Dim {
    /// The dimensions in order.
    pub const ALL: [Dim; 3] = [Dim::X, Dim::Y, Dim::Z];
    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The neighbour of router `g` one step along dimension `d` (+ or -).
pub(crate) fn step(dims: [u32; 3], g: u32, d: usize, plus: bool) -> u32 {
    let mut c = coords(dims, g);
    let k = dims[d];
    c[d] = if plus {
        (c[d] + 1) % k
    } else {
        (c[d] + k - 1) % k
    };
    c[0] + dims[0] * (c[1] + dims[1] * c[2])
}

#[inline]
fn coords(dims: [u32; 3], g: u32) -> [u32; 3] {
    [
        g % dims[0],
        (g / dims[0]) % dims[1],
        g / (dims[0] * dims[1]),
    ]
}

/// The geometry of a torus machine: router coordinates, the link on each
/// router port, distances around the rings, and partitions. Its routing
/// is in [`crate::routing`]: [`TorusGeom::dor_port`] (dimension order) and
/// [`TorusGeom::productive_links`] (minimal adaptive).
#[derive(Clone, Debug)]
pub struct TorusGeom {
    pub(crate) dims: [u32; 3],
    pub(crate) per_router: u32,
    pub(crate) hosts: u32,
    /// `port_link[g * 6 + 2 * d + s]`: link leaving router `g` along
    /// dimension `d`, `s = 0` positive, `1` negative; `NO_LINK` on a ring of
    /// size 1.
    pub(crate) port_link: Vec<u32>,
    /// Which way dimension order goes at a half-ring tie.
    pub(crate) tie: TieRule,
    /// Every router's coordinates, computed once: a route's every hop
    /// reads two, where computing them took five integer divisions
    /// (`Machine::next_link` had been 6 % of halo27's flow run, P = 4096).
    coord: Vec<[u32; 3]>,
}

/// Which way dimension-order routing goes around a ring of even size `k`
/// when both ways are `k / 2` hops long. The name in scenario files
/// (`machine.tie`) and platform imports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieRule {
    /// Always the positive way (+x, +y, +z): netsim's rule, the default.
    #[default]
    Plus,
    /// Always the negative way (-x, -y, -z).
    Minus,
    /// SimGrid's torus (3.32, `TorusZone::get_local_route`): the
    /// positive way, except from coordinate `k / 2`, which goes the
    /// negative way (its test `a > k / 2` is strict, so the source at
    /// exactly `k / 2` fails both of its positive conditions).
    Simgrid,
    /// The positive way from an even coordinate, the negative way from
    /// an odd one: on a ring whose `k / 2` is even, half of the half-ring
    /// traffic crosses each channel either way, the balanced split Dally
    /// & Towles's channel-load analysis of dimension order assumes
    /// (Sec. 3.3.2).
    Parity,
}

impl TieRule {
    /// Whether a tie at coordinate `a` of a ring of size `k` goes the
    /// positive way.
    #[inline]
    pub fn plus(self, k: u32, a: u32) -> bool {
        match self {
            TieRule::Plus => true,
            TieRule::Minus => false,
            TieRule::Simgrid => a != k / 2,
            TieRule::Parity => a % 2 == 0,
        }
    }
}

impl TorusGeom {
    /// The geometry of a `dims` torus with `per_router` hosts on each
    /// router (`hosts` in all) and the links of `port_link`.
    pub(crate) fn new(
        dims: [u32; 3],
        per_router: u32,
        hosts: u32,
        port_link: Vec<u32>,
        tie: TieRule,
    ) -> Self {
        let coord = (0..dims.iter().product::<u32>())
            .map(|g| coords(dims, g))
            .collect();
        TorusGeom {
            dims,
            per_router,
            hosts,
            port_link,
            tie,
            coord,
        }
    }
    /// Routers per dimension.
    pub fn dims(&self) -> [u32; 3] {
        self.dims
    }
    /// The tie rule of dimension order.
    pub fn tie(&self) -> TieRule {
        self.tie
    }
    /// Hosts per router.
    pub fn nodes_per_router(&self) -> u32 {
        self.per_router
    }
    /// Router index (not vertex id) of `node`.
    #[inline]
    pub fn router_of(&self, node: NodeId) -> u32 {
        node.0 / self.per_router
    }
    /// Coordinates of router index `g`.
    #[inline]
    pub fn coords(&self, g: u32) -> [u32; 3] {
        self.coord[g as usize]
    }
    /// Router index at coordinates `c` (taken modulo the ring sizes).
    #[inline]
    pub fn router_at(&self, c: [u32; 3]) -> u32 {
        let d = self.dims;
        (c[0] % d[0]) + d[0] * ((c[1] % d[1]) + d[1] * (c[2] % d[2]))
    }
    /// The link leaving router index `g` on `port` (`2 * dim + sign`,
    /// sign 0 = positive); `None` on a ring of size 1.
    #[inline]
    pub fn port_link(&self, g: u32, port: u32) -> Option<LinkId> {
        let l = self.port_link[(g * 6 + port) as usize];
        (l != NO_LINK).then_some(LinkId(l))
    }

    /// The shorter way around a ring of size `k` from `a` to `b`:
    /// `(hops, plus, tie)`. `plus` says the positive way is (one of) the
    /// shortest; `tie` marks an offset of exactly `k / 2` on an even ring,
    /// where both ways are shortest: dimension order then goes positive
    /// (`plus` is set), minimal adaptive offers both.
    #[inline]
    pub(crate) fn offset(k: u32, a: u32, b: u32) -> (u32, bool, bool) {
        debug_assert!(a < k && b < k, "coordinates on the ring");
        // `(b + k - a) % k` without a division.
        let fwd = if b >= a { b - a } else { b + k - a };
        let back = k - fwd;
        if fwd == 0 {
            (0, true, false)
        } else if fwd < back {
            (fwd, true, false)
        } else if fwd > back {
            (back, false, false)
        } else {
            (fwd, true, true)
        }
    }

    /// Router-to-router hops between the routers of two nodes (sum over
    /// dimensions of the shorter way around each ring).
    #[inline]
    pub fn hops(&self, src: u32, dst: u32) -> u32 {
        let (a, b) = (
            self.coords(src / self.per_router),
            self.coords(dst / self.per_router),
        );
        (0..3)
            .map(|d| Self::offset(self.dims[d], a[d], b[d]).0)
            .sum()
    }

    /// The nodes of a line of `len` routers starting at `origin` along
    /// dimension `dim` (Bienz et al. Fig. 6: four Geminis in a row),
    /// router by router. Errors if the line does not fit in the ring.
    pub fn line(
        &self,
        origin: [u32; 3],
        dim: usize,
        len: u32,
    ) -> Result<Vec<NodeId>, MachineError> {
        if dim > 2 || len == 0 || len > self.dims[dim] {
            return Err(MachineError::Param {
                name: "line",
                why: format!(
                    "a line of {len} routers along dimension {dim} does not fit in {:?}",
                    self.dims
                ),
            });
        }
        self.check_origin(origin)?;
        let mut out = Vec::new();
        for i in 0..len {
            let mut c = origin;
            c[dim] += i;
            self.push_router_nodes(self.router_at(c), &mut out);
        }
        Ok(out)
    }

    /// The nodes of a cube of `side`^3 routers with corner `origin`
    /// (Bienz et al. Fig. 8), ordered x fastest, then y, then z.
    pub fn cube(&self, origin: [u32; 3], side: u32) -> Result<Vec<NodeId>, MachineError> {
        if side == 0 || self.dims.iter().any(|&k| side > k) {
            return Err(MachineError::Param {
                name: "cube",
                why: format!("a cube of side {side} does not fit in {:?}", self.dims),
            });
        }
        self.check_origin(origin)?;
        let mut out = Vec::new();
        for z in 0..side {
            for y in 0..side {
                for x in 0..side {
                    let c = [origin[0] + x, origin[1] + y, origin[2] + z];
                    self.push_router_nodes(self.router_at(c), &mut out);
                }
            }
        }
        Ok(out)
    }

    /// All nodes of the machine, in order.
    pub fn whole(&self) -> Vec<NodeId> {
        (0..self.hosts).map(NodeId).collect()
    }

    fn check_origin(&self, o: [u32; 3]) -> Result<(), MachineError> {
        if (0..3).any(|d| o[d] >= self.dims[d]) {
            return Err(MachineError::Param {
                name: "origin",
                why: format!("{o:?} lies outside the torus {:?}", self.dims),
            });
        }
        Ok(())
    }

    fn push_router_nodes(&self, g: u32, out: &mut Vec<NodeId>) {
        for i in 0..self.per_router {
            out.push(NodeId(g * self.per_router + i));
        }
    }
}
