//! The report of a CodeQueries experiment as one self-contained HTML page
//! (`report.html`): the paper's tables beside ours, every row naming what produced it,
//! and the figures drawn as inline SVG with plotters (exact match by setting beside the
//! predict-nothing baseline and the paper; Figure 5's learning curve over training
//! budgets). No script, stylesheet, font or image is fetched: the page opens offline.

use std::fmt::Write;

use html_escape::encode_text;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::report::{paper, relevance_sentence, row_cells, Rate, Report, Row};

/// Colours of the figures: ours, the predict-nothing baseline, the paper.
const OURS: RGBColor = RGBColor(31, 119, 180);
const NOTHING: RGBColor = RGBColor(160, 160, 160);
const PAPER: RGBColor = RGBColor(255, 127, 14);

/// The pages' stylesheet, inline.
pub(crate) const STYLE: &str =
    "body{font-family:sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}\
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.25rem .5rem}\
td.n{text-align:right}.warn{color:#a40000}.note{color:#555;font-size:.9rem}figure{margin:1rem 0;overflow-x:auto}";

/// The report as an HTML page.
pub fn render_html(r: &Report) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>CodeQueries experiment</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>CodeQueries experiment</h1>\n<p>Encoder <code>{}</code>, corpus <code>{}</code>. Exact match in \
         percent (matched/examples); every row's note names the checkpoint, data and setting that produced it. \
         The paper's values are for its CuBERT-1K model on the full dataset, for reference only.</p>\n\
         <p class=\"note\">{}</p>\n<p class=\"note\">Dataset examples written: {}</p>\n",
        encode_text(&r.model),
        encode_text(&r.corpus),
        encode_text(&r.settings),
        encode_text(&r.written.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "))
    );
    let by_setting: Vec<(&str, &Row)> = [("2", &r.table2), ("3", &r.table3)]
        .into_iter()
        .flat_map(|(table, rows)| rows.iter().map(move |row| (table, row)))
        .collect();
    let _ = write!(
        out,
        "<h2>Exact match by setting</h2>\n<figure>{}<figcaption>All test examples: ours, predicting no span, \
         and the paper's CuBERT-1K.</figcaption></figure>\n",
        setting_chart(&by_setting)
    );
    table(&mut out, "2", "Table 2: exact match in the ideal setting", "Model", &r.table2);
    table(&mut out, "3", "Table 3: exact match on large-size code (file level)", "Setting", &r.table3);
    let rel = &r.relevance;
    let _ = write!(
        out,
        "<h2>Relevance classifier (two-step, first step)</h2>\n<p>{}</p>\n<p class=\"note\">{}</p>\n",
        encode_text(&relevance_sentence(rel)),
        encode_text(&rel.produced_by)
    );
    for warning in &rel.warnings {
        let _ = writeln!(out, "<p class=\"warn\">Warning: {}</p>", encode_text(warning));
    }
    table(
        &mut out,
        "4",
        "Table 4: answer-span exact match, trained with and without supporting facts",
        "Model",
        &r.table4,
    );
    table(&mut out, "5", "Table 5: robustness to minor syntax errors", "Test data", &r.table5);
    let _ = write!(
        out,
        "<h2>Figure 5: learning from a limited number of examples</h2>\n<figure>{}<figcaption>Exact match on the \
         ideal test set by training examples per query; each run a point, their mean a line.</figcaption></figure>\n",
        budget_chart(&r.budgets)
    );
    table(&mut out, "F5", "Figure 5's runs", "Training budget", &r.budgets);
    training(&mut out, r);
    out.push_str("</body>\n</html>\n");
    out
}

/// One of the paper's tables: ours (all, positive, negative), the predict-nothing
/// baseline, the paper's values; then each row's provenance and warnings.
fn table(out: &mut String, number: &str, title: &str, first: &str, rows: &[Row]) {
    let _ = write!(
        out,
        "<h2>{}</h2>\n<table>\n<tr><th>{first}</th><th>All</th><th>Positive</th><th>Negative</th>\
         <th>Predict nothing (All)</th><th>Paper (All / Pos. / Neg.)</th></tr>\n",
        encode_text(title)
    );
    for (i, row) in rows.iter().enumerate() {
        let cells: String = row_cells(number, row).iter().map(|cell| format!("<td class=\"n\">{cell}</td>")).collect();
        let _ = writeln!(out, "<tr><td>{} [{}]</td>{cells}</tr>", encode_text(&row.name), i + 1);
    }
    out.push_str("</table>\n");
    for (i, row) in rows.iter().enumerate() {
        let _ = writeln!(out, "<p class=\"note\">[{}] {}</p>", i + 1, encode_text(&row.produced_by));
        for warning in &row.warnings {
            let _ = writeln!(out, "<p class=\"warn\">Warning [{}]: {}</p>", i + 1, encode_text(warning));
        }
    }
}

fn training(out: &mut String, r: &Report) {
    out.push_str(
        "<h2>Training runs</h2>\n<table>\n<tr><th>Run</th><th>Examples</th><th>Epochs</th>\
         <th>Last train loss</th><th>Best valid loss</th><th>Seconds</th></tr>\n",
    );
    for t in &r.training {
        let last = t.epochs.last().map_or(f64::NAN, |e| e.loss);
        let best = t.epochs.iter().map(|e| e.valid_loss).fold(f64::INFINITY, f64::min);
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{last:.4}</td>\
             <td class=\"n\">{best:.4}</td><td class=\"n\">{:.0}</td></tr>",
            encode_text(&t.dir.display().to_string()),
            t.examples,
            t.epochs.len(),
            t.seconds
        );
    }
    out.push_str("</table>\n");
}

