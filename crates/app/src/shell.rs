//! The pages' shell: what every page (consumer, group, producer) uses around its own parts,
//! written once.
//!
//! * Mounting a page, reading and writing the URL ([`hash`], [`query_has`], [`use_url`],
//!   [`write_fragment`]), elements by id.
//! * Hooks that follow the browser: [`use_dark`] and [`use_phone`] (media queries),
//!   [`use_mode`] (page, projector or embed), [`use_size`] (a canvas's box, for a redraw on
//!   resize), [`use_tour_focus`] (a tour's Escape key and its focus when a button vanishes).
//! * Canvases: [`fit`] a backing store to the box × `devicePixelRatio`, [`draw_on`] with
//!   the kit's backend, [`device_point`] of a pointer, [`projector_type`], [`report`].
//! * The page frame: [`Frame`] (header, notices, `<main>`, footer), the projector
//!   [`Screen`], the [`embed`], the [`projector_button`], the [`notices`], the
//!   [`footer`] and the embed's [`full_link`].
//! * [`presets_text`]: the page's presets' files, fetched on use.
//! * [`Shared`]: a large value handed to components as a prop, compared by pointer.
//! * [`Part`]: a part of a page drawn from its props alone, rendered again only when they
//!   change ([`part`]); every part is one component type, [`Memo`], so a page pays Yew's
//!   per-component code once, not once per part.

use offset_window_view::kit::backend::Backend;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use plotters_canvas::CanvasBackend;
use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlCanvasElement, HtmlElement, HtmlSelectElement, KeyboardEvent, MouseEvent};
use yew::prelude::*;

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// A promise of the page's `presets.json`: `offsetWindowPresets()`, defined in the page's
    /// HTML (the offline page: its inlined copy). Errors: a page without that function.
    #[wasm_bindgen(js_namespace = window, js_name = offsetWindowPresets, catch)]
    fn presets_promise() -> Result<js_sys::Promise, JsValue>;
}

/// The text of the page's `presets.json` (its presets' files, which its wasm does not carry),
/// or `None` when it could not be fetched.
pub(crate) async fn presets_text() -> Option<String> {
    let promise = presets_promise().ok()?;
    wasm_bindgen_futures::JsFuture::from(promise).await.ok()?.as_string()
}

/// One readout of a number: `id`, a colour class, its title, the number shown and in
/// `data-value` (the producer and transactions pages' counters).
pub(crate) fn readout(id: &'static str, class: &'static str, title: &'static str, value: u64) -> Html {
    html! {
        <div class={classes!("ro", class)} {id} data-value={value.to_string()}>
            <dt>{ title }</dt><dd>{ value }</dd>
        </div>
    }
}

