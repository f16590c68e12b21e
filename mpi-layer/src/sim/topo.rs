//! Process topologies (Cartesian, graph, distributed graph) and the
//! neighbour collectives on them, as one round of point-to-point.
//!
//! Topology rules: no constructor reorders ranks (`reorder` is ignored;
//! the standard allows `MPI_Cart_map` to return the calling rank, and no
//! machine-aware remapping is modelled); Cartesian coordinates are
//! row-major; a Cartesian rank's neighbours are, per dimension, the `-1`
//! then the `+1` neighbour (`MPI_Cart_shift` by one), a missing one
//! (non-periodic edge) is `MPI_PROC_NULL`.

use super::control::{Failed, Next, Resume};
use super::{Ev, Sim};
use crate::matching::PostedRecv;
use crate::observe::Observer;
use crate::op::{CommId, OpStream, Origin};
use sim_core::Scheduler;
use topology::Transport;

type Sch<'a, NE> = Scheduler<'a, Ev<NE>>;

/// A communicator's process topology.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) enum Topo {
    #[default]
    None,
    /// A Cartesian grid (row-major ranks).
    Cart { dims: Vec<u32>, periods: Vec<bool> },
    /// `MPI_Graph_create`'s graph.
    Graph { index: Vec<u32>, edges: Vec<u32> },
    /// A distributed graph: (sources, destinations) per rank.
    Dist(Vec<(Vec<u32>, Vec<u32>)>),
}

impl<T: Transport, S: OpStream, O: Observer> Sim<T, S, O> {
    /// A neighbour collective of rank `r` on `comm`: `bytes` to every
    /// out-neighbour (`Err`), or `send[j]` to the `j`-th (`Ok`); one
    /// receive from every in-neighbour; the rank waits for all of them.
    pub(super) fn neighbor(
        &mut self,
        s: &mut Sch<'_, T::Event>,
        r: u32,
        comm: CommId,
        bytes: Result<&Vec<u64>, u64>,
        origin: &Origin,
    ) -> Result<Next, Failed> {
        let (g, me, _) = self.resolve(r, comm, origin)?;
        let Some((sources, dests)) = neighbours(&self.comms[g as usize].topo, me) else {
            return Err(self.fail(
                r,
                origin,
                format!(
                    "a neighbour collective needs a Cartesian or graph communicator; communicator {} has no topology",
                    comm.0
                ),
            ));
        };
        if let Ok(send) = bytes {
            if send.len() != dests.len() {
                return Err(self.fail(
                    r,
                    origin,
                    format!(
                        "{} send counts given for {} out-neighbours",
                        send.len(),
                        dests.len()
                    ),
                ));
            }
        }
        let seq = self.next_coll_seq(r, comm);
        let tag = (((seq as u32) & 0x7ff) << 20) as i32;
        let ctx = 2 * g + 1;
        let n = sources.iter().chain(&dests).flatten().count() as u32;
        if n == 0 {
            return Ok(Next::Continue);
        }
        // Block first: a request may complete while the exchange is posted.
        self.block(r, Resume::Internal, n);
        for src in sources.into_iter().flatten() {
            let req = self.internal_req(r);
            let p = PostedRecv {
                ctx,
                src: Some(self.member(g, src)),
                tag: Some(tag),
                req,
            };
            self.post_recv(s, r, p, false, 0);
        }
        for (j, dst) in dests.into_iter().enumerate() {
            let Some(dst) = dst else { continue };
            let b = match bytes {
                Ok(send) => send[j],
                Err(b) => b,
            };
            let req = self.internal_req(r);
            let peer = self.member(g, dst);
            self.post_send(s, r, peer, ctx, tag, b, req, false, (0, 0));
        }
        Ok(Next::Blocked)
    }
}

/// In- and out-neighbours of rank `me` (`None`: `MPI_PROC_NULL`), or
/// `None` without a topology.
#[allow(clippy::type_complexity)]
fn neighbours(topo: &Topo, me: u32) -> Option<(Vec<Option<u32>>, Vec<Option<u32>>)> {
    match topo {
        Topo::None => None,
        Topo::Cart { dims, periods } => {
            let coords = coords_of(dims, me);
            let mut list = Vec::with_capacity(2 * dims.len());
            for d in 0..dims.len() {
                for step in [-1i64, 1] {
                    let c = coords[d] as i64 + step;
                    let n = dims[d] as i64;
                    let c = if (0..n).contains(&c) {
                        Some(c)
                    } else if periods[d] {
                        Some(c.rem_euclid(n))
                    } else {
                        None
                    };
                    list.push(c.map(|c| {
                        let mut at = coords.clone();
                        at[d] = c as u32;
                        rank_of(dims, &at)
                    }));
                }
            }
            Some((list.clone(), list))
        }
        Topo::Graph { index, edges } => {
            let i = me as usize;
            let lo = if i == 0 { 0 } else { index[i - 1] as usize };
            let list: Vec<Option<u32>> = edges[lo..index[i] as usize]
                .iter()
                .map(|&e| Some(e))
                .collect();
            Some((list.clone(), list))
        }
        Topo::Dist(adj) => {
            let (src, dst) = &adj[me as usize];
            Some((
                src.iter().map(|&x| Some(x)).collect(),
                dst.iter().map(|&x| Some(x)).collect(),
            ))
        }
    }
}

/// Row-major coordinates of `rank` in a grid of `dims`.
pub(super) fn coords_of(dims: &[u32], rank: u32) -> Vec<u32> {
    let mut c = vec![0; dims.len()];
    let mut x = rank;
    for d in (0..dims.len()).rev() {
        c[d] = x % dims[d];
        x /= dims[d];
    }
    c
}

/// The rank at `coords` in a grid of `dims` (row-major).
fn rank_of(dims: &[u32], coords: &[u32]) -> u32 {
    dims.iter().zip(coords).fold(0, |a, (&d, &c)| a * d + c)
}
