//! Source encodings as CPython reads them: a UTF-8 byte-order mark, a PEP 263
//! coding declaration (`# -*- coding: latin-1 -*-`) on the first or second
//! line, and UTF-8 otherwise.
//!
//! Declared names are normalised the way CPython's tokenizer and
//! `codecs.lookup` do, then decoded: UTF-8, ISO-8859-1 and ASCII here (the
//! WHATWG tables behind `encoding_rs` map `latin-1` and `ascii` to
//! windows-1252, which CPython does not), every other codec through
//! `encoding_rs` (the windows-125x code pages, the ISO-8859 family, KOI8,
//! Mac Roman, the CJK multi-byte encodings). The text handed on is the decoded
//! text, so every span points into it.

use std::path::Path;

use encoding_rs::Encoding;

use crate::error::SyntaxError;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A decoded file: its text, whether it began with a UTF-8 byte-order mark,
/// and the encoding it was decoded from (CPython's normalised name).
#[derive(Debug)]
pub struct Decoded {
    /// The text, without a byte-order mark.
    pub text: String,
    /// Whether the bytes began with a UTF-8 byte-order mark.
    pub had_bom: bool,
    /// The encoding used, e.g. `utf-8` or `iso-8859-1`.
    pub encoding: String,
}

/// The codec a declaration names.
enum Codec {
    Utf8,
    Latin1,
    Ascii,
    Other(&'static Encoding),
}

/// Decodes a source file's bytes as CPython would. `path` names the file in
/// errors; byte offsets in errors count from the start of the file, BOM
/// included.
pub fn decode_source(path: &Path, mut bytes: Vec<u8>) -> Result<Decoded, SyntaxError> {
    let had_bom = bytes.starts_with(UTF8_BOM);
    let bom_len = if had_bom { UTF8_BOM.len() } else { 0 };
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(SyntaxError::Binary { path: path.to_path_buf(), offset });
    }
    let declared = coding_declaration(&bytes[bom_len..]);
    let (name, codec) = match &declared {
        None => ("utf-8".to_string(), Codec::Utf8),
        Some((name, line)) => {
            let normal = normal_name(name);
            match codec_of(&normal) {
                Some(codec) => (normal, codec),
                None => {
                    return Err(SyntaxError::UnknownEncoding {
                        path: path.to_path_buf(),
                        name: name.clone(),
                        line: *line,
                    })
                }
            }
        }
    };
    if had_bom && !matches!(codec, Codec::Utf8) {
        return Err(SyntaxError::EncodingConflict { path: path.to_path_buf(), declared: name });
    }
    if had_bom {
        bytes.drain(..bom_len);
    }
    let invalid = |offset: usize| SyntaxError::Undecodable {
        path: path.to_path_buf(),
        encoding: name.clone(),
        offset: offset + bom_len,
    };
    let text = match codec {
        Codec::Utf8 => String::from_utf8(bytes).map_err(|e| {
            let offset = e.utf8_error().valid_up_to();
            if declared.is_none() {
                SyntaxError::InvalidUtf8 { path: path.to_path_buf(), offset: offset + bom_len }
            } else {
                invalid(offset)
            }
        })?,
        Codec::Latin1 => bytes.iter().map(|&b| char::from(b)).collect(),
        Codec::Ascii => match bytes.iter().position(|b| !b.is_ascii()) {
            Some(offset) => return Err(invalid(offset)),
            None => String::from_utf8(bytes).map_err(|e| invalid(e.utf8_error().valid_up_to()))?,
        },
        Codec::Other(encoding) => decode_strict(encoding, &bytes).map_err(invalid)?,
    };
    Ok(Decoded { text, had_bom, encoding: name })
}

/// Decodes with `encoding`, failing at the first malformed sequence with its offset.
fn decode_strict(encoding: &'static Encoding, bytes: &[u8]) -> Result<String, usize> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let capacity = decoder.max_utf8_buffer_length_without_replacement(bytes.len()).unwrap_or(bytes.len() * 3);
    let mut text = String::with_capacity(capacity);
    let mut read_total = 0;
    loop {
        let (result, read) = decoder.decode_to_string_without_replacement(&bytes[read_total..], &mut text, true);
        read_total += read;
        match result {
            encoding_rs::DecoderResult::InputEmpty => return Ok(text),
            encoding_rs::DecoderResult::OutputFull => text.reserve(bytes.len() - read_total + 16),
            encoding_rs::DecoderResult::Malformed(bad, consumed_after) => {
                return Err(read_total - usize::from(consumed_after) - usize::from(bad));
            }
        }
    }
}

/// The PEP 263 declaration in the first two lines, with its 0-based line.
/// The second line counts only when the first holds nothing but a comment or
/// blanks (CPython's rule).
pub fn coding_declaration(bytes: &[u8]) -> Option<(String, usize)> {
    let mut lines = first_lines(bytes);
    let first = lines.next()?;
    if let Some(name) = declared_name(first) {
        return Some((name, 0));
    }
    let rest = first.iter().skip_while(|b| matches!(b, b' ' | b'\t' | b'\x0c')).copied().collect::<Vec<u8>>();
    if !(rest.is_empty() || rest[0] == b'#' || rest == b"\r\n" || rest == b"\n" || rest == b"\r") {
        return None;
    }
    lines.next().and_then(declared_name).map(|name| (name, 1))
}

