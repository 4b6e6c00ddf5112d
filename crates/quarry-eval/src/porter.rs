//! The Porter stemmer exactly as nltk's `PorterStemmer()` runs it in its
//! default `NLTK_EXTENSIONS` mode (used by rouge-score and nltk's METEOR).
//!
//! NLTK mode differs from the original 1980 algorithm: an irregular-forms
//! table, `ies`/`ied` handling for four-letter words, a stricter step 1c, the
//! `alli`, `bli`, `fulli` and `logi` rules of step 2, a two-letter `*o`
//! condition, and words of at most two characters are left unstemmed.

/// Irregular forms that NLTK mode maps directly.
const POOL: &[(&str, &str)] = &[
    ("sky", "sky"),
    ("skies", "sky"),
    ("dying", "die"),
    ("lying", "lie"),
    ("tying", "tie"),
    ("news", "news"),
    ("innings", "inning"),
    ("inning", "inning"),
    ("outings", "outing"),
    ("outing", "outing"),
    ("cannings", "canning"),
    ("canning", "canning"),
    ("howe", "howe"),
    ("proceed", "proceed"),
    ("exceed", "exceed"),
    ("succeed", "succeed"),
];

type Word = Vec<char>;

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// nltk's `_is_consonant`.
fn is_consonant(word: &[char], mut i: usize) -> bool {
    if is_vowel(word[i]) {
        return false;
    }
    if word[i] == 'y' {
        let mut negate = false;
        while i > 0 && word[i] == 'y' {
            negate = !negate;
            i -= 1;
        }
        return is_vowel(word[i]) == negate;
    }
    true
}

/// nltk's `_consonant_flags`.
fn consonant_flags(word: &[char]) -> Vec<bool> {
    let mut flags: Vec<bool> = Vec::with_capacity(word.len());
    for (i, &c) in word.iter().enumerate() {
        let f = if is_vowel(c) {
            false
        } else if c == 'y' {
            i == 0 || !flags[i - 1]
        } else {
            true
        };
        flags.push(f);
    }
    flags
}

/// The measure m of `[C](VC){m}[V]`.
fn measure(stem: &[char]) -> usize {
    let flags = consonant_flags(stem);
    flags.windows(2).filter(|w| !w[0] && w[1]).count()
}

fn has_positive_measure(stem: &[char]) -> bool {
    measure(stem) > 0
}

fn contains_vowel(stem: &[char]) -> bool {
    consonant_flags(stem).iter().any(|c| !c)
}

/// Condition `*d`.
fn ends_double_consonant(word: &[char]) -> bool {
    let n = word.len();
    n >= 2 && word[n - 1] == word[n - 2] && is_consonant(word, n - 1)
}

/// Condition `*o`, with NLTK's two-letter extension.
fn ends_cvc(word: &[char]) -> bool {
    let n = word.len();
    (n >= 3
        && is_consonant(word, n - 3)
        && !is_consonant(word, n - 2)
        && is_consonant(word, n - 1)
        && !matches!(word[n - 1], 'w' | 'x' | 'y'))
        || (n == 2 && !is_consonant(word, 0) && is_consonant(word, 1))
}

fn ends_with(word: &[char], suffix: &str) -> bool {
    let n = suffix.chars().count();
    word.len() >= n && word[word.len() - n..].iter().copied().eq(suffix.chars())
}

fn strip(word: &[char], suffix: &str) -> Word {
    word[..word.len() - suffix.chars().count()].to_vec()
}

fn concat(stem: &[char], tail: &str) -> Word {
    let mut w = stem.to_vec();
    w.extend(tail.chars());
    w
}

/// One rule of `_apply_rule_list`: suffix, replacement, condition on the stem.
type Rule<'a> = (&'a str, &'a str, &'a dyn Fn(&[char]) -> bool);

/// nltk's `_apply_rule_list`: the first rule whose suffix matches decides.
/// The suffix `"*d"` stands for a double consonant ending.
fn apply_rules(word: &[char], rules: &[Rule]) -> Word {
    for (suffix, replacement, condition) in rules {
        if *suffix == "*d" && ends_double_consonant(word) {
            let stem = &word[..word.len() - 2];
            return if condition(stem) { concat(stem, replacement) } else { word.to_vec() };
        }
        if ends_with(word, suffix) {
            let stem = strip(word, suffix);
            return if condition(&stem) { concat(&stem, replacement) } else { word.to_vec() };
        }
    }
    word.to_vec()
}

fn always(_: &[char]) -> bool {
    true
}

fn rule<'a>(suffix: &'a str, replacement: &'a str, condition: &'a dyn Fn(&[char]) -> bool) -> Rule<'a> {
    (suffix, replacement, condition)
}

fn step1a(word: &[char]) -> Word {
    if ends_with(word, "ies") && word.len() == 4 {
        return concat(&strip(word, "ies"), "ie");
    }
    apply_rules(
        word,
        &[rule("sses", "ss", &always), rule("ies", "i", &always), rule("ss", "ss", &always), rule("s", "", &always)],
    )
}

