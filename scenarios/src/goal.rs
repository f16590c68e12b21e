//! GOAL schedules (LogGOPSim, Schedgen) in their text form.
//!
//! ```text
//! num_ranks 2
//! rank 0 {
//!   l1: calc 100
//!   l2: send 8b to 1 tag 0
//!   l2 requires l1
//! }
//! rank 1 {
//!   l1: recv 8b from 0 tag 0
//!   l2: calc 50 cpu 0
//!   l2 requires l1
//! }
//! ```
//!
//! The grammar (LogGOPSim's `txt2bin`): `num_ranks N` before the first
//! block; one `rank R { ... }` block per rank; inside, one item per line:
//! an operation with an optional label `l:`, `send <n>b to <r> [tag <t>]
//! [cpu <c>] [nic <k>]`, `recv <n>b from <r>|-1 [tag <t>|-1] [cpu <c>] [nic
//! <k>]` (`-1`: any source, any tag), `calc <n> [cpu <c>]`; or a
//! dependency `a requires b` (a starts after b completes) or `a irequires
//! b` (a starts after b starts), naming labels defined above it in the
//! block. Comments are `// ...` and `/* ... */`. The `cpu` and `nic` fields
//! are read and ignored (one core and one NIC per rank).
//!
//! # Linearization: from a DAG to an MPI operation stream
//!
//! A GOAL rank is a DAG that LogGOPSim executes as operations become ready.
//! An [`OpStream`] is a sequence, so each rank's DAG is turned into one
//! faithful order of MPI calls:
//!
//! - `send` becomes `Isend`, `recv` `Irecv` (request = the operation's
//!   index in the block), `calc n` becomes `Compute` of `n` x
//!   [`GoalConfig::calc_unit`];
//! - an operation is *ready* when everything it `requires` or `irequires`
//!   has been issued; it is *free* when, in addition, every communication it
//!   `requires` has been waited for (a `calc` is complete once issued);
//! - repeatedly issue: the first (in declaration order) free ready
//!   communication; if there is none, the first free ready `calc`; if there
//!   is none, the first ready operation, after a `Wait` for each
//!   communication it requires that was not yet waited for;
//! - at the end, a `Waitall` on the requests never waited for.
//!
//! Nonblocking posts therefore happen as early as the DAG allows and waits
//! as late as possible. What is lost: LogGOPSim starts operations in the
//! order their dependencies complete at run time, while the stream fixes
//! one order in advance: if `c` requires recv `r1` and `d` requires recv
//! `r2`, the stream waits for `r1` before `d` even if `r2` arrives first;
//! `calc`s run one after another on one core (GOAL's `cpu` field allows
//! parallel ones); `irequires` is kept as an order, not as a start-time
//! coupling.
//!
//! # Streaming
//!
//! [`GoalSchedule::open`] scans the file once and remembers where each
//! rank's block starts (byte offset); a rank's stream seeks there and reads
//! only its block. The block's DAG is held in memory to order it, so memory
//! grows with the largest rank block, not with the whole schedule.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mpi_layer::{CommId, Op, OpStream, Origin, ProgramError, Rank, ReqId, Source, Tag, TagSel};
use sim_core::time::Time;

use crate::text::{error_at, file_error, open, parse_int, path_name};
use sim_core::limits;

/// Parameters of GOAL replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalConfig {
    /// Duration of one unit of `calc` (default 1 ns: LogGOPSim counts all
    /// times, `L`, `o`, `g` and `calc` amounts alike, in nanoseconds).
    pub calc_unit: Time,
}

impl Default for GoalConfig {
    fn default() -> Self {
        GoalConfig {
            calc_unit: Time::from_ns(1),
        }
    }
}

/// A GOAL schedule file, indexed by rank block.
#[derive(Clone, Debug)]
pub struct GoalSchedule {
    path: PathBuf,
    num_ranks: u32,
    /// (byte offset, line number) of the line after `rank R {`, per rank;
    /// `None` for ranks without a block.
    blocks: Vec<Option<(u64, u64)>>,
    config: GoalConfig,
}

