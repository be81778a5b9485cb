//! The group view's slider (model.md §10.7): what the group loses and repeats as a function
//! of the instant T of its first event ("consumer-2 crashes at T").
//!
//! The candidate instants are those where the outcome can change: every instant with a mark
//! in the run where the event never happens (the *base* run: the event moved past the
//! horizon) or in the run itself, and 1 µs after each, within (0, horizon]; a run that stops
//! on an error (an event aimed at a member that is down then) gives none. Between two
//! consecutive candidates the group's state before T is the same, so the first event meets
//! the same group.
//!
//! Each candidate is evaluated exactly, but not as a run of its own from t = 0: the base run
//! and a run with the event at T agree on everything before T, so one walk through the base
//! run (with a recorder that keeps only the totals) reaches each candidate in turn, copies
//! the engine there, moves the event to T and runs only the rest. A candidate the base run
//! cannot reach (it stopped on an error: a later event aimed at a member that only the first
//! event brings) runs from t = 0. The sweep is planned in events, the unit of the event
//! estimate ([`Scenario::estimated_events`]), counted exactly by its first walk: the two
//! walks through the base run and each candidate's rest (the base run's events from T on; a
//! whole run for one it cannot reach) must fit [`SWEEP_EVENTS`]; when they do not, every
//! k-th candidate is evaluated, the smallest k that fits, and the profile says so
//! ([`GroupProfile::thinned`]).

use crate::engine::Engine;
use crate::events::GroupEvent;
use crate::recorder::Recorder;
use crate::scenario::{Scenario, ScenarioError};
use crate::timeline::Mark;

/// The estimated events a sweep may spend (its two walks through the base run and the rest
/// of the run after each candidate); beyond it the candidates are thinned.
pub const SWEEP_EVENTS: u64 = 3_000_000;

pub use crate::report::{GroupPoint, GroupProfile};

/// The index of the first event in time (the earliest `at_ms`, the first listed on a tie).
pub fn first_event(scenario: &Scenario) -> Option<usize> {
    (0..scenario.group_events.len()).min_by_key(|&i| (scenario.group_events[i].at_us, i))
}

/// `scenario` with its first event moved to `at_us` (a deploy moves as a whole).
pub fn with_first_event_at(scenario: &Scenario, index: usize, at_us: u64) -> Scenario {
    let mut moved = scenario.clone();
    moved.group_events[index] = GroupEvent { at_us, ..scenario.group_events[index] };
    moved
}

/// The profile of `scenario`'s first event; `None` without group events. Instants where the
/// moved scenario is refused (e.g. the event would reach a member that is down then) are
/// left out. Errors: the scenario's own validation error.
pub fn first_event_profile(scenario: &Scenario) -> Result<Option<GroupProfile>, ScenarioError> {
    profile(scenario, None)
}

/// As [`first_event_profile`], taking the run's own instants from its `marks` (the run of
/// `scenario` itself) instead of running it again.
pub fn first_event_profile_with_marks(
    scenario: &Scenario,
    marks: &[Mark],
) -> Result<Option<GroupProfile>, ScenarioError> {
    // The run's own instants, each once (its marks come in time order: a run of S-B has
    // 3.3 million of them, and sorting them was a tenth of `offset-window run`).
    let mut instants: Vec<u64> = Vec::new();
    for mark in marks {
        if instants.last() != Some(&mark.at_us) {
            instants.push(mark.at_us);
        }
    }
    profile(scenario, Some(ascending(instants)))
}

/// As [`first_event_profile_with_marks`], given the instants of the run's marks (ascending,
/// each once), as a recorder that keeps no marks collects them.
pub(crate) fn first_event_profile_with_instants(
    scenario: &Scenario,
    instants: &[u64],
) -> Result<Option<GroupProfile>, ScenarioError> {
    profile(scenario, Some(ascending(instants.to_vec())))
}

/// `values` in ascending order (they come so from a run, which this checks).
fn ascending(mut values: Vec<u64>) -> Vec<u64> {
    if !values.is_sorted() {
        crate::keys::sort_ascending(&mut values);
    }
    values
}

/// The values of `a` and `b` (each ascending), ascending, each once.
fn union_ascending(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut union = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let value = if j == b.len() || (i < a.len() && a[i] <= b[j]) {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        if union.last() != Some(&value) {
            union.push(value);
        }
    }
    union
}

/// A walk through a run with a light recorder.
struct Walk {
    /// The instants that had a mark.
    mark_instants: Vec<u64>,
    /// Every instant processed and the events processed up to and including it.
    events_by_instant: Vec<(u64, u64)>,
    /// The instant where the run stopped on an error, if it did.
    failed_at: Option<u64>,
}

impl Walk {
    /// Runs `scenario` (unvalidated).
    fn new(scenario: &Scenario) -> Walk {
        let stop_us = scenario.horizon_us + 1;
        let mut recorder = Recorder::light(scenario);
        // Every record its own event: the plan counts them.
        let mut engine = Engine::new(scenario, &mut recorder).without_batches();
        let mut events_by_instant = Vec::new();
        let mut failed_at = None;
        loop {
            let next = engine.next_instant();
            match engine.advance(stop_us, &mut recorder) {
                Ok(Some(at_us)) => {
                    recorder.end_of_instant(at_us);
                    events_by_instant.push((at_us, engine.events()));
                }
                Ok(None) => break,
                Err(_) => {
                    failed_at = next.or(Some(0));
                    break;
                }
            }
        }
        if failed_at.is_none() {
            engine.finish(stop_us, &mut recorder);
        }
        Walk { mark_instants: recorder.mark_instants(), events_by_instant, failed_at }
    }

