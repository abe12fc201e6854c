//! A posting list of the grounding index: the passages (ascending indices) that hold a stem or
//! a number.
//!
//! A list of a common word in a long file holds a large share of all passages: as `u32`s, the
//! few dozen such lists of a 16 MiB Career Context took most of the 20 MiB the index held at the
//! peak of a `check_claims`. A list that grows past one passage in [`DENSE`] turns into a bitset
//! over every passage, so no list ever holds more than that bitset's size; sparse lists (nearly
//! all of them in a person's real file) stay plain, exact-size vectors.

/// A list turns into a bitset when it holds one passage in this many (a bitset costs one bit a
/// passage, a `u32` entry thirty-two)...
const DENSE: usize = 32;
/// ...and is long enough for its size to matter (64 KiB as `u32`s): walking a vector is faster
/// than a bitset, and a file of a few MB never has a list this long.
const LONG: usize = 1 << 14;

#[derive(Debug, Clone)]
pub(super) enum Postings {
    List(Vec<u32>),
    Bits { words: Box<[u64]>, len: u32, last: u32 },
}

impl Postings {
    pub(super) fn new(at: u32) -> Self {
        Postings::List(vec![at])
    }

    /// Adds passage `at`, not below any added before (a repeat is ignored). `passages`: how many
    /// the index covers, the size of a bitset.
    pub(super) fn push(&mut self, at: u32, passages: usize) {
        match self {
            Postings::List(list) => {
                if list.last() == Some(&at) {
                    return;
                }
                list.push(at);
                if list.len() >= LONG && list.len().saturating_mul(DENSE) >= passages {
                    let mut words = vec![0u64; passages.div_ceil(64)].into_boxed_slice();
                    for &i in list.iter() {
                        words[i as usize / 64] |= 1 << (i % 64);
                    }
                    let len = u32::try_from(list.len()).unwrap_or(u32::MAX);
                    *self = Postings::Bits { words, len, last: at };
                }
            }
            Postings::Bits { words, len, last } => {
                if *last == at && *len > 0 {
                    return;
                }
                if let Some(w) = words.get_mut(at as usize / 64) {
                    *w |= 1 << (at % 64);
                    *len += 1;
                    *last = at;
                }
            }
        }
    }

    /// Frees a vector's spare room once the index is built.
    pub(super) fn shrink(&mut self) {
        if let Postings::List(list) = self {
            list.shrink_to_fit();
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Postings::List(list) => list.len(),
            Postings::Bits { len, .. } => *len as usize,
        }
    }

    pub(super) fn contains(&self, i: u32) -> bool {
        match self {
            Postings::List(list) => list.binary_search(&i).is_ok(),
            Postings::Bits { words, .. } => words.get(i as usize / 64).is_some_and(|w| w & (1 << (i % 64)) != 0),
        }
    }

    /// The passages, ascending.
    pub(super) fn iter(&self) -> Iter<'_> {
        match self {
            Postings::List(list) => Iter::List(list.iter()),
            Postings::Bits { words, .. } => Iter::Bits { words, at: 0, word: words.first().copied().unwrap_or(0) },
        }
    }
}

#[derive(Debug)]
pub(super) enum Iter<'a> {
    List(std::slice::Iter<'a, u32>),
    /// `word`: what is left of `words[at]` to yield.
    Bits {
        words: &'a [u64],
        at: usize,
        word: u64,
    },
}

impl Iterator for Iter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self {
            Iter::List(it) => it.next().copied(),
            Iter::Bits { words, at, word } => loop {
                if *word != 0 {
                    let bit = word.trailing_zeros();
                    *word &= *word - 1;
                    return u32::try_from(*at * 64 + bit as usize).ok();
                }
                *at += 1;
                *word = *words.get(*at)?;
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Whatever it turns into, a list answers as the plain sorted, deduplicated vector of
        /// what was pushed (long enough, at times, to become a bitset).
        #[test]
        fn a_list_answers_as_the_sorted_set_pushed(
            passages in 1usize..40_000,
            steps in proptest::collection::vec((0u32..3, any::<bool>()), 1..24_000),
        ) {
            let mut at = 0u32;
            let mut model: Vec<u32> = Vec::new();
            let mut list: Option<Postings> = None;
            for (gap, repeat) in steps {
                at = if repeat { at } else { at + gap };
                if at as usize >= passages {
                    break;
                }
                if model.last() != Some(&at) {
                    model.push(at);
                }
                match &mut list {
                    Some(l) => l.push(at, passages),
                    None => list = Some(Postings::new(at)),
                }
            }
            let Some(mut list) = list else { return Ok(()) };
            list.shrink();
            prop_assert_eq!(list.iter().collect::<Vec<_>>(), model.clone());
            prop_assert_eq!(list.len(), model.len());
            for i in 0..passages as u32 {
                prop_assert_eq!(list.contains(i), model.binary_search(&i).is_ok(), "{}", i);
            }
        }
    }

    #[test]
    fn a_dense_list_becomes_a_bitset_and_a_sparse_one_stays_a_vector() {
        let passages = 100_000;
        let mut dense = Postings::new(0);
        (1..passages as u32).step_by(4).for_each(|i| dense.push(i, passages));
        assert!(matches!(dense, Postings::Bits { .. }));
        assert_eq!(dense.len(), 1 + (passages - 1).div_ceil(4));
        // Dense but short: a vector still.
        let mut short = Postings::new(0);
        (1..1000u32).step_by(2).for_each(|i| short.push(i, 1000));
        assert!(matches!(short, Postings::List(_)));
        let mut sparse = Postings::new(0);
        (1..passages as u32).step_by(500).for_each(|i| sparse.push(i, passages));
        assert!(matches!(sparse, Postings::List(_)));
    }
}
