//! Memory files: rendered bytes kept in an anonymous file (`memfd`) rather than on
//! the heap, so the kernel can send them to a socket straight from its pages
//! (`sendfile`) instead of copying them into the socket first.
//!
//! A page of a long list is tens of kilobytes. Sent from the heap, the kernel's
//! copy into the socket was a fifth of the server's time under load, while a
//! static file server sends the same bytes from its page cache without a copy.
//! A [`Writer`] appends bytes to a memory file and ends as a read-only mapping
//! of it, handed out in parts as shared [`Bytes`]; [`locate`] tells whether a
//! slice about to be written lies in such a mapping, and where in its file, so
//! the connection can send it with `sendfile` (`serve::zero_copy`). The file is never written again
//! once mapped, so bytes the kernel still holds for a slow client cannot change
//! under it, and its pages are freed when the last slice and the last socket
//! buffer referring to them are gone: a part's pages as soon as nothing holds
//! that part, the file when nothing holds any.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Write};
use std::ops::Range;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::sync::{Arc, Mutex, RwLock};

use bytes::Bytes;

/// The mappings alive, by start address: their length and file.
static MAPPED: RwLock<BTreeMap<usize, (usize, RawFd)>> = RwLock::new(BTreeMap::new());

/// A memory file being written: bytes are appended, then it is mapped.
pub struct Writer {
    file: File,
    len: usize,
}

impl Writer {
    /// A new, empty memory file. Fails where the system has none (`memfd_create`
    /// is Linux's); callers keep their bytes on the heap then.
    pub fn new() -> io::Result<Writer> {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: a NUL-terminated name; the descriptor returned is ours alone.
            let fd = unsafe { libc::memfd_create(c"catalogue-list".as_ptr(), libc::MFD_CLOEXEC) };
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: `fd` was just opened and is owned by nothing else.
            let file = unsafe { File::from_raw_fd(fd) };
            Ok(Writer { file, len: 0 })
        }
        #[cfg(not(target_os = "linux"))]
        {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "no memory files here",
            ))
        }
    }

    /// Appends `bytes` (the kernel copies them into the file's pages).
    pub fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)?;
        self.len += bytes.len();
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Maps the file read-only: no further write is possible. Its bytes are
    /// handed out in parts ([`Mapped::part`]).
    pub fn finish(self) -> io::Result<Mapped> {
        if self.len == 0 {
            return Ok(Mapped(None));
        }
        // SAFETY: a fresh read-only shared mapping of our own file's `len` bytes.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                self.len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                self.file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let mapping = Mapping {
            ptr: ptr as *const u8,
            len: self.len,
            file: self.file,
            live: Mutex::new(BTreeMap::new()),
        };
        MAPPED
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(ptr as usize, (mapping.len, mapping.file.as_raw_fd()));
        Ok(Mapped(Some(Arc::new(mapping))))
    }
}

/// A memory file once written and mapped, from which parts are handed out.
pub struct Mapped(Option<Arc<Mapping>>);

impl Mapped {
    /// The bytes `range` of the file as shared [`Bytes`]. The file's pages that
    /// no part still holds go back to the system as soon as the last part over
    /// them is dropped, not when the whole file is: a reload keeps the served
    /// view's parts that did not change, and the rest of their file is freed.
    /// Parts must not overlap.
    pub fn part(&self, range: Range<usize>) -> Bytes {
        let Some(mapping) = &self.0 else {
            assert!(range.is_empty(), "a part of an empty memory file");
            return Bytes::new();
        };
        assert!(range.end <= mapping.len, "a part beyond its memory file");
        mapping
            .live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(range.start, range.end);
        Bytes::from_owner(Part {
            mapping: mapping.clone(),
            range,
        })
    }
}

/// A read-only mapping of a whole memory file, shared by the [`Part`]s of it.
struct Mapping {
    ptr: *const u8,
    len: usize,
    /// Kept open while mapped: [`locate`] hands out its descriptor.
    file: File,
    /// The parts alive: start -> end.
    live: Mutex<BTreeMap<usize, usize>>,
}

// SAFETY: the mapping is read-only and never changes; it is unmapped only on drop.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Drop for Mapping {
    fn drop(&mut self) {
        MAPPED
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(self.ptr as usize));
        // SAFETY: the mapping made in `finish`; no part of it outlives `self`.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}

/// Bytes `range` of a mapped memory file, owned by the [`Bytes`] made of it.
struct Part {
    mapping: Arc<Mapping>,
    range: Range<usize>,
}

impl AsRef<[u8]> for Part {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: the range lies within the mapping's `len` readable bytes, which
        // stay mapped for as long as `self` holds the mapping.
        unsafe {
            std::slice::from_raw_parts(self.mapping.ptr.add(self.range.start), self.range.len())
        }
    }
}

