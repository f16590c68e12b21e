//! A newcomer's first steps: the binary finds the shared data at run
//! time (no path fixed at build time), and the README's commands run
//! as written.

use std::path::PathBuf;
use std::process::Command;

/// A scratch folder outside the checkout (no `shared/` above it).
fn outside(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("netsim-first-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A copy of `netsim` run from a folder with no shared data above it
/// loses the AMG case with a message saying what to set (exit 2); with
/// `NETSIM_SHARED` it runs the case. A compile-time path would have found
/// the data in both.
#[test]
fn installed_binary_finds_shared_data_at_run_time() {
    let shared = scenarios::shared::shared_dir().unwrap_or_else(|e| panic!("{e}"));
    let d = outside("installed");
    let exe = d.join("netsim");
    std::fs::copy(env!("CARGO_BIN_EXE_netsim"), &exe).unwrap();
    let run = |env: Option<&PathBuf>| {
        let mut c = Command::new(&exe);
        c.args(["validate", "--case", "amg", "--quick"])
            .current_dir(&d)
            .env_remove("NETSIM_SHARED");
        if let Some(p) = env {
            c.env("NETSIM_SHARED", p);
        }
        c.output().unwrap()
    };
    let out = run(None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("shared data folder was not found") && err.contains("set NETSIM_SHARED"),
        "{err}"
    );
    let out = run(Some(&shared));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("5 passed, 0 failed"), "{text}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Shell completions and manual pages come from the command definitions.
#[test]
fn completions_and_man_pages_are_generated() {
    let out = Command::new(env!("CARGO_BIN_EXE_netsim"))
        .args(["completions", "bash"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("_netsim()") && text.contains("replay"),
        "{text}"
    );
    let d = outside("man");
    let out = Command::new(env!("CARGO_BIN_EXE_netsim"))
        .args(["man", d.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(d.join("netsim-replay.1")).unwrap();
    assert!(page.starts_with(".ie") || page.contains(".TH"), "{page}");
    assert!(page.contains("Replay an MPI trace"), "{page}");
    let _ = std::fs::remove_dir_all(&d);
}
