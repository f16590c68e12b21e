//! One line of a GOAL schedule, read as LogGOPSim's converter `txt2bin`
//! reads it (its re2c scanner, `src/LogGOPSim/txt2bin.re`).
//!
//! The scanner is a state machine over bytes, not over blank-separated
//! words: blanks between tokens are optional wherever the next token
//! cannot be confused with the previous one (`send 8 b`, `send 8b`,
//! `l1:send`, `l1 : send`, `rank 0{`, `tag 5cpu 1` are all one thing), a
//! word at the start of an item is a keyword only if it is exactly one
//! (`send`, `recv`, `calc`, `rank`, `num_ranks`; `sendx` is a label), and
//! after a label's `:` or inside an operation the keywords are matched as
//! prefixes, as re2c does in states without an identifier rule. Numbers
//! are unsigned decimals; `-1` is the only negative (any source, any tag).
//!
//! Differences, all on input `txt2bin` rejects or misreads: comments may
//! also end a line (`txt2bin` allows them only where an item starts);
//! `rank R {` and `num_ranks N` end their line; numbers that do not fit
//! (a size beyond 2^64 - 1, a tag beyond 2^32 - 1, a `cpu` or `nic`
//! beyond 255, which `txt2bin` truncates silently) are errors; a send
//! with tag `-1` (LogGOPSim's wildcard, which would match any receive) is
//! an error.

use super::GoalError;

/// What one line holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Item<'a> {
    /// Blank, or only a comment.
    Empty,
    /// `num_ranks N`.
    NumRanks(u64),
    /// `rank R {`.
    Open(u64),
    /// `}`.
    Close,
    /// An operation, with its label.
    Op(Option<&'a [u8]>, OpSpec),
    /// `a requires b` (`start`: false) or `a irequires b` (true).
    Dep(&'a [u8], &'a [u8], bool),
}

/// What an operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `send`.
    Send,
    /// `recv`.
    Recv,
    /// `calc`.
    Calc,
}

/// An operation's fields as written: `peer` is `u32::MAX` for any source,
/// `tag` `u32::MAX` for any tag; `size` is bytes or calc units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct OpSpec {
    pub kind: Kind,
    pub size: u64,
    pub peer: u32,
    pub tag: u32,
    pub cpu: u8,
    pub nic: u8,
}

/// LogGOPSim's wildcard, for a source and for a tag (`-1`, `~0`).
pub(super) const ANY: u32 = u32::MAX;

struct Cur<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t') {
            self.i += 1;
        }
    }
    /// At the end of the line (after blanks and a `\r`): `s` is one line
    /// without its `\n`, or (see [`next_line`]) the buffer from the line
    /// on, where the line ends at its `\n`.
    fn at_end(&mut self) -> bool {
        self.ws();
        matches!(
            &self.s[self.i..],
            [] | [b'\n', ..] | [b'\r'] | [b'\r', b'\n', ..]
        )
    }
    /// Consumes `kw` if the line continues with it (after blanks).
    #[inline]
    fn kw<const N: usize>(&mut self, kw: &[u8; N]) -> bool {
        self.ws();
        if self.s.get(self.i..self.i + N).is_some_and(|w| w == kw) {
            self.i += N;
            true
        } else {
            false
        }
    }
    /// `[a-zA-Z][a-zA-Z0-9_]*` (after blanks), or `None`.
    fn ident(&mut self) -> Option<&'a [u8]> {
        self.ws();
        let s = self.s;
        let start = self.i;
        if start < s.len() && s[start].is_ascii_alphabetic() {
            let mut j = start + 1;
            while j < s.len() && (s[j].is_ascii_alphanumeric() || s[j] == b'_') {
                j += 1;
            }
            self.i = j;
            Some(&s[start..j])
        } else {
            None
        }
    }
    /// `[0-9]+` (after blanks) as a `u64`; `what` names it in errors.
    fn int(&mut self, what: &'static str) -> Result<u64, GoalError> {
        self.ws();
        let s = self.s;
        let start = self.i;
        let mut v: u64 = 0;
        // Up to 19 digits cannot overflow; the rest are checked.
        while self.i < s.len() && s[self.i].is_ascii_digit() {
            let d = u64::from(s[self.i] - b'0');
            v = if self.i - start < 19 {
                v * 10 + d
            } else {
                v.checked_mul(10)
                    .and_then(|v| v.checked_add(d))
                    .ok_or(GoalError::Overflow(what))?
            };
            self.i += 1;
        }
        if self.i == start {
            return Err(GoalError::ExpectedInt {
                what,
                found: self.found(),
            });
        }
        Ok(v)
    }
    /// `-1` (after blanks).
    fn minus_one(&mut self) -> bool {
        self.kw(b"-1")
    }
    /// What is at the cursor, for an error message.
    fn found(&mut self) -> String {
        self.ws();
        let rest = &self.s[self.i..];
        let rest = &rest[..rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())];
        let rest = String::from_utf8_lossy(rest);
        let rest = rest.trim_end();
        match rest.split_whitespace().next() {
            None => "the end of the line".into(),
            Some(w) => format!("`{w}`"),
        }
    }
    fn end(&mut self, expected: &'static str) -> Result<(), GoalError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(GoalError::Expected {
                expected,
                found: self.found(),
            })
        }
    }
}

