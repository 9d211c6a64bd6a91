"""Draw the app's icons once (``.venv/bin/python scripts/make_icons.py``); the PNGs are
committed in ``static/icons/``. The design: the table's felt, a gold frame, the red side's
square with R and the blue side's circle with B (the colour-blind marks of every screen).
Text comes from DejaVu Sans Bold when the machine has it, else the shapes stand alone."""

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


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    draw(192, False).save(OUT / "icon-192.png", optimize=True)
    draw(512, False).save(OUT / "icon-512.png", optimize=True)
    draw(512, True).save(OUT / "maskable-512.png", optimize=True)


if __name__ == "__main__":
    main()
