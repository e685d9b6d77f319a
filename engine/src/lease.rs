//! Leases on the mapped files of the served generation, so that a process that opens one of
//! them for writing (a careless `cp`, `truncate`, an editor) waits until the engine has stopped
//! reading it, instead of the engine dying of `SIGBUS` or reading bytes that change under it.
//!
//! On Linux a read lease (`fcntl(F_SETLEASE, F_RDLCK)`) makes the kernel hold back any open for
//! writing and any truncation of the file and signal the holder (`SIGIO`); the holder releases
//! the lease by closing the file, and the writer proceeds. Here the signal handler only writes a
//! byte to a pipe; a watcher thread wakes on it and asks every registered listener (the store) to
//! let go of the generation whose lease is breaking. The store drops it, requests in flight
//! finish on their snapshot, the last one unmaps it, and the writer goes on (SPEC.md section 1.7).
//!
//! Where leases cannot be taken (another owner, a file system without them, other systems),
//! [`take`] says so and the store falls back to noticing the change on the next request.

use std::fs::File;
use std::sync::{Arc, Mutex, Weak};

/// Something to tell when a lease breaks; dropped listeners are forgotten.
pub type Listener = Weak<dyn Fn() + Send + Sync>;

static LISTENERS: Mutex<Vec<Listener>> = Mutex::new(Vec::new());

/// Registers `f` to be called (on the watcher thread) whenever a lease of this process breaks.
/// The caller keeps the `Arc`; when it is dropped, `f` is no longer called.
pub fn listen(f: &Arc<dyn Fn() + Send + Sync>) {
    let mut all = LISTENERS.lock().unwrap_or_else(|e| e.into_inner());
    all.retain(|l| l.strong_count() > 0);
    all.push(Arc::downgrade(f));
}

fn notify_all() {
    let live: Vec<_> = {
        let mut all = LISTENERS.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|l| l.strong_count() > 0);
        all.iter().filter_map(Weak::upgrade).collect()
    };
    for f in live {
        f();
    }
}

/// The outcome of asking for a lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lease {
    /// Held: a writer will wait for us.
    Held,
    /// Someone has the file open for writing right now: its content may be changing.
    Writing,
    /// Not available here (another owner, a file system or system without leases).
    Unsupported,
}

#[cfg(target_os = "linux")]
mod imp {
    use std::os::fd::AsRawFd;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicI32, Ordering};

    use super::{File, Lease};

    static PIPE_WRITE: AtomicI32 = AtomicI32::new(-1);
    static INSTALLED: OnceLock<bool> = OnceLock::new();

    extern "C" fn on_signal(_: libc::c_int) {
        let fd = PIPE_WRITE.load(Ordering::Relaxed);
        if fd >= 0 {
            let byte = 1u8;
            // SAFETY: write(2) is async-signal-safe; the pipe is non-blocking, so a full pipe
            // (a wake-up already pending) drops the byte instead of blocking the handler.
            unsafe { libc::write(fd, (&raw const byte).cast(), 1) };
        }
    }

    /// Installs the `SIGIO` handler and the watcher thread once; false when either failed (then
    /// no lease is ever taken, since an unhandled `SIGIO` would end the process).
    fn install() -> bool {
        *INSTALLED.get_or_init(|| {
            let mut fds = [0; 2];
            // SAFETY: `fds` has room for the two descriptors pipe2 writes.
            if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
                return false;
            }
            let (read_fd, write_fd) = (fds[0], fds[1]);
            // The reading end blocks: the watcher sleeps until a signal arrives.
            // SAFETY: read_fd is the descriptor pipe2 just returned.
            unsafe { libc::fcntl(read_fd, libc::F_SETFL, 0) };
            PIPE_WRITE.store(write_fd, Ordering::Relaxed);
            let spawned = std::thread::Builder::new()
                .name("kivgraph-lease".into())
                .spawn(move || {
                    let mut buf = [0u8; 64];
                    loop {
                        // SAFETY: reads into a buffer of the given length.
                        let n = unsafe { libc::read(read_fd, buf.as_mut_ptr().cast(), buf.len()) };
                        if n > 0 {
                            super::notify_all();
                        } else if n == 0
                            || std::io::Error::last_os_error().kind()
                                != std::io::ErrorKind::Interrupted
                        {
                            return;
                        }
                    }
                });
            if spawned.is_err() {
                return false;
            }
            // SAFETY: a zeroed sigaction is a valid starting point; the handler only calls
            // async-signal-safe functions.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(libc::SIGIO, &action, std::ptr::null_mut()) == 0
            }
        })
    }

    pub fn take(file: &File) -> Lease {
        if !install() {
            return Lease::Unsupported;
        }
        // SAFETY: F_SETLEASE on a descriptor this process owns.
        let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLEASE, libc::F_RDLCK) };
        if r == 0 {
            return Lease::Held;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EAGAIN) => Lease::Writing,
            _ => Lease::Unsupported,
        }
    }

    pub fn breaking(file: &File) -> bool {
        // SAFETY: F_GETLEASE on a descriptor this process owns. While a break is pending the
        // kernel reports the type the lease must be reduced to, F_UNLCK for a read lease.
        let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLEASE) };
        r == libc::F_UNLCK as libc::c_int
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{File, Lease};

    pub fn take(_: &File) -> Lease {
        Lease::Unsupported
    }

    pub fn breaking(_: &File) -> bool {
        false
    }
}

/// Asks for a read lease on `file`. `KIVGRAPH_LEASES=off` in the environment turns leases off
/// (the store then relies on noticing changes between requests alone).
pub fn take(file: &File) -> Lease {
    if std::env::var_os("KIVGRAPH_LEASES").is_some_and(|v| v == "off") {
        return Lease::Unsupported;
    }
    imp::take(file)
}

/// Whether the lease [`take`] got on `file` is being broken by a writer. Only meaningful for a
/// file whose lease is [`Lease::Held`].
pub fn breaking(file: &File) -> bool {
    imp::breaking(file)
}
