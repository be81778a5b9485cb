//! The producer view (the producer page, `producer/`) in headless Chromium: mount it, place a fault with
//! a mouse click on the time axis, switch idempotence, read the counters (docs/model.md §9
//! reference: 4 batches of 5, ack of batch 1 lost: 25 records without idempotence, 20 with).
//!
//! `cargo test -p offset-window-app --target wasm32-unknown-unknown --tests`
//! (with `CHROMEDRIVER=/usr/bin/chromedriver`; flags in `webdriver.json`).

#![cfg(target_arch = "wasm32")]

use offset_window_app::producer::ProducerApp;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

mod common;

type View = common::View<ProducerApp>;

async fn mount() -> View {
    mount_at("").await
}

/// Mounts the page as if opened with `#fragment` in the URL.
async fn mount_at(fragment: &str) -> View {
    common::mount_at(fragment).await
}

impl View {
    fn count(&self, id: &str) -> u64 {
        self.find(&format!("#{id}")).get_attribute("data-value").unwrap().parse().unwrap()
    }

    fn counters(&self) -> [u64; 4] {
        ["pc-log", "pc-twice", "pc-never", "pc-dropped"].map(|id| self.count(id))
    }

    async fn click(&self, selector: &str) {
        self.find(selector).dyn_into::<HtmlElement>().unwrap().click();
        yew::scheduler::flush().await;
        yew::scheduler::flush().await;
    }

    /// Clicks the time axis where send `target` (`"batch.attempt"`) is drawn, as a mouse
    /// would: a `click` event with client coordinates.
    async fn click_send(&self, target: &str) {
        let canvas = self.find("#producer-axis canvas");
        let targets = canvas.get_attribute("data-targets").expect("the axis lists its sends");
        let (x, y) = targets
            .split(';')
            .find_map(|t| {
                let (name, xy) = t.split_once(':')?;
                let (x, y) = xy.split_once(',')?;
                (name == target).then(|| (x.parse::<f64>().unwrap(), y.parse::<f64>().unwrap()))
            })
            .unwrap_or_else(|| panic!("no send {target} in {targets}"));
        let rect = canvas.get_bounding_client_rect();
        let init = js_sys::Object::new();
        for (k, v) in [
            ("bubbles", JsValue::TRUE),
            ("clientX", (rect.left() + x).into()),
            ("clientY", (rect.top() + y).into()),
        ] {
            js_sys::Reflect::set(&init, &k.into(), &v).unwrap();
        }
        let ctor: js_sys::Function =
            js_sys::Reflect::get(&web_sys::window().unwrap(), &"MouseEvent".into()).unwrap().unchecked_into();
        let event = js_sys::Reflect::construct(&ctor, &js_sys::Array::of2(&"click".into(), &init)).unwrap();
        canvas.dispatch_event(event.unchecked_ref()).unwrap();
        yew::scheduler::flush().await;
        yew::scheduler::flush().await;
    }
}

#[wasm_bindgen_test]
async fn mounts_with_the_defaults() {
    let view = mount().await;
    // 20 records in 4 batches of 5, nothing goes wrong: [log, twice, never, dropped].
    assert_eq!(view.counters(), [20, 0, 0, 0]);
    assert_eq!(view.root.query_selector_all("#plog li").unwrap().length(), 4);
    assert!(view.find("a[href='../']").text_content().unwrap().contains("consumer view"));
}

#[wasm_bindgen_test]
async fn model_reference_lost_ack_25_without_idempotence_20_with() {
    let view = mount().await;
    view.click_send("1.1").await; // "ack lost" is the kind selected at first
    assert_eq!(view.root.query_selector_all("#faults li").unwrap().length(), 1);
    assert_eq!(view.counters(), [20, 0, 0, 1], "idempotence on (default): the resend is dropped");
    view.select("#p-idempotence", "false").await;
    assert_eq!(view.counters(), [25, 5, 0, 0], "idempotence off: batch 1 written twice");
    let dup = view.find("#plog li.dup");
    assert_eq!(dup.get_attribute("data-offset").as_deref(), Some("20"));
    assert!(dup.text_content().unwrap().contains("DUPLICATE"));
    view.select("#p-idempotence", "true").await;
    assert_eq!(view.counters(), [20, 0, 0, 1]);
    assert!(view.root.query_selector("#plog li.dup").unwrap().is_none());
    // The leader remembers four batches of the one producer id.
    assert_eq!(view.root.query_selector_all(".mem td.empty").unwrap().length(), 2);
}

#[wasm_bindgen_test]
async fn a_second_click_removes_the_fault() {
    let view = mount().await;
    view.click_send("2.1").await;
    assert_eq!(view.count("pc-dropped"), 1);
    view.click_send("2.1").await;
    assert_eq!(view.root.query_selector_all("#faults li").unwrap().length(), 0);
    assert_eq!(view.counters(), [20, 0, 0, 0]);
}

