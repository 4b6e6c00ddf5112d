//! The queries, one file each. `ALL` lists every implemented query.

use crate::query::Query;

pub mod call_to_non_callable;
pub mod catching_base_exception;
pub mod comparison_of_constants;
pub mod comparison_of_identical_expressions;
pub mod comparison_using_is;
pub mod conflicting_attributes;
pub mod constant_conditional_expression;
pub mod deprecated_slice_method;
pub mod duplicate_key_in_dict_literal;
pub mod equals_hash_mismatch;
pub mod equals_none;
pub mod flask_debug;
pub mod illegal_raise;
pub mod implicit_string_concatenation_in_list;
pub mod import_and_import_from;
pub mod import_deprecated_module;
pub mod imprecise_assert;
pub mod incomplete_ordering;
pub mod incomplete_url_substring_sanitization;
pub mod init_calls_subclass;
pub mod insecure_temporary_file;
pub mod iter_returns_non_iterator;
pub mod missing_call_to_init;
pub mod missing_equals;
pub mod modification_of_default_value;
pub mod modification_of_locals;
pub mod multiple_definition;
pub mod nested_loops_with_same_variable;
pub mod non_self;
pub mod not_implemented_is_not_an_exception;
pub mod polluting_import;
pub mod procedure_return_value_used;
pub mod redundant_assignment;
pub mod redundant_comparison;
pub mod redundant_global_declaration;
pub mod repeated_import;
pub mod should_use_with;
pub mod side_effect_in_assert;
pub mod signature_mismatch;
pub mod special_method_wrong_signature;
pub mod super_not_enclosing_class;
pub mod unexpected_raise_in_special_method;
pub mod unguarded_next_in_generator;
pub mod unnecessary_delete;
pub mod unnecessary_else_clause_in_loop;
pub mod unnecessary_pass;
pub mod unreachable_statement;
pub mod unused_import;
pub mod unused_local_variable;
pub mod unused_loop_variable;
pub mod wrong_number_arguments;
pub mod wrong_number_class_arguments;

/// Every implemented query.
pub static ALL: &[&Query] = &[
    &call_to_non_callable::QUERY,
    &catching_base_exception::QUERY,
    &comparison_of_constants::QUERY,
    &comparison_of_identical_expressions::QUERY,
    &comparison_using_is::QUERY,
    &conflicting_attributes::QUERY,
    &constant_conditional_expression::QUERY,
    &deprecated_slice_method::QUERY,
    &duplicate_key_in_dict_literal::QUERY,
    &equals_hash_mismatch::QUERY,
    &equals_none::QUERY,
    &flask_debug::QUERY,
    &illegal_raise::QUERY,
    &implicit_string_concatenation_in_list::QUERY,
    &import_and_import_from::QUERY,
    &import_deprecated_module::QUERY,
    &imprecise_assert::QUERY,
    &incomplete_ordering::QUERY,
    &incomplete_url_substring_sanitization::QUERY,
    &init_calls_subclass::QUERY,
    &insecure_temporary_file::QUERY,
    &iter_returns_non_iterator::QUERY,
    &missing_call_to_init::QUERY,
    &missing_equals::QUERY,
    &modification_of_default_value::QUERY,
    &modification_of_locals::QUERY,
    &multiple_definition::QUERY,
    &nested_loops_with_same_variable::QUERY,
    &non_self::QUERY,
    &not_implemented_is_not_an_exception::QUERY,
    &polluting_import::QUERY,
    &procedure_return_value_used::QUERY,
    &redundant_assignment::QUERY,
    &redundant_comparison::QUERY,
    &redundant_global_declaration::QUERY,
    &repeated_import::QUERY,
    &should_use_with::QUERY,
    &side_effect_in_assert::QUERY,
    &signature_mismatch::QUERY,
    &special_method_wrong_signature::QUERY,
    &super_not_enclosing_class::QUERY,
    &unexpected_raise_in_special_method::QUERY,
    &unguarded_next_in_generator::QUERY,
    &unnecessary_delete::QUERY,
    &unnecessary_else_clause_in_loop::QUERY,
    &unnecessary_pass::QUERY,
    &unreachable_statement::QUERY,
    &unused_import::QUERY,
    &unused_local_variable::QUERY,
    &unused_loop_variable::QUERY,
    &wrong_number_arguments::QUERY,
    &wrong_number_class_arguments::QUERY,
];
