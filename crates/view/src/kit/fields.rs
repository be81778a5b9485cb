//! A field of a page, as every page's field table describes it: the scenario key, its label
//! (Kafka's property name where there is one, else words, never an identifier), unit, a
//! one-line hint and the comfortable range of its slider; a numeric key's allowed values in
//! the pages' words, read from the core's key table.

use offset_window_sim::scenario::{format_millis, KeyKind, KeySpec};

/// One field of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The scenario key (a name from `scenario::KEYS`).
    pub key: &'static str,
    /// What the label says.
    pub label: &'static str,
    /// Whether the label is a Kafka property name (shown as code).
    pub kafka: bool,
    /// The unit, as shown.
    pub unit: &'static str,
    /// One line on what it does.
    pub hint: &'static str,
    /// The slider's range (min, max, step) in the unit; `None` for a text field only.
    pub slider: Option<(u32, u32, u32)>,
    /// Whether it sits in the "advanced" group.
    pub advanced: bool,
}

/// A [`Field`], for the pages' tables.
pub const fn field(
    key: &'static str,
    label: &'static str,
    kafka: bool,
    unit: &'static str,
    hint: &'static str,
    slider: Option<(u32, u32, u32)>,
    advanced: bool,
) -> Field {
    Field { key, label, kafka, unit, hint, slider, advanced }
}

/// The allowed values of a numeric key in the pages' words, from its entry in the core's key
/// table: "a whole number from 1 to 100000", "0 to 60000 ms, at most 3 decimals", and for an
/// optional key, whose field is empty when it has no value (JSON's `null`), "empty for
/// never, or 100 to 3600000 ms, at most 3 decimals". `None` for keys of other kinds.
pub fn numeric_range(spec: &KeySpec) -> Option<String> {
    let ms = |min_us, max_us| {
        format!("{} to {} ms, at most 3 decimals", format_millis(min_us), format_millis(max_us))
    };
    Some(match spec.kind {
        KeyKind::Count { min, max } => format!("a whole number from {min} to {max}"),
        KeyKind::Millis { min_us, max_us } => ms(min_us, max_us),
        KeyKind::OptionalMillis { min_us, max_us } => format!("empty for never, or {}", ms(min_us, max_us)),
        KeyKind::Thousandths { max_thousandths } => {
            format!("a number from 0 to {}, at most 3 decimals", format_millis(max_thousandths))
        }
        _ => return None,
    })
}

/// Text typed into a field as the JSON value the core reads: a number when it reads as one
/// (its decimal text kept exactly; "1." is "1" half typed), `null` when empty or "null"
/// ("never", for the optional keys), else a string, so that the core's message quotes what
/// was typed.
pub fn typed_value(text: &str) -> serde_json::Value {
    use serde_json::Value;
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed == "null" {
        return Value::Null;
    }
    let number = trimmed.strip_suffix('.').unwrap_or(trimmed);
    match number.parse::<serde_json::Number>() {
        Ok(n) => Value::Number(n),
        Err(_) => Value::String(trimmed.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::typed_value;
    use serde_json::json;

    #[test]
    fn typed_text_reads_as_the_core_reads_it() {
        assert_eq!(typed_value(" 25 "), json!(25));
        assert_eq!(typed_value("1."), json!(1));
        assert_eq!(typed_value("0.125").to_string(), "0.125");
        assert_eq!(typed_value(""), json!(null));
        assert_eq!(typed_value("null"), json!(null));
        assert_eq!(typed_value("abc"), json!("abc"));
    }
}
