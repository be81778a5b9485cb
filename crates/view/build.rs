//! Writes, for the pages' presets (src/consumer/presets.rs, src/group/presets.rs), each
//! `scenarios/*.json` file without what a page never reads: the whitespace, and the
//! description of a preset whose story the page words itself (every preset but the frameworks', `spring-*` and
//! `parallel-consumer-*`, whose story is their description), and of the transactions page's
//! `txn-*` files and the pipeline page's `eos-*` files everything but the scenario. The files in `scenarios/`
//! stay what the tests and the command-line runner read.

use std::path::Path;
use std::{env, fs};

fn main() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    println!("cargo:rerun-if-changed={}", src.display());
    let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("scenarios");
    fs::create_dir_all(&out).expect("OUT_DIR is writable");
    for entry in fs::read_dir(&src).expect("scenarios/ is there") {
        let path = entry.expect("scenarios/ is readable").path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).filter(|n| n.ends_with(".json")) else {
            continue;
        };
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("scenarios/{name}: {e}"));
        let mut file: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("scenarios/{name}: {e}"));
        let framework = name.starts_with("spring-") || name.starts_with("parallel-consumer-");
        if let (false, Some(map)) = (framework, file.as_object_mut()) {
            map.remove("description");
        }
        // The transactions and pipeline pages read a file's scenario only (they check no
        // expectations).
        let scenario_only = name.starts_with("txn-") || name.starts_with("eos-");
        if let (true, Some(map)) = (scenario_only, file.as_object_mut()) {
            map.retain(|k, _| k == "scenario");
        }
        fs::write(out.join(name), file.to_string()).expect("OUT_DIR is writable");
    }
}
