//! A sheet's note page: what a printed sheet says of itself, since a header
//! is lost once the file is saved or printed. A question that selects no
//! specimen prints this page alone rather than a blank one; labels that do not
//! fit are listed on it after the labels.

use super::content::Span;
use super::font::Style;
use super::layout::Mark;

/// The note's type size and line height, in points.
const SIZE: f32 = 10.0;
const LEADING: f32 = 14.0;
/// The page's margin, in points.
const MARGIN: f32 = 54.0;
/// Characters a line holds before it wraps (Liberation Sans at 10 pt averages
/// about 5 pt a character; a US Letter page less its margins is 504 pt).
const WRAP: usize = 90;

/// What the note says of a sheet of `labels` labels, `overflow` of which (a
/// USI and the lines that overflow, each) do not fit: `None` when the sheet has
/// labels and all of them fit.
pub fn lines(labels: usize, overflow: &[(&str, &[&str])], question: &str) -> Option<Vec<String>> {
    let asked = match question.is_empty() {
        true => "every specimen".to_string(),
        false => format!("?{question}"),
    };
    if labels == 0 {
        return Some(vec![
            "No labels: this question selects no specimens.".to_string(),
            format!("Question: {asked}"),
            "Loosen its filters, or check them on the specimen list's page.".to_string(),
        ]);
    }
    if overflow.is_empty() {
        return None;
    }
    let mut out = vec![
        match overflow.len() {
            1 => {
                "1 label does not fit, even at 3 pt. It prints cut at the label's edge:".to_string()
            }
            n => {
                format!("{n} labels do not fit, even at 3 pt. They print cut at the label's edge:")
            }
        },
        String::new(),
    ];
    out.extend(
        overflow
            .iter()
            .map(|(usi, lines)| format!("{usi}: {}", lines.join(", "))),
    );
    out.push(String::new());
    out.push(format!("Question: {asked}"));
    out.push(
        "A larger label (width_mm, height_mm) or a smaller type (font_pt) may fit them; \
         the preview (format=html) shows the first page."
            .to_string(),
    );
    Some(out)
}

/// The note's pages on a page of `size` points: its lines wrapped, as many
/// pages as they fill.
pub fn pages(size: [f32; 2], lines: &[String]) -> Vec<Vec<Mark>> {
    let per_page = (((size[1] - 2.0 * MARGIN) / LEADING) as usize).max(1);
    let wrapped: Vec<String> = lines.iter().flat_map(|l| wrap(l)).collect();
    wrapped
        .chunks(per_page)
        .map(|page| {
            page.iter()
                .enumerate()
                .filter(|(_, line)| !line.is_empty())
                .map(|(i, line)| Mark::Text {
                    x: MARGIN,
                    y: size[1] - MARGIN - SIZE - i as f32 * LEADING,
                    size: SIZE,
                    end: false,
                    spans: vec![Span {
                        text: line.clone(),
                        style: Style::Regular,
                    }],
                })
                .collect()
        })
        .collect()
}

/// A line cut at spaces into lines of at most [`WRAP`] characters (a word
/// longer than that stands alone).
fn wrap(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for word in line.split(' ') {
        let last = out.last_mut().expect("one line at least");
        if !last.is_empty() && last.chars().count() + 1 + word.chars().count() > WRAP {
            out.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_for_no_labels_and_for_labels_that_do_not_fit() {
        assert_eq!(lines(3, &[], "sex=female"), None);
        let none = lines(0, &[], "family=nowhere").unwrap();
        assert_eq!(none[0], "No labels: this question selects no specimens.");
        assert_eq!(none[1], "Question: ?family=nowhere");
        let over = [("MEM-1", &["locality", "collectors"][..])];
        let note = lines(3, &over, "").unwrap();
        assert_eq!(
            note[0],
            "1 label does not fit, even at 3 pt. It prints cut at the label's edge:"
        );
        assert_eq!(note[2], "MEM-1: locality, collectors");
        assert_eq!(note[4], "Question: every specimen");
    }

    #[test]
    fn lines_wrap_at_spaces_and_fill_pages() {
        let long = "word ".repeat(40);
        let wrapped = wrap(long.trim());
        assert!(wrapped.len() == 3 && wrapped.iter().all(|l| l.chars().count() <= WRAP));
        let many: Vec<String> = (0..120).map(|i| format!("MEM-{i}: locality")).collect();
        let pages = pages([612.0, 792.0], &many);
        assert_eq!(pages.len(), 3);
        assert_eq!(pages.iter().map(Vec::len).sum::<usize>(), 120);
    }
}
