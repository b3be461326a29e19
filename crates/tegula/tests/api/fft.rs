//! `tegula::fft` and `Array::roll` against NumPy 2's answers for the same array, written out
//! below (complex results as interleaved real and imaginary parts), at several chunkings.

use ndarray::ArrayD;
use tegula::fft::{self, FftNorm};
use tegula::{Array, AxisChunks, ChunkSpec, DType, TegulaError};

const X: [f64; 10] = [1.0, -2.0, 3.5, 0.5, 2.0, 0.25, 4.0, -1.0, 1.5, -3.0];

fn x(block: usize) -> Array {
    Array::from_ndarray(ArrayD::from_shape_vec(vec![2, 5], X.to_vec()).unwrap(), &ChunkSpec::All(AxisChunks::Size(block))).unwrap()
}

/// The values, complex ones as interleaved real and imaginary parts.
fn parts(a: &Array) -> Vec<f64> {
    let out = a.compute().unwrap();
    match out.dtype() {
        DType::Complex128 => out.typed::<num_complex::Complex64>().unwrap().iter().flat_map(|c| [c.re, c.im]).collect(),
        _ => out.typed::<f64>().unwrap().iter().copied().collect(),
    }
}

fn assert_close(actual: &[f64], expected: &[f64], what: &str) {
    let close = actual.len() == expected.len() && actual.iter().zip(expected).all(|(a, e)| (a - e).abs() <= 1e-12 * (1.0 + e.abs()));
    assert!(close, "{what}: {actual:?} against NumPy's {expected:?}");
}

#[test]
fn transforms_are_numpys() {
    let b = FftNorm::Backward;
    for block in [1, 2, 5] {
        let x = x(block);
        assert_close(&parts(&fft::fft(&x, None, -1, b).unwrap()), &[5.0, 0.0, -2.23606797749979, 2.0408703083031945, 2.23606797749979, 5.204310558055353, 2.23606797749979, -5.204310558055353, -2.23606797749979, -2.0408703083031945, 1.75, 0.0, 0.15450849718747373, -5.187932483334892, -0.4045084971874737, -6.492138056785196, -0.4045084971874737, 6.492138056785196, 0.15450849718747373, 5.187932483334892], "fft");
        assert_close(&parts(&fft::ifft(&x, Some(8), -1, FftNorm::Ortho).unwrap()), &[1.7677669529663687, 0.0, -0.9785533905932737, 0.8624368670764581, -0.17677669529663687, -0.8838834764831843, 0.2714466094067262, -1.612436867076458, 2.82842712474619, 0.0, 0.2714466094067262, 1.612436867076458, -0.17677669529663687, 0.8838834764831843, -0.9785533905932737, -0.8624368670764581, 0.618718433538229, 0.0, 1.7740485194281397, 1.0214466094067263, -0.618718433538229, 0.8838834764831843, 0.5240485194281397, 1.7285533905932737, -3.270368862987782, 0.0, 0.5240485194281397, -1.7285533905932737, -0.618718433538229, -0.8838834764831843, 1.7740485194281397, -1.0214466094067263], "ifft n=8 ortho");
        assert_close(&parts(&fft::rfft(&x, None, 0, b).unwrap()), &[1.25, 0.0, 2.0, 0.0, 2.5, 0.0, 2.0, 0.0, -1.0, 0.0, 0.75, 0.0, -6.0, 0.0, 4.5, 0.0, -1.0, 0.0, 5.0, 0.0], "rfft along 0");
        let spectrum = fft::rfft(&x, None, -1, b).unwrap();
        assert_close(&parts(&fft::irfft(&spectrum, Some(5), -1, b).unwrap()), &[1.0, -1.9999999999999998, 3.5, 0.5000000000000003, 1.9999999999999998, 0.25, 4.0, -1.0, 1.5, -3.0], "irfft");
        let half = x.index(&[tegula::ops::IndexItem::Slice { start: None, stop: None, step: None }, tegula::ops::IndexItem::Slice { start: None, stop: Some(3), step: None }]).unwrap();
        assert_close(&parts(&fft::hfft(&half, Some(4), -1, FftNorm::Forward).unwrap()), &[0.125, -0.625, 2.125, -0.625, 1.8125, 0.3125, -2.1875, 0.3125], "hfft");
        assert_close(&parts(&fft::ihfft(&x, None, -1, b).unwrap()), &[1.0, -0.0, -0.447213595499958, -0.4081740616606389, 0.447213595499958, -1.0408621116110706, 0.35000000000000003, -0.0, 0.030901699437494747, 1.0375864966669786, -0.08090169943749476, 1.2984276113570392], "ihfft");
        assert_close(&parts(&fft::fftn(&x, Some(&[Some(3), Some(4)]), None, b).unwrap()), &[7.75, 0.0, -1.25, 0.0, -0.25, 0.0, -1.25, 0.0, 0.625, -4.113620667976083, -5.290063509461096, 2.667468245269452, 9.125, 5.412658773652741, -0.9599364905389036, -4.832531754730548, 0.625, 4.113620667976083, -0.9599364905389036, 4.832531754730548, 9.125, -5.412658773652741, -5.290063509461096, -2.667468245269452], "fftn");
        let real = fft::rfftn(&x, None, None, b).unwrap();
        assert_close(&parts(&real), &[6.75, 0.0, -2.081559480312316, -3.1470621750316976, 1.831559480312316, -1.2878274987298433, 3.25, 0.0, -2.3905764746872635, 7.228802791638087, 2.6405764746872635, 11.696448614840548], "rfftn");
        assert_close(&parts(&fft::irfftn(&real, Some(&[Some(2), Some(5)]), None, b).unwrap()), &[1.0, -1.9999999999999998, 3.5, 0.5000000000000003, 1.9999999999999998, 0.25, 4.0, -1.0, 1.5, -3.0], "irfftn");
    }
}