/// A value shared by the components (a run, a sweep, a table's rows); equal only to itself
/// (pointer equality), so comparing props never walks it. A memo (`use_memo`) hands out the
/// same `Rc` while its inputs stay, so a component given it re-renders only when they change.
#[derive(Debug)]
pub struct Shared<T>(pub Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A finished run of the core, shared by the consumer and group pages' components.
pub type RunRef = Shared<offset_window_sim::Run>;

thread_local! {
    static RENDERS: RefCell<Vec<(&'static str, u32)>> = const { RefCell::new(Vec::new()) };
}

/// Counts one render of the component `name` (see [`render_count`]); debug builds only (the
/// browser tests), release builds count nothing.
pub(crate) fn rendered(name: &'static str) {
    if !cfg!(debug_assertions) {
        return;
    }
    RENDERS.with(|r| {
        let mut r = r.borrow_mut();
        match r.iter_mut().find(|(n, _)| *n == name) {
            Some((_, count)) => *count += 1,
            None => r.push((name, 1)),
        }
    });
}

/// How many times the component `name` has rendered since the page loaded: lets the
/// browser tests check that moving one control leaves the others alone. Names are the
/// component's, or `control:<key>` for a consumer page control. Debug builds only: a
/// release build counts nothing (0).
pub fn render_count(name: &str) -> u32 {
    RENDERS.with(|r| r.borrow().iter().find(|(n, _)| *n == name).map_or(0, |(_, c)| *c))
}

/// Renders the component `C` into `#app`, or into the body when there is no such element.
pub(crate) fn mount<C: yew::BaseComponent<Properties = ()>>() {
    match element_by_id::<web_sys::Element>("app") {
        Some(root) => yew::Renderer::<C>::with_root(root).render(),
        None => yew::Renderer::<C>::new().render(),
    };
}

/// Whether the page's query string holds `pair` (`embed=1`, `view=producer`).
pub(crate) fn query_has(pair: &str) -> bool {
    let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    search.trim_start_matches('?').split('&').any(|p| p == pair)
}

/// The URL fragment now (with its `#`; empty when there is none).
pub(crate) fn hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Writes `fragment` into the URL now, replacing the history entry (an empty fragment drops
/// the `#`), unless the URL already holds it.
pub(crate) fn write_fragment(fragment: &str) {
    let Some(w) = web_sys::window() else { return };
    if hash().trim_start_matches('#') == fragment {
        return;
    }
    let location = w.location();
    let url = if fragment.is_empty() {
        location.pathname().unwrap_or_default() + &location.search().unwrap_or_default()
    } else {
        format!("#{fragment}")
    };
    if let Ok(history) = w.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Writes `fragment` into the URL 250 ms from now ([`write_fragment`]). Returns the cancel:
/// the next change of state (or unmounting) calls it, so a drag writes the link once it
/// rests.
fn write_fragment_later(fragment: String) -> impl FnOnce() {
    later(250, Box::new(move || write_fragment(&fragment)))
}

/// Calls `f` `ms` milliseconds from now. Returns the cancel, which an effect's cleanup
/// calls: `f` runs only if nothing cancelled it first. (Boxed: one instance of the closure's
/// glue in each page.)
pub(crate) fn later(ms: i32, f: Box<dyn FnOnce()>) -> impl FnOnce() {
    let window = web_sys::window().expect("a window");
    let call = Closure::once(f);
    let timer =
        window.set_timeout_with_callback_and_timeout_and_arguments_0(call.as_ref().unchecked_ref(), ms).ok();
    // `call` lives until the cancel runs.
    move || {
        if let Some(id) = timer {
            window.clear_timeout_with_handle(id);
        }
        drop(call);
    }
}

/// Keeps the URL fragment in step with the page: a change of `step` (the consumer page's
/// tour step; `()` for a page without one) is a new history entry at once; any other change
/// replaces the entry, at most every 250 ms (no history flood while dragging). Back and
/// forward call `restore`, which reads the state from the fragment they land on.
#[hook]
pub(crate) fn use_url<K>(fragment: String, step: K, restore: impl Fn() + 'static)
where
    K: PartialEq + Clone + 'static,
{
    use_effect_with((), move |_| {
        let listener = Closure::<dyn Fn()>::new(restore);
        let window = web_sys::window();
        if let Some(w) = &window {
            let _ = w.add_event_listener_with_callback("popstate", listener.as_ref().unchecked_ref());
        }
        move || {
            if let Some(w) = window {
                let _ = w.remove_event_listener_with_callback("popstate", listener.as_ref().unchecked_ref());
            }
        }
    });
    let written_step = use_mut_ref(|| step.clone());
    use_effect_with((fragment, step), move |(fragment, step)| {
        let new_step = *written_step.borrow() != *step;
        *written_step.borrow_mut() = step.clone();
        if new_step && hash().trim_start_matches('#') != *fragment {
            if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
                let _ = history.push_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
            }
        }
        write_fragment_later(fragment.clone())
    });
}

/// Whether the reader's system asks for dark colours, following changes while the page is
/// open.
#[hook]
pub(crate) fn use_dark() -> bool {
    use_media("(prefers-color-scheme: dark)")
}

/// Whether the screen is a phone's (at most 600 CSS px wide, as in web/style.css), following
/// changes while the page is open.
#[hook]
pub(crate) fn use_phone() -> bool {
    use_media("(max-width: 600px)")
}

/// Whether the CSS media query `query` matches, following changes while the page is open.
#[hook]
fn use_media(query: &'static str) -> bool {
    let list = move || web_sys::window().and_then(|w| w.match_media(query).ok().flatten());
    let matches = use_state_eq(move || list().is_some_and(|q| q.matches()));
    {
        let matches = matches.setter();
        use_effect_with((), move |_| {
            let list = list();
            let listener = Closure::<dyn Fn()>::new({
                let list = list.clone();
                move || matches.set(list.as_ref().is_some_and(|q| q.matches()))
            });
            if let Some(l) = &list {
                let _ = l.add_event_listener_with_callback("change", listener.as_ref().unchecked_ref());
            }
            move || {
                if let Some(l) = list {
                    let _ =
                        l.remove_event_listener_with_callback("change", listener.as_ref().unchecked_ref());
                }
            }
        });
    }
    *matches
}

/// How a page is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The page itself.
    Page,
    /// Projector mode: one 16:9 screen for a room, type scaled up.
    Projector,
    /// Embedded in another page (`?embed=1`): the chart and its readouts only.
    Embed,
}

/// The page's [`Mode`]: an embed when the query says `embed=1`; projector mode when the
/// state asks for it (`projector`), except on a phone: a phone is no projector, so a link
/// with `projector=1` shows it the usual layout (the link keeps the mode for the room's
/// screen).
#[hook]
pub(crate) fn use_mode(projector: bool) -> Mode {
    let embed = *use_memo((), |_| query_has("embed=1"));
    let phone = use_phone();
    if embed {
        Mode::Embed
    } else if projector && !phone {
        Mode::Projector
    } else {
        Mode::Page
    }
}

/// A canvas's box as it is drawn: its CSS width and height, the `devicePixelRatio` and the
/// type scale (projector mode's factor, else 1), the last two as bits so that the whole
/// compares exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Size {
    /// CSS px wide (0 before the first layout).
    pub width: i32,
    /// CSS px high.
    pub height: i32,
    dpr: u64,
    type_scale: u64,
}

impl Size {
    /// How much larger text, lines and marks are drawn: [`projector_type`] in projector mode,
    /// else 1.
    pub fn type_scale(self) -> f64 {
        f64::from_bits(self.type_scale).max(1.0)
    }
}

/// The canvas's [`Size`], following resizes (a `ResizeObserver` on its parent box: a window
/// resize, a layout change such as projector mode); in projector mode the type scale follows
/// the window.
#[hook]
pub(crate) fn use_size(canvas: NodeRef, projector: bool) -> Size {
    let size = use_state_eq(Size::default);
    {
        let setter = size.setter();
        use_effect_with(projector, move |&projector| {
            let measure = {
                let canvas = canvas.clone();
                move || {
                    if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
                        let scale = if projector { projector_type() } else { 1.0 };
                        setter.set(Size {
                            width: c.client_width(),
                            height: c.client_height(),
                            dpr: dpr.to_bits(),
                            type_scale: scale.to_bits(),
                        });
                    }
                }
            };
            measure();
            let listener = Closure::<dyn Fn()>::new(measure);
            let observer = web_sys::ResizeObserver::new(listener.as_ref().unchecked_ref()).ok();
            let watched = canvas.cast::<HtmlCanvasElement>().and_then(|c| c.parent_element());
            if let (Some(o), Some(b)) = (&observer, watched) {
                o.observe(&b);
            }
            move || {
                if let Some(o) = observer {
                    o.disconnect();
                }
                drop(listener);
            }
        });
    }
    *size
}

/// How much larger projector mode draws the canvases' text, lines and marks: 1.5 at
/// 1280 × 720, growing with the window to 2.25 at 1920 × 1080 (at most 3). Every page's
/// canvases use the same factor.
pub(crate) fn projector_type() -> f64 {
    let Some(w) = web_sys::window() else { return 1.5 };
    let px = |v: Result<JsValue, _>| v.ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
    let (width, height) = (px(w.inner_width()), px(w.inner_height()));
    1.5 * (width / 1280.0).min(height / 720.0).clamp(1.0, 2.0)
}

/// Sizes `canvas`'s backing store to `css` (CSS px, width × height) × `devicePixelRatio`;
/// returns the size in device px and the device px per CSS px.
pub(crate) fn fit(canvas: &HtmlCanvasElement, css: (f64, f64)) -> (u32, u32, f64) {
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    let (w, h) = ((css.0 * dpr).round() as u32, (css.1.max(1.0) * dpr).round() as u32);
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    (w, h, w as f64 / css.0)
}

/// The canvas's CSS width: as [`use_size`] measured it last (reading it again would lay the
/// page out in the middle of a redraw), else read now, or `fallback` before it is laid out
/// (no style sheet, as in tests).
#[cfg(feature = "group")]
pub(crate) fn css_width(canvas: &HtmlCanvasElement, size: Size, fallback: f64) -> f64 {
    if size.width > 0 {
        return size.width as f64;
    }
    match canvas.client_width() {
        w if w > 0 => w as f64,
        _ => fallback,
    }
}

/// Draws on `canvas` through the kit's backend with `draw`; a failure is reported in the
/// console as `what`.
pub(crate) fn draw_on<E: std::fmt::Display>(
    canvas: HtmlCanvasElement,
    what: &str,
    draw: impl FnOnce(&DrawingArea<Backend, Shift>) -> Result<(), E>,
) {
    if let Some(backend) = CanvasBackend::with_canvas_object(canvas) {
        if let Err(e) = draw(&Backend::canvas(backend).into_drawing_area()) {
            report(what, e);
        }
    }
}

/// Reports a failure in the console: `what: e`.
pub(crate) fn report(what: &str, e: impl std::fmt::Display) {
    web_sys::console::error_1(&format!("{what}: {e}").into());
}

/// The canvas under a pointer or mouse event and the event's point on it in device px, with
/// the device px per CSS px; `None` when the target is no canvas or has no size.
pub(crate) fn device_point(e: &MouseEvent) -> Option<(HtmlCanvasElement, f64, f64, f64)> {
    let canvas = e.target()?.dyn_into::<HtmlCanvasElement>().ok()?;
    let rect = canvas.get_bounding_client_rect();
    if rect.width() <= 0.0 || rect.height() <= 0.0 {
        return None;
    }
    let k = canvas.width() as f64 / rect.width();
    let x = (e.client_x() as f64 - rect.left()) * k;
    let y = (e.client_y() as f64 - rect.top()) * canvas.height() as f64 / rect.height();
    Some((canvas, x, y, k))
}

/// The page's preset select (`#preset`) shows the preset loaded (`None`: none), whoever loaded
/// it: an option the reader once picked no longer follows its `selected` attribute (HTML's
/// dirty selectedness), so after the tour loads that preset again the select would show
/// another one.
#[hook]
pub(crate) fn use_preset_select(preset: Option<usize>) {
    use_effect_with(preset, |preset| {
        if let Some(select) = element_by_id::<HtmlSelectElement>("preset") {
            select.set_value(&preset.map_or(String::new(), |i| i.to_string()));
        }
    });
}

/// The document's element with `id`, as the DOM type `T` (`None` when there is none, or it
/// is of another type).
pub(crate) fn element_by_id<T: JsCast>(id: &str) -> Option<T> {
    JsCast::dyn_into(web_sys::window()?.document()?.get_element_by_id(id)?).ok()
}

/// Moves the keyboard focus to the element with `id`, if there is one.
pub(crate) fn focus_by_id(id: &str) {
    if let Some(e) = element_by_id::<HtmlElement>(id) {
        let _ = e.focus();
    }
}

/// A guided tour's keyboard: while the tour is `on`, Escape calls `leave` (which closes the
/// tour, keeping what is on screen). Returns the flag a tour button sets when pressed: a
/// button can vanish (Take the tour, Next on the second-last step, Leave) or become disabled
/// under the focus, which then goes to the tour's next useful button ([`refocus_tour`])
/// instead of falling back to the page.
#[hook]
pub(crate) fn use_tour_focus(on: bool, leave: impl Fn() + 'static) -> Rc<RefCell<bool>> {
    let pressed = use_mut_ref(|| false);
    {
        let pressed = pressed.clone();
        use_effect(move || {
            if std::mem::take(&mut *pressed.borrow_mut()) {
                refocus_tour();
            }
        });
    }
    {
        let pressed = pressed.clone();
        use_effect_with(on, move |&on| {
            let listener = Closure::<dyn Fn(KeyboardEvent)>::new(move |e: KeyboardEvent| {
                if on && e.key() == "Escape" {
                    *pressed.borrow_mut() = true;
                    leave();
                }
            });
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ = w.add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = window {
                    let _ =
                        w.remove_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
                }
            }
        });
    }
    pressed
}

