//! Methods and identifiers collected from real Java: a folder of `.java`
//! files or a JDK `src.zip`.
//!
//! Each file gives a [`FilePart`]; [`merge`] puts parts together in the order of their
//! file names, dropping repeated methods, so the corpus does not depend on the order the
//! files were read in, nor on how many shards read them ([`collect_parts`] of one shard).

use std::path::{Path, PathBuf};

use quarry_data::shard::Shard;
use serde::{Deserialize, Serialize};

use quarry_syntax::corpus::for_each_zip_member;
use quarry_syntax::kinds::java::{Field, JavaNode, Kind};
use quarry_syntax::walk::Preorder;
use quarry_syntax::{Language, ParsedFile, SourceFile, TokenKind};
use tree_sitter::Node;

use crate::error::{ProbeError, Result};
use crate::java::kinded_tokens;

/// One method as INSPECT stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Method {
    /// Code tokens (comments dropped) with their lexical kinds.
    pub tokens: Vec<(TokenKind, String)>,
}

impl Method {
    /// The tokens joined by single spaces: the text of a dataset sample.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self.tokens.iter().map(|(_, t)| t.as_str()).collect();
        texts.join(" ")
    }

    /// The token texts.
    pub fn token_texts(&self) -> Vec<String> {
        self.tokens.iter().map(|(_, t)| t.clone()).collect()
    }
}

/// The role of a declared identifier (IDN's classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum IdentifierRole {
    /// A package name segment (from package and import declarations): `IDP`.
    Package,
    /// A class, interface, enum or record name: `IDC`.
    Class,
    /// A method name: `IDM`.
    Method,
    /// A variable, parameter or field name: `IDV`.
    Variable,
}

impl IdentifierRole {
    /// The label of the role in IDN datasets.
    pub fn label(self) -> &'static str {
        match self {
            IdentifierRole::Package => "IDP",
            IdentifierRole::Class => "IDC",
            IdentifierRole::Method => "IDM",
            IdentifierRole::Variable => "IDV",
        }
    }
}

/// What was collected from a corpus.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// Distinct methods with a body, in corpus order.
    pub methods: Vec<Method>,
    /// Declared identifiers with their roles, in corpus order (repeats kept).
    pub identifiers: Vec<(IdentifierRole, String)>,
    /// Files read.
    pub files: usize,
    /// Files that could not be read, with the reason.
    pub errors: Vec<String>,
}

/// Limits of corpus collection.
#[derive(Debug, Clone, Copy)]
pub struct CorpusLimits {
    /// Stop after this many files.
    pub max_files: usize,
    /// Skip files larger than this.
    pub max_file_bytes: u64,
    /// Skip methods with more tokens than this.
    pub max_method_tokens: usize,
}

impl Default for CorpusLimits {
    fn default() -> CorpusLimits {
        CorpusLimits { max_files: usize::MAX, max_file_bytes: 4 << 20, max_method_tokens: 512 }
    }
}

/// What one file gives: its methods (with a body, within the token limit, no plain
/// accessor; repeats across files are dropped by [`merge`]) and declared identifiers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FilePart {
    /// The file's name: its path relative to the folder, or its zip member name.
    pub name: String,
    /// Its methods, in file order.
    pub methods: Vec<Method>,
    /// Its declared identifiers with their roles, in file order.
    pub identifiers: Vec<(IdentifierRole, String)>,
    /// Why it could not be read, if it could not.
    pub error: Option<String>,
}

/// Reads Java from a folder or a zip archive (such as a JDK `src.zip`).
pub fn collect(path: &Path, limits: &CorpusLimits) -> Result<Corpus> {
    collect_with_progress(path, limits, &mut |_| {})
}

/// [`collect`], calling `on_file` with the number of files read so far.
pub fn collect_with_progress(path: &Path, limits: &CorpusLimits, on_file: &mut dyn FnMut(usize)) -> Result<Corpus> {
    collect_listed(path, limits, None, on_file)
}

/// [`collect_with_progress`] of the files `files_from` lists (paths relative to the
/// folder, or zip member names), when given.
pub fn collect_listed(
    path: &Path,
    limits: &CorpusLimits,
    files_from: Option<&Path>,
    on_file: &mut dyn FnMut(usize),
) -> Result<Corpus> {
    let (parts, errors) = collect_parts(path, limits, Shard::default(), files_from, on_file)?;
    let mut corpus = merge(parts);
    corpus.errors.splice(0..0, errors);
    Ok(corpus)
}

