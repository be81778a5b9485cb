//! The page in headless Chromium: mount the app with the real style sheet, drive it through
//! DOM events, read the readouts and the canvas pixels.
//!
//! `cargo test -p offset-window-app --target wasm32-unknown-unknown --tests`
//! (with `CHROMEDRIVER=/usr/bin/chromedriver`; flags in `webdriver.json`).

#![cfg(target_arch = "wasm32")]

use offset_window_app::components::ChartKind;
use offset_window_app::shell::render_count;
use offset_window_app::App;
use offset_window_sim::{simulate, Scenario};
use offset_window_view::kit::draw;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{
    CanvasRenderingContext2d, Element, Event, EventInit, HtmlCanvasElement, HtmlElement, HtmlInputElement,
    HtmlOptionElement, HtmlSelectElement,
};

wasm_bindgen_test_configure!(run_in_browser);

/// A mounted page; unmounted (and its root removed) when dropped.
struct Page {
    root: Element,
    handle: Option<yew::AppHandle<App>>,
}

impl Drop for Page {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            h.destroy();
        }
        self.root.remove();
    }
}

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

async fn mount() -> Page {
    mount_at("").await
}

/// Mounts the page as if opened with `fragment` (`#…`) in the URL.
async fn mount_at(fragment: &str) -> Page {
    let history = web_sys::window().unwrap().history().unwrap();
    let path = web_sys::window().unwrap().location().pathname().unwrap();
    history
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}{fragment}")))
        .unwrap();
    let doc = document();
    if doc.get_element_by_id("test-style").is_none() {
        let style = doc.create_element("style").unwrap();
        style.set_id("test-style");
        style.set_text_content(Some(include_str!("../../../web/style.css")));
        doc.head().unwrap().append_child(&style).unwrap();
    }
    let root = doc.create_element("div").unwrap();
    root.set_attribute("style", "width: 1200px").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    let handle = yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    Page { root, handle: Some(handle) }
}

impl Page {
    fn find(&self, selector: &str) -> Element {
        self.root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no element {selector}"))
    }

    fn value(&self, selector: &str) -> String {
        self.find(selector).get_attribute("data-value").unwrap_or_default()
    }

    fn readouts(&self) -> [String; 6] {
        ["position", "durable", "committed", "lost", "duplicated", "reread"]
            .map(|k| self.value(&format!("#ro-{k}")))
    }

    async fn fire(&self, selector: &str, kind: &str) {
        let init = EventInit::new();
        init.set_bubbles(true);
        let event = Event::new_with_event_init_dict(kind, &init).unwrap();
        self.find(selector).dispatch_event(&event).unwrap();
        yew::scheduler::flush().await;
    }

    async fn type_into(&self, selector: &str, text: &str) {
        self.find(selector).dyn_into::<HtmlInputElement>().unwrap().set_value(text);
        self.fire(selector, "input").await;
    }

    async fn choose_strategy(&self, name: &str) {
        self.find("#strategy").dyn_into::<HtmlSelectElement>().unwrap().set_value(name);
        self.fire("#strategy", "change").await;
    }

    async fn click(&self, selector: &str) {
        self.find(selector).dyn_into::<HtmlElement>().unwrap().click();
        yew::scheduler::flush().await;
    }
}

#[wasm_bindgen_test]
async fn first_load_shows_r1() {
    let page = mount().await;
    // Reference R1 (docs/model.md §7) at the default crash (8.2 s).
    assert_eq!(page.readouts(), ["45", "40", "25", "0", "15", "20"].map(String::from));
    assert_eq!(page.value("#worst-duplicated"), "25");
    assert_eq!(page.find("#worst-duplicated").get_attribute("data-at-us").unwrap(), "5000001");
    assert!(page
        .find("#worst-duplicated")
        .text_content()
        .unwrap()
        .contains("just after 5.000 s (5.000001 s)"));
    assert_eq!(page.value("#worst-lost"), "0");
    assert_eq!(page.find("#crash-at").dyn_into::<HtmlInputElement>().unwrap().value(), "8.200");
    assert_eq!(page.value("#ro-blocked"), "0.0");
    // The page names the real clients its model was checked against (tests/conformance).
    let body = page.find("footer.foot").text_content().unwrap();
    assert!(
        body.contains("Apache Kafka 4.3.1")
            && body.contains("kafka-clients 4.3.1")
            && body.contains("librdkafka 2.16.0"),
        "{body}"
    );
}

