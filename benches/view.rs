//! Load-time and request-path costs on a generated collection.
//!
//! `cargo bench --bench view`: sizes from `CATALOGUE_BENCH_SPECIMENS`, a comma-separated
//! list (default `10000,100000`). Generated snapshots are cached in the temp directory.

use std::hint::black_box;
use std::path::PathBuf;

use catalogue::html::{self, ListPage, Site};
use catalogue::model::{Endpoint, Model};
use catalogue::query::{Limits, Params, Plan};
use catalogue::serve::router;
use catalogue::serve::settings::Settings;
use catalogue::view::View;
use criterion::{criterion_group, criterion_main, Criterion};

fn snapshot(specimens: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("catalogue-bench-{specimens}"));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("collection.bin");
    if !bin.exists() {
        let json = dir.join("collection.json");
        let file = std::fs::File::create(&json).unwrap();
        catalogue::ingest::synthetic::write(std::io::BufWriter::new(file), specimens, 1).unwrap();
        let checked = catalogue::ingest::from_fixtures(&[json]);
        catalogue::ingest::write_snapshot(&checked, &bin, catalogue::view::prepared::encode)
            .unwrap();
    }
    bin
}

/// The quality checks' boundaries: reading them (once per process), and a
/// point tested against a country, state and county, inside and outside.
fn boundaries(c: &mut Criterion) {
    use catalogue::quality::boundaries::{Boundaries, BUILT_IN};
    use catalogue::quality::checks::{place, Place};
    let mut group = c.benchmark_group("quality");
    group.sample_size(10);
    group.bench_function("read the boundaries", |b| {
        b.iter(|| Boundaries::read(black_box(BUILT_IN)))
    });
    group.sample_size(100);
    let named = |county| Place {
        country: Some(("United States of America", "USA")),
        state: Some(("Michigan", "MI")),
        county: Some(county),
    };
    for (name, point, county) in [
        (
            "a point in its country, state and county",
            [-83.74, 42.28],
            "Washtenaw",
        ),
        ("a point in another county", [-83.74, 42.28], "Marquette"),
        (
            "a point swapped (the country and three tries)",
            [42.28, -83.74],
            "Washtenaw",
        ),
    ] {
        group.bench_function(name, |b| b.iter(|| place(black_box(point), named(county))));
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    boundaries(c);
    let sizes = std::env::var("CATALOGUE_BENCH_SPECIMENS").unwrap_or("10000,100000".into());
    for size in sizes.split(',') {
        let specimens = size
            .trim()
            .parse()
            .expect("CATALOGUE_BENCH_SPECIMENS: numbers separated by commas");
        at_size(c, specimens);
    }
}

fn at_size(c: &mut Criterion, specimens: usize) {
    let path = snapshot(specimens);
    let bytes = std::fs::read(&path).unwrap();

    let mut load = c.benchmark_group(format!("load/{specimens}"));
    load.sample_size(10);
    load.bench_function("decode", |b| {
        b.iter(|| catalogue::snapshot::decode(&path, black_box(&bytes)).unwrap())
    });
    load.bench_function("decode+build view", |b| {
        b.iter(|| View::load(&path).unwrap())
    });
    // What `build` and every `sync` that publishes spend making the tables
    // the server reads.
    let (_, collection) = catalogue::snapshot::decode(&path, &bytes).unwrap();
    load.bench_function("prepare the tables", |b| {
        b.iter(|| catalogue::view::prepared::encode(black_box(&collection)))
    });
    load.finish();

    let view = View::load(&path).unwrap();
    let mut quality = c.benchmark_group(format!("quality/{specimens}"));
    quality.sample_size(10);
    quality.bench_function("every specimen's flags", |b| {
        b.iter(|| catalogue::quality::Quality::find(black_box(&view)))
    });
    quality.finish();
    let specimens_list = Endpoint {
        model: Model::SpecimenRecord,
        nested: false,
    };
    let mut req = c.benchmark_group(format!("request/{specimens}"));
    let deep = format!("limit=20&offset={}", specimens * 9 / 10);
    for (name, q) in [
        ("page cut, deep", deep.as_str()),
        ("filter+page, substring", "collector_lastname=bro&limit=20"),
        ("filter+page, exact", "year=1990&sex=female&limit=20"),
        (
            "filter+page, related+own",
            "order=lepi&method=light&full_date=june&limit=20",
        ),
        ("filter+page, related only", "order=lepi&limit=20"),
        ("filter+page, own substring only", "full_date=june&limit=20"),
        (
            "filter+page, broad related",
            "family=idae&offset=500&limit=20",
        ),
        ("search+page", "search=moth+june&limit=20"),
        ("search+page, one word", "search=moth&offset=100&limit=20"),
        ("sort+page", "sort=-year,usi&limit=20"),
        (
            "sort+page, one key, deep",
            "sort=-notes&offset=50000&limit=20",
        ),
        (
            "sort+page, filtered",
            "sex=female&sort=date_modified&offset=1000&limit=20",
        ),
        ("facet, related", "facet=family&limit=20"),
        ("facet, unique scalar", "facet=usi&limit=20"),
        (
            "facet, filtered",
            "year=1990&facet=determined_year,family&limit=20",
        ),
        (
            "fields, page of 20",
            "fields=_,usi,taxon(_,name,authority)&limit=20",
        ),
    ] {
        let params = Params::parse(q).unwrap();
        let limits = Limits::default();
        req.bench_function(name, |b| {
            b.iter(|| {
                Plan::parse(specimens_list, black_box(&params), &limits)
                    .unwrap()
                    .run(&view)
            })
        });
    }
    req.finish();

    // A list of 10,000 USIs as a POSTed form carries it (9,000 known, spread
    // over the collection, and 1,000 unknown): the form read, the plan parsed
    // and a page of the answer cut, with its total. The USIs are looked up in a
    // set, one pass over the rows, not scanned for each.
    let mut lists = c.benchmark_group(format!("usi list/{specimens}"));
    lists.sample_size(20);
    let step = (specimens / 9_000).max(1);
    let known = (1..=specimens).step_by(step).take(9_000);
    let unknown = (0..1_000).map(|i| format!("NONE-{i:06}"));
    let usis: Vec<String> = known
        .map(|id| format!("CAT-{id:06}"))
        .chain(unknown)
        .collect();
    let form = format!("limit=20&usi={}", usis.join("%2C"));
    let expected = (1..=specimens).step_by(step).take(9_000).count();
    let answered = Plan::parse(
        specimens_list,
        &Params::parse(&form).unwrap(),
        &Limits::default(),
    )
    .unwrap()
    .run(&view);
    assert_eq!(answered.total, expected, "every known USI found once");
    lists.bench_function("10,000 usis, a page of 20", |b| {
        b.iter(|| {
            let params = Params::parse(black_box(&form)).unwrap();
            Plan::parse(specimens_list, &params, &Limits::default())
                .unwrap()
                .run(&view)
        })
    });
    lists.finish();

    // A page for people: the same plan, its page written as HTML from the rows,
    // with the label form's facets on the specimen list (as `serve` asks for them).
    let mut pages = c.benchmark_group(format!("page/{specimens}"));
    let site = Site::default();
    for (name, q) in [
        ("html page of 20", "limit=20"),
        ("html page of 20, deep", deep.as_str()),
        (
            "html page of 20, broad filter",
            "family=idae&sex=female&limit=20",
        ),
    ] {
        let shown = Params::parse(q).unwrap();
        let limits = Limits::default();
        pages.bench_function(name, |b| {
            b.iter(|| {
                let plan = Plan::parse(specimens_list, black_box(&shown), &limits)
                    .and_then(|plan| plan.for_page(&shown, html::MAX_ROWS))
                    .unwrap()
                    .0;
                let (offset, limit, columns) = (plan.offset(), plan.limit(), plan.columns());
                let selected = plan.select_page(&view);
                let page = ListPage {
                    endpoint: specimens_list,
                    params: &shown,
                    total: selected.total,
                    rows: selected.positions(),
                    columns,
                    media_base: "http://h/media/",
                    facets: selected.facets.as_ref(),
                    offset,
                    limit,
                    clamped_from: None,
                    error: None,
                    ignored: &[],
                    repeated: &[],
                    label_codes: html::LabelCodes::Settled,
                    did_you_mean: &[],
                };
                html::list(&site, &view, &page)
            })
        });
    }
    pages.finish();

    // GBIF's search by a polygon of 10,000 vertices, the most a request may
    // carry: the ring read, its edges indexed, every specimen's point tested
    // (the search's columns made before, as the first search makes them).
    let mut gbif = c.benchmark_group(format!("gbif/{specimens}"));
    gbif.sample_size(20);
    let _ = catalogue::query::gbif::Search::parse(&Params::parse("limit=1").unwrap(), &view)
        .unwrap()
        .run(&view);
    for (name, step) in [
        ("polygon of 10,000 vertices, an ellipse", 1),
        ("polygon of 10,000 vertices, a star crossing itself", 7),
    ] {
        let params = Params::parse(&polygon(9_999, step)).unwrap();
        // Some specimens inside, some out: every point is tested.
        let found = catalogue::query::gbif::Search::parse(&params, &view)
            .unwrap()
            .run(&view);
        assert!(0 < found.count && found.count < specimens, "{name}");
        gbif.bench_function(name, |b| {
            b.iter(|| {
                catalogue::query::gbif::Search::parse(black_box(&params), &view)
                    .unwrap()
                    .run(&view)
            })
        });
    }
    gbif.finish();

    // Suggestions: the index built, and a name begun, typed with a typo, and
    // typed with two (the view's first species with a binomial of 8 or more).
    let mut suggest = c.benchmark_group(format!("suggest/{specimens}"));
    suggest.sample_size(10);
    suggest.bench_function("build the index", |b| {
        b.iter(|| catalogue::suggest::Suggestions::build(black_box(&view)))
    });
    suggest.sample_size(100);
    let index = catalogue::suggest::Suggestions::build(&view);
    let binomial = (0..view.table(Model::Species).len() as u32)
        .filter_map(|p| view.value(Model::Species, p, "binomial").as_str())
        .find(|b| b.len() >= 8)
        .expect("a generated collection has binomials")
        .to_owned();
    let one = format!("{}{}", &binomial[..2], &binomial[3..]);
    let two = format!("{}x{}", &binomial[..1], &one[2..]);
    for (name, typed) in [
        ("begun", &binomial[..5]),
        ("one typo", &one[..]),
        ("two typos", &two[..]),
    ] {
        suggest.bench_function(name, |b| {
            b.iter(|| index.find(&view, black_box(typed), &[], 10))
        });
    }
    suggest.finish();

    // The whole request as the server answers it, less the socket: the target
    // named, the request read, the plan, the tag, the headers, the metrics.
    let state = catalogue::serve::state(view, Settings::default());
    let routes = router::routes(state);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut served = c.benchmark_group(format!("served/{specimens}"));
    let deep_url = format!("/api/v2/specimen-records/?{deep}");
    let record_url = format!("/api/v2/specimen-records/{}/", specimens / 2);
    for (name, url) in [
        ("page cut, deep", deep_url.as_str()),
        ("first page", "/api/v2/specimen-records/"),
        ("record", record_url.as_str()),
    ] {
        // A refusal or a 404 is fast too: measure only what answers.
        let answered = runtime.block_on(
            warp::test::request()
                .path(url)
                .header("host", "h")
                .reply(&routes),
        );
        assert_eq!(answered.status(), 200, "{url}");
        served.bench_function(name, |b| {
            b.iter(|| {
                let request = warp::test::request().path(url).header("host", "h");
                runtime.block_on(request.reply(&routes))
            })
        });
    }
    served.finish();
}

/// A search's query with a closed ring of `n` + 1 vertices on an ellipse of
/// 90 by 60 degrees, each `step` points round from the one before (1: the
/// ellipse; a step that shares no factor with `n`: a star crossing itself
/// at almost every edge).
fn polygon(n: usize, step: usize) -> String {
    let mut ring: Vec<String> = (0..n)
        .map(|i| {
            let a = (i * step % n) as f64 / n as f64 * std::f64::consts::TAU;
            format!("{:.6} {:.6}", 90.0 * a.cos(), 60.0 * a.sin())
        })
        .collect();
    ring.push(ring[0].clone());
    let mut q = String::from("limit=20&geometry=");
    let wkt = format!("POLYGON(({}))", ring.join(","));
    catalogue::encoding::percent::form_encode(&mut q, &wkt);
    q
}

criterion_group!(all, benches);
criterion_main!(all);
