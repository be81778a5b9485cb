//! Regression tests for the defects fuzzing found (issue 28, D0–D6): each scenario runs
//! without a panic, or is refused with a message naming the key and what is allowed.

#![cfg(feature = "group")]

use offset_window_sim::{simulate, Input, MarkKind, Run, Scenario};

fn run(json: &str) -> Run {
    simulate(&Scenario::from_json(json).unwrap_or_else(|e| panic!("{e}"))).unwrap_or_else(|e| panic!("{e}"))
}

/// D0: an off-by-one commit (`commit_value: record_offset`) of a partition nothing was read
/// from commits log start − 1; the restarted member started from it and handed out a record
/// below the log start (a panic in the run counts). Now a committed offset below the log
/// start resolves `auto.offset.reset` (model.md §1): `latest` skips to the log end.
#[test]
fn d0_a_committed_offset_below_the_log_start_resolves_auto_offset_reset() {
    const D0: &str = r#"{"record_processing_ms":1,"log_start_offset":1,"partitions":2,"strategy":"commit_sync_batch","commit_value":"record_offset","group_events":[{"at_ms":1000,"kind":"shutdown","member":1,"restart_after_ms":0}]}"#;
    let run = run(D0);
    assert!(
        run.marks.iter().all(|m| !matches!(m.kind, MarkKind::RecordDurable { offset } if offset < 1)),
        "no record below the log start is handed out"
    );
    let g = run.group.as_ref().unwrap();
    let back = g.handovers.iter().find(|h| h.partition == 1).expect("orders-1 is handed back");
    // orders-1 was committed 0 (log start 1 − 1) and never read: `latest` starts at the
    // log end, 100000, so offsets 1–99999 are lost.
    assert_eq!((back.committed, back.lost, back.duplicated), (Some(0), 99_999, 0));
    // Its next off-by-one commit sends 99999 (the log end − 1), a real offset: a crash at
    // the horizon resumes there and loses 1–99998.
    let at_horizon = run.partition_state_at(1, run.scenario.horizon_us);
    assert_eq!((at_horizon.committed, at_horizon.lost), (Some(99_999), 99_998));
    // With `earliest` the restart begins at the log start and loses nothing there.
    let earliest = D0.replace("\"partitions\":2", "\"partitions\":2,\"auto.offset.reset\":\"earliest\"");
    let run = self::run(&earliest);
    let back = run.group.as_ref().unwrap().handovers.iter().find(|h| h.partition == 1).copied().unwrap();
    assert_eq!((back.committed, back.lost), (Some(0), 0));
    // Every protocol and assignor runs it too (`compare`).
    let input = Input::from_json(D0).unwrap();
    offset_window_sim::compare::compare_group(&input.scenario).unwrap();
}
