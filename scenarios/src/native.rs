//! netsim's own trace format: one operation per line, `key=value` fields.
//!
//! Written to be easy to produce by hand or from a script, and to cover
//! every [`Op`] exactly (see `scenarios/TRACE-FORMAT.md` for the full
//! description and `scenarios/examples/native-ring.trace` for an example).
//!
//! - Blank lines and everything after `#` are ignored.
//! - A file either holds one rank's operations (no rank column; see
//!   [`NativeTrace::from_rank_files`]) or every rank's, each line starting
//!   with the rank number ([`NativeTrace::open`]); the number of ranks is
//!   the largest rank plus one. A file must not mix the two forms.
//! - Sizes (`bytes`, `sendbytes`, `recvbytes`, lists `counts`, `send`,
//!   `recv`) are integers in bytes; lists are comma-separated without
//!   blanks (`counts=8,8,16,0`).
//! - `src` and `tag` of receives accept `any` (`MPI_ANY_SOURCE`,
//!   `MPI_ANY_TAG`). `comm=N` names a communicator (default 0,
//!   `MPI_COMM_WORLD`); `comm_dup` / `comm_split` create new ones.
//! - Durations of `compute` and `sleep` are a number with a unit: `ps`,
//!   `ns`, `us`, `ms` or `s` (`compute 2.5us`), rounded to the picosecond.
//! - `req=N` names a request; waits name the requests they wait for
//!   (`wait req=1`, `waitall req=1,2`, `waitany req=3,4`); a bare `waitall`
//!   waits for every request the rank has in flight.
//!
//! | line | operation |
//! |---|---|
//! | `send dst= tag= bytes=` | [`Op::Send`] |
//! | `recv src= tag= bytes=` | [`Op::Recv`] |
//! | `isend dst= tag= bytes= req=` | [`Op::Isend`] |
//! | `irecv src= tag= bytes= req=` | [`Op::Irecv`] |
//! | `wait req=` / `test req=` | [`Op::Wait`] / [`Op::Test`] |
//! | `waitall req=a,b,..` / `waitall` | [`Op::Waitall`] / [`Op::WaitallPending`] |
//! | `waitany req=a,b,..` | [`Op::Waitany`] |
//! | `sendrecv dst= sendtag= sendbytes= src= recvtag= recvbytes=` | [`Op::Sendrecv`] |
//! | `compute <dur>` / `sleep <dur>` | [`Op::Compute`] / [`Op::Sleep`] |
//! | `region_begin id=K` / `region_end id=K` | [`Op::RegionBegin`] / [`Op::RegionEnd`] |
//! | `barrier` | [`Op::Barrier`] |
//! | `bcast root= bytes= [elem=]`, `reduce root= bytes= [elem=]` | [`Op::Bcast`], [`Op::Reduce`] |
//! | `allreduce bytes=` | [`Op::Allreduce`] |
//! | `scan bytes=` / `exscan bytes=` | [`Op::Scan`] (inclusive / exclusive) |
//! | `gather root= bytes=`, `scatter root= bytes=` | [`Op::Gather`], [`Op::Scatter`] |
//! | `gatherv root= counts=`, `scatterv root= counts=` | [`Op::Gatherv`], [`Op::Scatterv`] |
//! | `allgather bytes=`, `allgatherv counts=` | [`Op::Allgather`], [`Op::Allgatherv`] |
//! | `alltoall bytes=`, `alltoallv send= recv=` | [`Op::Alltoall`], [`Op::Alltoallv`] |
//! | `reducescatter counts=` | [`Op::ReduceScatter`] |
//! | `comm_dup new=` | [`Op::CommDup`] |
//! | `comm_split color= key= new=` | [`Op::CommSplit`] |
//! | `comm_group new=`, `group_incl group= ranks= new=`, `group_excl ..`, `group_range_incl group= ranges=f:l:s,.. new=`, `group_range_excl ..`, `group_union a= b= new=`, `group_intersection ..`, `group_difference ..`, `group_free group=` | the group operations ([`Op::CommGroup`], ...) |
//! | `comm_create group= new=`, `comm_create_group group= tag= new=`, `comm_free comm=` | [`Op::CommCreate`], [`Op::CommCreateGroup`], [`Op::CommFree`] |
//! | `cart_create dims= periods= new=`, `cart_sub remain= new=`, `graph_create index= edges= new=`, `dist_graph_adjacent sources= destinations= new=`, `dist_graph edges=s:d,.. new=` | the topology constructors |
//! | `neighbor_allgather bytes=`, `neighbor_alltoall bytes=`, `neighbor_alltoallv send=` | the neighbour collectives |
//!
//! Every line also accepts `comm=` where the operation has a communicator.
//! [`format_op`] writes an operation in this format; parsing its output
//! gives the operation back.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use mpi_layer::{CommId, Op, OpStream, Origin, ProgramError, Rank, ReqId, Source, Tag, TagSel};
use sim_core::limits;
use sim_core::time::Time;

