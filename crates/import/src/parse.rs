//! Reading each file into its properties, each with its line: Java `.properties` (the
//! `java-properties` crate), YAML (`yaml-rust2`'s parser with line markers, flattened to
//! dotted names as Spring Boot binds them), JSON objects (a librdkafka / confluent-kafka
//! config dict, or a Go or JavaScript client's settings), and the text the Kafka tools print.

use crate::ImportError;
use offset_window_sim::keys::json_text;
use serde_json::Value;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// One property as a file wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prop {
    /// The file's name as given.
    pub file: String,
    /// Its line, from 1.
    pub line: u32,
    /// The property's name as written (a YAML path joined with dots).
    pub name: String,
    /// Its value as text (a YAML or JSON list joined with commas).
    pub value: String,
    /// A Spring profile the YAML document holding it is gated on (not evaluated).
    pub profile: Option<String>,
}

/// What a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `key=value` lines.
    Properties,
    /// YAML (Spring Boot's `application.yml`).
    Yaml,
    /// A JSON object of settings.
    Json,
    /// `kafka-consumer-groups.sh --describe` (offsets and lag per partition).
    GroupsDescribe,
    /// `kafka-consumer-groups.sh --describe --members [--verbose]`.
    GroupsMembers,
    /// `kafka-topics.sh --describe`.
    TopicsDescribe,
}

/// What kind of file `text` named `name` is: the tools' output by its header, then by the
/// file name's ending, then by its first character.
pub fn kind(name: &str, text: &str) -> Kind {
    // The tools print a warning line or two before the header at times ("Consumer group
    // 'g' has no active members."): the header is the first line with GROUP and CONSUMER-ID.
    let header = text.lines().find(|l| l.split_whitespace().any(|w| w == "GROUP")).unwrap_or("");
    let words: Vec<&str> = header.split_whitespace().collect();
    if words.contains(&"CURRENT-OFFSET") && words.contains(&"LOG-END-OFFSET") {
        return Kind::GroupsDescribe;
    }
    if words.contains(&"#PARTITIONS") || (words.contains(&"CONSUMER-ID") && words.contains(&"HOST")) {
        return Kind::GroupsMembers;
    }
    if text.contains("PartitionCount:") {
        return Kind::TopicsDescribe;
    }
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".yml") || lower.ends_with(".yaml") {
        Kind::Yaml
    } else if lower.ends_with(".json") || text.trim_start().starts_with('{') {
        Kind::Json
    } else {
        Kind::Properties
    }
}

/// A `.properties` file's pairs with their lines.
pub fn properties(file: &str, text: &str) -> Result<Vec<Prop>, ImportError> {
    let mut out = Vec::new();
    let iter = java_properties::PropertiesIter::new_with_encoding(text.as_bytes(), encoding_rs::UTF_8);
    for line in iter {
        let line = line.map_err(|e| ImportError {
            file: file.to_string(),
            line: e.line_number().unwrap_or(0) as u32,
            property: None,
            message: format!("not a properties file: {e}"),
        })?;
        let number = line.line_number() as u32;
        if let java_properties::LineContent::KVPair(name, value) = line.consume_content() {
            out.push(Prop { file: file.to_string(), line: number, name, value, profile: None });
        }
    }
    // Spring Boot's multi-document properties files (2.4+): `#---` or `!---` alone on a line
    // starts a document, which `spring.config.activate.on-profile` may gate on a profile.
    let starts: Vec<u32> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| matches!(l.trim_end(), "#---" | "!---"))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    if !starts.is_empty() {
        let doc = |line: u32| starts.iter().filter(|&&s| s < line).count();
        let mut profiles = std::collections::BTreeMap::new();
        for p in &out {
            let k = crate::spring::relaxed(&p.name);
            if k == "spring.config.activate.onprofile" || k == "spring.profiles" {
                profiles.insert(doc(p.line), p.value.clone());
            }
        }
        for p in &mut out {
            p.profile = profiles.get(&doc(p.line)).cloned();
        }
    }
    Ok(out)
}

/// One open YAML collection while flattening.
enum Frame {
    Map { prefix: String, key: Option<(String, u32)> },
    Seq { path: String, line: u32, items: Vec<String> },
}

/// Flattens YAML events to dotted names (`spring.kafka.listener.ack-mode`), one YAML
/// document at a time. Anchored scalars are remembered, so that an alias (`*name`) reads as
/// the scalar; an alias of a mapping or list reads as text saying so (and is then refused or
/// named by the property that gets it, never dropped).
#[derive(Default)]
struct Flatten {
    stack: Vec<Frame>,
    docs: Vec<Vec<(String, String, u32)>>,
    anchors: std::collections::BTreeMap<usize, String>,
}

