//! The group page's words: the fields it shows (Kafka's property names where there are
//! some, else words), events and handovers said as sentences, durations, and messages that
//! name a field in words with its range. Every number comes from the core
//! (docs/model.md §10.7, §11.5); every sentence is ours, for a reader.

use crate::kit::fields::{field as f, numeric_range, Field};
use crate::kit::text::seconds_text;
use offset_window_sim::events::{GroupEvent, GroupEventKind};
use offset_window_sim::report::{GroupReport, Handover, PartitionDamage};
use offset_window_sim::scenario::key_spec;
use offset_window_sim::sweep::GroupProfile;
use offset_window_sim::{Scenario, ScenarioError};

/// The page's lede for a consumer group (HTML).
pub const LEDE: &str = concat!(
    "<p class=\"lede\">Several consumers share the partitions of <code>orders</code>. Put a crash, a hang, ",
    "a shutdown, a join or a rolling deploy on the time axis and drag it: each partition's lane shows its ",
    "position (dashed), durable frontier and committed offset, with a bar in its owner's colour; each ",
    "member's lane shows when it processes nothing. Switch to a share group (KIP-932) to see the same ",
    "workload as a queue of records.</p>"
);

/// The page's lede for a share group (HTML): its lanes and its record strip.
pub const SHARE_LEDE: &str = concat!(
    "<p class=\"lede\">A share group (KIP-932): several consumers take records of <code>orders</code> from ",
    "the same partitions, each record locked to the member that acquired it. Put a crash, a hang or a ",
    "shutdown on the time axis and drag it: each partition's lane shows its start offset and the end of ",
    "its window of records in flight, each member's lane when it processes nothing, and the strip below ",
    "each record's state — acquired, available again, acknowledged, archived. Slide the crash of the whole ",
    "group to see what it would cost then. Switch to a consumer group to see the same workload by partition.</p>"
);

/// The lede for the kind of group shown.
pub fn lede(share: bool) -> &'static str {
    if share {
        SHARE_LEDE
    } else {
        LEDE
    }
}

/// One readout of the page: its id (`ro-` + id on the live page, `ff-` + id in the first
/// frame), its colour class, its words, the value shown and the number behind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Readout {
    /// The id after its prefix (`g-lost`).
    pub id: &'static str,
    /// The colour class (`lost`, `duplicated`, or none).
    pub class: &'static str,
    /// What it counts, in words.
    pub title: &'static str,
    /// The value as shown (`44.83 s`).
    pub shown: String,
    /// The number (ms for a duration).
    pub value: u64,
}

/// A consumer group's readouts' heading: "The whole group, handovers up to 60.000 s". Records
/// lost and processed twice are counted when a partition changes hands (docs/model.md
/// §10.7), so a repeat the new owner reaches only after the horizon counts too.
pub fn group_readouts_title(horizon_us: u64) -> String {
    format!("The whole group, handovers up to {} s", seconds_text(horizon_us))
}

/// A consumer group's readouts: the whole group's totals by the horizon.
pub fn group_readouts(g: &GroupReport) -> Vec<Readout> {
    let stalled_us: u64 = g.partitions.iter().map(|p| p.stalled_us).sum();
    let r = |id, class, title, shown: String, value| Readout { id, class, title, shown, value };
    vec![
        r("g-lost", "lost", "records lost", g.lost().to_string(), g.lost()),
        r(
            "g-duplicated",
            "duplicated",
            "records processed twice",
            g.duplicated().to_string(),
            g.duplicated(),
        ),
        r("g-rebalances", "", "rebalances", g.rebalances.to_string(), u64::from(g.rebalances)),
        r("g-stalled", "", "partitions stalled (sum)", readout_duration(stalled_us), stalled_us / 1_000),
    ]
}

/// A readout's duration in big type, short enough for a phone's readout box: seconds up to
/// 10,000 s, then hours with one decimal ("146.2 h" for S-A's 526,290 s summed over 1,024
/// partitions); the exact value stays in the readout's `data-value`, in ms.
pub fn readout_duration(us: u64) -> String {
    if us < 10_000_000_000 {
        return duration_text(us);
    }
    let tenths = (us + 180_000_000) / 360_000_000;
    format!("{}.{} h", tenths / 10, tenths % 10)
}

