//! One TI action line as operations: the per-action table (fields,
//! datatypes, counts), the requests of `isend`/`irecv` and what `wait`
//! and `test` find, for one rank; [`super::TiStream`] reads the lines.

use std::collections::VecDeque;

use mpi_layer::{CommId, Op, Origin, Rank, ReqId, Source, Tag, TagSel};
use rustc_hash::FxHashMap;
use sim_core::time::Time;

use super::{RankSpeeds, TiConfig};
use crate::reader::ValueError;
use crate::text::{parse_int, parse_nonneg_f64};

/// What is wrong with one TI action line; the reader adds the file, the
/// line and the action's name.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ActionError {
    /// No such action.
    #[error("unknown action")]
    UnknownAction,
    /// Too few or too many fields (`want` is `3` or `3 to 4`).
    #[error("expected {want} fields after the action, found {found}")]
    Arity {
        /// The number of fields the action takes.
        want: String,
        /// The number found.
        found: usize,
    },
    /// A field that does not read as its type.
    #[error(transparent)]
    Value(#[from] ValueError),
    /// A rank outside `0..num_ranks`.
    #[error("{what} {rank} does not exist (the trace has ranks 0..{num_ranks})")]
    NoRank {
        /// Which rank field.
        what: String,
        /// The rank found.
        rank: i64,
        /// The trace's ranks.
        num_ranks: u32,
    },
    /// A datatype id SimGrid does not define.
    #[error("unknown SimGrid datatype id {0} (SimGrid 3.32 defines -1 to 59)")]
    Datatype(i64),
    /// A rank's host speed asked before the rank is placed.
    #[error("rank {0}'s host speed is not known (the rank is not placed)")]
    UnplacedRank(Rank),
    /// A computation longer than [`Time`] holds.
    #[error("{0} flops is too long a computation")]
    ComputeTooLong(f64),
    /// A computation beyond netsim's limit (the limit's message).
    #[error("{flops} flops: {message}")]
    ComputeLimit {
        /// The flops.
        flops: f64,
        /// `sim_core::limits`' message.
        message: sim_core::limits::LimitError,
    },
    /// A `sleep` longer than [`Time`] holds.
    #[error("sleep duration too long")]
    SleepTooLong,
    /// A `wait` before any `isend` or `irecv`.
    #[error("not preceded by any isend or irecv")]
    WaitFirst,
    /// A count beyond 64 bits.
    #[error("count {0} too large")]
    CountTooLarge(f64),
    /// A count between 0 and 1 element.
    #[error("count {0:e} is less than one element: counts are whole numbers")]
    CountFraction(f64),
    /// Count times datatype size overflows.
    #[error("size of {0} elements overflows")]
    SizeOverflow(f64),
    /// A size beyond netsim's limit (the limit's message).
    #[error("size of {count} elements: {message}")]
    SizeLimit {
        /// The count.
        count: f64,
        /// `sim_core::limits`' message.
        message: sim_core::limits::LimitError,
    },
}

/// The size in bytes of SimGrid datatype id `id`, `None` for an id
/// SimGrid 3.32 does not define.
///
/// The ids and types are SimGrid 3.32's predefined datatypes
/// (`src/smpi/mpi/smpi_datatype.cpp`, the `CREATE_MPI_DATATYPE` lines;
/// the pair structs are in `src/smpi/include/smpi_datatype.hpp`); sizes
/// are `sizeof` on an LP64 platform (x86-64 Linux: `long` 8, `long
/// double` 16, `wchar_t` 4). Its replay reads an id with
/// `Datatype::decode` (`smpi_replay.cpp`, `parse_datatype`), a lookup of
/// every predefined id. `-1` is `MPI_DATATYPE_NULL`, which the tracer
/// writes for every derived datatype (`Datatype::encode` returns the
/// type's id, `-1` unless predefined): SimGrid's replay then moves 0
/// bytes, and so does netsim.
pub fn simgrid_datatype_size(id: i64) -> Option<u64> {
    // Index = id + 1.
    const SIZES: [u64; 61] = [
        // -1 DATATYPE_NULL
        0, //
        // 0 DOUBLE, INT, CHAR, SHORT, LONG, FLOAT, BYTE
        8, 4, 1, 2, 8, 4, 1, //
        // 7 LONG_LONG, SIGNED_CHAR, UNSIGNED_CHAR, UNSIGNED_SHORT,
        // UNSIGNED, UNSIGNED_LONG, UNSIGNED_LONG_LONG
        8, 1, 1, 2, 4, 8, 8, //
        // 14 LONG_DOUBLE, WCHAR, C_BOOL
        16, 4, 1, //
        // 17 INT8_T .. INT64_T, UINT8_T .. UINT64_T
        1, 2, 4, 8, 1, 2, 4, 8, //
        // 25 C_FLOAT_COMPLEX, C_DOUBLE_COMPLEX, C_LONG_DOUBLE_COMPLEX
        8, 16, 32, //
        // 28 AINT, OFFSET
        8, 8, //
        // 30 FLOAT_INT, LONG_INT, DOUBLE_INT, SHORT_INT, 2INT, 2FLOAT,
        // 2DOUBLE, 2LONG (padded structs)
        8, 16, 16, 8, 8, 8, 16, 16, //
        // 38 REAL, REAL4, REAL8, REAL16
        4, 4, 8, 16, //
        // 42 COMPLEX8 (a float pair), COMPLEX16, COMPLEX32 (double pairs,
        // as SimGrid declares both)
        8, 16, 16, //
        // 45 INTEGER1 (an `int` in SimGrid), INTEGER2, INTEGER4, INTEGER8,
        // INTEGER16
        4, 2, 4, 8, 16, //
        // 50 LONG_DOUBLE_INT, CXX_BOOL, CXX_FLOAT_COMPLEX,
        // CXX_DOUBLE_COMPLEX, CXX_LONG_DOUBLE_COMPLEX
        32, 1, 8, 16, 32, //
        // 55 UB, LB, PACKED, PTR, COUNT
        0, 0, 1, 8, 8,
    ];
    usize::try_from(id + 1)
        .ok()
        .and_then(|i| SIZES.get(i).copied())
}