/// If the focus fell back to the page (or sits on a disabled button), puts it on the first
/// tour button that can take it: Next, Finish, Back, Back to step N, Take the tour (the
/// consumer and group pages' tours use the same ids).
fn refocus_tour() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    // A button that just became disabled still holds the focus until the browser's next
    // focus fix-up: count it as lost too.
    let lost = doc
        .active_element()
        .is_none_or(|e| doc.body().is_some_and(|b| *b == e) || e.has_attribute("disabled"));
    if !lost {
        return;
    }
    let usable = ["tour-next", "tour-finish", "tour-back", "tour-resume", "tour-start"]
        .into_iter()
        .filter_map(element_by_id::<HtmlElement>)
        .find(|b| !b.has_attribute("disabled"));
    if let Some(b) = usable {
        let _ = b.focus();
    }
}

/// The notices of an opened link's values that were not used, each naming its field.
pub(crate) fn notices(list: &[String]) -> Html {
    html! {
        if !list.is_empty() {
            <div class="notices" role="status" id="notices">
                { for list.iter().map(|n| html! { <p>{ n }</p> }) }
            </div>
        }
    }
}

/// The "your consumer" section of the consumer and group pages (issue 33): a button and an
/// empty `#import-panel`. The pages' script (web/import-panel.js) answers the button: it
/// fetches the import module (crates/import-page), which draws the panel into
/// `#import-panel`. Static HTML, so the pages' wasm holds this string and no code for the
/// panel, and a render keeps what the module drew (an unchanged raw node is left alone).
pub(crate) fn import_section() -> Html {
    Html::from_html_unchecked(AttrValue::Static(concat!(
        r#"<section class="import" id="import" aria-labelledby="import-title"><h2 id="import-title">Your consumer</h2>"#,
        r#"<p class="hint">Paste or drop its own configuration (consumer.properties, Spring Boot application.yml, librdkafka, "#,
        r#"kafka-consumer-groups.sh --describe output): what each property does here, the worst crash, and a link that applies it.</p>"#,
        r#"<button type="button" id="import-open">Import your configuration</button><div id="import-panel"></div></section>"#
    )))
}

