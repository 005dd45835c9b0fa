//! A panic on demand, in debug builds only, so that tests can show a
//! panic inside the engine comes back as an error and the host goes on:
//! `LOADGEN_FFI_TEST_PANIC=run` panics inside `loadgen_run`,
//! `=step` inside `loadgen_step_execute`, `=merge` inside
//! `loadgen_merge_reports`. Release builds have no hook.

/// Panics when the test hook names `place`.
pub fn panic_if_asked(place: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("LOADGEN_FFI_TEST_PANIC").is_ok_and(|v| v == place) {
        panic!("LOADGEN_FFI_TEST_PANIC={place}: a panic asked for by a test");
    }
    #[cfg(not(debug_assertions))]
    let _ = place;
}
