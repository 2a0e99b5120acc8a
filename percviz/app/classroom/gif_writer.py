"""The animation's file writers: GIF (one shared palette with the colour map's ramp, unchanged pixels left
transparent) and MP4 (imageio's ffmpeg plugin); used by percviz.app.classroom.export."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from percviz.core.errors import ParameterError
from percviz.app.timing import GIF_FINAL_HOLD_MS

ANIMATION_FORMATS = (".gif", ".mp4")


#: Of a GIF's 255 shared colours, this many are set aside for the colour map's ramp (read off its colour bar): a
#: smooth gradient then steps by about 1/RAMP_COLOURS of its colour range, too little to see, without dither noise.
RAMP_COLOURS = 96
#: A colour within this RGB distance of the ramp is left to the ramp's entries.
RAMP_NEAR = 3.0


def ramp_palette(rgb: np.ndarray, boxes, colours: int = 255, ramp: int = RAMP_COLOURS):
    """A Pillow palette image for a GIF: `ramp` colours evenly spaced (by distance in RGB) along the colour bar's
    gradient (the last box; its middle column, top to bottom), and the frame's other colours (FASTOCTREE) in the
    rest. None when there is no colour bar with a gradient in it."""
    from PIL import Image

    if not boxes:
        return None
    left, top, right, bottom = boxes[-1]
    column = rgb[top:bottom, (left + right) // 2, :3].astype(float)
    if len(column) < 2:
        return None
    steps = np.linalg.norm(np.diff(column, axis=0), axis=1)
    arc = np.concatenate([[0.0], np.cumsum(steps)])
    if arc[-1] < 8:  # no gradient to speak of (a flat bar, or class regions)
        return None
    at = np.linspace(0.0, arc[-1], ramp)
    ramp_rgb = np.stack([np.interp(at, arc, column[:, c]) for c in range(3)], axis=1)
    # the rest for the colours the ramp does not already hold (the points' halos over the map, text, axes)
    from scipy.spatial import cKDTree

    flat = rgb[..., :3].reshape(-1, 3)
    key = (flat[:, 0].astype(np.int32) << 16) | (flat[:, 1].astype(np.int32) << 8) | flat[:, 2]
    uniq, inverse = np.unique(key, return_inverse=True)
    cols = np.stack([(uniq >> 16) & 255, (uniq >> 8) & 255, uniq & 255], axis=1).astype(float)
    near = cKDTree(ramp_rgb).query(cols)[0] <= RAMP_NEAR
    off = flat[~near[inverse.ravel()]]
    if len(off) == 0:
        off = flat
    rest = Image.fromarray(np.ascontiguousarray(off[None]), "RGB").quantize(
        colors=colours - ramp, method=Image.Quantize.FASTOCTREE)
    rest_rgb = np.asarray(rest.getpalette()[:3 * (colours - ramp)], float).reshape(-1, 3)
    table = np.clip(np.rint(np.concatenate([ramp_rgb, rest_rgb])), 0, 255).astype(np.uint8)
    pal = Image.new("P", (1, 1))
    pal.putpalette(table.ravel().tolist())
    return pal


def _bayer(n: int = 8) -> np.ndarray:
    """The n×n Bayer threshold matrix, (k + ½)/n² for k = 0…n²−1."""
    m = np.zeros((1, 1))
    while m.shape[0] < n:
        m = np.block([[4 * m, 4 * m + 2], [4 * m + 3, 4 * m + 1]])
    return (m + 0.5) / m.size


BAYER = _bayer(8)


class NearestPalette:
    """Maps RGB pictures to a palette: each colour to its exactly nearest entry (a k-d tree; Pillow's own mapping
    looks colours up 4 levels at a time, steps of up to 5 levels in a dark ramp). In the colour-map boxes a colour
    far from every entry (a point's translucent halo over the map) is ordered-dithered between its two nearest
    entries with a Bayer pattern fixed to the frame's pixels: a pixel's output depends on its colour and place only,
    so what is drawn the same is written the same, and the ramp's own colours are never dithered."""

    def __init__(self, palette_image, boxes=()):
        from scipy.spatial import cKDTree

        raw = palette_image.getpalette() or []
        self.table = np.asarray(raw, np.uint8).reshape(-1, 3)[:256]
        self._tree = cKDTree(self.table.astype(float))
        self.boxes = list(boxes)
        self._keys = np.zeros(0, np.int64)  # the colours seen so far (0xRRGGBB, sorted), and for each:
        self._near = np.zeros((0, 2), np.uint8)  # its two nearest entries
        self._t = np.zeros(0, np.float32)  # how far towards the second it lies (0: not dithered)

    def _learn(self, keys: np.ndarray) -> None:
        cols = np.stack([(keys >> 16) & 255, (keys >> 8) & 255, keys & 255], axis=1).astype(float)
        k = min(2, len(self.table))
        dist, idx = self._tree.query(cols, k=k)
        idx = idx.reshape(len(keys), -1)
        dist = dist.reshape(len(keys), -1)
        idx2 = idx[:, -1]
        p1, p2 = self.table[idx[:, 0]].astype(float), self.table[idx2].astype(float)
        seg = p2 - p1
        t = np.einsum("ij,ij->i", cols - p1, seg) / np.maximum(np.einsum("ij,ij->i", seg, seg), 1e-9)
        t = np.where(dist[:, 0] > RAMP_NEAR, np.clip(t, 0.0, 1.0), 0.0)
        keys_all = np.concatenate([self._keys, keys])
        order = np.argsort(keys_all, kind="stable")
        self._keys = keys_all[order]
        self._near = np.concatenate([self._near, np.stack([idx[:, 0], idx2], 1).astype(np.uint8)])[order]
        self._t = np.concatenate([self._t, t.astype(np.float32)])[order]

    def map(self, frame: np.ndarray):
        from PIL import Image

        rgb = frame[..., :3].astype(np.int64)
        key = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
        pos = np.minimum(np.searchsorted(self._keys, key), max(len(self._keys) - 1, 0))
        if not len(self._keys) or not np.array_equal(self._keys[pos], key):
            known = self._keys[pos] == key if len(self._keys) else np.zeros(key.shape, bool)
            self._learn(np.unique(key[~known]))
            pos = np.searchsorted(self._keys, key)
        index = self._near[pos, 0]
        t = self._t[pos]
        for left, top, right, bottom in self.boxes:
            ys = (np.arange(top, bottom) % BAYER.shape[0])[:, None]
            xs = (np.arange(left, right) % BAYER.shape[1])[None, :]
            second = t[top:bottom, left:right] > BAYER[ys, xs]
            index[top:bottom, left:right] = np.where(second, self._near[pos[top:bottom, left:right], 1],
                                                     index[top:bottom, left:right])
        image = Image.fromarray(np.ascontiguousarray(index), "P")
        image.putpalette(self.table.ravel().tolist())
        return image


class FrameWriter:
    """Collects frames into a GIF (Pillow) or streams them into an MP4 (imageio + ffmpeg); abort() leaves nothing."""

    def __init__(self, path: "str | os.PathLike", fps: float):
        self.path = Path(path)
        self.ext = self.path.suffix.lower()
        if self.ext not in ANIMATION_FORMATS:
            raise ParameterError(f"Animations are saved as GIF or MP4; '{self.path.name}' is neither.")
        if not (np.isfinite(fps) and 0 < fps <= 120):
            raise ParameterError(f"The frame rate must be in (0, 120] frames per second; got {fps}.")
        self.fps = float(fps)
        self.count = 0
        self.size: tuple[int, int] | None = None  # (width, height) of the frames written
        self._tmp = self.path.with_name(f".{self.path.name}.part{self.ext}")
        self._gif_frames: list = []
        self._palette = None  # set_palette: every GIF frame shares it, so what does not change stays pixel-identical
        self._mp4 = None

    def set_palette(self, frame: np.ndarray | None, gradients=()) -> None:
        """One GIF palette for every frame, read from this picture (the last frame, with the run's colours, over the
        first).

        `gradients` are the colour map's boxes (left, top, right, bottom; the colour bar last): part of the palette
        follows the colour bar's ramp (`ramp_palette`), so the map's gradient does not band (255 colours from the
        whole frame left steps of up to 11 levels in a dark map) and needs no Floyd–Steinberg noise (it had doubled
        the file); colours far from every entry there are ordered-dithered (`NearestPalette`). Every pixel's index
        depends on its colour and place only, so what is drawn the same is written the same."""
        if self.ext == ".gif" and frame is not None:
            from PIL import Image

            rgb = np.ascontiguousarray(frame[..., :3], dtype=np.uint8)
            boxes = [tuple(int(v) for v in box) for box in gradients]
            palette = ramp_palette(rgb, boxes) or \
                Image.fromarray(rgb, "RGB").quantize(colors=255, method=Image.Quantize.FASTOCTREE)
            self._palette = NearestPalette(palette, boxes)

    def append(self, frame: np.ndarray) -> None:
        frame = np.ascontiguousarray(frame[..., :3], dtype=np.uint8)
        if self.ext == ".mp4":
            frame = _pad_to_multiple(frame, 16)  # H.264 (yuv420p) wants dimensions the encoder can tile
        if self.size is None:
            self.size = (frame.shape[1], frame.shape[0])
        elif (frame.shape[1], frame.shape[0]) != self.size:
            raise ValueError(f"frame {self.count} is {frame.shape[1]}×{frame.shape[0]}, expected {self.size}")
        if self.ext == ".gif":
            from PIL import Image

            image = Image.fromarray(frame, "RGB")
            if self._palette is not None:
                image = self._palette.map(frame)
            else:
                image = image.quantize(colors=255, method=Image.Quantize.FASTOCTREE)
            self._gif_frames.append(image)
        else:
            if self._mp4 is None:
                import imageio.v2 as iio

                self._mp4 = iio.get_writer(str(self._tmp), format="FFMPEG", mode="I", fps=self.fps, codec="libx264",
                                           quality=8, pixelformat="yuv420p", macro_block_size=16)
            self._mp4.append_data(frame)
        self.count += 1

    def close(self) -> Path:
        """Finish the file (written to a temporary name, then renamed over `path`)."""
        if self.count == 0:
            raise ParameterError("No frame to write: the range of iterations is empty.")
        if self.ext == ".gif":
            step = max(10, int(round(1000.0 / self.fps)))
            durations = [step] * self.count
            durations[-1] = max(step, GIF_FINAL_HOLD_MS)
            first, rest = self._gif_frames[0], self._gif_frames[1:]
            first.save(str(self._tmp), format="GIF", save_all=True, append_images=rest, duration=durations,
                       loop=0, optimize=True, disposal=1)  # unchanged pixels: transparent over the last frame
            self._gif_frames = []
        else:
            self._mp4.close()
            self._mp4 = None
        os.replace(self._tmp, self.path)
        return self.path

    def abort(self) -> None:
        self._gif_frames = []
        if self._mp4 is not None:
            try:
                self._mp4.close()
            except Exception:  # noqa: BLE001 - the partial file is deleted below anyway
                pass
            self._mp4 = None
        try:
            self._tmp.unlink()
        except OSError:
            pass


def _pad_to_multiple(frame: np.ndarray, m: int) -> np.ndarray:
    h, w = frame.shape[:2]
    H, W = -(-h // m) * m, -(-w // m) * m
    if (H, W) == (h, w):
        return frame
    out = np.empty((H, W, 3), dtype=np.uint8)
    out[:] = frame[-1:, -1:, :]  # extend with the corner colour (the background)
    out[:h, :w] = frame
    return out


# ---------------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------------
