//! The guided tour's panel: the step's title and caption (numbers from the core, see
//! `crate::tour`), Back, Next and Reset to defaults; a note when the crash was moved away
//! from the step's instant; an offer to resume when changing a setting ended the tour.

use crate::state::{seconds_text, Action, State};
use crate::tour::{caption, scenario, STEPS};
use web_sys::HtmlElement;
use yew::prelude::*;

/// Props of [`Tour`].
#[derive(Properties, PartialEq)]
pub struct TourProps {
    /// The step shown, if the tour is on.
    pub step: Option<usize>,
    /// The step a change of setting ended the tour on, if it did.
    pub left_at: Option<usize>,
    /// Whether the crash is away from the step's own instant (the caption is about that one).
    pub crash_moved: bool,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// The tour panel; a "Take the tour" button while it is off.
#[function_component]
pub fn Tour(p: &TourProps) -> Html {
    // A tour button pressed from the keyboard can vanish (Take the tour, Reset) or become
    // disabled (Next on the last step): focus then goes to the tour's next useful button
    // instead of falling back to the page.
    let pressed = use_mut_ref(|| false);
    {
        let pressed = pressed.clone();
        use_effect(move || {
            if std::mem::take(&mut *pressed.borrow_mut()) {
                refocus();
            }
        });
    }
    let press = |action: Action| {
        let pressed = pressed.clone();
        p.dispatch.to_callback().reform(move |_| {
            *pressed.borrow_mut() = true;
            action.clone()
        })
    };
    let go = |n: Option<usize>| press(Action::Tour(n));
    let text = use_memo(p.step, |s| s.map(caption).unwrap_or_default());
    let Some(n) = p.step else {
        return html! {
            <section class="tour off" aria-label="Guided tour">
                if let Some(left) = p.left_at {
                    <p id="tour-left">{ format!("The tour stopped at step {} of {STEPS}: you changed a setting, \
                        and its caption was about that step's settings.", left + 1) }</p>
                    <div class="buttons">
                        <button id="tour-resume" onclick={go(Some(left))}>{ format!("Back to step {}", left + 1) }</button>
                        <button id="tour-start" onclick={go(Some(0))}>{ "Start the tour again" }</button>
                    </div>
                } else {
                    <button id="tour-start" onclick={go(Some(0))}>{ "Take the guided tour" }</button>
                }
            </section>
        };
    };
    let (title, body) = &*text;
    let step_crash_us = scenario(n).crash_at_us;
    html! {
        <section class="tour" aria-labelledby="tour-title" id="tour" data-step={(n + 1).to_string()}>
            <p class="tour-count">{ format!("Guided tour, step {} of {STEPS}", n + 1) }</p>
            <h2 id="tour-title">{ *title }</h2>
            <p id="tour-caption" aria-live="polite">{ body.clone() }</p>
            if p.crash_moved {
                <p class="tour-moved" id="tour-moved">
                    { format!("You moved the crash: this caption is about a crash at {} s. ", seconds_text(step_crash_us)) }
                    <button id="tour-crash-back" onclick={p.dispatch.to_callback().reform(move |_| Action::SetCrash(step_crash_us))}>
                        { format!("Crash at {} s again", seconds_text(step_crash_us)) }
                    </button>
                </p>
            }
            <div class="buttons">
                <button id="tour-back" disabled={n == 0} onclick={go(n.checked_sub(1))}>{ "Back" }</button>
                <button id="tour-next" disabled={n + 1 == STEPS} onclick={go(Some(n + 1))}>{ "Next" }</button>
                <button id="tour-reset" onclick={press(Action::Reset)}>{ "Reset to defaults" }</button>
            </div>
        </section>
    }
}

/// If the focus fell back to the page (or sits on a disabled button), puts it on the first
/// tour button that can take it:
/// Next, Back, Back to step N, Take the tour.
fn refocus() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    // A button that just became disabled still holds the focus until the browser's next
    // focus fix-up: count it as lost too.
    let lost = doc
        .active_element()
        .is_none_or(|e| doc.body().is_some_and(|b| *b == e) || e.has_attribute("disabled"));
    if !lost {
        return;
    }
    let usable = ["tour-next", "tour-back", "tour-resume", "tour-start"]
        .into_iter()
        .filter_map(crate::element_by_id::<HtmlElement>)
        .find(|b| !b.has_attribute("disabled"));
    if let Some(b) = usable {
        let _ = b.focus();
    }
}
