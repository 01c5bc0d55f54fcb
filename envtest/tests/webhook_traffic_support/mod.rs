//! What `webhook_traffic.rs` needs beside its client: the server in a process of its own
//! (whose memory is read from /proc).

use std::net::SocketAddr;
use std::path::Path;

/// Where the `server_process` test finds its certificate; set only in the server's process.
pub const SERVER_CERTS: &str = "WEBHOOK_TRAFFIC_SERVER_CERTS";

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
