//! Per-link statistics, returned as plain data for reports and plots.

use crate::transport::LinkBusy;
use crate::transport::LinkId;
use sim_core::Time;

/// Totals of one link direction over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct LinkStat {
    /// Link id.
    pub link: LinkId,
    /// Sending vertex.
    pub from: u32,
    /// Receiving vertex.
    pub to: u32,
    /// Bytes carried.
    pub bytes: u64,
    /// Time the link spent sending \[time\]. Packet mode: sum of packet
    /// service times (including waits for a cut-through tail). Flow mode:
    /// `bytes / bandwidth`, the time-equivalent of the bytes carried.
    pub busy: Time,
    /// `busy / elapsed`, in [0, 1] (0 when `elapsed` is zero).
    pub utilization: f64,
    /// Largest number of bytes waiting in the link's queue (packet mode;
    /// 0 in flow mode).
    pub peak_queue_bytes: u64,
    /// Largest number of flows crossing the link at once (flow mode; 0 in
    /// packet mode).
    pub peak_flows: u32,
}

/// Bytes carried by one link per sampling interval.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LinkSeries {
    /// Link id.
    pub link: LinkId,
    /// Width of a bin \[time\]; bin `i` covers `[i * interval, (i + 1) * interval)`.
    pub interval: Time,
    /// Bytes per bin. A packet's or flow segment's bytes are spread over
    /// the bins its transmission spans, in proportion to time.
    pub bytes: Vec<u64>,
}

