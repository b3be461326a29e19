//! The units of `datetime64`/`timedelta64` tegula has, and NaT's stored value.

use serde::{Deserialize, Serialize};

/// The stored value of NaT ("not a time").
pub const NAT: i64 = i64::MIN;

/// A time unit, coarsest first: NumPy's generic unit (of a time that takes the unit of the
/// times it meets, count unchanged), its calendar units (years and months, of varying length)
/// and its units of fixed length from weeks to nanoseconds (not the finer ones, nor multiples).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TimeUnit {
    /// NumPy's generic unit (`datetime64` without a unit): takes the unit of the times it meets.
    Generic,
    /// Calendar years (`Y`).
    Year,
    /// Calendar months (`M`).
    Month,
    /// Weeks of 7 days (`W`).
    Week,
    /// Days (`D`).
    Day,
    /// Hours (`h`).
    Hour,
    /// Minutes (`m`).
    Minute,
    /// Seconds (`s`).
    Second,
    /// Milliseconds (`ms`).
    Milli,
    /// Microseconds (`us`).
    Micro,
    /// Nanoseconds (`ns`).
    Nano,
}

impl TimeUnit {
    /// Every unit, coarsest first.
    pub const ALL: [TimeUnit; 11] = [
        TimeUnit::Generic,
        TimeUnit::Year,
        TimeUnit::Month,
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
            Generic => "generic",
            Year => "Y",
            Month => "M",
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

    /// The unit of NumPy's code `code` (`"ns"`, `"generic"`), if tegula has it.
    pub fn from_code(code: &str) -> Option<TimeUnit> {
        TimeUnit::ALL.into_iter().find(|u| u.code() == code)
    }

    /// The unit's length in nanoseconds (`None` for years and months).
    pub fn nanos(self) -> Option<i64> {
        use TimeUnit::*;
        Some(match self {
            Generic | Year | Month => return None,
            Week => 7 * 86_400_000_000_000,
            Day => 86_400_000_000_000,
            Hour => 3_600_000_000_000,
            Minute => 60_000_000_000,
            Second => 1_000_000_000,
            Milli => 1_000_000,
            Micro => 1_000,
            Nano => 1,
        })
    }

    /// The finer of two units: the one NumPy converts both operands to (a generic unit is
    /// coarser than any other).
    pub fn finer(self, other: TimeUnit) -> TimeUnit {
        self.max(other)
    }
}
