//! `offset-window`: the command-line runner of the offset-commit simulator.
//!
//! `offset-window run [FILE|-]` reads a scenario (JSON, docs/model.md §6; `{}` = all defaults),
//! simulates it with `offset_window_sim` and prints the result JSON on stdout (exit 0), or
//! the reason the scenario was refused on stderr (exit 2). `--format table` prints the same
//! result for a human.
//!
//! `offset-window produce [FILE|-]` does the same for the producer side (model.md §9): a
//! producer scenario in, the partition log, batches, leader memory and counters out.
//!
//! `offset-window transactions [FILE|-]` does the same for transactions in the log (model.md
//! §13): producers and readers in, the log with its markers, the last stable offset over time,
//! the coordinator's timeout aborts and each reader's handed records, committed offset and lag out.
//!
//! `offset-window pipeline [FILE|-]` does the same for exactly-once pipelines (model.md §14): an
//! input topic, a consume-transform-produce service or a Kafka Streams application, crashes and
//! hangs in; the output log, the input's committed offsets and stalls, and per downstream reader
//! how many times each input record's output was seen out.
//!
//! `offset-window check FILE… --max-lost N --max-duplicated N` judges bounds for a CI job
//! (exit 0 when they hold, 1 with a line per bound broken, 2 for refused input).

mod check;
mod imports;
mod link;
mod mcp;

use clap::{Parser, Subcommand, ValueEnum};
use offset_window_sim::compare::{
    compare_clients, compare_clients_left_out, compare_group, compare_group_left_out, compare_share,
    share_modes_left_out, Refused,
};
use offset_window_sim::keys::{millis_value, KeySpec};
use offset_window_sim::pipeline::{
    simulate_pipeline, PipelineRun, PipelineScenario, EVENT_FIELDS, PIPELINE_KEYS, PIPELINE_KEY_HELP,
    SERVICE_FIELDS,
};
use offset_window_sim::producer::{
    simulate_producer, ProduceRun, ProducerScenario, PRODUCER_KEYS, PRODUCER_KEY_HELP,
};
use offset_window_sim::report::GroupSummary;
use offset_window_sim::scenario::{
    format_millis, Client, Scenario, Strategy, CRASH_AT_HELP, CRASH_AT_KEY, DEFAULT_CRASH_AT_US, KEYS,
    KEY_HELP,
};
use offset_window_sim::share_report::ShareSummary;
use offset_window_sim::transactions::{
    simulate_transactions, FieldHelp, TxnRun, TxnScenario, PRODUCER_FIELDS, READER_FIELDS,
    SHARE_READER_FIELDS, TRANSACTION_FIELDS, TXN_KEYS, TXN_KEY_HELP,
};
use offset_window_sim::{simulate, summarize, Input, Summary};
use serde_json::Value;
use std::io::{Read, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "offset-window",
    version,
    about = "Simulate a Kafka consumer's offset commits on one partition and read off what a crash loses or repeats.",
    after_long_help = scenario_help()
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one scenario and print the result (model.md §6): the state at the crash instant, the
    /// worst crash instants, loop time blocked on commits, commit and poll rates.
    Run {
        /// Scenario JSON file (or a `scenarios/` file: its `scenario` object), or `-` for stdin.
        #[arg(default_value = "-")]
        file: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Run one scenario under each real client's commit behaviour (Java classic, KIP-848
    /// before and after KAFKA-18641, librdkafka with and without store_offsets, the manual
    /// strategies) and print lost / duplicated / re-read at its crash instant, one row each.
    /// A consumer group (several members or partitions, or group_events) runs instead under
    /// each protocol and assignor, with and without static membership, and each library
    /// modelled in a group.
    Compare {
        /// Scenario JSON file (or a `scenarios/` file: its `scenario` object), or `-` for stdin.
        #[arg(default_value = "-")]
        file: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Run one producer scenario (model.md §9) and print the result: the partition log, each
    /// batch's sends, the leader's memory of the last five batches per producer id, and the
    /// counters (records written twice, never written, out-of-order rejections, fenced).
    #[command(after_long_help = producer_help())]
    Produce {
        /// Producer scenario JSON file, or `-` for standard input.
        #[arg(default_value = "-")]
        file: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Run one transactions scenario (model.md §13) and print the result: the partition log with
    /// its commit and abort markers, the last stable offset over time, the coordinator's timeout
    /// aborts, and what each reader was handed, its position, committed offset, lag and stalls.
    #[command(after_long_help = transactions_help())]
    Transactions {
        /// Transactions scenario JSON file (or a `scenarios/txn-*` file: its `scenario` object),
        /// or `-` for standard input.
        #[arg(default_value = "-")]
        file: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Run one pipeline scenario (model.md §14) and print the result: the output log with its
    /// markers, each input partition's committed offset and stalls, the rebalances, and per
    /// downstream reader how many input records it saw once, twice, more or never.
    #[command(after_long_help = pipeline_help())]
    Pipeline {
        /// Pipeline scenario JSON file (or a `scenarios/eos-*` file: its `scenario` object), or
        /// `-` for standard input.
        #[arg(default_value = "-")]
        file: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Json)]
        format: Format,
    },
    /// Read a consumer's own configuration — Java client properties, Spring Boot
    /// application.yml / .properties, librdkafka (properties or a config dict's JSON), the
    /// settings of sarama, franz-go, kafka-go or KafkaJS as JSON, and the output of
    /// kafka-consumer-groups.sh --describe [--members --verbose] and kafka-topics.sh
    /// --describe — and print the scenario JSON, the page link and what became of every
    /// property (applied, irrelevant to commits, not modelled, not evaluated) with the
    /// client's own defaults for what the files leave out.
    Import {
        /// The files, read together as one consumer's.
        #[arg(required = true)]
        files: Vec<String>,
        #[command(flatten)]
        import: imports::ImportArgs,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ImportFormat::Text)]
        format: ImportFormat,
        /// Where the pages are hosted, for the link (default: OFFSET_WINDOW_PAGE_URL, else
        /// http://127.0.0.1:8080/).
        #[arg(long, value_name = "URL")]
        page_url: Option<String>,
    },
    /// Speak the Model Context Protocol over stdio: tools run, compare, import and check, and
    /// the scenario schema (generated from the key table) as the resource
    /// offset-window://scenario-schema.
    Mcp {
        /// Where the pages are hosted, for the links (default: OFFSET_WINDOW_PAGE_URL, else
        /// http://127.0.0.1:8080/).
        #[arg(long, value_name = "URL")]
        page_url: Option<String>,
    },
    /// Judge bounds on what a crash can lose or repeat, for a CI job: exit 0 when every bound
    /// holds, 1 with one line per bound broken (its worst instant and the page link that shows
    /// it), 2 for input it refuses.
    Check {
        /// Scenario JSON files (or `scenarios/` files), each judged on its own, and a
        /// consumer's configuration files (as `import` reads them), judged together; `-` for stdin.
        #[arg(required = true)]
        files: Vec<String>,
        #[command(flatten)]
        import: imports::ImportArgs,
        /// Most records a crash may lose.
        #[arg(long, value_name = "N")]
        max_lost: Option<u64>,
        /// Most records a crash may make the application process twice.
        #[arg(long, value_name = "N")]
        max_duplicated: Option<u64>,
        /// Over every crash instant of the horizon (a consumer group without events: of
        /// consumer-1, restarted 1 ms later; with events: its run as they are written), or over
        /// every instant of the first group event.
        #[arg(long, value_enum, default_value_t = check::Over::Crash)]
        over: check::Over,
        /// Also write a JUnit XML report to this file.
        #[arg(long, value_name = "FILE")]
        junit: Option<String>,
        /// Where the pages are hosted, for the links (default: OFFSET_WINDOW_PAGE_URL, else
        /// http://127.0.0.1:8080/, what scripts/serve.sh serves).
        #[arg(long, value_name = "URL")]
        page_url: Option<String>,
    },
}

