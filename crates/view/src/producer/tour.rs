//! The producer view's guided tour: six scenarios, each with a caption in our words whose
//! numbers are read from the core's run of that scenario.

use crate::kit::text::millis_text as ms;
use offset_window_sim::keys::json_text;
use offset_window_sim::producer::{Fault, FaultKind, ProduceRun, ProducerScenario, Verdict};
use offset_window_sim::scenario::US_PER_MS;

/// One step: a title, the scenario it shows, the fault kind left selected, and a caption
/// written from the run.
pub struct Step {
    /// A few words.
    pub title: &'static str,
    /// The scenario shown.
    pub scenario: fn() -> ProducerScenario,
    /// The fault kind a click places afterwards.
    pub kind: FaultKind,
    /// The caption, from the run.
    pub caption: fn(&ProduceRun) -> String,
}

fn batch_fault(kind: FaultKind, batch: u32) -> Fault {
    Fault { kind, at_us: None, batch: Some(batch), attempt: 1 }
}

fn timed_fault(kind: FaultKind, at_ms: u64, batch: Option<u32>) -> Fault {
    Fault { kind, at_us: Some(at_ms * US_PER_MS), batch, attempt: 1 }
}

fn lost_ack(idempotence: bool) -> ProducerScenario {
    ProducerScenario {
        enable_idempotence: (!idempotence).then_some(false),
        faults: vec![batch_fault(FaultKind::AckLost, 1)],
        ..ProducerScenario::default()
    }
}

/// When batch `b`'s `n`-th send (from 1) was sent, ms.
fn sent_ms(run: &ProduceRun, b: usize, n: usize) -> String {
    run.batches.get(b - 1).and_then(|b| b.attempts.get(n - 1)).map_or("?".into(), |a| ms(a.sent_at_us))
}

fn offsets_of(run: &ProduceRun, batch: u32) -> Vec<String> {
    run.log.iter().filter(|e| e.batch == batch).map(|e| e.offset.to_string()).collect()
}

/// The six steps.
pub const STEPS: [Step; 6] = [
    Step {
        title: "A lost ack, without idempotence",
        scenario: || lost_ack(false),
        kind: FaultKind::AckLost,
        caption: |r| {
            let c = r.counters;
            format!(
                "enable.idempotence=false. The leader wrote batch 1, but its answer never came back. The producer \
                 waited request.timeout.ms and sent batch 1 again at {} ms; the leader had no way to tell it was a \
                 repeat and wrote it again (offsets {}). The log holds {} records for 20 sent: {} written twice.",
                sent_ms(r, 1, 2),
                offsets_of(r, 1).join(" and "),
                c.log_records,
                c.records_written_twice
            )
        },
    },
    Step {
        title: "The same lost ack, with idempotence",
        scenario: || lost_ack(true),
        kind: FaultKind::AckLost,
        caption: |r| {
            let c = r.counters;
            format!(
                "Idempotence on (the default). The resend carries the same producer id, epoch and sequence \
                 number; the leader finds it among the five batches it remembers, drops it and answers \
                 success. Duplicates dropped: {}; the log holds {} records, {} written twice.",
                c.duplicates_dropped, c.log_records, c.records_written_twice
            )
        },
    },
    Step {
        title: "Five in flight, one lost: retried in order",
        scenario: || ProducerScenario {
            faults: vec![batch_fault(FaultKind::RequestLost, 2)],
            ..ProducerScenario::default()
        },
        kind: FaultKind::RequestLost,
        caption: |r| {
            let c = r.counters;
            format!(
                "Four batches leave at once (max.in.flight.requests.per.connection={}). Batch 2's request is \
                 lost, so batches 3 and 4 arrive with a gap in the sequence: the leader refuses them ({} \
                 OUT_OF_ORDER_SEQUENCE_NUMBER rejections) rather than write them ahead of batch 2. The producer \
                 resends 2, 3 and 4 in order ({} resends); the log keeps sequence order, {} records, {} twice, \
                 {} missing.",
                json_text(&r.scenario["max.in.flight.requests.per.connection"]),
                c.out_of_order_rejections,
                c.retries,
                c.log_records,
                c.records_written_twice,
                c.records_never_written
            )
        },
    },
    Step {
        title: "A leader failover in the middle",
        scenario: || ProducerScenario {
            faults: vec![timed_fault(FaultKind::LeaderFailover, 7, None)],
            ..ProducerScenario::default()
        },
        kind: FaultKind::LeaderFailover,
        caption: |r| {
            let c = r.counters;
            let at = r.faults.first().and_then(|f| f.fired_at_us).map_or("?".into(), ms);
            format!(
                "At {at} ms the leader fails after writing all four batches but before its answers leave. The \
                 producer resends all of them ({} resends) to the new leader, which rebuilt its memory of \
                 producer ids from the log and its snapshot: {} dropped as duplicates, {} records in the log, \
                 {} written twice.",
                c.retries, c.duplicates_dropped, c.log_records, c.records_written_twice
            )
        },
    },
    Step {
        title: "A producer restart: why transactional.id exists",
        scenario: || ProducerScenario {
            faults: vec![
                batch_fault(FaultKind::AckLost, 1),
                timed_fault(FaultKind::ProducerRestart, 1_000, None),
            ],
            ..ProducerScenario::default()
        },
        kind: FaultKind::ProducerRestart,
        caption: |r| {
            let c = r.counters;
            let pids: Vec<String> = r.broker_memory.iter().map(|m| m.pid.to_string()).collect();
            format!(
                "Batch 1's ack is lost, then the producer restarts before resending it. The new process gets a \
                 new producer id ({}), so the leader cannot match its batch 1 against the old one: {} records in \
                 the log, {} written twice — idempotence or not. The promise holds for one producer session. A \
                 fixed transactional.id gives the restarted producer the same id with a higher epoch, which is \
                 what lets Kafka carry it across restarts.",
                pids.join(" then "),
                c.log_records,
                c.records_written_twice
            )
        },
    },
    Step {
        title: "A zombie is fenced",
        scenario: || ProducerScenario {
            faults: vec![timed_fault(FaultKind::Zombie, 20, Some(2))],
            ..ProducerScenario::default()
        },
        kind: FaultKind::Zombie,
        caption: |r| {
            let c = r.counters;
            let verdict = r.faults.first().and_then(|f| f.verdict).map_or("?".into(), Verdict::describe);
            format!(
                "An earlier instance with the same producer id but an older epoch wakes up and sends its copy of \
                 batch 2. The leader knows a newer epoch: {verdict}. Fenced requests: {}; the log still holds {} \
                 records, {} written twice.",
                c.fenced_requests, c.log_records, c.records_written_twice
            )
        },
    },
];

#[cfg(test)]
mod tests {
    use super::STEPS;
    use offset_window_sim::producer::simulate_producer;

    #[test]
    fn every_step_runs_and_its_caption_reads_its_numbers() {
        for step in &STEPS {
            let scenario = (step.scenario)();
            scenario.validate().unwrap_or_else(|e| panic!("{}: {e}", step.title));
            let run = simulate_producer(&scenario).unwrap();
            let caption = (step.caption)(&run);
            assert!(!caption.contains('?') && !caption.is_empty(), "{}: {caption}", step.title);
        }
    }
}
