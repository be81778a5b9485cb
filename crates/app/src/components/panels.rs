//! Panels around the chart: the same crash under each real client, the presets, the
//! operator's view, the chart's text alternative, export and embedding. Every number is
//! the core's; every sentence is ours.

use super::RunRef;
use crate::state::{seconds_text, Action, State};
use offset_window_sim::compare::PAIRS;
use offset_window_sim::{simulate, Run, Scenario, Strategy};
use std::ops::Range;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement};
use yew::platform::spawn_local;
use yew::prelude::*;

/// The runs of [`compare_runs`]: one per (client, strategy) pair the scenario allows.
pub type PairRuns = Vec<(&'static str, &'static str, &'static str, Run)>;

/// The scenario under each pair of `compare::PAIRS` (as `compare::compare_clients`
/// does), simulated once; the crash instant is read per row, so moving it re-runs nothing.
pub fn compare_runs(scenario: &Scenario) -> PairRuns {
    PAIRS
        .iter()
        .filter(|(_, st)| !(scenario.worker_pool && *st == Strategy::Transactional))
        .filter_map(|&(client, strategy)| {
            let run = simulate(&Scenario { client, strategy, ..scenario.clone() }).ok()?;
            Some((client.name(), strategy.name(), client.note(), run))
        })
        .collect()
}

/// Props of [`Compare`].
#[derive(Properties, PartialEq)]
pub struct CompareProps {
    /// The scenario (crash pinned to the horizon).
    pub scenario: Scenario,
    /// The crash instant, µs.
    pub crash_at_us: u64,
}

/// "Compare clients": the same scenario and crash under each real client's commit
/// behaviour. Simulates only while open.
#[function_component]
pub fn Compare(p: &CompareProps) -> Html {
    let open = use_state_eq(|| false);
    let runs = {
        let open = *open;
        use_memo((p.scenario.clone(), open), |(s, open)| if *open { compare_runs(s) } else { Vec::new() })
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
                <div class="table-wrap">
                <table id="compare-table">
                    <thead><tr><th scope="col">{ "client · strategy" }</th>
                        <th scope="col">{ "lost" }</th><th scope="col">{ "duplicated" }</th><th scope="col">{ "re-read" }</th></tr></thead>
                    <tbody>
                    { for runs.iter().enumerate().map(|(i, (client, strategy, note, run))| {
                        let at = run.state_at(p.crash_at_us);
                        // Each client's note once, on its first row.
                        let first = runs[..i].iter().all(|r| r.0 != *client);
                        html! {
                            <tr data-client={*client} data-strategy={*strategy}
                                data-lost={at.lost.to_string()} data-duplicated={at.duplicated.to_string()}
                                data-reread={at.reread.to_string()}>
                                <th scope="row"><code>{ *client }</code>{ " · " }<code>{ *strategy }</code>
                                    if first { <br /><small>{ *note }</small> }</th>
                                <td class="n">{ at.lost }</td><td class="n">{ at.duplicated }</td><td class="n">{ at.reread }</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
                </div>
            }
        </section>
    }
}

/// Props of [`Presets`].
#[derive(Properties, PartialEq)]
pub struct PresetsProps {
    /// The preset on screen, if any.
    pub preset: Option<usize>,
    /// The run on screen.
    pub run: RunRef,
    /// The crash instant, µs.
    pub crash_at_us: u64,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// The scenario files as presets: pick one, read its description, see its expected values
/// beside what the core computes now.
#[function_component]
pub fn Presets(p: &PresetsProps) -> Html {
    let onchange = p.dispatch.to_callback().reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        match crate::presets::by_name(&select.value()) {
            Some(i) => Action::LoadPreset(i),
            None => Action::Reset,
        }
    });
    let current = p.preset.map(|i| crate::presets::PRESETS[i].0).unwrap_or_default();
    let detail = p.preset.map(|i| {
        let (description, source) = crate::presets::describe(i);
        // Through the export's text (the same serializer and parser the page has anyway):
        // a `to_value` here alone costs the page 2 KB of wasm.
        let result: serde_json::Value =
            serde_json::from_str(&result_json(&p.run.0, p.crash_at_us)).unwrap_or_default();
        // The file's expectations are for its own settings and crash instant.
        let edited = crate::presets::scenario(i)
            .is_none_or(|file| file.scenario != p.run.0.scenario || file.crash_at_us != p.crash_at_us);
        html! {
            <>
            <p id="preset-description">{ description }</p>
            if edited {
                <p class="hint" id="preset-edited">{ "You changed a setting or the crash since loading it: the \
                    values below are yours; the file's expectations are for its own settings." }</p>
            }
            if !source.is_empty() { <p class="hint">{ "From " }<a href={source.clone()}>{ source }</a></p> }
            <ul id="preset-expect" class="expect">
                { for crate::presets::expected(i).into_iter().map(|(pointer, want)| {
                    let got = result.pointer(&pointer).cloned().unwrap_or_default();
                    let ok = same_value(&got, &want);
                    html! {
                        <li data-pointer={pointer.clone()} data-value={got.to_string()} data-ok={ok.to_string()}>
                            <code>{ pointer.trim_start_matches('/').replace('/', " › ") }</code>{ ": " }
                            <strong>{ got.to_string() }</strong>
                            { if ok { " (as the file expects)".to_string() } else { format!(" (the file expects {want})") } }
                        </li>
                    }
                }) }
            </ul>
            </>
        }
    });
    html! {
        <section class="presets" aria-labelledby="presets-title">
            <h2 id="presets-title"><label for="preset">{ "Scenarios" }</label></h2>
            <select id="preset" {onchange}>
                <option value="" selected={p.preset.is_none()}>{ "choose a scenario…" }</option>
                { for crate::presets::PRESETS.iter().map(|(name, _)| html! {
                    <option value={*name} selected={*name == current}>{ *name }</option>
                }) }
            </select>
            // Always there, so that loading a preset never replaces the select (which would
            // drop its keyboard focus).
            <div class="preset-detail">{ for detail }</div>
        </section>
    }
}

/// Whether a result value is what a scenario file expects: numbers compare by their decimal
/// text with trailing fraction zeros dropped (the core writes `4825.0` where a file says
/// `4825`); exact, and without the float parser `as_f64` would add (15 KB of wasm).
fn same_value(got: &serde_json::Value, want: &serde_json::Value) -> bool {
    use serde_json::Value::Number;
    fn plain(text: &str) -> &str {
        if text.contains('.') && !text.contains(['e', 'E']) {
            text.trim_end_matches('0').trim_end_matches('.')
        } else {
            text
        }
    }
    match (got, want) {
        (Number(a), Number(b)) => plain(&a.to_string()) == plain(&b.to_string()),
        _ => got == want,
    }
}

fn ranges(rs: &[Range<u64>]) -> String {
    if rs.is_empty() {
        return "none".into();
    }
    let parts: Vec<String> =
        rs.iter()
            .map(|r| {
                if r.end - r.start == 1 {
                    r.start.to_string()
                } else {
                    format!("{}–{}", r.start, r.end - 1)
                }
            })
            .collect();
    parts.join(", ")
}

/// Props of the panels that read the crash.
#[derive(Properties, PartialEq)]
pub struct AtProps {
    /// The run.
    pub run: RunRef,
    /// The crash instant, µs.
    pub crash_at_us: u64,
}

/// The chart in words: the three values at the crash and the offsets lost and repeated.
#[function_component]
pub fn TextAlternative(p: &AtProps) -> Html {
    let run = &p.run.0;
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
                "Crash at {} s: position {}, durable frontier {}, committed offset {}. Lost offsets: {}. Offsets processed a second time: {}{runs}.",
                seconds_text(p.crash_at_us), offset_text(at.position), at.durable, offset_text(at.committed),
                ranges(&offsets.lost), ranges(&offsets.duplicated)) }
        </p>
    }
}

