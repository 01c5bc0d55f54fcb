//! Threads with a stack deep enough for what the parser's limits let through.

/// The stack [`on_large_stack`] gives. The parser, checker and cost estimator descend the
/// expression recursively; the parser's limits (250 nested rules, 250 nested operators, as
/// cel-go's) bound the depth, and unoptimized, the deepest expression they let through takes
/// about 4 MiB to parse (16 KiB per nesting) and more to check. Reserved, not committed: the
/// pages are touched only as deep as an expression goes.
pub const LARGE_STACK: usize = 256 << 20;

thread_local! {
    /// Whether this thread is one [`on_large_stack`] started.
    static ON_LARGE_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` on a thread with a [`LARGE_STACK`], so that no expression the limits let through
/// overflows the caller's stack (a proc macro's, a test thread's 2 MiB). A panic in `f`
/// propagates. Called on such a thread already (a file's check, then each of its schemas'
/// CEL checks), `f` runs there: the deep descents (reading a document, checking a schema,
/// compiling an expression) follow one another rather than nest, and a thread per call cost
/// `check-crds` a sixth of its time in thread starts and stack unmapping.
pub fn on_large_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if ON_LARGE_STACK.with(std::cell::Cell::get) {
        return f();
    }
    let slot = std::sync::Mutex::new(Some(f));
    let take = || slot.lock().ok().and_then(|mut f| f.take());
    let spawned = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("kube-markers-cel".into())
            .stack_size(LARGE_STACK)
            .spawn_scoped(scope, || {
                ON_LARGE_STACK.with(|on| on.set(true));
                take().map(|f| f())
            });
        worker.ok().map(|handle| {
            handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    });
    match spawned.flatten() {
        Some(out) => out,
        // No thread to be had (the OS refused one): run here, on the caller's stack.
        None => match take() {
            Some(f) => f(),
            None => unreachable!("the worker ran `f` or never started"),
        },
    }
}

/// `f` of each item, in the items' order, on as many [`LARGE_STACK`] threads as the machine
/// runs at once (at most one per item): `check-crds` checks its files side by side. A panic in
/// `f` propagates; without threads to be had, the items are mapped on one.
pub fn map_on_large_stacks<I: Sync, T: Send>(items: &[I], f: impl Fn(&I) -> T + Sync) -> Vec<T> {
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len());
    if workers <= 1 {
        return on_large_stack(|| items.iter().map(&f).collect());
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        ON_LARGE_STACK.with(|on| on.set(true));
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let mut results: Vec<Option<T>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("kube-markers-cel".into())
                    .stack_size(LARGE_STACK)
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        for handle in handles {
            let done = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (i, out) in done {
                results[i] = Some(out);
            }
        }
    });
    // Items no thread took (none could be started) are mapped here.
    let missing: Vec<usize> = (0..items.len()).filter(|&i| results[i].is_none()).collect();
    if !missing.is_empty() {
        let outs = on_large_stack(|| missing.iter().map(|&i| f(&items[i])).collect::<Vec<_>>());
        for (i, out) in missing.into_iter().zip(outs) {
            results[i] = Some(out);
        }
    }
    results.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recursion 16 MiB deep: a 2 MiB test thread would overflow.
    fn deep(n: usize) -> usize {
        let frame = std::hint::black_box([0u8; 4096]);
        if n == 0 {
            usize::from(frame[0])
        } else {
            1 + deep(n - 1) + usize::from(frame[1])
        }
    }

    #[test]
    fn results_keep_the_items_order_and_each_runs_on_a_large_stack() {
        let items: Vec<usize> = (0..200).collect();
        let out = map_on_large_stacks(&items, |&i| {
            assert!(ON_LARGE_STACK.with(std::cell::Cell::get));
            // Uneven work, so that the threads finish out of order.
            std::thread::sleep(std::time::Duration::from_micros((i % 7) as u64 * 100));
            (i, deep(4096))
        });
        assert_eq!(out, items.iter().map(|&i| (i, 4096)).collect::<Vec<_>>());
        assert!(map_on_large_stacks(&[] as &[u8], |_| 1).is_empty());
    }

    #[test]
    fn a_nested_call_runs_on_the_thread_it_is_made_on() {
        let (outer, inner) = on_large_stack(|| {
            let outer = std::thread::current().id();
            (outer, on_large_stack(|| std::thread::current().id()))
        });
        assert_eq!(outer, inner);
        assert_ne!(outer, std::thread::current().id());
        let threads = map_on_large_stacks(&[1, 2, 3], |_| {
            let here = std::thread::current().id();
            (here, on_large_stack(|| std::thread::current().id()))
        });
        assert!(threads.iter().all(|(a, b)| a == b));
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            map_on_large_stacks(&[1, 2, 3, 4], |&i| assert_ne!(i, 3, "item three"))
        });
        let message = caught.expect_err("the panic propagates");
        let text = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(text.contains("item three"), "{text}");
    }
}