/// Trial item 2: a worst instant the horizon cuts says so and offers a longer horizon.
#[wasm_bindgen_test]
async fn a_worst_instant_at_the_horizons_end_offers_a_longer_horizon() {
    let page = mount_at("#max.poll.records=500&record_processing_ms=30").await;
    assert_eq!(page.value("#worst-duplicated"), "399");
    let row = page.find("#worst-duplicated");
    assert_eq!(row.get_attribute("data-cut").as_deref(), Some("true"));
    assert!(row.text_content().unwrap().contains("still growing where the horizon ends"));
    page.click("#worst-duplicated button.extend").await;
    assert_eq!(page.value("#worst-duplicated"), "500");
    assert_eq!(page.find("#worst-duplicated").get_attribute("data-cut").as_deref(), Some("false"));
    assert!(page.root.query_selector("#worst-duplicated button.extend").unwrap().is_none());
    // The default run is not cut.
    let page = mount().await;
    assert_eq!(page.find("#worst-duplicated").get_attribute("data-cut").as_deref(), Some("false"));
}

/// Trial item 8: − and + move the crash a step either way (a finger cannot land on 8.2 s).
#[wasm_bindgen_test]
async fn minus_and_plus_move_the_crash_a_step() {
    let page = mount().await;
    page.click("#crash-later").await;
    assert_eq!(page.find("#crash-at").dyn_into::<HtmlInputElement>().unwrap().value(), "8.250");
    page.click("#crash-earlier").await;
    page.click("#crash-earlier").await;
    assert_eq!(page.find("#crash-at").dyn_into::<HtmlInputElement>().unwrap().value(), "8.150");
    assert_eq!(page.find("#crash-later").get_attribute("aria-label").as_deref(), Some("crash 50 ms later"));
}

#[wasm_bindgen_test]
async fn commit_sync_batch_worst_is_one_batch() {
    let page = mount().await;
    page.choose_strategy("commit_sync_batch").await;
    assert_eq!(page.value("#worst-duplicated"), "5"); // R2
}

#[wasm_bindgen_test]
async fn worker_pool_crash_at_5_01_loses_10() {
    let page = mount().await;
    page.click("#worker-pool").await;
    page.type_into("#crash-at", "5.01").await;
    assert_eq!(page.value("#ro-lost"), "10"); // R6
    page.choose_strategy("commit_sync_batch").await;
    assert_eq!(page.value("#ro-lost"), "15"); // R7
}

#[wasm_bindgen_test]
async fn transactional_disables_the_pool_and_says_why() {
    let page = mount().await;
    page.click("#worker-pool").await;
    page.choose_strategy("transactional").await;
    let pool = page.find("#worker-pool").dyn_into::<HtmlInputElement>().unwrap();
    assert!(pool.disabled() && !pool.checked());
    assert!(page.find("#worker-pool-why").text_content().unwrap().contains("transactions"));
    assert_eq!(page.value("#worst-duplicated"), "0"); // R8
    assert_eq!(page.value("#worst-lost"), "0");
    assert_eq!(page.value("#ro-reread"), "5");
}

#[wasm_bindgen_test]
async fn worst_button_moves_the_crash_to_the_exact_microsecond() {
    let page = mount().await;
    page.click("#worst-duplicated button").await;
    assert_eq!(page.find("#crash-at").dyn_into::<HtmlInputElement>().unwrap().value(), "5.000001");
    assert_eq!(page.value("#ro-duplicated"), "25");
    assert_eq!(page.value("#ro-committed"), "0");
}

#[wasm_bindgen_test]
async fn bad_values_show_a_message_and_keep_the_page() {
    let page = mount().await;
    page.type_into("#f-max-poll-records", "0").await;
    let message = page.find("#f-max-poll-records-error").text_content().unwrap();
    assert!(message.contains("max.poll.records") && message.contains("1 to 100000"), "{message}");
    assert_eq!(page.readouts()[0], "45", "the last good scenario stays on screen");
    page.type_into("#crash-at", "99").await;
    assert!(page.find("#crash-error").text_content().unwrap().contains("(0, 12.000]"));
    page.type_into("#f-max-poll-records", "25").await;
    assert!(page.root.query_selector("#f-max-poll-records-error").unwrap().is_none());
    assert_eq!(page.value("#worst-duplicated"), "25"); // R3
}

#[wasm_bindgen_test]
async fn moving_the_crash_renders_only_what_depends_on_it() {
    let page = mount().await;
    let before = |name: &str| render_count(name);
    let (controls, field, worst, at) =
        (before("Controls"), before("control:max.poll.records"), before("RunSummary"), before("AtCrash"));
    let slider = page.find("#crash-slider").dyn_into::<HtmlInputElement>().unwrap();
    slider.set_value("3000000");
    page.fire("#crash-slider", "input").await;
    assert_eq!(page.value("#ro-position"), "15");
    assert_eq!(render_count("AtCrash"), at + 1);
    assert_eq!(render_count("Controls"), controls, "the scenario controls do not re-render");
    assert_eq!(render_count("control:max.poll.records"), field);
    assert_eq!(render_count("RunSummary"), worst, "the worst case does not depend on the crash");
    // A scenario field re-renders itself, not its neighbours.
    let other = render_count("control:record_processing_ms");
    page.type_into("#f-max-poll-records", "6").await;
    assert_eq!(render_count("control:max.poll.records"), field + 1);
    assert_eq!(render_count("control:record_processing_ms"), other);
}

