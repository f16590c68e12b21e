//! What happened when: a per-rank timeline and a per-message record,
//! written while the run goes, through the MPI layer's observer seam
//! ([`mpi_layer::Observer`]). A run without them uses
//! [`mpi_layer::NoObserver`] and pays nothing.
//!
//! - The **timeline** is a Chrome trace-event JSON file (open it in
//!   Perfetto, `ui.perfetto.dev`, or `chrome://tracing`): one track per
//!   rank with its operations (instants) and the intervals its program
//!   was blocked (named after the blocking operation), and one track per
//!   CPU with the host work (send overheads, envelope handling with its
//!   queue search, receive copies, computation), and a flow arrow from
//!   each message's send (when posted) to its receive (when complete).
//!   Times are microseconds with picosecond digits.
//! - The **message record** is a CSV with one row per message, written
//!   when its receive completes: `src,dst,seq,tag,bytes,protocol,
//!   locality,posted_ps,departed_ps,arrived_ps,matched_ps,visited,
//!   completed_ps`, in completion order; `seq` is the send order in the
//!   pair, counted from 0 again once the pair has nothing in flight. For
//!   a rendezvous message `departed`/`arrived` are the RTS's; `visited`
//!   is the matching search's length. Rows of messages
//!   in flight are held until they complete, so memory follows the
//!   messages in flight, not the run's length.
//!
//! Both are deterministic: events come in simulation order. Schemas:
//! `docs/OUTPUT.md`.

use mpi_layer::{MessageStep, MsgId, Observer, Op, Origin, Step, Work};
use rustc_hash::FxHashMap;
use sim_core::Time;
use std::io::{self, Write};

/// Microseconds with picosecond digits, as trace-event `ts` and `dur`
/// take them.
fn us(t: Time) -> String {
    let ps = t.as_ps();
    format!("{}.{:06}", ps / 1_000_000, ps % 1_000_000)
}

/// A tag as the run's input wrote it: MPI's `int`, or with `unsigned` a
/// GOAL schedule's unsigned 32-bit tag, which the MPI layer carries as
/// the `i32` of the same bits.
fn tag_text(tag: i32, unsigned: bool) -> String {
    if unsigned {
        u32::from_ne_bytes(tag.to_ne_bytes()).to_string()
    } else {
        tag.to_string()
    }
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

fn work_name(w: Work) -> &'static str {
    match w {
        Work::Send => "send overhead",
        Work::Envelope => "envelope (search, receive)",
        Work::Data => "rendezvous data (receive)",
        Work::Post => "post receive (search, copy)",
        Work::Compute => "compute",
    }
}

/// Writes a Chrome trace-event timeline as the run goes.
pub struct Timeline<W: Write> {
    out: W,
    first: bool,
    /// Per rank: the name of its current operation, and since when it has
    /// been blocked.
    ranks: Vec<(String, Option<Time>)>,
    cpus_named: Vec<bool>,
    /// The latest time an event carried.
    last: Time,
    /// The flow (send-to-receive arrow) of each message in flight, by
    /// message number, and the next flow's id.
    flows: FxHashMap<MsgId, u64>,
    next_flow: u64,
    unsigned_tags: bool,
    err: Option<io::Error>,
}

impl<W: Write> std::fmt::Debug for Timeline<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Timeline").finish_non_exhaustive()
    }
}

/// Trace-event process ids of the groups of tracks.
const RANKS_PID: u32 = 1;
const CPUS_PID: u32 = 2;
const LINKS_PID: u32 = 3;

impl<W: Write> Timeline<W> {
    /// Starts the JSON document on `out`.
    pub fn new(out: W) -> Self {
        let mut t = Timeline {
            out,
            first: true,
            ranks: Vec::new(),
            cpus_named: Vec::new(),
            last: Time::ZERO,
            flows: FxHashMap::default(),
            next_flow: 0,
            unsigned_tags: false,
            err: None,
        };
        t.raw("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n".into());
        t.event(format!(
            "{{\"ph\":\"M\",\"pid\":{RANKS_PID},\"name\":\"process_name\",\"args\":{{\"name\":\"ranks\"}}}}"
        ));
        t.event(format!(
            "{{\"ph\":\"M\",\"pid\":{CPUS_PID},\"name\":\"process_name\",\"args\":{{\"name\":\"CPUs (host work)\"}}}}"
        ));
        t
    }

