//! Datetimes between the calendar units (years, months since 1970) and days since 1970-01-01,
//! as int64 element-wise operations on their counts: the proleptic Gregorian calendar's civil
//! date of a day count and back (the era-of-400-years method), so every count converts exactly
//! and NaT is left to the caller's masks.

use super::creation::full;
use super::elementwise::{binary, cast};
use crate::node::NodeRef;
use tegula_core::{BinaryOp, Chunks, DType, Result, Scalar, TimeUnit};

/// Days since 1970-01-01 from 0000-03-01, the start of the calendar's 400-year eras here.
const EPOCH_SHIFT: i64 = 719_468;
const DAYS_PER_ERA: i64 = 146_097;

/// Element-wise int64 arithmetic with constants, written as expressions.
struct Ops;

impl Ops {
    fn k(&self, v: i64) -> Result<NodeRef> {
        full(Scalar::Int(v as i128), DType::Int64, Chunks::single(&[]))
    }
    fn op(&self, op: BinaryOp, a: &NodeRef, b: &NodeRef) -> Result<NodeRef> {
        binary(op, a, b)
    }
    fn add(&self, a: &NodeRef, b: &NodeRef) -> Result<NodeRef> {
        self.op(BinaryOp::Add, a, b)
    }
    fn sub(&self, a: &NodeRef, b: &NodeRef) -> Result<NodeRef> {
        self.op(BinaryOp::Subtract, a, b)
    }
    fn mul_k(&self, a: &NodeRef, v: i64) -> Result<NodeRef> {
        self.op(BinaryOp::Multiply, a, &self.k(v)?)
    }
    fn div_k(&self, a: &NodeRef, v: i64) -> Result<NodeRef> {
        self.op(BinaryOp::FloorDivide, a, &self.k(v)?)
    }
    fn add_k(&self, a: &NodeRef, v: i64) -> Result<NodeRef> {
        self.op(BinaryOp::Add, a, &self.k(v)?)
    }
    /// 1 where `op(a, v)` holds, else 0.
    fn test_k(&self, op: BinaryOp, a: &NodeRef, v: i64) -> Result<NodeRef> {
        cast(&self.op(op, a, &self.k(v)?)?, DType::Int64)
    }
}

/// Years (`Year`) or months (`Month`) since 1970 of day counts since 1970-01-01, floored.
pub fn from_days(days: &NodeRef, unit: TimeUnit) -> Result<NodeRef> {
    let o = Ops;
    let z = o.add_k(days, EPOCH_SHIFT)?;
    let era = o.div_k(&z, DAYS_PER_ERA)?;
    let doe = o.sub(&z, &o.mul_k(&era, DAYS_PER_ERA)?)?;
    // The year of the era: leap days taken out, 365 days each.
    let leaps = o.add(&o.sub(&o.div_k(&doe, 1_460)?, &o.div_k(&doe, 36_524)?)?, &o.div_k(&doe, DAYS_PER_ERA - 1)?)?;
    let yoe = o.div_k(&o.sub(&doe, &leaps)?, 365)?;
    let year_start = o.sub(&o.add(&o.mul_k(&yoe, 365)?, &o.div_k(&yoe, 4)?)?, &o.div_k(&yoe, 100)?)?;
    let doy = o.sub(&doe, &year_start)?;
    // Months counted from March: 0..=9 are March to December, 10 and 11 January and February.
    let mp = o.div_k(&o.add_k(&o.mul_k(&doy, 5)?, 2)?, 153)?;
    let next_year = o.test_k(BinaryOp::GreaterEqual, &mp, 10)?;
    let year = o.add(&o.add(&yoe, &o.mul_k(&era, 400)?)?, &next_year)?;
    let years = o.add_k(&year, -1970)?;
    match unit {
        TimeUnit::Year => Ok(years),
        _ => {
            let month = o.sub(&o.add_k(&mp, 2)?, &o.mul_k(&next_year, 12)?)?; // 0 = January
            o.add(&o.mul_k(&years, 12)?, &month)
        }
    }
}

/// Day counts since 1970-01-01 of the first day of each year (`Year`) or month (`Month`)
/// counted since 1970.
pub fn to_days(counts: &NodeRef, unit: TimeUnit) -> Result<NodeRef> {
    let o = Ops;
    let (years, month) = match unit {
        TimeUnit::Year => (counts.clone(), o.k(0)?),
        _ => {
            let years = o.div_k(counts, 12)?;
            (years.clone(), o.sub(counts, &o.mul_k(&years, 12)?)?)
        }
    };
    // March-based years: January and February belong to the year before.
    let early = o.test_k(BinaryOp::Less, &month, 2)?;
    let year = o.sub(&o.add_k(&years, 1970)?, &early)?;
    let era = o.div_k(&year, 400)?;
    let yoe = o.sub(&year, &o.mul_k(&era, 400)?)?;
    let mp = o.sub(&o.add_k(&month, 10)?, &o.mul_k(&o.test_k(BinaryOp::GreaterEqual, &month, 2)?, 12)?)?;
    let doy = o.div_k(&o.add_k(&o.mul_k(&mp, 153)?, 2)?, 5)?;
    let doe = o.add(&o.sub(&o.add(&o.mul_k(&yoe, 365)?, &o.div_k(&yoe, 4)?)?, &o.div_k(&yoe, 100)?)?, &doy)?;
    o.add_k(&o.add(&o.mul_k(&era, DAYS_PER_ERA)?, &doe)?, -EPOCH_SHIFT)
}
