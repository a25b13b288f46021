"""Which files of a vault are attachments, what their bytes are, and how a browser may show them.

The media type comes from the bytes, never from the name: a `.png` that holds HTML is served as text to download.
No file-type library is installed, so this is a small magic-number table for the formats a vault embeds; anything
it does not recognise is UTF-8 text or `application/octet-stream`.
"""

from __future__ import annotations

import re

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

# Shown in the browser where it is safe; everything else is downloaded.
INLINE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "application/pdf"})

_ISO_BRANDS = {  # ISO base media files (`....ftyp<brand>`): the brand says which
    b"avif": "image/avif",
    b"avis": "image/avif",
    b"heic": "image/heic",
    b"heix": "image/heic",
    b"mif1": "image/heif",
    b"M4A ": "audio/mp4",
    b"M4B ": "audio/mp4",
    b"qt  ": "video/quicktime",
    b"3gp4": "video/3gpp",
    b"3gp5": "video/3gpp",
    b"3g2a": "video/3gpp2",
}
_PREFIXES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"BM", "image/bmp"),
    (b"\x00\x00\x01\x00", "image/vnd.microsoft.icon"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"OggS", "audio/ogg"),
    (b"fLaC", "audio/flac"),
    (b"ID3", "audio/mpeg"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
    (b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"),
    (b"{\\rtf", "application/rtf"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-ole-storage"),
)
_SVG_START = re.compile(
    rb"\A(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>/]", re.DOTALL
)
_TEXT_SAMPLE = 8192


def sniff(data: bytes) -> str:
    """The media type of these bytes, from their first bytes alone."""
    head = data[:64]
    if head[:4] == b"RIFF" and head[8:12] in (b"WEBP", b"WAVE", b"AVI "):
        return {b"WEBP": "image/webp", b"WAVE": "audio/wav", b"AVI ": "video/x-msvideo"}[head[8:12]]
    if head[4:8] == b"ftyp":
        return _ISO_BRANDS.get(head[8:12], "video/mp4")
    if head[:4] == b"\x1a\x45\xdf\xa3":  # Matroska; WebM names its doctype early
        return "video/webm" if b"webm" in data[:64] else "video/x-matroska"
    if head[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "audio/mpeg"
    for prefix, media_type in _PREFIXES:
        if head.startswith(prefix):
            return media_type
    if _SVG_START.match(data[:4096]):
        return SVG
    if _is_text(data[:_TEXT_SAMPLE]):
        return TEXT
    return OCTET_STREAM


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
