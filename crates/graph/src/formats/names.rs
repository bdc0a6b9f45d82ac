//! Names that readers keep beside a graph: the original id or the RDF term of each vertex,
//! and dictionaries from label names to label numbers.
//!
//! Everything is stored flat: a [`Dictionary`] keeps all its names in one string and finds
//! them through an open-addressing table of ids, so a dictionary of millions of names costs
//! a few bytes per name beyond the text itself and no heap object per name.

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::VertexId;

/// A set of distinct names numbered densely in order of insertion, from a first number on.
///
/// Lookup both ways is constant time: [`Dictionary::name`] by number, [`Dictionary::id`] by
/// name.
#[derive(Clone)]
pub struct Dictionary {
    /// The number of the first name.
    first: u32,
    /// All names, one after another.
    text: String,
    /// `ends[i]` is where name `i` ends in `text`; it starts where name `i - 1` ends.
    ends: Vec<usize>,
    /// Open addressing: the index of a name, or [`EMPTY`]; the length is a power of two.
    slots: Vec<u32>,
}

const EMPTY: u32 = u32::MAX;

impl Dictionary {
    /// An empty dictionary whose first name will get the number `first`.
    pub fn new(first: u32) -> Dictionary {
        Dictionary {
            first,
            text: String::new(),
            ends: Vec::new(),
            slots: Vec::new(),
        }
    }

    /// The number the first name gets.
    pub fn first(&self) -> u32 {
        self.first
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no names.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The name numbered `id`, if there is one.
    pub fn name(&self, id: u32) -> Option<&str> {
        let index = id.checked_sub(self.first)? as usize;
        (index < self.len()).then(|| self.at(index))
    }

    /// The number of `name`, if it is in the dictionary (compared exactly).
    pub fn id(&self, name: &str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let index = self.probe(hash_bytes(name.as_bytes()), name).ok()?;
        Some(self.first + index)
    }

    /// The number of `name`, where an IRI may also be given without its angle brackets:
    /// `http://x/y` finds `<http://x/y>`.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.id(name).or_else(|| {
            let bare = !(name.starts_with('<') || name.starts_with("_:") || name.starts_with('"'));
            if bare {
                self.id(&format!("<{name}>"))
            } else {
                None
            }
        })
    }

    /// The names with their numbers, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (u32, &str)> + '_ {
        (0..self.len()).map(move |i| (self.first + i as u32, self.at(i)))
    }

    /// The number of `name`, adding it first if it is new.
    ///
    /// # Panics
    /// When the dictionary already holds `u32::MAX - first` names; readers check
    /// [`Dictionary::is_full`] first.
    pub fn insert(&mut self, name: &str) -> u32 {
        if let Some(id) = self.id(name) {
            return id;
        }
        assert!(!self.is_full(), "dictionary is full");
        if (self.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let index = self.len() as u32;
        self.text.push_str(name);
        self.ends.push(self.text.len());
        self.place(index);
        self.first + index
    }

    /// Whether one more name would not get a number below `u32::MAX`.
    pub fn is_full(&self) -> bool {
        self.first as u64 + self.len() as u64 >= u64::from(u32::MAX) - 1
    }

    /// All names, one after another, and where each ends: what a saved index keeps.
    pub(crate) fn parts(&self) -> (&str, &[usize]) {
        (&self.text, &self.ends)
    }

    /// The dictionary of the names `text` holds, name `i` ending at `ends[i]`, numbered
    /// from `first`; the lookup table is built again.
    ///
    /// # Errors
    /// The ends run backwards, past the text or inside a character, a name repeats, or the
    /// numbers would reach `u32::MAX`.
    pub(crate) fn from_parts(
        first: u32,
        text: String,
        ends: Vec<usize>,
    ) -> std::result::Result<Dictionary, String> {
        let ordered = ends.first().is_none_or(|&end| text.is_char_boundary(end))
            && ends
                .par_windows(2)
                .all(|pair| pair[0] <= pair[1] && text.is_char_boundary(pair[1]));
        if !ordered || ends.last().is_some_and(|&end| end != text.len()) {
            return Err("its names do not tile its text".into());
        }
        if first as u64 + ends.len() as u64 >= u64::from(u32::MAX) {
            return Err("it numbers names past 2^32 - 1".into());
        }
        // The table `insert` would have grown to: the least power of two, 16 or more, of at
        // least two slots per name.
        let slots: Vec<AtomicU32> = match ends.len() {
            0 => Vec::new(),
            n => (0..(2 * n).next_power_of_two().max(16))
                .map(|_| AtomicU32::new(EMPTY))
                .collect(),
        };
        let dictionary = Dictionary {
            first,
            text,
            ends,
            slots: Vec::new(),
        };
        // Every thread places names, each claiming the first empty slot of its probe with
        // one atomic exchange; a name repeated is met by its twin's probe, whichever came
        // first (a saved index of 100 M triples holds tens of millions of names). Any order
        // of placing gives a table that `probe` reads alike. A batch's slots are read first,
        // so that their cache misses overlap (an exchange waits for its own).
        let mask = slots.len().wrapping_sub(1);
        let place = |index: usize, hash: u64| {
            let name = dictionary.at(index);
            let mut slot = hash as usize & mask;
            loop {
                match slots[slot].compare_exchange(
                    EMPTY,
                    index as u32,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ) {
                    Ok(_) => return None,
                    Err(other) if dictionary.at(other as usize) == name => return Some(index),
                    Err(_) => slot = (slot + 1) & mask,
                }
            }
        };
        let repeated = (0..dictionary.len())
            .into_par_iter()
            .step_by(PLACE_BATCH)
            .find_map_any(|start| {
                let batch = start..(start + PLACE_BATCH).min(dictionary.len());
                let hashes: Vec<u64> = batch
                    .clone()
                    .map(|index| hash_bytes(dictionary.at(index).as_bytes()))
                    .collect();
                let seen = hashes
                    .iter()
                    .map(|&hash| slots[hash as usize & mask].load(Ordering::Relaxed))
                    .fold(0u32, u32::wrapping_add);
                std::hint::black_box(seen);
                batch
                    .zip(hashes)
                    .find_map(|(index, hash)| place(index, hash))
            });
        if let Some(index) = repeated {
            return Err(format!(
                "it holds the name `{}` twice",
                dictionary.at(index)
            ));
        }
        Ok(Dictionary {
            slots: slots.into_iter().map(AtomicU32::into_inner).collect(),
            ..dictionary
        })
    }

    fn at(&self, index: usize) -> &str {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.text[start..self.ends[index]]
    }

    /// Where `name`, of hash `hash`, is in the table (a table of at least one slot): its index
    /// where it is there, else the empty slot it would take.
    fn probe(&self, hash: u64, name: &str) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut slot = hash as usize & mask;
        loop {
            match self.slots[slot] {
                EMPTY => return Err(slot),
                index if self.at(index as usize) == name => return Ok(index),
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    fn place(&mut self, index: u32) {
        let mask = self.slots.len() - 1;
        let mut slot = hash_bytes(self.at(index as usize).as_bytes()) as usize & mask;
        while self.slots[slot] != EMPTY {
            slot = (slot + 1) & mask;
        }
        self.slots[slot] = index;
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(16);
        self.slots = vec![EMPTY; size];
        for index in 0..self.len() as u32 {
            self.place(index);
        }
    }
}

/// Two dictionaries are equal when they number the same names alike, however their tables
/// were filled.
impl PartialEq for Dictionary {
    fn eq(&self, other: &Dictionary) -> bool {
        (self.first, &self.text, &self.ends) == (other.first, &other.text, &other.ends)
    }
}

impl Eq for Dictionary {}

impl fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dictionary")
            .field("first", &self.first)
            .field("len", &self.len())
            .finish()
    }
}