/// The worst of the sweep in a sentence: "Worst over every instant of the first event: 0
/// lost, 25 processed twice (first event just after 10.000 s)." The worst instant is often
/// 1 µs after another event (model.md §10.7): that is said as "just after" it.
pub fn worst_sentence(p: &GroupProfile) -> String {
    let at = |t: Option<u64>| {
        t.map_or(String::new(), |t| match t % 1_000 {
            1 => format!(" (first event just after {} s)", seconds_text(t - 1)),
            _ => format!(" (first event at {} s)", seconds_text(t)),
        })
    };
    format!(
        "Worst over every instant of the first event: {} lost{}, {} processed twice{}.",
        p.worst_lost.0,
        at(p.worst_lost.1),
        p.worst_duplicated.0,
        at(p.worst_duplicated.1)
    )
}

/// What the readouts say while a drag of a big group's event is previewed, its run not yet
/// simulated: "Simulating the event at 12.000 s… (≈: the sweep's figures for the nearest
/// instant it evaluated at or before it)".
pub fn preview_sentence(at_us: u64, estimated: bool) -> String {
    let why = if estimated {
        " (≈: the sweep's figures at the nearest instant it evaluated, at or before it; the rest are the run before the drag)"
    } else {
        " (the figures are the run's before the drag)"
    };
    format!("Simulating the event at {} s once the drag rests…{why}", seconds_text(at_us))
}

/// The sweep chart's title, for the first event `e`.
pub fn sweep_title(e: &GroupEvent) -> String {
    format!(
        "If the first event ({}) came at another instant: the group's records lost and processed twice",
        event_tag(e)
    )
}

/// How to move the first event on the sweep chart.
pub const SWEEP_HINT: &str = "Click or tap an instant to put the event there (or drag along it); with the keyboard, focus the chart and use the arrow keys.";

/// The legend's line on an overview's partition rows.
const ROWS: &str =
    "partition rows, one per partition: its owner's colour; blank = no owner (the partition waits)";
/// The legend's line on an overview's costly handovers.
const ROW_MARKS: &str =
    "a red or orange mark across a row: a handover that lost records (red) or processed them twice (orange)";
/// The legend's line on member lanes (everywhere but an overview's thin member rows).
const MEMBER_LANES: &str =
    "member lanes: full = processing, thin line = no partition, hatched = hung (×) or in a rebalance (/), grey box = down";

/// The lanes' legend before the members' colours, for a share group, a consumer group, or a
/// consumer group's overview (`lanes::is_overview`), whose members are thin rows too beyond
/// `lanes::OVERVIEW_MEMBERS` (`thin_members`).
pub fn legend_lines(share: bool, overview: bool, thin_members: bool) -> &'static [&'static str] {
    if overview && thin_members {
        &[
            ROWS,
            ROW_MARKS,
            "member rows: its colour = processing, blank = no partition, orange = hung, dark grey = in a rebalance, light grey = down",
        ]
    } else if overview {
        &[ROWS, ROW_MARKS, MEMBER_LANES]
    } else if share {
        &["partition lanes: start offset (solid, in place of the committed offset), end of the window (dashed)", MEMBER_LANES]
    } else {
        &[
            "partition lanes: position (dashed), durable frontier (thin), committed offset (thick); the bar below: who owns it",
            "▼ on a lane: a handover (orange: records processed twice, red: lost)",
            MEMBER_LANES,
        ]
    }
}

/// After the first eight members' colours, in a bigger group.
pub const LEGEND_COLOURS_REPEAT: &str = "the colours repeat every eight members (consumer-9 as consumer-1)";

/// The legend's last line, after the members' colours.
pub const LEGEND_EVENTS: &str = "dashed lines with a tag: the events (drag them, or use their sliders)";

/// Which kind of group a field belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Both kinds of group.
    Always,
    /// A consumer group only (docs/model.md §10).
    Consumer,
    /// A share group only (docs/model.md §11).
    Share,
}

impl Shown {
    /// Whether a field shown so is on the page for a share group (`share`) or not.
    pub fn on(self, share: bool) -> bool {
        match self {
            Shown::Always => true,
            Shown::Consumer => !share,
            Shown::Share => share,
        }
    }
}

