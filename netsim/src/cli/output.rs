//! Output files that are whole or absent ([`sim_core::outputs`]: a
//! temporary name beside the target, renamed when complete; a failed
//! command drops its [`Partial`]s, which removes them); SIGINT and SIGTERM
//! ([`on_signals`]) stop the commands `netsim calibrate` runs, remove
//! every partial file still open, say which, and exit with 128 + the
//! signal (130, 143); standard output that ends quietly when its reader
//! goes away ([`out`]).

pub(crate) use sim_core::outputs::{Partial, write, write_with};

/// On SIGINT or SIGTERM: stops the commands `netsim calibrate` runs
/// (each in a process group of its own, which a signal typed at the
/// terminal does not reach: SIGTERM, then SIGKILL after
/// [`STOP_GRACE`]), removes the partial files, says so, and exits with
/// 128 + the signal's number. Call once, at the start.
pub(crate) fn on_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            // First the commands, which may still write into a partial
            // file.
            let mut did = validate::calibrate::stop_commands(STOP_GRACE);
            // Held until exit: no partial file is created or renamed
            // after this.
            let (_held, targets) = sim_core::outputs::remove_partials();
            let name = if sig == SIGINT { "SIGINT" } else { "SIGTERM" };
            let targets: Vec<String> = targets.iter().map(|t| t.display().to_string()).collect();
            if targets.is_empty() {
                did.push("no output file was being written".into());
            } else {
                did.push(format!(
                    "not written (partial files removed): {}",
                    targets.join(", ")
                ));
            }
            eprintln!("\nnetsim: stopped by {name}; {}", did.join("; "));
            std::process::exit(128 + sig);
        }
    });
}

/// How long a command of `netsim calibrate` has to end after SIGTERM
/// before it is killed.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Writes `text` to standard output. A reader that went away (`netsim
/// ... | head`) ends the output quietly instead of panicking as `print!`
/// does on a closed pipe; any other failure (a full disk) is an error,
/// exit 2.
pub(crate) fn out(text: &str) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_all(text.as_bytes()).and_then(|()| o.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("netsim: error: cannot write the output: {e}");
            std::process::exit(super::error::EXIT_INPUT.into());
        }
        _ => {}
    }
}
