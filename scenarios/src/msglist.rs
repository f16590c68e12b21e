//! One communication phase from a message list: CSV rows `src,dst,bytes`.
//!
//! Every rank posts an `Irecv` for each message it receives, then an
//! `Isend` for each message it sends (in listed order), then one `Waitall`
//! on all of them: the exchange of one sparse matrix-vector or
//! matrix-matrix product in the AMG patterns of
//! `workloads/amg-elasticity/` (Bienz et al., EuroMPI'18, Figures 10-11).
//!
//! The order in which a rank posts its receives is a parameter
//! ([`RecvOrder`]): as listed, reversed, or shuffled with a seed (one
//! independent stream per rank from [`RngStreams`], so the order of rank
//! `r` does not depend on how many ranks there are). Receive order matters
//! because MPI matches incoming messages against posted receives by a
//! linear search of the posted-receive queue.
//!
//! The list is read once into three columns and two index arrays (CSR by
//! sender and by receiver): 28 bytes per message, plus 8 per rank. A
//! rank's program is produced on the fly from those arrays; nothing else
//! is allocated per message.
//!
//! The file: an optional header `src,dst,bytes`, then one message per row;
//! blank lines and lines starting with `#` are skipped; `src` and `dst` are
//! ranks, `bytes` a non-negative integer. All messages use one tag
//! ([`MessageListConfig::tag`]); MPI's non-overtaking rule keeps several
//! messages between one pair matched in listed order.

use std::path::Path;
use std::sync::Arc;

use mpi_layer::{CommId, Op, OpStream, Origin, ProgramError, Rank, ReqId, Source, Tag, TagSel};
use sim_core::limits;
use sim_core::rng::{Rng, RngStreams};

use crate::reader::TraceReader;
use crate::text::{Lines, file_error, parse_int};

/// The order in which each rank posts its receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecvOrder {
    /// The order of the rows in the file (default).
    AsListed,
    /// The reverse of the listed order.
    Reversed,
    /// A uniformly random permutation per rank, drawn from stream
    /// `"msglist-recv-order"` indexed by the rank, under master `seed`.
    Shuffled {
        /// Master seed of the [`RngStreams`].
        seed: u64,
    },
}

/// Parameters of a message-list phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageListConfig {
    /// Number of ranks; `None`: the largest rank in the list plus one. Give
    /// it when some ranks send and receive nothing (e.g. `P = 8192` for the
    /// `P8192-*` files); a row naming a rank `>= num_ranks` is an error.
    pub num_ranks: Option<u32>,
    /// Receive posting order (default [`RecvOrder::AsListed`]).
    pub recv_order: RecvOrder,
    /// Tag of every message (default 0).
    pub tag: Tag,
}

impl Default for MessageListConfig {
    fn default() -> Self {
        MessageListConfig {
            num_ranks: None,
            recv_order: RecvOrder::AsListed,
            tag: 0,
        }
    }
}

/// A message list read into memory, from which per-rank programs are made.
#[derive(Clone, Debug)]
pub struct MessageList {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    source: Arc<str>,
    num_ranks: u32,
    tag: Tag,
    src: Vec<u32>,
    dst: Vec<u32>,
    bytes: Vec<u64>,
    /// File line of each message, for error messages and origins.
    line: Vec<u32>,
    /// Messages sent by rank r: `send_idx[send_start[r]..send_start[r+1]]`,
    /// listed order.
    send_start: Vec<u32>,
    send_idx: Vec<u32>,
    /// Messages received by rank r, in posting order.
    recv_start: Vec<u32>,
    recv_idx: Vec<u32>,
}

