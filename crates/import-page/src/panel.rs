//! The panel in the page: the form (paste, drop or choose files, whose configuration, what
//! was measured), read on the button, on each file added, and shown by [`crate::render`].
//! It lives as long as the page, so its listeners are never removed.

use crate::render::{self, Page, Request};
use offset_window_import::Measured;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    Document, DragEvent, Element, Event, FileList, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement,
};

/// The form. Its ids start with `import-`; the page's own section holds it (`#import-panel`).
const FORM: &str = r##"<div class="import-form" id="import-form">
<label for="import-text">Paste a configuration file or a tool's output</label>
<textarea id="import-text" rows="9" spellcheck="false" autocomplete="off" placeholder="spring:
  kafka:
    consumer:
      max-poll-records: 500
    listener:
      ack-mode: record"></textarea>
<p class="hint">Or drop files on this box, or <label class="file-pick" for="import-files">choose files</label><input type="file" id="import-files" multiple>: consumer.properties, application.yml or .properties, a librdkafka or client settings JSON, kafka-consumer-groups.sh --describe (with --members --verbose) and kafka-topics.sh --describe output, together.</p>
<p class="hint" id="import-file-list" hidden></p>
<div class="import-options">
<div><label for="import-client">Whose configuration</label>
<select id="import-client"><option value="">as its property names tell</option><option value="java">Java client</option><option value="spring">Spring Boot</option><option value="librdkafka">librdkafka / confluent-kafka</option><option value="sarama">sarama</option><option value="franz-go">franz-go</option><option value="kafka-go">kafka-go</option><option value="kafkajs">KafkaJS</option></select></div>
<details><summary>What you measured (optional)</summary><div class="import-measured">
<div><label for="import-rate">records produced per second</label><input id="import-rate" inputmode="decimal"></div>
<div><label for="import-ms">processing per record, mean ms</label><input id="import-ms" inputmode="decimal"></div>
<div><label for="import-p50">or its p50, ms</label><input id="import-p50" inputmode="decimal"></div>
<div><label for="import-p99">and p99, ms</label><input id="import-p99" inputmode="decimal"></div>
</div><p class="hint">Percentiles become the model's jitter (docs/model.md §8.12): uniform around p50 while p99 ≤ 1.98 × p50, else exponential with the same median.</p></details>
</div>
<div class="import-buttons"><button type="button" id="import-read">Read it</button><button type="button" id="import-clear">Clear</button></div>
</div>
<div id="import-out" aria-live="polite"></div>"##;

