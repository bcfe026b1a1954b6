"""Page images that look like scans: a document's pages drawn with Pillow as a
scanner or fax machine would give them back (letterhead with a logo, a signature
over the signed line, slight skew, speckle noise, a fax transmit header, page numbers).

The images are a view. They draw the lines a document's PDF is made from (`pdf.layout_pdf`
records them; faxes are made from their page texts), so what a page image shows is what
the PDF says, and `ScanSource.page_text` tells exactly which text a page image draws.
Everything random is seeded by the document's key: the same document gives the same
bytes. Degradation stays mild: a person reads every word at 100 % zoom.
"""
from __future__ import annotations

import hashlib
import io
import math
import random
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from admindesk.envs.common.documents.pdf import PageLine

PAGE_SIZE = (850, 1100)  # US Letter at 100 dpi
PX_PER_MM = PAGE_SIZE[0] / 215.9
LEFT_MM, VALUE_MM = 18.0, 18.0 + 48.0  # the PDF's left margin and field-value column
FAX_TEXT_TOP_MM, FAX_LINE_MM, FAX_BOTTOM_MM = 22.0, 5.3, 262.0
FAX_CHARS_PER_LINE = 78
MAX_SKEW_DEGREES = 0.6
SPECK_RATE = 0.0012  # share of pixels with a dust speck: visible, never on top of a word's shape
_FONT_DIR = Path(__file__).with_name("fonts")
_FONT_FILES = {"sans": "LiberationSans-Regular.ttf", "bold": "LiberationSans-Bold.ttf",
               "mono": "LiberationMono-Regular.ttf", "serif_bold": "LiberationSerif-Bold.ttf"}
# Pixel sizes of the PDF's point sizes at 100 dpi (10 pt is 14 px), per line kind.
_STYLES = {"letterhead": ("bold", 14), "title": ("bold", 21), "field": ("sans", 14), "body": ("sans", 15)}


@dataclass(frozen=True)
class ScanSource:
    """What a document's page images are drawn from.

    `key` is the document's id (it seeds skew, noise and the signature); `pages` holds
    the lines of each page; `organization` names whose logo heads letterhead lines;
    `fax_headers` gives the transmit header printed atop each page of a received fax;
    `footer` is printed at the foot of every page before its page number.
    """

    key: str
    pages: tuple[tuple[PageLine, ...], ...]
    organization: str = ""
    fax_headers: tuple[str, ...] = ()
    footer: str = ""
    monospace: bool = False

    def __post_init__(self) -> None:
        if not self.key:
            raise ValueError("a scan source needs its document's key (it seeds the image)")
        if not self.pages:
            raise ValueError(f"document {self.key} has no pages to draw")
        if self.fax_headers and len(self.fax_headers) != len(self.pages):
            raise ValueError(f"document {self.key}: {len(self.fax_headers)} fax headers for "
                             f"{len(self.pages)} pages")

    @property
    def page_count(self) -> int:
        """How many page images the document has."""
        return len(self.pages)

    def check_page(self, page_no: int) -> None:
        """Refuse a page number the document does not have."""
        if not 1 <= page_no <= self.page_count:
            raise ValueError(f"document {self.key} has pages 1-{self.page_count}, not {page_no}")

    def page_number_text(self, page_no: int) -> str:
        """The footer line of a page: the footer, then "Page n of N"."""
        label = f"Page {page_no} of {self.page_count}"
        return f"{self.footer}    {label}" if self.footer else label

    def page_text(self, page_no: int) -> str:
        """Every piece of text the image of page `page_no` draws, one line each, in order."""
        self.check_page(page_no)
        lines = [self.fax_headers[page_no - 1]] if self.fax_headers else []
        lines += [f"{line.label} {line.text}" if line.label else line.text for line in self.pages[page_no - 1]]
        lines.append(self.page_number_text(page_no))
        return "\n".join(lines)


