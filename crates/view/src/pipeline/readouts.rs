//! What the page reads off a pipeline run: downstream, per reader, how many input records it
//! was handed once, twice, more or never (by isolation level), and the writes outside Kafka;
//! the input's committed offsets and stalls with their reasons; the output log's records by
//! state, its markers and the coordinator's timeout aborts. All at the horizon: the run's own
//! figures, worded (the e2e test holds them equal to `offset-window pipeline`).

use crate::kit::text::seconds_text;
use offset_window_sim::pipeline::{
    EventKind, OutputState, PipelineRun, PipelineScenario, Rebalance, SeenCounts, StallReason,
};
use offset_window_sim::transactions::{RecordKind, Stall};

/// One row of the downstream table: a reader, or the writes outside Kafka.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Downstream {
    /// The reader's name, or "side effect".
    pub name: String,
    /// `read_committed`, `read_uncommitted`, or "outside Kafka".
    pub isolation: &'static str,
    /// Once, twice, more, never.
    pub seen: SeenCounts,
    /// Its waits at the output's last stable offset, in words ("none"); empty for the side
    /// effect.
    pub stalls: String,
}

/// The output log's figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutputCounts {
    /// Data records committed (at_least_once: every plain record).
    pub committed: u64,
    /// Data records aborted.
    pub aborted: u64,
    /// Data records in a transaction without a marker at the horizon.
    pub open: u64,
    /// Commit markers.
    pub commit_markers: u64,
    /// Abort markers (the client's, a restart's or the coordinator's).
    pub abort_markers: u64,
    /// The last stable offset at the horizon.
    pub lso: u64,
    /// The log end offset.
    pub end: u64,
}

/// Why an input partition stalled, in words.
pub fn reason_text(r: StallReason) -> &'static str {
    match r {
        StallReason::OwnerDown => "owner down",
        StallReason::Rebalance => "rebalance",
        StallReason::UnstableOffsetCommit => "UNSTABLE_OFFSET_COMMIT",
    }
}

/// Intervals in words: "4.110–70.000 s", "since 4.110 s", or "none". More than `max`:
/// the longest ones, and how many others.
pub fn stalls_text(stalls: &[Stall], max: usize) -> String {
    if stalls.is_empty() {
        return "none".into();
    }
    let text = |s: &Stall| match s.to_us {
        Some(to) => format!("{}–{} s", seconds_text(s.from_us), seconds_text(to)),
        None => format!("since {} s", seconds_text(s.from_us)),
    };
    if stalls.len() <= max {
        return stalls.iter().map(text).collect::<Vec<_>>().join(", ");
    }
    let mut by_length: Vec<&Stall> = stalls.iter().collect();
    by_length.sort_by_key(|s| std::cmp::Reverse(s.to_us.unwrap_or(u64::MAX) - s.from_us));
    let mut kept: Vec<&Stall> = by_length[..max].to_vec();
    kept.sort_by_key(|s| s.from_us);
    let shown: Vec<String> = kept.into_iter().map(text).collect();
    format!("{} and {} shorter", shown.join(", "), stalls.len() - max)
}

/// The downstream table: each reader in order, then the side effect when it is on.
pub fn downstream(run: &PipelineRun) -> Vec<Downstream> {
    let mut out: Vec<Downstream> = run
        .readers
        .iter()
        .map(|r| Downstream {
            name: r.name.clone(),
            isolation: r.isolation,
            seen: r.seen,
            stalls: if r.isolation == "read_committed" {
                stalls_text(&r.stalled, 2)
            } else {
                "never waits".into()
            },
        })
        .collect();
    if let Some(s) = &run.side_effects {
        out.push(Downstream {
            name: "side effect".into(),
            isolation: "outside Kafka",
            seen: s.counts,
            stalls: String::new(),
        });
    }
    out
}

/// The output log's figures at the horizon.
pub fn output(run: &PipelineRun) -> OutputCounts {
    let mut c = OutputCounts {
        lso: run.output_last_stable_offset.last().map_or(0, |s| s.offset),
        end: run.output_log.len() as u64,
        ..OutputCounts::default()
    };
    for e in &run.output_log {
        match (e.kind, e.state) {
            (RecordKind::CommitMarker, _) => c.commit_markers += 1,
            (RecordKind::AbortMarker, _) => c.abort_markers += 1,
            (_, Some(OutputState::Committed)) => c.committed += 1,
            (_, Some(OutputState::Aborted)) => c.aborted += 1,
            (_, _) => c.open += 1,
        }
    }
    c
}

/// Each input partition's stalls in words: "p0: owner down 4.500–48.000 s".
pub fn input_stalls(run: &PipelineRun) -> Vec<String> {
    run.input_stalls
        .iter()
        .flat_map(|p| {
            p.stalls.iter().map(move |s| {
                let to = s.to_us.map_or("the horizon".into(), |t| format!("{} s", seconds_text(t)));
                format!(
                    "partition {}: {} from {} s to {to}",
                    p.partition,
                    reason_text(s.reason),
                    seconds_text(s.from_us)
                )
            })
        })
        .collect()
}

