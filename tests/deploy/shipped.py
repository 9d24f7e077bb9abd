"""The deployment files as shipped, made runnable by the deployment tests: a
replica's command line and environment from the systemd unit, and nginx with
deploy/nginx/ laid out as on a stock Debian nginx, beside Debian's own default
site (the public port moved, on every address as written, its files in a work
directory; the HTTPS block of the file uncommented with a self-signed
certificate). Nothing else of either is changed."""

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "deploy/systemd/catalogue@.service"
NGINX = ROOT / "deploy/nginx"


# Debian's sites-enabled/default as the nginx package installs it (bookworm's
# 1.22; its comments left out): on the same port as ours, every address, the
# default server, `server_name _`. Only its root is moved, to a page of its own.
DEBIAN_DEFAULT_SITE = """server {
	listen 80 default_server;
	listen [::]:80 default_server;
	root /var/www/html;
	index index.html index.htm index.nginx-debian.html;
	server_name _;
	location / {
		try_files $uri $uri/ =404;
	}
}
"""
DEBIAN_WELCOME = "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head>\n" \
                 "<body><h1>Welcome to nginx!</h1></body></html>\n"


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


def on_port(conf, old, new):
    """`conf` with its listen directives on port `old` (IPv4 and IPv6, every
    address) moved to port `new`, their other parameters kept."""
    return re.sub(rf"\blisten (\[::\]:)?{old}\b", lambda m: f"listen {m.group(1) or ''}{new}", conf)


def has_ipv6():
    """Whether this machine can listen on IPv6 (a stock site's `listen [::]:80`)."""
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def tls_block(conf, port, cert, key):
    """The file's commented HTTPS server block, uncommented, on `port`."""
    start = conf.find("# server {")
    if start < 0:
        fail("deploy/nginx/catalogue.conf no longer holds a commented HTTPS server block")
    lines = [line[2:] if line.startswith("# ") else line[1:]
             for line in conf[start:].splitlines() if line.startswith("#")]
    block = "\n".join(lines)
    if "listen 443 ssl;" not in block:
        fail("the HTTPS block of deploy/nginx/catalogue.conf no longer listens on port 443")
    block = on_port(block, 443, port)
    block = re.sub(r"ssl_certificate .*;", f"ssl_certificate {cert};", block)
    return re.sub(r"ssl_certificate_key .*;", f"ssl_certificate_key {key};", block)


def self_signed(work):
    cert, key = work / "cert.pem", work / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                    "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


class Nginx:
    """nginx with the shipped files in `work`, laid out as Debian's package lays
    out /etc/nginx (catalogue.conf in conf.d/, catalogue-proxy.conf beside
    nginx.conf) with Debian's default site enabled: the plain server on `front`,
    the HTTPS block on `tls` when given, both on every address as written (IPv6
    left out where the machine has none), the replicas on `ports` (as written
    unless given; the lines of replicas beyond them removed). Requests reach the
    shipped server by its server_name, `headers`; any other name reaches
    Debian's site."""

    def __init__(self, work, front, tls=None, ports=None, binary=None):
        self.work, self.front, self.tls = work, front, tls
        self.binary = binary or shutil.which("nginx") or "/usr/sbin/nginx"
        conf = (NGINX / "catalogue.conf").read_text()
        written = replica_ports()
        for old, new in zip(written, ports or written):
            conf = conf.replace(f"127.0.0.1:{old} ", f"127.0.0.1:{new} ")
        for old in written[len(ports or written):]:
            conf = re.sub(rf"\n\s*server 127\.0\.0\.1:{old} [^\n]*", "", conf)
        if not re.search(r"^\s*listen 80;$", conf, re.M):
            fail("deploy/nginx/catalogue.conf no longer listens on port 80")
        name = re.search(r"^\s*server_name (\S+);", conf, re.M)
        if name is None:
            fail("deploy/nginx/catalogue.conf names no server_name")
        self.name = name.group(1)
        self.headers = {"Host": f"{self.name}:{front}"}
        conf = on_port(conf, 80, front)
        if tls:
            conf += "\n" + tls_block(conf, tls, *self_signed(work)) + "\n"
        html = work / "html"
        html.mkdir(exist_ok=True)
        (html / "index.nginx-debian.html").write_text(DEBIAN_WELCOME)
        default = on_port(DEBIAN_DEFAULT_SITE, 80, front).replace("root /var/www/html;", f"root {html};")
        if not has_ipv6():
            conf = re.sub(r"\n\s*listen \[::\]:[^\n]*", "", conf)
            default = re.sub(r"\n\s*listen \[::\]:[^\n]*", "", default)
        # nginx's workers run as another user when the master runs as root.
        (work / "nginx-temp").mkdir(exist_ok=True)
        (work / "nginx-temp").chmod(0o777)
        work.chmod(0o755)
        for folder in ("conf.d", "sites-enabled"):
            (work / folder).mkdir(exist_ok=True)
        (work / "conf.d/catalogue.conf").write_text(conf)
        (work / "sites-enabled/default").write_text(default)
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
  include {work}/conf.d/*.conf;
  include {work}/sites-enabled/*;
}}
""")
        self.proc = None

    def test(self):
        """`nginx -t`: fails on an error or a warning (a server_name another site
        has, which nginx ignores saying only "[warn]")."""
        done = subprocess.run([self.binary, "-t", "-p", str(self.work), "-c", str(self.work / "nginx.conf")],
                              capture_output=True, text=True)
        said = (done.stdout + done.stderr).strip()
        if done.returncode != 0 or "[warn]" in said or "[emerg]" in said:
            fail(f"nginx -t with Debian's default site beside the shipped files:\n{said}")
        return said

    def start(self):
        self.proc = subprocess.Popen([self.binary, "-p", str(self.work), "-c", str(self.work / "nginx.conf")],
                                     stdout=subprocess.DEVNULL, stderr=open(self.work / "nginx.log", "ab"))
        wait_until("nginx", lambda: get(f"http://127.0.0.1:{self.front}/healthz", 1, self.headers)[0] == 200)
        return self

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=15)
            self.proc = None
