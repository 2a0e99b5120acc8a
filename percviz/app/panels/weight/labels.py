"""The weight-space labels: constraint numbers placed clear of each other, the iterate's name."""

from __future__ import annotations

from PySide6.QtCore import QRectF

from percviz.core.geometry import line_segment


class WeightLabels:
    """Places the line labels and the iterate's label inside the view."""

    def _line_label(self, text: str, pos, color_: str, normal, offset: float, frac: float) -> None:
        """The label of one constraint line, kept on it by _place_labels (made now, or queued by a split redraw)."""
        if self._labels_to_make is not None:
            self._labels_to_make.append((text, pos, color_, normal, offset, frac))
            return
        item = self.text_item(text, pos, (0.5, 0.5), 0.9, color_, fill=True)
        self._line_labels.append((item, normal, offset, frac))

    def _make_line_labels(self, drawing: int, todo: list) -> None:
        if drawing != self._drawing or not self.mode:
            return  # the picture was drawn again meanwhile (with its own labels)
        for args in todo:
            self._line_label(*args)
        self._place_labels()

    def _place_labels(self, *_args) -> None:
        """Keep each constraint's label on its line, inside whatever part of the plane is in view."""
        if self._empty_label is not None:
            self._empty_label.setTextWidth(max(120.0, 0.9 * self.plot.getViewBox().width()))
        labels = list(self._line_labels) + ([self._hover_label] if self._hover_label else [])
        if not labels or not self.mode:
            return
        (x0, x1), (y0, y1) = self.plot.getViewBox().viewRange()
        box = (x0, x1, y0, y1)
        for item, normal, offset, frac in labels:
            seg = line_segment(normal, offset, box)
            if seg is None:
                item.hide()
                continue
            if (seg[1, 1], seg[1, 0]) < (seg[0, 1], seg[0, 0]):
                seg = seg[::-1]  # fraction 1 is the upper end
            pos = seg[0] + frac * (seg[1] - seg[0])
            item.setPos(*pos)
            # text grows towards the middle of the view, so it is never cut at the edge
            item.setAnchor((0.0 if pos[0] < 0.5 * (x0 + x1) else 1.0, item.anchor.y()))
            item.show()
        # no label over another: the earlier ones (the cone's walls first) win; the hover label always shows
        vb = self.plot.getViewBox()
        box = self._label_box
        taken = [box(item) for item in self._fixed_labels]
        iterate = self._iter_label
        if iterate is not None and iterate.isVisible():
            taken.append(box(iterate))  # a(k) is what the audience follows: no line label over it
        # a narrow plot or a projector's big font has room for fewer labels: about one per 45 px of width
        room = max(4, int(vb.sceneBoundingRect().width() / (45.0 * self.theme.scale)))
        hover = (self._hover_label or (None,))[0]
        shown = 0
        for item, *_ in labels:
            if not item.isVisible():
                continue
            rect = box(item)
            if item is not hover and (shown >= room or any(rect.intersects(r) for r in taken)):
                item.hide()
            else:
                taken.append(rect)
                shown += item is not hover

    def _label_box(self, item) -> QRectF:
        """The label's box in scene pixels, from its anchor (its own transform may not be updated yet)."""
        br = item.textItem.boundingRect()
        at = self.plot.getViewBox().mapViewToScene(item.pos())
        return QRectF(at.x() - item.anchor.x() * br.width(), at.y() - item.anchor.y() * br.height(),
                      br.width(), br.height())

    def _iterate_label(self) -> str:
        """a(k) of the iterate drawn: the snapshot's, or the last drawable one before it (a diverged a is not drawn)."""
        k = int(self.snapshot.iteration)
        if k not in self._weights and self._weights:
            k = max((i for i in self._weights if i <= k), default=k)
        return f"a({k})"

    def _set_label(self, text: str, pos, anchor) -> list:
        (x0, x1), _ = self.plot.getViewBox().viewRange()
        if anchor == (-0.15, 0.5) and pos[0] > 0.5 * (x0 + x1):
            anchor = (1.15, 0.5)  # text towards the middle of the view, never cut at its right edge
        inside = self.plot.getViewBox().sceneBoundingRect()
        for words in dict.fromkeys((text, text.split(" ")[0])):  # "a(300) beyond the view", else just "a(300)"
            self._iter_label.setText(words)
            self._iter_label.setAnchor(anchor)
            self._iter_label.setPos(float(pos[0]), float(pos[1]))
            if inside.contains(self._iter_label.sceneBoundingRect()):
                break  # whole in the view (a narrow dock at a projector's font cut the long one)
        mine = self._label_box(self._iter_label)
        for item, *_ in self._line_labels:  # a line label under the moved a(k) gives way (back at the next placing)
            if item.isVisible() and self._label_box(item).intersects(mine):
                item.hide()
        return [self._iter_label]
