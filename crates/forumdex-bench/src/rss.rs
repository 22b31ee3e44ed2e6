//! Resident memory and CPU time of a process, from `/proc` (Linux).

/// `VmRSS` (current) and `VmHWM` (peak) of `pid` in bytes; `None` when unreadable.
pub fn of(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// CPU time (user + system) `pid` has used so far, in seconds, from `/proc/<pid>/stat`
/// (`None` when unreadable). `pid` 0 means this process.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let path = if pid == 0 {
        "/proc/self/stat".to_owned()
    } else {
        format!("/proc/{pid}/stat")
    };
    let stat = std::fs::read_to_string(path).ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces):
    // state is field 3, utime field 14, stime field 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // The kernel's USER_HZ is 100 on every Linux architecture Rust targets.
    Some(ticks as f64 / 100.0)
}
