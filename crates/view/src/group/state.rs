//! The group page's state and the actions that change it: a pure reducer, as on the
//! consumer page (its `state` module).
//!
//! The scenario held is always valid and always runs: every change is checked by the core
//! ([`Scenario::validate`], then [`simulate`], which refuses an event aimed at a member that
//! is down at that instant, docs/model.md §10.3) before it is taken. A refused change keeps
//! the last good scenario and records, under the field's key, the text the reader typed and
//! a message naming the field in words and its range. Event fields are keyed
//! `group_events[i].field`, as the core names them.

use super::words;
use super::zoom::Zoom;
use crate::kit::run::Checked;
use offset_window_sim::events::{GroupEvent, GroupEventKind, ShutdownMode};
use offset_window_sim::scenario::{Consumption, OnError, DEFAULT_CRASH_AT_US};
use offset_window_sim::{Client, Run, Scenario, ScenarioError, Strategy};
use serde_json::Value;
use std::rc::Rc;

/// The key under which the share group's crash instant field keeps its text and message.
pub const CRASH_FIELD: &str = "crash";
/// The key under which a refused addition or removal of an event keeps its message.
pub const EVENTS_FIELD: &str = "group_events";
/// Records the share strip shows at once (docs/model.md §11: one row per record).
pub const STRIP_ROWS: u64 = 40;
/// Marks above which a run is too big to simulate again at every step of a drag (S-A has
/// 1.1 million, ~120 ms in the page; G1 a few thousand): a drag of its events is shown at
/// once as a preview and simulated when it rests ([`GroupAction::DragEvent`]). About 10 ms
/// of simulation on the page.
pub const PREVIEW_MARKS: usize = 100_000;

/// The page state: a scenario that runs and its run, the share group's crash instant, which
/// partition the share strip shows, how the page is shown, and any refused input.
#[derive(Clone, Debug)]
pub struct GroupState {
    /// The scenario shown; valid, and its run does not stop with an error.
    pub scenario: Scenario,
    /// The scenario's run, simulated once when the change was checked: the page draws it.
    pub run: Rc<Run>,
    /// A share group's crash of the whole group (docs/model.md §11.5), µs in `1..=horizon`.
    pub crash_at_us: u64,
    /// The partition the share strip shows (index: `orders-N`), below `partitions`.
    pub partition: u32,
    /// The first offset of the share strip.
    pub strip_from: u64,
    /// The preset last loaded (index into [`super::presets::PRESETS`]), while it is on screen.
    pub preset: Option<usize>,
    /// Projector mode: large type, the lanes and the readouts on one screen.
    pub projector: bool,
    /// The guided tour on screen: whether it is the share group's tour
    /// ([`super::presets::SHARE_TOUR`], else [`super::presets::TOUR`]) and its step, from 0
    /// and below the tour's length; `None` when the tour is closed.
    pub tour: Option<(bool, usize)>,
    /// What a big group's lanes show: the overview, a range of partitions or one member's
    /// (always [`Zoom::All`] when it does not fit the scenario, [`Zoom::fits`]).
    pub zoom: Zoom,
    /// Text last typed into a field, by key: the field shows it as typed, refused or not.
    pub drafts: Vec<(String, String)>,
    /// Why each draft (or move) was refused, by the same key.
    pub errors: Vec<(String, String)>,
    /// Values of an opened link that were not used, each naming its field.
    pub notices: Vec<String>,
    /// A big group's event being dragged, not yet simulated: its index and the instant it
    /// was dragged to (µs, within the horizon, not its instant in `scenario`). The scenario
    /// and run are still those before the drag ([`GroupAction::DragEvent`]).
    pub preview: Option<(usize, u64)>,
}

impl PartialEq for GroupState {
    /// Equal when everything but the run is (the run is the scenario's).
    fn eq(&self, o: &Self) -> bool {
        let GroupState {
            scenario,
            run: _,
            crash_at_us,
            partition,
            strip_from,
            preset,
            projector,
            tour,
            zoom,
            drafts,
            errors,
            notices,
            preview,
        } = self;
        (
            scenario,
            crash_at_us,
            partition,
            strip_from,
            preset,
            projector,
            tour,
            zoom,
            drafts,
            errors,
            notices,
            preview,
        ) == (
            &o.scenario,
            &o.crash_at_us,
            &o.partition,
            &o.strip_from,
            &o.preset,
            &o.projector,
            &o.tour,
            &o.zoom,
            &o.drafts,
            &o.errors,
            &o.notices,
            &o.preview,
        )
    }
}

fn note<'a>(list: &'a [(String, String)], key: &str) -> Option<&'a String> {
    list.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn put(list: &mut Vec<(String, String)>, key: &str, text: Option<String>) {
    list.retain(|(k, _)| k != key);
    if let Some(text) = text {
        list.push((key.to_string(), text));
    }
}

/// The group page's scenario at its defaults: reference G1 (docs/model.md §10.7), two
/// members on two partitions, consumer-2 crashing at 8.2 s.
pub fn default_scenario() -> Scenario {
    super::presets::input(0).map(|i| i.scenario).unwrap_or_default()
}

impl Default for GroupState {
    fn default() -> Self {
        GroupState::with_scenario(default_scenario(), DEFAULT_CRASH_AT_US)
    }
}

/// Whether `scenario` is valid and its run does not stop with an error, and the core's
/// message when it is not.
pub fn check(scenario: &Scenario) -> Result<(), ScenarioError> {
    Checked::check(scenario.clone()).map(|_| ())
}