/// Strips comments from `line`, tracking `/* */` across lines.
fn strip_comments(line: &str, in_block: &mut bool) -> String {
    let mut out = String::new();
    let mut rest = line;
    loop {
        if *in_block {
            match rest.find("*/") {
                Some(i) => {
                    rest = &rest[i + 2..];
                    *in_block = false;
                }
                None => return out,
            }
        } else {
            let lc = rest.find("//");
            let bc = rest.find("/*");
            match (lc, bc) {
                (Some(l), b) if b.is_none_or(|b| l < b) => {
                    out.push_str(&rest[..l]);
                    return out;
                }
                (_, Some(b)) => {
                    out.push_str(&rest[..b]);
                    out.push(' ');
                    rest = &rest[b + 2..];
                    *in_block = true;
                }
                _ => {
                    out.push_str(rest);
                    return out;
                }
            }
        }
    }
}

impl GoalSchedule {
    /// Scans `path` once: `num_ranks` and where each `rank R {` block
    /// starts. Errors: no `num_ranks`, a block for a rank that does not
    /// exist, a rank defined twice, an unclosed block.
    pub fn open(path: &Path, config: GoalConfig) -> Result<GoalSchedule, ProgramError> {
        let source = path_name(path);
        let mut r = BufReader::new(open(path)?);
        let (mut buf, mut pos, mut line, mut in_comment) = (String::new(), 0u64, 0u64, false);
        let mut num_ranks: Option<u32> = None;
        let mut blocks: Vec<Option<(u64, u64)>> = Vec::new();
        let mut open_block: Option<u64> = None;
        loop {
            buf.clear();
            let n = r
                .read_line(&mut buf)
                .map_err(|e| error_at(&source, line + 1, format!("cannot read: {e}")))?;
            if n == 0 {
                break;
            }
            pos += n as u64;
            line += 1;
            let text = strip_comments(&buf, &mut in_comment);
            let toks: Vec<&str> = text.split_whitespace().collect();
            let err = |m: String| error_at(&source, line, m);
            if open_block.is_some() {
                if toks.first() == Some(&"}") {
                    open_block = None;
                }
                continue;
            }
            match toks.as_slice() {
                [] => {}
                ["num_ranks", n] => {
                    let n: u32 = parse_int(n, "num_ranks").map_err(err)?;
                    limits::check_ranks(n.into()).map_err(|m| err(format!("num_ranks: {m}")))?;
                    num_ranks = Some(n);
                    blocks = vec![None; n as usize];
                }
                ["rank", r, "{"] => {
                    let n =
                        num_ranks.ok_or_else(|| err("`rank` block before `num_ranks`".into()))?;
                    let r: u32 = parse_int(r, "rank").map_err(err)?;
                    if r >= n {
                        return Err(err(format!("rank {r} does not exist (num_ranks {n})")));
                    }
                    if blocks[r as usize].is_some() {
                        return Err(err(format!("rank {r} has two blocks")));
                    }
                    blocks[r as usize] = Some((pos, line));
                    open_block = Some(line);
                }
                _ => {
                    return Err(err(format!(
                        "expected `num_ranks N` or `rank R {{`, found `{}`",
                        text.trim()
                    )));
                }
            }
        }
        if let Some(l) = open_block {
            return Err(error_at(
                &source,
                l,
                "`rank` block is never closed with `}`",
            ));
        }
        let num_ranks = num_ranks.ok_or_else(|| file_error(path, "no `num_ranks` line"))?;
        Ok(GoalSchedule {
            path: path.to_path_buf(),
            num_ranks,
            blocks,
            config,
        })
    }

    /// The number of ranks.
    pub fn num_ranks(&self) -> u32 {
        self.num_ranks
    }

