//! The three logs on their time axis: a canvas drawn by `offset_window_view::pipeline::chart`,
//! redrawn when the run, the size or the colours change. A click or tap on it moves the first
//! event (a crash, a hang or a join) there.

use crate::shell::{self, use_size, Shared};
use offset_window_sim::pipeline::{PipelineRun, PipelineScenario};
use offset_window_view::kit::crash::snap_drag_us;
use offset_window_view::pipeline::chart::{self, Look};
use offset_window_view::pipeline::state::{Action, State};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Props of [`PipeChart`].
#[derive(Properties, PartialEq)]
pub struct PipeChartProps {
    /// The run drawn.
    pub run: Shared<PipelineRun>,
    /// Its scenario.
    pub scenario: Shared<PipelineScenario>,
    /// Dark colours.
    pub dark: bool,
    /// Projector mode (type scaled up).
    pub projector: bool,
    /// Where a click goes.
    pub dispatch: UseReducerDispatcher<State>,
}

/// The chart's canvas.
#[function_component]
pub fn PipeChart(p: &PipeChartProps) -> Html {
    let canvas = use_node_ref();
    let size = use_size(canvas.clone(), p.projector);
    {
        let canvas = canvas.clone();
        let deps = (p.run.clone(), p.scenario.clone(), p.dark, size);
        use_effect_with(deps, move |(run, scenario, dark, size)| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else { return };
            let width = if size.width > 0 { size.width as f64 } else { 760.0 };
            let height = if size.height > 0 { size.height as f64 } else { 480.0 };
            let (_, _, scale) = shell::fit(&c, (width, height));
            let look = Look { scale: scale * size.type_scale(), dark: *dark, font: 1.0 };
            shell::draw_on(c.clone(), "drawing the pipeline failed", |root| {
                chart::draw(root, &run.0, &scenario.0, look)
            });
            let crash = offset_window_view::pipeline::state::first_event(&scenario.0)
                .map_or(String::new(), |i| scenario.0.events[i].at_us.to_string());
            let _ = c.set_attribute("data-crash-us", &crash);
        });
    }
    let onclick = {
        let (run, scenario, dispatch) = (p.run.clone(), p.scenario.clone(), p.dispatch.clone());
        Callback::from(move |e: MouseEvent| {
            let Some((c, x, _, k)) = shell::device_point(&e) else { return };
            let look = Look { scale: k, dark: false, font: 1.0 };
            let us = chart::time_at(&run.0, &scenario.0, (c.width(), c.height()), look, x) as f64;
            dispatch.dispatch(Action::Crash(snap_drag_us(us, scenario.0.horizon_us)));
        })
    };
    html! {
        <div class="canvas-box">
            <canvas ref={canvas} {onclick} role="img"
                aria-label="The pipeline over time in three bands: the input topic's records, committed offset and stalls; the output topic's records, commit and abort markers and last stable offset; downstream, how many times each reader saw each input record. Click to move the crash (or the hang, or the join) there. The tables and the lists below say the same in words."></canvas>
        </div>
    }
}