#[wasm_bindgen_test]
async fn refused_settings_show_the_core_message() {
    let view = mount().await;
    view.select("#p-idempotence", "true").await;
    view.type_into("#p-max-in-flight-requests-per-connection", "6").await;
    let e = view.find("#p-max-in-flight-requests-per-connection ~ .field-error").text_content().unwrap();
    assert!(e.contains("max.in.flight.requests.per.connection"), "{e}");
    view.select("#p-acks", "1").await;
    assert!(view.find("#p-acks ~ .field-error").text_content().unwrap().contains("acks"));
    assert_eq!(view.count("pc-log"), 20, "the page keeps the last good scenario");
    // Left at its default, acks=1 silently turns idempotence off: said in a note.
    view.select("#p-idempotence", "default").await;
    view.select("#p-acks", "1").await;
    assert!(view.find("#p-notes").text_content().unwrap().contains("Idempotence is off"));
    view.type_into("#p-batch-size", "abc").await;
    assert!(view.find("#p-batch-size ~ .field-error").text_content().unwrap().contains("batch.size"));
}

#[wasm_bindgen_test]
async fn the_tour_reads_its_numbers_from_the_core() {
    let view = mount().await;
    view.click("#tour-start").await;
    let caption = view.find("#tour-caption").text_content().unwrap();
    assert!(caption.contains("holds 25 records"), "{caption}");
    view.click("#tour-next").await;
    assert_eq!(view.counters(), [20, 0, 0, 1]);
    for _ in 0..4 {
        view.click("#tour-next").await;
    }
    assert_eq!(view.count("pc-fenced"), 1);
    assert!(view.find("#tour-next").has_attribute("disabled"), "no step after the last");
    view.click("#tour-back").await;
    assert_eq!(view.counters()[..2], [25, 5], "the producer restart writes batch 1 twice");
}

#[wasm_bindgen_test]
async fn faults_can_be_placed_without_a_mouse() {
    let view = mount().await;
    view.select("#p-fault-batch", "3").await;
    view.click("#p-fault-add").await; // ack lost on batch 3
    assert_eq!(view.count("pc-dropped"), 1);
    let failover = view.find("input[value='leader_failover']").dyn_into::<HtmlInputElement>().unwrap();
    failover.set_checked(true);
    view.fire("input[value='leader_failover']", "change").await;
    view.type_into("#p-fault-at", "7").await;
    view.click("#p-fault-add").await;
    // The leader fails at 7 ms, after the appends and before the answers: all four resent,
    // the new leader drops them.
    assert_eq!(view.root.query_selector_all("#faults li").unwrap().length(), 2);
    assert_eq!(view.counters(), [20, 0, 0, 4]);
    // A time that is not one: a message, nothing placed or removed.
    view.type_into("#p-fault-at", "abc").await;
    view.click("#p-fault-add").await;
    assert_eq!(view.root.query_selector_all("#faults li").unwrap().length(), 2);
    let text = view.find(".faults-box").text_content().unwrap();
    assert!(text.contains("at (ms)") && text.contains("abc") && text.contains("nothing placed"), "{text}");
}

#[wasm_bindgen_test]
async fn the_url_holds_the_scenario_and_a_link_reproduces_it() {
    let view = mount().await;
    view.select("#p-idempotence", "false").await;
    view.click_send("1.1").await;
    assert_eq!(view.count("pc-log"), 25);
    let hash = web_sys::window().unwrap().location().hash().unwrap();
    drop(view);
    let again = mount_at(hash.trim_start_matches('#')).await;
    assert_eq!(again.counters(), [25, 5, 0, 0], "the link from {hash}");
    drop(again);
    assert!(hash.contains("enable.idempotence=false"), "key=value pairs, as the other pages: {hash}");
    // A pair the core refuses is named; the others apply.
    let bad = mount_at("acks=2&enable.idempotence=false").await;
    let message = bad.find("#p-link-error").text_content().unwrap();
    assert!(message.contains("acks"), "{message}");
    assert_eq!(bad.find("#p-idempotence").dyn_into::<HtmlSelectElement>().unwrap().value(), "false");
    drop(bad);
    // This page's older links, one JSON object, still open.
    let text = String::from(js_sys::encode_uri_component(r#"{"acks":"1"}"#));
    let old = mount_at(&text).await;
    assert!(old.root.query_selector("#p-link-error").unwrap().is_none());
    assert_eq!(old.find("#p-acks").dyn_into::<HtmlSelectElement>().unwrap().value(), "1");
}
