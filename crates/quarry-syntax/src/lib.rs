//! quarry-syntax: source files, parsing, positions, tokens and code blocks.