/// The first two lines, each ending at `\n`, `\r\n` or a lone `\r`.
fn first_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest.iter().position(|&b| b == b'\n' || b == b'\r').map_or(rest.len(), |i| i + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
    .take(2)
}

/// PEP 263's `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)` on one line.
fn declared_name(line: &[u8]) -> Option<String> {
    let start = line.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\x0c'))?;
    if line[start] != b'#' {
        return None;
    }
    let comment = &line[start + 1..];
    let is_name_byte = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
    for i in 0..comment.len() {
        if !comment[i..].starts_with(b"coding") || !matches!(comment.get(i + 6), Some(b':' | b'=')) {
            continue;
        }
        let after = &comment[i + 7..];
        let skip = after.iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
        let name: Vec<u8> = after[skip..].iter().copied().take_while(is_name_byte).collect();
        if !name.is_empty() {
            return Some(String::from_utf8_lossy(&name).into_owned());
        }
    }
    None
}

/// CPython's `get_normal_name`: `utf-8` and `iso-8859-1` variants to those
/// names, anything else as `codecs.lookup` normalises it (lower case, runs of
/// punctuation other than `.` as `_`).
fn normal_name(name: &str) -> String {
    let head: String = name.chars().take(12).map(|c| if c == '_' { '-' } else { c.to_ascii_lowercase() }).collect();
    if head == "utf-8" || head.starts_with("utf-8-") {
        return "utf-8".to_string();
    }
    for latin in ["latin-1", "iso-8859-1", "iso-latin-1"] {
        if head == latin || head.starts_with(&format!("{latin}-")) {
            return "iso-8859-1".to_string();
        }
    }
    let mut normal = String::new();
    let mut pending_separator = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            if pending_separator && !normal.is_empty() {
                normal.push('_');
            }
            pending_separator = false;
            normal.push(c.to_ascii_lowercase());
        } else {
            pending_separator = true;
        }
    }
    normal
}

/// The codec for a normalised name: CPython's aliases for the encodings it
/// and `encoding_rs` share.
fn codec_of(normal: &str) -> Option<Codec> {
    let codec = match normal {
        "utf-8" | "utf8" | "utf_8" | "u8" | "utf" | "utf8_ucs2" | "utf8_ucs4" | "cp65001" | "utf_8_sig" => Codec::Utf8,
        "iso-8859-1" | "latin_1" | "latin1" | "l1" | "iso8859_1" | "iso_8859_1" | "8859" | "cp819" | "latin"
        | "iso_ir_100" | "csisolatin1" | "ibm819" => Codec::Latin1,
        "ascii" | "us_ascii" | "646" | "us" | "ansi_x3.4_1968" | "ansi_x3.4_1986" | "iso646_us" | "cp367"
        | "ibm367" | "iso_ir_6" | "csascii" => Codec::Ascii,
        other => Codec::Other(encoding_rs_for(other)?),
    };
    Some(codec)
}

