//! What the Kafka tools print: `kafka-consumer-groups.sh --describe` (CURRENT-OFFSET,
//! LOG-END-OFFSET, LAG per partition), `--describe --members [--verbose]` (members,
//! #PARTITIONS, ASSIGNMENT) and `kafka-topics.sh --describe` (PartitionCount): the
//! partitions, the members and the backlog.
//!
//! The model's topic is one topic whose partitions all start with one backlog (committed at
//! the log start, `log_end_offset` records to read): the backlog is the largest lag, and
//! each other partition's lag is named in the account.

use crate::parse::{Kind, Prop};
use crate::{Ctx, ImportError, Source};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

fn refuse(file: &str, line: u32, message: String) -> ImportError {
    ImportError { file: file.to_string(), line, property: None, message }
}

/// A data row: its line (from 1) and its cells.
type Row<'a> = (u32, Vec<&'a str>);

/// The header line (from 1) and its column names, and the data rows after it with their lines.
fn table(text: &str) -> Option<(u32, Vec<&str>, Vec<Row<'_>>)> {
    let mut lines = text.lines().enumerate();
    let (at, header) = lines.by_ref().find(|(_, l)| l.split_whitespace().any(|w| w == "GROUP"))?;
    let columns: Vec<&str> = header.split_whitespace().collect();
    let rows = lines
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i as u32 + 1, l.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, cells)| {
            cells.len() >= columns.len().saturating_sub(3) && cells.first() != Some(&"GROUP")
        })
        .collect();
    Some((at as u32 + 1, columns, rows))
}

fn cell<'a>(columns: &[&str], row: &'a [&str], name: &str) -> Option<&'a str> {
    columns.iter().position(|c| *c == name).and_then(|i| row.get(i).copied())
}