/// The numeric fields of the group page, in the order it shows them, each with the kind of
/// group it belongs to. They are text fields only: no slider range (the events have their
/// own sliders, over the horizon).
pub const FIELDS: &[(Field, Shown)] = &[
    (f("partitions", "partitions of orders", false, "partitions", "orders-0, orders-1, …", None, false), Shown::Always),
    (f("members", "members at the start", false, "members", "consumer-1, consumer-2, … (a join adds more)", None, false), Shown::Always),
    (f("horizon_ms", "horizon (simulated time shown)", false, "ms", "how much simulated time the lanes show", None, false), Shown::Always),
    (f("session.timeout.ms", "session.timeout.ms", true, "ms", "the coordinator drops a member not heard from for this long", None, false), Shown::Consumer),
    (f("heartbeat.interval.ms", "heartbeat.interval.ms", true, "ms", "a classic member learns of a rebalance at its next heartbeat", None, true), Shown::Consumer),
    (f("group.consumer.heartbeat.interval.ms", "group.consumer.heartbeat.interval.ms", true, "ms", "the consumer protocol's heartbeat (a broker setting): partitions move at heartbeats", None, true), Shown::Consumer),
    (f("group.initial.rebalance.delay.ms", "group.initial.rebalance.delay.ms", true, "ms", "how long the first member joining an empty group waits for others (a broker setting)", None, true), Shown::Consumer),
    (f("max.poll.interval.ms", "max.poll.interval.ms", true, "ms", "a member that does not poll for this long is evicted; also the rebalance timeout", None, true), Shown::Consumer),
    (f("auto.commit.interval.ms", "auto.commit.interval.ms", true, "ms", "the auto-commit timer", None, true), Shown::Consumer),
    (f("on_revoke_drain_ms", "drain time limit", false, "ms", "with a drain on revoke: how long onPartitionsRevoked waits for the pool", None, true), Shown::Consumer),
    (f("group.share.record.lock.duration.ms", "group.share.record.lock.duration.ms", true, "ms", "how long an acquired record stays locked to its member before it is offered again (a broker setting)", None, false), Shown::Share),
    (f("group.share.delivery.count.limit", "group.share.delivery.count.limit", true, "deliveries", "deliveries of a record before it is archived instead of offered again (a broker setting)", None, false), Shown::Share),
    (f("group.share.partition.max.record.locks", "group.share.partition.max.record.locks", true, "records", "the most records in flight per partition (a broker setting)", None, true), Shown::Share),
    (f("share_renew_every_ms", "renew the locks every", false, "ms", "explicit acknowledgement: how often the poll loop renews the locks of the records in hand with RENEW", None, true), Shown::Share),
    (f("max.poll.records", "max.poll.records", true, "records", "records one poll() returns", None, false), Shown::Always),
    (f("records_per_producer_batch", "records per producer batch", false, "records", "the log is written in batches of this many records; batch optimized acquisition takes whole batches", None, true), Shown::Share),
    (f("record_processing_ms", "record processing time", false, "ms", "how long one record takes", None, false), Shown::Always),
    (f("max.partition.fetch.bytes", "max.partition.fetch.bytes", true, "bytes", "most bytes one fetch brings of one partition: a member hands out that chunk before its next partition", None, true), Shown::Consumer),
    (f("record_size_bytes", "record size", false, "bytes", "one record as fetched (a fetched chunk is max.partition.fetch.bytes of them; a share fetch reads fetch.max.bytes of them)", None, true), Shown::Always),
    (f("fetch.max.bytes", "fetch.max.bytes", true, "bytes", "most bytes one ShareFetch reads, shared by its partitions, in whole producer batches (at least one)", None, true), Shown::Share),
    (f("commit_latency_ms", "commit latency (one round trip)", false, "ms", "an OffsetCommit, JoinGroup, SyncGroup or acknowledgement round trip", None, true), Shown::Always),
];

/// The named choices of the group page: (key, label, kind of group).
pub const CHOICES: &[(&str, &str, Shown)] = &[
    ("client", "client (and its group protocol)", Shown::Consumer),
    ("partition.assignment.strategy", "partition.assignment.strategy", Shown::Consumer),
    ("strategy", "how the application commits", Shown::Consumer),
    ("on_revoke", "what onPartitionsRevoked does", Shown::Consumer),
    ("share.acknowledgement.mode", "share.acknowledgement.mode", Shown::Share),
    ("strategy", "when acknowledgements are sent", Shown::Share),
    ("share.auto.offset.reset", "share.auto.offset.reset", Shown::Share),
    ("share.acquire.mode", "share.acquire.mode", Shown::Share),
];

/// Labels of the page's other keys (flags, the toggle, the events).
const OTHER_LABELS: &[(&str, &str)] = &[
    ("group.instance.id", "group.instance.id (static membership)"),
    ("worker_pool", "worker pool"),
    ("commit_revoked_partitions", "the pool's commits keep partitions it lost"),
    ("consumption", "consumer group or share group"),
    ("group_events", "group events"),
    ("on_error", "what happens to a record that throws"),
];

