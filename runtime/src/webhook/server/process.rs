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

/// glibc's own defaults for its mmap and trim thresholds, kept from rising.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const GLIBC_THRESHOLD: libc::c_int = 128 << 10;

/// Keeps glibc's mmap and trim thresholds at their defaults (128 KiB) instead of letting them
/// rise, once per process, unless the user chose them (`MALLOC_MMAP_THRESHOLD_`,
/// `MALLOC_TRIM_THRESHOLD_`, or `glibc.malloc` tunables in `GLIBC_TUNABLES`).
///
/// After a large block allocated by mmap is freed, glibc raises its mmap threshold to that
/// block's size (up to 32 MiB) and its trim threshold to twice that, so that the next large
/// buffers come from an arena's heap and up to twice their size stays at the top of each
/// heap. `malloc_trim` returns free pages in the middle of every arena, but the top of a
/// thread's arena (tokio's workers allocate from theirs) only shrinks on a free, below the trim
/// threshold: after a few 8 MiB reviews 41.5 MiB stayed resident, 8 before. With the
/// thresholds fixed, large buffers are mapped and unmapped, and each arena's top is trimmed
/// to 128 KiB when a large block is freed into it.
pub(crate) fn keep_allocator_thresholds() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let chosen = ["MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"]
                .iter()
                .any(|v| std::env::var_os(v).is_some())
                || std::env::var("GLIBC_TUNABLES").is_ok_and(|t| t.contains("glibc.malloc."));
            if chosen {
                return;
            }
            // SAFETY: mallopt only sets glibc's parameters, under its own lock.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, GLIBC_THRESHOLD);
                libc::mallopt(libc::M_TRIM_THRESHOLD, GLIBC_THRESHOLD);
            }
        });
    }
}

/// Held while a large request is served; when the last one ends, the allocator is asked to
/// return its free memory to the system.
///
/// glibc keeps freed memory in its arenas: after 64 concurrent 8 MiB reviews hundreds of MB
/// stayed resident, which a Pod's memory limit counts. `malloc_trim` gives back the free
/// pages inside every arena (the tops of thread arenas excepted: see
/// [`keep_allocator_thresholds`]); it costs about a millisecond per GB of heap, once per
/// burst of large requests, on a blocking thread. Other allocators (musl's, or a global
/// allocator the binary picks) return memory themselves.
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
