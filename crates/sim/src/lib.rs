//! A deterministic simulator of Kafka consumer offset commits: the model written down in
//! `docs/model.md`, one consumer on one partition (`orders-3`), its commits, crashes,
//! closes and restarts.
//!
//! It answers one question: if the consumer process dies at instant T, how many records
//! are lost (committed but never processed) and how many are processed twice (processed
//! but not committed)? It tracks three lines over simulated time — the **position** (what
//! `poll()` has handed out), the **durable frontier** (records whose side effect has
//! landed) and the **committed offset** — and the crash profile lost(T), duplicated(T).
//!
//! # What this crate promises
//!
//! 1. **Pure.** No I/O, no clock, no threads, no global RNG: a [`Run`] is a function of
//!    its [`Scenario`] alone, bit-identical on every platform (native and wasm32).
//! 2. **Integer time.** Every instant is a `u64` of microseconds (`*_us`); milliseconds
//!    appear only at the JSON edge, converted exactly ([`scenario::parse_millis`]).
//! 3. **One pass.** [`simulate`] steps through the events once and records everything a
//!    chart and a crash slider need; [`Run::state_at`] then reads any crash instant in
//!    O(log events). The crash instant is a query on the run, never part of the scenario.
//!    The crash profile is never computed by re-running per instant;
//!    [`crash_state_brute_force`] does exactly that, as the reference the tests hold the
//!    fast path to.
//! 4. **Bounded.** [`Scenario::validate`] refuses a scenario estimated above
//!    [`scenario::MAX_EVENTS`] events, and every bad input with a message naming the key
//!    and its allowed range; nothing here panics on user input. Memory and time grow with
//!    events, never with offset values: a log end of 10^12 costs what a log end of 10 does.
//!
//! # How it is built
//!
//! Data flows one way: [`Scenario`] → the engine (`engine`, sans-IO: state split by Kafka
//! entity — members, coordinator, partitions — stepping a queue of timed events) → typed
//! outputs (`output`, with the `Sink` they go to) → the recorder
//! (`recorder`) → [`Run`] ([`timeline`]) → the result JSON ([`summary`]). The engine never
//! sees the recorder and the recorder never sees the engine. No module imports one that
//! imports it back (`crates/view/tests/structure.rs` checks it): a name two modules need
//! sits in the lower one.
//!
//! Consumer groups (model.md §10) and share groups (§11), with their reports (`report`,
//! `share_report`, `sweep`), come with the `group` feature, on by default. Without it the
//! crate runs the one-consumer model only and refuses a group or share scenario with a
//! message naming the key ([`Scenario::validate`]): the one-consumer page builds it so.
//!
//! The [`producer`] module models the producer side (model.md §9): an idempotent
//! producer's retries, the leader's five-batch duplicate check, and the faults that defeat it.
//!
//! The [`transactions`] module puts transactions into the partition log (model.md §13): markers
//! that take offsets, the last stable offset, the coordinator's timeout abort, and what each
//! client's `read_committed` and `read_uncommitted` readers are handed, commit and lag.
//!
//! ```
//! use offset_window_sim::{simulate, Scenario};
//!
//! let run = simulate(&Scenario::default()).unwrap();
//! let at = run.state_at(8_200_000); // crash at 8.2 s
//! assert_eq!((at.position, at.durable, at.committed), (Some(45), 40, Some(25)));
//! assert_eq!((at.lost, at.duplicated), (0, 15));
//! assert_eq!(run.worst().duplicated, 25);
//! ```

#![forbid(unsafe_code)]

mod broken;
mod clients;
pub mod compare;
mod engine;
pub mod events;
pub mod keys;
mod line;
mod mark_log;
mod output;
pub mod pipeline;
pub mod producer;
mod recorder;
#[cfg(feature = "group")]
pub mod report;
mod runs;
pub mod scenario;
#[cfg(feature = "group")]
pub mod share_report;
pub mod summary;
#[cfg(feature = "group")]
pub mod sweep;
pub mod timeline;
pub mod transactions;

