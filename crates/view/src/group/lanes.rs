//! Drawing the group page: pure functions of a run, its [`timeline`](super::timeline) and a
//! [`Lanes`] layout, generic over the plotters [`DrawingBackend`] like the consumer page's
//! charts ([`crate::kit::draw`], whose palettes, step lines and hatching they share), so the
//! canvas in the browser and the SVG backend in tests draw alike.
//!
//! One shared time axis for three drawings: the **lanes** (a row of handles for the group
//! events, a small multiple of the three lines per partition with a bar of its owner's
//! colour, a row per member with what it is doing), the **sweep** (the group's total lost
//! and processed twice as a function of the first event's instant, docs/model.md §10.7)
//! and the share group's **strip** (each record's state over time, §11). All three use the
//! same left and right margins, so an instant is at the same x in each.

use super::timeline::{Activity, RecordLine, RecordState, Span};
use super::words::{event_tag, member_name, partition_name};
pub use super::zoom::{is_overview, zoom_choices, zoomed, Zoom, OVERVIEW_PARTITIONS, ZOOM_PARTITIONS};
use crate::kit::draw::DrawSegments;
use crate::kit::draw::{self as charts, draw_bands, Frame, Hatch, Palette, RowFill, DARK, LIGHT};
use offset_window_sim::events::{GroupEvent, GroupEventKind};
use offset_window_sim::sweep::GroupProfile;
use offset_window_sim::{MemberId, Run, Step};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Result of a drawing call.
pub type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Left margin, CSS px: the lanes' names.
pub const LEFT: f64 = 84.0;
/// Right margin, CSS px.
pub const RIGHT: f64 = 14.0;
/// The row of event handles at the top, CSS px.
const EVENTS_H: f64 = 30.0;
/// Under the last lane: tick labels and the axis title, CSS px.
const BOTTOM: f64 = 42.0;
/// Between the partitions and the members, CSS px.
const SECTION_GAP: f64 = 10.0;
/// The least a member's lane gets, CSS px, when the canvas is short (a projector, an embed):
/// its label's line (12 px type), taken from the partitions' lanes.
const MEMBER_LINE: f64 = 14.0;
/// The least factor on the partitions' CSS heights when the canvas is short.
const MIN_SHARE: f64 = 0.2;

/// A member's colour in the light palette (the member lanes and the owner bars): distinct
/// hues, each at least 3:1 against white (WCAG 1.4.11); the ninth member takes the first.
pub const MEMBERS_LIGHT: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0x00, 0x7A, 0x5A),
    RGBColor(0xB0, 0x45, 0x7D),
    RGBColor(0x8A, 0x6D, 0x00),
    RGBColor(0x5F, 0x4B, 0xB6),
    RGBColor(0xA3, 0x46, 0x1B),
    RGBColor(0x2E, 0x7D, 0x8C),
    RGBColor(0x5E, 0x5E, 0x5E),
];

/// The same hues for the dark background, each at least 3:1 against it.
pub const MEMBERS_DARK: [RGBColor; 8] = [
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x1F, 0xBF, 0x8F),
    RGBColor(0xE5, 0x8F, 0xC0),
    RGBColor(0xD9, 0xB4, 0x30),
    RGBColor(0xA8, 0x97, 0xF0),
    RGBColor(0xF0, 0x8A, 0x5D),
    RGBColor(0x5C, 0xC8, 0xD9),
    RGBColor(0xB0, 0xB0, 0xB0),
];

/// The colour of member `m` (index from 0).
pub fn member_color(m: MemberId, dark: bool) -> RGBColor {
    let list = if dark { &MEMBERS_DARK } else { &MEMBERS_LIGHT };
    list[m as usize % list.len()]
}