/// `v` as a `T`, if at most `max` (which fits `T`).
fn small<T: TryFrom<u64>>(v: u64, what: &'static str, max: u64) -> Result<T, GoalError> {
    T::try_from(v)
        .ok()
        .filter(|_| v <= max)
        .ok_or(GoalError::TooLarge {
            what,
            value: v,
            max,
        })
}

/// Reads one line (comments already removed, no `\n`).
pub(super) fn line(s: &[u8]) -> Result<Item<'_>, GoalError> {
    item(&mut Cur { s, i: 0 })
}

/// Reads the line at the start of `buf` (a buffer of the file from a
/// line's start; `eof`: the buffer ends where the input ends) and returns
/// what it holds and the bytes it takes with its `\n`, or `None` when
/// `buf` ends before the line does (read more, or at `eof` nothing is
/// left). `in_block`: inside a `/* */` comment, kept across lines.
///
/// Lines without comments are read in place, without looking for the
/// `\n` first (no token holds a `\n`, so the scanner stops at it); a line
/// the in-place reading refuses, or one in or with a comment, is read
/// again on its own after its comments are removed into `strip`, which
/// gives the same item and the error message about that line alone.
pub(super) fn next_line<'a>(
    buf: &'a [u8],
    eof: bool,
    in_block: &mut bool,
    strip: &'a mut Vec<u8>,
) -> Option<(Result<Item<'a>, GoalError>, usize)> {
    if !*in_block {
        if let Some((it, used)) = quick(buf) {
            debug_assert_eq!(
                scan_line(&buf[..used], true, &mut false, &mut Vec::new()),
                Some((Ok(it.clone()), used)),
                "the quick path differs from the scanner on {:?}",
                String::from_utf8_lossy(&buf[..used])
            );
            return Some((Ok(it), used));
        }
    }
    scan_line(buf, eof, in_block, strip)
}

/// [`next_line`] by the scanner alone.
fn scan_line<'a>(
    buf: &'a [u8],
    eof: bool,
    in_block: &mut bool,
    strip: &'a mut Vec<u8>,
) -> Option<(Result<Item<'a>, GoalError>, usize)> {
    if !*in_block {
        let mut c = Cur { s: buf, i: 0 };
        if let Ok(it) = item(&mut c) {
            // `item` succeeded: the line continues with `\n`, `\r\n`,
            // `\r` then the buffer's end, or the buffer ends.
            let rest = &buf[c.i..];
            match rest {
                [b'\n', ..] => return Some((Ok(it), c.i + 1)),
                [b'\r', b'\n', ..] => return Some((Ok(it), c.i + 2)),
                _ if eof && !buf.is_empty() => return Some((Ok(it), buf.len())),
                _ => return None,
            }
        }
    }
    let (text, used) = match buf.iter().position(|&b| b == b'\n') {
        Some(i) => (&buf[..i], i + 1),
        None if eof && !buf.is_empty() => (buf, buf.len()),
        None => return None,
    };
    let text = if strip_comments(text, in_block, strip) {
        &strip[..]
    } else {
        text
    };
    Some((line(text), used))
}

