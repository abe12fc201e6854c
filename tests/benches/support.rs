//! Timing helpers shared by the bench binaries: repeated runs, then min / median / p99.

use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct Stats {
    pub samples: Vec<Duration>,
}

impl Stats {
    pub fn of(mut samples: Vec<Duration>) -> Self {
        samples.sort_unstable();
        Stats { samples }
    }

    fn at(&self, q: f64) -> Duration {
        let i = ((self.samples.len() as f64 - 1.0) * q).round() as usize;
        self.samples[i]
    }

    pub fn line(&self, what: &str) -> String {
        format!(
            "{what:<48} n={:<5} min={:>10.3?} median={:>10.3?} p99={:>10.3?} max={:>10.3?}",
            self.samples.len(),
            self.samples[0],
            self.at(0.5),
            self.at(0.99),
            self.samples[self.samples.len() - 1]
        )
    }
}

/// Times `f` `n` times after `warmup` untimed runs.
pub fn time<T>(n: usize, warmup: usize, mut f: impl FnMut() -> T) -> Stats {
    for _ in 0..warmup {
        std::hint::black_box(f());
    }
    let samples = (0..n)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .collect();
    Stats::of(samples)
}

/// The release binary next to this bench binary (`cargo build --release` first).
pub fn release_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let bin = exe.parent().and_then(|d| d.parent()).expect("target dir").join("vitaecontext");
    assert!(bin.exists(), "{} is missing: run `cargo build --release` before `cargo bench`", bin.display());
    bin
}