/// Names whose slots [`Dictionary::from_parts`] reads before placing them.
const PLACE_BATCH: usize = 256;

/// What each vertex was called in the file it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VertexNames {
    /// Original integer ids, indexed by vertex (SNAP edge lists).
    Ids(Vec<u64>),
    /// RDF terms as written in the file, numbered by vertex from 0: `<iri>`, `_:blank` or
    /// `"literal"` with its `@lang` or `^^<type>` (N-Triples).
    Terms(Dictionary),
}

/// The name of one vertex; prints as the original id or the RDF term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexName<'a> {
    /// An original integer id.
    Id(u64),
    /// An RDF term.
    Term(&'a str),
}

impl fmt::Display for VertexName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VertexName::Id(id) => write!(f, "{id}"),
            VertexName::Term(term) => f.write_str(term),
        }
    }
}

impl VertexNames {
    /// Number of named vertices (all vertices of the graph).
    pub fn len(&self) -> usize {
        match self {
            VertexNames::Ids(ids) => ids.len(),
            VertexNames::Terms(terms) => terms.len(),
        }
    }

    /// Whether there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name of vertex `v`, if `v` is a vertex.
    pub fn name(&self, v: VertexId) -> Option<VertexName<'_>> {
        match self {
            VertexNames::Ids(ids) => ids.get(v as usize).map(|&id| VertexName::Id(id)),
            VertexNames::Terms(terms) => terms.name(v).map(VertexName::Term),
        }
    }

    /// The vertex called `name`: an original id written in decimal, or an RDF term (an IRI
    /// may be given without its angle brackets). Looking up an original id scans all ids.
    pub fn find(&self, name: &str) -> Option<VertexId> {
        match self {
            VertexNames::Ids(ids) => {
                let id = name.trim().parse::<u64>().ok()?;
                ids.iter().position(|&x| x == id).map(|v| v as VertexId)
            }
            VertexNames::Terms(terms) => terms.find(name),
        }
    }
}

/// A 64-bit hash of a byte string, good enough for hash tables (not for adversaries).
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15 ^ bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        h = (h ^ word)
            .wrapping_mul(0xFF51_AFD7_ED55_8CCD)
            .rotate_left(29);
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    mix64(h)
}

