//! Scenario keys, each declared once: the crate's `scenario_keys!` macro turns one list of
//! `field: type = default, key "name", kind, unit, help` into the struct, its `Default`, the
//! key table ([`KeySpec`]s) that `--help` and the page read, and the `set` / `get` that
//! parse and print a key. The consumer scenario ([`crate::Scenario`]) and the producer
//! scenario ([`crate::producer::ProducerScenario`]) are both declared with it.
//!
//! Times are integer microseconds (`*_us` fields); in JSON they are milliseconds with at
//! most three decimals (`*_ms`, Kafka's `*.ms` properties), read exactly from their decimal
//! text by [`parse_millis`]: `1.001` is 1001 µs, `1.0001` is an error.

use serde_json::{Map, Number, Value};
use std::fmt;

/// Microseconds in one millisecond.
pub const US_PER_MS: u64 = 1_000;

/// What kind of value a key holds, with its allowed range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// A whole number in `min..=max`.
    Count {
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// Milliseconds with at most three decimals, held in µs, in `min_us..=max_us`.
    Millis {
        /// Smallest allowed value, µs.
        min_us: u64,
        /// Largest allowed value, µs.
        max_us: u64,
    },
    /// As [`KeyKind::Millis`], or `null` for "never" / "the client's default".
    OptionalMillis {
        /// Smallest allowed value, µs.
        min_us: u64,
        /// Largest allowed value, µs.
        max_us: u64,
    },
    /// A decimal with at most three decimals, held in thousandths, in `0..=max_thousandths`.
    Thousandths {
        /// Largest allowed value, in thousandths.
        max_thousandths: u64,
    },
    /// `true` or `false`.
    Flag,
    /// `true`, `false`, or `null` for the client's default.
    OptionalFlag,
    /// One of these names.
    Choice(&'static [&'static str]),
    /// A list of whole numbers in `min..=max` (at most [`MAX_LIST`]).
    CountList {
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// A list of objects of the model's own shape (script steps, faults, group events, …),
    /// described in words.
    Structured(&'static str),
}

/// Most items a list-valued key may hold.
pub const MAX_LIST: usize = 1_000;

/// `values` ascending, without repeats (offsets: `record_failures`, records given up). Each
/// value goes in at its place by binary search, which for the lists of a page (a
/// [`MAX_LIST`], the records of a run, mostly arriving in order) is fast, and keeps a
/// general-purpose sort out of the page's wasm.
pub fn ascending_unique(values: impl IntoIterator<Item = u64>) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for v in values {
        if let Err(at) = out.binary_search(&v) {
            out.insert(at, v);
        }
    }
    out
}

/// Sorts `values` ascending: a heap sort through the standard library's `BinaryHeap`,
/// n log n like `sort_unstable` (equal values of u64 are indistinguishable: the same result)
/// at a fraction of its code, which the group page otherwise carries for its instants (the
/// sweep's candidates, the lanes' cuts, the share group's profile steps).
pub fn sort_ascending(values: &mut Vec<u64>) {
    *values = std::collections::BinaryHeap::from(std::mem::take(values)).into_sorted_vec();
}

/// One key of a scenario's JSON: its name, kind and unit. Its one-line meaning is in a
/// table of its own beside the key table (`KEY_HELP`, `PRODUCER_KEY_HELP`), so that a page
/// that never shows it does not carry it.
#[derive(Clone, Copy, Debug)]
pub struct KeySpec {
    /// The JSON key, Kafka's own property name where there is one.
    pub name: &'static str,
    /// Value kind and range.
    pub kind: KeyKind,
    /// Unit as shown to people (`"ms"`, `"records"`, …; empty for flags and names).
    pub unit: &'static str,
}

