//! Freed small blocks kept for the next allocation of their size.
//!
//! A call of the JS API allocates and frees some 70 small blocks (strings,
//! futures, channel nodes), most under 256 bytes and short-lived; talc's
//! `allocate` and `deallocate` were 11% of the wasm's own time per call in
//! Node (a names-kept profile, 2.9 of 25.7 µs). A block freed here goes to
//! a list of its size class (16-byte steps up to 256 bytes), and the next
//! allocation of that class takes it back: a pointer popped, no search, no
//! coalescing. Each list keeps at most [`KEPT`] blocks and gives the rest
//! back to the allocator below, so what it holds is bounded (at most
//! 139 KB, when every list is full).

// Natively only the tests use it: the host's allocator is the global one.
#![cfg_attr(not(all(target_arch = "wasm32", not(target_feature = "atomics"))), allow(dead_code))]

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::ptr;

/// The size step of the classes, and the alignment of every block they
/// hold (so a block serves any request of its class).
const GRANULE: usize = 16;
/// Classes of 16, 32, ... 256 bytes.
const CLASSES: usize = 16;
/// The most blocks a class keeps.
const KEPT: u16 = 64;

/// `backing`, with freed small blocks kept (see the module).
pub struct Cached<A> {
    backing: A,
    lists: UnsafeCell<Lists>,
}

/// The free blocks of each class, linked through their first word.
struct Lists {
    heads: [*mut u8; CLASSES],
    counts: [u16; CLASSES],
}

// Sound only where one thread uses the allocator: wasm32 without the
// `atomics` feature, the one place it is the global allocator.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl<A: Sync> Sync for Cached<A> {}

impl<A> Cached<A> {
    pub const fn new(backing: A) -> Self {
        Cached { backing, lists: UnsafeCell::new(Lists { heads: [ptr::null_mut(); CLASSES], counts: [0; CLASSES] }) }
    }
}

/// The class of a request, if a class serves it.
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size();
    (size != 0 && size <= GRANULE * CLASSES && layout.align() <= GRANULE).then(|| (size - 1) / GRANULE)
}

/// What a block of `class` is allocated as below.
fn class_layout(class: usize) -> Layout {
    // (class + 1) * 16 is at most 256 and 16 is a power of two.
    match Layout::from_size_align((class + 1) * GRANULE, GRANULE) {
        Ok(layout) => layout,
        Err(_) => unreachable!(),
    }
}

unsafe impl<A: GlobalAlloc> GlobalAlloc for Cached<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class_of(layout) else { return unsafe { self.backing.alloc(layout) } };
        // One thread, and nothing below calls back into this allocator:
        // this is the only reference to the lists while it lives.
        let lists = unsafe { &mut *self.lists.get() };
        let head = lists.heads[class];
        if head.is_null() {
            return unsafe { self.backing.alloc(class_layout(class)) };
        }
        // A kept block holds the next one's address in its first word
        // (every block is at least 16 bytes, aligned to 16).
        lists.heads[class] = unsafe { ptr::read(head.cast::<*mut u8>()) };
        lists.counts[class] -= 1;
        head
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let Some(class) = class_of(layout) else { return unsafe { self.backing.dealloc(block, layout) } };
        let lists = unsafe { &mut *self.lists.get() };
        if lists.counts[class] >= KEPT {
            return unsafe { self.backing.dealloc(block, class_layout(class)) };
        }
        unsafe { ptr::write(block.cast::<*mut u8>(), lists.heads[class]) };
        lists.heads[class] = block;
        lists.counts[class] += 1;
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The caller guarantees the new size, at this alignment, is a valid layout.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (class_of(layout), class_of(new_layout)) {
            // Large to large: the allocator below may grow it in place.
            (None, None) => unsafe { self.backing.realloc(block, layout, new_size) },
            // The block already has room for its class.
            (Some(old), Some(new)) if old == new => block,
            _ => {
                let moved = unsafe { self.alloc(new_layout) };
                if !moved.is_null() {
                    unsafe {
                        ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                }
                moved
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use core::alloc::{GlobalAlloc, Layout};
    use core::cell::Cell;
    use std::alloc::System;

    use super::{Cached, KEPT};

    /// The system allocator, counting what reaches it.
    #[derive(Default)]
    struct Counted {
        allocs: Cell<usize>,
        frees: Cell<usize>,
    }

    unsafe impl GlobalAlloc for Counted {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            self.allocs.set(self.allocs.get() + 1);
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
            self.frees.set(self.frees.get() + 1);
            unsafe { System.dealloc(block, layout) }
        }
    }

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap_or(Layout::new::<u8>())
    }

    #[test]
    fn a_freed_block_serves_the_next_request_of_its_class() {
        let cached = Cached::new(Counted::default());
        unsafe {
            let first = cached.alloc(layout(40, 8));
            cached.dealloc(first, layout(40, 8));
            // 33..=48 bytes is one class.
            let again = cached.alloc(layout(48, 4));
            assert_eq!(again, first);
            let other = cached.alloc(layout(49, 8));
            assert_ne!(other, first);
            cached.dealloc(again, layout(48, 4));
            cached.dealloc(other, layout(49, 8));
        }
        assert_eq!(cached.backing.allocs.get(), 2);
        assert_eq!(cached.backing.frees.get(), 0);
    }

    #[test]
    fn blocks_are_aligned_to_sixteen_and_large_or_aligned_requests_go_below() {
        let cached = Cached::new(Counted::default());
        unsafe {
            let small = cached.alloc(layout(3, 1));
            assert_eq!(small as usize % 16, 0);
            let large = cached.alloc(layout(257, 8));
            let aligned = cached.alloc(layout(32, 64));
            assert_eq!(aligned as usize % 64, 0);
            cached.dealloc(large, layout(257, 8));
            cached.dealloc(aligned, layout(32, 64));
            cached.dealloc(small, layout(3, 1));
        }
        assert_eq!(cached.backing.frees.get(), 2, "the large and the aligned block went back below");
    }

    #[test]
    fn a_class_keeps_a_bounded_number_of_blocks() {
        let cached = Cached::new(Counted::default());
        let count = usize::from(KEPT) + 10;
        let mut blocks = std::vec::Vec::new();
        unsafe {
            for _ in 0..count {
                blocks.push(cached.alloc(layout(24, 8)));
            }
            for block in blocks.drain(..) {
                cached.dealloc(block, layout(24, 8));
            }
        }
        assert_eq!(cached.backing.frees.get(), 10, "all but KEPT went back below");
        // Empty the list so the system allocator gets its blocks back.
        unsafe {
            for _ in 0..KEPT {
                let block = cached.alloc(layout(24, 8));
                cached.backing.dealloc(block, super::class_layout(1));
            }
        }
        assert_eq!(cached.backing.allocs.get(), count);
    }

    #[test]
    fn realloc_keeps_the_block_within_its_class_and_moves_the_bytes_across() {
        let cached = Cached::new(Counted::default());
        unsafe {
            let block = cached.alloc(layout(20, 4));
            for i in 0..20 {
                *block.add(i) = i as u8;
            }
            assert_eq!(cached.realloc(block, layout(20, 4), 32), block);
            let grown = cached.realloc(block, layout(32, 4), 300);
            assert_ne!(grown, block);
            for i in 0..20 {
                assert_eq!(*grown.add(i), i as u8);
            }
            let shrunk = cached.realloc(grown, layout(300, 4), 10);
            for i in 0..10 {
                assert_eq!(*shrunk.add(i), i as u8);
            }
            cached.dealloc(shrunk, layout(10, 4));
        }
    }
}
