//! `datetime64`/`timedelta64` through the Rust API: arrays of counts relabelled as times, their
//! arithmetic across units with NaT, extremes and sorting, against values worked out here from
//! the counts (NumPy's rules, written out by hand).

use ndarray::ArrayD;
use tegula::{Array, AxisChunks, ChunkSpec, DType, TimeUnit, NAT, ops::{BinaryOp, ReduceOp}};
use tegula_plan::construct::reduce::ReduceSpec;

fn times(counts: &[i64], dtype: DType) -> Array {
    let data = ArrayD::from_shape_vec(vec![counts.len()], counts.to_vec()).unwrap();
    Array::from_ndarray(data, &ChunkSpec::PerAxis(vec![AxisChunks::Size(2)])).unwrap().astype(dtype).unwrap()
}

fn counts(x: &Array) -> Vec<i64> {
    x.compute().unwrap().typed::<i64>().unwrap().iter().copied().collect()
}

#[test]
fn datetimes_in_seconds_minus_minutes_are_durations_in_seconds() {
    let at = times(&[120, NAT, -1, 59], DType::DateTime64(TimeUnit::Second));
    let since = times(&[1, 1, NAT, -1], DType::DateTime64(TimeUnit::Minute));
    let elapsed = at.sub(&since).unwrap();
    assert_eq!(elapsed.dtype(), DType::TimeDelta64(TimeUnit::Second));
    assert_eq!(counts(&elapsed), [60, NAT, NAT, 119]);
    assert!(at.add(&at).is_err(), "datetimes do not add");
}

#[test]
fn unit_changes_floor_and_keep_nat() {
    let seconds = times(&[-1, 59, 60, NAT], DType::TimeDelta64(TimeUnit::Second));
    assert_eq!(counts(&seconds.astype(DType::TimeDelta64(TimeUnit::Minute)).unwrap()), [-1, 0, 1, NAT]);
    assert_eq!(counts(&seconds.astype(DType::TimeDelta64(TimeUnit::Milli)).unwrap()), [-1000, 59_000, 60_000, NAT]);
}

#[test]
fn extremes_propagate_nat_unless_they_skip_it() {
    let x = times(&[5, NAT, -3, 9], DType::TimeDelta64(TimeUnit::Day));
    let reduce = |op| counts(&x.reduce(&ReduceSpec::new(op)).unwrap());
    assert_eq!(reduce(ReduceOp::Max), [NAT]);
    assert_eq!(reduce(ReduceOp::Min), [NAT]);
    assert_eq!(reduce(ReduceOp::NanMax), [9]);
    assert_eq!(reduce(ReduceOp::NanMin), [-3]);
    let clean = times(&[5, -3, 9], DType::TimeDelta64(TimeUnit::Day));
    assert_eq!(counts(&clean.reduce(&ReduceSpec::new(ReduceOp::Mean)).unwrap()), [3]);
    assert!(clean.reduce(&ReduceSpec::new(ReduceOp::Var)).is_err());
}

#[test]
fn sorting_puts_nat_last() {
    let x = times(&[5, NAT, i64::MAX, -3], DType::DateTime64(TimeUnit::Nano));
    assert_eq!(counts(&x.sort(0, false).unwrap()), [-3, 5, i64::MAX, NAT]);
    let positions = x.argsort(0, false).unwrap().compute().unwrap();
    assert_eq!(positions.typed::<i64>().unwrap().iter().copied().collect::<Vec<_>>(), [3, 0, 2, 1]);
}

#[test]
fn comparisons_with_nat_are_false_but_not_equal() {
    let a = times(&[1, NAT, 3], DType::TimeDelta64(TimeUnit::Hour));
    let b = times(&[1, NAT, 60], DType::TimeDelta64(TimeUnit::Minute));
    let bools = |op| -> Vec<bool> { a.binary(op, &b).unwrap().compute().unwrap().typed::<bool>().unwrap().iter().copied().collect() };
    assert_eq!(bools(BinaryOp::Equal), [false, false, false]);
    assert_eq!(bools(BinaryOp::NotEqual), [true, true, true]);
    assert_eq!(bools(BinaryOp::Greater), [true, false, true]);
}
