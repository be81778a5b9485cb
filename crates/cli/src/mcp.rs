//! `offset-window mcp`: the Model Context Protocol over stdio (the `rmcp` SDK), so that an
//! MCP client asked "would this config lose records on a crash?" answers from the model, with
//! a link to the page. Tools `run`, `compare`, `import` and `check`; the scenario schema,
//! generated from the core's key table, as the resource `offset-window://scenario-schema`.
//!
//! Only the runner has this (tokio and rmcp stay out of the pages' wasm).

use crate::check::{self, Over};
use crate::imports::{self, ImportArgs};
use crate::link;
use offset_window_sim::keys::{millis_value, KeyKind};
use offset_window_sim::scenario::{CRASH_AT_HELP, CRASH_AT_KEY, DEFAULT_CRASH_AT_US, KEYS, KEY_HELP};
use offset_window_sim::{simulate, Input, Scenario};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

/// The URI of the scenario schema resource.
pub const SCHEMA_URI: &str = "offset-window://scenario-schema";

/// The JSON Schema of a scenario, from the core's key table: each key's type, range,
/// default and meaning.
pub fn scenario_schema() -> Value {
    let defaults = Scenario::default();
    let mut properties = Map::new();
    let ms = |us: u64| millis_value(us);
    for (key, help) in KEYS.iter().zip(KEY_HELP).map(|(k, h)| (k, *h)).chain([(&CRASH_AT_KEY, CRASH_AT_HELP)])
    {
        let mut p = match key.kind {
            KeyKind::Count { min, max } => json!({"type": "integer", "minimum": min, "maximum": max}),
            KeyKind::Millis { min_us, max_us } => {
                json!({"type": "number", "minimum": ms(min_us), "maximum": ms(max_us)})
            }
            KeyKind::OptionalMillis { min_us, max_us } => {
                json!({"type": ["number", "null"], "minimum": ms(min_us), "maximum": ms(max_us)})
            }
            KeyKind::Thousandths { max_thousandths } => {
                json!({"type": "number", "minimum": 0, "maximum": ms(max_thousandths)})
            }
            KeyKind::Flag => json!({"type": "boolean"}),
            KeyKind::OptionalFlag => json!({"type": ["boolean", "null"]}),
            KeyKind::Choice(names) => json!({"type": "string", "enum": names}),
            KeyKind::CountList { min, max } => {
                json!({"type": "array", "items": {"type": "integer", "minimum": min, "maximum": max}})
            }
            KeyKind::Structured(_) => json!({}),
        };
        let unit = if key.unit.is_empty() { String::new() } else { format!(" ({})", key.unit) };
        p["description"] = Value::String(format!("{help}{unit}; {}", key.range()));
        let default = if key.name == CRASH_AT_KEY.name {
            Some(ms(DEFAULT_CRASH_AT_US))
        } else {
            defaults.get(key.name)
        };
        if let Some(d) = default {
            p["default"] = d;
        }
        properties.insert(key.name.to_string(), p);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "offset-window scenario",
        "description": "A Kafka consumer's offset-commit scenario (docs/model.md §6): missing keys take their defaults; unknown keys are refused.",
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
    })
}

fn object(value: Value) -> std::sync::Arc<Map<String, Value>> {
    match value {
        Value::Object(map) => std::sync::Arc::new(map),
        _ => std::sync::Arc::new(Map::new()),
    }
}