/// The CSS colour of member `m` (index from 0), for the page's legend swatches.
pub fn member_css(m: MemberId, dark: bool) -> String {
    let c = member_color(m, dark);
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// Above this many members their lanes are thin rows too, filled by what each is doing.
pub const OVERVIEW_MEMBERS: usize = 32;
/// The CSS height an overview's partitions share out.
const OVERVIEW_PARTITIONS_H: f64 = 384.0;
/// The CSS height an overview's members share out.
const OVERVIEW_MEMBERS_H: f64 = 192.0;

/// One partition's and one member's lane for this many of each, CSS px: (lane, gap below it)
/// each; an overview's rows have no gap.
fn lane_heights(partitions: usize, members: usize) -> ((f64, f64), (f64, f64)) {
    let p = match partitions {
        0..=3 => (62.0, 4.0),
        4..=6 => (46.0, 4.0),
        7..=12 => (32.0, 4.0),
        13..=OVERVIEW_PARTITIONS => (20.0, 4.0),
        n => ((OVERVIEW_PARTITIONS_H / n as f64).max(0.5), 0.0),
    };
    let m = match members {
        0..=8 => (20.0, 3.0),
        9..=16 => (14.0, 3.0),
        17..=OVERVIEW_MEMBERS => (9.0, 3.0),
        n => ((OVERVIEW_MEMBERS_H / n as f64).max(0.5), 0.0),
    };
    (p, m)
}

/// The CSS height the lanes want for this many partitions and members (the projector
/// screen gives them what it has instead).
pub fn css_height(partitions: usize, members: usize) -> f64 {
    let ((ph, pg), (mh, mg)) = lane_heights(partitions, members);
    EVENTS_H + (ph + pg) * partitions as f64 + SECTION_GAP + (mh + mg) * members as f64 + BOTTOM
}

/// Which rows of an overview get a label: every `step`-th, the step a power of two that
/// keeps labels `line` device px apart at rows `row` device px tall (1 outside an overview).
fn label_step(row: f64, line: f64) -> usize {
    let mut step = 1;
    while (step as f64) * row < line && step < 1 << 16 {
        step *= 2;
    }
    step
}

/// Where everything goes on a lanes canvas, device px.
#[derive(Clone, Debug, PartialEq)]
pub struct Lanes {
    /// x of t = 0.
    pub left: f64,
    /// x of the horizon.
    pub right: f64,
    /// The row of event handles: `events.0..events.1`.
    pub events: (f64, f64),
    /// Each partition's lane: (top, bottom).
    pub partitions: Vec<(f64, f64)>,
    /// The partition each lane shows (its index: `orders-N`), ascending: every partition, or
    /// those a zoom picked ([`Lanes::showing`]).
    pub shown: Vec<usize>,
    /// Each member's lane: (top, bottom).
    pub members: Vec<(f64, f64)>,
    /// The time axis's y (under the last lane).
    pub axis: f64,
    /// The time axis runs over `0..=horizon_us`.
    pub horizon_us: u64,
    /// Device px per CSS px (devicePixelRatio, times the projector's type scale).
    pub scale: f64,
    /// The dark palette.
    pub dark: bool,
    /// Text size factor of the backend (1 for a canvas, 1.24 for plotters' SVG).
    pub font: f64,
}

impl Lanes {
    /// The layout of `partitions` and `members` lanes on a canvas of `size` device px: the
    /// lanes share out the height the fixed parts leave, in the ratio of their CSS heights,
    /// except that a member's lane keeps at least its label's line ([`MEMBER_LINE`]) while
    /// the partitions' lanes can give it.
    pub fn new(size: (u32, u32), scale: f64, horizon_us: u64, partitions: usize, members: usize) -> Lanes {
        let (w, h) = (size.0 as f64, size.1 as f64);
        let left = (LEFT * scale).round();
        let right = (w - RIGHT * scale).round().max(left + 1.0);
        let ((ph, pg), (mh, mg)) = lane_heights(partitions, members);
        let (p_wanted, m_wanted) = ((ph + pg) * partitions as f64, (mh + mg) * members as f64);
        let room = h / scale - EVENTS_H - SECTION_GAP - BOTTOM;
        let k = (room / (p_wanted + m_wanted).max(1.0)).max(0.2);
        // Each section's factor on its CSS heights: the members' raised to their line when
        // the shared factor would squeeze their labels together (an overview labels only
        // some rows, so its members take the shared factor).
        let k_members = if members > OVERVIEW_MEMBERS {
            k.min(1.0)
        } else {
            k.max(MEMBER_LINE.min(mh + mg) / (mh + mg)).min(k.max(1.0))
        };
        // When the partitions' least share leaves the members less than their lines (an
        // overview of many partitions with 9–32 members on a projector screen), the members
        // get what is left and only some are named ([`draw_lanes`]), so every lane stays on the
        // canvas.
        let k_members = if partitions == 0 {
            k_members
        } else {
            k_members.min(((room - MIN_SHARE * p_wanted) / m_wanted.max(1.0)).max(k))
        };
        let k_partitions = if partitions == 0 {
            k
        } else {
            ((room - m_wanted * k_members) / p_wanted).max(MIN_SHARE).min(k.max(1.0))
        };
        let mut y = EVENTS_H * scale;
        let events = (0.0, y);
        let lane = |y: &mut f64, height: f64, gap: f64, k: f64| {
            let top = y.round();
            *y += height * k * scale;
            (top, (*y - gap * k * scale).round().max(top + 1.0))
        };
        let partitions: Vec<(f64, f64)> =
            (0..partitions).map(|_| lane(&mut y, ph + pg, pg, k_partitions)).collect();
        y += SECTION_GAP * scale;
        let members = (0..members).map(|_| lane(&mut y, mh + mg, mg, k_members)).collect();
        Lanes {
            left,
            right,
            events,
            shown: (0..partitions.len()).collect(),
            partitions,
            members,
            axis: y.round(),
            horizon_us: horizon_us.max(1),
            scale,
            dark: false,
            font: 1.0,
        }
    }

    /// [`Lanes::new`] for the partitions `shown` only (ascending indexes), a lane each.
    pub fn showing(
        size: (u32, u32),
        scale: f64,
        horizon_us: u64,
        shown: Vec<usize>,
        members: usize,
    ) -> Lanes {
        Lanes { shown: shown.clone(), ..Lanes::new(size, scale, horizon_us, shown.len(), members) }
    }

    /// The colours.
    pub fn pal(&self) -> &'static Palette {
        if self.dark {
            &DARK
        } else {
            &LIGHT
        }
    }

    /// The x of instant `t_us`, device px.
    pub fn x(&self, t_us: u64) -> f64 {
        self.left + (self.right - self.left) * (t_us.min(self.horizon_us) as f64 / self.horizon_us as f64)
    }

    /// The instant under device x, µs, clamped into `0..=horizon_us`.
    pub fn time_at(&self, x: f64) -> u64 {
        let f = ((x - self.left) / (self.right - self.left)).clamp(0.0, 1.0);
        (f * self.horizon_us as f64).round() as u64
    }

    fn px(&self, css: f64) -> f64 {
        css * self.scale
    }

    fn width_px(&self, css: f64) -> u32 {
        (css * self.scale).round().max(1.0) as u32
    }

    fn font_px(&self, css: f64) -> f64 {
        css * self.scale * self.font
    }

    /// A frame for one lane `(top, bottom)` with values `0..=y_max`, for the consumer
    /// page's step lines and hatching.
    fn frame(&self, (top, bottom): (f64, f64), y_max: f64) -> Frame {
        Frame {
            left: self.left,
            top,
            right: self.right,
            bottom,
            horizon_us: self.horizon_us,
            y_max: y_max.max(1.0),
            scale: self.scale,
            dark: self.dark,
            font: self.font,
            titles: ("", ""),
        }
    }

    /// The event whose handle (or line) is nearest device x, within 14 CSS px (a finger's
    /// half width).
    pub fn event_at(&self, events: &[GroupEvent], x: f64) -> Option<usize> {
        events
            .iter()
            .enumerate()
            .map(|(i, e)| (i, (self.x(e.at_us) - x).abs()))
            .filter(|&(_, d)| d <= self.px(14.0))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }

    /// Where each event's handle is, CSS px from the canvas's top left, as
    /// `"index:x,y;…"` (for tests and the end-to-end checks that drag it there).
    pub fn targets(&self, events: &[GroupEvent]) -> String {
        let y = ((self.events.0 + self.events.1) / 2.0 / self.scale).round() as i64;
        events
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{i}:{},{y}", (self.x(e.at_us) / self.scale).round() as i64))
            .collect::<Vec<_>>()
            .join(";")
    }
}

/// What the lanes draw besides the run: the events (as the scenario holds them), the one
/// being edited, and a share group's crash instant.
#[derive(Clone, Copy, Debug)]
pub struct Marks<'a> {
    /// The scenario's `group_events`.
    pub events: &'a [GroupEvent],
    /// The event being edited or dragged (drawn heavier).
    pub selected: Option<usize>,
    /// A share group's crash of the whole group, µs.
    pub crash_at_us: Option<u64>,
}

/// The highest value a partition's position or committed line reaches.
fn top_value(run: &Run, p: usize) -> u64 {
    let lines = &run.partitions[p];
    let max = |steps: &[Step<Option<u64>>]| steps.iter().filter_map(|s| s.value).max().unwrap_or(0);
    max(&lines.position).max(max(&lines.committed)).max(lines.durable_frontier.last().map_or(0, |s| s.value))
}

/// Draws the lanes: [`draw_run`], then [`draw_marks`] over it.
pub fn draw_lanes<DB: DrawSegments>(
    root: &DrawingArea<DB, Shift>,
    run: &Run,
    owners: &[Vec<Span<Option<MemberId>>>],
    members: &[Vec<Span<Activity>>],
    l: &Lanes,
    marks: Marks,
) -> DrawResult<DB> {
    draw_run(root, run, owners, members, l)?;
    draw_marks(root, run, l, marks)
}

