//! Panels around the chart: the same crash under each real client, the presets, the
//! operator's view, the chart's text alternative, export and embedding. Every number is
//! the core's; every sentence is ours, with labels, never identifiers.

use super::RunRef;
use crate::shell::Part;
use crate::state::{Action, State, MAX_BASE_OFFSET};
use offset_window_sim::Scenario;
use offset_window_view::consumer::compare::{compare_runs, table_html};
use offset_window_view::consumer::export::{result_json, SLIDE};
use offset_window_view::consumer::presets::{self, PRESETS};
use offset_window_view::kit::link::encode;
use offset_window_view::kit::text::escape;
use offset_window_view::kit::text::{offset_text, ranges, seconds_text};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{HtmlCanvasElement, HtmlElement, HtmlImageElement, HtmlInputElement, HtmlSelectElement};
use yew::platform::spawn_local;
use yew::prelude::*;

/// Props of [`Compare`].
#[derive(Properties, PartialEq)]
pub struct CompareProps {
    /// The scenario (crash pinned to the horizon).
    pub scenario: Scenario,
    /// The crash instant, µs.
    pub crash_at_us: u64,
}

/// "Compare clients": the same scenario and crash under each real client's commit
/// behaviour, the row the page shows now marked. Simulates only while open.
#[function_component]
pub fn Compare(p: &CompareProps) -> Html {
    let open = use_state_eq(|| false);
    let runs = {
        let open = *open;
        use_memo(
            (p.scenario.clone(), open),
            |(s, open)| if *open { compare_runs(s) } else { Default::default() },
        )
    };
    let toggle = {
        let open = open.clone();
        Callback::from(move |_| open.set(!*open))
    };
    html! {
        <section class="compare" aria-labelledby="compare-title">
            <h2 id="compare-title">{ "Compare clients" }</h2>
            <p class="hint">{ "The same scenario and crash instant under each real client's commit behaviour: \
                where \"the timer commits mid-batch\" is true, and where it is not." }</p>
            <button id="compare-toggle" aria-expanded={open.to_string()} onclick={toggle}>
                { if *open { "Hide the comparison" } else { "Compare clients at this crash" } }</button>
            if *open {
                <div class="table-wrap">{ Html::from_html_unchecked(AttrValue::from(table_html(&runs.0, &runs.1, &p.scenario, p.crash_at_us))) }</div>
            }
        </section>
    }
}

/// The presets (a [`Part`]: its fields are its props).
#[derive(PartialEq)]
pub struct Presets {
    /// The preset on screen, if any.
    pub preset: Option<usize>,
    /// The run on screen.
    pub run: RunRef,
    /// The crash instant, µs.
    pub crash_at_us: u64,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// The scenario files as presets, by title: pick one, read its story, see its expected
/// values said as sentences beside what the core computes now.
impl Part for Presets {
    fn view(&self) -> Html {
        let p = self;
        let dispatch = p.dispatch.clone();
        let onchange = Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let Some(i) = presets::by_value(&select.value()) else { return dispatch.dispatch(Action::Reset) };
            if presets::installed() {
                return dispatch.dispatch(Action::LoadPreset(i));
            }
            // The first preset chosen fetches every preset's file (presets.json).
            let dispatch = dispatch.clone();
            spawn_local(async move {
                // Not installed: the state says why instead of showing it.
                if let Some(text) = crate::shell::presets_text().await {
                    presets::install(&text);
                }
                dispatch.dispatch(Action::LoadPreset(i));
            });
        });

