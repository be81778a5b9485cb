//! What the panel shows, as HTML text: pure (files in, markup out), so that the host tests
//! read it as the browser does. Every value from the files is escaped.

use offset_window_import::parse::{self, Kind};
use offset_window_import::{import, Dialect, Import, ImportError, Measured, Options, Source, Status};
use offset_window_sim::keys::json_text;
use offset_window_sim::scenario::DEFAULT_CRASH_AT_US;
use offset_window_view::kit::text::{escape, seconds_text};
use offset_window_view::page_link;

/// The page the panel is on: the apply link is written relative to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    /// The consumer page (the pages' base).
    Consumer,
    /// The group page (`group/` below the base).
    Group,
}

impl Page {
    /// The page named `name` (`"group"`, else the consumer page).
    pub fn from_name(name: &str) -> Page {
        if name == "group" {
            Page::Group
        } else {
            Page::Consumer
        }
    }
}

/// What the user gave: dropped or chosen files (name, text), pasted text, whose
/// configuration it is (`""`: as the names tell) and what they measured.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Files, by name, with their text.
    pub files: Vec<(String, String)>,
    /// The text pasted into the box (blank: none).
    pub pasted: String,
    /// A client's name (`Dialect::name`), or empty.
    pub client: String,
    /// Measured facts.
    pub measured: Measured,
}

/// What the panel shows after reading: the markup, and the link applying the scenario
/// (relative to the page), when the files were read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// The result's HTML.
    pub html: String,
    /// The apply link, relative to the page (`#…` on the page itself, `group/#…`, `../#…`).
    pub href: Option<String>,
}

/// The name the pasted text is read under, which tells the importer its format: the
/// tools' output (recognised by its header whatever the name), a JSON object, YAML (a line
/// that opens a mapping, an indented `key:` or a `---`), else a properties file.
pub fn pasted_name(text: &str) -> &'static str {
    match parse::kind("pasted", text) {
        Kind::GroupsDescribe | Kind::GroupsMembers | Kind::TopicsDescribe => "pasted output",
        Kind::Json => "pasted.json",
        _ if looks_like_yaml(text) => "pasted.yml",
        _ => "pasted.properties",
    }
}

fn looks_like_yaml(text: &str) -> bool {
    text.lines().map(str::trim_end).filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty()).any(
        |l| {
            let key = l.trim_start().split(':').next().unwrap_or("");
            let keyed = l.contains(':') && !key.contains('=') && !key.contains(' ') && !key.is_empty();
            l == "---"
                || l.trim_start().starts_with("- ")
                || (keyed && (l.starts_with(' ') || l.ends_with(':')))
        },
    )
}

/// Reads the request and says what became of it.
pub fn show(page: Page, request: &Request) -> Shown {
    let pasted = request.pasted.trim();
    let mut sources: Vec<Source> = request.files.iter().map(|(name, text)| Source { name, text }).collect();
    if !pasted.is_empty() {
        sources.push(Source { name: pasted_name(pasted), text: &request.pasted });
    }
    if sources.is_empty() {
        return Shown {
            html: r#"<p class="import-error" id="import-error" role="alert">Nothing to read yet: paste a configuration file into the box, or drop files on it.</p>"#.to_string(),
            href: None,
        };
    }
    let options = Options {
        client: Dialect::from_name(&request.client),
        set: Vec::new(),
        measured: request.measured.clone(),
    };
    match import(&sources, &options) {
        Ok(imported) => shown(page, &imported),
        Err(e) => Shown { html: error_html(&e), href: None },
    }
}

/// The refusal: one message naming the file, the line and the property.
pub fn error_html(e: &ImportError) -> String {
    let place = match (e.file.is_empty(), e.line) {
        (true, _) => String::new(),
        (false, 0) => format!("{}: ", e.file),
        (false, line) => format!("{}, line {line}: ", e.file),
    };
    let property = e.property.as_ref().map_or(String::new(), |p| format!("<code>{}</code>: ", escape(p)));
    format!(
        r#"<p class="import-error" id="import-error" role="alert" data-file="{}" data-line="{}" data-property="{}">Not read. {}{property}{}</p>"#,
        escape(&e.file),
        e.line,
        escape(e.property.as_deref().unwrap_or("")),
        escape(&place),
        escape(&e.message)
    )
}

