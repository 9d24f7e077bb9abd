"""Every body in the conformance corpus validates against the OpenAPI document.

usage: corpus.py OPENAPI_JSON EXPECTED_JSON_GZ

For each recorded answer: the operation its path names, the response the document
gives for its status, and the body checked with a JSON Schema 2020-12 validator
(formats included). Exits 1 listing what does not validate, or what the document
does not describe.
"""
import gzip
import json
import re
import sys

from jsonschema import Draft202012Validator

doc = json.load(open(sys.argv[1]))
cases = json.load(gzip.open(sys.argv[2]))


def operation(path):
    path = path.split("?", 1)[0]
    for template, item in doc["paths"].items():
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            return item["get"]
    return None


def resolve(obj):
    while "$ref" in obj and obj["$ref"].startswith("#/components/responses/"):
        obj = doc["components"]["responses"][obj["$ref"].rsplit("/", 1)[1]]
    return obj


problems, checked = [], 0
for case in cases:
    op = operation(case["path"])
    if op is None:
        problems.append(f"{case['path']}: no operation in the document")
        continue
    response = op["responses"].get(str(case["status"]))
    if response is None:
        problems.append(f"{case['path']}: status {case['status']} is not documented")
        continue
    schema = resolve(response).get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        if case.get("body") not in (None, ""):
            problems.append(f"{case['path']}: a body where the document has none")
        continue
    validator = Draft202012Validator(
        {**schema, "components": doc["components"]},
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )
    errors = list(validator.iter_errors(case["body"]))
    checked += 1
    for e in errors[:3]:
        problems.append(f"{case['path']}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")

print(f"{checked} of {len(cases)} corpus bodies validated against the document")
if checked == 0:
    print("no corpus body was validated: nothing was checked")
    sys.exit(1)
if problems:
    print(f"{len(problems)} problems:")
    print("\n".join(problems[:50]))
    sys.exit(1)
