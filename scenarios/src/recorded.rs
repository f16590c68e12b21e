//! Recorded MPI calls and the operations they become, whatever trace
//! format recorded them.
//!
//! A binary trace reader decodes a record, names what it means as a
//! [`RecordedCall`] (handles already read in the format's numbering:
//! [`Comm`], [`Peer`], [`Count`], request handles), and hands it to a
//! [`CallMapper`], which keeps what a rank's replay must remember
//! (persistent requests, the sizes of derived datatypes) and returns the
//! netsim [`Op`]s. DUMPI ([`crate::dumpi`]) and OTF2 ([`crate::otf2`], which
//! reads sizes in bytes: datatype 0 of size 1) produce these calls.
//!
//! # Mapping
//!
//! - Sends (standard, buffered, synchronous, ready) become `Send`, their
//!   nonblocking forms `Isend`; receives `Recv` / `Irecv`; `Sendrecv`
//!   (and `_replace`) `Sendrecv`, or one half when the other peer is
//!   `MPI_PROC_NULL`. Persistent requests (`*_init`) are remembered, and
//!   each `Start` / `Startall` posts them as `Isend` / `Irecv`.
//! - `Wait` -> `Wait`; `Waitall` -> `Waitall` (null requests dropped);
//!   `Waitany` -> `Wait` on the request the trace says completed;
//!   `Waitsome` -> `Waitall` on the requests it completed; `Test` ->
//!   `Test`; `Testany` / `Testsome` / `Testall` -> `Test` on each request
//!   the trace says completed. Replaying the recorded completions keeps
//!   later calls' request arrays consistent with the simulation.
//! - Collectives map one to one; sizes are counts times datatype sizes.
//!   `Gatherv`'s counts (and `Scatterv`'s) are known only at the root:
//!   elsewhere the counts hold the rank's own contribution and zeros.
//!   Collectives on `MPI_COMM_SELF` are local and dropped.
//! - `Comm_dup`, `Comm_split` -> `CommDup`, `CommSplit`; the group calls
//!   (`Comm_group`, `Group_incl` / `excl` / `range_incl` / `range_excl` /
//!   `union` / `intersection` / `difference` / `free`) -> the group
//!   operations (resolved by the MPI layer, which knows the members);
//!   `Comm_create` -> `CommCreate`; `Comm_free` -> `CommFree`;
//!   `Cart_create`, `Cart_sub`, `Graph_create` -> the topology
//!   constructors (never reordered). A new handle of `MPI_COMM_NULL` or
//!   `MPI_GROUP_NULL` names nothing; `MPI_GROUP_EMPTY` is
//!   [`GroupId::EMPTY`](mpi_layer::GroupId::EMPTY). Intercommunicator calls are errors naming the
//!   call. See [`comms`](self) and `docs/DUMPI-COVERAGE.md`.
//! - Derived datatypes record their sizes (the sum over their blocks of
//!   count times the block type's size); a message of a type of unknown
//!   size is an error.
//! - A peer of `MPI_PROC_NULL` makes no operation.
//!
//! Errors are messages without a location: the reader adds its own
//! (file, record, byte offset).

use rustc_hash::FxHashMap;

use mpi_layer::{CommId, Op, Rank, ReqId, Source};

use crate::reader::MAX_TRACE_RANKS;

mod call;
mod comms;
mod error;
pub use call::{Comm, Count, Datatype, Group, Peer, RecordedCall, SetOp};
pub use error::CallError;

/// Turns one rank's recorded calls into operations; see the module docs.
#[derive(Clone, Debug)]
pub struct CallMapper {
    num_ranks: u32,
    /// Sizes of the predefined datatypes, by handle [bytes].
    predefined: Vec<u64>,
    /// Sizes of derived datatypes defined so far [bytes].
    derived: FxHashMap<u16, u64>,
    /// Persistent requests by handle, as the operation `Start` posts.
    persistent: FxHashMap<u64, Op>,
}

impl CallMapper {
    /// A mapper for a rank of a run of `num_ranks` ranks (which bounds the
    /// ranks of `MPI_COMM_WORLD`), with the predefined datatype sizes
    /// `predefined[handle]`.
    pub fn new(num_ranks: u32, predefined: Vec<u64>) -> Self {
        CallMapper {
            num_ranks,
            predefined,
            derived: FxHashMap::default(),
            persistent: FxHashMap::default(),
        }
    }

    /// The size of `d` \[bytes\].
    pub fn size_of(&self, d: Datatype) -> Result<u64, CallError> {
        if let Some(&s) = self.predefined.get(d.0 as usize) {
            return Ok(s);
        }
        self.derived
            .get(&d.0)
            .copied()
            .ok_or(CallError::UnknownDatatype(d.0))
    }

