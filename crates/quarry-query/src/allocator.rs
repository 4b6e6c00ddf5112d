//! One allocator for the whole process: a binary that runs the query
//! engine makes mimalloc its global allocator (`#[global_allocator] static
//! GLOBAL: quarry_query::allocator::MiMalloc = quarry_query::allocator::MiMalloc;`)
//! and calls [`route_tree_sitter_allocations`] first thing in `main`, so
//! that tree-sitter's parser and trees (C code, glibc `malloc` otherwise)
//! allocate from it too, and [`keep_freed_memory`]. Parsing and dropping
//! trees make many small allocations, which mimalloc serves faster than
//! glibc.

pub use mimalloc::MiMalloc;

/// Makes tree-sitter allocate through mimalloc.
///
/// # Safety
/// Must be called before tree-sitter allocates anything (before the first
/// parser, tree or query is made), and at most once: memory tree-sitter
/// allocated before the switch would be freed by the wrong allocator.
pub unsafe fn route_tree_sitter_allocations() {
    use libmimalloc_sys::{mi_calloc, mi_free, mi_malloc, mi_realloc};
    // SAFETY: the caller guarantees that nothing tree-sitter allocated before
    // this call is still alive; mimalloc's functions have C's signatures.
    unsafe { tree_sitter::set_allocator(Some(mi_malloc), Some(mi_calloc), Some(mi_realloc), Some(mi_free)) };
}

/// mimalloc's `mi_option_purge_delay` (same index in its v2 and v3 option enums).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps freed memory instead of returning it to the OS: every file's tree
/// and analyses are allocated and freed again, and each return costs page
/// faults and page zeroing on the next file.
pub fn keep_freed_memory() {
    // SAFETY: setting an allocator option is allowed at any time.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}
