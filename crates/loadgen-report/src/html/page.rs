//! The page around the charts: one HTML document with its style inline,
//! no script and nothing to fetch, so it opens the same offline, from a
//! mail attachment or from a CI artifact.

use std::fmt::Write;

const STYLE: &str = r#"
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #222; margin: 0 auto; max-width: 1000px; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
p.lead { color: #555; margin: 0 0 12px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; vertical-align: top; }
th:first-child, td.name { text-align: left; }
thead th { background: #f4f4f4; }
td.text { text-align: left; word-break: break-all; }
td.better { background: #e3f4e8; }
td.worse { background: #fbe5e1; }
.pass { color: #1a7f37; } .fail { color: #b42318; font-weight: 600; } .pending { color: #6b7280; }
figure.chart-figure { margin: 10px 0 18px; }
figcaption { font-weight: 600; margin-bottom: 2px; }
svg.chart { width: 100%; height: auto; display: block; background: #fff; }
svg.chart path.series { fill: none; stroke-width: 1.8; }
svg.chart path.bar { stroke: none; }
svg.chart .grid { stroke: #eee; }
svg.chart .axis { stroke: #555; }
svg.chart .mark { stroke: #888; stroke-dasharray: 3 3; }
svg.chart .band { fill: #f1f1f1; }
svg.chart text { font-size: 11px; fill: #444; }
svg.chart text.label { font-size: 12px; fill: #222; }
svg.chart text.note { fill: #666; }
ul.legend { list-style: none; padding: 0; margin: 2px 0 0 78px; display: flex; flex-wrap: wrap; gap: 4px 18px; }
ul.legend li { display: flex; align-items: center; gap: 6px; }
.swatch { display: inline-block; width: 22px; height: 0; border-top: 3px solid; }
.swatch.dashed { border-top-style: dashed; }
p.note { color: #555; font-size: 13px; }
"#;

/// Text safe inside HTML elements and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// What the report's page may load: nothing but its own inline style. A
/// page that tried a fetch would say so in the browser's console rather
/// than load it.
pub const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'";

/// The whole document: `title` and the sections' HTML.
pub fn document(title: &str, body: &str) -> String {
    document_with(title, body, POLICY, "")
}

/// A document under `policy`, with `head` added to its head.
pub fn document_with(title: &str, body: &str, policy: &str, head: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style>{head}</head>\n<body>\n{body}\n</body></html>\n",
        escape(title)
    )
}

/// A table: a header row, then rows whose first cell names the row.
/// Cells are HTML already (see [`cell`]).
pub struct Table {
    pub class: &'static str,
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn render(&self) -> String {
        let mut html = format!(r#"<table class="{}"><thead><tr>"#, self.class);
        for name in &self.head {
            let _ = write!(html, "<th>{}</th>", escape(name));
        }
        html.push_str("</tr></thead><tbody>");
        for row in &self.rows {
            html.push_str("<tr>");
            for cell in row {
                html.push_str(cell);
            }
            html.push_str("</tr>");
        }
        html.push_str("</tbody></table>");
        html
    }
}

/// The cell naming a row.
pub fn name_cell(text: &str) -> String {
    format!(r#"<td class="name">{}</td>"#, escape(text))
}

/// A cell with a value; `field` names the report field it shows (its
/// JSON path), so a reader, or a test, can find it.
pub fn cell(field: &str, text: &str) -> String {
    format!(
        r#"<td data-field="{}">{}</td>"#,
        escape(field),
        escape(text)
    )
}

/// A cell of free text, left-aligned.
pub fn text_cell(text: &str) -> String {
    format!(r#"<td class="text">{}</td>"#, escape(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
