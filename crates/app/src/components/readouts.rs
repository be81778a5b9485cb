//! What the reader reads: the state a crash leaves, the worst instants (each a button
//! that moves the crash there), the loop's cost of committing, and the charts' legend.
//! Every number is the core's; every sentence is ours.

use super::{rendered, RunRef};
use crate::state::{seconds_text, Action, State};
use offset_window_sim::{CrashState, MarkKind, Run};
use yew::prelude::*;

/// A commit sent before the crash that had not landed yet: the crash cancels it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// The offset it would have stored.
    pub offset: u64,
    /// When it was sent, µs.
    pub sent_at_us: u64,
    /// When it would have landed, µs.
    pub lands_at_us: u64,
}

/// The commits in flight at `crash_at_us` (sent before it, landing at or after it).
/// Every commit takes the same round trip, so only marks sent within one round trip
/// before the crash can be in flight: a binary search, then a short scan.
pub fn in_flight(run: &Run, crash_at_us: u64) -> Vec<InFlight> {
    let earliest = crash_at_us.saturating_sub(run.scenario.commit_latency_us);
    let start = run.marks.partition_point(|m| m.at_us < earliest);
    run.marks[start..]
        .iter()
        .take_while(|m| m.at_us < crash_at_us)
        .filter_map(|m| match m.kind {
            MarkKind::CommitSent { offset, lands_at_us, .. } if lands_at_us >= crash_at_us => {
                Some(InFlight { offset, sent_at_us: m.at_us, lands_at_us })
            }
            _ => None,
        })
        .collect()
}

/// Props of [`AtCrash`].
#[derive(Properties, PartialEq)]
pub struct AtCrashProps {
    /// The state the crash leaves.
    pub at: CrashState,
    /// Commits the crash cancels.
    pub in_flight: Vec<InFlight>,
}

fn readout(
    id: &'static str,
    class: &'static str,
    title: &'static str,
    value: u64,
    note: &'static str,
) -> Html {
    html! {
        <div class={classes!("ro", class)} {id} data-value={value.to_string()}>
            <dt>{ title }</dt>
            <dd>{ value }</dd>
            <p class="note">{ note }</p>
        </div>
    }
}

/// The state at the crash instant: the three lines, lost, duplicated and re-read.
#[function_component]
pub fn AtCrash(p: &AtCrashProps) -> Html {
    rendered("AtCrash");
    let at = &p.at;
    html! {
        <section class="readouts" aria-labelledby="at-title">
            <h2 id="at-title">{ "Crash at " }<span id="crash-shown">{ format!("{} s", seconds_text(at.crash_at_us)) }</span></h2>
            <dl class="ro-grid">
                { readout("ro-position", "position", "handed out", at.position, "position: records poll() returned") }
                { readout("ro-durable", "durable", "finished", at.durable, "durable frontier: side effects landed") }
                { readout("ro-committed", "committed", "committed offset", at.committed, "the group restarts here") }
                { readout("ro-lost", "lost", "lost", at.lost, "committed, but never processed") }
                { readout("ro-duplicated", "duplicated", "duplicated", at.duplicated, "processed, and processed again after restart") }
                { readout("ro-reread", "reread", "re-read after restart", at.reread, "poll() hands these out a second time") }
            </dl>
            { for p.in_flight.iter().map(|c| html! {
                <p class="in-flight">
                    { format!("A commit of offset {} was on its way (sent at {} s, due at {} s): the crash cancels it.",
                        c.offset, seconds_text(c.sent_at_us), seconds_text(c.lands_at_us)) }
                </p>
            }) }
        </section>
    }
}

/// Props of [`WorstCase`].
#[derive(Properties, PartialEq)]
pub struct WorstProps {
    /// The run.
    pub run: RunRef,
    /// Where actions go.
    pub dispatch: UseReducerDispatcher<State>,
}

/// "just after 5.000 s (5.000001 s)" for an instant 1 µs after a whole millisecond, else
/// "at 8.2 s".
pub fn instant_text(us: u64) -> String {
    if us % 1_000 == 1 {
        format!("just after {} s ({} s)", seconds_text(us - 1), seconds_text(us))
    } else {
        format!("at {} s", seconds_text(us))
    }
}

