//! The consumer page's entry point (`index.html`, as Trunk builds it): installs the panic hook
//! (debug builds) and mounts the app.

fn main() {
    #[cfg(target_arch = "wasm32")]
    offset_window_app::start();
}