/// Draws what the run decides on the lanes: grid, each partition's three lines and owner
/// bar, each member's activity, the time axis. The page draws it on one canvas and the
/// marks ([`draw_marks`]) on another above it, so that a drag previewed redraws the marks
/// alone.
pub fn draw_run<DB: DrawSegments>(
    root: &DrawingArea<DB, Shift>,
    run: &Run,
    owners: &[Vec<Span<Option<MemberId>>>],
    members: &[Vec<Span<Activity>>],
    l: &Lanes,
) -> DrawResult<DB> {
    let p = l.pal();
    root.fill(&p.background)?;
    let (left, right) = (l.left as i32, l.right as i32);
    let bottom = l.axis as i32;
    let label = (FontFamily::SansSerif, l.font_px(12.0))
        .into_font()
        .color(&p.axis)
        .pos(Pos::new(HPos::Right, VPos::Center));
    // Grid: one vertical line per tick across every lane.
    let axis_frame = l.frame((l.events.1, l.axis), 1.0);
    let grid = p.grid.stroke_width(l.width_px(1.0));
    let ticks = charts::time_ticks(&axis_frame).1;
    for s in &ticks {
        let x = l.x((s * 1e6).round() as u64).round() as i32;
        root.draw(&PathElement::new(vec![(x, l.events.1 as i32), (x, bottom)], grid))?;
    }
    // An overview (issue 28): each partition a thin row in its owner's colour (white where
    // it has none: stalled), each member a thin row filled by what it is doing; a label on
    // every `step`-th row.
    let overview = is_overview(l.partitions.len(), run.scenario.share_group());
    let row = |lanes: &[(f64, f64)]| match (lanes.first(), lanes.last()) {
        (Some(first), Some(last)) => (last.1 - first.0) / lanes.len() as f64,
        _ => 1.0,
    };
    let p_step = if overview { label_step(row(&l.partitions), l.px(16.0)) } else { 1 };
    // Members' rows thinner than a label's line (a projector screen short of room) name
    // every `m_step`-th too.
    let m_step = if l.members.len() > OVERVIEW_MEMBERS {
        label_step(row(&l.members), l.px(16.0))
    } else {
        label_step(row(&l.members) + 0.5, l.px(MEMBER_LINE))
    };
    if overview {
        let below_top = label.pos(Pos::new(HPos::Right, VPos::Top));
        let last_bottom = l.partitions.last().map_or(0.0, |p| p.1);
        for (k, (&i, &(top, lane_bottom))) in l.shown.iter().zip(&l.partitions).enumerate() {
            // Each label from its row's top down (centred on it, orders-0's reached up into
            // the events' band, under an early event's tag); none in the last line's height.
            if k % p_step == 0 && last_bottom - top >= l.font_px(12.0) {
                root.draw_text(
                    &partition_name(i as u32),
                    &below_top,
                    ((l.left - l.px(8.0)) as i32, top as i32),
                )?;
            }
            let mut row = RowFill::new(root, top as i32, lane_bottom as i32);
            for s in owners.get(i).into_iter().flatten() {
                if let Some(m) = s.what {
                    let (x0, x1) = (l.x(s.from_us).round() as i32, l.x(s.to_us).round() as i32);
                    row.fill(x0, x1.max(x0 + 1), member_color(m, l.dark))?;
                }
            }
            row.finish()?;
        }
    }
    // Partitions: the three lines on the lane's own scale, the owner's colour along its foot.
    let bar = l.px(4.0);
    for (&i, &(top, lane_bottom)) in l.shown.iter().zip(&l.partitions).filter(|_| !overview) {
        let frame = l.frame((top, lane_bottom - bar - l.px(1.0)), (top_value(run, i) as f64 * 1.08).ceil());
        root.draw(&PathElement::new(vec![(left, lane_bottom as i32), (right, lane_bottom as i32)], grid))?;
        root.draw_text(
            &partition_name(i as u32),
            &label,
            ((l.left - l.px(8.0)) as i32, ((top + lane_bottom) / 2.0) as i32),
        )?;
        if let Some(spans) = owners.get(i) {
            for s in spans {
                if let Some(m) = s.what {
                    let (x0, x1) = (l.x(s.from_us).round() as i32, l.x(s.to_us).round() as i32);
                    let color = member_color(m, l.dark);
                    root.draw(&Rectangle::new(
                        [(x0, (lane_bottom - bar) as i32), (x1.max(x0 + 1), lane_bottom as i32)],
                        color.filled(),
                    ))?;
                }
            }
        }
        let lines = &run.partitions[i];
        for piece in charts::step_paths(&lines.durable_frontier, &frame) {
            root.draw(&PathElement::new(piece, p.durable.stroke_width(l.width_px(2.0))))?;
        }
        for piece in charts::step_paths(&lines.position, &frame) {
            root.draw(&DashedPathElement::new(
                piece,
                l.px(6.0) as i32,
                l.px(3.0) as i32,
                p.position.stroke_width(l.width_px(1.5)),
            ))?;
        }
        for piece in charts::step_paths(&lines.committed, &frame) {
            root.draw(&PathElement::new(piece, p.committed.stroke_width(l.width_px(2.5))))?;
        }
    }
    // Handovers: a small triangle on the lane's top edge, hatched colours where it cost.
    if let Some(g) = &run.group {
        let t = l.px(5.0) as i32;
        for h in g.handovers.iter().filter(|h| h.at_us <= l.horizon_us) {
            let Ok(k) = l.shown.binary_search(&(h.partition as usize)) else { continue };
            let (top, lane_bottom) = l.partitions[k];
            let x = l.x(h.at_us).round() as i32;
            if overview {
                // Only what cost, as a mark across the row.
                let color = if h.lost > 0 { p.lost } else { p.duplicated };
                if h.lost + h.duplicated > 0 {
                    // At least 4 CSS px tall, centred on its row: an overview's rows can be a
                    // fraction of a pixel.
                    let w = l.px(1.5) as i32;
                    let (mid, half) = ((top + lane_bottom) / 2.0, ((lane_bottom - top) / 2.0).max(l.px(2.0)));
                    root.draw(&Rectangle::new(
                        [(x - w, (mid - half) as i32), (x + w, (mid + half) as i32)],
                        color.filled(),
                    ))?;
                }
                continue;
            }
            let color = if h.lost > 0 {
                p.lost
            } else if h.duplicated > 0 {
                p.duplicated
            } else {
                p.axis
            };
            let y = top as i32;
            root.draw(&Polygon::new(vec![(x - t, y), (x + t, y), (x, y + t + t / 2)], color.filled()))?;
        }
    }
    // Members: what each is doing.
    for (m, &(top, lane_bottom)) in l.members.iter().enumerate() {
        let member = m as MemberId;
        if m % m_step == 0 {
            let y = if m_step > 1 { top } else { (top + lane_bottom) / 2.0 };
            root.draw_text(&member_name(member + 1), &label, ((l.left - l.px(8.0)) as i32, y as i32))?;
        }
        let Some(spans) = members.get(m) else { continue };
        let color = member_color(member, l.dark);
        let thin = l.members.len() > OVERVIEW_MEMBERS;
        let mut row = RowFill::new(root, top as i32, lane_bottom as i32);
        for s in spans {
            let (x0, x1) = (l.x(s.from_us).round() as i32, l.x(s.to_us).round() as i32);
            let x1 = x1.max(x0 + 1);
            let (y0, y1) = (top as i32, lane_bottom as i32);
            if thin {
                // A thin row: filled, no outline or hatching (they would be all there is).
                let fill = match s.what {
                    Activity::Active => color,
                    Activity::Idle => continue,
                    Activity::Down => p.grid,
                    Activity::Hung => p.duplicated,
                    Activity::Rebalancing => p.axis,
                };
                row.fill(x0, x1, fill)?;
                continue;
            }
            match s.what {
                Activity::Active => root.draw(&Rectangle::new([(x0, y0), (x1, y1)], color.filled()))?,
                Activity::Idle => {
                    let mid = (y0 + y1) / 2;
                    root.draw(&Rectangle::new(
                        [(x0, mid - l.width_px(1.0) as i32), (x1, mid + l.width_px(1.0) as i32)],
                        color.filled(),
                    ))?;
                }
                Activity::Down => {
                    root.draw(&Rectangle::new([(x0, y0), (x1, y1)], p.axis.mix(0.18).filled()))?;
                    root.draw(&Rectangle::new([(x0, y0), (x1, y1)], p.axis.stroke_width(l.width_px(1.0))))?;
                }
                Activity::Hung | Activity::Rebalancing => {
                    let (c, hatch) = if s.what == Activity::Hung {
                        (p.duplicated, Hatch::Cross)
                    } else {
                        (p.position, Hatch::Diagonal)
                    };
                    let f = l.frame((top, lane_bottom), 1.0);
                    let col = charts::columns(&f, std::iter::once((s.from_us, s.to_us, 0.0, 1.0)));
                    draw_bands(root, &f, col, c, hatch)?;
                }
            }
        }
        row.finish()?;
    }
    // The time axis.
    let axis = p.axis.stroke_width(l.width_px(1.0));
    root.draw(&PathElement::new(vec![(left, bottom), (right, bottom)], axis))?;
    let below = (FontFamily::SansSerif, l.font_px(12.0))
        .into_font()
        .color(&p.axis)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let tick = l.px(4.0) as i32;
    for s in &ticks {
        let x = l.x((s * 1e6).round() as u64).round() as i32;
        root.draw(&PathElement::new(vec![(x, bottom), (x, bottom + tick)], axis))?;
    }
    for (x, text) in charts::time_labels(&axis_frame) {
        root.draw_text(&text, &below, (x, bottom + tick + l.px(2.0) as i32))?;
    }
    let title = (FontFamily::SansSerif, l.font_px(12.5))
        .into_font()
        .color(&p.axis)
        .pos(Pos::new(HPos::Center, VPos::Top));
    root.draw_text("simulated time (s)", &title, ((left + right) / 2, bottom + tick + l.px(19.0) as i32))?;
    root.present()?;
    Ok(())
}

