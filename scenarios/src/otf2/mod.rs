//! OTF2 traces (Score-P's format), opened through their `.otf2` anchor
//! file.
//!
//! An OTF2 archive is an anchor file `<name>.otf2`, the global
//! definitions `<name>.def`, and a folder `<name>/` holding one event file
//! `<location>.evt` (and a local definition file `<location>.def`) per
//! location. The OTF2 C library (libotf2 3.0, Debian's
//! `libotf2-trace-dev`) decodes them; netsim binds the few calls it needs
//! by hand (`ffi`, behind the cargo feature `otf2`: `cargo build
//! --features scenarios/otf2`, or `netsim/otf2`). Without the feature,
//! opening an OTF2 trace is an error saying how to enable it.
//!
//! # Modules
//!
//! - [`defs`]: the global definitions used (clock resolution, regions,
//!   groups, communicators, locations) as plain data, and [`Layout`],
//!   what they mean for a replay (location of each rank, MPI regions,
//!   communicator members);
//! - [`stream`]: one rank's events ([`Event`]) as operations, through
//!   the recorded-call mapping shared with DUMPI
//!   ([`crate::recorded`]); what maps to what is in its docs and in
//!   `docs/OTF2-COVERAGE.md`;
//! - [`calls`]: what an MPI record carries as a recorded call (sizes in
//!   bytes, a collective's size per rank from Score-P's byte counts);
//! - `ffi` (feature `otf2`): the library calls and the event source.
//!
//! # Memory
//!
//! Each rank's events are decoded by the library at most [`ffi_chunk`]
//! events at a time into a queue the rank's stream drains; the library
//! keeps one buffer chunk of each rank's event file (the archive's chunk
//! size, 1 MiB for Score-P). A stream also holds the events it read ahead
//! to find where a nonblocking receive completes (at most
//! [`MAX_LOOKAHEAD`]). So memory grows with the ranks and the operations in
//! flight, not with the trace's length. The library's readers are not
//! shared between threads: a trace's streams must be read on the thread
//! that opened it (as every run does).
//!
//! Errors name the anchor file or the rank's event file
//! (`<name>/<location>.evt`), the rank and the event's position.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mpi_layer::ProgramError;

use crate::reader::TraceReader;
use crate::text::{file_error, path_name};

pub mod calls;
pub mod defs;
#[cfg(feature = "otf2")]
mod ffi;
pub mod stream;

pub use defs::{Definitions, Layout, Otf2Error};
pub use stream::{Event, EventSource, MAX_LOOKAHEAD, Otf2Config, RankStream};

/// The events the library decodes per read of one rank's file (4096
/// with the `otf2` feature).
#[cfg(feature = "otf2")]
pub const fn ffi_chunk() -> u64 {
    ffi::CHUNK
}

/// The events the library decodes per read of one rank's file (none
/// without the `otf2` feature).
#[cfg(not(feature = "otf2"))]
pub const fn ffi_chunk() -> u64 {
    0
}

/// Whether this build reads OTF2 (the `otf2` feature).
pub const ENABLED: bool = cfg!(feature = "otf2");

/// The message of a build without the `otf2` feature.
pub const NOT_ENABLED: &str = "this netsim was built without OTF2 support: install the OTF2 \
     library (Debian: apt-get install libotf2-trace-dev) and rebuild with `--features otf2` \
     (e.g. cargo install --path netsim --features otf2)";

/// A rank's stream of an OTF2 trace.
#[cfg(feature = "otf2")]
pub type Otf2Stream = RankStream<ffi::Otf2Source>;

/// A rank's stream of an OTF2 trace (never made without the `otf2`
/// feature).
#[cfg(not(feature = "otf2"))]
pub type Otf2Stream = RankStream<std::vec::IntoIter<(u64, Event)>>;

/// An OTF2 trace: its layout and, with the `otf2` feature, the open
/// archive.
pub struct Otf2Trace {
    anchor: PathBuf,
    layout: Arc<Layout>,
    config: Otf2Config,
    #[cfg(feature = "otf2")]
    archive: ffi::Opened,
}

impl std::fmt::Debug for Otf2Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Otf2Trace").finish_non_exhaustive()
    }
}

impl Otf2Trace {
    /// Opens the archive whose anchor file is `anchor` and reads its
    /// global definitions; every rank's event file must exist.
    pub fn open(anchor: &Path, config: Otf2Config) -> Result<Otf2Trace, ProgramError> {
        if !(config.compute_scale.is_finite() && config.compute_scale >= 0.0) {
            return Err(file_error(
                anchor,
                format!(
                    "compute scale must be a non-negative number, got {}",
                    config.compute_scale
                ),
            ));
        }
        if !anchor.is_file() {
            return Err(file_error(anchor, "the OTF2 anchor file does not exist"));
        }
        Self::open_archive(anchor, config)
    }

    #[cfg(not(feature = "otf2"))]
    fn open_archive(anchor: &Path, _config: Otf2Config) -> Result<Otf2Trace, ProgramError> {
        Err(file_error(anchor, NOT_ENABLED))
    }

    #[cfg(feature = "otf2")]
    fn open_archive(anchor: &Path, config: Otf2Config) -> Result<Otf2Trace, ProgramError> {
        let (archive, defs) = ffi::open(anchor).map_err(|m| file_error(anchor, m))?;
        let layout = Layout::new(&defs).map_err(|m| file_error(anchor, m))?;
        let t = Otf2Trace {
            anchor: anchor.to_path_buf(),
            layout: Arc::new(layout),
            config,
            archive,
        };
        for (r, &l) in t.layout.rank_locations.iter().enumerate() {
            let f = t.event_file(l);
            if !f.is_file() {
                return Err(file_error(
                    anchor,
                    format!("rank {r}'s event file {} does not exist", f.display()),
                ));
            }
        }
        Ok(t)
    }

    /// The event file of location `l`: `<name>/<l>.evt` beside the anchor.
    pub fn event_file(&self, l: u64) -> PathBuf {
        let stem = self.anchor.file_stem().unwrap_or_default();
        self.anchor.with_file_name(stem).join(format!("{l}.evt"))
    }

    /// The replay's view of the definitions.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
}

impl TraceReader for Otf2Trace {
    type Stream = Otf2Stream;

    fn num_ranks(&self) -> u32 {
        self.layout.num_ranks()
    }

    #[cfg(feature = "otf2")]
    fn streams(&self) -> Result<Vec<Otf2Stream>, ProgramError> {
        let locs = &self.layout.rank_locations;
        let def_file = |l: u64| self.event_file(l).with_extension("def");
        let sources = self.archive.sources(locs).map_err(|(l, m)| match l {
            Some(l) => file_error(&def_file(l), m),
            None => file_error(&self.anchor, m),
        })?;
        Ok(sources
            .into_iter()
            .enumerate()
            .map(|(r, s)| {
                RankStream::new(
                    s,
                    self.layout.clone(),
                    r as u32,
                    self.config.clone(),
                    path_name(&self.event_file(locs[r])),
                )
            })
            .collect())
    }

    /// Unreachable without the `otf2` feature: [`Otf2Trace::open`]
    /// fails.
    #[cfg(not(feature = "otf2"))]
    fn streams(&self) -> Result<Vec<Otf2Stream>, ProgramError> {
        let _ = (&self.config, path_name(&self.anchor));
        Err(file_error(&self.anchor, NOT_ENABLED))
    }
}
