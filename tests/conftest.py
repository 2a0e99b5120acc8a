"""Shared test configuration: offscreen Qt, and no QThread may outlive its test."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