#[wasm_bindgen_test]
async fn a_change_runs_one_simulation_and_a_crash_move_none() {
    let page = mount().await;
    let runs = offset_window_view::kit::run::simulations;
    let before = runs();
    page.type_into("#f-max-poll-records", "6").await;
    assert_eq!(runs() - before, 1, "a scenario change");
    let before = runs();
    let slider = page.find("#crash-slider").dyn_into::<HtmlInputElement>().unwrap();
    slider.set_value("3000000");
    page.fire("#crash-slider", "input").await;
    assert_eq!(runs() - before, 0, "a move of the crash reads the run it has");
}

/// RGBA of the base canvas in a `(2r+1)²` square around (x, y), device px.
fn pixels(canvas: &HtmlCanvasElement, x: f64, y: f64, r: i32) -> Vec<[u8; 4]> {
    let ctx: CanvasRenderingContext2d = canvas.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let (x0, y0) = (x.round() as i32 - r, y.round() as i32 - r);
    let side = (2 * r + 1) as f64;
    let data = ctx.get_image_data(x0 as f64, y0 as f64, side, side).unwrap().data().0;
    data.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect()
}

fn near(p: [u8; 4], c: plotters::style::RGBColor) -> bool {
    let d = |a: u8, b: u8| (a as i32 - b as i32).abs();
    p[3] == 255 && d(p[0], c.0) + d(p[1], c.1) + d(p[2], c.2) < 60
}

#[wasm_bindgen_test]
async fn the_three_lines_are_drawn_where_the_numbers_say() {
    let page = mount().await;
    let canvas = page.find("#main-chart canvas.base").dyn_into::<HtmlCanvasElement>().unwrap();
    assert!(canvas.client_width() > 600, "laid out by the real style sheet");
    let scale = canvas.width() as f64 / canvas.client_width() as f64;
    let run = simulate(&Scenario::default()).unwrap();
    let f = ChartKind::Main.frame((canvas.width(), canvas.height()), scale, &run);
    // Instants in the middle of flat stretches of all three lines.
    for t_us in [2_500_000u64, 8_100_000, 11_100_000] {
        let at = run.state_at(t_us);
        let x = f.x(t_us);
        for (value, color, name) in [
            (at.position, draw::POSITION, "position"),
            (Some(at.durable), draw::DURABLE, "durable frontier"),
            (at.committed, draw::COMMITTED, "committed offset"),
        ] {
            let value = value.unwrap();
            let y = f.y(value as f64);
            // The position line is dashed: look along a stretch wider than one gap.
            let hits =
                (-6..=6).filter(|dx| pixels(&canvas, x + *dx as f64, y, 2).iter().any(|p| near(*p, color)));
            assert!(hits.count() > 0, "{name} = {value} not drawn at t = {t_us} µs (x {x:.0}, y {y:.0})");
        }
        // …and the committed line is not drawn a few offsets off.
        let off = f.y(at.committed.unwrap() as f64 + 4.0);
        assert!(!pixels(&canvas, x, off, 1).iter().any(|p| near(*p, draw::COMMITTED)), "at t = {t_us}");
    }
}

#[wasm_bindgen_test]
async fn the_crash_marker_follows_the_crash() {
    let page = mount().await;
    let overlay = page.find("#main-chart canvas.overlay").dyn_into::<HtmlCanvasElement>().unwrap();
    let frames = overlay.get_attribute("data-frame").unwrap().parse::<u32>().unwrap();
    page.type_into("#crash-at", "3").await;
    assert_eq!(overlay.get_attribute("data-frame").unwrap().parse::<u32>().unwrap(), frames + 1);
    let scale = overlay.width() as f64 / overlay.client_width() as f64;
    let run = simulate(&Scenario::default()).unwrap();
    let f = ChartKind::Main.frame((overlay.width(), overlay.height()), scale, &run);
    let mid = (f.top + f.bottom) / 2.0;
    assert!(pixels(&overlay, f.x(3_000_000), mid, 1).iter().any(|p| near(*p, draw::CRASH)));
    assert!(!pixels(&overlay, f.x(8_200_000), mid, 2).iter().any(|p| p[3] > 0), "the old marker is gone");
}

