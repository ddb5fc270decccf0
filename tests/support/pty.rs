//! The binary on a real (pseudo-)terminal: the child gets a pty of its own
//! as its controlling terminal; what it writes is fed to a terminal
//! emulator (vt100), and a test reads the emulator's screen as a user
//! would see it, and types keys. One copy for `tests/terminal.rs` and
//! `tests/play_terminal.rs`, each including it with `#[path]`.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a test waits for the screen to show something. Not a limit
/// on speed: a wait that runs out means the screen never showed it.
const PATIENCE: Duration = Duration::from_secs(30);

/// A pseudo-terminal of `cols` x `rows`: (master, slave).
pub fn pty(cols: u16, rows: u16) -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize { ws_row: rows, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: openpty writes two fds it opened; the name and termios are not asked for.
    let rc = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size) };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both fds were just opened for us and are owned by nobody else.
    unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

/// A child on a terminal, and its screen as a terminal emulator draws
/// what it wrote.
pub struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
    master: std::fs::File,
    pub child: Child,
}

impl Screen {
    /// Starts `command` with a terminal of `cols` x `rows` as its
    /// standard input, output and error, and its controlling terminal.
    pub fn spawn(mut command: Command, cols: u16, rows: u16) -> Screen {
        let (master, slave) = pty(cols, rows);
        command
            .env("TERM", "xterm-256color")
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave.try_clone().unwrap()));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            command.pre_exec(|| {
                // A session of its own, with the pty as its controlling terminal.
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().unwrap();
        // The command holds the slave's copies until it goes: then the reader sees the child's end.
        drop(command);
        drop(slave);
        let parser = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
        let mut reader = std::fs::File::from(master.try_clone().unwrap());
        let feed = Arc::clone(&parser);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // Ends when the child's side closes (EIO on Linux).
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                feed.lock().unwrap().process(&buf[..n]);
            }
        });
        Screen { parser, master: std::fs::File::from(master), child }
    }

    pub fn text(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// Waits until the screen shows `want`; returns what it shows.
    #[track_caller]
    pub fn wait_for(&self, want: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let text = self.text();
            if text.contains(want) {
                return text;
            }
            assert!(Instant::now() < deadline, "the screen never showed {want:?}; it shows:\n{text}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn keys(&mut self, keys: &str) {
        self.master.write_all(keys.as_bytes()).unwrap();
        self.master.flush().unwrap();
    }

    /// Waits until the child exits.
    #[track_caller]
    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the child did not exit; the screen shows:\n{}", self.text());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
