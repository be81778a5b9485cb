//! The crash instant as the reader moves it: the slider's keyboard steps and the snapping
//! of a drag to whole milliseconds. Shared by the live page and the first frame.

use offset_window_sim::scenario::US_PER_MS;

/// The keyboard step of the crash slider: 1, 2 or 5 × 10^k µs, about 1/240 of the horizon
/// (50 ms for the default 12 s).
pub fn crash_key_step_us(horizon_us: u64) -> u64 {
    let raw = (horizon_us / 240).max(1);
    let mut mag = 1u64;
    while mag * 10 <= raw {
        mag *= 10;
    }
    [1, 2, 5, 10].into_iter().map(|m| m * mag).find(|&s| s >= raw).unwrap_or(10 * mag)
}

/// Where a key press moves the crash from `at` (µs), on the grid of `step`; `None` for keys
/// the slider does not handle.
pub fn crash_key_target(key: &str, at: u64, step: u64, horizon: u64) -> Option<u64> {
    let up = |n: u64| (at / step + n) * step;
    let down = |n: u64| (at.div_ceil(step)).saturating_sub(n) * step;
    let target = match key {
        "ArrowRight" | "ArrowUp" => up(1),
        "ArrowLeft" | "ArrowDown" => down(1),
        "PageUp" => up(10),
        "PageDown" => down(10),
        "Home" => 1,
        "End" => horizon,
        _ => return None,
    };
    Some(target.clamp(1, horizon))
}

/// A slider position or a pointer on the chart, µs, snapped to whole milliseconds (a
/// reader drags to round instants; exact instants come from the worst-case buttons and the
/// seconds field) when the horizon is long enough for that to be invisible.
pub fn snap_drag_us(us: f64, horizon_us: u64) -> u64 {
    let us = us.max(0.0).round() as u64;
    let snapped =
        if horizon_us >= 1_000 * US_PER_MS { (us + US_PER_MS / 2) / US_PER_MS * US_PER_MS } else { us };
    snapped.clamp(1, horizon_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_step_50_ms_over_the_default_horizon() {
        let h = 12_000_000;
        let step = crash_key_step_us(h);
        assert_eq!(step, 50_000);
        assert_eq!(crash_key_target("ArrowLeft", 8_200_000, step, h), Some(8_150_000));
        assert_eq!(crash_key_target("PageUp", 8_210_000, step, h), Some(8_700_000));
        assert_eq!(crash_key_target("Home", 8_200_000, step, h), Some(1));
        assert_eq!(crash_key_target("End", 8_200_000, step, h), Some(h));
        assert_eq!(crash_key_target("x", 8_200_000, step, h), None);
        assert_eq!(snap_drag_us(8_200_499.0, h), 8_200_000);
        assert_eq!(snap_drag_us(-5.0, h), 1);
        assert_eq!(snap_drag_us(1_234.0, 500_000), 1_234, "a short horizon keeps µs");
    }
}
