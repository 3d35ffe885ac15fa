#!/usr/bin/env python3
"""`--svg FILE` end to end (TAP): the picture of a real allocator snapshot
and of a real leaking log is well-formed XML with the expected elements,
text is escaped, stdout does not change, a failed write leaves nothing,
and, when rsvg-convert (Debian librsvg2-bin) is installed, it renders.
Usage: test_svg.py PATH/TO/kgmem-diagnose (run from the source root)."""
import json, os, shutil, struct, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

exe = sys.argv[1]
NS = '{http://www.w3.org/2000/svg}'
SNAP = 'testdata/snapshots/cs336-transformer-fullstep.pickle'
LOG = 'testdata/logs/seed-002-leak-epochs.log'
n = 0
failed = False


def check(name, cond):
    global n, failed
    n += 1
    print(('ok %d - %s' if cond else 'not ok %d - %s') % (n, name))
    failed |= not cond


def skip(name, why):
    global n
    n += 1
    print('ok %d - %s # SKIP %s' % (n, name, why))


def run(*args):
    return subprocess.run([exe, *args], capture_output=True, text=True)


tmp = tempfile.mkdtemp()
try:
    snap_svg = os.path.join(tmp, 'snap.svg')
    r = run('--format', 'json', '--svg', snap_svg, SNAP)
    check('snapshot --svg exits 0', r.returncode == 0)
    plain = run('--format', 'json', SNAP)
    check('--svg leaves the JSON report unchanged', r.stdout == plain.stdout and 'segment_map' not in r.stdout)
    root = ET.parse(snap_svg).getroot()
    check('snapshot SVG is well-formed, root <svg>', root.tag == NS + 'svg')
    lines = root.findall('.//' + NS + 'polyline')
    pts = [len(p.get('points').split()) for p in lines]
    check('snapshot: requested and reserved polylines, > 10 points each',
          len(lines) == 2 and all(k > 10 for k in pts))
    check('snapshot: at most 2001 points per series', all(k <= 2001 for k in pts))
    check('snapshot: peak marked', len(root.findall('.//' + NS + 'circle[@class="peak"]')) == 1)
    texts = ' '.join(t.text or '' for t in root.iter(NS + 'text'))
    check('snapshot: peak label is the DESIGN §5 peak (51.04 GiB)', 'peak 51.04 GiB' in texts)
    segs = root.findall('.//' + NS + 'rect[@class="segment"]')
    check('segment map: at most 200 segments', 0 < len(segs) <= 200)
    fills = {b.get('fill') for b in root.findall('.//' + NS + 'rect[@class="block"]')}
    check('segment map: allocated and inactive blocks coloured', {'#d62728', '#9ecae1'} <= fills)

    sub_svg = os.path.join(tmp, 'sub.svg')
    r = run('snapshot', '--svg', sub_svg, SNAP)
    check('snapshot subcommand --svg writes the same picture',
          r.returncode == 0 and 'fragmentation' in r.stdout and open(sub_svg).read() == open(snap_svg).read())
    os.unlink(sub_svg)

    # a log name with XML specials must come out escaped and well-formed
    odd = os.path.join(tmp, 'a&b<"c">\'.log')
    shutil.copy(LOG, odd)
    log_svg = os.path.join(tmp, 'log.svg')
    r = run('--svg', log_svg, odd)
    check('log --svg writes the file', os.path.exists(log_svg))
    with open(log_svg, encoding='utf-8') as f:
        raw = f.read()
    root = ET.fromstring(raw)
    check('log SVG with an odd file name is well-formed', root.tag == NS + 'svg')
    check('log: file name escaped in the title', '&amp;b&lt;&quot;c&quot;&gt;&apos;.log' in raw)
    lines = root.findall('.//' + NS + 'polyline')
    check('log: allocated and reserved polylines over the epochs',
          len(lines) == 2 and all(len(p.get('points').split()) == 5 for p in lines))
    ooms = root.findall('.//' + NS + 'line[@class="oom"]')
    check('log: one OOM marker', len(ooms) == 1)
    texts = ' '.join(t.text or '' for t in root.iter(NS + 'text'))
    check('log: OOM labelled with its incident and line', 'OOM #1 (line' in texts and 'over epochs' in texts)

    # the write is atomic: unwritable place → exit 3, nothing left behind
    bad = os.path.join(tmp, 'no-such-dir', 'x.svg')
    r = run('--svg', bad, LOG)
    check('unwritable --svg path: exit 3 and a message naming it',
          r.returncode == 3 and 'no-such-dir/x.svg' in r.stderr)
    check('unwritable --svg path: no file', not os.path.exists(os.path.dirname(bad)))
    check('no temporary files left beside the SVGs',
          sorted(os.listdir(tmp)) == sorted(['snap.svg', 'log.svg', os.path.basename(odd)]))

    rsvg = shutil.which('rsvg-convert')
    for name, svg in (('snapshot', snap_svg), ('log', log_svg)):
        if not rsvg:
            skip('%s SVG renders to PNG' % name, 'rsvg-convert not installed (Debian librsvg2-bin)')
            continue
        png = svg[:-4] + '.png'
        r = subprocess.run([rsvg, '-o', png, svg], capture_output=True, text=True)
        ok = r.returncode == 0 and os.path.exists(png)
        w = h = 0
        if ok:
            with open(png, 'rb') as f:
                head = f.read(24)
            ok = head[:8] == b'\x89PNG\r\n\x1a\n'
            w, h = struct.unpack('>II', head[16:24])
        check('%s SVG renders to a PNG 960 px wide, > 200 px tall (%dx%d)' % (name, w, h),
              ok and w == 960 and h > 200)
finally:
    shutil.rmtree(tmp)
print('1..%d' % n)
sys.exit(1 if failed else 0)
