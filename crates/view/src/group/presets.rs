//! The scenario files of `scenarios/` the group page offers as presets: the consumer-group
//! references and cases (`g*`, `group-*`, docs/model.md §10) and the share-group ones
//! (`s11-*`, `share-*`, §11), each with a title and a one-line story in our words (the select
//! shows titles, never file names) and the values the file expects, said as sentences next to
//! what the core computes now.

use super::words::{member_name, partition_name};
use crate::kit::presets::{fetched_text, json_array, records_word, Fetched};
use crate::kit::text::{fixed, seconds_text};
use offset_window_sim::keys::json_text;
use offset_window_sim::report::{
    FirstEventSummary, GroupSummary, HandoverSummary, MemberSummary, PartitionSummary,
};
use offset_window_sim::share_report::{ShareCrashState, ShareSummary};
use offset_window_sim::sweep::GroupProfile;
use offset_window_sim::timeline::CrashState;
use offset_window_sim::{Input, Run};
use serde_json::Value;

/// One scenario file as the group page offers it (its name is [`FILES`]' entry of the same
/// index: the select says the index, and the tour's steps hold it, so the names stay out of
/// the page's wasm).
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// What the select shows.
    pub title: &'static str,
    /// One line on what it shows.
    pub story: &'static str,
    /// A share group (docs/model.md §11) rather than a consumer group (§10).
    pub share: bool,
    /// The file's JSON text.
    pub json: &'static str,
}

/// A preset's file and story in the page's wasm (`embed`: the defaults, G1, and the tours'
/// steps, which a link or the tour opens at once) or fetched on the first other preset
/// chosen (`fetch`: `presets.json`, [`all_json`]).
macro_rules! carried {
    (embed, $text:expr) => {
        $text
    };
    (fetch, $text:expr) => {
        fetched_text!($text)
    };
}

macro_rules! presets {
    ($($how:ident $file:literal, $share:literal, $title:literal, $story:literal;)+) => {
        /// Every `g*`, `group-*`, `s11-*` and `share-*` file of `scenarios/`, in name order
        /// (so the first is reference G1, the page's defaults).
        pub const PRESETS: &[Preset] = &[$(Preset {
            title: $title,
            story: carried!($how, $story),
            share: $share,
            // As build.rs writes it: no whitespace, no description (the page words each
            // preset's story itself).
            json: carried!($how, include_str!(concat!(env!("OUT_DIR"), "/scenarios/", $file, ".json"))),
        },)+];

        /// Each preset's file name in `scenarios/`, without `.json`, in [`PRESETS`]' order (for
        /// tests, and for the tour's steps at compile time: the page never reads them).
        pub const FILES: &[&str] = &[$($file,)+];
    };
}

/// The index of the preset of file `name`, at compile time (a tour step naming no preset does
/// not build).
const fn index_of(name: &str) -> usize {
    let mut i = 0;
    while i < FILES.len() {
        let (a, b) = (FILES[i].as_bytes(), name.as_bytes());
        let mut same = a.len() == b.len();
        let mut k = 0;
        while same && k < a.len() {
            same = a[k] == b[k];
            k += 1;
        }
        if same {
            return i;
        }
        i += 1;
    }
    panic!("a tour step names no preset")
}

