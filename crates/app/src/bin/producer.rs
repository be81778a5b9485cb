//! The producer page's entry point (`producer.html`, built into `dist/producer/`): its own
//! wasm, so readers of the consumer page never download the producer view.

fn main() {
    #[cfg(target_arch = "wasm32")]
    offset_window_app::start_producer();
}
