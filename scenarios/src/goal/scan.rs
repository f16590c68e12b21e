//! The opening scan of a GOAL text: every line checked, labels resolved,
//! each item written as a compiled record (see the module docs of
//! [`super`]), in two parts at once on a large file.
//!
//! # Two parts
//!
//! Rank blocks are independent: labels are per block, and what crosses a
//! block's `}` is only the line count, the `num_ranks` value and which
//! ranks have blocks. A text of at least [`SPLIT_MIN`] bytes is cut at
//! the first `rank` line after its middle; a second thread scans from
//! there into a temporary file of its own, counting lines from the cut,
//! while the first scans up to the cut. The second part's work is kept
//! only if the first ended at the cut between blocks and outside a
//! comment, as a scan of the whole file would have been there (a `rank`
//! line inside a comment or a block is not a block's start); otherwise
//! the first part goes on alone over the rest. Kept, the second part's
//! records are appended to the first's (a kernel copy), its blocks'
//! offsets and lines shifted, its first error's line too. The result is
//! the one scan's, byte for byte, errors included (the first in file
//! order: the first part's, then a rank that both parts give a block,
//! then the second part's own); a test compares the two on every cut of
//! small texts.
//!
//! Measured (`netsim compile`, which is the scan, two runs each, one
//! part against two): the peers' GOAL all-to-all (P = 1024, 105 MB)
//! 0.16-0.19 s against 0.12-0.13 s, allreduce (P = 65 536, 78 MB) 0.13
//! against 0.08-0.09 s, bcast (P = 1 M, 94 MB) 0.28-0.35 against
//! 0.24-0.29 s; the same bytes. A run of the all-to-all from its text:
//! wall 0.94 of the one-part scan's, CPU 1.06 (`farm-bench -n 9`,
//! paired): the second thread's buffers, file and the copy cost some
//! CPU, and the two vCPUs do not always run at once. The loop itself,
//! moved here from one function into a part's state, runs 2.5 % more
//! instructions than before in one part (cachegrind, `netsim compile` of
//! a 7.8 MB prefix of the all-to-all: 216.8 M against 211.5 M); keeping
//! the part's position in a local inside the loop did not help (217.6 M).

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mpi_layer::ProgramError;
use sim_core::limits;

use super::lex::{self, Item};
use super::{
    Block, BlockScan, Def, GoalConfig, GoalError, Labels, NONE, SCAN_CHUNK, check_op, compiled,
    compiled::Rec, read_some, temporary_file,
};
use crate::text::{error_at, open};

/// Texts shorter than this are scanned in one part. Near it the second
/// part no longer pays: `netsim compile` of an 8.5 MiB prefix of the
/// peers' all-to-all takes the same wall time in two parts as in one
/// (0.016 s, paired ratio 0.95) and 1.23 of the CPU (`farm-bench -n
/// 15`).
pub(super) const SPLIT_MIN: u64 = 8 << 20;

/// Bytes looked at after the middle for a `rank` line to cut at.
const CUT_WINDOW: usize = 1 << 20;

/// The blocks a part found.
enum Found {
    /// Indexed by rank: the part from the file's start.
    Dense(Vec<Option<Block>>),
    /// A later part's, in file order from their `rank R {` lines (the
    /// last one's end is written at its `}`), and a bit per rank seen.
    Later(Vec<(u32, Block)>, Vec<u64>),
}

/// One part's scan: what crosses from one line to the next.
struct Part<'a> {
    source: &'a Arc<str>,
    /// The compiled records' name, for a write error.
    data: &'a Arc<str>,
    config: &'a GoalConfig,
    w: compiled::Writer,
    /// The file in chunks: `buf[lo..hi]` is read and not yet scanned.
    buf: Vec<u8>,
    lo: usize,
    hi: usize,
    eof: bool,
    /// Bytes of whole lines scanned.
    done: u64,
    /// Lines scanned (the part's own count).
    line: u64,
    in_comment: bool,
    stripped: Vec<u8>,
    num_ranks: Option<u32>,
    found: Found,
    cur: Option<BlockScan>,
    labels: Labels<Def>,
    /// Set when this part's work will not be used (a later part stops).
    stop: Option<&'a AtomicBool>,
}