presets! {
    embed "g1-crash-waits-out-the-session", false, "G1: a member crashes and its partition waits out the session",
        "consumer-2 of two is killed at 8.2 s: nothing tells the coordinator, so orders-1 waits for session.timeout.ms, then consumer-1 repeats its 15 uncommitted records.";
    fetch "g2-shutdown-abrupt", false, "G2: a shutdown that calls close() at once",
        "close() at 8.2 s commits the position 45 with only 40 records finished: orders-1 loses 40–44.";
    fetch "g2-shutdown-with-wakeup", false, "G2: a graceful shutdown (wakeup(), then close())",
        "consumer-2 finishes its batch, commits 45 and leaves; consumer-1 takes orders-1 after a 5 s stall: nothing lost or repeated.";
    fetch "g3-dynamic-member-restarts", false, "G3: a member restarts without a static id",
        "The restart is two rebalances: one when consumer-2 leaves, one when it joins again as a new member.";
    embed "g3-static-member-restarts", false, "G3: a static member restarts (group.instance.id)",
        "Back within session.timeout.ms, consumer-2 gets orders-1 back with no rebalance: a 10 s stall, nothing lost or repeated.";
    fetch "g4-pool-member-crashes", false, "G4: a member with a worker pool crashes",
        "Auto-commit stored 35 while the pool had finished only 25: orders-1 loses 25–34 when consumer-1 takes it over.";
    fetch "group-deploy-cooperative", false, "A rolling deploy with the cooperative sticky assignor",
        "Members keep what they hold through each rebalance and only moving partitions stop, but each move takes two rounds: 9 rebalances.";
    embed "group-deploy-eager", false, "A rolling deploy with the range assignor (eager)",
        "Every restart is two eager rebalances that stop all six partitions: 6 rebalances.";
    fetch "group-deploy-kip848", false, "A rolling deploy under the consumer protocol (KIP-848)",
        "No barrier: partitions move at heartbeats, one member at a time, and the others keep processing.";
    fetch "group-deploy-static", false, "A rolling deploy with static membership",
        "Each member is back within session.timeout.ms and gets its own partitions again: no rebalance at all.";
    fetch "group-franz-go-revocation-repeats-the-poll-in-hand", false, "franz-go: a revocation commits where the poll in hand started",
        "Losing orders-1 mid-poll, consumer-1 commits 5, where the poll started, and finishes 5–9 anyway: consumer-2 runs all five again.";
    fetch "group-kafka-go-kill", false, "kafka-go: a member is killed, the other rejoins at its heartbeat",
        "consumer-1's heartbeat ends its generation mid-message; it retakes orders-0 from the committed offset before that message's commit: it runs twice.";
    fetch "group-keda-scale-out-and-in", false, "An autoscaler scales a group from 8 to 32 members and back",
        "24 members join at 30 s: each of the 8 holders revokes the partition it was reading three polls after its last commit, so its new owner repeats 300 records (2,400 in all); at the scale-in the freed partitions wait up to 68 s.";
    fetch "group-kill-9", false, "kill -9 of one member of three",
        "Its two partitions wait out session.timeout.ms (45 s), then the new owners repeat the 15 records it had not committed.";
    fetch "group-kip848-4-2-0-poll-returns-a-revoked-partition", false, "kafka-clients 4.2.0: a poll returns a partition being revoked",
        "Before KAFKA-20332's fix consumer-2's poll returns five records of orders-1 as it starts giving it up, and commits them before processing: killed mid-batch, 3 are lost.";
    fetch "group-kip848-auto-commit-retries-stale-epoch", false, "KIP-848 before Kafka 4.3: auto-commit retries a stale epoch",
        "consumer-1's commit before giving orders-1 up is refused when its epoch moves on; kafka-clients retries it with the new epoch and the records it is still processing: a crash at 17 s loses 3.";
    fetch "group-kip848-stale-member-epoch", false, "KIP-848 before Kafka 4.3: a stale member epoch",
        "A commitSync in flight when consumer-1's epoch moves on: a 4.0–4.2 broker refuses it, so a crash at 10.5 s repeats 7 records, not 2.";
    fetch "group-pool-commits-a-revoked-partition", false, "A pool's commits keep a partition it lost",
        "consumer-1 never prunes its offsets map: after orders-1 moved, each of its commits sets orders-1 back to 25, and when consumer-2 crashes orders-1 restarts there: 17 repeated, not 2.";
    fetch "group-pool-drain-budget-runs-out", false, "A drain on revoke runs out of time",
        "onPartitionsRevoked waits at most 20 s for the pool: five of the ten records in flight finish in time, the other five are repeated by the new owner.";
    fetch "group-pool-loses-at-shutdown", false, "A worker pool loses records at a rolling deploy",
        "close() drops the batches still queued in the pool while auto-commit has committed the position ahead of them: 20 lost.";
    fetch "group-posthog-pool-rolling-deploy", false, "PostHog's shape: a rolling deploy of 16 members on 1,024 partitions with background batches",
        "Members that give partitions up keep running the revoked batch they hold in flight and librdkafka refuses its stored offsets, so the new owner repeats it: 14 partitions repeat 500 records each.";
    fetch "group-rdk-kip848-join-moves-a-partition", false, "librdkafka on the consumer protocol (KIP-848): a join moves a partition",
        "No commit before the reconciliation: consumer-1's next poll revokes orders-1 and commits what it handed out, 5; consumer-2 starts there and repeats nothing.";
    fetch "group-rdk-stale-store-replays", false, "librdkafka before 1.9: a stale stored offset after a reassignment",
        "consumer-1's pool stores for orders-1 after losing it; when it comes back, assign() keeps that offset and the timer commits it: 50 back to 30, and 30–49 run again (confluent-kafka-dotnet#1672).";
    fetch "group-rdk-store-refused-after-revoke", false, "librdkafka 2.x: stores after a revocation are refused",
        "consumer-1's pool stores orders-1's records after losing it; librdkafka refuses each, so orders-1 stays committed at 20.";
    fetch "group-rdk-store-reset-on-assign", false, "librdkafka 2.x: the stored offset is reset on assign",
        "The same rebalances: stores for a partition no longer held are refused and assign() resets the store, so orders-1 stays committed at 50.";
    fetch "group-scale-out", false, "Scale out: a fourth member joins three",
        "With the eager range assignor every member stops for the rebalance; the new member takes orders-5 once all have joined.";
    fetch "group-scale-rolling-deploy-128-members", false, "A rolling deploy of 128 members on 1,024 partitions (eager)",
        "127 eager rebalances in 10 minutes stop every partition each time; nothing is lost or repeated, but 889 partitions are not polled again before the end.";
    fetch "group-slow-batch-holds-the-rebalance", false, "One slow batch holds up a rebalance",
        "With 100 records a poll, members join only when their 20 s batch is done, and the new member waits until then.";
    fetch "group-spring-batch-retry-during-a-rebalance", false, "Spring: a batch retry goes on after a rebalance took its partition",
        "consumer-1's error handler retries orders-1's failing batch through the rebalance that moves orders-1 to consumer-2: both run its first records ten times, and consumer-1's commit of 15 lands while consumer-2 retries from 10.";
    fetch "s11-s1-implicit-window-is-one-batch", true, "S1: one share consumer, implicit acknowledgement",
        "Records 0–4 are done at 1 s and accepted at 1.005 s: a crash just before repeats those 5.";
    embed "s11-s2-release-until-archived", true, "S2: a failing record released until it is archived",
        "Record 0 throws every time and is released: delivered 5 times, then archived — lost.";
    embed "s11-s3-three-members-one-partition", true, "S3: three share consumers on one partition",
        "Each acquires its own 5 records: 180 processed by 12 s, 60 each, where a consumer group would leave two idle.";
    fetch "s11-s5-batch-optimized-whole-producer-batches", true, "S5: batch_optimized takes whole producer batches",
        "Batches of 3 records: the poll that reaches offset 4 takes its batch 3–5 too, 6 records a poll where record_limit takes 5.";
    fetch "share-commit-sync-record", true, "Share group: commitSync() after each record",
        "Every acceptance lands before the next record starts: a crash repeats at most one record, for a round trip per record.";
    embed "share-crash-releases-at-once", true, "Share group: a member is killed",
        "Its share session closes and its 5 records are released at once to consumer-2: nothing waits for a lock.";
    fetch "share-explicit-reject", true, "Share group: a record is rejected",
        "Record 12 throws and is rejected: it ends at once and is never delivered again — lost.";
    fetch "share-fetch-max-bytes-bounds-a-poll", true, "Share group: fetch.max.bytes bounds a poll",
        "300 bytes hold four 70-byte records: each poll takes 4 where max.poll.records is 5, so a crash repeats at most 4.";
    embed "share-hang-waits-for-the-lock", true, "Share group: a member hangs past its locks",
        "Its 5 records stay locked until group.share.record.lock.duration.ms runs out, then go to consumer-2; when it wakes, its acknowledgements are refused.";
    fetch "share-implicit-close-redelivers", true, "Share group: a graceful close delivers a batch again",
        "close() releases the last batch without accepting it: 5 records already processed are delivered again.";
    fetch "share-renew-keeps-the-lock", true, "Share group: RENEW keeps a slow record's lock",
        "A 40 s record outlives its 30 s lock; renewing it every 15 s keeps it with consumer-1, where without renewals consumer-2 takes it and both process it.";
}

