"""Pictures made ready for the model: checked, then scaled down.

A picture's header is read before its pixels: one that says it has more than
``max_pixels`` (a decompression bomb: a few kilobytes that unpack to gigabytes) is refused
unread. The rest are turned upright as their EXIF orientation says (an EXIF block too
damaged to read says none: the picture is seen as it is stored), scaled so the long edge
is at most ``long_edge`` (about 1,568 pixels, where Anthropic's models see no more detail)
and encoded afresh in their own format (JPEG, PNG, WebP; a GIF as PNG) or, when that is still
large, as JPEG. Every picture is encoded afresh, however small, so no metadata reaches the
model: not the EXIF with a phone's GPS position, nor XMP or comments. An animated picture
gives its first frame. A file Pillow fails on in any way is one that cannot be opened: a
decoder fed hostile bytes raises more than ``OSError`` (``TypeError``, ``IndexError``,
``struct.error``), and the user is told so in one sentence, not that something went wrong.
"""

from __future__ import annotations

import io
import warnings

from PIL import ExifTags, Image

from bot.daemon.errors import MediaError
from bot.llm.base import Picture

__all__ = ["MAX_ENCODED", "prepare_image"]

#: the most bytes one picture may take once encoded (the model APIs refuse about 5 MB)
MAX_ENCODED = 3_750_000
_FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "GIF": "image/gif", "WEBP": "image/webp"}
#: how a picture is turned upright for each EXIF orientation (Pillow's ``exif_transpose``
#: does the same, but writes the EXIF out again first, and fails on a damaged block)
_UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


def _unreadable(name: str) -> MediaError:
    label = f"“{name}”" if name else "That picture"
    return MediaError(
        "picture cannot be decoded", user_message=f"{label} could not be opened as a picture."
    )


def _too_many_pixels(size: str = "") -> MediaError:
    said = f"is {size} pixels" if size else "has far more pixels than a photo"
    return MediaError(
        "picture over the pixel limit",
        user_message=f"That picture {said}, more than I open; please send a smaller one.",
    )


def prepare_image(data: bytes, *, long_edge: int, max_pixels: int, name: str = "") -> Picture:
    """``data`` as the model should see it (upright, at most ``long_edge``, pixels only);
    :class:`MediaError` for a bomb or a broken file."""
    try:
        with warnings.catch_warnings():
            # Pillow's own bomb guard, past its limit: refused like ours
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            width, height = image.size
            if width * height > max_pixels:
                raise _too_many_pixels(f"{width:,} × {height:,}")
            image.load()
            return _scaled(image, long_edge)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise _too_many_pixels() from exc
    except MediaError:
        raise
    except Exception as exc:  # whatever a decoder raises on bytes it cannot make sense of
        raise _unreadable(name) from exc


def _orientation(image: Image.Image) -> int:
    """The EXIF orientation of ``image`` (1, upright as stored, when it says none, or its
    EXIF cannot be read)."""
    try:
        value = image.getexif().get(ExifTags.Base.Orientation, 1)
    except Exception:  # a damaged EXIF block: the pixels are still a picture
        return 1
    return value if isinstance(value, int) else 1


def _scaled(image: Image.Image, long_edge: int) -> Picture:
    source = image.format or ""
    media_type = _FORMATS.get(source)
    turn = _UPRIGHT.get(_orientation(image))
    frame = image.transpose(turn) if turn is not None else image
    # only the pixels go on: EXIF (a phone's GPS position, its make), XMP, comments and
    # colour profiles stay behind; a palette's transparent index is part of the pixels
    frame.info = {key: value for key, value in frame.info.items() if key == "transparency"}
    frame.thumbnail((long_edge, long_edge), Image.Resampling.LANCZOS)
    keep = (
        source
        if media_type and source != "GIF"
        else "PNG"
        if frame.mode in ("RGBA", "LA", "P")
        else "JPEG"
    )
    encoded = _encode(frame, keep)
    if len(encoded) > MAX_ENCODED and keep != "JPEG":
        keep, encoded = "JPEG", _encode(frame, "JPEG")
    return Picture(_FORMATS[keep], encoded, *frame.size)


def _encode(image: Image.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    if fmt == "JPEG":
        image = image.convert("RGB")
        image.save(out, "JPEG", quality=85, optimize=True)
    else:
        image.save(out, fmt)
    return out.getvalue()
