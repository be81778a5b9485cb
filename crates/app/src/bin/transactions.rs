//! The transactions page's entry point (`transactions.html`, built into
//! `dist/transactions/`): its own wasm, so readers of the other pages never download it.

fn main() {
    #[cfg(target_arch = "wasm32")]
    offset_window_app::start_transactions();
}