/// What the page calls scenario key `key`: its label, or the key itself for keys the page
/// does not show (a link can still set them).
pub fn label(key: &str) -> &str {
    FIELDS
        .iter()
        .map(|(f, _)| (f.key, f.label))
        .chain(CHOICES.iter().map(|(k, l, _)| (*k, *l)))
        .chain(OTHER_LABELS.iter().copied())
        .find(|(k, _)| *k == key)
        .map_or(key, |(_, l)| l)
}

/// What the page calls a field of an event.
pub fn event_field_label(field: &str) -> &str {
    match field {
        "at_ms" => "instant (s)",
        "member" => "member",
        "kind" => "what happens",
        "shutdown_mode" => "how close() is reached",
        "restart_after_ms" => "back after (s)",
        "duration_ms" => "hangs for (s)",
        "deploy_step_ms" => "time between members (s)",
        other => other,
    }
}

/// `consumer-N` for N counted from 1.
pub fn member_name(n: u16) -> String {
    format!("consumer-{n}")
}

/// `orders-P` for partition index P.
pub fn partition_name(p: u32) -> String {
    format!("orders-{p}")
}

/// A duration in seconds with only the decimals it needs: `40 s`, `10.01 s`, `44.815 s`.
pub fn duration_text(us: u64) -> String {
    let text = seconds_text(us);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} s")
}

/// An event in one sentence: "consumer-2 crashes at 8.200 s", "consumer-1 hangs from
/// 3.100 s for 40 s", "a rolling deploy from 10.000 s, a member every 20 s, each back 10 s
/// after close() returns".
pub fn event_words(e: &GroupEvent) -> String {
    let who = member_name(e.member);
    let at = seconds_text(e.at_us);
    let back = |after: &str| {
        e.restart_after_us.map_or(String::new(), |r| format!(", back {} {after}", duration_text(r)))
    };
    let mode = match e.shutdown_mode {
        offset_window_sim::events::ShutdownMode::Wakeup => "wakeup(), then close()",
        offset_window_sim::events::ShutdownMode::Abrupt => "close() at once",
    };
    match e.kind {
        GroupEventKind::Crash => format!("{who} crashes at {at} s{}", back("later")),
        GroupEventKind::Hang => format!("{who} hangs from {at} s for {}", duration_text(e.duration_us)),
        GroupEventKind::Shutdown => {
            format!("{who} shuts down at {at} s ({mode}){}", back("after close() returns"))
        }
        GroupEventKind::Join => format!("{who} joins at {at} s"),
        GroupEventKind::Deploy => format!(
            "a rolling deploy from {at} s, a member every {} ({mode}){}",
            duration_text(e.deploy_step_us),
            back("after close() returns")
        ),
    }
}

/// A short label for an event's handle on the lanes: "crash 2", "hang 1", "stop 2",
/// "join 4", "deploy".
pub fn event_tag(e: &GroupEvent) -> String {
    match e.kind {
        GroupEventKind::Crash => format!("crash {}", e.member),
        GroupEventKind::Hang => format!("hang {}", e.member),
        GroupEventKind::Shutdown => format!("stop {}", e.member),
        GroupEventKind::Join => format!("join {}", e.member),
        GroupEventKind::Deploy => "deploy".to_string(),
    }
}

/// "15 records", "1 record", "no records".
pub fn records(n: u64) -> String {
    match n {
        0 => "no records".to_string(),
        1 => "1 record".to_string(),
        n => format!("{n} records"),
    }
}

/// How many handovers, and how many partitions, the page says in sentences before it counts the
/// rest in one line (a big group has thousands: S-A 131,064 handovers; every one is in the
/// result JSON).
pub const STORY_SENTENCES: usize = 64;

/// The first [`STORY_SENTENCES`] of `items` said by `say`, then a line counting the others
/// (`what`: "handovers", "partitions").
pub fn capped_sentences<T>(items: &[T], what: &str, say: impl Fn(&T) -> String) -> Vec<String> {
    let mut said: Vec<String> = items.iter().take(STORY_SENTENCES).map(say).collect();
    if items.len() > STORY_SENTENCES {
        said.push(format!(
            "… and {} more {what}, said here only up to {STORY_SENTENCES}: every one is in the result \
             (“Download the result (JSON)” below).",
            thousands(items.len() - STORY_SENTENCES)
        ));
    }
    said
}

