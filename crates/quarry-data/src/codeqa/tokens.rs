//! The tokens of an argument, made only when they are read.
//!
//! A verb's argument is the subtree of one of its dependents; in a run-on
//! comment ("…; it returns …; it returns …") each clause is an argument of
//! the next, so listing every argument's tokens took time in the product of
//! the predicates and the comment's length. [`Tokens`] keeps a subtree as
//! the range it covers, or as its part of the tree's walk when it has gaps
//! (a non-projective parse), and lists it on first read: only the arguments
//! that end up in a pair are ever listed.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::{Arc, OnceLock};

/// Token indices in document order. Reading it as a slice (`&tokens[..]`,
/// or through [`Deref`]) lists it once; [`first`](Tokens::first),
/// [`last`](Tokens::last), [`iter`](Tokens::iter), [`before`](Tokens::before)
/// and [`any_after`](Tokens::any_after) do not.
#[derive(Clone, Default)]
pub struct Tokens {
    repr: Repr,
    /// The list, once read.
    listed: OnceLock<Vec<usize>>,
}

#[derive(Clone)]
enum Repr {
    /// Consecutive tokens.
    Range(Range<usize>),
    /// A subtree with gaps: the part `at` of a tree's walk, which holds its
    /// tokens in another order, and its first and last token.
    Walk { walk: Arc<[usize]>, at: Range<usize>, first: usize, last: usize },
    /// Any tokens, as given.
    List(Vec<usize>),
}

impl Default for Repr {
    fn default() -> Repr {
        Repr::List(Vec::new())
    }
}

impl Tokens {
    /// The consecutive tokens of `range`.
    pub fn range(range: Range<usize>) -> Tokens {
        Tokens { repr: Repr::Range(range), listed: OnceLock::new() }
    }

    /// The subtree that lies, in some order, in `walk[at]`; `first` and
    /// `last` are its least and greatest token.
    pub(crate) fn walk(walk: Arc<[usize]>, at: Range<usize>, first: usize, last: usize) -> Tokens {
        Tokens { repr: Repr::Walk { walk, at, first, last }, listed: OnceLock::new() }
    }

    /// The first token.
    pub fn first(&self) -> Option<usize> {
        match &self.repr {
            Repr::Range(r) => (!r.is_empty()).then_some(r.start),
            Repr::Walk { first, .. } => Some(*first),
            Repr::List(v) => v.first().copied(),
        }
    }

    /// The last token.
    pub fn last(&self) -> Option<usize> {
        match &self.repr {
            Repr::Range(r) => (!r.is_empty()).then(|| r.end - 1),
            Repr::Walk { last, .. } => Some(*last),
            Repr::List(v) => v.last().copied(),
        }
    }

    /// True when there is no token.
    pub fn is_empty(&self) -> bool {
        match &self.repr {
            Repr::Range(r) => r.is_empty(),
            Repr::Walk { .. } => false,
            Repr::List(v) => v.is_empty(),
        }
    }

    /// The tokens in order (a range is not listed for this).
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let (range, list): (Range<usize>, &[usize]) = match &self.repr {
            Repr::Range(r) => (r.clone(), &[]),
            _ => (0..0, self),
        };
        range.chain(list.iter().copied())
    }

    /// The tokens before token `end`, in order.
    pub fn before(&self, end: usize) -> Tokens {
        match &self.repr {
            Repr::Range(r) => Tokens::range(r.start..r.end.min(end).max(r.start)),
            _ => Tokens::from(self.iter().filter(|&i| i < end).collect::<Vec<_>>()),
        }
    }

    /// True when a token comes after token `end`.
    pub fn any_after(&self, end: usize) -> bool {
        match &self.repr {
            Repr::Range(_) | Repr::Walk { .. } => self.last().is_some_and(|l| l > end),
            Repr::List(v) => v.iter().any(|&i| i > end),
        }
    }

    /// Removes the last token and returns it.
    pub fn pop(&mut self) -> Option<usize> {
        if let Repr::Walk { .. } = self.repr {
            let list = self.to_vec();
            self.repr = Repr::List(list);
        }
        self.listed = OnceLock::new();
        match &mut self.repr {
            Repr::Range(r) => {
                let last = (r.start < r.end).then(|| r.end - 1);
                r.end = r.start.max(r.end.saturating_sub(1));
                last
            }
            Repr::List(v) => v.pop(),
            Repr::Walk { .. } => None,
        }
    }

    /// Appends `other`'s tokens.
    pub fn extend(&mut self, other: &Tokens) {
        self.repr = match (&self.repr, &other.repr) {
            (Repr::Range(a), Repr::Range(b)) if a.end == b.start => Repr::Range(a.start..b.end),
            _ => Repr::List(self.iter().chain(other.iter()).collect()),
        };
        self.listed = OnceLock::new();
    }
}