/// The replay state of one rank, apart from the file.
pub(super) struct State {
    rank: Rank,
    num_ranks: u32,
    /// Bytes per element of the default datatype (1, or 8 after `init x`).
    default_dt: u64,
    /// Flops per second of `compute`, unless `rank_speeds` gives the
    /// rank's own.
    host_speed: f64,
    rank_speeds: Option<RankSpeeds>,
    /// Operations produced by the last line not yet handed out (a line
    /// makes at most two: a collective and its computation).
    pending_ops: VecDeque<(Op, Origin)>,
    requests: Pending,
    next_req: u64,
    seen_request: bool,
}

/// Pending requests under (sender, receiver, tag), oldest first: FIFO
/// lists threaded through one slab, their (head, tail) by key. Only looked
/// up, never iterated, so the map's order cannot leak. (A map of deques
/// allocated a deque for each new key, at most `isend`s and `irecv`s.)
#[derive(Default)]
struct Pending {
    lists: FxHashMap<(Rank, Rank, Tag), (u32, u32)>,
    /// (request, next in its key's list or `u32::MAX`).
    slab: Vec<(ReqId, u32)>,
    free: Vec<u32>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.slab.len() == self.free.len()
    }

    fn push(&mut self, key: (Rank, Rank, Tag), req: ReqId) {
        let i = match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = (req, u32::MAX);
                i
            }
            None => {
                self.slab.push((req, u32::MAX));
                (self.slab.len() - 1) as u32
            }
        };
        match self.lists.entry(key) {
            std::collections::hash_map::Entry::Occupied(mut e) => {
                let tail = std::mem::replace(&mut e.get_mut().1, i);
                self.slab[tail as usize].1 = i;
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert((i, i));
            }
        }
    }

    fn front(&self, key: (Rank, Rank, Tag)) -> Option<ReqId> {
        self.lists.get(&key).map(|&(h, _)| self.slab[h as usize].0)
    }

    fn pop_front(&mut self, key: (Rank, Rank, Tag)) -> Option<ReqId> {
        let &(h, t) = self.lists.get(&key)?;
        let (req, next) = self.slab[h as usize];
        if h == t {
            self.lists.remove(&key);
        } else {
            self.lists.get_mut(&key).expect("list").0 = next;
        }
        self.free.push(h);
        Some(req)
    }

    fn clear(&mut self) {
        self.lists.clear();
        self.slab.clear();
        self.free.clear();
    }
}

impl State {
    /// Rank `rank`'s state before its first line.
    pub(super) fn new(rank: Rank, num_ranks: u32, config: &TiConfig) -> State {
        State {
            rank,
            num_ranks,
            default_dt: 1,
            host_speed: config.host_speed_flops,
            rank_speeds: config.rank_speeds.clone(),
            pending_ops: VecDeque::new(),
            requests: Pending::default(),
            next_req: 1,
            seen_request: false,
        }
    }

    /// The rank this state replays.
    pub(super) fn rank(&self) -> Rank {
        self.rank
    }