/// The parts of the files of `path` that `shard` owns (by a stable hash of their names),
/// only those `files_from` lists when given (a listed name that is not there is an
/// error), and the errors of the walk. `limits.max_files` counts files in reading order.
pub fn collect_parts(
    path: &Path,
    limits: &CorpusLimits,
    shard: Shard,
    files_from: Option<&Path>,
    on_file: &mut dyn FnMut(usize),
) -> Result<(Vec<FilePart>, Vec<String>)> {
    let mut parts = Vec::new();
    let mut errors = Vec::new();
    let is_zip = path.is_file() && path.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"));
    let corpus_error = |e: quarry_data::DataError| ProbeError::Corpus(e.to_string());
    if is_zip {
        let listed = files_from.map(quarry_data::shard::listed_names).transpose().map_err(corpus_error)?;
        let mut wanted: Option<std::collections::BTreeMap<String, usize>> =
            listed.map(|names| names.into_iter().map(|(line, name)| (name, line)).collect());
        let mut count = 0usize;
        for_each_zip_member(path, "java", limits.max_file_bytes, |member| {
            if count >= limits.max_files {
                return;
            }
            if let Some(wanted) = wanted.as_mut() {
                if wanted.remove(&member.name).is_none() {
                    return;
                }
            }
            count += 1;
            if !shard.owns(&member.name) {
                return;
            }
            let name = member.name.clone();
            match member
                .contents
                .map_err(|e| e.to_string())
                .and_then(|bytes| SourceFile::from_bytes(PathBuf::from(&member.name), bytes).map_err(|e| e.to_string()))
            {
                Ok(source) => parts.push(file_part(name, source, limits)),
                Err(e) => parts.push(FilePart { error: Some(format!("{name}: {e}")), name, ..FilePart::default() }),
            }
            on_file(count);
        })
        .map_err(ProbeError::Corpus)?;
        if let (Some(list), Some(wanted)) = (files_from, wanted) {
            if let Some((name, line)) = wanted.into_iter().next() {
                return Err(ProbeError::Corpus(format!(
                    "{}:{line}: {name}: not in {}",
                    list.display(),
                    path.display()
                )));
            }
        }
    } else if path.exists() {
        let (files, walk_errors) =
            quarry_data::shard::input_files(&[path.to_path_buf()], Language::Java, files_from).map_err(corpus_error)?;
        errors.extend(walk_errors);
        let options = quarry_syntax::LoadOptions { max_file_bytes: limits.max_file_bytes };
        for (index, file) in files.into_iter().take(limits.max_files).enumerate() {
            let name = quarry_data::shard::relative_path(&[path.to_path_buf()], &file);
            if !shard.owns(&name) {
                continue;
            }
            match SourceFile::load(&file, &options) {
                Ok(source) => parts.push(file_part(name, source, limits)),
                Err(e) => parts.push(FilePart { error: Some(e.to_string()), name, ..FilePart::default() }),
            }
            on_file(index + 1);
        }
    } else {
        return Err(ProbeError::Corpus(format!("{}: no such file or folder", path.display())));
    }
    Ok((parts, errors))
}

/// The corpus of `parts`: their methods and identifiers in the order of the files' names,
/// each distinct method once (its first occurrence).
pub fn merge(mut parts: Vec<FilePart>) -> Corpus {
    parts.sort_by(|a, b| a.name.cmp(&b.name));
    let mut corpus = Corpus::default();
    let mut seen = std::collections::HashSet::new();
    for part in parts {
        corpus.files += 1;
        if let Some(error) = part.error {
            corpus.errors.push(error);
            continue;
        }
        corpus.methods.extend(part.methods.into_iter().filter(|m| seen.insert(m.text())));
        corpus.identifiers.extend(part.identifiers);
    }
    corpus
}

fn file_part(name: String, source: SourceFile, limits: &CorpusLimits) -> FilePart {
    let mut corpus = Corpus::default();
    add_file(&mut corpus, source, limits);
    let error = corpus.errors.pop();
    FilePart { name, methods: corpus.methods, identifiers: corpus.identifiers, error }
}

