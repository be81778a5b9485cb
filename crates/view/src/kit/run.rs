//! One simulation, as every page runs it: [`simulate`] (the core's, counted in debug builds
//! so that a browser test can hold a page to its number of runs per change) and
//! [`Checked`], a scenario the core accepted together with its run, which a page's state
//! keeps so that the page draws that run instead of simulating again.
//!
//! What is counted: every run a page asks for through [`simulate`] or [`Checked::check`].
//! The sweeps of the core (`offset_window_sim::sweep`, the damage as a function of the
//! first event's instant) run their own simulations and are not counted here.

use offset_window_sim::{Run, Scenario, ScenarioError};
use std::rc::Rc;

#[cfg(debug_assertions)]
thread_local! {
    static SIMULATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The core's `simulate`, counted (debug builds).
pub fn simulate(scenario: &Scenario) -> Result<Run, ScenarioError> {
    #[cfg(debug_assertions)]
    SIMULATIONS.with(|n| n.set(n.get() + 1));
    offset_window_sim::simulate(scenario)
}

/// How many simulations [`simulate`] has run on this thread (always 0 in a release build).
pub fn simulations() -> u64 {
    #[cfg(debug_assertions)]
    return SIMULATIONS.with(|n| n.get());
    #[cfg(not(debug_assertions))]
    0
}

/// A scenario the core accepted (valid, and its run does not stop with an error) and that
/// run. Two are equal when their scenarios are (the run is a function of the scenario).
#[derive(Clone, Debug)]
pub struct Checked {
    /// The scenario.
    pub scenario: Scenario,
    /// Its run.
    pub run: Rc<Run>,
}

impl Checked {
    /// `scenario` with its run, or the core's refusal.
    pub fn check(scenario: Scenario) -> Result<Checked, ScenarioError> {
        let run = simulate(&scenario)?;
        Ok(Checked { scenario, run: Rc::new(run) })
    }
}

impl PartialEq for Checked {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.run, &other.run) || self.scenario == other.scenario
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_runs_once_and_keeps_its_run() {
        let before = simulations();
        let c = Checked::check(Scenario::default()).unwrap();
        assert_eq!(simulations() - before, u64::from(cfg!(debug_assertions)));
        assert_eq!(c.run.scenario, c.scenario);
        let bad = Scenario { max_poll_records: 0, ..Scenario::default() };
        assert!(Checked::check(bad).is_err());
    }
}