/// What `kafka-consumer-groups.sh --describe` would print at the crash, next to the
/// client's own `records-lag`.
#[function_component]
pub fn Operator(p: &AtProps) -> Html {
    const MAX_BASE: u64 = 1_000_000_000_000;
    let base = use_state_eq(|| 0u64);
    let base_error = use_state_eq(|| None::<String>);
    let run = &p.run.0;
    let at = run.state_at(p.crash_at_us);
    let end = run.scenario.log_end_at(p.crash_at_us);
    let on_base = {
        let (base, base_error) = (base.clone(), base_error.clone());
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let text = input.value();
            match text.trim().parse::<u64>() {
                Ok(v) if v <= MAX_BASE => {
                    base.set(v);
                    base_error.set(None);
                }
                _ => base_error.set(Some(format!(
                    "display base offset: must be a whole number from 0 to {MAX_BASE} (got \"{text}\"); still showing {}",
                    *base
                ))),
            }
        })
    };
    let b = *base;
    // With no committed offset the tool prints "-" for CURRENT-OFFSET and LAG.
    let lag = at.committed.map(|c| end.saturating_sub(c));
    let records_lag = at.position.map_or(0, |p| end.saturating_sub(p));
    let dash = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    let table = format!(
        "GROUP   TOPIC   PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG\norders  orders  3          {:<14}  {:<14}  {}",
        dash(at.committed.map(|c| c + b)),
        end + b,
        dash(lag)
    );
    let lag = lag.unwrap_or(0);
    html! {
        <section class="operator" aria-labelledby="operator-title">
            <h2 id="operator-title">{ "As an operator reads it" }</h2>
            <pre id="describe" tabindex="0" aria-label="kafka-consumer-groups.sh --describe output" data-lag={lag.to_string()} data-records-lag={records_lag.to_string()}>
                <code>{ "$ kafka-consumer-groups.sh --describe --group orders\n" }{ table }</code></pre>
            <p>{ format!("The client's own records-lag (log end − position) is {records_lag}. ") }
                { format!("The difference, {} records, is the uncommitted window: handed out, not yet committed, \
                    and read again after a crash.", lag.saturating_sub(records_lag)) }</p>
            <div class="field">
                <label for="base-offset">{ "display base offset (added to every offset shown here)" }</label>
                <input type="text" id="base-offset" class="num" inputmode="numeric" value={b.to_string()} oninput={on_base}
                    aria-invalid={base_error.is_some().to_string()}
                    aria-describedby={base_error.as_ref().map(|_| "base-offset-error")} />
                if let Some(message) = (*base_error).clone() {
                    <p class="field-error" id="base-offset-error" role="alert">{ message }</p>
                }
            </div>
        </section>
    }
}

