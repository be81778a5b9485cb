//! What the group page computes away from its own wasm, in its worker module
//! (crates/group-worker, run in a Web Worker by `web/group-worker.js`): the table of every
//! protocol and assignor, and the sweep of the first event's instant (docs/model.md §10.7).
//! Each takes the page's scenario as its link (`url::scenario_fragment`), reads it as the
//! page does (`url::state_from`) and hands back what the page shows: the table as HTML, the
//! sweep as [`GroupProfile::to_flat`]'s numbers.

use super::tables::group_table_html;
use super::url::state_from;
use offset_window_sim::compare::compare_group_left_out;
use offset_window_sim::sweep::{first_event, first_event_profile, with_first_event_at};
use offset_window_sim::Scenario;

/// The scenario the sweep of `s` runs on: `s` with its first event at 1 µs, so that moving
/// that event asks for no new sweep; `None` for a share group or a group without events.
pub fn sweep_key(s: &Scenario) -> Option<Scenario> {
    if s.share_group() {
        return None;
    }
    let index = first_event(s)?;
    Some(with_first_event_at(s, index, 1))
}

/// The group comparison of the scenario that the link `scenario` describes, as
/// [`group_table_html`]; empty for a share group, or a scenario the core refuses whole.
pub fn table_for_link(scenario: &str) -> String {
    let s = state_from(scenario).scenario;
    if s.share_group() {
        return String::new();
    }
    compare_group_left_out(&s)
        .map(|(rows, left_out)| group_table_html(&rows, &left_out, &s))
        .unwrap_or_default()
}

/// The sweep of the first event of the scenario that the link `scenario` describes (the
/// page sends its [`sweep_key`]'s link), as [`offset_window_sim::report::GroupProfile::to_flat`]'s
/// numbers; empty when there is no sweep (a share group, no events, a refused scenario).
pub fn sweep_for_link(scenario: &str) -> Vec<u64> {
    let s = state_from(scenario).scenario;
    match sweep_key(&s).map(|key| first_event_profile(&key)) {
        Some(Ok(Some(profile))) => profile.to_flat(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::presets::{input, PRESETS};
    use crate::group::url::scenario_fragment;
    use offset_window_sim::report::GroupProfile;

    fn presets() -> (Vec<Scenario>, Vec<Scenario>) {
        let scenarios: Vec<Scenario> = (0..PRESETS.len()).filter_map(input).map(|i| i.scenario).collect();
        assert!(scenarios.len() > 20, "the presets are in native builds");
        scenarios.into_iter().partition(|s| s.share_group())
    }

    #[test]
    fn the_table_from_the_pages_link_is_the_table_of_the_page() {
        // Every consumer group preset, and one with a worker pool (a refused row).
        let pool = Scenario { worker_pool: true, ..crate::group::state::default_scenario() };
        let (share, groups) = presets();
        for s in groups.into_iter().chain([pool]) {
            let (rows, left_out) = compare_group_left_out(&s).unwrap();
            let link = scenario_fragment(&s);
            let back = state_from(&link);
            assert_eq!(back.scenario, s, "{link} {:?}", back.notices);
            assert_eq!(table_for_link(&link), group_table_html(&rows, &left_out, &s), "{link}");
        }
        for s in share {
            assert_eq!(table_for_link(&scenario_fragment(&s)), "");
        }
    }

    #[test]
    fn the_sweep_from_the_key_s_link_is_the_sweep_of_the_page() {
        // Every consumer group preset with events: the link of its sweep key (the first event
        // at 1 µs) reads back as that key, and the worker's numbers are its profile.
        let (share, groups) = presets();
        let mut swept = 0;
        for s in groups {
            let Some(key) = sweep_key(&s) else {
                assert_eq!(sweep_for_link(&scenario_fragment(&s)), Vec::<u64>::new());
                continue;
            };
            let link = scenario_fragment(&key);
            assert_eq!(state_from(&link).scenario, key, "{link}");
            let want = first_event_profile(&key).unwrap().unwrap();
            let flat = sweep_for_link(&link);
            assert_eq!(GroupProfile::from_flat(&flat), Some(want), "{link}");
            swept += 1;
        }
        assert!(swept >= 10, "{swept} presets swept");
        for s in share {
            assert_eq!(sweep_for_link(&scenario_fragment(&s)), Vec::<u64>::new());
        }
    }

    #[test]
    fn a_profile_goes_through_its_numbers_and_back() {
        let key = sweep_key(&crate::group::state::default_scenario()).unwrap();
        let profile = first_event_profile(&key).unwrap().unwrap();
        assert_eq!(GroupProfile::from_flat(&profile.to_flat()), Some(profile.clone()));
        let none = GroupProfile { worst_lost: (0, None), thinned: true, ..profile };
        assert_eq!(GroupProfile::from_flat(&none.to_flat()), Some(none.clone()));
        // What to_flat cannot have written.
        let flat = none.to_flat();
        assert_eq!(GroupProfile::from_flat(&flat[..6]), None);
        assert_eq!(GroupProfile::from_flat(&flat[..flat.len() - 1]), None);
        let mut thinned = flat.clone();
        thinned[2] = 2;
        assert_eq!(GroupProfile::from_flat(&thinned), None);
    }
}
