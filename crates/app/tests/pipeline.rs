//! The pipeline page (`pipeline/`, docs/model.md §14) in headless Chromium: mount it at P1,
//! read what downstream saw per isolation level and outside Kafka, move the crash with the
//! slider and the exact seconds field, open a preset, turn the guarantee to at_least_once, and
//! type values the core refuses: each is named under its field with the allowed range while
//! the page keeps its run; P7, whose first event is a join the slider moves.
//!
//! `cargo test -p offset-window-app --target wasm32-unknown-unknown --test pipeline`
//! (with `CHROMEDRIVER=/usr/bin/chromedriver`; flags in `webdriver.json`).

#![cfg(target_arch = "wasm32")]

use offset_window_app::pipeline::PipelineApp;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlInputElement;

wasm_bindgen_test_configure!(run_in_browser);

mod common;

type View = common::View<PipelineApp>;

async fn mount_at(fragment: &str) -> View {
    common::add_style("pipe-style", include_str!("../../../web/pipeline.css"));
    common::mount_at(fragment).await
}

impl View {
    fn data(&self, selector: &str, name: &str) -> String {
        self.find(selector).get_attribute(&format!("data-{name}")).unwrap_or_default()
    }

    fn counts(&self, row: usize) -> [String; 4] {
        let sel = format!("#down-{row}");
        ["once", "twice", "more", "never"].map(|k| self.data(&sel, k))
    }

    fn text(&self, selector: &str) -> String {
        self.find(selector).text_content().unwrap_or_default()
    }
}

#[wasm_bindgen_test]
async fn mounts_at_p1_with_what_downstream_saw() {
    let v = mount_at("").await;
    // read_committed: 100 once; read_uncommitted and the side effect: 41–44 twice.
    assert_eq!(v.counts(0), ["100", "0", "0", "0"]);
    assert_eq!(v.data("#down-0", "isolation"), "read_committed");
    assert_eq!(v.counts(1), ["96", "4", "0", "0"]);
    assert_eq!(v.data("#down-2", "name"), "side effect");
    assert_eq!(v.counts(2), ["96", "4", "0", "0"]);
    assert_eq!(v.data("#ro-lso", "value"), "111");
    assert_eq!(v.data("#ro-aborted", "value"), "4");
    assert_eq!(v.find("#pipe-chart canvas").get_attribute("data-crash-us").as_deref(), Some("4500000"));
    assert!(v.text("#input-stalls").contains("owner down from 4.500 s to 48.000 s"));
    // The producer half is the story here: the producer page is linked.
    assert!(v.root.query_selector("#producer-link a[href='../producer/']").unwrap().is_some());
}

#[wasm_bindgen_test]
async fn the_crash_slider_and_its_seconds_field_move_the_crash() {
    let v = mount_at("").await;
    // The slider is in ms: killed at 2 s, inside the transaction of 11–19 (begun 1.110 s;
    // its commit would come at 2.011 s).
    v.type_into("#crash", "2000").await;
    assert_eq!(v.text("#crash-shown"), "2.000 s");
    assert_eq!(v.find("#crash-seconds").dyn_into::<HtmlInputElement>().unwrap().value(), "2");
    assert_eq!(v.counts(0)[0], "100", "read_committed still sees every record once");
    assert_eq!(v.counts(1)[1], "9", "read_uncommitted sees 11–19's outputs twice");
    // The exact field; then a value past the horizon, refused with the range.
    v.type_into("#crash-seconds", "4.5").await;
    assert_eq!(v.counts(1)[1], "4");
    v.type_into("#crash-seconds", "99").await;
    assert!(v.text("#crash-error").contains("0 to 80 s"), "{}", v.text("#crash-error"));
    assert_eq!(v.text("#crash-shown"), "4.500 s");
}

#[wasm_bindgen_test]
async fn refused_values_name_their_field_and_range_and_the_run_stays() {
    let v = mount_at("").await;
    let key = "#service-commit-interval-ms";
    v.type_into(key, "0").await;
    let error = v.text(&format!("{key}-error"));
    assert!(error.contains("service.commit.interval.ms") && error.contains("1 to 86400000"), "{error}");
    assert_eq!(v.find(key).get_attribute("aria-invalid").as_deref(), Some("true"));
    assert_eq!(v.counts(1)[1], "4");
    v.type_into(key, "70000").await;
    assert!(v.text(&format!("{key}-error")).contains("transaction.timeout.ms"));
    v.type_into(key, "500").await;
    assert!(v.root.query_selector(&format!("{key}-error")).unwrap().is_none());
}

#[wasm_bindgen_test]
async fn at_least_once_and_a_preset() {
    let v = mount_at("").await;
    v.select("#service-processing-guarantee", "at_least_once").await;
    assert!(v.root.query_selector("#service-transaction-timeout-ms").unwrap().is_none());
    assert_ne!(v.counts(0)[1], "0", "read_committed sees duplicates without transactions");
    // The zombie (its file is in the tests' wasm).
    v.select("#preset", "3").await;
    assert!(v.text("#preset-story").contains("zombie"));
    assert_eq!(v.counts(0), ["100", "0", "0", "0"]);
    assert_eq!(v.counts(1)[1], "4");
    assert_eq!(v.text("#crash-shown"), "4.500 s");
    assert!(v.find("label[for=crash]").text_content().unwrap().starts_with("The hang"));
}

#[wasm_bindgen_test]
async fn a_link_past_the_horizon_is_clamped_and_said() {
    let v = mount_at("crash=500").await;
    assert!(v.text("#notices").contains("crash=500 is outside 0 to 80 s"), "{}", v.text("#notices"));
    assert_eq!(v.text("#crash-shown"), "80.000 s");
}

#[wasm_bindgen_test]
async fn p7_a_scale_out_the_slider_moves_the_join() {
    let v = mount_at("preset=scale-out").await;
    assert!(v.text("#preset-story").contains("scale-out"), "{}", v.text("#preset-story"));
    assert_eq!(v.counts(0), ["40", "0", "0", "0"]);
    assert_eq!(v.counts(1), ["40", "0", "0", "0"]);
    assert_eq!(v.text("label[for=crash]"), "The join: 1.050 s");
    assert!(v.text("#crash-what").starts_with("instance 1 joins at 1.050 s"), "{}", v.text("#crash-what"));
    assert!(v.root.query_selector("#events-0--restart-after-ms").unwrap().is_none(), "no restart field");
    assert!(v.text("#rebalances").contains("partition 0 → instance 0, partition 1 → instance 1"));
    assert!(v.text("#pipe-key").contains("the join"));
    assert_eq!(v.find("#pipe-chart canvas").get_attribute("data-crash-us").as_deref(), Some("1050000"));
    v.type_into("#crash-seconds", "1.5").await;
    assert_eq!(v.text("#crash-shown"), "1.500 s");
    assert!(v.text("#rebalances").starts_with("1.500 s to 1.500 s"), "{}", v.text("#rebalances"));
    assert_eq!(v.counts(0)[0], "40");
    v.type_into("#crash-seconds", "6").await;
    assert!(v.text("#crash-error").contains("the join must be 0 to 5 s"), "{}", v.text("#crash-error"));
}
