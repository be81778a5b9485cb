//! The browser tests' harness for the pages mounted without a URL of their own (the group,
//! producer and transactions pages): a view mounted in a 1200 px wide root with the real style
//! sheet, unmounted when dropped, and the events a reader's hand would fire.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, Event, EventInit, HtmlInputElement, HtmlSelectElement};
use yew::BaseComponent;

/// A mounted page of component `C`; unmounted (and its root removed) when dropped.
pub struct View<C: BaseComponent> {
    pub root: Element,
    handle: Option<yew::AppHandle<C>>,
}

impl<C: BaseComponent> Drop for View<C> {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            h.destroy();
        }
        self.root.remove();
    }
}

/// Mounts `C` as if opened with `#fragment` in the URL (the page writes its scenario there,
/// so every test starts from a URL of its own; `""` for none).
pub async fn mount_at<C: BaseComponent<Properties = ()>>(fragment: &str) -> View<C> {
    let window = web_sys::window().unwrap();
    let path = window.location().pathname().unwrap();
    let url = if fragment.is_empty() { path } else { format!("{path}#{fragment}") };
    window.history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(&url)).unwrap();
    let doc = window.document().unwrap();
    add_style("test-style", include_str!("../../../../web/style.css"));
    let root = doc.create_element("div").unwrap();
    root.set_attribute("style", "width: 1200px").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    let handle = yew::Renderer::<C>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    // The canvas effect runs after the first render; a second flush sees its attributes.
    yew::scheduler::flush().await;
    View { root, handle: Some(handle) }
}

/// Puts `css` in the document's head as a `<style>` with `id`, once (a page's own style sheet
/// that its HTML inlines, as group.html does web/group.css).
pub fn add_style(id: &str, css: &str) {
    let doc = web_sys::window().unwrap().document().unwrap();
    if doc.get_element_by_id(id).is_none() {
        let style = doc.create_element("style").unwrap();
        style.set_id(id);
        style.set_text_content(Some(css));
        doc.head().unwrap().append_child(&style).unwrap();
    }
}

impl<C: BaseComponent> View<C> {
    /// The element matching `selector` in the page; panics when there is none.
    pub fn find(&self, selector: &str) -> Element {
        self.root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no element {selector}"))
    }

    /// Fires a bubbling event `kind` at `selector`, then lets the page render.
    pub async fn fire(&self, selector: &str, kind: &str) {
        let init = EventInit::new();
        init.set_bubbles(true);
        self.find(selector).dispatch_event(&Event::new_with_event_init_dict(kind, &init).unwrap()).unwrap();
        yew::scheduler::flush().await;
        yew::scheduler::flush().await;
    }

    /// Chooses `value` in the select at `selector`, as a reader would.
    pub async fn select(&self, selector: &str, value: &str) {
        self.find(selector).dyn_into::<HtmlSelectElement>().unwrap().set_value(value);
        self.fire(selector, "change").await;
    }

    /// Types `text` into the input at `selector` (one `input` event).
    pub async fn type_into(&self, selector: &str, text: &str) {
        self.find(selector).dyn_into::<HtmlInputElement>().unwrap().set_value(text);
        self.fire(selector, "input").await;
    }
}
