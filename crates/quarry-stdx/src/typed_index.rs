//! [`typed_index!`](crate::typed_index): ids that are positions in one collection
//! (a scope of `Scopes`, a class of `Classes`, a module of a project) as distinct
//! types, so that a class id cannot index the scopes.

/// Declares `struct NAME(usize)`: a typed position in one collection, made with
/// `NAME::new(i)` by the collection that owns it and read back with `.index()`.
///
/// ```
/// quarry_stdx::typed_index! {
///     /// Index of a scope.
///     pub struct ScopeId;
/// }
/// let scope = ScopeId::new(3);
/// assert_eq!(scope.index(), 3);
/// ```
#[macro_export]
macro_rules! typed_index {
    ($(#[$meta:meta])* $vis:vis struct $name:ident;) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis struct $name(usize);

        impl $name {
            /// The id of the element at `index` of its collection.
            pub const fn new(index: usize) -> Self {
                $name(index)
            }

            /// The element's position in its collection.
            pub const fn index(self) -> usize {
                self.0
            }

            /// The elements of `items` with their ids.
            pub fn enumerate<T>(items: &[T]) -> impl Iterator<Item = (Self, &T)> + '_ {
                items.iter().enumerate().map(|(i, item)| ($name(i), item))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::typed_index! {
        /// A planted id.
        struct PlantedId;
    }

    #[test]
    fn an_id_round_trips_and_orders_by_position() {
        assert_eq!(PlantedId::new(7).index(), 7);
        assert!(PlantedId::new(2) < PlantedId::new(10));
        let ids: Vec<(PlantedId, &char)> = PlantedId::enumerate(&['a', 'b']).collect();
        assert_eq!(ids, [(PlantedId::new(0), &'a'), (PlantedId::new(1), &'b')]);
    }
}