/// One step of a tour: the preset it loads (its index), what it says, and the elements
/// it names (ids: `lanes`, `strip`, the readouts' headings), each of which sits on the
/// projector screen. `page_only` names what sits below that screen (the comparison table,
/// the settings): said on the page, left out in projector mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TourStep {
    /// The preset's index in [`PRESETS`] (from its file name, at compile time).
    pub preset: usize,
    /// What to look at, in one or two sentences.
    pub caption: &'static str,
    /// A sentence more on the page (not on the projector screen); empty for none.
    pub page_only: &'static str,
    /// The ids of the elements `caption` names.
    pub names: &'static [&'static str],
}

const fn step(
    file: &'static str,
    caption: &'static str,
    page_only: &'static str,
    names: &'static [&'static str],
) -> TourStep {
    let preset = index_of(file);
    // The tour opens its presets at once: their files must be in the page (`embed`).
    assert!(!PRESETS[preset].json.is_empty(), "a tour step's preset is fetched: mark it embed");
    TourStep { preset, caption, page_only, names }
}

impl TourStep {
    /// What the step says: on the projector screen without [`TourStep::page_only`].
    pub fn text(&self, projector: bool) -> String {
        match (projector, self.page_only) {
            (true, _) | (_, "") => self.caption.to_string(),
            (false, more) => format!("{} {more}", self.caption),
        }
    }
}

