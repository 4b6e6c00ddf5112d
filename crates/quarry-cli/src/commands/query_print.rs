//! Printing `quarry query`'s results: where the output goes (standard
//! output or an `--output-file` written atomically), the per-file printing
//! between progress-bar redraws, the end of the output (SARIF log, JSON
//! array, statistics, summary line), colours and the progress bar.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use quarry_query::report::{FileReport, FindingRecord};
use quarry_query::Query;
use quarry_stdx::AtomicFile;
use quarry_syntax::SyntaxError;
use quarry_workspace::output::sarif::{self, SarifResult};
use quarry_workspace::output::{pretty, summary, Palette, Tally};
use quarry_workspace::triage::{Policy, Status, TriagedFile};

/// Output format of `quarry query`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QueryFormat {
    /// Code with answer and fact spans marked, compiler-diagnostic style.
    Pretty,
    /// One finding per line as JSON, in the CodeQueries span schema.
    Jsonl,
    /// One JSON array of the findings (as ruff's `json`).
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

/// When to colour the output.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set or `TERM=dumb`.
    Auto,
    /// Always, even into a pipe or file.
    Always,
    /// Never.
    Never,
}

/// Whether to colour: `--color`, else on a terminal (not into a file)
/// unless `NO_COLOR`/`CLICOLOR`/`TERM=dumb` say otherwise (anstream's rules).
pub(super) fn colour(choice: ColorChoice, to_file: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            !to_file && anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

/// Where the output goes: standard output, or `--output-file` through the one output
/// writer (`quarry_stdx::atomic`: a regular file appears when the run ends, a device or
/// pipe is written in place).
pub(super) enum Sink {
    Stdout(std::io::BufWriter<std::io::Stdout>),
    File(AtomicFile),
}

impl Sink {
    pub(super) fn open(path: Option<&Path>) -> Result<Sink, String> {
        let Some(path) = path else { return Ok(Sink::Stdout(std::io::BufWriter::new(std::io::stdout()))) };
        let file = AtomicFile::create(path).map_err(|e| format!("cannot create output file: {e}"))?;
        Ok(Sink::File(file))
    }

    /// What the output is written to, for messages.
    pub(super) fn name(&self) -> String {
        match self {
            Sink::Stdout(_) => "standard output".to_string(),
            Sink::File(file) => file.target().display().to_string(),
        }
    }

    fn out(&mut self) -> &mut dyn Write {
        match self {
            Sink::Stdout(out) => out,
            Sink::File(file) => file.writer(),
        }
    }

    pub(super) fn finish(self) -> std::io::Result<()> {
        match self {
            Sink::Stdout(mut out) => out.flush(),
            Sink::File(file) => file.commit().map_err(|e| std::io::Error::new(e.source.kind(), e.to_string())),
        }
    }
}

/// Prints triaged files as they come and the closing parts of the output.
pub(super) struct Printer<'a> {
    pub(super) options: PrintOptions,
    pub(super) palette: Palette,
    pub(super) tally: &'a mut Tally,
    pub(super) collected: &'a mut Collected,
}

/// What the printer needs of the options.
pub(super) struct PrintOptions {
    pub(super) format: QueryFormat,
    pub(super) max_shown: usize,
    pub(super) statistics: bool,
    pub(super) quiet: bool,
    pub(super) report_unused: bool,
}

