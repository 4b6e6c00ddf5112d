//! Runs the CodeQueries protocol through the library, as `quarry experiment codequeries` does,
//! with its main settings from the command line (for a build without the CLI).
//!
//! Usage: cargo run -p quarry-experiment --example codequeries -- CORPUS MODEL OUT
//! [MAX_LEN EPOCHS BUDGETS TEST_LIMIT TRAIN_LIMIT QUERY...], e.g.
//! `... 128 1 16,8 10 24 "Unused import"`.

use std::path::PathBuf;

use quarry_experiment::codequeries::{run, Config, Progress};
use quarry_model::training::train::TrainEvent;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        return Err(
            "usage: codequeries CORPUS MODEL OUT [MAX_LEN EPOCHS BUDGETS TEST_LIMIT TRAIN_LIMIT QUERY...]".into()
        );
    }
    let mut config = Config::new(PathBuf::from(&args[0]), args[1].clone(), PathBuf::from(&args[2]));
    if let Some(n) = args.get(3) {
        config.max_len = n.parse()?;
    }
    if let Some(n) = args.get(4) {
        config.epochs = n.parse()?;
    }
    if let Some(list) = args.get(5) {
        config.budgets = list.split(',').filter(|s| !s.is_empty()).map(str::parse).collect::<Result<_, _>>()?;
    }
    if let Some(n) = args.get(6) {
        config.test_limit = Some(n.parse()?);
    }
    if let Some(n) = args.get(7) {
        config.train_limit = Some(n.parse()?);
    }
    config.queries = args.iter().skip(8).cloned().collect();
    let mut message = |m: &str| eprintln!("{m}");
    let mut train = |e: &TrainEvent| {
        if let TrainEvent::Epoch(l) = e {
            eprintln!("  epoch {} loss {:.4} valid_loss {:.4} ({:.0}s)", l.epoch, l.loss, l.valid_loss, l.seconds);
        }
    };
    run(&config, &mut Progress { message: &mut message, train: &mut train })?;
    println!("report: {}", config.out.join("report.md").display());
    Ok(())
}