/// The group page's short guided tour, taken from a consumer group: each step loads a preset
/// and says what to look at, in one or two sentences.
pub const TOUR: &[TourStep] = &[
    step("g1-crash-waits-out-the-session", "consumer-2 is killed at 8.2 s. Nothing tells the coordinator, so orders-1 has no owner until session.timeout.ms (45 s) runs out; then consumer-1 takes it from the committed offset, so the 15 records consumer-2 had not committed will run twice. It gets to them only after the chunk of orders-0 it fetched (1024 records), past the end of this chart. Drag the crash along the top row and watch the totals.", "", &["lanes", "g-ro-title"]),
    step("g3-static-member-restarts", "With group.instance.id the restarted member is the same member: back within session.timeout.ms it gets orders-1 again with no rebalance, and nothing is repeated.", "", &["lanes"]),
    step("group-deploy-eager", "A rolling deploy with an eager assignor: every restart stops all partitions (the hatched member lanes are rebalances).", "Switch partition.assignment.strategy to cooperative-sticky, or the client to the consumer protocol (KIP-848), and compare the rebalances.", &["lanes"]),
    step("share-crash-releases-at-once", "The same kind of crash in a share group: the broker releases the dead member's records at once and another member acquires them; no partition waits for a session timeout. The strip shows each record's state.", "The table below compares the two kinds of group.", &["strip"]),
];

/// The tour taken from a share group (docs/model.md §11): the top lanes and the record strip
/// of a share group, step by step, never leaving it.
pub const SHARE_TOUR: &[TourStep] = &[
    step("share-crash-releases-at-once", "In a share group the members take records, not partitions: the lanes show each partition's start offset (solid) and the end of its window of records in flight (dashed), the strip below a row per record in the colour of the member holding it. consumer-1 is killed: the broker releases its records at once (grey) to consumer-2. Drag the red line to crash the whole group at another instant.", "", &["lanes", "strip"]),
    step("share-hang-waits-for-the-lock", "A member hangs: the records it acquired stay locked (outlined in the strip) until group.share.record.lock.duration.ms runs out; only then do they turn grey and go to another member. When the hung member wakes, its acknowledgements are refused.", "", &["strip"]),
    step("s11-s2-release-until-archived", "A record that throws is released and delivered again: each stretch of its row is one delivery. At group.share.delivery.count.limit the broker archives it (hatched): it is never processed, so it counts as lost.", "", &["strip"]),
    step("s11-s3-three-members-one-partition", "Three share consumers on one partition: each acquires its own records, so all three work where a consumer group would leave two idle.", "The table below runs the same workload as both kinds of group.", &["lanes"]),
];

/// The tour for the kind of group shown: [`SHARE_TOUR`] from a share group, else [`TOUR`].
pub fn tour(share: bool) -> &'static [TourStep] {
    if share {
        SHARE_TOUR
    } else {
        TOUR
    }
}

/// The preset (index into [`PRESETS`]) that step `n` (from 0) of the tour [`tour`]`(share)`
/// loads; `None` past the tour's end.
pub fn tour_preset(share: bool, n: usize) -> Option<usize> {
    tour(share).get(n).map(|step| step.preset)
}

std::thread_local! {
    /// The files fetched by the page ([`install`]), in [`PRESETS`]' order.
    static FETCHED: Fetched = const { Fetched::new() };
}

/// Whether preset `index`'s file is at hand: in the page, or fetched and installed.
pub fn available(index: usize) -> bool {
    PRESETS.get(index).is_some_and(|p| !p.json.is_empty()) || FETCHED.with(Fetched::is_installed)
}

/// Takes the text of `presets.json` ([`all_json`]); whether it read as one file per preset.
pub fn install(text: &str) -> bool {
    FETCHED.with(|f| f.install(text, PRESETS.len()))
}

/// `presets.json`: every preset's file with its story (as `"story"`), in [`PRESETS`]' order,
/// one JSON array (written beside the group page by the first-frame binary; fetched on the
/// first preset chosen that the page does not carry).
pub fn all_json() -> String {
    let files: Vec<String> = PRESETS
        .iter()
        .map(|p| {
            let mut file: Value = serde_json::from_str(p.json).unwrap_or_default();
            file["story"] = p.story.into();
            file.to_string()
        })
        .collect();
    json_array(files.iter().map(String::as_str))
}

fn file(index: usize) -> Option<Value> {
    let json = PRESETS.get(index)?.json;
    FETCHED.with(|f| f.file(index, json))
}

/// What the page says about preset `index`: its story, carried or fetched.
pub fn story(index: usize) -> String {
    match PRESETS.get(index) {
        Some(p) if !p.story.is_empty() => p.story.to_string(),
        Some(_) => file(index).and_then(|v| v.get("story")?.as_str().map(str::to_string)).unwrap_or_default(),
        None => String::new(),
    }
}

/// The preset's scenario and its own crash instant, if the file reads.
pub fn input(index: usize) -> Option<Input> {
    Input::from_value(file(index)?.get("scenario")?).ok()
}

