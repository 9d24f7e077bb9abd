"""GBIF's EML profile (1.3, on EML 2.2.0), checked by rule. The schemas
themselves are in the shared folder beside the repository, and
eml_schema.py validates against them (1.3) where CI runs; these rules
run wherever gbif.py does, and say by name what a document breaks.

What is checked, from the profile's `dataset` and `agentType` definitions:
- the root `eml:eml` in EML 2.2.0's namespace, with `packageId`, `system` and
  `scope="system"`;
- `dataset`'s children in the profile's order, each at most as often as it
  allows: alternateIdentifier*, title+, creator+, metadataProvider+ (1.1),
  associatedParty*, pubDate, language?, abstract, keywordSet*,
  additionalInfo?, intellectualRights?, distribution?, coverage?, purpose?,
  introduction?, gettingStarted?, acknowledgements?, maintenance?, contact+,
  publisher?, methods?, project? (catalogue writes the publisher as an
  associatedParty with the role `publisher`);
- every creator, metadataProvider and contact names a person (with a
  surName), an organisation or a position; a userId has a directory;
- pubDate a date, abstract and intellectualRights a `para`; each keywordSet
  one or more keywords and one keywordThesaurus;
- intellectualRights links one of the three licences GBIF accepts;
- coverage: a geographicDescription and four decimal bounding coordinates
  (west <= east, south <= north, within the globe); a rangeOfDates with a
  beginDate and an endDate (calendar dates, in order); each
  taxonomicClassification a taxonRankValue;
- maintenance: a description and a maintenanceUpdateFrequency of the
  profile's vocabulary;
- additionalMetadata/metadata/gbif with a dateStamp and hierarchyLevel.
"""
import datetime
import re
import xml.etree.ElementTree as ET

EML_NS = "https://eml.ecoinformatics.org/eml-2.2.0"
ORDER = ["alternateIdentifier", "title", "creator", "metadataProvider", "associatedParty",
         "pubDate", "language", "abstract", "keywordSet", "additionalInfo",
         "intellectualRights", "distribution", "coverage", "purpose", "introduction",
         "gettingStarted", "acknowledgements", "maintenance", "contact", "publisher", "methods",
         "project"]
REPEATED = {"alternateIdentifier", "title", "creator", "metadataProvider", "associatedParty",
            "keywordSet", "contact"}
REQUIRED = {"title", "creator", "metadataProvider", "pubDate", "abstract", "contact"}
LICENCES = {
    "http://creativecommons.org/publicdomain/zero/1.0/legalcode",
    "http://creativecommons.org/licenses/by/4.0/legalcode",
    "http://creativecommons.org/licenses/by-nc/4.0/legalcode",
}
FREQUENCIES = {"annually", "asNeeded", "biannually", "continually", "daily", "irregular",
               "monthly", "notPlanned", "weekly", "unkown", "otherMaintenancePeriod"}


def _date(text):
    try:
        return datetime.date.fromisoformat(text or "")
    except ValueError:
        return None


def _agent(node, where, problems):
    names = [c.tag for c in node]
    person = node.find("individualName")
    if person is not None and not (person.findtext("surName") or "").strip():
        problems.append(f"{where}: individualName without a surName")
    if not ({"individualName", "organizationName", "positionName"} & set(names)):
        problems.append(f"{where}: names no person, organisation or position")
    for user in node.findall("userId"):
        if not user.get("directory"):
            problems.append(f"{where}: userId without a directory")


