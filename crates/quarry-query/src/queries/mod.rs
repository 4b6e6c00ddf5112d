//! The queries, one file each. `ALL` lists every implemented query.

use crate::registry::Query;

pub mod catching_base_exception;
pub mod duplicate_key_in_dict;
pub mod equals_none;
pub mod global_at_module_level;
pub mod incomplete_url_substring_sanitization;
pub mod incorrect_raise_in_special_method;
pub mod insecure_temporary_file;
pub mod modification_of_default;
pub mod modification_of_locals;
pub mod multiply_defined;
pub mod non_self;
pub mod redundant_assignment;
pub mod should_use_with;
pub mod special_method_signature;
pub mod unguarded_next_in_generator;
pub mod unnecessary_delete;
pub mod unreachable_code;
pub mod unused_local_variable;
pub mod unused_loop_variable;

/// Every implemented query.
pub static ALL: &[&Query] = &[
    &catching_base_exception::QUERY,
    &duplicate_key_in_dict::QUERY,
    &equals_none::QUERY,
    &global_at_module_level::QUERY,
    &incomplete_url_substring_sanitization::QUERY,
    &incorrect_raise_in_special_method::QUERY,
    &insecure_temporary_file::QUERY,
    &modification_of_default::QUERY,
    &modification_of_locals::QUERY,
    &multiply_defined::QUERY,
    &non_self::QUERY,
    &redundant_assignment::QUERY,
    &should_use_with::QUERY,
    &special_method_signature::QUERY,
    &unguarded_next_in_generator::QUERY,
    &unnecessary_delete::QUERY,
    &unreachable_code::QUERY,
    &unused_local_variable::QUERY,
    &unused_loop_variable::QUERY,
];
