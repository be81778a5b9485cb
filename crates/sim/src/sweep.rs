//! The group view's slider (model.md §10.7): what the group loses and repeats as a function
//! of the instant T of its first event ("consumer-2 crashes at T"). T takes every event
//! instant of the run without that event, and 1 µs after each; each T is a run of its own
//! (the runs are small), so the number of instants is capped at [`MAX_INSTANTS`].

use crate::events::{GroupEvent, GroupEventKind};
use crate::scenario::{Scenario, ScenarioError};
use crate::simulate;
use serde::Serialize;

/// Most instants T a profile evaluates (each is one run); more are thinned out evenly.
pub const MAX_INSTANTS: usize = 300;

/// The group's total damage when the first event happens at `at_us`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GroupPoint {
    /// The first event's instant T, µs.
    pub at_us: u64,
    /// Records lost at the handovers, all partitions.
    pub lost: u64,
    /// Records processed again after the handovers, all partitions.
    pub duplicated: u64,
}

/// The damage as a function of the first event's instant, with its worst instants.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GroupProfile {
    /// The event moved: its index in `group_events`.
    pub event: usize,
    /// One point per instant evaluated, in time order.
    pub points: Vec<GroupPoint>,
    /// The largest `lost` and the earliest instant reaching it (`None` when it is 0).
    pub worst_lost: (u64, Option<u64>),
    /// The largest `duplicated` and the earliest instant reaching it (`None` when it is 0).
    pub worst_duplicated: (u64, Option<u64>),
}

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
    scenario.validate()?;
    let Some(index) = first_event(scenario) else { return Ok(None) };
    let horizon = scenario.horizon_us;
    // The event instants of the run without the event (a joining member's later events
    // need it, so those runs keep it), and of the run itself.
    let mut without = scenario.clone();
    if scenario.group_events[index].kind != GroupEventKind::Join {
        without.group_events.remove(index);
    }
    let mut instants: Vec<u64> = Vec::new();
    for s in [&without, scenario] {
        if let Ok(run) = simulate(s) {
            instants.extend(run.marks.iter().map(|m| m.at_us));
        }
    }
    instants.extend([1, horizon]);
    instants.retain(|&t| t > 0 && t <= horizon);
    instants.sort_unstable();
    instants.dedup();
    let stride = instants.len().div_ceil(MAX_INSTANTS / 2).max(1);
    let mut candidates: Vec<u64> =
        instants.iter().step_by(stride).flat_map(|&t| [t, t + 1]).filter(|&t| t <= horizon).collect();
    candidates.sort_unstable();
    candidates.dedup();
    let mut points = Vec::with_capacity(candidates.len());
    for at_us in candidates {
        let moved = with_first_event_at(scenario, index, at_us);
        let Ok(run) = simulate(&moved) else { continue };
        let Some(group) = run.group else { continue };
        points.push(GroupPoint { at_us, lost: group.lost(), duplicated: group.duplicated() });
    }
    let worst = |value: fn(&GroupPoint) -> u64| {
        let best = points.iter().map(value).max().unwrap_or(0);
        (best, points.iter().find(|p| best > 0 && value(p) == best).map(|p| p.at_us))
    };
    Ok(Some(GroupProfile {
        event: index,
        worst_lost: worst(|p| p.lost),
        worst_duplicated: worst(|p| p.duplicated),
        points,
    }))
}