impl GroupState {
    /// A state showing `scenario` (which should run; if it does not, the defaults) with the
    /// share crash at `crash_at_us` (clamped into the horizon).
    pub fn with_scenario(scenario: Scenario, crash_at_us: u64) -> GroupState {
        // Without formatting the core's error (its Debug would be linked into the page).
        let Ok(Checked { scenario, run }) =
            Checked::check(scenario).or_else(|_| Checked::check(default_scenario()))
        else {
            unreachable!("the group page's defaults run")
        };
        GroupState {
            crash_at_us: crash_at_us.clamp(1, scenario.horizon_us),
            scenario,
            run,
            partition: 0,
            strip_from: 0,
            preset: None,
            projector: false,
            tour: None,
            zoom: Zoom::All,
            drafts: Vec::new(),
            errors: Vec::new(),
            notices: Vec::new(),
            preview: None,
        }
    }

    /// Whether a drag of an event is previewed and simulated when it rests rather than
    /// simulated at every step: the run shown has more than [`PREVIEW_MARKS`] marks.
    pub fn previews_drags(&self) -> bool {
        self.run.marks.len() > PREVIEW_MARKS
    }

    /// The events as the page shows them: the scenario's, with a dragged event at the
    /// instant it was dragged to.
    pub fn events_shown(&self) -> Vec<GroupEvent> {
        (0..self.scenario.group_events.len()).filter_map(|i| self.event_shown(i)).collect()
    }

    /// Event `index` as the page shows it (at the instant it was dragged to, if it is).
    pub fn event_shown(&self, index: usize) -> Option<GroupEvent> {
        let mut e = *self.scenario.group_events.get(index)?;
        if let Some((dragged, at_us)) = self.preview {
            if dragged == index {
                e.at_us = at_us;
            }
        }
        Some(e)
    }

    /// Whether the lanes of the scenario shown can show `zoom` ([`Zoom::fits`]).
    pub fn zoom_fits(&self, zoom: Zoom) -> bool {
        let s = &self.scenario;
        zoom.fits(s.partitions as usize, s.member_count() as usize, s.share_group())
    }

    /// Whether the members form a share group (docs/model.md §11).
    pub fn share(&self) -> bool {
        self.scenario.share_group()
    }

    /// Why the last input for `key` was refused, if it was.
    pub fn error(&self, key: &str) -> Option<&String> {
        note(&self.errors, key)
    }

    /// The text a scenario field shows: what was typed there, else the value (ms for `*.ms`).
    pub fn field_text(&self, key: &str) -> String {
        if let Some(draft) = note(&self.drafts, key) {
            return draft.clone();
        }
        if key == CRASH_FIELD {
            return crate::kit::text::seconds_text(self.crash_at_us);
        }
        match self.scenario.get(key) {
            Some(Value::String(s)) => s,
            Some(Value::Null) | None => String::new(),
            Some(other) => offset_window_sim::keys::json_text(&other),
        }
    }

    /// The text field `field` of event `index` shows (`at_ms`, `restart_after_ms`,
    /// `duration_ms`, `deploy_step_ms`): what was typed there, else its value in ms.
    pub fn event_text(&self, index: usize, field: &str) -> String {
        if let Some(draft) = note(&self.drafts, &event_key(index, field)) {
            return draft.clone();
        }
        let Some(e) = self.event_shown(index) else { return String::new() };
        let ms = crate::kit::text::seconds_field;
        match field {
            "at_ms" => ms(e.at_us),
            "restart_after_ms" => e.restart_after_us.map(ms).unwrap_or_default(),
            "duration_ms" => ms(e.duration_us),
            "deploy_step_ms" => ms(e.deploy_step_us),
            _ => String::new(),
        }
    }

    /// Why the last input for field `field` of event `index` was refused, if it was (a
    /// message about the whole event is shown under its instant).
    pub fn event_error(&self, index: usize, field: &str) -> Option<&String> {
        self.error(&event_key(index, field))
    }

    /// Takes `scenario` (already checked): the field `key` keeps `text` (as typed), the
    /// crash and the strip's partition stay within the new bounds, a preset is no longer
    /// what is shown.
    fn accept(&self, key: &str, text: Option<String>, checked: Checked) -> GroupState {
        let Checked { scenario, run } = checked;
        let mut next = self.clone();
        put(&mut next.drafts, key, text);
        put(&mut next.errors, key, None);
        if scenario != next.scenario {
            next.preset = None;
        }
        next.crash_at_us = next.crash_at_us.clamp(1, scenario.horizon_us);
        next.partition = next.partition.min(scenario.partitions - 1);
        next.scenario = scenario;
        next.run = run;
        if !next.zoom_fits(next.zoom) {
            next.zoom = Zoom::All;
        }
        next
    }

    fn refuse(&self, key: &str, text: Option<String>, e: &ScenarioError) -> GroupState {
        let mut next = self.clone();
        if text.is_some() {
            put(&mut next.drafts, key, text);
        }
        // An event's own field names the event as it is; a change to the list (an event
        // added, removed, a link's list) would name events by indices that have moved.
        let events = key.starts_with("group_events[").then_some(&self.scenario);
        put(&mut next.errors, key, Some(words::error_message(e, events)));
        next
    }

    /// Applies `change` to a copy of the scenario; keeps it if the core accepts it and it
    /// runs, else keeps the typed `text` and a message under `key`.
    fn try_change(
        &self,
        key: &str,
        text: Option<String>,
        change: impl FnOnce(&mut Scenario) -> Result<(), ScenarioError>,
    ) -> GroupState {
        let mut candidate = self.scenario.clone();
        match change(&mut candidate).and_then(|()| Checked::check(candidate)) {
            Ok(checked) => self.accept(key, text, checked),
            Err(e) => self.refuse(key, text, &e),
        }
    }