/// Draws the marks over the lanes (on a clear canvas, or over [`draw_run`]): the share
/// group's crash, each event's line through every lane and its handle with its tag, a
/// deploy's shutdown of each member.
pub fn draw_marks<DB: DrawSegments>(
    root: &DrawingArea<DB, Shift>,
    run: &Run,
    l: &Lanes,
    marks: Marks,
) -> DrawResult<DB> {
    let p = l.pal();
    let bottom = l.axis as i32;
    // A share group's crash of the whole group: its line and pointer under the events', so
    // that a member's event at the same instant shows on it (issue 27, item 5).
    let crash_x = marks.crash_at_us.map(|c| l.x(c).round() as i32);
    if let Some(x) = crash_x {
        let top = l.partitions.first().map_or(l.events.1, |p| p.0) as i32;
        root.draw(&PathElement::new(vec![(x, top), (x, bottom)], p.lost.stroke_width(l.width_px(2.5))))?;
        let g = l.px(6.0) as i32;
        root.draw(&Polygon::new(
            vec![(x - g, top - g), (x + g, top - g), (x, top + g / 2)],
            p.lost.filled(),
        ))?;
    }
    // Events: a line through every lane and a handle with its tag.
    let handle_font = (FontFamily::SansSerif, l.font_px(11.5)).into_font();
    let right_edge = (l.right + l.px(RIGHT)) as i32;
    let (y0, y1) = ((l.events.0 + l.px(4.0)) as i32, (l.events.1 - l.px(3.0)) as i32);
    let mut tags: Vec<(i32, i32)> = Vec::new();
    // Where the tag of an event at the crash's instant ends: the crash's tag starts there.
    let mut joined: Option<i32> = None;
    for (i, e) in marks.events.iter().enumerate() {
        let x = l.x(e.at_us).round() as i32;
        let selected = marks.selected == Some(i);
        let width = l.width_px(if selected { 3.0 } else { 1.5 });
        root.draw(&DashedPathElement::new(
            vec![(x, l.events.1 as i32), (x, bottom)],
            l.px(5.0) as i32,
            l.px(3.0) as i32,
            p.crash.stroke_width(width),
        ))?;
        if e.kind == GroupEventKind::Deploy {
            // Each member's shutdown in the deploy: a tick on its lane.
            for (m, &(top, lane_bottom)) in l.members.iter().enumerate().take(run.scenario.members as usize) {
                let xm = l.x(e.deploy_shutdown_at_us(m as u16 + 1)).round() as i32;
                root.draw(&PathElement::new(
                    vec![(xm, top as i32 - 2), (xm, lane_bottom as i32 + 2)],
                    p.crash.stroke_width(l.width_px(2.5)),
                ))?;
            }
        }
        let tag = event_tag(e);
        let half = l.px(4.0 + 3.3 * tag.chars().count() as f64).round() as i32;
        // At the crash's instant the event's tag ends over the shared line and the crash's
        // tag starts there: one label in two parts, "crash 1 | whole group".
        let shared = joined.is_none() && crash_x == Some(x);
        let centre = if shared { x - TAG_GAP / 2 - half } else { x };
        let x = centre.clamp(half, right_edge - half);
        if shared {
            joined = Some(x + half);
        }
        tags.push((x - half, x + half));
        let fill = if selected { p.crash } else { p.background };
        root.draw(&Rectangle::new([(x - half, y0), (x + half, y1)], fill.filled()))?;
        root.draw(&Rectangle::new([(x - half, y0), (x + half, y1)], p.crash.stroke_width(l.width_px(2.0))))?;
        let ink = if selected { p.background } else { p.crash };
        root.draw_text(
            &tag,
            &handle_font.color(&ink).pos(Pos::new(HPos::Center, VPos::Center)),
            (x, (y0 + y1) / 2),
        )?;
    }
    if let Some(x) = crash_x {
        // Its own tag in the events' band: joined to a member's event at the same instant,
        // else beside any event's tag rather than under it.
        let width = l.px(4.0 + 6.6 * CRASH_TAG.len() as f64).round() as i32;
        let (x0, x1) = match joined.map(|end| end + TAG_GAP) {
            Some(x0) if x0 + width <= right_edge => (x0, x0 + width),
            _ => crash_tag_span(x, width, &tags, (0, right_edge)),
        };
        root.draw(&Rectangle::new([(x0, y0), (x1, y1)], p.lost.filled()))?;
        root.draw_text(
            CRASH_TAG,
            &handle_font.color(&p.background).pos(Pos::new(HPos::Center, VPos::Center)),
            ((x0 + x1) / 2, (y0 + y1) / 2),
        )?;
    }
    root.present()?;
    Ok(())
}

