//! [`Buffer`]: the storage of a graph's and an index's large arrays, either built in memory
//! or read in place from a mapped saved-index file ([`crate::saved`]).

use std::fmt;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::Arc;

/// A read-only array of `T` that is either owned (a `Vec` built in memory) or a range of a
/// memory-mapped file kept alive by the buffer. Dereferences to `&[T]` at no cost.
pub struct Buffer<T> {
    /// The first element: into the `Vec`'s heap allocation (which does not move when the
    /// `Vec` does) or into the mapping.
    ptr: NonNull<T>,
    len: usize,
    owner: Owner<T>,
}

enum Owner<T> {
    Vec(Vec<T>),
    Map(Arc<memmap2::Mmap>),
}

// SAFETY: a `Buffer` is an immutable view of memory it owns (a `Vec<T>`) or keeps alive (a
// read-only mapping); sharing or sending it is as safe as sharing or sending `&[T]`.
unsafe impl<T: Sync> Sync for Buffer<T> {}
// SAFETY: as above; the owner moves with the view.
unsafe impl<T: Send + Sync> Send for Buffer<T> {}

impl<T: bytemuck::Pod> Buffer<T> {
    /// `len` elements of `map` from byte `offset` on.
    ///
    /// # Panics
    /// If the range is not inside the mapping or not aligned for `T`: the saved-index reader
    /// checks both before it asks.
    pub(crate) fn mapped(map: Arc<memmap2::Mmap>, offset: usize, len: usize) -> Buffer<T> {
        let bytes = &map[offset..offset + len * size_of::<T>()];
        let slice: &[T] = bytemuck::cast_slice(bytes);
        let ptr = NonNull::from(slice).cast::<T>();
        Buffer {
            ptr,
            len,
            owner: Owner::Map(map),
        }
    }
}

impl<T> Buffer<T> {
    /// Whether the elements are read from a mapped file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.owner, Owner::Map(_))
    }
}

impl<T> From<Vec<T>> for Buffer<T> {
    fn from(vec: Vec<T>) -> Buffer<T> {
        let mut vec = vec;
        let ptr = NonNull::new(vec.as_mut_ptr()).expect("a Vec's pointer is never null");
        Buffer {
            ptr,
            len: vec.len(),
            owner: Owner::Vec(vec),
        }
    }
}

impl<T> Deref for Buffer<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points at `len` initialised, aligned elements that `owner` keeps
        // alive and that nothing mutates (see the constructors).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Default for Buffer<T> {
    fn default() -> Buffer<T> {
        Buffer::from(Vec::new())
    }
}

impl<T: Clone> Clone for Buffer<T> {
    fn clone(&self) -> Buffer<T> {
        match &self.owner {
            Owner::Vec(vec) => Buffer::from(vec.clone()),
            Owner::Map(map) => Buffer {
                ptr: self.ptr,
                len: self.len,
                owner: Owner::Map(Arc::clone(map)),
            },
        }
    }
}

impl<T: PartialEq> PartialEq for Buffer<T> {
    fn eq(&self, other: &Buffer<T>) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for Buffer<T> {}

impl<T: fmt::Debug> fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owned_buffer_reads_like_its_vec_and_clones_apart() {
        let a = Buffer::from(vec![3u32, 1, 4]);
        let b = a.clone();
        assert_eq!(&*a, &[3, 1, 4]);
        assert_eq!(a, b);
        assert_ne!(a.as_ptr(), b.as_ptr());
        assert!(!a.is_mapped());
        assert!(Buffer::<u32>::default().is_empty());
    }
}
