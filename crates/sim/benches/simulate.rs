//! Benchmarks of the one-pass simulation + crash profile (`cargo bench -p offset-window-sim`).
//!
//! Prints: the default scenario; one million records (`max.poll.records` 500, 1 ms per
//! record, 1000 s); and the brute-force profile of the default scenario at 1 ms resolution
//! (12,000 re-runs), whose ratio to the first is the point of the one-pass design.
#![allow(missing_docs)] // criterion_group! generates an undocumented public function

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use offset_window_sim::{crash_state_brute_force, simulate, Scenario};

fn million_records() -> Scenario {
    Scenario {
        max_poll_records: 500,
        record_processing_us: 1_000,
        horizon_us: 1_000_000_000,
        log_end_offset: 10_000_000,
        ..Scenario::default()
    }
}

fn benches(c: &mut Criterion) {
    let default = Scenario::default();
    c.bench_function("default scenario: simulate + profile", |b| b.iter(|| simulate(black_box(&default))));

    let million = million_records();
    let run = simulate(&million).unwrap();
    let records = run.lines().durable_frontier.last().unwrap().value;
    assert!(records >= 999_000, "the benchmark scenario processes about a million records, not {records}");
    let mut group = c.benchmark_group("1M records");
    group.sample_size(10);
    group.bench_function("simulate + profile", |b| b.iter(|| simulate(black_box(&million))));
    group.finish();

    let mut group = c.benchmark_group("brute force");
    group.sample_size(10);
    group.bench_function("default scenario profile at 1 ms resolution", |b| {
        b.iter(|| {
            (1..=12_000u64)
                .map(|ms| crash_state_brute_force(black_box(&default), ms * 1_000).unwrap().duplicated)
                .max()
        })
    });
    group.finish();
}

criterion_group! {
    name = simulate_benches;
    config = Criterion::default();
    targets = benches
}
criterion_main!(simulate_benches);
