//! What every page needs, written once: drawing primitives ([`draw`]) over one chart
//! [`backend`] (canvas or SVG), exact time and number text ([`text`]), the crash slider's
//! keys and drags ([`crash`]), the field type of every page's table ([`fields`]), the link's
//! percent-encoding ([`link`]), a page's state as yew's reducer ([`reducible!`]), one counted simulation and a checked scenario with its run
//! ([`run`]), what presets share ([`presets`]) and the first frame's
//! helpers ([`first_frame`]). It imports the core (`offset_window_sim`) and nothing of a
//! page: `consumer/`, `group/`, `producer/`, `transactions/` and `pipeline/` import it, never
//! each other.

#[cfg(any(feature = "svg", feature = "canvas"))]
pub mod backend;
pub mod crash;
pub mod draw;
pub mod fields;
#[cfg(feature = "svg")]
pub mod first_frame;
pub mod link;
pub mod presets;
pub mod run;
pub mod text;

/// Makes a page's `State` yew's reducer: `reduce` is the page's own `State::apply(self:
/// Rc<Self>, action: Action) -> Rc<Self>`, which its tests call without yew.
macro_rules! reducible {
    ($state:ty, $action:ty) => {
        #[cfg(feature = "yew")]
        impl yew::Reducible for $state {
            type Action = $action;

            fn reduce(self: std::rc::Rc<Self>, action: $action) -> std::rc::Rc<Self> {
                <$state>::apply(self, action)
            }
        }
    };
}
pub(crate) use reducible;

/// What a page's `State::apply` returns for `next`: `old` itself when nothing changed (so yew
/// renders nothing), else `next` in a new `Rc`.
pub fn same_or_new<S: PartialEq>(old: std::rc::Rc<S>, next: S) -> std::rc::Rc<S> {
    if next == *old {
        old
    } else {
        std::rc::Rc::new(next)
    }
}

/// `actions` applied in turn to `state` by `apply` (a page's `State::apply`): its tests' way
/// to drive the reducer without yew.
#[cfg(test)]
pub fn apply_all<S: Clone, A>(
    state: S,
    actions: impl IntoIterator<Item = A>,
    apply: impl Fn(std::rc::Rc<S>, A) -> std::rc::Rc<S>,
) -> S {
    let s = actions.into_iter().fold(std::rc::Rc::new(state), apply);
    std::rc::Rc::unwrap_or_clone(s)
}