impl<'a> Part<'a> {
    fn new(
        (source, data): (&'a Arc<str>, &'a Arc<str>),
        config: &'a GoalConfig,
        w: compiled::Writer,
    ) -> Self {
        Part {
            source,
            data,
            config,
            w,
            buf: vec![0u8; SCAN_CHUNK],
            lo: 0,
            hi: 0,
            eof: false,
            done: 0,
            line: 0,
            in_comment: false,
            stripped: Vec::new(),
            num_ranks: None,
            found: Found::Dense(Vec::new()),
            cur: None,
            labels: Labels::new(),
            stop: None,
        }
    }

    /// Scans whole lines of `file` until the end, or until `until` bytes
    /// of lines are scanned (the line that reaches it is the last).
    fn run(&mut self, file: &mut File, until: u64) -> Result<(), ProgramError> {
        let (source, data) = (self.source, self.data);
        let write_err = |e: std::io::Error| error_at(data, 0, format!("cannot write: {e}"));
        while self.done < until {
            let Some((item, used)) = lex::next_line(
                &self.buf[self.lo..self.hi],
                self.eof,
                &mut self.in_comment,
                &mut self.stripped,
            ) else {
                if self.eof || self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                    break;
                }
                self.refill(file)?;
                continue;
            };
            let text = &self.buf[self.lo..self.lo + used];
            self.lo += used;
            self.done += used as u64;
            self.line += 1;
            let line = self.line;
            let err = |m: String| error_at(source, line, m);
            let item = item.map_err(|e| err(e.to_string()))?;
            let Some(b) = self.cur.as_mut() else {
                match item {
                    Item::Empty => {}
                    Item::NumRanks(n) => self.num_ranks_line(n).map_err(|e| err(e.to_string()))?,
                    Item::Open(r) => self.open_block(r, line).map_err(|e| err(e.to_string()))?,
                    _ => {
                        let mut plain = Vec::new();
                        let text = if lex::strip_comments(text, &mut false, &mut plain) {
                            &plain[..]
                        } else {
                            text
                        };
                        return Err(err(format!(
                            "expected `num_ranks N` or `rank R {{`, found `{}`",
                            String::from_utf8_lossy(text).trim()
                        )));
                    }
                }
                continue;
            };
            let k = b.items;
            if line - b.start.line > u64::from(u32::MAX) {
                return Err(err("more than 2^32 - 1 lines in one rank block".into()));
            }
            let dline = line - b.last_line;
            match item {
                Item::Empty => continue,
                Item::Close => {
                    self.close_block(dline).map_err(write_err)?;
                    continue;
                }
                Item::NumRanks(_) | Item::Open(_) => {
                    return Err(err(
                        "`num_ranks` or `rank` inside a rank block (a `}` is missing)".into(),
                    ));
                }
                Item::Op(label, o) => {
                    check_op(&o, self.num_ranks.unwrap_or(0), self.config.calc_unit)
                        .map_err(|e| err(e.to_string()))?;
                    let def = Def {
                        item: k,
                        op: b.ops,
                        dependent: false,
                    };
                    match label {
                        Some(l) if !b.labels.insert_first(l, def) => {
                            return Err(err(format!(
                                "label `{}` is defined twice in this rank's block",
                                String::from_utf8_lossy(l)
                            )));
                        }
                        Some(_) => {}
                        None => b.last_unlabeled = k,
                    }
                    self.w.record(dline, &Rec::Op(o)).map_err(write_err)?;
                    b.ops += 1;
                }
                Item::Dep(a, d, start) => {
                    let find = |l: &[u8]| {
                        b.labels.get(l).ok_or_else(|| {
                            err(format!(
                                "dependency names label `{}`, undefined above",
                                String::from_utf8_lossy(l)
                            ))
                        })
                    };
                    let (da, dd) = (find(a)?, find(d)?);
                    if da.item == dd.item {
                        return Err(err(format!(
                            "`{}` depends on itself",
                            String::from_utf8_lossy(a)
                        )));
                    }
                    b.labels.insert(
                        a,
                        Def {
                            dependent: true,
                            ..da
                        },
                    );
                    b.start.lookahead = b.start.lookahead.max(k - da.item.min(dd.item));
                    let rec = Rec::Dep {
                        a: b.ops - da.op,
                        b: b.ops - dd.op,
                        start,
                    };
                    self.w.record(dline, &rec).map_err(write_err)?;
                }
            }
            b.last_line = line;
            b.items = k
                .checked_add(1)
                .filter(|&n| n < NONE)
                .ok_or_else(|| err("more than 2^32 - 2 items in one rank block".into()))?;
        }
        Ok(())
    }

    /// Reads more of `file` after the unscanned bytes (moved to the
    /// buffer's start; the buffer doubles for a line longer than it).
    fn refill(&mut self, file: &mut File) -> Result<(), ProgramError> {
        self.buf.copy_within(self.lo..self.hi, 0);
        (self.hi, self.lo) = (self.hi - self.lo, 0);
        if self.hi == self.buf.len() {
            let n = 2 * self.hi;
            self.buf.resize(n, 0); // a line longer than the buffer
        }
        let line = self.line;
        let n = read_some(file, &mut self.buf[self.hi..])
            .map_err(|e| error_at(self.source, line + 1, format!("cannot read: {e}")))?;
        self.eof = n == 0;
        self.hi += n;
        Ok(())
    }

    /// `num_ranks N`, outside the blocks.
    fn num_ranks_line(&mut self, n: u64) -> Result<(), GoalError> {
        if self.num_ranks.is_some() {
            return Err(GoalError::SecondNumRanks);
        }
        limits::check_ranks(n).map_err(GoalError::NumRanksLimit)?;
        let n = n as u32;
        self.num_ranks = Some(n);
        self.found = Found::Dense(vec![None; n as usize]);
        Ok(())
    }

    /// `rank R {` on `line`: a block starts.
    fn open_block(&mut self, r: u64, line: u64) -> Result<(), GoalError> {
        let n = self.num_ranks.ok_or(GoalError::BlockBeforeNumRanks)?;
        if r >= u64::from(n) {
            return Err(GoalError::NoBlockRank {
                rank: r,
                num_ranks: n,
            });
        }
        let start = Block {
            offset: self.w.pos(),
            end: self.w.pos(),
            line,
            lookahead: 0,
            last_root: NONE,
        };
        let r = r as u32;
        let twice = match &mut self.found {
            Found::Dense(v) => v[r as usize].is_some(),
            Found::Later(v, seen) => {
                let (word, bit) = (r as usize / 64, 1u64 << (r % 64));
                let twice = seen[word] & bit != 0;
                seen[word] |= bit;
                v.push((r, start));
                twice
            }
        };
        if twice {
            return Err(GoalError::TwoBlocks(r));
        }
        self.labels.clear();
        self.cur = Some(BlockScan {
            rank: r,
            start,
            items: 0,
            ops: 0,
            last_line: line,
            labels: std::mem::replace(&mut self.labels, Labels::new()),
            last_unlabeled: NONE,
        });
        Ok(())
    }

    /// A block's `}`, `dline` lines after its last item: its root (the
    /// last item no other depends on) and end are set.
    fn close_block(&mut self, dline: u64) -> std::io::Result<()> {
        let b = self.cur.as_mut().expect("a block is open");
        let mut root = b.last_unlabeled;
        for d in b.labels.values() {
            if !d.dependent && (root == NONE || d.item > root) {
                root = d.item;
            }
        }
        self.w.record(dline, &Rec::End)?;
        b.start.last_root = root;
        b.start.end = self.w.pos();
        match &mut self.found {
            Found::Dense(v) => v[b.rank as usize] = Some(b.start),
            Found::Later(v, _) => v.last_mut().expect("opened").1 = b.start,
        }
        self.labels = std::mem::replace(&mut b.labels, Labels::new());
        self.cur = None;
        Ok(())
    }

    /// The part ends where a scan of the whole file could go on from a
    /// fresh state: between blocks, outside a comment, at byte `at`.
    fn clean_at(&self, at: u64) -> bool {
        self.done == at && self.cur.is_none() && !self.in_comment
    }

    /// Appends a later part `b` (which starts where this one ended, see
    /// [`Part::clean_at`]) as if this part had scanned it; `b_result` is
    /// how `b` ended. Errors in file order: a rank `b` gives a second
    /// block, then `b`'s own.
    fn append(
        &mut self,
        b: Part<'_>,
        b_result: Result<(), ProgramError>,
    ) -> Result<(), ProgramError> {
        let Found::Later(list, _) = &b.found else {
            unreachable!("a later part keeps its blocks in a list")
        };
        let Found::Dense(mine) = &mut self.found else {
            unreachable!("the first part read `num_ranks`")
        };
        let (lines, bytes) = (self.line, self.w.pos());
        for &(r, blk) in list {
            if mine[r as usize].is_some() {
                return Err(error_at(
                    self.source,
                    lines + blk.line,
                    format!("rank {r} has two blocks"),
                ));
            }
        }
        if let Err(mut e) = b_result {
            if e.origin.line > 0 {
                e.origin.line += lines;
            }
            return Err(e);
        }
        let data = self.data;
        let file =
            b.w.finish()
                .map_err(|e| error_at(data, 0, format!("cannot write: {e}")))?;
        self.w
            .append(file)
            .map_err(|e| error_at(data, 0, format!("cannot write: {e}")))?;
        let shift = |mut blk: Block| {
            blk.offset += bytes;
            blk.end += bytes;
            blk.line += lines;
            blk
        };
        let open = b.cur.is_some();
        for (i, &(r, blk)) in list.iter().enumerate() {
            if !(open && i + 1 == list.len()) {
                mine[r as usize] = Some(shift(blk));
            }
        }
        self.cur = b.cur.map(|mut c| {
            c.start = shift(c.start);
            c
        });
        self.line += b.line;
        self.done += b.done;
        self.in_comment = b.in_comment;
        self.eof = true;
        (self.lo, self.hi) = (0, 0);
        Ok(())
    }
}

