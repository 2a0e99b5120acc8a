"""The feature-space labels: point numbers by weight, decluttered, and the header texts."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF

from percviz.app.panels.feature.style import MAX_LABELS


class FeatureLabels:
    """Chooses, places and declutters the point labels."""

    def _make_point_labels(self, drawing: int | None = None) -> None:
        """The number labels of the heaviest points (placed by _fit_point_labels); drawing: of that redraw only."""
        S = self._points_screen
        if (drawing is not None and drawing != self._drawing) or self.picture is None or S is None:
            return  # drawn again meanwhile, with its own labels
        self._point_labels = [self.text_item("", (0, 0), (-0.3, 0.9), 0.8, None, fill=True)
                              for _ in range(min(MAX_LABELS, len(S)))]
        if drawing is not None:
            self._declutter()  # the marks' labels first, then the numbers in the room they leave

    def _label_weights(self) -> np.ndarray | None:
        """The weight each point carries now: the snapshot's p or α, else the witness p of ρ_K (None: no weights)."""
        S = self._points_screen
        n = 0 if S is None else len(S)
        if n == 0 or len(self.classes) != n:
            return None  # a new problem whose picture is not drawn yet
        snap, witness = self.snapshot, self.picture.min_norm if self.picture is not None else None
        for w in ((snap.p, snap.alpha) if snap is not None else ()) + ((witness.p,) if witness is not None else ()):
            if w is not None and np.shape(w) == (n,):
                w = np.abs(np.asarray(w, dtype=float))
                if np.isfinite(w).all() and w.max() > 0:
                    return w
        return None

    def _declutter(self, *_args) -> None:
        """The named marks' labels ("0 ∈ hull" or "ρ_K", p(k), the direction α(k), "0") in turn, each moved
        around its mark until it covers no label placed before it (else hidden: the readout names them all), then
        the point numbers in the room left."""
        vb = self.plot.getViewBox()
        inside = vb.sceneBoundingRect()
        taken: list[QRectF] = []
        marks = list(self._static_labels)[:-1]  # "0 ∈ hull" / "ρ_K" first; the bare "0" last
        marks += [lab for lab in (self._p_label, self._dir_label)
                  if lab is not None and any(lab is x for x in self._dynamic)]
        marks += list(self._static_labels)[-1:]
        for item in marks:
            try:
                own = (item.anchor.x(), item.anchor.y())
            except RuntimeError:  # the item was cleared with its plot
                continue
            home = getattr(item, "home_anchor", None) or own
            item.home_anchor = home
            # where it may go: by its mark; the direction's label also back along its arrow (the tip may be
            # beyond the plot's edge)
            x, y = getattr(item, "home_pos", None) or (item.pos().x(), item.pos().y())
            spots = [(x, y)] + ([(f * x, f * y) for f in (0.85, 0.7, 0.55)] if item is self._dir_label
                                else [])
            free = []  # (spot, anchor, box) of the places that cover no earlier label; inside the plot preferred
            br = item.textItem.boundingRect()  # once per label, the spot once per spot: 24 of each took ~1 ms
            for spot in spots:
                at = vb.mapViewToScene(QPointF(*spot))
                for anchor in (home,) + tuple(a for a in self.ANCHORS if a != home):
                    rect = QRectF(at.x() - anchor[0] * br.width(), at.y() - anchor[1] * br.height(), br.width(),
                                  br.height())
                    if not any(rect.intersects(r) for r in taken):
                        free.append((spot, anchor, rect))
            whole = next((f for f in free if inside.contains(f[2])), None)
            if whole is not None:
                spot, anchor, rect = whole
                item.setPos(*spot)
                item.setAnchor(anchor)
                item.setVisible(True)
                taken.append(rect)
            else:  # no room in the plot (a short dock at 3×): dropped, never cut at the edge (the readout above
                item.setVisible(False)  # names each mark with its value)
        self._fit_point_labels(taken=taken)

    def _fit_point_labels(self, *_args, taken: list | None = None) -> None:
        """Number the points that carry the most weight, never one label over another (nor in a narrow dock)."""
        labels = self._point_labels
        if not labels:
            return
        vb = self.plot.getViewBox()
        w = self._label_weights() if vb.width() >= 230 * self.theme.scale else None
        chosen: list[int] = []
        if w is not None:  # the heaviest few (a few spares for labels that would overlap)
            top = np.argpartition(-w, min(len(w), 4 * len(labels)) - 1)[: 4 * len(labels)]
            chosen = [int(i) for i in top[np.argsort(-w[top], kind="stable")] if w[i] > 1e-9 * w.max()]
        S = self._points_screen
        taken = list(taken or [])
        slot = 0
        for i in chosen:
            if slot == len(labels):
                break
            item = labels[slot]
            item.setText(str(i), color=self.theme.class_color(int(self.classes[i])))
            item.setPos(float(S[i, 0]), float(S[i, 1]))
            br = item.textItem.boundingRect()
            at = vb.mapViewToScene(QPointF(float(S[i, 0]), float(S[i, 1])))
            rect = QRectF(at.x() - item.anchor.x() * br.width(), at.y() - item.anchor.y() * br.height(),
                          br.width(), br.height())
            if any(rect.intersects(r) for r in taken):
                continue  # a heavier point's label is there already
            taken.append(rect)
            item.show()
            slot += 1
        for item in labels[slot:]:
            item.hide()

    def _set_texts(self) -> None:
        pic = self.picture
        what = "yᵢ φ(xᵢ)/‖φ(xᵢ)‖ of the φ-map" if self.features_mode else "yᵢ φ̃(xᵢ)"
        self.set_title(f"Feature space of {what} — {pic.embedding.title()}")
        parts = [
            "Points on the unit sphere, grey: their convex hull.",
            "★ its point nearest the origin (norm ρ_K)."
            if pic.min_norm is None or pic.min_norm.separable is not False
            else "The origin lies in the hull, so no separator exists (Gordan's theorem, §5).",
        ]
        if not self.features_mode:
            parts.append("◆ Σ pᵢ yᵢφ̃(xᵢ) for the current p: its distance to 0 is ‖p‖_G.")
        parts.append("Arrow: the current separating direction, with its hyperplane.")
        if self.is_3d:
            parts.append("Drag to rotate.")
        self.caption.setText(" ".join(parts))