    /// As [`GroupState::try_change`] for the event list: the events' JSON, changed by
    /// `change`, read back by the core (which names a bad field `group_events[i].field`).
    fn try_events(
        &self,
        key: &str,
        text: Option<String>,
        change: impl FnOnce(&mut Vec<GroupEvent>) -> Result<(), ScenarioError>,
    ) -> GroupState {
        self.try_change(key, text, |s| change(&mut s.group_events))
    }

    /// A link's scenario keys set all at once and checked once (one simulation): the state
    /// with them, or `None` when a key or the whole is refused (the link is then read key by
    /// key, to name what was refused).
    pub(crate) fn with_values(&self, pairs: &[(&str, Value)]) -> Option<GroupState> {
        let mut candidate = self.scenario.clone();
        for (key, value) in pairs {
            candidate.set_key(key, value).ok()?;
        }
        let checked = Checked::check(candidate).ok()?;
        Some(self.accept("", None, checked))
    }

    /// Forgets the drafts and messages of every event field (the list's indices changed).
    fn forget_event_fields(&mut self) {
        self.drafts.retain(|(k, _)| !k.starts_with("group_events["));
        self.errors.retain(|(k, _)| !k.starts_with("group_events"));
    }
}

/// The key of field `field` of event `index`: `group_events[2].at_ms`, as the core says it.
pub fn event_key(index: usize, field: &str) -> String {
    format!("group_events[{index}].{field}")
}

/// What the reader can do to the group page.
#[derive(Clone, Debug, PartialEq)]
pub enum GroupAction {
    /// Text typed into the field of a numeric scenario key (`partitions`,
    /// `session.timeout.ms`, …; milliseconds for `*.ms` keys).
    SetField {
        /// The scenario key.
        key: &'static str,
        /// The text, as typed.
        text: String,
    },
    /// Any scenario key set to a JSON value: a named choice (`client`,
    /// `partition.assignment.strategy`, …), a flag (`group.instance.id`), a list.
    SetValue {
        /// The scenario key.
        key: &'static str,
        /// The value.
        value: Value,
    },
    /// The toggle "consumer group / share group" (docs/model.md §11): `true` for a share
    /// group. A share group takes only what a `KafkaShareConsumer` has: the settings it
    /// cannot have (a worker pool, a strategy other than the four it allows, another
    /// client, seeking or stopping on error) go back to what it can.
    SetShare(bool),
    /// Move event `index` to `at_us` (a key, "move the event there"); clamped into
    /// `0..=horizon`.
    MoveEvent {
        /// Index into `group_events`.
        index: usize,
        /// The new instant, µs.
        at_us: u64,
    },
    /// A step of a drag of event `index` (its slider, its handle on the lanes, the sweep
    /// chart) to `at_us`: [`GroupAction::MoveEvent`] for a small group; for a big one
    /// ([`GroupState::previews_drags`]) a preview, simulated by [`GroupAction::Settle`] (the
    /// page sends it when the drag ends or rests).
    DragEvent {
        /// Index into `group_events`.
        index: usize,
        /// The new instant, µs.
        at_us: u64,
    },
    /// The previewed drag, if any, taken as a [`GroupAction::MoveEvent`].
    Settle,
    /// Text typed into a time field of event `index`: `at_ms`, `restart_after_ms` (empty:
    /// never), `duration_ms` (a hang) or `deploy_step_ms` (a deploy).
    SetEventText {
        /// Index into `group_events`.
        index: usize,
        /// The field.
        field: &'static str,
        /// The text, as typed (seconds; the link keeps the core's milliseconds).
        text: String,
    },
    /// Choose the kind of event `index` (its other fields kept where the new kind has them).
    SetEventKind {
        /// Index into `group_events`.
        index: usize,
        /// The new kind.
        kind: GroupEventKind,
    },
    /// Choose the member event `index` concerns (N of `consumer-N`).
    SetEventMember {
        /// Index into `group_events`.
        index: usize,
        /// N.
        member: u16,
    },
    /// Choose how a shutdown or deploy reaches `close()`.
    SetEventMode {
        /// Index into `group_events`.
        index: usize,
        /// The mode.
        mode: ShutdownMode,
    },
    /// Add an event of this kind (at the middle of the horizon, for a member it can reach).
    AddEvent(GroupEventKind),
    /// Remove event `index`.
    RemoveEvent(usize),
    /// A share group's crash of the whole group at an instant, µs (clamped into the horizon).
    SetCrash(u64),
    /// Text typed into the share crash's seconds field.
    SetCrashText(String),
    /// Show this partition's records in the share strip.
    SetPartition(u32),
    /// The share strip's first offset.
    SetStripFrom(u64),
    /// Show a preset (index into [`super::presets::PRESETS`]).
    LoadPreset(usize),
    /// Projector mode on or off.
    SetProjector(bool),
    /// Open the tour at a step, `(share tour, step from 0)`, or close it (`None`); a step
    /// past the tour's end changes nothing. Its preset is loaded apart ([`Self::LoadPreset`]).
    SetTour(Option<(bool, usize)>),
    /// What a big group's lanes show; a zoom that does not fit the scenario changes nothing.
    SetZoom(Zoom),
    /// Replace the whole state (back and forward in the browser's history).
    Restore(Box<GroupState>),
    /// Back to the page's defaults (reference G1).
    Reset,
}

crate::kit::reducible!(GroupState, GroupAction);