impl KeySpec {
    /// The allowed values in words, as error messages, `--help` and the page's hints give
    /// them, e.g. "a whole number from 1 to 100000".
    pub fn range(&self) -> String {
        let ms = |min_us, max_us| {
            format!(
                "a number of milliseconds from {} to {} (at most 3 decimals)",
                format_millis(min_us),
                format_millis(max_us)
            )
        };
        match self.kind {
            KeyKind::Count { min, max } => format!("a whole number from {min} to {max}"),
            KeyKind::Millis { min_us, max_us } => ms(min_us, max_us),
            KeyKind::OptionalMillis { min_us, max_us } => format!("null or {}", ms(min_us, max_us)),
            KeyKind::Thousandths { max_thousandths } => {
                format!("a number from 0 to {} with at most 3 decimals", format_millis(max_thousandths))
            }
            KeyKind::Flag => "true or false".to_string(),
            KeyKind::OptionalFlag => "true, false or null (the client's default)".to_string(),
            KeyKind::Choice(names) => {
                let quoted: Vec<_> = names.iter().map(|n| format!("\"{n}\"")).collect();
                format!("one of {}", quoted.join(", "))
            }
            KeyKind::CountList { min, max } => {
                format!("a list of at most {MAX_LIST} whole numbers from {min} to {max}")
            }
            KeyKind::Structured(words) => words.to_string(),
        }
    }

    /// The refusal of `got` for this key: "must be (range) (got (value))".
    pub fn refuse(&self, got: &Value) -> ScenarioError {
        let got = match got {
            Value::Null => "no value".to_string(),
            other => shown(other),
        };
        ScenarioError::at(self.name, format!("must be {} (got {got})", self.range()))
    }
}

/// Why a scenario was refused. `key` names the offending JSON key when there is one;
/// `message` says what was wrong and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The JSON key at fault (e.g. `max.poll.records`, `script[2]`), if the error concerns one.
    pub key: Option<String>,
    /// What was wrong, including the allowed range.
    pub message: String,
}

impl ScenarioError {
    /// An error about `key`.
    pub fn at(key: &str, message: impl Into<String>) -> Self {
        ScenarioError { key: Some(key.to_string()), message: message.into() }
    }

    /// An error about the scenario as a whole.
    pub fn whole(message: impl Into<String>) -> Self {
        ScenarioError { key: None, message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(key) => write!(f, "{key}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// A value as an error message echoes it: its JSON text, cut to 60 characters (a refused
/// 20 MB string is not printed back whole).
pub fn shown(value: &Value) -> String {
    shorten(&json_text(value))
}

/// `value`'s compact JSON text, what its `Display` writes. `Display` can also write the
/// pretty form (`{:#}`), which nothing here wants: a page that writes its values through this
/// links only the compact writer.
pub fn json_text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// `text` cut to 60 characters, saying how long it was.
pub fn shorten(text: &str) -> String {
    const MAX: usize = 60;
    match text.char_indices().nth(MAX) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}… ({} characters)", &text[..cut], text.chars().count()),
    }
}

/// A key's value: read from JSON against its [`KeySpec`], written back to JSON. Implemented
/// for the field types the scenario structs declare.
pub trait KeyValue: Sized {
    /// Reads `value` for `spec`. Errors name the key and its allowed range.
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError>;
    /// The JSON form, which [`KeyValue::read`] reads back to an equal value.
    fn write(&self, spec: &KeySpec) -> Value;
}

/// A JSON number's decimal text with a negative zero's sign dropped (`-0` and `-0.0` are 0).
fn number_text(n: &Number) -> String {
    without_negative_zero(&n.to_string()).to_string()
}

/// A number's decimal text with a negative zero's sign dropped: `-0`, `-0.0` and `-0e5` read
/// as 0 wherever a count or milliseconds are read (JSON numbers, a script's `sleep -0`).
pub fn without_negative_zero(text: &str) -> &str {
    let Some(rest) = text.strip_prefix('-') else { return text };
    // Zero whatever the exponent: a mantissa of zeros (and a point).
    let mantissa = rest.split(['e', 'E']).next().unwrap_or_default();
    if mantissa.starts_with('0') && mantissa.bytes().all(|b| matches!(b, b'0' | b'.')) {
        rest
    } else {
        text
    }
}

/// Reads a whole number in `min..=max` (`-0` is 0).
fn read_count(spec: &KeySpec, value: &Value, min: u64, max: u64) -> Result<u64, ScenarioError> {
    match value {
        Value::Number(n) => match number_text(n).parse::<u64>() {
            Ok(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(spec.refuse(value)),
        },
        other => Err(spec.refuse(other)),
    }
}

/// Reads a decimal with at most three decimals, scaled by 1000, in `min..=max`.
fn read_thousandths(spec: &KeySpec, value: &Value, min: u64, max: u64) -> Result<u64, ScenarioError> {
    let Value::Number(n) = value else { return Err(spec.refuse(value)) };
    let text = number_text(n);
    let v = parse_millis(&text).map_err(|e| {
        if text.starts_with('-') {
            spec.refuse(value)
        } else {
            ScenarioError::at(spec.name, e)
        }
    })?;
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(spec.refuse(value))
    }
}

/// A JSON number of milliseconds (or thousandths) from µs, exact: `5000001` → `5000.001`.
pub fn millis_value(us: u64) -> Value {
    // The decimal text is always a JSON number: the whole-ms fallback is never taken (and,
    // unlike `expect`, links no error formatting into the page).
    format_millis(us).parse::<Number>().map_or_else(|_| Value::from(us / US_PER_MS), Value::Number)
}

fn unexpected(spec: &KeySpec, ty: &str) -> ! {
    unreachable!("key {} has a kind a {ty} field cannot hold", spec.name)
}

impl KeyValue for u64 {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        match spec.kind {
            KeyKind::Count { min, max } => read_count(spec, value, min, max),
            KeyKind::Millis { min_us, max_us } => read_thousandths(spec, value, min_us, max_us),
            KeyKind::Thousandths { max_thousandths } => read_thousandths(spec, value, 0, max_thousandths),
            _ => unexpected(spec, "u64"),
        }
    }
    fn write(&self, spec: &KeySpec) -> Value {
        match spec.kind {
            KeyKind::Count { .. } => (*self).into(),
            _ => millis_value(*self),
        }
    }
}

impl KeyValue for u32 {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        let KeyKind::Count { min, max } = spec.kind else { unexpected(spec, "u32") };
        let v = read_count(spec, value, min, max.min(u32::MAX as u64))?;
        Ok(v as u32)
    }
    fn write(&self, _: &KeySpec) -> Value {
        (*self).into()
    }
}

