//! Links the OTF2 C library when the `otf2` feature is on, with the flags
//! `otf2-config --ldflags --libs` prints (Debian's `libotf2-trace-dev`
//! ships `otf2-config`; the library is `libopen-trace-format2` there).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_OTF2").is_none() {
        return;
    }
    println!("cargo::rerun-if-env-changed=OTF2_CONFIG");
    let tool = std::env::var("OTF2_CONFIG").unwrap_or_else(|_| "otf2-config".into());
    let out = std::process::Command::new(&tool)
        .args(["--ldflags", "--libs"])
        .output();
    let flags = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        _ => panic!(
            "the `otf2` feature needs the OTF2 library: `{tool}` did not run. Install it \
             (Debian: apt-get install libotf2-trace-dev) or set OTF2_CONFIG to its otf2-config"
        ),
    };
    for f in flags.split_whitespace() {
        if let Some(dir) = f.strip_prefix("-L") {
            println!("cargo::rustc-link-search=native={dir}");
        } else if let Some(lib) = f.strip_prefix("-l") {
            println!("cargo::rustc-link-lib={lib}");
        }
    }
}