/// Where [`GroupAction::AddEvent`] puts a new event: the middle of the horizon, on a whole
/// second when the horizon is long enough.
fn add_at_us(horizon_us: u64) -> u64 {
    let mid = horizon_us / 2;
    if mid >= 2_000_000 {
        mid / 1_000_000 * 1_000_000
    } else {
        mid
    }
}

/// The settings a share group cannot have, put back to what it can (docs/model.md §11).
pub(crate) fn make_shareable(s: &mut Scenario) {
    s.consumption = Consumption::ShareGroup;
    s.worker_pool = false;
    s.client = Client::JavaClassic;
    if ![
        Strategy::AutoCommit,
        Strategy::CommitSyncBatch,
        Strategy::CommitAsyncBatch,
        Strategy::CommitSyncRecord,
    ]
    .contains(&s.strategy)
    {
        s.strategy = Strategy::AutoCommit;
    }
    if matches!(s.on_error, OnError::SeekToFailed | OnError::Stop) {
        s.on_error = OnError::LogAndContinue;
    }
}

/// The event `kind` at `at_us` for `member`, with the fields of `like` that this kind has
/// (the others at their defaults, so that the event equals its own JSON form).
/// A rolling deploy's members come back (as the presets' deploys do): 10 s after `close()`
/// returns, a member every 20 s. Without a "back after", a deploy is a rolling shutdown.
pub const DEPLOY_BACK_AFTER_US: u64 = 10_000_000;
/// The time between two members of a new rolling deploy, µs.
pub const DEPLOY_STEP_US: u64 = 20_000_000;

/// The horizon grown, if it must, to show every deploy whole: the last member's shutdown,
/// its return and 10 s after, on a whole 5 s.
fn show_whole_deploys(s: &mut Scenario) {
    let members = s.member_count() as u64;
    let end = s
        .group_events
        .iter()
        .filter(|e| e.kind == GroupEventKind::Deploy)
        .map(|e| {
            e.at_us
                + members.saturating_sub(1) * e.deploy_step_us
                + e.restart_after_us.unwrap_or(0)
                + 10_000_000
        })
        .max()
        .unwrap_or(0);
    if end > s.horizon_us {
        s.horizon_us = end.div_ceil(5_000_000) * 5_000_000;
    }
}

fn event_like(like: Option<&GroupEvent>, kind: GroupEventKind, at_us: u64, member: u16) -> GroupEvent {
    let mut e = GroupEvent::new(at_us, member, kind);
    if kind == GroupEventKind::Deploy {
        e.restart_after_us = Some(DEPLOY_BACK_AFTER_US);
        e.deploy_step_us = DEPLOY_STEP_US;
    }
    if let Some(old) = like {
        use GroupEventKind::*;
        if matches!(kind, Crash | Shutdown | Deploy) && (old.restart_after_us.is_some() || kind != Deploy) {
            e.restart_after_us = old.restart_after_us;
        }
        if matches!(kind, Shutdown | Deploy) {
            e.shutdown_mode = old.shutdown_mode;
        }
        if kind == Hang {
            e.duration_us = old.duration_us;
        }
        if kind == Deploy && old.kind == Deploy {
            e.deploy_step_us = old.deploy_step_us;
        }
    }
    e
}

impl GroupState {
    /// The reducer: the state after `action`. Returns `self` itself (the same `Rc`) when
    /// nothing changes, so the page skips a render.
    pub fn apply(self: Rc<Self>, action: GroupAction) -> Rc<Self> {
        // A drag previewed is settled before anything else is done to the page.
        let this = match (&action, self.preview) {
            (GroupAction::DragEvent { .. }, _) | (_, None) => self,
            (_, Some((index, at_us))) => {
                let settled = Rc::new(GroupState { preview: None, ..(*self).clone() });
                settled.apply(GroupAction::MoveEvent { index, at_us })
            }
        };
        this.apply_settled(action)
    }