impl KeyValue for Option<u64> {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        let KeyKind::OptionalMillis { min_us, max_us } = spec.kind else { unexpected(spec, "Option<u64>") };
        match value {
            Value::Null => Ok(None),
            _ => read_thousandths(spec, value, min_us, max_us).map(Some),
        }
    }
    fn write(&self, _: &KeySpec) -> Value {
        self.map_or(Value::Null, millis_value)
    }
}

impl KeyValue for bool {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        value.as_bool().ok_or_else(|| spec.refuse(value))
    }
    fn write(&self, _: &KeySpec) -> Value {
        (*self).into()
    }
}

impl KeyValue for Option<bool> {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        match value {
            Value::Null => Ok(None),
            Value::Bool(b) => Ok(Some(*b)),
            other => Err(spec.refuse(other)),
        }
    }
    fn write(&self, _: &KeySpec) -> Value {
        self.map_or(Value::Null, Value::from)
    }
}

impl KeyValue for Vec<u64> {
    fn read(spec: &KeySpec, value: &Value) -> Result<Self, ScenarioError> {
        let KeyKind::CountList { min, max } = spec.kind else { unexpected(spec, "Vec<u64>") };
        match value {
            Value::Array(items) if items.len() <= MAX_LIST => {
                // A loop rather than `collect::<Result<…>>()`: the page carries no adapter for it.
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(read_count(spec, item, min, max)?);
                }
                Ok(out)
            }
            other => Err(spec.refuse(other)),
        }
    }
    fn write(&self, _: &KeySpec) -> Value {
        self.clone().into()
    }
}

/// Reads `value` into `field` for `spec`: one function per field type, which each key of a
/// `scenario_keys!` struct's `set_key` calls (a reader inlined for every key made the
/// consumer scenario's `set_key` 16 KB of the group page's wasm; 10 KB now, mostly the
/// readers that only one key uses).
#[inline(never)]
pub fn set_field<T: KeyValue>(field: &mut T, spec: &KeySpec, value: &Value) -> Result<(), ScenarioError> {
    *field = T::read(spec, value)?;
    Ok(())
}