/// The quick path's cursor (inlined: the closures it replaced were calls).
struct Q<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Q<'a> {
    #[inline(always)]
    fn blanks(&mut self) {
        while let Some(b' ' | b'\t') = self.s.get(self.i) {
            self.i += 1;
        }
    }
    #[inline(always)]
    fn ident(&mut self) -> Option<&'a [u8]> {
        let start = self.i;
        if !self.s.get(start)?.is_ascii_alphabetic() {
            return None;
        }
        self.i += 1;
        while let Some(c) = self.s.get(self.i) {
            if !(c.is_ascii_alphanumeric() || *c == b'_') {
                break;
            }
            self.i += 1;
        }
        Some(&self.s[start..self.i])
    }
    /// At most 19 digits (no overflow), then no digit.
    #[inline(always)]
    fn int(&mut self) -> Option<u64> {
        let start = self.i;
        let mut v = 0u64;
        while let Some(c @ b'0'..=b'9') = self.s.get(self.i) {
            if self.i - start == 19 {
                return None; // a 20th digit: the scanner checks it
            }
            v = v * 10 + u64::from(c - b'0');
            self.i += 1;
        }
        (self.i > start).then_some(v)
    }
    #[inline(always)]
    fn word(&mut self, w: &[u8]) -> bool {
        if self.s.get(self.i..self.i + w.len()) == Some(w) {
            self.i += w.len();
            true
        } else {
            false
        }
    }
    #[inline(always)]
    fn end(&mut self) -> Option<usize> {
        self.blanks();
        match self.s.get(self.i..)? {
            [b'\n', ..] => Some(self.i + 1),
            [b'\r', b'\n', ..] => Some(self.i + 2),
            _ => None,
        }
    }
    /// A peer or tag: `-1` is `ANY` only in a receive; a value of `ANY`
    /// would be refused (a rank) or an error (a send's tag) by the
    /// scanner.
    #[inline(always)]
    fn value(&mut self, kind: Kind) -> Option<u32> {
        if kind == Kind::Recv && self.word(b"-1") {
            Some(ANY)
        } else {
            u32::try_from(self.int()?).ok().filter(|&v| v != ANY)
        }
    }
}

/// The common lines of Schedgen's output read without the scanner: an
/// operation (`l1: send 8b to 1 tag 3`, optionally labeled, any of
/// `tag`, `cpu`, `nic`) or a dependency (`l3 requires l2`), spelled the
/// ordinary way (blanks between the words, none inside `8b`), without a
/// comment, ending with `\n` in `buf`; it returns what the scanner
/// returns for that line, and the bytes with the `\n`. Anything else (or
/// anything in doubt: a number of 20 digits, a value the scanner would
/// refuse) is `None`, left to the scanner. The scanner's generality was
/// most of a Schedgen file's opening scan (callgrind, all-to-all P =
/// 1024, 4.19 M lines: 2.2 G of the scan's 3.76 G instructions, 896 a
/// line in all).
#[inline]
fn quick(s: &[u8]) -> Option<(Item<'_>, usize)> {
    let mut q = Q { s, i: 0 };
    q.blanks();
    let first = q.ident()?;
    let (label, kind) = match first {
        b"send" => (None, Kind::Send),
        b"recv" => (None, Kind::Recv),
        b"calc" => (None, Kind::Calc),
        b"rank" | b"num_ranks" => return None,
        label => {
            q.blanks();
            if q.word(b":") {
                q.blanks();
                let kind = if q.word(b"send") {
                    Kind::Send
                } else if q.word(b"recv") {
                    Kind::Recv
                } else if q.word(b"calc") {
                    Kind::Calc
                } else {
                    return None;
                };
                (Some(label), kind)
            } else {
                let start = if q.word(b"requires") {
                    false
                } else if q.word(b"irequires") {
                    true
                } else {
                    return None;
                };
                q.blanks();
                let other = q.ident()?;
                return Some((Item::Dep(label, other, start), q.end()?));
            }
        }
    };
    let mut o = OpSpec {
        kind,
        size: 0,
        peer: 0,
        tag: 0,
        cpu: 0,
        nic: 0,
    };
    q.blanks();
    o.size = q.int()?;
    if kind == Kind::Calc {
        q.blanks();
        if q.word(b"cpu") {
            q.blanks();
            o.cpu = u8::try_from(q.int()?).ok()?;
        }
        return Some((Item::Op(label, o), q.end()?));
    }
    if !q.word(b"b") {
        return None;
    }
    q.blanks();
    if !q.word(if kind == Kind::Send { b"to" } else { b"from" }) {
        return None;
    }
    q.blanks();
    o.peer = q.value(kind)?;
    q.blanks();
    if q.word(b"tag") {
        q.blanks();
        o.tag = q.value(kind)?;
        q.blanks();
    }
    if q.word(b"cpu") {
        q.blanks();
        o.cpu = u8::try_from(q.int()?).ok()?;
        q.blanks();
    }
    if q.word(b"nic") {
        q.blanks();
        o.nic = u8::try_from(q.int()?).ok()?;
    }
    Some((Item::Op(label, o), q.end()?))
}

