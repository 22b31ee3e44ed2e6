//! Passwords: the rules a new one must meet, and Argon2id hashes (PHC strings, the `argon2`
//! crate's default parameters: 19 MiB, 2 passes). Hashing takes tens of milliseconds of CPU:
//! callers run it on the blocking pool.

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};

/// Shortest password accepted, in characters.
pub const MIN_CHARS: usize = 10;
/// Longest password accepted, in characters.
pub const MAX_CHARS: usize = 1024;

/// Why a new password is refused.
pub fn check_new(password: &str) -> Result<(), String> {
    let chars = password.chars().count();
    if chars < MIN_CHARS {
        return Err(format!(
            "choose a password of at least {MIN_CHARS} characters"
        ));
    }
    if chars > MAX_CHARS {
        return Err(format!("a password may be at most {MAX_CHARS} characters"));
    }
    Ok(())
}

/// The Argon2id PHC string of `password` with a fresh random salt.
pub fn hash(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|err| anyhow::anyhow!("hashing a password failed: {err}"))
}

/// Whether `password` matches the PHC string `stored` (false for an unreadable hash).
pub fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A hash of nothing anyone knows, checked when an address has no login so that a refusal
/// takes as long for an unknown address as for a wrong password.
pub fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| {
        hash(&uuid::Uuid::new_v4().to_string()).unwrap_or_else(|_| String::from("$argon2id$"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_and_are_salted() {
        let one = hash("correct horse battery").unwrap();
        let two = hash("correct horse battery").unwrap();
        assert!(one.starts_with("$argon2id$"));
        assert_ne!(one, two);
        assert!(verify("correct horse battery", &one));
        assert!(!verify("correct horse batterY", &one));
        assert!(!verify("anything", "not a hash"));
    }

    #[test]
    fn new_passwords_have_a_length() {
        assert!(check_new("short").is_err());
        assert!(check_new("long enough!").is_ok());
        assert!(check_new(&"x".repeat(MAX_CHARS + 1)).is_err());
    }
}
