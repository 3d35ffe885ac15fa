#!/usr/bin/env python3
"""`--svg` pictures checked in pixels (TAP). The SVGs of seed 002's log and
of the cs336 fullstep snapshot are rendered with rsvg-convert (Debian
librsvg2-bin) and with headless Chromium (Debian chromium); in each PNG:
the device-capacity line lies at the y the chart's own tick scale gives for
the capacity the JSON report states; the OOM mark lies at the x of the
epoch the JSON report gives (epoch 6, after the last reading at epoch 5);
the budget bar's parts are as wide as their bytes at the bar's scale and
the request starts where free memory does and runs past the capacity; the
segment map shows allocated and inactive pixels in the proportion of the
snapshot's allocated and inactive bytes, the inactive ones in as many
separate pieces as the snapshot has inactive blocks wide enough to see.
Expected coordinates come from the SVG's own attributes (tick lines and
their labels, the plot and bar frames) and the JSON report's numbers,
never from pixel constants. A renderer that is not installed is a SKIP.
Usage: test_svg_pixels.py PATH/TO/kgmem-diagnose (run from the source root)."""
import json, os, re, shutil, struct, subprocess, sys, tempfile, traceback, zlib
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import check, skip, done  # noqa: E402

exe = sys.argv[1]
NS = '{http://www.w3.org/2000/svg}'
LOG = 'testdata/logs/seed-002-leak-epochs.log'
SNAP = 'testdata/snapshots/cs336-transformer-fullstep.pickle'
UNITS = {'bytes': 1, 'KiB': 1 << 10, 'MiB': 1 << 20, 'GiB': 1 << 30}


# ---- PNG (8-bit RGB or RGBA, not interlaced: what both renderers write) ----

