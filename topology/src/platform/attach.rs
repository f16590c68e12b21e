//! The profiles a platform attaches to its hosts and links: the `*_file`
//! attributes and `<trace>` + `<trace_connect>`, read relative to the
//! platform file as SimGrid does, and what they mean for a run: a speed
//! profile kept for computation; a link's bandwidth or latency profile
//! for the flow model ([`crate::cm02::LinkProfile`]), and as a
//! [`ProfileChange`] that stops a packet-mode run reaching it; a state
//! change as a [`ProfileChange`] that stops any run reaching it.

use super::{Attached, Cx, Platform, Policy, Profile, ProfileChange, Target};
use crate::cm02::{LinkProfile, Steps};
use crate::file::MachineFileError;
use roxmltree::Node;
use sim_core::{Bandwidth, Time, limits};
use std::path::Path;
use std::sync::Arc;

impl<'i> Cx<'_, 'i> {
    /// The profiles named by a host's (`host`) or link's `*_file`
    /// attributes, read relative to the platform file (as SimGrid does)
    /// and kept for [`Cx::attach`].
    pub(super) fn profile_files(&self, n: Node, host: bool) -> Result<(), MachineFileError> {
        let attrs: &[(&str, Target)] = if host {
            &[
                ("speed_file", Target::Speed),
                ("state_file", Target::HostState),
            ]
        } else {
            &[
                ("bandwidth_file", Target::Bandwidth),
                ("latency_file", Target::Latency),
                ("state_file", Target::LinkState),
            ]
        };
        for &(attr, target) in attrs {
            let Some(rel) = n.attribute(attr) else {
                continue;
            };
            let what = format!("<{} {attr}=\"{rel}\">", n.tag_name().name());
            let profile = self.profile_file(n, &what, rel, -1.0)?;
            self.profiles.borrow_mut().push(Attached {
                target,
                id: self.need(n, "id")?.to_string(),
                profile: Arc::new(profile),
                line: self.line(n),
            });
        }
        Ok(())
    }
    /// The profile in file `rel`, found beside the platform file;
    /// `what` names the element that names it.
    fn profile_file(
        &self,
        n: Node,
        what: &str,
        rel: &str,
        periodicity: f64,
    ) -> Result<Profile, MachineFileError> {
        let dir = Path::new(self.file).parent().unwrap_or(Path::new(""));
        let path = dir.join(rel);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            self.err(
                n,
                format!(
                    "{what}: cannot read the profile {}: {e} (profiles are found relative to the platform file)",
                    path.display()
                ),
            )
        })?;
        Profile::parse(&path.display().to_string(), 1, &text, periodicity)
    }
    /// A `<trace>`: its id and profile (inline text, or its `file`).
    pub(super) fn trace<'n>(
        &self,
        c: Node<'n, 'i>,
    ) -> Result<(&'n str, Arc<Profile>), MachineFileError> {
        self.attrs(c, &["id", "file", "periodicity"])?;
        let id = self.need(c, "id")?;
        let periodicity = match c.attribute("periodicity") {
            None => -1.0,
            Some(v) => v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|p| p.is_finite())
                .ok_or_else(|| {
                    self.err(
                        c,
                        format!("<trace periodicity=\"{v}\">: expected a number of seconds"),
                    )
                })?,
        };
        if let Some(k) = c.children().find(Node::is_element) {
            return Err(self.unsupported(k, k.tag_name().name()));
        }
        let text: String = c.children().filter_map(|k| k.text()).collect();
        let profile = match c.attribute("file") {
            // SimGrid 3.32 (`sg_platf_new_trace`): a file's own text,
            // without the periodicity attribute.
            Some(f) => {
                if !text.trim().is_empty() {
                    return Err(self.err(
                        c,
                        format!("<trace id=\"{id}\">: both a `file` and inline events; give one"),
                    ));
                }
                if c.attribute("periodicity").is_some() {
                    return Err(self.err(c, format!("<trace id=\"{id}\" file=...>: SimGrid ignores `periodicity` with a file; write PERIODICITY in the file")));
                }
                self.profile_file(c, &format!("<trace id=\"{id}\" file=\"{f}\">"), f, -1.0)?
            }
            None => {
                // The text starts on the line of `<trace ...>` itself.
                let first = c.first_child().map_or(self.line(c), |k| {
                    self.doc.text_pos_at(k.range().start).row as usize
                });
                Profile::parse(self.file, first, &text, periodicity).map_err(|mut e| {
                    e.msg = format!("<trace id=\"{id}\">: {}", e.msg);
                    e
                })?
            }
        };
        Ok((id, Arc::new(profile)))
    }
    /// A `<trace_connect>`: attaches a declared `<trace>` to a host or
    /// link (SimGrid applies them once the platform is built, so they may
    /// come after the zone).
    pub(super) fn trace_connect(
        &self,
        c: Node,
        traces: &[(&str, Arc<Profile>, usize)],
    ) -> Result<(), MachineFileError> {
        self.attrs(c, &["kind", "trace", "element"])?;
        let kind = c.attribute("kind").unwrap_or("HOST_AVAIL");
        let target = match kind {
            "HOST_AVAIL" => Target::HostState,
            "SPEED" => Target::Speed,
            "LINK_AVAIL" => Target::LinkState,
            "BANDWIDTH" => Target::Bandwidth,
            "LATENCY" => Target::Latency,
            k => {
                return Err(self.err(c, format!("<trace_connect kind=\"{k}\">: SimGrid 3.32 takes HOST_AVAIL, SPEED, LINK_AVAIL, BANDWIDTH or LATENCY")));
            }
        };
        let trace = self.need(c, "trace")?;
        let element = self.need(c, "element")?;
        let Some((_, profile, _)) = traces.iter().find(|t| t.0 == trace) else {
            return Err(self.err(
                c,
                format!("<trace_connect trace=\"{trace}\">: no <trace> of that id"),
            ));
        };
        self.profiles.borrow_mut().push(Attached {
            target,
            id: element.to_string(),
            profile: profile.clone(),
            line: self.line(c),
        });
        Ok(())
    }
    /// Hands the profiles read to `p`: speed profiles per node, and
    /// every instant a run must end before ([`ProfileChange`]); returns
    /// the links whose bandwidth or latency the flow model follows.
    pub(super) fn attach(&self, p: &mut Platform) -> Result<Vec<LinkProfile>, MachineFileError> {
        let attached = self.profiles.take();
        let mut links: Vec<LinkProfile> = Vec::new();
        if attached.is_empty() {
            return Ok(links);
        }
        let hosts = p.host_speeds.len();
        let names = p.machine.vertices();
        let node = |id: &str| (0..hosts).find(|&i| names[i].name == id);
        let origin_err = |a: &Attached, msg: String| MachineFileError {
            file: self.file.into(),
            line: Some(a.line),
            msg,
        };
        let origin = |a: &Attached| format!("{}:{}", self.file, a.line);
        p.speed_profiles = vec![None; hosts];
        let secs = |t: f64| Time::try_from_secs_f64(t).unwrap_or(Time::MAX);
        for (i, a) in attached.iter().enumerate() {
            if let Some(b) = attached[..i]
                .iter()
                .find(|b| b.target == a.target && b.id == a.id)
            {
                return Err(origin_err(
                    a,
                    format!(
                        "a second {:?} profile for `{}` (the first: line {})",
                        a.target, a.id, b.line
                    ),
                ));
            }
            let host = matches!(a.target, Target::Speed | Target::HostState);
            let n = if host {
                Some(node(&a.id).ok_or_else(|| origin_err(a, format!("no host `{}`", a.id)))?)
            } else {
                let link = self.doc.descendants().any(|d| {
                    (d.has_tag_name("link") || d.has_tag_name("backbone"))
                        && d.attribute("id") == Some(&a.id)
                });
                if !link {
                    return Err(origin_err(a, format!("no link `{}`", a.id)));
                }
                None
            };
            let (first, what) = match a.target {
                Target::Speed => {
                    if !a.profile.keeps_computing() {
                        return Err(origin_err(
                            a,
                            format!(
                                "host `{}`'s speed profile has a negative value or stays at 0 for good: a computation there would never end",
                                a.id
                            ),
                        ));
                    }
                    p.speed_profiles[n.unwrap_or(0) as usize] = Some(a.profile.clone());
                    continue;
                }
                Target::HostState | Target::LinkState => (
                    a.profile.first(|v| v <= 0.0),
                    format!(
                        "{} `{}` turns off (its state profile, {}); SimGrid would {}, and netsim does not model failures",
                        if host { "host" } else { "link" },
                        a.id,
                        origin(a),
                        if host {
                            "kill the actors on it"
                        } else {
                            "fail the communications crossing it"
                        }
                    ),
                ),
                Target::Bandwidth | Target::Latency => {
                    let flow_models = self.link_profile(a, &mut links)?;
                    if let Some(t) = a.profile.first(|_| true) {
                        p.changes.push(ProfileChange {
                            node: None,
                            at: secs(t),
                            what: format!(
                                "link `{}`'s {} changes (its profile, {}); {}",
                                a.id,
                                if a.target == Target::Bandwidth {
                                    "bandwidth"
                                } else {
                                    "latency"
                                },
                                origin(a),
                                if flow_models {
                                    "only the flow model follows it (`--mode flow`)"
                                } else {
                                    "netsim holds the links of a TORUS or FAT_TREE cluster constant during a run"
                                }
                            ),
                            flow_models,
                        });
                    }
                    continue;
                }
            };
            if let Some(t) = first {
                p.changes.push(ProfileChange {
                    node: n.map(|n| n as u32),
                    at: secs(t),
                    what,
                    flow_models: false,
                });
            }
        }
        if p.speed_profiles.iter().all(Option::is_none) {
            p.speed_profiles.clear();
        }
        // A run is stopped at the earliest change it reaches.
        p.changes.sort_by_key(|c| c.at);
        Ok(links)
    }

    /// Adds `a`, a bandwidth or latency profile, to the link profiles
    /// `links` the flow model follows; `false` if this import keeps no
    /// SimGrid link ids (a TORUS or FAT_TREE cluster: the run is then
    /// stopped at the change). Values that no link can take are refused.
    fn link_profile(
        &self,
        a: &Attached,
        links: &mut Vec<LinkProfile>,
    ) -> Result<bool, MachineFileError> {
        let flat = self.flat_links.borrow();
        let Some((ids, bw, lat, policy)) = flat.as_ref().and_then(|f| f.get(&a.id)) else {
            return Ok(false);
        };
        let err = |msg: String| MachineFileError {
            file: self.file.into(),
            line: Some(a.line),
            msg,
        };
        if *policy == Policy::FatPipe {
            return Err(err(format!(
                "link `{}` is FATPIPE: netsim follows the bandwidth and latency profiles of SHARED and SPLITDUPLEX links; declare it SHARED",
                a.id
            )));
        }
        let bandwidth = a.target == Target::Bandwidth;
        let steps = Steps::new(&a.profile).ok_or_else(|| {
            err(format!(
                "link `{}`'s profile has an instant beyond netsim's time range",
                a.id
            ))
        })?;
        for v in steps.values() {
            let ok = if bandwidth {
                Bandwidth::try_bytes_per_sec_f64(v).is_some()
            } else {
                Time::try_from_secs_f64(v).is_some_and(|t| t <= limits::MAX_DURATION)
            };
            if !ok {
                return Err(err(format!(
                    "link `{}`'s {} profile takes the value {v}, which {}",
                    a.id,
                    if bandwidth { "bandwidth" } else { "latency" },
                    if bandwidth {
                        "is below 1 B/s: a link that carries nothing would stall its flows"
                            .to_string()
                    } else {
                        format!(
                            "is negative or above {} s",
                            limits::MAX_DURATION.as_secs_f64()
                        )
                    }
                )));
            }
        }
        let i = match links.iter().position(|l| l.name == a.id) {
            Some(i) => i,
            None => {
                links.push(LinkProfile {
                    name: a.id.clone(),
                    links: ids.clone(),
                    bandwidth: *bw,
                    latency: *lat,
                    bandwidth_steps: None,
                    latency_steps: None,
                });
                links.len() - 1
            }
        };
        if bandwidth {
            links[i].bandwidth_steps = Some(steps);
        } else {
            links[i].latency_steps = Some(steps);
        }
        Ok(true)
    }
}