    /// With `on`, tags are shown as unsigned 32-bit numbers: a GOAL
    /// run's ([`crate::scenario::Scenario::goal_tags`]), whose tags of 2^31 and above
    /// would otherwise show negative.
    pub fn unsigned_tags(mut self, on: bool) -> Self {
        self.unsigned_tags = on;
        self
    }

    fn raw(&mut self, s: String) {
        if self.err.is_none() {
            if let Err(e) = self.out.write_all(s.as_bytes()) {
                self.err = Some(e);
            }
        }
    }

    fn event(&mut self, e: String) {
        let sep = if self.first { "" } else { ",\n" };
        self.first = false;
        self.raw(format!("{sep}{e}"));
    }

    fn rank(&mut self, r: u32) -> &mut (String, Option<Time>) {
        let i = r as usize;
        if i >= self.ranks.len() {
            for k in self.ranks.len()..=i {
                self.event(format!(
                    "{{\"ph\":\"M\",\"pid\":{RANKS_PID},\"tid\":{k},\"name\":\"thread_name\",\"args\":{{\"name\":\"rank {k}\"}}}}"
                ));
            }
            self.ranks.resize(i + 1, (String::new(), None));
        }
        &mut self.ranks[i]
    }

    /// Adds one counter track per link that carried bytes: its rate
    /// (Gb/s) in each bin of `series` (per-link time series,
    /// [`topology::LinkSeries`], built from the links' busy intervals by
    /// [`Tap::links`]), named `link L: FROM -> TO` from `ends` (the
    /// link's two vertex names). Called after the run, when the series is
    /// complete.
    pub fn link_tracks(
        &mut self,
        series: &[topology::LinkSeries],
        ends: impl Fn(topology::LinkId) -> (String, String),
    ) {
        if series.is_empty() {
            return;
        }
        self.event(format!(
            "{{\"ph\":\"M\",\"pid\":{LINKS_PID},\"name\":\"process_name\",\"args\":{{\"name\":\"links (rate per bin)\"}}}}"
        ));
        for ls in series {
            let (a, b) = ends(ls.link);
            let name = json_str(&format!("link {}: {a} -> {b}", ls.link));
            let iv = ls.interval;
            let mut prev = None;
            for (i, &bytes) in ls.bytes.iter().enumerate() {
                // Only changes are written.
                if prev == Some(bytes) {
                    continue;
                }
                prev = Some(bytes);
                let gbps = ls.gbps(i);
                self.event(format!(
                    "{{\"ph\":\"C\",\"cat\":\"link\",\"pid\":{LINKS_PID},\"name\":{name},\"ts\":{},\"args\":{{\"Gb/s\":{gbps}}}}}",
                    us(Time::from_ps(iv.as_ps() * i as u64))
                ));
            }
            let end = Time::from_ps(iv.as_ps() * ls.bytes.len() as u64);
            self.event(format!(
                "{{\"ph\":\"C\",\"cat\":\"link\",\"pid\":{LINKS_PID},\"name\":{name},\"ts\":{},\"args\":{{\"Gb/s\":0}}}}",
                us(end)
            ));
        }
    }

    /// Closes the blocked intervals still open (a failed run's) at the
    /// last event's time, ends the JSON document and returns the writer,
    /// or the first write error.
    pub fn finish(mut self) -> io::Result<W> {
        for r in 0..self.ranks.len() as u32 {
            self.close_blocked(r, self.last);
        }
        self.raw("\n]}\n".into());
        if let Some(e) = self.err.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.out)
    }

    fn close_blocked(&mut self, rank: u32, at: Time) {
        self.last = self.last.max(at);
        let (name, since) = self.rank(rank);
        if let Some(t0) = since.take() {
            let name = json_str(&format!("blocked in {name}"));
            self.event(format!(
                "{{\"ph\":\"X\",\"cat\":\"wait\",\"pid\":{RANKS_PID},\"tid\":{rank},\"name\":{name},\"ts\":{},\"dur\":{}}}",
                us(t0),
                us(at.saturating_sub(t0))
            ));
        }
    }
}

