//! A field of a page, as every page's field table describes it: the scenario key, its label
//! (Kafka's property name where there is one, else words, never an identifier), unit, a
//! one-line hint and the comfortable range of its slider.

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