/// A whole number with a comma every three digits: 131,000.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A handover in one sentence (docs/model.md §10.7).
pub fn handover_sentence(h: &Handover, horizon_us: u64) -> String {
    let p = partition_name(u32::from(h.partition));
    let start = h
        .committed
        .map_or("where auto.offset.reset says (the group had no committed offset)".to_string(), |c| {
            format!("from the committed offset {c}")
        });
    let damage = match (h.lost, h.duplicated) {
        (0, 0) => "nothing lost, nothing processed twice".to_string(),
        (0, d) => format!("{} processed twice, none lost", records(d)),
        (l, 0) => format!("{} lost, none processed twice", records(l)),
        (l, d) => format!("{} lost and {} processed twice", records(l), records(d)),
    };
    let from = h.from.map_or("nobody".to_string(), |m| member_name(m + 1));
    match h.to {
        Some(to) if Some(to) == h.from => format!(
            "At {} s {p} went back to {} (a rebalance), {start}: {damage}.",
            seconds_text(h.at_us),
            member_name(to + 1)
        ),
        Some(to) => format!(
            "At {} s {p} passed from {from} to {}, {start}: {damage}.",
            seconds_text(h.at_us),
            member_name(to + 1)
        ),
        None => format!(
            "At the horizon ({} s) {p}, last held by {from}, still had no owner; a new owner would start {start}: {damage}.",
            seconds_text(horizon_us)
        ),
    }
}

/// One partition's totals in one sentence: "orders-1: 15 records processed twice, none
/// lost; nobody processed it for 51.8 s."
pub fn partition_sentence(d: &PartitionDamage) -> String {
    let p = partition_name(u32::from(d.partition));
    let damage = match (d.lost, d.duplicated) {
        (0, 0) => "nothing lost, nothing processed twice".to_string(),
        (0, n) => format!("{} processed twice, none lost", records(n)),
        (n, 0) => format!("{} lost, none processed twice", records(n)),
        (l, n) => format!("{} lost and {} processed twice", records(l), records(n)),
    };
    let stall = match d.stalled_us {
        0 => "it never stalled".to_string(),
        us => format!("nobody processed it for {}", duration_text(us)),
    };
    format!("{p}: {damage}; {stall}.")
}

/// A refusal in the page's words: the field named by its label (an event's field as "event
/// 2, instant (ms)", or, with `events` to describe it, "event 2 (consumer-1 hangs …),
/// instant (ms)"), a numeric key's range as every page says it
/// ([`crate::kit::fields::numeric_range`]: "empty for never", not "null"), and no identifier
/// where a label exists.
pub fn error_message(e: &ScenarioError, events: Option<&Scenario>) -> String {
    let message = e
        .message
        .replace("horizon_ms = ", "the horizon, ")
        .replace("within horizon_ms", "within the horizon")
        .replace("horizon_ms", "the horizon")
        .replace("members = ", "members at the start = ");
    let Some(key) = e.key.as_deref() else { return message };
    if let Some(rest) = key.strip_prefix("group_events[") {
        let (index, field) = rest.split_once(']').unwrap_or((rest, ""));
        let i = index.parse::<usize>().unwrap_or(0);
        let what = events
            .and_then(|s| s.group_events.get(i))
            .map_or(String::new(), |ev| format!(" ({})", event_words(ev)));
        let field = field.trim_start_matches('.');
        let name = if field.is_empty() {
            format!("event {}{what}", i + 1)
        } else {
            format!("event {}{what}, {}", i + 1, event_field_label(field))
        };
        return format!("{name}: {message}");
    }
    // A value out of the key's range: the range as the page says it (an empty field, not
    // null), the rest ("(got …)") as the core says it.
    if let Some(spec) = key_spec(key) {
        if let (Some(range), Some(rest)) = (
            numeric_range(spec),
            message.strip_prefix("must be ").and_then(|m| m.strip_prefix(spec.range().as_str())),
        ) {
            return format!("{}: must be {range}{rest}", label(key));
        }
    }
    format!("{}: {message}", label(key))
}