def text_pages(texts: Sequence[str], sender: str = "") -> tuple[tuple[PageLine, ...], ...]:
    """Page lines for documents that are page texts (received faxes, text taken from a PDF):
    each text wrapped as the fax PDF wraps it. A page's opening lines that name the sender
    (`sender` contains them) are its letterhead."""
    pages = []
    for text in texts:
        wrapped: list[str] = []
        for paragraph in text.splitlines() or [""]:
            wrapped.extend(textwrap.wrap(paragraph, FAX_CHARS_PER_LINE, replace_whitespace=False) or [""])
        # A long page is drawn with tighter lines rather than losing any of its text.
        step = min(FAX_LINE_MM, (FAX_BOTTOM_MM - FAX_TEXT_TOP_MM) / max(len(wrapped), 1))
        lines, heading = [], True
        for index, line in enumerate(wrapped):
            heading = heading and index < 3 and bool(line.strip()) and line.strip() in sender
            lines.append(PageLine("letterhead" if heading else "body", line, FAX_TEXT_TOP_MM + index * step))
        pages.append(tuple(lines))
    return tuple(pages)


@lru_cache(maxsize=8)
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(_FONT_DIR / _FONT_FILES[name]), size)


def _seed(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


def _initials(organization: str) -> str:
    words = [w for w in organization.replace("-", " ").split() if w[:1].isalpha() and w[:1].isupper()]
    return "".join(w[0] for w in words[:2]) or organization[:1].upper()


def _draw_logo(draw: ImageDraw.ImageDraw, organization: str, x: int, y: int, size: int) -> None:
    """A mark of the organization's own (shape and shade fixed by its name), with its initials."""
    rng = random.Random(_seed("logo", organization))
    shade, box = rng.choice((40, 60, 80)), (x, y, x + size, y + size)
    shape = rng.choice(("circle", "square", "diamond", "shield"))
    if shape == "circle":
        draw.ellipse(box, fill=shade)
    elif shape == "square":
        draw.rounded_rectangle(box, radius=size // 5, fill=shade)
    elif shape == "diamond":
        half = size // 2
        draw.polygon([(x + half, y), (x + size, y + half), (x + half, y + size), (x, y + half)], fill=shade)
    else:
        draw.polygon([(x, y), (x + size, y), (x + size, y + size * 0.55), (x + size / 2, y + size),
                      (x, y + size * 0.55)], fill=shade)
    # A white stroke across the mark, so logos differ by more than their initials.
    sweep = rng.uniform(0.2, 0.8)
    draw.arc((x + 8, y + size * sweep * 0.4 - size * 0.6, x + size - 8, y + size * sweep * 0.4), 30, 150,
             fill=255, width=3)
    font = _font("serif_bold", size // 3)
    draw.text((x + size / 2, y + size * 0.6), _initials(organization), fill=255, font=font, anchor="mm")


def _draw_signature(draw: ImageDraw.ImageDraw, rng: random.Random, x: float, baseline: float) -> None:
    """A handwritten-looking signature in the blank line above `baseline`: a looped
    cursive stroke (a prolate cycloid with seeded loop sizes), then an underline flourish."""
    loops, width = rng.randrange(4, 7), rng.uniform(150, 200)
    advance = width / (loops * 2 * math.pi)
    # A taller first loop (the initial), then letters of uneven height, slanted to the right;
    # all of it between the lines of text around it.
    heights = [rng.uniform(9, 11)] + [rng.uniform(3, 8) for _ in range(loops)]
    points = []
    for step in range(loops * 24 + 1):
        t = step / 24 * 2 * math.pi
        height = heights[int(t // (2 * math.pi))]
        y = baseline - 12 + height * math.cos(t) - (height - 8) * 0.5
        points.append((x + advance * t - rng.uniform(1.3, 1.9) * advance * math.sin(t) + (baseline - y) * 0.35, y))
    draw.line(points, fill=35, width=2, joint="curve")
    draw.line([(x - 6, baseline - 2), (x + width * 0.6, baseline - 4), (x + width + 12, baseline - 9)],
              fill=45, width=2, joint="curve")


def _px(mm: float) -> int:
    return round(mm * PX_PER_MM)


def _draw_lines(image: Image.Image, source: ScanSource, page_no: int, rng: random.Random) -> None:
    draw = ImageDraw.Draw(image)
    lines = source.pages[page_no - 1]
    shift = 0  # how far a drawn letterhead block (taller than the PDF's) pushes the text below it
    heading = [line for line in lines if line.kind == "letterhead"]
    if heading:
        top, logo = _px(heading[0].top) - 4, 54
        if source.organization:
            _draw_logo(draw, source.organization, _px(LEFT_MM), top, logo)
        x = _px(LEFT_MM) + (logo + 14 if source.organization else 0)
        draw.text((x, top), heading[0].text, fill=15, font=_font("serif_bold", 24))
        for index, line in enumerate(heading[1:]):
            draw.text((x, top + 32 + index * 17), line.text, fill=50, font=_font("sans", 14))
        bottom = max(top + logo, top + 32 + 17 * (len(heading) - 1)) + 8
        draw.line((_px(LEFT_MM), bottom, PAGE_SIZE[0] - _px(LEFT_MM), bottom), fill=70, width=2)
        following = next((line.top for line in lines if line.kind != "letterhead"), None)
        shift = max(0, bottom + 12 - _px(following)) if following is not None else 0
    for line in lines:
        if line.kind == "letterhead":
            continue
        y = _px(line.top) + shift
        name, size = ("mono", 15) if source.monospace else _STYLES.get(line.kind, _STYLES["body"])
        if line.kind == "field":
            draw.text((_px(LEFT_MM), y), line.label, fill=10, font=_font("bold", size))
            draw.text((_px(VALUE_MM), y), line.text, fill=20, font=_font(name, size))
        else:
            draw.text((_px(LEFT_MM), y), line.text, fill=15, font=_font(name, size))
        if line.text.startswith(("Electronically signed by", "Signature:", "Signed:")):
            _draw_signature(draw, rng, _px(LEFT_MM) + rng.uniform(330, 420), y - 3)


def _draw_furniture(image: Image.Image, source: ScanSource, page_no: int) -> None:
    draw = ImageDraw.Draw(image)
    if source.fax_headers:
        draw.text((24, 12), source.fax_headers[page_no - 1], fill=25, font=_font("mono", 13))
    draw.text((PAGE_SIZE[0] - _px(LEFT_MM), PAGE_SIZE[1] - 34), source.page_number_text(page_no),
              fill=60, font=_font("sans", 12), anchor="ra")


def _age(image: Image.Image, source: ScanSource, page_no: int) -> Image.Image:
    """Skew, shift and dust: what the glass of a scanner or a fax line does to a clean page."""
    rng = random.Random(_seed("skew", source.key, page_no))
    angle = rng.uniform(-MAX_SKEW_DEGREES, MAX_SKEW_DEGREES)
    aged = image.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=255,
                        translate=(rng.randrange(-6, 7), rng.randrange(-5, 6)))
    pixels = np.asarray(aged, dtype=np.uint8).copy()
    noise = np.random.default_rng(_seed("noise", source.key, page_no))
    flat = pixels.reshape(-1)  # a view: specks land in `pixels`
    specks = noise.integers(0, flat.size, size=int(flat.size * SPECK_RATE))
    flat[specks] = np.minimum(flat[specks], noise.integers(70, 190, size=specks.size, dtype=np.uint8))
    if source.fax_headers:
        # Fax pages: a faint streak where the sending machine's sensor was dirty.
        column = noise.integers(120, PAGE_SIZE[0] - 120)
        pixels[:, column] = np.minimum(pixels[:, column], 215)
    return Image.fromarray(pixels, mode="L")


@lru_cache(maxsize=192)
def render_page(source: ScanSource, page_no: int) -> bytes:
    """Page `page_no` (1-based) as a greyscale PNG (cached per document content and page)."""
    source.check_page(page_no)
    image = Image.new("L", PAGE_SIZE, 255)
    _draw_lines(image, source, page_no, random.Random(_seed("signature", source.key, page_no)))
    _draw_furniture(image, source, page_no)
    buffer = io.BytesIO()
    _age(image, source, page_no).save(buffer, format="PNG", compress_level=3)
    return buffer.getvalue()
