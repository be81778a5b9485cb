//! Figures for groups at scale (issue 28; `cargo bench -p offset-window-sim --bench scale`).
//!
//! Prints, per case, the median time of one [`simulate`] (or of the first event's sweep)
//! and the peak resident memory of a process that ran only that case: each case runs in a
//! child process of this binary (`scale CASE`), which reads its own `VmHWM` (Linux) at the
//! end. A benchmark that prints figures, not a timed test: the machine's load moves them.
#![allow(missing_docs)]

use offset_window_sim::{simulate, sweep, Scenario};
use std::time::{Duration, Instant};

const CASES: &[(&str, &str)] = &[
    ("16x64-60s", r#"{"members":16,"partitions":64,"horizon_ms":60000}"#),
    ("16x64-3600s", r#"{"members":16,"partitions":64,"horizon_ms":3600000}"#),
    (
        "S-A",
        r#"{"members":128,"partitions":1024,"horizon_ms":600000,"group_events":[{"at_ms":10000,"kind":"deploy","deploy_step_ms":4000,"restart_after_ms":2000}]}"#,
    ),
    (
        "S-B",
        r#"{"members":256,"partitions":4096,"horizon_ms":600000,"group_events":[{"at_ms":60000,"kind":"deploy","deploy_step_ms":2000,"restart_after_ms":5000}]}"#,
    ),
    ("S-C", r#"{"members":64,"partitions":1024,"horizon_ms":86400000}"#),
    (
        "16x64-crash-3600s-sweep",
        r#"{"members":16,"partitions":64,"horizon_ms":3600000,"group_events":[{"at_ms":8200,"member":2,"kind":"crash"}]}"#,
    ),
    (
        "S-A-sweep",
        r#"{"members":128,"partitions":1024,"horizon_ms":600000,"group_events":[{"at_ms":10000,"kind":"deploy","deploy_step_ms":4000,"restart_after_ms":2000}]}"#,
    ),
];

/// Peak resident set of this process, KiB (Linux `VmHWM`; 0 elsewhere).
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap_or("");
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// Runs one case a few times (at least 3, for at least 1 s) and prints one line.
fn run_case(name: &str, json: &str) {
    let scenario = Scenario::from_json(json).expect("the case is accepted");
    let sweep = name.ends_with("-sweep");
    let once = || {
        if sweep {
            let profile = sweep::first_event_profile(&scenario).map_err(|e| e.to_string())?.unwrap();
            Ok::<_, String>((profile.points.len() as u64, profile.candidates as u64))
        } else {
            let run = simulate(&scenario).map_err(|e| e.to_string())?;
            Ok((run.polls, run.marks.len() as u64))
        }
    };
    let mut times = Vec::new();
    let started = Instant::now();
    let mut figures = (0, 0);
    // `SCALE_ONCE=1`: one run only, so that the peak is that run's own (later runs reuse a
    // heap the earlier ones left fragmented, and may show more).
    let once_only = std::env::var_os("SCALE_ONCE").is_some();
    while times.is_empty()
        || (!once_only
            && (times.len() < 3 || (started.elapsed() < Duration::from_secs(1) && times.len() < 1000)))
    {
        let t = Instant::now();
        figures = match std::hint::black_box(once()) {
            Ok(figures) => figures,
            Err(refusal) => return println!("{name:<24} refused: {refusal}"),
        };
        times.push(t.elapsed());
    }
    times.sort();
    let median = times[times.len() / 2];
    let what = if sweep { "points of candidates" } else { "polls, marks" };
    println!(
        "{name:<24} median {:>10.3} ms of {:>4} runs, peak RSS {:>7.1} MiB ({what}: {}, {})",
        median.as_secs_f64() * 1e3,
        times.len(),
        peak_kib() as f64 / 1024.0,
        figures.0,
        figures.1
    );
}

/// What a run of `json` holds: marks by kind and steps by line (`scale breakdown CASE`, or
/// `scale breakdown JSON`).
fn breakdown(json: &str) {
    let run = simulate(&Scenario::from_json(json).unwrap()).unwrap();
    // What a reader of the marks and lines as slices (the view) pays once per run.
    let started = Instant::now();
    let expanded = run.marks.iter().count();
    let marks_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let steps: usize =
        run.partitions.iter().map(|p| p.durable_frontier.iter().count() + p.profile.iter().count()).sum();
    println!(
        "expanding: {expanded} marks {marks_ms:.1} ms, {steps} durable and profile steps {:.1} ms, peak RSS now {:.1} MiB",
        started.elapsed().as_secs_f64() * 1e3,
        peak_kib() as f64 / 1024.0
    );
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for m in &run.marks {
        let name = format!("{:?}", m.kind);
        let name = name.split([' ', '{', '(']).next().unwrap_or("").to_string();
        match kinds.iter_mut().find(|(k, _)| *k == name) {
            Some((_, n)) => *n += 1,
            None => kinds.push((name, 1)),
        }
    }
    println!("marks {} ({} B each): {kinds:?}", run.marks.len(), std::mem::size_of_val(&run.marks[0]));
    let sum = |f: fn(&offset_window_sim::PartitionRun) -> usize| run.partitions.iter().map(f).sum::<usize>();
    println!(
        "steps: position {}, durable {}, committed {}, profile {}",
        sum(|p| p.position.len()),
        sum(|p| p.durable_frontier.len()),
        sum(|p| p.committed.len()),
        sum(|p| p.profile.len())
    );
    println!(
        "capacity: position {}, committed {}; stored as ramps: marks {}, durable {}, profile {}",
        sum(|p| p.position.capacity()),
        sum(|p| p.committed.capacity()),
        run.marks.stored(),
        sum(|p| p.durable_frontier.stored()),
        sum(|p| p.profile.stored())
    );
    if let Some(group) = &run.group {
        println!("handovers {} (capacity {})", group.handovers.len(), group.handovers.capacity());
    }
    ramps(&run);
}

/// How far the marks would shrink with a record's marks as ramps (a run of offsets done every
/// d µs), kept exact: a record's mark joins its member's ramp only at the same place (rank)
/// among the marks of its instant as the ramp's earlier ones; and how many marks repeat the
/// instant, member and kind of the one before (one event's marks, partition by partition).
fn ramps(run: &offset_window_sim::Run) {
    use offset_window_sim::MarkKind;
    // (partition, last offset, last at, every, rank) of each member's open ramp.
    type OpenRamp = (u16, u64, u64, u64, u32);
    let mut open: Vec<Option<OpenRamp>> = vec![None; 4096];
    let (mut entries, mut ramp_entries) = (0u64, 0u64);
    let (mut at, mut rank) = (u64::MAX, 0u32);
    let mut same_event_runs = 0u64;
    let mut last: Option<offset_window_sim::Mark> = None;
    for m in &run.marks {
        if m.at_us != at {
            (at, rank) = (m.at_us, 0);
        } else {
            rank += 1;
        }
        // Marks one event gives partition by partition (a commit, a revocation): same instant,
        // member and kind, another partition.
        let kind = std::mem::discriminant(&m.kind);
        if !matches!(m.kind, MarkKind::RecordDurable { .. })
            && last.is_some_and(|l| {
                l.at_us == m.at_us && l.member == m.member && std::mem::discriminant(&l.kind) == kind
            })
        {
            same_event_runs += 1;
        }
        last = Some(*m);
        let MarkKind::RecordDurable { offset } = m.kind else {
            entries += 1;
            continue;
        };
        let slot = &mut open[m.member as usize];
        let joins = match *slot {
            Some((p, o, t, every, r)) => {
                p == m.partition
                    && o + 1 == offset
                    && m.at_us > t
                    && (every == 0 || m.at_us - t == every)
                    && (every == 0 || r == rank)
            }
            None => false,
        };
        if joins {
            let (p, _, t, _, _) = slot.unwrap();
            *slot = Some((p, offset, m.at_us, m.at_us - t, rank));
        } else {
            entries += 1;
            ramp_entries += 1;
            *slot = Some((m.partition, offset, m.at_us, 0, rank));
        }
    }
    println!(
        "as ramps: marks {} entries of {} ({} record ramps); {} marks repeat their predecessor's instant, member and kind",
        entries,
        run.marks.len(),
        ramp_entries,
        same_event_runs
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if let (Some("breakdown"), Some(name)) = (args.first().map(String::as_str), args.get(1)) {
        let json = CASES.iter().find(|(n, _)| n == name).map_or(name.as_str(), |(_, json)| json);
        return breakdown(json);
    }
    if let Some(name) = args.first() {
        // A scenario of its own, written out: `scale '{"members":128,…}'`.
        if name.starts_with('{') {
            return run_case("(given)", name);
        }
        if let Some((name, json)) = CASES.iter().find(|(n, _)| n == name) {
            return run_case(name, json);
        }
        if name != "all" {
            // `cargo bench` passes a filter: run the cases whose names contain it.
            for (case, _) in CASES.iter().filter(|(n, _)| n.contains(name.as_str())) {
                child(case);
            }
            return;
        }
    }
    for (case, _) in CASES {
        child(case);
    }
}

/// Runs `case` in a child process (its own peak memory) and passes its line on.
fn child(case: &str) {
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let out = std::process::Command::new(exe).arg(case).output().expect("the child runs");
    print!("{}", String::from_utf8_lossy(&out.stdout));
    if !out.status.success() {
        println!("{case:<24} failed: {}", String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or(""));
    }
}
