//! Smoke test of `netsim bench`: the quick set of a few small workloads
//! runs in child processes and prints one row each. Asserts no speed.

use std::process::Command;

#[test]
fn bench_quick_set_prints_figures() {
    let out = Command::new(env!("CARGO_BIN_EXE_netsim"))
        .args([
            "bench",
            "--quick",
            "--only",
            "alltoall-switch,hvpp,allreduce,amg-levels",
        ])
        .output()
        .expect("netsim runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["alltoall-switch", "hvpp", "allreduce"] {
        assert!(
            text.lines().any(|l| l.starts_with(name)),
            "no row for {name}:\n{text}"
        );
    }
    assert!(text.contains("packet") && text.contains("flow"), "{text}");
    // Every AMG level of the seed's lists, in both modes; the last
    // column is the flow model's rate changes, "-" for packet rows.
    let levels = (0..=6)
        .map(|l| format!("amg-spmv-{l}"))
        .chain((0..=5).map(|l| format!("amg-spgemm-{l}")));
    for name in levels {
        for mode in ["packet", "flow"] {
            let row = text
                .lines()
                .find(|l| {
                    let w: Vec<&str> = l.split_whitespace().collect();
                    w.first() == Some(&name.as_str()) && w.get(2) == Some(&mode)
                })
                .unwrap_or_else(|| panic!("no {mode} row for {name}:\n{text}"));
            let last = row.split_whitespace().last().expect("a row has columns");
            if mode == "flow" {
                assert!(last.parse::<u64>().is_ok(), "rate changes: {row}");
            } else {
                assert_eq!(last, "-", "{row}");
            }
        }
    }
}
