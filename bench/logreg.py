"""Logistic regression by Newton's method (the NumS workload): tegula.glm against the same
loop written with Dask Array and with NumPy, in one run.

    .venv/bin/python bench/logreg.py                   # X 2,000,000 x 28, 10 iterations
    .venv/bin/python bench/logreg.py --rows 200000     # smaller

X (a column of ones and 27 standard normal features, HIGGS-sized rows) and y are made once
with NumPy and held in memory; tegula and Dask take them in row chunks of --chunk rows (all
28 columns). Each library runs 10 Newton steps from zero, every step one computation of the
gradient X.T @ (mu - y) and the Hessian (X.T * (mu * (1 - mu))) @ X, the 28 x 28 solve done
by NumPy. Dask uses its threaded scheduler with one thread per CPU. Each library runs
--rounds times; the best time is reported, with the coefficients' largest difference from
NumPy's (the same algorithm in memory)."""

import argparse
import os
import time

import numpy as np


def data(rows, cols, seed=0):
    rng = np.random.default_rng(seed)
    X = np.empty((rows, cols))
    X[:, 0] = 1.0
    X[:, 1:] = rng.standard_normal((rows, cols - 1))
    truth = rng.standard_normal(cols) / np.sqrt(cols)
    y = (rng.random(rows) < 1 / (1 + np.exp(-(X @ truth)))).astype(np.float64)
    return X, y


def numpy_newton(X, y, steps):
    beta = np.zeros(X.shape[1])
    for _ in range(steps):
        mu = 1 / (1 + np.exp(-(X @ beta)))
        beta = beta - np.linalg.solve((X.T * (mu * (1 - mu))) @ X, X.T @ (mu - y))
    return beta


def tegula_newton(X, y, steps, chunk):
    import tegula as tg

    x = tg.asarray(X, chunks=(chunk, X.shape[1]))
    labels = tg.asarray(y, chunks=chunk)
    return tg.glm.LogisticRegression(max_iter=steps, tol=0).fit(x, labels).coef_


def dask_newton(X, y, steps, chunk):
    import dask
    import dask.array as da

    x = da.from_array(X, chunks=(chunk, X.shape[1]))
    labels = da.from_array(y, chunks=chunk)
    beta = np.zeros(X.shape[1])
    with dask.config.set(scheduler="threads", num_workers=os.cpu_count()):
        for _ in range(steps):
            mu = 1 / (1 + da.exp(-(x @ beta)))
            gradient, hessian = dask.compute(x.T @ (mu - labels), (x.T * (mu * (1 - mu))) @ x)
            beta = beta - np.linalg.solve(hessian, gradient)
    return beta


def best(fn, rounds):
    times, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--cols", type=int, default=28)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    X, y = data(args.rows, args.cols)
    print(f"X {X.shape} float64 ({X.nbytes / 1e9:.2f} GB), chunks of {args.chunk} rows, {args.steps} Newton steps, "
          f"{os.cpu_count()} CPUs; best of {args.rounds}")
    t_numpy, reference = best(lambda: numpy_newton(X, y, args.steps), args.rounds)
    t_tegula, ours = best(lambda: tegula_newton(X, y, args.steps, args.chunk), args.rounds)
    t_dask, theirs = best(lambda: dask_newton(X, y, args.steps, args.chunk), args.rounds)
    print(f"| library | time (s) | vs Dask | max |coef - NumPy's| |")
    print(f"|---|---|---|---|")
    for name, t, coef in (("tegula", t_tegula, ours), ("Dask", t_dask, theirs), ("NumPy", t_numpy, reference)):
        print(f"| {name} | {t:.2f} | {t / t_dask:.2f} | {np.abs(coef - reference).max():.1e} |")


if __name__ == "__main__":
    main()