/// What `import` prints.
#[derive(Clone, Copy, ValueEnum)]
enum ImportFormat {
    /// The scenario JSON, the page link, then the account of every property, for people.
    Text,
    /// One JSON object: scenario, link, client, account, defaults, notes.
    Json,
    /// The scenario JSON alone (for `| offset-window run -`).
    Scenario,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// The result JSON, one line.
    Json,
    /// An aligned table for people.
    Table,
    /// The result JSON plus `marks`: every poll, commit, record and group event of the run
    /// with its instant (`at_ms`) and member (from 1). For the conformance suite's random cases
    /// (tests/conformance README, "Random cases"), which place triggers away from them.
    #[value(hide = true)]
    Marks,
}

/// One key's `--help` entry: name, unit, default, meaning, allowed values.
fn key_help(key: &KeySpec, help: &str, default: Option<Value>) -> String {
    let unit = if key.unit.is_empty() { String::new() } else { format!(" ({})", key.unit) };
    let default = match default.unwrap_or(Value::Null) {
        Value::Null => "empty".to_string(),
        value => value.to_string(),
    };
    format!("  {}{unit}: default {default}\n      {help}; {}\n", key.name, key.range())
}

/// The `--help` text of every scenario key, generated from the core's key table.
fn scenario_help() -> String {
    let defaults = Scenario::default();
    let mut text = String::from("Scenario keys (JSON object; missing keys take the default):\n");
    for (key, help) in KEYS.iter().zip(KEY_HELP) {
        text += &key_help(key, help, defaults.get(key.name));
    }
    text += &key_help(&CRASH_AT_KEY, CRASH_AT_HELP, Some(millis_value(DEFAULT_CRASH_AT_US)));
    text += "\nStrategies:\n";
    for strategy in Strategy::ALL {
        text += &format!("  {:<32}{}\n", strategy.name(), strategy.label());
    }
    text += "\nClients:\n";
    for client in Client::ALL {
        text += &format!("  {:<32}{}\n", client.name(), client.note());
    }
    text += "\nExample:\n  echo '{\"strategy\":\"commit_sync_batch\"}' | offset-window run -\n";
    text
}