use crate::reader::{Span, TraceReader, check_rank, check_rank_files};
use crate::text::{FilePool, Lines, PooledLines, file_error, parse_int};

mod comms;
mod error;
pub use error::{DurationError, FieldError, NativeError};

/// A native trace: one shared file or one file per rank.
///
/// The streams share one pool of open files (32 at most, whatever the
/// number of ranks): a stream remembers its byte offset and reopens its
/// file when the pool closed it.
#[derive(Clone, Debug)]
pub struct NativeTrace {
    files: Arc<Mutex<FilePool>>,
    /// Shared file: each rank's span of lines; per-rank files: `None`.
    spans: Option<Arc<Vec<Span>>>,
    num_ranks: u32,
}

impl NativeTrace {
    /// Opens a file holding every rank's operations (rank column first).
    /// Reads it once to find the number of ranks and where each rank's
    /// lines are; memory stays one line and 24 bytes per rank.
    pub fn open(path: &Path) -> Result<NativeTrace, ProgramError> {
        let mut lines = Lines::open(path)?;
        let mut spans: Vec<Span> = Vec::new();
        while lines.advance()? {
            let Some(first) = strip_comment(lines.current()).split_whitespace().next() else {
                continue;
            };
            let r: u32 = parse_int(first, "the rank (first field of a shared trace)")
                .map_err(|m| lines.error(m))?;
            check_rank(r).map_err(|m| lines.error(m))?;
            Span::extend(&mut spans, r, &lines);
        }
        if spans.is_empty() {
            return Err(file_error(path, "the trace holds no operations"));
        }
        Ok(NativeTrace {
            files: FilePool::new(vec![path.to_path_buf()]),
            num_ranks: spans.len() as u32,
            spans: Some(Arc::new(spans)),
        })
    }

    /// One file per rank, without rank column: `paths[i]` is rank `i`'s.
    /// Every file must exist.
    pub fn from_rank_files(paths: Vec<PathBuf>) -> Result<NativeTrace, ProgramError> {
        check_rank_files(&paths)?;
        Ok(NativeTrace {
            num_ranks: paths.len() as u32,
            files: FilePool::new(paths),
            spans: None,
        })
    }

    /// Rank `rank`'s operations, read lazily.
    ///
    /// # Panics
    /// If `rank >= self.num_ranks()`.
    pub fn rank_stream(&self, rank: Rank) -> Result<NativeStream, ProgramError> {
        assert!(rank < self.num_ranks, "rank {rank} out of range");
        let streams = self.num_ranks as usize;
        let lines = match &self.spans {
            Some(spans) => {
                let s = spans[rank as usize];
                PooledLines::new(&self.files, 0, (s.start, s.end), s.first_line, streams)
            }
            None => PooledLines::new(&self.files, rank as usize, (0, u64::MAX), 1, streams),
        };
        Ok(NativeStream {
            lines,
            rank,
            shared: self.spans.is_some(),
            num_ranks: self.num_ranks,
        })
    }
}

impl TraceReader for NativeTrace {
    type Stream = NativeStream;

    fn num_ranks(&self) -> u32 {
        self.num_ranks
    }

    fn streams(&self) -> Result<Vec<NativeStream>, ProgramError> {
        (0..self.num_ranks).map(|r| self.rank_stream(r)).collect()
    }
}

/// One rank's operations from a native trace.
pub struct NativeStream {
    lines: PooledLines,
    rank: Rank,
    shared: bool,
    num_ranks: u32,
}

impl std::fmt::Debug for NativeStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeStream").finish_non_exhaustive()
    }
}