/// The four tools and their input schemas.
pub fn tools() -> Vec<Tool> {
    let scenario = json!({"type": "object", "description": "a scenario (see the resource offset-window://scenario-schema); {} is reference R1, the defaults"});
    let files = json!({"type": "array", "description": "configuration files, read together as one consumer's: Java client properties, Spring Boot application.yml / .properties, librdkafka properties or config-dict JSON, sarama / franz-go / kafka-go / KafkaJS settings as JSON, kafka-consumer-groups.sh / kafka-topics.sh --describe output",
        "items": {"type": "object", "properties": {"name": {"type": "string", "description": "the file's name, e.g. application.yml (its ending tells YAML, JSON or properties)"}, "text": {"type": "string"}}, "required": ["name", "text"]}});
    let import_props = json!({
        "client": {"type": "string", "enum": offset_window_import::Dialect::ALL.iter().map(|d| d.name()).collect::<Vec<_>>()},
        "set": {"type": "object", "description": "scenario keys set after the files, e.g. {\"strategy\": \"commit_sync_batch\"} for how the application commits in its own code", "additionalProperties": {"type": "string"}},
        "records_per_second": {"type": "string"},
        "processing_ms": {"type": "string", "description": "mean processing time of one record, ms"},
        "processing_p50_ms": {"type": "string"},
        "processing_p99_ms": {"type": "string"},
    });
    let mut check_props = json!({
        "scenario": scenario,
        "files": files,
        "max_lost": {"type": "integer", "minimum": 0},
        "max_duplicated": {"type": "integer", "minimum": 0},
        "over": {"type": "string", "enum": ["crash", "first-event"], "default": "crash"},
    });
    let paths = json!({"type": "array", "items": {"type": "string"}, "description": "paths of configuration files on the machine running the server, read as `files` are"});
    check_props["paths"] = paths.clone();
    let mut import_schema = json!({"files": files, "paths": paths});
    for (k, v) in import_props.as_object().expect("an object") {
        check_props[k] = v.clone();
        import_schema[k] = v.clone();
    }
    vec![
        Tool::new(
            "run",
            "Run one scenario (docs/model.md §6) and return the result: the state at the crash instant, the worst \
             instants (worst.lost, worst.duplicated and when: 5000.001 ms is 1 µs after the event at 5000 ms), time \
             blocked on commits, commit and poll rates; a group's handovers; and `link`, the page showing it.",
            object(json!({"type": "object", "properties": {"scenario": scenario}})),
        ),
        Tool::new(
            "compare",
            "Run the same scenario under each real client's commit behaviour (or, for a group, each protocol and \
             assignor) and return one row each.",
            object(json!({"type": "object", "properties": {"scenario": scenario}})),
        ),
        Tool::new(
            "import",
            "Read a consumer's own configuration files into a scenario: returns the scenario, the page link, and \
             what became of every property (applied to which key, irrelevant to commits, not modelled, not \
             evaluated), with the client's own defaults for what the files leave out.",
            object(json!({"type": "object", "properties": import_schema})),
        ),
        Tool::new(
            "check",
            "Would this configuration lose or repeat records on a crash? Judges bounds (max_lost, max_duplicated) \
             over every crash instant (or the first group event's instant) on a scenario or on configuration \
             files; returns each bound with the worst figure, its instant and the page link showing it.",
            object(json!({"type": "object", "properties": check_props})),
        ),
    ]
}

/// The import arguments of a tool call.
fn import_args(args: &Map<String, Value>) -> ImportArgs {
    let text = |k: &str| args.get(k).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
    let set = args
        .get("set")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                .collect()
        })
        .unwrap_or_default();
    ImportArgs {
        client: text("client"),
        set,
        records_per_second: text("records_per_second"),
        processing_ms: text("processing_ms"),
        processing_p50_ms: text("processing_p50_ms"),
        processing_p99_ms: text("processing_p99_ms"),
    }
}

/// The files of a call: `files` given with their text, and `paths` read from this machine.
fn files(args: &Map<String, Value>) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    if let Some(list) = args.get("files") {
        for f in list.as_array().ok_or("files: a list of {name, text}")? {
            match (f.get("name").and_then(Value::as_str), f.get("text").and_then(Value::as_str)) {
                (Some(n), Some(t)) => out.push((n.to_string(), t.to_string())),
                _ => return Err("files: each is {\"name\": …, \"text\": …}".to_string()),
            }
        }
    }
    if let Some(list) = args.get("paths") {
        for p in list.as_array().ok_or("paths: a list of file paths")? {
            let path = p.as_str().ok_or("paths: a list of file paths")?;
            let text = std::fs::read_to_string(path).map_err(|e| format!("reading {path}: {e}"))?;
            out.push((path.to_string(), text));
        }
    }
    Ok(out)
}

fn scenario_input(args: &Map<String, Value>) -> Result<Input, String> {
    let value = args.get("scenario").cloned().unwrap_or_else(|| json!({}));
    Input::from_value(&value).map_err(|e| e.to_string())
}

