//! CS1QA answer retrieval: dense retrieval with a [`DualEncoder`], the training pairs of
//! the paper (each training question's positive is its BM25 top-1 corpus question, from
//! quarry-data's [`Bm25Retriever`]) and recall of a reference top-1.

use quarry_data::cs1qa::{Bm25Retriever, Hit, RetrievalQuestion, Retrieved};

use super::dual_encoder::{DualEncoder, PairExample};
use crate::error::{ModelError, Result};

/// Training pairs as the paper builds them: each question with its BM25 top-1 corpus
/// question as the positive. `max_len` caps both sides' ids.
pub fn bm25_pairs(
    model: &DualEncoder,
    bm25: &Bm25Retriever,
    corpus: &[RetrievalQuestion],
    questions: &[RetrievalQuestion],
    max_len: usize,
) -> Result<Vec<PairExample>> {
    let by_id: std::collections::HashMap<u64, &str> = corpus.iter().map(|q| (q.id, q.text.as_str())).collect();
    let mut out = Vec::with_capacity(questions.len());
    for q in questions {
        let Some(top) = bm25.search(&q.text, 1).into_iter().next() else { continue };
        let positive = by_id.get(&top.id).ok_or_else(|| ModelError::Data(format!("corpus id {} missing", top.id)))?;
        out.push(PairExample {
            query: model.tokenize(&q.text, max_len)?,
            positive: model.tokenize(positive, max_len)?,
        });
    }
    Ok(out)
}

/// Dense retrieval: embeds the corpus and the questions and returns each question's `k`
/// corpus questions of highest dot product, best first (equal scores: earlier corpus
/// question first).
pub fn dense_search(
    model: &DualEncoder,
    corpus: &[RetrievalQuestion],
    questions: &[RetrievalQuestion],
    k: usize,
    max_len: usize,
    batch_size: usize,
) -> Result<Vec<Retrieved>> {
    let tok =
        |set: &[RetrievalQuestion]| set.iter().map(|q| model.tokenize(&q.text, max_len)).collect::<Result<Vec<_>>>();
    let docs = model.embed_all(&tok(corpus)?, batch_size)?;
    let queries = model.embed_all(&tok(questions)?, batch_size)?;
    let mut out = Vec::with_capacity(questions.len());
    for (q, v) in questions.iter().zip(&queries) {
        let mut scored: Vec<(usize, f64)> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| (i, d.iter().zip(v).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum()))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        out.push(Retrieved {
            id: q.id,
            hits: scored.into_iter().map(|(i, s)| Hit { id: corpus[i].id, score: s }).collect(),
        });
    }
    Ok(out)
}

/// The fraction of questions whose reference corpus id is among their first `k` hits;
/// `reference` pairs question id → corpus id (questions without one are skipped).
pub fn recall_at(results: &[Retrieved], reference: &std::collections::HashMap<u64, u64>, k: usize) -> f64 {
    let mut n = 0usize;
    let mut found = 0usize;
    for r in results {
        if let Some(gold) = reference.get(&r.id) {
            n += 1;
            if r.hits.iter().take(k).any(|h| h.id == *gold) {
                found += 1;
            }
        }
    }
    if n == 0 {
        0.0
    } else {
        found as f64 / n as f64
    }
}

/// Mean BLEU-1 of retrieved answers, overall and per questioner.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct AnswerBleu {
    /// Questions scored.
    pub count: usize,
    /// Mean over every scored question (0–1).
    pub mean: f64,
    /// Mean over questions whose retrieved question is a student's type, as the authors'
    /// `get_bleu.py` groups them (the paper's "student-asked questions").
    pub student: Option<f64>,
    /// The same for TA types (the paper's "TA's probing questions").
    pub ta: Option<f64>,
    /// Mean over questions asked by a student (grouped by the query itself).
    pub query_student: Option<f64>,
    /// Mean over questions asked by a TA (grouped by the query itself).
    pub query_ta: Option<f64>,
    /// Question or hit ids with no annotated row, skipped.
    pub missing: Vec<u64>,
}

