"""percviz: interactive perceptrons, kernels, margins and certificates.

`percviz.show(X, y, …)` opens the window (Qt is imported only then); `percviz.record(X, y, …)` runs without one and
returns the run recorded for the HTML handout (shown inline in notebooks); `percviz.estimators` holds the
scikit-learn classifiers; `percviz.core` is the numerical core.
"""

__version__ = "0.1.0"


def show(X=None, y=None, **options):
    """Open the percviz window on points X (n×2) with labels y, or on a preset; see percviz.app.handle.show."""
    from percviz.app.handle import show as _show

    return _show(X, y, **options)


def record(X=None, y=None, **options):
    """Run an algorithm on points X (n×2) with labels y, or a preset, without a window; see percviz.handout.record."""
    from percviz.handout import record as _record

    return _record(X, y, **options)


__all__ = ["__version__", "record", "show"]
