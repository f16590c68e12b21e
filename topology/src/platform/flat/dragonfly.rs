//! SimGrid's DRAGONFLY cluster (`DragonflyZone`): its coordinates,
//! links and routes, flattened like every other zone.

use super::*;

/// A DRAGONFLY cluster's links by router (SimGrid's `DragonflyZone`,
/// `generate_links`); routers are numbered `(group, chassis, blade)` in
/// that order, a host `(group, chassis, blade, node)`.
#[derive(Debug, Default)]
pub(super) struct Dragonfly {
    /// Groups, chassis per group, blades per chassis, nodes per blade.
    pub(super) dims: [usize; 4],
    /// Per router and node: the local link (up, down).
    pub(super) local: Vec<Vec<(u32, u32)>>,
    /// Per router: its green link to each blade of its chassis, its black
    /// link to each chassis of its group, its blue link (if any).
    pub(super) green: Vec<Vec<Option<u32>>>,
    pub(super) black: Vec<Vec<Option<u32>>>,
    pub(super) blue: Vec<Option<u32>>,
    /// Limiters of routers and of hosts (`limiter_link`).
    pub(super) router_limiter: Vec<Option<u32>>,
    pub(super) host_limiter: Vec<Option<u32>>,
}

impl Dragonfly {
    /// `DragonflyZone::get_local_route` between hosts `s` and `d`.
    pub(super) fn route(&self, s: usize, d: usize, out: &mut Vec<u32>) -> Option<()> {
        let [_, c, b, n] = self.dims;
        let coords = |id: usize| {
            (
                id / (c * b * n),
                id % (c * b * n) / (b * n),
                id % (b * n) / n,
                id % n,
            )
        };
        let (mg, mc, mb, mn) = coords(s);
        let (tg, tc, tb, tn) = coords(d);
        let group = |r: usize| r / (c * b);
        let chassis = |r: usize| r % (c * b) / b;
        let blade = |r: usize| r % b;
        let my = mg * c * b + mc * b + mb;
        let target = tg * c * b + tc * b + tb;
        let mut cur = my;
        let lim = |r: usize, out: &mut Vec<u32>| out.extend(self.router_limiter[r]);
        out.extend(self.host_limiter[s]);
        out.push(self.local[my][mn].0);
        if target != my {
            if group(target) != group(cur) {
                if blade(cur) != tg {
                    lim(cur, out);
                    out.push((*self.green[cur].get(tg)?)?);
                    cur = mg * c * b + mc * b + tg;
                }
                if chassis(cur) != 0 {
                    lim(cur, out);
                    out.push(self.black[cur][0]?);
                    cur = mg * c * b + tg;
                }
                out.push(self.blue.get(cur).copied().flatten()?);
                lim(cur, out);
                cur = tg * c * b + mg;
            }
            if cur >= self.local.len() {
                return None;
            }
            if blade(target) != blade(cur) {
                lim(cur, out);
                out.push((*self.green[cur].get(tb)?)?);
                cur = tg * c * b + tb;
            }
            if chassis(target) != chassis(cur) {
                lim(cur, out);
                out.push((*self.black[cur].get(tc)?)?);
            }
        }
        lim(target, out);
        out.push(self.local[target][tn].1);
        out.extend(self.host_limiter[d]);
        Some(())
    }
}

