// Calls every list of a catalogue server through openapi-fetch, typed by
// openapi-typescript from the server's own document, and prints each list's
// total_count. usage: node build/check.js BASE_URL
import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

// Every list path the document has, as a type: a path without `{id}` that
// answers with a `meta`.
type ListPath = {
  [P in keyof paths]: P extends `${string}{id}${string}`
    ? never
    : paths[P]["get"] extends { responses: { 200: { content: { "application/json": { meta: unknown } } } } }
      ? P
      : never;
}[keyof paths];

// Written out so that tsc checks each one is a list path; the run checks that
// none of the document's lists is missing.
const lists: ListPath[] = [
  "/api/v2/collecting-trips/",
  "/api/v2/counties/",
  "/api/v2/countries/",
  "/api/v2/documents/",
  "/api/v2/families/",
  "/api/v2/genera/",
  "/api/v2/gps-coordinates/",
  "/api/v2/habitat-images/",
  "/api/v2/images/",
  "/api/v2/insect-images/",
  "/api/v2/localities/",
  "/api/v2/nested-counties/",
  "/api/v2/nested-families/",
  "/api/v2/nested-genera/",
  "/api/v2/nested-gps-coordinates/",
  "/api/v2/nested-localities/",
  "/api/v2/nested-species/",
  "/api/v2/nested-states/",
  "/api/v2/nested-subfamilies/",
  "/api/v2/nested-subspecies/",
  "/api/v2/nested-tribes/",
  "/api/v2/orders/",
  "/api/v2/pages/",
  "/api/v2/people/",
  "/api/v2/plant-images/",
  "/api/v2/species/",
  "/api/v2/species-pages/",
  "/api/v2/specimen-record-images/",
  "/api/v2/specimen-records/",
  "/api/v2/states/",
  "/api/v2/subfamilies/",
  "/api/v2/subspecies/",
  "/api/v2/tribes/",
];

const base = process.argv[2];
if (!base) throw new Error("usage: node build/check.js BASE_URL");
const client = createClient<paths>({ baseUrl: base });

type Operation = { get?: { responses?: { "200"?: { content?: Record<string, unknown> } } } };
const document = (await (await fetch(`${base}/api/v2/openapi.json`)).json()) as { paths: Record<string, Operation> };
// The lists: paths without `{id}` whose answer is JSON (the label sheets are documents).
const listed = Object.keys(document.paths).filter(
  (p) =>
    p.startsWith("/api/v2/") &&
    !p.includes("{id}") &&
    p.endsWith("/") &&
    document.paths[p].get?.responses?.["200"]?.content?.["application/json"] !== undefined,
);
// The checklist answers with a `meta` too, but takes a question, not a page;
// the suggestions take a text, the changes a version: each is called on its
// own below, and the versions, the quality flags' counts and the publishing
// report with them.
const questions = [
  "/api/v2/specimen-records/checklist/",
  "/api/v2/suggest/",
  "/api/v2/versions/",
  "/api/v2/changes/",
  "/api/v2/quality/",
  "/api/v2/publishing/",
];
const missing = listed.filter((p) => !(lists as string[]).includes(p) && !questions.includes(p));
if (missing.length > 0) throw new Error(`lists this program does not call: ${missing.join(", ")}`);

for (const path of lists) {
  const { data, error, response } = await client.GET(path, { params: { query: { limit: 1 } } });
  if (data === undefined) throw new Error(`${path}: ${response.status} ${JSON.stringify(error)}`);
  const count: number = data.meta.total_count;
  console.log(`${path} ${count}`);
}
console.log(`typescript client: ${lists.length} lists answered`);

// A document, typed too: a question's data labels as CSV.
const sheet = await client.GET("/api/v2/specimen-records/labels/", {
  params: { query: { kind: "data", format: "csv", sort: "-id" } },
  parseAs: "text",
});
if (sheet.data === undefined || !sheet.data.startsWith("usi,region,locality,point,date,collectors")) {
  throw new Error(`labels as CSV: ${sheet.response.status}`);
}
console.log(`typescript client: ${sheet.data.trim().split("\n").length - 1} labels as CSV`);

// The species checklist of a question, typed: every taxon counts its specimens,
// and those plus the ones without a taxon are the question's specimens.
const checklist = await client.GET("/api/v2/specimen-records/checklist/", {});
// The operation also answers CSV and HTML, so the body's type is theirs too.
const taxa = checklist.data;
if (taxa === undefined || typeof taxa === "string") throw new Error(`checklist: ${checklist.response.status}`);
const counted = taxa.items.reduce((sum, taxon) => sum + taxon.specimens, 0);
if (counted + taxa.meta.without_taxon !== taxa.meta.specimens || taxa.items.length === 0) {
  throw new Error(`checklist: ${counted} + ${taxa.meta.without_taxon} specimens of ${taxa.meta.specimens}`);
}
console.log(`typescript client: a checklist of ${taxa.meta.total_count} taxa, ${taxa.meta.specimens} specimens`);

// Suggestions as one types, typed: the records that complete a text with a typo.
const suggested = await client.GET("/api/v2/suggest/", { params: { query: { q: "danus plex", limit: 5 } } });
const found = suggested.data;
if (found === undefined) throw new Error(`suggest: ${suggested.response.status}`);
const first = found.items[0];
if (first === undefined || first.kind !== "species" || !first.url.startsWith("/api/v2/species/")) {
  throw new Error(`suggest: ${JSON.stringify(found)}`);
}
console.log(`typescript client: "danus plex" suggests ${first.label} (${first.count} specimens)`);

// The versions, typed: the current one, and what changed since it (nothing).
const versions = await client.GET("/api/v2/versions/", { params: { query: { limit: 1 } } });
const current = versions.data?.items[0];
if (current === undefined || current.archive !== "/dwca.zip") throw new Error(`versions: ${versions.response.status}`);
const changes = await client.GET("/api/v2/changes/", { params: { query: { since: current.version } } });
if (changes.data === undefined || changes.data.meta.total_count !== 0 || changes.data.meta.version !== current.version) {
  throw new Error(`changes: ${changes.response.status} ${JSON.stringify(changes.data)}`);
}
console.log(`typescript client: version ${current.version}, published ${current.published}, nothing changed since`);

// The quality flags, typed: each flag's count is the total of the specimen
// list asked for it (`issue`, an array of the flags' names).
const quality = await client.GET("/api/v2/quality/", {});
if (quality.data === undefined || quality.data.flags.length !== 17) throw new Error(`quality: ${quality.response.status}`);
for (const flag of quality.data.flags) {
  const listed = await client.GET("/api/v2/specimen-records/", { params: { query: { issue: [flag.name], limit: 0 } } });
  // The list also answers CSV and NDJSON, so the body's type is theirs too.
  const page = listed.data;
  if (page === undefined || typeof page === "string" || page.meta.total_count !== flag.count) {
    throw new Error(`issue=${flag.name}: ${listed.response.status}, ${JSON.stringify(page)} for ${flag.count}`);
  }
}
console.log(`typescript client: ${quality.data.specimens} specimens, ${quality.data.unflagged} without a quality flag, each flag's list as counted`);

// The publishing report, typed: the version served, nothing held back.
const publishing = await client.GET("/api/v2/publishing/", {});
const report = publishing.data;
if (report === undefined || report.version !== current.version || report.total_count !== report.held.length) {
  throw new Error(`publishing: ${publishing.response.status} ${JSON.stringify(report)}`);
}
console.log(`typescript client: version ${report.version} published ${report.published_at}, ${report.total_count} record(s) held back`);
