//! A command's error and the exit codes it maps to: every command
//! returns [`CliError`], and `main` prints its message after `netsim:
//! error: ` and exits with its code.

use scenarios::scenario::ScenarioError;
use std::fmt::Display;

/// Exit code: a validation row or a check failed.
pub(crate) const EXIT_CHECK_FAILED: u8 = 1;
/// Exit code: bad input or configuration (a file, an option, a trace
/// line, a limit), including a run stopped by an input error.
pub(crate) const EXIT_INPUT: u8 = 2;
/// Exit code: the simulation deadlocked (ranks blocked, nothing left to
/// happen).
pub(super) const EXIT_DEADLOCK: u8 = 3;

/// A command's error: the message and the exit code it maps to
/// ([`EXIT_CHECK_FAILED`], [`EXIT_INPUT`] or [`EXIT_DEADLOCK`]).
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

impl CliError {
    /// Bad input or configuration ([`EXIT_INPUT`]) with `e`'s message.
    pub(crate) fn input(e: impl Display) -> Self {
        CliError {
            code: EXIT_INPUT,
            message: e.to_string(),
        }
    }
}

impl From<validate::Error> for CliError {
    /// A scenario the simulator rejected after a fit is a failed check
    /// ([`EXIT_CHECK_FAILED`]); anything else the validation library
    /// refuses is bad input.
    fn from(e: validate::Error) -> Self {
        CliError {
            code: match e {
                validate::Error::Rejected(_) => EXIT_CHECK_FAILED,
                validate::Error::Input(_) | validate::Error::Case(_) => EXIT_INPUT,
            },
            message: e.to_string(),
        }
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

/// Errors of the libraries that are always bad input (exit 2), with
/// their own message.
macro_rules! input_errors {
    ($($t:ty),*) => {$(
        impl From<$t> for CliError {
            fn from(e: $t) -> Self {
                e.to_string().into()
            }
        }
    )*};
}

input_errors!(
    sim_core::outputs::OutputError,
    sim_core::limits::LimitError,
    scenarios::sweep::SweepError,
    scenarios::shared::SharedError
);

impl From<&str> for CliError {
    fn from(message: &str) -> Self {
        message.to_string().into()
    }
}

impl From<ScenarioError> for CliError {
    fn from(e: ScenarioError) -> Self {
        CliError {
            code: match e {
                ScenarioError::Deadlock { .. } => EXIT_DEADLOCK,
                ScenarioError::Input { .. } => EXIT_INPUT,
            },
            message: e.to_string(),
        }
    }
}

/// A scenario's error as a command's.
pub(super) fn scenario_err(e: ScenarioError) -> CliError {
    e.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The validation library's errors keep their message and map to
    /// the documented exit codes: a rejected fitted scenario is a failed
    /// check (1), bad data or a case that cannot run is bad input (2).
    #[test]
    fn validate_errors_map_to_their_exit_codes() {
        let cases = [
            (validate::Error::Rejected("r".into()), EXIT_CHECK_FAILED),
            (validate::Error::Input("i".into()), EXIT_INPUT),
            (validate::Error::Case("c".into()), EXIT_INPUT),
        ];
        for (e, code) in cases {
            let message = e.to_string();
            let c = CliError::from(e);
            assert_eq!((c.code, c.message), (code, message));
        }
    }
}
