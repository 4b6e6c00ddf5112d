//! CS1QA model inputs (paper Section 6): the question text followed by a segment of the
//! program, `[CLS] question [SEP] code [SEP]` (RoBERTa: `<s> question </s></s> code </s>`).
//! Programs longer than the model allows are cut at line boundaries into segments that
//! each fit behind the question; a single line longer than a segment is cut between
//! tokens.
//!
//! Every code token keeps the 0-based line it starts on, found from the tokenizer's byte
//! offsets, so a predicted token range maps back to lines with any tokenizer, also those
//! (WordPiece) that drop newlines.

use crate::config::Family;
use crate::error::{ModelError, Result};
use crate::tokenizer::Tokenizer;

/// The special tokens around a question/code pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairLayout {
    /// `[CLS]` or `<s>`.
    pub cls: u32,
    /// `[SEP]` or `</s>`.
    pub sep: u32,
    /// RoBERTa puts two separators between the texts, and so do BART's and CodeT5's
    /// (RoBERTa's) tokenizers.
    pub double_sep: bool,
}

impl PairLayout {
    /// The layout of `tokenizer` for a model of `family`: the ids its post-processor puts
    /// around an empty text.
    pub fn of(tokenizer: &Tokenizer, family: Family) -> Result<PairLayout> {
        let ids = tokenizer.encode("", None)?.ids;
        match ids.as_slice() {
            [cls, sep] => Ok(PairLayout { cls: *cls, sep: *sep, double_sep: family != Family::Bert }),
            other => Err(ModelError::Tokenizer(format!(
                "{}: expected the tokenizer to wrap a text in a start and an end token, got {other:?}",
                tokenizer.source().display()
            ))),
        }
    }

    /// Special tokens in one pair.
    pub fn specials(&self) -> usize {
        if self.double_sep {
            4
        } else {
            3
        }
    }
}

/// One model input: the question and one piece of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// The whole input, special tokens included.
    pub ids: Vec<u32>,
    /// Position in `ids` of the first code token.
    pub code_start: usize,
    /// The 0-based program line of each code token (`ids[code_start + i]`).
    pub token_lines: Vec<u64>,
}

impl Segment {
    /// Position in `ids` just past the last code token.
    pub fn code_end(&self) -> usize {
        self.code_start + self.token_lines.len()
    }

    /// First and last position of code tokens whose line lies in `first..=last`, as the
    /// start and end labels of line selection; `(0, 0)` (the summary token) when none does.
    pub fn label(&self, span: Option<(u64, u64)>) -> (usize, usize) {
        let Some((first, last)) = span else { return (0, 0) };
        let inside = |l: &u64| (first..=last).contains(l);
        match (self.token_lines.iter().position(inside), self.token_lines.iter().rposition(inside)) {
            (Some(s), Some(e)) => (self.code_start + s, self.code_start + e),
            _ => (0, 0),
        }
    }

    /// The lines a predicted start and end position select, `None` (N/A) by the paper's
    /// three rules: end before start, either at position 0, or either outside the code.
    pub fn lines(&self, start: usize, end: usize) -> Option<(u64, u64)> {
        let code = self.code_start..self.code_end();
        if end < start || start == 0 || end == 0 || !code.contains(&start) || !code.contains(&end) {
            return None;
        }
        Some((self.token_lines[start - self.code_start], self.token_lines[end - self.code_start]))
    }
}

/// The 0-based line of each byte offset's position in `text`.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    starts
}