def png_decode(path):
    """Returns (width, height, rows): rows[y] is a bytes object of RGB
    triples (alpha dropped; both renderers paint an opaque background)."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('%s: not a PNG' % path)
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError('%s: PNG depth %d colour type %d interlace %d not handled'
                         % (path, depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b''.join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ft == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if bpp == 4:
            del line[3::4]
        rows.append(bytes(line))
    return w, h, rows


def hexrgb(s):
    return tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))


def near(px, rgb, tol):
    return abs(px[0] - rgb[0]) + abs(px[1] - rgb[1]) + abs(px[2] - rgb[2]) <= tol


def pixel(img, x, y):
    row = img[2][y]
    return row[3 * x:3 * x + 3]


# ---- the SVG's own geometry ------------------------------------------------

def size_bytes(label):
    num, unit = label.split()
    return float(num) * UNITS[unit]


def linear(pairs):
    """Least-squares line through (value, coordinate) pairs: (a, b, worst
    residual) with coordinate = a + b × value."""
    n = len(pairs)
    mv = sum(v for v, _ in pairs) / n
    mc = sum(c for _, c in pairs) / n
    b = sum((v - mv) * (c - mc) for v, c in pairs) / sum((v - mv) ** 2 for v, _ in pairs)
    a = mc - b * mv
    return a, b, max(abs(a + b * v - c) for v, c in pairs)


def chart_scales(g):
    """The chart group's y scale (bytes → y) from its tick lines and their
    labels, and its x scale (count → x) likewise."""
    ylines = [float(e.get('y1')) for e in g.findall(NS + 'line[@class="ytick"]')]
    ylabels = [size_bytes(e.text) for e in g.findall(NS + 'text[@class="ytick"]')]
    xlines = [float(e.get('x1')) for e in g.findall(NS + 'line[@class="xtick"]')]
    xlabels = [float(e.text) for e in g.findall(NS + 'text[@class="xtick"]')]
    return linear(list(zip(ylabels, ylines))), linear(list(zip(xlabels, xlines)))


def rect(e):
    return tuple(float(e.get(k)) for k in ('x', 'y', 'width', 'height'))


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True)


# ---- renderers --------------------------------------------------------------

def svg_size(path):
    root = ET.parse(path).getroot()
    return int(float(root.get('width'))), int(float(root.get('height')))


def render_rsvg(tool, svg, png, tmp):
    r = subprocess.run([tool, '-o', png, svg], capture_output=True, text=True, timeout=120)
    return r.returncode == 0 and os.path.exists(png), r.stderr


def render_chromium(tool, svg, png, tmp):
    w, h = svg_size(svg)
    r = subprocess.run([tool, '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
                        '--force-device-scale-factor=1', '--user-data-dir=' + os.path.join(tmp, 'chromium'),
                        '--screenshot=' + png, '--window-size=%d,%d' % (w, h), 'file://' + svg],
                       capture_output=True, text=True, timeout=180)
    return r.returncode == 0 and os.path.exists(png), r.stderr[-2000:]


# ---- the checks -------------------------------------------------------------

def log_checks(tag, img, root, rep):
    inc = rep['incidents'][0]
    bud = inc['budget']
    chart = root.find('.//' + NS + 'g[@class="chart"]')
    plot = rect(chart.find(NS + 'rect[@class="plot"]'))
    px0, py0, pw, ph = plot
    (ya, yb, yres), (xa, xb, xres) = chart_scales(chart)

    # the capacity line: at the y the tick scale gives the stated capacity
    cap_y = ya + yb * bud['capacity']
    line = chart.find(NS + 'line[@class="capacity"]')
    colour = hexrgb(line.get('stroke'))
    cols = range(int(px0) + 5, int(px0 + pw) - 5)
    rows = [y for y in range(int(py0), int(py0 + ph))
            if sum(near(pixel(img, x, y), colour, 40) for x in cols) >= 0.8 * len(cols)]
    mid = sum(rows) / len(rows) + 0.5 if rows else None
    check(rows and abs(mid - cap_y) <= 1.0,
          '%s: capacity line drawn across the plot at y %.1f (capacity %d bytes on the tick scale)'
          % (tag, cap_y, bud['capacity']),
          'rows with the capacity colour: %r; tick fit residual %.3f' % (rows, yres))
    check(py0 <= cap_y <= py0 + ph, '%s: the y axis includes the capacity' % tag)

    # the OOM mark: at the x of the incident's epoch, right of the last reading
    oom_x = xa + xb * inc['epoch']
    last_x = max(float(p.split(',')[0]) for s in chart.findall(NS + 'polyline[@class="series"]')
                 for p in s.get('points').split())
    mark = chart.find(NS + 'line[@class="oom"]')
    colour = hexrgb(mark.get('stroke'))
    prow = range(int(py0) + 2, int(py0 + ph) - 2)
    hits = [x for x in range(int(px0), min(img[0], int(px0 + pw) + 3))
            if sum(near(pixel(img, x, y), colour, 60) for y in prow) >= 0.4 * len(prow)]
    mid = sum(hits) / len(hits) + 0.5 if hits else None
    check(hits and abs(mid - oom_x) <= 1.0 and oom_x > last_x + 10,
          '%s: OOM mark at epoch %d (x %.1f), right of the last reading (epoch 5, x %.1f)'
          % (tag, inc['epoch'], oom_x, last_x), 'columns with the OOM colour: %r' % hits)

    # the budget bar: each part as wide as its bytes at the bar's scale
    g = root.find('.//' + NS + 'g[@class="budget"]')
    fx, fy, fw, fh = rect(g.find('.//' + NS + 'rect[@class="budget-frame"]'))
    per = fw / bud['capacity']
    y = int(fy + fh / 2)
    parts = {'allocated': bud['allocated'], 'cached-unused': bud['cached_unused'],
             'non-pytorch': bud['non_pytorch'], 'other-processes': bud['other_processes'],
             'free': bud['free']}
    for name, nbytes in parts.items():
        e = g.find('.//' + NS + 'rect[@class="budget-part %s"]' % name)
        if not nbytes:
            check(e is None, '%s: budget bar part "%s" of 0 bytes is not drawn' % (tag, name))
            continue
        colour = hexrgb(e.get('fill'))
        got = sum(near(pixel(img, x, y), colour, 12) for x in range(int(fx), int(fx + fw) + 1))
        want = nbytes * per
        check(abs(got - want) <= 1,
              '%s: budget bar part "%s" %d px wide for %d bytes (expected %.1f px)'
              % (tag, name, got, nbytes, want))
    e = g.find('.//' + NS + 'rect[@class="budget-request"]')
    colour = hexrgb(e.get('fill'))
    ry = int(float(e.get('y')) + float(e.get('height')) / 2)
    red = [x for x in range(img[0]) if near(pixel(img, x, ry), colour, 12)]
    want0 = fx + (bud['capacity'] - bud['free']) * per
    want = inc['memory']['requested_bytes'] * per
    check(red and abs(red[0] - want0) <= 1 and abs(len(red) - want) <= 1 and red[-1] > fx + fw,
          '%s: the request (%.1f px) starts where free memory does (x %.1f) and runs past the capacity edge'
          % (tag, want, want0), 'request pixels (first, last, count): %r' % ((red[0], red[-1], len(red)) if red else None,))


def snapshot_checks(tag, img, root, rep):
    dev = rep['snapshots'][0]['devices'][0]
    g = root.find('.//' + NS + 'g[@class="segment-map"]')
    blocks = g.findall('.//' + NS + 'rect[@class="block"]')
    legend, swatch = {}, None
    for e in g:  # each legend swatch is followed by its name
        if e.tag == NS + 'rect' and e.get('class') == 'legend':
            swatch = hexrgb(e.get('fill'))
        elif e.tag == NS + 'text' and swatch:
            legend[e.text] = swatch
            swatch = None
    alloc_c, inact_c = legend['active_allocated'], legend['inactive (cached, free)']
    x0 = int(min(float(b.get('x')) for b in blocks))
    x1 = int(max(float(b.get('x')) + float(b.get('width')) for b in blocks))
    ys = sorted({float(b.get('y')) for b in blocks})
    rh = float(blocks[0].get('height'))
    na = ni = pieces = 0
    for ry in ys:
        for y in range(int(ry), int(ry + rh)):
            row_a = [near(pixel(img, x, y), alloc_c, 6) for x in range(x0, x1)]
            row_i = [near(pixel(img, x, y), inact_c, 6) for x in range(x0, x1)]
            na += sum(row_a)
            ni += sum(row_i)
        mid = [near(pixel(img, x, int(ry + rh / 2)), inact_c, 6) for x in range(x0, x1)]
        pieces += sum(1 for i, v in enumerate(mid) if v and (i == 0 or not mid[i - 1]))
    want = dev['inactive_bytes'] / (dev['inactive_bytes'] + dev['allocated_bytes'])
    got = ni / (na + ni) if na + ni else 0
    check(abs(got - want) <= 0.01,
          '%s: segment map inactive share of pixels %.4f matches inactive bytes / (allocated + inactive) %.4f'
          % (tag, got, want), 'allocated px %d, inactive px %d' % (na, ni))
    title = g.find(NS + 'text').text
    bpp = size_bytes(re.search(r'1 px = ([0-9.]+ \w+)\)', title).group(1))
    wide = sum(b['blocks'] for b in dev['free_blocks'] if b['min_bytes'] >= 3 * bpp)
    check(wide > 100 and pieces >= wide,
          '%s: fragmentation visible: %d separate inactive pieces for %d inactive blocks of >= 3 px'
          % (tag, pieces, wide))


def main():
    tmp = tempfile.mkdtemp()
    try:
        log_svg, snap_svg = os.path.join(tmp, 'log.svg'), os.path.join(tmp, 'snap.svg')
        r1, r2 = run('--svg', log_svg, LOG), run('--svg', snap_svg, SNAP)
        check(r1.returncode == 0 and r2.returncode == 0, 'both SVGs written')
        log_rep = json.loads(run('--format', 'json', LOG).stdout)
        snap_rep = json.loads(run('--format', 'json', SNAP).stdout)
        log_root, snap_root = ET.parse(log_svg).getroot(), ET.parse(snap_svg).getroot()
        renderers = (('rsvg-convert', render_rsvg, 'rsvg-convert not installed (Debian librsvg2-bin)'),
                     ('chromium', render_chromium, 'chromium not installed (Debian chromium)'))
        for name, render, why in renderers:
            tool = shutil.which(name)
            if not tool:
                for what in ('log', 'snapshot'):
                    skip('%s: %s picture in pixels' % (name, what), why)
                continue
            for what, svg, fn, root, rep in (('log', log_svg, log_checks, log_root, log_rep),
                                             ('snapshot', snap_svg, snapshot_checks, snap_root, snap_rep)):
                png = svg[:-4] + '-' + name + '.png'
                ok, err = render(tool, svg, png, tmp)
                w, h = svg_size(svg)
                img = png_decode(png) if ok else None
                check(ok and img[0] >= w and img[1] >= h, '%s renders the %s SVG (%dx%d)' % (name, what, w, h),
                      err)
                if img:
                    try:
                        fn('%s %s' % (name, what), img, root, rep)
                    except Exception:  # a picture without the parts checked
                        check(False, '%s %s: the picture has the parts to check' % (name, what),
                              traceback.format_exc())
    finally:
        shutil.rmtree(tmp)
    done()


main()
