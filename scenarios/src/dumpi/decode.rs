//! Binary decoding of one rank's DUMPI file: the index, header, footer
//! and datatype size table, then records one at a time as a function
//! label, the clock's start and stop times and the arguments the
//! function's layout ([`super::calls`]) says to read. Integers are
//! big-endian; the layout is in the module docs of [`super`].

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::{Arc, Mutex};

use mpi_layer::ProgramError;

use super::Clock;
use super::calls::Val;
use super::table::{NUM_FUNCTIONS, Role, function_name, layout, role};
use crate::text::{FilePool, PooledReader, error_at, file_error, path_name};

const FUNCTION_ENTER: u16 = 291;
const FUNCTION_EXIT: u16 = 292;
pub(super) const END_OF_STREAM: u16 = 293;
pub(super) const HEAD_MAGIC: u64 = 0xffaa_dd44_554d_5049;
pub(super) const FOOT_MAGIC: u64 = 0xf007_fee7;

/// Sizes of DUMPI's predefined datatypes on an LP64 platform, used when a
/// trace has no size table (index = DUMPI datatype number: ERROR, NULL,
/// CHAR, SIGNED_CHAR, UNSIGNED_CHAR, BYTE, WCHAR, SHORT, UNSIGNED_SHORT,
/// INT, UNSIGNED, LONG, UNSIGNED_LONG, FLOAT, DOUBLE, LONG_DOUBLE,
/// LONG_LONG_INT, UNSIGNED_LONG_LONG, LONG_LONG, PACKED, LB, UB, FLOAT_INT,
/// DOUBLE_INT, LONG_INT, SHORT_INT, 2INT, LONG_DOUBLE_INT); the same values
/// as the table in the sst-macro test trace.
pub const DEFAULT_DATATYPE_SIZES: [u64; 28] = [
    0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20,
];

/// One record: the function label, the start and stop times on the
/// chosen clock [ns] (when the record has them) and the arguments.
pub(super) struct Record {
    /// Function label (an index into the call table, or a function
    /// enter/exit marker at or above [`NUM_FUNCTIONS`]).
    pub(super) label: usize,
    /// Start and stop [ns] on the chosen clock.
    pub(super) times: Option<(u64, u64)>,
    /// The arguments, in the layout's order.
    pub(super) args: Vec<Val>,
}

fn read_u64_at(f: &mut File, off: u64) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    f.seek(SeekFrom::Start(off))?;
    f.read_exact(&mut b)?;
    Ok(u64::from_be_bytes(b))
}

fn read_u32_at(f: &mut File, off: u64) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    f.seek(SeekFrom::Start(off))?;
    f.read_exact(&mut b)?;
    Ok(u32::from_be_bytes(b))
}

/// A rank's file being decoded.
pub(super) struct RankFile {
    source: Arc<str>,
    /// The records, read through the trace's pool of open files.
    reader: PooledReader,
    /// Byte offset of the next unread byte.
    pos: u64,
    /// Offset where the current record starts.
    rec_pos: u64,
    /// Number of the current record (1-based).
    pub(super) rec_no: u64,
    rec_fn: usize,
    version: [u8; 3],
    perf_counters: u32,
    /// The trace's datatype sizes, by DUMPI datatype number [bytes].
    pub(super) sizes: Vec<u64>,
    clock: Clock,
    /// Call counts per label from the footer.
    pub(super) footer_calls: Vec<u32>,
}

