//! Builds the lock preload library (preload/ampsched_locks.c) with the system C compiler; the
//! agent embeds it and writes it out when it launches a command.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("libampsched_locks.so");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    println!("cargo:rerun-if-changed=preload/ampsched_locks.c");
    println!("cargo:rerun-if-changed=preload/ampsched_locks.h");
    println!("cargo:rerun-if-env-changed=CC");
    let status = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-o"])
        .arg(&out)
        .arg("preload/ampsched_locks.c")
        .args(["-ldl", "-lpthread"])
        .status()
        .unwrap_or_else(|e| panic!("building the lock preload library needs a C compiler ({cc}): {e}"));
    assert!(status.success(), "{cc} failed to build preload/ampsched_locks.c");
}
