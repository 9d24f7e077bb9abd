#!/usr/bin/env python3
"""The pages in a real browser: headless Chromium (Debian's chromium and
chromium-driver) driven by Selenium, against catalogue serving a generated
collection into which hostile values were written.

It opens `/`, follows a list, pages forward, submits the label form with a family
fragment and checks the total against the JSON answer; opens the bare list address
and submits the form with one field filled (a text field, a select, a number
field) and the rest left empty; follows "Print labels" to the sheet's preview and
PDF; opens a record, opens the
map and counts its markers against the GeoJSON answer, opens the API docs; on
every page it asserts that the browser logged no error (a Content-Security-Policy
violation is one), that no script from the data ran, and that no request left the
origin. The naturalist's pages: a specimen with its photographs, a species with
its gallery and season charts, a country with its map, the specimen list, each
at 1280 px and at 390 px (a phone) without the page scrolling sideways; every
image either loads or shows its alt text (one image's files are left out on
purpose), and the basemap draws land under a marker placed in Kansas. A
photographed specimen's page draws its tiles in the deep-zoom viewer, and
Mirador (npm's `mirador`, its `dist/mirador.min.js` given by --mirador) on a
page of another origin opens the specimen's manifest and loads its tiles.
Screenshots are written to --screenshots.

    python3 tests/browser/browser.py --bin target/release/catalogue --screenshots DIR \
        [--mirador mirador.min.js]
"""

import argparse
import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from PIL import Image, ImageDraw

from selenium import webdriver
from selenium.common.exceptions import (
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

# Values that would run script if a page wrote them as markup. Each, if it ran,
# sets window.__ran (or asks for /ran-*, which the network log would show).
HOSTILE = {
    "notes": '<script>window.__ran = "notes"</script><img src="/ran-notes" onerror="window.__ran=\'img\'">',
    "habitat": '<p>Under <i>bark</i></p><svg onload="window.__ran=\'svg\'"></svg>',
    "weather": "\"'><script>window.__ran='attr'</script>",
    "method": "javascript:window.__ran='url'",
}
HOSTILE_LOCALITY = '<b onmouseover="window.__ran=\'locality\'">Bad "locality" & co</b>'
HOSTILE_PERSON = "O'Brien<script>window.__ran='person'</script>"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def fetch_json(url):
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "application/json"})) as r:
        return json.load(r)


# A GPS point in Kansas, far from any coast or border: the basemap's land must be
# under its marker.
KANSAS = ("38.500000", "-98.500000")
# Land as the basemap fills it (map.js), and how far a pixel may be from it.
LAND = (0xE4, 0xDC, 0xC4)


