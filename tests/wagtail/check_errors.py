"""The answers of Wagtail's pages and documents endpoints that are not JSON on
the service (reference-errors-pages.json: redirects, an HTML 404, a 500): each
answers its status and its Location. Where the service fails with a 500 (an
unknown `site`), catalogue answers a 400 that says why, as JSON.

    python3 tests/wagtail/check_errors.py --base http://127.0.0.1:8080 \
        --expected ../shared/conformance/v017-sample/reference-errors-pages.json
"""

import argparse
import http.client
import json
import sys
import urllib.parse


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--host", default="127.0.0.1:8080")
    ap.add_argument("--expected", required=True)
    args = ap.parse_args()
    base = urllib.parse.urlsplit(args.base)
    with open(args.expected) as f:
        cases = json.load(f)
    failed = []
    for case in cases:
        for method in ("GET", "HEAD"):
            conn = http.client.HTTPConnection(base.hostname, base.port)
            conn.request(method, case["path"], headers={"Host": args.host})
            r = conn.getresponse()
            body = r.read()
            status, location = case["status"], case.get("location")
            if status == 500:
                # The service's failure is a refusal that says why.
                status = 400
                said = json.loads(body).get("message", "") if method == "GET" else "HEAD"
                if not said:
                    failed.append(f"{method} {case['path']}: a 400 without a message")
            if (r.status, r.getheader("Location")) != (status, location):
                failed.append(
                    f"{method} {case['path']}: expected {status} {location}, "
                    f"got {r.status} {r.getheader('Location')}"
                )
            conn.close()
    for f in failed:
        print(f)
    print(f"{2 * len(cases) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed or not cases else 0)


if __name__ == "__main__":
    main()