#[wasm_bindgen_test]
async fn a_link_reproduces_the_page() {
    let page = mount_at("#strategy=commit_sync_batch&max.poll.records=25&crash_at_us=5000001").await;
    assert_eq!(page.value("#worst-duplicated"), "25"); // R4
    assert_eq!(page.find("#crash-at").dyn_into::<HtmlInputElement>().unwrap().value(), "5.000001");
    assert_eq!(
        offset_window_app::url::fragment(
            &Scenario { max_poll_records: 25, ..Scenario::default() },
            5_000_001
        ),
        "max.poll.records=25&crash_at_us=5000001"
    );
    drop(page);
    let page = mount_at("#max.poll.records=0").await;
    assert!(page.find("#f-max-poll-records-error").text_content().unwrap().contains("1 to 100000"));
    assert_eq!(page.readouts()[0], "45", "a bad link still shows the defaults");
}

fn rows(page: &Page) -> Vec<(String, String, [String; 3])> {
    let list = page.root.query_selector_all("#compare-table tbody tr").unwrap();
    (0..list.length())
        .map(|i| {
            let e: Element = list.item(i).unwrap().dyn_into().unwrap();
            let a = |n: &str| e.get_attribute(n).unwrap();
            (a("data-client"), a("data-strategy"), [a("data-lost"), a("data-duplicated"), a("data-reread")])
        })
        .collect()
}

#[wasm_bindgen_test]
async fn compare_clients_shows_the_issue_5_rows() {
    let fragment =
        "#max.poll.records=1&record_processing_ms=3000&auto.commit.interval.ms=5000&crash_at_us=5500000";
    let page = mount_at(fragment).await;
    page.click("#compare-toggle").await;
    let rows = rows(&page);
    let find = |c: &str, s: &str| {
        rows.iter().find(|r| r.0 == c && r.1 == s).unwrap_or_else(|| panic!("{c} {s}")).2.clone()
    };
    let lost_dup = |r: [String; 3]| (r[0].clone(), r[1].clone());
    // Issue 5, first three rows.
    assert_eq!(lost_dup(find("java_classic", "auto_commit")), ("0".into(), "1".into()));
    assert_eq!(lost_dup(find("librdkafka", "auto_commit")), ("1".into(), "0".into()));
    assert_eq!(lost_dup(find("librdkafka", "store_offsets_after_processing")), ("0".into(), "0".into()));
    // Every row is the core's compare_clients.
    let scenario = Scenario::from_json(
        r#"{"max.poll.records":1,"record_processing_ms":3000,"auto.commit.interval.ms":5000}"#,
    )
    .unwrap();
    let core = offset_window_sim::compare::compare_clients(&scenario, 5_500_000).unwrap();
    assert_eq!(rows.len(), core.len());
    for (row, c) in rows.iter().zip(&core) {
        assert_eq!((row.0.as_str(), row.1.as_str()), (c.client, c.strategy));
        assert_eq!(row.2, [c.lost, c.duplicated, c.reread].map(|v| v.to_string()));
    }
}

/// The select's value of a preset (its index) by file name.
fn preset(file: &str) -> String {
    offset_window_app::presets::by_name(file).unwrap().to_string()
}

async fn choose(page: &Page, selector: &str, value: &str) {
    page.find(selector).dyn_into::<HtmlSelectElement>().unwrap().set_value(value);
    page.fire(selector, "change").await;
}

#[wasm_bindgen_test]
async fn a_preset_shows_its_description_and_expected_numbers() {
    let page = mount().await;
    choose(&page, "#preset", &preset("s8-kip848-before-fix")).await;
    assert!(page.find("#preset-description").text_content().unwrap().contains("background timer"));
    let expect = page.find("#preset-expect").text_content().unwrap();
    assert!(expect.contains("Records a crash loses at 6.000 s: 201, as the file expects."), "{expect}");
    assert_eq!(page.value("#ro-lost"), "201");
    let items = page.root.query_selector_all("#preset-expect li").unwrap();
    assert!(items.length() >= 2);
    for i in 0..items.length() {
        let e: Element = items.item(i).unwrap().dyn_into().unwrap();
        assert_eq!(e.get_attribute("data-ok").unwrap(), "true", "{:?}", e.text_content());
    }
    // Every preset loads and meets what its file expects.
    for (i, name) in offset_window_app::presets::FILES.iter().enumerate() {
        choose(&page, "#preset", &i.to_string()).await;
        assert!(page.root.query_selector("#preset-edited").unwrap().is_none(), "{name} as loaded");
        let items = page.root.query_selector_all("#preset-expect li").unwrap();
        for k in 0..items.length() {
            let e: Element = items.item(k).unwrap().dyn_into().unwrap();
            assert_eq!(
                e.get_attribute("data-ok").unwrap(),
                "true",
                "preset {i} {name}: {:?}",
                e.text_content()
            );
        }
    }
    // Changed after loading: the panel says the file's numbers are for its own settings.
    page.type_into("#f-max-poll-records", "7").await;
    assert!(page.find("#preset-edited").text_content().unwrap().contains("changed"));
}