fn add_file(corpus: &mut Corpus, source: SourceFile, limits: &CorpusLimits) {
    let parsed = match ParsedFile::parse(source, Language::Java) {
        Ok(parsed) => parsed,
        Err(e) => {
            corpus.errors.push(e.to_string());
            return;
        }
    };
    for node in Preorder::new(parsed.root()) {
        match node.java_kind() {
            Kind::MethodDeclaration | Kind::ConstructorDeclaration if !node.has_error() => {
                if node.java_field(Field::Body).is_none() {
                    continue;
                }
                let tokens = kinded_tokens(parsed.node_text(node));
                if tokens.is_empty() || tokens.len() > limits.max_method_tokens {
                    continue;
                }
                let method = Method { tokens };
                if is_plain_accessor(&method) {
                    continue;
                }
                corpus.methods.push(method);
            }
            _ => {}
        }
        collect_identifiers(&parsed, node, &mut corpus.identifiers);
    }
}

fn collect_identifiers(parsed: &ParsedFile, node: Node<'_>, out: &mut Vec<(IdentifierRole, String)>) {
    let name = |n: Node<'_>| n.java_field(Field::Name).map(|n| parsed.node_text(n).to_string());
    match node.java_kind() {
        Kind::PackageDeclaration | Kind::ImportDeclaration => {
            // Every segment but the last of an import names a package
            // (`import java.util.List;`); all segments of a package declaration do.
            let mut segments: Vec<String> = Preorder::new(node)
                .filter(|n| n.java_kind() == Kind::Identifier)
                .map(|n| parsed.node_text(n).to_string())
                .collect();
            let wildcard = parsed.node_text(node).contains('*');
            if node.java_kind() == Kind::ImportDeclaration && !wildcard {
                segments.pop();
            }
            let is_static = node.child(1).is_some_and(|c| c.java_kind() == Kind::KwStatic);
            if is_static {
                segments.pop();
            }
            out.extend(
                segments
                    .into_iter()
                    .filter(|s| s.chars().all(|c| !c.is_uppercase()))
                    .map(|s| (IdentifierRole::Package, s)),
            );
        }
        Kind::ClassDeclaration
        | Kind::InterfaceDeclaration
        | Kind::EnumDeclaration
        | Kind::RecordDeclaration
        | Kind::AnnotationTypeDeclaration => {
            out.extend(name(node).map(|n| (IdentifierRole::Class, n)));
        }
        Kind::MethodDeclaration => out.extend(name(node).map(|n| (IdentifierRole::Method, n))),
        Kind::VariableDeclarator | Kind::FormalParameter | Kind::CatchFormalParameter => {
            out.extend(name(node).map(|n| (IdentifierRole::Variable, n)))
        }
        _ => {}
    }
}

/// Whether a method is a plain getter (`T getX() { return x; }`, also `isX`)
/// or setter (`void setX(T x) { this.x = x; }`), which INSPECT leaves out.
pub fn is_plain_accessor(method: &Method) -> bool {
    let texts: Vec<&str> = method.tokens.iter().map(|(_, t)| t.as_str()).collect();
    let Some(open) = texts.iter().position(|t| *t == "(") else { return false };
    let Some(name) = open.checked_sub(1).map(|i| texts[i]) else { return false };
    let Some(brace) = texts.iter().position(|t| *t == "{") else { return false };
    let body: Vec<&str> = texts[brace + 1..texts.len().saturating_sub(1)].to_vec();
    let strip_this = |b: &[&str]| -> Vec<String> {
        let joined = b.join(" ");
        joined.strip_prefix("this . ").unwrap_or(&joined).split(' ').map(str::to_string).collect()
    };
    let params = &texts[open + 1..brace];
    if (name.starts_with("get") || name.starts_with("is")) && params.first() == Some(&")") {
        // return x ; | return this . x ;
        if body.first() == Some(&"return") && body.last() == Some(&";") {
            let inner = strip_this(&body[1..body.len() - 1]);
            return inner.len() == 1;
        }
    }
    if name.starts_with("set") && body.last() == Some(&";") {
        // x = y ; | this . x = y ;
        let statement = strip_this(&body[..body.len() - 1]);
        return statement.len() == 3 && statement[1] == "=" && body.iter().filter(|t| **t == ";").count() == 1;
    }
    false
}