/// The tag of the whole group's crash (a share group) in the events' band.
pub const CRASH_TAG: &str = "whole group";

/// Device px between two tags that meet over one line.
const TAG_GAP: i32 = 2;

/// Where the whole group's crash tag goes (device px, `[x0, x1]`, `width` wide) for its line at
/// `x`, within `bounds`: centred on the line when that overlaps no event's tag in `tags`, else
/// the nearest place clear of them — beside the line, or beside an event's tag that covers it.
pub fn crash_tag_span(x: i32, width: i32, tags: &[(i32, i32)], bounds: (i32, i32)) -> (i32, i32) {
    let fit = |x0: i32| {
        let x0 = x0.clamp(bounds.0, (bounds.1 - width).max(bounds.0));
        (x0, x0 + width)
    };
    let clear = |(a, b): (i32, i32)| tags.iter().all(|&(t0, t1)| b <= t0 || t1 <= a);
    let gap = 2;
    let beside_tags = tags.iter().flat_map(|&(t0, t1)| [t0 - gap - width, t1 + gap]);
    let centred = fit(x - width / 2);
    if clear(centred) {
        return centred;
    }
    // Else the clear place nearest the line (the first of equals): a minimum, not a sort,
    // which would link the standard library's stable sort into the group page (≈ 4 KB).
    [x - gap - width, x + gap]
        .into_iter()
        .chain(beside_tags)
        .map(|x0| (((x0 + width / 2) - x).abs(), fit(x0)))
        .filter(|&(_, span)| clear(span))
        .min_by_key(|&(distance, _)| distance)
        .map_or(centred, |(_, span)| span)
}

/// The sweep chart's frame on a canvas of `size` device px (same margins as the lanes):
/// x the first event's instant, y the group's total records.
pub fn sweep_frame(size: (u32, u32), scale: f64, horizon_us: u64, profile: &GroupProfile) -> Frame {
    let (w, h) = (size.0 as f64, size.1 as f64);
    let worst = profile.worst_lost.0.max(profile.worst_duplicated.0) as f64;
    let left = (LEFT * scale).round();
    Frame {
        left,
        top: (10.0 * scale).round(),
        right: (w - RIGHT * scale).round().max(left + 1.0),
        bottom: (h - BOTTOM * scale).round().max(11.0 * scale),
        horizon_us: horizon_us.max(1),
        y_max: (worst * 1.15).ceil().max(2.0),
        scale,
        dark: false,
        font: 1.0,
        titles: ("the first event's instant (s)", "records"),
    }
}

/// Draws the sweep: the total lost (× hatching, dashed) and processed twice (/ hatching)
/// when the first event happens at T, for every T the core evaluated, and the first
/// event's instant now.
pub fn draw_sweep<DB: DrawSegments>(
    root: &DrawingArea<DB, Shift>,
    profile: &GroupProfile,
    f: &Frame,
    at_us: u64,
) -> DrawResult<DB> {
    let p = f.pal();
    root.fill(&p.background)?;
    charts::draw_grid(root, f, 3)?;
    charts::draw_axes(root, f, 3)?;
    // A point holds until the next one (the core evaluates T at each instant and 1 µs after).
    let steps = |value: fn(&offset_window_sim::sweep::GroupPoint) -> u64| -> Vec<Step> {
        profile.points.iter().map(|pt| Step { at_us: pt.at_us, value: value(pt) }).collect()
    };
    let dup = steps(|pt| pt.duplicated);
    let lost = steps(|pt| pt.lost);
    for (steps, color, hatch) in [(&dup, p.duplicated, Hatch::Diagonal), (&lost, p.lost, Hatch::Cross)] {
        let bands = charts::step_segments(steps, f.horizon_us).map(|(a, b, v)| (a, b, 0.0, v as f64));
        draw_bands(root, f, charts::columns(f, bands.filter(|b| b.3 > 0.0)), color, hatch)?;
    }
    for piece in charts::step_paths(&dup, f) {
        root.draw(&PathElement::new(piece, p.duplicated.stroke_width(f.width_px(2.0))))?;
    }
    for piece in charts::step_paths(&lost, f) {
        root.draw(&DashedPathElement::new(
            piece,
            f.px(5.0) as i32,
            f.px(3.0) as i32,
            p.lost.stroke_width(f.width_px(2.0)),
        ))?;
    }
    charts::paint_crash(root, f, at_us.max(1), &[])?;
    root.present()?;
    Ok(())
}

/// The strip's frame on a canvas of `size` device px: x time, one row per record.
pub fn strip_frame(size: (u32, u32), scale: f64, horizon_us: u64, rows: usize) -> Frame {
    let (w, h) = (size.0 as f64, size.1 as f64);
    let left = (LEFT * scale).round();
    Frame {
        left,
        top: (6.0 * scale).round(),
        right: (w - RIGHT * scale).round().max(left + 1.0),
        bottom: (h - BOTTOM * scale).round().max(7.0 * scale),
        horizon_us: horizon_us.max(1),
        y_max: rows.max(1) as f64,
        scale,
        dark: false,
        font: 1.0,
        titles: ("simulated time (s)", ""),
    }
}

/// The CSS height of the strip for `rows` records, its margins and text drawn `type_scale`
/// times larger (projector mode; 1 otherwise): a row stays 9 CSS px.
pub fn strip_css_height(rows: usize, type_scale: f64) -> f64 {
    (6.0 + BOTTOM) * type_scale + 9.0 * rows as f64
}