#[wasm_bindgen_test]
async fn client_choice_shows_its_note_and_refuses_store_offsets_for_java() {
    let page = mount().await;
    let store = || {
        page.find("#strategy option[value=store_offsets_after_processing]")
            .dyn_into::<HtmlOptionElement>()
            .unwrap()
    };
    assert!(
        store().disabled() && store().text().contains("librdkafka only"),
        "the Java client has no offset store"
    );
    // A choice that gets through anyway (a script) is refused.
    choose(&page, "#strategy", "store_offsets_after_processing").await;
    let message = page.find(".field-error").text_content().unwrap();
    assert!(message.contains("librdkafka"), "{message}");
    let shown = || page.find("#strategy").dyn_into::<HtmlSelectElement>().unwrap().value();
    assert_eq!(shown(), "auto_commit", "the refused choice does not stay shown");
    choose(&page, "#strategy", "store_offsets_after_processing").await; // the same refusal again
    assert_eq!(shown(), "auto_commit");
    choose(&page, "#client", "librdkafka").await;
    assert!(page.find("#client-note").text_content().unwrap().contains("librdkafka"));
    assert!(!store().disabled());
    choose(&page, "#strategy", "store_offsets_after_processing").await;
    assert!(page.root.query_selector(".field-error").unwrap().is_none());
    assert_eq!(shown(), "store_offsets_after_processing");
    // A change made elsewhere (the defaults again) shows in a select the reader has used.
    page.click(".reset").await;
    assert_eq!(shown(), "auto_commit");
}

#[wasm_bindgen_test]
async fn a_field_the_client_does_not_read_says_so() {
    let page = mount().await;
    let unread = || {
        let list = page.root.query_selector_all(".field-unread").unwrap();
        (0..list.length()).map(|i| list.get(i).unwrap().text_content().unwrap()).collect::<Vec<_>>()
    };
    assert!(unread().is_empty(), "the Java client's auto-commit reads both: {:?}", unread());
    choose(&page, "#client", "kafkajs").await;
    let notes = unread();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].starts_with("Not read here: a KafkaJS batch is one fetch"), "{notes:?}");
    assert!(notes[1].contains("KafkaJS commits after each batch"), "{notes:?}");
}

#[wasm_bindgen_test]
async fn each_tour_step_shows_the_issue_4_numbers() {
    let page = mount().await;
    page.click("#tour-start").await;
    let caption = || page.find("#tour-caption").text_content().unwrap();
    // 1: defaults.
    assert_eq!(page.value("#ro-duplicated"), "15");
    assert_eq!(page.value("#worst-duplicated"), "25");
    assert!(
        caption().contains("8.200 s") && caption().contains("15") && caption().contains("25"),
        "{}",
        caption()
    );
    page.click("#tour-next").await; // 2: commitSync after the batch
    assert_eq!(page.value("#worst-duplicated"), "5");
    assert!(caption().contains('5'));
    page.click("#tour-next").await; // 3: 25 records, both strategies
    assert_eq!(page.value("#worst-duplicated"), "25");
    assert!(caption().contains("repeat 25 records, and auto-commit 25"), "{}", caption());
    page.click("#tour-next").await; // 4: interval 100 ms
    assert_eq!(page.value("#worst-duplicated"), "25");
    page.click("#tour-next").await; // 5: pool + auto-commit at 5.01 s
    assert_eq!(page.value("#ro-lost"), "10");
    assert!(caption().contains("Between 5.000 s and 5.005 s"), "{}", caption());
    page.click("#tour-next").await; // 6: pool + commitSync
    assert_eq!(page.value("#ro-lost"), "15");
    page.click("#tour-next").await; // 7: 50 ms × 25
    assert_eq!(page.value("#ro-blocked"), "9.1");
    assert!(caption().contains("9.1 %") && caption().contains("0.4 %"), "{}", caption());
    page.click("#tour-next").await; // 8: transactional
    assert_eq!(
        [page.value("#ro-lost"), page.value("#ro-duplicated"), page.value("#ro-reread")],
        ["0", "0", "5"].map(String::from)
    );
    assert!(page.root.query_selector("#tour-next").unwrap().is_none(), "the last step has Finish instead");
    assert!(page.find("#tour-finish").text_content().unwrap().contains("Finish"));
    page.click("#tour-back").await;
    assert_eq!(page.find("#tour").get_attribute("data-step").unwrap(), "7");
    page.click("#tour-reset").await;
    assert_eq!(page.readouts(), ["45", "40", "25", "0", "15", "20"].map(String::from));
}

