//! Line and bar charts as inline SVG: the few shapes the report draws,
//! with axes, ticks, units and a legend, and nothing fetched to view them.

use super::page::escape;
use std::fmt::Write;

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 78.0;
// Room for half of the last tick label ("99.99%") past the plot.
const RIGHT: f64 = 30.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 46.0;

/// Colours picked to stay apart for the common forms of colour blindness
/// (Okabe and Ito's palette), then greys.
const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999",
];

pub fn colour(index: usize) -> &'static str {
    PALETTE[index % PALETTE.len()]
}

/// How the values of an axis are shown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    /// Values in microseconds, shown in milliseconds.
    Latency,
    /// Values in seconds.
    Seconds,
    /// Per second (requests, responses, errors).
    PerSecond,
    /// A plain count.
    Count,
    /// Percentiles on HdrHistogram's "nines" scale: x = -log10(1 - q).
    Nines,
}

impl Unit {
    fn tick_label(self, value: f64, step: f64) -> String {
        match self {
            Unit::Latency => trim(value / 1000.0, step / 1000.0),
            Unit::Seconds => format!("{}s", trim(value, step)),
            Unit::PerSecond | Unit::Count => per_second(value, step),
            Unit::Nines => nines_label(value),
        }
    }
}

/// `0%`, `90%`, `99%`, `99.9%`, … for 0, 1, 2, 3 nines.
pub fn nines_label(nines: f64) -> String {
    let whole = nines.round() as i32;
    if whole <= 0 {
        return "0%".into();
    }
    let percent = 100.0 - 100.0 * 10f64.powi(-whole);
    format!("{}%", trim(percent, 10f64.powi(-whole + 2)))
}

/// A number with as many decimals as the tick step needs.
fn trim(value: f64, step: f64) -> String {
    let decimals = if step >= 1.0 || step <= 0.0 {
        0
    } else {
        (-step.log10()).ceil() as usize
    };
    format!("{value:.decimals$}")
}

fn per_second(value: f64, step: f64) -> String {
    if value.abs() >= 1_000_000.0 {
        format!("{}M", trim(value / 1e6, step / 1e6))
    } else if value.abs() >= 1000.0 {
        format!("{}k", trim(value / 1e3, step / 1e3))
    } else {
        trim(value, step)
    }
}

#[derive(Clone, Debug)]
pub struct Axis {
    pub label: String,
    pub unit: Unit,
    /// The range shown; `None` fits the data (from 0 for the y axis).
    pub range: Option<(f64, f64)>,
}

impl Axis {
    pub fn new(label: &str, unit: Unit) -> Axis {
        Axis {
            label: label.to_string(),
            unit,
            range: None,
        }
    }

    pub fn with_range(mut self, low: f64, high: f64) -> Axis {
        self.range = Some((low, high));
        self
    }
}

#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub colour: usize,
    pub dashed: bool,
    pub points: Vec<(f64, f64)>,
}

impl Series {
    pub fn new(name: &str, colour: usize, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.to_string(),
            colour,
            dashed: false,
            points,
        }
    }

    pub fn dashed(mut self) -> Series {
        self.dashed = true;
        self
    }
}

/// A shaded span of the x axis (a warm-up).
#[derive(Clone, Debug)]
pub struct Band {
    pub from: f64,
    pub to: f64,
    pub label: String,
}

/// A vertical line across the plot (where a ramp or stage starts).
#[derive(Clone, Debug)]
pub struct Mark {
    pub at: f64,
    pub label: String,
}

#[derive(Clone, Debug)]
pub struct LineChart {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub bands: Vec<Band>,
    pub marks: Vec<Mark>,
}

impl LineChart {
    pub fn new(title: &str, x: Axis, y: Axis) -> LineChart {
        LineChart {
            title: title.to_string(),
            x,
            y,
            series: Vec::new(),
            bands: Vec::new(),
            marks: Vec::new(),
        }
    }

