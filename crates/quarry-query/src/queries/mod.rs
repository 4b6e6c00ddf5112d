//! The queries, one file each. `ALL` lists every implemented query.

use crate::registry::Query;

pub mod call_to_super_wrong_class;
pub mod catching_base_exception;
pub mod compare_constants;
pub mod compare_identical_values;
pub mod comparison_using_is;
pub mod conflicting_attributes;
pub mod constant_in_conditional;
pub mod deprecated_module;
pub mod deprecated_slice_method;
pub mod duplicate_key_in_dict;
pub mod equals_hash_mismatch;
pub mod equals_none;
pub mod flask_debug;
pub mod global_at_module_level;
pub mod illegal_raise;
pub mod implicit_string_concatenation_in_list;
pub mod import_and_import_from;
pub mod imprecise_assert;
pub mod incomplete_ordering;
pub mod incomplete_url_substring_sanitization;
pub mod incorrect_raise_in_special_method;
pub mod init_calls_subclass_method;
pub mod insecure_temporary_file;
pub mod iter_returns_non_iterator;
pub mod missing_call_to_init;
pub mod missing_equals;
pub mod modification_of_default;
pub mod modification_of_locals;
pub mod multiple_imports;
pub mod multiply_defined;
pub mod nested_loops_same_variable;
pub mod non_callable_called;
pub mod non_self;
pub mod not_implemented_is_not_an_exception;
pub mod procedure_return_value_used;
pub mod redundant_assignment;
pub mod redundant_comparison;
pub mod should_use_with;
pub mod side_effect_in_assert;
pub mod signature_overridden_method;
pub mod special_method_signature;
pub mod unguarded_next_in_generator;
pub mod unintentional_import;
pub mod unnecessary_delete;
pub mod unnecessary_else_in_loop;
pub mod unnecessary_pass;
pub mod unreachable_code;
pub mod unused_import;
pub mod unused_local_variable;
pub mod unused_loop_variable;
pub mod wrong_number_arguments;
pub mod wrong_number_class_arguments;

/// Every implemented query.
pub static ALL: &[&Query] = &[
    &call_to_super_wrong_class::QUERY,
    &catching_base_exception::QUERY,
    &compare_constants::QUERY,
    &compare_identical_values::QUERY,
    &comparison_using_is::QUERY,
    &conflicting_attributes::QUERY,
    &constant_in_conditional::QUERY,
    &deprecated_module::QUERY,
    &deprecated_slice_method::QUERY,
    &duplicate_key_in_dict::QUERY,
    &equals_hash_mismatch::QUERY,
    &equals_none::QUERY,
    &flask_debug::QUERY,
    &global_at_module_level::QUERY,
    &illegal_raise::QUERY,
    &implicit_string_concatenation_in_list::QUERY,
    &import_and_import_from::QUERY,
    &imprecise_assert::QUERY,
    &incomplete_ordering::QUERY,
    &incomplete_url_substring_sanitization::QUERY,
    &incorrect_raise_in_special_method::QUERY,
    &init_calls_subclass_method::QUERY,
    &insecure_temporary_file::QUERY,
    &iter_returns_non_iterator::QUERY,
    &missing_call_to_init::QUERY,
    &missing_equals::QUERY,
    &modification_of_default::QUERY,
    &modification_of_locals::QUERY,
    &multiple_imports::QUERY,
    &multiply_defined::QUERY,
    &nested_loops_same_variable::QUERY,
    &non_callable_called::QUERY,
    &non_self::QUERY,
    &not_implemented_is_not_an_exception::QUERY,
    &procedure_return_value_used::QUERY,
    &redundant_assignment::QUERY,
    &redundant_comparison::QUERY,
    &should_use_with::QUERY,
    &side_effect_in_assert::QUERY,
    &signature_overridden_method::QUERY,
    &special_method_signature::QUERY,
    &unguarded_next_in_generator::QUERY,
    &unintentional_import::QUERY,
    &unnecessary_delete::QUERY,
    &unnecessary_else_in_loop::QUERY,
    &unnecessary_pass::QUERY,
    &unreachable_code::QUERY,
    &unused_import::QUERY,
    &unused_local_variable::QUERY,
    &unused_loop_variable::QUERY,
    &wrong_number_arguments::QUERY,
    &wrong_number_class_arguments::QUERY,
];
