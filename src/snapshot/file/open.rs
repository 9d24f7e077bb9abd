//! A snapshot file opened: a regular file only, never waited on, its header
//! checked against its size before anything more is read.

use std::path::Path;

use super::header::{check_header, Header, SnapshotError, HEADER_LEN};

/// Reads the snapshot at `path` whole, its header checked (not yet its
/// checksum: a loader may check it while it decodes), as [`read`] does.
pub fn read_bytes(path: &Path) -> Result<(Header, Vec<u8>), SnapshotError> {
    use std::io::Read as _;
    let (mut file, head, len) = open(path)?;
    let header = check_header(path, &head, len)?;
    let mut bytes = head;
    bytes.reserve_exact(len as usize - HEADER_LEN);
    file.read_to_end(&mut bytes)
        .map_err(|cause| SnapshotError::Read {
            path: path.to_path_buf(),
            cause,
        })?;
    Ok((header, bytes))
}

/// The header of the snapshot at `path`, checked against the file's size, read
/// without the payload: what a reload compares before building anything.
pub fn peek(path: &Path) -> Result<Header, SnapshotError> {
    let (_, head, len) = open(path)?;
    check_header(path, &head, len)
}

/// Opens the snapshot at `path`: the open file past its header, the header's
/// bytes (checked against the file's size) and the file's size.
pub(super) fn open(path: &Path) -> Result<(std::fs::File, Vec<u8>, u64), SnapshotError> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let failed = |cause| SnapshotError::Read {
        path: path.to_path_buf(),
        cause,
    };
    // Non-blocking, so that opening a FIFO does not wait for a writer.
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(failed)?;
    let metadata = file.metadata().map_err(failed)?;
    if !metadata.is_file() {
        return Err(SnapshotError::NotAFile {
            path: path.to_path_buf(),
            kind: file_kind(&metadata.file_type()),
        });
    }
    let mut head = Vec::with_capacity(HEADER_LEN);
    (&mut file)
        .take(HEADER_LEN as u64)
        .read_to_end(&mut head)
        .map_err(failed)?;
    check_header(path, &head, metadata.len())?;
    Ok((file, head, metadata.len()))
}

/// What a file that is not a regular file is, for the message.
fn file_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    match kind {
        k if k.is_dir() => "a directory",
        k if k.is_fifo() => "a FIFO",
        k if k.is_socket() => "a socket",
        k if k.is_char_device() || k.is_block_device() => "a device",
        _ => "not a regular file",
    }
}