/// The strip's rows that get an "offset N" label: the first, the last, and every n-th
/// between, n the fewest rows that keep two labels `min_gap` apart (`row_h` and `min_gap`
/// in the same unit). When the last row falls too near the n-th before it, that one gives
/// way to the last, so no two labels are closer than `min_gap`; a strip shorter than n
/// rows labels only its first.
pub fn strip_label_rows(rows: usize, row_h: f64, min_gap: f64) -> Vec<usize> {
    if rows == 0 {
        return Vec::new();
    }
    let every = if row_h > 0.0 { ((min_gap / row_h).ceil() as usize).max(1) } else { rows };
    let last = rows - 1;
    let mut labelled: Vec<usize> = (0..rows).step_by(every).collect();
    match labelled.last().copied() {
        Some(r) if r == last => {}
        Some(r) if last - r >= every => labelled.push(last),
        Some(r) if r > 0 => {
            labelled.pop();
            labelled.push(last);
        }
        _ => {}
    }
    labelled
}

/// Draws the share strip: a row per record, coloured by who holds it, grey while it is
/// available again, hatched once it was rejected or archived, a thin dark bar once it is
/// acknowledged; the locks held at the crash instant outlined to where they run out
/// (`lock_us` after the acquisition or its last renewal before the crash, docs/model.md §11.2,
/// §11.3); a tick where a run of it completed; the crash of the
/// whole group.
pub fn draw_strip<DB: DrawSegments>(
    root: &DrawingArea<DB, Shift>,
    lines: &[RecordLine],
    f: &Frame,
    crash_at_us: u64,
    lock_us: u64,
) -> DrawResult<DB> {
    let p = f.pal();
    root.fill(&p.background)?;
    let rows = lines.len().max(1) as f64;
    let row_h = (f.bottom - f.top) / rows;
    let label = (FontFamily::SansSerif, f.font_px(10.5))
        .into_font()
        .color(&p.axis)
        .pos(Pos::new(HPos::Right, VPos::Center));
    // Label centres at least 1.3 lines of the label's type apart.
    let labelled = strip_label_rows(lines.len(), row_h, f.px(10.5 * 1.3));
    for (r, line) in lines.iter().enumerate() {
        let y0 = f.top + row_h * r as f64;
        let (t, b) = ((y0 + row_h * 0.12).round() as i32, (y0 + row_h * 0.88).round() as i32);
        if labelled.binary_search(&r).is_ok() {
            root.draw_text(
                &format!("offset {}", line.offset),
                &label,
                ((f.left - f.px(6.0)) as i32, ((t + b) / 2)),
            )?;
        }
        for s in &line.spans {
            let (x0, x1) = (f.x(s.from_us).round() as i32, f.x(s.to_us).round() as i32);
            let x1 = x1.max(x0 + 1);
            match s.what {
                RecordState::Acquired { member, .. } => {
                    let color = member_color(member, f.dark);
                    // Held at the crash instant: its lock outlined to where it runs out.
                    if s.from_us < crash_at_us && crash_at_us <= s.to_us {
                        let since = line.lock_from(s.from_us, crash_at_us);
                        let lock_end = f.x(since.saturating_add(lock_us).min(f.horizon_us)).round() as i32;
                        root.draw(&Rectangle::new(
                            [(x0, t), (lock_end.max(x1), b)],
                            color.stroke_width(f.width_px(1.5)),
                        ))?;
                    }
                    root.draw(&Rectangle::new([(x0, t), (x1, b)], color.filled()))?
                }
                RecordState::Available => {
                    root.draw(&Rectangle::new([(x0, t), (x1, b)], p.axis.mix(0.25).filled()))?;
                }
                RecordState::Accepted => {
                    let mid = (t + b) / 2;
                    root.draw(&Rectangle::new(
                        [(x0, mid - 1), (x1, mid + 1)],
                        p.committed.mix(0.55).filled(),
                    ))?;
                }
                RecordState::Rejected | RecordState::Archived => {
                    let col = charts::columns(f, std::iter::once((s.from_us, s.to_us, 0.0, 1.0)));
                    let band = Frame { top: t as f64, bottom: b as f64, y_max: 1.0, ..*f };
                    draw_bands(root, &band, col, p.lost, Hatch::Cross)?;
                }
            }
        }
        for &(at, _) in &line.processed {
            let x = f.x(at).round() as i32;
            root.draw(&PathElement::new(
                vec![(x, t - 1), (x, b + 1)],
                p.committed.stroke_width(f.width_px(1.5)),
            ))?;
        }
    }
    let (decimals, ticks) = charts::time_ticks(f);
    let axis = p.axis.stroke_width(f.width_px(1.0));
    let bottom = f.bottom as i32;
    root.draw(&PathElement::new(vec![(f.left as i32, bottom), (f.right as i32, bottom)], axis))?;
    let below = (FontFamily::SansSerif, f.font_px(12.0))
        .into_font()
        .color(&p.axis)
        .pos(Pos::new(HPos::Center, VPos::Top));
    for s in ticks {
        let x = f.x((s * 1e6).round() as u64).round() as i32;
        root.draw(&PathElement::new(vec![(x, bottom), (x, bottom + f.px(4.0) as i32)], axis))?;
        root.draw_text(&crate::kit::text::fixed(s, decimals), &below, (x, bottom + f.px(6.0) as i32))?;
    }
    let title = (FontFamily::SansSerif, f.font_px(12.5))
        .into_font()
        .color(&p.axis)
        .pos(Pos::new(HPos::Center, VPos::Top));
    root.draw_text(f.titles.0, &title, (((f.left + f.right) / 2.0) as i32, bottom + f.px(23.0) as i32))?;
    let x = f.x(crash_at_us).round() as i32;
    root.draw(&PathElement::new(vec![(x, f.top as i32), (x, bottom)], p.lost.stroke_width(f.width_px(2.5))))?;
    root.present()?;
    Ok(())
}

#[cfg(all(test, feature = "svg"))]
mod tests {
    use super::super::timeline::{member_spans, owners, record_lines};
    use super::*;
    use crate::kit::backend::Backend;
    use offset_window_sim::{simulate, Scenario};

    #[test]
    fn a_short_canvas_keeps_each_member_label_its_line() {
        // A projector screen: six partitions and three members in 300 CSS px, type × 1.5.
        let l = Lanes::new((1800, 450), 1.5, 90_000_000, 6, 3);
        for pair in l.members.windows(2) {
            assert!(pair[1].0 - pair[0].0 >= (MEMBER_LINE * 1.5).floor(), "{:?}", l.members);
        }
        assert!(l.axis <= 450.0 - BOTTOM * 1.5 + 1.0, "the lanes still fit: {l:?}");
        let p = l.partitions[0].1 - l.partitions[0].0;
        assert!(p > 10.0, "the partitions' lanes gave the room: {p}");
        // With room to spare, the lanes keep the ratio of their CSS heights.
        let tall = Lanes::new((1800, 2000), 1.0, 90_000_000, 6, 3);
        assert_eq!(tall.members[0].1 - tall.members[0].0, tall.members[1].1 - tall.members[1].0);
    }

