//! What `webhook_traffic.rs` needs beside its client: the server in a process of its own
//! (whose memory is read from /proc), and a recorder of the server's log lines.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

/// Where the `server_process` test finds its certificate; set only in the server's process.
pub const SERVER_CERTS: &str = "WEBHOOK_TRAFFIC_SERVER_CERTS";

/// The messages of the events logged on this thread while it is the default subscriber.
#[derive(Clone, Default)]
pub struct LogLines(pub Arc<std::sync::Mutex<Vec<String>>>);

impl tracing::Subscriber for LogLines {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Message<'a>(&'a mut String);
        impl tracing::field::Visit for Message<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                use std::fmt::Write;
                let _ = write!(self.0, " {}={value:?}", field.name());
            }
        }
        let mut line = event.metadata().level().to_string();
        event.record(&mut Message(&mut line));
        self.0.lock().unwrap().push(line);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// The webhook server in a child process, whose memory the tests read from /proc.
pub struct ServerProcess {
    child: std::process::Child,
    pub addr: SocketAddr,
}

impl ServerProcess {
    /// Starts it, with the soft open-file limit set to `soft_file_limit` first if given.
    pub fn start(certs: &Path, soft_file_limit: Option<u64>) -> ServerProcess {
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        let mut command = std::process::Command::new(std::env::current_exe().unwrap());
        command
            .args(["server_process", "--exact", "--ignored", "--nocapture"])
            .env(SERVER_CERTS, certs)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        if let Some(soft) = soft_file_limit {
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                command.pre_exec(move || {
                    let mut limit = libc::rlimit {
                        rlim_cur: 0,
                        rlim_max: 0,
                    };
                    if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    limit.rlim_cur = soft.min(limit.rlim_max);
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = command.spawn().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut addr = None;
        for line in stdout.lines() {
            if let Some(a) = line.unwrap().strip_prefix("listening on ") {
                addr = Some(a.parse().unwrap());
                break;
            }
        }
        ServerProcess {
            addr: addr.expect("the server process prints its address"),
            child,
        }
    }

    /// A field of /proc/<pid>/status, in bytes (VmRSS: resident now; VmHWM: the peak).
    pub fn memory(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .unwrap_or_else(|| panic!("no {field} in {status}"));
        line.trim().trim_end_matches(" kB").parse::<u64>().unwrap() << 10
    }

    /// The soft and hard limits on open files, from /proc/<pid>/limits.
    pub fn open_file_limits(&self) -> (String, String) {
        let limits = std::fs::read_to_string(format!("/proc/{}/limits", self.child.id())).unwrap();
        let line = limits
            .lines()
            .find(|l| l.starts_with("Max open files"))
            .unwrap();
        let mut fields = line["Max open files".len()..].split_whitespace();
        (
            fields.next().unwrap().to_string(),
            fields.next().unwrap().to_string(),
        )
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
