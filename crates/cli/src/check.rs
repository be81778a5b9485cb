//! `offset-window check`: bounds on what a crash can lose or repeat, for a CI job. Exit 0
//! when every bound holds, 1 with one line per bound broken (the worst instant and the page
//! link that shows it), 2 for input it refuses.
//!
//! The worst figures are `run`'s own: over every crash instant (`--over crash`) the core's
//! one-pass crash profile (`Run::worst`, model.md §5) for one consumer, the share group's
//! worst crash of the whole group for a share group (§11), for a consumer group without
//! `group_events` a crash of consumer-1 (restarted 1 ms later) at every instant that can
//! matter, and for a consumer group with events the run's totals at its handovers (its
//! crashes are its `group_events`, §10.3); over the
//! first group event's instant (`--over first-event`) the sweep of `run`'s
//! `group.first_event` (§10.7: the first event moved to every instant that can matter).

use crate::link;
use offset_window_sim::events::{GroupEvent, GroupEventKind};
use offset_window_sim::keys::{format_millis, millis_f64};
use offset_window_sim::scenario::DEFAULT_CRASH_AT_US;
use offset_window_sim::sweep::{first_event_profile, with_first_event_at};
use offset_window_sim::{simulate, Scenario};

/// Over which instants the worst figures are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Over {
    /// Every crash instant of the horizon (one consumer, a share group; a consumer group
    /// without events: every instant of a crash of consumer-1, restarted 1 ms later); a
    /// consumer group with events: its run as its events are written.
    Crash,
    /// Every instant of the first group event (a consumer group with `group_events`).
    FirstEvent,
}

impl Over {
    fn words(self) -> &'static str {
        match self {
            Over::Crash => "over every crash instant",
            Over::FirstEvent => "over the first group event's instant",
        }
    }
}

/// One bound judged on one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Which input: a file name, or the files imported together.
    pub label: String,
    /// `lost` or `duplicated`.
    pub what: &'static str,
    /// The bound given (`--max-lost`, `--max-duplicated`).
    pub bound: u64,
    /// The worst figure found.
    pub worst: u64,
    /// Where it is first reached, µs (`None` when it is 0, or for a group's own run).
    pub at_us: Option<u64>,
    /// The figure is first reached in the horizon's last stretch: a longer horizon may be worse.
    pub at_horizon_end: bool,
    /// Over what it was taken.
    pub over: Over,
    /// The page showing it.
    pub link: String,
    /// A consumer group without events: the instant is that of consumer-1's crash.
    pub swept_member_crash: bool,
}

impl Verdict {
    /// Whether the bound holds.
    pub fn holds(&self) -> bool {
        self.worst <= self.bound
    }

    /// The flag of its bound.
    pub fn flag(&self) -> &'static str {
        if self.what == "lost" {
            "--max-lost"
        } else {
            "--max-duplicated"
        }
    }

    /// One line: `FILE: duplicated 25 > 0 (--max-duplicated), worst at 5000.001 ms over every
    /// crash instant: LINK`.
    pub fn line(&self) -> String {
        let cmp = if self.holds() { "≤" } else { ">" };
        let at = match (self.at_us, self.over) {
            (Some(us), Over::Crash) if self.swept_member_crash => {
                format!(", worst with consumer-1 crashing at {} ms", format_millis(us))
            }
            (Some(us), Over::Crash) => format!(", worst at {} ms", format_millis(us)),
            (Some(us), Over::FirstEvent) => {
                format!(", worst with the first event at {} ms", format_millis(us))
            }
            (None, _) => String::new(),
        };
        let cut = if self.at_horizon_end {
            " (at the horizon's end: a longer horizon_ms may be worse)"
        } else {
            ""
        };
        format!(
            "{}: {} {} {cmp} {} ({}){at} {}{cut}: {}",
            self.label,
            self.what,
            self.worst,
            self.bound,
            self.flag(),
            self.over.words(),
            self.link
        )
    }
}

/// The worst figures of `scenario` over `over`: `(lost, lost at, lost at the horizon's end,
/// duplicated, duplicated at, …, the scenario the page link shows)`.
struct Worst {
    lost: (u64, Option<u64>, bool),
    duplicated: (u64, Option<u64>, bool),
}

