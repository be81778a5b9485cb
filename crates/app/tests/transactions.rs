//! The transactions page (`transactions/`, docs/model.md §13) in headless Chromium: mount it,
//! open a preset, move the instant with the slider and the exact seconds field, type a value
//! the core refuses and see its reason under the field while the page keeps its run.
//!
//! `cargo test -p offset-window-app --target wasm32-unknown-unknown --test transactions`
//! (with `CHROMEDRIVER=/usr/bin/chromedriver`; flags in `webdriver.json`).

#![cfg(target_arch = "wasm32")]

use offset_window_app::transactions::TxnApp;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

mod common;

type View = common::View<TxnApp>;

async fn mount_at(fragment: &str) -> View {
    common::add_style("txn-style", include_str!("../../../web/transactions.css"));
    common::mount_at(fragment).await
}

impl View {
    fn data(&self, selector: &str, name: &str) -> String {
        self.find(selector).get_attribute(&format!("data-{name}")).unwrap_or_default()
    }
}

#[wasm_bindgen_test]
async fn mounts_with_the_first_preset_and_its_lag_per_client() {
    let v = mount_at("").await;
    assert_eq!(v.data("#ro-hw", "value"), "6");
    assert_eq!(v.data("#ro-lso", "value"), "6");
    // Committing the position: LAG 0; committing the last record + 1: LAG 1 for ever.
    assert_eq!(v.data("#reader-0", "lag"), "0");
    assert_eq!(v.data("#reader-1", "lag"), "1");
    assert!(v.find("#txn-chart canvas").has_attribute("data-x-end-us"));
}

#[wasm_bindgen_test]
async fn a_preset_then_the_slider_and_the_seconds_field_read_an_instant() {
    let v = mount_at("").await;
    v.select("#preset", "1").await;
    assert!(v.find("#preset-story").text_content().unwrap().contains("tx-a dies"));
    assert_eq!(v.data("#reader-0", "stall"), "1.000–20.000 s");
    // The slider is in ms: 10 s.
    v.type_into("#at", "10000").await;
    assert_eq!(v.data("#ro-lso", "value"), "1");
    assert_eq!(v.data("#reader-0", "lag"), "5");
    assert_eq!(v.data("#reader-0", "stall"), "since 1.000 s");
    assert_eq!(v.data("#reader-1", "aborted"), "3");
    // The exact field: just after the abort marker at 20 s.
    v.type_into("#at-seconds", "20.000001").await;
    assert_eq!(v.data("#ro-lso", "value"), "7");
    assert_eq!(v.find("#at-shown").text_content().unwrap(), "20.000001 s");
}

#[wasm_bindgen_test]
async fn a_refused_value_is_named_under_its_field_and_the_run_stays() {
    let v = mount_at("preset=killed-producer").await;
    let key = "#transaction-abort-timed-out-transaction-cleanup-interval-ms";
    v.type_into(key, "0").await;
    let error = v.find(&format!("{key}-error")).text_content().unwrap();
    assert!(error.contains("1 to 2147483647"), "{error}");
    assert_eq!(v.find(key).get_attribute("aria-invalid").as_deref(), Some("true"));
    assert_eq!(v.data("#reader-0", "stall"), "1.000–20.000 s");
    v.type_into(key, "2000").await;
    assert!(v.root.query_selector(&format!("{key}-error")).unwrap().is_none());
    assert_eq!(v.data("#reader-0", "stall"), "1.000–12.000 s");
}