/// Reads one tool output into `ctx`.
pub(crate) fn read(ctx: &mut Ctx, kind: Kind, source: &Source) -> Result<(), ImportError> {
    let file = source.name;
    let prop = |line: u32, name: String, value: String| Prop {
        file: file.to_string(),
        line,
        name,
        value,
        profile: None,
    };
    match kind {
        Kind::TopicsDescribe => {
            let mut topics = BTreeSet::new();
            for (i, line) in source.text.lines().enumerate() {
                let Some(at) = line.find("PartitionCount:") else { continue };
                let topic =
                    line.split_whitespace().skip_while(|w| *w != "Topic:").nth(1).unwrap_or("").to_string();
                let count = line[at + "PartitionCount:".len()..].split_whitespace().next().unwrap_or("");
                topics.insert(topic.clone());
                if topics.len() > 1 {
                    return Err(refuse(
                        file,
                        i as u32 + 1,
                        format!("a second topic, {topic}: the model has one topic; describe one"),
                    ));
                }
                ctx.apply_text(
                    &prop(i as u32 + 1, format!("{topic} PartitionCount"), count.to_string()),
                    "partitions",
                    count,
                )?;
            }
            if topics.is_empty() {
                return Err(refuse(
                    file,
                    0,
                    "no PartitionCount in this kafka-topics.sh --describe output".to_string(),
                ));
            }
        }
        Kind::GroupsDescribe => {
            let (header, columns, rows) =
                table(source.text).ok_or_else(|| refuse(file, 0, "no header".into()))?;
            let number = |line: u32, text: &str, column: &str| -> Result<Option<u64>, ImportError> {
                if text == "-" {
                    return Ok(None);
                }
                text.parse::<u64>().map(Some).map_err(|_| {
                    refuse(file, line, format!("{column} must be a whole number or - (got “{text}”)"))
                })
            };
            let mut lags: Vec<(u32, String, u64, bool)> = Vec::new();
            let mut topics = BTreeSet::new();
            let mut consumers: BTreeMap<String, u32> = BTreeMap::new();
            for (line, row) in &rows {
                let topic = cell(&columns, row, "TOPIC").unwrap_or("");
                let partition = cell(&columns, row, "PARTITION").unwrap_or("");
                topics.insert(topic.to_string());
                if topics.len() > 1 {
                    return Err(refuse(
                        file,
                        *line,
                        format!("a second topic, {topic}: the model has one topic; describe one"),
                    ));
                }
                let current =
                    number(*line, cell(&columns, row, "CURRENT-OFFSET").unwrap_or("-"), "CURRENT-OFFSET")?;
                let end =
                    number(*line, cell(&columns, row, "LOG-END-OFFSET").unwrap_or("-"), "LOG-END-OFFSET")?
                        .unwrap_or(0);
                let lag = number(*line, cell(&columns, row, "LAG").unwrap_or("-"), "LAG")?
                    .unwrap_or(end - current.unwrap_or(0).min(end));
                lags.push((*line, format!("{topic}-{partition}"), lag, current.is_none()));
                if let Some(id) = cell(&columns, row, "CONSUMER-ID").filter(|c| *c != "-") {
                    consumers.entry(id.to_string()).or_insert(*line);
                }
            }
            if lags.is_empty() {
                return Err(refuse(file, header, "no partition rows under the header".into()));
            }
            if ctx.set.contains("partitions") {
                ctx.irrelevant(
                    &prop(header, "PARTITION rows".into(), lags.len().to_string()),
                    "the partition count is kafka-topics.sh's",
                );
            } else {
                ctx.apply_text(
                    &prop(header, "PARTITION rows".into(), lags.len().to_string()),
                    "partitions",
                    &lags.len().to_string(),
                )?;
            }
            let max = lags.iter().map(|l| l.2).max().unwrap_or(0);
            let mut applied = false;
            for (line, name, lag, _) in &lags {
                let p = prop(*line, format!("{name} LAG"), lag.to_string());
                if *lag == max && !applied {
                    ctx.apply_text(&p, "log_end_offset", &lag.to_string())?;
                    applied = true;
                } else {
                    ctx.not_modelled(&p, format!("every partition of the model starts with one backlog, the largest lag ({max}); this one's is {lag}"));
                }
            }
            let none = lags.iter().filter(|l| l.3).count();
            if none == lags.len() {
                let p = prop(header, "CURRENT-OFFSET".into(), "-".into());
                ctx.apply(&p, "new_group", Value::Bool(true))?;
            } else if none > 0 {
                ctx.notes.push(format!(
                    "{none} of {} partitions have no committed offset (CURRENT-OFFSET -): the model's group has \
                     committed offsets on all or on none; taken as all",
                    lags.len()
                ));
            }
            if !consumers.is_empty() && !ctx.set.contains("members") {
                let line = consumers.values().min().copied().unwrap_or(header);
                ctx.apply_text(
                    &prop(line, "CONSUMER-ID (distinct)".into(), consumers.len().to_string()),
                    "members",
                    &consumers.len().to_string(),
                )?;
            }
        }
        Kind::GroupsMembers => {
            let (header, columns, rows) =
                table(source.text).ok_or_else(|| refuse(file, 0, "no header".into()))?;
            if rows.is_empty() {
                return Err(refuse(file, header, "no member rows under the header".into()));
            }
            let mut partitions = BTreeSet::new();
            for (line, row) in &rows {
                let member = cell(&columns, row, "CONSUMER-ID").unwrap_or("");
                if let Some(assignment) =
                    columns.iter().position(|c| *c == "ASSIGNMENT").map(|i| row[i.min(row.len())..].join(" "))
                {
                    // `orders(0,1,2)`, `-` when none.
                    for part in assignment.split(';') {
                        if let (Some(open), Some(close)) = (part.find('('), part.find(')')) {
                            for n in
                                part[open + 1..close].split(',').filter_map(|n| n.trim().parse::<u32>().ok())
                            {
                                partitions.insert(n);
                            }
                        }
                    }
                    ctx.not_modelled(
                        &prop(*line, format!("{member} ASSIGNMENT"), assignment),
                        "the model assigns partitions itself with partition.assignment.strategy (docs/model.md §10.2); compare its assignment with this one",
                    );
                }
            }
            ctx.apply_text(
                &prop(rows[0].0, "member rows".into(), rows.len().to_string()),
                "members",
                &rows.len().to_string(),
            )?;
            if let Some(max) = partitions.last() {
                let count = (max + 1).to_string();
                let p = prop(header, "ASSIGNMENT (highest partition + 1)".into(), count.clone());
                if ctx.set.contains("partitions") {
                    ctx.irrelevant(&p, "the partition count is kafka-topics.sh's or --describe's");
                } else {
                    ctx.apply_text(&p, "partitions", &count)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}
