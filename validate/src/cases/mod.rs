//! The validation suite's cases: each runs a seed paper's experiment in the
//! simulator with matching parameters and compares with the paper's model.
//!
//! A case returns [`Row`]s; `quick` selects the reduced version that runs
//! in `cargo test` (fewer sizes, smaller n), the full version runs in
//! `netsim validate`. Cases that can write figures do so into `figures`.

use crate::Error;
use crate::suite::Row;
use mpi_layer::{MpiParams, Op, RunResults, VecProgram};
use std::path::Path;
use topology::{Placement, Transport};

pub mod amg;
pub mod bridges;
pub mod fit;
pub mod hoefler;
pub mod ideal;
pub use ideal::ideal_pair;
pub mod machines;
pub mod routing;

/// Options every case receives.
#[derive(Clone, Copy, Debug)]
pub struct Opts<'a> {
    /// Reduced sizes for the test suite.
    pub quick: bool,
    /// Where to write SVG figures, if anywhere.
    pub figures: Option<&'a Path>,
}

/// A validation case.
pub struct Case {
    /// Name used by `--case`.
    pub name: &'static str,
    /// What it checks, one line.
    pub about: &'static str,
    /// Runs it.
    pub run: fn(Opts<'_>) -> Result<Vec<Row>, Error>,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Case").finish_non_exhaustive()
    }
}

/// Every case, in the order `netsim validate` runs them.
pub fn all() -> Vec<Case> {
    let mut v = ideal::cases();
    v.extend(machines::cases());
    v.extend(hoefler::cases());
    v.extend(bridges::cases());
    v.extend(amg::cases());
    v.extend(fit::cases());
    v.extend(routing::cases());
    v
}

/// Runs programs given as streams; errors are [`Error::Case`]s naming the case.
pub fn simulate_streams<T: Transport, S: mpi_layer::OpStream>(
    case: &str,
    placement: Placement,
    transport: T,
    programs: Vec<S>,
    params: MpiParams,
) -> Result<RunResults, Error> {
    mpi_layer::run(placement, transport, programs, params)
        .map_err(|e| Error::case(format!("{case}: {e}")))
}

/// Runs in-memory programs and hands the transport back (for its link
/// statistics); errors are [`Error::Case`]s naming the case.
pub fn simulate_on<T: Transport>(
    case: &str,
    placement: Placement,
    transport: T,
    programs: Vec<Vec<Op>>,
    params: MpiParams,
) -> Result<(RunResults, T), Error> {
    let progs: Vec<VecProgram> = programs
        .into_iter()
        .enumerate()
        .map(|(r, ops)| VecProgram::new(&format!("{case}/rank{r}"), ops))
        .collect();
    let sim = mpi_layer::Simulation::new(placement, transport, progs, params)
        .map_err(|e| Error::case(format!("{case}: {e}")))?;
    let (r, t) = sim.run_observed(u64::MAX, |_, _| {});
    Ok((r.map_err(|e| Error::case(format!("{case}: {e}")))?, t))
}

/// Runs in-memory programs; errors are [`Error::Case`]s naming the case.
pub fn simulate<T: Transport>(
    case: &str,
    placement: Placement,
    transport: T,
    programs: Vec<Vec<Op>>,
    params: MpiParams,
) -> Result<RunResults, Error> {
    let progs = programs
        .into_iter()
        .enumerate()
        .map(|(r, ops)| VecProgram::new(&format!("{case}/rank{r}"), ops))
        .collect();
    simulate_streams(case, placement, transport, progs, params)
}
