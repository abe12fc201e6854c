//! Work counted in tests: scanners report the bytes or entries they look at, so a test can prove
//! a scanner linear by counting instead of timing. Outside tests `add` compiles to nothing.

#[cfg(test)]
thread_local! {
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Records `n` steps of work on this thread (tests only).
#[inline(always)]
pub(crate) fn add(n: usize) {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + n as u64));
    #[cfg(not(test))]
    let _ = n;
}

/// Runs `f` and returns its result with the steps it recorded on this thread.
#[cfg(test)]
pub(crate) fn count<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = STEPS.with(std::cell::Cell::get);
    let r = f();
    (r, STEPS.with(std::cell::Cell::get) - before)
}
