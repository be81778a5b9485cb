//! `offset-window import`: a consumer's own configuration files in, the scenario JSON, the
//! page link and the account of every property out (the reading itself is the pure
//! `offset-window-import` crate, which a page can use too). Also how `check` and the MCP
//! tools tell scenario files from configuration files.

use offset_window_import::{import, Dialect, Import, Measured, Options, Source};
use offset_window_sim::scenario::{key_spec, DEFAULT_CRASH_AT_US};
use offset_window_sim::{Input, Scenario};
use serde_json::Value;

/// How the configuration is read: the arguments `import` and `check` share.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ImportArgs {
    /// Whose configuration the files are, when their names and properties do not tell:
    /// java, spring, librdkafka, sarama, franz-go, kafka-go, kafkajs.
    #[arg(long, value_name = "CLIENT", value_parser = client_name)]
    pub client: Option<String>,
    /// A scenario key set after the files, e.g. `--set strategy=commit_sync_batch` (how the
    /// application commits in its own code); repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Records produced to the topic per second, measured.
    #[arg(long, value_name = "N")]
    pub records_per_second: Option<String>,
    /// Mean processing time of one record, ms, measured.
    #[arg(long, value_name = "MS")]
    pub processing_ms: Option<String>,
    /// Median processing time of one record, ms, measured (with --processing-p99-ms: jitter).
    #[arg(long, value_name = "MS")]
    pub processing_p50_ms: Option<String>,
    /// 99th percentile of the processing time of one record, ms, measured.
    #[arg(long, value_name = "MS")]
    pub processing_p99_ms: Option<String>,
}

fn client_name(text: &str) -> Result<String, String> {
    match Dialect::from_name(text) {
        Some(_) => Ok(text.to_string()),
        None => {
            Err(format!("one of {}", Dialect::ALL.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")))
        }
    }
}

impl ImportArgs {
    /// The import's options.
    pub fn options(&self) -> Result<Options, String> {
        let mut set = Vec::new();
        for pair in &self.set {
            let (k, v) = pair.split_once('=').ok_or_else(|| {
                format!("--set {pair}: write KEY=VALUE, e.g. --set strategy=commit_sync_batch")
            })?;
            set.push((k.trim().to_string(), v.trim().to_string()));
        }
        Ok(Options {
            client: self.client.as_deref().and_then(Dialect::from_name),
            set,
            measured: Measured {
                records_per_s: self.records_per_second.clone(),
                processing_ms: self.processing_ms.clone(),
                processing_p50_ms: self.processing_p50_ms.clone(),
                processing_p99_ms: self.processing_p99_ms.clone(),
            },
        })
    }
}

/// Whether `text` is a scenario (or a `scenarios/` file) rather than a configuration: a
/// JSON object whose keys are all scenario keys (or `crash_at_ms`), or a `scenarios/` file.
pub fn is_scenario(text: &str) -> bool {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => {
            let file = map.get("scenario").is_some_and(Value::is_object)
                && map.keys().all(|k| matches!(k.as_str(), "description" | "source" | "scenario" | "expect"));
            file || map.keys().all(|k| k == "crash_at_ms" || key_spec(k).is_some())
        }
        _ => false,
    }
}

/// One input to judge or run: a name and its scenario and crash instant.
pub struct Loaded {
    /// The file (or the files imported together).
    pub label: String,
    /// What it describes.
    pub input: Input,
    /// The import's notes (what it chose or assumed), for configuration files.
    pub notes: Vec<String>,
}

/// The scenarios of `files` (name, text): each scenario file on its own, and every
/// configuration file (and tool output) imported together as one.
pub fn load(files: &[(String, String)], args: &ImportArgs) -> Result<Vec<Loaded>, String> {
    let mut out = Vec::new();
    let mut configs: Vec<Source> = Vec::new();
    for (name, text) in files {
        if is_scenario(text) {
            let json = crate::scenario_text(text);
            let input = Input::from_json(&json).map_err(|e| format!("{name}: {e}"))?;
            out.push(Loaded { label: name.clone(), input, notes: Vec::new() });
        } else {
            configs.push(Source { name, text });
        }
    }
    if !configs.is_empty() {
        let imported = import(&configs, &args.options()?).map_err(|e| e.to_string())?;
        let label = configs.iter().map(|s| s.name).collect::<Vec<_>>().join(" + ");
        let input = Input {
            scenario: imported.parsed.clone(),
            crash_at_us: DEFAULT_CRASH_AT_US.min(imported.parsed.horizon_us),
        };
        out.push(Loaded { label, input, notes: imported.notes.clone() });
    }
    Ok(out)
}

/// `import`'s JSON: the scenario, the page link, and the account.
pub fn import_value(imported: &Import, base: &str) -> Value {
    let mut value = serde_json::to_value(imported).expect("an import always serialises");
    let crash = DEFAULT_CRASH_AT_US.min(imported.parsed.horizon_us);
    value["link"] = Value::String(crate::link::page_link(base, &imported.parsed, crash));
    value
}

/// `import`'s text for people: the scenario JSON, the link, then the account.
pub fn import_text(imported: &Import, base: &str) -> String {
    use offset_window_import::Status;
    let scenario: &Scenario = &imported.parsed;
    let crash = DEFAULT_CRASH_AT_US.min(scenario.horizon_us);
    let mut text = format!(
        "{}\n{}\n\nclient: {}\n\naccount (file:line property = value: what became of it)\n",
        imported.scenario,
        crate::link::page_link(base, scenario, crash),
        imported.client.name()
    );
    for e in &imported.account {
        let what = match &e.status {
            Status::Applied { key, value } => format!("applied: {key} = {value}"),
            Status::Irrelevant { why } => format!("irrelevant to commits: {why}"),
            Status::NotModelled { means } => format!("not modelled: {means}"),
            Status::NotEvaluated { why, used } => format!("not evaluated: {why}; used {used}"),
        };
        text += &format!("  {}:{} {} = {}: {what}\n", e.file, e.line, e.property, e.value);
    }
    if !imported.defaults.is_empty() {
        text += "\ndefaults applied (not in the files)\n";
        for d in &imported.defaults {
            let key = d.key.as_ref().map_or(String::new(), |k| format!(" → {k}"));
            text += &format!("  {} = {} ({}){key}\n", d.property, d.value, d.whose);
        }
    }
    if !imported.notes.is_empty() {
        text += "\nnotes\n";
        for n in &imported.notes {
            text += &format!("  {n}\n");
        }
    }
    text
}