impl Drop for Part {
    /// Frees the whole pages between the live parts before and after this one.
    fn drop(&mut self) {
        let mapping = &self.mapping;
        let mut live = mapping.live.lock().unwrap_or_else(|e| e.into_inner());
        live.remove(&self.range.start);
        let from = live
            .range(..self.range.start)
            .next_back()
            .map_or(0, |(_, &end)| end);
        let to = live
            .range(self.range.end..)
            .next()
            .map_or(mapping.len, |(&start, _)| start);
        drop(live);
        let (from, to) = (from.next_multiple_of(PAGE), to / PAGE * PAGE);
        // With no part left the whole file goes when the mapping does.
        if from < to && to - from < mapping.len {
            // SAFETY: a plain call on our open file; no live part lies in the
            // range, so no slice handed out reads it again.
            let punched = unsafe {
                libc::fallocate(
                    mapping.file.as_raw_fd(),
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    from as libc::off_t,
                    (to - from) as libc::off_t,
                )
            };
            if punched != 0 {
                tracing::debug!(error = %io::Error::last_os_error(), "memory file part not freed");
            }
        }
    }
}

/// The system's page: a memory file's pages are freed whole, and `sendfile`
/// moves them (`serve::zero_copy`).
pub const PAGE: usize = 4096;

/// Where `bytes` lie in a memory file: its descriptor and their offset in it.
/// The descriptor stays open for as long as the [`Bytes`] the slice was borrowed
/// from lives.
pub fn locate(bytes: &[u8]) -> Option<(RawFd, u64)> {
    let at = bytes.as_ptr() as usize;
    let mapped = MAPPED.read().unwrap_or_else(|e| e.into_inner());
    let (&start, &(len, fd)) = mapped.range(..=at).next_back()?;
    (at + bytes.len() <= start + len).then(|| (fd, (at - start) as u64))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn written_bytes_read_back_and_are_located() {
        let mut writer = Writer::new().expect("memory files on Linux");
        writer.append(b"[{\"id\":1},").unwrap();
        writer.append(b"{\"id\":2}]").unwrap();
        assert_eq!(writer.len(), 19);
        let bytes = writer.finish().unwrap().part(0..19);
        assert_eq!(&bytes[..], b"[{\"id\":1},{\"id\":2}]");
        let item = bytes.slice(10..18);
        let (fd, offset) = locate(&item).expect("a slice of a memory file");
        assert_eq!(offset, 10);
        let mut read = vec![0u8; 8];
        // SAFETY: reads 8 bytes into a buffer of 8 from the file's offset 10.
        let n = unsafe { libc::pread(fd, read.as_mut_ptr().cast(), 8, 10) };
        assert_eq!(n, 8);
        assert_eq!(read, b"{\"id\":2}");
        assert!(locate(b"elsewhere").is_none());
        let heap = vec![1u8; 4];
        assert!(locate(&heap).is_none());
        drop(bytes);
        // The slice keeps the mapping (and the file) alive.
        assert_eq!(&item[..], b"{\"id\":2}");
        assert!(locate(&item).is_some());
        drop(item);
    }

    /// The pages a memory file holds (what the system counts, not its size).
    fn held_pages(mapped: &Mapped) -> u64 {
        let fd = mapped.0.as_ref().expect("a written file").file.as_raw_fd();
        // SAFETY: fstat of our open descriptor into a zeroed struct.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::fstat(fd, &mut stat) }, 0);
        stat.st_blocks as u64 * 512 / PAGE as u64
    }

    #[test]
    fn a_dropped_part_frees_the_pages_no_live_part_touches() {
        let mut writer = Writer::new().expect("memory files on Linux");
        let bytes: Vec<u8> = (0..10 * PAGE).map(|i| (i % 251) as u8).collect();
        writer.append(&bytes).unwrap();
        let mapped = writer.finish().unwrap();
        assert_eq!(held_pages(&mapped), 10);
        // Three parts: pages 0-2 and half of 3, the rest of 3 to 6 and half of
        // 7, the rest.
        let (a, b, c) = (
            0..3 * PAGE + 100,
            3 * PAGE + 100..7 * PAGE + 5,
            7 * PAGE + 5..10 * PAGE,
        );
        let (first, middle, last) = (
            mapped.part(a.clone()),
            mapped.part(b.clone()),
            mapped.part(c.clone()),
        );
        let kept = middle.slice(10..20);
        drop(middle);
        // A slice keeps its part.
        assert_eq!(held_pages(&mapped), 10);
        drop(kept);
        // Pages 4, 5 and 6 held only the middle part; 3 and 7 are shared.
        assert_eq!(held_pages(&mapped), 7);
        assert_eq!(&first[..], &bytes[a]);
        assert_eq!(&last[..], &bytes[c.clone()]);
        drop(first);
        assert_eq!(
            held_pages(&mapped),
            3,
            "pages 7, 8 and 9 are the last part's"
        );
        assert_eq!(&last[..], &bytes[c]);
        assert!(locate(&last).is_some());
    }
}
