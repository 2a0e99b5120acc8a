"""The old import path of the feature-space view (percviz.app.panels.feature), kept while other branches merge."""

from percviz.app.panels.feature import *  # noqa: F403 (the package's __all__, re-exported)
from percviz.app.panels.feature import __all__  # noqa: F401
