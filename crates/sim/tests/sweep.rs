//! The sweep of the first group event's instant (model.md §10.7) against the brute force,
//! and large groups (issue 28's sizes) against the report's own sums and ranges.
#![cfg(all(feature = "group", not(target_arch = "wasm32")))]

use offset_window_sim::events::{GroupEvent, GroupEventKind, ShutdownMode};
use offset_window_sim::scenario::Assignor;
use offset_window_sim::sweep::{first_event, first_event_profile, with_first_event_at};
use offset_window_sim::{simulate, Client, Scenario, Strategy as Commit};
use proptest::prelude::*;

const MS: u64 = 1_000;

/// The candidate instants the slow, obvious way: every mark instant of the run where the
/// event never happens and of the run itself, and 1 µs after each, in (0, horizon] (a run
/// that stops on an error gives none). The run where the event never happens is the
/// scenario without it, while that is still a group and valid; else (a `join` that later
/// events need, or the last event of one member on one partition) the run with the event
/// at the horizon, before the horizon.
fn brute_force_candidates(scenario: &Scenario, index: usize) -> Vec<u64> {
    let horizon = scenario.horizon_us;
    let mut without = scenario.clone();
    without.group_events.remove(index);
    let mut instants = vec![1, horizon];
    if without.group_mode() && without.validate().is_ok() {
        if let Ok(run) = simulate(&without) {
            instants.extend(run.marks.iter().map(|m| m.at_us));
        }
    } else if let Ok(run) = simulate(&with_first_event_at(scenario, index, horizon)) {
        instants.extend(run.marks.iter().map(|m| m.at_us).filter(|&t| t < horizon));
    }
    if let Ok(run) = simulate(scenario) {
        instants.extend(run.marks.iter().map(|m| m.at_us));
    }
    let mut candidates: Vec<u64> =
        instants.iter().flat_map(|&t| [t, t + 1]).filter(|&t| t > 0 && t <= horizon).collect();
    candidates.sort_unstable();
    candidates.dedup();
    candidates
}

/// Random small groups: 1–4 members, 1–8 partitions, every strategy, client and assignor,
/// one to three events of any kind.
fn small_groups() -> impl proptest::strategy::Strategy<Value = Scenario> {
    (
        (1u32..=4, 1u32..=8, 0usize..Commit::ALL.len(), 0usize..Client::ALL.len(), 0usize..3),
        (any::<bool>(), any::<bool>(), 1u32..=20, 50_000u64..=400_000),
        proptest::collection::vec(
            (0u64..=12_000, 1u16..=4, 0usize..5, any::<bool>(), proptest::option::of(0u64..=6_000)),
            1..=3,
        ),
    )
        .prop_map(
            |((members, partitions, strategy, client, assignor), (pool, fixed, mpr, processing), events)| {
                let client = Client::ALL[client];
                let strategy = match Commit::ALL[strategy] {
                    Commit::StoreOffsetsAfterProcessing if !client.is_librdkafka() => Commit::CommitSyncBatch,
                    s => s,
                };
                let mut joins = members as u16;
                let group_events = events
                    .into_iter()
                    .map(|(at_ms, member, kind, abrupt, restart_ms)| {
                        let kind = GroupEventKind::ALL[kind];
                        let member = if kind == GroupEventKind::Join {
                            joins += 1;
                            joins
                        } else {
                            member.min(members as u16)
                        };
                        GroupEvent {
                            shutdown_mode: if abrupt { ShutdownMode::Abrupt } else { ShutdownMode::Wakeup },
                            restart_after_us: restart_ms.map(|ms| ms * MS),
                            duration_us: 5_000 * MS,
                            deploy_step_us: 3_000 * MS,
                            ..GroupEvent::new(at_ms * MS, member, kind)
                        }
                    })
                    .collect();
                Scenario {
                    members,
                    partitions,
                    strategy,
                    client,
                    assignment_strategy: Assignor::ALL[assignor],
                    worker_pool: pool && strategy != Commit::Transactional,
                    static_membership: fixed,
                    max_poll_records: mpr,
                    record_processing_us: processing,
                    session_timeout_us: 6_000 * MS,
                    max_poll_interval_us: 20_000 * MS,
                    horizon_us: 15_000 * MS,
                    group_events,
                    ..Scenario::default()
                }
            },
        )
        .prop_filter("valid", |s| s.validate().is_ok())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Every point of the sweep is the run with the first event at that instant, run from
    /// t = 0; the sweep evaluates every candidate (none thinned at this size), so its worst
    /// instants are the unthinned scan's.
    #[test]
    fn the_sweep_equals_the_brute_force_scan(scenario in small_groups()) {
        let index = first_event(&scenario).unwrap();
        let profile = first_event_profile(&scenario).unwrap().unwrap();
        prop_assert!(!profile.thinned);
        let candidates = brute_force_candidates(&scenario, index);
        prop_assert_eq!(profile.candidates, candidates.len());
        let mut scan = Vec::new();
        for &at_us in &candidates {
            let Ok(run) = simulate(&with_first_event_at(&scenario, index, at_us)) else { continue };
            let group = run.group.unwrap();
            scan.push((at_us, group.lost(), group.duplicated()));
        }
        let points: Vec<_> = profile.points.iter().map(|p| (p.at_us, p.lost, p.duplicated)).collect();
        prop_assert_eq!(&points, &scan);
        let worst = |f: fn(&(u64, u64, u64)) -> u64| {
            let best = scan.iter().map(f).max().unwrap_or(0);
            (best, scan.iter().find(|p| best > 0 && f(p) == best).map(|p| p.0))
        };
        prop_assert_eq!(profile.worst_lost, worst(|p| p.1));
        prop_assert_eq!(profile.worst_duplicated, worst(|p| p.2));
    }
}