impl OpStream for NativeStream {
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        while self.lines.advance()? {
            let line = strip_comment(self.lines.current());
            let mut fields = line.split_whitespace();
            let Some(mut name) = fields.next() else {
                continue;
            };
            if self.shared {
                let r: u32 = parse_int(name, "the rank (first field of a shared trace)")
                    .map_err(|m| self.lines.error(m))?;
                if r != self.rank {
                    continue;
                }
                name = fields
                    .next()
                    .ok_or_else(|| self.lines.error("missing operation after the rank"))?;
            } else if name.bytes().all(|b| b.is_ascii_digit()) {
                return Err(self.lines.error(
                    "a rank column in a per-rank file (use one shared file or no rank column)",
                ));
            }
            let op = parse_fields(name, fields, self.num_ranks).map_err(|error| {
                self.lines.error(NativeError::Op {
                    op: name.into(),
                    error,
                })
            })?;
            return Ok(Some((op, self.lines.origin())));
        }
        Ok(None)
    }
}

fn strip_comment(line: &str) -> &str {
    line.split_once('#').map_or(line, |(a, _)| a)
}

/// Parses one operation line without its rank column (`isend dst=1 ...`)
/// for a program of `num_ranks` ranks; the error says what is wrong.
pub fn parse_op(line: &str, num_ranks: u32) -> Result<Op, NativeError> {
    let mut fields = strip_comment(line).split_whitespace();
    let name = fields.next().ok_or(NativeError::EmptyLine)?;
    parse_fields(name, fields, num_ranks).map_err(|error| NativeError::Op {
        op: name.into(),
        error,
    })
}

/// The `key=value` fields of a line.
struct Fields<'a> {
    pairs: Vec<(&'a str, &'a str, bool)>, // key, value, used
    positional: Vec<&'a str>,
    num_ranks: u32,
}

impl<'a> Fields<'a> {
    fn new(it: impl Iterator<Item = &'a str>, num_ranks: u32) -> Result<Fields<'a>, FieldError> {
        let mut pairs: Vec<(&str, &str, bool)> = Vec::new();
        let mut positional = Vec::new();
        for tok in it {
            match tok.split_once('=') {
                Some((k, v)) => {
                    if pairs.iter().any(|(k2, _, _)| *k2 == k) {
                        return Err(FieldError::Twice(k.into()));
                    }
                    pairs.push((k, v, false));
                }
                None => positional.push(tok),
            }
        }
        Ok(Fields {
            pairs,
            positional,
            num_ranks,
        })
    }

    fn opt(&mut self, key: &str) -> Option<&'a str> {
        let p = self.pairs.iter_mut().find(|(k, _, _)| *k == key)?;
        p.2 = true;
        Some(p.1)
    }

    fn req(&mut self, key: &str) -> Result<&'a str, FieldError> {
        self.opt(key).ok_or_else(|| FieldError::Missing(key.into()))
    }

    fn int<T: std::str::FromStr>(&mut self, key: &str) -> Result<T, FieldError> {
        Ok(parse_int(self.req(key)?, key)?)
    }

    fn bytes(&mut self, key: &str) -> Result<u64, FieldError> {
        let v = self.req(key)?;
        if v.starts_with('-') {
            return Err(FieldError::Negative {
                key: key.into(),
                value: v.into(),
            });
        }
        let b = parse_int(v, key)?;
        limits::check_bytes(b).map_err(|message| FieldError::Limit {
            key: key.into(),
            message,
        })?;
        Ok(b)
    }

    /// `elem=`, a bcast's or reduction's bytes per element: 8 when
    /// absent, at least 1.
    fn elem(&mut self) -> Result<u64, FieldError> {
        match self.opt("elem") {
            None => Ok(mpi_layer::ELEMENT_BYTES),
            Some(_) => match self.bytes("elem")? {
                0 => Err(FieldError::ZeroBytes("elem".into())),
                b => Ok(b),
            },
        }
    }

    fn list(&mut self, key: &str) -> Result<Vec<u64>, FieldError> {
        let v = self.req(key)?;
        if v.is_empty() {
            return Ok(Vec::new());
        }
        v.split(',')
            .map(|t| {
                if t.starts_with('-') {
                    Err(FieldError::NegativeInList {
                        key: key.into(),
                        value: t.into(),
                    })
                } else {
                    Ok(parse_int(t, key)?)
                }
            })
            .collect()
    }

    fn rank(&mut self, key: &str) -> Result<Rank, FieldError> {
        let v: i64 = self.int(key)?;
        if v < 0 || v >= self.num_ranks as i64 {
            return Err(FieldError::NoRank {
                key: key.into(),
                value: v,
                num_ranks: self.num_ranks,
            });
        }
        Ok(v as Rank)
    }

    fn source(&mut self, key: &str) -> Result<Source, FieldError> {
        if self.opt(key) == Some("any") {
            return Ok(Source::Any);
        }
        Ok(Source::Rank(self.rank(key)?))
    }

    fn tag_sel(&mut self, key: &str) -> Result<TagSel, FieldError> {
        if self.opt(key) == Some("any") {
            return Ok(TagSel::Any);
        }
        Ok(TagSel::Tag(self.int(key)?))
    }

    fn comm(&mut self) -> Result<CommId, FieldError> {
        match self.opt("comm") {
            None => Ok(CommId::WORLD),
            Some(v) => Ok(CommId(parse_int(v, "comm")?)),
        }
    }

    fn reqs(&mut self) -> Result<Vec<ReqId>, FieldError> {
        let v = self.req("req")?;
        Ok(v.split(',')
            .map(|t| parse_int(t, "req").map(ReqId))
            .collect::<Result<_, _>>()?)
    }

    fn duration(&mut self) -> Result<Time, FieldError> {
        if self.positional.len() != 1 {
            return Err(FieldError::DurationCount);
        }
        let t = self.positional.remove(0);
        let d = parse_duration(t)?;
        limits::check_duration(d).map_err(FieldError::DurationLimit)?;
        Ok(d)
    }

    fn finish(self) -> Result<(), FieldError> {
        if let Some(p) = self.positional.first() {
            return Err(FieldError::Positional(p.to_string()));
        }
        if let Some((k, _, _)) = self.pairs.iter().find(|p| !p.2) {
            return Err(FieldError::Unknown(k.to_string()));
        }
        Ok(())
    }
}