/// The footer: the button back to the defaults and a note on where the numbers come from.
pub(crate) fn footer(reset: Callback<MouseEvent>, note: Html) -> Html {
    html! {
        <footer class="foot">
            <button class="reset" onclick={reset}>{ "Back to the defaults" }</button>
            { note }
        </footer>
    }
}

/// The button into and out of projector mode (`on`: the mode is on); `set` receives the
/// mode asked for. Projector mode starts at the top, where its screen is.
pub(crate) fn projector_button(on: bool, set: Callback<bool>) -> Html {
    let onclick = Callback::from(move |_: MouseEvent| {
        if let Some(w) = web_sys::window() {
            w.scroll_to_with_x_and_y(0.0, 0.0);
        }
        set.emit(!on);
    });
    html! {
        <button id="projector" class="projector-toggle" aria-pressed={on.to_string()} {onclick}>
            { if on { "Leave projector mode" } else { "Projector mode" } }
        </button>
    }
}

/// The page's header: its title and lede (`content`) and the projector button.
pub(crate) fn header(content: Html, button: Html) -> Html {
    html! { <header class="top"><div>{ content }</div>{ button }</header> }
}

/// The embed's link to the full page at the same state (`fragment`, without its `#`).
pub(crate) fn full_link(fragment: &str) -> Html {
    let full = if fragment.is_empty() { "./".to_string() } else { format!("./#{fragment}") };
    html! { <p class="full-link"><a href={full} target="_blank" rel="noopener">{ "Open the full page ↗" }</a></p> }
}

