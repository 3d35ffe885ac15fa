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
    texts = ' '.join(t.text or '' for t in root.iter(NS + 'text'))
    check('snapshot: requested and reserved polylines, > 10 points each',
          len(lines) == 2 and all(k > 10 for k in pts))
    check('snapshot: at most 2001 points per series', all(k <= 2001 for k in pts))
    check('snapshot: peak marked', len(root.findall('.//' + NS + 'circle[@class="peak"]')) == 1)
    texts = ' '.join(t.text or '' for t in root.iter(NS + 'text'))
    check('snapshot: peak label is the DESIGN §5 peak (51.04 GiB)', 'peak 51.04 GiB' in texts)
    legend = [t.text for e, t in zip(list(root.iter()), list(root.iter())[1:])
              if e.get('class') == 'legend' and t.tag == NS + 'text']
    check('snapshot: the chart legend names requested and reserved once each (%s)' % legend[:2],
          legend[:2] == ['requested', 'reserved'])
    ticks = [t.text for t in root.iter(NS + 'text') if t.get('class') == 'ytick']
    check('snapshot: byte ticks at round binary values (%s)' % ', '.join(ticks),
          ticks == ['0 bytes', '16.00 GiB', '32.00 GiB', '48.00 GiB', '64.00 GiB'])
    dev = json.loads(plain.stdout)['snapshots'][0]['devices'][0]
    segs = [g for g in root.iter(NS + 'g') if g.get('class') == 'segment']
    agg = [g for g in root.iter(NS + 'g') if g.get('class') == 'segment aggregate']
    nagg = int(agg[0].find(NS + 'title').text.split()[0]) if len(agg) == 1 else 0
    check('segment map: every segment drawn, the narrow ones in one cell (%d + %d = %d)'
          % (len(segs), nagg, dev['segments']), len(segs) + nagg == dev['segments'] and len(segs) > 900)
    fills = {b.get('fill') for b in root.findall('.//' + NS + 'rect[@class="block"]')}
    check('segment map: allocated and inactive blocks coloured', {'#1f77b4', '#fdbf6f'} <= fills)
    check('snapshot: no capacity line (a snapshot does not record it), and the chart says so',
          not root.findall('.//' + NS + 'line[@class="capacity"]')
          and 'device capacity: not recorded in the snapshot' in texts)
    check('snapshot: the map states the fragmentation and its terms',
          'fragmentation 0.98 = 1 − largest inactive block 100.00 MiB / 5.81 GiB inactive' in texts)
    check('snapshot: caption says nothing was diagnosed', 'No OOM incident diagnosed.' in texts)
    again = os.path.join(tmp, 'again.svg')
    run('--svg', again, SNAP)
    check('same input, byte-identical SVG', open(again, 'rb').read() == open(snap_svg, 'rb').read())
    os.unlink(again)

    sub_svg = os.path.join(tmp, 'sub.svg')
    r = run('snapshot', '--svg', sub_svg, SNAP)
    check('snapshot subcommand --svg writes the same picture',
          r.returncode == 0 and 'fragmentation' in r.stdout and open(sub_svg).read() == open(snap_svg).read())
    os.unlink(sub_svg)

    # a snapshot's chart takes the capacity of its case's OOM message, but
    # not one smaller than what the device reserved (another device's)
    for log, drawn in (('testdata/logs/snapshot-cs336-fragmented.log', True), (LOG, False)):
        both = os.path.join(tmp, 'both.svg')
        run('--svg', both, log, SNAP)
        charts = [g for g in ET.parse(both).getroot().iter(NS + 'g') if g.get('class') == 'chart']
        caps = [len(g.findall(NS + 'line[@class="capacity"]')) for g in charts]
        note = ' '.join(t.text for t in charts[0].findall(NS + 'text'))
        check('snapshot with %s: capacity line on the trace chart %s' % (os.path.basename(log), 'drawn' if drawn else 'not drawn'),
              caps[0] == (1 if drawn else 0) and
              ('capacity 79.15 GiB' in note if drawn else 'is less than it reserved (no capacity line)' in note))
        os.unlink(both)

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
    check('log: OOM labelled with its incident, epoch and line',
          'OOM #1, epoch 6 (line 38)' in texts and 'over epochs' in texts)
    # the OOM happened during epoch 6, after the epoch-5 reading: its mark
    # lies right of every reading (it was drawn at epoch 5 before)
    last_x = max(float(p.split(',')[0]) for l in lines for p in l.get('points').split())
    check('log: OOM mark right of the last reading (epoch 6, not 5)', float(ooms[0].get('x1')) > last_x + 10)
    cap = root.findall('.//' + NS + 'line[@class="capacity"]')
    check('log: one capacity line, labelled with the stated capacity',
          len(cap) == 1 and 'capacity 10.75 GiB (device 0)' in texts)
    ticks = [t.text for t in root.iter(NS + 'text') if t.get('class') == 'ytick']
    check('log: byte ticks at round binary values (%s)' % ', '.join(ticks),
          ticks == ['0 bytes'] + ['%d.00 GiB' % (2 * k) for k in range(1, 7)])
    legend = [t.text for e, t in zip(list(root.iter()), list(root.iter())[1:])
              if e.get('class') == 'legend' and t.tag == NS + 'text']
    check('log: one legend entry per series, then capacity and OOM (%s)' % legend[-4:],
          legend[-4:] == ['allocated', 'reserved', 'device capacity', 'OOM'])
    check('log: the caption gives where, what, cause and confidence',
          'OOM #1 at ' in texts and ':38: CUDA out of memory: tried to allocate 1.12 GiB on cuda:0' in texts
          and 'diagnosis: leak, medium confidence' in texts)
    parts = [r.get('class').split()[1] for r in root.findall('.//' + NS + 'rect')
             if (r.get('class') or '').startswith('budget-part')]
    check('log: the budget bar has its parts and the request',
          # no other-processes part: total - free - this process is within
          # the printed sizes' rounding here, so no other process is drawn
          parts == ['allocated', 'cached-unused', 'non-pytorch', 'free']
          and len(root.findall('.//' + NS + 'rect[@class="budget-request"]')) == 1
          and 'requested 1.12 GiB > 482.06 MiB free: it does not fit' in texts)

    # one incident's memory over time: a log holding two jobs (the epoch
    # count starts again after the first one's OOM) or two ranks gives one
    # chart per OOM, each drawing only the readings that led to it (both
    # jobs' or both ranks' readings were one curve before, going back and
    # forth along the x axis)
    for name, want in (('two-jobs', [(1, '', [5, 5]), (2, '', [3, 3])]),
                       ('two-ranks', [(2, ', rank 0', [4]), (1, ', rank 1', [3])])):
        path = os.path.join(tmp, name + '.svg')
        run('--svg', path, 'testdata/multi/%s.log' % name)
        root = ET.parse(path).getroot()
        charts = [g for g in root.iter(NS + 'g') if g.get('class') == 'chart']
        got = []
        for g in charts:
            title = next(g.iter(NS + 'text')).text
            polys = g.findall(NS + 'polyline[@class="series"]')
            xs = [[float(p.split(',')[0]) for p in pl.get('points').split()] for pl in polys]
            marks = [t.text for t in g.iter(NS + 'text') if (t.text or '').startswith('OOM #')]
            got.append((title, [len(x) for x in xs], all(a < b for x in xs for a, b in zip(x, x[1:])), marks))
        check('%s: one chart per OOM (%d)' % (name, len(charts)), len(charts) == len(want))
        for (title, npts, increasing, marks), (oid, rank, wpts) in zip(got, want):
            check('%s: the chart of OOM #%d holds only its run\'s readings (%s, %s)' % (name, oid, title, npts),
                  title.endswith('the run that ended in OOM #%d%s' % (oid, rank)) and npts == wpts and increasing
                  and len(marks) == 1 and marks[0].startswith('OOM #%d,' % oid))

    # the write is atomic: unwritable place → exit 3, nothing left behind
    bad = os.path.join(tmp, 'no-such-dir', 'x.svg')
    r = run('--svg', bad, LOG)
    check('unwritable --svg path: exit 3 and a message naming it',
          r.returncode == 3 and 'no-such-dir/x.svg' in r.stderr)
    check('unwritable --svg path: no file', not os.path.exists(os.path.dirname(bad)))
    check('no temporary files left beside the SVGs',
          sorted(os.listdir(tmp)) == sorted(['snap.svg', 'log.svg', 'two-jobs.svg', 'two-ranks.svg',
                                             os.path.basename(odd)]))

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