impl Deref for Tokens {
    type Target = [usize];

    fn deref(&self) -> &[usize] {
        match &self.repr {
            Repr::List(v) => v,
            Repr::Range(r) => self.listed.get_or_init(|| r.clone().collect()),
            Repr::Walk { walk, at, .. } => self.listed.get_or_init(|| {
                let mut list = walk.get(at.clone()).map(<[usize]>::to_vec).unwrap_or_default();
                list.sort_unstable();
                list
            }),
        }
    }
}

impl From<Vec<usize>> for Tokens {
    fn from(list: Vec<usize>) -> Tokens {
        Tokens { repr: Repr::List(list), listed: OnceLock::new() }
    }
}

impl PartialEq for Tokens {
    fn eq(&self, other: &Tokens) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Tokens {}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_as_its_list() {
        let range = Tokens::range(2..6);
        let walk = Tokens::walk(Arc::from(vec![9, 4, 2, 7, 3]), 1..4, 2, 7);
        let list = Tokens::from(vec![1, 3, 5]);
        assert_eq!(&range[..], &[2, 3, 4, 5]);
        assert_eq!(&walk[..], &[2, 4, 7]);
        assert_eq!(range.iter().collect::<Vec<_>>(), vec![2, 3, 4, 5]);
        assert_eq!(walk.iter().collect::<Vec<_>>(), vec![2, 4, 7]);
        assert_eq!((range.first(), range.last()), (Some(2), Some(5)));
        assert_eq!((walk.first(), walk.last()), (Some(2), Some(7)));
        assert_eq!((list.first(), list.last()), (Some(1), Some(5)));
        assert_eq!(range, Tokens::from(vec![2, 3, 4, 5]));
        assert_eq!(format!("{walk:?}"), "[2, 4, 7]");
    }

    #[test]
    fn before_after_pop_and_extend_match_the_list_operations() {
        for tokens in [Tokens::range(2..6), Tokens::walk(Arc::from(vec![5, 3, 2, 4]), 0..4, 2, 5)] {
            for end in 0..8 {
                let want: Vec<usize> = tokens.iter().filter(|&i| i < end).collect();
                assert_eq!(tokens.before(end).iter().collect::<Vec<_>>(), want, "{tokens:?} before {end}");
                assert_eq!(tokens.before(end).is_empty(), want.is_empty());
                assert_eq!(tokens.any_after(end), tokens.iter().any(|i| i > end));
            }
            let mut popped = tokens.clone();
            assert_eq!(&popped[..], &[2, 3, 4, 5]);
            assert_eq!(popped.pop(), Some(5));
            assert_eq!(&popped[..], &[2, 3, 4]);
            let mut joined = tokens.clone();
            joined.extend(&Tokens::range(6..8));
            assert_eq!(&joined[..], &[2, 3, 4, 5, 6, 7]);
            joined.extend(&Tokens::from(vec![1]));
            assert_eq!(&joined[..], &[2, 3, 4, 5, 6, 7, 1]);
        }
        let mut empty = Tokens::range(3..4);
        assert_eq!(empty.pop(), Some(3));
        assert_eq!((empty.pop(), empty.first(), empty.is_empty()), (None, None, true));
    }
}