/// An embedded page: its box (`classes`), the notices and what it shows.
pub(crate) fn embed(classes: Classes, notices: Html, body: Html) -> Html {
    html! {
        <div class={classes}>
            { notices }
            { body }
        </div>
    }
}

/// A page in page or projector mode: its box, the header
/// (none on the projector, whose screen has its title), the notices, what comes before
/// `<main>` (the group page's tour), `<main>` and the footer.
pub(crate) struct Frame {
    /// The page's box: `page`, the page's name, the mode's class, `dark`.
    pub classes: Classes,
    /// The header ([`header`]), or nothing.
    pub header: Html,
    /// The [`notices`].
    pub notices: Html,
    /// Between the notices and `<main>`.
    pub lead: Html,
    /// The content of `<main>`.
    pub main: Html,
    /// The [`footer`].
    pub footer: Html,
}

impl Frame {
    /// The page.
    pub fn view(self) -> Html {
        let Frame { classes, header, notices, lead, main, footer } = self;
        html! {
            <div class={classes}>
                { header }
                { notices }
                { lead }
                <main>{ main }</main>
                { footer }
            </div>
        }
    }
}

/// The projector screen: one 16:9 screen for a room with the page's title, the tour, the
/// projector button, the chart, the control that moves what the chart is about, and big
/// readouts. The rest of the page follows below it.
pub(crate) struct Screen {
    /// What the screen holds, for a screen reader.
    pub label: &'static str,
    /// The title.
    pub title: &'static str,
    /// The tour (or its start button).
    pub tour: Html,
    /// The [`projector_button`].
    pub button: Html,
    /// An extra class of the chart's box (`with-strip`), if any.
    pub chart_class: Option<&'static str>,
    /// The chart.
    pub chart: Html,
    /// The control under the chart.
    pub control: Html,
    /// The readouts beside it.
    pub side: Html,
}