    /// Rank `rank`'s operations, linearized (see the module docs). Reads
    /// and orders the rank's block when called.
    ///
    /// # Panics
    /// If `rank >= self.num_ranks()`.
    pub fn rank_stream(&self, rank: Rank) -> Result<GoalStream, ProgramError> {
        let source = path_name(&self.path);
        let ops = match self.blocks[rank as usize] {
            None => VecDeque::new(),
            Some((offset, line)) => {
                let mut f = open(&self.path)?;
                f.seek(SeekFrom::Start(offset))
                    .map_err(|e| file_error(&self.path, format!("cannot seek: {e}")))?;
                let block = read_block(f, &source, line, self.num_ranks)?;
                linearize(&block, &source, &self.config)?
            }
        };
        Ok(GoalStream { ops })
    }

    /// One stream per rank, rank order.
    pub fn streams(&self) -> Result<Vec<GoalStream>, ProgramError> {
        (0..self.num_ranks).map(|r| self.rank_stream(r)).collect()
    }
}

#[derive(Clone, Debug)]
enum Kind {
    Send {
        dst: Rank,
        tag: Tag,
        bytes: u64,
    },
    Recv {
        src: Source,
        tag: TagSel,
        bytes: u64,
    },
    Calc {
        amount: u64,
    },
}

#[derive(Clone, Debug)]
struct Node {
    kind: Kind,
    line: u64,
    requires: Vec<usize>,
    irequires: Vec<usize>,
}

/// Reads one rank block (from just after `rank R {` to `}`).
fn read_block(
    f: File,
    source: &Arc<str>,
    first_line: u64,
    num_ranks: u32,
) -> Result<Vec<Node>, ProgramError> {
    let mut r = BufReader::new(f);
    let (mut buf, mut line, mut in_comment) = (String::new(), first_line, false);
    let mut nodes: Vec<Node> = Vec::new();
    let mut labels: HashMap<String, usize> = HashMap::new();
    loop {
        buf.clear();
        let n = r
            .read_line(&mut buf)
            .map_err(|e| error_at(source, line + 1, format!("cannot read: {e}")))?;
        if n == 0 {
            return Err(error_at(source, line, "end of file inside a rank block"));
        }
        line += 1;
        let text = strip_comments(&buf, &mut in_comment);
        let toks: Vec<&str> = text.split_whitespace().collect();
        let err = |m: String| error_at(source, line, m);
        if toks.is_empty() {
            continue;
        }
        if toks == ["}"] {
            return Ok(nodes);
        }
        // Dependency: `a requires b` / `a irequires b`.
        if let [a, dep @ ("requires" | "irequires"), b] = toks.as_slice() {
            let find = |l: &str| {
                labels
                    .get(l)
                    .copied()
                    .ok_or_else(|| err(format!("dependency names label `{l}`, undefined above")))
            };
            let (ia, ib) = (find(a)?, find(b)?);
            if ia == ib {
                return Err(err(format!("`{a}` depends on itself")));
            }
            if *dep == "requires" {
                nodes[ia].requires.push(ib);
            } else {
                nodes[ia].irequires.push(ib);
            }
            continue;
        }
        // Operation with an optional label.
        let (label, rest): (Option<&str>, &[&str]) = match toks.as_slice() {
            [l, rest @ ..] if l.ends_with(':') && l.len() > 1 => (Some(&l[..l.len() - 1]), rest),
            [l, ":", rest @ ..] => (Some(*l), rest),
            rest => (None, rest),
        };
        let kind = parse_goal_op(rest, num_ranks).map_err(err)?;
        if let Some(l) = label {
            if labels.insert(l.to_string(), nodes.len()).is_some() {
                return Err(err(format!("label `{l}` defined twice")));
            }
        }
        nodes.push(Node {
            kind,
            line,
            requires: Vec::new(),
            irequires: Vec::new(),
        });
    }
}