/// The `produce --help` text of every producer scenario key, from the core's key table.
fn producer_help() -> String {
    let defaults = ProducerScenario::default();
    let mut text = String::from("Producer scenario keys (JSON object; missing keys take the default):\n");
    for (key, help) in PRODUCER_KEYS.iter().zip(PRODUCER_KEY_HELP) {
        text += &key_help(key, help, defaults.get(key.name));
    }
    text += "\nFaults: request_lost and ack_lost take batch (from 1) and attempt (default 1);\n\
             leader_failover and producer_restart take at_ms; zombie and old_duplicate take at_ms and batch.\n";
    text +=
        "\nExample:\n  echo '{\"faults\":[{\"kind\":\"ack_lost\",\"batch\":1}]}' | offset-window produce -\n";
    text
}

/// One list item's field for `transactions --help`.
fn field_help(field: &FieldHelp) -> String {
    let unit = if field.spec.unit.is_empty() { String::new() } else { format!(" ({})", field.spec.unit) };
    format!(
        "    {}{unit}: default {}\n        {}; {}\n",
        field.spec.name,
        field.default,
        field.help,
        field.spec.range()
    )
}

/// The `transactions --help` text of every key and list field, from the core's key tables.
fn transactions_help() -> String {
    let defaults = TxnScenario::default().to_json_value();
    let mut text = String::from("Transactions scenario keys (JSON object; missing keys take the default):\n");
    for (key, help) in TXN_KEYS.iter().zip(TXN_KEY_HELP) {
        text += &match key.name {
            "producers" => format!("  {}: required\n      {help}; {}\n", key.name, key.range()),
            _ => key_help(key, help, defaults.get(key.name).cloned()),
        };
    }
    for (what, fields) in [
        ("A producer", PRODUCER_FIELDS),
        ("A transaction", TRANSACTION_FIELDS),
        ("A reader", READER_FIELDS),
        ("A share reader", SHARE_READER_FIELDS),
    ] {
        text += &format!("\n{what}'s fields:\n");
        for field in fields {
            text += &field_help(field);
        }
    }
    text += "\nExample:\n  echo '{\"producers\":[{\"transactional.id\":\"tx\",\"transactions\":[{\"begin_ms\":1000,\"records\":5,\"end\":\"commit\",\"end_ms\":1200}]}],\"readers\":[{\"isolation.level\":\"read_committed\"}]}' | offset-window transactions -\n";
    text
}

/// The `pipeline --help` text of every key and field, from the core's key tables.
fn pipeline_help() -> String {
    let defaults = PipelineScenario::from_json("{}").map(|s| s.to_json_value()).unwrap_or_default();
    let mut text = String::from("Pipeline scenario keys (JSON object; missing keys take the default):\n");
    for (key, help) in PIPELINE_KEYS.iter().zip(PIPELINE_KEY_HELP) {
        text += &key_help(key, help, defaults.get(key.name).cloned());
    }
    for (what, fields) in [("The service", SERVICE_FIELDS), ("An event", EVENT_FIELDS)] {
        text += &format!("\n{what}'s fields:\n");
        for field in fields {
            text += &field_help(field);
        }
    }
    text +=
        "\nA reader's fields: as the transactions command's readers (offset-window transactions --help).\n";
    text += "\nExample:\n  echo '{\"input\":{\"partitions\":2,\"records_per_partition\":200,\"rate_per_s\":50},\"service\":{\"kind\":\"kafka_streams\",\"processing.guarantee\":\"exactly_once_v2\",\"instances\":2},\"events\":[{\"at_ms\":2000,\"instance\":1,\"kind\":\"crash\",\"restart_after_ms\":2000}],\"readers\":[{\"isolation.level\":\"read_committed\"}]}' | offset-window pipeline -\n";
    text
}

/// The scenario text in `file` (or stdin for `-`). A file of `scenarios/`
/// (`{"description", "source", "scenario", "expect"}`) gives its `scenario` object; any other
/// text is the scenario itself (and any error is reported by the scenario's own parser).
fn read_input(file: &str) -> Result<String, String> {
    Ok(scenario_text(&read_file(file)?))
}

/// The text of `file`, or of stdin for `-`.
fn read_file(file: &str) -> Result<String, String> {
    let mut text = String::new();
    if file == "-" {
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("reading stdin: {e}"))?;
    } else {
        text = std::fs::read_to_string(file).map_err(|e| format!("reading {file}: {e}"))?;
    }
    Ok(text)
}

