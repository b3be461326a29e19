//! Which device a task runs on, and its result lives on: a number in the executing process's
//! table of devices (`tegula_exec::device`), 0 being the CPU. Plans carry the number only.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A device's number in the executing process's table of devices (0: the CPU).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DeviceId(pub u16);

impl DeviceId {
    /// The host's processors and memory: where every array starts.
    pub const CPU: DeviceId = DeviceId(0);

    /// The number as an index into the table of devices.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "device #{}", self.0)
    }
}
