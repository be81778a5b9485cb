//! The pipeline page's entry point (`pipeline.html`, built into `dist/pipeline/`): its own
//! wasm, so readers of the other pages never download it.

fn main() {
    #[cfg(target_arch = "wasm32")]
    offset_window_app::start_pipeline();
}