/// A scenario's text: a `scenarios/` file's `scenario` object, or the text itself.
fn scenario_text(text: &str) -> String {
    let text = text.to_string();
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Object(file))
            if file.get("scenario").is_some_and(|s| s.is_object())
                && file
                    .keys()
                    .all(|k| matches!(k.as_str(), "description" | "source" | "scenario" | "expect")) =>
        {
            file["scenario"].to_string()
        }
        _ => text,
    }
}

fn table(summary: &Summary) -> String {
    let mut text = if let Some(group) = &summary.group {
        group_table(group, summary.blocked_on_commits)
    } else if let Some(share) = &summary.share {
        share_table(summary, share)
    } else {
        consumer_table(summary)
    };
    if let Some(r) = &summary.records {
        text += &format!(
            "
records that threw: {} failed attempts, {} skipped, {} dead-lettered, {} partitions stopped
",
            r.failed_attempts, r.skipped, r.dead_lettered, r.stopped_partitions
        );
    }
    text
}

/// One consumer's result for people: the state at the crash instant and the worst instants.
fn consumer_table(summary: &Summary) -> String {
    let (Some(at), Some(w)) = (&summary.at_crash, &summary.worst) else { return String::new() };
    let at_ms = |v: Option<f64>| v.map_or("—".to_string(), |ms| format!("at {ms} ms"));
    let offset = |v: Option<u64>| v.map_or("none".to_string(), |o| o.to_string());
    let cut =
        |at_end: bool| if at_end { " (at the horizon's end: a longer horizon_ms may be worse)" } else { "" };
    let rows = [
        ("crash at", format!("{} ms", summary.scenario["crash_at_ms"])),
        ("position (handed out)", offset(at.position)),
        ("durable frontier (finished)", at.durable.to_string()),
        ("committed offset", offset(at.committed)),
        ("lost", at.lost.to_string()),
        ("duplicated", at.duplicated.to_string()),
        ("re-read after restart", at.reread.to_string()),
        ("worst lost", format!("{} {}{}", w.lost, at_ms(w.lost_at_ms), cut(w.lost_at_horizon_end))),
        (
            "worst duplicated",
            format!("{} {}{}", w.duplicated, at_ms(w.duplicated_at_ms), cut(w.duplicated_at_horizon_end)),
        ),
        ("blocked on commits", format!("{:.1} %", summary.blocked_on_commits * 100.0)),
        ("commits / s", format!("{:.2}", summary.commits_per_s)),
        ("polls / s", format!("{:.2}", summary.polls_per_s)),
    ];
    rows.iter().map(|(k, v)| format!("{k:<28} {v}\n")).collect()
}

/// A share group's result for people (model.md §11): a crash of the whole group, the worst
/// instants, what happened to the records.
fn share_table(summary: &Summary, share: &ShareSummary) -> String {
    let at_ms = |v: Option<f64>| v.map_or("—".to_string(), |ms| format!("at {ms} ms"));
    let members: Vec<String> = share.processed_by_member.iter().map(u64::to_string).collect();
    let rows = [
        ("crash at", format!("{} ms", summary.scenario["crash_at_ms"])),
        ("lost", share.at_crash.lost.to_string()),
        ("duplicated (delivered again)", share.at_crash.duplicated.to_string()),
        ("in flight", share.at_crash.in_flight.to_string()),
        ("worst lost", format!("{} {}", share.worst_lost, at_ms(share.worst_lost_at_ms))),
        ("worst duplicated", format!("{} {}", share.worst_duplicated, at_ms(share.worst_duplicated_at_ms))),
        ("deliveries", format!("{} ({} redeliveries)", share.deliveries, share.redeliveries)),
        ("processed (per member)", format!("{} ({})", share.processed, members.join(", "))),
        (
            "acknowledged",
            format!(
                "{} accepted, {} released, {} rejected, {} renewed",
                share.accepted, share.released, share.rejected, share.renewed
            ),
        ),
        ("locks expired", share.locks_expired.to_string()),
        ("archived", share.archived.to_string()),
        ("blocked on commits", format!("{:.1} %", summary.blocked_on_commits * 100.0)),
    ];
    rows.iter().map(|(k, v)| format!("{k:<30} {v}\n")).collect()
}

