//! What a rank does: the operations of an MPI program, and the streams
//! that supply them.
//!
//! Trace readers and built-in workloads produce [`Op`]s; the MPI layer
//! executes them with MPI's blocking and request semantics. Sizes are in
//! bytes (readers multiply counts by datatype sizes); ranks are ranks in
//! the communicator named by the operation.

use sim_core::Time;

pub use crate::ids::{CommId, GroupId, MsgId, Rank, ReqId, Tag};

/// The source a receive accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Only this rank.
    Rank(Rank),
    /// `MPI_ANY_SOURCE`.
    Any,
}

/// The tag a receive accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagSel {
    /// Only this tag.
    Tag(Tag),
    /// `MPI_ANY_TAG`.
    Any,
}

/// One operation of a rank's program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `MPI_Send`: returns when the send buffer may be reused (at once for
    /// short and eager messages once injected; after the data left for
    /// rendezvous).
    Send {
        /// Destination rank in `comm`.
        dst: Rank,
        /// Tag.
        tag: Tag,
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Recv`: returns when the message has been received.
    Recv {
        /// Source rank in `comm`, or any source.
        src: Source,
        /// Tag, or any tag.
        tag: TagSel,
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Isend`.
    Isend {
        /// Destination rank in `comm`.
        dst: Rank,
        /// Tag.
        tag: Tag,
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Communicator.
        comm: CommId,
        /// Request handle, unique among the rank's requests in flight.
        req: ReqId,
    },
    /// `MPI_Irecv`.
    Irecv {
        /// Source rank in `comm`, or any source.
        src: Source,
        /// Tag, or any tag.
        tag: TagSel,
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Communicator.
        comm: CommId,
        /// Request handle, unique among the rank's requests in flight.
        req: ReqId,
    },
    /// `MPI_Wait` on one request.
    Wait {
        /// Request handle, unique among the rank's requests in flight.
        req: ReqId,
    },
    /// `MPI_Waitall` on these requests.
    Waitall {
        /// Request handles.
        reqs: Vec<ReqId>,
    },
    /// `MPI_Waitall` on every request the rank has in flight (SimGrid's
    /// `waitall`, which names none).
    WaitallPending,
    /// `MPI_Waitany`: returns when one of these requests completes.
    Waitany {
        /// Request handles.
        reqs: Vec<ReqId>,
    },
    /// `MPI_Test` on one request: never blocks; completes the request if it
    /// is done.
    Test {
        /// Request handle, unique among the rank's requests in flight.
        req: ReqId,
    },
    /// `MPI_Sendrecv`.
    Sendrecv {
        /// Destination rank in `comm`.
        dst: Rank,
        /// Tag of the message sent.
        send_tag: Tag,
        /// Size of the message sent \[bytes\].
        send_bytes: u64,
        /// Source rank in `comm`, or any source.
        src: Source,
        /// Tag the receive accepts.
        recv_tag: TagSel,
        /// Size of the receive buffer \[bytes\].
        recv_bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// Local computation of this duration (keeps the core busy, so MPI
    /// progress does not run on it unless progress is offloaded).
    Compute {
        /// How long.
        duration: Time,
    },
    /// Idle waiting of this duration.
    Sleep {
        /// How long.
        duration: Time,
    },
    /// Start of timed region `id` on this rank (a benchmark's `t0 =
    /// MPI_Wtime()`): no cost; the rank's time when its program gets here.
    RegionBegin {
        /// Region number.
        id: u32,
    },
    /// End of region `id` (`t1 = MPI_Wtime()`): the time since the rank's
    /// matching [`Op::RegionBegin`] is added to the region
    /// ([`crate::RunResults::regions`]).
    RegionEnd {
        /// Region number.
        id: u32,
    },
    /// `MPI_Barrier`.
    Barrier {
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Bcast` of `bytes` from `root`.
    Bcast {
        /// Root rank in `comm`.
        root: Rank,
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Bytes per element of the datatype (the libraries' rules compare
        /// element counts); [`crate::ELEMENT_BYTES`] where a workload
        /// does not say.
        elem_bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Reduce` of `bytes` per rank to `root`.
    Reduce {
        /// Root rank in `comm`.
        root: Rank,
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Bytes per element of the datatype (the libraries' rules compare
        /// element counts); [`crate::ELEMENT_BYTES`] where a workload
        /// does not say.
        elem_bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Allreduce` of `bytes` per rank.
    Allreduce {
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Bytes per element of the datatype (the libraries' rules compare
        /// element counts); [`crate::ELEMENT_BYTES`] where a workload
        /// does not say.
        elem_bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Scan` / `MPI_Exscan` of `bytes` per rank.
    Scan {
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Communicator.
        comm: CommId,
        /// `MPI_Exscan`: the rank's own contribution is left out.
        exclusive: bool,
    },
    /// `MPI_Gather` of `bytes` per rank to `root`.
    Gather {
        /// Root rank in `comm`.
        root: Rank,
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Gatherv`: rank `i` contributes `counts[i]` bytes.
    Gatherv {
        /// Root rank in `comm`.
        root: Rank,
        /// Bytes per rank, by rank.
        counts: Vec<u64>,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Scatter` of `bytes` per rank from `root`.
    Scatter {
        /// Root rank in `comm`.
        root: Rank,
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Scatterv`: rank `i` receives `counts[i]` bytes.
    Scatterv {
        /// Root rank in `comm`.
        root: Rank,
        /// Bytes per rank, by rank.
        counts: Vec<u64>,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Allgather` of `bytes` per rank.
    Allgather {
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Allgatherv`: rank `i` contributes `counts[i]` bytes.
    Allgatherv {
        /// Bytes per rank, by rank.
        counts: Vec<u64>,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Alltoall` of `bytes` to every rank.
    Alltoall {
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Alltoallv`: this rank sends `send[j]` bytes to rank `j` and
    /// receives `recv[j]` bytes from it.
    Alltoallv {
        /// Bytes sent to each rank, by rank.
        send: Vec<u64>,
        /// Bytes received from each rank, by rank.
        recv: Vec<u64>,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Reduce_scatter`: rank `i` ends with `counts[i]` bytes.
    ReduceScatter {
        /// Bytes per rank, by rank.
        counts: Vec<u64>,
        /// Bytes per element of the datatype (the libraries' rules compare
        /// element counts); [`crate::ELEMENT_BYTES`] where a workload
        /// does not say.
        elem_bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Comm_dup` of `comm`, naming the result `new`.
    CommDup {
        /// Communicator.
        comm: CommId,
        /// The id the program gives the new communicator.
        new: CommId,
    },
    /// `MPI_Comm_split` of `comm` by `color` and `key`, naming the result
    /// `new` (`color < 0` is `MPI_UNDEFINED`: the rank gets no new
    /// communicator).
    CommSplit {
        /// Communicator.
        comm: CommId,
        /// Color; negative is `MPI_UNDEFINED`.
        color: i32,
        /// Orders the ranks in the new communicator.
        key: i32,
        /// The id the program gives the new communicator.
        new: CommId,
    },
    /// `MPI_Comm_group`: `new` names the members of `comm` in rank order.
    /// Local, no cost (as every group operation).
    CommGroup {
        /// Communicator.
        comm: CommId,
        /// The id the program gives the group.
        new: GroupId,
    },
    /// `MPI_Group_incl`: the members of `group` at positions `ranks`, in
    /// that order.
    GroupIncl {
        /// The group.
        group: GroupId,
        /// Positions in `group` (distinct).
        ranks: Vec<Rank>,
        /// The id the program gives the result.
        new: GroupId,
    },
    /// `MPI_Group_excl`: the members of `group` except those at positions
    /// `ranks`, in `group`'s order.
    GroupExcl {
        /// The group.
        group: GroupId,
        /// Positions in `group` (distinct).
        ranks: Vec<Rank>,
        /// The id the program gives the result.
        new: GroupId,
    },
    /// `MPI_Group_range_incl`: the members at the positions the ranges
    /// `(first, last, stride)` enumerate, range after range.
    GroupRangeIncl {
        /// The group.
        group: GroupId,
        /// `(first, last, stride)` triples.
        ranges: Vec<[i32; 3]>,
        /// The id the program gives the result.
        new: GroupId,
    },
    /// `MPI_Group_range_excl`: the members except those the ranges
    /// enumerate, in `group`'s order.
    GroupRangeExcl {
        /// The group.
        group: GroupId,
        /// `(first, last, stride)` triples.
        ranges: Vec<[i32; 3]>,
        /// The id the program gives the result.
        new: GroupId,
    },
    /// `MPI_Group_union`: the members of `a`, then those of `b` not in
    /// `a`, in `b`'s order.
    GroupUnion {
        /// First group.
        a: GroupId,
        /// Second group.
        b: GroupId,
        /// The id the program gives the result.
        new: GroupId,
    },
    /// `MPI_Group_intersection`: the members of `a` that are in `b`, in
    /// `a`'s order.
    GroupIntersection {
        /// First group.
        a: GroupId,
        /// Second group.
        b: GroupId,
        /// The id the program gives the result.
        new: GroupId,
    },
    /// `MPI_Group_difference`: the members of `a` that are not in `b`, in
    /// `a`'s order.
    GroupDifference {
        /// First group.
        a: GroupId,
        /// Second group.
        b: GroupId,
        /// The id the program gives the result.
        new: GroupId,
    },
    /// `MPI_Group_free`: `group` no longer names a group.
    GroupFree {
        /// The group.
        group: GroupId,
    },
    /// `MPI_Comm_create`: collective over `comm`; the ranks in `group`
    /// (which must be members of `comm`) get a communicator `new` ranked
    /// in the group's order, the others none. Groups given by different
    /// ranks are the same or disjoint (MPI 2.2): each group becomes its
    /// own communicator. Modelled as [`Op::CommSplit`].
    CommCreate {
        /// The parent communicator.
        comm: CommId,
        /// The members of the new communicator (this rank's view).
        group: GroupId,
        /// The id the program gives the new communicator (unused where
        /// the rank is not in `group`).
        new: CommId,
    },
    /// `MPI_Comm_create_group`: collective over the members of `group`
    /// only (a subset of `comm`, including the calling rank), matched by
    /// `tag`.
    CommCreateGroup {
        /// The parent communicator.
        comm: CommId,
        /// The members of the new communicator.
        group: GroupId,
        /// Distinguishes concurrent creations over the same group.
        tag: Tag,
        /// The id the program gives the new communicator.
        new: CommId,
    },
    /// `MPI_Comm_free`: `comm` no longer names a communicator at this
    /// rank (a later creation may reuse the id). Local, no cost.
    CommFree {
        /// The communicator (not `MPI_COMM_WORLD`).
        comm: CommId,
    },
    /// `MPI_Cart_create` with a grid of `dims`: collective over `comm`;
    /// ranks `0..prod(dims)` keep their rank (no reordering) in `new`,
    /// row-major coordinates; the others get no communicator.
    CartCreate {
        /// The parent communicator.
        comm: CommId,
        /// Extent of each dimension (each at least 1).
        dims: Vec<u32>,
        /// Whether each dimension wraps around.
        periods: Vec<bool>,
        /// The id the program gives the new communicator.
        new: CommId,
    },
    /// `MPI_Cart_sub` of Cartesian communicator `comm`: ranks that agree
    /// in the dropped dimensions' coordinates form one communicator,
    /// ordered by parent rank, with the kept dimensions.
    CartSub {
        /// A communicator made by [`Op::CartCreate`] or [`Op::CartSub`].
        comm: CommId,
        /// Per dimension of `comm`: kept (`true`) or dropped.
        remain: Vec<bool>,
        /// The id the program gives the new communicator.
        new: CommId,
    },
    /// `MPI_Graph_create`: collective over `comm`; ranks
    /// `0..index.len()` keep their rank in `new`, whose neighbours are
    /// the graph's (node `i`'s are `edges[index[i-1]..index[i]]`); the
    /// others get no communicator.
    GraphCreate {
        /// The parent communicator.
        comm: CommId,
        /// Cumulative degrees, one per node.
        index: Vec<u32>,
        /// Neighbour lists, concatenated.
        edges: Vec<Rank>,
        /// The id the program gives the new communicator.
        new: CommId,
    },
    /// `MPI_Dist_graph_create_adjacent`: collective over `comm`; every
    /// rank keeps its rank in `new` and names its own in-neighbours
    /// (`sources`) and out-neighbours (`destinations`).
    DistGraphAdjacent {
        /// The parent communicator.
        comm: CommId,
        /// Ranks this rank receives from, in neighbour order.
        sources: Vec<Rank>,
        /// Ranks this rank sends to, in neighbour order.
        destinations: Vec<Rank>,
        /// The id the program gives the new communicator.
        new: CommId,
    },
    /// `MPI_Dist_graph_create`: collective over `comm`; every rank keeps
    /// its rank in `new` and contributes edges `[source, destination]`
    /// (MPI's `sources`, `degrees`, `destinations` flattened). A rank's
    /// neighbours are the edges that name it, ordered by (contributing
    /// rank, position).
    DistGraph {
        /// The parent communicator.
        comm: CommId,
        /// The edges this rank contributes.
        edges: Vec<[Rank; 2]>,
        /// The id the program gives the new communicator.
        new: CommId,
    },
    /// `MPI_Neighbor_allgather` on a topology communicator: `bytes` to
    /// every out-neighbour, `bytes` from every in-neighbour.
    NeighborAllgather {
        /// Size \[bytes\] per neighbour.
        bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Neighbor_alltoall`: a block of `bytes` to each out-neighbour
    /// and from each in-neighbour.
    NeighborAlltoall {
        /// Size \[bytes\] per neighbour.
        bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Neighbor_alltoallv` (and `MPI_Neighbor_allgatherv` with the
    /// same `send` entry for every out-neighbour): `send[j]` bytes to the
    /// `j`-th out-neighbour.
    NeighborAlltoallv {
        /// Bytes per out-neighbour, in neighbour order.
        send: Vec<u64>,
        /// Communicator.
        comm: CommId,
    },
}

/// An operation's size or duration beyond a limit of
/// [`sim_core::limits`] ([`Op::check_limits`]): the field and the limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {limit}")]
pub struct OpLimitError {
    /// The operation's field (`message size`, `counts`, `duration`).
    pub field: &'static str,
    /// The limit it exceeds.
    pub limit: sim_core::limits::LimitError,
}

impl Op {
    /// Checks the operation's sizes and durations against the limits of
    /// [`sim_core::limits`] (every message or per-rank size at most
    /// [`MAX_MESSAGE_BYTES`](sim_core::limits::MAX_MESSAGE_BYTES), every
    /// computation or sleep at most
    /// [`MAX_DURATION`](sim_core::limits::MAX_DURATION)): the one check
    /// every reader and workload passes through, so that no time derived
    /// from an operation can overflow. The error names the field.
    pub fn check_limits(&self) -> Result<(), OpLimitError> {
        use sim_core::limits::{check_bytes, check_duration};
        let one = |field: &'static str, b: u64| {
            check_bytes(b).map_err(|limit| OpLimitError { field, limit })
        };
        let all = |field: &'static str, v: &[u64]| v.iter().try_for_each(|&b| one(field, b));
        match self {
            Op::Send { bytes, .. }
            | Op::Recv { bytes, .. }
            | Op::Isend { bytes, .. }
            | Op::Irecv { bytes, .. }
            | Op::Bcast { bytes, .. }
            | Op::Reduce { bytes, .. }
            | Op::Allreduce { bytes, .. }
            | Op::Scan { bytes, .. }
            | Op::Gather { bytes, .. }
            | Op::Scatter { bytes, .. }
            | Op::Allgather { bytes, .. }
            | Op::Alltoall { bytes, .. }
            | Op::NeighborAllgather { bytes, .. }
            | Op::NeighborAlltoall { bytes, .. } => one("message size", *bytes),
            Op::NeighborAlltoallv { send, .. } => all("send counts", send),
            Op::Sendrecv {
                send_bytes,
                recv_bytes,
                ..
            } => {
                one("send size", *send_bytes)?;
                one("receive size", *recv_bytes)
            }
            Op::Gatherv { counts, .. }
            | Op::Scatterv { counts, .. }
            | Op::Allgatherv { counts, .. }
            | Op::ReduceScatter { counts, .. } => all("counts", counts),
            Op::Alltoallv { send, recv, .. } => {
                all("send counts", send)?;
                all("receive counts", recv)
            }
            Op::Compute { duration } | Op::Sleep { duration } => {
                check_duration(*duration).map_err(|limit| OpLimitError {
                    field: "duration",
                    limit,
                })
            }
            Op::Wait { .. }
            | Op::Waitall { .. }
            | Op::WaitallPending
            | Op::Waitany { .. }
            | Op::Test { .. }
            | Op::RegionBegin { .. }
            | Op::RegionEnd { .. }
            | Op::Barrier { .. }
            | Op::CommDup { .. }
            | Op::CommSplit { .. }
            | Op::CommGroup { .. }
            | Op::GroupIncl { .. }
            | Op::GroupExcl { .. }
            | Op::GroupRangeIncl { .. }
            | Op::GroupRangeExcl { .. }
            | Op::GroupUnion { .. }
            | Op::GroupIntersection { .. }
            | Op::GroupDifference { .. }
            | Op::GroupFree { .. }
            | Op::CommCreate { .. }
            | Op::CommCreateGroup { .. }
            | Op::CommFree { .. }
            | Op::CartCreate { .. }
            | Op::CartSub { .. }
            | Op::GraphCreate { .. }
            | Op::DistGraphAdjacent { .. }
            | Op::DistGraph { .. } => Ok(()),
        }
    }
}

/// Where an operation came from, for error messages: a file and line, or
/// a built-in workload's name and operation index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// File path or workload name (shared: cloned per operation).
    pub source: std::sync::Arc<str>,
    /// 1-based line (text formats), record number (binary), or operation
    /// index (built-in workloads).
    pub line: u64,
}

/// `source:line`, or just `source` when no line applies (line 0: a whole
/// file, e.g. a missing per-rank trace).
impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.source)
        } else {
            write!(f, "{}:{}", self.source, self.line)
        }
    }
}

/// An error met while reading a program: where, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct ProgramError {
    /// Where.
    pub origin: Origin,
    /// What, in words a user can act on.
    pub message: String,
}

/// One operation of a dependency-graph program ([`OpStream::is_graph`]):
/// an `Isend`, `Irecv` (its request named by `id`) or `Compute`, on the
/// rank's CPU `cpu` and network interface `nic` (GOAL's `cpu` and `nic`
/// fields; 0 is the rank's own core and port).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphOp {
    /// The operation's name in the graph (unique among the rank's
    /// operations not yet completed).
    pub id: u32,
    /// `Isend`, `Irecv` or `Compute`.
    pub op: Op,
    /// Where it came from.
    pub origin: Origin,
    /// CPU index.
    pub cpu: u16,
    /// Network interface index.
    pub nic: u16,
}

/// What a graph program has to run now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ready {
    /// This operation's dependencies are met.
    Op(GraphOp),
    /// Nothing is ready until something started or completed.
    Wait,
    /// Every operation has been handed out.
    End,
}

/// The operations of one rank, pulled one at a time as the rank advances,
/// so a long trace never sits in memory.
///
/// A program is a sequence (the default: the rank runs one operation
/// after the other, MPI's blocking semantics) or, if [`is_graph`] says so,
/// a dependency graph (GOAL, Hoefler et al.): the rank runs every
/// operation [`next_ready`] hands out at once, nonblocking, and reports
/// back when each starts and completes, which may make more ready.
///
/// [`is_graph`]: OpStream::is_graph
/// [`next_ready`]: OpStream::next_ready
pub trait OpStream {
    /// The next operation with its origin, `Ok(None)` at the end of the
    /// program, or an error naming the place.
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError>;

    /// Whether this program is a dependency graph. Default: a sequence.
    fn is_graph(&self) -> bool {
        false
    }

    /// Graph programs: the next operation whose dependencies are met.
    fn next_ready(&mut self) -> Result<Ready, ProgramError> {
        Ok(Ready::End)
    }

    /// Graph programs: operation `id` started (`irequires` are met).
    /// Returns whether the rank should look for ready operations: `false`
    /// only if the start can have made none ready (the rank then waits
    /// on, without a visit). Default: `true`.
    fn started(&mut self, id: u32) -> bool {
        let _ = id;
        true
    }

    /// Graph programs: operation `id` completed (`requires` are met).
    /// Returns whether the rank should look for ready operations (or its
    /// end): `false` only if the completion made none ready and others
    /// are still in flight. Default: `true`.
    fn completed(&mut self, id: u32) -> bool {
        let _ = id;
        true
    }
}

/// A program held in memory (built-in workloads and tests).
#[derive(Clone, Debug)]
pub struct VecProgram {
    name: std::sync::Arc<str>,
    ops: std::vec::IntoIter<Op>,
    index: u64,
}

impl VecProgram {
    /// A program named `name` (used in error messages) running `ops`.
    pub fn new(name: &str, ops: Vec<Op>) -> Self {
        VecProgram {
            name: name.into(),
            ops: ops.into_iter(),
            index: 0,
        }
    }
}

impl OpStream for VecProgram {
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        Ok(self.ops.next().map(|op| {
            self.index += 1;
            (
                op,
                Origin {
                    source: self.name.clone(),
                    line: self.index,
                },
            )
        }))
    }
}

impl<S: OpStream + ?Sized> OpStream for Box<S> {
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        (**self).next_op()
    }
    fn is_graph(&self) -> bool {
        (**self).is_graph()
    }
    fn next_ready(&mut self) -> Result<Ready, ProgramError> {
        (**self).next_ready()
    }
    fn started(&mut self, id: u32) -> bool {
        (**self).started(id)
    }
    fn completed(&mut self, id: u32) -> bool {
        (**self).completed(id)
    }
}
