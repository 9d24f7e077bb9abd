"""One replica started as the systemd unit starts it, behind nginx with the
shipped files (its plain server and its HTTPS block, with a self-signed
certificate) beside Debian's default site: the shipped server answers its own
name, `/metrics` answers loopback only, and the addresses an answer's links
start with are the ones the client asked.

- `nginx -t` says no warning (a server_name Debian's site has too is ignored
  with only a warning); the shipped server's name reaches the replica, any other
  name Debian's page.
- `/metrics` through nginx: 200 from 127.0.0.1 (and ::1), 403 from this
  machine's own non-loopback address (`hostname -I`, IPv4 and, where it has
  one, IPv6), which the API answers 200.
- Another client's Host is never served from the cache (an attacker's first).
- A media URL keeps the port the client asked (nginx's $host drops it).
- A QR sheet printed over HTTPS, rendered (pdftoppm) and scanned (zbarimg),
  points at https:// and the port asked; printed over plain HTTP with the
  client's own `X-Forwarded-Proto: https`, at http://: nginx says the scheme,
  not the client.
- With CATALOGUE_PUBLIC_URL in the unit's environment, the codes point there
  whatever was asked, and the sheet carries no warning.

Needs nginx, openssl, poppler-utils, zbar-tools and hostname.

    python3 tests/deploy/proxy.py --bin target/release/catalogue
"""

import argparse
import http.client
import json
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
from pathlib import Path

from shipped import DEBIAN_WELCOME, ROOT, Nginx, fail, get, has_ipv6, replica, wait_until

SHEET = "/api/v2/specimen-records/labels/?limit=1"
ORDER = "/api/v2/orders/1/"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def own_addresses():
    """This machine's addresses other than loopback and IPv6 link-local, as
    `hostname -I` lists them: (IPv4, IPv6)."""
    listed = subprocess.run(["hostname", "-I"], capture_output=True, text=True, check=True).stdout.split()
    v4 = [a for a in listed if ":" not in a and not a.startswith("127.")]
    v6 = [a for a in listed if ":" in a and not a.lower().startswith("fe80")]
    return v4, v6


def status_from(address, port, path, host):
    """The status of a GET of `path` asked from `address` (the client socket
    bound to it) of nginx listening at that same address."""
    conn = http.client.HTTPConnection(address, port, timeout=5, source_address=(address, 0))
    try:
        conn.request("GET", path, headers={"Host": host})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


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
    for tool in ("nginx", "openssl", "pdftoppm", "zbarimg", "hostname"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            fail(f"{tool} is missing")
    binary = str(Path(args.bin).resolve())
    work = Path(tempfile.mkdtemp(prefix="proxy-"))
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    port, front, tls = free_port(), free_port(), free_port()
    nginx = Nginx(work, front, tls=tls, ports=[port])
    v4, v6 = own_addresses()
    if not v4:
        fail("this machine has no IPv4 address but loopback (hostname -I) to ask /metrics from")
    proc = serve(binary, port, ROOT / "snapshot/collection.bin", work)
    try:
        said = nginx.test()
        print(f"nginx -t with Debian's default site enabled: no warning ({said.splitlines()[-1]})")
        nginx.start()
        plain, secure = f"http://127.0.0.1:{front}", f"https://127.0.0.1:{tls}"
        name = nginx.name
        ours, ours_tls = nginx.headers, {"Host": f"{name}:{tls}"}

        # The shipped server answers its name; Debian's site every other.
        status, _, body = get(plain + "/", headers=ours)
        if status != 200 or b"Welcome to nginx!" in body:
            fail(f"{name} through nginx, beside Debian's default site: {status} {body[:200]!r}")
        status, _, body = get(plain + "/")
        if status != 200 or body != DEBIAN_WELCOME.encode():
            fail(f"the bare address is not Debian's page, so the default site is not in the test: {status}")
        print(f"beside Debian's default site: {name} reaches the replica, the bare address Debian's page")

        # /metrics from loopback, and refused from this machine's own address.
        for address in ["127.0.0.1", *(["::1"] if has_ipv6() else [])]:
            status = status_from(address, front, "/metrics", ours["Host"])
            if status != 200:
                fail(f"/metrics through nginx from {address}: {status}, not 200")
        refused = v4[:1] + (v6[:1] if has_ipv6() else [])
        for address in refused:
            statuses = [status_from(address, front, path, ours["Host"]) for path in ("/metrics", "/api/v2/")]
            if statuses != [403, 200]:
                fail(f"from {address}, /metrics and /api/v2/ through nginx answered {statuses}, not [403, 200]")
        print(f"/metrics through nginx: 200 from loopback, 403 from {' and '.join(refused)} (the API 200)")

        # An attacker's Host first (our name, another port), then everyone
        # else's: never the attacker's.
        attacker = {"Host": f"{name}:9"}
        status, _, _ = get(plain + "/api/v2/orders/?limit=1", headers=attacker)
        if status != 200:
            fail(f"the attacker's request did not reach the replica: {status}")
        status, _, body = get(plain + "/api/v2/orders/?limit=1", headers=ours)
        if status != 200 or f"//{name}:9/".encode() in body:
            fail(f"the shipped nginx configuration served one client's Host to another: {body[:300]}")
        print("behind nginx: each Host's answers apart")

        # The port the client asked, in a media URL.
        status, _, body = get(plain + ORDER, headers=ours)
        url = json.loads(body)["featured_image"]["file"]
        if not url.startswith(f"http://{name}:{front}/media/"):
            fail(f"a media URL through nginx on port {front}: {url}")
        print(f"behind nginx: media URL {url}")

        # QR codes over HTTPS, and over HTTP with the client's own header.
        status, headers, pdf = get(secure + SHEET, context=insecure, headers=ours_tls)
        code = scanned(pdf, work)
        if status != 200 or code != f"https://{name}:{tls}/s/000001":
            fail(f"a QR sheet printed over HTTPS scans to {code!r} ({status})")
        if not headers.get("X-Label-Warning"):
            fail("a sheet printed without CATALOGUE_PUBLIC_URL carries no X-Label-Warning")
        print(f"behind nginx over HTTPS: the QR code scans to {code}")
        status, _, pdf = get(plain + SHEET, headers={**ours, "X-Forwarded-Proto": "https"})
        code = scanned(pdf, work)
        if code != f"http://{name}:{front}/s/000001":
            fail(f"a client's own X-Forwarded-Proto: https changed the code to {code!r}")
        print(f"behind nginx over HTTP, the client saying https: {code}")

        # The public address set in the unit's environment.
        proc.terminate()
        proc.wait(timeout=15)
        public = "https://specimens.example.org"
        proc = serve(binary, port, ROOT / "snapshot/collection.bin", work, {"CATALOGUE_PUBLIC_URL": public})
        status, headers, pdf = get(plain + SHEET, headers=ours)
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