/// `field`'s JSON value for `spec`: as [`set_field`], one function per field type for `get`.
#[inline(never)]
pub fn field_value<T: KeyValue>(field: &T, spec: &KeySpec) -> Value {
    field.write(spec)
}

/// Declares a fieldless enum whose values have JSON / URL names and words for people, with
/// `ALL`, `NAMES`, `name`, `from_name`, `label` and [`KeyValue`] (a `Choice` key).
macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal, $label:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($(#[$vmeta])* $variant,)+ }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];
            /// The JSON / URL names of [`Self::ALL`], in the same order.
            pub const NAMES: &'static [&'static str] = &[$($text,)+];

            /// The JSON / URL name.
            pub fn name(self) -> &'static str {
                Self::NAMES[self as usize]
            }

            /// Words for people (menus, tables), never an identifier.
            pub fn label(self) -> &'static str {
                [$($label,)+][self as usize]
            }

            /// Parses a JSON / URL name; `None` when it names no value.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::NAMES.iter().position(|n| *n == name).map(|i| Self::ALL[i])
            }
        }

        impl $crate::keys::KeyValue for $name {
            fn read(spec: &$crate::keys::KeySpec, value: &serde_json::Value) -> Result<Self, $crate::keys::ScenarioError> {
                value.as_str().and_then(Self::from_name).ok_or_else(|| spec.refuse(value))
            }
            fn write(&self, _: &$crate::keys::KeySpec) -> serde_json::Value {
                self.name().into()
            }
        }
    };
}
pub(crate) use named_enum;

/// Declares a scenario struct from one list of keys. For each field: its doc comment, name,
/// type (a [`KeyValue`]) and default, then `key "json.name"`, its [`KeyKind`], unit and
/// one-line help. Generates the struct, `Default`, the key table `$KEYS`, the help table
/// `$HELP` (same order), and `set_key` / `get` (the JSON value of one key).
macro_rules! scenario_keys {
    (
        $(#[$smeta:meta])*
        pub struct $name:ident, table $KEYS:ident, help $HELP:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $default:expr,
                    key $key:literal, $kind:expr, $unit:literal, $help:literal;
            )+
        }
    ) => {
        $(#[$smeta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )+
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )+ }
            }
        }

        #[doc = concat!("Every key of [`", stringify!($name), "`], in the order `--help` lists them.")]
        pub const $KEYS: &[$crate::keys::KeySpec] = &[
            $( $crate::keys::KeySpec { name: $key, kind: $kind, unit: $unit }, )+
        ];

        #[doc = concat!("The one-line meaning of each key of [`", stringify!($KEYS), "`], in its order (`--help`).")]
        pub const $HELP: &[&str] = &[ $( $help, )+ ];

        impl $name {
            /// Sets one key from its JSON value, checking type and range. Errors name the
            /// key and its allowed range; an unknown key lists the known ones.
            pub fn set_key(&mut self, key: &str, value: &serde_json::Value) -> Result<(), $crate::keys::ScenarioError> {
                // The key is looked up once in the table, then each field is one call
                // (`set_field`) rather than a comparison and an inlined reader per key.
                let Some(at) = $KEYS.iter().position(|spec| spec.name == key) else {
                    return Err($crate::keys::unknown_key(key, $KEYS));
                };
                let mut index = 0usize;
                $(
                    if at == index {
                        return $crate::keys::set_field(&mut self.$field, &$KEYS[index], value);
                    }
                    index += 1;
                )+
                let _ = index;
                // Not reached: `at` is an index of the table.
                Ok(())
            }

            /// The JSON value of one key (milliseconds as exact decimals); `None` for an
            /// unknown key.
            pub fn get(&self, key: &str) -> Option<serde_json::Value> {
                let at = $KEYS.iter().position(|spec| spec.name == key)?;
                let mut index = 0usize;
                $(
                    if at == index {
                        return Some($crate::keys::field_value(&self.$field, &$KEYS[index]));
                    }
                    index += 1;
                )+
                let _ = index;
                None
            }

            /// Every key with its value: the canonical JSON form, which reads back to an
            /// equal scenario.
            pub fn to_json_value(&self) -> serde_json::Value {
                // Inserted one by one: collecting into the map would sort first, and each
                // `collect` links a sort of its own into the page.
                let mut map = serde_json::Map::new();
                for k in $KEYS {
                    map.insert(k.name.to_string(), self.get(k.name).expect("every key of the table has a value"));
                }
                serde_json::Value::Object(map)
            }

            /// Only the keys that differ from the defaults: the short form for links and files.
            pub fn to_json_diff(&self) -> serde_json::Value {
                let defaults = Self::default();
                let mut map = serde_json::Map::new();
                for k in $KEYS {
                    if let Some(value) = self.get(k.name).filter(|v| Some(v) != defaults.get(k.name).as_ref()) {
                        map.insert(k.name.to_string(), value);
                    }
                }
                serde_json::Value::Object(map)
            }

            /// Re-reads every key through its table entry: the ranges a struct built in code
            /// must also respect.
            fn check_ranges(&self) -> Result<(), $crate::keys::ScenarioError> {
                let mut copy = self.clone();
                for spec in $KEYS {
                    let value = self.get(spec.name).expect("every key of the table has a value");
                    copy.set_key(spec.name, &value)?;
                }
                Ok(())
            }
        }
    };
}
pub(crate) use scenario_keys;

