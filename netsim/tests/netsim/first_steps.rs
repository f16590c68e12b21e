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
        // A child another test thread forks while the copy is open for
        // writing holds that descriptor until its exec: running the
        // fresh copy then fails with ETXTBSY for a moment.
        for _ in 0..100 {
            match c.output() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                r => return r.unwrap(),
            }
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
    assert!(text.contains("8 passed, 0 failed, 1 explained"), "{text}");
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

/// The commands of the README's `sh` blocks, `\`-continued lines joined.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let (mut out, mut in_sh, mut cur) = (Vec::new(), false, String::new());
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh || line.trim().is_empty() {
            continue;
        }
        match line.trim_end().strip_suffix('\\') {
            Some(head) => cur.push_str(head),
            None => {
                cur.push_str(line);
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    out
}

/// Commands the test does not run as written, by how they begin, with
/// what it runs instead (`None`: nothing) and why.
const NOT_AS_WRITTEN: &[(&str, Option<&str>, &str)] = &[
    ("cargo test", None, "it is the command running this test"),
    (
        "cargo install",
        None,
        "it builds everything again into ~/.cargo/bin; CI builds the same crate",
    ),
    (
        "cargo run --release -- validate",
        Some("netsim validate --quick"),
        "the full suite takes minutes; --quick runs every case",
    ),
    (
        "netsim calibrate",
        None,
        "needs an MPI library and minutes of measurement; CI's calibration smoke runs it",
    ),
    (
        "netsim run cal/",
        None,
        "reads what `netsim calibrate` wrote",
    ),
    (
        "cargo run --release -- bench --only allreduce",
        Some("netsim bench --quick --only allreduce"),
        "1 M ranks take a minute and a GB; --quick runs the same workload smaller",
    ),
    (
        "cargo run --release -- bench --only amg-levels",
        Some("netsim bench --quick --only amg-levels"),
        "P = 8192 takes minutes; --quick runs every level at P = 512",
    ),
    (
        "cargo run --release -- bench --scale",
        Some("netsim bench --scale --quick --only halo27"),
        "the full curves take minutes",
    ),
    (
        "cargo run --release -- bench engine",
        Some("netsim bench engine --n 1000 --events 100000"),
        "5 M events at 1 M pending take a while; the same program, smaller",
    ),
    (
        "cargo run --release -- bench lookahead",
        Some("netsim bench lookahead --histogram --only halo27-512"),
        "all seven workloads take minutes and a GB; one of them",
    ),
    (
        "cargo run --release -- bench  ",
        Some("netsim bench --quick --only alltoall-switch"),
        "the full set takes several minutes",
    ),
];

/// Every command in the README runs as written from a fresh clone (in a
/// scratch folder holding the checkout's examples and calibration data,
/// with `netsim` on the PATH), except the few listed above, each with
/// its reason and, where one exists, a shorter run of the same command.
#[test]
fn readme_commands_run_as_written() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let d = outside("readme");
    std::fs::create_dir_all(d.join("bin")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_netsim"), d.join("bin/netsim")).unwrap();
    for dir in ["examples", "calibrate"] {
        std::os::unix::fs::symlink(root.join(dir).canonicalize().unwrap(), d.join(dir)).unwrap();
    }
    let path = format!(
        "{}:{}",
        d.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // A checkout's root as git sees it: the project's .gitignore, the
    // scaffolding of this test excluded.
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(&d)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["init", "-q"]);
    std::fs::copy(root.join(".gitignore"), d.join(".gitignore")).unwrap();
    std::fs::write(
        d.join(".git/info/exclude"),
        "/bin\n/examples\n/calibrate\n/.gitignore\n",
    )
    .unwrap();
    let commands = readme_commands();
    assert!(commands.len() >= 20, "{commands:?}");
    let mut used = vec![false; NOT_AS_WRITTEN.len()];
    let mut ran = 0;
    for c in &commands {
        let padded = format!("{c}  ");
        let instead = NOT_AS_WRITTEN
            .iter()
            .position(|(p, _, _)| padded.starts_with(p));
        // OTF2 is read through a C library behind the `otf2` feature; the
        // feature's test run (CI builds with it) runs this command.
        if c.contains("otf2") && !cfg!(feature = "otf2") {
            continue;
        }
        let run = match instead {
            Some(i) => {
                used[i] = true;
                match NOT_AS_WRITTEN[i].1 {
                    Some(r) => r.to_string(),
                    None => continue,
                }
            }
            None => c
                .strip_prefix("cargo run --release -- ")
                .map_or(c.clone(), |rest| format!("netsim {rest}")),
        };
        assert!(
            run.starts_with("netsim "),
            "a README command that is neither netsim nor listed: {c}"
        );
        let out = Command::new("sh")
            .args(["-c", &run])
            .current_dir(&d)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "README command failed: {run}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    for (i, u) in used.iter().enumerate() {
        assert!(
            u,
            "no README command begins `{}`: drop it from the list",
            NOT_AS_WRITTEN[i].0
        );
    }
    // What the commands promise exists.
    for f in [
        "halo.svg",
        "halo.json",
        "halo.csv",
        "links.csv",
        "merged.csv",
        "sweep.svg",
        "report.md",
        "netsim.bash",
        "man/netsim.1",
    ] {
        assert!(d.join(f).is_file(), "{f} was not written");
    }
    assert!(ran >= 20, "ran {ran}");
    // A newcomer's checkout stays clean: every file the commands wrote
    // is git-ignored.
    let untracked = git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(
        untracked.is_empty(),
        "README commands left files git does not ignore (add them to .gitignore):\n{untracked}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// `netsim ... | head`: a reader that closes the pipe early ends the
/// output quietly, not with a panic on the closed pipe. (The report,
/// 4096 ranks' finish times in CSV, is larger than a pipe's buffer.)
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let ex = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/halo-torus.toml");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' run '{ex}' --csv --quiet --set workload.dims=[16,16,16] \
             --set machine.dims=[16,16,8] | head -c 10 >/dev/null",
            env!("CARGO_BIN_EXE_netsim")
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("Broken pipe"),
        "{err}"
    );
}

/// Every relative link in the Markdown documents (README, ARCHITECTURE,
/// docs/, calibrate/, bench/) names a file or folder of the checkout: the
/// code map is only one hop away if its hops land.
#[test]
fn markdown_links_name_files_that_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut docs = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    for dir in ["docs", "calibrate", "bench/peers"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                docs.push(p);
            }
        }
    }
    let mut broken = Vec::new();
    let mut links = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        // `](target)` or `](target#anchor)`; web addresses are not checked.
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            links += 1;
            if !doc.parent().unwrap().join(target).exists() {
                broken.push(format!("{}: {target}", doc.display()));
            }
        }
    }
    assert!(links >= 50, "only {links} links found: is the scan broken?");
    assert!(
        broken.is_empty(),
        "links to missing files:\n{}",
        broken.join("\n")
    );
}
