//! Where processes run: the node, socket and core of every process, and
//! the locality of a pair (Bienz et al. Table 1 distinguishes intra-socket,
//! intra-node and inter-node parameters).

use crate::transport::NodeId;

/// The location of one process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ProcLoc {
    /// The node.
    pub node: NodeId,
    /// Socket within the node, from zero.
    pub socket: u16,
    /// Core within the node, from zero.
    pub core: u16,
}

/// The locality of two processes, which selects the MPI parameter set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Locality {
    /// Same node, same socket.
    SameSocket,
    /// Same node, different sockets.
    SameNode,
    /// Different nodes: the message crosses the network.
    OtherNode,
}

/// The location of every process, indexed by process number (MPI rank in
/// `MPI_COMM_WORLD`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    locs: Vec<ProcLoc>,
}

impl Placement {
    /// A placement from explicit locations.
    pub fn from_locs(locs: Vec<ProcLoc>) -> Self {
        Placement { locs }
    }

    /// Block mapping: `ppn` consecutive processes per node, filling the
    /// node's `sockets` sockets in order (cores split evenly between them).
    /// `procs` processes in all.
    pub fn block(procs: u32, ppn: u16, sockets: u16) -> Self {
        assert!(ppn > 0 && sockets > 0, "ppn and sockets must be positive");
        let per_socket = ppn.div_ceil(sockets);
        let locs = (0..procs)
            .map(|p| {
                let core = (p % ppn as u32) as u16;
                ProcLoc {
                    node: NodeId(p / ppn as u32),
                    socket: core / per_socket,
                    core,
                }
            })
            .collect();
        Placement { locs }
    }

    /// Number of processes.
    pub fn len(&self) -> usize {
        self.locs.len()
    }

    /// Whether there are no processes.
    pub fn is_empty(&self) -> bool {
        self.locs.is_empty()
    }

    /// Location of process `p`.
    pub fn loc(&self, p: u32) -> ProcLoc {
        self.locs[p as usize]
    }

    /// Node of process `p`.
    pub fn node(&self, p: u32) -> NodeId {
        self.locs[p as usize].node
    }

    /// Locality of processes `a` and `b`.
    pub fn locality(&self, a: u32, b: u32) -> Locality {
        let (x, y) = (self.loc(a), self.loc(b));
        if x.node != y.node {
            Locality::OtherNode
        } else if x.socket != y.socket {
            Locality::SameNode
        } else {
            Locality::SameSocket
        }
    }

    /// Number of distinct nodes used.
    pub fn nodes_used(&self) -> u32 {
        let mut n: Vec<u32> = self.locs.iter().map(|l| l.node.0).collect();
        n.sort_unstable();
        n.dedup();
        n.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_mapping_and_locality() {
        // 16 per node on 2 sockets (Blue Waters XE6 nodes): 8 per socket.
        let p = Placement::block(32, 16, 2);
        assert_eq!(p.node(15), NodeId(0));
        assert_eq!(p.node(16), NodeId(1));
        assert_eq!(p.locality(0, 7), Locality::SameSocket);
        assert_eq!(p.locality(0, 8), Locality::SameNode);
        assert_eq!(p.locality(0, 16), Locality::OtherNode);
        assert_eq!(p.nodes_used(), 2);
    }
}