fn parse_goal_op(t: &[&str], num_ranks: u32) -> Result<Kind, String> {
    let size = |tok: Option<&&str>| -> Result<u64, String> {
        let tok = tok.ok_or("missing size")?;
        let num = tok
            .strip_suffix('b')
            .ok_or_else(|| format!("size `{tok}` must be bytes, e.g. `8b`"))?;
        if num.starts_with('-') {
            return Err(format!("size must not be negative, found `{tok}`"));
        }
        let b = parse_int(num, "size")?;
        limits::check_bytes(b).map_err(|m| format!("size: {m}"))?;
        Ok(b)
    };
    let peer = |tok: Option<&&str>, any: bool| -> Result<Option<Rank>, String> {
        let tok = tok.ok_or("missing peer rank")?;
        if any && *tok == "-1" {
            return Ok(None);
        }
        let r: i64 = parse_int(tok, "peer rank")?;
        if r < 0 || r >= num_ranks as i64 {
            return Err(format!("rank {r} does not exist (num_ranks {num_ranks})"));
        }
        Ok(Some(r as Rank))
    };
    // Optional trailing `tag T`, `cpu C`, `nic K`.
    let options = |rest: &[&str], allowed: &[&str]| -> Result<Option<i64>, String> {
        let mut tag = None;
        let mut it = rest.iter();
        while let Some(k) = it.next() {
            if !allowed.contains(k) {
                return Err(format!("unexpected `{k}` (expected one of {allowed:?})"));
            }
            let v = it.next().ok_or_else(|| format!("`{k}` needs a value"))?;
            let v: i64 = parse_int(v, k)?;
            if *k == "tag" {
                tag = Some(v);
            }
        }
        Ok(tag)
    };
    match t.first().copied() {
        Some("send") => {
            if t.get(2) != Some(&"to") {
                return Err("expected `send <n>b to <rank>`".into());
            }
            let bytes = size(t.get(1))?;
            let dst = peer(t.get(3), false)?.expect("not any");
            let tag = options(&t[4.min(t.len())..], &["tag", "cpu", "nic"])?.unwrap_or(0);
            if tag < 0 {
                return Err("a send needs a non-negative tag".into());
            }
            Ok(Kind::Send {
                dst,
                tag: i32::try_from(tag).map_err(|_| "tag too large")?,
                bytes,
            })
        }
        Some("recv") => {
            if t.get(2) != Some(&"from") {
                return Err("expected `recv <n>b from <rank>`".into());
            }
            let bytes = size(t.get(1))?;
            let src = peer(t.get(3), true)?.map_or(Source::Any, Source::Rank);
            let tag = match options(&t[4.min(t.len())..], &["tag", "cpu", "nic"])? {
                Some(-1) => TagSel::Any,
                Some(v) => TagSel::Tag(i32::try_from(v).map_err(|_| "tag out of range")?),
                None => TagSel::Tag(0),
            };
            Ok(Kind::Recv { src, tag, bytes })
        }
        Some("calc") => {
            let amount: u64 = parse_int(t.get(1).ok_or("missing amount")?, "calc amount")?;
            options(&t[2.min(t.len())..], &["cpu"])?;
            Ok(Kind::Calc { amount })
        }
        Some(other) => Err(format!(
            "unknown operation `{other}` (send, recv, calc, or a dependency)"
        )),
        None => Err("missing operation after the label".into()),
    }
}