    #[test]
    fn an_overview_with_sixteen_members_fits_a_projector_screen() {
        // S-D on the projector at 1280 × 720: 1,024 partitions and 16 members in the lanes box
        // (about 380 px, type × 1.5). Every member's lane stays above the axis, and those too
        // thin for a label's line are named every other one (or fewer).
        let h = 380;
        let l = Lanes::new((1200, h), 1.5, 120_000_000, 1024, 16);
        assert!(l.axis <= h as f64 - BOTTOM * 1.5 + 1.0, "the lanes fit: axis {}", l.axis);
        assert!(l.members[15].1 <= l.axis, "{:?}", l.members);
        let overview = l.partitions[1023].1 - l.partitions[0].0;
        assert!(
            overview >= MIN_SHARE * OVERVIEW_PARTITIONS_H * 1.5 - 2.0,
            "the overview keeps its least share: {overview}"
        );
        let row = (l.members[15].1 - l.members[0].0) / 16.0;
        assert!(label_step(row + 0.5, MEMBER_LINE * 1.5) > 1, "{row}");
        // With room, each of the 16 keeps its line and its name.
        let tall = Lanes::new((1200, 1400), 1.5, 120_000_000, 1024, 16);
        let row = (tall.members[15].1 - tall.members[0].0) / 16.0;
        assert_eq!(label_step(row + 0.5, MEMBER_LINE * 1.5), 1, "{row}");
    }

