//! The page link of a scenario: the pages' base URL (`--page-url`, the environment), then
//! the page's path, `#` and its URL fragment, written by `offset_window_view::page_link`
//! (the pages' own encoders, shared with the import module), so that the page reads back
//! exactly the scenario and instant the runner judged.

pub use offset_window_view::page_link::page_link;

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

#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::scenario::DEFAULT_CRASH_AT_US;
    use offset_window_view::page_link::on_group_page;

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
