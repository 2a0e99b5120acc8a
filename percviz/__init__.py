"""percviz: interactive perceptrons, kernels, margins and certificates."""

__version__ = "0.1.0"
