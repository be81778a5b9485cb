//! What every page's presets share: an expectation of a `scenarios/` file checked against a
//! run ([`Check`]), and the comparison of a result value with the file's.

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