#[wasm_bindgen_test]
async fn a_link_whose_settings_are_not_its_tour_step_leaves_the_tour_with_a_notice() {
    let page = mount_at("#max.poll.records=9&worker_pool=true&crash_at_us=5010000&step=5").await;
    assert!(page.root.query_selector("#tour").unwrap().is_none());
    assert!(page.find("#notices").text_content().unwrap().contains("tour=5"));
}

#[wasm_bindgen_test]
async fn changing_a_control_leaves_the_tour() {
    let page = mount_at("#step=5").await;
    assert_eq!(page.find("#tour").get_attribute("data-step").unwrap(), "5");
    page.type_into("#f-max-poll-records", "9").await;
    assert!(page.root.query_selector("#tour").unwrap().is_none(), "the step-5 caption no longer applies");
    assert!(page.find("#tour-left").text_content().unwrap().contains("step 5"));
    assert_eq!(page.value("#ro-lost"), "0", "the page shows the changed scenario");
    page.click("#tour-resume").await;
    assert_eq!(page.find("#tour").get_attribute("data-step").unwrap(), "5");
    assert_eq!(page.value("#ro-lost"), "10", "step 5's own settings again");
}

#[wasm_bindgen_test]
async fn moving_the_crash_in_the_tour_says_what_the_caption_is_about() {
    let page = mount_at("#step=5").await;
    assert!(page.root.query_selector("#tour-moved").unwrap().is_none());
    page.type_into("#crash-at", "9").await;
    let note = page.find("#tour-moved").text_content().unwrap();
    assert!(note.contains("5.010 s"), "{note}");
    page.click("#tour-crash-back").await;
    assert!(page.root.query_selector("#tour-moved").unwrap().is_none());
    assert_eq!(page.value("#ro-lost"), "10");
}

#[wasm_bindgen_test]
async fn a_bad_link_value_shows_a_notice_and_a_working_page() {
    let page = mount_at(
        "#max.poll.records=abc&record_processing_ms=-5&nonsense=1&worker_pool=maybe&crash_at_us=99999999999",
    )
    .await;
    let notices = page.find("#notices").text_content().unwrap();
    assert!(notices.contains("worker_pool=maybe"), "{notices}");
    assert!(
        notices.contains("max.poll.records=abc") && notices.contains("record_processing_ms=-5"),
        "{notices}"
    );
    assert!(notices.contains("nonsense") && notices.contains("crash_at_us"), "{notices}");
    assert_eq!(page.find("#crash-at").dyn_into::<HtmlInputElement>().unwrap().value(), "12.000", "clamped");
    page.type_into("#crash-at", "3").await;
    assert_eq!(page.value("#ro-position"), "15", "the page still works");
}

#[wasm_bindgen_test]
async fn text_alternative_operator_view_and_export_follow_the_crash() {
    let page = mount().await;
    let text = page.find("#chart-text").text_content().unwrap();
    assert!(text.contains("position 45, durable frontier 40, committed offset 25"), "{text}");
    assert!(text.contains("Lost: none") && text.contains("second time: offsets 25–39"), "{text}");
    let describe = page.find("#describe");
    assert_eq!(
        describe.get_attribute("data-records-lag").unwrap().parse::<u64>().unwrap() + 20,
        describe.get_attribute("data-lag").unwrap().parse::<u64>().unwrap()
    );
    page.type_into("#base-offset", "1000").await;
    assert!(page.find("#describe").text_content().unwrap().contains("1025"));
    assert_eq!(page.value("#ro-committed"), "1025", "the base is added to every offset shown");
    page.type_into("#base-offset", "abc").await;
    let error = page.find("#base-offset-error").text_content().unwrap();
    assert!(error.contains("display base offset") && error.contains("\"abc\""), "{error}");
    assert!(page.find("#describe").text_content().unwrap().contains("1025"), "the last good base stays");
    page.type_into("#crash-at", "3").await;
    assert!(
        page.find("#chart-text").text_content().unwrap().contains("position 1015"),
        "base 1000 still added"
    );
    assert!(page.find("#producer-note a").get_attribute("href").unwrap().ends_with("producer/"));
    page.click("#copy-embed").await;
    // The clipboard answers asynchronously (here it may refuse: the snippet is shown either way).
    let mut copied = String::new();
    for _ in 0..200 {
        copied = page.find("#embed-code").text_content().unwrap();
        if !copied.is_empty() {
            break;
        }
        let tick = js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window()
                .unwrap()
                .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 10)
                .unwrap();
        });
        wasm_bindgen_futures::JsFuture::from(tick).await.unwrap();
        yew::scheduler::flush().await;
    }
    assert!(copied.contains("<iframe") && copied.contains("?embed=1#crash_at_us=3000000"), "{copied}");
}

