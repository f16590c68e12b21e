//! The few calls of the OTF2 C library (libotf2, `libotf2-trace-dev` on
//! Debian, version 3.0) this reader makes, bound by hand, and the reader
//! built on them: global definitions into [`Definitions`], each rank's
//! events into an [`EventSource`] read in chunks of [`CHUNK`] events.
//!
//! Only compiled with the `otf2` feature; `build.rs` links the library
//! (`otf2-config --libs`).
//!
//! The library reports errors through a process-wide callback; this
//! module registers one that formats the message (`vsnprintf`) into a
//! thread-local string instead of printing it, and every failing call
//! returns that message. Callback types pass `va_list` as a pointer,
//! which is its ABI on x86-64 and AArch64 Linux.

#![allow(non_camel_case_types, non_snake_case)]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;
use std::rc::Rc;

use super::defs::{CommDef, Definitions, GroupDef, Otf2Error, RegionDef};
use super::stream::{Event, EventSource};

type Reader = c_void;
type GlobalDefReader = c_void;
type DefReader = c_void;
type EvtReader = c_void;
type Callbacks = c_void;
type AttributeList = c_void;
type ErrorCode = c_int;
type CallbackCode = c_int;
const SUCCESS: c_int = 0;

type ErrorCallback = unsafe extern "C" fn(
    *mut c_void,
    *const c_char,
    u64,
    *const c_char,
    ErrorCode,
    *const c_char,
    *mut c_void,
) -> ErrorCode;

// Linked by build.rs (`otf2-config --libs`: `-lotf2` upstream,
// `-lopen-trace-format2` on Debian).
unsafe extern "C" {
    fn OTF2_Reader_Open(anchor: *const c_char) -> *mut Reader;
    fn OTF2_Reader_Close(r: *mut Reader) -> ErrorCode;
    fn OTF2_Reader_SetSerialCollectiveCallbacks(r: *mut Reader) -> ErrorCode;
    fn OTF2_Reader_GetGlobalDefReader(r: *mut Reader) -> *mut GlobalDefReader;
    fn OTF2_Reader_RegisterGlobalDefCallbacks(
        r: *mut Reader,
        d: *mut GlobalDefReader,
        c: *const Callbacks,
        user: *mut c_void,
    ) -> ErrorCode;
    fn OTF2_Reader_ReadAllGlobalDefinitions(
        r: *mut Reader,
        d: *mut GlobalDefReader,
        n: *mut u64,
    ) -> ErrorCode;
    fn OTF2_Reader_CloseGlobalDefReader(r: *mut Reader, d: *mut GlobalDefReader) -> ErrorCode;
    fn OTF2_Reader_SelectLocation(r: *mut Reader, l: u64) -> ErrorCode;
    fn OTF2_Reader_OpenDefFiles(r: *mut Reader) -> ErrorCode;
    fn OTF2_Reader_CloseDefFiles(r: *mut Reader) -> ErrorCode;
    fn OTF2_Reader_OpenEvtFiles(r: *mut Reader) -> ErrorCode;
    fn OTF2_Reader_GetDefReader(r: *mut Reader, l: u64) -> *mut DefReader;
    fn OTF2_Reader_ReadAllLocalDefinitions(
        r: *mut Reader,
        d: *mut DefReader,
        n: *mut u64,
    ) -> ErrorCode;
    fn OTF2_Reader_CloseDefReader(r: *mut Reader, d: *mut DefReader) -> ErrorCode;
    fn OTF2_Reader_GetEvtReader(r: *mut Reader, l: u64) -> *mut EvtReader;
    fn OTF2_Reader_RegisterEvtCallbacks(
        r: *mut Reader,
        e: *mut EvtReader,
        c: *const Callbacks,
        user: *mut c_void,
    ) -> ErrorCode;
    fn OTF2_Reader_ReadLocalEvents(
        r: *mut Reader,
        e: *mut EvtReader,
        n: u64,
        read: *mut u64,
    ) -> ErrorCode;

    fn OTF2_GlobalDefReaderCallbacks_New() -> *mut Callbacks;
    fn OTF2_GlobalDefReaderCallbacks_Delete(c: *mut Callbacks);
    fn OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(
        c: *mut Callbacks,
        f: unsafe extern "C" fn(*mut c_void, u64, u64, u64, u64) -> CallbackCode,
    ) -> ErrorCode;
    fn OTF2_GlobalDefReaderCallbacks_SetStringCallback(
        c: *mut Callbacks,
        f: unsafe extern "C" fn(*mut c_void, u32, *const c_char) -> CallbackCode,
    ) -> ErrorCode;
    fn OTF2_GlobalDefReaderCallbacks_SetLocationCallback(
        c: *mut Callbacks,
        f: unsafe extern "C" fn(*mut c_void, u64, u32, u8, u64, u32) -> CallbackCode,
    ) -> ErrorCode;
    fn OTF2_GlobalDefReaderCallbacks_SetRegionCallback(
        c: *mut Callbacks,
        f: unsafe extern "C" fn(
            *mut c_void,
            u32,
            u32,
            u32,
            u32,
            u8,
            u8,
            u32,
            u32,
            u32,
            u32,
        ) -> CallbackCode,
    ) -> ErrorCode;
    fn OTF2_GlobalDefReaderCallbacks_SetGroupCallback(
        c: *mut Callbacks,
        f: unsafe extern "C" fn(
            *mut c_void,
            u32,
            u32,
            u8,
            u8,
            u32,
            u32,
            *const u64,
        ) -> CallbackCode,
    ) -> ErrorCode;
    fn OTF2_GlobalDefReaderCallbacks_SetCommCallback(
        c: *mut Callbacks,
        f: unsafe extern "C" fn(*mut c_void, u32, u32, u32, u32, u32) -> CallbackCode,
    ) -> ErrorCode;

    fn OTF2_EvtReaderCallbacks_New() -> *mut Callbacks;
    fn OTF2_EvtReaderCallbacks_Delete(c: *mut Callbacks);
    fn OTF2_EvtReaderCallbacks_SetEnterCallback(c: *mut Callbacks, f: RegionCb) -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetLeaveCallback(c: *mut Callbacks, f: RegionCb) -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetMpiSendCallback(c: *mut Callbacks, f: P2pCb) -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetMpiRecvCallback(c: *mut Callbacks, f: P2pCb) -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetMpiIsendCallback(c: *mut Callbacks, f: NbP2pCb) -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(c: *mut Callbacks, f: NbP2pCb) -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(
        c: *mut Callbacks,
        f: ReqCb,
    ) -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(c: *mut Callbacks, f: ReqCb)
    -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(c: *mut Callbacks, f: ReqCb) -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(
        c: *mut Callbacks,
        f: ReqCb,
    ) -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(
        c: *mut Callbacks,
        f: BeginCb,
    ) -> ErrorCode;
    fn OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(
        c: *mut Callbacks,
        f: EndCb,
    ) -> ErrorCode;

    fn OTF2_Error_RegisterCallback(f: ErrorCallback, user: *mut c_void) -> ErrorCallback;
    fn OTF2_Error_GetDescription(code: ErrorCode) -> *const c_char;
}