/// A consumer group's result for people: totals, time blocked on commits (the mean over
/// the members, and each member's), each partition, each handover.
fn group_table(g: &GroupSummary, blocked_on_commits: f64) -> String {
    let mut text = format!("lost {}   duplicated {}   rebalances {}\n", g.lost, g.duplicated, g.rebalances);
    if let Some(first) = &g.first_event {
        let at = |v: Option<f64>| v.map_or(String::new(), |ms| format!(" (event at {ms} ms)"));
        text += &format!(
            "worst over the first event's instant: lost {}{}, duplicated {}{}\n",
            first.worst_lost,
            at(first.worst_lost_at_ms),
            first.worst_duplicated,
            at(first.worst_duplicated_at_ms)
        );
    }
    if g.members.iter().any(|m| m.blocked_on_commits > 0.0) {
        let members: Vec<String> = g
            .members
            .iter()
            .map(|m| format!("consumer-{} {:.1} %", m.member, m.blocked_on_commits * 100.0))
            .collect();
        text += &format!(
            "blocked on commits: {:.1} % on average ({})\n",
            blocked_on_commits * 100.0,
            members.join(", ")
        );
    }
    text += "\npartition   lost  duplicated  stalled (ms)\n";
    for p in &g.partitions {
        text += &format!("orders-{:<4}{:>5}{:>12}{:>14}\n", p.partition, p.lost, p.duplicated, p.stalled_ms);
    }
    text += "\nhandovers (ms, partition, from → to, committed, lost, duplicated)\n";
    let who = |m: Option<u16>| m.map_or("nobody".to_string(), |n| format!("consumer-{n}"));
    let offset = |v: Option<u64>| v.map_or("none".to_string(), |o| o.to_string());
    for h in &g.handovers {
        text += &format!(
            "  {:>10}  orders-{}  {} → {}  {}  {}  {}\n",
            h.at_ms,
            h.partition,
            who(h.from),
            who(h.to),
            offset(h.committed),
            h.lost,
            h.duplicated
        );
    }
    text
}

/// Says on stderr which keys the file sets that the chosen client and strategy do not read
/// (`Scenario::unread`): a setting is never ignored silently.
fn note_unread(file: &str, text: &str, scenario: &Scenario) {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else { return };
    let file = if file == "-" { "stdin" } else { file };
    for key in map.keys() {
        if let Some(why) = scenario.unread(key) {
            eprintln!("note: {file}: {key} is not read: {why}");
        }
    }
}

/// The rows a comparison left out, a line per refusal under its table: "left out: a; b: why",
/// each row said by `name`.
fn left_out_lines<T>(left_out: &Refused<T>, name: impl Fn(&T) -> String) -> String {
    let mut text = String::new();
    for (rows, why) in left_out {
        let names: Vec<_> = rows.iter().map(&name).collect();
        text += &format!("left out: {}: {why}\n", names.join("; "));
    }
    text
}

fn run(file: &str, format: Format) -> Result<String, String> {
    let text = read_input(file)?;
    let input = Input::from_json(&text).map_err(|e| e.to_string())?;
    note_unread(file, &text, &input.scenario);
    let summary_only = |summary: Summary| match format {
        Format::Table => table(&summary),
        _ => serde_json::to_string(&summary).expect("a summary always serialises"),
    };
    if !matches!(format, Format::Marks) {
        // A group's run keeps no marks (`summarize`), and it is freed before the result's
        // text is written (S-B's is 50 MB).
        return summarize(&input.scenario, input.crash_at_us).map(summary_only).map_err(|e| e.to_string());
    }
    let run = simulate(&input.scenario).map_err(|e| e.to_string())?;
    let summary = run.summary_at(input.crash_at_us);
    let mut out = serde_json::to_value(&summary).expect("a summary always serialises");
    let marks = run.marks.iter().map(|m| {
        let mut v = serde_json::to_value(m.kind).expect("a mark always serialises");
        v["at_ms"] = millis_value(m.at_us);
        v["member"] = Value::from(m.member + 1);
        v["partition"] = Value::from(m.partition);
        v
    });
    out["marks"] = Value::Array(marks.collect());
    Ok(out.to_string())
}

fn produce_table(run: &ProduceRun) -> String {
    let c = &run.counters;
    let mut text = String::new();
    text += &format!("idempotence                  {}\n", if run.idempotence { "on" } else { "off" });
    let rows = [
        ("records in the log", c.log_records),
        ("records written twice", c.records_written_twice),
        ("records never written", c.records_never_written),
        ("out-of-order rejections", c.out_of_order_rejections),
        ("fenced requests", c.fenced_requests),
        ("duplicates dropped by leader", c.duplicates_dropped),
        ("retries", c.retries),
        ("batches acknowledged", c.batches_acknowledged),
        ("batches failed", c.batches_failed),
    ];
    for (k, v) in rows {
        text += &format!("{k:<28} {v}\n");
    }
    text += "\npartition log (offset  batch  pid  epoch  sequence  records  appended at)\n";
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    for e in &run.log {
        let records = match (e.records.first(), e.records.last()) {
            (Some(a), Some(b)) => format!("{a}–{b}"),
            _ => String::new(),
        };
        let dup = e.duplicate_of.map_or(String::new(), |o| format!("  (again; first at offset {o})"));
        text += &format!(
            "  {:>6}  {:>5}  {:>4}  {:>5}  {:>8}  {:>7}  {} ms{dup}\n",
            e.offset,
            e.batch,
            opt(e.pid.map(|p| p.to_string())),
            opt(e.epoch.map(|p| p.to_string())),
            opt(e.sequence.map(|p| p.to_string())),
            records,
            format_millis(e.appended_at_us)
        );
    }
    for note in &run.notes {
        text += &format!("\nnote: {note}\n");
    }
    text
}

