//! The understanding-type augmentation of the CS1QA paper (Section 7.1, Appendix C):
//! questions made from the 13 templates of Table 9, their keywords drawn from a randomly
//! chosen program of the dataset, each paired with that program.
//!
//! Keywords, as Appendix C defines them: a *variable* is a random name token of the
//! program, a *function* a random name of a function it defines (`def NAME`), a *snippet* a
//! random non-blank line (stripped). The last template also draws one of `list`,
//! `dictionary`, `variable`, `function`.

use std::collections::BTreeSet;

use quarry_stdx::rng::SplitMix64;
use quarry_syntax::Language;
use quarry_syntax::{tokenize, TokenKind};

use super::rows::{Cs1qaRow, QuestionType, Questioner};

/// What fills a template's slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A variable or a function name.
    VariableOrFunction,
    /// A function name.
    Function,
    /// A function name or a line of code.
    FunctionOrSnippet,
    /// A line of code.
    Snippet,
    /// One of `list`, `dictionary`, `variable`, `function`.
    Kind,
}

/// Table 9's templates: the text around `{}` and what fills each `{}`.
pub const TEMPLATES: [(&str, &[Slot]); 13] = [
    ("What does {} mean?", &[Slot::VariableOrFunction]),
    ("What does {} refer to?", &[Slot::VariableOrFunction]),
    ("What's the meaning of {}", &[Slot::VariableOrFunction]),
    ("What does {} do?", &[Slot::Function]),
    ("Can you explain what {} does?", &[Slot::Function]),
    ("Can you describe what {} is doing?", &[Slot::Function]),
    ("How do I use {}?", &[Slot::Function]),
    ("How to use {}?", &[Slot::Function]),
    ("I don't understand {}.", &[Slot::Snippet]),
    ("What is {}?", &[Slot::Function]),
    ("Should I use {}?", &[Slot::FunctionOrSnippet]),
    ("Why do you do {}?", &[Slot::Snippet]),
    ("Is {} a {}?", &[Slot::VariableOrFunction, Slot::Kind]),
];

const KINDS: [&str; 4] = ["list", "dictionary", "variable", "function"];

/// The keywords of one program.
#[derive(Debug, Clone, Default)]
pub struct Keywords {
    /// Distinct names (identifiers), sorted.
    pub variables: Vec<String>,
    /// Distinct names of defined functions, sorted.
    pub functions: Vec<String>,
    /// Non-blank lines, stripped, in order.
    pub snippets: Vec<String>,
}

impl Keywords {
    /// The keywords of a Python program (the lexer never fails, so erroneous student code
    /// still yields keywords).
    pub fn of(code: &str) -> Keywords {
        let tokens = tokenize(code, Language::Python);
        let mut variables = BTreeSet::new();
        let mut functions = BTreeSet::new();
        let mut after_def = false;
        for t in &tokens {
            let text = t.text(code);
            match t.kind {
                TokenKind::Identifier if after_def => {
                    functions.insert(text.to_string());
                }
                TokenKind::Identifier => {
                    variables.insert(text.to_string());
                }
                _ => {}
            }
            after_def = t.kind == TokenKind::Keyword && text == "def";
        }
        let snippets = code.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect();
        Keywords { variables: variables.into_iter().collect(), functions: functions.into_iter().collect(), snippets }
    }

    fn fill(&self, slot: Slot, rng: &mut SplitMix64) -> Option<String> {
        let pick = |list: &[String], rng: &mut SplitMix64| {
            (!list.is_empty()).then(|| list[rng.below_modulo(list.len())].clone())
        };
        match slot {
            Slot::Function => pick(&self.functions, rng),
            Slot::Snippet => pick(&self.snippets, rng),
            Slot::VariableOrFunction | Slot::FunctionOrSnippet => {
                let (a, b) = if slot == Slot::VariableOrFunction {
                    (&self.variables, &self.functions)
                } else {
                    (&self.functions, &self.snippets)
                };
                // one of the two kinds at random; the other when the first has none
                let first = rng.below_modulo(2) == 0;
                let (x, y) = if first { (a, b) } else { (b, a) };
                pick(x, rng).or_else(|| pick(y, rng))
            }
            Slot::Kind => Some(KINDS[rng.below_modulo(KINDS.len())].to_string()),
        }
    }
}