/// The panel's own style: the page's style sheet stays as it was (its size), and the
/// panel uses its colours.
const STYLE: &str = r#"
.import-form textarea { width: 100%; font: 0.85rem/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; color: var(--ink); background: var(--paper); border: 1px solid var(--field); border-radius: 6px; padding: 0.4rem 0.5rem; resize: vertical; }
.import-form.dragging textarea { outline: 3px dashed var(--accent); outline-offset: 2px; }
.import-form label { font-size: 0.9rem; }
.import-form > label:first-child { display: block; margin: 0.6rem 0 0.2rem; font-weight: 600; }
.import-form #import-files { position: absolute; width: 1px; height: 1px; opacity: 0; }
.import-form .file-pick { text-decoration: underline; cursor: pointer; color: var(--accent); font-size: inherit; }
.import-form #import-files:focus-visible + .file-pick, .import-form .file-pick:hover { outline: 2px solid var(--accent); }
.import-options { display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; align-items: start; margin: 0.6rem 0; }
.import-options > div { display: flex; flex-direction: column; gap: 0.15rem; }
.import-options select, .import-measured input { font: inherit; font-size: 0.9rem; padding: 0.2rem 0.3rem; max-width: 100%; }
.import-options details { flex: 1 1 20rem; }
.import-options summary { cursor: pointer; font-size: 0.9rem; }
.import-measured { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: 0.4rem 0.75rem; margin-top: 0.4rem; }
.import-measured > div { display: flex; flex-direction: column; }
.import-measured label { font-size: 0.82rem; }
.import-buttons { display: flex; gap: 0.5rem; flex-wrap: wrap; }
#import-out:not(:empty) { margin-top: 0.75rem; border-top: 1px solid var(--line); padding-top: 0.5rem; }
.import-result p { margin: 0.3rem 0; }
.import-result h3 { font-size: 0.95rem; margin: 0.8rem 0 0.3rem; }
#import-scenario { overflow-wrap: anywhere; }
.import-worst b { font-variant-numeric: tabular-nums; }
a.button { display: inline-block; padding: 0.45rem 0.9rem; border-radius: 6px; background: var(--accent); color: var(--paper); text-decoration: none; font-weight: 600; }
a.button:focus-visible { outline: 3px solid var(--ink); outline-offset: 2px; }
.import-account { border-collapse: collapse; width: 100%; font-size: 0.85rem; }
.import-account th, .import-account td { border-bottom: 1px solid var(--line); padding: 0.25rem 0.4rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
.import-account td:first-child { white-space: nowrap; }
.import-account td:last-child b::before { content: "\25CF\00A0"; color: var(--muted); }
.import-account tr[data-status="applied"] b::before { color: var(--durable); }
.import-account tr[data-status="not-modelled"] b::before, .import-account tr[data-status="not-evaluated"] b::before { color: var(--duplicated); }
.import-result ul { margin: 0.2rem 0; padding-left: 1.2rem; font-size: 0.9rem; }
.import-error { color: var(--error); background: var(--error-wash); border: 1px solid var(--error); border-radius: 6px; padding: 0.4rem 0.6rem; font-weight: 600; overflow-wrap: anywhere; }
@media (max-width: 600px) {
  .import-account thead { display: none; }
  .import-account tr { display: block; border-bottom: 1px solid var(--line); padding: 0.3rem 0; }
  .import-account td { display: block; border: 0; padding: 0.05rem 0.2rem; }
  .import-account td:first-child { color: var(--muted); }
}
"#;

/// The panel's elements and the files added so far.
struct Panel {
    page: Page,
    doc: Document,
    files: RefCell<Vec<(String, String)>>,
}

impl Panel {
    fn by_id<T: JsCast>(&self, id: &str) -> Option<T> {
        self.doc.get_element_by_id(id).and_then(|e| e.dyn_into::<T>().ok())
    }

    fn value(&self, id: &str) -> String {
        self.by_id::<HtmlInputElement>(id).map(|i| i.value().trim().to_string()).unwrap_or_default()
    }

    /// Reads what is there and shows it.
    fn read(&self) {
        let optional = |id: &str| Some(self.value(id)).filter(|v| !v.is_empty());
        let request = Request {
            files: self.files.borrow().clone(),
            pasted: self.by_id::<HtmlTextAreaElement>("import-text").map(|t| t.value()).unwrap_or_default(),
            client: self.by_id::<HtmlSelectElement>("import-client").map(|s| s.value()).unwrap_or_default(),
            measured: Measured {
                records_per_s: optional("import-rate"),
                processing_ms: optional("import-ms"),
                processing_p50_ms: optional("import-p50"),
                processing_p99_ms: optional("import-p99"),
            },
        };
        let shown = render::show(self.page, &request);
        if let Some(out) = self.doc.get_element_by_id("import-out") {
            out.set_inner_html(&shown.html);
        }
    }

    /// Shows the files added so far.
    fn list_files(&self) {
        let Some(list) = self.doc.get_element_by_id("import-file-list") else { return };
        let files = self.files.borrow();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        list.set_text_content(Some(&format!("Files: {} (Clear removes them)", names.join(", "))));
        let _ =
            if files.is_empty() { list.set_attribute("hidden", "") } else { list.remove_attribute("hidden") };
    }

    /// Reads `files` (text, UTF-8), adds them, and reads everything. The list is copied
    /// first: a file input's list empties when the input is cleared.
    fn add(self: &Rc<Self>, files: FileList) {
        let panel = self.clone();
        let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
        wasm_bindgen_futures::spawn_local(async move {
            for file in files {
                let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
                let text = text.ok().and_then(|t| t.as_string()).unwrap_or_default();
                let mut list = panel.files.borrow_mut();
                // The same name again replaces the earlier copy.
                list.retain(|(n, _)| *n != file.name());
                list.push((file.name(), text));
            }
            panel.list_files();
            panel.read();
        });
    }
}

/// Adds `handler` for `event` on `target`, for the page's life.
fn listen(target: &Element, event: &str, handler: impl FnMut(Event) + 'static) {
    let closure = Closure::<dyn FnMut(Event)>::new(handler);
    let _ = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    closure.forget();
}

/// Draws the panel into `root` (the page's `#import-panel`); `page` is `"consumer"` or
/// `"group"`, which the apply link is relative to. Called once, by the page's script.
#[wasm_bindgen]
pub fn panel(root: Element, page: &str) -> Result<(), JsValue> {
    let doc = root.owner_document().ok_or("no document")?;
    if doc.get_element_by_id("import-style").is_none() {
        let style = doc.create_element("style")?;
        style.set_id("import-style");
        style.set_text_content(Some(STYLE));
        doc.head().ok_or("no head")?.append_child(&style)?;
    }
    root.set_inner_html(FORM);
    let panel =
        Rc::new(Panel { page: Page::from_name(page), doc: doc.clone(), files: RefCell::new(Vec::new()) });
    let el = |id: &str| {
        doc.get_element_by_id(id).ok_or_else(|| JsValue::from_str("the panel's form is incomplete"))
    };
    let form = el("import-form")?;
    listen(&el("import-read")?, "click", {
        let panel = panel.clone();
        move |_| panel.read()
    });
    listen(&el("import-clear")?, "click", {
        let panel = panel.clone();
        move |_| {
            panel.files.borrow_mut().clear();
            if let Some(t) = panel.by_id::<HtmlTextAreaElement>("import-text") {
                t.set_value("");
            }
            panel.list_files();
            if let Some(out) = panel.doc.get_element_by_id("import-out") {
                out.set_inner_html("");
            }
        }
    });
    listen(&el("import-files")?, "change", {
        let panel = panel.clone();
        move |e| {
            let Some(input) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
            if let Some(files) = input.files() {
                panel.add(files);
            }
            input.set_value("");
        }
    });
    for event in ["dragenter", "dragover"] {
        listen(&form, event, {
            let form = form.clone();
            move |e| {
                e.prevent_default();
                let _ = form.class_list().add_1("dragging");
            }
        });
    }
    listen(&form, "dragleave", {
        let form = form.clone();
        move |_| {
            let _ = form.class_list().remove_1("dragging");
        }
    });
    listen(&form, "drop", {
        let (panel, form) = (panel.clone(), form.clone());
        move |e| {
            let _ = form.class_list().remove_1("dragging");
            let Some(files) =
                e.dyn_ref::<DragEvent>().and_then(|d| d.data_transfer()).and_then(|d| d.files())
            else {
                return;
            };
            if files.length() > 0 {
                e.prevent_default();
                panel.add(files);
            }
        }
    });
    // Applying on this page: the link's fragment is the page's state (the page reads it on
    // the navigation); the chart is at the top.
    listen(&el("import-out")?, "click", |e| {
        let on_apply = e.target().and_then(|t| t.dyn_into::<Element>().ok()).is_some_and(|t| {
            t.id() == "import-apply" && t.get_attribute("href").is_some_and(|h| h.starts_with('#'))
        });
        if on_apply {
            if let Some(w) = web_sys::window() {
                w.scroll_to_with_x_and_y(0.0, 0.0);
            }
        }
    });
    Ok(())
}

/// What the panel shows for `text` pasted on `page` (`"consumer"` or `"group"`), as HTML:
/// the panel without the page, for scripts/finish-wasm.test.mjs, which runs the finished
/// module in node.
#[wasm_bindgen]
pub fn read_pasted(page: &str, text: &str) -> String {
    let request = Request { pasted: text.to_string(), ..Request::default() };
    render::show(Page::from_name(page), &request).html
}

/// A release build's report of a panic, as on the pages: scripts/finish-wasm.mjs makes the
/// standard library's panic entry points call this export, which throws a JavaScript error
/// saying so, and trap.
#[wasm_bindgen]
pub fn offset_window_panic_report() {
    wasm_bindgen::throw_str(
        "offset-window's import module stopped on an internal error (a Rust panic); a debug build of the page (trunk serve) reports its message and place.",
    )
}
