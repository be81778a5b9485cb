//! What every page's presets share: an expectation of a `scenarios/` file checked against a
//! run ([`Check`]), the comparison of a result value with the file's, and the files a page
//! fetches on use ([`Fetched`], [`fetched_text`]).

use serde_json::Value;

/// One expectation checked against a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// The JSON pointer into the result.
    pub pointer: String,
    /// The value the core gives now, as JSON text.
    pub got: String,
    /// Whether it is what the file expects.
    pub ok: bool,
    /// The sentence a reader sees.
    pub sentence: String,
}

/// "record" after a count of 1, "records" after any other.
pub fn records_word(n: &str) -> &'static str {
    if n == "1" {
        "record"
    } else {
        "records"
    }
}

/// Whether a result value is what a scenario file expects: numbers compare by their decimal
/// text with trailing fraction zeros dropped (the core writes `4825.0` where a file says
/// `4825`); exact, and without the float parser `as_f64` would add (15 KB of wasm).
pub fn same_value(got: &Value, want: &Value) -> bool {
    use serde_json::Value::Number;
    fn plain(text: &str) -> &str {
        if text.contains('.') && !text.contains(['e', 'E']) {
            text.trim_end_matches('0').trim_end_matches('.')
        } else {
            text
        }
    }
    match (got, want) {
        (Number(a), Number(b)) => plain(&a.to_string()) == plain(&b.to_string()),
        _ => got == want,
    }
}

/// A page's presets' files fetched on use: `presets.json`, written beside the page by the
/// first-frame binary, one JSON array of the files in the page's presets' order. Each page
/// keeps one in a `thread_local!` (the pages are single-threaded).
#[derive(Default)]
pub struct Fetched(std::cell::RefCell<Vec<Value>>);

impl Fetched {
    /// An empty store (for `thread_local!`).
    pub const fn new() -> Fetched {
        Fetched(std::cell::RefCell::new(Vec::new()))
    }

    /// Takes `presets.json`'s text; whether it read as `count` files (else nothing changes).
    pub fn install(&self, text: &str, count: usize) -> bool {
        match serde_json::from_str::<Vec<Value>>(text) {
            Ok(files) if files.len() == count => {
                *self.0.borrow_mut() = files;
                true
            }
            _ => false,
        }
    }

    /// Whether the files are here.
    pub fn is_installed(&self) -> bool {
        !self.0.borrow().is_empty()
    }

    /// Preset `index`'s file: its `carried` text (a page's `json` field) when the page
    /// carries it, else the fetched file, if installed.
    pub fn file(&self, index: usize, carried: &str) -> Option<Value> {
        if carried.is_empty() {
            return self.0.borrow().get(index).cloned();
        }
        serde_json::from_str(carried).ok()
    }
}

/// `presets.json`'s text: `files` (JSON texts) as one array.
pub fn json_array<'a>(files: impl Iterator<Item = &'a str>) -> String {
    format!("[{}]", files.collect::<Vec<_>>().join(","))
}

/// Text a page fetches on use (`presets.json`) rather than carries: itself natively (the
/// tests, the first-frame binary that writes `presets.json`) and in a wasm built with
/// `embedded-presets` (the slide module, the browser tests); empty in the pages' wasm.
#[cfg(any(not(target_arch = "wasm32"), feature = "embedded-presets"))]
macro_rules! fetched_text {
    ($text:expr) => {
        $text
    };
}

/// Text a page fetches on use: empty in the pages' wasm (see the other definition).
#[cfg(all(target_arch = "wasm32", not(feature = "embedded-presets")))]
macro_rules! fetched_text {
    ($text:expr) => {
        ""
    };
}

pub(crate) use fetched_text;
