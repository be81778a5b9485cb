//! The guided tour: an ordered set of steps telling the story of the window, each setting
//! the controls. Captions are our words; every number in them is read from the core when
//! the step is shown, never typed here.

use crate::kit::text::{fixed, seconds_text};
use offset_window_sim::{simulate, Input, MarkKind, Run, Scenario, Strategy};

/// How many steps the tour has.
pub const STEPS: usize = 8;

/// The scenario and crash instant of step `n` (0-based; past the end, the last).
pub fn scenario(n: usize) -> Input {
    let d = Scenario::default();
    let (scenario, crash_at_us) = match n.min(STEPS - 1) {
        0 => (d, 8_200_000),
        1 => (Scenario { strategy: Strategy::CommitSyncBatch, ..d }, 8_200_000),
        2 => (Scenario { strategy: Strategy::CommitSyncBatch, max_poll_records: 25, ..d }, 8_200_000),
        3 => (Scenario { max_poll_records: 25, auto_commit_interval_us: 100_000, ..d }, 8_200_000),
        4 => (Scenario { worker_pool: true, ..d }, 5_010_000),
        5 => (Scenario { worker_pool: true, strategy: Strategy::CommitSyncBatch, ..d }, 5_010_000),
        6 => (
            Scenario {
                record_processing_us: 50_000,
                max_poll_records: 25,
                strategy: Strategy::CommitSyncRecord,
                ..d
            },
            8_200_000,
        ),
        _ => (Scenario { strategy: Strategy::Transactional, ..d }, 8_200_000),
    };
    Input { scenario, crash_at_us }
}

/// A "predict first" step: the reader guesses a number before the page shows it.
#[derive(Clone, Copy, Debug)]
pub struct Question {
    /// What the reader is asked, in our words.
    pub ask: &'static str,
    /// The number the question is about, read from the step's run.
    pub answer: fn(&Run) -> u64,
    /// The answer's unit, in words ("records").
    pub unit: &'static str,
}

/// The question step `n` asks before showing its numbers, if it asks one.
pub fn prediction(n: usize) -> Option<Question> {
    match n {
        3 => Some(Question {
            ask: "Predict first: auto-commit now fires every 100 ms instead of every 5 s, with the same \
                  25-record batches. How many records can the worst crash repeat now?",
            answer: |run| run.worst().duplicated,
            unit: "records",
        }),
        _ => None,
    }
}

/// What the page says once a prediction is revealed: the guess beside the core's number.
pub fn reveal_text(n: usize, guess: Option<u64>) -> String {
    let (Some(q), Some(run)) = (prediction(n), run_of(&scenario(n).scenario)) else { return String::new() };
    let answer = (q.answer)(&run);
    match guess {
        Some(g) if g == answer => format!("You said {g}: right, {answer} {}.", q.unit),
        Some(g) => format!("You said {g}; the simulator says {answer} {}.", q.unit),
        None => format!("The simulator says {answer} {}.", q.unit),
    }
}

fn run_of(s: &Scenario) -> Option<Run> {
    simulate(s).ok()
}

fn worst_dup(run: &Run) -> String {
    let w = run.worst();
    match w.duplicated_at_us {
        Some(at) => format!("{} records, just after {} s", w.duplicated, seconds_text(at - at % 1_000)),
        None => "nothing".into(),
    }
}

/// Title and caption of step `n`, its numbers read from the core now.
pub fn caption(n: usize) -> (&'static str, String) {
    let Input { scenario: s, crash_at_us: crash } = scenario(n);
    let Some(run) = run_of(&s) else { return ("", String::new()) };
    let at = run.state_at(crash);
    match n.min(STEPS - 1) {
        0 => ("Auto-commit, the defaults", format!(
            "Five records a poll, 200 ms each, auto-commit every 5 s. A crash at {} s processes {} records a second time: they were done, but no commit said so. The worst instant is {}: a whole interval of work.",
            seconds_text(crash), at.duplicated, worst_dup(&run))),
        1 => ("commitSync() after each batch", format!(
            "Commit the position once the batch is done and wait for it. Now the worst crash repeats {}: never more than the batch in hand.",
            worst_dup(&run))),
        2 => {
            let auto = run_of(&Scenario { strategy: Strategy::AutoCommit, ..s.clone() }).map(|r| r.worst().duplicated);
            ("A bigger batch: max.poll.records 25", format!(
                "With 25 records a poll, commitSync() after the batch can repeat {} records, and auto-commit {}. The window is the batch, whichever way we commit.",
                run.worst().duplicated, auto.unwrap_or(0)))
        }
        3 => ("Auto-commit every 100 ms", format!(
            "A shorter interval sounds safer, but the classic client commits only inside poll(), once per batch. The worst crash still repeats {} records: nothing changes.",
            run.worst().duplicated)),
        4 => {
            let commit = run.marks.iter().take_while(|m| m.at_us < crash).filter_map(|m| match m.kind {
                MarkKind::CommitSent { .. } => Some((m.at_us, run.lands_at_us(m.at_us))),
                _ => None,
            }).last();
            let flight = commit.map_or(String::new(), |(sent, lands)| format!(
                " Between {} s and {} s the auto-commit of those records is still in flight: a crash there cancels it.",
                seconds_text(sent), seconds_text(lands)));
            ("A worker pool with auto-commit", format!(
                "The loop hands each batch to a pool and polls again at once, so auto-commit commits records the pool has not run. A crash at {} s loses {} records.{flight}",
                seconds_text(crash), at.lost))
        }
        5 => ("A worker pool with commitSync()", format!(
            "commitSync() after handing the batch over does not help: the loop still commits what the pool has not done. A crash at {} s loses {} records.",
            seconds_text(crash), at.lost)),
        6 => {
            let batch = run_of(&Scenario { strategy: Strategy::CommitSyncBatch, ..s.clone() }).map(|r| r.blocked_on_commits());
            ("What committing costs: 50 ms × 25 records", format!(
                "Committing after every record keeps the loop waiting {} % of the time; once per batch, {} %. Smaller windows cost round trips.",
                fixed(run.blocked_on_commits() * 100.0, 1), fixed(batch.unwrap_or(0.0) * 100.0, 1)))
        }
        _ => ("Transactions", format!(
            "Outputs and offsets commit together, so a crash at {} s loses {} and duplicates {} records; the restart reads {} records again, but their first outputs were aborted.",
            seconds_text(crash), at.lost, at.duplicated, at.reread)),
    }
}
