"""Opens a Darwin Core Archive made by `catalogue export dwca` with a Darwin Core
reader (python-dwca-reader) and checks it against the fixture it was built from.

usage: check.py ARCHIVE FIXTURE TITLE

One row per specimen record, keyed by usi; values that follow from the fixture are
checked for every row, and the mapped values of a few known records of the bundled
sample (snapshot/collection.json) are checked exactly.
"""
import json
import sys

from dwca.darwincore.utils import qualname as qn
from dwca.read import DwCAReader

MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]

# Known records of the bundled sample, as the archive must map them.
KNOWN = {
    "UMMZ-000001": {
        "scientificName": "Danaus plexippus megalippe (Hübner, [1826])",
        "taxonRank": "subspecies",
        "genus": "Danaus", "specificEpithet": "plexippus", "infraspecificEpithet": "megalippe",
        "scientificNameAuthorship": "(Hübner, [1826])",
        "vernacularName": "Southern Monarch",
        "recordedBy": "Rosa M. Alvarez | Amelia Brooks | Henry Brooks, Jr. | Théo J. Côté, III",
        "identifiedBy": "Rosa M. Alvarez", "dateIdentified": "2020",
        "eventDate": "2019-10-04",
        "country": "United States of America", "countryCode": "US",
        "stateProvince": "Louisiana", "county": "Orleans",
        "locality": "Audubon Park, New Orleans",
        "decimalLatitude": "", "geodeticDatum": "",
        "habitat": "Roosting on Quercus virginiana & live oaks",
        "occurrenceRemarks": "Tagged before release.",
        "eventRemarks": "weather: Sunny, light wind; temperature: 76.25 °F; time of day: 10:15 AM",
        "http://purl.org/dc/terms/modified": "2024-01-05T10:00:00.100000Z",
    },
    "UMMZ-000002": {
        "scientificName": "Danaus plexippus (Linnaeus, 1758)",
        "taxonRank": "species", "infraspecificEpithet": "",
        "eventDate": "2018-08", "month": "8", "day": "",
        "decimalLatitude": "42.298611", "decimalLongitude": "-83.663889",
        "geodeticDatum": "WGS84",
        "minimumElevationInMeters": "260", "maximumElevationInMeters": "260",
        "locality": "Matthaei Botanical Gardens, 2 km NE, Ann Arbor",
    },
    "UMMZ-000003": {
        "decimalLatitude": "", "decimalLongitude": "", "geodeticDatum": "",
        "minimumElevationInMeters": "400", "maximumElevationInMeters": "550",
    },
    "UMMZ-000006": {"occurrenceRemarks": "Collected on Asclepias."},
}


def term(name):
    return name if name.startswith("http") else qn(name)


def main(archive, fixture, title):
    with open(fixture, encoding="utf-8") as f:
        objects = json.load(f)
    specimens = {o["fields"]["usi"]: o["fields"] for o in objects
                 if o["model"] == "specimens.specimenrecord"}
    problems = []
    with DwCAReader(archive) as dwca:
        assert dwca.descriptor.core.type == qn("Occurrence"), dwca.descriptor.core.type
        assert dwca.metadata.find("dataset/title").text == title
        rows = {row.data[term("catalogNumber")]: row.data for row in dwca.rows}
        for number, data in rows.items():
            # The default rule: Darwin Core's catalogue URN of the dataset's
            # codes, the catalogue number alone without an institution code.
            institution, collection = data[term("institutionCode")], data[term("collectionCode")]
            want = f"urn:catalog:{institution}:{collection}:{number}" if institution else number
            if data[term("occurrenceID")] != want:
                problems.append(f"{number} occurrenceID: {data[term('occurrenceID')]!r}, expected {want!r}")
        if len(dwca.rows) != len(specimens) or set(rows) != set(specimens):
            problems.append(f"{len(dwca.rows)} rows for {len(specimens)} specimens")
        for usi, s in specimens.items():
            data = rows.get(usi)
            if data is None:
                continue
            month = str(MONTHS.index(s["month"]) + 1) if s["month"] in MONTHS else ""
            expected = {
                "catalogNumber": usi,
                "basisOfRecord": "PreservedSpecimen", "kingdom": "Animalia",
                "phylum": "Arthropoda", "class": "Insecta",
                "sex": s["sex"], "lifeStage": s["stage"], "preparations": s["preparation"],
                "samplingProtocol": s["method"],
                "year": "" if s["year"] is None else str(s["year"]),
                "day": "" if s["day"] is None else str(s["day"]),
                "month": month,
            }
            expected.update(KNOWN.get(usi, {}))
            for name, want in expected.items():
                got = data.get(term(name))
                if got != want:
                    problems.append(f"{usi} {name}: {got!r}, expected {want!r}")
    missing = set(KNOWN) - set(rows)
    if missing:
        problems.append(f"known records missing: {sorted(missing)}")
    for p in problems:
        print(p)
    if problems:
        sys.exit(f"{len(problems)} problems in {archive}")
    print(f"{archive}: {len(rows)} occurrences read by python-dwca-reader, all as expected")


if __name__ == "__main__":
    main(*sys.argv[1:])