#[test]
fn frequencies_shifts_and_rolls_are_numpys() {
    assert_close(&parts(&fft::fftfreq(7, 0.5, None).unwrap()), &[0.0, 0.2857142857142857, 0.5714285714285714, 0.8571428571428571, -0.8571428571428571, -0.5714285714285714, -0.2857142857142857], "fftfreq");
    assert_close(&parts(&fft::rfftfreq(8, 2.0, None).unwrap()), &[0.0, 0.0625, 0.125, 0.1875, 0.25], "rfftfreq");
    for block in [1, 2, 5] {
        let x = x(block);
        assert_close(&parts(&fft::fftshift(&x, None).unwrap()), &[1.5, -3.0, 0.25, 4.0, -1.0, 0.5, 2.0, 1.0, -2.0, 3.5], "fftshift");
        assert_close(&parts(&fft::ifftshift(&x, Some(&[1])).unwrap()), &[3.5, 0.5, 2.0, 1.0, -2.0, -1.0, 1.5, -3.0, 0.25, 4.0], "ifftshift");
        assert_close(&parts(&x.roll(&[3], None).unwrap()), &[-1.0, 1.5, -3.0, 1.0, -2.0, 3.5, 0.5, 2.0, 0.25, 4.0], "roll of the flattened array");
        assert_close(&parts(&x.roll(&[1, -2], Some(&[0, 1])).unwrap()), &[-1.0, 1.5, -3.0, 0.25, 4.0, 3.5, 0.5, 2.0, 1.0, -2.0], "roll along two axes");
    }
}

#[test]
fn bad_transforms_are_refused() {
    let x = x(2);
    assert!(matches!(fft::fft(&x, Some(0), -1, FftNorm::Backward), Err(TegulaError::Value(m)) if m.contains("Invalid number of FFT data points (0)")));
    assert!(matches!(fft::fft(&x, None, 2, FftNorm::Backward), Err(TegulaError::Axis { .. })));
    assert!(matches!(FftNorm::from_name(Some("sideways")), Err(TegulaError::Value(_))));
    let complex = x.astype(DType::Complex128).unwrap();
    assert!(matches!(fft::rfft(&complex, None, -1, FftNorm::Backward), Err(TegulaError::DType(_))));
    assert!(matches!(fft::fftfreq(0, 1.0, None), Err(TegulaError::Value(_))));
}