def check(text):
    """The problems of an eml.xml document (empty: it follows the rules)."""
    problems = []
    root = ET.fromstring(text)
    if root.tag != f"{{{EML_NS}}}eml":
        return [f"the root is {root.tag}, not eml:eml of EML 2.2.0"]
    for attribute in ("packageId", "system", "scope"):
        if not root.get(attribute):
            problems.append(f"eml:eml has no {attribute}")
    if root.get("scope") not in (None, "system"):
        problems.append("eml:eml's scope is not system")
    dataset = root.find("dataset")
    if dataset is None:
        return problems + ["no dataset"]
    tags = [c.tag for c in dataset]
    unknown = [t for t in tags if t not in ORDER]
    if unknown:
        problems.append(f"dataset holds elements the profile does not: {unknown}")
    known = [ORDER.index(t) for t in tags if t in ORDER]
    if known != sorted(known):
        problems.append(f"dataset's elements out of the profile's order: {tags}")
    for tag in set(tags):
        if tags.count(tag) > 1 and tag not in REPEATED:
            problems.append(f"{tag} more than once")
    for tag in REQUIRED - set(tags):
        problems.append(f"no {tag}, which the profile requires")
    if not all((t.text or "").strip() for t in dataset.findall("title")):
        problems.append("an empty title")
    for tag in ("creator", "metadataProvider", "contact", "associatedParty"):
        for i, node in enumerate(dataset.findall(tag)):
            _agent(node, f"{tag}[{i}]", problems)
    for i, node in enumerate(dataset.findall("associatedParty")):
        if not (node.findtext("role") or "").strip():
            problems.append(f"associatedParty[{i}] without a role")
    if _date(dataset.findtext("pubDate")) is None:
        problems.append(f"pubDate {dataset.findtext('pubDate')!r} is not a date")
    for tag in ("abstract", "intellectualRights", "additionalInfo", "purpose"):
        node = dataset.find(tag)
        if node is not None and not (node.find("para") is not None and "".join(node.find("para").itertext()).strip()):
            problems.append(f"{tag} without a para")
    for i, keywords in enumerate(dataset.findall("keywordSet")):
        if not keywords.findall("keyword") or len(keywords.findall("keywordThesaurus")) != 1:
            problems.append(f"keywordSet[{i}] needs keywords and one keywordThesaurus")
    rights = dataset.find("intellectualRights")
    if rights is not None:
        urls = {u.get("url") for u in rights.iter("ulink")}
        if not urls & LICENCES:
            problems.append(f"intellectualRights links none of GBIF's licences: {urls}")
    coverage = dataset.find("coverage")
    if coverage is not None:
        geo = coverage.find("geographicCoverage")
        if geo is not None:
            if not (geo.findtext("geographicDescription") or "").strip():
                problems.append("geographicCoverage without a geographicDescription")
            box = {}
            for side in ("west", "east", "north", "south"):
                value = geo.findtext(f"boundingCoordinates/{side}BoundingCoordinate")
                if value is None or not re.fullmatch(r"-?\d+(\.\d+)?", value):
                    problems.append(f"{side}BoundingCoordinate {value!r} is not a decimal")
                else:
                    box[side] = float(value)
            if len(box) == 4 and not (-180 <= box["west"] <= box["east"] <= 180
                                      and -90 <= box["south"] <= box["north"] <= 90):
                problems.append(f"the bounding box is not a box on the globe: {box}")
        when = coverage.find("temporalCoverage")
        if when is not None:
            begin = _date(when.findtext("rangeOfDates/beginDate/calendarDate"))
            end = _date(when.findtext("rangeOfDates/endDate/calendarDate"))
            if begin is None or end is None or begin > end:
                problems.append(f"rangeOfDates is not a range of dates: {begin}, {end}")
        for i, c in enumerate(coverage.findall("taxonomicCoverage/taxonomicClassification")):
            if not (c.findtext("taxonRankValue") or "").strip():
                problems.append(f"taxonomicClassification[{i}] without a taxonRankValue")
    maintenance = dataset.find("maintenance")
    if maintenance is not None:
        if maintenance.find("description") is None:
            problems.append("maintenance without a description")
        if maintenance.findtext("maintenanceUpdateFrequency") not in FREQUENCIES:
            problems.append(f"maintenanceUpdateFrequency {maintenance.findtext('maintenanceUpdateFrequency')!r}")
    gbif = root.find("additionalMetadata/metadata/gbif")
    if gbif is None:
        problems.append("no additionalMetadata/metadata/gbif")
    elif not gbif.findtext("dateStamp") or gbif.findtext("hierarchyLevel") != "dataset":
        problems.append("gbif metadata without a dateStamp or hierarchyLevel dataset")
    return problems


def coverage(text):
    """What an eml.xml says its records cover: (west, east, north, south) or
    None, (first, last) dates or None, the orders and the families."""
    dataset = ET.fromstring(text).find("dataset")
    c = dataset.find("coverage")
    if c is None:
        return None, None, set(), set()
    box = None
    if c.find("geographicCoverage") is not None:
        box = tuple(float(c.findtext(f"geographicCoverage/boundingCoordinates/{s}BoundingCoordinate"))
                    for s in ("west", "east", "north", "south"))
    dates = None
    if c.find("temporalCoverage") is not None:
        dates = (c.findtext("temporalCoverage/rangeOfDates/beginDate/calendarDate"),
                 c.findtext("temporalCoverage/rangeOfDates/endDate/calendarDate"))
    ranks = {"order": set(), "family": set()}
    for t in c.findall("taxonomicCoverage/taxonomicClassification"):
        ranks.setdefault(t.findtext("taxonRankName"), set()).add(t.findtext("taxonRankValue"))
    return box, dates, ranks["order"], ranks["family"]


def _span(event_date):
    """The first and last day an eventDate (YYYY, YYYY-MM or YYYY-MM-DD) means
    (a day the month does not have: the month)."""
    parts = [int(p) for p in event_date.split("-")]
    if len(parts) == 3:
        try:
            day = datetime.date(*parts)
            return day, day
        except ValueError:  # no such day (31 April): its month
            parts = parts[:2]
    if len(parts) == 2:
        first = datetime.date(parts[0], parts[1], 1)
        following = datetime.date(parts[0] + parts[1] // 12, parts[1] % 12 + 1, 1)
        return first, following - datetime.timedelta(days=1)
    return datetime.date(parts[0], 1, 1), datetime.date(parts[0], 12, 31)


def expected_coverage(rows):
    """The coverage of occurrence rows (dicts of term name to value) computed
    from the rows themselves."""
    points = [(float(r["decimalLongitude"]), float(r["decimalLatitude"]))
              for r in rows if r.get("decimalLatitude") and r.get("decimalLongitude")]
    box = None
    if points:
        lons = [p[0] for p in points]
        lats = [p[1] for p in points]
        box = (min(lons), max(lons), max(lats), min(lats))
    spans = [_span(r["eventDate"]) for r in rows if r.get("eventDate")]
    dates = None
    if spans:
        dates = (min(s[0] for s in spans).isoformat(), max(s[1] for s in spans).isoformat())
    orders = {r["order"] for r in rows if r.get("order")}
    families = {r["family"] for r in rows if r.get("family")}
    return box, dates, orders, families
