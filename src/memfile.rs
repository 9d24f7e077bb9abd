//! Memory files: rendered bytes kept in an anonymous file (`memfd`) rather than on
//! the heap, so the kernel can send them to a socket straight from its pages
//! (`sendfile`) instead of copying them into the socket first.
//!
//! A page of a long list is tens of kilobytes. Sent from the heap, the kernel's
//! copy into the socket was a fifth of the server's time under load, while a
//! static file server sends the same bytes from its page cache without a copy.
//! A [`Writer`] appends bytes to a memory file and ends as shared [`Bytes`] over
//! a read-only mapping of it; [`locate`] tells whether a slice about to be
//! written lies in such a mapping, and where in its file, so the connection can
//! send it with `sendfile` (`serve::zero_copy`). The file is never written again
//! once mapped, so bytes the kernel still holds for a slow client cannot change
//! under it, and its pages are freed when the last slice and the last socket
//! buffer referring to them are gone.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::sync::RwLock;

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

    /// The file's bytes, mapped read-only and shared: no further write is possible.
    pub fn finish(self) -> io::Result<Bytes> {
        if self.len == 0 {
            return Ok(Bytes::new());
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
        };
        MAPPED
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(ptr as usize, (mapping.len, mapping.file.as_raw_fd()));
        Ok(Bytes::from_owner(mapping))
    }
}

/// A read-only mapping of a whole memory file, owned by the [`Bytes`] made of it.
struct Mapping {
    ptr: *const u8,
    len: usize,
    /// Kept open while mapped: [`locate`] hands out its descriptor.
    file: File,
}

// SAFETY: the mapping is read-only and never changes; it is unmapped only on drop.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl AsRef<[u8]> for Mapping {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `len` readable bytes at `ptr` for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        MAPPED
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&(self.ptr as usize));
        // SAFETY: the mapping made in `finish`; no slice of it outlives `self`.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}

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
        let bytes = writer.finish().unwrap();
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
}