fn step1b(word: &[char]) -> Word {
    if ends_with(word, "ied") {
        let tail = if word.len() == 4 { "ie" } else { "i" };
        return concat(&strip(word, "ied"), tail);
    }
    if ends_with(word, "eed") {
        let stem = strip(word, "eed");
        return if measure(&stem) > 0 { concat(&stem, "ee") } else { word.to_vec() };
    }
    let mut intermediate: Option<Word> = None;
    for suffix in ["ed", "ing"] {
        if ends_with(word, suffix) {
            let stem = strip(word, suffix);
            if contains_vowel(&stem) {
                intermediate = Some(stem);
                break;
            }
        }
    }
    let Some(stem) = intermediate else {
        return word.to_vec();
    };
    let last = *stem.last().unwrap_or(&' ');
    let not_lsz = move |_: &[char]| !matches!(last, 'l' | 's' | 'z');
    let last_text = last.to_string();
    let m1_cvc = |s: &[char]| measure(s) == 1 && ends_cvc(s);
    apply_rules(
        &stem,
        &[
            rule("at", "ate", &always),
            rule("bl", "ble", &always),
            rule("iz", "ize", &always),
            ("*d", last_text.as_str(), &not_lsz),
            rule("", "e", &m1_cvc),
        ],
    )
}

fn step1c(word: &[char]) -> Word {
    let cond = |s: &[char]| s.len() > 1 && is_consonant(s, s.len() - 1);
    apply_rules(word, &[rule("y", "i", &cond)])
}

fn step2(word: &[char]) -> Word {
    if ends_with(word, "alli") && has_positive_measure(&strip(word, "alli")) {
        return step2(&concat(&strip(word, "alli"), "al"));
    }
    let pm: &dyn Fn(&[char]) -> bool = &has_positive_measure;
    let head: Word = word[..word.len().saturating_sub(3)].to_vec();
    let logi = move |_: &[char]| has_positive_measure(&head);
    let rules = [
        rule("ational", "ate", pm),
        rule("tional", "tion", pm),
        rule("enci", "ence", pm),
        rule("anci", "ance", pm),
        rule("izer", "ize", pm),
        rule("bli", "ble", pm),
        rule("alli", "al", pm),
        rule("entli", "ent", pm),
        rule("eli", "e", pm),
        rule("ousli", "ous", pm),
        rule("ization", "ize", pm),
        rule("ation", "ate", pm),
        rule("ator", "ate", pm),
        rule("alism", "al", pm),
        rule("iveness", "ive", pm),
        rule("fulness", "ful", pm),
        rule("ousness", "ous", pm),
        rule("aliti", "al", pm),
        rule("iviti", "ive", pm),
        rule("biliti", "ble", pm),
        rule("fulli", "ful", pm),
        rule("logi", "log", &logi),
    ];
    apply_rules(word, &rules)
}

fn step3(word: &[char]) -> Word {
    let pm: &dyn Fn(&[char]) -> bool = &has_positive_measure;
    apply_rules(
        word,
        &[
            rule("icate", "ic", pm),
            rule("ative", "", pm),
            rule("alize", "al", pm),
            rule("iciti", "ic", pm),
            rule("ical", "ic", pm),
            rule("ful", "", pm),
            rule("ness", "", pm),
        ],
    )
}

fn step4(word: &[char]) -> Word {
    let gt1 = |s: &[char]| measure(s) > 1;
    let ion = |s: &[char]| measure(s) > 1 && matches!(s.last(), Some('s' | 't'));
    let rules: Vec<Rule> = [
        "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate",
        "iti", "ous", "ive", "ize",
    ]
    .iter()
    .map(|s| -> Rule {
        if *s == "ion" {
            rule(s, "", &ion)
        } else {
            rule(s, "", &gt1)
        }
    })
    .collect();
    apply_rules(word, &rules)
}

fn step5a(word: &[char]) -> Word {
    if ends_with(word, "e") {
        let stem = strip(word, "e");
        let m = measure(&stem);
        if m > 1 || (m == 1 && !ends_cvc(&stem)) {
            return stem;
        }
    }
    word.to_vec()
}

fn step5b(word: &[char]) -> Word {
    let head: Word = word[..word.len().saturating_sub(1)].to_vec();
    let cond = move |_: &[char]| measure(&head) > 1;
    apply_rules(word, &[rule("ll", "l", &cond)])
}

/// Stems one word as nltk's `PorterStemmer().stem(word)` does (the word is
/// lowercased first).
pub fn stem(word: &str) -> String {
    let lowered = crate::pytext::lower(word);
    if let Some((_, s)) = POOL.iter().find(|(k, _)| *k == lowered) {
        return (*s).to_string();
    }
    if crate::pytext::char_len(word) <= 2 {
        return lowered;
    }
    let mut w: Word = lowered.chars().collect();
    w = step1a(&w);
    w = step1b(&w);
    w = step1c(&w);
    w = step2(&w);
    w = step3(&w);
    w = step4(&w);
    w = step5a(&w);
    w = step5b(&w);
    w.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn nltk_mode_examples() {
        for (w, s) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("happy", "happi"),
            ("enjoy", "enjoy"),
            ("relational", "relat"),
            ("generalization", "gener"),
            ("dying", "die"),
            ("skies", "sky"),
            ("is", "is"),
            ("controlling", "control"),
            ("hopping", "hop"),
            ("filing", "file"),
        ] {
            assert_eq!(stem(w), s, "{w}");
        }
    }
}
