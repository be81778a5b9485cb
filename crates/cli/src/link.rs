//! The page link of a scenario: the page's path, `#` and its URL fragment, written by the
//! pages' own encoders (`offset_window_view::consumer::url`, `…::group::url`), so that the
//! page reads back exactly the scenario and instant the runner judged.

use offset_window_sim::scenario::DEFAULT_CRASH_AT_US;
use offset_window_sim::Scenario;

/// Where the pages are served when nothing else is said: `scripts/serve.sh`'s address.
pub const DEFAULT_PAGE_URL: &str = "http://127.0.0.1:8080/";

/// The environment variable naming where the pages are hosted (e.g.
/// `https://example.org/blog/offset-window/`), read by `check`, `import` and `mcp`.
pub const PAGE_URL_ENV: &str = "OFFSET_WINDOW_PAGE_URL";

/// The pages' base URL: `--page-url`, else `OFFSET_WINDOW_PAGE_URL`, else [`DEFAULT_PAGE_URL`];
/// always ending in `/`.
pub fn base(given: Option<&str>) -> String {
    let env = std::env::var(PAGE_URL_ENV).ok().filter(|s| !s.is_empty());
    let mut base = given.map(str::to_string).or(env).unwrap_or_else(|| DEFAULT_PAGE_URL.to_string());
    if !base.ends_with('/') {
        base.push('/');
    }
    base
}

/// Whether the scenario is shown by the group page (a consumer or share group) rather than
/// the consumer page (one consumer on one partition).
pub fn on_group_page(scenario: &Scenario) -> bool {
    scenario.group_mode() || scenario.share_group()
}

/// The link of `scenario` read at `crash_at_us` (a consumer's crash, a share group's crash;
/// a consumer group has no crash instant of its own and ignores it).
pub fn page_link(base: &str, scenario: &Scenario, crash_at_us: u64) -> String {
    let (path, fragment) = if on_group_page(scenario) {
        let mut fragment = offset_window_view::group::url::scenario_fragment(scenario);
        if scenario.share_group() && crash_at_us != DEFAULT_CRASH_AT_US {
            if !fragment.is_empty() {
                fragment.push('&');
            }
            fragment += &format!("{}={crash_at_us}", offset_window_view::group::url::CRASH_KEY);
        }
        ("group/", fragment)
    } else {
        ("", offset_window_view::consumer::url::fragment(scenario, crash_at_us))
    };
    if fragment.is_empty() {
        format!("{base}{path}")
    } else {
        format!("{base}{path}#{fragment}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pages read back what the runner writes: the consumer page the scenario and the
    /// crash instant, the group page the scenario.
    #[test]
    fn the_pages_read_their_links_back() {
        let s = Scenario { max_poll_records: 25, ..Scenario::default() };
        let link = page_link("http://h/", &s, 5_000_001);
        assert_eq!(link, "http://h/#max.poll.records=25&crash_at_us=5000001");
        let state = offset_window_view::consumer::url::state_from(link.split_once('#').unwrap().1);
        assert_eq!((state.scenario.clone(), state.crash_at_us, state.notices.len()), (s, 5_000_001, 0));
        assert_eq!(page_link("http://h/", &Scenario::default(), DEFAULT_CRASH_AT_US), "http://h/");

        let g = Scenario { partitions: 6, members: 3, ..Scenario::default() };
        let link = page_link("http://h/", &g, 1);
        let (path, fragment) = link.split_once('#').unwrap();
        assert_eq!(path, "http://h/group/");
        let state = offset_window_view::group::url::state_from(fragment);
        assert_eq!(state.notices, Vec::<String>::new());
        assert_eq!(state.scenario, g);
    }

    /// Every import sample's link is read back by its page as the scenario imported, with no
    /// notice.
    #[test]
    fn the_pages_read_every_imported_link_back() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../import/tests/samples");
        let mut read = 0;
        let mut names: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        for path in names {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.ends_with(".md") || name.ends_with(".txt") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let source = offset_window_import::Source { name: &name, text: &text };
            let Ok(imported) = offset_window_import::import(&[source], &Default::default()) else { continue };
            let s = imported.parsed;
            let link = page_link("http://h/", &s, DEFAULT_CRASH_AT_US);
            let fragment = link.split_once('#').map_or("", |(_, f)| f);
            if on_group_page(&s) {
                let state = offset_window_view::group::url::state_from(fragment);
                assert_eq!((&state.scenario, state.notices.len()), (&s, 0), "{name}: {:?}", state.notices);
            } else {
                let state = offset_window_view::consumer::url::state_from(fragment);
                assert_eq!((&state.scenario, state.notices.len()), (&s, 0), "{name}: {:?}", state.notices);
            }
            read += 1;
        }
        assert!(read >= 8, "only {read} samples imported");
    }
}