/// `encoding_rs`'s encoding for a CPython codec name, or `None` where the
/// two would not decode alike (UTF-16 and UTF-32 are not ASCII-compatible
/// and CPython refuses them in source files).
fn encoding_rs_for(normal: &str) -> Option<&'static Encoding> {
    let label = match normal {
        "cp1250" | "windows_1250" => "windows-1250",
        "cp1251" | "windows_1251" => "windows-1251",
        "cp1252" | "windows_1252" => "windows-1252",
        "cp1253" | "windows_1253" => "windows-1253",
        "cp1254" | "windows_1254" => "windows-1254",
        "cp1255" | "windows_1255" => "windows-1255",
        "cp1256" | "windows_1256" => "windows-1256",
        "cp1257" | "windows_1257" => "windows-1257",
        "cp1258" | "windows_1258" => "windows-1258",
        "cp866" | "866" | "ibm866" => "ibm866",
        "cp874" | "windows_874" => "windows-874",
        "latin2" | "l2" => "iso-8859-2",
        "latin3" | "l3" => "iso-8859-3",
        "latin4" | "l4" => "iso-8859-4",
        "cyrillic" => "iso-8859-5",
        "arabic" => "iso-8859-6",
        "greek" | "greek8" => "iso-8859-7",
        "hebrew" => "iso-8859-8",
        "latin6" | "l6" => "iso-8859-10",
        "latin7" | "l7" => "iso-8859-13",
        "latin8" | "l8" => "iso-8859-14",
        "latin9" | "l9" => "iso-8859-15",
        "latin10" | "l10" => "iso-8859-16",
        "koi8_r" => "koi8-r",
        "koi8_u" => "koi8-u",
        "mac_roman" | "macroman" | "macintosh" => "macintosh",
        "mac_cyrillic" | "maccyrillic" => "x-mac-cyrillic",
        "shift_jis" | "sjis" | "s_jis" | "shiftjis" | "csshiftjis" => "shift_jis",
        "euc_jp" | "eucjp" | "ujis" | "u_jis" => "euc-jp",
        "iso2022_jp" | "iso_2022_jp" | "csiso2022jp" => "iso-2022-jp",
        "euc_kr" | "euckr" | "korean" | "ksc5601" | "ks_c_5601" | "ks_c_5601_1987" | "ks_x_1001" => "euc-kr",
        "gb2312" | "chinese" | "csiso58gb231280" | "euc_cn" | "euccn" | "eucgb2312_cn" | "gb2312_1980"
        | "gb2312_80" | "iso_ir_58" | "gbk" | "936" | "cp936" | "ms936" => "gbk",
        "gb18030" | "gb18030_2000" => "gb18030",
        "big5" | "big5_tw" | "csbig5" => "big5",
        other => {
            // The ISO-8859 family under CPython's names: iso8859_5, iso_8859_5, ...
            let digits = other.strip_prefix("iso8859_").or_else(|| other.strip_prefix("iso_8859_"))?;
            return match digits {
                "2" | "3" | "4" | "5" | "6" | "7" | "8" | "10" | "13" | "14" | "15" | "16" => {
                    Encoding::for_label(format!("iso-8859-{digits}").as_bytes())
                }
                _ => None,
            };
        }
    };
    Encoding::for_label(label.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Result<Decoded, SyntaxError> {
        decode_source(Path::new("t.py"), bytes.to_vec())
    }

    #[test]
    fn declarations_on_the_first_two_lines() {
        assert_eq!(coding_declaration(b"# -*- coding: latin-1 -*-\n"), Some(("latin-1".into(), 0)));
        assert_eq!(
            coding_declaration(b"#!/usr/bin/python\n# vim: set fileencoding=cp1252 :\n"),
            Some(("cp1252".into(), 1))
        );
        assert_eq!(coding_declaration(b"import os\n# coding: latin-1\n"), None);
        assert_eq!(coding_declaration(b"\n\n# coding: latin-1\n"), None);
        assert_eq!(coding_declaration(b"x = 1 # coding: latin-1\n"), None);
        assert_eq!(coding_declaration(b"# coding latin-1\n"), None);
    }

    #[test]
    fn names_are_normalised_like_cpython() {
        assert_eq!(normal_name("Latin-1"), "iso-8859-1");
        assert_eq!(normal_name("iso_8859_1"), "iso-8859-1");
        assert_eq!(normal_name("UTF8"), "utf8");
        assert_eq!(normal_name("utf-8-unix"), "utf-8");
        assert_eq!(normal_name("Windows-1252"), "windows_1252");
    }

    #[test]
    fn latin1_and_cp1252_decode() {
        let decoded = decode(b"# -*- coding: latin-1 -*-\nname = '\xe9\x80'\n").unwrap();
        assert_eq!(decoded.text, "# -*- coding: latin-1 -*-\nname = '\u{e9}\u{80}'\n");
        assert_eq!(decoded.encoding, "iso-8859-1");
        let decoded = decode(b"# coding=cp1252\nname = '\x80'\n").unwrap();
        assert!(decoded.text.contains('\u{20ac}'), "{}", decoded.text);
        let decoded = decode(b"# coding: koi8-r\ns = '\xc1'\n").unwrap();
        assert!(decoded.text.contains('\u{430}'), "{}", decoded.text);
    }

    #[test]
    fn errors_name_the_encoding_and_offset() {
        let err = decode(b"# coding: ascii\nx = '\xe9'\n").unwrap_err();
        assert_eq!(err.to_string(), "t.py: cannot decode as ascii at byte offset 21");
        let err = decode(b"# coding: utf-8\nx = '\xe9'\n").unwrap_err();
        assert_eq!(err.to_string(), "t.py: cannot decode as utf-8 at byte offset 21");
        let err = decode(b"# coding: shift_jis\nx = '\x81'\n").unwrap_err();
        assert!(err.to_string().contains("cannot decode as shift_jis at byte offset 25"), "{err}");
        let err = decode(b"# coding: klingon\n").unwrap_err();
        assert_eq!(err.to_string(), "t.py: unknown encoding `klingon` declared on line 1");
        let err = decode(b"\xEF\xBB\xBF# coding: latin-1\n").unwrap_err();
        assert!(err.to_string().contains("byte-order mark"), "{err}");
        let err = decode(b"x = '\xe9'\n").unwrap_err();
        assert_eq!(err.to_string(), "t.py: invalid UTF-8 at byte offset 5");
    }

    #[test]
    fn bom_with_utf8_declaration_is_fine() {
        let decoded = decode(b"\xEF\xBB\xBF# coding: utf-8\nx = '\xc3\xa9'\n").unwrap();
        assert!(decoded.had_bom);
        assert_eq!(decoded.text, "# coding: utf-8\nx = '\u{e9}'\n");
    }
}