        let current = p.preset;
        let detail = p.preset.map(|i| {
            let source = presets::source(i);
            // The file's expectations are for its own settings and crash instant.
            let edited = presets::scenario(i)
                .is_none_or(|file| file.scenario != p.run.0.scenario || file.crash_at_us != p.crash_at_us);
            html! {
                <>
                // Whole: a select cuts a long title on a phone.
                <p class="preset-title"><strong>{ PRESETS[i].title }</strong></p>
                <p id="preset-description">{ presets::story(i) }</p>
                if edited {
                    <p class="hint" id="preset-edited">{ "You changed a setting or the crash since loading it: the \
                        values below are yours; the file's expectations are for its own settings." }</p>
                }
                if !source.is_empty() { <p class="hint">{ "From " }<a href={source.clone()}>{ source }</a></p> }
                { Html::from_html_unchecked(AttrValue::from(checks_html(i, &p.run.0, p.crash_at_us))) }
                </>
            }
        });
        let group = |group: presets::Group| {
            html! {
                <optgroup label={group.label()}>
                    { for PRESETS.iter().enumerate().filter(|(_, p)| p.group == group).map(|(i, p)| html! {
                        <option value={i.to_string()} selected={Some(i) == current}>{ p.title }</option>
                    }) }
                </optgroup>
            }
        };
        html! {
            <section class="presets" aria-labelledby="presets-title">
                <h2 id="presets-title"><label for="preset">{ "Scenarios" }</label></h2>
                <select id="preset" {onchange}>
                    <option value="" selected={p.preset.is_none()}>{ "Choose a scenario…" }</option>
                    { for presets::Group::ALL.into_iter().map(group) }
                </select>
                // Always there, so that loading a preset never replaces the select (which would
                // drop its keyboard focus).
                <div class="preset-detail">{ for detail }</div>
            </section>
        }
    }
}