/// What a scan gives: the writer, `num_ranks` and the blocks by rank.
pub(super) type Scanned = (compiled::Writer, Option<u32>, Vec<Option<Block>>);

/// Where a second part could start: the line after the first `\nrank`
/// at or after byte `from`, if any within [`CUT_WINDOW`].
fn cut(file: &File, from: u64) -> Option<u64> {
    let mut w = vec![0u8; CUT_WINDOW];
    let n = file.read_at(&mut w, from).ok()?;
    let i = w[..n].windows(5).position(|s| s == b"\nrank")?;
    Some(from + i as u64 + 1)
}

/// Scans the text `path` (open as `file`, at its start) into `w`, in two
/// parts when it is at least [`SPLIT_MIN`] bytes long (cut after its
/// middle), or cut after byte `cut_from` if given (tests). Gives the
/// writer, `num_ranks` and the blocks.
pub(super) fn scan_text(
    path: &Path,
    names: (&Arc<str>, &Arc<str>),
    config: &GoalConfig,
    file: &mut File,
    w: compiled::Writer,
    cut_from: Option<u64>,
) -> Result<Scanned, ProgramError> {
    let source = names.0;
    let mut a = Part::new(names, config, w);
    // `num_ranks` first: a later part checks ranks against it.
    while a.num_ranks.is_none() && !(a.eof && a.lo == a.hi) {
        let next = a.done + 1;
        a.run(file, next)?;
    }
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let from = cut_from.or((len >= SPLIT_MIN).then_some(len / 2));
    let at = match (from, a.cur.is_none()) {
        (Some(from), true) => cut(file, from.max(a.done)),
        _ => None,
    };
    if let (Some(at), Some(n)) = (at, a.num_ranks) {
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let later = std::thread::Builder::new().spawn_scoped(s, || {
                let mut f = open(path).ok()?;
                f.seek(SeekFrom::Start(at)).ok()?;
                let w = compiled::Writer::new(temporary_file().ok()?);
                let mut b = Part::new(names, config, w);
                b.num_ranks = Some(n);
                b.found = Found::Later(Vec::new(), vec![0; (n as usize).div_ceil(64)]);
                b.stop = Some(&stop);
                let r = b.run(&mut f, u64::MAX);
                Some((b, r))
            });
            let mine = a.run(file, at);
            if mine.is_err() || !a.clean_at(at) {
                stop.store(true, Ordering::Relaxed);
            }
            // No thread (the system refused one) is no second part.
            let later = match later {
                Ok(t) => t.join().expect("the second part does not panic"),
                Err(_) => None,
            };
            mine?;
            match later {
                Some((b, r)) if a.clean_at(at) => a.append(b, r),
                // The cut was not a block's start (or the second part
                // could not run): the first part goes on alone.
                _ => Ok(()),
            }
        })?;
    }
    a.run(file, u64::MAX)?;
    if let Some(b) = &a.cur {
        return Err(error_at(
            source,
            b.start.line,
            "`rank` block is never closed with `}`",
        ));
    }
    let Found::Dense(blocks) = a.found else {
        unreachable!("the first part keeps its blocks by rank")
    };
    Ok((a.w, a.num_ranks, blocks))
}

