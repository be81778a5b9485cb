//! What the reader reads: the state a crash leaves (with the commits still in flight and,
//! after `close()`, that the consumer had closed), the worst instants (each a button that
//! moves the crash there), the loop's cost of committing, and the charts' legend. Every
//! number is the core's; every sentence is ours (`offset_window_view::kit::text`).

use super::{rendered, RunRef};
use crate::shell::Part;
use crate::state::{Action, State};
use offset_window_sim::CrashState;
use offset_window_view::consumer::words::{self, in_flight_note, in_flight_sentence, InFlight};
use offset_window_view::kit::text::{fixed, instant_text, offset_text, seconds_text, short_instant};
use yew::prelude::*;

/// The state at the crash instant (a [`Part`]: its fields are its props).
#[derive(PartialEq)]
pub struct AtCrash {
    /// The state the crash leaves.
    pub at: CrashState,
    /// Added to every offset shown.
    pub base: u64,
    /// The heading: "Crash at 8.200 s", or what the consumer was doing.
    pub heading: String,
    /// Why the instant is not a plain crash (the consumer had closed), if it is not.
    pub lifecycle: Option<String>,
    /// Commits the crash cancels.
    pub in_flight: Vec<InFlight>,
}

/// One readout; `short` is its label where room is short (the phone's strip, the embed).
fn readout(
    id: &'static str,
    class: impl Into<Classes>,
    (title, short): (&'static str, &'static str),
    value: String,
    note: String,
) -> Html {
    html! {
        <div class={classes!("ro", class.into())} {id} data-value={value.clone()}>
            <dt data-short={short}><span>{ title }</span></dt>
            <dd class="num">{ value }</dd>
            <dd class="note">{ note }</dd>
        </div>
    }
}

/// The state at the crash instant: the three lines, lost, duplicated and re-read. The
/// committed offset says when a commit is still in flight and when it lands.
impl Part for AtCrash {
    fn view(&self) -> Html {
        let p = self;
        rendered("AtCrash");
        let (at, b) = (&p.at, p.base);
        let flight = in_flight_note(&p.in_flight, b);
        let committed_note = flight.clone().unwrap_or_else(|| "the group restarts here".into());
        html! {
            <section class="readouts" aria-labelledby="at-title">
                <h2 id="at-title"><span id="crash-shown">{ p.heading.clone() }</span></h2>
                <dl class="ro-grid">
                    { readout("ro-position", "position", ("position", "position"), offset_text(at.position, b), "records poll() handed out".into()) }
                    { readout("ro-durable", "durable", ("durable frontier", "durable"), offset_text(Some(at.durable), b), "side effects landed".into()) }
                    { readout("ro-committed", classes!("committed", flight.is_some().then_some("flight")), ("committed offset", "committed"), offset_text(at.committed, b), committed_note) }
                    { readout("ro-lost", "lost", ("lost", "lost"), at.lost.to_string(), "committed, never processed".into()) }
                    { readout("ro-duplicated", "duplicated", ("processed twice", "twice"), at.duplicated.to_string(), "done, and done again after restart".into()) }
                    { readout("ro-reread", "reread", ("re-read", "re-read"), at.reread.to_string(), "poll() hands these out again".into()) }
                </dl>
                if let Some(note) = flight {
                    <p class="flight-note" id="flight-note">{ format!("Commit of {note}") }</p>
                }
                { for p.in_flight.iter().map(|c| html! { <p class="in-flight">{ in_flight_sentence(c, b) }</p> }) }
                if let Some(words) = &p.lifecycle { <p class="in-flight" id="lifecycle">{ words.clone() }</p> }
            </section>
        }
    }
}

/// Props of [`RunSummary`] and [`WorstLine`].
#[derive(Properties, PartialEq)]
pub struct RunProps {
    /// The run.
    pub run: RunRef,
    /// Where actions go.
    #[prop_or_default]
    pub dispatch: Option<UseReducerDispatcher<State>>,
}

