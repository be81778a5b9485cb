//! model.md §7: the reference scenarios R1–R10, exact numbers.

use offset_window_sim::{simulate, Run, Scenario, Strategy};

const MS: u64 = 1_000;

fn run(scenario: Scenario) -> Run {
    simulate(&scenario).expect("reference scenarios are valid")
}

fn pool() -> Scenario {
    Scenario { worker_pool: true, ..Scenario::default() }
}

/// The default crash instant, 8.2 s.
const CRASH_US: u64 = 8_200 * MS;
/// R6 and R7 crash at 5.01 s.
const POOL_CRASH_US: u64 = 5_010 * MS;

fn r9() -> Scenario {
    Scenario {
        record_processing_us: 50 * MS,
        max_poll_records: 25,
        strategy: Strategy::CommitSyncBatch,
        ..Scenario::default()
    }
}

#[test]
fn r1_defaults() {
    let run = run(Scenario::default());
    let at = run.state_at(CRASH_US);
    assert_eq!((at.position, at.durable, at.committed), (Some(45), 40, Some(25)));
    assert_eq!((at.duplicated, at.lost, at.reread), (15, 0, 20));
    let worst = run.worst();
    assert_eq!((worst.duplicated, worst.duplicated_at_us), (25, Some(5_000_001)));
    assert_eq!((worst.lost, worst.lost_at_us), (0, None));
    assert_eq!(run.blocked_on_commits(), 0.0);
}

/// model.md §5: a worst instant the horizon cuts says so. 500 records of 30 ms in one poll:
/// at the default 12 s the duplicates are still growing (399 at 11.970 s); 24 s shows 500.
#[test]
fn a_worst_instant_at_the_horizons_end_is_flagged() {
    let scenario = |horizon_ms: u64| Scenario {
        max_poll_records: 500,
        record_processing_us: 30 * MS,
        horizon_us: horizon_ms * MS,
        ..Scenario::default()
    };
    let cut = run(scenario(12_000)).worst();
    assert_eq!(
        (cut.duplicated, cut.duplicated_at_us, cut.duplicated_at_horizon_end),
        (399, Some(11_970_001), true)
    );
    assert!(cut.at_horizon_end() && !cut.lost_at_horizon_end);
    let whole = run(scenario(24_000)).worst();
    assert_eq!(
        (whole.duplicated, whole.duplicated_at_us, whole.at_horizon_end()),
        (500, Some(15_000_001), false)
    );
    assert!(!run(Scenario::default()).worst().at_horizon_end());
}

#[test]
fn r2_commit_sync_batch_worst_is_one_batch() {
    let worst = run(Scenario { strategy: Strategy::CommitSyncBatch, ..Scenario::default() }).worst();
    assert_eq!((worst.duplicated, worst.lost), (5, 0));
}

#[test]
fn r3_r4_r5_the_window_is_the_batch() {
    for (strategy, interval_ms) in
        [(Strategy::AutoCommit, 5_000), (Strategy::CommitSyncBatch, 5_000), (Strategy::AutoCommit, 100)]
    {
        let scenario = Scenario {
            max_poll_records: 25,
            strategy,
            auto_commit_interval_us: interval_ms * MS,
            ..Scenario::default()
        };
        let worst = run(scenario).worst();
        assert_eq!((worst.duplicated, worst.lost), (25, 0), "{strategy:?} with interval {interval_ms} ms");
    }
}

#[test]
fn r6_pool_with_auto_commit_loses_ten() {
    let run = run(pool());
    let at = run.state_at(POOL_CRASH_US);
    assert_eq!((at.lost, at.committed, at.durable), (10, Some(35), 25));
    let lost = run.offsets_at(POOL_CRASH_US).lost;
    assert_eq!((lost.len(), lost[0].clone()), (1, 25..35), "offsets 25–34 were committed, never run");
}

#[test]
fn r7_pool_with_commit_sync_batch_loses_fifteen() {
    let at = run(Scenario { strategy: Strategy::CommitSyncBatch, ..pool() }).state_at(POOL_CRASH_US);
    assert_eq!((at.lost, at.committed, at.durable), (15, Some(40), 25));
}

#[test]
fn r8_transactional_never_loses_nor_duplicates() {
    let run = run(Scenario { strategy: Strategy::Transactional, ..Scenario::default() });
    assert!(
        run.lines().profile.iter().all(|s| s.lost == 0 && s.duplicated == 0),
        "{:?}",
        run.lines().profile
    );
    let at = run.state_at(CRASH_US);
    assert_eq!((at.lost, at.duplicated, at.reread), (0, 0, 5));
}

#[test]
fn r9_r10_blocked_on_commits() {
    let percent = |s: Scenario| format!("{:.1}", run(s).blocked_on_commits() * 100.0);
    assert_eq!(percent(r9()), "0.4");
    assert_eq!(percent(Scenario { strategy: Strategy::CommitSyncRecord, ..r9() }), "9.1");
}
