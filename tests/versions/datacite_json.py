"""DataCite's XML (kernel 4.5) read into the JSON form the `datacite` package
validates against DataCite's JSON schema 4.5 and writes back as XML: the
check that catalogue's `format=datacite` is what DataCite takes."""
import xml.etree.ElementTree as ET

NS = "{http://datacite.org/schema/kernel-4}"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# The package's spelling of an attribute (`schemeURI`: `schemeUri`).
RENAMED = {"schemeURI": "schemeUri", "rightsURI": "rightsUri", XML_LANG: "lang"}


def attributes(element):
    return {RENAMED.get(k, k): v for k, v in element.attrib.items()}


def party(element, name_tag):
    said = {"name": element.findtext(NS + name_tag)}
    said.update(attributes(element))
    said.update(attributes(element.find(NS + name_tag)))
    for tag in ("givenName", "familyName"):
        if element.find(NS + tag) is not None:
            said[tag] = element.findtext(NS + tag)
    ids = [dict(attributes(i), nameIdentifier=i.text) for i in element.findall(NS + "nameIdentifier")]
    if ids:
        said["nameIdentifiers"] = ids
    affiliations = [{"name": a.text} for a in element.findall(NS + "affiliation")]
    if affiliations:
        said["affiliation"] = affiliations
    return said


def listed(root, plural, singular, key):
    return [dict(attributes(e), **{key: e.text}) for e in root.findall(f"{NS}{plural}/{NS}{singular}")]


def to_json(text):
    """The JSON form of a DataCite XML document."""
    root = ET.fromstring(text)
    resource_type = root.find(NS + "resourceType")
    data = {
        "schemaVersion": "http://datacite.org/schema/kernel-4",
        "creators": [party(c, "creatorName") for c in root.findall(f"{NS}creators/{NS}creator")],
        "titles": listed(root, "titles", "title", "title"),
        "publisher": {"name": root.findtext(NS + "publisher")},
        "publicationYear": root.findtext(NS + "publicationYear"),
        "types": {"resourceTypeGeneral": resource_type.get("resourceTypeGeneral"),
                  "resourceType": resource_type.text},
    }
    if root.findtext(NS + "identifier"):
        data["doi"] = root.findtext(NS + "identifier")
    optional = {
        "subjects": listed(root, "subjects", "subject", "subject"),
        "contributors": [party(c, "contributorName") for c in root.findall(f"{NS}contributors/{NS}contributor")],
        "dates": listed(root, "dates", "date", "date"),
        "alternateIdentifiers": listed(root, "alternateIdentifiers", "alternateIdentifier", "alternateIdentifier"),
        "relatedIdentifiers": listed(root, "relatedIdentifiers", "relatedIdentifier", "relatedIdentifier"),
        "formats": [f.text for f in root.findall(f"{NS}formats/{NS}format")],
        "rightsList": listed(root, "rightsList", "rights", "rights"),
        "descriptions": listed(root, "descriptions", "description", "description"),
    }
    data.update({k: v for k, v in optional.items() if v})
    for key in ("language", "version"):
        if root.findtext(NS + key):
            data[key] = root.findtext(NS + key)
    return data


def shape(text):
    """Each element of a DataCite XML document as (path, attributes, text),
    sorted: what two spellings of one document share."""
    said = []

    def walk(element, path):
        path = f"{path}/{element.tag.replace(NS, '')}"
        attrs = tuple(sorted((k, v) for k, v in element.attrib.items()
                             if not k.startswith("{http://www.w3.org/2001/XMLSchema-instance}")))
        said.append((path, attrs, (element.text or "").strip()))
        for child in element:
            walk(child, path)

    walk(ET.fromstring(text), "")
    return sorted(said)
