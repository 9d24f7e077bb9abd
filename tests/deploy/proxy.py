"""One replica started as the systemd unit starts it, behind nginx with the
shipped files (its plain server and its HTTPS block, with a self-signed
certificate): the addresses an answer's links start with are the ones the
client asked.

- Another client's Host is never served from the cache (an attacker's first).
- A media URL keeps the port the client asked (nginx's $host drops it).
- A QR sheet printed over HTTPS, rendered (pdftoppm) and scanned (zbarimg),
  points at https:// and the port asked; printed over plain HTTP with the
  client's own `X-Forwarded-Proto: https`, at http://: nginx says the scheme,
  not the client.
- With CATALOGUE_PUBLIC_URL in the unit's environment, the codes point there
  whatever was asked, and the sheet carries no warning.

Needs nginx, openssl, poppler-utils and zbar-tools.

    python3 tests/deploy/proxy.py --bin target/release/catalogue
"""

import argparse
import json
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
from pathlib import Path

from shipped import ROOT, Nginx, fail, get, replica, wait_until

SHEET = "/api/v2/specimen-records/labels/?limit=1"
ORDER = "/api/v2/orders/1/"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scanned(pdf, work):
    """The text of the first QR code on a sheet, as a scanner reads it."""
    (work / "sheet.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", "600", "-gray", "-f", "1", "-l", "1", "-x", "0", "-y", "0",
                    "-W", "1200", "-H", "1200", str(work / "sheet.pdf"), str(work / "page")], check=True)
    page = next(work.glob("page*.pgm"))
    out = subprocess.run(["zbarimg", "-q", "--raw", str(page)], capture_output=True, text=True).stdout
    page.unlink()
    return out.strip()


def serve(binary, port, snapshot, work, extra_env=None):
    argv, env = replica(binary, port, snapshot, ["--no-watch", "--drain", "0"])
    env.update(extra_env or {})
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=open(work / "replica.log", "ab"))
    wait_until("the replica", lambda: get(f"http://127.0.0.1:{port}/readyz", 1)[0] == 200)
    return proc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    for tool in ("nginx", "openssl", "pdftoppm", "zbarimg"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            fail(f"{tool} is missing")
    binary = str(Path(args.bin).resolve())
    work = Path(tempfile.mkdtemp(prefix="proxy-"))
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    port, front, tls = free_port(), free_port(), free_port()
    nginx = Nginx(work, front, tls=tls, ports=[port])
    proc = serve(binary, port, ROOT / "snapshot/collection.bin", work)
    try:
        nginx.start()
        plain, secure = f"http://127.0.0.1:{front}", f"https://127.0.0.1:{tls}"

        # An attacker's Host first, then everyone else's: never the attacker's.
        get(plain + "/api/v2/orders/?limit=1", headers={"Host": "attacker.example"})
        status, _, body = get(plain + "/api/v2/orders/?limit=1")
        if status != 200 or b"attacker.example" in body:
            fail(f"the shipped nginx configuration served one client's Host to another: {body[:300]}")
        print("behind nginx: each Host's answers apart")

        # The port the client asked, in a media URL.
        status, _, body = get(plain + ORDER)
        url = json.loads(body)["featured_image"]["file"]
        if not url.startswith(f"http://127.0.0.1:{front}/media/"):
            fail(f"a media URL through nginx on port {front}: {url}")
        print(f"behind nginx: media URL {url}")

        # QR codes over HTTPS, and over HTTP with the client's own header.
        status, headers, pdf = get(secure + SHEET, context=insecure)
        code = scanned(pdf, work)
        if status != 200 or code != f"https://127.0.0.1:{tls}/s/000001":
            fail(f"a QR sheet printed over HTTPS scans to {code!r} ({status})")
        if not headers.get("X-Label-Warning"):
            fail("a sheet printed without CATALOGUE_PUBLIC_URL carries no X-Label-Warning")
        print(f"behind nginx over HTTPS: the QR code scans to {code}")
        status, _, pdf = get(plain + SHEET, headers={"X-Forwarded-Proto": "https"})
        code = scanned(pdf, work)
        if code != f"http://127.0.0.1:{front}/s/000001":
            fail(f"a client's own X-Forwarded-Proto: https changed the code to {code!r}")
        print(f"behind nginx over HTTP, the client saying https: {code}")

        # The public address set in the unit's environment.
        proc.terminate()
        proc.wait(timeout=15)
        public = "https://specimens.example.org"
        proc = serve(binary, port, ROOT / "snapshot/collection.bin", work, {"CATALOGUE_PUBLIC_URL": public})
        status, headers, pdf = get(plain + SHEET)
        code = scanned(pdf, work)
        if code != f"{public}/s/000001" or headers.get("X-Label-Warning"):
            fail(f"with CATALOGUE_PUBLIC_URL={public} the code scans to {code!r}, "
                 f"warning {headers.get('X-Label-Warning')!r}")
        print(f"with CATALOGUE_PUBLIC_URL: the QR code scans to {code}, without a warning")
    finally:
        nginx.stop()
        proc.terminate()
        proc.wait(timeout=15)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
