//! The sweep of the first group event's instant (model.md §10.7) against the brute force,
//! and large groups (issue 28's sizes) against the report's own sums and ranges.
#![cfg(all(feature = "group", not(target_arch = "wasm32")))]

mod common;

use offset_window_sim::events::{GroupEvent, GroupEventKind};
use offset_window_sim::sweep::{first_event, first_event_profile, with_first_event_at};
use offset_window_sim::{simulate, Client, Scenario};
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
    common::random_groups(common::Bounds {
        partitions: 8,
        processing_us: 50_000..=400_000,
        events: 1..=3,
        event_at_ms: 12_000,
        event_member: 4,
        restart_ms: 6_000,
        hang_ms: 5_000,
        deploy_step_ms: 3_000,
        session_ms: 6_000,
        poll_interval_ms: 20_000,
        horizon_ms: 15_000,
        on_revoke: false,
    })
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// The result JSON (`summarize`: a run that keeps the first partition's lines only, and
    /// of the marks only their instants, and those only for a sweep) is the run's.
    #[test]
    fn the_result_json_is_the_runs(scenario in small_groups(), events in 0usize..=1) {
        let scenario = Scenario { group_events: scenario.group_events[..events.min(scenario.group_events.len())].to_vec(), ..scenario };
        let Ok(run) = simulate(&scenario) else { return Ok(()) };
        let crash_at_us = scenario.horizon_us / 2;
        prop_assert_eq!(offset_window_sim::summarize(&scenario, crash_at_us), Ok(run.summary_at(crash_at_us)));
    }
}

/// Random groups of S-A's size/// Random groups of S-A's size (64–128 members, 512–1024 partitions, a rolling deploy or a
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

/// The sweep read at any instant: its point at the latest instant evaluated at or before it.
/// On G1 (one crash, unthinned) that is the run's own totals at the instants tried.
#[test]
fn a_profile_read_at_an_instant_is_its_point_at_or_before_it() {
    let g1 = Scenario {
        partitions: 2,
        members: 2,
        horizon_us: 60_000 * MS,
        group_events: vec![GroupEvent::new(8_200 * MS, 2, GroupEventKind::Crash)],
        ..Scenario::default()
    };
    let profile = first_event_profile(&g1).unwrap().unwrap();
    assert!(!profile.thinned);
    assert_eq!(profile.at(0), None, "no point before the first instant, 1 µs");
    for (i, p) in profile.points.iter().enumerate() {
        assert_eq!(profile.at(p.at_us), Some(*p));
        if let Some(next) = profile.points.get(i + 1).filter(|n| n.at_us > p.at_us + 1) {
            assert_eq!(profile.at(next.at_us - 1), Some(*p));
        }
    }
    for at_us in [2_500_123, 8_200 * MS, 10_000_001, 33_333_333, 59_999_999] {
        let group = simulate(&with_first_event_at(&g1, 0, at_us)).unwrap().group.unwrap();
        let p = profile.at(at_us).unwrap();
        assert_eq!((p.lost, p.duplicated), (group.lost(), group.duplicated()), "{at_us}");
    }
}