fn produce(file: &str, format: Format) -> Result<String, String> {
    let scenario = ProducerScenario::from_json(&read_input(file)?).map_err(|e| e.to_string())?;
    let run = simulate_producer(&scenario).map_err(|e| e.to_string())?;
    Ok(match format {
        Format::Json | Format::Marks => {
            serde_json::to_string(&run).expect("a producer run always serialises")
        }
        Format::Table => produce_table(&run),
    })
}

fn transactions_table(run: &TxnRun) -> String {
    let ms = offset_window_sim::scenario::format_millis;
    let mut text = format!(
        "log end offset {}\n\nlog (offset  kind  producer  transaction  at  state)\n",
        run.log_end_offset
    );
    for r in &run.log {
        let kind = serde_json::to_value(r.kind).expect("a kind serialises");
        let state = r
            .state
            .map_or(String::new(), |s| serde_json::to_value(s).expect("a state serialises").to_string());
        text += &format!(
            "  {:>6}  {:<15} {:>3}  {:>4}  {:>10} ms  {}\n",
            r.offset,
            kind.as_str().unwrap_or_default(),
            r.producer,
            r.transaction.map_or("-".to_string(), |t| t.to_string()),
            ms(r.at_us),
            state.trim_matches('"')
        );
    }
    text += "\nlast stable offset (from ms: offset)\n";
    for s in &run.last_stable_offset {
        text += &format!("  {:>10} ms: {}\n", ms(s.at_us), s.offset);
    }
    if !run.timed_out_aborts.is_empty() {
        text += "\ntimed-out aborts (producer, transaction, started, aborted, marker)\n";
        for a in &run.timed_out_aborts {
            text += &format!(
                "  {}  {}  {} ms  {} ms  offset {}\n",
                a.producer,
                a.transaction,
                ms(a.started_at_us),
                ms(a.aborted_at_us),
                a.marker_offset
            );
        }
    }
    let opt = |v: Option<u64>| v.map_or("none".to_string(), |o| o.to_string());
    text += "\nreader                    client                   isolation          commit                handed  position  committed  lag   stalled\n";
    for r in &run.readers {
        let stalls: Vec<String> = r
            .stalled
            .iter()
            .map(|s| format!("{}–{}", ms(s.from_us), s.to_us.map_or("end".to_string(), ms)))
            .collect();
        text += &format!(
            "{:<25} {:<24} {:<18} {:<21} {:>6} {:>9} {:>10} {:>4}   {}\n",
            r.name,
            r.client,
            r.isolation,
            r.commit,
            r.handed.len(),
            r.position,
            opt(r.committed),
            opt(r.lag),
            stalls.join(", ")
        );
    }
    for r in &run.share_readers {
        text += &format!(
            "share {:<19} {:<18} handed {} next {}\n",
            r.name,
            r.isolation,
            r.handed.len(),
            r.next_offset
        );
    }
    for note in &run.notes {
        text += &format!("\nnote: {note}\n");
    }
    text
}

fn transactions(file: &str, format: Format) -> Result<String, String> {
    let scenario = TxnScenario::from_json(&read_input(file)?).map_err(|e| e.to_string())?;
    let run = simulate_transactions(&scenario).map_err(|e| e.to_string())?;
    Ok(match format {
        Format::Json | Format::Marks => {
            serde_json::to_string(&run).expect("a transactions run always serialises")
        }
        Format::Table => transactions_table(&run),
    })
}

fn pipeline_table(run: &PipelineRun) -> String {
    let ms = offset_window_sim::scenario::format_millis;
    let mut text = String::from("input partition  committed  stalls\n");
    for (c, st) in run.input_committed.iter().zip(&run.input_stalls) {
        let stalls: Vec<String> = st
            .stalls
            .iter()
            .map(|s| {
                let reason = serde_json::to_value(s.reason).unwrap_or_default();
                format!(
                    "{}–{} {}",
                    ms(s.from_us),
                    s.to_us.map_or("end".to_string(), ms),
                    reason.as_str().unwrap_or_default()
                )
            })
            .collect();
        text += &format!(
            "  {:>13}  {:>9}  {}\n",
            c.partition,
            c.last.map_or("none".to_string(), |o| o.to_string()),
            stalls.join(", ")
        );
    }
    let data = run.output_log.iter().filter(|e| e.input_offset.is_some()).count();
    text += &format!("\noutput log: {} entries, {data} data\n", run.output_log.len());
    text += "\nreader                    isolation          once  twice  more  never\n";
    for r in &run.readers {
        text += &format!(
            "{:<25} {:<18} {:>4} {:>6} {:>5} {:>6}\n",
            r.name, r.isolation, r.seen.once, r.seen.twice, r.seen.more, r.seen.never
        );
    }
    if let Some(side) = &run.side_effects {
        let c = side.counts;
        text += &format!(
            "{:<25} {:<18} {:>4} {:>6} {:>5} {:>6}\n",
            "side effects", "-", c.once, c.twice, c.more, c.never
        );
    }
    for a in &run.timed_out_aborts {
        text += &format!(
            "\ntimed-out abort: instance {}, started {} ms, aborted {} ms, marker {}",
            a.instance,
            ms(a.started_at_us),
            ms(a.aborted_at_us),
            a.marker_offset
        );
    }
    for r in &run.rebalances {
        text += &format!(
            "\nrebalance {}–{} ms: {}",
            ms(r.started_at_us),
            r.completed_at_us.map_or("end".to_string(), ms),
            r.trigger
        );
    }
    for note in &run.notes {
        text += &format!("\nnote: {note}");
    }
    text
}

