//! Memory and time grow with events, never with offset values (model.md §1): scenarios
//! whose offsets reach 10^12 run in a few kilobytes. Memory is counted by an instrumented
//! allocator (every byte allocated while the scenario runs, an upper bound of its peak),
//! so the bound is exact and does not depend on the machine's load.
#![cfg(not(target_arch = "wasm32"))]

use offset_window_sim::{simulate, Input, MarkKind, Scenario};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::time::Instant;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const MS: u64 = 1_000;

/// Parses and simulates `json`; returns the bytes allocated meanwhile.
fn allocated_bytes(json: &str) -> usize {
    let region = Region::new(GLOBAL);
    let started = Instant::now();
    let input = Input::from_json(json).unwrap();
    let run = simulate(&input.scenario).unwrap();
    let state = run.state_at(input.crash_at_us);
    let elapsed = started.elapsed();
    let stats = region.change();
    let bytes = stats.bytes_allocated + stats.bytes_reallocated.max(0) as usize;
    println!("{json}\n  {bytes} bytes, {elapsed:?}, at the crash: {state:?}");
    // A hang guard, not a speed target (these take about a millisecond).
    assert!(elapsed.as_secs() < 10, "{elapsed:?}");
    bytes
}

#[test]
fn a_skip_to_a_log_end_of_10_to_the_12_costs_kilobytes() {
    // Offsets expire while the consumer is down; `latest` then skips to the log end, 10^12.
    let bytes = allocated_bytes(
        r#"{"log_end_offset":1000000000000,"close_at_ms":1000,"downtime_ms":70000,"offsets.retention.minutes":1,"horizon_ms":100000,"crash_at_ms":100000}"#,
    );
    assert!(bytes < 1 << 20, "{bytes} bytes");
}

#[test]
fn an_evicted_script_at_a_far_log_end_costs_kilobytes() {
    let bytes = allocated_bytes(
        r#"{"log_end_offset":1000000000000,"max.poll.interval.ms":1,"script":["poll","process 1","poll"]}"#,
    );
    assert!(bytes < 1 << 20, "{bytes} bytes");
}

#[test]
fn a_commit_before_the_first_poll_sends_nothing() {
    // Java `commitSync()` commits `allConsumed()`, empty before the first poll: no request.
    let bytes = allocated_bytes(r#"{"log_end_offset":1000000000000,"script":["commit_sync"]}"#);
    assert!(bytes < 1 << 20, "{bytes} bytes");
    let run = simulate(
        &Scenario::from_json(r#"{"log_end_offset":1000000000000,"script":["commit_sync"]}"#).unwrap(),
    )
    .unwrap();
    assert!(run.marks.is_empty(), "{:?}", run.marks);
    assert_eq!(run.script.unwrap()[0].committed, None);
}

/// A new group reads records 0–9, closes without ever committing, and is down 100 s while
/// 1000 records are produced.
fn never_committed(reset: &str) -> String {
    format!(
        r#"{{"script":["poll","sleep 1000","poll","process 10","close"],"strategy":"commit_sync_batch","max.poll.records":10,
            "log_end_offset":0,"produce_rate_per_s":10,"record_processing_ms":0.001,
            "downtime_ms":100000,"horizon_ms":110000,"auto.offset.reset":"{reset}"}}"#
    )
}

#[test]
fn a_never_committed_group_resolves_auto_offset_reset_at_restart() {
    // model.md §8.9: closed at 1.00001 s with the log end at 10, restarted at 101.00001 s
    // with the log end at 1010: `latest` skips exactly the 1000 records produced while down.
    let latest = simulate(&Scenario::from_json(&never_committed("latest")).unwrap()).unwrap();
    let restarted: Vec<_> = latest
        .marks
        .iter()
        .filter_map(|m| match m.kind {
            MarkKind::Restarted { position } => Some((m.at_us, position)),
            _ => None,
        })
        .collect();
    assert_eq!(restarted, [(101_000_010, 1_010)]);
    let at_end = latest.state_at(110_000 * MS);
    assert!(at_end.committed.is_some(), "the restarted loop commits");
    assert_eq!((at_end.lost, at_end.duplicated), (1_000, 0));
    // `earliest` replays the ten records it had processed instead.
    let earliest = simulate(&Scenario::from_json(&never_committed("earliest")).unwrap()).unwrap();
    assert_eq!(earliest.state_at(110_000 * MS).lost, 0);
    assert_eq!(earliest.state_at(101_000 * MS).duplicated, 10);
}

#[test]
fn while_a_new_group_has_no_offset_a_crash_loses_what_latest_would_skip() {
    // Between the close and the restart the group has no committed offset: a restart at T
    // would start at the log end at T, so lost grows with every record produced.
    let run = simulate(&Scenario::from_json(&never_committed("latest")).unwrap()).unwrap();
    assert_eq!(run.state_at(2_000 * MS).committed, None);
    assert_eq!(run.state_at(2_000 * MS).lost, 10, "records 10–19 would be skipped");
    assert_eq!(run.state_at(51_000 * MS).lost, 500);
    // The restarted loop finds nothing to poll until 101.50001 s and commits after that
    // batch: until then the group still has no offset, and the log end reaches 1015 at 101.5 s.
    let worst = run.worst();
    assert_eq!((worst.lost, worst.lost_at_us), (1_005, Some(101_500_000)));
}