impl RankFile {
    /// Opens one rank's binary file, file `file_index` of `pool` (read by
    /// `streams` streams), and positions it at the first record; `clock`
    /// is the clock whose times [`RankFile::record`] returns. The file is
    /// open only while its header is read; records are read through the
    /// pool.
    pub(super) fn open(
        path: &Path,
        clock: Clock,
        (pool, file_index, streams): (&Arc<Mutex<FilePool>>, usize, usize),
    ) -> Result<RankFile, ProgramError> {
        let ioerr = |what: &str, e: std::io::Error| file_error(path, format!("{what}: {e}"));
        let mut f = File::open(path).map_err(|e| ioerr("cannot open DUMPI file", e))?;
        let len = f
            .metadata()
            .map_err(|e| ioerr("cannot read file size", e))?
            .len();
        if len < 8 + 64 || read_u64_at(&mut f, 0).ok() != Some(HEAD_MAGIC) {
            return Err(file_error(
                path,
                "not a DUMPI file (no magic number at byte 0)",
            ));
        }
        // The index: magic followed by 4 to 7 offsets, ending the file.
        let mut index = None;
        for extra in 0..4u64 {
            let off = len - 64 + 8 * extra;
            if read_u64_at(&mut f, off).map_err(|e| ioerr("cannot read index", e))? == HEAD_MAGIC {
                let words: Vec<u64> = (off + 8..len)
                    .step_by(8)
                    .map(|o| read_u64_at(&mut f, o))
                    .collect::<Result<_, _>>()
                    .map_err(|e| ioerr("cannot read index", e))?;
                index = Some(words);
                break;
            }
        }
        let Some(words) = index else {
            return Err(file_error(
                path,
                format!(
                    "no DUMPI index record in the last 64 bytes (byte offset {}): truncated file?",
                    len - 64
                ),
            ));
        };
        let n = words.len(); // 4..=7: [sizelbl] [addrlbl] [perflbl] header body footer keyval
        let (header, body, footer) = (words[n - 4], words[n - 3], words[n - 2]);
        let perflbl = if n >= 5 { words[n - 5] } else { 0 };
        let sizelbl = if n >= 7 { words[n - 7] } else { 0 };
        for (name, off) in [("header", header), ("body", body), ("footer", footer)] {
            if off == 0 || off >= len {
                return Err(file_error(
                    path,
                    format!("index names {name} offset {off} outside the file ({len} bytes)"),
                ));
            }
        }
        let mut version = [0u8; 3];
        f.seek(SeekFrom::Start(header))
            .and_then(|_| f.read_exact(&mut version))
            .map_err(|e| ioerr("cannot read header", e))?;
        let sizes = if sizelbl > 0 {
            let count =
                read_u32_at(&mut f, sizelbl).map_err(|e| ioerr("cannot read datatype sizes", e))?;
            if sizelbl + 4 + 4 * count as u64 > len {
                return Err(file_error(
                    path,
                    format!("datatype size table at byte offset {sizelbl} runs past the end"),
                ));
            }
            (0..count as u64)
                .map(|i| read_u32_at(&mut f, sizelbl + 4 + 4 * i).map(u64::from))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| ioerr("cannot read datatype sizes", e))?
        } else {
            DEFAULT_DATATYPE_SIZES.to_vec()
        };
        let perf_counters = if perflbl > 0 {
            read_u32_at(&mut f, perflbl).map_err(|e| ioerr("cannot read counter labels", e))?
        } else {
            0
        };
        let mut footer_calls = vec![0u32; NUM_FUNCTIONS];
        if read_u64_at(&mut f, footer).ok() == Some(FOOT_MAGIC) {
            for (i, c) in footer_calls.iter_mut().enumerate() {
                *c = read_u32_at(&mut f, footer + 8 + 4 * i as u64)
                    .map_err(|e| ioerr("cannot read footer", e))?;
            }
        } else {
            return Err(file_error(
                path,
                format!("no footer magic at byte offset {footer}"),
            ));
        }
        drop(f);
        let mut s = RankFile {
            source: path_name(path),
            reader: PooledReader::new(pool, file_index, body, streams),
            pos: body,
            rec_pos: body,
            rec_no: 0,
            rec_fn: 0,
            version,
            perf_counters,
            sizes,
            clock,
            footer_calls,
        };
        // Preamble: the CPU and wall time offsets (u32 each). Gaps are
        // differences on one clock, so the offsets cancel.
        s.bytes(8)?;
        Ok(s)
    }

    /// The file's name, for operation origins.
    pub(super) fn source(&self) -> &Arc<str> {
        &self.source
    }

    /// The trace format version from the header.
    pub(super) fn version(&self) -> [u8; 3] {
        self.version
    }

    fn has_version(&self, v: [u8; 3]) -> bool {
        self.version >= v
    }

    /// An error about the current record: file, record number (as the
    /// line), function and byte offset.
    pub(super) fn err(&self, message: impl std::fmt::Display) -> ProgramError {
        error_at(
            &self.source,
            self.rec_no,
            format!(
                "record {} ({}) at byte offset {}: {message}",
                self.rec_no,
                function_name(self.rec_fn),
                self.rec_pos
            ),
        )
    }

    fn bytes(&mut self, n: usize) -> Result<[u8; 8], ProgramError> {
        let mut b = [0u8; 8];
        self.reader.read_exact(&mut b[..n]).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                self.err(format!(
                    "truncated: file ends inside the record (reading {n} bytes at offset {})",
                    self.pos
                ))
            } else {
                self.err(format!("read error: {e}"))
            }
        })?;
        self.pos += n as u64;
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8, ProgramError> {
        Ok(self.bytes(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, ProgramError> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, ProgramError> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn skip(&mut self, n: u64) -> Result<(), ProgramError> {
        let mut left = n;
        while left > 0 {
            let k = left.min(8);
            self.bytes(k as usize)?;
            left -= k;
        }
        Ok(())
    }
    /// A u32 element count, checked against what is left of the file so a
    /// corrupt count is an error rather than a huge allocation.
    fn count(&mut self, elem: u64) -> Result<u64, ProgramError> {
        let n = self.u32()? as u64;
        if n > (1 << 28) || n * elem > (1 << 31) {
            return Err(self.err(format!("implausible array length {n}: corrupt record?")));
        }
        Ok(n)
    }
    fn int_array(&mut self) -> Result<Vec<i64>, ProgramError> {
        let n = self.count(4)?;
        (0..n).map(|_| Ok(self.u32()? as i32 as i64)).collect()
    }
    fn dtype_array(&mut self) -> Result<Vec<i64>, ProgramError> {
        let n = self.count(2)?;
        (0..n).map(|_| Ok(self.u16()? as i64)).collect()
    }
    fn statuses(&mut self, mask: u8) -> Result<(), ProgramError> {
        if mask & 0x03 != 0 {
            let n = self.count(14)?;
            let each = if self.has_version([0, 6, 3]) { 14 } else { 10 };
            self.skip(n * each)?;
        }
        Ok(())
    }
    fn char_array(&mut self) -> Result<(), ProgramError> {
        let n = self.count(1)?;
        self.skip(n)
    }

    /// Reads the next record; `None` at the end of the stream.
    pub(super) fn record(&mut self) -> Result<Option<Record>, ProgramError> {
        self.rec_pos = self.pos;
        self.rec_no += 1;
        self.rec_fn = usize::MAX;
        let label = self.u16()?;
        if label == END_OF_STREAM {
            return Ok(None);
        }
        if label as usize >= NUM_FUNCTIONS && label != FUNCTION_ENTER && label != FUNCTION_EXIT {
            return Err(self.err(format!("unknown function label {label}: corrupt file?")));
        }
        self.rec_fn = label as usize;
        let mask = self.u8()?;
        if mask & 0x40 != 0 {
            self.u16()?; // thread
        }
        let mut times = [None, None]; // cpu, wall
        for (k, bit) in [(0usize, 0x04u8), (1, 0x08)] {
            if mask & bit != 0 {
                let s0 = self.u16()? as u64;
                let n0 = self.u32()? as u64;
                let s1 = self.u16()? as u64;
                let n1 = self.u32()? as u64;
                times[k] = Some((s0 * 1_000_000_000 + n0, s1 * 1_000_000_000 + n1));
            }
        }
        if mask & 0x80 != 0 {
            self.u8()?;
            self.skip(16 * self.perf_counters as u64)?;
        }
        let times = times[match self.clock {
            Clock::Cpu => 0,
            Clock::Wall => 1,
        }];
        if label == FUNCTION_ENTER || label == FUNCTION_EXIT {
            self.skip(8)?;
            return Ok(Some(Record {
                label: label as usize,
                times,
                args: Vec::new(),
            }));
        }
        let spec = layout(label as usize);
        let mut vals = Vec::with_capacity(spec.len());
        match spec {
            "?" => {
                return Err(self.err(
                    "records of this MPI function are not supported (layout not implemented)",
                ));
            }
            "g" => self.root_dependent(role(label as usize), &mut vals)?,
            _ => {
                for c in spec.bytes() {
                    vals.push(match c {
                        b'i' => Val::I(self.u32()? as i32 as i64),
                        b's' => Val::I(self.u16()? as i64),
                        b'b' => Val::I(self.u8()? as i64),
                        b'A' | b'R' => Val::A(self.int_array()?),
                        b'D' => Val::A(self.dtype_array()?),
                        b'S' | b'T' => {
                            self.statuses(mask)?;
                            Val::Skip
                        }
                        b'C' | b'B' => {
                            self.char_array()?;
                            Val::Skip
                        }
                        b'q' => {
                            self.skip(8)?;
                            Val::Skip
                        }
                        // Arrays written as one int by older DUMPI versions:
                        // Type_struct's indices before 0.6.9, Cart_get's
                        // coords before 0.6.8.
                        b'Y' | b'Z' => {
                            let since = if c == b'Y' { [0, 6, 9] } else { [0, 6, 8] };
                            if self.has_version(since) {
                                Val::A(self.int_array()?)
                            } else {
                                Val::I(self.u32()? as i32 as i64)
                            }
                        }
                        b'G' => {
                            let n = self.count(4)?;
                            let mut g = Vec::with_capacity(n.min(1024) as usize);
                            for _ in 0..n {
                                g.push(self.int_array()?);
                            }
                            Val::G(g)
                        }
                        b'I' => {
                            let argc = self.count(4)?;
                            if !self.has_version([0, 6, 2]) {
                                self.u32()?; // written twice before 0.6.2
                            }
                            for _ in 0..argc {
                                self.char_array()?;
                            }
                            Val::Skip
                        }
                        _ => unreachable!("bad layout spec"),
                    });
                }
            }
        }
        Ok(Some(Record {
            label: label as usize,
            times,
            args: vals,
        }))
    }

    /// Gather, Gatherv, Scatter, Scatterv: fields present only at the root.
    fn root_dependent(&mut self, role: Role, v: &mut Vec<Val>) -> Result<(), ProgramError> {
        let int =
            |s: &mut Self| -> Result<Val, ProgramError> { Ok(Val::I(s.u32()? as i32 as i64)) };
        let short = |s: &mut Self| -> Result<Val, ProgramError> { Ok(Val::I(s.u16()? as i64)) };
        match role {
            Role::Gather | Role::Scatter => {
                // commrank, count, type, root, comm, [count, type]
                v.push(int(self)?);
                v.push(int(self)?);
                v.push(short(self)?);
                v.push(int(self)?);
                v.push(short(self)?);
                if v[0].i() == v[3].i() {
                    v.push(int(self)?);
                    v.push(short(self)?);
                }
            }
            Role::Gatherv => {
                // commrank, commsize, sendcount, sendtype, root, comm,
                // [recvcounts, displs], recvtype
                for k in 0..6 {
                    v.push(if k == 3 || k == 5 {
                        short(self)?
                    } else {
                        int(self)?
                    });
                }
                if v[0].i() == v[4].i() {
                    v.push(Val::A(self.int_array()?));
                    v.push(Val::A(self.int_array()?));
                } else {
                    v.push(Val::Skip);
                    v.push(Val::Skip);
                }
                v.push(short(self)?);
            }
            Role::Scatterv => {
                // commrank, commsize, sendtype, recvcount, recvtype, root,
                // comm, [sendcounts, displs]
                for k in 0..7 {
                    v.push(if k == 2 || k == 4 || k == 6 {
                        short(self)?
                    } else {
                        int(self)?
                    });
                }
                if v[0].i() == v[5].i() {
                    v.push(Val::A(self.int_array()?));
                    v.push(Val::A(self.int_array()?));
                }
            }
            _ => unreachable!("only the Gather family has root-dependent records"),
        }
        Ok(())
    }
}