fn pipeline(file: &str, format: Format) -> Result<String, String> {
    let scenario = PipelineScenario::from_json(&read_input(file)?).map_err(|e| e.to_string())?;
    let run = simulate_pipeline(&scenario).map_err(|e| e.to_string())?;
    Ok(match format {
        Format::Json | Format::Marks => {
            serde_json::to_string(&run).expect("a pipeline run always serialises")
        }
        Format::Table => pipeline_table(&run),
    })
}

/// `compare`'s rows as JSON (the MCP tool's answer).
fn compare_value(input: &Input) -> Result<Value, offset_window_sim::ScenarioError> {
    let value = if input.scenario.share_group() {
        serde_json::to_value(compare_share(&input.scenario, input.crash_at_us)?)
    } else if input.scenario.group_mode() {
        serde_json::to_value(compare_group(&input.scenario)?)
    } else {
        serde_json::to_value(compare_clients(&input.scenario, input.crash_at_us)?)
    };
    Ok(value.expect("rows always serialise"))
}

fn compare(file: &str, format: Format) -> Result<String, String> {
    let text = read_input(file)?;
    let input = Input::from_json(&text).map_err(|e| e.to_string())?;
    note_unread(file, &text, &input.scenario);
    if input.scenario.share_group() {
        let rows = compare_share(&input.scenario, input.crash_at_us).map_err(|e| e.to_string())?;
        return Ok(match format {
            Format::Json | Format::Marks => serde_json::to_string(&rows).expect("rows always serialise"),
            Format::Table => {
                let mut text = format!(
                    "crash at {} ms\n{:<12}{:<22}{:>6}{:>12}{:>18}{:>11}{:>10}\n",
                    format_millis(input.crash_at_us),
                    "acks",
                    "strategy",
                    "lost",
                    "duplicated",
                    "worst duplicated",
                    "processed",
                    "blocked"
                );
                for r in &rows {
                    text += &format!(
                        "{:<12}{:<22}{:>6}{:>12}{:>18}{:>11}{:>9.1}%\n",
                        r.acknowledgement_mode,
                        r.strategy,
                        r.lost,
                        r.duplicated,
                        r.worst_duplicated,
                        r.processed,
                        r.blocked_on_commits * 100.0
                    );
                }
                for (mode, why) in share_modes_left_out(&input.scenario) {
                    text += &format!("{} mode left out: {why}\n", mode.name());
                }
                text
            }
        });
    }
    if input.scenario.group_mode() {
        let (rows, left_out) = compare_group_left_out(&input.scenario).map_err(|e| e.to_string())?;
        return Ok(match format {
            Format::Json | Format::Marks => serde_json::to_string(&rows).expect("rows always serialise"),
            Format::Table => {
                let mut text = format!(
                    "{:<32}{:<8}{:>6}{:>12}{:>14}{:>12}\n",
                    "protocol", "static", "lost", "duplicated", "stalled (ms)", "rebalances"
                );
                for r in &rows {
                    text += &format!(
                        "{:<32}{:<8}{:>6}{:>12}{:>14}{:>12}\n",
                        r.protocol,
                        if r.static_membership { "yes" } else { "no" },
                        r.lost,
                        r.duplicated,
                        format_millis(r.stalled_us),
                        r.rebalances
                    );
                }
                text += &left_out_lines(&left_out, |&(protocol, fixed)| {
                    format!("{protocol}{}", if fixed { " (static)" } else { "" })
                });
                text
            }
        });
    }
    let (rows, left_out) =
        compare_clients_left_out(&input.scenario, input.crash_at_us).map_err(|e| e.to_string())?;
    Ok(match format {
        Format::Json | Format::Marks => serde_json::to_string(&rows).expect("rows always serialise"),
        Format::Table => {
            let mut text = format!(
                "crash at {} ms\n{:<32}{:<32}{:>6}{:>12}{:>9}\n",
                format_millis(input.crash_at_us),
                "client",
                "strategy",
                "lost",
                "duplicated",
                "re-read"
            );
            for r in &rows {
                text += &format!(
                    "{:<32}{:<32}{:>6}{:>12}{:>9}\n",
                    r.client, r.strategy, r.lost, r.duplicated, r.reread
                );
            }
            text += &left_out_lines(&left_out, |(c, st)| format!("{} {}", c.name(), st.name()));
            text
        }
    })
}

