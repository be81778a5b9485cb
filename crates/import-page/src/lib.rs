//! The import module: the consumer and group pages' "your consumer" panel (issue 33) as its
//! own WebAssembly module. The pages show only a button (and a script, `web/import-panel.js`,
//! inlined into their HTML); its first press fetches this module, whose [`panel`] then draws
//! the panel into the page: paste or drop a consumer's own configuration (Java client
//! properties, Spring Boot `application.yml` / `.properties`, librdkafka, the Go and
//! JavaScript clients' settings, `kafka-consumer-groups.sh` / `kafka-topics.sh` output), read
//! by the pure importer `offset-window-import` as `offset-window import` reads it, and see
//! the account of every property, the worst crash instants and the link that applies the
//! scenario to the page (the runner's own link, `offset_window_view::page_link`). So the
//! pages' own wasm carries neither the importer nor its YAML and properties parsers (the
//! pages' size budget, README "Figures"). Trunk builds it beside the consumer page
//! (`data-type="worker"` in `index.html`); the group page fetches that same copy.

#![forbid(unsafe_code)]

pub mod render;

#[cfg(target_arch = "wasm32")]
mod panel;
