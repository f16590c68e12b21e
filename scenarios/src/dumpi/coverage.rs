//! What the replay does with each MPI function DUMPI labels: simulated,
//! ignored (and why), or rejected (and why). `docs/DUMPI-COVERAGE.md` is
//! this table in words; a test keeps the two in step.

use super::table::{Role, layout, role};
use super::{NUM_FUNCTIONS, function_name};

/// What the replay does with a function's records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Its records become operations, or define what later ones need.
    Simulated,
    /// Read and skipped: no operation, for the reason given.
    Ignored(&'static str),
    /// A record stops the replay with an error, for the reason given.
    Rejected(&'static str),
}

/// Reasons, shared by families of functions.
const QUERY: &str = "local query: no communication, nothing the replay needs";
const BOOKKEEPING: &str = "local bookkeeping: no communication";
const SETUP: &str = "setup and teardown: no communication";
const PROBE: &str = "a probe changes no match; the recorded receive that follows is replayed";
const CANCEL: &str = "cancellation is not modelled";
const PACK: &str = "local copy; its time is part of the recorded call, not replayed";
const ONE_SIDED: &str =
    "one-sided communication is not modelled: its traffic is missing from the replay";
const IO: &str = "MPI-IO is not modelled: no file system in the machine";
const DYNAMIC: &str = "dynamic processes: name service and ports have no traffic to replay";
const NO_LAYOUT: &str = "record layout not implemented: the reader cannot skip it";
const INTER: &str = "intercommunicators are not modelled";

/// The coverage of DUMPI function label `f`.
///
/// # Panics
/// If `f >= NUM_FUNCTIONS`.
pub fn coverage(f: usize) -> Coverage {
    let name = function_name(f);
    if layout(f).contains('?') {
        return Coverage::Rejected(NO_LAYOUT);
    }
    match role(f) {
        Role::Intercomm => return Coverage::Rejected(INTER),
        Role::Other => {}
        _ => return Coverage::Simulated,
    }
    let has = |prefixes: &[&str]| prefixes.iter().any(|p| name.starts_with(p));
    Coverage::Ignored(if has(&["MPI_File_", "MPIO_", "MPI_Register_datarep"]) {
        IO
    } else if ["MPI_Accumulate", "MPI_Get", "MPI_Put"].contains(&name)
        || (name.starts_with("MPI_Win_")
            && !["keyval", "attr", "name", "errhandler"]
                .iter()
                .any(|w| name.contains(w)))
    {
        ONE_SIDED
    } else if has(&["MPI_Iprobe", "MPI_Probe"]) {
        PROBE
    } else if has(&["MPI_Cancel", "MPI_Test_cancelled"]) {
        CANCEL
    } else if has(&[
        "MPI_Init",
        "MPI_Finalize",
        "MPI_Abort",
        "MPI_Comm_disconnect",
        "MPI_Comm_get_parent",
    ]) {
        SETUP
    } else if has(&[
        "MPI_Open_port",
        "MPI_Close_port",
        "MPI_Lookup_name",
        "MPI_Publish_name",
        "MPI_Unpublish_name",
    ]) {
        DYNAMIC
    } else if has(&[
        "MPI_Comm_size",
        "MPI_Comm_rank",
        "MPI_Comm_compare",
        "MPI_Comm_test_inter",
        "MPI_Comm_remote_",
        "MPI_Comm_get_name",
        "MPI_Group_size",
        "MPI_Group_rank",
        "MPI_Group_translate_ranks",
        "MPI_Group_compare",
        "MPI_Topo_test",
        "MPI_Cart_get",
        "MPI_Cartdim_get",
        "MPI_Cart_rank",
        "MPI_Cart_coords",
        "MPI_Cart_shift",
        "MPI_Cart_map",
        "MPI_Graph_map",
        "MPI_Graphdims_get",
        "MPI_Graph_get",
        "MPI_Graph_neighbors",
        "MPI_Dims_create",
        "MPI_Get_",
        "MPI_Type_size",
        "MPI_Type_extent",
        "MPI_Type_lb",
        "MPI_Type_ub",
        "MPI_Type_get_",
        "MPI_Type_match_size",
        "MPI_Initialized",
        "MPI_Finalized",
        "MPI_Is_thread_main",
        "MPI_Query_thread",
        "MPI_Wtime",
        "MPI_Wtick",
        "MPI_Error_",
        "MPI_Request_get_status",
        "MPI_Pack_size",
        "MPI_Win_get_name",
        "MPI_Win_get_attr",
        "MPI_Win_get_errhandler",
    ]) {
        QUERY
    } else if has(&["MPI_Pack", "MPI_Unpack"]) {
        PACK
    } else {
        BOOKKEEPING
    })
}

/// The table of `docs/DUMPI-COVERAGE.md`: one row per label, `| label |
/// function | status | why |`.
pub fn coverage_table() -> String {
    let mut out = String::from("| label | function | status | why |\n|---|---|---|---|\n");
    for f in 0..NUM_FUNCTIONS {
        let (status, why) = match coverage(f) {
            Coverage::Simulated => ("simulated", ""),
            Coverage::Ignored(w) => ("ignored", w),
            Coverage::Rejected(w) => ("rejected", w),
        };
        out += &format!("| {f} | `{}` | {status} | {why} |\n", function_name(f));
    }
    out
}
