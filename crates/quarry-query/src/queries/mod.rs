//! The queries, one file each. `ALL` lists every implemented query.

use crate::registry::Query;

pub mod call_to_super_wrong_class;
pub mod catching_base_exception;
pub mod compare_constants;
pub mod compare_identical_values;
pub mod constant_in_conditional;
pub mod deprecated_module;
pub mod deprecated_slice_method;
pub mod duplicate_key_in_dict;
pub mod equals_none;
pub mod illegal_raise;
pub mod implicit_string_concatenation_in_list;
pub mod import_and_import_from;
pub mod imprecise_assert;
pub mod multiple_imports;
pub mod nested_loops_same_variable;
pub mod non_self;
pub mod not_implemented_is_not_an_exception;
pub mod redundant_comparison;
pub mod side_effect_in_assert;
pub mod unintentional_import;
pub mod unnecessary_else_in_loop;
pub mod unnecessary_pass;

/// Every implemented query.
pub static ALL: &[&Query] = &[
    &call_to_super_wrong_class::QUERY,
    &catching_base_exception::QUERY,
    &compare_constants::QUERY,
    &compare_identical_values::QUERY,
    &constant_in_conditional::QUERY,
    &deprecated_module::QUERY,
    &deprecated_slice_method::QUERY,
    &duplicate_key_in_dict::QUERY,
    &equals_none::QUERY,
    &illegal_raise::QUERY,
    &implicit_string_concatenation_in_list::QUERY,
    &import_and_import_from::QUERY,
    &imprecise_assert::QUERY,
    &multiple_imports::QUERY,
    &nested_loops_same_variable::QUERY,
    &non_self::QUERY,
    &not_implemented_is_not_an_exception::QUERY,
    &redundant_comparison::QUERY,
    &side_effect_in_assert::QUERY,
    &unintentional_import::QUERY,
    &unnecessary_else_in_loop::QUERY,
    &unnecessary_pass::QUERY,
];
