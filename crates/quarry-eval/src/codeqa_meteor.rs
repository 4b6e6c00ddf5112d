//! The METEOR that CodeQA reports: METEOR 1.5 (Denkowski and Lavie), a Java program, run
//! the way coco-caption's `meteor.py` in the authors' `codeBERT/code/eval/meteor/` runs it:
//! `java -jar -Xmx2G meteor-1.5.jar - - -stdio -l en -norm` with `LC_ALL=C`, one
//! `SCORE ||| refs ||| hyp` line per segment (the hypothesis with `|||` removed and double
//! spaces halved), then one `EVAL ||| stats ||| …` line whose reply is every segment's score
//! followed by the corpus score, which CodeQA multiplies by 100.
//!
//! METEOR's matcher (exact, Snowball stem, WordNet synonym and paraphrase-table modules with
//! its alignment search) is not re-implemented: this module drives the authors' own jar,
//! so its numbers are theirs by construction. The jar and its `data/paraphrase-en.gz` ship
//! in the PyPI package `pycocoevalcap` (`pycocoevalcap/meteor/`); a Java runtime must be on
//! `PATH`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::EvalError;

/// Environment variable naming `meteor-1.5.jar` when no path is given.
pub const METEOR_JAR_ENV: &str = "QUARRY_METEOR_JAR";

/// A running METEOR 1.5 process.
pub struct MeteorJar {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    jar: PathBuf,
}

fn io_error(jar: &Path, what: &str, e: impl std::fmt::Display) -> EvalError {
    EvalError::InvalidParameter(format!("METEOR jar {}: {what}: {e}", jar.display()))
}

/// The jar to use: `explicit`, else `$QUARRY_METEOR_JAR`.
pub fn find_jar(explicit: Option<&Path>) -> Result<PathBuf, EvalError> {
    let jar = explicit.map(Path::to_path_buf).or_else(|| std::env::var_os(METEOR_JAR_ENV).map(PathBuf::from));
    match jar {
        Some(j) if j.is_file() => Ok(j),
        Some(j) => Err(EvalError::InvalidParameter(format!("METEOR jar {} does not exist", j.display()))),
        None => Err(EvalError::InvalidParameter(format!(
            "codeqa-meteor needs METEOR 1.5 (meteor-1.5.jar from the PyPI package pycocoevalcap) and Java: \
             pass --meteor-jar or set {METEOR_JAR_ENV}"
        ))),
    }
}

impl MeteorJar {
    /// Starts `java` on `jar` (its directory must hold `data/paraphrase-en.gz`).
    pub fn start(jar: &Path) -> Result<Self, EvalError> {
        let dir = jar.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = jar.file_name().ok_or_else(|| io_error(jar, "not a file", ""))?;
        let mut child = Command::new("java")
            .args(["-jar", "-Xmx2G"])
            .arg(name)
            .args(["-", "-", "-stdio", "-l", "en", "-norm"])
            .current_dir(dir)
            .env("LC_ALL", "C")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| io_error(jar, "cannot start java", e))?;
        let stdin = child.stdin.take().ok_or_else(|| io_error(jar, "no stdin", ""))?;
        let stdout = BufReader::new(child.stdout.take().ok_or_else(|| io_error(jar, "no stdout", ""))?);
        Ok(MeteorJar { child, stdin, stdout, jar: jar.to_path_buf() })
    }

    fn send(&mut self, line: &str) -> Result<(), EvalError> {
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.write_all(b"\n"))
            .and_then(|_| self.stdin.flush())
            .map_err(|e| io_error(&self.jar, "write failed", e))
    }

    fn receive(&mut self) -> Result<String, EvalError> {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).map_err(|e| io_error(&self.jar, "read failed", e))?;
        if n == 0 {
            return Err(io_error(&self.jar, "the process ended early", "is Java installed and the jar complete?"));
        }
        Ok(line.trim().to_string())
    }

    fn number(&mut self) -> Result<f64, EvalError> {
        let line = self.receive()?;
        line.parse::<f64>().map_err(|_| io_error(&self.jar, "unexpected reply", &line))
    }

    /// `Meteor().compute_score(gts, res)`: the corpus score and every segment's score (0–1);
    /// `refs[k][i]` is the k-th reference of line `i`.
    pub fn compute_score(&mut self, hyps: &[&str], refs: &[Vec<&str>]) -> Result<(f64, Vec<f64>), EvalError> {
        crate::bleu::check_streams(hyps, refs)?;
        if hyps.is_empty() {
            return Err(EvalError::EmptyInput);
        }
        let mut eval_line = String::from("EVAL");
        for (i, h) in hyps.iter().enumerate() {
            let hyp = h.replace("|||", "").replace("  ", " ");
            let seg_refs: Vec<&str> = refs.iter().map(|r| r[i]).collect();
            self.send(&format!("SCORE ||| {} ||| {hyp}", seg_refs.join(" ||| ")))?;
            let stats = self.receive()?;
            eval_line.push_str(" ||| ");
            eval_line.push_str(&stats);
        }
        self.send(&eval_line)?;
        let scores = (0..hyps.len()).map(|_| self.number()).collect::<Result<Vec<_>, _>>()?;
        let score = self.number()?;
        Ok((score, scores))
    }
}

impl Drop for MeteorJar {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// CodeQA's METEOR of `hyps` against `refs` with the jar at `jar` (or
/// `$QUARRY_METEOR_JAR`): the corpus score and per-line scores, 0–1.
pub fn codeqa_meteor(hyps: &[&str], refs: &[Vec<&str>], jar: Option<&Path>) -> Result<(f64, Vec<f64>), EvalError> {
    let jar = find_jar(jar)?;
    MeteorJar::start(&jar)?.compute_score(hyps, refs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_jar_is_a_clear_error() {
        let err = find_jar(Some(Path::new("/nonexistent/meteor-1.5.jar"))).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
    }

    #[test]
    fn scores_with_the_jar_when_available() {
        let Ok(jar) = find_jar(None) else {
            eprintln!("skipping: set {METEOR_JAR_ENV} to meteor-1.5.jar to run this test");
            return;
        };
        let (score, per) = codeqa_meteor(&["a string", "yes"], &[vec!["a string", "no"]], Some(&jar)).unwrap();
        assert_eq!(per.len(), 2);
        assert!(per[0] > 0.9 && per[1] == 0.0, "{per:?}");
        assert!(score > 0.0 && score < 1.0);
    }
}
