//! What the reader reads: the state a crash leaves, the worst instants (each a button
//! that moves the crash there), the loop's cost of committing, and the charts' legend.
//! Every number is the core's; every sentence is ours.

use super::{rendered, RunRef};
use crate::state::{fixed, seconds_text, Action, State};
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
            MarkKind::CommitSent { offset, .. } if run.lands_at_us(m.at_us) >= crash_at_us => {
                Some(InFlight { offset, sent_at_us: m.at_us, lands_at_us: run.lands_at_us(m.at_us) })
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
    value: impl Into<Option<u64>>,
    note: &'static str,
) -> Html {
    let value = crate::components::panels::offset_text(value.into());
    html! {
        <div class={classes!("ro", class)} {id} data-value={value.clone()}>
            <dt>{ title }</dt>
            <dd>{ value }</dd>
            <dd class="note">{ note }</dd>
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

/// Props of [`RunSummary`].
#[derive(Properties, PartialEq)]
pub struct RunProps {
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

/// What depends on the run but not on the crash: the worst crash instants (each with a
/// button that moves the crash there) and what committing costs the loop.
#[function_component]
pub fn RunSummary(p: &RunProps) -> Html {
    rendered("RunSummary");
    let run = &p.run.0;
    let worst = run.worst();
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
                        aria-label={format!("Crash there: move the crash to {} s", seconds_text(us))}>
                        { "Crash there" }
                    </button>
                }
            </div>
        }
    };
    let blocked = fixed(run.blocked_on_commits() * 100.0, 1);
    html! {
        <>
        <section class="worst" aria-labelledby="worst-title">
            <h2 id="worst-title">{ "Worst instant to crash" }</h2>
            { row("worst-duplicated", "duplicated", worst.duplicated, worst.duplicated_at_us) }
            { row("worst-lost", "lost", worst.lost, worst.lost_at_us) }
        </section>
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

/// The charts' legend, naming the lines in Kafka's words. Static HTML, handed to the
/// browser as one string (no per-element code in the page); the swatches repeat the
/// chart's dashes and hatching, so it reads without colour too.
const LEGEND: &str = concat!(
    r#"<ul class="legend" aria-label="Legend of the charts">"#,
    r#"<li><span class="sw sw-position" aria-hidden="true"></span><span><b>position</b>: next offset poll() hands out (dashed)</span></li>"#,
    r#"<li><span class="sw sw-durable" aria-hidden="true"></span><span><b>durable frontier</b>: first record whose side effect has not landed</span></li>"#,
    r#"<li><span class="sw sw-committed" aria-hidden="true"></span><span><b>committed offset</b>: what the group coordinator stored</span></li>"#,
    r#"<li><span class="sw sw-landed" aria-hidden="true"></span><span>a commit lands (OffsetCommit stored)</span></li>"#,
    r#"<li><span class="sw sw-inflight" aria-hidden="true"></span><span>commits lane: a commit in flight, filled when the loop waits for it (commitSync, commitTransaction), hollow when not</span></li>"#,
    r#"<li><span class="sw sw-duplicated" aria-hidden="true"></span><span>crash here: records processed twice (/ hatching, above the committed offset)</span></li>"#,
    r#"<li><span class="sw sw-lost" aria-hidden="true"></span><span>crash here: records lost (× hatching, below the committed offset)</span></li>"#,
    r#"<li><span class="sw sw-crash" aria-hidden="true"></span><span>the crash: drag it on either chart, or use the slider</span></li>"#,
    r#"<li><span class="sw sw-failed" aria-hidden="true">×</span><span>a commit that failed (CommitFailedException, a retriable error): it never lands</span></li>"#,
    r#"<li><span class="sw sw-evicted" aria-hidden="true"></span><span>the member is evicted: no poll() for max.poll.interval.ms (dashed)</span></li>"#,
    r#"<li><span class="sw sw-closed" aria-hidden="true"></span><span>close() returned (solid grey); the consumer restarted (dotted grey)</span></li>"#,
    "</ul>"
);

/// The legend (see [`LEGEND`]).
pub fn legend() -> Html {
    Html::from_html_unchecked(AttrValue::Static(LEGEND))
}