    fn apply_settled(self: Rc<Self>, action: GroupAction) -> Rc<Self> {
        let next = match action {
            GroupAction::SetField { key, text } => {
                let value = crate::kit::fields::typed_value(&text);
                self.try_change(key, Some(text), |s| s.set_key(key, &value))
            }
            GroupAction::SetValue { key, value } => self.try_change(key, None, |s| s.set_key(key, &value)),
            GroupAction::SetShare(on) => self.try_change("consumption", None, |s| {
                if on {
                    make_shareable(s);
                } else {
                    s.consumption = Consumption::ConsumerGroup;
                }
                Ok(())
            }),
            GroupAction::DragEvent { index, at_us } if self.previews_drags() => {
                let Some(e) = self.scenario.group_events.get(index) else { return self };
                let at_us = at_us.min(self.scenario.horizon_us);
                let preview = (at_us != e.at_us).then_some((index, at_us));
                GroupState { preview, ..(*self).clone() }
            }
            GroupAction::DragEvent { index, at_us } => {
                return self.apply_settled(GroupAction::MoveEvent { index, at_us })
            }
            GroupAction::Settle => return self,
            GroupAction::MoveEvent { index, at_us } => {
                let key = event_key(index, "at_ms");
                let at_us = at_us.min(self.scenario.horizon_us);
                if self.scenario.group_events.get(index).is_none_or(|e| e.at_us == at_us) {
                    return self;
                }
                let mut next = self.try_events(&key, None, |events| {
                    events[index].at_us = at_us;
                    Ok(())
                });
                // The field shows the instant again (the slider and the chart moved it).
                if next.error(&key).is_none() {
                    put(&mut next.drafts, &key, None);
                }
                next
            }
            GroupAction::SetEventText { index, field, text } => {
                if index >= self.scenario.group_events.len() {
                    return self;
                }
                let key = event_key(index, field);
                // Typed in seconds, exactly (µs); the core's key is in milliseconds.
                let value = match text.trim() {
                    "" => Value::Null,
                    t => match crate::kit::text::parse_seconds(t) {
                        Ok(us) => {
                            crate::kit::fields::typed_value(&offset_window_sim::scenario::format_millis(us))
                        }
                        Err(_) => {
                            let e =
                                ScenarioError::at(&key, "must be a number of seconds, at most 6 decimals");
                            return Rc::new(self.refuse(&key, Some(text), &e));
                        }
                    },
                };
                self.try_change(&key, Some(text), |s| {
                    let mut list = s.get(EVENTS_FIELD).unwrap_or(Value::Null);
                    if let Some(item) = list.get_mut(index).and_then(Value::as_object_mut) {
                        item.insert(field.to_string(), value);
                    }
                    s.set_key(EVENTS_FIELD, &list)
                })
            }
            GroupAction::SetEventKind { index, kind } => {
                let Some(old) = self.scenario.group_events.get(index).copied() else { return self };
                let members = self.scenario.members;
                let member = match kind {
                    // A join adds a member: the next N no event has added yet.
                    GroupEventKind::Join => (self.scenario.member_count() + 1) as u16,
                    _ if u32::from(old.member) > members || old.member == 0 => 1,
                    _ => old.member,
                };
                let mut next = self.try_change(&event_key(index, "kind"), None, |s| {
                    s.group_events[index] = event_like(Some(&old), kind, old.at_us, member);
                    show_whole_deploys(s);
                    Ok(())
                });
                next.forget_event_fields();
                next
            }
            GroupAction::SetEventMember { index, member } => {
                if index >= self.scenario.group_events.len() {
                    return self;
                }
                self.try_events(&event_key(index, "member"), None, |events| {
                    events[index].member = member;
                    Ok(())
                })
            }
            GroupAction::SetEventMode { index, mode } => {
                if index >= self.scenario.group_events.len() {
                    return self;
                }
                self.try_events(&event_key(index, "shutdown_mode"), None, |events| {
                    events[index].shutdown_mode = mode;
                    Ok(())
                })
            }
            GroupAction::AddEvent(kind) => self.add_event(kind),
            GroupAction::RemoveEvent(index) => {
                if index >= self.scenario.group_events.len() {
                    return self;
                }
                let mut next = self.try_events(EVENTS_FIELD, None, |events| {
                    events.remove(index);
                    Ok(())
                });
                if next.scenario.group_events.len() < self.scenario.group_events.len() {
                    next.forget_event_fields();
                }
                next
            }
            GroupAction::SetCrash(us) => {
                let us = us.clamp(1, self.scenario.horizon_us);
                if us == self.crash_at_us
                    && self.error(CRASH_FIELD).is_none()
                    && note(&self.drafts, CRASH_FIELD).is_none()
                {
                    return self;
                }
                let mut next = (*self).clone();
                next.crash_at_us = us;
                put(&mut next.drafts, CRASH_FIELD, None);
                put(&mut next.errors, CRASH_FIELD, None);
                next
            }
            GroupAction::SetCrashText(text) => {
                let mut next = (*self).clone();
                match crate::kit::text::parse_seconds(&text) {
                    Ok(us) if (1..=self.scenario.horizon_us).contains(&us) => {
                        next.crash_at_us = us;
                        put(&mut next.errors, CRASH_FIELD, None);
                    }
                    _ => {
                        let message = format!(
                            "crash of the whole group at (s): must be a number of seconds in (0, {}] with at most 6 decimals (got \"{}\"); the crash stays at {} s",
                            crate::kit::text::seconds_text(self.scenario.horizon_us),
                            text.trim(),
                            crate::kit::text::seconds_text(self.crash_at_us)
                        );
                        put(&mut next.errors, CRASH_FIELD, Some(message));
                    }
                }
                put(&mut next.drafts, CRASH_FIELD, Some(text));
                next
            }
            GroupAction::SetPartition(p) => {
                GroupState { partition: p.min(self.scenario.partitions - 1), ..(*self).clone() }
            }
            GroupAction::SetStripFrom(offset) => GroupState {
                strip_from: offset.min(offset_window_sim::scenario::MAX_OFFSET),
                ..(*self).clone()
            },
            GroupAction::LoadPreset(index) => match super::presets::input(index) {
                Some(input) => GroupState {
                    preset: Some(index),
                    projector: self.projector,
                    tour: self.tour,
                    ..GroupState::with_scenario(input.scenario, input.crash_at_us)
                },
                None => return self,
            },
            GroupAction::SetProjector(on) => GroupState { projector: on, ..(*self).clone() },
            GroupAction::SetTour(Some((share, n))) if n >= super::presets::tour(share).len() => return self,
            GroupAction::SetTour(tour) => GroupState { tour, ..(*self).clone() },
            GroupAction::SetZoom(zoom) if !self.zoom_fits(zoom) => return self,
            GroupAction::SetZoom(zoom) => GroupState { zoom, ..(*self).clone() },
            GroupAction::Restore(state) => *state,
            GroupAction::Reset => GroupState { projector: self.projector, ..GroupState::default() },
        };
        crate::kit::same_or_new(self, next)
    }