    /// The next operation of the lines read, if one is left.
    pub(super) fn next_pending(&mut self) -> Option<(Op, Origin)> {
        self.pending_ops.pop_front()
    }

    /// After the rank's last line: a wait for the requests still pending
    /// (at `origin`), if any.
    pub(super) fn end(&mut self, origin: impl FnOnce() -> Origin) {
        if !self.requests.is_empty() {
            self.requests.clear();
            self.pending_ops.push_back((Op::WaitallPending, origin()));
        }
    }

    fn push(&mut self, op: Op, origin: &Origin) {
        self.pending_ops.push_back((op, origin.clone()));
    }

    fn rank_arg(&self, tok: &str, what: &str) -> Result<Rank, ActionError> {
        let r: i64 = parse_int(tok, what)?;
        if r < 0 || r >= self.num_ranks as i64 {
            return Err(ActionError::NoRank {
                what: what.into(),
                rank: r,
                num_ranks: self.num_ranks,
            });
        }
        Ok(r as Rank)
    }

    fn dt(&self, tok: Option<&&str>) -> Result<u64, ActionError> {
        match tok {
            None => Ok(self.default_dt),
            Some(t) => {
                let id: i64 = parse_int(t, "datatype id")?;
                simgrid_datatype_size(id).ok_or(ActionError::Datatype(id))
            }
        }
    }

    fn compute(&self, flops: f64) -> Result<Time, ActionError> {
        if flops == 0.0 {
            return Ok(Time::ZERO);
        }
        let speed = match &self.rank_speeds {
            None => self.host_speed,
            Some(r) => r
                .get(self.rank)
                .ok_or(ActionError::UnplacedRank(self.rank))?,
        };
        let d = Time::try_from_secs_f64(flops / speed).ok_or(ActionError::ComputeTooLong(flops))?;
        sim_core::limits::check_duration(d)
            .map_err(|message| ActionError::ComputeLimit { flops, message })?;
        Ok(d)
    }

    fn push_compute(&mut self, flops: f64, origin: &Origin) -> Result<(), ActionError> {
        if flops > 0.0 {
            let duration = self.compute(flops)?;
            self.push(Op::Compute { duration }, origin);
        }
        Ok(())
    }

    fn new_req(&mut self, key: (Rank, Rank, Tag)) -> ReqId {
        let req = ReqId(self.next_req);
        self.next_req += 1;
        self.requests.push(key, req);
        self.seen_request = true;
        req
    }

