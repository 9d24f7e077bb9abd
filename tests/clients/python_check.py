"""Calls every list and record operation through a client that
openapi-python-client generated from the server's own OpenAPI document (default
settings), and checks that each parsed model writes back the JSON the server sent.

usage: python_check.py CLIENT_DIR BASE_URL

CLIENT_DIR holds the generated package (`catalogue_client`); BASE_URL is the
server's, e.g. http://127.0.0.1:8080.
"""

import datetime
import importlib
import inspect
import json
import pkgutil
import sys

PAGING = {"limit", "offset", "facet_size"}
# Items per list page, each also fetched as a record: enough to meet every taxon
# rank the bundled sample identifies specimens to.
PAGE = 20


def instants(value):
    """The value with every date-time string as an aware datetime, so `Z` and
    `+00:00` (and any fraction written or not) compare as the instant they are."""
    if isinstance(value, dict):
        return {k: instants(v) for k, v in value.items()}
    if isinstance(value, list):
        return [instants(v) for v in value]
    if isinstance(value, str) and len(value) > 10 and value[10:11] == "T":
        try:
            return datetime.datetime.fromisoformat(value)
        except ValueError:
            return value
    return value


def difference(sent, written, path="$"):
    """Where the two first differ, and how, or None."""
    if isinstance(sent, dict) and isinstance(written, dict):
        for key in sorted(set(sent) | set(written)):
            if key not in written:
                return f"{path}.{key}: sent {sent[key]!r}, left out"
            if key not in sent:
                return f"{path}.{key}: not sent, written as {written[key]!r}"
            found = difference(sent[key], written[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(sent, list) and isinstance(written, list) and len(sent) == len(written):
        for i, (a, b) in enumerate(zip(sent, written)):
            found = difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if sent == written else f"{path}: sent {sent!r}, written as {written!r}"


def same(label, response):
    sent = json.loads(response.content)
    model = response.parsed
    if response.status_code != 200 or not hasattr(model, "to_dict"):
        raise SystemExit(f"{label}: status {response.status_code}, parsed as {type(model).__name__}")
    written = model.to_dict()
    found = difference(instants(sent), instants(written))
    if found:
        raise SystemExit(f"{label}: the parsed model does not write back what was sent: {found}")
    return sent


def one_filter(function, item):
    """A filter the operation takes and a value the item holds for it: a related
    record's id if there is one, else the item's own id, else a string field."""
    parameters = inspect.signature(function).parameters
    candidates = [name for name in parameters if name not in PAGING and name in item]
    for name in candidates:
        value = item[name]
        if isinstance(value, dict):
            value = value.get("id")
        if name != "id" and "int" in str(parameters[name].annotation) and type(value) is int:
            return name, value
    if "id" in candidates:
        return "id", item["id"]
    for name in candidates:
        if "str" in str(parameters[name].annotation) and isinstance(item[name], str):
            return name, item[name]
    return None


def main():
    client_dir, base = sys.argv[1], sys.argv[2]
    sys.path.insert(0, client_dir)
    from catalogue_client import Client
    import catalogue_client.api as api

    client = Client(base_url=base, raise_on_unexpected_status=True)
    lists = filters = records = forms = 0
    for tag in pkgutil.iter_modules(api.__path__):
        package = importlib.import_module(f"catalogue_client.api.{tag.name}")
        for operation in pkgutil.iter_modules(package.__path__):
            if not operation.name.startswith("list_"):
                continue
            listing = importlib.import_module(f"{package.__name__}.{operation.name}")
            label = f"{tag.name}.{operation.name}"
            if operation.name.endswith("_form"):
                # The list's parameters as a form: the page the GET gives.
                forms += 1
                body = inspect.signature(listing.sync_detailed).parameters["body"].annotation
                body = getattr(listing, body) if isinstance(body, str) else body
                posted = same(label, listing.sync_detailed(client=client, body=body(limit=PAGE)))
                get = importlib.import_module(f"{package.__name__}.{operation.name[:-len('_form')]}")
                asked = same(label[:-len("_form")], get.sync_detailed(client=client, limit=PAGE))
                if posted != asked:
                    raise SystemExit(f"{label}: the posted form's page is not the GET's")
                continue
            page = same(label, listing.sync_detailed(client=client, limit=PAGE))
            lists += 1
            if not page["items"]:
                continue
            # Lists without field filters (the image kinds) are only paged.
            chosen = one_filter(listing.sync_detailed, page["items"][0])
            if chosen is not None:
                name, value = chosen
                filtered = same(f"{label}?{name}={value}",
                                listing.sync_detailed(client=client, limit=PAGE, **{name: value}))
                if filtered["meta"]["total_count"] < 1:
                    raise SystemExit(f"{label}: the filter {name}={value} taken from an item matched nothing")
                filters += 1
            # The record operation is named for one record (`get_county` for
            # `list_counties`): the module in this tag that is neither a list nor
            # named for another list's nesting.
            nested = operation.name.startswith("list_nested_")
            getters = [
                m.name for m in pkgutil.iter_modules(package.__path__)
                if m.name.startswith("get_") and m.name.startswith("get_nested_") == nested
            ]
            if len(getters) != 1:
                raise SystemExit(f"{label}: expected one record operation beside it, found {getters}")
            getter = importlib.import_module(f"{package.__name__}.{getters[0]}")
            for item in page["items"]:
                same(f"{package.__name__}.{getters[0]}({item['id']})",
                     getter.sync_detailed(client=client, id=str(item["id"])))
                records += 1
    if lists == 0 or forms != lists:
        raise SystemExit(f"the generated client has {lists} list operations and {forms} forms of them")
    print(f"python client: {lists} lists ({filters} also filtered, each also as a posted form) and "
          f"{records} records parsed and written back unchanged")
    labels(client)


def labels(client):
    """The label sheets through the same client: a question's data labels as CSV
    (a row a specimen the list gives for it) and its QR sheet as PDF."""
    from catalogue_client.api.specimen_records import list_specimen_records, specimen_labels

    listed = json.loads(list_specimen_records.sync_detailed(client=client, limit=100000, sort="-id").content)
    csv = specimen_labels.sync_detailed(client=client, kind="data", format_="csv", sort="-id")
    rows = csv.content.decode().splitlines()
    if csv.status_code != 200 or rows[0] != "usi,region,locality,point,date,collectors":
        raise SystemExit(f"labels as CSV: {csv.status_code} {rows[:1]}")
    usis = [row.split(",", 1)[0] for row in rows[1:]]
    if usis != [item["usi"] for item in listed["items"]]:
        raise SystemExit("labels as CSV: not a row for each specimen the list gives, in its order")
    pdf = specimen_labels.sync_detailed(client=client, kind="qr", width_mm=30.0, paper="a4")
    if pdf.status_code != 200 or pdf.headers["content-type"] != "application/pdf" or not pdf.content.startswith(b"%PDF-"):
        raise SystemExit(f"labels as PDF: {pdf.status_code} {pdf.headers.get('content-type')}")
    print(f"python client: {len(usis)} labels as CSV, the QR sheet as a {len(pdf.content)}-byte PDF")


main()