#[wasm_bindgen_test]
async fn a_crash_just_after_a_commit_says_the_commit_is_in_flight() {
    // A reader's "just after the commit at 5.0 s": the commit lands at 5.005 s.
    let page = mount_at("#crash_at_us=5001000").await;
    assert_eq!((page.value("#ro-committed"), page.value("#ro-duplicated")), ("0".into(), "25".into()));
    let note = page.find("#ro-committed").text_content().unwrap();
    assert!(note.contains("25 in flight, lands at 5.005 s"), "{note}");
    assert!(page.find(".in-flight").text_content().unwrap().contains("lands at 5.005 s"));
    page.type_into("#crash-at", "5.006").await;
    assert!(page.root.query_selector(".in-flight").unwrap().is_none(), "landed");
    assert_eq!(page.value("#ro-committed"), "25");
}

#[wasm_bindgen_test]
async fn after_close_the_readouts_say_the_consumer_had_closed() {
    let page = mount_at("#close_at_ms=6000").await;
    let heading = page.find("#crash-shown").text_content().unwrap();
    assert!(heading.starts_with("After close()"), "{heading}");
    assert!(page.find("#lifecycle").text_content().unwrap().contains("close() returned"));
    page.type_into("#crash-at", "3").await;
    assert_eq!(page.find("#crash-shown").text_content().unwrap(), "Crash at 3.000 s");
}

#[wasm_bindgen_test]
async fn every_option_is_words_and_the_compare_table_marks_this_page() {
    let page = mount().await;
    page.click(".advanced summary").await;
    page.click("#compare-toggle").await;
    let options = page.root.query_selector_all("option").unwrap();
    assert!(options.length() > 30);
    for i in 0..options.length() {
        let text = options.item(i).unwrap().text_content().unwrap();
        let identifier = !text.is_empty() && text.chars().all(|c| c.is_ascii_lowercase() || c == '_');
        assert!(!identifier, "an option reads as an identifier: {text}");
    }
    let current = page.root.query_selector_all("#compare-table tr[aria-current=true]").unwrap();
    assert_eq!(current.length(), 1);
    let row: Element = current.item(0).unwrap().dyn_into().unwrap();
    assert_eq!(row.get_attribute("data-client").unwrap(), "java_classic");
    assert_eq!(row.get_attribute("data-strategy").unwrap(), "auto_commit");
}