/// Scores each question's top hit: the retrieved row's answer against the question's own
/// answer with BLEU-1 ([`quarry_eval::cs1qa::answer_bleu1`]). `answers` maps an id to its
/// annotated row (the authors index their annotated corpus by the retrieval ids).
pub fn answer_bleu(
    results: &[Retrieved],
    answers: &std::collections::HashMap<u64, &quarry_data::cs1qa::Cs1qaRow>,
) -> Result<AnswerBleu> {
    use quarry_data::cs1qa::Questioner;
    let mut all = Vec::new();
    let mut groups: [Vec<f64>; 4] = Default::default();
    let mut missing = Vec::new();
    for r in results {
        let Some(hit) = r.hits.first() else { continue };
        let (Some(query), Some(found)) = (answers.get(&r.id), answers.get(&hit.id)) else {
            missing.push(if answers.contains_key(&r.id) { hit.id } else { r.id });
            continue;
        };
        let b = quarry_eval::cs1qa::answer_bleu1(&query.answer, &found.answer)
            .map_err(|e| ModelError::Data(format!("BLEU of question {}: {e}", r.id)))?;
        all.push(b);
        let by_hit = if found.question_type.questioner() == Questioner::Student { 0 } else { 1 };
        let by_query = if query.questioner == Questioner::Student { 2 } else { 3 };
        groups[by_hit].push(b);
        groups[by_query].push(b);
    }
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    Ok(AnswerBleu {
        count: all.len(),
        mean: mean(&all).unwrap_or(0.0),
        student: mean(&groups[0]),
        ta: mean(&groups[1]),
        query_student: mean(&groups[2]),
        query_ta: mean(&groups[3]),
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(id: u64, text: &str) -> RetrievalQuestion {
        RetrievalQuestion { id, text: text.into(), doc_id: None }
    }

    #[test]
    fn recall_counts_reference_ids_among_the_first_hits() {
        let corpus = [
            q(10, "How do I turn Hubo right?"),
            q(11, "What is a list?"),
            q(12, "Why does my loop never end?"),
            q(13, "ok"),
        ];
        let all = Bm25Retriever::new(&corpus).unwrap().search_all(&[q(1, "what is a list?"), q(2, "turn hubo")], 1);
        let reference = [(1, 11), (2, 13)].into_iter().collect();
        assert_eq!(recall_at(&all, &reference, 1), 0.5);
    }

    #[test]
    fn answer_bleu_groups_by_the_retrieved_type_and_by_the_asker() {
        use quarry_data::cs1qa::{Cs1qaRow, Number, QuestionType, Questioner};
        let row = |questioner, question_type, answer: &str| Cs1qaRow {
            lab_no: Number::Int(1),
            task_no: Number::Int(1),
            questioner,
            question: "q".into(),
            code: String::new(),
            question_type,
            start_line: None,
            end_line: None,
            answer: answer.into(),
        };
        let rows = [
            row(Questioner::Student, QuestionType::Error, "use a while loop"),
            row(Questioner::Ta, QuestionType::Variable, "it counts the beepers"),
            row(Questioner::Student, QuestionType::Logical, "use a for loop"),
        ];
        let answers = rows.iter().enumerate().map(|(i, r)| (i as u64, r)).collect();
        let hits = |id, hit| Retrieved { id, hits: vec![Hit { id: hit, score: 1.0 }] };
        // 0 retrieves 2 (3 of 4 words match, same length: 0.75), 1 retrieves 0 (no match),
        // 2 retrieves 9 (no such row)
        let got = answer_bleu(&[hits(0, 2), hits(1, 0), hits(2, 9)], &answers).unwrap();
        assert_eq!(got.count, 2);
        assert!((got.mean - 0.375).abs() < 1e-12);
        assert_eq!(got.student, Some(0.375));
        assert_eq!(got.ta, None);
        assert_eq!(got.query_student, Some(0.75));
        assert_eq!(got.query_ta, Some(0.0));
        assert_eq!(got.missing, [9]);
    }
}