/// The preset's index by file name (`g1-crash-waits-out-the-session`).
pub fn by_name(name: &str) -> Option<usize> {
    FILES.iter().position(|&f| f == name)
}

/// The expected values: (JSON pointer into the result, value).
pub fn expected(index: usize) -> Vec<(String, Value)> {
    match file(index).and_then(|v| v.get("expect").cloned()) {
        Some(Value::Object(map)) => map.into_iter().collect(),
        _ => Vec::new(),
    }
}

/// The parts of the result JSON (`offset-window run`, docs/model.md §6) that the group page
/// shows, built from `run` without re-running anything: the `group` report (with `profile`,
/// the sweep of the first event, when the page has it), the `share` report at `crash_at_us`,
/// the one-partition reading `at_crash`, and the loop statistics.
pub fn result_value(run: &Run, crash_at_us: u64, profile: Option<&GroupProfile>) -> Value {
    result_with(run, crash_at_us, profile, true)
}

/// [`result_value`], with the group's handovers or, when `handovers` is false, an empty list
/// in their place (a big group's 131,064 handovers cost the page a second to write out, and
/// most presets' expectations name none).
fn result_with(run: &Run, crash_at_us: u64, profile: Option<&GroupProfile>, handovers: bool) -> Value {
    let mut o = Object::default();
    if let Some(report) = &run.group {
        o.value("group", group_value(&GroupSummary::new(report, profile), handovers));
    }
    if run.scenario.share_group() {
        o.value("share", share_value(&ShareSummary::new(run, crash_at_us)));
    }
    if run.group.is_none() && run.partitions.len() == 1 {
        let CrashState { crash_at_us: _, position, durable, committed, lost, duplicated, reread } =
            run.state_at(crash_at_us);
        let mut at = Object::default();
        at.some("position", position);
        at.int("durable", durable);
        at.some("committed", committed);
        at.int("lost", lost);
        at.int("duplicated", duplicated);
        at.int("reread", reread);
        o.value("at_crash", at.done());
    }
    o.float("blocked_on_commits", run.blocked_on_commits());
    o.int("commits_landed", run.commits_landed);
    o.int("polls", run.polls);
    o.done()
}

// The summaries as JSON values, the same values their derived `Serialize` writes (a test
// below compares them on every preset), built by hand: `serde_json::to_value` of them put
// serde's per-field code for each type in the page for this one use. Each destructures its
// type whole, so a new field fails to compile here until it is written.

/// A JSON object written field by field, each kind of value by one function (not inlined:
/// a call per field, as serde's derived code makes).
#[derive(Default)]
struct Object(serde_json::Map<String, Value>);

impl Object {
    fn done(self) -> Value {
        Value::Object(self.0)
    }
    #[inline(never)]
    fn value(&mut self, key: &str, value: Value) {
        self.0.insert(key.to_string(), value);
    }
    #[inline(never)]
    fn int(&mut self, key: &str, n: u64) {
        self.value(key, n.into());
    }
    #[inline(never)]
    fn float(&mut self, key: &str, x: f64) {
        self.value(key, x.into());
    }
    #[inline(never)]
    fn some(&mut self, key: &str, n: Option<u64>) {
        self.value(key, n.map_or(Value::Null, Value::from));
    }
    #[inline(never)]
    fn some_float(&mut self, key: &str, x: Option<f64>) {
        self.value(key, x.map_or(Value::Null, Value::from));
    }
}

/// A JSON array of `items`, each written by `f`.
fn array<T>(items: &[T], f: impl Fn(&T) -> Value) -> Value {
    Value::Array(items.iter().map(f).collect())
}