/// A rebalance in words: "1.050 s to 1.050 s: instance 1 joins the group (scale-out); then
/// partition 0 → instance 0, partition 1 → instance 1" (the owners once it completes).
pub fn rebalance_text(r: &Rebalance) -> String {
    let mut text = format!(
        "{} s to {}: {}",
        seconds_text(r.started_at_us),
        r.completed_at_us.map_or("the horizon".into(), |t| format!("{} s", seconds_text(t))),
        r.trigger
    );
    if r.completed_at_us.is_some() {
        let mut owners: Vec<(u32, usize)> =
            r.assignment.iter().enumerate().flat_map(|(i, ps)| ps.iter().map(move |&p| (p, i))).collect();
        owners.sort_unstable();
        let owners: Vec<String> =
            owners.iter().map(|(p, i)| format!("partition {p} → instance {i}")).collect();
        if !owners.is_empty() {
            text.push_str(&format!("; then {}", owners.join(", ")));
        }
    }
    text
}

/// What the crash slider moves, by the first event's kind: "crash", "hang", "join" or "deploy" (its
/// label: "The join: 1.050 s").
pub fn event_word(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Crash => "crash",
        EventKind::Hang => "hang",
        EventKind::Join => "join",
        EventKind::Deploy => "deploy",
    }
}

/// The slider's label for the first event of `kind` at `at_us`: "The crash: 4.500 s".
pub fn event_label(kind: EventKind, at_us: u64) -> String {
    let word = event_word(kind);
    format!("The {word}: {} s", seconds_text(at_us))
}

/// The first event in words: "instance 0 killed at 4.500 s, restarted 1.000 s later",
/// "instance 1 joins at 1.050 s (scale-out)".
pub fn event_text(scenario: &PipelineScenario, index: usize) -> String {
    let e = &scenario.events[index];
    match e.kind {
        EventKind::Join => format!(
            "instance {} joins at {} s (scale-out: a new member, the group rebalances)",
            e.instance,
            seconds_text(e.at_us)
        ),
        EventKind::Crash => match e.restart_after_us {
            Some(d) => format!(
                "instance {} killed (kill -9) at {} s, restarted {} s later",
                e.instance,
                seconds_text(e.at_us),
                seconds_text(d)
            ),
            None => format!(
                "instance {} killed (kill -9) at {} s, never restarted",
                e.instance,
                seconds_text(e.at_us)
            ),
        },
        EventKind::Hang => format!(
            "instance {} frozen at {} s for {} s",
            e.instance,
            seconds_text(e.at_us),
            seconds_text(e.duration_us)
        ),
        EventKind::Deploy => format!(
            "rolling deploy from {} s: each instance closed {} s after the previous one, restarted {} s after \
             its close",
            seconds_text(e.at_us),
            seconds_text(e.deploy_step_us),
            seconds_text(e.restart_after_us.unwrap_or(0))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::presets::scenario;
    use offset_window_sim::pipeline::simulate_pipeline;

    #[test]
    fn p1_downstream_output_and_input() {
        let s = scenario(0).unwrap();
        let run = simulate_pipeline(&s).unwrap();
        let d = downstream(&run);
        assert_eq!(d.len(), 3);
        assert_eq!((d[0].seen.once, d[0].seen.twice), (100, 0));
        assert_eq!((d[1].seen.once, d[1].seen.twice), (96, 4));
        assert_eq!((d[2].name.as_str(), d[2].seen.twice), ("side effect", 4));
        let o = output(&run);
        assert_eq!((o.aborted, o.abort_markers, o.open, o.lso, o.end), (4, 1, 0, 111, 111));
        assert_eq!(input_stalls(&run), ["partition 0: owner down from 4.500 s to 48.000 s"]);
        assert_eq!(event_text(&s, 0), "instance 0 killed (kill -9) at 4.500 s, restarted 1.000 s later");
    }

    #[test]
    fn p7_the_join_in_words_and_the_sliders_label() {
        let s = scenario(6).unwrap();
        assert_eq!(
            event_text(&s, 0),
            "instance 1 joins at 1.050 s (scale-out: a new member, the group rebalances)"
        );
        assert_eq!(event_label(s.events[0].kind, s.events[0].at_us), "The join: 1.050 s");
        assert_eq!(event_label(EventKind::Crash, 4_500_000), "The crash: 4.500 s");
        assert_eq!(event_label(EventKind::Hang, 4_500_000), "The hang: 4.500 s");
        let run = simulate_pipeline(&s).unwrap();
        assert_eq!(rebalance_text(&run.rebalances[0]), "1.050 s to 1.050 s: instance 1 joins the group (scale-out); then partition 0 → instance 0, partition 1 → instance 1");
        let d = downstream(&run);
        assert_eq!((d.len(), d[0].seen.once, d[1].seen.once), (2, 40, 40));
        assert!(input_stalls(&run).is_empty());
    }

    #[test]
    fn many_short_stalls_show_the_longest() {
        // P5: the 44 waits of a few ms for each commit, and the long one behind the dead
        // transaction.
        let run = simulate_pipeline(&scenario(5).unwrap()).unwrap();
        let text = &downstream(&run)[0].stalls;
        assert!(text.contains("4.510–20.000 s") && text.ends_with("shorter"), "{text}");
        let p3 = simulate_pipeline(&scenario(2).unwrap()).unwrap();
        assert!(input_stalls(&p3)[1].contains("UNSTABLE_OFFSET_COMMIT from 48.000 s to 70.000 s"));
    }
}
