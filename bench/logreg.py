"""Logistic regression by Newton's method (the NumS workload): tegula.glm, and the same loop
in plain array code on tegula, against that loop written with Dask Array (and with NumPy), in
one run, at several chunkings.

    .venv/bin/python bench/logreg.py                         # X 2,000,000 x 28 in memory, 10 steps
    .venv/bin/python bench/logreg.py --rows 200000           # smaller
    .venv/bin/python bench/logreg.py --inputs generated --rows 4000000 --chunk 25000,100000,500000

--inputs memory (the default): X (a column of ones and 27 standard normal features,
HIGGS-sized rows) and y are made once with NumPy and held in memory; tegula and Dask take them
in row chunks of --chunk rows (all 28 columns). --inputs generated: each library generates X
and y itself (its own random numbers: X as above, y drawn from the logistic model of a fixed
coefficient vector) and persists them (`tg.persist`, `dask.persist`) before the first step;
the time includes generating and persisting. Each library runs 10 Newton steps from zero,
every step one computation of the gradient X.T @ (mu - y) and the Hessian
(X.T * (mu * (1 - mu))) @ X, the 28 x 28 solve done by NumPy. Dask uses its threaded
scheduler with one thread per CPU. Each library runs --rounds times at each chunking; the
best time is reported with its ratio to Dask's, and the worst ratio over the chunkings. The
last column checks the answer: in memory, the coefficients' largest difference from NumPy's
(the same algorithm); generated, from the coefficients the data were drawn with."""

import argparse
import os
import time

import fair_blas  # before NumPy: NumPy and Dask on this machine's own BLAS kernels
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


def tegula_plain(X, y, steps, chunk):
    import tegula as tg

    return plain_fit(tg.asarray(X, chunks=(chunk, X.shape[1])), tg.asarray(y, chunks=chunk), steps)


def plain_fit(x, labels, steps):
    """Newton's method in plain array code on tegula, the loop `dask_fit` runs on Dask."""
    import tegula as tg

    beta = np.zeros(x.shape[1])
    for _ in range(steps):
        mu = 1 / (1 + tg.exp(-(x @ beta)))
        gradient, hessian = tg.compute(x.T @ (mu - labels), (x.T * (mu * (1 - mu))) @ x)
        beta = beta - np.linalg.solve(hessian, gradient)
    return beta


def dask_newton(X, y, steps, chunk):
    import dask.array as da

    x = da.from_array(X, chunks=(chunk, X.shape[1]))
    labels = da.from_array(y, chunks=chunk)
    return dask_fit(x, labels, steps)


def dask_fit(x, labels, steps):
    import dask
    import dask.array as da

    beta = np.zeros(x.shape[1])
    with dask.config.set(scheduler="threads", num_workers=os.cpu_count()):
        for _ in range(steps):
            mu = 1 / (1 + da.exp(-(x @ beta)))
            gradient, hessian = dask.compute(x.T @ (mu - labels), (x.T * (mu * (1 - mu))) @ x)
            beta = beta - np.linalg.solve(hessian, gradient)
    return beta


def truth(cols, seed=0):
    return np.random.default_rng(seed).standard_normal(cols) / np.sqrt(cols)


def tegula_generated(rows, cols, steps, chunk, seed=0, plain=False):
    import tegula as tg

    rng = tg.random.default_rng(seed)
    x = tg.where(tg.arange(cols) == 0, 1.0, rng.standard_normal((rows, cols), chunks=(chunk, cols)))
    p = 1 / (1 + tg.exp(-(x @ truth(cols, seed))))
    labels = (rng.random(rows, chunks=chunk) < p).astype("float64")
    x, labels = tg.persist(x, labels)
    if plain:
        return plain_fit(x, labels, steps)
    return tg.glm.LogisticRegression(max_iter=steps, tol=0).fit(x, labels).coef_


def dask_generated(rows, cols, steps, chunk, seed=0):
    import dask
    import dask.array as da

    rng = da.random.default_rng(seed)
    x = da.where(da.arange(cols) == 0, 1.0, rng.standard_normal((rows, cols), chunks=(chunk, cols)))
    p = 1 / (1 + da.exp(-(x @ truth(cols, seed))))
    labels = (rng.random(rows, chunks=chunk) < p).astype("float64")
    with dask.config.set(scheduler="threads", num_workers=os.cpu_count()):
        x, labels = dask.persist(x, labels)
    return dask_fit(x, labels, steps)


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
    parser.add_argument("--chunk", default="100000", help="rows per chunk; several, comma-separated, for a sweep")
    parser.add_argument("--inputs", choices=["memory", "generated"], default="memory")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    chunks = [int(c) for c in args.chunk.split(",")]
    print(f"X ({args.rows}, {args.cols}) float64 ({args.rows * args.cols * 8 / 1e9:.2f} GB) {args.inputs}, "
          f"{args.steps} Newton steps, {os.cpu_count()} CPUs; best of {args.rounds}; "
          f"NumPy's BLAS: {fair_blas.blas_kernels()}")
    if args.inputs == "memory":
        X, y = data(args.rows, args.cols)
        t_numpy, reference = best(lambda: numpy_newton(X, y, args.steps), args.rounds)
        print(f"NumPy: {t_numpy:.2f} s")
        runs = {"tegula": lambda c: tegula_newton(X, y, args.steps, c),
                "plain": lambda c: tegula_plain(X, y, args.steps, c),
                "Dask": lambda c: dask_newton(X, y, args.steps, c)}
    else:
        reference = truth(args.cols)
        runs = {
            "tegula": lambda c: tegula_generated(args.rows, args.cols, args.steps, c),
            "plain": lambda c: tegula_generated(args.rows, args.cols, args.steps, c, plain=True),
            "Dask": lambda c: dask_generated(args.rows, args.cols, args.steps, c),
        }
    print("| chunk rows | tegula.glm (s) | tegula plain (s) | Dask (s) | glm / Dask | plain / Dask "
          "| max |coef - reference| (glm, plain, Dask) |")
    print("|---|---|---|---|---|---|---|")
    worst = {"glm": 0.0, "plain": 0.0}
    for chunk in chunks:
        (t_glm, glm), (t_plain, plain), (t_dask, theirs) = (best(lambda: run(chunk), args.rounds) for run in runs.values())
        worst = {"glm": max(worst["glm"], t_glm / t_dask), "plain": max(worst["plain"], t_plain / t_dask)}
        error = ", ".join(f"{np.abs(b - reference).max():.1e}" for b in (glm, plain, theirs))
        print(f"| {chunk} | {t_glm:.2f} | {t_plain:.2f} | {t_dask:.2f} | {t_glm / t_dask:.2f} | {t_plain / t_dask:.2f} | {error} |")
    print(f"worst tegula / Dask over the chunkings: glm {worst['glm']:.2f}, plain {worst['plain']:.2f}")


if __name__ == "__main__":
    main()
