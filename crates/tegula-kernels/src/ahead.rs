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

/// Rows longer than this (32 KiB of float64) are folded whole, one after another, the next row
/// asked for meanwhile: each is then one long memory stream, while the running sums of a row
/// (a few hundred KiB at most) stay in the level-2 cache. Read side by side a window at a time,
/// such rows ran `std(axis=0)` of 5000² and 10000² blocks about a fifth slower.
pub(crate) const LONG_ROW: usize = 4096;

/// `fold(rows, ahead)` of `rows` `width` values long: once for them all, or, for rows longer
/// than `LONG_ROW`, once per row, with the row after it (the next of `rows`, else the first
/// row `ahead`) as the row ahead.
#[inline(always)]
pub(crate) fn by_length<'r>(rows: &'r [&'r [f64]], width: usize, ahead: Ahead<'r>, mut fold: impl FnMut(&[&[f64]], Ahead)) {
    if width <= LONG_ROW {
        return fold(rows, ahead);
    }
    for i in 0..rows.len() {
        fold(&rows[i..i + 1], Ahead(rows.get(i + 1..i + 2).or(ahead.0.get(..1)).unwrap_or(&[])));
    }
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