/// The file's expectations as a list of sentences, one HTML string.
fn checks_html(index: usize, run: &offset_window_sim::Run, crash_at_us: u64) -> String {
    let items: String = presets::checks(index, run, crash_at_us)
        .into_iter()
        .map(|c| {
            format!(
                r#"<li data-pointer="{}" data-value="{}" data-ok="{}">{}</li>"#,
                escape(&c.pointer),
                escape(&c.got),
                c.ok,
                escape(&c.sentence)
            )
        })
        .collect();
    format!(r#"<ul id="preset-expect" class="expect">{items}</ul>"#)
}

/// The chart in words (a [`Part`]: its fields are its props).
#[derive(PartialEq)]
pub struct TextAlternative {
    /// The run.
    pub run: RunRef,
    /// The crash instant, µs.
    pub crash_at_us: u64,
    /// Added to every offset shown.
    pub base: u64,
}

/// Offsets in words: "none", "offset 0", "offsets 25–39, 41" (never a bare number, which would
/// read as a count).
fn offsets_words(rs: &[std::ops::Range<u64>], base: u64) -> String {
    let list = ranges(rs, base);
    match rs {
        [] => list,
        [r] if r.end - r.start == 1 => "offset ".to_owned() + &list,
        _ => "offsets ".to_owned() + &list,
    }
}

/// The chart in words: the three values at the crash and the offsets lost and repeated.
impl Part for TextAlternative {
    fn view(&self) -> Html {
        let p = self;
        let (run, b) = (&p.run.0, p.base);
        let at = run.state_at(p.crash_at_us);
        let offsets = run.offsets_at(p.crash_at_us);
        // An offset that already ran several times repeats each run: say so when the count of
        // repeated runs is more than the offsets.
        let repeated: u64 = offsets.duplicated.iter().map(|r| r.end - r.start).sum();
        let runs = if at.duplicated > repeated {
            format!(" ({} completed runs repeated: some offsets ran more than once)", at.duplicated)
        } else {
            String::new()
        };
        html! {
            <p id="chart-text" class="sr-text" aria-live="polite">
                { format!(
                    "Crash at {} s: position {}, durable frontier {}, committed offset {}. Lost: {}. Processed a second time: {}{runs}.",
                    seconds_text(p.crash_at_us), offset_text(at.position, b), offset_text(Some(at.durable), b),
                    offset_text(at.committed, b), offsets_words(&offsets.lost, b), offsets_words(&offsets.duplicated, b)) }
                if let Some(words) = offset_window_view::consumer::records::outcomes_sentence(run, b) { { " " }{ words } }
            </p>
        }
    }
}

/// The operator's view at the crash (a [`Part`]: its fields are its props).
#[derive(PartialEq)]
pub struct Operator {
    /// The run.
    pub run: RunRef,
    /// The crash instant, µs.
    pub crash_at_us: u64,
    /// The display base offset.
    pub base: u64,
    /// What the base offset field shows.
    pub text: String,
    /// Why the typed base was refused, if it was.
    pub error: Option<String>,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// What `kafka-consumer-groups.sh --describe` would print at the crash, next to the
/// client's own `records-lag`, and the display base offset (it is in the link).
impl Part for Operator {
    fn view(&self) -> Html {
        let p = self;
        let run = &p.run.0;
        let at = run.state_at(p.crash_at_us);
        let end = run.scenario.log_end_at(p.crash_at_us);
        let b = p.base;
        // With no committed offset the tool prints "-" for CURRENT-OFFSET and LAG.
        let lag = at.committed.map(|c| end.saturating_sub(c));
        let records_lag = at.position.map_or(0, |p| end.saturating_sub(p));
        let dash = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
        let on_base = p.dispatch.to_callback().reform(|e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            Action::SetBaseText(input.value())
        });
        let lag_shown = lag.unwrap_or(0);
        html! {
            <section class="operator" aria-labelledby="operator-title">
                <h2 id="operator-title">{ "As an operator reads it" }</h2>
                <p><code class="cmd">{ "$ kafka-consumer-groups.sh --describe --group orders" }</code></p>
                // A table (not preformatted text): on a phone its columns wrap instead of cutting LAG off.
                { Html::from_html_unchecked(AttrValue::from(format!(
                    concat!(
                        r#"<table id="describe" class="describe" data-lag="{}" data-records-lag="{}" aria-label="kafka-consumer-groups.sh --describe output">"#,
                        r#"<thead><tr><th scope="col" class="gt">GROUP</th><th scope="col" class="gt">TOPIC</th><th scope="col">PARTITION</th><th scope="col">CURRENT-OFFSET</th>"#,
                        r#"<th scope="col">LOG-END-OFFSET</th><th scope="col">LAG</th></tr></thead>"#,
                        r#"<tbody><tr><td class="gt">orders</td><td class="gt">orders</td><td>3</td><td>{}</td><td>{}</td><td id="describe-lag">{}</td></tr></tbody></table>"#
                    ),
                    lag_shown, records_lag, dash(at.committed.map(|c| c.saturating_add(b))), end.saturating_add(b), dash(lag)
                ))) }
                <p>{ format!("The client's own records-lag (log end − position) is {records_lag}. ") }
                    { format!("The difference, {} records, is the uncommitted window: handed out, not yet committed, \
                        and read again after a crash.", lag_shown.saturating_sub(records_lag)) }</p>
                <div class="field">
                    <label for="base-offset">{ "display base offset (added to every offset the page shows)" }</label>
                    <input type="text" id="base-offset" class="num" inputmode="numeric" value={p.text.clone()} oninput={on_base}
                        aria-invalid={p.error.is_some().to_string()}
                        aria-describedby={p.error.as_ref().map(|_| "base-offset-error")} />
                    <p class="hint">{ format!("a whole number from 0 to {MAX_BASE_OFFSET}; it goes into the link") }</p>
                    if let Some(message) = &p.error {
                        <p class="field-error" id="base-offset-error" role="alert">{ message.clone() }</p>
                    }
                </div>
            </section>
        }
    }
}

/// Makes the browser download `href` as `name`.
fn download(name: &str, href: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(a) = doc.create_element("a") else { return };
    let _ = a.set_attribute("href", href);
    let _ = a.set_attribute("download", name);
    if let Ok(a) = a.dyn_into::<HtmlElement>() {
        a.click();
    }
}

/// Rasterises the slide SVG at `scale` × 1920 × 1080 and downloads it as a PNG: the PNG is
/// the SVG export, pixel for pixel.
fn download_png(svg: &str, scale: u32, name: &'static str) {
    let Ok(img) = HtmlImageElement::new() else { return };
    let loaded = img.clone();
    let onload = Closure::once_into_js(move || {
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
        let Some(canvas) =
            doc.create_element("canvas").ok().and_then(|c| c.dyn_into::<HtmlCanvasElement>().ok())
        else {
            return;
        };
        let (w, h) = (SLIDE.0 * scale, SLIDE.1 * scale);
        canvas.set_width(w);
        canvas.set_height(h);
        let ctx = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok());
        if let Some(ctx) = ctx {
            let _ =
                ctx.draw_image_with_html_image_element_and_dw_and_dh(&loaded, 0.0, 0.0, w as f64, h as f64);
            if let Ok(url) = canvas.to_data_url() {
                download(name, &url);
            }
        }
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&format!("data:image/svg+xml;charset=utf-8,{}", encode(svg)));
}

/// The crash instant (µs) and URL fragment of the page now, read when a button is pressed:
/// equal to itself always, so moving the crash does not re-render the export panel.
#[derive(Clone, Debug)]
pub struct Latest(pub std::rc::Rc<std::cell::RefCell<(u64, String)>>);

impl PartialEq for Latest {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Props of [`Export`].
#[derive(Properties, PartialEq)]
pub struct ExportProps {
    /// The run.
    pub run: RunRef,
    /// The crash instant, URL fragment and base offset now.
    pub latest: Latest,
}

#[wasm_bindgen]
extern "C" {
    /// The slide module (crates/slide), a promise of its exports: `offsetWindowSlide()`,
    /// defined in `index.html` (the offline page: its inlined copy), fetches it once.
    /// Errors: the exception of a page without that function.
    #[wasm_bindgen(js_namespace = window, js_name = offsetWindowSlide, catch)]
    fn slide_module() -> Result<js_sys::Promise, JsValue>;

    /// The slide module's exports.
    type SlideModule;

    /// The slide (SVG) of the page at a URL fragment; throws the core's refusal in words.
    #[wasm_bindgen(method, catch)]
    fn slide(this: &SlideModule, fragment: &str) -> Result<String, JsValue>;
}

/// The slide of the page at `fragment` as an SVG document, drawn by the slide module.
/// Errors, in words: the module did not load (a network error), or refused the scenario.
async fn slide_from_module(fragment: &str) -> Result<String, String> {
    let words = |e: JsValue| {
        e.as_string()
            .or_else(|| e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
            .unwrap_or_else(|| "no reason given".to_string())
    };
    let module = JsFuture::from(slide_module().map_err(words)?).await.map_err(words)?;
    module.unchecked_into::<SlideModule>().slide(fragment).map_err(words)
}

/// Export (the slide as PNG and SVG, JSON), the embed code, and the page for offline use.
/// The slide comes from the slide module, fetched when the pointer or focus first comes to
/// the buttons (or on the first press).
#[function_component]
pub fn Export(p: &ExportProps) -> Html {
    let copied = use_state_eq(String::new);
    let status = use_state_eq(String::new);
    let slide = |finish: Rc<dyn Fn(&str)>| {
        let (latest, status) = (p.latest.clone(), status.clone());
        Callback::from(move |_| {
            let fragment = latest.0.borrow().1.clone();
            let (finish, status) = (finish.clone(), status.clone());
            status.set("Drawing the slide…".to_string());
            spawn_local(async move {
                match slide_from_module(&fragment).await {
                    Ok(svg) => {
                        status.set(String::new());
                        finish(&svg);
                    }
                    Err(e) => status.set(format!("The slide could not be drawn: {e}")),
                }
            });
        })
    };
    let png =
        |scale: u32, name: &'static str| slide(Rc::new(move |svg: &str| download_png(svg, scale, name)));
    let svg = slide(Rc::new(|svg: &str| {
        download("offset-window.svg", &format!("data:image/svg+xml;charset=utf-8,{}", encode(svg)));
    }));
    // Fetched ahead, while the reader reaches for a button.
    let prefetch = Callback::from(|_| {
        let _ = slide_module();
    });
    let json = {
        let (run, latest) = (p.run.clone(), p.latest.clone());
        Callback::from(move |_| {
            let crash = latest.0.borrow().0;
            let text = result_json(&run.0, crash);
            download("offset-window.json", &format!("data:application/json;charset=utf-8,{}", encode(&text)));
        })
    };
    let copy = {
        let (copied, latest) = (copied.clone(), p.latest.clone());
        Callback::from(move |_| {
            let snippet = embed_snippet(&latest.0.borrow().1);
            let Some(w) = web_sys::window() else { return };
            let write = JsFuture::from(w.navigator().clipboard().write_text(&snippet));
            let copied = copied.clone();
            // The clipboard may refuse (no permission, an insecure origin): then the snippet
            // is still shown, to copy by hand.
            spawn_local(async move {
                copied.set(match write.await {
                    Ok(_) => format!("Copied: {snippet}"),
                    Err(_) => format!("The browser refused the clipboard; copy this: {snippet}"),
                });
            });
        })
    };
    // The offline copy is this page in one file: from inside it there is nothing to fetch.
    let online = web_sys::window().and_then(|w| w.location().protocol().ok()).is_some_and(|p| p != "file:");
    html! {
        <section class="export" aria-labelledby="export-title">
            <h2 id="export-title">{ "Export and embed" }</h2>
            <p class="hint">{ "The slide: both charts with the crash, axis titles, legend, the readouts and the scenario in words." }</p>
            <div class="buttons" onpointerenter={prefetch.reform(|_: PointerEvent| ())} onfocusin={prefetch.reform(|_: FocusEvent| ())}>
                <button id="export-png" onclick={png(1, "offset-window.png")}>{ "Slide as PNG (1920 × 1080)" }</button>
                <button id="export-png-2x" onclick={png(2, "offset-window-print.png")}>{ "PNG for print (3840 × 2160)" }</button>
                <button id="export-svg" onclick={svg}>{ "Slide as SVG" }</button>
                <button id="export-json" onclick={json}>{ "Scenario + result as JSON" }</button>
                <button id="copy-embed" onclick={copy}>{ "Copy embed code" }</button>
            </div>
            <p class="hint" id="export-status" role="status">{ (*status).clone() }</p>
            <p class="hint embed-code" id="embed-code">{ (*copied).clone() }</p>
            if online {
                <p><a id="offline" href="offset-window-offline.html" download="offset-window-offline.html">
                    { "Download the page for offline use" }</a>
                    { " — one HTML file with everything inside, for a classroom without a network." }</p>
            }
        </section>
    }
}

/// The `<iframe>` snippet for the page at `fragment`, in embed mode: 640 × 420, never wider
/// than its column (the embed fits any frame from 320 × 300 up without scrolling).
pub fn embed_snippet(fragment: &str) -> String {
    let loc = web_sys::window().map(|w| w.location());
    let origin = loc.as_ref().and_then(|l| l.origin().ok()).unwrap_or_default();
    let path = loc.as_ref().and_then(|l| l.pathname().ok()).unwrap_or_default();
    let hash = if fragment.is_empty() { String::new() } else { format!("#{fragment}") };
    format!(
        r#"<iframe src="{origin}{path}?embed=1{hash}" width="640" height="420" style="border:0;max-width:100%" title="Offset window: when a Kafka consumer crashes" loading="lazy"></iframe>"#
    )
}

/// Shown when the crash repeats records: idempotence on the producer does not help.
pub fn producer_note(duplicated: u64) -> Html {
    if duplicated == 0 {
        return html! {};
    }
    html! {
        <p class="producer-note" id="producer-note">
            { "These repeats come from the consumer restarting at its committed offset: " }
            <a href="producer/">{ "idempotence does not help here" }</a>
            { " (it removes a producer's retried duplicates, not a consumer's re-processing)." }
        </p>
    }
}
