//! Exact time formatting (integer µs, no float printing), offsets, offset ranges and HTML
//! escaping, as every page shows them: labels and numbers for a reader, never identifiers.

use offset_window_sim::compare::Refused;
use offset_window_sim::scenario::{format_millis, parse_millis, US_PER_MS};
use std::ops::Range;

/// Parses seconds with at most six decimals into µs, exactly (no float): `"5.000001"` is
/// 5 000 001 µs.
pub fn parse_seconds(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if text.contains(['e', 'E']) {
        return Err(format!("`{text}` is not a plain number of seconds"));
    }
    // seconds = milliseconds × 10³: let the core's exact decimal reader do the work.
    parse_millis(&format!("{text}e3"))
}

/// µs as seconds, at least three decimals and as many more (up to six) as needed to be
/// exact: `8_200_000` → `"8.200"`, `5_000_001` → `"5.000001"`.
pub fn seconds_text(us: u64) -> String {
    let (s, frac) = (us / (1_000 * US_PER_MS), us % (1_000 * US_PER_MS));
    let digits = format!("{frac:06}");
    let trimmed = digits.trim_end_matches('0');
    let shown = if trimmed.len() <= 3 { &digits[..3] } else { trimmed };
    format!("{s}.{shown}")
}

/// µs as milliseconds text, exact (`5000.001`).
pub fn millis_text(us: u64) -> String {
    format_millis(us)
}

/// `x` (≥ 0) with `decimals` decimals, rounded half away from zero: `fixed(0.1666, 2)` is
/// `"0.17"`. Integer arithmetic only, so the page carries no float-formatting code.
pub fn fixed(x: f64, decimals: u32) -> String {
    let scale = 10u64.pow(decimals);
    let n = (x.max(0.0) * scale as f64).round() as u64;
    if decimals == 0 {
        return n.to_string();
    }
    let frac = (n % scale).to_string();
    let pad = "0".repeat(decimals as usize - frac.len());
    format!("{}.{pad}{frac}", n / scale)
}

/// An offset shifted by the display base, or "none" (a new group with no committed offset,
/// a consumer that has not polled yet).
pub fn offset_text(offset: Option<u64>, base: u64) -> String {
    offset.map_or("none".to_string(), |o| (o.saturating_add(base)).to_string())
}

/// "just after 5.000 s (5.000001 s)" for an instant 1 µs after a whole millisecond, else
/// "at 8.200 s".
pub fn instant_text(us: u64) -> String {
    if us % 1_000 == 1 {
        format!("just after {} s ({} s)", seconds_text(us - 1), seconds_text(us))
    } else {
        format!("at {} s", seconds_text(us))
    }
}

/// As [`instant_text`] without the exact instant: "just after 5.000 s", "at 8.200 s".
pub fn short_instant(us: u64) -> String {
    if us % 1_000 == 1 {
        format!("just after {} s", seconds_text(us - 1))
    } else {
        format!("at {} s", seconds_text(us))
    }
}

/// Half-open offset ranges as a reader writes them, shifted by `base`: `25–39, 41`, or
/// "none".
pub fn ranges(rs: &[Range<u64>], base: u64) -> String {
    if rs.is_empty() {
        return "none".into();
    }
    let parts: Vec<String> = rs
        .iter()
        .map(|r| {
            let (a, b) = (r.start.saturating_add(base), (r.end - 1).saturating_add(base));
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    parts.join(", ")
}

/// Seconds as a field shows them: exact, with only the decimals they need (`8.2`, `10`,
/// `5.000001`); [`parse_seconds`] reads them back.
pub fn seconds_field(us: u64) -> String {
    let text = seconds_text(us);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Text for HTML: `&`, `<`, `>` and `"` escaped.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The rows a comparison left out, as notes under its table: "Left out: a; b. Why." for each
/// refusal, each row said by `name`.
pub fn left_out_html<T>(left_out: &Refused<T>, name: impl Fn(&T) -> String) -> String {
    let mut out = String::new();
    for (rows, why) in left_out {
        let names: Vec<_> = rows.iter().map(&name).collect();
        out.push_str(&format!(
            r#"<p class="note">Left out: {}. {}.</p>"#,
            escape(&names.join("; ")),
            escape(&why.to_string())
        ));
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact() {
        assert_eq!(seconds_text(8_200_000), "8.200");
        assert_eq!(seconds_text(5_000_001), "5.000001");
        assert_eq!(parse_seconds("5.000001"), Ok(5_000_001));
        assert_eq!(parse_seconds(" 13 "), Ok(13_000_000));
        assert!(parse_seconds("1e3").is_err());
        assert!(parse_seconds("1.0000001").is_err());
        assert_eq!(fixed(0.1666, 2), "0.17");
        assert_eq!(fixed(9.05, 1), "9.1");
        assert_eq!(fixed(3.0, 0), "3");
        assert_eq!(
            (seconds_field(8_200_000), seconds_field(10_000_000), seconds_field(5_000_001)),
            ("8.2".into(), "10".into(), "5.000001".into())
        );
        assert_eq!(parse_seconds(&seconds_field(10_000_001)), Ok(10_000_001));
    }

    #[test]
    fn ranges_and_offsets_read_as_a_reader_writes_them() {
        assert_eq!(ranges(&[25..40, 41..42], 0), "25–39, 41");
        assert_eq!(ranges(&[25..40, 50..51], 1000), "1025–1039, 1050");
        assert_eq!(ranges(&[], 0), "none");
        assert_eq!(offset_text(None, 5), "none");
        assert_eq!(offset_text(Some(25), 1000), "1025");
        assert_eq!(instant_text(5_000_001), "just after 5.000 s (5.000001 s)");
        assert_eq!(instant_text(8_200_000), "at 8.200 s");
    }
}