    /// Events the run processed in all.
    fn events(&self) -> u64 {
        self.events_by_instant.last().map_or(0, |&(_, n)| n)
    }

    /// Events the run processed from `at_us` on.
    fn events_from(&self, at_us: u64) -> u64 {
        let before = self.events_by_instant.partition_point(|&(t, _)| t < at_us);
        let done = before.checked_sub(1).map_or(0, |i| self.events_by_instant[i].1);
        self.events() - done
    }
}

/// Runs `engine` and `recorder` from where they are to the horizon: the group's totals, or
/// `None` when the run stops on an error.
fn run_rest(engine: Engine, mut recorder: Recorder, stop_us: u64) -> Option<(u64, u64)> {
    crate::run_to(engine, &mut recorder, stop_us).ok()?;
    recorder.into_group_totals()
}

/// The group's totals when the first event (`index`) happens at `at_us`, run from t = 0.
fn run_fresh(moved: &Scenario) -> Option<(u64, u64)> {
    let mut recorder = Recorder::light(moved);
    let engine = Engine::new(moved, &mut recorder);
    run_rest(engine, recorder, moved.horizon_us + 1)
}

/// The profile; `own_instants`: the instants of the run's own marks (else it is walked).
fn profile(
    scenario: &Scenario,
    own_instants: Option<Vec<u64>>,
) -> Result<Option<GroupProfile>, ScenarioError> {
    scenario.validate()?;
    let Some(index) = first_event(scenario) else { return Ok(None) };
    let horizon = scenario.horizon_us;
    let stop_us = horizon + 1;
    let empty = |candidates| GroupProfile {
        event: index,
        points: Vec::new(),
        worst_lost: (0, None),
        worst_duplicated: (0, None),
        candidates,
        thinned: false,
    };
    if !scenario.group_mode() {
        return Ok(Some(empty(0))); // a share group reports no handovers
    }
    // The base run: the first event moved past the horizon, so it never happens.
    let base = with_first_event_at(scenario, index, stop_us);
    // A run that stops on an error gives no instants (as a run of its own gives no marks).
    let mut walk = Walk::new(&base);
    let base_failed_at = walk.failed_at;
    let base_instants = std::mem::take(&mut walk.mark_instants);
    let base_instants = if base_failed_at.is_none() { ascending(base_instants) } else { Vec::new() };
    let own_instants = match own_instants {
        Some(instants) => instants,
        None => {
            let own = Walk::new(scenario);
            if own.failed_at.is_none() {
                ascending(own.mark_instants)
            } else {
                Vec::new()
            }
        }
    };
    let mut instants = union_ascending(&union_ascending(&base_instants, &own_instants), &[1, horizon.max(1)]);
    instants.retain(|&t| t > 0 && t <= horizon);
    let after: Vec<u64> = instants.iter().map(|&t| t + 1).filter(|&t| t <= horizon).collect();
    let candidates = union_ascending(&instants, &after);

    // The plan: what each candidate costs in events (the base run's from T on, as the first
    // walk counted them; a whole run for one the base run cannot reach), and the smallest
    // stride that fits the budget left after the two walks.
    let whole = walk.events().max(1);
    let reachable = |at_us: u64| base_failed_at.is_none_or(|failed| at_us <= failed);
    let cost = |at_us: u64| if reachable(at_us) { walk.events_from(at_us) + 1 } else { whole };
    let budget = SWEEP_EVENTS.saturating_sub(2 * whole).max(whole);
    let fits = |stride: usize| {
        let mut total = 0u64;
        candidates.iter().step_by(stride).all(|&t| {
            total += cost(t);
            total <= budget
        })
    };
    let mut stride = 1;
    while stride < candidates.len() && !fits(stride) {
        stride += 1;
    }
    let thinned = stride > 1;

    // The walk through the base run, copying it at each candidate evaluated.
    let mut recorder = Recorder::light(&base);
    let mut engine = Engine::new(&base, &mut recorder);
    let mut base_ok = true;
    let mut points = Vec::new();
    for &at_us in candidates.iter().step_by(stride) {
        while base_ok && engine.next_instant().is_some_and(|t| t < at_us) {
            match engine.advance(stop_us, &mut recorder) {
                Ok(Some(t)) => recorder.end_of_instant(t),
                Ok(None) => break,
                Err(_) => base_ok = false,
            }
        }
        let moved = with_first_event_at(scenario, index, at_us);
        if moved.validate().is_err() {
            continue;
        }
        let totals = if base_ok && reachable(at_us) {
            let mut rest = engine.clone();
            let mut rest_recorder = recorder.clone();
            rest.move_group_event(&moved, index as u16);
            rest_recorder.set_scenario(&moved);
            run_rest(rest, rest_recorder, stop_us)
        } else {
            run_fresh(&moved)
        };
        if let Some((lost, duplicated)) = totals {
            points.push(GroupPoint { at_us, lost, duplicated });
        }
    }
    let worst = |value: fn(&GroupPoint) -> u64| {
        let best = points.iter().map(value).max().unwrap_or(0);
        (best, points.iter().find(|p| best > 0 && value(p) == best).map(|p| p.at_us))
    };
    Ok(Some(GroupProfile {
        worst_lost: worst(|p| p.lost),
        worst_duplicated: worst(|p| p.duplicated),
        points,
        thinned,
        ..empty(candidates.len())
    }))
}