/// A chart of the reports: numbers on both axes, exact match or accuracy in percent up.
pub(crate) type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A figure of the reports as SVG: a white chart of `size` pixels, `x` across and `y` up
/// (exact match or accuracy: 0 to [`LEGEND_ROOM`]), on which `draw` configures the mesh and draws the series (the root
/// area is given for text placed in pixels); the legend, top right, is drawn last. An
/// error of plotters gives a line saying the figure was not drawn.
pub(crate) fn figure(
    size: (u32, u32),
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
    draw: impl FnOnce(&mut Chart<'_, '_>, &DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String>,
) -> String {
    let mut text = String::new();
    let drawn = (|| {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(48)
            .build_cartesian_2d(x, y)
            .map_err(|e| e.to_string())?;
        draw(&mut chart, &root)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())
    })();
    match drawn {
        Ok(()) => text,
        Err(e) => format!("<p class=\"warn\">figure not drawn: {}</p>", encode_text(&e)),
    }
}

/// Each group of bars' name under it, group `i` spanning `i..i + 1` across (plotters'
/// tick labels fall on the groups' edges).
pub(crate) fn group_labels<S: AsRef<str>>(
    chart: &Chart<'_, '_>,
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    names: &[S],
) -> Result<(), String> {
    let style = TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, name) in names.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        root.draw(&Text::new(name.as_ref().to_string(), (x, y + 6), style.clone())).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `text` escaped for HTML, with Markdown's `code` spans as `<code>` elements (the reports
/// write their prose once, for both pages).
pub(crate) fn prose(text: &str) -> String {
    encode_text(text)
        .split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { format!("<code>{part}</code>") } else { part.to_string() })
        .collect()
}

/// The top of the exact-match axis: 100 and room for the legend above the bars.
pub(crate) const LEGEND_ROOM: f64 = 125.0;

/// Grouped bars per setting: ours, predict nothing, the paper (all examples).
fn setting_chart(rows: &[(&str, &Row)]) -> String {
    figure((720, 340), 0f64..rows.len().max(1) as f64, 0f64..LEGEND_ROOM, |chart, root| {
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("exact match (%)")
            .draw()
            .map_err(|e| e.to_string())?;
        let names: Vec<String> = rows.iter().map(|(_, row)| short_name(&row.name)).collect();
        group_labels(chart, root, &names)?;
        let bars = rows.iter().enumerate().flat_map(|(i, (table, row))| {
            let paper = paper(table, &row.name).map(|p| p[0]);
            [
                (0, percent(row.all), OURS),
                (1, percent(row.predict_nothing[0]), NOTHING),
                (2, paper.unwrap_or(0.0), PAPER),
            ]
            .into_iter()
            .filter(move |(k, _, _)| *k != 2 || paper.is_some())
            .map(move |(k, value, colour)| {
                let left = i as f64 + 0.15 + 0.23 * k as f64;
                Rectangle::new([(left, 0.0), (left + 0.2, value)], colour.filled())
            })
        });
        chart.draw_series(bars).map_err(|e| e.to_string())?;
        for (label, colour) in [("ours", OURS), ("predict nothing", NOTHING), ("paper", PAPER)] {
            chart
                .draw_series(std::iter::once(Rectangle::new([(0.0, 0.0), (0.0, 0.0)], colour.filled())))
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
        }
        Ok(())
    })
}

/// Figure 5: exact match against training examples per query; each run a point, the
/// mean per budget a line, predicting nothing a grey line.
fn budget_chart(rows: &[Row]) -> String {
    let points: Vec<(f64, f64)> = rows.iter().filter_map(|row| Some((row.budget? as f64, percent(row.all)))).collect();
    let mut budgets: Vec<f64> = points.iter().map(|(b, _)| *b).collect();
    budgets.sort_by(f64::total_cmp);
    budgets.dedup();
    let mean = |budget: f64, of: &dyn Fn(&Row) -> f64| {
        let values: Vec<f64> = rows.iter().filter(|r| r.budget.map(|b| b as f64) == Some(budget)).map(of).collect();
        values.iter().sum::<f64>() / values.len().max(1) as f64
    };
    let means: Vec<(f64, f64)> = budgets.iter().map(|&b| (b, mean(b, &|r| percent(r.all)))).collect();
    let nothing: Vec<(f64, f64)> = budgets.iter().map(|&b| (b, mean(b, &|r| percent(r.predict_nothing[0])))).collect();
    let top = budgets.last().copied().unwrap_or(1.0).max(1.0) * 1.1;
    figure((720, 320), 0f64..top, 0f64..LEGEND_ROOM, |chart, _| {
        chart
            .configure_mesh()
            .x_desc("training examples per query")
            .y_desc("exact match (%)")
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 4, OURS.filled())))
            .map_err(|e| e.to_string())?
            .label("runs")
            .legend(|(x, y)| Circle::new((x + 5, y), 4, OURS.filled()));
        chart
            .draw_series(LineSeries::new(means, OURS.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label("mean")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 10, y)], OURS));
        chart
            .draw_series(LineSeries::new(nothing, NOTHING.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label("predict nothing")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 10, y)], NOTHING));
        Ok(())
    })
}

/// A rate in percent for a figure (0 for no examples; the tables say "–").
fn percent(rate: Rate) -> f64 {
    rate.percent().unwrap_or(0.0)
}

/// A row name short enough for an axis label.
fn short_name(name: &str) -> String {
    let name = name.strip_suffix(", ideal setting").unwrap_or(name);
    name.chars().take(18).collect()
}
