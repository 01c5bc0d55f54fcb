//! What the server asks of its process: enough file descriptors for its connections, and
//! memory handed back after large requests.

/// File descriptors kept out of the connection cap, for the certificate files, the operator's
/// own client connections and the listener.
const RESERVED_FILES: u64 = 64;

/// Raises the soft limit on open files to the hard one, as Go's runtime does at start (the
/// soft limit is often 1,024 in containers, the hard one far higher), once per process;
/// returns the soft limit then in force, `None` where it cannot be read.
pub(crate) fn raise_open_file_limit() -> Option<u64> {
    static LIMIT: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(raise)
}

#[cfg(unix)]
#[allow(clippy::useless_conversion)] // rlim_t is not u64 on every Unix
fn raise() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return None;
    }
    if limit.rlim_cur < limit.rlim_max {
        let raised = libc::rlimit {
            rlim_cur: limit.rlim_max,
            rlim_max: limit.rlim_max,
        };
        // SAFETY: setrlimit reads the struct it is given. It fails on systems that cap the
        // soft limit lower (macOS's OPEN_MAX); the soft limit then stays as it was.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            tracing::debug!(
                from = u64::from(limit.rlim_cur),
                to = u64::from(limit.rlim_max),
                "raised the soft limit on open files"
            );
            limit.rlim_cur = limit.rlim_max;
        }
    }
    Some(u64::from(limit.rlim_cur))
}

#[cfg(not(unix))]
fn raise() -> Option<u64> {
    None
}

/// The connection cap that fits the open-file limit: `wanted`, or fewer (logged) when the
/// process may not open that many files.
pub(crate) fn connection_cap(wanted: usize) -> usize {
    let Some(files) = raise_open_file_limit() else {
        return wanted;
    };
    let fits = files.saturating_sub(RESERVED_FILES).max(1);
    if (wanted as u64) <= fits {
        return wanted;
    }
    tracing::warn!(
        open_file_limit = files,
        "the open-file limit allows {fits} webhook connections, not {wanted}: serving at most {fits}"
    );
    fits as usize
}

/// A request body at least this large hands memory back when it is freed.
pub(crate) const LARGE_BODY: usize = 1 << 20;

/// Held while a large request is served; when the last one ends, the allocator is asked to
/// return its free memory to the system.
///
/// glibc keeps freed memory in its arenas (and raises its mmap threshold after a large free,
/// so that the next large buffers come from the heap too): after 64 concurrent 8 MiB reviews
/// hundreds of MB stayed resident, which a Pod's memory limit counts. `malloc_trim` gives
/// back every free page; it costs about a millisecond per GB of heap, once per burst of large
/// requests, on a blocking thread. Other allocators (musl's, or a global allocator the binary
/// picks) return memory themselves.
pub(crate) struct LargeRequest(());

#[cfg(all(target_os = "linux", target_env = "gnu"))]
static LARGE_IN_FLIGHT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl LargeRequest {
    pub(crate) fn begin() -> LargeRequest {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        LARGE_IN_FLIGHT.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        LargeRequest(())
    }
}

impl Drop for LargeRequest {
    fn drop(&mut self) {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        if LARGE_IN_FLIGHT.fetch_sub(1, std::sync::atomic::Ordering::AcqRel) == 1 {
            let trim = || {
                // SAFETY: malloc_trim only walks glibc's arenas; 0 keeps no padding.
                unsafe { libc::malloc_trim(0) };
            };
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => drop(runtime.spawn_blocking(trim)),
                Err(_) => trim(),
            }
        }
    }
}
