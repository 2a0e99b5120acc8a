"""The feature-space view as a picture of items: style, job (the computation), rotation, picture, labels, overlay, view."""

from percviz.app.panels.feature.job import (
    PictureJob,
    cached_witness,
    compute_witness,
    features_witness,
    picture_stages,
    signed_unit_gram,
)
from percviz.app.panels.feature.rotation import initial_rotation
from percviz.app.panels.feature.style import EMBED_MAX_N, FIT_MAX, MAX_LABELS, MAX_TRAIL, SYNC_MAX_N
from percviz.app.panels.feature.view import FeatureView

__all__ = ["EMBED_MAX_N", "FIT_MAX", "MAX_LABELS", "MAX_TRAIL", "SYNC_MAX_N", "FeatureView",
           "PictureJob", "cached_witness", "compute_witness", "features_witness", "initial_rotation", "picture_stages",
           "signed_unit_gram"]
