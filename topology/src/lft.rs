//! InfiniBand linear forwarding tables (LFTs) read from a file, so that
//! a run replays a subnet manager's routes: the text OpenSM writes with
//! `dump_lfts.sh` / `ibroute` (and `opensm-lfts.dump`, which its `file`
//! routing engine reads back), per switch a table destination LID ->
//! output port.
//!
//! # Format
//!
//! ```text
//! Unicast lids [0x0-0x8] of switch Lid 5 guid 0x0002c90200400e68 (...):
//!   Lid  Out   Destination
//!        Port     Info
//! 0x0001 001 : (Channel Adapter portguid 0x...: 'n0 HCA-1')
//! 0x0005 000 : (Switch portguid 0x...: '...')
//! 2 valid lids dumped
//! ```
//!
//! A header starts a switch's table (its `Lid`, decimal; the guid and the
//! rest are not used); an entry is a LID in hexadecimal and a port in
//! decimal, anything after `:` a comment; the two column-title lines and
//! the `valid lids dumped` footer (whose count is checked) are allowed;
//! so are blank lines and `#` comments. Any other line is refused.
//!
//! # How the file maps to a machine
//!
//! * LIDs: host `n` (node `n`) has LID `n + 1`; the machine's switches
//!   (and routers), in vertex order, follow: switch `i` has LID `N + 1 +
//!   i` for `N` hosts. On the fat tree that is hosts, then level 1, 2, ...
//! * Ports: port 0 is the switch itself; its links, in the order the
//!   machine declares its cables (link id), are ports 1, 2, ...: on the
//!   fat tree a leaf's hosts, then its parents; on one InfiniBand switch
//!   port `n + 1` leads to node `n`.
//! * Every switch has exactly one table with an entry for every host LID;
//!   entries for switch LIDs are checked (a port of the switch, 0 for
//!   itself) but carry no traffic (netsim sends only between hosts).
//!
//! Refused, with `file:line`: a LID or port out of range, a switch or
//! entry given twice, a missing switch or host entry, a port that leads
//! to another host, and tables whose routes loop. Routes are used as the
//! file gives them (no shortest-path check): that is the point.

use crate::file::MachineFileError;
use crate::link::NONE;
use crate::machine::Machine;
use crate::routing::{NextHopTable, Router};
use crate::transport::LinkId;
use std::path::Path;

/// Reads `path` and routes `m` by its tables.
pub fn load(m: Machine, path: &Path) -> Result<Machine, MachineFileError> {
    let (name, text) = crate::file::read(path)?;
    parse(m, &name, &text)
}

/// Routes `m` by the tables in `text`; `file` names it in errors.
pub fn parse(mut m: Machine, file: &str, text: &str) -> Result<Machine, MachineFileError> {
    let mut r = Reader::new(&m, file);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let ln = i + 1;
        if let Some(rest) = line.strip_prefix("Unicast lids") {
            r.header(ln, rest)?;
        } else if line.starts_with("Lid") || line.starts_with("Port") {
            continue;
        } else if let Some(count) = line.strip_suffix("valid lids dumped") {
            r.footer(ln, line, count)?;
        } else if let Some(hex) = line.strip_prefix("0x") {
            r.entry(ln, line, hex)?;
        } else {
            return Err(r.err(
                Some(ln),
                format!(
                    "`{line}` is not a switch header, an entry `0x<lid> <port>` or a `valid lids dumped` line"
                ),
            ));
        }
    }
    let table = r.finish()?;
    m.router = Router::Table(table);
    Ok(m)
}

/// The state of one read of an LFT dump against a machine.
struct Reader<'a> {
    m: &'a Machine,
    file: &'a str,
    hosts: u32,
    switches: u32,
    max_lid: u64,
    /// Ports of every switch: its outgoing links in id order.
    ports: Vec<Vec<u32>>,
    table: NextHopTable,
    /// Per switch: its header's line (0: none yet).
    header: Vec<usize>,
    /// Per switch and host LID: whether set.
    seen: Vec<bool>,
    /// Per switch LID, the table (switch index + 1) that last gave it.
    seen_switch_lid: Vec<u32>,
    /// The switch being read, its header line and its entries.
    cur: Option<(u32, usize, u64)>,
}

