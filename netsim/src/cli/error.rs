//! A command's error and the exit codes it maps to.

use scenarios::scenario::ScenarioError;

/// Exit code: a validation row or a check failed.
pub(crate) const EXIT_CHECK_FAILED: u8 = 1;
/// Exit code: bad input or configuration (a file, an option, a trace
/// line, a limit), including a run stopped by an input error.
pub(crate) const EXIT_INPUT: u8 = 2;
/// Exit code: the simulation deadlocked (ranks blocked, nothing left to
/// happen).
pub(super) const EXIT_DEADLOCK: u8 = 3;

/// A command's error: the message and the exit code it maps to
/// ([`EXIT_INPUT`] or [`EXIT_DEADLOCK`]).
#[derive(Debug)]
pub(crate) struct CliError {
    /// The process exit code.
    pub code: u8,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError {
            code: EXIT_INPUT,
            message,
        }
    }
}

impl From<sim_core::outputs::OutputError> for CliError {
    fn from(e: sim_core::outputs::OutputError) -> Self {
        e.to_string().into()
    }
}

impl From<&str> for CliError {
    fn from(message: &str) -> Self {
        message.to_string().into()
    }
}

impl From<ScenarioError> for CliError {
    fn from(e: ScenarioError) -> Self {
        CliError {
            code: if e.deadlock {
                EXIT_DEADLOCK
            } else {
                EXIT_INPUT
            },
            message: e.to_string(),
        }
    }
}

/// A scenario's error as a command's.
pub(super) fn scenario_err(e: ScenarioError) -> CliError {
    e.into()
}
