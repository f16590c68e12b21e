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
            "alltoall-switch,hvpp,allreduce",
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
}
