//! Routing: which link a packet or flow takes next, as an explicit
//! deterministic function per topology with a stated tie rule.
//!
//! A machine's [`Router`] answers `next_link(v, dst)` at a router or
//! switch `v` for destination host `dst` (a host's first hop is always
//! its own cable, which [`crate::Machine::next_link`] takes before asking
//! the router). Every transport uses it: the flow model for a flow's one
//! path, the packet model hop by hop, and the closed forms of
//! `idle_time`. It is `O(1)` and never searches the graph.
//!
//! | routing | where | tie rule |
//! |---|---|---|
//! | dimension order (torus) | [`dimension_order`] | x, then y, then z, each the shorter way round its ring; at an exact half-ring tie the positive way (+x, +y, +z), or as the machine's `TieRule` says (always negative; SimGrid's: positive except from coordinate k/2) |
//! | minimal adaptive (torus, packet model) | [`adaptive`] | among the productive ports the output link with the fewest bytes waiting; ties to the first of +x, -x, +y, -y, +z, -z (with empty queues: the dimension-order port) |
//! | O1TURN, Valiant, ROMM, UGAL (torus, packet model) | [`oblivious`] | a draw per packet at its source router from a named stream (an order, an intermediate router); each phase dimension order with the machine's tie rule; UGAL's queue comparison ties to the minimal route |
//! | D-mod-k (SimGrid `FAT_TREE`, `routing = "dmodk"`) | [`fat_tree`] | up-port `floor(d / (w0 ... w(l-1))) mod w(l)` at level `l` for destination `d`; no tie |
//! | ECMP, random (SimGrid `FAT_TREE`, `routing = "ecmp"`, `"random"`) | [`fat_tree`] | up-port `mix(key, s, d, l) mod w(l)`, the key fixed (ECMP) or drawn from stream `routing.choice` (random); no tie |
//! | NCA (SimGrid `FAT_TREE`, `routing = "nca"`, packet model) | [`fat_tree`] | up-port uniform in `0..w(l)`, drawn per packet at every switch on the way up from stream `routing.choice` ([`fat_tree::UpPorts`]); down by the table; no tie |
//! | table (Ethernet, InfiniBand, machine files) | [`table`] | a shortest path in links; among equals the lowest link id |
//!
//! Minimal adaptive routing and the routings of [`oblivious`] are choices
//! of the packet model per packet ([`crate::RouteMode`]): they need the
//! queues or per-packet state (an order, an intermediate), which only the
//! transport has, so they are functions over the router's geometry
//! ([`adaptive::least_waiting`], [`TorusGeom::port_towards`]) rather than
//! a [`Router`]. The flow model and `idle_time` route by the machine's
//! [`Router`] (dimension order on a torus).
//!
//! # Adding a routing
//!
//! A new deterministic routing is a variant of [`Router`] holding what it
//! needs (geometry, tables) and an arm in [`Router::next_link`]; its
//! module states its tie rule, and the topology family that uses it
//! passes it to the machine builder. A routing that needs the source as
//! well (ECMP, random on a fat tree: [`fat_tree::Spread`]) answers
//! through [`crate::Machine::next_link_from`], so that a flow and a
//! message's packets keep one path. A per-packet routing through an intermediate or in a drawn
//! order keeps its state in the packet model's packet and asks the
//! geometry for the port towards the current target ([`oblivious`]);
//! in the flow model it would route a flow the same way once (not yet
//! done: the configuration check refuses it). Tests compare routes with
//! the graph's breadth-first distances
//! ([`crate::Machine::bfs_distances`]), the slow reference.

pub mod adaptive;
pub mod dimension_order;
pub mod fat_tree;
pub mod oblivious;
pub mod table;

pub use table::NextHopTable;

use crate::torus_geom::TorusGeom;
use crate::transport::LinkId;

/// A machine's deterministic routing. See the module docs for each
/// variant's tie rule.
#[derive(Clone, Debug)]
pub enum Router {
    /// Dimension order on a torus, computed from its geometry (which
    /// [`crate::Machine::torus`] lends out).
    DimensionOrder(TorusGeom),
    /// Shortest paths from a next-hop table.
    Table(NextHopTable),
    /// A fat tree's shortest-path table, with the shape that
    /// [`fat_tree`]'s D-mod-k table is computed from.
    FatTree(NextHopTable, fat_tree::FatTreeShape),
    /// A fat tree under `ecmp` or `random`: the up-link a function of
    /// (source, destination), [`crate::Machine::next_link_from`];
    /// [`Router::next_link`] gives the default route.
    Spread(Box<fat_tree::Spread>),
}

impl Router {
    /// The link router or switch vertex `v` takes towards host `dst`
    /// (`v` is not a host; `v != dst`). `O(1)`.
    #[inline]
    pub fn next_link(&self, v: u32, dst: u32) -> LinkId {
        match self {
            Router::DimensionOrder(t) => LinkId(t.dor_next(v, dst)),
            Router::Table(t) | Router::FatTree(t, _) => t.next_link(v, dst),
            Router::Spread(s) => s.default_link(v, dst),
        }
    }

    /// The torus geometry, if the router routes on one.
    pub fn torus(&self) -> Option<&TorusGeom> {
        match self {
            Router::DimensionOrder(t) => Some(t),
            Router::Table(_) | Router::FatTree(..) | Router::Spread(_) => None,
        }
    }
}