/// The client's name for people.
fn client_words(d: Dialect) -> &'static str {
    match d {
        Dialect::Java => "the Java client's properties (ConsumerConfig)",
        Dialect::Spring => "Spring Boot (spring.kafka.*, Spring Kafka's listener container)",
        Dialect::Librdkafka => "librdkafka / confluent-kafka",
        Dialect::Sarama => "sarama",
        Dialect::FranzGo => "franz-go",
        Dialect::KafkaGo => "kafka-go",
        Dialect::Kafkajs => "KafkaJS",
    }
}

/// A read import: summary, worst case, the apply link, the account, defaults and notes.
fn shown(page: Page, imported: &Import) -> Shown {
    let scenario = &imported.parsed;
    let crash = DEFAULT_CRASH_AT_US.min(scenario.horizon_us);
    let (path, fragment) = page_link::path_and_fragment(scenario, crash);
    let target = if path.is_empty() { Page::Consumer } else { Page::Group };
    let href = match (page, target) {
        (Page::Consumer, Page::Group) => format!("group/#{fragment}"),
        (Page::Group, Page::Consumer) => format!("../#{fragment}"),
        _ => format!("#{fragment}"),
    };
    let apply = if page == target {
        "Apply to this page"
    } else if target == Page::Group {
        "Open it on the group page"
    } else {
        "Open it on the consumer page"
    };
    let mut html = format!(
        r#"<div class="import-result" id="import-result" data-client="{}" data-strategy="{}"><p>Read as {}. The scenario: <code id="import-scenario">{}</code></p>"#,
        imported.client.name(),
        scenario.strategy.name(),
        client_words(imported.client),
        escape(&json_text(&imported.scenario))
    );
    html += &worst_html(scenario, target);
    html += &format!(
        r#"<p class="import-apply"><a id="import-apply" class="button" href="{}">{apply}</a></p>"#,
        escape(&href)
    );
    html += r#"<h3>Every property</h3><div class="table-wrap"><table id="import-account" class="import-account"><thead><tr><th scope="col">File, line</th><th scope="col">Property = value</th><th scope="col">What became of it</th></tr></thead><tbody>"#;
    for e in &imported.account {
        let (status, key, what) = match &e.status {
            Status::Applied { key, value } => (
                "applied",
                key.as_str(),
                format!("<b>applied</b> to <code>{}</code> = {}", escape(key), escape(&json_text(value))),
            ),
            Status::Irrelevant { why } => {
                ("irrelevant", "", format!("<b>irrelevant to commits</b>: {}", escape(why)))
            }
            Status::NotModelled { means } => {
                ("not-modelled", "", format!("<b>not modelled</b>: {}", escape(means)))
            }
            Status::NotEvaluated { why, used } => (
                "not-evaluated",
                "",
                format!("<b>not evaluated</b>: {}; used <code>{}</code>", escape(why), escape(used)),
            ),
        };
        let value = match &e.status {
            Status::Applied { value, .. } => json_text(value),
            _ => String::new(),
        };
        let line = if e.line == 0 { String::new() } else { format!(":{}", e.line) };
        html += &format!(
            r#"<tr data-status="{status}" data-property="{}" data-key="{}" data-value="{}"><td>{}{line}</td><td><code>{}</code> = {}</td><td>{what}</td></tr>"#,
            escape(&e.property),
            escape(key),
            escape(value.trim_matches('"')),
            escape(&e.file),
            escape(&e.property),
            escape(&e.value)
        );
    }
    html += "</tbody></table></div>";
    if !imported.defaults.is_empty() {
        html += r#"<h3>Defaults applied (not in the files)</h3><ul id="import-defaults">"#;
        for d in &imported.defaults {
            let key = d.key.as_ref().map_or(String::new(), |k| format!(" → <code>{}</code>", escape(k)));
            html += &format!(
                "<li><code>{}</code> = {}: {}{key}</li>",
                escape(&d.property),
                escape(&d.value),
                escape(&d.whose)
            );
        }
        html += "</ul>";
    }
    if !imported.notes.is_empty() {
        html += r#"<h3>Notes</h3><ul id="import-notes">"#;
        for n in &imported.notes {
            html += &format!("<li>{}</li>", escape(n));
        }
        html += "</ul>";
    }
    html += "</div>";
    Shown { html, href: Some(href) }
}