unsafe extern "C" {
    fn vsnprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ap: *mut c_void) -> c_int;
}

/// The arguments every event callback starts with.
macro_rules! evt_cb {
    ($($arg:ty),*) => {
        unsafe extern "C" fn(u64, u64, u64, *mut c_void, *mut AttributeList $(, $arg)*) -> CallbackCode
    };
}
type RegionCb = evt_cb!(u32);
type P2pCb = evt_cb!(u32, u32, u32, u64);
type NbP2pCb = evt_cb!(u32, u32, u32, u64, u64);
type ReqCb = evt_cb!(u64);
type BeginCb = evt_cb!();
type EndCb = evt_cb!(u8, u32, u32, u64, u64);

thread_local! {
    /// The library's last error message on this thread.
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

unsafe extern "C" fn on_error(
    _user: *mut c_void,
    _file: *const c_char,
    _line: u64,
    _function: *const c_char,
    code: ErrorCode,
    fmt: *const c_char,
    va: *mut c_void,
) -> ErrorCode {
    let mut buf = [0 as c_char; 512];
    // SAFETY: `fmt` and `va` are the library's own format and arguments;
    // vsnprintf writes at most `buf.len()` bytes, NUL-terminated.
    let msg = unsafe {
        if fmt.is_null() || vsnprintf(buf.as_mut_ptr(), buf.len(), fmt, va) < 0 {
            String::new()
        } else {
            CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
        }
    };
    // SAFETY: the library returns a static string for every code.
    let what = unsafe {
        let d = OTF2_Error_GetDescription(code);
        if d.is_null() {
            String::new()
        } else {
            CStr::from_ptr(d).to_string_lossy().into_owned()
        }
    };
    let text = match (what.is_empty(), msg.is_empty()) {
        (false, false) => format!("{what}: {msg}"),
        (true, false) => msg,
        _ => what,
    };
    LAST_ERROR.with(|e| {
        let mut e = e.borrow_mut();
        if e.is_empty() {
            *e = text;
        }
    });
    code
}

fn register_error_callback() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: `on_error` has the callback's signature and is 'static.
    ONCE.call_once(|| unsafe {
        OTF2_Error_RegisterCallback(on_error, std::ptr::null_mut());
    });
}