    pub(super) fn action(
        &mut self,
        action: &str,
        a: &[&str],
        origin: &Origin,
    ) -> Result<(), ActionError> {
        let n = self.num_ranks as usize;
        let comm = CommId::WORLD;
        match action {
            "init" => {
                arity(a, 0, 1)?;
                // SimGrid: any argument selects MPI_DOUBLE (MPE traces),
                // none MPI_BYTE (TAU traces).
                self.default_dt = if a.is_empty() { 1 } else { 8 };
            }
            "finalize" | "comm_size" | "comm_split" | "comm_dup" | "location" => {
                // SimGrid replays these as no-ops; every action runs on
                // MPI_COMM_WORLD.
            }
            "send" | "isend" | "recv" | "irecv" => {
                arity(a, 3, 4)?;
                let partner = self.rank_arg(a[0], "partner rank")?;
                let tag: Tag = parse_int(a[1], "tag")?;
                let bytes = bytes(parse_nonneg_f64(a[2], "count")?, self.dt(a.get(3))?)?;
                let op = match action {
                    "send" => Op::Send {
                        dst: partner,
                        tag,
                        bytes,
                        comm,
                    },
                    "recv" => Op::Recv {
                        src: Source::Rank(partner),
                        tag: TagSel::Tag(tag),
                        bytes,
                        comm,
                    },
                    "isend" => Op::Isend {
                        dst: partner,
                        tag,
                        bytes,
                        comm,
                        req: self.new_req((self.rank, partner, tag)),
                    },
                    _ => Op::Irecv {
                        src: Source::Rank(partner),
                        tag: TagSel::Tag(tag),
                        bytes,
                        comm,
                        req: self.new_req((partner, self.rank, tag)),
                    },
                };
                self.push(op, origin);
            }
            "sendRecv" => {
                // SimGrid's tracer: `sendRecv sendcount dst recvcount src
                // [dt1 [dt2]]`, no tags; its replay (`SendRecvAction`)
                // uses tag 0 both ways.
                arity(a, 4, 6)?;
                let send = parse_nonneg_f64(a[0], "send count")?;
                let dst = self.rank_arg(a[1], "destination rank")?;
                let recv = parse_nonneg_f64(a[2], "receive count")?;
                let src = self.rank_arg(a[3], "source rank")?;
                let op = Op::Sendrecv {
                    dst,
                    send_tag: 0,
                    send_bytes: bytes(send, self.dt(a.get(4))?)?,
                    src: Source::Rank(src),
                    recv_tag: TagSel::Tag(0),
                    recv_bytes: bytes(recv, self.dt(a.get(5))?)?,
                    comm,
                };
                self.push(op, origin);
            }
            "wait" | "test" => {
                arity(a, 3, 3)?;
                let src = self.rank_arg(a[0], "source rank")?;
                let dst = self.rank_arg(a[1], "destination rank")?;
                let tag: Tag = parse_int(a[2], "tag")?;
                if action == "wait" && !self.seen_request {
                    return Err(ActionError::WaitFirst);
                }
                let key = (src, dst, tag);
                let found = if action == "test" {
                    self.requests.front(key)
                } else {
                    self.requests.pop_front(key)
                };
                if let Some(req) = found {
                    if action == "wait" {
                        self.push(Op::Wait { req }, origin);
                    } else {
                        self.push(Op::Test { req }, origin);
                    }
                }
            }
            "waitall" => {
                // SimGrid's tracer writes the request count (`waitall 3`);
                // its replay takes no argument and ignores what follows.
                if !self.requests.is_empty() {
                    self.requests.clear();
                    self.push(Op::WaitallPending, origin);
                }
            }
            "compute" => {
                arity(a, 1, 1)?;
                let flops = parse_nonneg_f64(a[0], "flops")?;
                let duration = self.compute(flops)?;
                self.push(Op::Compute { duration }, origin);
            }
            "sleep" => {
                arity(a, 1, 1)?;
                let secs = parse_nonneg_f64(a[0], "seconds")?;
                let duration = Time::try_from_secs_f64(secs).ok_or(ActionError::SleepTooLong)?;
                self.push(Op::Sleep { duration }, origin);
            }
            "barrier" => {
                arity(a, 0, 0)?;
                self.push(Op::Barrier { comm }, origin);
            }
            "bcast" => {
                arity(a, 1, 3)?;
                let count = parse_nonneg_f64(a[0], "count")?;
                let root = self.root(a.get(1))?;
                let dt = self.dt(a.get(2))?;
                let bytes = bytes(count, dt)?;
                self.push(
                    Op::Bcast {
                        root,
                        bytes,
                        elem_bytes: dt,
                        comm,
                    },
                    origin,
                );
            }
            "reduce" => {
                arity(a, 2, 4)?;
                let count = parse_nonneg_f64(a[0], "count")?;
                let flops = parse_nonneg_f64(a[1], "flops")?;
                let root = self.root(a.get(2))?;
                let dt = self.dt(a.get(3))?;
                let bytes = bytes(count, dt)?;
                self.push(
                    Op::Reduce {
                        root,
                        bytes,
                        elem_bytes: dt,
                        comm,
                    },
                    origin,
                );
                self.push_compute(flops, origin)?;
            }
            "allreduce" | "scan" | "exscan" => {
                arity(a, 2, 3)?;
                let count = parse_nonneg_f64(a[0], "count")?;
                let flops = parse_nonneg_f64(a[1], "flops")?;
                let dt = self.dt(a.get(2))?;
                let bytes = bytes(count, dt)?;
                let op = match action {
                    "allreduce" => Op::Allreduce {
                        bytes,
                        elem_bytes: dt,
                        comm,
                    },
                    _ => Op::Scan {
                        bytes,
                        comm,
                        exclusive: action == "exscan",
                    },
                };
                self.push(op, origin);
                self.push_compute(flops, origin)?;
            }
            "alltoall" | "allgather" => {
                arity(a, 2, 4)?;
                let send = parse_nonneg_f64(a[0], "send count")?;
                parse_nonneg_f64(a[1], "receive count")?;
                let bytes = bytes(send, self.dt(a.get(2))?)?;
                self.dt(a.get(3))?;
                let op = if action == "alltoall" {
                    Op::Alltoall { bytes, comm }
                } else {
                    Op::Allgather { bytes, comm }
                };
                self.push(op, origin);
            }
            "gather" | "scatter" => {
                arity(a, 2, 5)?;
                let send = parse_nonneg_f64(a[0], "send count")?;
                let recv = parse_nonneg_f64(a[1], "receive count")?;
                let root = self.root(a.get(2))?;
                let dt1 = self.dt(a.get(3))?;
                let dt2 = self.dt(a.get(4))?;
                let op = if action == "gather" {
                    Op::Gather {
                        root,
                        bytes: bytes(send, dt1)?,
                        comm,
                    }
                } else {
                    // Each rank receives its block: recvcount x recvtype.
                    Op::Scatter {
                        root,
                        bytes: bytes(recv, dt2)?,
                        comm,
                    }
                };
                self.push(op, origin);
            }
            "gatherv" => {
                arity(a, 1 + n, 4 + n)?;
                parse_nonneg_f64(a[0], "send count")?;
                let root = self.root(a.get(1 + n))?;
                self.dt(a.get(2 + n))?;
                let dt2 = self.dt(a.get(3 + n))?;
                let counts = counts(&a[1..1 + n], dt2)?;
                self.push(Op::Gatherv { root, counts, comm }, origin);
            }
            "scatterv" => {
                arity(a, 1 + n, 4 + n)?;
                parse_nonneg_f64(a[n], "receive count")?;
                let root = self.root(a.get(1 + n))?;
                // As SimGrid: the datatypes apply only when both are given.
                let dt1 = if a.len() == n + 4 {
                    self.dt(a.get(2 + n))?
                } else {
                    self.default_dt
                };
                let counts = counts(&a[..n], dt1)?;
                self.push(Op::Scatterv { root, counts, comm }, origin);
            }
            "allgatherv" => {
                arity(a, 1 + n, 2 + 2 * n)?;
                parse_nonneg_f64(a[0], "send count")?;
                // SimGrid's rule: with more than n fields after the counts,
                // the first is the datatype and displacements follow; with
                // exactly n, they are displacements; with 1 or 2, the first
                // is the datatype.
                let extra = a.len() - (1 + n);
                let dt = if extra > n || (1..=2).contains(&extra) {
                    self.dt(a.get(1 + n))?
                } else {
                    self.default_dt
                };
                let counts = counts(&a[1..1 + n], dt)?;
                self.push(Op::Allgatherv { counts, comm }, origin);
            }
            "alltoallv" => {
                arity(a, 2 * n + 2, 2 * n + 4)?;
                parse_nonneg_f64(a[0], "send buffer size")?;
                parse_nonneg_f64(a[1 + n], "receive buffer size")?;
                // As SimGrid: the datatypes apply only when both are given.
                let (dt1, dt2) = if a.len() == 2 * n + 4 {
                    (self.dt(a.get(2 * n + 2))?, self.dt(a.get(2 * n + 3))?)
                } else {
                    (self.default_dt, self.default_dt)
                };
                let send = counts(&a[1..1 + n], dt1)?;
                let recv = counts(&a[2 + n..2 + 2 * n], dt2)?;
                self.push(Op::Alltoallv { send, recv, comm }, origin);
            }
            "reducescatter" => {
                arity(a, n + 1, n + 2)?;
                let flops = parse_nonneg_f64(a[n], "flops")?;
                let dt = self.dt(a.get(n + 1))?;
                let counts = counts(&a[..n], dt)?;
                self.push(
                    Op::ReduceScatter {
                        counts,
                        elem_bytes: dt,
                        comm,
                    },
                    origin,
                );
                self.push_compute(flops, origin)?;
            }
            _ => return Err(ActionError::UnknownAction),
        }
        Ok(())
    }