/// The refusal of an unknown key, listing the known ones.
pub fn unknown_key(key: &str, keys: &[KeySpec]) -> ScenarioError {
    let known: Vec<_> = keys.iter().map(|k| k.name).collect();
    ScenarioError::at(&shorten(key), format!("unknown key; the keys are {}", known.join(", ")))
}

/// Parses JSON text; the error says where the syntax broke.
pub fn parse_json(text: &str) -> Result<Value, ScenarioError> {
    serde_json::from_str(text).map_err(|e| ScenarioError::whole(format!("not valid JSON: {e}")))
}

/// The object a scenario must be; `what` and `example` name it in the error.
pub fn json_object<'a>(
    value: &'a Value,
    what: &str,
    example: &str,
) -> Result<&'a Map<String, Value>, ScenarioError> {
    value
        .as_object()
        .ok_or_else(|| ScenarioError::whole(format!("{what} must be a JSON object, e.g. {example}")))
}

/// Formats µs as milliseconds with up to three decimals and no trailing zeros:
/// `5_000_001` → `"5000.001"`, `8_200_000` → `"8200"`.
pub fn format_millis(us: u64) -> String {
    let (ms, frac) = (us / US_PER_MS, us % US_PER_MS);
    if frac == 0 {
        ms.to_string()
    } else {
        format!("{ms}.{frac:03}").trim_end_matches('0').to_string()
    }
}

/// µs as a JSON-ready f64 of milliseconds. Exact in the sense that it prints as the decimal
/// [`format_millis`] gives (every value below 2^53 µs has at most 16 significant digits).
pub fn millis_f64(us: u64) -> f64 {
    us as f64 / US_PER_MS as f64
}

