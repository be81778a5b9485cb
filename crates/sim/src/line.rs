//! A step function kept compactly: steps that move on by the same amount at the same pace
//! (a partition's records done one after another, each as long as the last) are stored as one
//! ramp. The durable frontier and the crash profile take a step per completed record; as
//! ramps, S-A's 381,519 durable steps are 17,504 entries and its 400,174 profile steps 38,334.
//!
//! The steps it keeps are the timeline's (`Step<u64>`, `ProfileStep`: `timeline.rs` says how
//! each moves on, [`RampStep`]). A [`Line`] reads as the slice of every step it holds (`Deref`, expanded once on first use
//! and kept), so code that walks the steps needs no change; the crate's own readers
//! ([`Line::last_before`], [`Line::steps`], [`Line::final_step`]) never expand it.

use serde::{Serialize, Serializer};
use std::sync::OnceLock;

/// Whether lines keep ramps (the `compact-runs` feature; without it a line is its steps, as
/// a `Vec`, and the code below that reads ramps is never reached).
const RAMPS: bool = cfg!(feature = "compact-runs");

/// A step that a [`Line`] can keep in ramps: its instant, and its value's change to another.
pub trait RampStep: Copy + PartialEq + std::fmt::Debug {
    /// A change of value (wrapping arithmetic: exact for any pair of values).
    type Delta: Copy + PartialEq + std::fmt::Debug;
    /// The step's instant, µs.
    fn at_us(&self) -> u64;
    /// The change of value from `self` to `next`.
    fn delta_to(&self, next: &Self) -> Self::Delta;
    /// `self` moved on `k` times by `delta`, `every_us` apart.
    fn moved(&self, delta: Self::Delta, k: u64, every_us: u64) -> Self;
}

/// The steps that follow an explicit step as a ramp: `count` more, each `every_us` after the
/// one before and `delta` on from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tail<D> {
    /// The explicit step the ramp starts from (an index into [`Line::explicit`]).
    head: u32,
    count: u32,
    every_us: u64,
    delta: D,
}

/// A step function: steps in strictly ascending time, kept as explicit steps and ramps.
pub struct Line<T: RampStep> {
    /// Every step that is not inside a ramp's tail, in time order.
    explicit: Vec<T>,
    /// The ramps, by ascending head.
    tails: Vec<Tail<T::Delta>>,
    /// The last step (the recorder compares each instant's value with it).
    last: Option<T>,
    /// Every step, made on first use of the line as a slice (never before the line is complete).
    expanded: OnceLock<Vec<T>>,
}

impl<T: RampStep> Line<T> {
    /// An empty line with room for `explicit` explicit steps.
    pub(crate) fn with_capacity(explicit: usize) -> Self {
        Line {
            explicit: Vec::with_capacity(explicit),
            tails: Vec::new(),
            last: None,
            expanded: OnceLock::new(),
        }
    }

    /// Appends `step`, later than every step so far: it joins the last ramp when it moves on
    /// from it as its steps do; two explicit steps and this one as far on again start one.
    /// Inlined: a step of three words handed to a call goes through memory, and its caller's
    /// stores stalled the call's loads of it (a third of S-A's time in the profile's steps).
    #[inline(always)]
    pub(crate) fn push(&mut self, step: T) {
        debug_assert!(self.expanded.get().is_none(), "a line grows only before it is read as a slice");
        let last = self.last.replace(step);
        if !RAMPS {
            self.explicit.push(step);
            return;
        }
        let n = self.explicit.len();
        let free_from = match self.tails.last_mut() {
            Some(tail) if tail.head as usize + 1 == n => {
                // The ramp ends the line: one more of its steps?
                if last.is_some_and(|last| last.moved(tail.delta, 1, tail.every_us) == step) {
                    tail.count += 1;
                    return;
                }
                n
            }
            Some(tail) => tail.head as usize + 1,
            None => 0,
        };
        if n >= free_from + 2 {
            let (a, b) = (self.explicit[n - 2], self.explicit[n - 1]);
            let every_us = b.at_us() - a.at_us();
            let delta = a.delta_to(&b);
            if every_us > 0
                && step.at_us().checked_sub(b.at_us()) == Some(every_us)
                && b.delta_to(&step) == delta
            {
                self.explicit.pop();
                self.tails.push(Tail { head: (n - 2) as u32, count: 2, every_us, delta });
                return;
            }
        }
        self.explicit.push(step);
    }