/// A vertex's LID.
fn lid_of(v: u32) -> u64 {
    v as u64 + 1
}

impl<'a> Reader<'a> {
    fn new(m: &'a Machine, file: &'a str) -> Self {
        let hosts = m.hosts;
        let vertices = m.vertices.len() as u32;
        let switches = vertices - hosts;
        let mut ports: Vec<Vec<u32>> = vec![Vec::new(); switches as usize];
        for (id, l) in m.links.iter().enumerate() {
            if l.from >= hosts {
                ports[(l.from - hosts) as usize].push(id as u32);
            }
        }
        Reader {
            m,
            file,
            hosts,
            switches,
            max_lid: hosts as u64 + switches as u64,
            ports,
            table: NextHopTable::shortest_paths(&m.links, hosts, vertices as usize),
            header: vec![0; switches as usize],
            seen: vec![false; switches as usize * hosts as usize],
            seen_switch_lid: vec![0u32; switches as usize],
            cur: None,
        }
    }

    fn err(&self, line: Option<usize>, msg: String) -> MachineFileError {
        MachineFileError {
            file: self.file.to_string(),
            line,
            msg,
        }
    }

    /// `Unicast lids [..] of switch Lid <lid> ...`: a switch's table starts.
    fn header(&mut self, ln: usize, rest: &str) -> Result<(), MachineFileError> {
        let (hosts, max_lid) = (self.hosts, self.max_lid);
        if let Some((s, at, _)) = self.cur {
            return Err(self.err(
                Some(at),
                format!(
                    "switch Lid {} has no `valid lids dumped` line before the next switch",
                    lid_of(hosts + s)
                ),
            ));
        }
        let lid = rest
            .split_once("of switch Lid")
            .and_then(|(_, r)| r.split_whitespace().next())
            .and_then(|w| w.parse::<u64>().ok())
            .ok_or_else(|| {
                self.err(
                    Some(ln),
                    "a switch header reads `Unicast lids [..] of switch Lid <decimal> guid ...`"
                        .into(),
                )
            })?;
        if lid <= hosts as u64 || lid > max_lid {
            return Err(self.err(
                Some(ln),
                format!(
                    "switch Lid {lid} is not a switch of `{}`: its switches have LIDs {} to {max_lid} (hosts 1 to {hosts})",
                    self.m.name,
                    hosts as u64 + 1
                ),
            ));
        }
        let s = (lid - 1) as u32 - hosts;
        if self.header[s as usize] != 0 {
            return Err(self.err(
                Some(ln),
                format!(
                    "switch Lid {lid} already has a table (line {})",
                    self.header[s as usize]
                ),
            ));
        }
        self.header[s as usize] = ln;
        self.cur = Some((s, ln, 0));
        Ok(())
    }

    /// `<n> valid lids dumped`: the current switch's table ends.
    fn footer(&mut self, ln: usize, line: &str, count: &str) -> Result<(), MachineFileError> {
        let Some((s, at, n)) = self.cur.take() else {
            return Err(self.err(
                Some(ln),
                "a `valid lids dumped` line outside a switch's table".into(),
            ));
        };
        let count: u64 = count
            .trim()
            .parse()
            .map_err(|_| self.err(Some(ln), format!("`{line}`: the count is not a number")))?;
        if count != n {
            return Err(self.err(
                Some(ln),
                format!(
                    "switch Lid {} (line {at}) lists {n} LIDs, its footer says {count}",
                    lid_of(self.hosts + s)
                ),
            ));
        }
        Ok(())
    }

