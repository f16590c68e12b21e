//! What a rank does: the operations of an MPI program, and the streams
//! that supply them.
//!
//! Trace readers and built-in workloads produce [`Op`]s; the MPI layer
//! executes them with MPI's blocking and request semantics. Sizes are in
//! bytes (readers multiply counts by datatype sizes); ranks are ranks in
//! the communicator named by the operation.

use sim_core::Time;

/// A rank in some communicator.
pub type Rank = u32;

/// An MPI tag (non-negative in user programs; collectives use a reserved
/// tag space the MPI layer keeps apart from user tags).
pub type Tag = i32;

/// A communicator, named by the program: [`CommId::WORLD`] is
/// `MPI_COMM_WORLD`; `CommDup` and `CommSplit` introduce new ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CommId(pub u32);

impl CommId {
    /// `MPI_COMM_WORLD`.
    pub const WORLD: CommId = CommId(0);
}

/// A request handle, chosen by the program and unique among the rank's
/// requests in flight (trace readers reuse the recorded handles).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ReqId(pub u64);

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
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Reduce` of `bytes` per rank to `root`.
    Reduce {
        /// Root rank in `comm`.
        root: Rank,
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
        /// Communicator.
        comm: CommId,
    },
    /// `MPI_Allreduce` of `bytes` per rank.
    Allreduce {
        /// Size \[bytes\]; per rank for collectives, as the variant says.
        bytes: u64,
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
}

impl Op {
    /// Checks the operation's sizes and durations against the limits of
    /// [`sim_core::limits`] (every message or per-rank size at most
    /// [`MAX_MESSAGE_BYTES`](sim_core::limits::MAX_MESSAGE_BYTES), every
    /// computation or sleep at most
    /// [`MAX_DURATION`](sim_core::limits::MAX_DURATION)): the one check
    /// every reader and workload passes through, so that no time derived
    /// from an operation can overflow. The error names the field.
    pub fn check_limits(&self) -> Result<(), String> {
        use sim_core::limits::{check_bytes, check_duration};
        let one = |what: &str, b: u64| check_bytes(b).map_err(|m| format!("{what}: {m}"));
        let all = |what: &str, v: &[u64]| v.iter().try_for_each(|&b| one(what, b));
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
            | Op::Alltoall { bytes, .. } => one("message size", *bytes),
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
                check_duration(*duration).map_err(|m| format!("duration: {m}"))
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
            | Op::CommSplit { .. } => Ok(()),
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
    fn started(&mut self, id: u32) {
        let _ = id;
    }

    /// Graph programs: operation `id` completed (`requires` are met).
    fn completed(&mut self, id: u32) {
        let _ = id;
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
    fn started(&mut self, id: u32) {
        (**self).started(id)
    }
    fn completed(&mut self, id: u32) {
        (**self).completed(id)
    }
}
