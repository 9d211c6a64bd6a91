"""A QR code as a small SVG: one path of the dark runs of each row.

The table's screen loads two of them at its first load (join and watch). Drawn module by
module (qrcode's SVG path image: a closed square per dark module) they cost 3 KB each over
the wire; as runs (``M x y h n``, a stroke one module high) about a third of that, and the
picture is the same to a camera (tests read it back with zxing-cpp).
"""

from __future__ import annotations

import qrcode


def qr_svg(text: str, border: int = 2) -> bytes:
    """``text`` as a QR code in SVG, ``border`` light modules around it (the quiet zone)."""
    code = qrcode.QRCode(border=border)
    code.add_data(text)
    code.make(fit=True)
    rows = code.get_matrix()
    size = len(rows)
    runs = []
    for y, row in enumerate(rows):
        x = 0
        while x < size:
            if row[x]:
                start = x
                while x < size and row[x]:
                    x += 1
                runs.append(f"M{start} {y}.5h{x - start}")
            x += 1
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" '
            f'shape-rendering="crispEdges"><path stroke="#000" d="{"".join(runs)}"/></svg>'
            ).encode()
