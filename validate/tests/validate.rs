//! validate integration tests (one binary): every validation case in its
//! quick form must pass, or be explained.

use validate::cases::{self, Opts};
use validate::suite::Verdict;

#[test]
fn every_case_passes_quick() {
    let mut failures = Vec::new();
    for case in cases::all() {
        let rows = (case.run)(Opts {
            quick: true,
            figures: None,
        })
        .unwrap_or_else(|e| panic!("case {} failed to run: {e}", case.name));
        assert!(!rows.is_empty(), "case {} produced no rows", case.name);
        for r in rows {
            if r.verdict == Verdict::Fail {
                failures.push(format!(
                    "{}: {}: simulated {:.9e} predicted {:.9e} (error {:+.3e})",
                    r.case, r.model, r.simulated, r.predicted, r.error
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "failing rows:\n{}",
        failures.join("\n")
    );
}

#[path = "validate/fuzz_regressions.rs"]
mod fuzz_regressions;