    /// [`GroupAction::AddEvent`]: `kind` at the middle of the horizon for the last member
    /// present at t = 0 (a join: the next new member), or, if that member is down then, the
    /// first member it can reach; refused with the core's message when none can.
    fn add_event(&self, kind: GroupEventKind) -> GroupState {
        let s = &self.scenario;
        if s.group_events.len() >= offset_window_sim::events::MAX_GROUP_EVENTS {
            let e = ScenarioError::at(
                EVENTS_FIELD,
                format!("holds at most {} events", offset_window_sim::events::MAX_GROUP_EVENTS),
            );
            return self.refuse(EVENTS_FIELD, None, &e);
        }
        let at_us = add_at_us(s.horizon_us);
        let candidates: Vec<u16> = match kind {
            GroupEventKind::Join => vec![(s.member_count() + 1) as u16],
            GroupEventKind::Deploy => vec![1],
            _ => (1..=s.member_count() as u16).rev().collect(),
        };
        let mut last_error = None;
        // A deploy brings its members back and the horizon shows it whole; where the core
        // refuses that (a member it would reach is down for good), the core's own default.
        let tries: Vec<(u16, bool)> = candidates
            .iter()
            .flat_map(|&m| {
                [(m, true), (m, false)].into_iter().take(if kind == GroupEventKind::Deploy { 2 } else { 1 })
            })
            .collect();
        for (member, like_presets) in tries {
            let mut candidate = s.clone();
            if like_presets {
                candidate.group_events.push(event_like(None, kind, at_us, member));
                show_whole_deploys(&mut candidate);
            } else {
                candidate.group_events.push(GroupEvent::new(at_us, member, kind));
            }
            match Checked::check(candidate) {
                Ok(checked) => {
                    let mut next = self.accept(EVENTS_FIELD, None, checked);
                    next.forget_event_fields();
                    return next;
                }
                Err(e) => last_error = Some(e),
            }
        }
        let e = last_error.unwrap_or_else(|| ScenarioError::at(EVENTS_FIELD, "no member to add it for"));
        self.refuse(EVENTS_FIELD, None, &e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::simulate;

    #[test]
    fn a_new_deploy_brings_its_members_back_and_the_horizon_shows_it_whole() {
        // G1 without its crash (a member down for good cannot be deployed).
        let no_events = GroupAction::SetValue { key: EVENTS_FIELD, value: Value::Array(Vec::new()) };
        let s =
            apply(GroupState::default(), [no_events.clone(), GroupAction::AddEvent(GroupEventKind::Deploy)]);
        assert!(s.error(EVENTS_FIELD).is_none(), "{:?}", s.error(EVENTS_FIELD));
        let e = *s.scenario.group_events.iter().find(|e| e.kind == GroupEventKind::Deploy).unwrap();
        assert_eq!((e.restart_after_us, e.deploy_step_us), (Some(DEPLOY_BACK_AFTER_US), DEPLOY_STEP_US));
        let members = s.scenario.member_count() as u64;
        let back = e.at_us + (members - 1) * e.deploy_step_us + DEPLOY_BACK_AFTER_US;
        assert!(s.scenario.horizon_us > back, "{} > {back}", s.scenario.horizon_us);
        // A crash switched to a deploy: members come back too.
        let s = apply(
            GroupState::default(),
            [GroupAction::SetEventKind { index: 0, kind: GroupEventKind::Deploy }],
        );
        assert_eq!(s.scenario.group_events[0].restart_after_us, Some(DEPLOY_BACK_AFTER_US));
        assert!(s.error(&event_key(0, "kind")).is_none());
    }

    #[test]
    fn a_move_simulates_once_and_the_state_keeps_that_run() {
        let s = Rc::new(GroupState::default());
        let before = crate::kit::run::simulations();
        let moved = s.apply(GroupAction::MoveEvent { index: 0, at_us: 9_000_000 });
        assert_eq!(crate::kit::run::simulations() - before, u64::from(cfg!(debug_assertions)));
        assert_eq!(*moved.run, simulate(&moved.scenario).unwrap(), "the run kept is the scenario's");
        let refused = moved.clone().apply(GroupAction::SetField { key: "partitions", text: "0".into() });
        assert!(Rc::ptr_eq(&refused.run, &moved.run), "a refused change keeps the run shown");
    }

    fn apply(state: GroupState, actions: impl IntoIterator<Item = GroupAction>) -> GroupState {
        crate::kit::apply_all(state, actions, GroupState::apply)
    }

    #[test]
    fn the_defaults_are_reference_g1() {
        let s = GroupState::default();
        assert_eq!((s.scenario.partitions, s.scenario.members), (2, 2));
        assert_eq!(s.scenario.group_events, vec![GroupEvent::new(8_200_000, 2, GroupEventKind::Crash)]);
        assert_eq!(s.event_text(0, "at_ms"), "8.2");
        assert!(!s.share());
    }

    #[test]
    fn dragging_an_event_changes_its_instant_and_the_run() {
        let s = apply(GroupState::default(), [GroupAction::MoveEvent { index: 0, at_us: 10_000_001 }]);
        assert_eq!(s.scenario.group_events[0].at_us, 10_000_001);
        assert_eq!(s.event_text(0, "at_ms"), "10.000001");
        let group = simulate(&s.scenario).unwrap().group.unwrap();
        assert_eq!(group.partitions[1].duplicated, 25, "the worst instant of G1's sweep");
        // Past the horizon: clamped to it.
        let s = apply(s, [GroupAction::MoveEvent { index: 0, at_us: 99_000_000 }]);
        assert_eq!(s.scenario.group_events[0].at_us, 60_000_000);
        // The same instant again: the same state, no render.
        let same = Rc::new(s.clone());
        assert!(Rc::ptr_eq(
            &same,
            &same.clone().apply(GroupAction::MoveEvent { index: 0, at_us: 60_000_000 })
        ));
    }

    #[test]
    fn a_big_groups_drag_is_a_preview_until_it_settles() {
        // 32 members on 64 partitions for 600 s: more marks than a drag re-simulates.
        let scenario = Scenario {
            members: 32,
            partitions: 64,
            horizon_us: 600_000_000,
            group_events: vec![GroupEvent::new(10_000_000, 2, GroupEventKind::Crash)],
            ..Scenario::default()
        };
        let big = GroupState::with_scenario(scenario.clone(), 1);
        assert!(big.previews_drags(), "{} marks", big.run.marks.len());
        assert!(!GroupState::default().previews_drags());
        let before = crate::kit::run::simulations();
        let dragged = apply(big.clone(), [GroupAction::DragEvent { index: 0, at_us: 20_000_000 }]);
        assert_eq!(crate::kit::run::simulations(), before, "a preview simulates nothing");
        assert_eq!(dragged.preview, Some((0, 20_000_000)));
        assert_eq!(dragged.scenario, scenario, "the scenario is still the one that ran");
        assert!(Rc::ptr_eq(&dragged.run, &big.run));
        assert_eq!(dragged.events_shown()[0].at_us, 20_000_000);
        // Dragged back to where it is: nothing previewed.
        let back = apply(dragged.clone(), [GroupAction::DragEvent { index: 0, at_us: 10_000_000 }]);
        assert_eq!(back.preview, None);
        // Settled: taken as a move, and simulated once.
        let settled = apply(dragged.clone(), [GroupAction::Settle]);
        assert_eq!(settled.preview, None);
        assert_eq!(settled.scenario.group_events[0].at_us, 20_000_000);
        assert_eq!(*settled.run, simulate(&settled.scenario).unwrap());
        // Anything else done to the page settles the drag first.
        let zoomed = apply(dragged, [GroupAction::SetProjector(true)]);
        assert_eq!((zoomed.preview, zoomed.projector), (None, true));
        assert_eq!(zoomed.scenario, settled.scenario);
        // A small group's drag is a move at once; Settle without a preview changes nothing.
        let small = apply(GroupState::default(), [GroupAction::DragEvent { index: 0, at_us: 9_000_000 }]);
        assert_eq!((small.preview, small.scenario.group_events[0].at_us), (None, 9_000_000));
        let same = Rc::new(small);
        assert!(Rc::ptr_eq(&same, &same.clone().apply(GroupAction::Settle)));
    }

    #[test]
    fn a_settled_drag_the_run_refuses_keeps_the_scenario_and_names_the_event() {
        // consumer-2 crashes for good at 10 s; its hang is dragged past that: refused when it
        // settles, the preview gone, the message under the hang's instant.
        let scenario = Scenario {
            members: 32,
            partitions: 64,
            horizon_us: 600_000_000,
            group_events: vec![
                GroupEvent::new(10_000_000, 2, GroupEventKind::Crash),
                GroupEvent::new(5_000_000, 2, GroupEventKind::Hang),
            ],
            ..Scenario::default()
        };
        let big = GroupState::with_scenario(scenario.clone(), 1);
        assert_eq!(big.scenario, scenario);
        let s = apply(big, [GroupAction::DragEvent { index: 1, at_us: 30_000_000 }, GroupAction::Settle]);
        assert_eq!((s.preview, &s.scenario), (None, &scenario));
        let e = s.event_error(1, "at_ms").unwrap();
        assert!(e.contains("consumer-2 is down at 30000 ms"), "{e}");
    }

    #[test]
    fn a_move_that_reaches_a_member_while_it_is_down_is_refused_naming_the_event() {
        // consumer-2 crashes at 8.2 s and is down for good: a second crash of it after that is
        // refused by the run; before it, it is fine.
        let s = apply(
            GroupState::default(),
            [
                GroupAction::AddEvent(GroupEventKind::Hang),
                GroupAction::SetEventMember { index: 1, member: 2 },
            ],
        );
        assert_eq!(s.scenario.group_events.len(), 2);
        let hang_at = s.scenario.group_events[1].at_us;
        assert_eq!(hang_at, 30_000_000, "added at the middle of the horizon");
        assert_eq!(s.scenario.group_events[1].member, 1, "consumer-2 is down then: refused");
        let e = s.event_error(1, "member").unwrap();
        assert!(e.starts_with("event 2 (consumer-1 hangs"), "{e}");
        assert!(e.contains("consumer-2 is down at 30000 ms"), "{e}");
        let s = apply(s, [GroupAction::MoveEvent { index: 1, at_us: 5_000_000 }]);
        let s = apply(s, [GroupAction::SetEventMember { index: 1, member: 2 }]);
        assert_eq!(s.scenario.group_events[1].member, 2, "before its crash consumer-2 can hang");
        assert!(s.event_error(1, "member").is_none());
    }

    #[test]
    fn adding_and_removing_events() {
        let s = apply(
            GroupState::default(),
            [
                GroupAction::AddEvent(GroupEventKind::Join),
                GroupAction::AddEvent(GroupEventKind::Shutdown),
                GroupAction::AddEvent(GroupEventKind::Deploy),
            ],
        );
        let kinds: Vec<_> = s.scenario.group_events.iter().map(|e| (e.kind, e.member)).collect();
        assert_eq!(
            kinds,
            vec![
                (GroupEventKind::Crash, 2),
                (GroupEventKind::Join, 3),
                // consumer-3 (the joined member) is the last one: the shutdown is for it.
                (GroupEventKind::Shutdown, 3),
                // A deploy reaches every member, consumer-2 is down: refused.
            ]
        );
        assert!(s.error(EVENTS_FIELD).unwrap().contains("is down"), "{:?}", s.errors);
        let s = apply(s, [GroupAction::RemoveEvent(0)]);
        assert_eq!(s.scenario.group_events.len(), 2);
        assert_eq!(s.scenario.group_events[0].kind, GroupEventKind::Join);
        assert!(s.error(EVENTS_FIELD).is_none(), "messages about the old indices are gone");
        let s = apply(s, [GroupAction::RemoveEvent(0)]);
        // Removing the join leaves the shutdown of consumer-3 with nobody: refused.
        assert_eq!(s.scenario.group_events.len(), 2);
        assert!(
            s.error(EVENTS_FIELD).unwrap().contains("consumer-3")
                || s.error(EVENTS_FIELD).unwrap().contains("member")
        );
        let s = apply(s, [GroupAction::RemoveEvent(1), GroupAction::RemoveEvent(0)]);
        assert!(s.scenario.group_events.is_empty());
        assert!(simulate(&s.scenario).unwrap().group.unwrap().handovers.is_empty());
    }

    #[test]
    fn event_fields_are_checked_by_the_core_and_named_in_words() {
        let s = apply(
            GroupState::default(),
            [GroupAction::SetEventText { index: 0, field: "at_ms", text: "-5".into() }],
        );
        assert_eq!(s.scenario, default_scenario());
        assert_eq!(s.event_text(0, "at_ms"), "-5", "shown as typed");
        let e = s.event_error(0, "at_ms").unwrap();
        assert!(e.starts_with("event 1 (consumer-2 crashes at 8.200 s), instant (s): must be"), "{e}");
        assert!(e.contains("seconds"), "{e}");
        let s = apply(s, [GroupAction::SetEventText { index: 0, field: "at_ms", text: "70".into() }]);
        let e = s.event_error(0, "at_ms").unwrap();
        assert!(e.contains("within the horizon") && !e.contains("horizon_ms"), "{e}");
        let s =
            apply(s, [GroupAction::SetEventText { index: 0, field: "restart_after_ms", text: "10".into() }]);
        assert_eq!(s.scenario.group_events[0].restart_after_us, Some(10_000_000));
        let s =
            apply(s, [GroupAction::SetEventText { index: 0, field: "restart_after_ms", text: "".into() }]);
        assert_eq!(s.scenario.group_events[0].restart_after_us, None, "empty: never");
        let s = apply(
            s,
            [
                GroupAction::SetEventKind { index: 0, kind: GroupEventKind::Shutdown },
                GroupAction::SetEventMode { index: 0, mode: ShutdownMode::Abrupt },
            ],
        );
        assert_eq!(s.scenario.group_events[0].shutdown_mode, ShutdownMode::Abrupt);
        let g = simulate(&s.scenario).unwrap().group.unwrap();
        assert_eq!(g.partitions[1].lost, 5, "G2 abrupt");
    }

    #[test]
    fn an_optional_field_out_of_range_says_empty_not_null() {
        // The box of "renew the locks every" is empty when it has no value: the page says so,
        // where the core's JSON words say null.
        let s = apply(
            GroupState::default(),
            [
                GroupAction::SetShare(true),
                GroupAction::SetField { key: "share_renew_every_ms", text: "50".into() },
            ],
        );
        assert_eq!(s.scenario.share_renew_every_us, None, "refused");
        assert_eq!(
            s.error("share_renew_every_ms").unwrap(),
            "renew the locks every: must be empty for never, or 100 to 3600000 ms, at most 3 decimals (got 50)"
        );
        let s = apply(s, [GroupAction::SetField { key: "share_renew_every_ms", text: "abc".into() }]);
        let e = s.error("share_renew_every_ms").unwrap();
        assert!(e.ends_with("ms, at most 3 decimals (got \"abc\")") && !e.contains("null"), "{e}");
    }

    #[test]
    fn numeric_fields_and_the_share_toggle() {
        let s = apply(GroupState::default(), [GroupAction::SetField { key: "partitions", text: "0".into() }]);
        let e = s.error("partitions").unwrap();
        assert!(e.starts_with("partitions of orders: must be a whole number from 1 to 4096 (got 0)"), "{e}");
        let s = apply(
            s,
            [
                GroupAction::SetValue { key: "worker_pool", value: Value::Bool(true) },
                GroupAction::SetShare(true),
            ],
        );
        assert!(s.share());
        assert!(!s.scenario.worker_pool, "a share consumer has no pool");
        assert_eq!(s.crash_at_us, 8_200_000);
        let s = apply(s, [GroupAction::SetCrash(99_000_000), GroupAction::SetPartition(7)]);
        assert_eq!((s.crash_at_us, s.partition), (60_000_000, 1));
        let s = apply(s, [GroupAction::SetCrashText("61".into())]);
        assert_eq!(s.crash_at_us, 60_000_000);
        assert!(s.error(CRASH_FIELD).unwrap().contains("stays at 60.000 s"));
        let s = apply(s, [GroupAction::SetShare(false)]);
        assert!(!s.share() && s.scenario.group_mode());
    }

    #[test]
    fn presets_load_and_reset_keeps_the_screen() {
        let i = super::super::presets::by_name("s11-s3-three-members-one-partition").unwrap();
        let s = apply(GroupState::default(), [GroupAction::SetProjector(true), GroupAction::LoadPreset(i)]);
        assert!(s.share() && s.projector && s.preset == Some(i));
        assert_eq!(s.crash_at_us, 12_000_000);
        let s = apply(s, [GroupAction::SetField { key: "members", text: "4".into() }]);
        assert_eq!(s.preset, None, "a changed scenario is no longer the preset");
        let s = apply(s, [GroupAction::Reset]);
        assert!(s.projector);
        assert_eq!(s.scenario, default_scenario());
    }
}