/// Orders a rank's DAG into operations (see the module docs).
/// O((operations + dependencies) log operations).
fn linearize(
    nodes: &[Node],
    source: &Arc<str>,
    cfg: &GoalConfig,
) -> Result<VecDeque<(Op, Origin)>, ProgramError> {
    let n = nodes.len();
    let is_comm = |i: usize| !matches!(nodes[i].kind, Kind::Calc { .. });
    // Unissued dependencies, and communications required but not waited.
    let mut indeg: Vec<usize> = nodes
        .iter()
        .map(|x| x.requires.len() + x.irequires.len())
        .collect();
    let mut unwaited: Vec<usize> = nodes
        .iter()
        .map(|x| x.requires.iter().filter(|&&d| is_comm(d)).count())
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waiters: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, x) in nodes.iter().enumerate() {
        for &d in x.requires.iter().chain(&x.irequires) {
            children[d].push(i);
        }
        for &d in x.requires.iter().filter(|&&d| is_comm(d)) {
            waiters[d].push(i);
        }
    }
    let (mut free_comm, mut free_calc, mut blocked) =
        (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    let ready = |i: usize,
                 unwaited: &[usize],
                 fc: &mut BTreeSet<usize>,
                 fk: &mut BTreeSet<usize>,
                 b: &mut BTreeSet<usize>| {
        if unwaited[i] > 0 {
            b.insert(i);
        } else if is_comm(i) {
            fc.insert(i);
        } else {
            fk.insert(i);
        }
    };
    for (i, _) in indeg.iter().enumerate().filter(|&(_, &d)| d == 0) {
        ready(i, &unwaited, &mut free_comm, &mut free_calc, &mut blocked);
    }
    let mut waited = vec![false; n];
    let mut out = VecDeque::new();
    let origin = |line: u64| Origin {
        source: source.clone(),
        line,
    };
    let mut issued = 0;
    while issued < n {
        let i = if let Some(i) = free_comm.pop_first() {
            i
        } else if let Some(i) = free_calc.pop_first() {
            i
        } else if let Some(i) = blocked.pop_first() {
            for &d in &nodes[i].requires {
                if is_comm(d) && !waited[d] {
                    waited[d] = true;
                    out.push_back((
                        Op::Wait {
                            req: ReqId(d as u64),
                        },
                        origin(nodes[i].line),
                    ));
                    for &c in &waiters[d] {
                        unwaited[c] -= 1;
                        if c != i && unwaited[c] == 0 && blocked.remove(&c) {
                            ready(c, &unwaited, &mut free_comm, &mut free_calc, &mut blocked);
                        }
                    }
                }
            }
            i
        } else {
            let i = (0..n).find(|&i| indeg[i] > 0).expect("unissued operation");
            return Err(error_at(
                source,
                nodes[i].line,
                "dependency cycle: this operation can never start",
            ));
        };
        let req = ReqId(i as u64);
        let op = match nodes[i].kind {
            Kind::Send { dst, tag, bytes } => Op::Isend {
                dst,
                tag,
                bytes,
                comm: CommId::WORLD,
                req,
            },
            Kind::Recv { src, tag, bytes } => Op::Irecv {
                src,
                tag,
                bytes,
                comm: CommId::WORLD,
                req,
            },
            Kind::Calc { amount } => {
                let ps = (amount as u128) * (cfg.calc_unit.as_ps() as u128);
                let duration = u64::try_from(ps).map(Time::from_ps).unwrap_or(Time::MAX);
                limits::check_duration(duration).map_err(|m| {
                    error_at(
                        source,
                        nodes[i].line,
                        format!("calc {amount} (x {} ps): {m}", cfg.calc_unit.as_ps()),
                    )
                })?;
                Op::Compute { duration }
            }
        };
        issued += 1;
        out.push_back((op, origin(nodes[i].line)));
        for &c in &children[i] {
            indeg[c] -= 1;
            if indeg[c] == 0 {
                ready(c, &unwaited, &mut free_comm, &mut free_calc, &mut blocked);
            }
        }
    }
    let rest: Vec<ReqId> = (0..n)
        .filter(|&i| is_comm(i) && !waited[i])
        .map(|i| ReqId(i as u64))
        .collect();
    if !rest.is_empty() {
        let line = nodes.last().map_or(0, |x| x.line);
        out.push_back((Op::Waitall { reqs: rest }, origin(line)));
    }
    Ok(out)
}

/// One rank of a GOAL schedule, linearized.
pub struct GoalStream {
    ops: VecDeque<(Op, Origin)>,
}

impl OpStream for GoalStream {
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        Ok(self.ops.pop_front())
    }
}