impl<'i> Cx<'_, 'i> {
    /// A `<cluster topology="DRAGONFLY">` as SimGrid builds it
    /// (`DragonflyZone::generate_routers`, `generate_links`): hosts only
    /// (its routers are no netpoints), links `bw` times their count per
    /// level, SPLITDUPLEX by default or else SHARED, limiters of
    /// `limiter_link` on every host and router.
    pub(super) fn dragonfly(
        &self,
        f: &mut Flat,
        c: Node,
        parent: Option<usize>,
    ) -> Result<(), MachineFileError> {
        let bad = || {
            self.err(c, "<cluster topo_parameters>: DRAGONFLY takes `groups,blue;chassis,black;blades,green;nodes`, positive counts".into())
        };
        let t = self.need(c, "topo_parameters")?;
        let parts: Vec<Vec<usize>> = t
            .split(';')
            .map(|p| {
                p.split(',')
                    .map(|x| x.trim().parse::<usize>().ok().filter(|&v| v > 0))
                    .collect::<Option<Vec<_>>>()
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        if parts.len() != 4 || parts[..3].iter().any(|p| p.len() != 2) || parts[3].len() != 1 {
            return Err(bad());
        }
        let dims = [parts[0][0], parts[1][0], parts[2][0], parts[3][0]];
        let (counts, [g, ch, b, n]) = ([parts[0][1], parts[1][1], parts[2][1]], dims);
        let routers = g.saturating_mul(ch).saturating_mul(b);
        if routers.saturating_mul(n) > MAX_PAIR_HOSTS || routers.saturating_mul(b + ch) > 1 << 22 {
            return Err(self.err(c, format!("<cluster topo_parameters=\"{t}\">: above netsim's {MAX_PAIR_HOSTS} hosts for per-pair routes")));
        }
        for a in ["bb_bw", "bb_lat", "bb_sharing_policy", "router_id"] {
            if c.attribute(a).is_some() {
                self.note(c, format!("<cluster {a}>: SimGrid's DRAGONFLY clusters have no backbone or router; ignored as SimGrid does"));
            }
        }
        self.note_loopback(c);
        let id = self.need(c, "id")?;
        let set = self.host_set(c)?;
        if set.names.len() != routers * n {
            return Err(self.err(
                c,
                format!(
                    "<cluster>: the dragonfly {t} has {} hosts but `radical` names {}",
                    routers * n,
                    set.names.len()
                ),
            ));
        }
        let (speed, bw, lat) = (set.speed, set.bw, set.lat);
        let cores = self.cores(c)?;
        let policy = match self.policy(c, "sharing_policy", Policy::SplitDuplex)? {
            Policy::SplitDuplex => Policy::SplitDuplex,
            _ => Policy::Shared,
        };
        let limiter = self
            .value(c, "limiter_link", units::rate)?
            .filter(|l| l.as_bytes_per_sec() > 0);
        let z = self.new_zone(f, c, id, Kind::Dragonfly, parent)?;
        let mut df = Dragonfly {
            dims,
            ..Default::default()
        };
        for name in &set.names {
            let h = self.add_host(f, c, name, cores, speed, z)?;
            let lim = match limiter {
                Some(l) => {
                    let name = format!("{id}_link_{}_limiter", f.nps[h].id);
                    f.link(&name, l, Time::ZERO, Policy::Shared)
                        .map_err(|m| self.err(c, m.to_string()))?;
                    Some(f.links[&name].up)
                }
                None => None,
            };
            df.host_limiter.push(lim);
        }
        for r in 0..routers {
            df.router_limiter.push(match limiter {
                Some(l) => {
                    let name = format!("{id}_router_{r}_limiter");
                    f.link(&name, l, Time::ZERO, Policy::Shared)
                        .map_err(|m| self.err(c, m.to_string()))?;
                    Some(f.links[&name].up)
                }
                None => None,
            });
        }
        let mut mk = |name: String, k: usize| -> Result<(u32, u32), MachineFileError> {
            let rate = Bandwidth::bytes_per_sec(bw.as_bytes_per_sec().saturating_mul(k as u64));
            f.link(&name, rate, lat, policy)
                .map_err(|m| self.err(c, m.to_string()))?;
            let l = f.links[&name];
            Ok((l.up, l.down))
        };
        df.green = vec![vec![None; b]; routers];
        df.black = vec![vec![None; ch]; routers];
        df.blue = vec![None; routers];
        for r in 0..routers {
            let mut v = Vec::with_capacity(n);
            for j in 0..n {
                v.push(mk(format!("{id}_local_{r}_{j}"), 1)?);
            }
            df.local.push(v);
        }
        for i in 0..g * ch {
            for j in 0..b {
                for k in j + 1..b {
                    let (u, d) = mk(format!("{id}_green_{i}_{j}_{k}"), counts[2])?;
                    df.green[i * b + j][k] = Some(u);
                    df.green[i * b + k][j] = Some(d);
                }
            }
        }
        for i in 0..g {
            for j in 0..ch {
                for k in j + 1..ch {
                    for l in 0..b {
                        let (u, d) = mk(format!("{id}_black_{i}_{j}_{k}_{l}"), counts[1])?;
                        df.black[i * b * ch + j * b + l][k] = Some(u);
                        df.black[i * b * ch + k * b + l][j] = Some(d);
                    }
                }
            }
        }
        for i in 0..g {
            for j in i + 1..g {
                let (ri, rj) = (i * b * ch + j, j * b * ch + i);
                let (u, d) = mk(format!("{id}_blue_{i}_{j}"), counts[0])?;
                if ri < routers && rj < routers {
                    df.blue[ri] = Some(u);
                    df.blue[rj] = Some(d);
                }
            }
        }
        f.zones[z].dragonfly = Some(Box::new(df));
        Ok(())
    }
}
