//! What every page's link (the URL fragment) shares: values percent-encoded as
//! `encodeURIComponent` does, and decoded.

/// The link key of a tour's step, on every page (`tour=2`; the group page's share tour
/// `tour=share-2`). The consumer page's older links said `step=2`, still read.
pub const TOUR_KEY: &str = "tour";

use percent_encoding::percent_decode_str;

/// A value percent-encoded as `encodeURIComponent` does: letters, digits and `-_.!~*'()` left
/// alone, every other byte of its UTF-8 as `%XX`. (Written here rather than with
/// `percent_encoding::utf8_percent_encode`, whose 768-byte table of every `%XX` costs each
/// page 0.34 KB of its brotli budget; the decoding stays the crate's.)
pub fn encode(s: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.extend(['%', HEX[usize::from(b >> 4)] as char, HEX[usize::from(b & 15)] as char]);
        }
    }
    out
}

/// A percent-encoded value decoded; text that is not valid UTF-8 once decoded is kept as it
/// was (the page then names it in a notice).
pub fn decode(s: &str) -> String {
    percent_decode_str(s).decode_utf8().map(|c| c.into_owned()).unwrap_or_else(|_| s.to_string())
}

/// A link's fragment (with or without `#`) as its `key=value` pairs, each decoded; a pair
/// without `=` has an empty value, empty pairs are left out. Every page reads its link so.
pub fn pairs(fragment: &str) -> Vec<(String, String)> {
    fragment
        .trim_start_matches('#')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// The preset a link names (`preset=SLUG` among `pairs`): its index in `slugs`; 0 when the
/// link names none, or names one not in `slugs` — then `refused` gets a notice naming the
/// allowed ones. The transactions and pipeline pages read their presets so.
pub fn preset_index(pairs: &[(String, String)], slugs: &[&str], refused: &mut Vec<String>) -> usize {
    let Some((_, slug)) = pairs.iter().find(|(k, _)| k == "preset") else {
        return 0;
    };
    slugs.iter().position(|s| s == slug).unwrap_or_else(|| {
        refused
            .push(format!("The link's preset={slug} was not used: a preset is one of {}", slugs.join(", ")));
        0
    })
}

/// What a link's refused pairs say, as one notice (each cut short by [`echo_cut_short`]);
/// `None` when nothing was refused.
pub fn refused_notice(refused: Vec<String>) -> Option<String> {
    let text: Vec<String> = refused.into_iter().map(echo_cut_short).collect();
    (!text.is_empty()).then(|| text.join(" "))
}

/// A notice with the link's key and value it echoes ("The link's KEY=VALUE was not used…")
/// cut to 60 characters each, as the core's messages echo input: a link's 2 MB value is
/// not shown back whole.
pub fn echo_cut_short(notice: String) -> String {
    const PREFIX: &str = "The link's ";
    let Some(rest) = notice.strip_prefix(PREFIX) else { return notice };
    let end = rest.rfind(" was not used").or_else(|| rest.find(" is outside")).unwrap_or(rest.len());
    let (pair, tail) = rest.split_at(end);
    let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
    let short = |text: &str| offset_window_sim::keys::shorten(text);
    if key.chars().count() <= 60 && value.chars().count() <= 60 {
        return notice;
    }
    let sep = if pair.contains('=') { "=" } else { "" };
    format!("{PREFIX}{}{sep}{}{tail}", short(key), short(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_is_encode_uri_component_and_decode_its_inverse() {
        // What a browser's encodeURIComponent gives for the same text.
        let text = "a b&c=ü€'()*~!._-#%/";
        assert_eq!(encode(text), "a%20b%26c%3D%C3%BC%E2%82%AC'()*~!._-%23%25%2F");
        assert_eq!(decode(&encode(text)), text);
    }
}
