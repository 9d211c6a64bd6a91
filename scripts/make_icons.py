"""Draw the app's icons once (``.venv/bin/python scripts/make_icons.py``); the PNGs and the
SVG are committed in ``static/icons/``. The design: the table's felt, a gold frame, the red side's
square with R and the blue side's circle with B (the colour-blind marks of every screen).
Text comes from DejaVu Sans Bold when the machine has it, else the shapes stand alone.

The PNGs are kept to 128 colours (a quarter of the bytes, no visible change: issue 24),
and the tab's icon is the SVG drawing of the same design (under 1 KB on a first visit,
where the 192 px PNG was 16 KB)."""

from __future__ import annotations

import pathlib

from PIL import Image, ImageDraw, ImageFont

OUT = pathlib.Path(__file__).resolve().parents[1] / "static" / "icons"
FELT, GOLD, RED, BLUE, INK_BLUE = "#16221c", "#f2c14e", "#ff5b4f", "#55a8ff", "#06203d"
FONT = pathlib.Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


def draw(size: int, maskable: bool) -> Image.Image:
    big = size * 4                                  # drawn large, scaled down: smooth edges
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    u = big / 100
    if maskable:                                    # full bleed; the marks inside the safe circle
        d.rectangle([0, 0, big, big], fill=FELT)
        inset, scale = 20 * u, 0.54
    else:
        d.rounded_rectangle([2 * u, 2 * u, 98 * u, 98 * u], radius=20 * u, fill=FELT,
                            outline=GOLD, width=int(4 * u))
        inset, scale = 12 * u, 0.76
    s = 100 * u * scale                             # the marks' box
    x0 = y0 = inset if not maskable else (big - s) / 2
    sq = [x0, y0, x0 + 0.58 * s, y0 + 0.58 * s]
    ci = [x0 + 0.40 * s, y0 + 0.40 * s, x0 + s, y0 + s]
    d.ellipse(ci, fill=BLUE, outline="white", width=int(2 * u))
    d.rounded_rectangle(sq, radius=0.08 * s, fill=RED, outline="white", width=int(2 * u))
    if FONT.exists():
        f = ImageFont.truetype(str(FONT), int(0.38 * s))
        d.text(((sq[0] + sq[2]) / 2, (sq[1] + sq[3]) / 2), "R", font=f, fill="white", anchor="mm")
        d.text(((ci[0] + ci[2]) / 2 + 0.04 * s, (ci[1] + ci[3]) / 2 + 0.04 * s), "B", font=f,
               fill=INK_BLUE, anchor="mm")
    return img.resize((size, size), Image.LANCZOS)


def svg() -> str:
    """The same design as :func:`draw`'s (not maskable), in a 100 × 100 box."""
    s = 76.0                                        # the marks' box, as in draw()
    x0 = 12.0
    sq = (x0, x0, 0.58 * s)
    cx = cy = x0 + 0.70 * s
    r = 0.30 * s
    fs = 0.38 * s
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        f'<rect x="2" y="2" width="96" height="96" rx="20" fill="{FELT}" stroke="{GOLD}" '
        'stroke-width="4"/>'
        f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="{BLUE}" stroke="#fff" stroke-width="2"/>'
        f'<rect x="{sq[0]:g}" y="{sq[1]:g}" width="{sq[2]:g}" height="{sq[2]:g}" '
        f'rx="{0.08 * s:g}" fill="{RED}" stroke="#fff" stroke-width="2"/>'
        '<g font-family="DejaVu Sans,Verdana,Arial,sans-serif" font-weight="bold" '
        f'font-size="{fs:g}" text-anchor="middle" dominant-baseline="central">'
        f'<text x="{x0 + 0.29 * s:g}" y="{x0 + 0.29 * s:g}" fill="#fff">R</text>'
        f'<text x="{cx + 0.04 * s:g}" y="{cy + 0.04 * s:g}" fill="{INK_BLUE}">B</text></g>'
        '</svg>\n')


def save(img: Image.Image, name: str) -> None:
    img.quantize(colors=128, method=Image.Quantize.FASTOCTREE).save(OUT / name, optimize=True)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    save(draw(192, False), "icon-192.png")
    save(draw(512, False), "icon-512.png")
    save(draw(512, True), "maskable-512.png")
    (OUT / "icon.svg").write_text(svg(), encoding="utf-8")


if __name__ == "__main__":
    main()
