//! The guided tour's panel: the step's title and caption (numbers from the core, see
//! `crate::tour`), or first its question on a "predict first" step; Back, Next (Finish on
//! the last step), Leave (keeping the settings; Escape does the same) and Reset; a note
//! when the crash was moved away from the step's instant; an offer to resume when changing
//! a setting ended the tour.

use crate::state::{Action, Prediction, State};
use crate::tour::{caption, prediction, reveal_text, scenario, STEPS};
use offset_window_view::kit::text::seconds_text;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Props of [`Tour`].
#[derive(Properties, PartialEq)]
pub struct TourProps {
    /// The step shown, if the tour is on.
    pub step: Option<usize>,
    /// The step a change of setting ended the tour on, if it did.
    pub left_at: Option<usize>,
    /// On a prediction step: asking, or the reader's guess once revealed.
    pub prediction: Option<Prediction>,
    /// Whether the crash is away from the step's own instant (the caption is about that one).
    pub crash_moved: bool,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// The tour panel; a "Take the tour" button while it is off.
#[function_component]
pub fn Tour(p: &TourProps) -> Html {
    // Escape leaves the tour, keeping what is on screen; a button pressed from the keyboard
    // that vanishes hands the focus to the tour's next useful button.
    let pressed = crate::shell::use_tour_focus(p.step.is_some(), {
        let dispatch = p.dispatch.clone();
        move || dispatch.dispatch(Action::Tour(None))
    });
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
    let last = n + 1 == STEPS;
    let asking = p.prediction == Some(Prediction::Asking);
    let reveal = {
        let pressed = pressed.clone();
        p.dispatch.to_callback().reform(move |e: SubmitEvent| {
            e.prevent_default();
            *pressed.borrow_mut() = true;
            let guess = crate::shell::element_by_id::<HtmlInputElement>("tour-guess")
                .map(|i| i.value())
                .unwrap_or_default();
            Action::Reveal(guess)
        })
    };
    html! {
        <section class="tour" aria-labelledby="tour-title" id="tour" data-step={(n + 1).to_string()}>
            <p class="tour-count">{ format!("Guided tour, step {} of {STEPS}", n + 1) }</p>
            <h2 id="tour-title">{ *title }</h2>
            if asking {
                <form class="predict" id="tour-predict" onsubmit={reveal}>
                    <label for="tour-guess">{ prediction(n).map(|q| q.ask).unwrap_or_default() }</label>
                    <div class="field-row">
                        <input type="text" id="tour-guess" class="num" inputmode="numeric" autocomplete="off" />
                        <button type="submit" id="tour-reveal">{ "Show the answer" }</button>
                    </div>
                    <p class="hint">{ "The numbers on the page stay hidden until you answer." }</p>
                </form>
            } else {
                if let Some(Prediction::Revealed(guess)) = &p.prediction {
                    <p class="reveal" id="tour-reveal-text"><strong>{ reveal_text(n, *guess) }</strong></p>
                }
                <p id="tour-caption" aria-live="polite">{ body.clone() }</p>
            }
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
                if last {
                    <button id="tour-finish" onclick={go(None)}>{ "Finish the tour" }</button>
                } else {
                    <button id="tour-next" onclick={go(Some(n + 1))}>{ "Next" }</button>
                    <button id="tour-leave" onclick={go(None)} title="Escape">{ "Leave the tour, keep these settings" }</button>
                }
                <button id="tour-reset" onclick={press(Action::Reset)}>{ "Reset to defaults" }</button>
            </div>
        </section>
    }
}
