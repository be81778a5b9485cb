//! The result JSON of model.md §6 read off a [`Run`] at one crash instant
//! ([`Run::summary_at`]): what `offset-window run` prints and the page exports.

use crate::keys::millis_value;
#[cfg(feature = "group")]
use crate::report::GroupSummary;
use crate::scenario::millis_f64;
use crate::timeline::{CrashState, RecordOutcomes, Run, ScriptReading};
use serde::Serialize;

impl Run {
    /// The result of model.md §6 for a crash at `crash_at_us`: what `offset-window run`
    /// prints and the page exports.
    pub fn summary_at(&self, crash_at_us: u64) -> Summary {
        self.summary_with(crash_at_us, None)
    }

    /// [`Run::summary_at`] of a run recorded without its marks: a consumer group's sweep
    /// takes the run's own instants from `mark_instants` (ascending, each once) instead.
    pub(crate) fn summary_with(&self, crash_at_us: u64, mark_instants: Option<&[u64]>) -> Summary {
        #[cfg(not(feature = "group"))]
        let _ = mark_instants; // only a group's sweep reads them
        let mut scenario = self.scenario.to_json_value();
        // One consumer, or a share group of one partition: the crash reading of §5 / §11.
        let one_consumer = !self.scenario.group_mode() && self.partitions.len() == 1;
        if let (serde_json::Value::Object(map), true) = (&mut scenario, one_consumer) {
            map.insert(crate::scenario::CRASH_AT_KEY.name.into(), millis_value(crash_at_us));
        }
        // A group reports its handovers, and the damage as a function of its first event.
        #[cfg(feature = "group")]
        let group = self.group.as_ref().map(|report| {
            let profile = match mark_instants {
                Some(instants) => crate::sweep::first_event_profile_with_instants(&self.scenario, instants),
                None => {
                    // The run's own instants, each once (its marks come in time order).
                    let mut instants: Vec<u64> = Vec::new();
                    for mark in self.marks.marks() {
                        if instants.last() != Some(&mark.at_us) {
                            instants.push(mark.at_us);
                        }
                    }
                    crate::sweep::first_event_profile_with_instants(&self.scenario, &instants)
                }
            };
            let profile = profile.ok().flatten();
            GroupSummary::new(report, profile.as_ref())
        });
        Summary {
            scenario,
            at_crash: one_consumer.then(|| self.state_at(crash_at_us)),
            worst: one_consumer.then(|| {
                let worst = self.worst();
                WorstSummary {
                    lost: worst.lost,
                    lost_at_ms: worst.lost_at_us.map(millis_f64),
                    duplicated: worst.duplicated,
                    duplicated_at_ms: worst.duplicated_at_us.map(millis_f64),
                    lost_at_horizon_end: worst.lost_at_horizon_end,
                    duplicated_at_horizon_end: worst.duplicated_at_horizon_end,
                }
            }),
            blocked_on_commits: self.blocked_on_commits(),
            commits_per_s: self.commits_per_s(),
            polls_per_s: self.polls_per_s(),
            commits_landed: self.commits_landed,
            polls: self.polls,
            client: self.scenario.client.note(),
            at_close: self.closed_at_us.map(|at| self.state_at(at + 1)),
            closed_at_ms: self.closed_at_us.map(millis_f64),
            script: self.script.clone(),
            #[cfg(feature = "group")]
            group,
            records: self.scenario.record_failures_possible().then_some(self.records),
            #[cfg(feature = "group")]
            share: self
                .scenario
                .share_group()
                .then(|| crate::share_report::ShareSummary::new(self, crash_at_us)),
        }
    }
}

/// The result JSON of model.md §6 (what `offset-window run` prints and the page exports).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The scenario, every key, canonical form, with the crash instant read.
    pub scenario: serde_json::Value,
    /// The state at the crash instant (one consumer; a group reports `group`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_crash: Option<CrashState>,
    /// The worst crash instants over the horizon (one consumer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst: Option<WorstSummary>,
    /// Fraction 0..1 of the horizon the loop spent blocked on commits (a group: the mean
    /// over its members; `group.members` has each one's).
    pub blocked_on_commits: f64,
    /// Commits landed per second of horizon.
    pub commits_per_s: f64,
    /// Polls per second of horizon.
    pub polls_per_s: f64,
    /// Commits landed within the horizon.
    pub commits_landed: u64,
    /// Polls within the horizon.
    pub polls: u64,
    /// Which real client's behaviour the run follows.
    pub client: &'static str,
    /// With `close_at_ms`: the state 1 µs after `close()` returned (model.md §8.6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_close: Option<CrashState>,
    /// With `close_at_ms`: when `close()` returned, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_at_ms: Option<f64>,
    /// With `script`: the reading after each step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<Vec<ScriptReading>>,
    /// A consumer group's report (model.md §10.7).
    #[cfg(feature = "group")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<GroupSummary>,
    /// With record failures (model.md §12): what became of the records that threw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<RecordOutcomes>,
    /// A share group's report (model.md §11).
    #[cfg(feature = "group")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share: Option<crate::share_report::ShareSummary>,
}

/// [`Worst`](crate::timeline::Worst) in the JSON's milliseconds (`5000.001` is 1 µs after the event at 5000 ms).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct WorstSummary {
    /// Largest `lost` over the horizon.
    pub lost: u64,
    /// Earliest crash instant reaching it, ms; null when it is 0.
    pub lost_at_ms: Option<f64>,
    /// Largest `duplicated` over the horizon.
    pub duplicated: u64,
    /// Earliest crash instant reaching it, ms; null when it is 0.
    pub duplicated_at_ms: Option<f64>,
    /// `lost` is first reached in the horizon's last stretch: a longer horizon may be worse.
    pub lost_at_horizon_end: bool,
    /// `duplicated` is first reached in the horizon's last stretch: a longer horizon may be worse.
    pub duplicated_at_horizon_end: bool,
}
