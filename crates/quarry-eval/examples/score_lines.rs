//! Scores two files of lines with any metric by name, from Rust: what `quarry metrics NAME
//! --hyp HYP --ref REF` computes, without the binary.
//!
//! `cargo run -p quarry-eval --example score_lines -- NAME HYP REF [REF...]`

use quarry_eval::metric::{score, Input, Metric, Options};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: score_lines NAME HYP REF [REF...]");
        std::process::exit(2);
    }
    let Some(metric) = Metric::from_name(&args[0]) else {
        let names: Vec<&str> = Metric::all().map(Metric::name).collect();
        eprintln!("unknown metric {}; one of {}", args[0], names.join(", "));
        std::process::exit(2);
    };
    let texts: Vec<String> =
        args[1..].iter().map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"))).collect();
    let input = |i: usize| Input { name: &args[1 + i], lines: texts[i].lines().collect() };
    let refs: Vec<Input> = (1..texts.len()).map(input).collect();
    match score(metric, &input(0), &refs, &Options::default()) {
        Ok(s) => println!("{}: {}", s.metric, s.description),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
