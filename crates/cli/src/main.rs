//! `offset-window`: placeholder, replaced below.
fn main() {}