impl MessageList {
    /// Reads `path` (see the module docs).
    pub fn read(path: &Path, config: &MessageListConfig) -> Result<MessageList, ProgramError> {
        if let Some(p) = config.num_ranks {
            limits::check_ranks(p.into())
                .map_err(|m| file_error(path, format!("num_ranks: {m}")))?;
        }
        // Read by hand, line by line, not with the `csv` crate: a row is
        // three integers (no quoting to handle), and the crate's record
        // positions count from where its read began, so a row after a
        // blank line or a comment would be reported on the wrong line.
        let mut lines = Lines::open(path)?;
        let (mut src, mut dst, mut bytes, mut line) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut first = true;
        while lines.advance()? {
            let l = lines.current().trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            if std::mem::take(&mut first) && !l.starts_with(|c: char| c.is_ascii_digit()) {
                let header: Vec<&str> = l.split(',').map(str::trim).collect();
                if header != ["src", "dst", "bytes"] {
                    return Err(lines.error(format!(
                        "expected the header `src,dst,bytes` or a message, found `{l}`"
                    )));
                }
                continue;
            }
            let check_ranks = |s: u32, d: u32| -> Result<(), ProgramError> {
                for r in [s, d] {
                    limits::check_rank(r.into()).map_err(|m| lines.error(m.to_string()))?;
                }
                Ok(())
            };
            let (s, d, b) = match plain_row(l) {
                Some((s, d, b)) => {
                    check_ranks(s, d)?;
                    (s, d, b)
                }
                None => {
                    let mut f = l.split(',').map(str::trim);
                    let (Some(s), Some(d), Some(b), None) =
                        (f.next(), f.next(), f.next(), f.next())
                    else {
                        return Err(
                            lines.error(format!("expected 3 fields `src,dst,bytes`, found `{l}`"))
                        );
                    };
                    let s: u32 = parse_int(s, "src").map_err(|m| lines.error(m))?;
                    let d: u32 = parse_int(d, "dst").map_err(|m| lines.error(m))?;
                    check_ranks(s, d)?;
                    if b.starts_with('-') {
                        return Err(lines.error(format!("bytes must not be negative, found `{b}`")));
                    }
                    let b: u64 = parse_int(b, "bytes").map_err(|m| lines.error(m))?;
                    (s, d, b)
                }
            };
            limits::check_bytes(b).map_err(|m| lines.error(format!("bytes: {m}")))?;
            if let Some(p) = config.num_ranks {
                if s >= p || d >= p {
                    return Err(lines.error(format!(
                        "rank {} does not exist (num_ranks = {p})",
                        s.max(d)
                    )));
                }
            }
            let ln = u32::try_from(lines.line)
                .map_err(|_| lines.error("more than 4e9 lines are not supported"))?;
            src.push(s);
            dst.push(d);
            bytes.push(b);
            line.push(ln);
        }
        if src.len() >= u32::MAX as usize {
            return Err(file_error(path, "more than 4e9 messages are not supported"));
        }
        let num_ranks = config
            .num_ranks
            .unwrap_or_else(|| src.iter().chain(&dst).copied().max().map_or(0, |m| m + 1));
        let (send_start, send_idx) = csr(&src, num_ranks);
        let (recv_start, mut recv_idx) = csr(&dst, num_ranks);
        match config.recv_order {
            RecvOrder::AsListed => {}
            RecvOrder::Reversed => {
                for r in 0..num_ranks as usize {
                    recv_idx[recv_start[r] as usize..recv_start[r + 1] as usize].reverse();
                }
            }
            RecvOrder::Shuffled { seed } => {
                let streams = RngStreams::new(seed);
                for r in 0..num_ranks as usize {
                    let slice = &mut recv_idx[recv_start[r] as usize..recv_start[r + 1] as usize];
                    if slice.len() > 1 {
                        let mut rng = streams.stream_indexed("msglist-recv-order", r as u64);
                        // Fisher-Yates, written out so the permutation is
                        // fixed by this code and the generator alone.
                        for i in (1..slice.len()).rev() {
                            let j = rng.random_range(0..=i);
                            slice.swap(i, j);
                        }
                    }
                }
            }
        }
        Ok(MessageList {
            inner: Arc::new(Inner {
                source: path.display().to_string().into(),
                num_ranks,
                tag: config.tag,
                src,
                dst,
                bytes,
                line,
                send_start,
                send_idx,
                recv_start,
                recv_idx,
            }),
        })
    }

    /// The number of messages.
    pub fn num_messages(&self) -> usize {
        self.inner.src.len()
    }

    /// Total bytes of all messages (saturating at `u64::MAX`; each
    /// message is at most [`limits::MAX_MESSAGE_BYTES`]).
    pub fn total_bytes(&self) -> u64 {
        self.inner
            .bytes
            .iter()
            .fold(0u64, |a, &b| a.saturating_add(b))
    }

    /// Every message as `(src, dst, bytes)`, in file order.
    pub fn messages(&self) -> impl Iterator<Item = (Rank, Rank, u64)> + '_ {
        let i = &self.inner;
        (0..i.src.len()).map(move |m| (i.src[m], i.dst[m], i.bytes[m]))
    }

    /// How many messages `rank` sends.
    pub fn sends_of(&self, rank: Rank) -> usize {
        let s = &self.inner.send_start;
        (s[rank as usize + 1] - s[rank as usize]) as usize
    }

    /// How many messages `rank` receives.
    pub fn recvs_of(&self, rank: Rank) -> usize {
        let s = &self.inner.recv_start;
        (s[rank as usize + 1] - s[rank as usize]) as usize
    }

    /// Rank `rank`'s program.
    ///
    /// # Panics
    /// If `rank >= self.num_ranks()`.
    pub fn program(&self, rank: Rank) -> MessageListProgram {
        assert!(rank < self.inner.num_ranks, "rank {rank} out of range");
        MessageListProgram {
            inner: self.inner.clone(),
            rank,
            step: 0,
        }
    }

    /// Every rank's program, rank order.
    pub fn programs(&self) -> Vec<MessageListProgram> {
        (0..self.inner.num_ranks).map(|r| self.program(r)).collect()
    }
}

impl TraceReader for MessageList {
    type Stream = MessageListProgram;

    fn num_ranks(&self) -> u32 {
        self.inner.num_ranks
    }

