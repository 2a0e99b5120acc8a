"""The numerical core of percviz: pure numpy/scipy, never imports Qt."""

from percviz.core.data import PointSet
from percviz.core.errors import DataError, ParameterError, PercvizError, SpecError
from percviz.core.kernels import Kernel, parse_kernel
from percviz.core.problem import Problem

__all__ = [
    "DataError",
    "Kernel",
    "ParameterError",
    "PercvizError",
    "PointSet",
    "Problem",
    "SpecError",
    "parse_kernel",
]