fn item<'a>(c: &mut Cur<'a>) -> Result<Item<'a>, GoalError> {
    if c.at_end() {
        return Ok(Item::Empty);
    }
    if c.s[c.i] == b'}' {
        c.i += 1;
        c.end("the end of the line after `}`")?;
        return Ok(Item::Close);
    }
    let Some(word) = c.ident() else {
        return Err(GoalError::ExpectedItem(c.found()));
    };
    let item = match word {
        b"num_ranks" => {
            let n = c.int("the number of ranks")?;
            c.end("the end of the line after `num_ranks N`")?;
            return Ok(Item::NumRanks(n));
        }
        b"rank" => {
            let r = c.int("a rank")?;
            if !c.kw(b"{") {
                return Err(GoalError::ExpectedBrace {
                    rank: r,
                    found: c.found(),
                });
            }
            c.end("the end of the line after `rank R {`")?;
            return Ok(Item::Open(r));
        }
        b"send" => Item::Op(None, op(c, Kind::Send)?),
        b"recv" => Item::Op(None, op(c, Kind::Recv)?),
        b"calc" => Item::Op(None, op(c, Kind::Calc)?),
        label => {
            if c.kw(b":") {
                let kind = if c.kw(b"send") {
                    Kind::Send
                } else if c.kw(b"recv") {
                    Kind::Recv
                } else if c.kw(b"calc") {
                    Kind::Calc
                } else {
                    return Err(GoalError::ExpectedKind(c.found()));
                };
                Item::Op(Some(label), op(c, kind)?)
            } else {
                let start = if c.kw(b"requires") {
                    false
                } else if c.kw(b"irequires") {
                    true
                } else {
                    return Err(GoalError::UnknownOp(
                        String::from_utf8_lossy(label).into_owned(),
                    ));
                };
                let Some(other) = c.ident() else {
                    return Err(GoalError::ExpectedLabel {
                        after: if start { "irequires" } else { "requires" },
                        found: c.found(),
                    });
                };
                c.end("the end of the line after a dependency")?;
                return Ok(Item::Dep(label, other, start));
            }
        }
    };
    Ok(item)
}

/// The rest of an operation after its keyword.
fn op(c: &mut Cur<'_>, kind: Kind) -> Result<OpSpec, GoalError> {
    let mut o = OpSpec {
        kind,
        size: 0,
        peer: 0,
        tag: 0,
        cpu: 0,
        nic: 0,
    };
    if kind == Kind::Calc {
        o.size = c.int("the amount of computation")?;
        if c.kw(b"cpu") {
            o.cpu = small(c.int("a cpu")?, "cpu", 255)?;
        }
        c.end("`cpu` or the end of the line")?;
        return Ok(o);
    }
    c.ws();
    if c.s[c.i..].starts_with(b"-") {
        return Err(GoalError::NegativeSize(c.found()));
    }
    o.size = c.int("a size")?;
    if !c.kw(b"b") {
        return Err(GoalError::SizeUnit(o.size));
    }
    let (dir, any) = if kind == Kind::Send {
        ("to", false)
    } else {
        ("from", true)
    };
    if !(if any { c.kw(b"from") } else { c.kw(b"to") }) {
        return Err(GoalError::ExpectedPeer {
            dir,
            found: c.found(),
        });
    }
    o.peer = if any && c.minus_one() {
        ANY
    } else {
        let r = c.int("a rank")?;
        u32::try_from(r)
            .ok()
            .filter(|&r| r != ANY)
            .ok_or(GoalError::NoRank(r))?
    };
    if c.kw(b"tag") {
        o.tag = if c.minus_one() {
            ANY
        } else {
            small(c.int("a tag")?, "tag", u64::from(u32::MAX))?
        };
        if kind == Kind::Send && o.tag == ANY {
            return Err(GoalError::AnyTagSend);
        }
    }
    if c.kw(b"cpu") {
        o.cpu = small(c.int("a cpu")?, "cpu", 255)?;
    }
    if c.kw(b"nic") {
        o.nic = small(c.int("a nic")?, "nic", 255)?;
    }
    c.end("`tag`, `cpu`, `nic` (in that order) or the end of the line")?;
    Ok(o)
}

/// Removes comments (`// ...`, `/* ... */`, the latter across lines with
/// `in_block`) from `line` into `out`; returns whether there were any
/// (when not, `out` is untouched and the line is read as it is).
pub(super) fn strip_comments(line: &[u8], in_block: &mut bool, out: &mut Vec<u8>) -> bool {
    if !*in_block && !line.contains(&b'/') {
        return false;
    }
    out.clear();
    let mut i = 0;
    while i < line.len() {
        if *in_block {
            match line[i..].windows(2).position(|w| w == b"*/") {
                Some(p) => {
                    i += p + 2;
                    *in_block = false;
                }
                None => return true,
            }
        } else if line[i..].starts_with(b"//") {
            return true;
        } else if line[i..].starts_with(b"/*") {
            out.push(b' ');
            i += 2;
            *in_block = true;
        } else {
            out.push(line[i]);
            i += 1;
        }
    }
    true
}

#[cfg(test)]
mod tests;
