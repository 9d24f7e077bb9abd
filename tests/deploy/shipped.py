"""The deployment files as shipped, made runnable on loopback by the deployment
tests: a replica's command line and environment from the systemd unit, and nginx
with deploy/nginx/ (the public port moved, its files in a work directory; the
HTTPS block of the file uncommented with a self-signed certificate). Nothing
else of either is changed."""

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "deploy/systemd/catalogue@.service"
NGINX = ROOT / "deploy/nginx"


def fail(message):
    sys.exit(f"deploy: {message}")


def get(url, timeout=5, headers=None, context=None):
    """(status, headers, body) of a GET; a status of 0 when nothing answered."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()
    except OSError:
        return 0, {}, b""


def wait_until(what, check, timeout=60):
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            fail(f"timed out waiting for {what}")
        time.sleep(0.05)
    return time.monotonic() - started


def replica_ports():
    """The replicas' ports, as the nginx file names them."""
    ports = [int(p) for p in re.findall(r"server 127\.0\.0\.1:(\d+)", (NGINX / "catalogue.conf").read_text())]
    if not ports:
        fail("deploy/nginx/catalogue.conf names no replica on 127.0.0.1")
    return ports


def replica(binary, port, snapshot, extra=()):
    """The unit's command line and environment for instance `port`: ExecStart
    with the binary just built, its Environment= lines with %i filled in, the
    snapshot moved to `snapshot`."""
    text = UNIT.read_text()
    env = dict(os.environ)
    for key, value in re.findall(r"^Environment=(\w+)=(.*)$", text, re.M):
        env[key] = value.replace("%i", str(port))
    env["CATALOGUE_SNAPSHOT"] = str(snapshot)
    argv = re.search(r"^ExecStart=(.*)$", text, re.M).group(1).split()
    if argv[0] != "/usr/local/bin/catalogue":
        fail(f"the unit's ExecStart no longer runs /usr/local/bin/catalogue: {argv}")
    return [binary, *argv[1:], *extra], env


def tls_block(conf, port, cert, key):
    """The file's commented HTTPS server block, uncommented, on `port`."""
    start = conf.find("# server {")
    if start < 0:
        fail("deploy/nginx/catalogue.conf no longer holds a commented HTTPS server block")
    lines = [line[2:] if line.startswith("# ") else line[1:]
             for line in conf[start:].splitlines() if line.startswith("#")]
    block = "\n".join(lines)
    block = block.replace("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;")
    block = re.sub(r"ssl_certificate .*;", f"ssl_certificate {cert};", block)
    return re.sub(r"ssl_certificate_key .*;", f"ssl_certificate_key {key};", block)


def self_signed(work):
    cert, key = work / "cert.pem", work / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                    "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


class Nginx:
    """nginx with the shipped files in `work`: the plain server on `front`, the
    HTTPS block on `tls` when given, the replicas on `ports` (as written unless
    given; the lines of replicas beyond them removed)."""

    def __init__(self, work, front, tls=None, ports=None, binary=None):
        self.work, self.front, self.tls = work, front, tls
        self.binary = binary or shutil.which("nginx") or "/usr/sbin/nginx"
        conf = (NGINX / "catalogue.conf").read_text()
        written = replica_ports()
        for old, new in zip(written, ports or written):
            conf = conf.replace(f"127.0.0.1:{old} ", f"127.0.0.1:{new} ")
        for old in written[len(ports or written):]:
            conf = re.sub(rf"\n\s*server 127\.0\.0\.1:{old} [^\n]*", "", conf)
        if "listen 80;" not in conf:
            fail("deploy/nginx/catalogue.conf no longer listens on port 80")
        conf = conf.replace("listen 80;", f"listen 127.0.0.1:{front};")
        if tls:
            conf += "\n" + tls_block(conf, tls, *self_signed(work)) + "\n"
        # nginx's workers run as another user when the master runs as root.
        (work / "nginx-temp").mkdir(exist_ok=True)
        (work / "nginx-temp").chmod(0o777)
        work.chmod(0o755)
        (work / "catalogue.conf").write_text(conf)
        shutil.copy(NGINX / "catalogue-proxy.conf", work / "catalogue-proxy.conf")
        temp = work / "nginx-temp"
        (work / "nginx.conf").write_text(f"""
daemon off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {temp}/body;
  proxy_temp_path {temp}/proxy;
  include {work}/catalogue.conf;
}}
""")
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen([self.binary, "-p", str(self.work), "-c", str(self.work / "nginx.conf")],
                                     stdout=subprocess.DEVNULL, stderr=open(self.work / "nginx.log", "ab"))
        wait_until("nginx", lambda: get(f"http://127.0.0.1:{self.front}/healthz", 1)[0] == 200)
        return self

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=15)
            self.proc = None