impl Screen {
    /// The screen.
    pub fn view(self) -> Html {
        let Screen { label, title, tour, button, chart_class, chart, control, side } = self;
        html! {
            <section class="screen" aria-label={label}>
                <div class="screen-top">
                    <h1 class="screen-title">{ title }</h1>
                    { tour }
                    { button }
                </div>
                <div class={classes!("screen-chart", chart_class)}>{ chart }</div>
                <div class="screen-crash">{ control }</div>
                <div class="screen-side">{ side }</div>
            </section>
        }
    }
}

/// A page of one chart (the transactions and pipeline pages): the chart, the control that
/// moves its instant and the readouts beside it, the presets and fields, the model in words;
/// laid out as an embed, the projector screen with the rest below it, or the page.
pub(crate) struct ChartPage {
    /// The page's class (`txn`, `pipe`) beside `page`.
    pub name: &'static str,
    /// The mode, and the dark palette.
    pub mode: Mode,
    pub dark: bool,
    /// The link's fragment (the embed links to the full page at it).
    pub fragment: String,
    /// The [`notices`].
    pub notices: Html,
    /// The chart, the control under it and the readouts beside it.
    pub chart: Html,
    pub control: Html,
    pub side: Html,
    /// The presets and fields (the `.panel` aside), and the model in words.
    pub panel: Html,
    pub words: Html,
    /// The page's stage: (what it holds for a screen reader, its parts in order, the chart,
    /// control and readouts among them).
    pub stage: (&'static str, Html),
    /// Under the projector screen: (what it holds, its parts).
    pub below_screen: (&'static str, Html),
    /// The projector screen: what it holds for a screen reader, its title, the preset's story.
    pub screen: (&'static str, &'static str, &'static str),
    /// The header's content (the links to the other views, the title, the lede).
    pub header: Html,
    /// The footer's note on where the numbers come from.
    pub note: &'static str,
    /// Asked for the other projector mode, and for the defaults.
    pub on_projector: Callback<bool>,
    pub on_reset: Callback<MouseEvent>,
}

impl ChartPage {
    /// The page.
    pub fn view(self) -> Html {
        let ChartPage { name, mode, dark, fragment, notices, chart, control, side, panel, words, .. } = self;
        if mode == Mode::Embed {
            let body = html! { <>{ chart }{ control }{ side }{ full_link(&fragment) }</> };
            return embed(classes!("page", name, "embed", dark.then_some("dark")), notices, body);
        }
        let projector = mode == Mode::Projector;
        let button = projector_button(projector, self.on_projector);
        let footer = footer(self.on_reset, html! { <span>{ self.note }</span> });
        let classes = classes!("page", name, projector.then_some("projector"), dark.then_some("dark"));
        if projector {
            let (label, title, story) = self.screen;
            let (below_label, below) = self.below_screen;
            let tour = html! { <p class="tour off screen-story">{ story }</p> };
            let screen = Screen { label, title, tour, button, chart_class: None, chart, control, side };
            let main = html! {
                <>
                    { screen.view() }
                    <div class="layout">
                        <section class="stage" aria-label={below_label}>{ below }</section>
                        { panel }
                    </div>
                </>
            };
            return Frame { classes, header: html! {}, notices, lead: html! {}, main, footer }.view();
        }
        let (stage_label, stage) = self.stage;
        let main = html! {
            <div class="layout">
                <section class="stage" aria-label={stage_label}>{ stage }</section>
                { panel }
                { words }
            </div>
        };
        Frame { classes, header: header(self.header, button), notices, lead: html! {}, main, footer }.view()
    }
}

/// A part of a page drawn from its props alone: the type holds the props (compared with
/// `PartialEq`; large values as [`Shared`]), [`Part::view`] draws them. Shown with [`part`],
/// it renders again only when its props change, as a function component with those props
/// would; it holds no hooks (a part that needs one is a function component of its own).
pub(crate) trait Part: PartialEq + 'static {
    /// The part, drawn from `self`.
    fn view(&self) -> Html;
}

/// A [`Part`] behind a trait object: what [`Memo`] holds.
trait AnyPart {
    fn view(&self) -> Html;
    /// Whether `other` is a part of the same type with equal props.
    fn same(&self, other: &dyn AnyPart) -> bool;
    fn as_any(&self) -> &dyn Any;
}

impl<T: Part> AnyPart for T {
    fn view(&self) -> Html {
        Part::view(self)
    }
    fn same(&self, other: &dyn AnyPart) -> bool {
        other.as_any().downcast_ref::<T>().is_some_and(|o| o == self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Props of [`Memo`]: the part shown.
#[derive(Properties, Clone)]
pub(crate) struct MemoProps {
    part: Rc<dyn AnyPart>,
}

impl PartialEq for MemoProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.part, &other.part) || self.part.same(&*other.part)
    }
}

/// The one component every [`Part`] is shown in: it renders its part again only when the
/// part's props change.
#[function_component]
fn Memo(p: &MemoProps) -> Html {
    p.part.view()
}

/// Shows `props`' part in a [`Memo`].
pub(crate) fn part<T: Part>(props: T) -> Html {
    let part: Rc<dyn AnyPart> = Rc::new(props);
    html! { <Memo {part} /> }
}