impl<W: Write> Observer for Timeline<W> {
    fn op(&mut self, rank: u32, op: &Op, origin: &Origin, at: Time) {
        let text = crate::native::format_op(op);
        let name = text.split_whitespace().next().unwrap_or("op").to_owned();
        let ev = format!(
            "{{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"op\",\"pid\":{RANKS_PID},\"tid\":{rank},\"name\":{},\"ts\":{},\"args\":{{\"op\":{},\"from\":{}}}}}",
            json_str(&name),
            us(at),
            json_str(&text),
            json_str(&origin.to_string())
        );
        self.rank(rank).0 = name;
        self.last = self.last.max(at);
        self.event(ev);
    }
    fn blocked(&mut self, rank: u32, at: Time) {
        self.last = self.last.max(at);
        let slot = self.rank(rank);
        if slot.1.is_none() {
            slot.1 = Some(at);
        }
    }
    fn resumed(&mut self, rank: u32, at: Time) {
        self.close_blocked(rank, at);
    }
    fn message(&mut self, m: &MessageStep) {
        let (rank, ph, id) = match m.step {
            Step::Posted { .. } => {
                let id = self.next_flow;
                self.next_flow += 1;
                self.flows.insert(m.id, id);
                (m.src, "\"ph\":\"s\"", id)
            }
            Step::Completed => match self.flows.remove(&m.id) {
                Some(id) => (m.dst, "\"ph\":\"f\",\"bp\":\"e\"", id),
                None => return,
            },
            _ => return,
        };
        self.last = self.last.max(m.at);
        self.rank(rank);
        self.event(format!(
            "{{{ph},\"cat\":\"message\",\"pid\":{RANKS_PID},\"tid\":{rank},\"name\":\"message\",\"ts\":{},\"id\":{id},\"args\":{{\"bytes\":{},\"tag\":{}}}}}",
            us(m.at),
            m.bytes,
            tag_text(m.tag, self.unsigned_tags)
        ));
    }
    fn work(&mut self, server: u32, rank: u32, kind: Work, start: Time, end: Time) {
        self.last = self.last.max(end);
        let i = server as usize;
        if i >= self.cpus_named.len() {
            self.cpus_named.resize(i + 1, false);
        }
        if !self.cpus_named[i] {
            self.cpus_named[i] = true;
            self.event(format!(
                "{{\"ph\":\"M\",\"pid\":{CPUS_PID},\"tid\":{server},\"name\":\"thread_name\",\"args\":{{\"name\":\"CPU {server}\"}}}}"
            ));
        }
        self.event(format!(
            "{{\"ph\":\"X\",\"cat\":\"work\",\"pid\":{CPUS_PID},\"tid\":{server},\"name\":{},\"ts\":{},\"dur\":{},\"args\":{{\"rank\":{rank}}}}}",
            json_str(work_name(kind)),
            us(start),
            us(end.saturating_sub(start))
        ));
    }
}

/// One message's row, filled in step by step.
#[derive(Clone, Copy)]
struct Row {
    first: MessageStep,
    departed: Option<Time>,
    arrived: Option<Time>,
    matched: Option<(Time, u64)>,
}

/// Writes one CSV row per message when its receive completes.
pub struct MessageLog<W: Write> {
    out: csv::Writer<W>,
    open: FxHashMap<MsgId, Row>,
    unsigned_tags: bool,
    err: Option<csv::Error>,
}

impl<W: Write> std::fmt::Debug for MessageLog<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageLog").finish_non_exhaustive()
    }
}

impl<W: Write> MessageLog<W> {
    /// The header goes out at once.
    pub fn new(out: W) -> Self {
        let mut log = MessageLog {
            out: csv::Writer::from_writer(out),
            open: FxHashMap::default(),
            unsigned_tags: false,
            err: None,
        };
        log.write(&[
            "src",
            "dst",
            "seq",
            "tag",
            "bytes",
            "protocol",
            "locality",
            "posted_ps",
            "departed_ps",
            "arrived_ps",
            "matched_ps",
            "visited",
            "completed_ps",
        ]);
        log
    }