    fn streams(&self) -> Result<Vec<MessageListProgram>, ProgramError> {
        Ok(self.programs())
    }
}

/// Row starts and message indices grouped by `key`, stable (listed order
/// within a group): a counting sort, O(messages + ranks).
fn csr(key: &[u32], n: u32) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n as usize + 1];
    for &k in key {
        start[k as usize + 1] += 1;
    }
    for i in 0..n as usize {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut idx = vec![0u32; key.len()];
    for (m, &k) in key.iter().enumerate() {
        idx[fill[k as usize] as usize] = m as u32;
        fill[k as usize] += 1;
    }
    (start, idx)
}

/// One rank's phase: its `Irecv`s (requests `0..R`), its `Isend`s
/// (requests `R..R+S`), then a `Waitall` on all of them (omitted when the
/// rank has no messages).
pub struct MessageListProgram {
    inner: Arc<Inner>,
    rank: Rank,
    step: usize,
}

impl std::fmt::Debug for MessageListProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageListProgram").finish_non_exhaustive()
    }
}

impl OpStream for MessageListProgram {
    fn next_op(&mut self) -> Result<Option<(Op, Origin)>, ProgramError> {
        let i = &*self.inner;
        let r = self.rank as usize;
        let (rs, re) = (i.recv_start[r] as usize, i.recv_start[r + 1] as usize);
        let (ss, se) = (i.send_start[r] as usize, i.send_start[r + 1] as usize);
        let (nr, ns) = (re - rs, se - ss);
        let k = self.step;
        self.step += 1;
        let origin = |m: usize| Origin {
            source: i.source.clone(),
            line: i.line[m] as u64,
        };
        let comm = CommId::WORLD;
        if k < nr {
            let m = i.recv_idx[rs + k] as usize;
            return Ok(Some((
                Op::Irecv {
                    src: Source::Rank(i.src[m]),
                    tag: TagSel::Tag(i.tag),
                    bytes: i.bytes[m],
                    comm,
                    req: ReqId(k as u64),
                },
                origin(m),
            )));
        }
        if k < nr + ns {
            let m = i.send_idx[ss + k - nr] as usize;
            return Ok(Some((
                Op::Isend {
                    dst: i.dst[m],
                    tag: i.tag,
                    bytes: i.bytes[m],
                    comm,
                    req: ReqId(k as u64),
                },
                origin(m),
            )));
        }
        if k == nr + ns && k > 0 {
            let last = if ns > 0 {
                i.send_idx[se - 1]
            } else {
                i.recv_idx[re - 1]
            } as usize;
            return Ok(Some((
                Op::Waitall {
                    reqs: (0..k as u64).map(ReqId).collect(),
                },
                origin(last),
            )));
        }
        Ok(None)
    }
}
/// A row written plainly, `digits,digits,digits` with nothing else (as
/// every message list this repository holds is): its values, read
/// without splitting and trimming (a 1.2 M-row list spent more time in
/// those than in the simulation's matching). `None` for anything else,
/// which the general reader takes, with its errors; both read the same
/// values from a plain row.
fn plain_row(l: &str) -> Option<(u32, u32, u64)> {
    let b = l.as_bytes();
    let mut i = 0;
    // Up to 19 digits: any such number fits in a u64.
    let mut number = |last: bool| -> Option<u64> {
        let start = i;
        let mut v = 0u64;
        while i < b.len() && b[i].is_ascii_digit() && i - start < 19 {
            v = v * 10 + u64::from(b[i] - b'0');
            i += 1;
        }
        let end = if last {
            i == b.len()
        } else {
            b.get(i) == Some(&b',')
        };
        if i == start || !end {
            return None;
        }
        i += 1;
        Some(v)
    };
    let s = u32::try_from(number(false)?).ok()?;
    let d = u32::try_from(number(false)?).ok()?;
    let bytes = number(true)?;
    Some((s, d, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain rows read as the general reader (`parse`) reads them; any
    /// other row is left to it, so that its errors stay its own.
    #[test]
    fn plain_rows_read_as_parse_reads_them() {
        for (s, d, b) in [
            (0u32, 0u32, 0u64),
            (7, 8191, 4096),
            (u32::MAX, 1, u64::MAX / 10),
            (12, 3, 9_999_999_999_999_999_999),
        ] {
            assert_eq!(plain_row(&format!("{s},{d},{b}")), Some((s, d, b)));
        }
        assert_eq!(plain_row("007,08,0009"), Some((7, 8, 9)));
        for l in [
            "",
            "1,2",
            "1,2,3,",
            "1,2,3,4",
            "1, 2,3",
            "1,2,3 ",
            "+1,2,3",
            "1,-2,3",
            "1,,3",
            ",1,2",
            "4294967296,0,1",
            "1,2,18446744073709551616",
            "1,2,99999999999999999999",
            "1,2,3x",
            "src,dst,bytes",
        ] {
            assert_eq!(plain_row(l), None, "`{l}`");
        }
    }
}