/// `check`'s verdicts on every file, or the reason the input was refused.
fn check_files(
    files: &[String],
    args: &imports::ImportArgs,
    over: check::Over,
    max_lost: Option<u64>,
    max_duplicated: Option<u64>,
    page_url: Option<&str>,
) -> Result<Vec<check::Verdict>, String> {
    if max_lost.is_none() && max_duplicated.is_none() {
        return Err("check: give --max-lost N, --max-duplicated N or both".to_string());
    }
    let base = link::base(page_url);
    let mut texts = Vec::new();
    for file in files {
        let label = if file == "-" { "stdin" } else { file.as_str() };
        texts.push((label.to_string(), read_file(file)?));
    }
    let mut verdicts = Vec::new();
    for loaded in imports::load(&texts, args)? {
        // What the import chose or assumed, for the CI log (stdout keeps the verdicts).
        for note in &loaded.notes {
            eprintln!("offset-window: {}: note: {note}", loaded.label);
        }
        verdicts.extend(check::check_scenario(
            &loaded.label,
            &loaded.input.scenario,
            over,
            max_lost,
            max_duplicated,
            &base,
        )?);
    }
    Ok(verdicts)
}

/// `import`: the files read together, printed as `format` says.
fn import_command(
    files: &[String],
    args: &imports::ImportArgs,
    format: ImportFormat,
    page_url: Option<&str>,
) -> Result<String, String> {
    let mut texts = Vec::new();
    for file in files {
        let label = if file == "-" { "stdin" } else { file.as_str() };
        texts.push((label.to_string(), read_file(file)?));
    }
    let sources: Vec<offset_window_import::Source> =
        texts.iter().map(|(name, text)| offset_window_import::Source { name, text }).collect();
    let imported = offset_window_import::import(&sources, &args.options()?).map_err(|e| e.to_string())?;
    let base = link::base(page_url);
    Ok(match format {
        ImportFormat::Scenario => imported.scenario.to_string(),
        ImportFormat::Json => imports::import_value(&imported, &base).to_string(),
        ImportFormat::Text => imports::import_text(&imported, &base),
    })
}

/// `check`: prints every verdict, writes the JUnit report, and exits 0, 1 or 2.
fn check_command(
    files: &[String],
    args: &imports::ImportArgs,
    over: check::Over,
    max_lost: Option<u64>,
    max_duplicated: Option<u64>,
    junit: Option<&str>,
    page_url: Option<&str>,
) -> ExitCode {
    let verdicts = match check_files(files, args, over, max_lost, max_duplicated, page_url) {
        Ok(v) => v,
        Err(message) => {
            eprintln!("offset-window: {message}");
            return ExitCode::from(2);
        }
    };
    if let Some(path) = junit {
        if let Err(e) = std::fs::write(path, check::junit(&verdicts)) {
            eprintln!("offset-window: writing {path}: {e}");
            return ExitCode::from(2);
        }
    }
    let broken: Vec<&check::Verdict> = verdicts.iter().filter(|v| !v.holds()).collect();
    let mut out = std::io::stdout().lock();
    let lines: Vec<String> = if broken.is_empty() {
        verdicts.iter().map(|v| v.line()).collect()
    } else {
        broken.iter().map(|v| v.line()).collect()
    };
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    if broken.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run { file, format } => run(&file, format),
        Command::Compare { file, format } => compare(&file, format),
        Command::Produce { file, format } => produce(&file, format),
        Command::Transactions { file, format } => transactions(&file, format),
        Command::Pipeline { file, format } => pipeline(&file, format),
        Command::Check { files, import, max_lost, max_duplicated, over, junit, page_url } => {
            return check_command(
                &files,
                &import,
                over,
                max_lost,
                max_duplicated,
                junit.as_deref(),
                page_url.as_deref(),
            )
        }
        Command::Import { files, import, format, page_url } => {
            import_command(&files, &import, format, page_url.as_deref())
        }
        Command::Mcp { page_url } => {
            return match mcp::serve(page_url.as_deref()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(message) => {
                    eprintln!("offset-window: {message}");
                    ExitCode::from(2)
                }
            }
        }
    };
    match result {
        // A reader that closed its end (`| head -c 1`) has what it wanted: no panic, no message.
        Ok(out) => match writeln!(std::io::stdout().lock(), "{}", out.trim_end()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                eprintln!("offset-window: writing the result: {e}");
                ExitCode::FAILURE
            }
            _ => ExitCode::SUCCESS,
        },
        Err(message) => {
            eprintln!("offset-window: {message}");
            ExitCode::from(2)
        }
    }
}