/// The worst crash instants of one consumer (the core's one-pass profile, as `offset-window
/// check` judges them); a group's are swept on the group page.
fn worst_html(scenario: &offset_window_sim::Scenario, target: Page) -> String {
    if target == Page::Group {
        return r#"<p id="import-worst">A group: the group page shows what each partition loses or repeats, and sweeps the first event over every instant.</p>"#.to_string();
    }
    match offset_window_sim::simulate(scenario) {
        Ok(run) => {
            let w = run.worst();
            let at = |us: Option<u64>| {
                us.map_or(String::new(), |us| format!(" (a crash at {} s)", seconds_text(us)))
            };
            format!(
                r#"<p id="import-worst" class="import-worst" data-lost="{}" data-duplicated="{}">Over every crash instant: at worst <b>{} lost</b>{}, <b>{} processed twice</b>{}.</p>"#,
                w.lost,
                w.duplicated,
                w.lost,
                at(w.lost_at_us),
                w.duplicated,
                at(w.duplicated_at_us)
            )
        }
        Err(e) => format!(
            r#"<p class="import-error" id="import-worst" role="alert">The model cannot run it: {}</p>"#,
            escape(&e.to_string())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPRING: &str = "spring:\n  kafka:\n    consumer:\n      max-poll-records: 500\n    listener:\n      ack-mode: record\n";

    fn pasted(text: &str) -> Request {
        Request { pasted: text.to_string(), ..Request::default() }
    }

    #[test]
    fn pasted_text_is_read_in_its_own_format() {
        assert_eq!(pasted_name(SPRING), "pasted.yml");
        assert_eq!(pasted_name("spring.kafka.consumer.max-poll-records: 500\n"), "pasted.properties");
        assert_eq!(pasted_name("enable.auto.commit=true\n# a: b\n"), "pasted.properties");
        assert_eq!(pasted_name("{\"enable.auto.commit\": true}"), "pasted.json");
        assert_eq!(pasted_name("---\na: 1\n"), "pasted.yml");
    }

    /// The new-user trial: a Spring Boot application.yml with max-poll-records 500 and ack
    /// mode RECORD gives commit_sync_record and max.poll.records 500, and a link to apply it.
    #[test]
    fn a_spring_boot_file_is_applied_with_its_account() {
        let shown = show(Page::Consumer, &pasted(SPRING));
        let href = shown.href.expect("read");
        assert!(href.starts_with("#") && href.contains("max.poll.records=500"), "{href}");
        assert!(shown.html.contains(r#"data-strategy="commit_sync_record""#), "{}", shown.html);
        assert!(
            shown.html.contains(r#"data-key="max.poll.records" data-value="500"><td>pasted.yml:4</td>"#),
            "{}",
            shown.html
        );
        assert!(
            shown.html.contains(r#"data-property="spring.kafka.consumer.max-poll-records"#),
            "{}",
            shown.html
        );
        assert!(
            shown.html.contains(r#"data-key="strategy" data-value="commit_sync_record""#),
            "{}",
            shown.html
        );
        assert!(shown.html.contains(r#"id="import-worst" class="import-worst""#));
        // From the group page the link goes back to the consumer page.
        assert!(show(Page::Group, &pasted(SPRING)).href.unwrap().starts_with("../#"));
    }

    #[test]
    fn a_bad_value_names_the_line_and_the_property() {
        let shown =
            show(Page::Consumer, &pasted("spring:\n  kafka:\n    consumer:\n      max-poll-records: lots\n"));
        assert_eq!(shown.href, None);
        assert_eq!(shown.html.matches("role=\"alert\"").count(), 1, "{}", shown.html);
        let property = "spring.kafka.consumer.max-poll-records (max.poll.records)";
        assert!(
            shown.html.contains(&format!(r#"data-line="4" data-property="{property}""#)),
            "{}",
            shown.html
        );
        assert!(shown.html.contains("pasted.yml, line 4"), "{}", shown.html);
    }

    #[test]
    fn nothing_and_nonsense_give_messages() {
        assert!(show(Page::Consumer, &pasted("  ")).html.contains("Nothing to read"));
        let shown = show(Page::Consumer, &pasted("spring:\n  kafka: [\n"));
        assert!(shown.html.contains("import-error") && shown.href.is_none(), "{}", shown.html);
        // Markup in the input is text on the page.
        let shown = show(Page::Consumer, &pasted("<script>x</script>=1\n"));
        assert!(!shown.html.contains("<script>"), "{}", shown.html);
    }

    #[test]
    fn a_group_goes_to_the_group_page() {
        let describe = include_str!("../../import/tests/samples/consumer-groups-describe.txt");
        let request = Request { files: vec![("describe.txt".into(), describe.into())], ..Request::default() };
        let shown = show(Page::Consumer, &request);
        assert!(shown.href.as_deref().is_some_and(|h| h.starts_with("group/#")), "{}", shown.html);
        assert!(show(Page::Group, &request).href.unwrap().starts_with('#'));
    }
}