/// A field's hint as the page shows it: its line, then its allowed values when its key is
/// numeric, from the core's key table as the refusals say them.
pub fn hint(f: &Field) -> String {
    match key_spec(f.key).and_then(numeric_range) {
        Some(range) => format!("{}; {range}", f.hint),
        None => f.hint.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::events::ShutdownMode;

    #[test]
    fn events_read_as_sentences() {
        let crash = GroupEvent::new(8_200_000, 2, GroupEventKind::Crash);
        assert_eq!(event_words(&crash), "consumer-2 crashes at 8.200 s");
        let hang =
            GroupEvent { duration_us: 40_000_000, ..GroupEvent::new(3_100_000, 1, GroupEventKind::Hang) };
        assert_eq!(event_words(&hang), "consumer-1 hangs from 3.100 s for 40 s");
        let stop = GroupEvent {
            restart_after_us: Some(10_000_000),
            shutdown_mode: ShutdownMode::Abrupt,
            ..GroupEvent::new(8_200_000, 2, GroupEventKind::Shutdown)
        };
        assert_eq!(
            event_words(&stop),
            "consumer-2 shuts down at 8.200 s (close() at once), back 10 s after close() returns"
        );
        assert_eq!(event_tag(&stop), "stop 2");
        assert_eq!(duration_text(44_815_000), "44.815 s");
        assert_eq!(duration_text(10_010_000), "10.01 s");
        assert_eq!(readout_duration(2_359_760_000), "2359.76 s");
        assert_eq!(readout_duration(526_290_085_000), "146.2 h");
        assert_eq!(readout_duration(10_000_000_000), "2.8 h");
    }

    #[test]
    fn fields_are_core_keys_and_labels_are_words() {
        for (f, _) in FIELDS {
            assert!(key_spec(f.key).is_some(), "{}", f.key);
            assert!(f.kafka || !f.label.contains('_'), "{}", f.label);
            assert!(!f.hint.contains('_'), "{}", f.hint);
        }
        for (key, l, _) in CHOICES {
            assert!(key_spec(key).is_some(), "{key}");
            assert!(!l.contains('_'), "{l}");
        }
        assert_eq!(label("group.instance.id"), "group.instance.id (static membership)");
    }

    #[test]
    fn every_numeric_field_hint_gives_its_keys_range() {
        for (f, _) in FIELDS {
            let spec = key_spec(f.key).unwrap();
            let range = numeric_range(spec).unwrap_or_else(|| panic!("{}: a numeric key", f.key));
            assert_eq!(hint(f), format!("{}; {range}", f.hint));
            // The same words as a refusal of the key.
            let refused = spec.refuse(&"x".into());
            assert!(
                error_message(&refused, None).contains(&format!("must be {range} (got \"x\")")),
                "{}",
                f.key
            );
        }
        let at = |key: &str| &FIELDS.iter().find(|(f, _)| f.key == key).unwrap().0;
        assert_eq!(hint(at("partitions")), "orders-0, orders-1, …; a whole number from 1 to 4096");
        assert_eq!(
            hint(at("share_renew_every_ms")),
            "explicit acknowledgement: how often the poll loop renews the locks of the records in hand with \
             RENEW; empty for never, or 100 to 3600000 ms, at most 3 decimals"
        );
    }

    #[test]
    fn a_big_groups_story_says_the_first_sentences_and_counts_the_rest() {
        let items: Vec<usize> = (0..131_064).collect();
        let said = capped_sentences(&items, "handovers", |i| format!("h{i}"));
        assert_eq!(said.len(), STORY_SENTENCES + 1);
        assert_eq!(said[STORY_SENTENCES - 1], format!("h{}", STORY_SENTENCES - 1));
        assert!(
            said[STORY_SENTENCES].starts_with("… and 131,000 more handovers"),
            "{}",
            said[STORY_SENTENCES]
        );
        assert_eq!(capped_sentences(&items[..3], "partitions", |i| format!("p{i}")), ["p0", "p1", "p2"]);
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn handovers_read_as_sentences() {
        let run = offset_window_sim::simulate(&super::super::state::default_scenario()).unwrap();
        let g = run.group.unwrap();
        let said: Vec<String> = g.handovers.iter().map(|h| handover_sentence(h, 60_000_000)).collect();
        assert_eq!(
            said,
            vec![
                "At 52.015 s orders-0 went back to consumer-1 (a rebalance), from the committed offset 260: nothing lost, nothing processed twice.",
                "At 52.015 s orders-1 passed from consumer-2 to consumer-1, from the committed offset 25: 15 records processed twice, none lost.",
            ]
        );
        assert_eq!(
            partition_sentence(&g.partitions[1]),
            "orders-1: 15 records processed twice, none lost; nobody processed it for 51.8 s."
        );
    }
}