/// Makes `count` understanding-type questions from `rows`' programs with `seed`: each picks
/// a random row and a random template, fills it from that row's code (drawing again, up to
/// a bound, when the code lacks a keyword kind) and copies lab, task and code. Generated
/// rows are student questions of type `code_understanding` with no line span (they serve
/// type classification) and no answer. Fewer rows come back when no program yields any.
pub fn augment(rows: &[Cs1qaRow], count: usize, seed: u64) -> Vec<Cs1qaRow> {
    let mut rng = SplitMix64::new(seed);
    let keywords: Vec<Keywords> = rows.iter().map(|r| Keywords::of(&r.code)).collect();
    let mut out = Vec::with_capacity(count);
    let mut failures = 0usize;
    while out.len() < count && !rows.is_empty() && failures < 100 * count.max(1) {
        let i = rng.below_modulo(rows.len());
        let (template, slots) = TEMPLATES[rng.below_modulo(TEMPLATES.len())];
        let fills: Option<Vec<String>> = slots.iter().map(|s| keywords[i].fill(*s, &mut rng)).collect();
        let Some(fills) = fills else {
            failures += 1;
            continue;
        };
        let mut question = String::new();
        let mut parts = template.split("{}");
        question.push_str(parts.next().unwrap_or(""));
        for (fill, rest) in fills.iter().zip(parts) {
            question.push_str(fill);
            question.push_str(rest);
        }
        let source = &rows[i];
        out.push(Cs1qaRow {
            lab_no: source.lab_no.clone(),
            task_no: source.task_no.clone(),
            questioner: Questioner::Student,
            question,
            code: source.code.clone(),
            question_type: QuestionType::CodeUnderstanding,
            start_line: None,
            end_line: None,
            answer: String::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::rows::Number;
    use super::*;

    fn row(code: &str) -> Cs1qaRow {
        Cs1qaRow {
            lab_no: Number::Int(2),
            task_no: Number::Int(1),
            questioner: Questioner::Ta,
            question: "q".into(),
            code: code.into(),
            question_type: QuestionType::Variable,
            start_line: Some(0),
            end_line: Some(0),
            answer: "a".into(),
        }
    }

    #[test]
    fn keywords_come_from_the_code() {
        let k = Keywords::of("def turn_right():\n    for i in range(3):\n        hubo.turn_left()\n\nturn_right(\n");
        assert_eq!(k.functions, ["turn_right"]);
        assert_eq!(k.variables, ["hubo", "i", "range", "turn_left", "turn_right"]);
        assert_eq!(k.snippets[1], "for i in range(3):");
        assert_eq!(k.snippets.len(), 4);
    }

    #[test]
    fn augmentation_is_seeded_and_fills_every_slot() {
        let rows = vec![
            row("def move_and_pick():\n    hubo.move()\n    if hubo.on_beeper():\n        hubo.pick_beeper()\n"),
            row("balance = 0\nprint(balance)\n"),
        ];
        let a = augment(&rows, 50, 7);
        assert_eq!(a.len(), 50);
        assert_eq!(a, augment(&rows, 50, 7));
        assert_ne!(a, augment(&rows, 50, 8));
        for r in &a {
            assert!(!r.question.contains("{}"), "{}", r.question);
            assert_eq!(r.question_type, QuestionType::CodeUnderstanding);
            assert!(rows.iter().any(|s| s.code == r.code));
            // the second program defines no function: its questions use variables or lines
            if r.code.starts_with("balance") {
                assert!(!r.question.contains("move_and_pick"));
            }
        }
        // at least 10 of the 13 templates appear in 50 draws with these programs
        let used = TEMPLATES
            .iter()
            .filter(|(t, _)| a.iter().any(|r| r.question.starts_with(t.split("{}").next().unwrap())))
            .count();
        assert!(used >= 10, "{used}");
        assert!(augment(&[], 5, 1).is_empty());
    }
}
