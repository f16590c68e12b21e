//! The compiled form of a GOAL schedule: what the opening scan leaves for
//! the streams, and what `netsim goal-compile` keeps in a file (the role
//! LogGOPSim's `txt2bin` output plays for LogGOPSim).
//!
//! Every item of a rank block (operation, dependency, the block's end) is
//! one record, in file order, with its labels resolved: a dependency names
//! its two operations by their distance back in the block's operations
//! (1: the last operation before it), so a stream neither lexes nor keeps
//! a label table. A record is a kind byte, the line number's increase
//! since the previous item of the block (the block's `rank R {` line for
//! the first), and the kind's fields, integers as LEB128 varints:
//!
//! | kind | byte | fields |
//! |---|---|---|
//! | send, recv | 0, 1 | size, peer (`u32::MAX`: any source), tag (`u32::MAX`: any tag), cpu byte, nic byte |
//! | calc | 2 | amount, cpu byte |
//! | requires, irequires | 3, 4 | distance of the dependent operation, distance of the one it waits for |
//! | end of block | 5 | |
//!
//! A file ([`MAGIC`], version [`VERSION`]) holds: the magic, the version
//! and `num_ranks` (`u32` little-endian each), the text's name (`u32`
//! length, UTF-8 bytes: operations report their origin as that file's
//! lines), the records of every block, then the index, one entry per rank
//! (a presence byte, then the block's record offset, end offset and `rank
//! R {` line as `u64`, its look-ahead and last root as `u32`, all
//! little-endian), and last the index's offset (`u64`). A reader checks
//! every field: a damaged or hand-made file is an error naming the file
//! and byte, never a wrong run (the streams also refuse a dependency that
//! arrives after its operation was handed out, which a wrong look-ahead
//! in the index would cause).

use std::fs::File;
use std::io::Write;

use super::lex::{Kind, OpSpec};

/// The first bytes of a compiled schedule.
pub const MAGIC: &[u8; 12] = b"netsim-goal\0";
/// The format's version, after the magic.
pub const VERSION: u32 = 1;

const SEND: u8 = 0;
const RECV: u8 = 1;
const CALC: u8 = 2;
const REQUIRES: u8 = 3;
const IREQUIRES: u8 = 4;
const END: u8 = 5;

/// One item of a block, as a stream takes it in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rec {
    /// An operation.
    Op(OpSpec),
    /// Operation `a` (distance back) waits for the start (`start`) or the
    /// completion of operation `b`.
    Dep { a: u32, b: u32, start: bool },
    /// The block's `}`.
    End,
}

#[inline]
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends item `rec` at line increase `dline` to `out`.
#[inline]
pub(super) fn encode(out: &mut Vec<u8>, dline: u64, rec: &Rec) {
    match *rec {
        Rec::Op(o) => {
            out.push(match o.kind {
                Kind::Send => SEND,
                Kind::Recv => RECV,
                Kind::Calc => CALC,
            });
            put_varint(out, dline);
            put_varint(out, o.size);
            if o.kind != Kind::Calc {
                put_varint(out, u64::from(o.peer));
                put_varint(out, u64::from(o.tag));
            }
            out.push(o.cpu);
            if o.kind != Kind::Calc {
                out.push(o.nic);
            }
        }
        Rec::Dep { a, b, start } => {
            out.push(if start { IREQUIRES } else { REQUIRES });
            put_varint(out, dline);
            put_varint(out, u64::from(a));
            put_varint(out, u64::from(b));
        }
        Rec::End => {
            out.push(END);
            put_varint(out, dline);
        }
    }
}

/// Why a record cannot be read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Bad {
    /// The buffer ends inside the record: read more.
    Short,
    /// The bytes are no record.
    Corrupt(&'static str),
}

struct Dec<'a> {
    s: &'a [u8],
    i: usize,
}

impl Dec<'_> {
    #[inline(always)]
    fn byte(&mut self) -> Result<u8, Bad> {
        let b = *self.s.get(self.i).ok_or(Bad::Short)?;
        self.i += 1;
        Ok(b)
    }
    #[inline(always)]
    fn varint(&mut self) -> Result<u64, Bad> {
        // Most fields are one byte.
        if let Some(&b) = self.s.get(self.i) {
            if b < 0x80 {
                self.i += 1;
                return Ok(u64::from(b));
            }
        }
        self.long_varint()
    }
    #[inline(never)]
    fn long_varint(&mut self) -> Result<u64, Bad> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(Bad::Corrupt("an integer beyond 2^64 - 1"));
            }
            v |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Bad::Corrupt("an integer beyond 2^64 - 1"))
    }
    #[inline(always)]
    fn u32(&mut self, what: &'static str) -> Result<u32, Bad> {
        u32::try_from(self.varint()?).map_err(|_| Bad::Corrupt(what))
    }
}