/// The library's message for the call that just failed (and clears it).
fn take_error(what: &str) -> String {
    let m = LAST_ERROR.with(|e| std::mem::take(&mut *e.borrow_mut()));
    if m.is_empty() {
        format!("the OTF2 library failed to {what}")
    } else {
        format!("the OTF2 library failed to {what}: {m}")
    }
}

fn check(code: ErrorCode, what: &str) -> Result<(), Otf2Error> {
    if code == SUCCESS {
        Ok(())
    } else {
        Err(Otf2Error::Library(take_error(what)))
    }
}

// Global definition callbacks: `user` is the `Definitions` being filled.
fn defs<'a>(user: *mut c_void) -> &'a mut Definitions {
    // SAFETY: registered with a `&mut Definitions` that outlives the read.
    unsafe { &mut *(user as *mut Definitions) }
}

unsafe extern "C" fn def_clock(
    user: *mut c_void,
    res: u64,
    _: u64,
    _: u64,
    _: u64,
) -> CallbackCode {
    defs(user).resolution = res;
    SUCCESS
}

unsafe extern "C" fn def_string(user: *mut c_void, id: u32, s: *const c_char) -> CallbackCode {
    // SAFETY: the library passes a NUL-terminated string or null.
    let s = if s.is_null() {
        String::new()
    } else {
        unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
    };
    defs(user).strings.insert(id, s);
    SUCCESS
}

