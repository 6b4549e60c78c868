//! llama.cpp's process-wide state: initialised once, its log routed to `tracing` (warnings
//! and errors only: its progress lines would flood the log), and the CPU check that turns
//! an unsupported processor into a clear error instead of an illegal instruction.

use std::ffi::{c_char, c_void, CStr};
use std::sync::OnceLock;

use llama_cpp_2::llama_backend::LlamaBackend;

/// The backend, initialised on first use; the error says why it could not be.
pub fn backend() -> Result<&'static LlamaBackend, String> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // SAFETY: a plain C callback without user data, installed before any other call.
            unsafe {
                llama_cpp_sys_2::llama_log_set(Some(log_warnings), std::ptr::null_mut());
                llama_cpp_sys_2::ggml_log_set(Some(log_warnings), std::ptr::null_mut());
            }
            LlamaBackend::init().map_err(|error| format!("llama.cpp did not start: {error}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

unsafe extern "C" fn log_warnings(
    level: llama_cpp_sys_2::ggml_log_level,
    text: *const c_char,
    _: *mut c_void,
) {
    if text.is_null()
        || level < llama_cpp_sys_2::GGML_LOG_LEVEL_WARN
        || level == llama_cpp_sys_2::GGML_LOG_LEVEL_CONT
    {
        return;
    }
    // SAFETY: llama.cpp passes a NUL-terminated string that lives for the call.
    let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
    if level == llama_cpp_sys_2::GGML_LOG_LEVEL_ERROR {
        tracing::error!(target: "llama.cpp", "{}", text.trim_end());
    } else {
        tracing::warn!(target: "llama.cpp", "{}", text.trim_end());
    }
}

/// Whether this CPU runs the llama.cpp this crate was built with (`.cargo/config.toml`:
/// x86-64-v3 on x86); the error names what is missing.
pub fn check_cpu() -> Result<(), String> {
    #[cfg(target_arch = "x86_64")]
    {
        let features = [
            ("AVX", std::arch::is_x86_feature_detected!("avx")),
            ("AVX2", std::arch::is_x86_feature_detected!("avx2")),
            ("FMA", std::arch::is_x86_feature_detected!("fma")),
            ("F16C", std::arch::is_x86_feature_detected!("f16c")),
            ("BMI2", std::arch::is_x86_feature_detected!("bmi2")),
        ];
        let missing: Vec<&str> =
            features.iter().filter(|(_, present)| !present).map(|(name, _)| *name).collect();
        if !missing.is_empty() {
            return Err(format!(
                "this processor lacks {} (built for x86-64-v3); configure a model server instead",
                missing.join(", ")
            ));
        }
    }
    Ok(())
}
