//! The units of `datetime64`/`timedelta64` tegula has, and NaT's stored value.

use serde::{Deserialize, Serialize};

/// The stored value of NaT ("not a time").
pub const NAT: i64 = i64::MIN;

/// A time unit of fixed length, coarsest first. NumPy's years and months (of varying length)
/// and its units finer than a nanosecond are not supported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TimeUnit {
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
    Micro,
    Nano,
}

impl TimeUnit {
    pub const ALL: [TimeUnit; 8] = [
        TimeUnit::Week,
        TimeUnit::Day,
        TimeUnit::Hour,
        TimeUnit::Minute,
        TimeUnit::Second,
        TimeUnit::Milli,
        TimeUnit::Micro,
        TimeUnit::Nano,
    ];

    /// NumPy's code for the unit (`"ns"` in `datetime64[ns]`).
    pub fn code(self) -> &'static str {
        use TimeUnit::*;
        match self {
            Week => "W",
            Day => "D",
            Hour => "h",
            Minute => "m",
            Second => "s",
            Milli => "ms",
            Micro => "us",
            Nano => "ns",
        }
    }

    pub fn from_code(code: &str) -> Option<TimeUnit> {
        TimeUnit::ALL.into_iter().find(|u| u.code() == code)
    }

    /// The unit's length in nanoseconds.
    pub fn nanos(self) -> i64 {
        use TimeUnit::*;
        match self {
            Week => 7 * 86_400_000_000_000,
            Day => 86_400_000_000_000,
            Hour => 3_600_000_000_000,
            Minute => 60_000_000_000,
            Second => 1_000_000_000,
            Milli => 1_000_000,
            Micro => 1_000,
            Nano => 1,
        }
    }

    /// The finer of two units: the one NumPy converts both operands to.
    pub fn finer(self, other: TimeUnit) -> TimeUnit {
        self.max(other)
    }

    /// How many of `finer` one `self` holds (`self` at least as coarse as `finer`).
    pub fn ratio_to(self, finer: TimeUnit) -> i64 {
        self.nanos() / finer.nanos()
    }
}