/// The record at the start of `s`: (line increase, item, bytes taken).
#[inline]
pub(super) fn decode(s: &[u8]) -> Result<(u64, Rec, usize), Bad> {
    let mut d = Dec { s, i: 0 };
    let kind = d.byte()?;
    let dline = d.varint()?;
    let rec = match kind {
        SEND | RECV | CALC => {
            let kind = [Kind::Send, Kind::Recv, Kind::Calc][kind as usize];
            let size = d.varint()?;
            let (peer, tag) = if kind == Kind::Calc {
                (0, 0)
            } else {
                (
                    d.u32("a peer beyond 2^32 - 1")?,
                    d.u32("a tag beyond 2^32 - 1")?,
                )
            };
            let cpu = d.byte()?;
            let nic = if kind == Kind::Calc { 0 } else { d.byte()? };
            Rec::Op(OpSpec {
                kind,
                size,
                peer,
                tag,
                cpu,
                nic,
            })
        }
        REQUIRES | IREQUIRES => Rec::Dep {
            a: d.u32("a dependency distance beyond 2^32 - 1")?,
            b: d.u32("a dependency distance beyond 2^32 - 1")?,
            start: kind == IREQUIRES,
        },
        END => Rec::End,
        _ => return Err(Bad::Corrupt("an unknown record kind")),
    };
    Ok((dline, rec, d.i))
}

/// Writes records (and, for a kept file, the header and index) to a file,
/// counting the offset. Records are encoded straight into the buffer
/// (through a `BufWriter` and a record's own `Vec`, writing was 140
/// instructions a record).
pub(super) struct Writer {
    file: File,
    buf: Vec<u8>,
    pos: u64,
}

/// Bytes buffered before a write.
const WRITE_CHUNK: usize = 1 << 20;

impl Writer {
    pub(super) fn new(file: File) -> Writer {
        Writer {
            file,
            buf: Vec::with_capacity(WRITE_CHUNK + 64),
            pos: 0,
        }
    }
    /// The offset of the next byte written.
    pub(super) fn pos(&self) -> u64 {
        self.pos + self.buf.len() as u64
    }
    fn spill(&mut self) -> std::io::Result<()> {
        self.file.write_all(&self.buf)?;
        self.pos += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }
    pub(super) fn bytes(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= WRITE_CHUNK {
            self.spill()?;
        }
        Ok(())
    }
    #[inline]
    pub(super) fn record(&mut self, dline: u64, rec: &Rec) -> std::io::Result<()> {
        encode(&mut self.buf, dline, rec);
        if self.buf.len() >= WRITE_CHUNK {
            self.spill()?;
        }
        Ok(())
    }
    /// Appends the whole of `other` (a kernel copy where the system has
    /// one: `copy_file_range`).
    pub(super) fn append(&mut self, mut other: File) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};
        self.spill()?;
        other.seek(SeekFrom::Start(0))?;
        self.pos += std::io::copy(&mut other, &mut self.file)?;
        Ok(())
    }
    /// Writes what is buffered and gives the file back.
    pub(super) fn finish(mut self) -> std::io::Result<File> {
        self.spill()?;
        Ok(self.file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_a_cut_record_is_short() {
        let op = |kind, size, peer, tag, cpu, nic| {
            Rec::Op(OpSpec {
                kind,
                size,
                peer,
                tag,
                cpu,
                nic,
            })
        };
        let recs = [
            (1, op(Kind::Send, 8, 1, 0, 0, 0)),
            (3, op(Kind::Recv, u64::MAX, u32::MAX, u32::MAX, 255, 7)),
            (u64::MAX, op(Kind::Calc, 1 << 40, 0, 0, 3, 0)),
            (
                1,
                Rec::Dep {
                    a: 1,
                    b: u32::MAX,
                    start: true,
                },
            ),
            (
                2,
                Rec::Dep {
                    a: 300,
                    b: 2,
                    start: false,
                },
            ),
            (0, Rec::End),
        ];
        let mut buf = Vec::new();
        for (dline, r) in &recs {
            encode(&mut buf, *dline, r);
        }
        let mut at = 0;
        for (dline, r) in &recs {
            let (dl, got, used) = decode(&buf[at..]).unwrap();
            assert_eq!((dl, got), (*dline, *r));
            for cut in 0..used {
                assert_eq!(
                    decode(&buf[at..at + cut]),
                    Err(Bad::Short),
                    "{r:?} cut at {cut}"
                );
            }
            at += used;
        }
        assert_eq!(at, buf.len());
    }

    #[test]
    fn damaged_records_are_refused() {
        assert!(matches!(decode(&[9, 1]), Err(Bad::Corrupt(_))));
        // A peer of 2^32 (varint 0x80 0x80 0x80 0x80 0x10).
        let peer = [SEND, 1, 8, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0];
        assert!(matches!(decode(&peer), Err(Bad::Corrupt(_))));
        // An integer of 11 varint bytes.
        let long = [
            CALC, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
        ];
        assert!(matches!(decode(&long), Err(Bad::Corrupt(_))));
        let long = [
            CALC, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 5, 0,
        ];
        assert_eq!(decode(&long).unwrap().0, u64::MAX);
    }
}