    fn root(&self, tok: Option<&&str>) -> Result<Rank, ActionError> {
        tok.map_or(Ok(0), |t| self.rank_arg(t, "root rank"))
    }
}

fn arity(a: &[&str], min: usize, max: usize) -> Result<(), ActionError> {
    if a.len() < min || a.len() > max {
        let want = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(ActionError::Arity {
            want,
            found: a.len(),
        });
    }
    Ok(())
}

/// `count` elements of `dt` bytes (a fractional count is truncated, as
/// SimGrid's conversion to `int` does; one between 0 and 1, which would
/// silently become 0 bytes, is an error).
fn bytes(count: f64, dt: u64) -> Result<u64, ActionError> {
    if count >= u64::MAX as f64 {
        return Err(ActionError::CountTooLarge(count));
    }
    if count > 0.0 && count < 1.0 {
        return Err(ActionError::CountFraction(count));
    }
    let b = (count as u64)
        .checked_mul(dt)
        .ok_or(ActionError::SizeOverflow(count))?;
    sim_core::limits::check_bytes(b)
        .map_err(|message| ActionError::SizeLimit { count, message })?;
    Ok(b)
}

fn counts(tokens: &[&str], dt: u64) -> Result<Vec<u64>, ActionError> {
    tokens
        .iter()
        .map(|t| bytes(parse_nonneg_f64(t, "count")?, dt))
        .collect()
}

#[cfg(test)]
mod tests;