#[cfg(test)]
mod tests {
    use super::super::{GoalConfig, GoalSchedule, Out};
    use std::path::PathBuf;

    /// A text in a file of its own, removed on drop.
    struct Text(PathBuf);
    impl Text {
        fn new(name: &str, body: &str) -> Text {
            let p = std::env::temp_dir().join(format!(
                "netsim-goal-cut-{}-{name}.goal",
                std::process::id()
            ));
            std::fs::write(&p, body).unwrap();
            Text(p)
        }
    }
    impl Drop for Text {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// The compiled bytes (or the error) of `text`, cut after byte
    /// `from` (`None`: not cut, the texts being small).
    fn compiled(text: &Text, from: Option<u64>) -> Result<Vec<u8>, String> {
        let out = text
            .0
            .with_extension(format!("goalc{}", from.map_or(0, |f| f + 1)));
        let r = GoalSchedule::scan(&text.0, GoalConfig::default(), Out::Kept(&out), from)
            .map(|_| std::fs::read(&out).unwrap())
            .map_err(|e| e.to_string());
        let _ = std::fs::remove_file(&out);
        r
    }

    /// A scan in two parts gives the one scan's compiled bytes and its
    /// first error, wherever the cut falls: in a comment, inside a block,
    /// before a rank given two blocks, before or after an error.
    #[test]
    fn two_parts_are_one_scan() {
        let body = |rest: &str| {
            format!(
                "num_ranks 4\n// a comment\nrank 0 {{\nl1: send 8b to 1 tag 1\nl2: recv 8b from 3 tag 2\n\
                 l2 requires l1\n}}\n/* rank 2 {{\nrank 3 {{ */\nrank 1 {{\nl1: recv 8b from 0 tag 1\n\
                 l2: calc 100\nl2 requires l1\n}}\nrank 2 {{\n}}\n{rest}"
            )
        };
        let texts = [
            (
                "undefined",
                body("rank 3 {\nl1: send 8b to 0 tag 2\nl1 irequires l1x\n}\n"),
            ),
            ("fine", body("rank 3 {\nl1: send 8b to 0 tag 2\n}\n")),
            ("twice", body("rank 3 {\n}\nrank 0 {\n}\n")),
            ("twice-later", body("rank 3 {\n}\nrank 3 {\n}\n")),
            ("open", body("rank 3 {\nl1: calc 5\n")),
            ("ranks", body("num_ranks 4\nrank 3 {\n}\n")),
            ("no-newline", body("rank 3 {\nl1: calc 5\n}")),
            ("inside", body("rank 3 {\nrank 1 {\n}\n}\n")),
        ];
        let (mut cuts, mut oks) = (0, 0);
        for (name, body) in &texts {
            let text = Text::new(name, body);
            let one = compiled(&text, None);
            oks += usize::from(one.is_ok());
            for from in 0..=body.len() as u64 {
                assert_eq!(compiled(&text, Some(from)), one, "{name}, cut from {from}");
                cuts += 1;
            }
        }
        // Well-formed texts among them, and many cuts.
        assert!(oks >= 2 && cuts > 1000, "{oks} {cuts}");
    }
}