/// Random groups of S-A's size (64–128 members, 512–1024 partitions, a rolling deploy or a
/// crash): per-partition counts sum to the group's totals and to the handovers', and every
/// fraction lies in [0, 1].
#[test]
fn large_groups_add_up() {
    let mut seed = 28u64;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for _ in 0..3 {
        let members = 64 + next(65) as u32;
        let partitions = 512 + next(513) as u32;
        let event = if next(2) == 0 {
            GroupEvent {
                deploy_step_us: (1 + next(4)) * 1_000 * MS,
                restart_after_us: Some(2_000 * MS),
                ..GroupEvent::new((1 + next(20)) * 1_000 * MS, 1, GroupEventKind::Deploy)
            }
        } else {
            GroupEvent::new(
                (1 + next(20)) * 1_000 * MS,
                1 + next(members as u64) as u16,
                GroupEventKind::Crash,
            )
        };
        let scenario = Scenario {
            members,
            partitions,
            horizon_us: 60_000 * MS,
            group_events: vec![event],
            client: if next(2) == 0 { Client::JavaClassic } else { Client::JavaConsumerProtocol },
            ..Scenario::default()
        };
        let run = simulate(&scenario).unwrap();
        let summary = run.summary_at(scenario.horizon_us);
        let g = run.group.as_ref().unwrap();
        assert_eq!(g.partitions.len(), partitions as usize);
        let (lost, dup) = g.partitions.iter().fold((0, 0), |(l, d), p| (l + p.lost, d + p.duplicated));
        assert_eq!((lost, dup), (g.lost(), g.duplicated()), "{members} x {partitions}");
        let (hl, hd) = g.handovers.iter().fold((0, 0), |(l, d), h| (l + h.lost, d + h.duplicated));
        assert_eq!((hl, hd), (lost, dup), "the handovers add up");
        let fractions = std::iter::once(summary.blocked_on_commits)
            .chain(summary.group.as_ref().unwrap().members.iter().map(|m| m.blocked_on_commits));
        for f in fractions {
            assert!((0.0..=1.0).contains(&f), "a fraction {f} outside [0, 1]");
        }
        for p in &g.partitions {
            assert!(p.stalled_us <= scenario.horizon_us);
        }
    }
}
