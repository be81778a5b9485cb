//! The guided tour's panel: the step's title and caption (numbers from the core, see
//! `crate::tour`), Back, Next and Reset to defaults.

use crate::state::{Action, State};
use crate::tour::{caption, STEPS};
use yew::prelude::*;

/// Props of [`Tour`].
#[derive(Properties, PartialEq)]
pub struct TourProps {
    /// The step shown, if the tour is on.
    pub step: Option<usize>,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// The tour panel; a "Take the tour" button while it is off.
#[function_component]
pub fn Tour(p: &TourProps) -> Html {
    let go = |n: Option<usize>| p.dispatch.to_callback().reform(move |_| Action::Tour(n));
    let text = use_memo(p.step, |s| s.map(caption).unwrap_or_default());
    let Some(n) = p.step else {
        return html! {
            <section class="tour off" aria-label="Guided tour">
                <button id="tour-start" onclick={go(Some(0))}>{ "Take the guided tour" }</button>
            </section>
        };
    };
    let (title, body) = &*text;
    html! {
        <section class="tour" aria-labelledby="tour-title" id="tour" data-step={(n + 1).to_string()}>
            <p class="tour-count">{ format!("Guided tour, step {} of {STEPS}", n + 1) }</p>
            <h2 id="tour-title">{ *title }</h2>
            <p id="tour-caption" aria-live="polite">{ body.clone() }</p>
            <div class="buttons">
                <button id="tour-back" disabled={n == 0} onclick={go(n.checked_sub(1))}>{ "Back" }</button>
                <button id="tour-next" disabled={n + 1 == STEPS} onclick={go(Some(n + 1))}>{ "Next" }</button>
                <button id="tour-reset" onclick={p.dispatch.to_callback().reform(|_| Action::Reset)}>{ "Reset to defaults" }</button>
            </div>
        </section>
    }
}
