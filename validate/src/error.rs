//! The validation library's error, [`Error`]: one variant per kind of
//! failure a caller treats differently (the application turns each into
//! its exit code), each carrying the message it prints, which names the
//! file, row, option, case or command at fault.

use std::fmt::Display;

/// What went wrong in a validation case, a fit, a prediction or a
/// calibration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The input is wrong or cannot be used: a data file or one of its
    /// rows, an option, a file that cannot be read or written, or the
    /// compiler, launcher or machine a calibration runs on.
    #[error("{0}")]
    Input(String),
    /// A validation case could not build or run its own experiment (a
    /// machine, a workload file, a simulation, a figure).
    #[error("{0}")]
    Case(String),
    /// The simulator refused a scenario or could not run it; for a
    /// scenario fitted from accepted data, a bug in the fit.
    #[error("{0}")]
    Rejected(String),
}

impl Error {
    /// An [`Error::Input`] with `e`'s message.
    pub(crate) fn input(e: impl Display) -> Self {
        Error::Input(e.to_string())
    }

    /// An [`Error::Case`] with `e`'s message.
    pub(crate) fn case(e: impl Display) -> Self {
        Error::Case(e.to_string())
    }

    /// An [`Error::Rejected`] with `e`'s message.
    pub(crate) fn rejected(e: impl Display) -> Self {
        Error::Rejected(e.to_string())
    }

    /// The same error with its message after `prefix` and `": "` (the
    /// file or item it concerns).
    pub fn within(self, prefix: impl Display) -> Self {
        let at = |m: String| format!("{prefix}: {m}");
        match self {
            Error::Input(m) => Error::Input(at(m)),
            Error::Case(m) => Error::Case(at(m)),
            Error::Rejected(m) => Error::Rejected(at(m)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Error;

    /// A prefix names the file or item; the kind of error stays.
    #[test]
    fn within_prefixes_the_message_and_keeps_the_variant() {
        let e = Error::Rejected("no route".into()).within("pingpong 8 B n = 1");
        assert_eq!(e, Error::Rejected("pingpong 8 B n = 1: no route".into()));
        let e = Error::input("no rows").within("t.csv");
        assert_eq!(e, Error::Input("t.csv: no rows".into()));
        assert_eq!(e.to_string(), "t.csv: no rows");
        let e = Error::case("missing").within("amg");
        assert_eq!(e, Error::Case("amg: missing".into()));
    }
}
