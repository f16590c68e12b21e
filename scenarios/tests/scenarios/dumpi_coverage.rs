//! `docs/DUMPI-COVERAGE.md` holds the reader's coverage table exactly:
//! every function DUMPI labels and what the replay does with it. When the
//! reader changes, this test fails until the document says the same
//! (`NETSIM_WRITE_COVERAGE=1 cargo test -p scenarios --test scenarios dumpi_coverage` rewrites
//! the table between its markers).

use scenarios::dumpi::coverage::coverage_table;
use std::path::Path;

const BEGIN: &str = "<!-- coverage table: begin -->\n";
const END: &str = "<!-- coverage table: end -->";

#[test]
fn the_coverage_document_matches_the_reader() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/DUMPI-COVERAGE.md");
    let doc = std::fs::read_to_string(&path).expect("docs/DUMPI-COVERAGE.md");
    let (Some(a), Some(b)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("{}: no coverage table markers", path.display());
    };
    let have = &doc[a + BEGIN.len()..b];
    let want = coverage_table();
    if have != want {
        if std::env::var_os("NETSIM_WRITE_COVERAGE").is_some() {
            let text = format!("{}{want}{}", &doc[..a + BEGIN.len()], &doc[b..]);
            std::fs::write(&path, text).unwrap();
            return;
        }
        let diff: Vec<String> = have
            .lines()
            .zip(want.lines())
            .filter(|(h, w)| h != w)
            .map(|(h, w)| format!("  doc:    {h}\n  reader: {w}"))
            .take(10)
            .collect();
        panic!(
            "docs/DUMPI-COVERAGE.md disagrees with the reader ({} vs {} lines):\n{}",
            have.lines().count(),
            want.lines().count(),
            diff.join("\n")
        );
    }
}
