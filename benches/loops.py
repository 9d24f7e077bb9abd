"""What the load scripts in benches/ that measure a cheap request beside
looping clients share: a free port, waiting for a server to go idle, a
request's p99 (wrk, 1 connection), and 8 clients looping GET (wrk; `{n}` in
the URL a number of its own each request) or HEAD (threads of http.client).
Imported, not run.
"""
import re
import subprocess
import tempfile
import threading
import time


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_idle(pid):
    def ticks():
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    before = ticks()
    while True:
        time.sleep(2)
        after = ticks()
        if after - before <= 4:
            return
        before = after


def p99(url, seconds):
    out = subprocess.run(["wrk", "-t1", "-c1", f"-d{seconds}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", out)
    value, unit = float(m.group(1)), m.group(2)
    ms = value / 1000 if unit == "us" else value * 1000 if unit == "s" else value
    reqs = re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)
    return ms, float(reqs)


class HeadLoops:
    """8 clients looping HEAD on `url` for `seconds` (wrk waits for a body a
    HEAD answer announces and never gets, so it counts none): threads of
    http.client, whose HEAD reads no body."""

    def __init__(self, url, seconds):
        import http.client
        from urllib.parse import urlsplit
        parts = urlsplit(url)
        self.count, self.seconds = 0, seconds
        lock = threading.Lock()

        def run():
            conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                conn.request("HEAD", parts.path)
                conn.getresponse().read()
                with lock:
                    self.count += 1
            conn.close()
        self.threads = [threading.Thread(target=run) for _ in range(8)]
        for t in self.threads:
            t.start()

    def communicate(self):
        for t in self.threads:
            t.join()
        return (f"Requests/sec: {self.count / self.seconds:.2f}", None)


def loop(url, method, seconds):
    """8 clients looping `method` on `url` for `seconds`; `loops_rate` says
    how many answers they got a second."""
    if method == "HEAD":
        return HeadLoops(url, seconds)
    if method != "GET":
        raise ValueError(f"no loop of {method}")
    if "{n}" not in url:
        return subprocess.Popen(["wrk", "-t2", "-c8", f"-d{seconds}s", url],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    # `{n}` in the path: 1, 2, 3 ... a request each (the two threads taking
    # turns), so that no answer is asked twice.
    from urllib.parse import urlsplit
    parts = urlsplit(url)
    path = parts.path + ("?" + parts.query if parts.query else "")
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    script.write(
        "local counter = 0\n"
        "function setup(thread) counter = counter + 1; thread:set('id', counter) end\n"
        "function init() n = id - 2 end\n"
        f"function request() n = n + 2; return wrk.format(nil, (string.gsub({path!r}, '{{n}}', n))) end\n")
    script.close()
    return subprocess.Popen(["wrk", "-t2", "-c8", f"-d{seconds}s", "-s", script.name,
                             f"{parts.scheme}://{parts.netloc}/"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def loops_rate(proc):
    out = proc.communicate()[0]
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return float(m.group(1)) if m else 0.0
