//! What every page's link (the URL fragment) shares: values percent-encoded as
//! `encodeURIComponent` does, and decoded.

/// The link key of a tour's step, on every page (`tour=2`; the group page's share tour
/// `tour=share-2`). The consumer page's older links said `step=2`, still read.
pub const TOUR_KEY: &str = "tour";

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// What `encodeURIComponent` leaves alone: letters, digits and `-_.!~*'()`.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// A value percent-encoded as `encodeURIComponent` does.
pub fn encode(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
}

/// A percent-encoded value decoded; text that is not valid UTF-8 once decoded is kept as it
/// was (the page then names it in a notice).
pub fn decode(s: &str) -> String {
    percent_decode_str(s).decode_utf8().map(|c| c.into_owned()).unwrap_or_else(|_| s.to_string())
}
