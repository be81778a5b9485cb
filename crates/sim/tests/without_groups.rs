//! The core built without the `group` feature, as the one-consumer page builds it
//! (`cargo test -p offset-window-sim --no-default-features`): a scenario that would make a
//! consumer group or a share group is refused with a message naming the key, never run
//! and never a panic; one consumer runs as with groups (tests/golden.rs checks the bytes).
#![cfg(not(feature = "group"))]

use offset_window_sim::events::{GroupEvent, GroupEventKind};
use offset_window_sim::scenario::Consumption;
use offset_window_sim::{simulate, Scenario, ScenarioError};

/// The refusal of `json`, which `simulate` gives too for the same scenario built in code.
fn refused(json: &str, built: Scenario) -> ScenarioError {
    let e = Scenario::from_json(json).expect_err(json);
    assert_eq!(simulate(&built).expect_err(json), e, "{json}");
    e
}

#[test]
fn a_group_or_share_group_is_refused_naming_the_key() {
    let crash = GroupEvent::new(5_000_000, 1, GroupEventKind::Crash);
    let share = Scenario { consumption: Consumption::ShareGroup, ..Scenario::default() };
    for (json, built, key, must) in [
        (
            r#"{"members": 2}"#,
            Scenario { members: 2, ..Scenario::default() },
            "members",
            "must be 1 (got 2) here",
        ),
        (
            r#"{"partitions": 3}"#,
            Scenario { partitions: 3, ..Scenario::default() },
            "partitions",
            "must be 1 (got 3) here",
        ),
        (
            r#"{"group_events": [{"at_ms": 5000, "member": 1, "kind": "crash"}]}"#,
            Scenario { group_events: vec![crash], ..Scenario::default() },
            "group_events",
            "must be empty here",
        ),
        (
            r#"{"consumption": "share_group"}"#,
            share.clone(),
            "consumption",
            "must be \"consumer_group\" here",
        ),
        (
            r#"{"consumption": "share_group", "members": 3, "partitions": 2}"#,
            Scenario { members: 3, partitions: 2, ..share },
            "consumption",
            "must be \"consumer_group\" here",
        ),
    ] {
        let e = refused(json, built);
        assert_eq!(e.key.as_deref(), Some(key), "{json}");
        assert!(e.message.starts_with(must), "{json}: {}", e.message);
        assert!(e.message.contains("runs one consumer") && e.message.contains("group page"), "{}", e.message);
    }
}

#[test]
fn a_key_out_of_range_is_still_named_with_its_range() {
    let e = refused(r#"{"members": 999}"#, Scenario { members: 999, ..Scenario::default() });
    assert_eq!(e.key.as_deref(), Some("members"));
    assert!(e.message.contains("from 1 to 256"), "{}", e.message);
}

#[test]
fn one_consumer_runs_as_with_groups() {
    let run = simulate(&Scenario::default()).unwrap();
    let at = run.state_at(8_200_000);
    assert_eq!((at.position, at.durable, at.committed), (Some(45), 40, Some(25)));
    assert_eq!((at.lost, at.duplicated), (0, 15));
    let s =
        Scenario::from_json(r#"{"members": 1, "partitions": 1, "consumption": "consumer_group"}"#).unwrap();
    assert_eq!(simulate(&s).unwrap(), run);
}