/// Cuts `question` + `code` into inputs of at most `max_len` ids. The question keeps at
/// most half of `max_len`; the code fills the rest, whole lines per segment where they fit.
/// A program without tokens gives one segment without code.
pub fn segment(
    tokenizer: &Tokenizer,
    layout: PairLayout,
    question: &str,
    code: &str,
    max_len: usize,
) -> Result<Vec<Segment>> {
    let specials = layout.specials();
    if max_len < specials + 2 {
        return Err(ModelError::Data(format!("a maximum length of {max_len} leaves no room for question and code")));
    }
    let mut q = tokenizer.encode_plain(question)?.ids;
    q.truncate((max_len - specials) / 2);
    let budget = max_len - specials - q.len();
    let code_enc = tokenizer.encode_plain(code)?;
    let starts = line_starts(code);
    let lines: Vec<u64> =
        code_enc.offsets.iter().map(|&(s, _)| (starts.partition_point(|&b| b <= s) - 1) as u64).collect();
    let mut head = vec![layout.cls];
    head.extend_from_slice(&q);
    head.push(layout.sep);
    if layout.double_sep {
        head.push(layout.sep);
    }
    let make = |range: std::ops::Range<usize>| {
        let mut ids = head.clone();
        ids.extend_from_slice(&code_enc.ids[range.clone()]);
        ids.push(layout.sep);
        Segment { ids, code_start: head.len(), token_lines: lines[range].to_vec() }
    };
    if code_enc.ids.is_empty() {
        return Ok(vec![make(0..0)]);
    }
    // runs of tokens on the same line
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, &line) in lines.iter().enumerate() {
        match runs.last_mut() {
            Some(r) if lines[r.start] == line => r.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    let mut out = Vec::new();
    let mut current: Option<std::ops::Range<usize>> = None;
    for run in runs {
        let run_len = run.len();
        if let Some(c) = current.as_mut().filter(|c| c.len() + run_len <= budget) {
            c.end = run.end;
            continue;
        }
        if let Some(c) = current.take() {
            out.push(make(c));
        }
        // a line longer than a segment is cut between tokens
        let mut s = run.start;
        while run.end - s > budget {
            out.push(make(s..s + budget));
            s += budget;
        }
        current = Some(s..run.end);
    }
    if let Some(c) = current {
        out.push(make(c));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokenizer() -> Tokenizer {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nx\n=\n1\nprint\n(\n)\nwhat\nis\n?\ny\n+\n";
        std::fs::write(dir.join("vocab.txt"), vocab).unwrap();
        Tokenizer::from_wordpiece_vocab(&dir.join("vocab.txt"), true).unwrap()
    }

    #[test]
    fn segments_cut_at_lines_and_map_tokens_back() {
        let tok = tokenizer();
        let layout = PairLayout::of(&tok, Family::Bert).unwrap();
        assert_eq!((layout.cls, layout.sep, layout.specials()), (2, 3, 3));
        // 5 code lines: "x = 1" (3 tokens), "" , "print ( x )" (4), "y = x + 1" (5), "print ( y )" (4)
        let code = "x = 1\n\nprint(x)\ny = x + 1\nprint(y)";
        // question 3 tokens, max_len 14 -> budget 14 - 3 - 3 = 8
        let segs = segment(&tok, layout, "what is x?", code, 14).unwrap();
        let lines: Vec<Vec<u64>> = segs.iter().map(|s| s.token_lines.clone()).collect();
        assert_eq!(lines, vec![vec![0, 0, 0, 2, 2, 2, 2], vec![3, 3, 3, 3, 3], vec![4, 4, 4, 4]]);
        for s in &segs {
            assert!(s.ids.len() <= 14);
            assert_eq!(&s.ids[..6], &[2, 10, 11, 4, 12, 3]);
            assert_eq!(s.code_start, 6);
            assert_eq!(*s.ids.last().unwrap(), 3);
        }
        // labels: gold lines 2..=3 in the first segment -> tokens of line 2; second -> all
        assert_eq!(segs[0].label(Some((2, 3))), (9, 12));
        assert_eq!(segs[1].label(Some((2, 3))), (6, 10));
        assert_eq!(segs[2].label(Some((2, 3))), (0, 0));
        assert_eq!(segs[0].label(None), (0, 0));
        // decoding: the three N/A rules, then lines of the tokens
        assert_eq!(segs[0].lines(9, 12), Some((2, 2)));
        assert_eq!(segs[0].lines(6, 12), Some((0, 2)));
        assert_eq!(segs[0].lines(12, 9), None);
        assert_eq!(segs[0].lines(0, 9), None);
        assert_eq!(segs[0].lines(6, 13), None);
        assert_eq!(segs[0].lines(3, 9), None);
        // a line longer than the budget is cut
        let long = segment(&tok, layout, "what is x?", "x + x + x + x + x + x", 10).unwrap();
        assert_eq!(long.iter().map(|s| s.token_lines.len()).collect::<Vec<_>>(), [4, 4, 3]);
        // no code
        let none = segment(&tok, layout, "what is x?", "", 20).unwrap();
        assert_eq!(none.len(), 1);
        assert_eq!(none[0].ids, [2, 10, 11, 4, 12, 3, 3]);
        assert!(segment(&tok, layout, "what", "x", 4).is_err());
    }
}