/// Parses `2.5us`, `100ns`, `3s`, `1e-3s`, ...
pub fn parse_duration(t: &str) -> Result<Time, DurationError> {
    // The unit starts at the first letter that is not a number's exponent
    // (`1e-3s`: the `e` of `e-3` is followed by a digit or a signed digit).
    let b = t.as_bytes();
    let exponent = |i: usize| {
        matches!(b[i], b'e' | b'E')
            && i > 0
            && (b[i - 1].is_ascii_digit() || b[i - 1] == b'.')
            && match b.get(i + 1) {
                Some(d) if d.is_ascii_digit() => true,
                Some(b'+' | b'-') => b.get(i + 2).is_some_and(u8::is_ascii_digit),
                _ => false,
            }
    };
    let split = (0..b.len())
        .find(|&i| b[i].is_ascii_alphabetic() && !exponent(i))
        .ok_or_else(|| DurationError::NoUnit(t.into()))?;
    let (num, unit) = t.split_at(split);
    let scale = match unit {
        "ps" => 1e-12,
        "ns" => 1e-9,
        "us" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return Err(DurationError::UnknownUnit(unit.into())),
    };
    if unit == "ps" {
        if let Ok(ps) = num.parse::<u64>() {
            return Ok(Time::from_ps(ps));
        }
    }
    let v: f64 = num
        .parse()
        .map_err(|_| DurationError::NotANumber(t.into()))?;
    Time::try_from_secs_f64(v * scale).ok_or_else(|| DurationError::OutOfRange(t.into()))
}

