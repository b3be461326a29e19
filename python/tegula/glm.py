"""Generalised linear models on chunked arrays: logistic regression by Newton's method and
linear regression by the normal equations. Each iteration is one plan over the data (the
gradient and the Hessian together, one pass over ``X``); the small ``d × d`` solve runs here
with NumPy. ``X`` may be larger than memory (a Zarr array, say): only blocks and ``d × d``
partial products are held.

>>> import numpy as np, tegula as tg
>>> X = tg.asarray(np.c_[np.ones(6), [0., 1, 2, 3, 4, 5]], chunks=(2, 2))
>>> y = tg.asarray([0., 0, 1, 0, 1, 1])
>>> model = tg.glm.LogisticRegression().fit(X, y)
>>> model.predict(X).compute().astype(int).tolist()
[0, 0, 0, 1, 1, 1]
"""

import numpy as np

from ._creation import asarray
from ._functions import UFUNCS, compute
from .linalg import qr as _qr

exp = UFUNCS["exp"]


class LogisticRegression:
    """``P(y = 1 | x) = 1 / (1 + exp(-x @ coef_))`` fitted by Newton's method (iteratively
    reweighted least squares) until the largest step is below ``tol`` or after ``max_iter``
    steps. ``X`` holds the features (add a column of ones for an intercept); ``y`` zeros
    and ones."""

    def __init__(self, max_iter=10, tol=1e-8):
        if max_iter < 1:
            raise ValueError(f"max_iter must be at least 1, got {max_iter}")
        self.max_iter, self.tol = int(max_iter), float(tol)
        self.coef_ = None
        self.n_iter_ = 0

    def fit(self, X, y):
        X, y = _checked(X, y)
        beta = np.zeros(X.shape[1])
        for step in range(1, self.max_iter + 1):
            mu = 1 / (1 + exp(-(X @ asarray(beta))))
            # X.T @ (X * w) rather than (X.T * w) @ X: the weights scale X's rows in place,
            # where they would scale columns of a transposed (strided) view.
            gradient, hessian = compute(X.T @ (mu - y), X.T @ (X * (mu * (1 - mu))[:, None]))
            delta = np.linalg.solve(hessian, gradient)
            beta = beta - delta
            self.n_iter_ = step
            if np.abs(delta).max(initial=0) < self.tol:
                break
        self.coef_ = beta
        return self

    def predict_proba(self, X):
        """The probability of class 1 for each row of ``X`` (lazy)."""
        return 1 / (1 + exp(-(asarray(X) @ asarray(self._fitted()))))

    def predict(self, X):
        """1.0 where the probability of class 1 is above one half, else 0.0 (lazy)."""
        return (self.predict_proba(X) > 0.5).astype(np.float64)

    def _fitted(self):
        if self.coef_ is None:
            raise ValueError("this model is not fitted yet: call fit(X, y) first")
        return self.coef_


class LinearRegression:
    """Least squares ``X @ coef_ ≈ y``. ``solver="normal"``: from the normal equations
    ``(X.T @ X) coef_ = X.T @ y``, both products made in one pass over ``X``. ``solver="qr"``:
    from ``X = Q R`` (TSQR when ``X`` is in several row blocks) as ``R coef_ = Q.T @ y``, which
    squares no condition number (for ill-conditioned ``X``), at about twice the work."""

    def __init__(self, solver="normal"):
        if solver not in ("normal", "qr"):
            raise ValueError(f"solver must be 'normal' or 'qr', not {solver!r}")
        self.solver = solver
        self.coef_ = None

    def fit(self, X, y):
        X, y = _checked(X, y)
        if self.solver == "qr":
            q, r = _qr(X)
            moment, triangle = compute(q.T @ y, r)
            self.coef_ = np.linalg.solve(triangle, moment)
        else:
            gram, moment = compute(X.T @ X, X.T @ y)
            self.coef_ = np.linalg.solve(gram, moment)
        return self

    def predict(self, X):
        if self.coef_ is None:
            raise ValueError("this model is not fitted yet: call fit(X, y) first")
        return asarray(X) @ asarray(self.coef_)


def _checked(X, y):
    X, y = asarray(X), asarray(y)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (samples × features), got shape {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have one value per row of X: shape {y.shape} for X of shape {X.shape}")
    return X.astype(np.float64), y.astype(np.float64)
