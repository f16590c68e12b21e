//! The commands `netsim calibrate` runs (the compiler, the launcher and
//! the ranks it starts), each in a process group of its own, so that a
//! SIGINT typed at the terminal reaches netsim alone: the signal handler
//! of the binary calls [`stop_commands`], which stops every group still
//! running (SIGTERM to the group, then SIGKILL to it and to every
//! descendant, which may have left it, after a grace) before the partial
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

    /// Kills the whole group and its descendants (a chunk past its
    /// timeout) and reaps the leader.
    pub(super) fn kill(&mut self) {
        let pids = tree(self.pgid, &live_processes());
        signal_group(self.pgid, libc::SIGKILL);
        for p in pids {
            signal(p, libc::SIGKILL);
        }
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

fn signal(pid: i32, sig: i32) {
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe {
        libc::kill(pid, sig);
    }
}

fn signal_group(pgid: i32, sig: i32) {
    signal(-pgid, sig);
}

/// A line of `/proc/<pid>/stat`: the fields a stop needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stat {
    pub(super) pid: i32,
    /// `R`, `S`, ..., `Z` for a zombie.
    pub(super) state: char,
    pub(super) ppid: i32,
    pub(super) pgrp: i32,
}

/// Reads a `/proc/<pid>/stat` text.
pub(super) fn parse_stat(text: &str) -> Option<Stat> {
    // The command name (field 2) may hold spaces and parentheses.
    let pid = text.split_whitespace().next()?.parse().ok()?;
    let mut f = text[text.rfind(')')? + 1..].split_whitespace();
    let state = f.next()?.chars().next()?;
    let ppid = f.next()?.parse().ok()?;
    let pgrp = f.next()?.parse().ok()?;
    Some(Stat {
        pid,
        state,
        ppid,
        pgrp,
    })
}

/// The live processes (not zombies: they only wait for their parent to
/// read their status).
fn live_processes() -> Vec<Stat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|s| parse_stat(&s))
        .filter(|p| !matches!(p.state, 'Z' | 'X'))
        .collect()
}

/// The live processes of group `pgid` and their descendants, which may
/// have left it (MPICH's proxies and ranks start sessions of their own).
pub(super) fn tree(pgid: i32, procs: &[Stat]) -> Vec<i32> {
    let mut v: Vec<i32> = procs
        .iter()
        .filter(|p| p.pgrp == pgid)
        .map(|p| p.pid)
        .collect();
    let mut i = 0;
    while i < v.len() {
        let parent = v[i];
        for p in procs {
            if p.ppid == parent && !v.contains(&p.pid) {
                v.push(p.pid);
            }
        }
        i += 1;
    }
    v
}

/// Waits up to `limit` for every process of `pids` to end; returns
/// whether they did.
fn ended_within(pids: &[i32], limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        let live = live_processes();
        if !live.iter().any(|p| pids.contains(&p.pid)) {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Stops every command still running: SIGTERM to its process group
/// (the launcher stops its ranks), SIGKILL to the group and every
/// descendant if one is alive `grace` later. From the first call on, no
/// command starts and a campaign whose command ended waits for the
/// process to exit. Returns one sentence per command, saying what was
/// done; none when nothing was running.
pub fn stop_commands(grace: Duration) -> Vec<String> {
    let groups = {
        let mut list = running();
        list.stopping = true;
        list.groups.clone()
    };
    // Before the signal: a rank whose launcher dies is no longer its
    // descendant.
    let procs = live_processes();
    let trees: Vec<Vec<i32>> = groups.iter().map(|(g, _)| tree(*g, &procs)).collect();
    for (pgid, _) in &groups {
        signal_group(*pgid, libc::SIGTERM);
    }
    let start = Instant::now();
    groups
        .iter()
        .zip(&trees)
        .map(|((pgid, name), pids)| {
            let what = format!(
                "`{name}` (process group {pgid}, {} process{})",
                pids.len(),
                if pids.len() == 1 { "" } else { "es" }
            );
            if ended_within(pids, grace.saturating_sub(start.elapsed())) {
                return format!("stopped {what} with SIGTERM");
            }
            signal_group(*pgid, libc::SIGKILL);
            for &p in pids {
                signal(p, libc::SIGKILL);
            }
            let gone = ended_within(pids, Duration::from_secs(1));
            format!(
                "{what} alive {:.0} s after SIGTERM: {}",
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
