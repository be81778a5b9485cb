//! What a big group's lanes show (issue 28): the overview of every partition, or a zoom into a
//! range of partitions or one member's, as the page's select and its link say it
//! (`zoom=from-16`, `zoom=member-3`). Apart from the drawing ([`super::lanes`], which re-exports
//! it) so that the page's state and link codec can hold a zoom without importing the drawing.

use super::timeline::Span;
use super::words::{member_name, partition_name};
use offset_window_sim::MemberId;

/// Above this many partitions the lanes are an overview (issue 28): one thin row per
/// partition filled with its owner's colour, no lines, a label every few rows.
pub const OVERVIEW_PARTITIONS: usize = 48;

/// Whether the lanes of `partitions` partitions are drawn as an overview: a consumer group
/// beyond [`OVERVIEW_PARTITIONS`] (a share group's partitions have no owner to colour a row by:
/// they keep their lanes).
pub fn is_overview(partitions: usize, share: bool) -> bool {
    partitions > OVERVIEW_PARTITIONS && !share
}

/// How many partitions a zoom into a range of a big group shows, a lane each.
pub const ZOOM_PARTITIONS: usize = 16;

/// What the lanes show of a big group (beyond [`OVERVIEW_PARTITIONS`]): the overview, the
/// lanes of [`ZOOM_PARTITIONS`] partitions from one, or of the partitions one member owned at
/// some instant (issue 28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zoom {
    /// Every partition (an overview when there are many).
    All,
    /// The partitions from this one on (index: `orders-N`).
    From(usize),
    /// The partitions this member owned at some instant.
    Member(MemberId),
}

impl Zoom {
    /// The zoom as its choice's value and its link's (`all`, `from-16` for the lanes from
    /// `orders-16`, `member-2` for the partitions `consumer-2` owned), for a select and the URL.
    pub fn value(self) -> String {
        match self {
            Zoom::All => "all".to_string(),
            Zoom::From(p) => format!("from-{p}"),
            Zoom::Member(m) => format!("member-{}", u32::from(m) + 1),
        }
    }

    /// The zoom a value names, written as [`Zoom::value`] writes it (plain decimal numbers,
    /// members from 1); `None` for any other text.
    pub fn parse(text: &str) -> Option<Zoom> {
        let number = |prefix: &str| {
            let digits = text.strip_prefix(prefix)?;
            let n = digits.parse::<u32>().ok()?;
            (n.to_string() == digits).then_some(n)
        };
        match (text, number("from-"), number("member-")) {
            ("all", _, _) => Some(Zoom::All),
            (_, Some(p), _) => Some(Zoom::From(p as usize)),
            (_, _, Some(m)) if (1..=u32::from(MemberId::MAX)).contains(&m) => {
                Some(Zoom::Member((m - 1) as MemberId))
            }
            _ => None,
        }
    }

    /// The zoom a choice's value names; [`Zoom::All`] for any other text.
    pub fn from_value(text: &str) -> Zoom {
        Zoom::parse(text).unwrap_or(Zoom::All)
    }

    /// Whether the lanes of a group of `partitions` partitions and `members` members (a share
    /// group if `share`) can show this zoom: [`Zoom::All`] always, a range or a member only in
    /// an overview ([`is_overview`]), from one of its partitions, of one of its members.
    pub fn fits(self, partitions: usize, members: usize, share: bool) -> bool {
        match self {
            Zoom::All => true,
            _ if !is_overview(partitions, share) => false,
            Zoom::From(p) => p < partitions,
            Zoom::Member(m) => usize::from(m) < members,
        }
    }
}

/// The partitions the lanes show for `zoom` over a run whose partitions' owners are `owners`
/// (ascending indexes); `None` for all of them (and for a zoom that names nothing there).
pub fn zoomed(owners: &[Vec<Span<Option<MemberId>>>], zoom: Zoom) -> Option<Vec<usize>> {
    let shown: Vec<usize> = match zoom {
        Zoom::All => return None,
        Zoom::From(from) => (from..(from + ZOOM_PARTITIONS).min(owners.len())).collect(),
        Zoom::Member(m) => {
            (0..owners.len()).filter(|&i| owners[i].iter().any(|s| s.what == Some(m))).collect()
        }
    };
    (!shown.is_empty()).then_some(shown)
}

/// The zoom choices for a consumer group of `partitions` partitions and `members` members,
/// each with its words: the overview, every range of [`ZOOM_PARTITIONS`], every member.
pub fn zoom_choices(partitions: usize, members: usize) -> Vec<(Zoom, String)> {
    let ranges = (0..partitions).step_by(ZOOM_PARTITIONS).map(|from| {
        let to = (from + ZOOM_PARTITIONS).min(partitions) - 1;
        (Zoom::From(from), format!("{} to {}", partition_name(from as u32), partition_name(to as u32)))
    });
    let members = (0..members).map(|m| {
        (Zoom::Member(m as MemberId), format!("the partitions {} owned", member_name(m as MemberId + 1)))
    });
    std::iter::once((Zoom::All, "every partition (the overview)".to_string()))
        .chain(ranges)
        .chain(members)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zoom_picks_a_range_or_a_members_partitions() {
        let span = |what| Span { from_us: 0, to_us: 1, what };
        let owners: Vec<Vec<Span<Option<MemberId>>>> =
            (0..40).map(|i| vec![span(Some((i % 4) as MemberId)), span(None)]).collect();
        assert_eq!(zoomed(&owners, Zoom::All), None);
        assert_eq!(zoomed(&owners, Zoom::From(32)), Some((32..40).collect()));
        assert_eq!(zoomed(&owners, Zoom::From(16)), Some((16..32).collect()));
        assert_eq!(zoomed(&owners, Zoom::From(40)), None, "past the last partition: all");
        assert_eq!(zoomed(&owners, Zoom::Member(1)), Some((1..40).step_by(4).collect()));
        assert_eq!(zoomed(&owners, Zoom::Member(9)), None);
        let choices = zoom_choices(40, 3);
        assert_eq!(choices.len(), 1 + 3 + 3);
        assert_eq!(choices[3].1, "orders-32 to orders-39");
        assert_eq!(choices[4].1, "the partitions consumer-1 owned");
        for (zoom, _) in choices {
            assert_eq!(Zoom::from_value(&zoom.value()), zoom);
            assert!(zoom.fits(49, 3, false), "{}", zoom.value());
        }
        assert_eq!(Zoom::Member(0).value(), "member-1", "members counted from 1, as their names");
        assert_eq!(Zoom::from_value("from-x"), Zoom::All);
        for bad in ["from-x", "from-+1", "from-01", "member-0", "member-", "member-65536", "All", "from-16 "]
        {
            assert_eq!(Zoom::parse(bad), None, "{bad}");
        }
        assert!(!Zoom::From(16).fits(48, 3, false), "no overview to zoom into");
        assert!(!Zoom::From(16).fits(64, 3, true), "a share group keeps its lanes");
        assert!(!Zoom::From(64).fits(64, 3, false) && Zoom::From(63).fits(64, 3, false));
        assert!(!Zoom::Member(3).fits(64, 3, false) && Zoom::Member(2).fits(64, 3, false));
    }
}
