//! The thread pool the module's parallel work runs on, one per process.
//!
//! rayon's global pool starts its threads once per process; `fork` copies
//! none of them into the child, so a child of a process that had already
//! used it (multiprocessing's default start method on Linux, PyTorch's data
//! loader workers) would hand its work to threads that do not exist and wait
//! forever. This pool is remembered with the id of the process that made it:
//! a forked child, whose id differs, makes its own.

use std::sync::{Arc, Mutex};

/// The pool and the process that started its threads.
static POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);

/// The stack of the pool's threads, which run each call's work: the 8 MiB a
/// Linux main thread has, where the work used to run.
const WORK_STACK_BYTES: usize = 8 << 20;

/// This process's pool (one thread per available core), started on first use
/// (again in a forked child); an error when its threads cannot be started.
pub fn process_pool() -> Result<Arc<rayon::ThreadPool>, String> {
    let mut slot = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let pid = std::process::id();
    match slot.take() {
        Some((owner, pool)) if owner == pid => {
            *slot = Some((owner, pool.clone()));
            return Ok(pool);
        }
        // A parent's pool: its threads are not in this process, and dropping it would
        // signal them; it is left as it is.
        Some((_, parents)) => std::mem::forget(parents),
        None => {}
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("quarry_code-{i}"))
        .stack_size(WORK_STACK_BYTES)
        .build()
        .map_err(|e| format!("cannot start the threads for the work: {e}"))?;
    let pool = Arc::new(pool);
    *slot = Some((pid, pool.clone()));
    Ok(pool)
}