/// What depends on the run but not on the crash: the worst crash instants (each with a
/// button that moves the crash there) and what committing costs the loop.
#[function_component]
pub fn RunSummary(p: &RunProps) -> Html {
    rendered("RunSummary");
    let run = &p.run.0;
    let worst = run.worst();
    // A maximum the horizon cuts (model.md §5): say so, and offer twice the horizon.
    let horizon_us = run.scenario.horizon_us;
    let max_us = match offset_window_sim::scenario::key_spec("horizon_ms").map(|k| k.kind) {
        Some(offset_window_sim::keys::KeyKind::Millis { max_us, .. }) => max_us,
        _ => horizon_us,
    };
    let longer_ms = (horizon_us * 2).min(max_us) / 1000;
    let row = |id: &'static str, what: &'static str, count: u64, at: Option<u64>, cut: bool| {
        let text = match at {
            Some(us) => format!("{count} {what}, if the crash comes {}", instant_text(us)),
            None => format!("0 {what}: no crash instant in the horizon does that"),
        };
        html! {
            <div class="worst-row" {id} data-value={count.to_string()}
                data-at-us={at.map(|u| u.to_string()).unwrap_or_default()} data-cut={cut.to_string()}>
                <p>{ text }
                    if cut {
                        <span class="cut">{ " — still growing where the horizon ends: a later crash may be worse" }</span>
                    }
                </p>
                if let (Some(us), Some(d)) = (at, &p.dispatch) {
                    <button class="go" onclick={d.to_callback().reform(move |_| Action::SetCrash(us))}
                        aria-label={format!("Crash there: move the crash to {} s", seconds_text(us))}>
                        { "Crash there" }
                    </button>
                }
                if let (true, Some(d)) = (cut && longer_ms * 1000 > horizon_us, &p.dispatch) {
                    <button class="go extend" onclick={d.to_callback().reform(move |_| Action::SetField {
                            key: "horizon_ms", text: longer_ms.to_string() })}
                        aria-label={format!("Extend the horizon to {} s", seconds_text(longer_ms * 1000))}>
                        { format!("Show {} s", seconds_text(longer_ms * 1000)) }
                    </button>
                }
            </div>
        }
    };
    let blocked = fixed(run.blocked_on_commits() * 100.0, 1);
    // Offsets with at least one failed attempt (docs/model.md §12).
    let threw_section = run.scenario.record_failures_possible().then(|| {
        let threw: u64 = offset_window_view::consumer::records::outcomes(run).failed.iter().map(|r| r.end - r.start).sum();
        let r = &run.records;
        html! {
            <section class="threw" aria-labelledby="threw-title">
                <h2 id="threw-title">{ "Records that threw" }</h2>
                <p id="ro-threw" data-value={threw.to_string()}>
                    <strong>{ threw }</strong>{ if threw == 1 { " record threw" } else { " records threw" } }
                    { format!(" ({} failed attempt{}) within the horizon", r.failed_attempts, if r.failed_attempts == 1 { "" } else { "s" }) }
                </p>
                <p id="ro-given-up" data-skipped={r.skipped.to_string()} data-dead-lettered={r.dead_lettered.to_string()}>
                    { format!("{} given up and skipped (lost once a commit passes them), {} sent to the dead-letter topic{}.",
                        r.skipped, r.dead_lettered,
                        if r.stopped_partitions > 0 { ", and the partition stopped" } else { "" }) }
                </p>
            </section>
        }
    });
    html! {
        <>
        <section class="worst" aria-labelledby="worst-title">
            <h2 id="worst-title">{ "Worst instant to crash" }</h2>
            { row("worst-duplicated", "processed twice", worst.duplicated, worst.duplicated_at_us,
                worst.duplicated_at_horizon_end) }
            { row("worst-lost", "lost", worst.lost, worst.lost_at_us, worst.lost_at_horizon_end) }
        </section>
        { for threw_section }
        <section class="rates" aria-labelledby="rates-title">
            <h2 id="rates-title">{ "What committing costs" }</h2>
            <p id="ro-blocked" data-value={blocked.clone()}>
                <strong>{ blocked }{ " %" }</strong>{ " of the loop's time is spent waiting for commits" }
            </p>
            <p id="ro-rates">
                <strong>{ fixed(run.commits_per_s(), 2) }</strong>{ " commits/s against " }
                <strong>{ fixed(run.polls_per_s(), 2) }</strong>{ " polls/s" }
            </p>
        </section>
        </>
    }
}

/// The worst case in one line (the embed and the projector screen).
#[function_component]
pub fn WorstLine(p: &RunProps) -> Html {
    let w = p.run.0.worst();
    let part = |count: u64, what: &str, at: Option<u64>, cut: bool| match at {
        Some(us) => {
            format!("{count} {what} {}{}", short_instant(us), if cut { " (horizon's end)" } else { "" })
        }
        None => format!("nothing {what}"),
    };
    html! {
        <p class="worst-line" id="worst-line" data-duplicated={w.duplicated.to_string()} data-lost={w.lost.to_string()}>
            <strong>{ "Worst: " }</strong>
            { part(w.duplicated, "processed twice", w.duplicated_at_us, w.duplicated_at_horizon_end) }{ "; " }
            { part(w.lost, "lost", w.lost_at_us, w.lost_at_horizon_end) }
        </p>
    }
}

/// The full legend (see `offset_window_view::consumer::words::LEGEND`).
pub fn legend() -> Html {
    Html::from_html_unchecked(AttrValue::Static(words::LEGEND))
}

/// The record marks' legend, under the charts while a record can throw (see
/// `offset_window_view::consumer::words::LEGEND_RECORDS`); nothing otherwise.
pub fn legend_records(run: &offset_window_sim::Run) -> Html {
    if run.scenario.record_failures_possible() {
        Html::from_html_unchecked(AttrValue::Static(words::LEGEND_RECORDS))
    } else {
        Html::default()
    }
}

/// The one-line legend (see `offset_window_view::consumer::words::LEGEND_COMPACT`).
pub fn legend_compact() -> Html {
    Html::from_html_unchecked(AttrValue::Static(words::LEGEND_COMPACT))
}