    /// `0x<lid> <port> [: comment]`: one entry of the current switch.
    fn entry(&mut self, ln: usize, line: &str, hex: &str) -> Result<(), MachineFileError> {
        let (hosts, max_lid) = (self.hosts, self.max_lid);
        let ln = Some(ln);
        let Some((s, _, n)) = self.cur.as_mut() else {
            return Err(self.err(
                ln,
                "an entry before any `Unicast lids ... of switch Lid` header".into(),
            ));
        };
        let s = *s;
        *n += 1;
        let body = hex.split(':').next().unwrap_or("");
        let mut words = body.split_whitespace();
        let (Some(lw), Some(pw), None) = (words.next(), words.next(), words.next()) else {
            return Err(self.err(
                ln,
                format!("`{line}`: an entry is `0x<lid> <port> [: comment]`"),
            ));
        };
        let lid = u64::from_str_radix(lw, 16)
            .map_err(|_| self.err(ln, format!("`0x{lw}` is not a hexadecimal LID")))?;
        let port: u64 = pw
            .parse()
            .map_err(|_| self.err(ln, format!("`{pw}` is not a decimal port")))?;
        if lid == 0 || lid > max_lid {
            return Err(self.err(
                ln,
                format!(
                    "LID {lid:#x} is neither a host (1 to {hosts}) nor a switch ({} to {max_lid}) of `{}`",
                    hosts as u64 + 1,
                    self.m.name
                ),
            ));
        }
        let nports = self.ports[s as usize].len();
        if port > nports as u64 {
            return Err(self.err(
                ln,
                format!(
                    "port {port} of switch Lid {}: it has {} ports",
                    lid_of(hosts + s),
                    nports
                ),
            ));
        }
        let dst = (lid - 1) as u32;
        if dst >= hosts {
            if std::mem::replace(&mut self.seen_switch_lid[(dst - hosts) as usize], s + 1) == s + 1
            {
                return Err(self.err(ln, format!("LID {lid:#x} given twice for this switch")));
            }
            if (dst == hosts + s) != (port == 0) {
                return Err(self.err(
                    ln,
                    format!(
                        "port 0 is the switch itself, and only its own LID {} goes there",
                        lid_of(hosts + s)
                    ),
                ));
            }
            return Ok(());
        }
        if port == 0 {
            return Err(self.err(
                ln,
                format!("LID {lid:#x} is a host: port 0 is the switch itself"),
            ));
        }
        let k = s as usize * hosts as usize + dst as usize;
        if std::mem::replace(&mut self.seen[k], true) {
            return Err(self.err(ln, format!("LID {lid:#x} given twice for this switch")));
        }
        let link = self.ports[s as usize][(port - 1) as usize];
        let to = self.m.links[link as usize].to;
        if to < hosts && to != dst {
            return Err(self.err(
                ln,
                format!(
                    "port {port} leads to host LID {} (`{}`), not to LID {lid:#x}: hosts do not forward",
                    lid_of(to),
                    self.m.vertices[to as usize].name
                ),
            ));
        }
        self.table.set(hosts + s, dst, LinkId(link));
        Ok(())
    }

    /// The end of the file: every switch has a whole table and no route
    /// loops; the table.
    fn finish(self) -> Result<NextHopTable, MachineFileError> {
        let hosts = self.hosts;
        if let Some((s, at, _)) = self.cur {
            return Err(self.err(
                Some(at),
                format!(
                    "switch Lid {} has no `valid lids dumped` line",
                    lid_of(hosts + s)
                ),
            ));
        }
        for s in 0..self.switches {
            let name = &self.m.vertices[(hosts + s) as usize].name;
            if self.header[s as usize] == 0 {
                return Err(self.err(
                    None,
                    format!("switch Lid {} (`{name}`) has no table", lid_of(hosts + s)),
                ));
            }
            if let Some(d) =
                (0..hosts).find(|&d| !self.seen[s as usize * hosts as usize + d as usize])
            {
                return Err(self.err(
                    Some(self.header[s as usize]),
                    format!(
                        "switch Lid {} has no entry for host LID {:#x}",
                        lid_of(hosts + s),
                        lid_of(d)
                    ),
                ));
            }
        }
        check_loops(self.m, &self.table, &self.header)
            .map_err(|(line, msg)| self.err(Some(line), msg))?;
        Ok(self.table)
    }
}