pub use output::{CommitFailure, MarkKind};
pub use output::{MemberId, PartitionId};
pub use scenario::{Client, Input, Scenario, ScenarioError, Strategy};
pub use summary::Summary;
pub use timeline::{
    CrashOffsets, CrashState, Line, Mark, MarkLog, PartitionRun, ProfileStep, RampStep, Run, ScriptReading,
    Step, Worst,
};

use engine::Engine;
use output::{Output, Sink};
use recorder::Recorder;
use std::collections::BTreeMap;

/// Runs `scenario` over [0, horizon] and records its lines, marks and crash profile.
///
/// Errors: the scenario's own [`Scenario::validate`] error (a key out of range, too many
/// events, …).
pub fn simulate(scenario: &Scenario) -> Result<Run, ScenarioError> {
    run_engine(scenario, |engine| engine)
}

/// The result JSON of `scenario` for a crash at `crash_at_us`: exactly
/// `simulate(scenario)?.summary_at(crash_at_us)`, but a consumer group's run keeps only the
/// instants of its marks, all its sweep reads (S-B's 3.3 million marks take 105 MB).
///
/// Errors: as [`simulate`].
pub fn summarize(scenario: &Scenario, crash_at_us: u64) -> Result<Summary, ScenarioError> {
    #[cfg(feature = "group")]
    if scenario.group_mode() {
        scenario.validate()?;
        let stop_us = scenario.horizon_us + 1;
        let mut recorder = Recorder::for_group_summary(scenario);
        let engine = Engine::new(scenario, &mut recorder).with_event_bound(scenario.events_bound());
        run_to(engine, &mut recorder, stop_us)?;
        let instants = recorder.mark_instants();
        return Ok(recorder.into_run().summary_with(crash_at_us, Some(&instants)));
    }
    Ok(simulate(scenario)?.summary_at(crash_at_us))
}

/// [`simulate`] with a say in how the engine runs (the tests switch its fast path off).
fn run_engine(scenario: &Scenario, setup: impl FnOnce(Engine) -> Engine) -> Result<Run, ScenarioError> {
    scenario.validate()?;
    scenario.check_events(scenario::MAX_EVENTS)?;
    let stop_us = scenario.horizon_us + 1;
    let mut recorder = Recorder::new(scenario, scenario.partitions as usize);
    let engine = setup(Engine::new(scenario, &mut recorder));
    run_to(engine, &mut recorder, stop_us)?;
    Ok(recorder.into_run())
}

/// Runs `engine` from where it is to `stop_us`, `recorder` closing each instant, then ends
/// the run there.
///
/// Errors: the run's first refused group event ([`simulate`]).
pub(crate) fn run_to(mut engine: Engine, recorder: &mut Recorder, stop_us: u64) -> Result<(), ScenarioError> {
    while let Some(at_us) = engine.advance(stop_us, recorder)? {
        recorder.end_of_instant(at_us);
    }
    engine.finish(stop_us, recorder);
    Ok(())
}

/// The crash at `crash_at_us` in the first partition computed the slow, obvious way: run
/// the engine until just before that instant, then count lost and duplicated offset by
/// offset from the raw runs (model.md §5). The reference for [`Run::state_at`] in tests and
/// benchmarks.
///
/// Errors: as [`simulate`].
pub fn crash_state_brute_force(scenario: &Scenario, crash_at_us: u64) -> Result<CrashState, ScenarioError> {
    scenario.validate()?;
    let mut count = BruteForce::default();
    let mut engine = Engine::new(scenario, &mut count);
    while engine.advance(crash_at_us, &mut count)?.is_some() {}
    let BruteForce { position, committed, runs } = count;
    // Offsets below the log start count as run once; the rest as often as they ran. A
    // restart never begins below the log start (model.md §8.9).
    let start = scenario.log_start_offset;
    let c = scenario.restart_offset(committed, crash_at_us);
    let run_below_c = runs.range(start..c).count() as u64;
    let lost = c - start - run_below_c;
    let duplicated =
        runs.range(..c).map(|(_, &k)| k - 1).sum::<u64>() + runs.range(c..).map(|(_, &k)| k).sum::<u64>();
    let mut durable = start;
    while runs.contains_key(&durable) {
        durable += 1;
    }
    Ok(CrashState {
        crash_at_us,
        position,
        durable,
        committed,
        lost,
        duplicated,
        reread: position.map_or(0, |p| p.saturating_sub(c)),
    })
}