/// One tool call's answer as JSON, or the message of what was refused.
pub fn call(name: &str, args: &Map<String, Value>, base: &str) -> Result<Value, String> {
    match name {
        "run" => {
            let input = scenario_input(args)?;
            let run = simulate(&input.scenario).map_err(|e| e.to_string())?;
            let mut value =
                serde_json::to_value(run.summary_at(input.crash_at_us)).map_err(|e| e.to_string())?;
            value["link"] = Value::String(link::page_link(base, &input.scenario, input.crash_at_us));
            Ok(value)
        }
        "compare" => {
            let input = scenario_input(args)?;
            crate::compare_value(&input).map_err(|e| e.to_string())
        }
        "import" => {
            let texts = files(args)?;
            let sources: Vec<offset_window_import::Source> =
                texts.iter().map(|(name, text)| offset_window_import::Source { name, text }).collect();
            let imported = offset_window_import::import(&sources, &import_args(args).options()?)
                .map_err(|e| e.to_string())?;
            Ok(imports::import_value(&imported, base))
        }
        "check" => {
            let over: Over = match args.get("over") {
                Some(v) => serde_json::from_value(v.clone())
                    .map_err(|_| "over: \"crash\" or \"first-event\"".to_string())?,
                None => Over::Crash,
            };
            let bound = |k: &str| args.get(k).and_then(Value::as_u64);
            let (max_lost, max_duplicated) = (bound("max_lost"), bound("max_duplicated"));
            if max_lost.is_none() && max_duplicated.is_none() {
                return Err("check: give max_lost, max_duplicated or both".to_string());
            }
            let mut loaded = imports::load(&files(args)?, &import_args(args))?;
            if args.contains_key("scenario") || loaded.is_empty() {
                loaded.push(imports::Loaded {
                    label: "scenario".into(),
                    input: scenario_input(args)?,
                    notes: Vec::new(),
                });
            }
            let mut out = Vec::new();
            let mut holds = true;
            for l in &loaded {
                for v in
                    check::check_scenario(&l.label, &l.input.scenario, over, max_lost, max_duplicated, base)?
                {
                    holds &= v.holds();
                    out.push(json!({
                        "input": v.label, "figure": v.what, "bound": v.bound, "worst": v.worst,
                        "worst_at_ms": check::at_ms(&v), "holds": v.holds(), "at_horizon_end": v.at_horizon_end,
                        "line": v.line(), "link": v.link,
                    }));
                }
            }
            let notes: Vec<&String> = loaded.iter().flat_map(|l| &l.notes).collect();
            Ok(json!({"holds": holds, "bounds": out, "notes": notes}))
        }
        other => Err(format!("no tool named {other}: the tools are run, compare, import and check")),
    }
}

/// The MCP server.
#[derive(Clone)]
pub struct Server {
    base: String,
}

impl ServerHandler for Server {
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("offset-window", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "offset-window simulates a Kafka consumer's offset commits (docs/model.md). To answer \"would this \
                 config lose records on a crash?\": call import with the configuration files (or check with \
                 max_lost 0), then run; worst.lost and worst.duplicated are the most a crash at any instant loses \
                 or repeats; give the user the link.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        Ok(match call(&request.name, &args, &self.base) {
            Ok(value) => CallToolResult::structured(value),
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        }
        .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let mut schema = Resource::new(SCHEMA_URI, "scenario-schema");
        schema.description =
            Some("The JSON Schema of a scenario, generated from the core's key table".into());
        schema.mime_type = Some("application/schema+json".into());
        Ok(ListResourcesResult::with_all_items(vec![schema]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if request.uri != SCHEMA_URI {
            return Err(McpError::resource_not_found(format!("no resource {}", request.uri), None));
        }
        let text = serde_json::to_string_pretty(&scenario_schema()).expect("a schema always serialises");
        let contents = ResourceContents::TextResourceContents {
            uri: SCHEMA_URI.to_string(),
            mime_type: Some("application/schema+json".into()),
            text,
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

/// Serves MCP on stdin and stdout until the client closes them.
pub fn serve(page_url: Option<&str>) -> Result<(), String> {
    let server = Server { base: link::base(page_url) };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the MCP server: {e}"))?;
    runtime.block_on(async move {
        let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| format!("MCP: {e}"))?;
        running.waiting().await.map_err(|e| format!("MCP: {e}"))?;
        Ok(())
    })
}
