"""Loads a fixture file (as `catalogue generate` writes) into a new SQLite database
laid out as the existing service's: as it is today (tests/database/sqlite.sql), or
before its 0.16 (tests/database/sqlite-0.10.sql) for a fixture with the typed
image models. What benches/sync_tick.sh measures `catalogue sync` against.

    usage: python3 benches/fixture_to_sqlite.py FIXTURE.json DATABASE.sqlite3 [--force]

A DATABASE that exists already is refused (--force replaces it). Says what it wrote.
"""
import argparse
import json
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

# Fixture fields that are foreign keys (`x` is the column `x_id`).
FOREIGN = {
    "order", "family", "subfamily", "tribe", "genus", "species", "subspecies",
    "country", "state", "county", "locality", "gps", "collecting_trip",
    "determiner", "preparer", "image", "species_page", "collection", "uploaded_by_user",
    "specimen_record", "featured_image", "tag", "content_type", "root_page",
    "locale", "alias_of",
}
# Tables not named after their model's label.
TABLE = {"contenttypes_contenttype": "django_content_type"}
TYPED = {"images.baseliveimage", "images.specimenrecordimage", "images.insectimage",
         "images.plantimage", "images.habitatimage"}
# Django's multi-table inheritance names the pointer to the parent's row.
PK = {
    "images_baseliveimage": "customimage_ptr_id",
    "images_specimenrecordimage": "customimage_ptr_id",
    "images_insectimage": "baseliveimage_ptr_id",
    "images_plantimage": "baseliveimage_ptr_id",
    "images_habitatimage": "baseliveimage_ptr_id",
    "pages_speciespage": "page_ptr_id",
}
LINK_TARGET = {"states": "state_id", "collector": "person_id"}


def is_instant(field):
    return (field.startswith("date_") and field != "date") or field in (
        "created_at", "first_published_at", "last_published_at")


def main(fixture, database, force=False):
    if Path(database).exists():
        if not force:
            sys.exit(f"{database} exists already: give a new path, or --force to replace it")
        Path(database).unlink()
    objects = json.load(open(fixture))
    typed = any(obj["model"] in TYPED for obj in objects)
    name = "sqlite-0.10.sql" if typed else "sqlite.sql"
    ddl = (Path(__file__).resolve().parent.parent / "tests/database" / name).read_text()
    db = sqlite3.connect(database)
    db.executescript(ddl)
    rows = defaultdict(list)  # (table, columns) -> values
    for obj in objects:
        table = obj["model"].replace(".", "_")
        table = TABLE.get(table, table)
        if table == "home_homepage":
            continue
        pk = obj["pk"]
        columns, values = [PK.get(table, "id")], [pk]
        for field, value in obj["fields"].items():
            if isinstance(value, list):
                owner = table.split("_", 1)[1] + "_id"
                target = LINK_TARGET.get(field, "speciespage_id")
                for target_id in value:
                    rows[(f"{table}_{field}", (owner, target))].append((pk, target_id))
                continue
            foreign = field in FOREIGN or (table == "images_specimenrecordimage" and field == "usi")
            columns.append(f"{field}_id" if foreign else field)
            if isinstance(value, str) and is_instant(field):
                value = value.replace("T", " ").rstrip("Z")
            values.append(value)
        if table == "wagtailcore_page":
            # Columns of Wagtail's tree that catalogue does not read but the table needs.
            columns += ["path", "depth", "has_unpublished_changes", "draft_title"]
            values += [f"0001{pk:08d}", 2, False, obj["fields"].get("title", "")]
        rows[(table, tuple(columns))].append(tuple(values))
    for (table, columns), values in rows.items():
        names = ", ".join(f'"{c}"' for c in columns)
        marks = ", ".join("?" for _ in columns)
        db.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', values)
    db.commit()
    tables = {table for table, _ in rows}
    count = sum(len(values) for values in rows.values())
    print(f"wrote {database}: {count} rows in {len(tables)} tables, laid out as "
          f"tests/database/{name}; read it with "
          f"catalogue build --from-db sqlite:///{Path(database).resolve()} -o collection.bin")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fixture")
    parser.add_argument("database")
    parser.add_argument("--force", action="store_true", help="replace DATABASE if it exists")
    args = parser.parse_args()
    main(args.fixture, args.database, args.force)