/// The brute force's view of the first partition: position, committed offset, and every
/// completed run, counted offset by offset.
#[derive(Default)]
struct BruteForce {
    position: Option<u64>,
    committed: Option<u64>,
    runs: BTreeMap<u64, u64>,
}

impl Sink for BruteForce {
    fn emit(&mut self, _at_us: u64, output: Output) {
        match output {
            Output::Position { partition: 0, position } => self.position = position,
            Output::Committed { partition: 0, offset } => self.committed = offset,
            Output::RunCompleted { partition: 0, offset, .. } => *self.runs.entry(offset).or_default() += 1,
            _ => {}
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::scenario::{Jitter, OffsetReset};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// The loop's fast path (a record finishing mid-batch goes straight to the next)
        /// gives exactly the run the step machine gives.
        #[test]
        fn the_fast_path_changes_nothing(
            (mpr, processing_us, latency_us, interval_us) in (1u32..=20, 1u64..=300_000, 0u64..=40_000, 1_000u64..=3_000_000),
            (strategy, client, jitter, seed) in (0usize..crate::Strategy::ALL.len(), 0usize..Client::ALL.len(), 0usize..3, any::<u64>()),
            (close_at_us, downtime_us, log_end, rate) in (proptest::option::of(1u64..=5_000_000), proptest::option::of(0u64..=2_000_000), 0u64..=300, 0u64..=20),
            (poll_interval_us, failures, earliest) in (proptest::option::of(50_000u64..=2_000_000), proptest::collection::vec(1u64..=10, 0..3), any::<bool>()),
        ) {
            let scenario = Scenario {
                max_poll_records: mpr,
                record_processing_us: processing_us,
                commit_latency_us: latency_us,
                auto_commit_interval_us: interval_us,
                strategy: crate::Strategy::ALL[strategy],
                client: Client::ALL[client],
                record_processing_jitter: Jitter::ALL[jitter],
                seed,
                close_at_us,
                downtime_us: downtime_us.filter(|_| close_at_us.is_some()),
                log_end_offset: log_end,
                produce_rate_milli_per_s: rate * 1_000_000,
                max_poll_interval_us: poll_interval_us.unwrap_or(300_000_000),
                commit_failures: failures,
                auto_offset_reset: if earliest { OffsetReset::Earliest } else { OffsetReset::Latest },
                horizon_us: 6_000_000,
                ..Scenario::default()
            };
            prop_assume!(scenario.validate().is_ok());
            let slow = run_engine(&scenario, |engine| engine.without_fast_path());
            prop_assert_eq!(simulate(&scenario), slow);
        }

        /// The same in a consumer group, whose members lose partitions, hang and restart
        /// between their records; and the sweep's light recorder, which lists no handovers,
        /// gives the group's totals as the full one.
        #[cfg(feature = "group")]
        #[test]
        fn the_fast_path_changes_nothing_in_a_group(
            (members, partitions, strategy, client, mpr) in (1u32..=4, 1u32..=6, 0usize..crate::Strategy::ALL.len(), 0usize..Client::ALL.len(), 1u32..=20),
            (processing_us, assignor, jitter, seed, pool) in (1_000u64..=300_000, 0usize..crate::scenario::Assignor::ALL.len(), 0usize..3, any::<u64>(), any::<bool>()),
            events in proptest::collection::vec((0u64..=20_000, 1u16..=4, 0usize..crate::events::GroupEventKind::ALL.len(), any::<bool>(), proptest::option::of(0u64..=8_000)), 0..=3),
        ) {
            let group_events = drawn_events(members, events);
            let scenario = Scenario {
                members,
                partitions,
                strategy: crate::Strategy::ALL[strategy],
                client: Client::ALL[client],
                assignment_strategy: crate::scenario::Assignor::ALL[assignor],
                max_poll_records: mpr,
                record_processing_us: processing_us,
                record_processing_jitter: Jitter::ALL[jitter],
                seed,
                worker_pool: pool,
                session_timeout_us: 10_000_000,
                max_poll_interval_us: 8_000_000,
                horizon_us: 40_000_000,
                group_events,
                ..Scenario::default()
            };
            prop_assume!(scenario.validate().is_ok());
            let slow = run_engine(&scenario, |engine| engine.without_fast_path());
            let run = simulate(&scenario);
            prop_assert_eq!(&run, &slow);
            // A run that stops on an error (an event aimed at a member that is down) has no report.
            prop_assume!(run.is_ok());
            let totals = run.unwrap().group.map(|report| (report.lost(), report.duplicated()));
            let mut light = Recorder::light(&scenario);
            let engine = Engine::new(&scenario, &mut light);
            run_to(engine, &mut light, scenario.horizon_us + 1).unwrap();
            prop_assert_eq!(light.into_group_totals(), totals);
        }
    }

    #[cfg(feature = "group")]
    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// The engine's batches (a poll's records as one loop event, settled when observed)
        /// give exactly the run of one event per record, in groups drawn to batch: fast-path
        /// strategies, constant durations on a coarse grid (members finishing records at the
        /// same instants), commits landing at once or not, any client and assignor, random
        /// group events; and the light recorder and `summarize` the same totals and result.
        #[test]
        fn the_batches_change_nothing_in_a_group(
            (members, partitions, strategy, client, mpr) in (1u32..=5, 1u32..=8, 0usize..5, 0usize..Client::ALL.len(), 1u32..=12),
            (processing_ms, latency_ms, assignor, interval_ms, static_members) in (1u64..=4, 0u64..=3, 0usize..crate::scenario::Assignor::ALL.len(), 1u64..=6, any::<bool>()),
            (heartbeat_ms, earliest, crash_at_ms) in (1u64..=4, any::<bool>(), 1u64..=30_000),
            events in proptest::collection::vec((0u64..=20_000, 1u16..=5, 0usize..crate::events::GroupEventKind::ALL.len(), any::<bool>(), proptest::option::of(0u64..=8_000)), 0..=3),
        ) {
            use crate::Strategy::*;
            let strategies = [AutoCommit, AutoCommitBackground, StoreOffsetsAfterProcessing, CommitSyncBatch, CommitAsyncBatch];
            let scenario = Scenario {
                strategy: strategies[strategy],
                client: Client::ALL[client],
                assignment_strategy: crate::scenario::Assignor::ALL[assignor],
                static_membership: static_members,
                record_processing_us: processing_ms * 50_000,
                commit_latency_us: latency_ms * 50_000,
                auto_commit_interval_us: interval_ms * 500_000,
                heartbeat_interval_us: heartbeat_ms * 500_000,
                auto_offset_reset: if earliest { OffsetReset::Earliest } else { OffsetReset::Latest },
                group_events: drawn_events(members, events),
                ..on_the_batch_grid(members, partitions, mpr)
            };
            prop_assume!(scenario.validate().is_ok());
            let reference = run_engine(&scenario, |engine| engine.without_fast_path());
            let unbatched = run_engine(&scenario, |engine| engine.without_batches());
            let run = simulate(&scenario);
            prop_assert_eq!(&run, &reference);
            prop_assert_eq!(&unbatched, &reference);
            prop_assume!(run.is_ok());
            let run = run.unwrap();
            let crash_at_us = crash_at_ms * 1_000;
            prop_assert_eq!(summarize(&scenario, crash_at_us), Ok(run.summary_at(crash_at_us)));
            let totals = run.group.as_ref().map(|report| (report.lost(), report.duplicated()));
            let mut light = Recorder::light(&scenario);
            let engine = Engine::new(&scenario, &mut light);
            run_to(engine, &mut light, scenario.horizon_us + 1).unwrap();
            prop_assert_eq!(light.into_group_totals(), totals);
            prop_assert_eq!(crash_state_brute_force(&scenario, crash_at_us), Ok(run.state_at(crash_at_us)));
        }
    }