    pub fn render(&self) -> String {
        let points = self.series.iter().flat_map(|s| s.points.iter());
        let (x_low, x_high) = self.x.range.unwrap_or_else(|| {
            let xs: Vec<f64> = points.clone().map(|p| p.0).collect();
            let low = xs.iter().copied().fold(f64::INFINITY, f64::min);
            let bands = self.bands.iter().map(|b| b.from);
            (
                bands.fold(low, f64::min),
                xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        });
        let (y_low, y_high) = self.y.range.unwrap_or_else(|| {
            let high = points.map(|p| p.1).fold(0.0, f64::max);
            (0.0, high)
        });
        let x = Scale::new(x_low, x_high, LEFT, WIDTH - RIGHT, self.x.unit);
        let y = Scale::new(y_low, y_high, HEIGHT - BOTTOM, TOP, self.y.unit);
        let mut svg = open_svg(&self.title);
        for band in &self.bands {
            let (from, to) = (x.at(band.from), x.at(band.to));
            let _ = write!(
                svg,
                r#"<rect class="band" x="{from:.1}" y="{TOP}" width="{:.1}" height="{:.1}"><title>{}</title></rect><text class="note" x="{:.1}" y="{:.1}">{}</text>"#,
                (to - from).max(0.0),
                HEIGHT - BOTTOM - TOP,
                escape(&band.label),
                from + 4.0,
                TOP + 12.0,
                escape(&band.label)
            );
        }
        axes(&mut svg, &x, &y, &self.x.label, &self.y.label);
        for mark in &self.marks {
            let at = x.at(mark.at);
            let _ = write!(
                svg,
                r#"<line class="mark" x1="{at:.1}" x2="{at:.1}" y1="{TOP}" y2="{:.1}"/><text class="note" x="{:.1}" y="{:.1}">{}</text>"#,
                HEIGHT - BOTTOM,
                at + 3.0,
                HEIGHT - BOTTOM - 6.0,
                escape(&mark.label)
            );
        }
        for series in &self.series {
            let mut d = String::new();
            for (i, (px, py)) in series.points.iter().enumerate() {
                let command = if i == 0 { 'M' } else { 'L' };
                let _ = write!(d, "{command}{:.1},{:.1}", x.at(*px), y.at(*py));
            }
            // A single point is drawn as a short tick so it stays visible.
            if series.points.len() == 1 {
                d.push_str("h0.1");
            }
            let dash = if series.dashed {
                r#" stroke-dasharray="6 4""#
            } else {
                ""
            };
            let _ = write!(
                svg,
                r#"<path class="series" d="{d}" stroke="{}"{dash}><title>{}</title></path>"#,
                colour(series.colour),
                escape(&series.name)
            );
        }
        svg.push_str("</svg>");
        let legend: Vec<(&str, usize, bool)> = self
            .series
            .iter()
            .map(|s| (s.name.as_str(), s.colour, s.dashed))
            .collect();
        figure(&self.title, &svg, &legend)
    }
}

/// Bars per category, one bar per series in each (grouped).
#[derive(Clone, Debug)]
pub struct BarChart {
    pub title: String,
    /// What the categories along the bottom are.
    pub x_label: String,
    pub y: Axis,
    pub categories: Vec<String>,
    /// (series name, one value per category).
    pub series: Vec<(String, Vec<f64>)>,
}

impl BarChart {
    pub fn render(&self) -> String {
        let high = self
            .series
            .iter()
            .flat_map(|(_, values)| values.iter().copied())
            .fold(0.0, f64::max);
        let y = Scale::new(0.0, high, HEIGHT - BOTTOM, TOP, self.y.unit);
        let mut svg = open_svg(&self.title);
        let plot = WIDTH - RIGHT - LEFT;
        let slot = plot / self.categories.len().max(1) as f64;
        let bar = slot * 0.8 / self.series.len().max(1) as f64;
        y_axis(&mut svg, &y, &self.y.label);
        let base = HEIGHT - BOTTOM;
        let _ = write!(
            svg,
            r#"<line class="axis" x1="{LEFT}" x2="{:.1}" y1="{base}" y2="{base}"/>"#,
            WIDTH - RIGHT
        );
        for (c, category) in self.categories.iter().enumerate() {
            let left = LEFT + slot * c as f64 + slot * 0.1;
            let _ = write!(
                svg,
                r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                LEFT + slot * (c as f64 + 0.5),
                base + 16.0,
                escape(category)
            );
            for (s, (name, values)) in self.series.iter().enumerate() {
                let value = values.get(c).copied().unwrap_or(0.0);
                let top = y.at(value);
                let _ = write!(
                    svg,
                    r#"<path class="bar" d="M{:.1},{base}V{top:.1}h{bar:.1}V{base}Z" style="fill:{}"><title>{}: {}: {value}</title></path>"#,
                    left + bar * s as f64,
                    colour(s),
                    escape(name),
                    escape(category)
                );
            }
        }
        let _ = write!(
            svg,
            r#"<text class="label" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + plot / 2.0,
            HEIGHT - 8.0,
            escape(&self.x_label)
        );
        svg.push_str("</svg>");
        let legend: Vec<(&str, usize, bool)> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, (name, _))| (name.as_str(), i, false))
            .collect();
        figure(&self.title, &svg, &legend)
    }
}

/// Maps values of one axis to pixels, with round ticks.
struct Scale {
    low: f64,
    high: f64,
    from_px: f64,
    to_px: f64,
    unit: Unit,
    step: f64,
}

