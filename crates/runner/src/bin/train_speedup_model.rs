//! Trains WASH's speedup models (WASH, "Portable Performance on Asymmetric Multicore
//! Processors", §5, §8.4; `ampsched_runner::speedup_training`) and writes the model file that
//! `crates/policy/src/common/speedup_model.rs` embeds.
//!
//! Usage: ampsched-train-speedup-model [--machine NAME] [--programs FILE,FILE] [--out PATH]
//! (defaults: wash-1b5s; the program files `DEFAULT_PROGRAM_FILES`; catalog/models/wash-speedup.toml).
//! Deterministic: the same catalog gives the same bytes.

use ampsched_runner::speedup_training::{model_file_text, DEFAULT_MACHINE, DEFAULT_PROGRAM_FILES};

fn main() {
    let mut machine = DEFAULT_MACHINE.to_string();
    let mut files: Vec<String> = DEFAULT_PROGRAM_FILES.iter().map(|s| s.to_string()).collect();
    let mut out = ampsched_policy::common::speedup_model::MODEL_FILE.to_string();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || {
            args.next().unwrap_or_else(|| {
                eprintln!("error: {a} needs a value");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--machine" => machine = value(),
            "--programs" => files = value().split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect(),
            "--out" => out = value(),
            other => {
                eprintln!("error: unknown argument '{other}' (usage: ampsched-train-speedup-model [--machine NAME] [--programs FILE,FILE] [--out PATH])");
                std::process::exit(2)
            }
        }
    }
    let text = match model_file_text(&machine, &files) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2)
        }
    };
    if let Err(e) = std::fs::write(&out, text) {
        eprintln!("error: {out}: cannot write: {e}");
        std::process::exit(2)
    }
    eprintln!("wrote {out}");
}