impl Flatten {
    fn path(prefix: &str, key: &str) -> String {
        if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        }
    }

    /// A value (scalar or joined list) arrives at the top of the stack.
    fn value(&mut self, value: String, line: u32) {
        match self.stack.last_mut() {
            Some(Frame::Map { prefix, key }) => {
                if let Some((k, at)) = key.take() {
                    let path = Self::path(prefix, &k);
                    if let Some(doc) = self.docs.last_mut() {
                        doc.push((path, value, at));
                    }
                } else {
                    *key = Some((value, line));
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(value),
            None => {}
        }
    }
}

impl MarkedEventReceiver for Flatten {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let line = mark.line() as u32;
        match ev {
            Event::DocumentStart => self.docs.push(Vec::new()),
            Event::Scalar(value, _, anchor, _) => {
                if anchor > 0 {
                    self.anchors.insert(anchor, value.clone());
                }
                self.value(value, line)
            }
            Event::Alias(anchor) => {
                let value = self
                    .anchors
                    .get(&anchor)
                    .cloned()
                    .unwrap_or_else(|| "(a YAML alias of a mapping or list, not expanded)".to_string());
                self.value(value, line)
            }
            Event::MappingStart(..) => {
                let prefix = match self.stack.last_mut() {
                    Some(Frame::Map { prefix, key }) => match key.take() {
                        Some((k, _)) => Self::path(prefix, &k),
                        None => prefix.clone(),
                    },
                    Some(Frame::Seq { path, items, .. }) => format!("{path}[{}]", items.len()),
                    None => String::new(),
                };
                self.stack.push(Frame::Map { prefix, key: None });
            }
            Event::MappingEnd => {
                self.stack.pop();
            }
            Event::SequenceStart(..) => {
                let (path, at) = match self.stack.last() {
                    Some(Frame::Map { prefix, key: Some((k, at)) }) => (Self::path(prefix, k), *at),
                    Some(Frame::Map { prefix, .. }) => (prefix.clone(), line),
                    Some(Frame::Seq { path, .. }) => (path.clone(), line),
                    None => (String::new(), line),
                };
                self.stack.push(Frame::Seq { path, line: at, items: Vec::new() });
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq { items, line, .. }) = self.stack.pop() {
                    self.value(items.join(","), line);
                }
            }
            _ => {}
        }
    }
}

/// A YAML file's properties, each YAML document's gated on its profile
/// (`spring.config.activate.on-profile`, or the older `spring.profiles`) marked with it.
pub fn yaml(file: &str, text: &str) -> Result<Vec<Prop>, ImportError> {
    let mut flat = Flatten::default();
    Parser::new_from_str(text).load(&mut flat, true).map_err(|e| ImportError {
        file: file.to_string(),
        line: e.marker().line() as u32,
        property: None,
        message: format!("not YAML: {}", e.info()),
    })?;
    let mut out = Vec::new();
    for doc in flat.docs {
        let profile = doc
            .iter()
            .find(|(k, _, _)| {
                let k = crate::spring::relaxed(k);
                k == "spring.config.activate.onprofile" || k == "spring.profiles"
            })
            .map(|(_, v, _)| v.clone());
        for (name, value, line) in doc {
            out.push(Prop { file: file.to_string(), line, name, value, profile: profile.clone() });
        }
    }
    Ok(out)
}

/// The line in `text` where `"key"` is first written (JSON keeps no positions).
fn json_line(text: &str, key: &str) -> u32 {
    let quoted = format!("\"{key}\"");
    text.lines().position(|l| l.contains(&quoted)).map_or(1, |i| i as u32 + 1)
}

/// A JSON object's settings (nested objects flattened with dots), with their lines.
pub fn json(file: &str, text: &str) -> Result<Vec<Prop>, ImportError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ImportError {
        file: file.to_string(),
        line: e.line() as u32,
        property: None,
        message: format!("not JSON: {e}"),
    })?;
    let Value::Object(map) = value else {
        return Err(ImportError {
            file: file.to_string(),
            line: 1,
            property: None,
            message: "a configuration is a JSON object of settings".to_string(),
        });
    };
    let mut out = Vec::new();
    fn walk(file: &str, text: &str, prefix: &str, map: &serde_json::Map<String, Value>, out: &mut Vec<Prop>) {
        for (k, v) in map {
            let name = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            let value = match v {
                Value::Object(inner) => {
                    walk(file, text, &name, inner, out);
                    continue;
                }
                Value::String(s) => s.clone(),
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().map_or_else(|| json_text(i), str::to_string))
                    .collect::<Vec<_>>()
                    .join(","),
                other => json_text(other),
            };
            out.push(Prop { file: file.to_string(), line: json_line(text, k), name, value, profile: None });
        }
    }
    walk(file, text, "", &map, &mut out);
    Ok(out)
}
