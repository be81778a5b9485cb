//! What the page reads off a run at an instant: the last stable offset and the high
//! watermark then, and per reader what it had been handed and committed by then, its LAG as
//! `kafka-consumer-groups.sh --describe` would have shown it (high watermark − committed) and
//! its stalls. At the horizon these are the run's own figures (the tests hold them equal).

use crate::kit::text::seconds_text;
use offset_window_sim::transactions::{DataState, OffsetStep, ReaderRun, Stall, TxnRun};

/// The value of a step function at `at_us` (`None` before its first step).
pub fn step_at(steps: &[OffsetStep], at_us: u64) -> Option<u64> {
    let i = steps.partition_point(|s| s.at_us <= at_us);
    i.checked_sub(1).map(|i| steps[i].offset)
}

/// One reader at an instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderAt {
    /// Its name.
    pub name: String,
    /// Client, `isolation.level` and commit style, in the core's names.
    pub client: &'static str,
    /// `read_committed` or `read_uncommitted`.
    pub isolation: &'static str,
    /// Its commit style.
    pub commit: &'static str,
    /// Records handed to the application by then (control records handed as data included).
    pub handed: usize,
    /// Of them, control records handed as data (kafka-go).
    pub control_handed: usize,
    /// Of them, records of aborted transactions (`None` for `read_committed`, which never
    /// gets one).
    pub aborted_handed: Option<usize>,
    /// The group's committed offset then (`None`: nothing committed yet).
    pub committed: Option<u64>,
    /// High watermark then − committed (`None` with nothing committed).
    pub lag: Option<u64>,
    /// Its stalls up to then, in words ("none").
    pub stall: String,
    /// Whether it is stalled at the last stable offset at that instant.
    pub stalled_now: bool,
}

/// One share reader at an instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareAt {
    /// Its name.
    pub name: String,
    /// Its group's `share.isolation.level`.
    pub isolation: &'static str,
    /// Records handed (and accepted) by then.
    pub handed: usize,
    /// Of them, records of aborted transactions.
    pub aborted_handed: usize,
    /// Its stalls up to then, in words.
    pub stall: String,
}

/// The readouts at an instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct At {
    /// The instant, µs.
    pub at_us: u64,
    /// The last stable offset then.
    pub lso: u64,
    /// The high watermark (log end offset) then.
    pub hw: u64,
    /// Records (data and markers) in the log by then.
    pub records: usize,
    /// Each reader.
    pub readers: Vec<ReaderAt>,
    /// Each share reader.
    pub shares: Vec<ShareAt>,
}

/// The stalls of `stalls` begun by `at_us`, in words: "1.000–20.000 s", "since 1.000 s"
/// (still stalled then), "none".
pub fn stall_text(stalls: &[Stall], at_us: u64) -> String {
    let parts: Vec<String> = stalls
        .iter()
        .filter(|s| s.from_us <= at_us)
        .map(|s| match s.to_us {
            Some(to) if to <= at_us => format!("{}–{} s", seconds_text(s.from_us), seconds_text(to)),
            _ => format!("since {} s", seconds_text(s.from_us)),
        })
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

fn stalled_at(stalls: &[Stall], at_us: u64) -> bool {
    stalls.iter().any(|s| s.from_us <= at_us && s.to_us.is_none_or(|to| at_us < to))
}

fn aborted(run: &TxnRun, offset: u64) -> bool {
    run.log.get(offset as usize).is_some_and(|r| r.state == Some(DataState::Aborted))
}

fn reader_at(run: &TxnRun, r: &ReaderRun, hw: u64, at_us: u64) -> ReaderAt {
    let handed: Vec<_> = r.handed.iter().filter(|h| h.at_us <= at_us).collect();
    let committed = step_at(&r.committed_steps, at_us);
    ReaderAt {
        name: r.name.clone(),
        client: r.client,
        isolation: r.isolation,
        commit: r.commit,
        handed: handed.len(),
        control_handed: handed.iter().filter(|h| h.control).count(),
        aborted_handed: (r.isolation != "read_committed")
            .then(|| handed.iter().filter(|h| !h.control && aborted(run, h.offset)).count()),
        committed,
        lag: committed.map(|c| hw.saturating_sub(c)),
        stall: stall_text(&r.stalled, at_us),
        stalled_now: stalled_at(&r.stalled, at_us),
    }
}

/// The readouts of `run` at `at_us`.
pub fn at(run: &TxnRun, at_us: u64) -> At {
    let hw = step_at(&run.high_watermark, at_us).unwrap_or(0);
    At {
        at_us,
        lso: step_at(&run.last_stable_offset, at_us).unwrap_or(0),
        hw,
        records: run.log.iter().filter(|r| r.at_us <= at_us).count(),
        readers: run.readers.iter().map(|r| reader_at(run, r, hw, at_us)).collect(),
        shares: run
            .share_readers
            .iter()
            .map(|s| {
                let handed: Vec<_> = s.handed.iter().filter(|h| h.at_us <= at_us).collect();
                ShareAt {
                    name: s.name.clone(),
                    isolation: s.isolation,
                    handed: handed.len(),
                    aborted_handed: handed.iter().filter(|h| aborted(run, h.offset)).count(),
                    stall: stall_text(&s.stalled, at_us),
                }
            })
            .collect(),
    }
}

/// Offset text ("none" for no value).
pub fn or_none(v: Option<u64>) -> String {
    v.map_or("none".into(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transactions::presets::{scenario, PRESETS};
    use offset_window_sim::transactions::simulate_transactions;

    #[test]
    fn at_the_horizon_the_readouts_are_the_runs_figures() {
        for (i, p) in PRESETS.iter().enumerate() {
            let s = scenario(i).unwrap();
            let run = simulate_transactions(&s).unwrap();
            let end = at(&run, s.horizon_us);
            assert_eq!(end.hw, run.log_end_offset, "{}", p.file);
            assert_eq!(end.records as u64, run.log_end_offset);
            for (got, r) in end.readers.iter().zip(&run.readers) {
                assert_eq!(got.committed, r.committed, "{} {}", p.file, r.name);
                assert_eq!(got.lag, r.lag, "{} {}", p.file, r.name);
                assert_eq!(got.handed, r.handed.len());
            }
        }
    }

    #[test]
    fn the_killed_producer_stalls_read_committed_until_20_s() {
        let s = scenario(1).unwrap();
        let run = simulate_transactions(&s).unwrap();
        let before = at(&run, 10_000_000);
        assert_eq!((before.lso, before.hw), (1, 6));
        let rc = &before.readers[0];
        assert!(rc.stalled_now);
        assert_eq!((rc.handed, rc.committed, rc.lag), (1, Some(1), Some(5)));
        assert_eq!(rc.stall, "since 1.000 s");
        assert_eq!(before.readers[1].aborted_handed, Some(3));
        let end = at(&run, s.horizon_us);
        assert_eq!(end.readers[0].stall, "1.000–20.000 s");
        assert!(!end.readers[0].stalled_now);
        assert_eq!(end.readers[0].aborted_handed, None);
    }
}