fn download(name: &str, href: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(a) = doc.create_element("a") else { return };
    let _ = a.set_attribute("href", href);
    let _ = a.set_attribute("download", name);
    if let Ok(a) = a.dyn_into::<HtmlElement>() {
        a.click();
    }
}

/// An offset, or "none".
pub fn offset_text(offset: Option<u64>) -> String {
    offset.map_or("none".to_string(), |o| o.to_string())
}

/// The scenario and result JSON, as `offset-window run` prints it.
pub fn result_json(run: &Run, crash_at_us: u64) -> String {
    serde_json::to_string(&run.summary_at(crash_at_us)).unwrap_or_default()
}

/// The main chart as an SVG document, drawn by the same code as the canvas
/// (`charts::draw_main`) on plotters' SVG backend, 1200 × 540 px.
pub fn chart_svg(run: &Run) -> String {
    use plotters::prelude::{IntoDrawingArea, SVGBackend};
    let size = (1200, 540);
    let frame = crate::charts::main_frame(size, 1.0, run);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        if crate::charts::draw_main(&root, run, &frame).is_err() {
            return String::new();
        }
    }
    out
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
    /// The crash instant and URL fragment now.
    pub latest: Latest,
}

/// Export (PNG, JSON) and the embed code.
#[function_component]
pub fn Export(p: &ExportProps) -> Html {
    let copied = use_state_eq(String::new);
    let png = Callback::from(|_| {
        let canvas = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector("#main-chart canvas.base").ok().flatten())
            .and_then(|c| c.dyn_into::<HtmlCanvasElement>().ok());
        if let Some(url) = canvas.and_then(|c| c.to_data_url().ok()) {
            download("offset-window.png", &url);
        }
    });
    let json = {
        let (run, latest) = (p.run.clone(), p.latest.clone());
        Callback::from(move |_| {
            let crash = latest.0.borrow().0;
            let text = result_json(&run.0, crash);
            download(
                "offset-window.json",
                &format!("data:application/json;charset=utf-8,{}", js_sys::encode_uri_component(&text)),
            );
        })
    };
    let svg = {
        let run = p.run.clone();
        Callback::from(move |_| {
            let text = chart_svg(&run.0);
            download(
                "offset-window.svg",
                &format!("data:image/svg+xml;charset=utf-8,{}", js_sys::encode_uri_component(&text)),
            );
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
    html! {
        <section class="export" aria-labelledby="export-title">
            <h2 id="export-title">{ "Export and embed" }</h2>
            <div class="buttons">
                <button id="export-png" onclick={png}>{ "Chart as PNG" }</button>
                <button id="export-svg" onclick={svg}>{ "Chart as SVG" }</button>
                <button id="export-json" onclick={json}>{ "Scenario + result as JSON" }</button>
                <button id="copy-embed" onclick={copy}>{ "Copy embed code" }</button>
            </div>
            <p class="hint embed-code" id="embed-code">{ (*copied).clone() }</p>
        </section>
    }
}

/// The `<iframe>` snippet for the page at `fragment`, in embed mode.
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
