//! The calls a recorded trace holds (DUMPI and OTF2 alike), as the readers
//! decode them and [`CallMapper`](super::CallMapper) maps them.

use mpi_layer::{CommId, GroupId, Rank, ReqId, TagSel};

/// A communicator as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comm {
    /// `MPI_COMM_SELF`: collectives on it are local (no operation), and
    /// point-to-point on it is not supported.
    SelfOnly,
    /// Any other communicator, by netsim's id ([`CommId::WORLD`] for
    /// `MPI_COMM_WORLD`).
    Id(CommId),
}

/// A peer rank as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// A rank of the call's communicator.
    Rank(Rank),
    /// `MPI_ANY_SOURCE` (receives only).
    Any,
    /// `MPI_PROC_NULL`: no communication.
    Null,
}

/// A datatype handle in the trace's numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Datatype(pub u16);

/// `count` elements of `datatype`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    /// Elements, as recorded (negative is an error when sized).
    pub count: i64,
    /// Their type.
    pub datatype: Datatype,
}

/// A group as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// `MPI_GROUP_NULL` (no group).
    Null,
    /// A group by netsim's id ([`GroupId::EMPTY`] for `MPI_GROUP_EMPTY`).
    Id(GroupId),
}

/// Which set operation makes a group from two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetOp {
    /// `MPI_Group_union`.
    Union,
    /// `MPI_Group_intersection`.
    Intersection,
    /// `MPI_Group_difference`.
    Difference,
}

