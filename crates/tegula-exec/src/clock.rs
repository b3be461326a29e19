//! The clock that times tasks for observers: one read per task, so its cost shows on tiny
//! tasks. Where the kernel keeps time by the processor's time-stamp counter (Linux on x86-64
//! with the `tsc` clocksource), the counter is read directly — about 10 ns a read on a
//! virtual machine, against about 30 for the monotonic clock's — and scaled to nanoseconds by
//! a rate measured against the monotonic clock; elsewhere it is `Instant`.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Time since a computation started.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    start: Instant,
    counter: Option<Counter>,
}

/// The time-stamp counter when the computation started, and its nanoseconds per tick.
#[derive(Debug, Clone, Copy)]
struct Counter {
    start: u64,
    nanos_per_tick: f64,
}

impl Clock {
    /// A clock that reads zero now.
    pub fn start() -> Clock {
        let (start, counter) = match reference() {
            Some(reference) => {
                let nanos_per_tick = reference.nanos_per_tick();
                let (ticks, now) = paired_reading();
                (now, Some(Counter { start: ticks, nanos_per_tick }))
            }
            None => (Instant::now(), None),
        };
        Clock { start, counter }
    }

    /// The time since `start`.
    pub fn elapsed(&self) -> Duration {
        match self.counter {
            Some(c) => Duration::from_nanos((ticks().saturating_sub(c.start) as f64 * c.nanos_per_tick) as u64),
            None => self.start.elapsed(),
        }
    }
}

/// A reading of the counter and the monotonic clock taken once per process, against which
/// each computation's rate is measured: the longer the process has run, the closer it is.
#[derive(Debug, Clone, Copy)]
struct Reference {
    ticks: u64,
    at: Instant,
}

/// The shortest span a rate is measured over: the first computation of a process that is
/// timed waits for it once (a rate within about 2e-5 of the true one).
const SHORTEST_SPAN: Duration = Duration::from_millis(2);

impl Reference {
    fn nanos_per_tick(&self) -> f64 {
        let (mut ticks, mut now) = paired_reading();
        while now - self.at < SHORTEST_SPAN {
            (ticks, now) = paired_reading();
        }
        (now - self.at).as_nanos() as f64 / ticks.saturating_sub(self.ticks).max(1) as f64
    }
}

/// The process's reference reading, or None where the counter is not the kernel's clock.
fn reference() -> Option<Reference> {
    static REFERENCE: OnceLock<Option<Reference>> = OnceLock::new();
    *REFERENCE.get_or_init(|| {
        counter_keeps_time().then(|| {
            let (ticks, at) = paired_reading();
            Reference { ticks, at }
        })
    })
}

/// The counter and the monotonic clock read as close together as the first few tries allow.
fn paired_reading() -> (u64, Instant) {
    let mut best = (u64::MAX, 0, Instant::now());
    for _ in 0..5 {
        let before = ticks();
        let now = Instant::now();
        let gap = ticks().wrapping_sub(before);
        if gap < best.0 {
            best = (gap, before + gap / 2, now);
        }
    }
    (best.1, best.2)
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn counter_keeps_time() -> bool {
    // The kernel picks the counter only where it is invariant and in step across cores.
    std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource").is_ok_and(|s| s.trim() == "tsc")
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn counter_keeps_time() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn ticks() -> u64 {
    // SAFETY: RDTSC reads a register every x86-64 processor has; it touches no memory.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
fn ticks() -> u64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_keeps_pace_with_the_monotonic_clock() {
        let clock = Clock::start();
        let start = Instant::now();
        let mut last = Duration::ZERO;
        while start.elapsed() < Duration::from_millis(30) {
            let now = clock.elapsed();
            assert!(now >= last, "the clock went back from {last:?} to {now:?}");
            last = now;
        }
        let (ours, theirs) = (clock.elapsed(), start.elapsed());
        let off = ours.as_secs_f64() - theirs.as_secs_f64();
        // Within 1% (and the time between the two starts and the two reads).
        assert!(off.abs() < 0.01 * theirs.as_secs_f64() + 1e-4, "{ours:?} against {theirs:?}");
    }

    #[test]
    fn a_new_clock_reads_zero() {
        assert!(Clock::start().elapsed() < Duration::from_millis(5));
    }
}