unsafe extern "C" fn def_location(
    user: *mut c_void,
    id: u64,
    _name: u32,
    _kind: u8,
    events: u64,
    _group: u32,
) -> CallbackCode {
    defs(user).locations.push((id, events));
    SUCCESS
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn def_region(
    user: *mut c_void,
    id: u32,
    name: u32,
    _canonical: u32,
    _description: u32,
    _role: u8,
    paradigm: u8,
    _flags: u32,
    _file: u32,
    _begin: u32,
    _end: u32,
) -> CallbackCode {
    defs(user).regions.insert(id, RegionDef { name, paradigm });
    SUCCESS
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn def_group(
    user: *mut c_void,
    id: u32,
    _name: u32,
    kind: u8,
    paradigm: u8,
    _flags: u32,
    n: u32,
    members: *const u64,
) -> CallbackCode {
    let members = if n == 0 || members.is_null() {
        Vec::new()
    } else {
        // SAFETY: the library passes `n` members.
        unsafe { std::slice::from_raw_parts(members, n as usize) }.to_vec()
    };
    defs(user).groups.insert(
        id,
        GroupDef {
            kind,
            paradigm,
            members,
        },
    );
    SUCCESS
}

unsafe extern "C" fn def_comm(
    user: *mut c_void,
    id: u32,
    _name: u32,
    group: u32,
    parent: u32,
    _flags: u32,
) -> CallbackCode {
    defs(user).comms.push(CommDef { id, group, parent });
    SUCCESS
}

// Event callbacks: `user` is the location's `VecDeque` of events.
fn push(user: *mut c_void, pos: u64, e: Event) -> CallbackCode {
    // SAFETY: registered with the location's boxed queue, which lives as
    // long as the reader.
    unsafe { &mut *(user as *mut VecDeque<(u64, Event)>) }.push_back((pos, e));
    SUCCESS
}

unsafe extern "C" fn ev_enter(
    _: u64,
    t: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    region: u32,
) -> CallbackCode {
    push(u, p, Event::Enter { time: t, region })
}
unsafe extern "C" fn ev_leave(
    _: u64,
    t: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    region: u32,
) -> CallbackCode {
    push(u, p, Event::Leave { time: t, region })
}
unsafe extern "C" fn ev_send(
    _: u64,
    _: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    peer: u32,
    comm: u32,
    tag: u32,
    len: u64,
) -> CallbackCode {
    push(
        u,
        p,
        Event::Send {
            peer,
            comm,
            tag,
            len,
        },
    )
}
unsafe extern "C" fn ev_recv(
    _: u64,
    _: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    peer: u32,
    comm: u32,
    tag: u32,
    len: u64,
) -> CallbackCode {
    push(
        u,
        p,
        Event::Recv {
            peer,
            comm,
            tag,
            len,
        },
    )
}
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ev_isend(
    _: u64,
    _: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    peer: u32,
    comm: u32,
    tag: u32,
    len: u64,
    req: u64,
) -> CallbackCode {
    push(
        u,
        p,
        Event::Isend {
            peer,
            comm,
            tag,
            len,
            req,
        },
    )
}
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ev_irecv(
    _: u64,
    _: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    peer: u32,
    comm: u32,
    tag: u32,
    len: u64,
    req: u64,
) -> CallbackCode {
    push(
        u,
        p,
        Event::Irecv {
            peer,
            comm,
            tag,
            len,
            req,
        },
    )
}
unsafe extern "C" fn ev_isend_complete(
    _: u64,
    _: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    req: u64,
) -> CallbackCode {
    push(u, p, Event::IsendComplete { req })
}
unsafe extern "C" fn ev_irecv_request(
    _: u64,
    _: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    req: u64,
) -> CallbackCode {
    push(u, p, Event::IrecvRequest { req })
}
unsafe extern "C" fn ev_test(
    _: u64,
    _: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    req: u64,
) -> CallbackCode {
    push(u, p, Event::RequestTest { req })
}
unsafe extern "C" fn ev_cancelled(
    _: u64,
    _: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    req: u64,
) -> CallbackCode {
    push(u, p, Event::RequestCancelled { req })
}
unsafe extern "C" fn ev_coll_begin(
    _: u64,
    _: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
) -> CallbackCode {
    push(u, p, Event::CollectiveBegin)
}
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ev_coll_end(
    _: u64,
    _: u64,
    p: u64,
    u: *mut c_void,
    _: *mut AttributeList,
    op: u8,
    comm: u32,
    root: u32,
    sent: u64,
    received: u64,
) -> CallbackCode {
    push(
        u,
        p,
        Event::CollectiveEnd {
            op,
            comm,
            root,
            sent,
            received,
        },
    )
}

/// How many events one read of a location's events decodes at most.
pub(super) const CHUNK: u64 = 4096;

/// An open archive: the library's reader and, per rank, its event reader
/// and the events decoded but not yet taken.
struct Archive {
    reader: *mut Reader,
    evt: Vec<*mut EvtReader>,
    /// Per rank, the queue its callbacks push into (from
    /// `Box::into_raw`, freed on drop after the reader is closed).
    queues: Vec<*mut VecDeque<(u64, Event)>>,
    ended: Vec<bool>,
}

impl Drop for Archive {
    fn drop(&mut self) {
        // SAFETY: `reader` came from OTF2_Reader_Open; closing it releases
        // every reader obtained from it, after which no callback can use
        // the queues, which came from Box::into_raw.
        unsafe {
            OTF2_Reader_Close(self.reader);
            for &q in &self.queues {
                drop(Box::from_raw(q));
            }
        }
    }
}

/// The definitions of the archive whose anchor file is `anchor`, and a
/// function giving the event source of each rank (by location id, in the
/// order `locations` will name them).
pub(super) struct Opened {
    archive: Rc<RefCell<Archive>>,
}

/// Opens the archive and reads its global definitions.
pub(super) fn open(anchor: &Path) -> Result<(Opened, Definitions), Otf2Error> {
    register_error_callback();
    let c =
        CString::new(anchor.as_os_str().as_encoded_bytes()).map_err(|_| Otf2Error::NulInPath)?;
    // SAFETY: a NUL-terminated path; null is checked.
    let reader = unsafe { OTF2_Reader_Open(c.as_ptr()) };
    if reader.is_null() {
        return Err(Otf2Error::Library(take_error("open the anchor file")));
    }
    let archive = Archive {
        reader,
        evt: Vec::new(),
        queues: Vec::new(),
        ended: Vec::new(),
    };
    let mut d = Definitions::default();
    // SAFETY: every pointer passed is the library's own or `d`, which
    // outlives the read; callbacks are deleted after registration copies
    // them.
    unsafe {
        check(
            OTF2_Reader_SetSerialCollectiveCallbacks(reader),
            "set up the reader",
        )?;
        let g = OTF2_Reader_GetGlobalDefReader(reader);
        if g.is_null() {
            return Err(Otf2Error::Library(take_error(
                "open the global definitions",
            )));
        }
        let cb = OTF2_GlobalDefReaderCallbacks_New();
        OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
        OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
        OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
        OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
        OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
        OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
        let r =
            OTF2_Reader_RegisterGlobalDefCallbacks(reader, g, cb, &mut d as *mut _ as *mut c_void);
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        check(r, "register definition callbacks")?;
        let mut n = 0;
        check(
            OTF2_Reader_ReadAllGlobalDefinitions(reader, g, &mut n),
            "read the global definitions",
        )?;
        OTF2_Reader_CloseGlobalDefReader(reader, g);
    }
    Ok((
        Opened {
            archive: Rc::new(RefCell::new(archive)),
        },
        d,
    ))
}

impl Opened {
    /// Opens the event readers of `locations` (rank order), reading each
    /// one's local definitions (its mapping tables) first; returns one
    /// source per rank. An error in a location's local definitions comes
    /// with that location (`Some(l)`), to name its file.
    pub(super) fn sources(
        &self,
        locations: &[u64],
    ) -> Result<Vec<Otf2Source>, (Option<u64>, Otf2Error)> {
        let any = |e: Otf2Error| (None, e);
        let mut a = self.archive.borrow_mut();
        let reader = a.reader;
        // SAFETY: the library's handles; each queue is boxed, so its
        // address, registered as the callbacks' user data, never moves.
        unsafe {
            for &l in locations {
                check(OTF2_Reader_SelectLocation(reader, l), "select a location").map_err(any)?;
            }
            check(
                OTF2_Reader_OpenDefFiles(reader),
                "open the local definition files",
            )
            .map_err(any)?;
            check(OTF2_Reader_OpenEvtFiles(reader), "open the event files").map_err(any)?;
            let cb = OTF2_EvtReaderCallbacks_New();
            OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
            OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
            OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
            OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
            OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
            OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
            OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_complete);
            OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_request);
            OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, ev_test);
            OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_cancelled);
            OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
            OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
            let result = (|| {
                for &l in locations {
                    // The event reader first, so that the local
                    // definitions' mapping tables apply to it.
                    let e = OTF2_Reader_GetEvtReader(reader, l);
                    if e.is_null() {
                        return Err(any(Otf2Error::Library(take_error(&format!(
                            "open location {l}'s events"
                        )))));
                    }
                    let d = OTF2_Reader_GetDefReader(reader, l);
                    if !d.is_null() {
                        let mut n = 0;
                        check(
                            OTF2_Reader_ReadAllLocalDefinitions(reader, d, &mut n),
                            &format!("read location {l}'s local definitions"),
                        )
                        .map_err(|e| (Some(l), e))?;
                        OTF2_Reader_CloseDefReader(reader, d);
                    }
                    let q = Box::into_raw(Box::new(VecDeque::new()));
                    a.evt.push(e);
                    a.queues.push(q);
                    check(
                        OTF2_Reader_RegisterEvtCallbacks(reader, e, cb, q as *mut c_void),
                        "register event callbacks",
                    )
                    .map_err(any)?;
                    a.ended.push(false);
                }
                Ok(())
            })();
            OTF2_EvtReaderCallbacks_Delete(cb);
            result?;
            check(
                OTF2_Reader_CloseDefFiles(reader),
                "close the local definition files",
            )
            .map_err(any)?;
        }
        Ok((0..locations.len())
            .map(|i| Otf2Source {
                archive: self.archive.clone(),
                index: i,
            })
            .collect())
    }
}

/// One rank's events, decoded by the library [`CHUNK`] at a time.
pub struct Otf2Source {
    archive: Rc<RefCell<Archive>>,
    index: usize,
}

impl std::fmt::Debug for Otf2Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Otf2Source").finish_non_exhaustive()
    }
}

impl EventSource for Otf2Source {
    fn next_event(&mut self) -> Result<Option<(u64, Event)>, Otf2Error> {
        let mut a = self.archive.borrow_mut();
        let i = self.index;
        let q = a.queues[i];
        // SAFETY: `q` is this rank's live queue; no other reference to it
        // exists while this one is used.
        if let Some(e) = unsafe { (*q).pop_front() } {
            return Ok(Some(e));
        }
        if a.ended[i] {
            return Ok(None);
        }
        let mut read = 0;
        // SAFETY: the reader and this location's event reader are open;
        // the callbacks push into `q`, which nothing else borrows during
        // the call.
        let code = unsafe { OTF2_Reader_ReadLocalEvents(a.reader, a.evt[i], CHUNK, &mut read) };
        check(code, "read the events")?;
        if read < CHUNK {
            a.ended[i] = true;
        }
        // SAFETY: as above.
        Ok(unsafe { (*q).pop_front() })
    }
}