/// One recorded MPI call, in MPI's terms. Calls that produce no
/// operation and define nothing are [`RecordedCall::Other`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the fields are the MPI arguments of the same names
pub enum RecordedCall {
    /// `MPI_Send` and its buffered, synchronous and ready forms.
    Send {
        data: Count,
        dst: Peer,
        tag: i32,
        comm: Comm,
    },
    /// `MPI_Isend` and its forms; `persistent` for `MPI_*send_init`.
    Isend {
        data: Count,
        dst: Peer,
        tag: i32,
        comm: Comm,
        req: u64,
        persistent: bool,
    },
    /// `MPI_Recv`.
    Recv {
        data: Count,
        src: Peer,
        tag: TagSel,
        comm: Comm,
    },
    /// `MPI_Irecv`; `persistent` for `MPI_Recv_init`.
    Irecv {
        data: Count,
        src: Peer,
        tag: TagSel,
        comm: Comm,
        req: u64,
        persistent: bool,
    },
    /// `MPI_Start` / `MPI_Startall`: post these persistent requests.
    Start { reqs: Vec<u64> },
    /// `MPI_Request_free`.
    RequestFree { req: u64 },
    /// `MPI_Sendrecv` (`MPI_Sendrecv_replace`: `recv` as `send`).
    Sendrecv {
        send: Count,
        dst: Peer,
        send_tag: i32,
        recv: Count,
        src: Peer,
        recv_tag: TagSel,
        comm: Comm,
    },
    /// `MPI_Wait` (`None`: a null request).
    Wait { req: Option<ReqId> },
    /// `MPI_Test`.
    Test { req: Option<ReqId> },
    /// `MPI_Waitall`.
    Waitall { reqs: Vec<Option<ReqId>> },
    /// `MPI_Waitany` / `MPI_Testany`: `index` is the completed one
    /// (`completed` false: a `Testany` that found none).
    Any {
        reqs: Vec<Option<ReqId>>,
        index: i64,
        completed: bool,
        wait: bool,
    },
    /// `MPI_Waitsome` / `MPI_Testsome`: `indices` completed.
    Some {
        reqs: Vec<Option<ReqId>>,
        indices: Vec<i64>,
        wait: bool,
    },
    /// `MPI_Testall`; `completed` false: not all had.
    Testall {
        reqs: Vec<Option<ReqId>>,
        completed: bool,
    },
    /// `MPI_Barrier`.
    Barrier { comm: Comm },
    /// `MPI_Bcast`; `root` as recorded (negative is invalid).
    Bcast { data: Count, root: i64, comm: Comm },
    /// `MPI_Reduce`.
    Reduce { data: Count, root: i64, comm: Comm },
    /// `MPI_Allreduce`.
    Allreduce { data: Count, comm: Comm },
    /// `MPI_Scan` (`exclusive`: `MPI_Exscan`).
    Scan {
        data: Count,
        comm: Comm,
        exclusive: bool,
    },
    /// `MPI_Allgather` (the send count).
    Allgather { data: Count, comm: Comm },
    /// `MPI_Alltoall` (the send count per peer).
    Alltoall { data: Count, comm: Comm },
    /// `MPI_Allgatherv` (the receive counts).
    Allgatherv { counts: Vec<Count>, comm: Comm },
    /// `MPI_Alltoallv` and `MPI_Alltoallw`.
    Alltoallv {
        send: Vec<Count>,
        recv: Vec<Count>,
        comm: Comm,
    },
    /// `MPI_Reduce_scatter`.
    ReduceScatter { counts: Vec<Count>, comm: Comm },
    /// `MPI_Gather` (the receive count per rank, at every rank).
    Gather { data: Count, root: i64, comm: Comm },
    /// `MPI_Scatter`.
    Scatter { data: Count, root: i64, comm: Comm },
    /// `MPI_Gatherv`: `own` is the rank's contribution; `at_root` the
    /// receive counts, recorded only at the root.
    Gatherv {
        rank: i64,
        size: i64,
        own: Count,
        root: i64,
        at_root: Vec<Count>,
        comm: Comm,
    },
    /// `MPI_Scatterv`: as [`RecordedCall::Gatherv`], the send counts.
    Scatterv {
        rank: i64,
        size: i64,
        own: Count,
        root: i64,
        at_root: Vec<Count>,
        comm: Comm,
    },
    /// `MPI_Comm_dup`.
    CommDup { comm: Comm, new: Comm },
    /// `MPI_Comm_split`; `new` is `None` for `MPI_COMM_NULL` (color
    /// `MPI_UNDEFINED`).
    CommSplit {
        comm: Comm,
        color: i32,
        key: i32,
        new: Option<CommId>,
    },
    /// `MPI_Comm_group`.
    CommGroup { comm: Comm, new: Group },
    /// `MPI_Group_incl`, or `MPI_Group_excl` (`excl`).
    GroupRanks {
        group: Group,
        ranks: Vec<i64>,
        new: Group,
        excl: bool,
    },
    /// `MPI_Group_range_incl`, or `MPI_Group_range_excl` (`excl`):
    /// `(first, last, stride)` per range.
    GroupRanges {
        group: Group,
        ranges: Vec<Vec<i64>>,
        new: Group,
        excl: bool,
    },
    /// `MPI_Group_union`, `_intersection`, `_difference`.
    GroupSet {
        a: Group,
        b: Group,
        new: Group,
        set: SetOp,
    },
    /// `MPI_Group_free`.
    GroupFree { group: Group },
    /// `MPI_Comm_create`; `new` is `None` for `MPI_COMM_NULL` (the rank
    /// is outside the group).
    CommCreate {
        comm: Comm,
        group: Group,
        new: Option<CommId>,
    },
    /// `MPI_Comm_free` (`None`: `MPI_COMM_NULL`).
    CommFree { comm: Option<Comm> },
    /// `MPI_Cart_create` (`reorder` is not recorded: netsim never
    /// reorders).
    CartCreate {
        comm: Comm,
        dims: Vec<i64>,
        periods: Vec<i64>,
        new: Option<CommId>,
    },
    /// `MPI_Cart_sub`.
    CartSub {
        comm: Comm,
        remain: Vec<i64>,
        new: Option<CommId>,
    },
    /// `MPI_Graph_create`.
    GraphCreate {
        comm: Comm,
        index: Vec<i64>,
        edges: Vec<i64>,
        new: Option<CommId>,
    },
    /// A call netsim cannot replay (intercommunicators): an error saying
    /// `why` (the reader names the call, rank and record).
    Unsupported { why: &'static str },
    /// A derived datatype: `new` holds `count` elements of each block's
    /// type.
    DefineType {
        new: Datatype,
        blocks: Vec<(u64, Datatype)>,
    },
    /// Any other call: no operation.
    Other,
}