impl Printer<'_> {
    pub(super) fn handle(
        &mut self,
        sink: &mut Sink,
        progress: &ProgressBar,
        policy: &mut Policy<'_>,
        report: Result<FileReport, SyntaxError>,
        failed: &mut usize,
    ) -> std::io::Result<()> {
        let report = match report {
            Ok(report) => report,
            Err(error) => {
                *failed += 1;
                self.tally.add_failed();
                progress.suspend(|| crate::commands::output::skipped(&error.to_string()));
                return Ok(());
            }
        };
        let mut triaged = policy.triage(report);
        if !self.options.report_unused {
            triaged.unused_suppressions.clear();
        }
        self.tally.add(&triaged);
        progress.suspend(|| {
            self.emit(sink.out(), &triaged)?;
            sink.out().flush()
        })
    }

    fn emit(&mut self, out: &mut dyn Write, file: &TriagedFile) -> std::io::Result<()> {
        if !self.options.statistics {
            emit(out, self.options.format, self.options.max_shown, file, self.collected, self.palette)?;
        }
        if !self.options.report_unused {
            return Ok(());
        }
        for suppression in &file.unused_suppressions {
            if self.options.format == QueryFormat::Pretty && !self.options.statistics {
                pretty::write_unused(out, suppression, self.palette)?;
            } else {
                crate::commands::output::warning(&format!(
                    "{}:{}:{}: suppression `{}` names {} but nothing was found there",
                    suppression.file,
                    suppression.line + 1,
                    suppression.column + 1,
                    suppression.text,
                    suppression.unused.join(", ")
                ));
            }
        }
        Ok(())
    }

    pub(super) fn finish(
        &mut self,
        sink: &mut Sink,
        queries: &[&'static Query],
        with_baseline: bool,
        started: Instant,
    ) -> std::io::Result<()> {
        let out = sink.out();
        if self.options.statistics {
            let rows = self.tally.statistics();
            match self.options.format {
                QueryFormat::Jsonl | QueryFormat::Json => {
                    for row in &rows {
                        serde_json::to_writer(&mut *out, row).map_err(std::io::Error::other)?;
                        writeln!(out)?;
                    }
                }
                _ => summary::write_statistics(out, &rows, self.palette)?,
            }
        }
        if !self.options.statistics {
            self.collected.write_end(out, self.options.format, queries, with_baseline)?;
        }
        if self.options.quiet {
            return Ok(());
        }
        let elapsed = started.elapsed();
        if self.options.format == QueryFormat::Pretty {
            return self.tally.write_summary(out, elapsed, self.palette);
        }
        // Machine-readable output keeps standard output clean.
        let stderr_palette = Palette::new(self.palette.enabled && std::io::stderr().is_terminal());
        let mut line = Vec::new();
        self.tally.write_summary(&mut line, elapsed, stderr_palette)?;
        eprint!("quarry: {}", String::from_utf8_lossy(&line));
        Ok(())
    }
}

/// Writes the reported findings of a file (SARIF: collects every finding,
/// suppressed ones too, for the log written at the end).
pub(crate) fn emit(
    out: &mut dyn Write,
    format: QueryFormat,
    max_shown: usize,
    file: &TriagedFile,
    collected: &mut Collected,
    palette: Palette,
) -> std::io::Result<()> {
    match format {
        QueryFormat::Jsonl => {
            for triaged in file.findings.iter().filter(|t| t.status == Status::Reported) {
                serde_json::to_writer(&mut *out, &triaged.finding).map_err(std::io::Error::other)?;
                writeln!(out)?;
            }
            Ok(())
        }
        QueryFormat::Pretty => pretty::write(out, file, max_shown, palette),
        QueryFormat::Json => {
            let reported = file.findings.iter().filter(|t| t.status == Status::Reported);
            collected.json.extend(reported.map(|t| t.finding.clone()));
            Ok(())
        }
        QueryFormat::Sarif => {
            collected.sarif.extend(file.findings.iter().map(SarifResult::from_triaged));
            Ok(())
        }
    }
}

/// Output kept until the end of a run: SARIF results (every finding) and
/// the reported findings for `--format json`.
#[derive(Default)]
pub(crate) struct Collected {
    sarif: Vec<SarifResult>,
    json: Vec<FindingRecord>,
}

impl Collected {
    /// Writes what the format writes once the run ends.
    pub(crate) fn write_end(
        &self,
        out: &mut dyn Write,
        format: QueryFormat,
        queries: &[&'static Query],
        with_baseline: bool,
    ) -> std::io::Result<()> {
        match format {
            QueryFormat::Sarif => sarif::write(out, queries, &self.sarif, with_baseline),
            QueryFormat::Json => {
                serde_json::to_writer_pretty(&mut *out, &self.json).map_err(std::io::Error::other)?;
                writeln!(out)
            }
            QueryFormat::Pretty | QueryFormat::Jsonl => Ok(()),
        }
    }
}

pub(super) fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) = ProgressStyle::with_template("{spinner} {pos}/{len} files {wide_bar} {per_sec} eta {eta}") {
        bar.set_style(style);
    }
    bar
}
