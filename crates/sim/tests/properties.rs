//! Properties over random scenarios: the one-pass crash profile against the brute-force
//! re-run, determinism, and the invariants of SPEC §2 and §5 at every instant.
#![cfg(not(target_arch = "wasm32"))]

use offset_window_sim::{crash_state_brute_force, simulate, Scenario, Strategy as CommitStrategy};
use proptest::prelude::*;

/// Small random scenarios (a few hundred events) over every strategy and the pool.
fn scenarios() -> impl Strategy<Value = Scenario> {
    (
        (1u32..=12, 1u64..=300_000, 0u64..=40_000, 1u64..=3_000_000),
        (0usize..CommitStrategy::ALL.len(), 1u32..=15, any::<bool>(), 1u32..=4, 1u32..=4),
        (100_000u64..=6_000_000, 0u64..=200, 1u64..=700_000),
    )
        .prop_map(
            |(
                (mpr, processing, latency, interval),
                (strategy, every, pool, threads, in_flight),
                (horizon, log_end, fetch_wait),
            )| {
                let strategy = CommitStrategy::ALL[strategy];
                Scenario {
                    max_poll_records: mpr,
                    record_processing_us: processing,
                    commit_latency_us: latency,
                    auto_commit_interval_us: interval.max(1_000),
                    strategy,
                    commit_every_records: every,
                    worker_pool: pool && strategy != CommitStrategy::Transactional,
                    pool_threads: threads,
                    pool_max_in_flight_batches: in_flight,
                    horizon_us: horizon,
                    crash_at_us: horizon,
                    log_end_offset: log_end,
                    fetch_max_wait_us: fetch_wait.max(1_000),
                }
            },
        )
}

/// Every instant where something changes, and one microsecond either side, within (0, horizon].
fn probe_instants(run: &offset_window_sim::Run) -> Vec<u64> {
    let mut instants: Vec<u64> = run.marks.iter().map(|m| m.at_us).collect();
    instants.extend(run.profile.iter().map(|s| s.at_us));
    instants.extend(run.committed.iter().map(|s| s.at_us));
    let horizon = run.scenario.horizon_us;
    let mut probes: Vec<u64> = instants
        .iter()
        .flat_map(|&t| [t.saturating_sub(1), t, t + 1])
        .filter(|&t| t > 0 && t <= horizon)
        .collect();
    probes.push(horizon);
    probes.sort_unstable();
    probes.dedup();
    // Keep the test quick: at most 200 probes, spread over the run.
    let stride = probes.len().div_ceil(200).max(1);
    probes.into_iter().step_by(stride).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn crash_profile_equals_brute_force(scenario in scenarios()) {
        let run = simulate(&scenario).unwrap();
        for crash_at_us in probe_instants(&run) {
            let fast = run.state_at(crash_at_us);
            let slow = crash_state_brute_force(&scenario, crash_at_us).unwrap();
            prop_assert_eq!(fast, slow, "crash at {} µs", crash_at_us);
        }
    }

    #[test]
    fn same_scenario_same_bytes(scenario in scenarios()) {
        let a = simulate(&scenario).unwrap();
        let b = simulate(&scenario.clone()).unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(serde_json::to_string(&a.summary()).unwrap(), serde_json::to_string(&b.summary()).unwrap());
    }

    #[test]
    fn invariants_hold_at_every_instant(scenario in scenarios()) {
        let run = simulate(&scenario).unwrap();
        for crash_at_us in probe_instants(&run) {
            let s = run.state_at(crash_at_us);
            prop_assert!(s.committed <= s.position, "committed above position at {}: {:?}", crash_at_us, s);
            prop_assert!(s.durable <= s.position, "{:?}", s);
            // Every offset below the position is exactly one of: lost (below committed, not
            // durable), done and committed, duplicated (at/above committed, durable), pending.
            let done_and_committed = s.committed - s.lost;
            let pending = (s.position - s.committed).checked_sub(s.duplicated);
            prop_assert!(s.lost <= s.committed && pending.is_some(), "{:?}", s);
            prop_assert_eq!(s.lost + done_and_committed + s.duplicated + pending.unwrap(), s.position);
            if scenario.strategy == CommitStrategy::Transactional {
                prop_assert_eq!((s.lost, s.duplicated), (0, 0));
            }
        }
        let worst = run.worst();
        let horizon = scenario.horizon_us;
        let max_lost = run.profile.iter().filter(|p| p.at_us < horizon).map(|p| p.lost).max().unwrap_or(0);
        prop_assert_eq!(worst.lost, max_lost);
        if let Some(at) = worst.duplicated_at_us {
            prop_assert_eq!(run.state_at(at).duplicated, worst.duplicated);
            prop_assert!(run.state_at(at - 1).duplicated < worst.duplicated, "earliest instant");
        }
    }
}

#[test]
fn synchronous_loops_never_lose() {
    // SPEC §3: without the pool, every strategy commits only work the loop finished.
    for strategy in CommitStrategy::ALL {
        let run = simulate(&Scenario { strategy, ..Scenario::default() }).unwrap();
        assert_eq!(run.worst().lost, 0, "{strategy:?}");
    }
}
