//! Integration tests: see the modules.
