//! A deterministic simulator of Kafka consumer offset commits for one partition
//! (`orders-3`): the model of `SPEC.md` §§1–7.
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
//!    O(log events). The crash profile is never computed by re-running per instant;
//!    [`crash_state_brute_force`] does exactly that, as the reference the tests hold the
//!    fast path to.
//! 4. **Bounded.** [`Scenario::validate`] refuses a scenario estimated above
//!    [`scenario::MAX_EVENTS`] events, and every bad input with a message naming the key
//!    and its allowed range; nothing here panics on user input.
//!
//! The [`producer`] module models the producer side (SPEC §9): an idempotent producer's
//! retries, the leader's five-batch duplicate check, and the faults that defeat it.
//!
//! ```
//! use offset_window_sim::{simulate, Scenario};
//!
//! let run = simulate(&Scenario::default()).unwrap();
//! let at = run.state_at(8_200_000); // crash at 8.2 s
//! assert_eq!((at.position, at.durable, at.committed), (45, 40, 25));
//! assert_eq!((at.lost, at.duplicated), (0, 15));
//! assert_eq!(run.worst().duplicated, 25);
//! ```

#![forbid(unsafe_code)]

pub mod compare;
mod engine;
pub mod producer;
pub mod scenario;
pub mod timeline;

pub use scenario::{Client, Scenario, ScenarioError, Strategy};
pub use timeline::{
    CommitFailure, CrashState, Mark, MarkKind, ProfileStep, Run, ScriptReading, Step, Summary, Worst,
};

use engine::Engine;
use timeline::Recorder;

/// Runs `scenario` over [0, horizon] and records its lines, marks and crash profile.
///
/// Errors: the scenario's own [`Scenario::validate`] error (a key out of range, too many
/// events, …).
pub fn simulate(scenario: &Scenario) -> Result<Run, ScenarioError> {
    scenario.validate()?;
    let mut engine = Engine::new(scenario);
    let mut recorder = Recorder::new(&engine);
    engine.run(scenario.horizon_us + 1, Some(&mut recorder))?;
    engine.end_script_step();
    let script = scenario.script.as_ref().map(|steps| {
        engine
            .script_records
            .iter()
            .map(|r| {
                // Read the committed offset once the step's own commits have landed.
                let resolved = r.commits.iter().filter_map(|&id| engine.commit_resolved_us[id]);
                let read_at_us = resolved.fold(r.ended_at_us, u64::max);
                let committed = engine
                    .first_commit_landed_us
                    .filter(|&first| first <= read_at_us)
                    .map(|_| timeline::value_at(&recorder.committed, read_at_us + 1));
                ScriptReading {
                    step: steps[r.step].text(),
                    ended_at_us: r.ended_at_us,
                    position: r.position,
                    committed,
                }
            })
            .collect()
    });
    Ok(Run {
        scenario: scenario.clone(),
        position: recorder.position,
        durable_frontier: recorder.durable_frontier,
        committed: recorder.committed,
        profile: recorder.profile,
        marks: recorder.marks,
        blocked_on_commits_us: engine.blocked_on_commits_us,
        polls: engine.polls,
        commits_landed: engine.commits_landed,
        closed_at_us: engine.closed_at_us,
        script,
    })
}

/// SPEC §5 with k(o) runs per offset: lost = #{o < c : k(o) = 0}; duplicated =
/// Σ_{o < c} max(0, k(o) − 1) + Σ_{o ≥ c} k(o). Offsets past `runs` have never run.
pub(crate) fn count_lost_and_duplicated(runs: &[u32], committed: u64) -> (u64, u64) {
    let (mut lost, mut duplicated) = (committed.saturating_sub(runs.len() as u64), 0);
    for (offset, &k) in runs.iter().enumerate() {
        let k = k as u64;
        if (offset as u64) < committed {
            lost += u64::from(k == 0);
            duplicated += k.saturating_sub(1);
        } else {
            duplicated += k;
        }
    }
    (lost, duplicated)
}

/// The crash at `crash_at_us` computed the slow, obvious way: run the engine until just
/// before that instant, then count lost and duplicated offset by offset from the raw runs
/// (SPEC §5). The reference for [`Run::state_at`] in tests and benchmarks.
///
/// Errors: as [`simulate`].
pub fn crash_state_brute_force(scenario: &Scenario, crash_at_us: u64) -> Result<CrashState, ScenarioError> {
    scenario.validate()?;
    let mut engine = Engine::new(scenario);
    engine.run(crash_at_us, None)?;
    let committed = engine.committed;
    let (lost, duplicated) = count_lost_and_duplicated(&engine.runs, committed);
    let durable = engine.runs.iter().position(|&k| k == 0).unwrap_or(engine.runs.len()) as u64;
    Ok(CrashState {
        crash_at_us,
        position: engine.position,
        durable,
        committed,
        lost,
        duplicated,
        reread: engine.position.saturating_sub(committed),
    })
}