fn group_value(summary: &GroupSummary, with_handovers: bool) -> Value {
    let GroupSummary { lost, duplicated, rebalances, partitions, members, handovers, first_event } = summary;
    let intervals = |list: &[[f64; 2]]| array(list, |&[from, to]| Value::Array(vec![from.into(), to.into()]));
    let mut o = Object::default();
    o.int("lost", *lost);
    o.int("duplicated", *duplicated);
    o.int("rebalances", u64::from(*rebalances));
    let partitions = array(partitions, |p| {
        let PartitionSummary { partition, lost, duplicated, stalled_ms } = *p;
        let mut o = Object::default();
        o.int("partition", u64::from(partition));
        o.int("lost", lost);
        o.int("duplicated", duplicated);
        o.float("stalled_ms", stalled_ms);
        o.done()
    });
    o.value("partitions", partitions);
    let members = array(members, |m| {
        let MemberSummary { member, down, hung, rebalancing, blocked_on_commits } = m;
        let mut o = Object::default();
        o.int("member", u64::from(*member));
        o.value("down", intervals(down));
        o.value("hung", intervals(hung));
        o.value("rebalancing", intervals(rebalancing));
        o.float("blocked_on_commits", *blocked_on_commits);
        o.done()
    });
    o.value("members", members);
    let handovers = array(if with_handovers { handovers } else { &[] }, |h| {
        let HandoverSummary { at_ms, partition, from, to, committed, lost, duplicated } = *h;
        let mut o = Object::default();
        o.float("at_ms", at_ms);
        o.int("partition", u64::from(partition));
        o.some("from", from.map(u64::from));
        o.some("to", to.map(u64::from));
        o.some("committed", committed);
        o.int("lost", lost);
        o.int("duplicated", duplicated);
        o.done()
    });
    o.value("handovers", handovers);
    if let Some(first) = first_event {
        let FirstEventSummary {
            event,
            instants,
            candidates,
            thinned,
            worst_lost,
            worst_lost_at_ms,
            worst_duplicated,
            worst_duplicated_at_ms,
        } = *first;
        let mut f = Object::default();
        f.int("event", event as u64);
        f.int("instants", instants as u64);
        f.int("candidates", candidates as u64);
        f.value("thinned", thinned.into());
        f.int("worst_lost", worst_lost);
        f.some_float("worst_lost_at_ms", worst_lost_at_ms);
        f.int("worst_duplicated", worst_duplicated);
        f.some_float("worst_duplicated_at_ms", worst_duplicated_at_ms);
        o.value("first_event", f.done());
    }
    o.done()
}

fn share_value(summary: &ShareSummary) -> Value {
    let ShareSummary {
        at_crash,
        worst_lost,
        worst_lost_at_ms,
        worst_duplicated,
        worst_duplicated_at_ms,
        deliveries,
        redeliveries,
        processed,
        processed_by_member,
        accepted,
        released,
        rejected,
        renewed,
        locks_expired,
        archived,
    } = summary;
    let ShareCrashState { lost, duplicated, in_flight } = *at_crash;
    let mut at = Object::default();
    at.int("lost", lost);
    at.int("duplicated", duplicated);
    at.int("in_flight", in_flight);
    let mut o = Object::default();
    o.value("at_crash", at.done());
    o.int("worst_lost", *worst_lost);
    o.some_float("worst_lost_at_ms", *worst_lost_at_ms);
    o.int("worst_duplicated", *worst_duplicated);
    o.some_float("worst_duplicated_at_ms", *worst_duplicated_at_ms);
    o.int("deliveries", *deliveries);
    o.int("redeliveries", *redeliveries);
    o.int("processed", *processed);
    o.value("processed_by_member", array(processed_by_member, |&n| n.into()));
    o.int("accepted", *accepted);
    o.int("released", *released);
    o.int("rejected", *rejected);
    o.int("renewed", *renewed);
    o.int("locks_expired", *locks_expired);
    o.int("archived", *archived);
    o.done()
}

/// One expectation checked against a run (the consumer page's type).
pub use crate::kit::presets::Check;

/// The file's expectations for preset `index`, checked against `run` read at `crash_at_us`,
/// each said as a sentence.
pub fn checks(index: usize, run: &Run, crash_at_us: u64) -> Vec<Check> {
    let expected = expected(index);
    let handovers = expected.iter().any(|(pointer, _)| pointer.starts_with("/group/handovers"));
    let result = result_with(run, crash_at_us, None, handovers);
    expected
        .into_iter()
        .map(|(pointer, want)| {
            let got = result.pointer(&pointer).cloned().unwrap_or_default();
            let ok = crate::kit::presets::same_value(&got, &want);
            let said = sentence(&pointer, &got, run, crash_at_us);
            let sentence = if ok {
                format!("{said}, as the file expects.")
            } else {
                format!("{said}; the file expects {}.", json_text(&want))
            };
            Check { pointer, got: json_text(&got), ok, sentence }
        })
        .collect()
}

/// "the first", "the second", … for small counts.
fn nth(i: usize) -> String {
    ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"]
        .get(i)
        .map_or(format!("number {}", i + 1), |s| s.to_string())
}