fn parse_fields<'a>(
    name: &str,
    it: impl Iterator<Item = &'a str>,
    num_ranks: u32,
) -> Result<Op, FieldError> {
    let mut f = Fields::new(it, num_ranks)?;
    let op = match name {
        "send" => Op::Send {
            dst: f.rank("dst")?,
            tag: f.int::<Tag>("tag")?,
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
        },
        "recv" => Op::Recv {
            src: f.source("src")?,
            tag: f.tag_sel("tag")?,
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
        },
        "isend" => Op::Isend {
            dst: f.rank("dst")?,
            tag: f.int::<Tag>("tag")?,
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
            req: ReqId(f.int("req")?),
        },
        "irecv" => Op::Irecv {
            src: f.source("src")?,
            tag: f.tag_sel("tag")?,
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
            req: ReqId(f.int("req")?),
        },
        "wait" => Op::Wait {
            req: ReqId(f.int("req")?),
        },
        "test" => Op::Test {
            req: ReqId(f.int("req")?),
        },
        "waitall" => {
            if f.pairs.is_empty() {
                Op::WaitallPending
            } else {
                Op::Waitall { reqs: f.reqs()? }
            }
        }
        "waitany" => Op::Waitany { reqs: f.reqs()? },
        "sendrecv" => Op::Sendrecv {
            dst: f.rank("dst")?,
            send_tag: f.int("sendtag")?,
            send_bytes: f.bytes("sendbytes")?,
            src: f.source("src")?,
            recv_tag: f.tag_sel("recvtag")?,
            recv_bytes: f.bytes("recvbytes")?,
            comm: f.comm()?,
        },
        "compute" => Op::Compute {
            duration: f.duration()?,
        },
        "sleep" => Op::Sleep {
            duration: f.duration()?,
        },
        "region_begin" => Op::RegionBegin { id: f.int("id")? },
        "region_end" => Op::RegionEnd { id: f.int("id")? },
        "barrier" => Op::Barrier { comm: f.comm()? },
        "bcast" => Op::Bcast {
            root: f.rank("root")?,
            bytes: f.bytes("bytes")?,
            elem_bytes: f.elem()?,
            comm: f.comm()?,
        },
        "reduce" => Op::Reduce {
            root: f.rank("root")?,
            bytes: f.bytes("bytes")?,
            elem_bytes: f.elem()?,
            comm: f.comm()?,
        },
        "allreduce" => Op::Allreduce {
            bytes: f.bytes("bytes")?,
            elem_bytes: f.elem()?,
            comm: f.comm()?,
        },
        "scan" | "exscan" => Op::Scan {
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
            exclusive: name == "exscan",
        },
        "gather" => Op::Gather {
            root: f.rank("root")?,
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
        },
        "gatherv" => Op::Gatherv {
            root: f.rank("root")?,
            counts: f.list("counts")?,
            comm: f.comm()?,
        },
        "scatter" => Op::Scatter {
            root: f.rank("root")?,
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
        },
        "scatterv" => Op::Scatterv {
            root: f.rank("root")?,
            counts: f.list("counts")?,
            comm: f.comm()?,
        },
        "allgather" => Op::Allgather {
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
        },
        "allgatherv" => Op::Allgatherv {
            counts: f.list("counts")?,
            comm: f.comm()?,
        },
        "alltoall" => Op::Alltoall {
            bytes: f.bytes("bytes")?,
            comm: f.comm()?,
        },
        "alltoallv" => Op::Alltoallv {
            send: f.list("send")?,
            recv: f.list("recv")?,
            comm: f.comm()?,
        },
        "reducescatter" => Op::ReduceScatter {
            counts: f.list("counts")?,
            elem_bytes: f.elem()?,
            comm: f.comm()?,
        },
        "comm_dup" => Op::CommDup {
            comm: f.comm()?,
            new: CommId(f.int("new")?),
        },
        "comm_split" => Op::CommSplit {
            comm: f.comm()?,
            color: f.int("color")?,
            key: f.int("key")?,
            new: CommId(f.int("new")?),
        },
        _ => match comms::parse(name, &mut f) {
            Some(op) => op?,
            None => return Err(FieldError::UnknownOp),
        },
    };
    f.finish()?;
    Ok(op)
}

