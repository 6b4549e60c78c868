#!/usr/bin/env python3
"""Draws the placeholder app icon (a white paper plane on a blue rounded square) as RGBA PNGs.

Standard library only. Writes src-tauri/icons/{32x32,128x128}.png; run from anywhere.
"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src-tauri", "icons")
SUPERSAMPLE = 4
PLANE = [(0.20, 0.52), (0.82, 0.20), (0.56, 0.82), (0.47, 0.59)]  # unit-square polygon, y down


def inside_rounded_square(x, y, radius=0.22, margin=0.04):
    lo, hi = margin, 1 - margin
    if not (lo <= x <= hi and lo <= y <= hi):
        return False
    cx = min(max(x, lo + radius), hi - radius)
    cy = min(max(y, lo + radius), hi - radius)
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius**2


def inside_polygon(x, y, poly):
    hit = False
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


def pixel(px, py, size):
    """Average colour of one pixel over SUPERSAMPLE² samples, premultiplied then un-premultiplied."""
    r = g = b = a = 0.0
    n = SUPERSAMPLE
    for sy in range(n):
        for sx in range(n):
            x = (px + (sx + 0.5) / n) / size
            y = (py + (sy + 0.5) / n) / size
            if inside_polygon(x, y, PLANE):
                r, g, b, a = r + 255, g + 255, b + 255, a + 1
            elif inside_rounded_square(x, y):
                shade = 1 - 0.35 * y  # lighter at the top
                r, g, b, a = r + 31 * shade, g + 79 * shade, b + 209 * shade, a + 1
    if a == 0:
        return (0, 0, 0, 0)
    return (round(r / a), round(g / a), round(b / a), round(255 * a / (n * n)))


def png(size):
    raw = bytearray()
    for py in range(size):
        raw.append(0)  # filter: none
        for px in range(size):
            raw.extend(pixel(px, py, size))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for size in (32, 128):
        with open(os.path.join(OUT, f"{size}x{size}.png"), "wb") as f:
            f.write(png(size))
