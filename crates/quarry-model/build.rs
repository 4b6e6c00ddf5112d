//! With the `cuda` feature, compiles quarry's own CUDA kernels (`src/kernels/cuda/quarry.cu`
//! and the headers it includes) to PTX
//! with `nvcc`, for the compute capability in `CUDA_COMPUTE_CAP` (as candle's kernels are); the
//! driver compiles the PTX for the GPU at first use. Without the feature it does nothing.

use std::path::PathBuf;
use std::process::Command;

const SOURCE: &str = "src/kernels/cuda/quarry.cu";

fn main() {
    println!("cargo::rerun-if-changed=src/kernels/cuda");
    println!("cargo::rerun-if-env-changed=CUDA_COMPUTE_CAP");
    if std::env::var_os("CARGO_FEATURE_CUDA").is_none() {
        return;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("quarry.ptx");
    let capability = std::env::var("CUDA_COMPUTE_CAP").unwrap_or_else(|_| "90".to_string());
    let status = Command::new("nvcc")
        .args(["--ptx", "-O3", "-std=c++17", &format!("--gpu-architecture=compute_{capability}"), "-o"])
        .arg(&out)
        .arg(SOURCE)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("nvcc failed on {SOURCE} ({s}); the `cuda` feature needs the CUDA toolkit"),
        Err(e) => panic!("could not run nvcc for {SOURCE}: {e}; the `cuda` feature needs the CUDA toolkit"),
    }
}
