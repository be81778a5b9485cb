//! Every file in `scenarios/` holds a scenario, a one-line description and expected values
//! (JSON pointers into the result of `offset-window run`; for the `txn-*` files, of
//! `offset-window transactions`, model.md §13; for the `eos-*` files, of `offset-window pipeline`, §14). Each is checked twice: through the core
//! (`Run::summary_at`, `simulate_transactions`, `simulate_pipeline`) and through the binary.

use assert_cmd::Command;
use offset_window_sim::pipeline::{simulate_pipeline, PipelineScenario};
use offset_window_sim::transactions::{simulate_transactions, TxnScenario};
use offset_window_sim::{simulate, Input};
use serde_json::Value;
use std::path::PathBuf;

fn scenario_files() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 27, "scenario files missing from {}", dir.display());
    files
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert!(file["description"].as_str().is_some_and(|d| !d.is_empty()), "{name}: no description");
            (name, file)
        })
        .collect()
}

/// Whether a `scenarios/` file holds a transactions scenario (model.md §13).
fn is_transactions(name: &str) -> bool {
    name.starts_with("txn-")
}

/// Whether a `scenarios/` file holds a pipeline scenario (model.md §14).
fn is_pipeline(name: &str) -> bool {
    name.starts_with("eos-")
}

fn check(name: &str, via: &str, result: &Value, expect: &Value) {
    for (pointer, expected) in expect.as_object().unwrap() {
        let actual =
            result.pointer(pointer).unwrap_or_else(|| panic!("{name} ({via}): no {pointer} in {result}"));
        let equal = match (actual.as_f64(), expected.as_f64()) {
            (Some(a), Some(e)) if actual.is_f64() || expected.is_f64() => (a - e).abs() < 1e-12,
            _ => actual == expected,
        };
        assert!(equal, "{name} ({via}): {pointer} is {actual}, expected {expected}");
    }
}

#[test]
fn scenario_files_hold_through_the_core() {
    for (name, file) in scenario_files() {
        if is_pipeline(&name) {
            let scenario =
                PipelineScenario::from_value(&file["scenario"]).unwrap_or_else(|e| panic!("{name}: {e}"));
            let run = serde_json::to_value(simulate_pipeline(&scenario).unwrap()).unwrap();
            check(&name, "core", &run, &file["expect"]);
            continue;
        }
        if is_transactions(&name) {
            let scenario =
                TxnScenario::from_value(&file["scenario"]).unwrap_or_else(|e| panic!("{name}: {e}"));
            let run = serde_json::to_value(simulate_transactions(&scenario).unwrap()).unwrap();
            check(&name, "core", &run, &file["expect"]);
            continue;
        }
        let input = Input::from_value(&file["scenario"]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let run = simulate(&input.scenario).unwrap();
        let summary = serde_json::to_value(run.summary_at(input.crash_at_us)).unwrap();
        check(&name, "core", &summary, &file["expect"]);
    }
}

#[test]
fn scenario_files_hold_through_the_binary() {
    for (name, file) in scenario_files() {
        // The file itself (as the README runs it), and its scenario object on stdin.
        let path = format!("{}/../../scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
        let command = if is_pipeline(&name) {
            "pipeline"
        } else if is_transactions(&name) {
            "transactions"
        } else {
            "run"
        };
        for (how, args, stdin) in [
            (format!("offset-window {command} FILE"), [command, path.as_str()], String::new()),
            (format!("offset-window {command} -"), [command, "-"], file["scenario"].to_string()),
        ] {
            let out =
                Command::cargo_bin("offset-window").unwrap().args(args).write_stdin(stdin).output().unwrap();
            assert!(out.status.success(), "{name} via {how}: {}", String::from_utf8_lossy(&out.stderr));
            let result: Value = serde_json::from_slice(&out.stdout).unwrap();
            check(&name, &how, &result, &file["expect"]);
        }
    }
}