    fn bytes(&self, c: Count) -> Result<u64, CallError> {
        if c.count < 0 {
            return Err(CallError::NegativeCount(c.count));
        }
        let (count, size) = (c.count as u64, self.size_of(c.datatype)?);
        count
            .checked_mul(size)
            .ok_or(CallError::BytesOverflow { count, size })
    }

    fn all_bytes(&self, cs: &[Count]) -> Result<Vec<u64>, CallError> {
        cs.iter().map(|&c| self.bytes(c)).collect()
    }

    /// The communicator of a collective; `None` on `MPI_COMM_SELF`.
    fn coll(c: Comm) -> Option<CommId> {
        match c {
            Comm::SelfOnly => None,
            Comm::Id(id) => Some(id),
        }
    }

    fn p2p(c: Comm) -> Result<CommId, CallError> {
        Self::coll(c).ok_or(CallError::SelfPointToPoint)
    }

    /// The rank of a peer; `None` for `MPI_PROC_NULL` (and for
    /// `MPI_ANY_SOURCE` where a single rank is needed).
    fn rank(&self, p: Peer, comm: CommId) -> Result<Option<Rank>, CallError> {
        match p {
            Peer::Rank(r) if comm == CommId::WORLD && r >= self.num_ranks => {
                Err(CallError::NoRank {
                    rank: r,
                    num_ranks: self.num_ranks,
                })
            }
            Peer::Rank(r) => Ok(Some(r)),
            Peer::Any | Peer::Null => Ok(None),
        }
    }

    fn source(&self, p: Peer, comm: CommId) -> Result<Option<Source>, CallError> {
        match p {
            Peer::Any => Ok(Some(Source::Any)),
            _ => Ok(self.rank(p, comm)?.map(Source::Rank)),
        }
    }

    fn root(&self, r: i64, comm: CommId) -> Result<Rank, CallError> {
        if r < 0 {
            return Err(CallError::InvalidRoot(r));
        }
        self.rank(Peer::Rank(r as Rank), comm)?
            .ok_or(CallError::InvalidRoot(r))
    }

    /// The counts of `Gatherv` / `Scatterv` at rank `rank` of `size`.
    fn v_counts(
        &self,
        rank: i64,
        size: i64,
        own: Count,
        root: Rank,
        at_root: &[Count],
    ) -> Result<Vec<u64>, CallError> {
        if rank == root as i64 {
            return self.all_bytes(at_root);
        }
        // `size` is the record's, so bounded before it sizes an allocation.
        if size > i64::from(MAX_TRACE_RANKS) {
            return Err(CallError::Invalid {
                what: "communicator size",
                value: size,
            });
        }
        let mut c = vec![0; size.max(0) as usize];
        let x = usize::try_from(rank)
            .ok()
            .and_then(|r| c.get_mut(r))
            .ok_or(CallError::Invalid {
                what: "rank in its communicator",
                value: rank,
            })?;
        *x = self.bytes(own)?;
        Ok(c)
    }

