//! The commands `netsim calibrate` runs (the compiler, the launcher and
//! the ranks it starts), each in a process group of its own, so that a
//! SIGINT typed at the terminal reaches netsim alone: the signal handler
//! of the binary calls [`stop_commands`], which stops every group still
//! running (SIGTERM, then SIGKILL after a grace) before the partial
//! files are removed.
//!
//! Guarantee: once [`stop_commands`] has begun, no command is started,
//! and a campaign whose command ended (stopped by the handler or not)
//! waits for the handler to end the process instead of going on with a
//! half-run chunk. Linux only, as the load measurement is.

use crate::Error;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The running commands: process group ids (the leader's pid) with
/// their program names, and whether a stop has begun.
struct Running {
    stopping: bool,
    groups: Vec<(i32, String)>,
}

static RUNNING: Mutex<Running> = Mutex::new(Running {
    stopping: false,
    groups: Vec::new(),
});

fn running() -> MutexGuard<'static, Running> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits for the process to exit: the signal handler is ending it.
fn wait_for_exit() -> ! {
    loop {
        std::thread::park();
    }
}

/// A command started in its own process group; dropped, it leaves the
/// list of running commands.
#[derive(Debug)]
pub(super) struct Group {
    child: Child,
    pgid: i32,
}

impl Group {
    /// Starts `cmd` as the leader of a new process group and lists it
    /// (under the list's lock: a stop sees it or it never starts).
    pub(super) fn spawn(cmd: &mut Command, text: &str) -> Result<Group, Error> {
        let mut list = running();
        if list.stopping {
            drop(list);
            wait_for_exit();
        }
        let child = cmd
            .process_group(0)
            .spawn()
            .map_err(|e| Error::Input(format!("cannot start `{text}`: {e}")))?;
        let pgid = i32::try_from(child.id()).expect("a pid fits an i32");
        let name = cmd.get_program().to_string_lossy().into_owned();
        list.groups.push((pgid, name));
        Ok(Group { child, pgid })
    }

    /// The leader, for its pipes.
    pub(super) fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// The leader's exit status if it has exited. When a stop has begun,
    /// never returns: the exit is the handler's doing.
    pub(super) fn try_wait(&mut self) -> Result<Option<ExitStatus>, Error> {
        let st = self.child.try_wait().map_err(Error::input)?;
        if st.is_some() && running().stopping {
            wait_for_exit();
        }
        Ok(st)
    }

    /// Kills the whole group (a chunk past its timeout) and reaps the
    /// leader.
    pub(super) fn kill(&mut self) {
        signal_group(self.pgid, libc::SIGKILL);
        self.child.wait().ok();
        if running().stopping {
            wait_for_exit();
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        running().groups.retain(|(g, _)| *g != self.pgid);
    }
}

fn signal_group(pgid: i32, sig: i32) {
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe {
        libc::kill(-pgid, sig);
    }
}

/// Whether a process of group `pgid` is still alive (a zombie is not:
/// it waits only for its parent to read its status).
fn group_alive(pgid: i32) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten().any(|e| {
        std::fs::read_to_string(e.path().join("stat"))
            .ok()
            .and_then(|s| stat_state_and_group(&s))
            .is_some_and(|(state, g)| g == pgid && !matches!(state, 'Z' | 'X'))
    })
}

/// The state and process group of a `/proc/<pid>/stat` text.
pub(super) fn stat_state_and_group(text: &str) -> Option<(char, i32)> {
    // The command name (field 2) may hold spaces and parentheses.
    let mut f = text[text.rfind(')')? + 1..].split_whitespace();
    let state = f.next()?.chars().next()?;
    let _ppid = f.next()?;
    Some((state, f.next()?.parse().ok()?))
}

/// Waits up to `limit` for group `pgid` to end; returns whether it did.
fn ended_within(pgid: i32, limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        if !group_alive(pgid) {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Stops every command still running: SIGTERM to its process group,
/// SIGKILL if it is alive `grace` later. From the first call on, no
/// command starts and a campaign whose command ended waits for the
/// process to exit. Returns one sentence per command, saying what was
/// done; none when nothing was running.
pub fn stop_commands(grace: Duration) -> Vec<String> {
    let groups = {
        let mut list = running();
        list.stopping = true;
        list.groups.clone()
    };
    for (pgid, _) in &groups {
        signal_group(*pgid, libc::SIGTERM);
    }
    let start = Instant::now();
    groups
        .iter()
        .map(|(pgid, name)| {
            let left = grace.saturating_sub(start.elapsed());
            if ended_within(*pgid, left) {
                return format!("stopped `{name}` (process group {pgid}) with SIGTERM");
            }
            signal_group(*pgid, libc::SIGKILL);
            let gone = ended_within(*pgid, Duration::from_secs(1));
            format!(
                "`{name}` (process group {pgid}) was alive {:.0} s after SIGTERM: {}",
                grace.as_secs_f64(),
                if gone {
                    "killed with SIGKILL"
                } else {
                    "sent SIGKILL, still alive 1 s later"
                }
            )
        })
        .collect()
}