def media_files(records, media):
    """Image files for the collection's images and renditions (a coloured plate
    with a drawn insect), all but the last specimen photograph's: its specimen's
    page must show its alt text. Returns that specimen's id."""
    images = [r for r in records if r["model"] == "images.customimage"]
    lost = [r for r in images if r["fields"].get("specimen_record")][-1]
    missing = lost["pk"]
    files = [(r["fields"]["file"], r["fields"]["width"], r["fields"]["height"], r["pk"]) for r in images]
    files += [(r["fields"]["file"], r["fields"]["width"], r["fields"]["height"], r["fields"]["image"])
              for r in records if r["model"] == "images.customrendition"]
    for path, width, height, image in files:
        if image == missing:
            continue
        width, height = max(8, min(width, 1200)), max(8, min(height, 1200))
        plate = Image.new("RGB", (width, height), (90 + image * 37 % 120, 120 + image * 53 % 100, 110))
        draw = ImageDraw.Draw(plate)
        w, h = width, height
        draw.ellipse((w * .2, h * .25, w * .5, h * .75), fill=(200, 120, 30))
        draw.ellipse((w * .5, h * .25, w * .8, h * .75), fill=(200, 120, 30))
        draw.rectangle((w * .48, h * .2, w * .52, h * .8), fill=(30, 20, 10))
        target = os.path.join(media, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        plate.save(target, quality=70)
    return lost["fields"]["specimen_record"]


def hostile_collection(binary, work):
    """A generated collection with hostile values in text fields, as a snapshot,
    and its media files."""
    fixture = os.path.join(work, "collection.json")
    subprocess.run([binary, "generate", "--specimens", "400", "-o", fixture], check=True,
                   stdout=subprocess.DEVNULL)
    with open(fixture) as f:
        records = json.load(f)
    specimens = [r for r in records if r["model"] == "specimens.specimenrecord"]
    for record in specimens[:5]:
        record["fields"].update(HOSTILE)
    next(r for r in records if r["model"] == "geography.locality")["fields"]["name"] = HOSTILE_LOCALITY
    next(r for r in records if r["model"] == "specimens.person")["fields"]["last_name"] = HOSTILE_PERSON
    # A live-insect photograph of a species that has specimens, for its gallery.
    identified = next(r for r in specimens if r["fields"].get("species"))
    insect = next(r for r in records if r["model"] == "images.customimage" and r["fields"]["image_type"] == "insect")
    insect["fields"]["species"] = identified["fields"]["species"]
    # A genus a person types with a typo, for the search box's suggestions.
    next(r for r in records if r["model"] == "taxonomy.genus")["fields"]["name"] = "Danaus"
    gps = next(r for r in records if r["model"] == "geography.gps")
    gps["fields"]["latitude"], gps["fields"]["longitude"] = KANSAS
    missing = media_files(records, os.path.join(work, "media"))
    with open(fixture, "w") as f:
        json.dump(records, f)
    snapshot = os.path.join(work, "collection.bin")
    subprocess.run([binary, "build", fixture, "-o", snapshot], check=True, stdout=subprocess.DEVNULL)
    return snapshot, missing


def gone(element):
    """Whether `element` left the document. Chrome says so as a stale
    element, or, asked while the next page replaces it, as an inspector
    error that the node "does not belong to the document"."""
    try:
        element.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as e:
        if "does not belong to the document" in str(e):
            return True
        raise


class Browser:
    def __init__(self, base, shots, mirador=None):
        self.base, self.shots, self.failures = base, shots, []
        self.mirador = mirador
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-quic", "--no-first-run", "--window-size=1280,900",
                    f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-')}"]:
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
        self.driver = webdriver.Chrome(service=Service(driver), options=options)
        self.wait = WebDriverWait(self.driver, 20)

    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.failures.append(what)

    def open(self, path):
        self.driver.get(self.base + path)
        self.settle()

    def navigated(self, arrived):
        """Waits (up to the wait's 20 s) for the address to be one `arrived`
        takes; gives up silently, for the caller's check to say."""
        try:
            self.wait.until(lambda d: arrived(d.current_url))
        except TimeoutException:
            pass

    def follow(self, element):
        """Clicks `element`, which leaves the page, and waits for the next one
        to load: `settle` alone may see the old page still complete."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        element.click()
        self.wait.until(lambda d: gone(old))
        self.settle()

    def settle(self):
        self.wait.until(lambda d: d.execute_script("return document.readyState") == "complete")

    def shot(self, name, full_width=None):
        if self.shots:
            if full_width:
                self.driver.set_window_size(full_width, 900)
            self.driver.save_screenshot(os.path.join(self.shots, name))
            if full_width:
                self.driver.set_window_size(1280, 900)

    def clean_page(self, what, status=200, missing_media=False):
        """No error logged, no script from the data ran, no request off the origin.
        A page answered with an error `status` may log that status, nothing else;
        one showing a photograph whose file is missing (`missing_media`), its 404."""
        own = f"{self.driver.current_url} - Failed to load resource: the server responded with a status of {status}"
        # A photograph whose file is missing is 404 under /media/, and so is
        # its specimen's IIIF manifest when it was its only one.
        lost = (f"{self.base}/media/", f"{self.base}/iiif/")
        errors = [e["message"] for e in self.driver.get_log("browser")
                  if e["level"] == "SEVERE" and not (status != 200 and e["message"].startswith(own))
                  and not (missing_media and e["message"].startswith(lost) and "status of 404" in e["message"])]
        self.check(not errors, f"{what}: no console errors {errors if errors else ''}")
        ran = self.driver.execute_script("return window.__ran === undefined ? null : String(window.__ran)")
        self.check(ran is None, f"{what}: no script from the data ran{'' if ran is None else ' (' + ran + ' did)'}")
        urls = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        # The browser's own pages (chrome://, the first tab) are not the page's.
        web = [u for u in urls if u.split(":", 1)[0] in ("http", "https", "ws", "wss")]
        away = [u for u in web if not u.startswith(self.base + "/")]
        self.check(not away, f"{what}: {len(web)} requests, none off the origin {away if away else ''}")
        ran_requests = [u for u in urls if "/ran-" in u]
        self.check(not ran_requests, f"{what}: no request made by the data's markup {ran_requests or ''}")

    def text(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css).text


def find_as_one_types(b, base):
    """The front page's search box: `danus` typed suggests the genus Danaus;
    arrows reach it, Enter opens its page; Escape closes the list; at a phone's
    width too. Without a choice, Enter searches the specimen list."""
    d = b.driver
    for width in (390, 1280):
        d.set_window_size(width, 900)
        b.open("/")
        box = d.find_element(By.ID, "find")
        box.send_keys("danus")
        options = "#find-options li[role=option]"
        b.wait.until(lambda d: any("Danaus" in o.text for o in d.find_elements(By.CSS_SELECTOR, options)))
        b.check(box.get_attribute("aria-expanded") == "true", f"search box ({width} px): the list is open")
        wide = d.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
        b.check(not wide, f"search box ({width} px): no sideways scrolling with the list open")
        b.shot(f"front-suggest-{width}.png")
        labels = [o.find_element(By.TAG_NAME, "span").text for o in d.find_elements(By.CSS_SELECTOR, options)]
        b.check("Danaus" in labels, f"search box: Danaus suggested for danus ({labels})")
        for _ in range(labels.index("Danaus") + 1 if "Danaus" in labels else 1):
            box.send_keys(Keys.ARROW_DOWN)
        active = box.get_attribute("aria-activedescendant")
        chosen = d.find_element(By.ID, active) if active else None
        b.check(chosen is not None and chosen.get_attribute("aria-selected") == "true"
                and chosen.find_element(By.TAG_NAME, "span").text == "Danaus",
                "search box: the arrows choose Danaus")
        if width == 390:
            box.send_keys(Keys.ESCAPE)
            b.check(not d.find_element(By.ID, "find-options").is_displayed(), "search box: Escape closes the list")
            continue
        box.send_keys(Keys.ENTER)
        b.wait.until(lambda d: "/api/v2/genera/" in d.current_url)
        b.settle()
        b.check("Danaus" in b.text("h1"), f"search box: Enter opens the genus's page ({d.current_url})")
        b.clean_page("search box and the page it opened")
    # Without a choice, Enter submits the form: a search of the specimen list.
    b.open("/")
    box = d.find_element(By.ID, "find")
    box.send_keys("idae")
    box.send_keys(Keys.ENTER)
    b.wait.until(lambda d: "search=idae" in d.current_url)
    b.check("/api/v2/specimen-records/?search=idae" in d.current_url, f"search box: Enter searches ({d.current_url})")


def run(b, base, missing):
    d = b.driver
    # The front page, then a list from it.
    b.open("/")
    b.check(b.text("h1") == "The collection", "front page: heading")
    b.clean_page("front page")
    # The keyboard: the first Tab reaches the skip link, which moves to the content.
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = d.switch_to.active_element
    b.check(focused.get_attribute("class") == "skip" and focused.is_displayed(), "keyboard: Tab reaches the skip link")
    focused.send_keys(Keys.ENTER)
    b.check(d.switch_to.active_element.get_attribute("id") == "content", "keyboard: the skip link moves to the content")
    find_as_one_types(b, base)
    b.open("/")
    b.follow(d.find_element(By.LINK_TEXT, "specimen-records"))
    b.check(d.current_url == base + "/api/v2/specimen-records/", f"front page links the list ({d.current_url})")
    total = fetch_json(base + "/api/v2/specimen-records/?limit=0")["meta"]["total_count"]
    b.check(b.text(".summary strong") == str(total), f"list: total {total} shown")
    b.check(len(d.find_elements(By.CSS_SELECTOR, "tbody tr")) == 20, "list: 20 rows")
    b.wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-markers") is not None)
    b.shot("specimen-records.png", full_width=1600)
    b.clean_page("specimen list")

    # Page forward, by the link a keyboard user reaches too.
    b.follow(d.find_element(By.CSS_SELECTOR, "a[rel=next]"))
    summary = " ".join(b.text(".summary").split())
    b.check("showing 21–40" in summary, f"next page: {summary}")
    json_ids = [i["id"] for i in fetch_json(base + "/api/v2/specimen-records/?offset=20&limit=20")["items"]]
    page_ids = [int(a.text) for a in d.find_elements(By.CSS_SELECTOR, "tbody tr td:first-child a")]
    b.check(page_ids == json_ids, "next page: the same records as the JSON answer")
    b.clean_page("second page")

    # The label form: a family fragment, submitted; the total against JSON.
    d.find_element(By.XPATH, "//summary[normalize-space()='Taxon']").click()
    field = d.find_element(By.ID, "f-family")
    field.clear()
    field.send_keys("idae")
    d.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
    # The old page stays complete until the new one starts: wait for the
    # address the form goes to (the check below says if it never comes).
    b.navigated(lambda url: "family=idae" in url)
    b.settle()
    want = fetch_json(base + "/api/v2/specimen-records/?family=idae&limit=0")["meta"]["total_count"]
    b.check("family=idae" in d.current_url, f"form: GET to a shareable address ({d.current_url})")
    b.check(b.text(".summary strong") == str(want), f"form: total {b.text('.summary strong')} = JSON's {want}")
    chips = b.text(".chips")
    b.check("family" in chips and "idae" in chips, "form: the filter is shown, removable")
    # A facet count is a link that adds its filter; the count is the total it gives.
    facet = d.find_element(By.CSS_SELECTOR, ".facets li a")
    count = facet.find_element(By.XPATH, "following-sibling::span").text
    b.follow(facet)
    b.check(b.text(".summary strong") == count, f"facet link: total {b.text('.summary strong')} = count {count}")
    b.clean_page("label form")

    # The form as a person meets it: opened at the bare list address, one field
    # filled, the rest left empty, submitted (empty fields are no filter and no
    # limit: the "limit must be a positive integer" came from them).
    first = fetch_json(base + "/api/v2/specimen-records/?limit=1&year=2019")["items"]
    year = first[0]["year"] if first else fetch_json(base + "/api/v2/specimen-records/?limit=1")["items"][0]["year"]
    for what, group, control, value, query in [
        ("text field", "Taxon", "f-family", "idae", "family=idae"),
        ("select", None, "f-sex", "female", "sex=female"),
        ("number field", None, "f-year", str(year), f"year={year}"),
    ]:
        b.open("/api/v2/specimen-records/")
        element = d.find_element(By.ID, control)
        if not element.is_displayed():
            # Its group is folded: open the details around it.
            d.execute_script("arguments[0].closest('details').open = true", element)
        if element.tag_name == "select":
            element.find_element(By.CSS_SELECTOR, f"option[value='{value}']").click()
        else:
            element.clear()
            element.send_keys(value)
        b.follow(d.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]"))
        want = fetch_json(base + f"/api/v2/specimen-records/?{query}&limit=0")["meta"]["total_count"]
        errors = d.find_elements(By.CSS_SELECTOR, "p.error")
        b.check(not errors, f"bare form, {what}: no error ({errors[0].text if errors else ''})")
        b.check(b.text(".summary strong") == str(want), f"bare form, {what}: total {b.text('.summary strong')} = JSON's {want}")
        b.clean_page(f"bare form, {what}")

    # Print labels, beside the counts: the preview of the question just asked,
    # then its PDF.
    preview = d.find_element(By.CSS_SELECTOR, "nav.print a[href*='format=html']")
    b.check(f"year={year}" in preview.get_attribute("href"), "print labels: the links carry the question")
    pdf_href = d.find_element(By.LINK_TEXT, "QR sheet").get_attribute("href")
    b.follow(preview)
    b.check(b.text("h1") == "Label sheet: data labels", f"preview: heading ({b.text('h1')})")
    b.check(len(d.find_elements(By.CSS_SELECTOR, "figure.sheet svg")) == 1, "preview: the first page drawn")
    cells = len(d.find_elements(By.CSS_SELECTOR, "figure.sheet svg text"))
    b.check(cells > 0, f"preview: {cells} lines of labels")
    b.shot("labels-preview.png", full_width=1280)
    b.shot("labels-preview-phone.png", full_width=390)
    b.clean_page("label preview")
    with urllib.request.urlopen(pdf_href) as r:
        b.check(r.headers["Content-Type"] == "application/pdf" and r.read(5) == b"%PDF-", "print labels: the QR sheet is a PDF")

    # A refused value is shown with the form, not as bare JSON.
    b.open("/api/v2/specimen-records/?year=soon")
    b.check("year must be an integer" in b.text(".error"), "form: a bad value's message is shown")
    b.clean_page("refused form", status=400)

    # A record: one with hostile values, through its link.
    b.open("/api/v2/specimen-records/?notes=window.__ran")
    b.follow(d.find_element(By.CSS_SELECTOR, "tbody tr td:first-child a"))
    record = fetch_json(d.current_url + "?format=json")
    b.check(b.text("h1") == record["usi"], f"record: heading is its usi ({b.text('h1')})")
    page = d.page_source
    b.check("<script>window.__ran" not in page and "onerror" not in page, "record: no hostile markup in the page")
    b.check(HOSTILE["weather"] in d.find_element(By.CSS_SELECTOR, "dl.fields").get_attribute("textContent"),
            "record: hostile plain text shown as text")
    b.check(b.text("p.event") != "", f"record: the collecting event in a line ({b.text('p.event')})")
    links = [a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "dl.fields a")]
    b.check(any("/api/v2/families/" in h for h in links), "record: links to related records")
    b.check(not any(h.lower().startswith("javascript:") for h in links), "record: no javascript: link")
    b.shot("specimen-record.png")
    b.clean_page("record")

    # A checklist of a question: its rows are the JSON checklist's, and a row's
    # link is the specimen list of that taxon.
    b.open("/api/v2/specimen-records/checklist/?country=a")
    checklist = fetch_json(base + "/api/v2/specimen-records/checklist/?country=a&format=json")
    rows = d.find_elements(By.CSS_SELECTOR, "table.checklist tbody tr")
    b.check(len(rows) == len(checklist["items"]) > 0, f"checklist: {len(rows)} rows = {len(checklist['items'])} taxa")
    names = [r.find_element(By.CSS_SELECTOR, "th a").text for r in rows]
    b.check(names == [t["scientific_name"] for t in checklist["items"]], "checklist: the taxa in the JSON's order")
    b.shot("checklist.png")
    b.clean_page("checklist")
    b.follow(rows[0].find_element(By.CSS_SELECTOR, "th a"))
    listed = fetch_json(d.current_url + "&format=json&limit=0")["meta"]["total_count"]
    first = checklist["items"][0]
    b.check(listed == first["specimens"], f"checklist: {first['scientific_name']}'s link lists its {listed} specimens")

    # The map: every located record of the list, clustered.
    b.open("/api/v2/gps-coordinates/")
    b.wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-markers") is not None)
    geo = fetch_json(base + "/api/v2/gps-coordinates/?format=geojson&limit=100000")
    markers = int(d.find_element(By.ID, "map").get_attribute("data-markers"))
    b.check(markers == len(geo["features"]) > 0, f"map: {markers} markers = {len(geo['features'])} features")
    icons = d.find_elements(By.CSS_SELECTOR, "#map .leaflet-marker-icon")
    clusters = d.find_elements(By.CSS_SELECTOR, "#map .marker-cluster")
    b.check(len(icons) > 0, f"map: {len(icons)} icons drawn ({len(clusters)} clusters)")
    b.shot("map.png")
    b.clean_page("map")

    # The API docs viewer, on the served document.
    b.open("/api/v2/docs")
    b.wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".swagger-ui .info .title")))
    b.check("catalogue" in b.text(".swagger-ui .info .title").lower(), "docs: the document's title")
    # Swagger UI draws only the operations in view: the page is scrolled a
    # window at a time to its end, and every operation must have been drawn.
    document = fetch_json(base + "/api/v2/openapi.json")
    expected = sum(1 for item in document["paths"].values() for method in item
                   if method in ("get", "put", "post", "delete", "options", "head", "patch", "trace"))
    drawn = set()
    for _ in range(1000):
        time.sleep(0.1)
        drawn.update(e.get_attribute("id") for e in d.find_elements(By.CSS_SELECTOR, ".opblock"))
        if d.execute_script("var before = window.scrollY; window.scrollBy(0, window.innerHeight / 2);"
                            " return window.scrollY === before"):
            break
    b.check(len(drawn) == expected > 25, f"docs: the operations are listed ({len(drawn)} of {expected})")
    d.execute_script("window.scrollTo(0, 0)")
    b.shot("docs.png")
    b.clean_page("docs")

    naturalist_pages(b, base, missing)
    quality_page(b, base)

    # Narrow screens: no horizontal scroll of the page itself (tables scroll inside).
    d.set_window_size(320, 800)
    b.open("/api/v2/specimen-records/?limit=5")
    width = d.execute_script("return document.documentElement.scrollWidth")
    inner = d.execute_script("return window.innerWidth")
    b.check(width <= inner, f"320 px: the page is {width} px wide in a {inner} px window")
    b.shot("narrow.png")
    b.clean_page("narrow")


def images_load_or_say(b, what):
    """Every image on the page loaded, or has alt text to show in its place."""
    d = b.driver
    d.execute_script("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    b.wait.until(lambda d: d.execute_script("return [...document.images].every(i => i.complete)"))
    states = d.execute_script(
        "return [...document.images].map(i => [i.currentSrc || i.src, i.naturalWidth > 0, i.alt])")
    loaded = [s for s in states if s[1]]
    shown_alt = [s for s in states if not s[1] and s[2].strip()]
    broken = [s[0] for s in states if not s[1] and not s[2].strip()]
    b.check(states and not broken,
            f"{what}: {len(loaded)} images loaded, {len(shown_alt)} show their alt text, none broken {broken or ''}")
    return loaded, shown_alt


def fits(b, what):
    """The page does not scroll sideways at this window's width."""
    width = b.driver.execute_script("return document.documentElement.scrollWidth")
    inner = b.driver.execute_script("return window.innerWidth")
    b.check(width <= inner, f"{what}: the page is {width} px wide in a {inner} px window")


def both_widths(b, path, name, wait=None):
    """Opens `path` at 1280 and at 390 px: no sideways scrolling, a screenshot of each."""
    for width in (1280, 390):
        b.driver.set_window_size(width, 900)
        b.open(path)
        if wait:
            wait()
        fits(b, f"{name} at {width} px")
        b.driver.save_screenshot(os.path.join(b.shots, f"{name}-{width}.png")) if b.shots else None
    b.driver.set_window_size(1280, 900)


def quality_page(b, base):
    """/quality/: a row per flag, each count linking its records (the list the
    link opens has that many), and the map of the points not where their records
    say, drawn over the basemap; at a laptop's width and a phone's."""
    d = b.driver
    report = fetch_json(base + "/api/v2/quality/")
    drawn = lambda: b.wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-markers") is not None)
    both_widths(b, "/quality/", "quality", wait=drawn)
    rows = d.find_elements(By.CSS_SELECTOR, "table.quality tbody tr")
    b.check(len(rows) == len(report["flags"]) == 17, f"quality: a row per flag ({len(rows)})")
    markers = int(d.find_element(By.ID, "map").get_attribute("data-markers") or 0)
    b.check(markers > 0 and markers % 3 == 0, f"quality: the map draws points, stated places and lines ({markers})")
    b.clean_page("quality")
    held = [f for f in report["flags"] if f["count"] > 0]
    b.check(len(held) > 0, f"quality: the generated collection has flags ({len(held)})")
    flag = held[0]
    link = d.find_element(By.CSS_SELECTOR, f"tr[id='{flag['name']}'] a")
    b.check(link.text == str(flag["count"]), f"quality: {flag['name']} shows its count ({link.text})")
    link.click()
    b.wait.until(lambda d: "issue=" + flag["name"] in d.current_url)
    b.settle()
    listed = fetch_json(base + flag["records"] + "&limit=0")["meta"]["total_count"]
    b.check(listed == flag["count"], f"quality: the link lists the {flag['count']} records ({listed})")
    # A flagged specimen's page names its flags.
    first = fetch_json(base + flag["records"] + "&limit=1")["items"][0]
    b.open(f"/api/v2/specimen-records/{first['id']}/")
    names = [e.text for e in d.find_elements(By.CSS_SELECTOR, "ul.flags code")]
    b.check(flag["name"] in names, f"quality: specimen {first['id']}'s page lists {flag['name']} ({names})")


def naturalist_pages(b, base, missing):
    d = b.driver
    # A specimen with photographs: the images that record it.
    own = [i for i in fetch_json(base + "/api/v2/specimen-record-images/?limit=1000")["items"] if i.get("usi")]
    b.check(len(own) > 0, f"specimen photographs: {len(own)} in the collection")
    specimen = own[0]["usi"]
    both_widths(b, f"/api/v2/specimen-records/{specimen}/", "specimen")
    b.check(len(d.find_elements(By.CSS_SELECTOR, "section.gallery figure img")) > 0, "specimen: its photographs shown")
    b.check(d.find_elements(By.CSS_SELECTOR, ".card .identified i, .card p.identified") != [], "specimen: the taxon by name")
    loaded, _ = images_load_or_say(b, "specimen")
    b.check(len(loaded) > 0, "specimen: a photograph loaded")
    full = d.find_element(By.CSS_SELECTOR, "section.gallery figure a").get_attribute("href")
    with urllib.request.urlopen(full) as r:
        b.check(r.headers["Content-Type"].startswith("image/"), f"specimen: the full-size file is an image ({full})")
    b.clean_page("specimen page")

    # A species with its gallery and its seasons.
    # The species of most specimens among those with live-insect photographs.
    with_photos = {i["species"] for i in fetch_json(base + "/api/v2/insect-images/?limit=1000")["items"]
                   if i.get("species")}
    b.check(len(with_photos) > 0, f"species with photographs: {len(with_photos)}")
    counted = fetch_json(base + "/api/v2/specimen-records/checklist/?format=json")["items"]
    found = {s["binomial"]: s["id"] for s in fetch_json(base + "/api/v2/species/?limit=1000")["items"]}
    ranked = [found[t["scientific_name"]] for t in sorted(counted, key=lambda t: -t["specimens"])
              if t["scientific_name"] in found]
    pick = next((s for s in ranked if s in with_photos), ranked[0])
    both_widths(b, f"/api/v2/species/{pick}/", "species",
                wait=lambda: b.wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-markers") is not None))
    bars = d.find_elements(By.CSS_SELECTOR, "svg.bars[data-chart=month] rect")
    b.check(len(bars) == 12, f"species: a bar per month ({len(bars)})")
    count = int(b.text("p.count strong"))
    b.check(sum(int(r.get_attribute("data-count")) for r in bars) <= count, "species: the months add up to no more than its specimens")
    images_load_or_say(b, "species")
    b.clean_page("species page")

    # The list at both widths, its seasons below.
    both_widths(b, "/api/v2/specimen-records/", "specimen-list",
                wait=lambda: b.wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-markers") is not None))
    b.check(len(d.find_elements(By.CSS_SELECTOR, "svg.bars[data-chart=year] a")) > 0, "list: the seasons, each bar a link")
    b.clean_page("specimen list at two widths")
    # At a phone's screen (390 x 844): the filters folded, the first record
    # on the first screen, as a card; a tap unfolds the filters.
    d.set_window_size(390, 844)
    b.open("/api/v2/specimen-records/")
    side = d.find_element(By.CSS_SELECTOR, "details.side")
    b.check(side.get_attribute("open") is None, "list at 390 px: the filters folded")
    top = d.execute_script("return document.querySelector('table.records tbody tr').getBoundingClientRect().top")
    inner = d.execute_script("return window.innerHeight")
    b.check(top < inner - 100, f"list at 390 px: the first record {top} px down a {inner} px screen")
    label = d.execute_script("return getComputedStyle(document.querySelector('table.records td'), '::before').content")
    b.check(label == '"Id"', f"list at 390 px: each value labelled ({label})")
    fits(b, "list at 390 px")
    d.save_screenshot(os.path.join(b.shots, "specimen-list-phone.png")) if b.shots else None
    side.find_element(By.TAG_NAME, "summary").click()
    b.check(side.get_attribute("open") is not None, "list at 390 px: a tap unfolds the filters")
    d.set_window_size(1280, 900)
    b.open("/api/v2/specimen-records/")
    b.check(d.find_element(By.CSS_SELECTOR, "details.side").get_attribute("open") is not None,
            "list at 1280 px: the filters open")

    # A country and its map.
    country = fetch_json(base + "/api/v2/countries/?limit=1")["items"][0]["id"]
    both_widths(b, f"/api/v2/countries/{country}/", "country",
                wait=lambda: b.wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-basemap-drawn") is not None))
    b.check(d.find_element(By.ID, "map").get_attribute("data-basemap-drawn") == "true", "country: the basemap drawn")
    # Zoomed out to the whole world: the land that crosses 180° (Fiji,
    # Chukotka) drawn each side of it, no line across the world (a picture).
    out = d.find_element(By.CSS_SELECTOR, "#map .leaflet-control-zoom-out")
    for _ in range(6):
        if "leaflet-disabled" not in (out.get_attribute("class") or ""):
            out.click()
            time.sleep(0.3)
    d.execute_script("document.getElementById('map').scrollIntoView()")
    time.sleep(0.5)
    d.save_screenshot(os.path.join(b.shots, "world-1280.png")) if b.shots else None
    b.clean_page("country page")

    # The basemap draws land under a marker in Kansas: the marker hidden, the
    # pixel at its point is land's colour.
    kansas = next(g for g in fetch_json(base + "/api/v2/gps-coordinates/?limit=100000")["items"]
                  if (g["latitude"], g["longitude"]) == KANSAS)
    b.open(f"/api/v2/gps-coordinates/{kansas['id']}/")
    b.wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-basemap-drawn") is not None)
    time.sleep(0.5)
    marker = d.find_element(By.CSS_SELECTOR, "#map .leaflet-marker-icon")
    # The icon's tip is its point: the middle of its bottom edge.
    x, y = d.execute_script(
        "const r = arguments[0].getBoundingClientRect(); document.querySelector('.leaflet-marker-pane').style.visibility = 'hidden';"
        "document.querySelector('.leaflet-shadow-pane').style.visibility = 'hidden';"
        "return [r.left + r.width / 2, r.bottom];", marker)
    shot = os.path.join(tempfile.mkdtemp(), "kansas.png")
    d.save_screenshot(shot)
    ratio = d.execute_script("return window.devicePixelRatio")
    pixel = Image.open(shot).convert("RGB").getpixel((int(x * ratio), int(y * ratio) - 2))
    near = all(abs(a - c) <= 12 for a, c in zip(pixel, LAND))
    b.check(near, f"basemap: land's colour {LAND} under the Kansas marker ({pixel})")
    if b.shots:
        shutil.copy(shot, os.path.join(b.shots, "basemap-kansas.png"))
    b.clean_page("gps page")

    # The photograph whose files are missing: its specimen's page shows its alt text.
    b.open(f"/api/v2/specimen-records/{missing}/")
    _, shown_alt = images_load_or_say(b, "a photograph without its files")
    b.check(len(shown_alt) > 0, f"a photograph without its files: {len(shown_alt)} show their alt text")
    b.clean_page("a photograph without its files", missing_media=True)

    # A photographed specimen's page draws its photographs' tiles in the
    # deep-zoom viewer, from the IIIF image services of its manifest.
    collection = fetch_json(base + fetch_json(base + "/")["iiif"])
    while collection["type"] == "Collection":
        collection = fetch_json(collection["items"][0]["id"])
    specimen = collection["seeAlso"][0]["id"].rstrip("/").rsplit("/", 1)[-1]
    b.open(f"/api/v2/specimen-records/{specimen}/")
    try:
        b.wait.until(lambda d: d.execute_script(
            "var z = document.getElementById('zoom'); return z && z.getAttribute('data-tiles-loaded');"))
    except TimeoutException:
        pass
    loaded = b.driver.execute_script("return document.getElementById('zoom').getAttribute('data-tiles-loaded')")
    b.check(loaded == "true", f"the deep-zoom viewer draws tiles of specimen {specimen}'s photographs ({loaded})")
    b.shot("zoom.png")
    b.clean_page("the deep-zoom viewer")
    if b.mirador:
        mirador(b, f"{base}/iiif/manifests/{specimen}")
    else:
        print("skip Mirador: no --mirador given")


MIRADOR_PAGE = """<!doctype html><meta charset="utf-8"><title>Mirador</title><link rel="icon" href="data:,">
<div id="viewer" style="position:absolute;inset:0"></div>
<script src="mirador.min.js"></script>
<script>Mirador.viewer({id: "viewer", windows: [{manifestId: %s}]});</script>
"""


def mirador(b, manifest):
    """Mirador, from npm, on a page of another origin (its own loopback port),
    opens a specimen's manifest: its image service's tiles load, and no
    request fails (a refused CORS request is a failed one)."""
    site = tempfile.mkdtemp(prefix="mirador-")
    shutil.copy(b.mirador, os.path.join(site, "mirador.min.js"))
    with open(os.path.join(site, "index.html"), "w") as f:
        f.write(MIRADOR_PAGE % json.dumps(manifest))
    handler = functools.partial(QuietHandler, directory=site)
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    d = b.driver
    d.get_log("performance")
    d.get_log("browser")
    try:
        d.get(f"http://127.0.0.1:{other.server_address[1]}/index.html")
        b.settle()
        sent, answered, failed = {}, {}, []

        def tiles_loaded(_):
            for entry in d.get_log("performance"):
                m = json.loads(entry["message"])["message"]
                p = m.get("params", {})
                if m["method"] == "Network.requestWillBeSent":
                    sent[p["requestId"]] = p["request"]["url"]
                elif m["method"] == "Network.responseReceived":
                    answered[p["requestId"]] = p["response"]["status"]
                elif m["method"] == "Network.loadingFailed":
                    failed.append((p["requestId"], p.get("errorText")))
            tiles = [r for r, u in sent.items() if u.startswith(b.base + "/iiif/") and u.endswith("/default.jpg")]
            return len([r for r in tiles if answered.get(r) == 200]) >= 4

        try:
            WebDriverWait(d, 30).until(tiles_loaded)
        except TimeoutException:
            pass
        tiles = [u for r, u in sent.items()
                 if u.startswith(b.base + "/iiif/") and u.endswith("/default.jpg") and answered.get(r) == 200]
        b.check(len(tiles) >= 4, f"Mirador: the manifest's tiles load from another origin ({len(tiles)})")
        bad = [(sent.get(r), s) for r, s in answered.items() if s >= 400]
        bad += [(sent.get(r), why) for r, why in failed]
        b.check(not bad, f"Mirador: {len(sent)} requests, none failed {bad if bad else ''}")
        # Mirador's own warnings (React's) are its; an error that names the
        # server (a refused CORS request, a bad answer) is ours.
        errors = [e["message"] for e in d.get_log("browser")
                  if e["level"] == "SEVERE" and b.base in e["message"]]
        b.check(not errors, f"Mirador: no console error about the server {errors if errors else ''}")
        b.shot("mirador.png")
    finally:
        other.shutdown()
        shutil.rmtree(site, ignore_errors=True)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="target/release/catalogue")
    ap.add_argument("--screenshots", help="directory to write screenshots to")
    ap.add_argument("--mirador", help="Mirador's mirador.min.js (npm's mirador, dist/)")
    a = ap.parse_args()
    if a.screenshots:
        os.makedirs(a.screenshots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="catalogue-browser-")
    snapshot, missing = hostile_collection(a.bin, work)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([a.bin, "serve", "--snapshot", snapshot, "--addr", f"127.0.0.1:{port}",
                               "--no-watch", "--drain", "0", "--media-dir", os.path.join(work, "media")],
                              stderr=subprocess.DEVNULL)
    browser = None
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        browser = Browser(base, a.screenshots, a.mirador)
        run(browser, base, missing)
    finally:
        if browser:
            browser.driver.quit()
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    if browser.failures:
        print(f"{len(browser.failures)} browser checks failed")
        sys.exit(1)
    print("browser checks passed")


if __name__ == "__main__":
    main()
