//! # topology: the machine
//!
//! Hosts (nodes with sockets and cores), routers and switches, directed
//! links, routing, and the transport that moves bytes between node network
//! interfaces. Knows nothing of MPI: no tags, no communicators, no
//! protocols. The MPI layer drives it through [`Transport`].

pub mod ideal;
pub mod placement;
pub mod transport;

pub use ideal::IdealNetwork;
pub use placement::{Locality, Placement, ProcLoc};
pub use transport::{Delivery, NodeId, Transfer, Transport};
