//! What happens to the members of a consumer group (model.md §10.3): the `group_events` key,
//! a list of objects such as `{"at_ms": 8200, "member": 2, "kind": "crash"}`.

use crate::keys::{
    format_millis, millis_value, named_enum, shorten, shown, KeyKind, KeySpec, KeyValue, ScenarioError,
};
use serde_json::{Map, Value};

/// Most members a group holds, joins included (model.md §10.1): member numbers N of
/// `consumer-N` run from 1 to this.
pub const MAX_MEMBERS: u32 = 256;

/// Most events one scenario may hold.
pub const MAX_GROUP_EVENTS: usize = 256;

named_enum! {
    /// What happens to a member (model.md §10.3).
    GroupEventKind {
        /// The process dies: its partitions wait for the coordinator to expire its session.
        Crash = "crash", "crash (kill -9)",
        /// The process stops polling for `duration_ms` (a long GC, a stuck call); its
        /// heartbeat thread keeps the session alive.
        Hang = "hang", "hang (no poll)",
        /// The process shuts down and calls `close()`.
        Shutdown = "shutdown", "shutdown (close)",
        /// A new member starts (scale out).
        Join = "join", "a new member joins",
        /// A rolling restart: every member shuts down in turn, `deploy_step_ms` apart.
        Deploy = "deploy", "rolling deploy",
    }
}

named_enum! {
    /// How a shutdown reaches `close()` (model.md §10.3).
    ShutdownMode {
        /// A shutdown hook calls `wakeup()`: the batch in hand finishes, the next blocking
        /// call throws WakeupException, then `close()`.
        Wakeup = "wakeup", "wakeup() then close()",
        /// `close()` at once: the record in progress never lands.
        Abrupt = "abrupt", "close() at once",
    }
}

/// One event of `group_events`. JSON: `{"at_ms": 8200, "member": 2, "kind": "crash"}`, with
/// `shutdown_mode`, `restart_after_ms`, `duration_ms` and `deploy_step_ms` where they apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupEvent {
    /// When it happens, µs (a deploy: when the first member shuts down).
    pub at_us: u64,
    /// The member it concerns, N of `consumer-N` (from 1); for `join`, the new member's N,
    /// above `members`; unused by `deploy`.
    pub member: u16,
    /// What happens.
    pub kind: GroupEventKind,
    /// For `shutdown` and `deploy`: how `close()` is reached.
    pub shutdown_mode: ShutdownMode,
    /// For `crash`, `shutdown` and `deploy`: the process comes back this long after the
    /// crash or after `close()` returned, µs; `None`: it stays down.
    pub restart_after_us: Option<u64>,
    /// For `hang`: how long the member does not poll, µs.
    pub duration_us: u64,
    /// For `deploy`: the time between one member's shutdown and the next one's, µs.
    pub deploy_step_us: u64,
}

impl GroupEvent {
    /// A `kind` event of member N `member` at `at_us`, other fields at their defaults.
    pub fn new(at_us: u64, member: u16, kind: GroupEventKind) -> Self {
        GroupEvent {
            at_us,
            member,
            kind,
            shutdown_mode: ShutdownMode::Wakeup,
            restart_after_us: None,
            duration_us: 10_000_000,
            deploy_step_us: 30_000_000,
        }
    }

