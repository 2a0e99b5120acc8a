"""Multi-class linear machines (the notes' §“Multicategory generalizations”): g_k(x) = a_k·φ(x), decide argmax.

A sample of class i is classified correctly only when g_i(x) > g_j(x) for every j ≠ i (a tie is an error, so
W = 0 gets every sample wrong, as a = 0 does in the two-class rules). Three ways to find W (c × d̂):
  - the multicategory fixed-increment rule: on a mistake a_i += φ(x), a_j −= φ(x), j the strongest rival;
  - Kesler's construction: the c·d̂-dimensional vectors η_ij (φ(x) in block i, −φ(x) in block j) for every
    sample of class i and j ≠ i, and the two-class fixed-increment rule on them (so the perceptron
    convergence theorem applies unchanged);
  - MSE: W = (Φ† B)ᵗ with B the one-hot targets (the pseudoinverse, one step).
"""

from __future__ import annotations

import numpy as np

from percviz.core.decision import FeatureLinear
from percviz.core.solvers.base import Solver, Status, register

FAMILY = "Multi-class linear machines"


def kesler_vectors(Phi, classes, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Kesler's expanded vectors, sample-major with j ascending: (H of shape (n(c−1), c·d̂), sample index per row)."""
    Phi = np.asarray(Phi, dtype=float)
    classes = np.asarray(classes)
    n, dh = Phi.shape
    H = np.zeros((n * (c - 1), c * dh))
    owner = np.repeat(np.arange(n), c - 1)
    r = 0
    for i in range(n):
        ci = int(classes[i])
        for j in range(c):
            if j == ci:
                continue
            H[r, ci * dh : (ci + 1) * dh] = Phi[i]
            H[r, j * dh : (j + 1) * dh] = -Phi[i]
            r += 1
    return H, owner


def rival_gaps(G, classes) -> np.ndarray:
    """g_{class i}(x_i) − max_{j ≠ class i} g_j(x_i) for each sample (> 0 ⟺ correctly classified)."""
    G = np.asarray(G, dtype=float)
    idx = np.arange(G.shape[0])
    own = G[idx, classes]
    others = G.copy()
    others[idx, classes] = -np.inf
    return own - others.max(axis=1)


class _LinearMachine(Solver):
    """Shared state: W (c × d̂) on the problem's φ-map; metrics from the per-sample rival gaps."""

    family = FAMILY
    representation = "multiclass"
    views = frozenset({"canvas", "curves"})
    metric_keys = ("train_errors", "weight_norm", "margin", "mistakes")
    default_max_iter = 10000

    def _reset(self):
        self._Phi = np.asarray(self.problem.Phi)
        self._cls = np.asarray(self.problem.points.classes)
        self._c = self.problem.points.n_classes
        self.W = np.zeros((self._c, self._Phi.shape[1]))
        self._pos = 0  # next position in the cyclic presentation order

    def _gaps(self) -> np.ndarray:
        return rival_gaps(self._Phi @ self.W.T, self._cls)

    def _halt(self):
        return Status.SEPARATOR if (self._gaps() > 0).all() else None

    def _metrics(self) -> dict:
        return self._gap_metrics(self._gaps())

    def _gap_metrics(self, gaps) -> dict:
        nw = float(np.linalg.norm(self.W))
        return {
            "train_errors": int((gaps <= 0).sum()),
            "weight_norm": nw,
            # Kesler's normalized margin: min over the expanded vectors of α·η / ‖α‖, with ‖α‖ = ‖W‖_F.
            "margin": float(gaps.min() / nw) if nw > 0 else None,
            "mistakes": self.iteration,
        }

    def _state(self):
        gaps = self._gaps()
        return {
            "decision": FeatureLinear(self.problem.features, self.W),
            "weights": self.W,
            "metrics": self._gap_metrics(gaps),
            "message": self._message(gaps),
        }

    def _message(self, gaps) -> str:
        wrong = int((gaps <= 0).sum())
        if wrong == 0:
            return f"Every sample is on its class's side: a linear machine with {self._c} discriminants separates them."
        return f"{wrong} of {len(gaps)} samples misclassified (a tie counts as an error)."


@register
class LinearMachineRule(_LinearMachine):
    """The multicategory fixed-increment rule: cycle through the samples; on a mistake a_i += y, a_j −= y."""

    name = "linear-machine"
    display_name = "Linear machine (multicategory fixed increment)"
    description = (
        "c discriminants g_k = a_k·φ(x), decide argmax. Samples cycled in stored order; when a sample of class i "
        "is not strictly won by g_i, a_i += φ(x) and a_j −= φ(x) for the strongest rival j."
    )

    def _update(self):
        n = len(self._cls)
        gaps = self._gaps()
        order = (self._pos + np.arange(n)) % n
        i = int(order[np.flatnonzero(gaps[order] <= 0)[0]])
        g = self.W @ self._Phi[i]
        ci = int(self._cls[i])
        g[ci] = -np.inf
        j = int(np.argmax(g))  # strongest rival; argmax takes the smallest index on ties
        self.W[ci] += self._Phi[i]
        self.W[j] -= self._Phi[i]
        self._pos = (i + 1) % n
        return (i,)


@register
class Kesler(_LinearMachine):
    """Kesler's construction: the two-class fixed-increment rule on the n(c−1) expanded vectors η_ij."""

    name = "kesler"
    display_name = "Kesler's construction (fixed increment)"
    description = (
        "Each sample of class i gives c − 1 vectors η_ij of length c·d̂ (φ(x) in block i, −φ(x) in block j); "
        "the fixed-increment rule α += η on them, cycled in order, is a linear machine W = α reshaped."
    )

    def _reset(self):
        super()._reset()
        self._H, self._owner = kesler_vectors(self._Phi, self._cls, self._c)
        self._alpha = np.zeros(self._H.shape[1])

    def _gaps(self):
        # The same numbers as rival_gaps, computed from the expanded vectors so that halting, metrics and the
        # choice of the next correction agree to the last bit.
        return (self._H @ self._alpha).reshape(len(self._cls), self._c - 1).min(axis=1)

    def _update(self):
        m = self._H.shape[0]
        scores = self._H @ self._alpha
        order = (self._pos + np.arange(m)) % m
        r = int(order[np.flatnonzero(scores[order] <= 0)[0]])
        self._alpha = self._alpha + self._H[r]  # α(k+1) = α(k) + η^k
        self.W = self._alpha.reshape(self._c, -1)
        self._pos = (r + 1) % m
        return (int(self._owner[r]),)


@register
class MulticlassMSE(_LinearMachine):
    """Minimum squared error for c classes: W = (Φ† B)ᵗ, B one-hot (the pseudoinverse; one step)."""

    name = "mse-multiclass"
    display_name = "Multi-class MSE (pseudoinverse)"
    description = (
        "Least squares with one-hot targets: column k of Φ†B is a_k, fitted to 1 on class k and 0 elsewhere; "
        "solved in one step by the pseudoinverse."
    )
    metric_keys = ("criterion", "error_norm", "train_errors", "weight_norm", "margin")
    default_max_iter = 1

    def _reset(self):
        super()._reset()
        self._B = np.eye(self._c)[self._cls]
        self._solved = False

    def _update(self):
        self.W = np.linalg.lstsq(self._Phi, self._B, rcond=None)[0].T  # minimum-norm least squares = Φ†B
        self._solved = True
        return ()

    def _halt(self):
        if not self._solved:
            return None
        return Status.SEPARATOR if (self._gaps() > 0).all() else Status.CONVERGED

    def _gap_metrics(self, gaps):
        m = super()._gap_metrics(gaps)
        del m["mistakes"]
        e2 = float(np.sum((self._Phi @ self.W.T - self._B) ** 2))
        return {**m, "criterion": e2, "error_norm": float(np.sqrt(e2))}

    def _message(self, gaps):
        if not self._solved:
            return "W = 0 before the least-squares step."
        return super()._message(gaps) + " (MSE does not promise a separator even when one exists.)"
