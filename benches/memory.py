"""The memory a server holds: its resident memory plus its memory files.

Rendered lists live in memory files (memfd) that are resident but mostly not
mapped into the process, so its RSS alone leaves them out.

    python3 benches/memory.py PID            # MiB now: total rss files mapped
    python3 benches/memory.py PID --peak     # samples every 20 ms until
                                             # SIGTERM (or the process ends),
                                             # then prints the peak total in MiB
"""
import os
import signal
import sys
import time


def held(pid):
    """(total, rss, memory files, their part mapped in), in KiB."""
    status = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            status[key] = value
    rss = int(status["VmRSS"].split()[0])
    mapped = int(status["RssShmem"].split()[0])
    files = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        path = f"/proc/{pid}/fd/{fd}"
        try:
            if os.readlink(path).startswith("/memfd:"):
                # Pages held, not size: a reload frees the pages of a
                # replaced view's file that the new view does not share.
                files += os.stat(path).st_blocks // 2
        except OSError:
            pass
    return rss + files - mapped, rss, files, mapped


def main():
    pid = int(sys.argv[1])
    if "--peak" not in sys.argv:
        print(" ".join(str(v // 1024) for v in held(pid)))
        return
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    peak = 0
    while not stop:
        try:
            peak = max(peak, held(pid)[0])
        except (OSError, KeyError):
            break
        time.sleep(0.02)
    print(peak // 1024)


if __name__ == "__main__":
    main()