    /// The fields this kind takes, besides `kind` and `at_ms`.
    fn fields(kind: GroupEventKind) -> &'static [&'static str] {
        match kind {
            GroupEventKind::Crash => &["member", "restart_after_ms"],
            GroupEventKind::Hang => &["member", "duration_ms"],
            GroupEventKind::Shutdown => &["member", "shutdown_mode", "restart_after_ms"],
            GroupEventKind::Join => &["member"],
            GroupEventKind::Deploy => &["shutdown_mode", "restart_after_ms", "deploy_step_ms"],
        }
    }

    /// The JSON form, which reads back to an equal event (fields of other kinds left out).
    pub fn to_json_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("at_ms".into(), millis_value(self.at_us));
        map.insert("kind".into(), self.kind.name().into());
        for field in Self::fields(self.kind) {
            let value = match *field {
                "member" => self.member.into(),
                "shutdown_mode" => self.shutdown_mode.name().into(),
                "restart_after_ms" => self.restart_after_us.map_or(Value::Null, millis_value),
                "duration_ms" => millis_value(self.duration_us),
                "deploy_step_ms" => millis_value(self.deploy_step_us),
                _ => unreachable!("every field of GroupEvent::fields is written"),
            };
            map.insert((*field).into(), value);
        }
        Value::Object(map)
    }

    fn read(index: usize, value: &Value) -> Result<GroupEvent, ScenarioError> {
        let here = format!("group_events[{index}]");
        let Value::Object(map) = value else {
            return Err(ScenarioError::at(
                &here,
                format!("must be an object such as {{\"at_ms\": 8200, \"member\": 2, \"kind\": \"crash\"}} (got {})", shown(value)),
            ));
        };
        let kind =
            map.get("kind").and_then(Value::as_str).and_then(GroupEventKind::from_name).ok_or_else(|| {
                let names: Vec<_> = GroupEventKind::NAMES.iter().map(|n| format!("\"{n}\"")).collect();
                let got = map.get("kind").map_or("nothing".to_string(), shown);
                ScenarioError::at(
                    &format!("{here}.kind"),
                    format!("must be one of {} (got {got})", names.join(", ")),
                )
            })?;
        // Read as every other ms key is (`-0` is 0; a fourth decimal says so).
        let millis = |field: &str, v: &Value| -> Result<u64, ScenarioError> {
            let spec =
                KeySpec { name: "", kind: KeyKind::Millis { min_us: 0, max_us: 86_400_000_000 }, unit: "ms" };
            u64::read(&spec, v).map_err(|e| ScenarioError::at(&format!("{here}.{field}"), e.message))
        };
        let mut event = GroupEvent::new(0, 0, kind);
        let mut at = None;
        for (field, v) in map {
            // A field name is input: echoed cut short.
            let key = format!("{here}.{}", shorten(field));
            match field.as_str() {
                "kind" => {}
                "at_ms" => at = Some(millis(field, v)?),
                "member" if Self::fields(kind).contains(&"member") => {
                    event.member =
                        v.as_u64().filter(|n| (1..=u64::from(MAX_MEMBERS)).contains(n)).ok_or_else(|| {
                            ScenarioError::at(
                                &key,
                                format!(
                                    "must be a member number N of consumer-N, from 1 to {} (got {})",
                                    MAX_MEMBERS,
                                    shown(v)
                                ),
                            )
                        })? as u16;
                }
                "shutdown_mode" if Self::fields(kind).contains(&"shutdown_mode") => {
                    event.shutdown_mode = v.as_str().and_then(ShutdownMode::from_name).ok_or_else(|| {
                        ScenarioError::at(
                            &key,
                            format!("must be \"wakeup\" or \"abrupt\" (got {})", shown(v)),
                        )
                    })?;
                }
                "restart_after_ms" if Self::fields(kind).contains(&"restart_after_ms") => {
                    event.restart_after_us = if v.is_null() { None } else { Some(millis(field, v)?) };
                }
                "duration_ms" if kind == GroupEventKind::Hang => event.duration_us = millis(field, v)?.max(1),
                "deploy_step_ms" if kind == GroupEventKind::Deploy => {
                    event.deploy_step_us = millis(field, v)?
                }
                _ => {
                    return Err(ScenarioError::at(
                        &key,
                        format!(
                            "unknown field for a {} event; its fields are kind, at_ms, {}",
                            kind.name(),
                            Self::fields(kind).join(", ")
                        ),
                    ))
                }
            }
        }
        event.at_us =
            at.ok_or_else(|| ScenarioError::at(&format!("{here}.at_ms"), "every event needs at_ms"))?;
        if Self::fields(kind).contains(&"member") && event.member == 0 {
            return Err(ScenarioError::at(
                &format!("{here}.member"),
                format!("a {} event needs member", kind.name()),
            ));
        }
        Ok(event)
    }

    /// When member N `member` shuts down in a deploy starting at `at_us` (model.md §10.3:
    /// member i shuts down at `at_ms` + (i − 1) · `deploy_step_ms`).
    pub fn deploy_shutdown_at_us(&self, member: u16) -> u64 {
        self.at_us + (member as u64 - 1) * self.deploy_step_us
    }
}

/// Words for the allowed values of `group_events`.
pub const GROUP_EVENTS_RANGE: &str = "a list of at most 256 events, each {\"at_ms\", \"member\", \"kind\": \
    \"crash\" | \"hang\" | \"shutdown\" | \"join\" | \"deploy\"} with shutdown_mode (\"wakeup\" | \"abrupt\"), \
    restart_after_ms, duration_ms (hang) or deploy_step_ms (deploy)";

impl KeyValue for Vec<GroupEvent> {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        match value {
            Value::Array(items) if items.len() <= MAX_GROUP_EVENTS => {
                let mut events = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    events.push(GroupEvent::read(i, v)?);
                }
                Ok(events)
            }
            other => Err(spec.refuse(other)),
        }
    }
    fn write(&self, _: &KeySpec) -> Value {
        Value::Array(self.iter().map(GroupEvent::to_json_value).collect())
    }
}

/// A short description of an event for messages: "crash of consumer-2 at 8200 ms".
pub fn describe(event: &GroupEvent) -> String {
    match event.kind {
        GroupEventKind::Deploy => format!("deploy from {} ms", format_millis(event.at_us)),
        GroupEventKind::Join => {
            format!("join of consumer-{} at {} ms", event.member, format_millis(event.at_us))
        }
        kind => format!("{} of consumer-{} at {} ms", kind.name(), event.member, format_millis(event.at_us)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<Vec<GroupEvent>, ScenarioError> {
        let spec = KeySpec {
            name: "group_events",
            kind: crate::keys::KeyKind::Structured(GROUP_EVENTS_RANGE),
            unit: "",
        };
        Vec::<GroupEvent>::read(&spec, &serde_json::from_str(json).unwrap())
    }

    #[test]
    fn events_read_and_write_back() {
        let events =
            read(r#"[{"at_ms": 8200, "member": 2, "kind": "crash", "restart_after_ms": 1000.5}]"#).unwrap();
        assert_eq!(events[0].at_us, 8_200_000);
        assert_eq!(events[0].restart_after_us, Some(1_000_500));
        let spec = KeySpec { name: "g", kind: crate::keys::KeyKind::Structured(""), unit: "" };
        assert_eq!(read(&events.write(&spec).to_string()).unwrap(), events);
    }

    #[test]
    fn bad_events_name_the_field() {
        let err = |json: &str| read(json).unwrap_err().to_string();
        assert!(err(r#"[{"at_ms": 1, "member": 2, "kind": "explode"}]"#)
            .starts_with("group_events[0].kind: must be one of"));
        assert!(err(r#"[{"member": 2, "kind": "crash"}]"#)
            .starts_with("group_events[0].at_ms: every event needs at_ms"));
        assert!(err(r#"[{"at_ms": 1, "kind": "crash"}]"#)
            .starts_with("group_events[0].member: a crash event needs member"));
        assert!(err(r#"[{"at_ms": 1, "member": 1, "kind": "crash", "duration_ms": 5}]"#)
            .starts_with("group_events[0].duration_ms: unknown field for a crash event"));
    }
}