/// Writes `op` as one line of the native format (without rank column);
/// [`parse_op`] reads it back to the same operation.
pub fn format_op(op: &Op) -> String {
    fn comm(c: CommId) -> String {
        if c == CommId::WORLD {
            String::new()
        } else {
            format!(" comm={}", c.0)
        }
    }
    fn src(s: Source) -> String {
        match s {
            Source::Rank(r) => r.to_string(),
            Source::Any => "any".into(),
        }
    }
    fn tag(t: TagSel) -> String {
        match t {
            TagSel::Tag(t) => t.to_string(),
            TagSel::Any => "any".into(),
        }
    }
    fn list<T: std::fmt::Display>(v: &[T]) -> String {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }
    fn reqs(v: &[ReqId]) -> String {
        list(&v.iter().map(|r| r.0).collect::<Vec<_>>())
    }
    match op {
        Op::Send {
            dst,
            tag,
            bytes,
            comm: c,
        } => {
            format!("send dst={dst} tag={tag} bytes={bytes}{}", comm(*c))
        }
        Op::Recv {
            src: s,
            tag: t,
            bytes,
            comm: c,
        } => {
            format!(
                "recv src={} tag={} bytes={bytes}{}",
                src(*s),
                tag(*t),
                comm(*c)
            )
        }
        Op::Isend {
            dst,
            tag,
            bytes,
            comm: c,
            req,
        } => {
            format!(
                "isend dst={dst} tag={tag} bytes={bytes} req={}{}",
                req.0,
                comm(*c)
            )
        }
        Op::Irecv {
            src: s,
            tag: t,
            bytes,
            comm: c,
            req,
        } => format!(
            "irecv src={} tag={} bytes={bytes} req={}{}",
            src(*s),
            tag(*t),
            req.0,
            comm(*c)
        ),
        Op::Wait { req } => format!("wait req={}", req.0),
        Op::Waitall { reqs: r } => format!("waitall req={}", reqs(r)),
        Op::WaitallPending => "waitall".into(),
        Op::Waitany { reqs: r } => format!("waitany req={}", reqs(r)),
        Op::Test { req } => format!("test req={}", req.0),
        Op::Sendrecv {
            dst,
            send_tag,
            send_bytes,
            src: s,
            recv_tag,
            recv_bytes,
            comm: c,
        } => format!(
            "sendrecv dst={dst} sendtag={send_tag} sendbytes={send_bytes} src={} recvtag={} recvbytes={recv_bytes}{}",
            src(*s),
            tag(*recv_tag),
            comm(*c)
        ),
        Op::Compute { duration } => format!("compute {}ps", duration.as_ps()),
        Op::Sleep { duration } => format!("sleep {}ps", duration.as_ps()),
        Op::RegionBegin { id } => format!("region_begin id={id}"),
        Op::RegionEnd { id } => format!("region_end id={id}"),
        Op::Barrier { comm: c } => format!("barrier{}", comm(*c)),
        Op::Bcast {
            root,
            bytes,
            elem_bytes,
            comm: c,
        } => format!(
            "bcast root={root} bytes={bytes} elem={elem_bytes}{}",
            comm(*c)
        ),
        Op::Reduce {
            root,
            bytes,
            elem_bytes,
            comm: c,
        } => {
            format!(
                "reduce root={root} bytes={bytes} elem={elem_bytes}{}",
                comm(*c)
            )
        }
        Op::Allreduce {
            bytes,
            elem_bytes,
            comm: c,
        } => format!("allreduce bytes={bytes} elem={elem_bytes}{}", comm(*c)),
        Op::Scan {
            bytes,
            comm: c,
            exclusive,
        } => format!(
            "{} bytes={bytes}{}",
            if *exclusive { "exscan" } else { "scan" },
            comm(*c)
        ),
        Op::Gather {
            root,
            bytes,
            comm: c,
        } => {
            format!("gather root={root} bytes={bytes}{}", comm(*c))
        }
        Op::Gatherv {
            root,
            counts,
            comm: c,
        } => {
            format!("gatherv root={root} counts={}{}", list(counts), comm(*c))
        }
        Op::Scatter {
            root,
            bytes,
            comm: c,
        } => {
            format!("scatter root={root} bytes={bytes}{}", comm(*c))
        }
        Op::Scatterv {
            root,
            counts,
            comm: c,
        } => {
            format!("scatterv root={root} counts={}{}", list(counts), comm(*c))
        }
        Op::Allgather { bytes, comm: c } => format!("allgather bytes={bytes}{}", comm(*c)),
        Op::Allgatherv { counts, comm: c } => {
            format!("allgatherv counts={}{}", list(counts), comm(*c))
        }
        Op::Alltoall { bytes, comm: c } => format!("alltoall bytes={bytes}{}", comm(*c)),
        Op::Alltoallv {
            send,
            recv,
            comm: c,
        } => format!(
            "alltoallv send={} recv={}{}",
            list(send),
            list(recv),
            comm(*c)
        ),
        Op::ReduceScatter {
            counts,
            elem_bytes,
            comm: c,
        } => format!(
            "reducescatter counts={} elem={elem_bytes}{}",
            list(counts),
            comm(*c)
        ),
        Op::CommDup { comm: c, new } => format!("comm_dup new={}{}", new.0, comm(*c)),
        Op::CommSplit {
            comm: c,
            color,
            key,
            new,
        } => format!(
            "comm_split color={color} key={key} new={}{}",
            new.0,
            comm(*c)
        ),
        _ => comms::format(op).expect("every operation has a line"),
    }
}

#[cfg(test)]
mod tests;
