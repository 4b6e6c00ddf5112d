//! The queries, one file each. `ALL` lists every implemented query.

use crate::registry::Query;

pub mod catching_base_exception;
pub mod duplicate_key_in_dict;
pub mod equals_none;
pub mod multiply_defined;
pub mod non_self;
pub mod unreachable_code;
pub mod unused_local_variable;

/// Every implemented query.
pub static ALL: &[&Query] = &[
    &catching_base_exception::QUERY,
    &duplicate_key_in_dict::QUERY,
    &equals_none::QUERY,
    &multiply_defined::QUERY,
    &non_self::QUERY,
    &unreachable_code::QUERY,
    &unused_local_variable::QUERY,
];
