//! The 15 INSPECT probing tasks and their classes.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::error::ProbeError;

/// An INSPECT probing task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Task {
    /// Keyword tagging: the class of a keyword, operator or symbol token.
    Ktx,
    /// Identifier tagging: package, class, method or variable name.
    Idn,
    /// Code length in tokens, 5 bins of 50.
    Len,
    /// A primitive type name misspelled.
    Typ,
    /// A relational operator replaced by an assignment operator.
    Rea,
    /// Two consecutive tokens swapped.
    Jbl,
    /// One identifier occurrence replaced by another identifier of the method.
    Sri,
    /// One keyword replaced by a random keyword.
    Srk,
    /// One keyword replaced by a keyword of the same category.
    Sck,
    /// Number of unique operators (1 to 10).
    Ocu,
    /// Number of unique variables (1 to 10).
    Vcu,
    /// Number of code structures: if, for, while, switch, try (0 to 9).
    Csc,
    /// Maximum indentation (nesting of braces, 1 to 5).
    Mxn,
    /// Cyclomatic complexity as the number of decision points (0 to 9).
    Cpx,
    /// NPath complexity in 10 widening bins.
    Npt,
}

impl Task {
    /// All tasks in the paper's order.
    pub const ALL: [Task; 15] = [
        Task::Ktx,
        Task::Idn,
        Task::Len,
        Task::Typ,
        Task::Rea,
        Task::Jbl,
        Task::Sri,
        Task::Srk,
        Task::Sck,
        Task::Ocu,
        Task::Vcu,
        Task::Csc,
        Task::Mxn,
        Task::Cpx,
        Task::Npt,
    ];

    /// The three-letter code.
    pub fn code(self) -> &'static str {
        match self {
            Task::Ktx => "KTX",
            Task::Idn => "IDN",
            Task::Len => "LEN",
            Task::Typ => "TYP",
            Task::Rea => "REA",
            Task::Jbl => "JBL",
            Task::Sri => "SRI",
            Task::Srk => "SRK",
            Task::Sck => "SCK",
            Task::Ocu => "OCU",
            Task::Vcu => "VCU",
            Task::Csc => "CSC",
            Task::Mxn => "MXN",
            Task::Cpx => "CPX",
            Task::Npt => "NPT",
        }
    }

    /// The class labels, in display order.
    pub fn labels(self) -> Vec<String> {
        let fixed: &[&str] = match self {
            Task::Ktx => &["KEH", "KFC", "KMD", "KPT", "OAR", "OAS", "OLB", "ORE", "OUT", "SYM"],
            Task::Idn => &["IDC", "IDM", "IDP", "IDV"],
            Task::Len => &["A", "B", "C", "D", "E"],
            Task::Typ | Task::Rea | Task::Sri | Task::Srk | Task::Sck => &["ORIG", "FAULT"],
            Task::Jbl => &["ORIG", "REPL"],
            _ => return self.count_classes().into_iter().flatten().map(|n| n.to_string()).collect(),
        };
        fixed.iter().map(|s| s.to_string()).collect()
    }

    /// The counts that are classes of a counting task (OCU, VCU, NPT: 1–10; CSC, CPX: 0–9;
    /// MXN: 1–5), the one place these ranges are written; `None` for other tasks.
    pub fn count_classes(self) -> Option<std::ops::RangeInclusive<usize>> {
        match self {
            Task::Ocu | Task::Vcu | Task::Npt => Some(1..=10),
            Task::Csc | Task::Cpx => Some(0..=9),
            Task::Mxn => Some(1..=5),
            _ => None,
        }
    }

    /// Whether the label is a function of the sample's text (so it can be checked).
    pub fn is_deterministic(self) -> bool {
        matches!(self, Task::Len | Task::Ocu | Task::Vcu | Task::Csc | Task::Mxn | Task::Cpx | Task::Npt)
    }

    /// Whether a sample is a single token rather than a method.
    pub fn is_token_task(self) -> bool {
        matches!(self, Task::Ktx | Task::Idn)
    }

    /// Whether samples are original or mutated methods.
    pub fn is_mutation_task(self) -> bool {
        matches!(self, Task::Typ | Task::Rea | Task::Jbl | Task::Sri | Task::Srk | Task::Sck)
    }
}

impl fmt::Display for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Task {
    type Err = ProbeError;

    fn from_str(s: &str) -> Result<Task, ProbeError> {
        Task::ALL
            .into_iter()
            .find(|t| t.code().eq_ignore_ascii_case(s))
            .ok_or_else(|| ProbeError::UnknownTask(s.to_string()))
    }
}
