#!/usr/bin/python3
"""What a screenshot shows, without PIL: png_stats.py FILE.png [RRGGBB ...]

Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) with
zlib and prints one line:

    WIDTH HEIGHT DISTINCT_COLOURS NONWHITE_PERMILLE [NEAR_COUNT ...]

NONWHITE_PERMILLE counts pixels that are not (nearly) white, per thousand;
each NEAR_COUNT the pixels within 24 per channel of the colour given.
"""
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def rows(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    pos, idat = 8, b""
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or lace:
                sys.exit("%s: only 8-bit RGB/RGBA, not interlaced" % path)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw, stride = zlib.decompress(idat), w * bpp
    prev = bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for x in range(stride):
                line[x] = (line[x] + ((line[x - bpp] if x >= bpp else 0) + prev[x]) // 2) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                c = prev[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + paeth(a, prev[x], c)) & 255
        prev = line
        yield w, h, bpp, line


def main():
    targets = [tuple(int(c[i:i + 2], 16) for i in (0, 2, 4)) for c in sys.argv[2:]]
    colours, nonwhite, near, size = set(), 0, [0] * len(targets), (0, 0)
    for w, h, bpp, line in rows(sys.argv[1]):
        size = (w, h)
        for x in range(0, w * bpp, bpp):
            px = (line[x], line[x + 1], line[x + 2])
            colours.add(px)
            nonwhite += min(px) < 240
            for i, t in enumerate(targets):
                near[i] += all(abs(px[k] - t[k]) <= 24 for k in range(3))
    print(size[0], size[1], len(colours), 1000 * nonwhite // (size[0] * size[1]), *near)


if __name__ == "__main__":
    main()
