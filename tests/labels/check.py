"""Reads label sheets back as a curator's printer and scanner would: the QR
sheet of a question, printed without --label-url, is rendered (pdftoppm) and
every code decoded (zbarimg); the codes must name every specimen the same
question lists in JSON, each once, nothing else: the server's short link of
each (`/s/<digits>`), or its record where its USI has no digits or shares them
(the collection is given one of each). Every code is followed as a phone
would, a redirect at a time: a short link answers 301 to the specimen's record,
and the record is that specimen's. The USIs sit where the service drew them
(pdftotext -bbox), to 0.1 pt, and so do the codes (read from the page's drawing). Data and
determination labels are read back with pdftotext: every line of every label
that fits is found in its label, accents intact; those that do not fit are the
ones the preview names.

Needs poppler-utils and zbar-tools (Debian); the standard library otherwise.

    python3 tests/labels/check.py --bin target/release/catalogue
"""

import argparse
import html
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections import Counter, defaultdict

LABELS = "/api/v2/specimen-records/labels/"
# The question: a filter and a sort, over more than one page of 600 cells.
QUESTION = "sex=female&sort=-year"
CELL = (24.48, 33.0)
ROWS = 24
MM = 72 / 25.4
# Dots per inch the QR sheet is rendered at for decoding.
DPI = 600


def fail(message):
    raise SystemExit(f"labels check: {message}")


def get(base, path):
    with urllib.request.urlopen(base + path, timeout=120) as r:
        return r.status, r.headers, r.read()


class Unfollowed(urllib.request.HTTPRedirectHandler):
    """Redirects are answers to check, not to follow."""

    def redirect_request(self, *args, **kwargs):
        return None


UNFOLLOWED = urllib.request.build_opener(Unfollowed)


def ask(url):
    """GET `url` without following a redirect: status, headers, body."""
    try:
        with UNFOLLOWED.open(url, timeout=120) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def digits(usi):
    """A USI's short code: every ASCII digit, in order."""
    return "".join(c for c in usi if c in "0123456789")


def without_short_links(fixture):
    """Gives three specimens of the question codes that cannot be short links:
    the second's USI takes the first's digits (both are shared then), the
    third's has none. Returns their ids."""
    objects = json.load(open(fixture, encoding="utf-8"))
    specimens = [o for o in objects if o["model"] == "specimens.specimenrecord"
                 and o["fields"].get("sex") == "female"]
    first, second, third = specimens[:3]
    second["fields"]["usi"] = "OLD-" + digits(first["fields"]["usi"])
    third["fields"]["usi"] = "CAT-NO-DIGITS"
    json.dump(objects, open(fixture, "w", encoding="utf-8"))
    return {first["pk"], second["pk"], third["pk"]}


def follow(base, code, specimen):
    """Follows a decoded code to its specimen's record, a redirect at a time;
    True for a short link."""
    record = f"/api/v2/specimen-records/{specimen['id']}/"
    short = code.startswith(base + "/s/")
    if short:
        status, headers, body = ask(code)
        if status != 301 or headers.get("Location") != record:
            fail(f"{code}: {status} to {headers.get('Location')!r}, not 301 to {record}")
        if json.loads(body) != {"message": f"moved to {record}"}:
            fail(f"{code}: the 301 says {body[:200]!r}")
        code = base + headers["Location"]
    status, headers, body = ask(code)
    if status != 200 or headers.get("Content-Type") != "application/json":
        fail(f"{code}: {status} {headers.get('Content-Type')}")
    got = json.loads(body)
    if (got.get("id"), got.get("usi")) != (specimen["id"], specimen["usi"]):
        fail(f"{code} leads to {got.get('id')} {got.get('usi')!r}, not {specimen['id']} {specimen['usi']!r}")
    return short


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cut_cells(pgm, count, work):
    """The first `count` cells of a rendered page of the service's sheet, each as
    a PGM file of its own."""
    data = open(pgm, "rb").read()
    m = re.match(rb"P5\s+(\d+)\s+(\d+)\s+255\s", data)
    width, height = int(m.group(1)), int(m.group(2))
    pixels = data[m.end():]
    scale = DPI / 72
    files = []
    for slot in range(count):
        column, row = divmod(slot, ROWS)
        x0, x1 = round(column * CELL[0] * scale), round((column + 1) * CELL[0] * scale)
        y0, y1 = round(row * CELL[1] * scale), round((row + 1) * CELL[1] * scale)
        rows = b"".join(pixels[y * width + x0:y * width + x1] for y in range(y0, min(y1, height)))
        name = os.path.join(work, f"cell-{slot:03}.pgm")
        with open(name, "wb") as f:
            f.write(b"P5\n%d %d\n255\n" % (x1 - x0, min(y1, height) - y0) + rows)
        files.append(name)
    return files


