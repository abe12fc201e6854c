//! Nothing lives here: the crate exists for its integration test binary in `integration/`.