impl LinkSeries {
    /// The link's mean rate in bin `i` \[Gb/s\] (bits per ns).
    pub fn gbps(&self, i: usize) -> f64 {
        (self.bytes[i] * 8) as f64 / (self.interval.as_ps() as f64 / 1000.0)
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Acc {
    bytes: u64,
    busy_ps: u64,
    peak_queue: u64,
}

/// Collects per-link figures during a run, and the busy intervals while
/// an observer asks for them ([`crate::Transport::record_link_busy`]).
#[derive(Clone, Debug)]
pub(crate) struct StatsCollector {
    acc: Vec<Acc>,
    /// Busy intervals are logged (an observer wants them).
    record: bool,
    /// Logged since the last drain.
    log: Vec<LinkBusy>,
}

impl StatsCollector {
    pub(crate) fn new(links: usize) -> Self {
        StatsCollector {
            acc: vec![Acc::default(); links],
            record: false,
            log: Vec::new(),
        }
    }

    /// `bytes` sent on `link` during `[from, to]`.
    #[inline]
    pub(crate) fn sent(&mut self, link: u32, from: Time, to: Time, bytes: u64, busy: bool) {
        let a = &mut self.acc[link as usize];
        a.bytes += bytes;
        if busy {
            a.busy_ps += (to - from).as_ps();
        }
        self.busy(link, from, to, bytes);
    }

    /// Only the busy interval (flow mode credits totals at the end).
    #[inline]
    pub(crate) fn busy(&mut self, link: u32, start: Time, end: Time, bytes: u64) {
        if self.record {
            self.log.push(LinkBusy {
                link: LinkId(link),
                start,
                end,
                bytes,
            });
        }
    }

    /// Busy intervals are being logged.
    pub(crate) fn recording(&self) -> bool {
        self.record
    }

    /// Starts (or stops) logging busy intervals.
    pub(crate) fn record(&mut self, on: bool) {
        self.record = on;
        if !on {
            self.log = Vec::new();
        }
    }

    /// Moves the intervals logged so far to `out`.
    #[inline]
    pub(crate) fn drain(&mut self, out: &mut Vec<LinkBusy>) {
        out.append(&mut self.log);
    }

    #[inline]
    pub(crate) fn queue(&mut self, link: u32, waiting: u64) {
        let a = &mut self.acc[link as usize];
        a.peak_queue = a.peak_queue.max(waiting);
    }

    pub(crate) fn report(
        &self,
        links: &[crate::link::Link],
        elapsed: Time,
        busy_from_bytes: bool,
    ) -> Vec<LinkStat> {
        self.report_with(links, elapsed, busy_from_bytes, |_| (0, 0))
    }

    /// [`StatsCollector::report`] with bytes per link kept by the caller
    /// (`extra(link)`, added to this collector's) and the peak count of
    /// flows (the flow model keeps both with its per-link data).
    pub(crate) fn report_with(
        &self,
        links: &[crate::link::Link],
        elapsed: Time,
        busy_from_bytes: bool,
        extra: impl Fn(usize) -> (u64, u32),
    ) -> Vec<LinkStat> {
        self.acc
            .iter()
            .zip(links)
            .enumerate()
            .map(|(i, (a, l))| {
                let (bytes, flows) = extra(i);
                let a = Acc {
                    bytes: a.bytes + bytes,
                    ..*a
                };
                let busy = if busy_from_bytes {
                    sim_core::transfer_time(a.bytes, l.bandwidth)
                } else {
                    Time::from_ps(a.busy_ps)
                };
                LinkStat {
                    link: LinkId(i as u32),
                    from: l.from,
                    to: l.to,
                    bytes: a.bytes,
                    busy,
                    utilization: if elapsed > Time::ZERO {
                        busy.as_ps() as f64 / elapsed.as_ps() as f64
                    } else {
                        0.0
                    },
                    peak_queue_bytes: a.peak_queue,
                    peak_flows: flows,
                }
            })
            .collect()
    }
}

/// Builds each link's [`LinkSeries`] from its busy intervals
/// ([`LinkBusy`], the transport's events through the observer seam): an
/// interval's bytes are spread over the bins its span covers, in
/// proportion to time, the last bin taking what rounding left.
///
/// The bins (8 bytes each, from time 0 to a link's last busy instant)
/// are held to a memory limit: once a link would need more, the builder
/// stops filling bins and only counts how many every link would need
/// ([`SeriesBuilder::refused`]), so that a narrow interval on a long run
/// ends with the size it would have taken instead of exhausting memory.
#[derive(Clone, Debug)]
pub struct SeriesBuilder {
    interval: Time,
    /// Bytes per bin, by link id (grown as links show up).
    series: Vec<Vec<u64>>,
    /// Bins held, over all links.
    bins: u64,
    /// The most bins that may be held.
    max_bins: u64,
    /// Past the limit: the bins each link would need (by link id).
    wanted: Option<Vec<u64>>,
}

/// Bytes of one bin of a [`SeriesBuilder`].
pub const SERIES_BIN_BYTES: u64 = 8;

impl SeriesBuilder {
    /// Bins of `interval` without a memory limit; `None` for a zero
    /// interval (no series).
    pub fn new(interval: Time) -> Option<Self> {
        Self::with_limit(interval, u64::MAX)
    }

    /// Bins of `interval`, holding at most `max_bytes` of bins; `None` for
    /// a zero interval.
    pub fn with_limit(interval: Time, max_bytes: u64) -> Option<Self> {
        (interval > Time::ZERO).then(|| SeriesBuilder {
            interval,
            series: Vec::new(),
            bins: 0,
            max_bins: max_bytes / SERIES_BIN_BYTES,
            wanted: None,
        })
    }

    /// Adds one busy interval.
    pub fn add(&mut self, b: &LinkBusy) {
        let (link, from, to, bytes) = (b.link, b.start, b.end, b.bytes);
        let iv = self.interval.as_ps();
        let (b0, b1) = (
            from.as_ps() / iv,
            to.as_ps().saturating_sub(1).max(from.as_ps()) / iv,
        );
        let l = link.index();
        let len = self.series.get(l).map_or(0, Vec::len) as u64;
        if self.wanted.is_none() && b1 >= len && self.bins + (b1 + 1 - len) > self.max_bins {
            // Past the limit: from here on only count.
            self.wanted = Some(self.series.iter().map(|s| s.len() as u64).collect());
            self.series = Vec::new();
        }
        if let Some(w) = &mut self.wanted {
            if w.len() <= l {
                w.resize(l + 1, 0);
            }
            w[l] = w[l].max(b1 + 1);
            return;
        }
        if self.series.len() <= l {
            self.series.resize(l + 1, Vec::new());
        }
        let s = &mut self.series[l];
        if s.len() <= b1 as usize {
            self.bins += b1 + 1 - s.len() as u64;
            s.resize(b1 as usize + 1, 0);
        }
        if b0 == b1 || bytes == 0 {
            s[b0 as usize] += bytes;
            return;
        }
        let span = (to - from).as_ps() as u128;
        let mut given = 0u64;
        for b in b0..=b1 {
            let lo = (b * iv).max(from.as_ps());
            let hi = ((b + 1) * iv).min(to.as_ps());
            let share = if b == b1 {
                bytes - given
            } else {
                (bytes as u128 * (hi - lo) as u128 / span) as u64
            };
            s[b as usize] += share;
            given += share;
        }
    }

    /// `Some(bytes)` when the bins would have needed more than the limit:
    /// the bytes of every busy link's bins up to its last busy instant.
    pub fn refused(&self) -> Option<u64> {
        let w = self.wanted.as_ref()?;
        Some(w.iter().sum::<u64>().saturating_mul(SERIES_BIN_BYTES))
    }

    /// The width of the bins.
    pub fn interval(&self) -> Time {
        self.interval
    }

    /// The series of the links that were busy, by link id (none when
    /// [`SeriesBuilder::refused`]).
    pub fn series(self) -> Vec<LinkSeries> {
        let interval = self.interval;
        self.series
            .into_iter()
            .enumerate()
            .filter(|(_, s)| !s.is_empty())
            .map(|(i, bytes)| LinkSeries {
                link: LinkId(i as u32),
                interval,
                bytes,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_per_bin() {
        // 125 B in 1 us = 1000 bits / 1000 ns = 1 Gb/s; 0 B, 0 Gb/s.
        let s = LinkSeries {
            link: LinkId(0),
            interval: Time::from_ps(1_000_000),
            bytes: vec![125, 0],
        };
        assert_eq!((s.gbps(0), s.gbps(1)), (1.0, 0.0));
    }

    #[test]
    fn bins_past_the_limit_are_counted_not_held() {
        let busy = |link, start, end| LinkBusy {
            link: LinkId(link),
            start: Time::from_ps(start),
            end: Time::from_ps(end),
            bytes: 10,
        };
        // 1 ps bins, room for 100 bins (800 B).
        let mut sb = SeriesBuilder::with_limit(Time::from_ps(1), 800).unwrap();
        sb.add(&busy(0, 0, 60));
        assert_eq!(sb.refused(), None);
        sb.add(&busy(1, 0, 50));
        // Link 0 needs 60 bins and link 1 50: 110 bins, 880 B.
        assert_eq!(sb.refused(), Some(880));
        sb.add(&busy(1, 1000, 1010));
        assert_eq!(sb.refused(), Some((60 + 1010) * 8));
        assert!(sb.series().is_empty());
        // Within the limit: the bins are kept.
        let mut sb = SeriesBuilder::with_limit(Time::from_ps(10), 800).unwrap();
        sb.add(&busy(0, 0, 60));
        assert_eq!(sb.refused(), None);
        assert_eq!(sb.series()[0].bytes.len(), 6);
    }
}