    /// A group whose times are multiples of 50 ms (members finishing records at the same
    /// instants, the engine's batches meeting each other's outputs): 50 ms records and commits,
    /// auto-commits and heartbeats every 500 ms, 30 s; the batches' tests vary it.
    #[cfg(feature = "group")]
    fn on_the_batch_grid(members: u32, partitions: u32, max_poll_records: u32) -> Scenario {
        Scenario {
            members,
            partitions,
            max_poll_records,
            record_processing_us: 50_000,
            commit_latency_us: 50_000,
            auto_commit_interval_us: 500_000,
            heartbeat_interval_us: 500_000,
            session_timeout_us: 10_000_000,
            max_poll_interval_us: 8_000_000,
            horizon_us: 30_000_000,
            ..Scenario::default()
        }
    }

    /// The group events the property tests draw: (instant ms, member, kind's index, an abrupt
    /// shutdown, restart after ms), a join naming the next new member, others a member there.
    #[cfg(feature = "group")]
    fn drawn_events(
        members: u32,
        events: impl IntoIterator<Item = (u64, u16, usize, bool, Option<u64>)>,
    ) -> Vec<crate::events::GroupEvent> {
        use crate::events::{GroupEvent, GroupEventKind, ShutdownMode};
        let mut joins = members as u16;
        events
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
                    restart_after_us: restart_ms.map(|ms| ms * 1_000),
                    duration_us: 5_000_000,
                    deploy_step_us: 3_000_000,
                    ..GroupEvent::new(at_ms * 1_000, member, kind)
                }
            })
            .collect()
    }

    /// Every mark the recorder takes in, in the order it takes them in: what [`Run::marks`]
    /// must give back however it keeps them.
    #[cfg(feature = "group")]
    struct MarksSeen<'a> {
        recorder: Recorder<'a>,
        marks: Vec<Mark>,
    }

    #[cfg(feature = "group")]
    impl Sink for MarksSeen<'_> {
        fn emit(&mut self, at_us: u64, output: Output) {
            match output {
                Output::Mark { member, partition, kind } => {
                    self.marks.push(Mark { at_us, member, partition, kind })
                }
                Output::RunCompleted { member, partition, offset, .. } => self.marks.push(Mark {
                    at_us,
                    member,
                    partition,
                    kind: MarkKind::RecordDurable { offset },
                }),
                _ => {}
            }
            self.recorder.emit(at_us, output);
        }

        fn event(&mut self, key: crate::output::EventKey) {
            self.recorder.event(key);
        }
    }

    /// `scenario`'s run with the marks as they came; `None` when it stops on an error.
    #[cfg(feature = "group")]
    fn run_and_marks(scenario: &Scenario) -> Option<(Run, Vec<Mark>)> {
        let stop_us = scenario.horizon_us + 1;
        let mut seen =
            MarksSeen { recorder: Recorder::new(scenario, scenario.partitions as usize), marks: Vec::new() };
        // Each record its own event: the marks come in in their order.
        let mut engine = Engine::new(scenario, &mut seen).without_batches();
        while let Some(at_us) = engine.advance(stop_us, &mut seen).ok()? {
            seen.recorder.end_of_instant(at_us);
        }
        engine.finish(stop_us, &mut seen);
        Some((seen.recorder.into_run(), seen.marks))
    }

    #[cfg(feature = "group")]
    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// A group's members finish records at the same microseconds (in step from t = 0):
        /// the marks kept as ramps come back exactly as they came, in order, and the lines
        /// kept as ramps read as the run's own steps.
        #[test]
        fn the_marks_and_lines_kept_as_ramps_are_the_runs(
            (members, partitions, strategy, client, mpr) in (1u32..=8, 1u32..=12, 0usize..crate::Strategy::ALL.len(), 0usize..Client::ALL.len(), 1u32..=20),
            (processing_ms, jitter, seed) in (1u64..=40, 0usize..3, any::<u64>()),
            events in proptest::collection::vec((0u64..=20_000, 1u16..=8, 0usize..crate::events::GroupEventKind::ALL.len(), proptest::option::of(0u64..=8_000)), 0..=3),
        ) {
            let events = events.into_iter().map(|(at_ms, member, kind, restart_ms)| (at_ms, member, kind, false, restart_ms));
            let group_events = drawn_events(members, events);
            let scenario = Scenario {
                members,
                partitions,
                strategy: crate::Strategy::ALL[strategy],
                client: Client::ALL[client],
                max_poll_records: mpr,
                record_processing_us: processing_ms * 1_000,
                record_processing_jitter: Jitter::ALL[jitter],
                seed,
                horizon_us: 40_000_000,
                group_events,
                ..Scenario::default()
            };
            prop_assume!(scenario.validate().is_ok());
            let Some((run, marks)) = run_and_marks(&scenario) else { return Ok(()) };
            prop_assert_eq!(run.marks.len(), marks.len());
            prop_assert!(run.marks.marks().eq(marks.iter().copied()), "the marks as they came");
            prop_assert_eq!(&*run.marks, &marks[..]);
            let others = marks.iter().copied().filter(|m| !matches!(m.kind, MarkKind::RecordDurable { .. }));
            prop_assert!(run.marks.other_than_records().eq(others));
            for p in &run.partitions {
                let (durable, profile) = (p.durable_frontier.steps().collect::<Vec<_>>(), p.profile.steps().collect::<Vec<_>>());
                prop_assert_eq!(&*p.durable_frontier, &durable[..]);
                prop_assert_eq!(Line::from(durable), p.durable_frontier.clone());
                prop_assert_eq!(Line::from(profile), p.profile.clone());
                // Read at instants on and between steps, as the slice of every step reads.
                for at_us in (0..=scenario.horizon_us + 1).step_by(123_457) {
                    let durable = p.durable_frontier.iter().rev().find(|s| s.at_us < at_us).copied();
                    prop_assert_eq!(p.durable_frontier.last_before(at_us), durable);
                    let profile = p.profile.iter().rev().find(|s| s.at_us < at_us).copied();
                    prop_assert_eq!(p.profile.last_before(at_us), profile);
                }
            }
        }
    }

    /// A batch's record at the instant a commit lands on its partition (the commit's response
    /// handled first, its loop event after): the instant's steps wait for the record, settled
    /// after the instant (found by `the_batches_change_nothing_in_a_group`).
    #[cfg(feature = "group")]
    #[test]
    fn a_batch_record_settled_after_its_instant_keeps_the_instant_one_step() {
        let scenario = on_the_batch_grid(1, 1, 2);
        let reference = run_engine(&scenario, |engine| engine.without_fast_path());
        assert_eq!(simulate(&scenario), reference);
    }

    /// A member hung past its session keeps running the records in hand of a partition the
    /// group gave another member; the other member's poll that takes it settles them first
    /// (its pending assignment is in its reach; found by `the_batches_change_nothing_in_a_group`
    /// in the sweep of the first hang).
    #[cfg(feature = "group")]
    #[test]
    fn a_member_taking_a_partition_settles_the_batch_another_runs_there() {
        let scenario = Scenario {
            group_events: drawn_events(2, [(0, 2, 1, false, None), (3301, 2, 1, false, None)]),
            ..on_the_batch_grid(2, 2, 6)
        };
        let reference = run_engine(&scenario, |engine| engine.without_fast_path()).unwrap();
        assert_eq!(simulate(&scenario).as_ref(), Ok(&reference));
        assert_eq!(summarize(&scenario, 1_000), Ok(reference.summary_at(1_000)));
    }

    /// The fast path gives exactly the step machine's run for every scenario file, and
    /// [`summarize`] the result JSON of that run.
    #[test]
    fn the_fast_path_changes_nothing_in_the_scenario_files() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
        let mut compared = 0;
        for entry in std::fs::read_dir(dir).expect("the scenarios folder") {
            let path = entry.expect("a file").path();
            let text = std::fs::read_to_string(&path).expect("a readable file");
            let file: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            let Some(scenario) = file.get("scenario") else { continue };
            let Ok(Input { scenario, crash_at_us }) = Input::from_json(&scenario.to_string()) else {
                continue;
            };
            if scenario.validate().is_err() || scenario.estimated_events() > 1_000_000 {
                continue;
            }
            let slow = run_engine(&scenario, |engine| engine.without_fast_path());
            assert_eq!(simulate(&scenario), slow, "{}", path.display());
            let summary = slow.map(|run| run.summary_at(crash_at_us));
            assert_eq!(summarize(&scenario, crash_at_us), summary, "{}", path.display());
            compared += 1;
        }
        assert!(compared > 50, "{compared} scenario files compared");
    }
}
