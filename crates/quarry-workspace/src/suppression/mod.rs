//! What suppression comments mean for a run's findings. The comments are
//! read by the analysis ([`quarry_query::suppression_comments`]: a lexical
//! fact of the file, scanned within its time budget and carried by its
//! report); here they are matched against findings: a directive suppresses
//! a finding that starts on a line it covers when it names the finding's
//! query, by any name [`find_query`] knows (quarry id, `Q` number, CodeQL
//! `@id`, ruff code), or names none (a blanket `# noqa`). [`edits`] adds and
//! removes them.

pub mod edits;

use std::collections::HashMap;

use quarry_query::find_query;
pub use quarry_query::suppression_comments::{Directive, Form, SuppressionComments};

/// How a directive is matched against findings.
pub trait Names {
    /// Whether the directive applies to a finding of `query_id` starting on
    /// 0-based line `line`.
    fn suppresses(&self, query_id: &str, line: usize) -> bool;

    /// Whether the directive names `query_id` (a blanket directive names all).
    fn names(&self, query_id: &str) -> bool;
}

impl Names for Directive {
    fn suppresses(&self, query_id: &str, line: usize) -> bool {
        self.covers.contains(&line) && self.names(query_id)
    }

    fn names(&self, query_id: &str) -> bool {
        match &self.codes {
            None => true,
            Some(codes) => codes.iter().any(|code| names_query(code, query_id)),
        }
    }
}

/// Whether the ID `code` as written in a comment names `query_id`.
pub fn names_query(code: &str, query_id: &str) -> bool {
    find_query(code).is_some_and(|q| q.meta.id == query_id)
}

/// The suppression comments of one file, indexed by the lines they cover.
#[derive(Debug, Clone, Default)]
pub struct Suppressions {
    comments: SuppressionComments,
    /// The directives covering each line, in file order: finding the one
    /// that suppresses a finding looks at its line's only, so a file of
    /// tens of thousands of comments and findings costs no product of both.
    by_line: HashMap<usize, Vec<usize>>,
}

impl Suppressions {
    /// The comments of a file (as its report carries them), indexed.
    pub fn new(comments: SuppressionComments) -> Suppressions {
        let mut by_line: HashMap<usize, Vec<usize>> = HashMap::new();
        for (index, directive) in comments.directives.iter().enumerate() {
            for &covered in &directive.covers {
                let list = by_line.entry(covered).or_default();
                if list.last() != Some(&index) {
                    list.push(index);
                }
            }
        }
        Suppressions { comments, by_line }
    }

    /// The index of the first directive that suppresses a finding of
    /// `query_id` starting on 0-based line `line`.
    pub fn find(&self, query_id: &str, line: usize) -> Option<usize> {
        let covering = self.by_line.get(&line)?;
        covering.iter().copied().find(|&index| self.comments.directives[index].names(query_id))
    }
}

impl std::ops::Deref for Suppressions {
    type Target = SuppressionComments;

    fn deref(&self) -> &SuppressionComments {
        &self.comments
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Suppressions {
        Suppressions::new(SuppressionComments::scan(text))
    }

    #[test]
    fn noqa_forms() {
        let s = scan("import os  # noqa\nimport re  # NoQA: F401, py/unused-import Q2\nx = '# noqa'\n");
        assert_eq!(s.directives.len(), 2);
        assert_eq!(s.directives[0].codes, None);
        assert_eq!(s.directives[0].covers, vec![0]);
        assert_eq!(s.directives[0].column, 11);
        let codes = s.directives[1].codes.clone().unwrap();
        assert_eq!(codes, ["F401", "py/unused-import", "Q2"]);
        assert_eq!(s.directives[1].text, "NoQA: F401, py/unused-import Q2");
        assert!(s.directives[1].suppresses("unused-import", 1));
        assert!(!s.directives[1].suppresses("equals-none", 1));
        assert!(!s.directives[1].suppresses("unused-import", 0));
        assert!(s.find("equals-none", 0).is_some());
        assert!(s.find("equals-none", 2).is_none(), "a # in a string is no comment");
        let s = scan("x = 1  # type: ignore # noqa:E711\ny = 2  # noqaz\n");
        assert_eq!(s.directives.len(), 1);
        assert!(s.directives[0].suppresses("equals-none", 0));
    }

    #[test]
    fn codeql_and_lgtm_forms() {
        let text = "# codeql[py/unused-import]\nimport os\nimport re  # lgtm[py/unused-import]\n# lgtm\nimport sys\nx = 1  # codeql[py/unused-import]\ny = 2  # see lgtm docs\n";
        let s = scan(text);
        let forms: Vec<_> = s.directives.iter().map(|d| (d.form, d.covers.clone())).collect();
        assert_eq!(forms, [(Form::CodeQl, vec![1]), (Form::Lgtm, vec![2]), (Form::Lgtm, vec![3, 4])]);
        assert!(s.find("unused-import", 1).is_some());
        assert!(s.find("unused-import", 2).is_some());
        assert!(s.find("unused-import", 4).is_some());
        assert!(s.find("unused-import", 6).is_none());
    }
}
