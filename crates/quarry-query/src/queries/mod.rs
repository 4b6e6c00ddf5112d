//! The queries, one file each. `ALL` lists every implemented query.

use crate::registry::Query;

pub mod catching_base_exception;
pub mod comparison_using_is;
pub mod conflicting_attributes;
pub mod duplicate_key_in_dict;
pub mod equals_hash_mismatch;
pub mod equals_none;
pub mod flask_debug;
pub mod incomplete_ordering;
pub mod init_calls_subclass_method;
pub mod iter_returns_non_iterator;
pub mod missing_call_to_init;
pub mod missing_equals;
pub mod non_callable_called;
pub mod non_self;
pub mod procedure_return_value_used;
pub mod signature_overridden_method;
pub mod unused_import;
pub mod wrong_number_arguments;
pub mod wrong_number_class_arguments;

/// Every implemented query.
pub static ALL: &[&Query] = &[
    &catching_base_exception::QUERY,
    &comparison_using_is::QUERY,
    &conflicting_attributes::QUERY,
    &duplicate_key_in_dict::QUERY,
    &equals_hash_mismatch::QUERY,
    &equals_none::QUERY,
    &flask_debug::QUERY,
    &incomplete_ordering::QUERY,
    &init_calls_subclass_method::QUERY,
    &iter_returns_non_iterator::QUERY,
    &missing_call_to_init::QUERY,
    &missing_equals::QUERY,
    &non_callable_called::QUERY,
    &non_self::QUERY,
    &procedure_return_value_used::QUERY,
    &signature_overridden_method::QUERY,
    &unused_import::QUERY,
    &wrong_number_arguments::QUERY,
    &wrong_number_class_arguments::QUERY,
];
