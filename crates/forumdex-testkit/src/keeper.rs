//! The keeper of a private server: whatever way the test process ends (a panic, an abort,
//! `std::process::exit`), the server it started must stop and its folder must go.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;

/// What every test of a test binary shares, kept in `cell`: the server environment
/// variable `variable` names when it is set (`from_variable` reads its value), else what
/// `value_of` takes from a private server `start` starts. That server is never dropped: it
/// lives until the process exits, which closes the pipe its keeper waits on. With neither it
/// panics with `remedy` (which names both ways out) and the reason: a test that needs the
/// server never passes by skipping.
#[track_caller]
pub(crate) fn shared<T: Clone, S>(
    cell: &OnceLock<Result<T, String>>,
    variable: &str,
    from_variable: impl FnOnce(String) -> Result<T, String>,
    start: impl FnOnce() -> Result<S, String>,
    value_of: impl FnOnce(&S) -> T,
    remedy: &str,
) -> T {
    let shared = cell.get_or_init(|| match std::env::var(variable) {
        Ok(value) => from_variable(value),
        Err(_) => start().map(|server| {
            let value = value_of(&server);
            std::mem::forget(server);
            value
        }),
    });
    match shared {
        Ok(value) => value.clone(),
        Err(why) => panic!("{remedy} ({why})"),
    }
}

/// A shell waiting on a pipe from this process. When the pipe closes (this value dropped,
/// or the process gone), it kills the process whose pid is in `<root>/pid` (when a server
/// is [`watch`](Keeper::watch)ed), runs the cleanup command it was given, and removes
/// `root`.
pub(crate) struct Keeper {
    root: PathBuf,
    shell: Child,
    input: Option<ChildStdin>,
}

impl Keeper {
    /// A keeper of `root` (a temporary folder), running `cleanup` (shell, which sees `$ROOT`
    /// and the variables of `env`) after the kill.
    pub(crate) fn start(root: &Path, cleanup: &str, env: &[(&str, &Path)]) -> Result<Self, String> {
        let script = format!(
            r#"read _ignored; kill -9 "$(cat "$ROOT/pid" 2>/dev/null)" 2>/dev/null; sleep 0.2; {cleanup}; rm -rf "$ROOT""#
        );
        let mut shell = Command::new("sh")
            .arg("-c")
            .arg(script)
            .env("ROOT", root)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| format!("starting the keeper shell: {err}"))?;
        let input = shell.stdin.take();
        Ok(Self {
            root: root.to_owned(),
            shell,
            input,
        })
    }

    /// The server the keeper is to kill is now `child`.
    pub(crate) fn watch(&self, child: &Child) -> Result<(), String> {
        std::fs::write(self.root.join("pid"), child.id().to_string())
            .map_err(|err| format!("pid file: {err}"))
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        if let Some(mut input) = self.input.take() {
            let _ = input.write_all(b"\n");
        }
        let _ = self.shell.wait();
    }
}