/// Judges the bounds on one scenario. Errors (the runner exits 2): a scenario the core
/// refuses, or `--over first-event` without group events.
pub fn check_scenario(
    label: &str,
    scenario: &Scenario,
    over: Over,
    max_lost: Option<u64>,
    max_duplicated: Option<u64>,
    base: &str,
) -> Result<Vec<Verdict>, String> {
    let run = simulate(scenario).map_err(|e| format!("{label}: {e}"))?;
    // The scenario each figure's link shows, and the crash instant it is read at.
    let mut shown: [(Scenario, u64); 2] =
        [(scenario.clone(), DEFAULT_CRASH_AT_US), (scenario.clone(), DEFAULT_CRASH_AT_US)];
    let worst = match over {
        Over::Crash if scenario.share_group() => {
            let share = offset_window_sim::share_report::ShareSummary::new(&run, DEFAULT_CRASH_AT_US);
            let us = |ms: Option<f64>| ms.map(|ms| (ms * 1000.0).round() as u64);
            Worst {
                lost: (share.worst_lost, us(share.worst_lost_at_ms), false),
                duplicated: (share.worst_duplicated, us(share.worst_duplicated_at_ms), false),
            }
        }
        Over::Crash if scenario.group_mode() && !scenario.group_events.is_empty() => {
            let group = run.group.as_ref().ok_or_else(|| format!("{label}: the group run has no report"))?;
            Worst { lost: (group.lost(), None, false), duplicated: (group.duplicated(), None, false) }
        }
        Over::Crash if scenario.group_mode() => {
            // No events: consumer-1's process crashes and is restarted 1 ms later, at every
            // instant that can matter (the first-event sweep of that crash).
            let mut crashed = scenario.clone();
            let mut event = GroupEvent::new(scenario.horizon_us / 2, 1, GroupEventKind::Crash);
            event.restart_after_us = Some(1_000);
            crashed.group_events.push(event);
            let profile = first_event_profile(&crashed)
                .map_err(|e| format!("{label}: {e}"))?
                .ok_or_else(|| format!("{label}: no crash instant to sweep"))?;
            for (i, at) in [profile.worst_lost.1, profile.worst_duplicated.1].into_iter().enumerate() {
                shown[i].0 = with_first_event_at(&crashed, profile.event, at.unwrap_or(event.at_us));
            }
            Worst {
                lost: (profile.worst_lost.0, profile.worst_lost.1, false),
                duplicated: (profile.worst_duplicated.0, profile.worst_duplicated.1, false),
            }
        }
        Over::Crash => {
            let w = run.worst();
            Worst {
                lost: (w.lost, w.lost_at_us, w.lost_at_horizon_end),
                duplicated: (w.duplicated, w.duplicated_at_us, w.duplicated_at_horizon_end),
            }
        }
        Over::FirstEvent => {
            let profile = first_event_profile(scenario)
                .map_err(|e| format!("{label}: {e}"))?
                .filter(|_| scenario.group_mode())
                .ok_or_else(|| {
                    format!(
                        "{label}: --over first-event needs a consumer group with group_events \
                         (docs/model.md §10.3); this scenario has none"
                    )
                })?;
            for (i, at) in [profile.worst_lost.1, profile.worst_duplicated.1].into_iter().enumerate() {
                if let Some(at) = at {
                    shown[i].0 = with_first_event_at(scenario, profile.event, at);
                }
            }
            Worst {
                lost: (profile.worst_lost.0, profile.worst_lost.1, false),
                duplicated: (profile.worst_duplicated.0, profile.worst_duplicated.1, false),
            }
        }
    };
    let swept = scenario.group_mode() && scenario.group_events.is_empty();
    if over == Over::Crash {
        for (i, at) in [worst.lost.1, worst.duplicated.1].into_iter().enumerate() {
            if let Some(at) = at {
                shown[i].1 = at;
            }
        }
    }
    let mut verdicts = Vec::new();
    for (i, (what, bound, figure)) in
        [("lost", max_lost, worst.lost), ("duplicated", max_duplicated, worst.duplicated)]
            .into_iter()
            .enumerate()
    {
        let Some(bound) = bound else { continue };
        let (scenario, crash) = &shown[i];
        verdicts.push(Verdict {
            label: label.to_string(),
            what,
            bound,
            worst: figure.0,
            at_us: figure.1,
            at_horizon_end: figure.2,
            over,
            link: link::page_link(base, scenario, *crash),
            swept_member_crash: over == Over::Crash && swept,
        });
    }
    Ok(verdicts)
}

/// `text` with XML's five special characters escaped.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// A JUnit XML report of the verdicts: one test case per input and bound, a `<failure>` for
/// each bound broken.
pub fn junit(verdicts: &[Verdict]) -> String {
    let failures = verdicts.iter().filter(|v| !v.holds()).count();
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    text += &format!(
        "<testsuites name=\"offset-window check\" tests=\"{0}\" failures=\"{failures}\">\n\
         <testsuite name=\"offset-window check\" tests=\"{0}\" failures=\"{failures}\" errors=\"0\">\n",
        verdicts.len()
    );
    for v in verdicts {
        let name = format!("{} ≤ {} {}", v.what, v.bound, v.over.words());
        text += &format!("<testcase classname=\"{}\" name=\"{}\"", xml(&v.label), xml(&name));
        if v.holds() {
            text += &format!("><system-out>{}</system-out></testcase>\n", xml(&v.line()));
        } else {
            text += &format!(
                "><failure message=\"{}\" type=\"bound\">{}</failure></testcase>\n",
                xml(&format!("{} {} > {}", v.what, v.worst, v.bound)),
                xml(&v.line())
            );
        }
    }
    text += "</testsuite>\n</testsuites>\n";
    text
}

/// The worst instant in ms as JSON gives it (for the MCP tool's structured answer).
pub fn at_ms(v: &Verdict) -> Option<f64> {
    v.at_us.map(millis_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r1_repeats_25_just_after_5_s() {
        let v =
            check_scenario("r1", &Scenario::default(), Over::Crash, Some(0), Some(0), "http://h/").unwrap();
        assert!(v[0].holds());
        assert_eq!((v[1].worst, v[1].at_us, v[1].holds()), (25, Some(5_000_001), false));
        assert_eq!(
            v[1].line(),
            "r1: duplicated 25 > 0 (--max-duplicated), worst at 5000.001 ms over every crash instant: \
             http://h/#crash_at_us=5000001"
        );
        let xml = junit(&v);
        assert!(xml.contains("tests=\"2\" failures=\"1\""), "{xml}");
    }

    #[test]
    fn first_event_needs_group_events() {
        let e = check_scenario("x", &Scenario::default(), Over::FirstEvent, Some(0), None, "/").unwrap_err();
        assert!(e.contains("--over first-event needs"), "{e}");
    }
}
