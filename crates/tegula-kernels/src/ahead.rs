//! Asking the memory system for values a loop reads later. A block of a larger array in memory
//! is many short runs (its rows), and the hardware prefetcher starts over at each run: a fold
//! over rows of 2,000 float64 ran at about half the bandwidth of one long run. Asked for a
//! row's cache lines while the rows before it are folded, the memory is already on its way.

use std::ops::Range;

/// Asks for the cache lines holding `values`, into the cache level `HINT` (an `_MM_HINT_*`)
/// names; nothing on other targets.
#[inline(always)]
pub(crate) fn ask_for<const HINT: i32>(values: &[f64]) {
    #[cfg(target_arch = "x86_64")]
    for line in values.iter().step_by(8) {
        // SAFETY: a prefetch has no effect on program state, whatever the address.
        unsafe { std::arch::x86_64::_mm_prefetch::<HINT>((line as *const f64).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = values;
}

/// Rows longer than this (32 KiB of float64) are folded whole, shorter ones a `WINDOW` of
/// columns at a time.
pub(crate) const LONG_ROW: usize = 4096;

/// Columns of a window of short rows: a band's rows are read a window at a time, side by side,
/// so that the window's partial stays in registers and L1 while each row is one memory stream.
const WINDOW: usize = 64;

/// The column windows of rows `width` values long, in order, and the rows to ask for as each
/// is folded: short rows a `WINDOW` at a time with the rows `ahead`; long rows whole, with
/// nothing asked for. Read side by side whole, a few long rows are as many long memory streams,
/// which the hardware prefetcher follows: asking for the next rows as well, or reading them
/// 512 columns at a time, ran `std(axis=0)` of 5000² to 1000 × 20000 blocks a fifth slower.
#[inline(always)]
pub(crate) fn windows(width: usize, ahead: Ahead) -> (impl Iterator<Item = Range<usize>>, Ahead) {
    let (window, ahead) = if width > LONG_ROW { (width, Ahead::NONE) } else { (WINDOW, ahead) };
    ((0..width).step_by(window.max(1)).map(move |start| start..(start + window).min(width)), ahead)
}

/// Level-2 cache: a window's rows are read once, after the rows folded before them.
#[cfg(target_arch = "x86_64")]
const TO_L2: i32 = std::arch::x86_64::_MM_HINT_T1;
#[cfg(not(target_arch = "x86_64"))]
const TO_L2: i32 = 0;

/// The rows a fold reads after the ones it is folding (its next band), asked for a column
/// window at a time as the fold reaches that window of its own rows. One band ahead: asking
/// two bands ahead ran slower.
#[derive(Clone, Copy)]
pub(crate) struct Ahead<'r>(pub(crate) &'r [&'r [f64]]);

impl Ahead<'_> {
    /// Nothing ahead: the rows come from a buffer, or none follow.
    pub(crate) const NONE: Ahead<'static> = Ahead(&[]);

    /// Asks for `columns` of every row ahead.
    #[inline(always)]
    pub(crate) fn columns(self, columns: Range<usize>) {
        for row in self.0 {
            if let Some(part) = row.get(columns.clone()) {
                ask_for::<TO_L2>(part);
            }
        }
    }

    /// Asks for `columns` of the `i`-th row ahead, if there is one.
    #[inline(always)]
    pub(crate) fn columns_of(self, i: usize, columns: Range<usize>) {
        if let Some(part) = self.0.get(i).and_then(|row| row.get(columns)) {
            ask_for::<TO_L2>(part);
        }
    }
}