    /// The ramp that starts at explicit step `index`, if any.
    fn tail_of(&self, index: usize) -> Option<&Tail<T::Delta>> {
        let i = self.tails.partition_point(|t| (t.head as usize) < index);
        self.tails.get(i).filter(|t| t.head as usize == index)
    }

    /// The last step before `at_us` (the value a crash at `at_us` reads): `None` when no step
    /// is that early. O(log steps).
    pub fn last_before(&self, at_us: u64) -> Option<T> {
        let i = self.explicit.partition_point(|s| s.at_us() < at_us).checked_sub(1)?;
        let head = self.explicit[i];
        if !RAMPS {
            return Some(head);
        }
        Some(match self.tail_of(i) {
            // The ramp's k-th step is at head + k·every: the last before at_us.
            Some(t) => {
                let k = ((at_us - 1 - head.at_us()) / t.every_us).min(u64::from(t.count));
                head.moved(t.delta, k, t.every_us)
            }
            None => head,
        })
    }

    /// The line's last step.
    #[inline]
    pub fn final_step(&self) -> Option<T> {
        self.last
    }

    /// Every step in time order, made as it goes (nothing is kept).
    pub fn steps(&self) -> impl Iterator<Item = T> + '_ {
        let mut tails = self.tails.iter().peekable();
        self.explicit.iter().enumerate().flat_map(move |(i, &head)| {
            let tail = tails.next_if(|t| t.head as usize == i).copied();
            let (count, every_us, delta) = match tail {
                Some(t) => (u64::from(t.count), t.every_us, Some(t.delta)),
                None => (0, 0, None),
            };
            (0..=count).map(move |k| match delta {
                Some(delta) => head.moved(delta, k, every_us),
                None => head,
            })
        })
    }

    /// How many entries the line keeps (explicit steps and ramps), for the benchmark.
    pub fn stored(&self) -> usize {
        self.explicit.len() + self.tails.len()
    }
}

impl<T: RampStep> std::ops::Deref for Line<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        if !RAMPS {
            return &self.explicit;
        }
        self.expanded.get_or_init(|| self.steps().collect())
    }
}

impl<'a, T: RampStep> IntoIterator for &'a Line<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: RampStep> From<Vec<T>> for Line<T> {
    fn from(steps: Vec<T>) -> Self {
        let mut line = Line::with_capacity(0);
        steps.into_iter().for_each(|s| line.push(s));
        line
    }
}

impl<T: RampStep> Default for Line<T> {
    fn default() -> Self {
        Line::with_capacity(0)
    }
}

/// A clone does not copy the expanded steps (made again if asked for).
impl<T: RampStep> Clone for Line<T> {
    fn clone(&self) -> Self {
        Line {
            explicit: self.explicit.clone(),
            tails: self.tails.clone(),
            last: self.last,
            expanded: OnceLock::new(),
        }
    }
}

/// Equal when the steps are: the ramps a sequence of pushes makes are always the same.
impl<T: RampStep> PartialEq for Line<T> {
    fn eq(&self, other: &Self) -> bool {
        self.explicit == other.explicit && self.tails == other.tails
    }
}
impl<T: RampStep + Eq> Eq for Line<T> {}

impl<T: RampStep> PartialEq<Vec<T>> for Line<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.steps().eq(other.iter().copied())
    }
}

impl<T: RampStep> PartialEq<Line<T>> for Vec<T> {
    fn eq(&self, other: &Line<T>) -> bool {
        other == self
    }
}

/// As the list of its steps.
impl<T: RampStep> std::fmt::Debug for Line<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.steps()).finish()
    }
}

/// As the list of its steps (what a `Vec` of them gives).
impl<T: RampStep + Serialize> Serialize for Line<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.steps())
    }
}