def words(pdf, work, name):
    """Each page's words with their boxes, from pdftotext -bbox."""
    out = os.path.join(work, name + ".html")
    subprocess.run(["pdftotext", "-bbox", pdf, out], check=True)
    pages = []
    for page in re.split(r"<page ", open(out, encoding="utf-8").read())[1:]:
        found = []
        for m in re.finditer(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', page
        ):
            x0, y0, x1, y1 = map(float, m.groups()[:4])
            found.append((x0, y0, x1, y1, html.unescape(m.group(5))))
        pages.append(found)
    return pages


def streams(pdf_bytes):
    """The PDF's compressed streams, inflated."""
    for m in re.finditer(rb"/Filter /FlateDecode.*?>>\s*stream\n", pdf_bytes, re.S):
        try:
            yield zlib.decompressobj().decompress(pdf_bytes[m.end():])
        except zlib.error:
            continue


def font_metrics(pdf_bytes):
    ascent = float(re.search(rb"/Ascent (-?[\d.]+)", pdf_bytes).group(1)) / 1000
    descent = float(re.search(rb"/Descent (-?[\d.]+)", pdf_bytes).group(1)) / 1000
    return ascent, descent


def check_qr_sheet(base, work, expected, unshortened):
    # What each specimen's code says: its short link where its USI's digits
    # are its alone in the whole collection, else its record.
    _, _, body = get(base, "/api/v2/specimen-records/?limit=100000&fields=id,usi")
    shared = Counter(digits(s["usi"]) for s in json.loads(body)["items"])

    def due(specimen):
        code = digits(specimen["usi"])
        if code and shared[code] == 1:
            return f"{base}/s/{code}"
        return f"{base}/api/v2/specimen-records/{specimen['id']}/"

    by_code = {due(s): s for s in expected}
    status, headers, body = get(base, f"{LABELS}?{QUESTION}")
    if status != 200 or headers.get("Content-Type") != "application/pdf":
        fail(f"the QR sheet: {status} {headers.get('Content-Type')}")
    pdf = os.path.join(work, "qr.pdf")
    open(pdf, "wb").write(body)
    pages = (len(expected) + 599) // 600
    # A label that does not fit is listed on a note page after the labels.
    note = 1 if headers.get("X-Label-Overflow") else 0
    # Every code, decoded from the rendered pages a label at a time, as a
    # scanner reads them (zbar misses most codes of a whole page of them).
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", pdf, os.path.join(work, "qr")], check=True)
    images = sorted(f for f in os.listdir(work) if f.startswith("qr-") and f.endswith(".pgm"))
    if len(images) != pages + note:
        fail(f"{len(images)} pages rendered, {pages} of labels and {note} of notes expected")
    images = images[:pages]
    ids, decoded = [], []
    for p, image in enumerate(images):
        on_page = min(600, len(expected) - p * 600)
        cells = cut_cells(os.path.join(work, image), on_page, work)
        run = subprocess.run(["zbarimg", "--xml", "-q", *cells], capture_output=True, text=True)
        said = dict(re.findall(r"<source href='(.*?)'>.*?<!\[CDATA\[(.*?)\]\]>", run.stdout, re.S))
        for slot, cell in enumerate(cells):
            text = said.get(cell)
            if text is None:
                fail(f"page {p + 1} cell {slot}: no code decoded")
            specimen = by_code.get(text)
            if specimen is None:
                fail(f"a code says {text!r}, not a link of this server's to a specimen of the question")
            ids.append(specimen["id"])
            decoded.append((text, specimen))
            os.remove(cell)
    if ids != [s["id"] for s in expected]:
        fail("the codes are not the question's specimens in its order, down each column")
    want = Counter(s["id"] for s in expected)
    got = Counter(ids)
    if got != want:
        missing = sorted((want - got).elements())[:10]
        extra = sorted((got - want).elements())[:10]
        fail(f"codes: {len(ids)} decoded for {len(expected)} specimens; missing {missing}, extra {extra}")
    print(f"QR sheet: {len(ids)} codes decoded from {pages} pages, every specimen of the question once")
    records = {s["id"] for text, s in decoded if not text.startswith(base + "/s/")}
    if records != unshortened:
        fail(f"the codes of {sorted(records)} are records; those of {sorted(unshortened)} were due to be")
    followed = sum(follow(base, text, s) for text, s in decoded)
    print(f"QR sheet: every code followed to its specimen's record: {followed} short links "
          f"(301 to the record), {len(decoded) - followed} records (a USI sharing its digits or without any)")

    # The USIs where the service drew them: right-aligned 3 pt from the cell's
    # right edge, baseline 3 pt above its bottom, in the order down each column.
    ascent, descent = font_metrics(body)
    usis = [s["usi"] for s in expected]
    worst = 0.0
    seen = 0
    read = words(pdf, work, "qr")
    if note:
        named = re.findall(r"([^ ,()]+) \(", headers["X-Label-Overflow"].split(": ", 1)[1])
        text = " ".join(t for *_, t in read[-1])
        if not named or any(urllib.parse.unquote_plus(u) not in text for u in named):
            fail(f"the QR sheet's note page does not name {named}: {text[:200]!r}")
    for p, page in enumerate(read[:pages]):
        for x0, y0, x1, y1, text in page:
            # The cell the word lies in, from its box.
            column, row = int((x0 + x1) / 2 // CELL[0]), int((y0 + y1) / 2 // CELL[1])
            at = p * 600 + column * ROWS + row
            if at >= len(usis) or text != usis[at]:
                fail(f"page {p + 1}, column {column}, row {row}: {text!r} where "
                     f"{usis[at] if at < len(usis) else None!r} was due")
            right = (column + 1) * CELL[0] - 3
            size = (y1 - y0) / (ascent - descent)
            baseline = y1 + descent * size
            due = (row + 1) * CELL[1] - 3
            worst = max(worst, abs(x1 - right), abs(baseline - due), abs(size - 3))
            seen += 1
    if seen != len(usis):
        fail(f"{seen} USIs read for {len(usis)} labels")
    if worst > 0.1:
        fail(f"a USI is {worst:.3f} pt from where the service drew it")
    # The codes where the service drew them: a 20 pt square 2 pt in from the
    # cell's top right corner (its drawing: an image mask of W x W modules
    # placed by `a 0 0 a x y cm`, inside a quiet zone of four modules).
    squares = []
    for content in streams(body):
        for m in re.finditer(rb"([\d.]+) 0 0 ([\d.]+) ([\d.]+) ([\d.]+) cm\nBI /W (\d+)", content):
            side, x, y = float(m.group(1)), float(m.group(3)), float(m.group(4))
            module = side / int(m.group(5))
            squares.append((x - 4 * module, y + side + 4 * module))
    if len(squares) != len(expected):
        fail(f"{len(squares)} codes drawn for {len(expected)} labels")
    for at, (left, top) in enumerate(squares):
        column, row = divmod(at % 600, ROWS)
        due_left = (column + 1) * CELL[0] - 2 - 20
        due_top = 792 - row * CELL[1] - 2
        worst = max(worst, abs(left - due_left), abs(top - due_top))
    if worst > 0.1:
        fail(f"a code or USI is {worst:.3f} pt from where the service drew it")
    print(f"QR sheet: USIs and codes within {worst:.4f} pt of the service's geometry")


def overflowing(base, kind):
    """The USIs the preview names as not fitting, with their lines."""
    status, _, body = get(base, f"{LABELS}?{QUESTION}&kind={kind}&qr=true&format=html")
    if status != 200:
        fail(f"the {kind} preview: {status}")
    page = body.decode()
    return {html.unescape(u): lines for u, lines in re.findall(r"<li><code>(.*?)</code>: (.*?)</li>", page)}


def normal(text):
    return " ".join(unicodedata.normalize("NFC", text).split())


def check_lines(base, work, expected, kind):
    status, _, body = get(base, f"{LABELS}?{QUESTION}&kind={kind}&qr=true")
    pdf = os.path.join(work, f"{kind}.pdf")
    open(pdf, "wb").write(body)
    _, _, csv_body = get(base, f"{LABELS}?{QUESTION}&kind={kind}&qr=true&format=csv")
    import csv
    import io
    rows = list(csv.reader(io.StringIO(csv_body.decode())))
    header, rows = rows[0], rows[1:]
    if [r[0] for r in rows] != [s["usi"] for s in expected]:
        fail(f"{kind} CSV: the rows are not the question's specimens in its order")
    over = overflowing(base, kind)
    # The layout of these labels: 34 x 10 mm, 10 mm margins, 1 mm apart, across rows.
    width, height, margin, gap = 34 * MM, 10 * MM, 10 * MM, 1 * MM
    columns = int((612 - 2 * margin + gap) // (width + gap))
    per_page = columns * int((792 - 2 * margin + gap) // (height + gap))
    pages = words(pdf, work, kind)
    by_label = defaultdict(lambda: defaultdict(list))
    for p, page in enumerate(pages):
        for x0, y0, x1, y1, text in page:
            # A word belongs to the label its start lies in.
            column = int((x0 - margin) // (width + gap))
            row = int((y0 - margin) // (height + gap))
            at = p * per_page + row * columns + column
            by_label[at][round(y1, 1)].append((x0, text))
    # The sheet says itself what does not fit: a note page after the labels.
    if over:
        note = " ".join(t for *_, t in pages[-1])
        missing = [u for u in over if u not in note]
        if "fit, even at 3 pt" not in note or missing:
            fail(f"{kind}: the note page does not name {missing[:5]} of {len(over)}: {note[:300]}")
    checked = accented = 0
    for at, row in enumerate(rows):
        usi, lines = row[0], [normal(c) for c in row[1:1 + len(header) - 2] if c.strip()]
        found = [normal(" ".join(t for _, t in sorted(ws))) for _, ws in sorted(by_label[at].items())]
        if usi in over:
            continue
        if found != lines:
            fail(f"{kind} label {usi}: pdftotext reads {found}, the CSV says {lines}")
        checked += 1
        accented += any(any(ord(c) > 127 for c in line) for line in lines)
    if checked == 0 or accented == 0:
        fail(f"{kind}: {checked} labels read, {accented} with accents: the check saw nothing")
    print(f"{kind} labels: the lines of {checked} labels read back in place ({accented} with accents); "
          f"{len(over)} that do not fit named by the preview and the sheet's last page")


def check_nothing(base, work):
    """A question that selects nothing prints a page saying so, not a blank one."""
    status, _, body = get(base, f"{LABELS}?kind=data&family=nothing-of-that-name")
    pdf = os.path.join(work, "nothing.pdf")
    open(pdf, "wb").write(body)
    pages = words(pdf, work, "nothing")
    text = " ".join(t for *_, t in pages[0]) if len(pages) == 1 else ""
    if status != 200 or "No labels: this question selects no specimens." not in text \
            or "family=nothing-of-that-name" not in text:
        fail(f"a question selecting nothing: {status}, {len(pages)} pages reading {text!r}")
    print(f"no specimens: one page reading {text[:60]!r}...")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--specimens", type=int, default=2500)
    args = parser.parse_args()
    for tool in ("pdftoppm", "pdftotext", "zbarimg"):
        if not shutil.which(tool):
            fail(f"{tool} is missing (poppler-utils, zbar-tools)")
    work = tempfile.mkdtemp(prefix="labels-check-")
    fixture, snapshot = os.path.join(work, "c.json"), os.path.join(work, "c.bin")
    subprocess.run([args.bin, "generate", "--specimens", str(args.specimens), "--seed", "11", "-o", fixture],
                   check=True, capture_output=True)
    unshortened = without_short_links(fixture)
    subprocess.run([args.bin, "build", fixture, "-o", snapshot], check=True, capture_output=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([args.bin, "serve", "--snapshot", snapshot, "--addr", f"127.0.0.1:{port}",
                               "--no-watch", "--drain", "0"], stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                get(base, "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        _, _, body = get(base, f"/api/v2/specimen-records/?{QUESTION}&limit=100000&fields=id,usi")
        expected = json.loads(body)["items"]
        if len(expected) <= 600:
            fail(f"the question selects {len(expected)} specimens: too few for two pages")
        check_qr_sheet(base, work, expected, unshortened)
        for kind in ("data", "determination"):
            check_lines(base, work, expected, kind)
        check_nothing(base, work)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