    /// WCAG 2.x contrast ratio of two sRGB colours (1 to 21).
    fn contrast(a: RGBColor, b: RGBColor) -> f64 {
        let luminance = |c: RGBColor| {
            let lin = |v: u8| {
                let s = f64::from(v) / 255.0;
                if s <= 0.03928 {
                    s / 12.92
                } else {
                    ((s + 0.055) / 1.055).powf(2.4)
                }
            };
            0.2126 * lin(c.0) + 0.7152 * lin(c.1) + 0.0722 * lin(c.2)
        };
        let (x, y) = (luminance(a), luminance(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    #[test]
    fn member_colours_have_wcag_non_text_contrast() {
        for (list, bg) in [(&MEMBERS_LIGHT, LIGHT.background), (&MEMBERS_DARK, DARK.background)] {
            for c in list {
                assert!(contrast(*c, bg) >= 3.0, "{c:?}: {:.2}", contrast(*c, bg));
            }
        }
    }

    #[test]
    fn the_layout_maps_time_and_finds_events() {
        let s = super::super::state::default_scenario();
        let h = css_height(2, 2);
        let l = Lanes::new((900, h as u32), 1.0, s.horizon_us, 2, 2);
        assert_eq!((l.left, l.right), (84.0, 886.0));
        assert!(l.time_at(l.x(8_200_000)).abs_diff(8_200_000) <= 1, "x and time_at are inverses");
        assert_eq!(l.time_at(0.0), 0, "left of the axis: t = 0");
        assert_eq!(l.time_at(5_000.0), s.horizon_us, "right of it: the horizon");
        assert_eq!(l.partitions.len(), 2);
        assert!(l.partitions[1].1 < l.members[0].0 && l.members[1].1 < l.axis);
        assert!((l.axis - (h - BOTTOM)).abs() <= 1.0, "the lanes fill the height they asked for");
        let x = l.x(8_200_000);
        assert_eq!(l.event_at(&s.group_events, x + 10.0), Some(0));
        assert_eq!(l.event_at(&s.group_events, x + 20.0), None);
        assert_eq!(l.targets(&s.group_events), format!("0:{},15", x.round() as i64));
        // Twice the pixels: the same CSS positions.
        let l2 = Lanes::new((1800, 2 * h as u32), 2.0, s.horizon_us, 2, 2);
        assert_eq!(l2.targets(&s.group_events), l.targets(&s.group_events));
    }

    #[test]
    fn the_whole_groups_crash_tag_stands_beside_an_event_at_the_same_instant() {
        // Alone: centred on its line.
        assert_eq!(crash_tag_span(500, 80, &[], (0, 1000)), (460, 540));
        // A member's crash tag 6 px to the right (share-crash-releases-at-once on a projector):
        // wholly to the left of the line, clear of it.
        let event = (506 - 30, 506 + 30);
        let (x0, x1) = crash_tag_span(500, 80, &[event], (0, 1000));
        assert!(x1 <= event.0, "{x0}..{x1}");
        // An event to the left: the tag goes right.
        let event = (440, 498);
        let (x0, _) = crash_tag_span(500, 80, &[event], (0, 1000));
        assert!(x0 >= 498, "{x0}");
        // At the left edge it stays on the canvas.
        assert_eq!(crash_tag_span(10, 80, &[], (0, 1000)).0, 0);
    }

    #[test]
    fn strip_labels_keep_their_distance_first_and_last_labelled() {
        for rows in 1..=60 {
            for (row_h, gap) in [(9.0, 13.65), (9.0, 9.0), (18.0, 13.65), (9.0, 30.0), (4.0, 13.65)] {
                let l = strip_label_rows(rows, row_h, gap);
                assert_eq!(l[0], 0, "{rows} rows of {row_h}: the first is labelled");
                for pair in l.windows(2) {
                    assert!(
                        (pair[1] - pair[0]) as f64 * row_h >= gap,
                        "{rows} rows of {row_h}, gap {gap}: {l:?}"
                    );
                }
                let every = (gap / row_h).ceil() as usize;
                if rows > every {
                    assert_eq!(*l.last().unwrap(), rows - 1, "{rows} rows of {row_h}: the last is labelled");
                }
            }
        }
        // S3's 40 rows of 9 px, labels 13.65 px apart: every second row, 36 then 39.
        let l = strip_label_rows(40, 9.0, 13.65);
        assert_eq!(&l[l.len() - 3..], &[34, 36, 39]);
        assert!(strip_label_rows(0, 9.0, 13.65).is_empty());
    }

    #[test]
    fn the_strip_s_forty_row_labels_do_not_overlap() {
        // Preset S3 (docs/model.md §11.5): three share consumers, the strip's 40 rows.
        let i = super::super::presets::by_name("s11-s3-three-members-one-partition").unwrap();
        let s = super::super::presets::input(i).unwrap().scenario;
        let run = simulate(&s).unwrap();
        let lines = record_lines(&run, 0, 0, super::super::state::STRIP_ROWS);
        assert_eq!(lines.len(), 40);
        for (scale, type_scale) in [(1.0, 1.0), (2.0, 1.0), (1.0, 2.25)] {
            let (w, h) = (900, (strip_css_height(40, type_scale) * scale).round() as u32);
            let mut svg = String::new();
            {
                let root = Backend::svg(&mut svg, (w, h)).into_drawing_area();
                let f = Frame {
                    font: 1.24,
                    ..strip_frame((w, h), scale * type_scale, s.horizon_us, lines.len())
                };
                draw_strip(&root, &lines, &f, 5_000_000, run.scenario.share_record_lock_duration_us).unwrap();
            }
            // Each label's y (plotters writes y="…" before the text).
            let ys: Vec<f64> = svg
                .split("<text")
                .filter(|t| t.contains("offset "))
                .filter_map(|t| t.split("y=\"").nth(1)?.split('"').next()?.parse().ok())
                .collect();
            assert!(ys.len() >= 10, "{ys:?}");
            assert!(svg.contains("offset 39\n"), "the last row is labelled");
            let font_px = 10.5 * scale * type_scale;
            for pair in ys.windows(2) {
                assert!(pair[1] - pair[0] >= font_px * 1.2, "labels {ys:?} at font {font_px} px");
            }
        }
    }

    #[test]
    fn a_big_group_is_an_overview_with_labels_apart() {
        // 48 members and 256 partitions, a rolling deploy: thin rows, a height that stays
        // readable on a page, labels at least 16 CSS px apart, costly handovers marked.
        let s = Scenario {
            members: 48,
            partitions: 256,
            horizon_us: 30_000_000,
            group_events: vec![GroupEvent {
                at_us: 5_000_000,
                kind: GroupEventKind::Deploy,
                deploy_step_us: 400_000,
                restart_after_us: Some(200_000),
                ..super::super::state::default_scenario().group_events[0]
            }],
            ..super::super::state::default_scenario()
        };
        let run = simulate(&s).unwrap();
        let o = owners(&run);
        let m = member_spans(&run, &o);
        let h = css_height(256, m.len());
        assert!((384.0 + 192.0..=384.0 + 192.0 + 120.0).contains(&h), "{h}");
        let l = Lanes::new((900, h as u32), 1.0, s.horizon_us, 256, m.len());
        let row = (l.partitions[255].1 - l.partitions[0].0) / 256.0;
        assert!((1.0..=2.0).contains(&row), "{row}");
        assert_eq!(label_step(row, 16.0), 16);
        let mut svg = String::new();
        {
            let root = Backend::svg(&mut svg, (900, h as u32)).into_drawing_area();
            let marks = Marks { events: &s.group_events, selected: None, crash_at_us: None };
            draw_lanes(&root, &run, &o, &m, &Lanes { font: 1.24, ..l.clone() }, marks).unwrap();
        }
        // Every 16th partition and every 16th member named, no other.
        let named = |name: &str| svg.contains(&format!(">\n{name}\n<"));
        assert!(named("orders-0") && named("orders-240") && !named("orders-1") && !named("orders-248"));
        assert!(named("consumer-1") && named("consumer-33") && !named("consumer-2"));
        // The first row's label hangs from the row's top, below the events' band: a deploy at
        // the start (its tag over the labels' column) does not cover it (issue 28's trial,
        // S-A on a phone). No label reaches past the last row.
        let early = [GroupEvent { at_us: 100_000, ..s.group_events[0] }];
        let mut svg = String::new();
        {
            let root = Backend::svg(&mut svg, (900, h as u32)).into_drawing_area();
            let marks = Marks { events: &early, selected: None, crash_at_us: None };
            draw_lanes(&root, &run, &o, &m, &Lanes { font: 1.24, ..l.clone() }, marks).unwrap();
        }
        let text_of = |name: &str| {
            let end = svg.find(&format!(">\n{name}\n<")).unwrap();
            svg[svg[..end].rfind("<text").unwrap()..end].to_string()
        };
        let y = |text: &str| {
            text.split("y=\"").nth(1).unwrap().split('"').next().unwrap().parse::<f64>().unwrap()
        };
        let first = text_of("orders-0");
        assert!(first.contains("dy=\"0.76em\"") && y(&first) >= l.events.1, "{first}");
        let last = text_of("orders-240");
        assert!(y(&last) + 12.0 * 1.24 <= l.partitions[255].1 + 0.5, "{last}");
        // Small groups keep their lanes: each partition named.
        assert_eq!(label_step(20.0, 16.0), 1);
        assert!(css_height(OVERVIEW_PARTITIONS, 2) > css_height(OVERVIEW_PARTITIONS + 1, 2));
    }

    #[test]
    fn every_drawing_draws_on_svg() {
        for name in
            ["g1-crash-waits-out-the-session", "group-deploy-cooperative", "share-hang-waits-for-the-lock"]
        {
            let i = super::super::presets::by_name(name).unwrap();
            let s = super::super::presets::input(i).unwrap().scenario;
            let run = simulate(&s).unwrap();
            let o = owners(&run);
            let m = member_spans(&run, &o);
            let h = css_height(run.partitions.len(), m.len()) as u32;
            let mut svg = String::new();
            {
                let root = Backend::svg(&mut svg, (900, h)).into_drawing_area();
                let l = Lanes {
                    font: 1.24,
                    ..Lanes::new((900, h), 1.0, s.horizon_us, run.partitions.len(), m.len())
                };
                let marks =
                    Marks { events: &s.group_events, selected: Some(0), crash_at_us: Some(20_000_000) };
                draw_lanes(&root, &run, &o, &m, &l, marks).unwrap();
            }
            assert!(
                svg.contains("orders-0") && svg.contains("consumer-1") && svg.contains("simulated time (s)"),
                "{name}"
            );
            assert!(svg.contains(&event_tag(&s.group_events[0])), "{name}: the handle's tag");
            if let Some(profile) =
                offset_window_sim::sweep::first_event_profile(&s).unwrap().filter(|p| !p.points.is_empty())
            {
                let mut svg = String::new();
                {
                    let root = Backend::svg(&mut svg, (900, 160)).into_drawing_area();
                    let f = sweep_frame((900, 160), 1.0, s.horizon_us, &profile);
                    draw_sweep(&root, &profile, &f, s.group_events[0].at_us).unwrap();
                }
                assert!(svg.contains("records"), "{name}");
            }
            if s.share_group() {
                let lines = record_lines(&run, 0, 20, 20);
                let mut svg = String::new();
                {
                    let h = strip_css_height(20, 1.0) as u32;
                    let root = Backend::svg(&mut svg, (900, h)).into_drawing_area();
                    let f = strip_frame((900, h), 1.0, s.horizon_us, 20);
                    draw_strip(&root, &lines, &f, 20_000_000, run.scenario.share_record_lock_duration_us)
                        .unwrap();
                }
                assert!(svg.contains("offset 20"), "{name}");
            }
        }
    }
}
