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
origin. Screenshots are written to --screenshots.

    python3 tests/browser/browser.py --bin target/release/catalogue --screenshots DIR
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
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


def hostile_collection(binary, work):
    """A generated collection with hostile values in text fields, as a snapshot."""
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
    with open(fixture, "w") as f:
        json.dump(records, f)
    snapshot = os.path.join(work, "collection.bin")
    subprocess.run([binary, "build", fixture, "-o", snapshot], check=True, stdout=subprocess.DEVNULL)
    return snapshot


class Browser:
    def __init__(self, base, shots):
        self.base, self.shots, self.failures = base, shots, []
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

    def settle(self):
        self.wait.until(lambda d: d.execute_script("return document.readyState") == "complete")

    def shot(self, name, full_width=None):
        if self.shots:
            if full_width:
                self.driver.set_window_size(full_width, 900)
            self.driver.save_screenshot(os.path.join(self.shots, name))
            if full_width:
                self.driver.set_window_size(1280, 900)

    def clean_page(self, what, status=200):
        """No error logged, no script from the data ran, no request off the origin.
        A page answered with an error `status` may log that status, nothing else."""
        own = f"{self.driver.current_url} - Failed to load resource: the server responded with a status of {status}"
        errors = [e["message"] for e in self.driver.get_log("browser")
                  if e["level"] == "SEVERE" and not (status != 200 and e["message"].startswith(own))]
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


def run(b, base):
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
    d.find_element(By.LINK_TEXT, "specimen-records").click()
    b.settle()
    b.check(d.current_url == base + "/api/v2/specimen-records/", f"front page links the list ({d.current_url})")
    total = fetch_json(base + "/api/v2/specimen-records/?limit=0")["meta"]["total_count"]
    b.check(b.text(".summary strong") == str(total), f"list: total {total} shown")
    b.check(len(d.find_elements(By.CSS_SELECTOR, "tbody tr")) == 20, "list: 20 rows")
    b.wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-markers") is not None)
    b.shot("specimen-records.png", full_width=1600)
    b.clean_page("specimen list")

    # Page forward, by the link a keyboard user reaches too.
    d.find_element(By.CSS_SELECTOR, "a[rel=next]").click()
    b.settle()
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
    b.settle()
    want = fetch_json(base + "/api/v2/specimen-records/?family=idae&limit=0")["meta"]["total_count"]
    b.check("family=idae" in d.current_url, f"form: GET to a shareable address ({d.current_url})")
    b.check(b.text(".summary strong") == str(want), f"form: total {b.text('.summary strong')} = JSON's {want}")
    chips = b.text(".chips")
    b.check("family" in chips and "idae" in chips, "form: the filter is shown, removable")
    # A facet count is a link that adds its filter; the count is the total it gives.
    facet = d.find_element(By.CSS_SELECTOR, ".facets li a")
    count = facet.find_element(By.XPATH, "following-sibling::span").text
    facet.click()
    b.settle()
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
        d.find_element(By.CSS_SELECTOR, "form.filters button[type=submit]").click()
        b.settle()
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
    preview.click()
    b.settle()
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
    d.find_element(By.CSS_SELECTOR, "tbody tr td:first-child a").click()
    b.settle()
    record = fetch_json(d.current_url + "?format=json")
    b.check(b.text("h1") == record["usi"], f"record: heading is its usi ({b.text('h1')})")
    page = d.page_source
    b.check(HOSTILE["notes"] in b.text("dl.fields"), "record: hostile notes shown as text")
    b.check("<script>window.__ran" not in page, "record: no hostile markup in the page")
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
    rows[0].find_element(By.CSS_SELECTOR, "th a").click()
    b.settle()
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
    b.check(len(d.find_elements(By.CSS_SELECTOR, ".opblock")) >= 25, "docs: the operations are listed")
    b.shot("docs.png")
    b.clean_page("docs")

    # Narrow screens: no horizontal scroll of the page itself (tables scroll inside).
    d.set_window_size(320, 800)
    b.open("/api/v2/specimen-records/?limit=5")
    width = d.execute_script("return document.documentElement.scrollWidth")
    inner = d.execute_script("return window.innerWidth")
    b.check(width <= inner, f"320 px: the page is {width} px wide in a {inner} px window")
    b.shot("narrow.png")
    b.clean_page("narrow")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="target/release/catalogue")
    ap.add_argument("--screenshots", help="directory to write screenshots to")
    a = ap.parse_args()
    if a.screenshots:
        os.makedirs(a.screenshots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="catalogue-browser-")
    snapshot = hostile_collection(a.bin, work)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([a.bin, "serve", "--snapshot", snapshot, "--addr", f"127.0.0.1:{port}",
                               "--no-watch", "--drain", "0"], stderr=subprocess.DEVNULL)
    browser = None
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/healthz")
                break
            except OSError:
                time.sleep(0.1)
        browser = Browser(base, a.screenshots)
        run(browser, base)
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
