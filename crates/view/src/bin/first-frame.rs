//! Writes the first frame into built pages: `first-frame PAGE.html…` replaces, in each file,
//! the marker `<div id="first-frame-here"></div>` with the consumer page at its defaults
//! (see `offset_window_view::consumer::first_frame`) or `<div id="group-first-frame-here"></div>`
//! with the group page at its defaults (`offset_window_view::group::first_frame`), rendered
//! here by the native core. Run by the Trunk post-build hook (`scripts/trunk-post-build.sh`)
//! on the staged `index.html` and `group/index.html`, and `pipeline/index.html` (no first frame:
//! only its `presets.json`). Beside each it writes `presets.json`,
//! the presets' files the page fetches on the first one chosen that it does not carry.

use std::process::ExitCode;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: first-frame PAGE.html…");
        return ExitCode::from(2);
    }
    for file in files {
        // The pipeline page has no first frame: only its presets' files beside it.
        if file.ends_with("pipeline/index.html") {
            let beside = std::path::Path::new(&file).with_file_name("presets.json");
            if let Err(e) = std::fs::write(&beside, offset_window_view::pipeline::presets::all_json()) {
                eprintln!("first-frame: {}: {e}", beside.display());
                return ExitCode::FAILURE;
            }
            continue;
        }
        let filled = std::fs::read_to_string(&file).map_err(|e| e.to_string()).and_then(|html| {
            if html.contains(offset_window_view::group::first_frame::MARKER) {
                offset_window_view::group::first_frame::fill(&html)
            } else {
                offset_window_view::consumer::first_frame::fill(&html)
            }
        });
        // Each page fetches its presets' files on the first one chosen that it does not carry.
        let presets = if file.ends_with("group/index.html") {
            offset_window_view::group::presets::all_json()
        } else {
            offset_window_view::consumer::presets::all_json()
        };
        let beside = std::path::Path::new(&file).with_file_name("presets.json");
        let written = filled
            .and_then(|html| std::fs::write(&file, html).map_err(|e| e.to_string()))
            .and_then(|()| std::fs::write(&beside, presets).map_err(|e| e.to_string()));
        match written {
            Ok(()) => eprintln!("first frame written into {file}"),
            Err(e) => {
                eprintln!("first-frame: {file}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
