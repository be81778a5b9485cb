//! The page link of a scenario: which page shows it (the consumer page, or the group page
//! for a consumer or share group) and its URL fragment, written by that page's own encoder
//! (`consumer::url`, `group::url`), so that the page reads back exactly the scenario and
//! instant given. The runner's `import`, `check` and `mcp` print these links; the import
//! module (crates/import-page) puts them behind its "apply" link. Above the pages (it reads
//! both), so that no page imports another.

use crate::{consumer, group};
use offset_window_sim::scenario::DEFAULT_CRASH_AT_US;
use offset_window_sim::Scenario;

/// Whether the scenario is shown by the group page (a consumer or share group) rather than
/// the consumer page (one consumer on one partition).
pub fn on_group_page(scenario: &Scenario) -> bool {
    scenario.group_mode() || scenario.share_group()
}

/// The page's path below the pages' base (`""` or `"group/"`) and the URL fragment
/// (without `#`) of `scenario` read at `crash_at_us` (a consumer's crash, a share group's
/// crash; a consumer group has no crash instant of its own and ignores it).
pub fn path_and_fragment(scenario: &Scenario, crash_at_us: u64) -> (&'static str, String) {
    if on_group_page(scenario) {
        let mut fragment = group::url::scenario_fragment(scenario);
        if scenario.share_group() && crash_at_us != DEFAULT_CRASH_AT_US {
            if !fragment.is_empty() {
                fragment.push('&');
            }
            fragment += &format!("{}={crash_at_us}", group::url::CRASH_KEY);
        }
        ("group/", fragment)
    } else {
        ("", consumer::url::fragment(scenario, crash_at_us))
    }
}

/// The link of `scenario` read at `crash_at_us` below the pages' base URL `base` (ending in
/// `/`): `base`, the page's path, then `#` and the fragment when there is one.
pub fn page_link(base: &str, scenario: &Scenario, crash_at_us: u64) -> String {
    let (path, fragment) = path_and_fragment(scenario, crash_at_us);
    if fragment.is_empty() {
        format!("{base}{path}")
    } else {
        format!("{base}{path}#{fragment}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pages read back what the links say: the consumer page the scenario and the
    /// crash instant, the group page the scenario.
    #[test]
    fn the_pages_read_their_links_back() {
        let s = Scenario { max_poll_records: 25, ..Scenario::default() };
        let link = page_link("http://h/", &s, 5_000_001);
        assert_eq!(link, "http://h/#max.poll.records=25&crash_at_us=5000001");
        let state = consumer::url::state_from(link.split_once('#').unwrap().1);
        assert_eq!((state.scenario.clone(), state.crash_at_us, state.notices.len()), (s, 5_000_001, 0));
        assert_eq!(page_link("http://h/", &Scenario::default(), DEFAULT_CRASH_AT_US), "http://h/");

        let g = Scenario { partitions: 6, members: 3, ..Scenario::default() };
        let link = page_link("http://h/", &g, 1);
        let (path, fragment) = link.split_once('#').unwrap();
        assert_eq!(path, "http://h/group/");
        let state = group::url::state_from(fragment);
        assert_eq!(state.notices, Vec::<String>::new());
        assert_eq!(state.scenario, g);
    }
}
