//! KTX's token classes and the split of each class's tokens across train,
//! validation and test, as in INSPECT's released 10k dataset: the probe must
//! generalise to tokens it never saw in training.

use crate::dataset::Split;

/// `(class, split, tokens)` for every KTX class and split.
pub const KTX_TOKENS: &[(&str, Split, &[&str])] = &[
    ("KEH", Split::Train, &["assert", "catch", "throw"]),
    ("KEH", Split::Validation, &["try"]),
    ("KEH", Split::Test, &["finally", "throws"]),
    ("KFC", Split::Train, &["break", "case", "continue", "do", "else", "if", "instanceof"]),
    ("KFC", Split::Validation, &["return", "while"]),
    ("KFC", Split::Test, &["default", "for", "switch"]),
    ("KMD", Split::Train, &["extends", "final", "native", "private", "protected", "public"]),
    ("KMD", Split::Validation, &["class", "interface", "synchronized"]),
    ("KMD", Split::Test, &["abstract", "new", "static"]),
    ("KPT", Split::Train, &["byte", "float", "long", "short"]),
    ("KPT", Split::Validation, &["double", "int"]),
    ("KPT", Split::Test, &["boolean", "char"]),
    ("OAR", Split::Train, &["%", "*", "-"]),
    ("OAR", Split::Validation, &["/"]),
    ("OAR", Split::Test, &["+"]),
    ("OAS", Split::Train, &["+=", "="]),
    ("OAS", Split::Validation, &["-=", "<<="]),
    ("OAS", Split::Test, &["/=", ">>=", "|="]),
    ("OLB", Split::Train, &["^", "|", "||"]),
    ("OLB", Split::Validation, &["&"]),
    ("OLB", Split::Test, &["&&"]),
    ("ORE", Split::Train, &["<", "<=", "=="]),
    ("ORE", Split::Validation, &["!="]),
    ("ORE", Split::Test, &[">", ">="]),
    ("OUT", Split::Train, &["!", "++", "~"]),
    ("OUT", Split::Validation, &["--"]),
    ("OUT", Split::Test, &[":", "?"]),
    ("SYM", Split::Train, &["(", ")", ",", ";", "}"]),
    ("SYM", Split::Validation, &[".", "{"]),
    ("SYM", Split::Test, &["[", "]"]),
];

/// The class and split of a token, if KTX uses it.
pub fn ktx_class(token: &str) -> Option<(&'static str, Split)> {
    KTX_TOKENS.iter().find(|(_, _, tokens)| tokens.contains(&token)).map(|(class, split, _)| (*class, *split))
}