/// The worst crash instants over the horizon, each with a button that moves the crash there.
#[function_component]
pub fn WorstCase(p: &WorstProps) -> Html {
    rendered("WorstCase");
    let worst = p.run.0.worst();
    let row = |id: &'static str, what: &'static str, count: u64, at: Option<u64>| {
        let text = match at {
            Some(us) => format!("{count} {what}, if the crash comes {}", instant_text(us)),
            None => format!("0 {what}: no crash instant in the horizon does that"),
        };
        html! {
            <div class="worst-row" {id} data-value={count.to_string()}
                data-at-us={at.map(|u| u.to_string()).unwrap_or_default()}>
                <p>{ text }</p>
                if let Some(us) = at {
                    <button class="go" onclick={p.dispatch.to_callback().reform(move |_| Action::SetCrash(us))}
                        aria-label={format!("Move the crash to {} s", seconds_text(us))}>
                        { "Crash there" }
                    </button>
                }
            </div>
        }
    };
    html! {
        <section class="worst" aria-labelledby="worst-title">
            <h2 id="worst-title">{ "Worst instant to crash" }</h2>
            { row("worst-duplicated", "duplicated", worst.duplicated, worst.duplicated_at_us) }
            { row("worst-lost", "lost", worst.lost, worst.lost_at_us) }
        </section>
    }
}

/// Props of [`Rates`].
#[derive(Properties, PartialEq)]
pub struct RatesProps {
    /// The run.
    pub run: RunRef,
}

/// What committing costs the loop: time blocked, commits against polls.
#[function_component]
pub fn Rates(p: &RatesProps) -> Html {
    rendered("Rates");
    let run = &p.run.0;
    let blocked = run.blocked_on_commits() * 100.0;
    html! {
        <section class="rates" aria-labelledby="rates-title">
            <h2 id="rates-title">{ "What committing costs" }</h2>
            <p id="ro-blocked" data-value={format!("{blocked:.1}")}>
                <strong>{ format!("{blocked:.1} %") }</strong>{ " of the loop's time is spent waiting for commits" }
            </p>
            <p id="ro-rates" data-commits={format!("{:.2}", run.commits_per_s())} data-polls={format!("{:.2}", run.polls_per_s())}>
                <strong>{ format!("{:.2}", run.commits_per_s()) }</strong>{ " commits/s against " }
                <strong>{ format!("{:.2}", run.polls_per_s()) }</strong>{ " polls/s" }
            </p>
        </section>
    }
}

/// The main chart's legend, in HTML (canvas text is the slow part of a redraw), naming the
/// lines in Kafka's words. The swatches repeat the chart's dashes and hatching, so the
/// legend reads without colour too.
#[function_component]
pub fn Legend() -> Html {
    rendered("Legend");
    let item = |class: &'static str, text: Html| html! { <li><span class={classes!("sw", class)} aria-hidden="true"></span><span>{ text }</span></li> };
    html! {
        <ul class="legend" aria-label="Legend of the chart above">
            { item("sw-position", html! { <><b>{ "position" }</b>{ ": next offset poll() hands out (dashed)" }</> }) }
            { item("sw-durable", html! { <><b>{ "durable frontier" }</b>{ ": first record whose side effect has not landed" }</> }) }
            { item("sw-committed", html! { <><b>{ "committed offset" }</b>{ ": what the group coordinator stored" }</> }) }
            { item("sw-landed", html! { <>{ "a commit lands (OffsetCommit stored)" }</> }) }
            { item("sw-inflight", html! { <>{ "top lane: commit in flight, filled when the loop waits for it (commitSync, commitTransaction), hollow when not" }</> }) }
            { item("sw-duplicated", html! { <>{ "crash here: records processed twice (/ hatching, above the committed offset)" }</> }) }
            { item("sw-lost", html! { <>{ "crash here: records lost (× hatching, below the committed offset)" }</> }) }
            { item("sw-crash", html! { <>{ "the crash: drag it, or use the slider" }</> }) }
        </ul>
    }
}