    /// Appends the operations of `call` to `out`.
    pub fn ops(&mut self, call: RecordedCall, out: &mut Vec<Op>) -> Result<(), CallError> {
        let live = |rs: &[Option<ReqId>]| -> Vec<ReqId> { rs.iter().flatten().copied().collect() };
        use RecordedCall as C;
        match call {
            C::Send {
                data,
                dst,
                tag,
                comm,
            } => {
                let comm = Self::p2p(comm)?;
                if let Some(dst) = self.rank(dst, comm)? {
                    let bytes = self.bytes(data)?;
                    out.push(Op::Send {
                        dst,
                        tag,
                        bytes,
                        comm,
                    });
                }
            }
            C::Isend {
                data,
                dst,
                tag,
                comm,
                req,
                persistent,
            } => {
                let comm = Self::p2p(comm)?;
                if let Some(dst) = self.rank(dst, comm)? {
                    let bytes = self.bytes(data)?;
                    let op = Op::Isend {
                        dst,
                        tag,
                        bytes,
                        comm,
                        req: ReqId(req),
                    };
                    self.post(op, req, persistent, out);
                }
            }
            C::Recv {
                data,
                src,
                tag,
                comm,
            } => {
                let comm = Self::p2p(comm)?;
                if let Some(src) = self.source(src, comm)? {
                    let bytes = self.bytes(data)?;
                    out.push(Op::Recv {
                        src,
                        tag,
                        bytes,
                        comm,
                    });
                }
            }
            C::Irecv {
                data,
                src,
                tag,
                comm,
                req,
                persistent,
            } => {
                let comm = Self::p2p(comm)?;
                if let Some(src) = self.source(src, comm)? {
                    let bytes = self.bytes(data)?;
                    let op = Op::Irecv {
                        src,
                        tag,
                        bytes,
                        comm,
                        req: ReqId(req),
                    };
                    self.post(op, req, persistent, out);
                }
            }
            C::Start { reqs } => {
                for r in reqs {
                    if let Some(op) = self.persistent.get(&r) {
                        out.push(op.clone());
                    }
                }
            }
            C::RequestFree { req } => {
                self.persistent.remove(&req);
            }
            C::Sendrecv {
                send,
                dst,
                send_tag,
                recv,
                src,
                recv_tag,
                comm,
            } => {
                let comm = Self::p2p(comm)?;
                let dst = self.rank(dst, comm)?;
                let src = self.source(src, comm)?;
                let send_bytes = self.bytes(send)?;
                let recv_bytes = self.bytes(recv)?;
                match (dst, src) {
                    (Some(dst), Some(src)) => out.push(Op::Sendrecv {
                        dst,
                        send_tag,
                        send_bytes,
                        src,
                        recv_tag,
                        recv_bytes,
                        comm,
                    }),
                    (Some(dst), None) => out.push(Op::Send {
                        dst,
                        tag: send_tag,
                        bytes: send_bytes,
                        comm,
                    }),
                    (None, Some(src)) => out.push(Op::Recv {
                        src,
                        tag: recv_tag,
                        bytes: recv_bytes,
                        comm,
                    }),
                    (None, None) => {}
                }
            }
            C::Wait { req } => out.extend(req.map(|req| Op::Wait { req })),
            C::Test { req } => out.extend(req.map(|req| Op::Test { req })),
            C::Waitall { reqs } => {
                let reqs = live(&reqs);
                if !reqs.is_empty() {
                    out.push(Op::Waitall { reqs });
                }
            }
            C::Any {
                reqs,
                index,
                completed,
                wait,
            } => {
                if completed && index >= 0 && (index as usize) < reqs.len() {
                    if let Some(req) = reqs[index as usize] {
                        out.push(if wait {
                            Op::Wait { req }
                        } else {
                            Op::Test { req }
                        });
                    }
                }
            }
            C::Some {
                reqs,
                indices,
                wait,
            } => {
                let done: Vec<Option<ReqId>> = indices
                    .iter()
                    .filter(|&&i| i >= 0 && (i as usize) < reqs.len())
                    .map(|&i| reqs[i as usize])
                    .collect();
                let done = live(&done);
                if wait {
                    if !done.is_empty() {
                        out.push(Op::Waitall { reqs: done });
                    }
                } else {
                    out.extend(done.into_iter().map(|req| Op::Test { req }));
                }
            }
            C::Testall { reqs, completed } => {
                if completed {
                    out.extend(live(&reqs).into_iter().map(|req| Op::Test { req }));
                }
            }
            C::Barrier { comm } => {
                if let Some(comm) = Self::coll(comm) {
                    out.push(Op::Barrier { comm });
                }
            }
            C::Bcast { data, root, comm } => {
                if let Some(comm) = Self::coll(comm) {
                    let elem_bytes = self.size_of(data.datatype)?;
                    let bytes = self.bytes(data)?;
                    let root = self.root(root, comm)?;
                    out.push(Op::Bcast {
                        root,
                        bytes,
                        elem_bytes,
                        comm,
                    });
                }
            }
            C::Reduce { data, root, comm } => {
                if let Some(comm) = Self::coll(comm) {
                    let elem_bytes = self.size_of(data.datatype)?;
                    let bytes = self.bytes(data)?;
                    let root = self.root(root, comm)?;
                    out.push(Op::Reduce {
                        root,
                        bytes,
                        elem_bytes,
                        comm,
                    });
                }
            }
            C::Allreduce { data, comm } => {
                if let Some(comm) = Self::coll(comm) {
                    let elem_bytes = self.size_of(data.datatype)?;
                    let bytes = self.bytes(data)?;
                    out.push(Op::Allreduce {
                        bytes,
                        elem_bytes,
                        comm,
                    });
                }
            }
            C::Scan {
                data,
                comm,
                exclusive,
            } => {
                if let Some(comm) = Self::coll(comm) {
                    let bytes = self.bytes(data)?;
                    out.push(Op::Scan {
                        bytes,
                        comm,
                        exclusive,
                    });
                }
            }
            C::Allgather { data, comm } => {
                if let Some(comm) = Self::coll(comm) {
                    let bytes = self.bytes(data)?;
                    out.push(Op::Allgather { bytes, comm });
                }
            }
            C::Alltoall { data, comm } => {
                if let Some(comm) = Self::coll(comm) {
                    let bytes = self.bytes(data)?;
                    out.push(Op::Alltoall { bytes, comm });
                }
            }
            C::Allgatherv { counts, comm } => {
                if let Some(comm) = Self::coll(comm) {
                    let counts = self.all_bytes(&counts)?;
                    out.push(Op::Allgatherv { counts, comm });
                }
            }
            C::Alltoallv { send, recv, comm } => {
                if let Some(comm) = Self::coll(comm) {
                    let send = self.all_bytes(&send)?;
                    let recv = self.all_bytes(&recv)?;
                    out.push(Op::Alltoallv { send, recv, comm });
                }
            }
            C::ReduceScatter { counts, comm } => {
                if let Some(comm) = Self::coll(comm) {
                    let elem_bytes = match counts.first() {
                        Some(c) => self.size_of(c.datatype)?,
                        None => mpi_layer::ELEMENT_BYTES,
                    };
                    let counts = self.all_bytes(&counts)?;
                    out.push(Op::ReduceScatter {
                        counts,
                        elem_bytes,
                        comm,
                    });
                }
            }
            C::Gather { data, root, comm } => {
                if let Some(comm) = Self::coll(comm) {
                    let root = self.root(root, comm)?;
                    let bytes = self.bytes(data)?;
                    out.push(Op::Gather { root, bytes, comm });
                }
            }
            C::Scatter { data, root, comm } => {
                if let Some(comm) = Self::coll(comm) {
                    let root = self.root(root, comm)?;
                    let bytes = self.bytes(data)?;
                    out.push(Op::Scatter { root, bytes, comm });
                }
            }
            C::Gatherv {
                rank,
                size,
                own,
                root,
                at_root,
                comm,
            } => {
                if let Some(comm) = Self::coll(comm) {
                    let root = self.root(root, comm)?;
                    let counts = self.v_counts(rank, size, own, root, &at_root)?;
                    out.push(Op::Gatherv { root, counts, comm });
                }
            }
            C::Scatterv {
                rank,
                size,
                own,
                root,
                at_root,
                comm,
            } => {
                if let Some(comm) = Self::coll(comm) {
                    let root = self.root(root, comm)?;
                    let counts = self.v_counts(rank, size, own, root, &at_root)?;
                    out.push(Op::Scatterv { root, counts, comm });
                }
            }
            C::CommDup { comm, new } => {
                if let (Some(comm), Some(new)) = (Self::coll(comm), Self::coll(new)) {
                    out.push(Op::CommDup { comm, new });
                }
            }
            C::CommSplit {
                comm,
                color,
                key,
                new,
            } => {
                if let Some(comm) = Self::coll(comm) {
                    // Without a new communicator the color is MPI_UNDEFINED.
                    let (new, color) = match new {
                        Some(new) => (new, color),
                        None => (CommId(u32::MAX), color.min(-1)),
                    };
                    out.push(Op::CommSplit {
                        comm,
                        color,
                        key,
                        new,
                    });
                }
            }
            C::CommGroup { .. }
            | C::GroupRanks { .. }
            | C::GroupRanges { .. }
            | C::GroupSet { .. }
            | C::GroupFree { .. }
            | C::CommCreate { .. }
            | C::CommFree { .. }
            | C::CartCreate { .. }
            | C::CartSub { .. }
            | C::GraphCreate { .. }
            | C::Unsupported { .. } => comms::ops(call, out)?,
            C::DefineType { new, blocks } => {
                // A type built of an unknown one stays unknown (an error
                // only where it is used); one too large is an error here.
                let mut total = Some(0u128);
                for &(count, d) in &blocks {
                    let Ok(size) = self.size_of(d) else {
                        total = None;
                        break;
                    };
                    let b = count
                        .checked_mul(size)
                        .ok_or(CallError::BytesOverflow { count, size })?;
                    total = total.map(|t| t + u128::from(b));
                }
                let total = total
                    .map(|t| u64::try_from(t).map_err(|_| CallError::TypeOverflow(new.0)))
                    .transpose()?;
                if let Some(s) = total {
                    self.derived.insert(new.0, s);
                }
            }
            C::Other => {}
        }
        Ok(())
    }

    /// Posts a nonblocking operation now, or remembers a persistent one.
    fn post(&mut self, op: Op, req: u64, persistent: bool, out: &mut Vec<Op>) {
        if persistent {
            self.persistent.insert(req, op);
        } else {
            out.push(op);
        }
    }
}

#[cfg(test)]
mod tests;