/// WCAG 2.x contrast ratio of two sRGB colours (1 to 21).
fn contrast(a: plotters::style::RGBColor, b: plotters::style::RGBColor) -> f64 {
    let luminance = |c: plotters::style::RGBColor| {
        let lin = |v: u8| {
            let s = f64::from(v) / 255.0;
            if s <= 0.03928 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(c.0) + 0.7152 * lin(c.1) + 0.0722 * lin(c.2)
    };
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[wasm_bindgen_test]
fn chart_colours_have_wcag_non_text_contrast() {
    // WCAG 1.4.11: graphical objects need 3:1 against what is next to them (the white plot).
    let white = plotters::style::RGBColor(255, 255, 255);
    for (name, c) in [
        ("position", draw::POSITION),
        ("durable", draw::DURABLE),
        ("committed", draw::COMMITTED),
        ("duplicated", draw::DUPLICATED),
        ("lost", draw::LOST),
        ("crash", draw::CRASH),
    ] {
        let ratio = contrast(c, white);
        assert!(ratio >= 3.0, "{name} {c:?}: {ratio:.2}:1 against white, below 3:1");
    }
}

#[wasm_bindgen_test]
async fn spring_ackmode_batch_preset_shows_its_numbers_and_the_record_marks() {
    let page = mount().await;
    choose(&page, "#preset", &preset("spring-ackmode-batch")).await;
    // scenarios/spring-ackmode-batch.json: record 12 throws; the DefaultErrorHandler delivers
    // it 10 times, then skips it (docs/model.md §12.3); the crash at 8.2 s.
    let story = page.find("#preset-description").text_content().unwrap();
    assert!(story.contains("Spring Kafka 3.x KafkaMessageListenerContainer, AckMode.BATCH"), "{story}");
    assert_eq!(page.value("#ro-lost"), "1");
    assert_eq!(page.value("#ro-duplicated"), "3");
    assert_eq!(page.value("#worst-duplicated"), "5");
    assert_eq!(page.value("#ro-threw"), "1");
    let threw = page.find("#ro-threw").text_content().unwrap();
    assert!(threw.contains("10 failed attempts"), "{threw}");
    assert_eq!(page.find("#ro-given-up").get_attribute("data-skipped").unwrap(), "1");
    // The error policy, in words, with the settings that apply to it.
    let handler = page.find("#f-on_error").dyn_into::<HtmlSelectElement>().unwrap();
    assert_eq!(handler.value(), "seek_to_failed");
    let words = handler.selected_options().item(0).unwrap().text_content().unwrap();
    assert!(words.contains("seek back") && !words.contains('_'), "{words}");
    page.find("#f-max_deliveries");
    assert!(
        page.root.query_selector("#f-error_retries").unwrap().is_none(),
        "retries: only for a retry loop"
    );
    page.find("#records-legend");
    let text = page.find("#chart-text").text_content().unwrap();
    assert!(text.contains("Records that threw") && text.contains("12 (10 failed attempts)"), "{text}");
    // The strip: record 12 pressed (it throws), given up (skipped).
    let twelve = page.find(".record-strip [data-offset=\"12\"]");
    assert_eq!(twelve.get_attribute("aria-pressed").unwrap(), "true");
    assert!(twelve.get_attribute("class").unwrap().contains("skipped"));
}

/// A mouse press and release at (`x`, `y`), device px of `canvas`.
async fn click_canvas(canvas: &HtmlCanvasElement, x: f64, y: f64) {
    let rect = canvas.get_bounding_client_rect();
    let scale = canvas.width() as f64 / rect.width();
    for kind in ["pointerdown", "pointerup"] {
        let init = web_sys::PointerEventInit::new();
        init.set_bubbles(true);
        init.set_pointer_type("mouse");
        init.set_pointer_id(1);
        init.set_client_x((rect.left() + x / scale).round() as i32);
        init.set_client_y((rect.top() + y / scale).round() as i32);
        let e = web_sys::PointerEvent::new_with_event_init_dict(kind, &init).unwrap();
        canvas.dispatch_event(&e).unwrap();
        yew::scheduler::flush().await;
    }
}

#[wasm_bindgen_test]
async fn a_click_on_record_12_in_the_chart_makes_it_throw_and_a_second_heals_it() {
    let page = mount().await;
    assert!(page.root.query_selector("#ro-threw").unwrap().is_none(), "no record can throw yet");
    let overlay = page.find("#main-chart canvas.overlay").dyn_into::<HtmlCanvasElement>().unwrap();
    let scale = overlay.width() as f64 / overlay.client_width() as f64;
    let run = simulate(&Scenario::default()).unwrap();
    let f = ChartKind::Main.frame((overlay.width(), overlay.height()), scale, &run);
    // Record 12 completes at 2.6 s (200 ms a record, in order): where the durable frontier
    // steps over it.
    let (x, y) = offset_window_view::consumer::records::record_point(&f, 2_600_000, 12);
    click_canvas(&overlay, x, y).await;
    assert_eq!(page.value("#ro-threw"), "1");
    assert_eq!(
        page.find("#crash-at").dyn_into::<HtmlInputElement>().unwrap().value(),
        "8.200",
        "the crash stays"
    );
    // Logged and skipped; the auto-commit at 5 s passes it: lost 1 at 8.2 s.
    assert_eq!(page.value("#ro-lost"), "1");
    let field = page.find("#f-record-failures").dyn_into::<HtmlInputElement>().unwrap();
    assert_eq!(field.value(), "12");
    let twelve = page.find(".record-strip [data-offset=\"12\"]");
    assert_eq!(twelve.get_attribute("aria-pressed").unwrap(), "true");
    // The chart's ring and square where it threw. The record marks' legend under the
    // charts leaves the main chart less room: wait for its redraw at the new size.
    let base = page.find("#main-chart canvas.base").dyn_into::<HtmlCanvasElement>().unwrap();
    let run = simulate(&Scenario { record_failures: vec![12], ..Scenario::default() }).unwrap();
    let mut at = (0.0, 0.0);
    for _ in 0..50 {
        let tick = js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window()
                .unwrap()
                .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 20)
                .unwrap();
        });
        wasm_bindgen_futures::JsFuture::from(tick).await.unwrap();
        yew::scheduler::flush().await;
        let f = ChartKind::Main.frame((base.width(), base.height()), scale, &run);
        at = offset_window_view::consumer::records::record_point(&f, 2_600_000, 12);
        if pixels(&base, at.0, at.1, 1).iter().any(|p| near(*p, draw::LOST)) {
            break;
        }
    }
    let (x, y) = at;
    assert!(pixels(&base, x, y, 1).iter().any(|p| near(*p, draw::LOST)), "the skipped record's square");
    // Again, where it now ends: it succeeds again; the strip's button does the same.
    click_canvas(&overlay, x, y).await;
    assert!(page.root.query_selector("#ro-threw").unwrap().is_none());
    assert_eq!(page.value("#ro-lost"), "0");
    page.click(".record-strip [data-offset=\"3\"]").await;
    assert_eq!(field.value(), "3");
    assert_eq!(page.value("#ro-threw"), "1");
}
