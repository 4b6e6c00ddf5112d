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
//!
//! Inside [`crate::cancel::within`], a cancel stops the scoring with
//! [`EvalError::Cancelled`] as it stops the other metrics: every wait for the
//! process's reply looks at the flag, and kills and reaps the process once it is set.

use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::EvalError;

/// Environment variable naming `meteor-1.5.jar` when no path is given.
pub const METEOR_JAR_ENV: &str = "QUARRY_METEOR_JAR";

/// How often a wait for the child's reply looks at the cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// A running METEOR 1.5 process.
pub struct MeteorJar {
    child: LineChild,
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
        let child = Command::new("java")
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
        MeteorJar::with_child(child, jar)
    }

    /// Speaks METEOR's `-stdio` protocol with `child` (its input and output
    /// piped), started from `jar`.
    fn with_child(child: Child, jar: &Path) -> Result<Self, EvalError> {
        let child = LineChild::new(child).map_err(|e| io_error(jar, "cannot talk to java", e))?;
        Ok(MeteorJar { child, jar: jar.to_path_buf() })
    }

    /// The error of a failed exchange with the process.
    fn error(&self, e: ChildError) -> EvalError {
        match e {
            ChildError::Cancelled => EvalError::Cancelled,
            ChildError::Write(e) => io_error(&self.jar, "write failed", e),
            ChildError::Read(e) => io_error(&self.jar, "read failed", e),
            ChildError::Ended => {
                io_error(&self.jar, "the process ended early", "is Java installed and the jar complete?")
            }
        }
    }

    fn send(&mut self, line: &str) -> Result<(), EvalError> {
        self.child.send(line).map_err(|e| self.error(e))
    }

    /// The process's next line; a cancel ([`crate::cancel::within`]) while
    /// waiting for it kills the process.
    fn receive(&mut self) -> Result<String, EvalError> {
        match self.child.receive() {
            Ok(line) => Ok(line.trim().to_string()),
            Err(e) => Err(self.error(e)),
        }
    }

    fn number(&mut self) -> Result<f64, EvalError> {
        let line = self.receive()?;
        line.parse::<f64>().map_err(|_| io_error(&self.jar, "unexpected reply", &line))
    }

    /// `Meteor().compute_score(gts, res)`: the corpus score and every segment's score (0–1);
    /// `refs[k][i]` is the k-th reference of line `i`. Inside [`crate::cancel::within`], a
    /// cancel stops it with [`EvalError::Cancelled`] (the process is killed).
    pub fn compute_score(&mut self, hyps: &[&str], refs: &[Vec<&str>]) -> Result<(f64, Vec<f64>), EvalError> {
        crate::bleu::check_streams(hyps, refs)?;
        if hyps.is_empty() {
            return Err(EvalError::EmptyInput);
        }
        let mut eval_line = String::from("EVAL");
        for (i, h) in hyps.iter().enumerate() {
            crate::cancel::check()?;
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

/// Why a [`LineChild`] exchange failed.
#[derive(Debug)]
enum ChildError {
    /// The cancel flag was set while waiting: the child was killed and reaped.
    Cancelled,
    /// Writing to the child failed.
    Write(io::Error),
    /// Reading from the child failed.
    Read(io::Error),
    /// The child closed its output (it ended).
    Ended,
}

/// A child process spoken to a line at a time. Its input is written and its
/// output read on threads of their own, so that the caller only ever waits
/// on a channel, looking at the cancel flag of [`crate::cancel::within`]
/// every [`CANCEL_POLL`]; once the flag is set, the child is killed and
/// reaped. Dropping it kills and reaps the child too; the threads end with
/// the child's pipes.
struct LineChild {
    child: Child,
    /// Lines for the writing thread; `None` once the child is stopped.
    to_child: Option<Sender<String>>,
    /// The writing thread, which returns why it stopped writing.
    writer: Option<JoinHandle<io::Result<()>>>,
    /// The child's lines, from the reading thread; closed at its end.
    from_child: Receiver<io::Result<String>>,
    /// True once the child has been killed and waited for.
    reaped: bool,
}

impl LineChild {
    /// Takes over `child`, whose standard input and output must be piped
    /// (otherwise, or when a thread cannot start, the child is killed and
    /// reaped, and the error returned).
    fn new(child: Child) -> io::Result<LineChild> {
        // From here on, an early return drops `this`, which stops the child.
        let mut this = LineChild { child, to_child: None, writer: None, from_child: mpsc::channel().1, reaped: false };
        let not_piped = |what: &str| io::Error::other(format!("the child's {what} is not piped"));
        let mut stdin = this.child.stdin.take().ok_or_else(|| not_piped("standard input"))?;
        let stdout = this.child.stdout.take().ok_or_else(|| not_piped("standard output"))?;
        let (to_child, lines) = mpsc::channel::<String>();
        this.writer = Some(thread::Builder::new().name("meteor-input".into()).spawn(move || {
            for line in lines {
                stdin.write_all(line.as_bytes())?;
                stdin.flush()?;
            }
            Ok(())
        })?);
        this.to_child = Some(to_child);
        let (replies, from_child) = mpsc::channel();
        thread::Builder::new().name("meteor-output".into()).spawn(move || {
            let mut stdout = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match stdout.read_line(&mut line) {
                    Ok(0) => break,
                    Ok(_) => {
                        if replies.send(Ok(line)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = replies.send(Err(e));
                        break;
                    }
                }
            }
        })?;
        this.from_child = from_child;
        Ok(this)
    }

    /// Sends `line` and a newline to the child.
    fn send(&mut self, line: &str) -> Result<(), ChildError> {
        if self.to_child.as_ref().is_some_and(|to| to.send(format!("{line}\n")).is_ok()) {
            return Ok(());
        }
        // The writing thread has ended: it says why.
        Err(ChildError::Write(match self.writer.take().map(JoinHandle::join) {
            Some(Ok(Err(e))) => e,
            _ => io::Error::new(io::ErrorKind::BrokenPipe, "the child's input is closed"),
        }))
    }

    /// The child's next line (with its newline), waiting as long as it
    /// takes unless the cancel flag is set.
    fn receive(&mut self) -> Result<String, ChildError> {
        loop {
            if crate::cancel::check().is_err() {
                self.stop();
                return Err(ChildError::Cancelled);
            }
            match self.from_child.recv_timeout(CANCEL_POLL) {
                Ok(Ok(line)) => return Ok(line),
                Ok(Err(e)) => return Err(ChildError::Read(e)),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(ChildError::Ended),
            }
        }
    }

    /// Kills and reaps the child (once) and closes its input.
    fn stop(&mut self) {
        self.to_child = None;
        if !self.reaped {
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.reaped = true;
        }
    }
}

impl Drop for LineChild {
    fn drop(&mut self) {
        self.stop();
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

    /// The child-process side with stand-ins for java (`sh`, `sleep`).
    #[cfg(unix)]
    mod stand_ins {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        use std::time::Instant;

        use super::super::*;

        /// `sh -c script` with its input and output piped.
        fn shell(script: &str) -> Child {
            Command::new("sh")
                .args(["-c", script])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        }

        /// Runs `work` inside [`crate::cancel::within`] on a thread of its own and sets the
        /// flag `after` it started: the result, and how long after the flag it came. Fails
        /// when 5 s after the flag there is none.
        fn cancelled_after<T: Send + 'static>(
            after: Duration,
            work: impl FnOnce() -> T + Send + 'static,
        ) -> (T, Duration) {
            let flag = Arc::new(AtomicBool::new(false));
            let (done, result) = mpsc::channel();
            let watched = flag.clone();
            thread::spawn(move || {
                let _ = done.send(crate::cancel::within(watched, work));
            });
            thread::sleep(after);
            flag.store(true, Ordering::Relaxed);
            let set = Instant::now();
            let value = result.recv_timeout(Duration::from_secs(5)).expect("no result 5 s after the cancel");
            (value, set.elapsed())
        }

        /// True while process `pid` is in the process table (running, or a zombie that
        /// nobody waited for).
        fn in_process_table(pid: u32) -> bool {
            Path::new(&format!("/proc/{pid}")).exists()
        }

        #[test]
        fn a_cancel_kills_and_reaps_a_silent_child_within_a_second() {
            let child = Command::new("sleep").arg("30").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
            let pid = child.id();
            let mut waiting = LineChild::new(child).unwrap();
            let ((result, waiting), latency) = cancelled_after(Duration::from_millis(200), move || {
                let result = waiting.receive();
                (result, waiting)
            });
            assert!(matches!(result, Err(ChildError::Cancelled)), "{result:?}");
            assert!(latency < Duration::from_secs(1), "stopped {latency:?} after the cancel");
            assert!(waiting.reaped);
            if Path::new("/proc/self").exists() {
                assert!(!in_process_table(pid), "sleep ({pid}) is still in the process table");
            }
            drop(waiting);
        }

        #[test]
        fn lines_go_to_the_child_and_come_back_until_it_ends() {
            let mut child = LineChild::new(shell(r#"read -r line; echo "got $line""#)).unwrap();
            child.send("a ||| b").unwrap();
            assert_eq!(child.receive().unwrap(), "got a ||| b\n");
            assert!(matches!(child.receive(), Err(ChildError::Ended)));
        }

        #[test]
        fn a_child_without_pipes_is_refused_and_reaped() {
            let child = Command::new("sleep").arg("30").stdin(Stdio::null()).stdout(Stdio::null()).spawn().unwrap();
            let pid = child.id();
            let err = LineChild::new(child).err().unwrap();
            assert!(err.to_string().contains("standard input is not piped"), "{err}");
            if Path::new("/proc/self").exists() {
                assert!(!in_process_table(pid), "sleep ({pid}) is still in the process table");
            }
        }

        /// A stand-in for the jar that speaks its protocol: a SCORE line gets statistics,
        /// the EVAL line with both segments' statistics the segment and corpus scores.
        const STAND_IN: &str = r#"
            while IFS= read -r line; do
                case "$line" in
                    "SCORE ||| "*) echo "1 2 3" ;;
                    "EVAL ||| 1 2 3 ||| 1 2 3") echo 0.5; echo 0.25; echo 0.375 ;;
                    *) echo "unexpected: $line" ;;
                esac
            done"#;

        #[test]
        fn the_scoring_protocol_with_a_stand_in_for_the_jar() {
            let mut meteor = MeteorJar::with_child(shell(STAND_IN), Path::new("stand-in.jar")).unwrap();
            let (score, per_line) = meteor.compute_score(&["a string", "yes"], &[vec!["a string", "no"]]).unwrap();
            assert_eq!((score, per_line), (0.375, vec![0.5, 0.25]));
        }

        #[test]
        fn a_cancel_stops_the_scoring_while_the_jar_is_silent() {
            // Answers the first segment, then sleeps in its place (`exec`: one process).
            let silent = shell(r#"read -r line; echo "1 2 3"; exec sleep 30"#);
            let pid = silent.id();
            let mut meteor = MeteorJar::with_child(silent, Path::new("stand-in.jar")).unwrap();
            let (result, latency) = cancelled_after(Duration::from_millis(300), move || {
                meteor.compute_score(&["a", "b", "c"], &[vec!["a", "b", "c"]])
            });
            assert!(matches!(result, Err(EvalError::Cancelled)), "{result:?}");
            assert!(latency < Duration::from_secs(1), "stopped {latency:?} after the cancel");
            if Path::new("/proc/self").exists() {
                assert!(!in_process_table(pid), "the stand-in ({pid}) is still in the process table");
            }
        }

        #[test]
        fn a_cancel_stops_the_jar_when_available() {
            let Ok(jar) = find_jar(None) else {
                eprintln!("skipping: set {METEOR_JAR_ENV} to meteor-1.5.jar to run this test");
                return;
            };
            let mut meteor = MeteorJar::start(&jar).unwrap();
            let pid = meteor.child.child.id();
            let lines: Vec<String> = (0..5_000).map(|i| format!("the value {i} of the list")).collect();
            let (result, latency) = cancelled_after(Duration::from_millis(1_500), move || {
                let hyps: Vec<&str> = lines.iter().map(String::as_str).collect();
                let refs = vec![hyps.iter().rev().copied().collect::<Vec<_>>()];
                meteor.compute_score(&hyps, &refs)
            });
            assert!(matches!(result, Err(EvalError::Cancelled)), "{result:?}");
            assert!(latency < Duration::from_secs(1), "stopped {latency:?} after the cancel");
            if Path::new("/proc/self").exists() {
                assert!(!in_process_table(pid), "java ({pid}) is still in the process table");
            }
        }
    }
}