/// Every switch's route to every host ends there: per destination, each
/// switch is walked once (`O(S H)` in all). On a loop, the header line of
/// a switch on it and the message.
fn check_loops(m: &Machine, t: &NextHopTable, header: &[usize]) -> Result<(), (usize, String)> {
    let hosts = m.hosts;
    let n = m.vertices.len() as u32;
    // 0: not walked, 1: on the current walk, 2: reaches the destination.
    let mut state = vec![0u8; (n - hosts) as usize];
    let mut path = Vec::new();
    for d in 0..hosts {
        state.iter_mut().for_each(|x| *x = 0);
        for start in hosts..n {
            let mut v = start;
            path.clear();
            while v >= hosts && state[(v - hosts) as usize] == 0 {
                state[(v - hosts) as usize] = 1;
                path.push(v);
                let l = t.next_link(v, d);
                debug_assert_ne!(l.0, NONE);
                v = m.links[l.index()].to;
            }
            if v >= hosts && state[(v - hosts) as usize] == 1 {
                return Err((
                    header[(v - hosts) as usize],
                    format!(
                        "the routes to host LID {:#x} loop through switch Lid {}",
                        d as u64 + 1,
                        v as u64 + 1
                    ),
                ));
            }
            for &p in &path {
                state[(p - hosts) as usize] = 2;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeId;
    use crate::fat_tree::FatTreeParams;

    /// The 2-ary 2-tree: hosts 0-3 (LIDs 1-4), leaves L1-0, L1-1 (LIDs
    /// 5, 6), tops L2-0, L2-1 (LIDs 7, 8). A leaf's ports: 1, 2 its
    /// hosts, 3 top 0, 4 top 1; a top's: 1 leaf 0, 2 leaf 1.
    fn tree() -> Machine {
        FatTreeParams {
            arity: 2,
            levels: 2,
            ..FatTreeParams::default()
        }
        .build()
        .unwrap()
    }

    /// Leaf 0 sends host 2 up to top 1 and host 3 to top 0 (D-mod-k does
    /// the opposite, the shortest-path table both to top 0); leaf 1 sends
    /// hosts 0 and 1 both to top 1.
    const LFT: &str = "\
# hand-written, ibroute style
Unicast lids [0x0-0x8] of switch Lid 5 guid 0x0000000000000005 (leaf 0):
  Lid  Out   Destination
       Port     Info
0x0001 001 : (Channel Adapter portguid 0x1: 'n0 HCA-1')
0x0002 002 : (Channel Adapter portguid 0x2: 'n1 HCA-1')
0x0003 004 : (Channel Adapter portguid 0x3: 'n2 HCA-1')
0x0004 003 : (Channel Adapter portguid 0x4: 'n3 HCA-1')
0x0005 000 : (Switch portguid 0x5: 'leaf 0')
5 valid lids dumped
Unicast lids [0x0-0x8] of switch Lid 6 guid 0x0000000000000006 (leaf 1):
0x0001 004
0x0002 004
0x0003 001
0x0004 002
4 valid lids dumped
Unicast lids [0x0-0x8] of switch Lid 7 guid 0x0000000000000007 (top 0):
0x0001 001
0x0002 001
0x0003 002
0x0004 002
4 valid lids dumped
Unicast lids [0x0-0x8] of switch Lid 8 guid 0x0000000000000008 (top 1):
0x0001 001
0x0002 001
0x0003 002
0x0004 002
4 valid lids dumped
";

    /// Links: host n's cable is links 2n (up) and 2n + 1 (down); leaf 0
    /// to top 0 is 8 (back 9), to top 1 10 (11); leaf 1 to top 0 12
    /// (13), to top 1 14 (15).
    #[test]
    fn routes_are_the_files_not_the_shortest_path_tables() {
        let plain = tree();
        let m = parse(tree(), "lft.txt", LFT).unwrap();
        let r = |m: &Machine, s, d| -> Vec<u32> {
            m.route(NodeId(s), NodeId(d)).iter().map(|l| l.0).collect()
        };
        // Shortest-path table: both through top 0.
        assert_eq!(r(&plain, 0, 2), [0, 8, 13, 5]);
        assert_eq!(r(&plain, 1, 3), [2, 8, 13, 7]);
        // The file: host 2 through top 1, host 3 through top 0.
        assert_eq!(r(&m, 0, 2), [0, 10, 15, 5]);
        assert_eq!(r(&m, 1, 3), [2, 8, 13, 7]);
        // Back: both through top 1.
        assert_eq!(r(&m, 2, 0), [4, 14, 11, 1]);
        assert_eq!(r(&m, 3, 1), [6, 14, 11, 3]);
        // So 0->2 and 1->3 share links 8 and 13 under the table and
        // no link under the file; 2->0 and 3->1 share 14 and 11.
        let shared = |m: &Machine, a: (u32, u32), b: (u32, u32)| {
            let ra = r(m, a.0, a.1);
            r(m, b.0, b.1).iter().filter(|l| ra.contains(l)).count()
        };
        assert_eq!(shared(&plain, (0, 2), (1, 3)), 2);
        assert_eq!(shared(&m, (0, 2), (1, 3)), 0);
        assert_eq!(shared(&m, (2, 0), (3, 1)), 2);
    }

    fn bad(text: &str) -> String {
        parse(tree(), "lft.txt", text).unwrap_err().to_string()
    }

    #[test]
    fn refuses_mismatches_with_file_and_line() {
        let e = bad(&LFT.replace("switch Lid 8 ", "switch Lid 3 "));
        assert!(
            e.starts_with("lft.txt:23:") && e.contains("not a switch"),
            "{e}"
        );
        let e = bad(&LFT.replace("0x0003 004 :", "0x0003 005 :"));
        assert!(e.starts_with("lft.txt:7:") && e.contains("4 ports"), "{e}");
        let e = bad(&LFT.replace("0x0003 004 :", "0x0009 004 :"));
        assert!(
            e.starts_with("lft.txt:7:") && e.contains("neither a host"),
            "{e}"
        );
        // Port 2 of leaf 0 is host 1's cable, not host 2's.
        let e = bad(&LFT.replace("0x0003 004 :", "0x0003 002 :"));
        assert!(
            e.starts_with("lft.txt:7:") && e.contains("hosts do not forward"),
            "{e}"
        );
        let e = bad(&LFT.replace("0x0004 003 :", "0x0003 003 :"));
        assert!(e.starts_with("lft.txt:8:") && e.contains("twice"), "{e}");
        let e = bad(&LFT.replace("5 valid lids", "6 valid lids"));
        assert!(
            e.starts_with("lft.txt:10:") && e.contains("footer says 6"),
            "{e}"
        );
        let e = bad(&LFT
            .replace("  Lid  Out", "Lids  Out")
            .replace("Port     Info", "bogus"));
        assert!(e.starts_with("lft.txt:4:"), "{e}");
        // A missing table, a missing entry.
        let cut = LFT
            .split("Unicast lids [0x0-0x8] of switch Lid 8")
            .next()
            .unwrap();
        let e = bad(cut);
        assert!(e.contains("Lid 8 (`L2-1`) has no table"), "{e}");
        let e = bad(&LFT.replace("0x0002 004\n", "").replace(
            "4 valid lids dumped\nUnicast lids [0x0-0x8] of switch Lid 7",
            "3 valid lids dumped\nUnicast lids [0x0-0x8] of switch Lid 7",
        ));
        assert!(
            e.starts_with("lft.txt:11:") && e.contains("no entry for host LID 0x2"),
            "{e}"
        );
        // Top 0 sends host 3 back to leaf 0, which sends it to top 0: a loop.
        let looped = LFT.replacen(
            "Lid 7 guid 0x0000000000000007 (top 0):\n0x0001 001\n0x0002 001\n0x0003 002\n0x0004 002",
            "Lid 7 guid 0x0000000000000007 (top 0):\n0x0001 001\n0x0002 001\n0x0003 002\n0x0004 001",
            1,
        );
        let e = bad(&looped);
        assert!(e.contains("loop") && e.contains("LID 0x4"), "{e}");
        let e = bad("0x0001 001\n");
        assert!(
            e.starts_with("lft.txt:1:") && e.contains("before any"),
            "{e}"
        );
    }
}