/// A bijective mix of 64 bits (the MurmurHash3 finaliser).
pub(crate) fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^ (x >> 33)
}

/// A hasher for integer keys (original vertex ids): one [`mix64`] per key.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        mix64(self.0)
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = hash_bytes(bytes) ^ self.0.rotate_left(17);
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = self.0.rotate_left(17) ^ x;
    }
}

/// Hash-map state for [`IdHasher`].
pub(crate) type IdHash = std::hash::BuildHasherDefault<IdHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionary_numbers_names_from_first_and_finds_them_back() {
        let mut d = Dictionary::new(1);
        assert_eq!(d.id("a"), None);
        assert_eq!(d.insert("<http://x/A>"), 1);
        assert_eq!(d.insert("b"), 2);
        assert_eq!(d.insert("<http://x/A>"), 1);
        assert_eq!(d.len(), 2);
        assert_eq!(d.name(0), None);
        assert_eq!(d.name(1), Some("<http://x/A>"));
        assert_eq!(d.name(3), None);
        assert_eq!(d.id("b"), Some(2));
        assert_eq!(d.find("http://x/A"), Some(1));
        assert_eq!(d.find("\"b\""), None);
        assert_eq!(
            d.iter().collect::<Vec<_>>(),
            vec![(1, "<http://x/A>"), (2, "b")]
        );
        assert!(format!("{d:?}").contains("len: 2"));
    }

    #[test]
    fn dictionary_survives_many_names_and_growth() {
        let mut d = Dictionary::new(0);
        for i in 0..10_000 {
            assert_eq!(d.insert(&format!("name-{i}")), i);
        }
        for i in (0..10_000).rev() {
            assert_eq!(d.id(&format!("name-{i}")), Some(i));
            assert_eq!(d.name(i), Some(format!("name-{i}").as_str()));
        }
        assert_eq!(d.insert(""), 10_000);
        assert_eq!(d.id(""), Some(10_000));
    }

    #[test]
    fn a_dictionary_rebuilt_from_its_parts_is_the_one_inserted() {
        // Enough names that probes run into each other, and the empty name.
        for count in [0usize, 1, 7, 5_000] {
            let mut inserted = Dictionary::new(3);
            for i in 0..count {
                inserted.insert(&format!("<http://x/{}>", i * 7919 % 10_007));
            }
            inserted.insert("");
            let (text, ends) = inserted.parts();
            let rebuilt = Dictionary::from_parts(3, text.to_string(), ends.to_vec()).unwrap();
            assert_eq!(rebuilt, inserted, "{count} names");
            for (id, name) in inserted.iter() {
                assert_eq!(rebuilt.id(name), Some(id));
            }
        }
        // A name given twice is refused, by name.
        let err = Dictionary::from_parts(0, "<a><b><a>".into(), vec![3, 6, 9]).unwrap_err();
        assert!(err.contains("`<a>` twice"), "{err}");
        let err = Dictionary::from_parts(0, "a".into(), vec![1, 1, 1]).unwrap_err();
        assert!(err.contains("`` twice"), "{err}");
        // Among names placed by several threads, wherever the twins stand.
        for (first, second) in [(0, 49_999), (31_000, 31_001), (12_345, 40_000)] {
            let names: Vec<String> = (0..50_000)
                .map(|i| match i == second {
                    true => format!("<n{first}>"),
                    false => format!("<n{i}>"),
                })
                .collect();
            let ends = names
                .iter()
                .scan(0, |end, name| {
                    *end += name.len();
                    Some(*end)
                })
                .collect();
            let err = Dictionary::from_parts(0, names.concat(), ends).unwrap_err();
            assert!(err.contains(&format!("`<n{first}>` twice")), "{err}");
        }
    }

    #[test]
    fn vertex_names_print_and_find() {
        let ids = VertexNames::Ids(vec![10, 7, 99]);
        assert_eq!(ids.len(), 3);
        assert_eq!(ids.name(1).unwrap().to_string(), "7");
        assert_eq!(ids.name(3), None);
        assert_eq!(ids.find("99"), Some(2));
        assert_eq!(ids.find("x"), None);
        let mut d = Dictionary::new(0);
        d.insert("<a>");
        d.insert("\"lit\"@en");
        let terms = VertexNames::Terms(d);
        assert_eq!(terms.name(1).unwrap().to_string(), "\"lit\"@en");
        assert_eq!(terms.find("a"), Some(0));
        assert!(!terms.is_empty());
    }

    #[test]
    fn id_hasher_spreads_keys() {
        use std::hash::{BuildHasher, Hasher};
        let state = IdHash::default();
        let a = state.hash_one(1u64 << 40);
        let b = state.hash_one(2u64 << 40);
        assert_ne!(a & 0xFFFF, b & 0xFFFF);
        let mut h = IdHasher::default();
        h.write(b"abc");
        assert_ne!(h.finish(), 0);
    }
}
