//! model.md §10: the consumer group — the reference scenarios G1–G4, exact numbers.

use offset_window_sim::report::GroupReport;
use offset_window_sim::{simulate, Run, Scenario};

const MS: u64 = 1_000;

fn run(json: &str) -> Run {
    simulate(&Scenario::from_json(json).unwrap_or_else(|e| panic!("{e}"))).unwrap_or_else(|e| panic!("{e}"))
}

fn group(run: &Run) -> &GroupReport {
    run.group.as_ref().expect("a group run")
}

/// Two partitions, two members, range: consumer-1 owns orders-0, consumer-2 orders-1.
const BASE: &str = r#""partitions": 2, "members": 2, "horizon_ms": 60000"#;

#[test]
fn g1_a_crash_waits_out_the_session_and_replays_the_window() {
    let run =
        run(&format!(r#"{{{BASE}, "group_events": [{{"at_ms": 8200, "member": 2, "kind": "crash"}}]}}"#));
    let g = group(&run);
    for h in &g.handovers {
        println!("{h:?}");
    }
    println!("{:?}", g.partitions);
    let p1 = g.partitions[1];
    assert_eq!((p1.lost, p1.duplicated, p1.stalled_us), (0, 15, 44_815 * MS));
    assert_eq!((g.partitions[0].lost, g.partitions[0].duplicated), (0, 0));
    assert_eq!(g.rebalances, 1);
}

#[test]
fn g2_a_wakeup_shutdown_commits_what_it_finished() {
    let wakeup =
        run(&format!(r#"{{{BASE}, "group_events": [{{"at_ms": 8200, "member": 2, "kind": "shutdown"}}]}}"#));
    let g = group(&wakeup);
    for h in &g.handovers {
        println!("{h:?}");
    }
    let p1 = g.partitions[1];
    assert_eq!((p1.lost, p1.duplicated, p1.stalled_us), (0, 0, 5_010 * MS));
    let abrupt = run(&format!(
        r#"{{{BASE}, "group_events": [{{"at_ms": 8200, "member": 2, "kind": "shutdown", "shutdown_mode": "abrupt"}}]}}"#
    ));
    let p1 = group(&abrupt).partitions[1];
    assert_eq!((p1.lost, p1.duplicated), (5, 0), "close() at 8.2 s commits 45 with 40 completed");
}

#[test]
fn g3_a_static_member_back_within_its_session_gets_its_partition_with_no_rebalance() {
    let event = r#"{"at_ms": 8200, "member": 2, "kind": "shutdown", "restart_after_ms": 10000}"#;
    let dynamic = run(&format!(r#"{{{BASE}, "group_events": [{event}]}}"#));
    assert_eq!(group(&dynamic).rebalances, 2);
    let fixed = run(&format!(r#"{{{BASE}, "group.instance.id": true, "group_events": [{event}]}}"#));
    let g = group(&fixed);
    for h in &g.handovers {
        println!("{h:?}");
    }
    assert_eq!(g.rebalances, 0);
    let p1 = g.partitions[1];
    assert_eq!((p1.lost, p1.duplicated, p1.stalled_us), (0, 0, 10_010 * MS));
    assert_eq!(g.handovers[0].at_us, 19_015 * MS, "back at 19.005, its partition at 19.015");
}

#[test]
fn g4_a_pool_crash_loses_what_it_committed_ahead() {
    let run = run(&format!(
        r#"{{{BASE}, "worker_pool": true, "group_events": [{{"at_ms": 5010, "member": 2, "kind": "crash"}}]}}"#
    ));
    let g = group(&run);
    for h in &g.handovers {
        println!("{h:?}");
    }
    assert_eq!(
        (g.partitions[1].lost, g.handovers.iter().find(|h| h.partition == 1).unwrap().committed),
        (10, Some(35))
    );
    assert_eq!(g.partitions[0].lost, 0, "orders-0's pool finishes what it holds");
}