    /// With `on`, tags are shown as unsigned 32-bit numbers (see
    /// [`Timeline::unsigned_tags`]).
    pub fn unsigned_tags(mut self, on: bool) -> Self {
        self.unsigned_tags = on;
        self
    }

    fn write<S: AsRef<[u8]>>(&mut self, rec: &[S]) {
        if self.err.is_none() {
            if let Err(e) = self.out.write_record(rec) {
                self.err = Some(e);
            }
        }
    }

    /// Flushes and returns the writer, or the first write error. Messages
    /// whose receive never completed (a failed run) have no row.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(e) = self.err.take() {
            return Err(io::Error::other(e));
        }
        self.out.into_inner().map_err(|e| e.into_error())
    }
}

fn ps(t: Option<Time>) -> String {
    t.map_or(String::new(), |t| t.as_ps().to_string())
}

impl<W: Write> Observer for MessageLog<W> {
    fn message(&mut self, m: &MessageStep) {
        let key = m.id;
        let row = self.open.entry(key).or_insert(Row {
            first: *m,
            departed: None,
            arrived: None,
            matched: None,
        });
        match m.step {
            Step::Posted { .. } => {}
            Step::Departed => {
                row.departed.get_or_insert(m.at);
            }
            Step::Arrived => {
                row.arrived.get_or_insert(m.at);
            }
            Step::Matched { visited } => row.matched = Some((m.at, visited)),
            Step::Completed => {
                let row = self.open.remove(&key).expect("entered above");
                let f = row.first;
                self.write(&[
                    f.src.to_string(),
                    f.dst.to_string(),
                    f.seq.to_string(),
                    tag_text(f.tag, self.unsigned_tags),
                    f.bytes.to_string(),
                    f.protocol.name().to_owned(),
                    f.locality.name().to_owned(),
                    ps(matches!(f.step, Step::Posted { .. }).then_some(f.at)),
                    ps(row.departed),
                    ps(row.arrived),
                    ps(row.matched.map(|x| x.0)),
                    row.matched.map_or(String::new(), |x| x.1.to_string()),
                    m.at.as_ps().to_string(),
                ]);
            }
        }
    }
}

/// The outputs a run was asked for, as one observer.
pub struct Tap<W: Write> {
    /// The timeline, if asked for.
    pub timeline: Option<Timeline<W>>,
    /// The message record, if asked for.
    pub messages: Option<MessageLog<W>>,
    /// Per-link time series built from the links' busy intervals (for
    /// the timeline's link tracks and `--link-series`), if asked for;
    /// only then does the transport log them.
    pub links: Option<topology::SeriesBuilder>,
}

impl<W: Write> std::fmt::Debug for Tap<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tap").finish_non_exhaustive()
    }
}

impl<W: Write> Observer for Tap<W> {
    fn op(&mut self, rank: u32, op: &Op, origin: &Origin, at: Time) {
        if let Some(t) = &mut self.timeline {
            t.op(rank, op, origin, at);
        }
    }
    fn blocked(&mut self, rank: u32, at: Time) {
        if let Some(t) = &mut self.timeline {
            t.blocked(rank, at);
        }
    }
    fn resumed(&mut self, rank: u32, at: Time) {
        if let Some(t) = &mut self.timeline {
            t.resumed(rank, at);
        }
    }
    fn work(&mut self, server: u32, rank: u32, kind: Work, start: Time, end: Time) {
        if let Some(t) = &mut self.timeline {
            t.work(server, rank, kind, start, end);
        }
    }
    fn message(&mut self, step: &MessageStep) {
        if let Some(t) = &mut self.timeline {
            t.message(step);
        }
        if let Some(m) = &mut self.messages {
            m.message(step);
        }
    }
    fn wants_links(&self) -> bool {
        self.links.is_some()
    }
    fn link_busy(&mut self, busy: &topology::LinkBusy) {
        if let Some(s) = &mut self.links {
            s.add(busy);
        }
    }
}