/// Parses a decimal text of milliseconds (JSON number syntax, an exponent allowed) into
/// µs, exactly. Errors (as a sentence) on a sign, more than three decimals, or a value
/// above `u64::MAX` µs.
pub fn parse_millis(text: &str) -> Result<u64, String> {
    let bad = || format!("`{}` is not a number of milliseconds with at most 3 decimals", shorten(text));
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i32>().map_err(|_| bad())?),
        None => (text, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int_part.is_empty() || !all_digits(int_part) || !all_digits(frac_part) {
        return Err(bad());
    }
    // value = digits × 10^(exponent − frac_len) ms = digits × 10^(exponent − frac_len + 3) µs
    let digits = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    let shift = exponent as i64 - frac_part.len() as i64 + 3;
    let (digits, shift) = if shift < 0 {
        // Only trailing zeros may be dropped; anything else is a fourth decimal.
        let drop = (-shift) as usize;
        if digits.len() >= drop && digits[digits.len() - drop..].bytes().all(|b| b == b'0') {
            (&digits[..digits.len() - drop], 0)
        } else if digits.is_empty() {
            ("", 0)
        } else {
            return Err(format!("`{}` has more than 3 decimals (the model counts whole µs)", shorten(text)));
        }
    } else {
        (digits, shift as u32)
    };
    let too_big = || format!("`{}` is too large", shorten(text));
    let mut us: u64 = if digits.is_empty() { 0 } else { digits.parse().map_err(|_| too_big())? };
    for _ in 0..shift {
        if us == 0 {
            break;
        }
        us = us.checked_mul(10).ok_or_else(too_big)?;
    }
    Ok(us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascending_unique_sorts_and_drops_repeats() {
        assert_eq!(ascending_unique([30, 12, 30, 7, 12, 31]), vec![7, 12, 30, 31]);
        assert_eq!(ascending_unique([]), Vec::<u64>::new());
        let backwards: Vec<u64> = (0..2_000).rev().collect();
        assert_eq!(ascending_unique(backwards), (0..2_000).collect::<Vec<u64>>());
    }

    #[test]
    fn sort_ascending_is_sort_unstable() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in [0usize, 1, 2, 3, 10, 100, 1_000] {
            let mut v: Vec<u64> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    (seed >> 33) % 50
                })
                .collect();
            let mut expected = v.clone();
            expected.sort_unstable();
            sort_ascending(&mut v);
            assert_eq!(v, expected, "{len} values");
        }
    }

    #[test]
    fn millis_are_read_exactly_from_their_decimal_text() {
        assert_eq!(parse_millis("1.001"), Ok(1001));
        assert_eq!(parse_millis("8200"), Ok(8_200_000));
        assert_eq!(parse_millis("0.001"), Ok(1));
        assert_eq!(parse_millis("5e3"), Ok(5_000_000));
        assert_eq!(
            parse_millis("1.5e-3"),
            Err("`1.5e-3` has more than 3 decimals (the model counts whole µs)".into())
        );
        assert_eq!(parse_millis("1.0010"), Ok(1001));
        assert!(parse_millis("1.0001").is_err());
        assert!(parse_millis("-1").is_err());
        assert!(parse_millis("99999999999999999999").is_err());
        assert_eq!(parse_millis("0"), Ok(0));
    }

    #[test]
    fn millis_format_back_to_the_shortest_text() {
        assert_eq!(format_millis(5_000_001), "5000.001");
        assert_eq!(format_millis(8_200_000), "8200");
        assert_eq!(format_millis(1_500), "1.5");
        assert_eq!(millis_f64(5_000_001).to_string(), "5000.001");
    }

    #[test]
    fn long_values_are_echoed_cut_short() {
        let long = Value::String("x".repeat(20_000_000));
        let text = shown(&long);
        assert!(text.len() < 100, "{} bytes", text.len());
        assert!(text.ends_with("… (20000002 characters)"), "{text}");
    }

    #[test]
    fn negative_zero_is_zero() {
        let spec = KeySpec { name: "n", kind: KeyKind::Count { min: 0, max: 5 }, unit: "" };
        let minus_zero: Value = serde_json::from_str("-0").unwrap();
        assert_eq!(u64::read(&spec, &minus_zero), Ok(0));
        let ms = KeySpec { name: "t", kind: KeyKind::Millis { min_us: 0, max_us: 5 }, unit: "" };
        assert_eq!(u64::read(&ms, &serde_json::from_str("-0.0").unwrap()), Ok(0));
        assert_eq!(u64::read(&ms, &serde_json::from_str("-0e3").unwrap()), Ok(0));
        assert_eq!(u64::read(&ms, &serde_json::from_str("-0.00E+12").unwrap()), Ok(0));
        assert_eq!(without_negative_zero("-0.5"), "-0.5");
        assert_eq!(without_negative_zero("-10"), "-10");
        assert!(u64::read(&ms, &serde_json::from_str("-1").unwrap())
            .unwrap_err()
            .message
            .starts_with("must be"));
    }
}
