//! The group page's entry point (`group.html`, built into `dist/group/`): its own wasm, so
//! readers of the consumer page never download the group view.

fn main() {
    #[cfg(target_arch = "wasm32")]
    offset_window_app::start_group();
}
