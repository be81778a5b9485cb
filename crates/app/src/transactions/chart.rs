//! The log on its time axis: a canvas drawn by `offset_window_view::transactions::chart`,
//! redrawn when the run, the instant, the size or the colours change. A click or tap on it
//! reads the readouts at that instant.

use crate::shell::{self, use_size, Shared};
use offset_window_sim::transactions::TxnRun;
use offset_window_view::kit::crash::snap_drag_us;
use offset_window_view::transactions::chart::{self, Look};
use offset_window_view::transactions::state::{Action, State};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Props of [`LogChart`].
#[derive(Properties, PartialEq)]
pub struct LogChartProps {
    /// The run drawn.
    pub run: Shared<TxnRun>,
    /// The scenario's horizon, µs.
    pub horizon_us: u64,
    /// The instant read, µs.
    pub at_us: u64,
    /// Dark colours.
    pub dark: bool,
    /// Projector mode (type scaled up).
    pub projector: bool,
    /// Where a click goes.
    pub dispatch: UseReducerDispatcher<State>,
}

/// The chart's canvas.
#[function_component]
pub fn LogChart(p: &LogChartProps) -> Html {
    let canvas = use_node_ref();
    let size = use_size(canvas.clone(), p.projector);
    {
        let canvas = canvas.clone();
        let deps = (p.run.clone(), p.horizon_us, p.at_us, p.dark, size);
        use_effect_with(deps, move |(run, horizon_us, at_us, dark, size)| {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else { return };
            let width = if size.width > 0 { size.width as f64 } else { 760.0 };
            let height = if size.height > 0 { size.height as f64 } else { 320.0 };
            let (_, _, scale) = shell::fit(&c, (width, height));
            let look = Look { scale: scale * size.type_scale(), dark: *dark, font: 1.0 };
            shell::draw_on(c.clone(), "drawing the log failed", |root| {
                chart::draw(root, &run.0, *horizon_us, *at_us, look)
            });
            let end = chart::x_end_us(&run.0, *horizon_us);
            let _ = c.set_attribute("data-x-end-us", &end.to_string());
        });
    }
    let onclick = {
        let (run, horizon_us, dispatch) = (p.run.clone(), p.horizon_us, p.dispatch.clone());
        Callback::from(move |e: MouseEvent| {
            let Some((c, x, _, k)) = shell::device_point(&e) else { return };
            let look = Look { scale: k, dark: false, font: 1.0 };
            let f = chart::frame(&run.0, horizon_us, (c.width(), c.height()), look);
            let us = f.time_at(x) as f64;
            dispatch.dispatch(Action::At(Some(snap_drag_us(us, horizon_us))));
        })
    };
    html! {
        <div class="canvas-box">
            <canvas ref={canvas} {onclick} role="img"
                aria-label="The log of orders-3 over time: each record at its write time and offset, the markers, the last stable offset, the high watermark and each reader's committed offset; the readouts and the log list say the same in words"></canvas>
        </div>
    }
}