/// What one result value means, with the value, in words.
fn sentence(pointer: &str, got: &Value, run: &Run, crash_at_us: u64) -> String {
    let n = match got {
        Value::Null => "none".to_string(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{} {}", member_name(i as u16 + 1), json_text(v)))
            .collect::<Vec<_>>()
            .join(", "),
        Value::Number(x) => {
            let text = x.to_string();
            match text.contains('.') && !text.contains(['e', 'E']) {
                true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
                false => text,
            }
        }
        other => json_text(other),
    };
    let crash = seconds_text(crash_at_us);
    let parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    let index = |s: &str| s.parse::<usize>().unwrap_or(0);
    match parts.as_slice() {
        ["group", "partitions", p, field] => {
            let p = partition_name(index(p) as u32);
            match *field {
                "lost" => format!("Records {p} loses: {n}"),
                "duplicated" => format!("Records {p} processes twice: {n}"),
                "stalled_ms" => format!("Time nobody processes {p}: {n} ms"),
                other => format!("{p}, {other}: {n}"),
            }
        }
        ["group", "lost"] => format!("Records lost over all partitions: {n}"),
        ["group", "duplicated"] => format!("Records processed twice over all partitions: {n}"),
        ["group", "rebalances"] => format!("Rebalances within the horizon: {n}"),
        ["group", "handovers", h, field] => {
            let which = format!("The {} handover", nth(index(h)));
            match *field {
                "at_ms" => format!("{which} happens at {n} ms"),
                "committed" => format!("{which} starts from the committed offset {n}"),
                "lost" => format!("{which} loses {n} {}", records_word(&n)),
                "duplicated" => format!("{which} repeats {n} {}", records_word(&n)),
                other => format!("{which}, {other}: {n}"),
            }
        }
        ["group", "members", m, what, k, end] => {
            let who = member_name(index(m) as u16 + 1);
            let what = match *what {
                "rebalancing" => "wait in a rebalance",
                "down" => "time down",
                "hung" => "hang",
                other => other,
            };
            let edge = if *end == "0" { "starts" } else { "ends" };
            format!("{who}'s {} {what} {edge} at {n} ms", nth(index(k)))
        }
        ["share", "at_crash", field] | ["at_crash", field] => {
            let what = match *field {
                "lost" => "loses",
                "duplicated" => "delivers again, already processed,",
                "in_flight" => "leaves in flight",
                other => other,
            };
            format!("A crash of the whole group at {crash} s {what}: {n}")
        }
        ["share", "worst_duplicated"] => {
            format!("The worst crash delivers again {n} {} already processed", records_word(&n))
        }
        ["share", "worst_duplicated_at_ms"] => format!("It first does so at {n} ms"),
        ["share", "worst_lost"] => format!("The worst crash loses {n} {}", records_word(&n)),
        ["share", "worst_lost_at_ms"] => format!("It first loses them at {n} ms"),
        ["share", "processed_by_member"] => format!("Records processed by each member: {n}"),
        ["share", field] => {
            let what = match *field {
                "processed" => "Records processed within the horizon",
                "deliveries" => "Deliveries",
                "redeliveries" => "Records delivered again",
                "accepted" => "Acceptances that landed",
                "released" => "Releases that landed",
                "rejected" => "Rejections that landed",
                "renewed" => "Lock renewals that landed",
                "locks_expired" => "Acquisition locks that ran out",
                "archived" => "Records archived at the delivery limit",
                other => other,
            };
            format!("{what}: {n}")
        }
        ["blocked_on_commits"] => {
            format!("The loops wait for commits {} % of the time", fixed(run.blocked_on_commits() * 100.0, 2))
        }
        _ => format!("{}: {n}", pointer.trim_start_matches('/').replace('/', " ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use offset_window_sim::simulate;
    use offset_window_sim::sweep::first_event_profile;

    /// The result value through the summaries' derived `Serialize` (`offset-window run`'s).
    fn derived(run: &Run, crash_at_us: u64, profile: Option<&GroupProfile>) -> Value {
        let mut map = serde_json::Map::new();
        if let Some(report) = &run.group {
            map.insert("group".into(), serde_json::to_value(GroupSummary::new(report, profile)).unwrap());
        }
        if run.scenario.share_group() {
            map.insert("share".into(), serde_json::to_value(ShareSummary::new(run, crash_at_us)).unwrap());
        }
        if run.group.is_none() && run.partitions.len() == 1 {
            map.insert("at_crash".into(), serde_json::to_value(run.state_at(crash_at_us)).unwrap());
        }
        map.insert("blocked_on_commits".into(), serde_json::to_value(run.blocked_on_commits()).unwrap());
        map.insert("commits_landed".into(), run.commits_landed.into());
        map.insert("polls".into(), run.polls.into());
        Value::Object(map)
    }

    #[test]
    fn the_result_value_is_the_summaries_serialized() {
        for (i, file) in FILES.iter().enumerate() {
            let read = input(i).unwrap();
            let run = simulate(&read.scenario).unwrap();
            // A big group's result (S-A: 131,064 handovers) and the sweep of its first event take
            // seconds in a debug build and write no other fields than a small one's: read once.
            let big = read.scenario.partitions as usize > crate::group::zoom::OVERVIEW_PARTITIONS;
            let profile = if big { None } else { first_event_profile(&read.scenario).unwrap() };
            let instants = if big {
                vec![read.crash_at_us]
            } else {
                vec![read.crash_at_us, 0, run.scenario.horizon_us / 3]
            };
            for crash_at_us in instants {
                for profile in [None, profile.as_ref()] {
                    let (ours, theirs) =
                        (result_value(&run, crash_at_us, profile), derived(&run, crash_at_us, profile));
                    assert_eq!(json_text(&ours), json_text(&theirs), "{file} at {crash_at_us}");
                    assert_eq!(ours, theirs, "{file} at {crash_at_us}");
                }
            }
        }
    }

    #[test]
    fn every_group_and_share_scenario_file_is_a_preset_with_a_title() {
        let ours = |name: &str| {
            (name.starts_with('g') && name[1..].starts_with(|c: char| c.is_ascii_digit()))
                || name.starts_with("group-")
                || name.starts_with("s11-")
                || name.starts_with("share-")
        };
        let mut files: Vec<String> =
            std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios"))
                .unwrap()
                .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".json").map(str::to_string))
                .filter(|name| ours(name))
                .collect();
        files.sort();
        assert_eq!(FILES.len(), PRESETS.len());
        assert_eq!(FILES, files);
        for (p, file) in PRESETS.iter().zip(FILES) {
            assert!(!p.title.is_empty() && !p.story.is_empty(), "{file}");
            let i = by_name(file).unwrap();
            let read = input(i).unwrap_or_else(|| panic!("{file} does not read"));
            assert_eq!(read.scenario.share_group(), p.share, "{file}");
        }
        assert_eq!(FILES[0], "g1-crash-waits-out-the-session", "the page's defaults");
    }

    #[test]
    fn every_preset_meets_its_expectations_said_in_sentences() {
        for (i, file) in FILES.iter().enumerate() {
            let read = input(i).unwrap();
            let run = simulate(&read.scenario).unwrap();
            let checks = checks(i, &run, read.crash_at_us);
            assert!(!checks.is_empty(), "{file}");
            // The page's result agrees with `offset-window run` on every value the file names.
            let full = serde_json::to_value(run.summary_at(read.crash_at_us)).unwrap();
            for c in &checks {
                assert!(c.ok, "{file}: {}", c.sentence);
                assert!(c.sentence.ends_with("as the file expects."), "{}", c.sentence);
                assert!(!c.sentence.contains("_ms") && !c.sentence.contains("at_crash"), "{}", c.sentence);
                assert_eq!(full.pointer(&c.pointer).unwrap().to_string(), c.got, "{file} {}", c.pointer);
            }
        }
    }

    #[test]
    fn the_sentences_say_g1_and_s3_in_words() {
        let i = by_name("g1-crash-waits-out-the-session").unwrap();
        let read = input(i).unwrap();
        let run = simulate(&read.scenario).unwrap();
        let said: Vec<String> = checks(i, &run, read.crash_at_us).into_iter().map(|c| c.sentence).collect();
        assert!(
            said.contains(&"Records orders-1 processes twice: 15, as the file expects.".to_string()),
            "{said:?}"
        );
        assert!(
            said.contains(&"Time nobody processes orders-1: 51800 ms, as the file expects.".to_string()),
            "{said:?}"
        );
        let i = by_name("s11-s3-three-members-one-partition").unwrap();
        let read = input(i).unwrap();
        let run = simulate(&read.scenario).unwrap();
        let said: Vec<String> = checks(i, &run, read.crash_at_us).into_iter().map(|c| c.sentence).collect();
        assert!(said.contains(
            &"Records processed by each member: consumer-1 60, consumer-2 60, consumer-3 60, as the file expects."
                .to_string()
        ));
    }

    #[test]
    fn every_tour_step_is_a_preset() {
        for step in TOUR.iter().chain(SHARE_TOUR) {
            assert!(step.preset < PRESETS.len(), "{}", step.caption);
            assert!(!step.caption.contains('_') && !step.page_only.contains('_'), "{}", step.caption);
            // What the projector screen shows names nothing below it.
            assert!(
                !step.caption.contains("below") || step.caption.contains("the strip below"),
                "{}",
                step.caption
            );
            assert!(!step.names.is_empty(), "{}", FILES[step.preset]);
        }
        // The share tour stays in a share group and speaks of its strip, not of committed offsets.
        for step in SHARE_TOUR {
            assert!(PRESETS[step.preset].share, "{}", FILES[step.preset]);
            assert!(!step.caption.contains("committed offset"), "{}", step.caption);
        }
        assert!(SHARE_TOUR[0].caption.contains("strip"));
        assert_eq!(TOUR[3].text(false), format!("{} {}", TOUR[3].caption, TOUR[3].page_only));
        assert_eq!(TOUR[3].text(true), TOUR[3].caption);
        assert_eq!(FILES[TOUR[0].preset], "g1-crash-waits-out-the-session");
        assert_eq!(FILES[SHARE_TOUR[3].preset], "s11-s3-three-members-one-partition");
        assert_eq!(tour(true), SHARE_TOUR);
        assert_eq!(tour(false), TOUR);
    }
}
