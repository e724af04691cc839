//! Embeds the shipped catalog (catalog/{machines,workloads,programs}/*.toml) in the binary, so
//! an installed ampsched needs no data files beside it.

use std::fs;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../catalog");
    let mut code = String::new();
    for kind in ["machines", "workloads", "programs"] {
        let dir = root.join(kind);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = fs::read_dir(&dir)
            .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect())
            .unwrap_or_default();
        files.sort();
        code.push_str(&format!("pub static {}: &[(&str, &str)] = &[\n", kind.to_uppercase()));
        for f in files {
            println!("cargo:rerun-if-changed={}", f.display());
            let name = f.file_stem().unwrap().to_string_lossy().to_string();
            let abs = fs::canonicalize(&f).unwrap();
            code.push_str(&format!("    ({:?}, include_str!({:?})),\n", name, abs.display().to_string()));
        }
        code.push_str("];\n");
    }
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("catalog.rs");
    fs::write(out, code).unwrap();
}
