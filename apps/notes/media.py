"""Which files of a vault are attachments, what their bytes are, and how a browser may show them.

The media type comes from the bytes, never from the name: a `.png` that holds HTML is served as text to download.
The signatures are `filetype`'s; SVG and text, which have none, are recognised here. Anything else is
`application/octet-stream`.
"""

from __future__ import annotations

import enum
import re

import filetype

OCTET_STREAM = "application/octet-stream"
TEXT = "text/plain; charset=utf-8"
SVG = "image/svg+xml"

# What Obsidian embeds (images, audio, video, PDF, canvases and bases) plus common documents of a vault.
ATTACHMENT_EXTENSIONS = frozenset(
    {
        *("png", "jpg", "jpeg", "gif", "webp", "avif", "bmp", "svg", "ico", "tif", "tiff", "heic"),
        *("mp3", "wav", "m4a", "ogg", "oga", "flac", "3gp", "opus", "aac"),
        *("mp4", "webm", "ogv", "mov", "mkv", "m4v"),
        "pdf",
        *("canvas", "base", "txt", "csv", "tsv", "json", "yaml", "yml", "xml", "bib", "ris"),
        *("docx", "xlsx", "pptx", "odt", "ods", "odp", "rtf", "epub", "doc", "xls", "ppt"),
        *("zip", "gz", "tar", "7z"),
    }
)

# Refused with a reason: programs run by whoever downloads them, and pages that run script in our origin.
REFUSED_EXTENSIONS = {
    **dict.fromkeys(
        ("exe", "dll", "msi", "com", "scr", "bat", "cmd", "ps1", "vbs", "jar", "apk", "app", "dmg", "sh", "so"),
        "an executable or script, not imported",
    ),
    **dict.fromkeys(("html", "htm", "xhtml", "shtml", "mhtml", "js", "mjs"), "an HTML page or script, not imported"),
}

# Obsidian's embeds by what the bytes are: raster images a browser draws, PDF, and audio and video it plays.
IMAGE_TYPES = frozenset(
    {"image/png", "image/apng", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"}
    | {"image/vnd.microsoft.icon"}
)
AUDIO_TYPES = frozenset({"audio/mpeg", "audio/ogg", "audio/wav", "audio/flac", "audio/mp4", "audio/aac"})
VIDEO_TYPES = frozenset({"video/mp4", "video/webm", "video/quicktime", "video/x-m4v", "video/3gpp", "video/x-matroska"})
PDF = "application/pdf"

# Shown in the browser where it is safe (nothing here can run script); everything else is downloaded.
INLINE_TYPES = IMAGE_TYPES | AUDIO_TYPES | VIDEO_TYPES | {PDF}

# filetype names a few formats by their old unregistered types; a response carries the registered one.
_REGISTERED = {
    "audio/x-flac": "audio/flac",
    "audio/x-wav": "audio/wav",
    "image/x-icon": "image/vnd.microsoft.icon",
}
_SVG_START = re.compile(
    rb"\A(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>/]", re.DOTALL
)
_TEXT_SAMPLE = 8192


class EmbedKind(enum.Enum):
    IMAGE = "image"
    PDF = "pdf"
    AUDIO = "audio"
    VIDEO = "video"
    LINK = "link"  # SVG, text, canvases, bases, documents: opened or downloaded, never drawn in the page


def sniff(data: bytes) -> str:
    """The media type of these bytes, from their first bytes alone: `filetype`'s signatures, then SVG and UTF-8
    text, which have none."""
    head = data[:_TEXT_SAMPLE]
    found = filetype.guess_mime(head)
    if found:
        return _REGISTERED.get(found, found)
    if _SVG_START.match(data[:4096]):
        return SVG
    if _is_text(head):
        return TEXT
    return OCTET_STREAM


def embed_kind(media_type: str) -> EmbedKind:
    """How a note page shows a file it embeds."""
    if media_type in IMAGE_TYPES:
        return EmbedKind.IMAGE
    if media_type == PDF:
        return EmbedKind.PDF
    if media_type in AUDIO_TYPES:
        return EmbedKind.AUDIO
    if media_type in VIDEO_TYPES:
        return EmbedKind.VIDEO
    return EmbedKind.LINK


def _is_text(sample: bytes) -> bool:
    if not sample or b"\x00" in sample:
        return False
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A sample cut inside a multi-byte character is still text.
        return exc.start >= len(sample) - 3 and len(sample) == _TEXT_SAMPLE
    return True


def extension_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name.lstrip(".") else ""


def shown_inline(media_type: str) -> bool:
    """Whether a browser may display it in place; SVG never is (it can hold script), nor is text."""
    return media_type in INLINE_TYPES