impl Scale {
    fn new(low: f64, high: f64, from_px: f64, to_px: f64, unit: Unit) -> Scale {
        let (low, high) = match (low.is_finite(), high.is_finite()) {
            (true, true) if high > low => (low, high),
            (true, _) => (low, low + 1.0),
            _ => (0.0, 1.0),
        };
        let step = if unit == Unit::Nines {
            1.0
        } else {
            nice_step((high - low) / 5.0)
        };
        // Round the top up to a tick, so the highest value sits under a label.
        let high = if unit == Unit::Nines {
            high
        } else {
            (high / step).ceil() * step
        };
        Scale {
            low,
            high,
            from_px,
            to_px,
            unit,
            step,
        }
    }

    fn at(&self, value: f64) -> f64 {
        let share = (value.clamp(self.low, self.high) - self.low) / (self.high - self.low);
        self.from_px + share * (self.to_px - self.from_px)
    }

    fn ticks(&self) -> Vec<(f64, String)> {
        let first = (self.low / self.step).ceil() as i64;
        let last = (self.high / self.step).floor() as i64;
        (first..=last)
            .map(|i| {
                let value = i as f64 * self.step;
                (self.at(value), self.unit.tick_label(value, self.step))
            })
            .collect()
    }
}

/// 1, 2 or 5 times a power of ten, at least `rough`.
fn nice_step(rough: f64) -> f64 {
    if rough <= 0.0 || !rough.is_finite() {
        return 1.0;
    }
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|step| *step >= rough)
        .unwrap_or(10.0 * power)
}

fn open_svg(title: &str) -> String {
    format!(
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg">"#,
        escape(title)
    )
}

fn axes(svg: &mut String, x: &Scale, y: &Scale, x_label: &str, y_label: &str) {
    y_axis(svg, y, y_label);
    let base = HEIGHT - BOTTOM;
    for (px, label) in x.ticks() {
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{px:.1}" x2="{px:.1}" y1="{TOP}" y2="{base}"/><text class="tick" x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            base + 16.0,
            escape(&label)
        );
    }
    let _ = write!(
        svg,
        r#"<line class="axis" x1="{LEFT}" x2="{:.1}" y1="{base}" y2="{base}"/><text class="label" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        WIDTH - RIGHT,
        (LEFT + WIDTH - RIGHT) / 2.0,
        HEIGHT - 8.0,
        escape(x_label)
    );
}

fn y_axis(svg: &mut String, y: &Scale, label: &str) {
    for (px, text) in y.ticks() {
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{LEFT}" x2="{:.1}" y1="{px:.1}" y2="{px:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            WIDTH - RIGHT,
            LEFT - 6.0,
            px + 4.0,
            escape(&text)
        );
    }
    let middle = (TOP + HEIGHT - BOTTOM) / 2.0;
    let _ = write!(
        svg,
        r#"<line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{:.1}"/><text class="label" x="14" y="{middle:.1}" text-anchor="middle" transform="rotate(-90 14 {middle:.1})">{}</text>"#,
        HEIGHT - BOTTOM,
        escape(label)
    );
}

fn figure(title: &str, svg: &str, legend: &[(&str, usize, bool)]) -> String {
    let mut html = format!(
        r#"<figure class="chart-figure"><figcaption>{}</figcaption>{svg}<ul class="legend">"#,
        escape(title)
    );
    for (name, colour_index, dashed) in legend {
        let style = if *dashed { " dashed" } else { "" };
        let _ = write!(
            html,
            r#"<li><span class="swatch{style}" style="border-color:{}"></span>{}</li>"#,
            colour(*colour_index),
            escape(name)
        );
    }
    html.push_str("</ul></figure>");
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(1.3), 2.0);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(230.0), 500.0);
    }

    #[test]
    fn nines_read_as_percentiles() {
        let labels: Vec<String> = (0..5).map(|n| nines_label(n as f64)).collect();
        assert_eq!(labels, ["0%", "90%", "99%", "99.9%", "99.99%"]);
    }

    #[test]
    fn ticks_name_their_unit() {
        let latency = Scale::new(0.0, 2000.0, 0.0, 100.0, Unit::Latency);
        let labels: Vec<String> = latency.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(labels, ["0.0", "0.5", "1.0", "1.5", "2.0"]);
        let rate = Scale::new(0.0, 20_000.0, 0.0, 100.0, Unit::PerSecond);
        assert_eq!(rate.ticks()[1].1, "5k");
    }

    #[test]
    fn every_series_is_a_path_with_points() {
        let mut chart = LineChart::new(
            "t",
            Axis::new("x", Unit::Seconds),
            Axis::new("y", Unit::PerSecond),
        );
        chart
            .series
            .push(Series::new("a", 0, vec![(0.0, 1.0), (1.0, 2.0)]));
        chart.series.push(Series::new("b", 1, vec![(0.5, 1.0)]));
        let html = chart.render();
        assert_eq!(html.matches(r#"class="series""#).count(), 2);
        assert!(!html.contains(r#"d="""#));
        assert!(!html.contains("NaN"));
    }
}
