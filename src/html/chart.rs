//! Seasons as charts: specimens by month and by year, drawn here as SVG so no
//! script is needed to see them. Each bar is a link to that month's or year's
//! list and says its number in words for screen readers (`aria-label`) and in
//! its attributes (`data-value`, `data-count`), which the tests read back.

use maud::{html, Markup};

use crate::model::vocabulary::MONTHS;
use crate::query::holdings::Seasons;

/// The drawing's size in its own units; it scales to the page's width.
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 180.0;
/// Room below the bars for their labels, above them for the numbers.
const BELOW: f64 = 22.0;
const ABOVE: f64 = 16.0;

/// One bar: what it counts, its label under the axis (if any), how many, and the
/// list it links to.
struct Bar {
    value: String,
    label: Option<String>,
    count: usize,
    href: String,
}

/// The two charts of a question's seasons; `link(name, value)` is the list of the
/// same question with the filter `name=value` added.
pub fn seasons(seasons: &Seasons, link: &dyn Fn(&str, &str) -> String) -> Markup {
    let months: Vec<Bar> = MONTHS
        .iter()
        .zip(seasons.months)
        .map(|(m, count)| Bar {
            value: m.to_string(),
            label: Some(m[..3].to_string()),
            count,
            href: link("month", m),
        })
        .collect();
    let years = year_bars(seasons, link);
    let (no_month, no_year) = (seasons.without_month(), seasons.without_year());
    html! {
        section.seasons aria-labelledby="seasons-heading" {
            h2 id="seasons-heading" { "Seasons" }
            figure.chart {
                figcaption { "Specimens by month" @if no_month > 0 { " (" (no_month) " without a month)" } }
                (svg("month", &months, true))
            }
            @if years.is_empty() {
                p.note { "No specimen records its year." }
            } @else {
                figure.chart {
                    figcaption { "Specimens by year" @if no_year > 0 { " (" (no_year) " without a year)" } }
                    (svg("year", &years, false))
                }
            }
        }
    }
}

/// A bar for every year from the first to the last (a year without specimens is
/// a gap, not a link); every tenth year labelled, or the ends of a short span.
fn year_bars(seasons: &Seasons, link: &dyn Fn(&str, &str) -> String) -> Vec<Bar> {
    let (Some(&(first, _)), Some(&(last, _))) = (seasons.years.first(), seasons.years.last())
    else {
        return Vec::new();
    };
    let span = last - first + 1;
    let step = match span {
        ..=12 => 1,
        13..=40 => 5,
        41..=120 => 10,
        _ => 50,
    };
    let mut counts = seasons.years.iter().peekable();
    (first..=last)
        .map(|year| {
            let count = match counts.peek() {
                Some(&&(y, n)) if y == year => {
                    counts.next();
                    n
                }
                _ => 0,
            };
            Bar {
                value: year.to_string(),
                label: (year % step == 0 || span <= 12).then(|| year.to_string()),
                count,
                href: link("year", &year.to_string()),
            }
        })
        .collect()
}

/// One chart: bars scaled to the largest count; `numbers` writes each count above
/// its bar (where there is room: the months).
fn svg(name: &str, bars: &[Bar], numbers: bool) -> Markup {
    let most = bars.iter().map(|b| b.count).max().unwrap_or(0).max(1) as f64;
    let slot = WIDTH / bars.len().max(1) as f64;
    let gap = (slot * 0.2).min(6.0);
    let room = HEIGHT - BELOW - ABOVE;
    let base = HEIGHT - BELOW;
    let unit = |n: usize| if n == 1 { "specimen" } else { "specimens" };
    html! {
        svg.bars xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 {WIDTH} {HEIGHT}"))
            role="group" aria-label=(format!("Specimens by {name}")) data-chart=(name) {
            line.axis x1="0" y1=(base) x2=(WIDTH) y2=(base) {}
            @for (i, bar) in bars.iter().enumerate() {
                @let x = i as f64 * slot;
                @let h = (bar.count as f64 / most * room).max(if bar.count > 0 { 1.5 } else { 0.0 });
                @let words = format!("{}: {} {}", bar.value, bar.count, unit(bar.count));
                @if bar.count > 0 {
                    a href=(bar.href) aria-label=(words) {
                        title { (words) }
                        rect.bar x=(fmt(x + gap / 2.0)) y=(fmt(base - h)) width=(fmt(slot - gap)) height=(fmt(h))
                            data-value=(bar.value) data-count=(bar.count) {}
                        @if numbers {
                            text.count x=(fmt(x + slot / 2.0)) y=(fmt(base - h - 4.0)) text-anchor="middle" { (bar.count) }
                        }
                    }
                } @else {
                    rect.empty x=(fmt(x + gap / 2.0)) y=(fmt(base)) width=(fmt(slot - gap)) height="0"
                        data-value=(bar.value) data-count="0" {}
                }
                @if let Some(label) = &bar.label {
                    text.label x=(fmt(x + slot / 2.0)) y=(fmt(HEIGHT - 6.0)) text-anchor="middle" aria-hidden="true" { (label) }
                }
            }
        }
    }
}

/// A coordinate to two decimals (an SVG needs no more).
fn fmt(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_say_their_counts_and_link_their_lists() {
        let mut s = Seasons {
            total: 7,
            years: vec![(2018, 1), (2021, 5)],
            ..Seasons::default()
        };
        s.months[5] = 4;
        s.months[9] = 1;
        let out = seasons(&s, &|k, v| format!("/x/?{k}={v}")).into_string();
        assert!(out.contains(r#"<a href="/x/?month=June" aria-label="June: 4 specimens">"#));
        assert!(out.contains(r#"data-value="October" data-count="1""#));
        assert!(out.contains(r#"data-value="2019" data-count="0""#));
        assert!(out.contains(r#"aria-label="2021: 5 specimens""#));
        assert!(out.contains("(2 without a month)") && out.contains("(1 without a year)"));
        assert_eq!(out.matches("<rect").count(), 12 + 4);
        assert_eq!(fmt(12.0), "12");
        assert_eq!(fmt(1.255), "1.25");
    }
}
