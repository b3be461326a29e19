//! Errors NumPy raises from the data, kept lazy: an array that is its input but fails with a
//! given error when computed where a boolean array holds a true element (as Dask's
//! `nanargmax` raises when computed); checking when the expression is built would compute
//! the data.

use crate::array::Array;
use crate::constant::same_chunks;
use tegula_core::{value_err, DType, Result, TegulaError};
use tegula_plan::construct::check;

impl Array {
    /// This array, failing with `error` when computed if any element of `failed` (a boolean
    /// array broadcast to this array's shape) is true.
    pub fn checked(&self, failed: &Array, error: TegulaError) -> Result<Array> {
        if failed.dtype() != DType::Bool {
            return Err(value_err!("the condition of a check must be boolean, not {}", failed.dtype()));
        }
        let failed = failed.broadcast_to(&self.shape())?.rechunk(&same_chunks(self))?;
        check::check(&self.node, &failed.node, error).map(Array::from_node)
    }
}
