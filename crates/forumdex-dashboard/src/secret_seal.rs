//! Two-factor secrets at rest. Unlike passwords and keys, an authenticator's secret cannot
//! be kept as a hash: checking a code needs the secret itself. So the store keeps it sealed
//! (ChaCha20-Poly1305, a random nonce per seal, the account's ID as associated data, so a
//! sealed secret copied to another account does not open) under a key the server derives
//! from its cursor secret ([`SecretSeal::from_server_secret`]): the accounts database alone
//! (a dump, a backup without the secret file, a leaked replica) does not give the codes
//! away. Every node of a deployment shares the cursor secret, so each opens what another
//! sealed.
//!
//! Stored form: [`MAGIC`], the 12-byte nonce, then the ciphertext and its 16-byte tag. A
//! secret stored before sealing existed (20 bytes, no [`MAGIC`]) is read as it is and sealed
//! at its owner's next sign-in that proves it (`second_factor::passes`).

use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, KeyInit, Nonce};
use forumdex_accounts::AccountId;
use hmac::{Hmac, Mac};
use rand::Rng;
use sha2::Sha256;

/// What a sealed secret starts with (version 1 of the stored form).
const MAGIC: &[u8; 6] = b"fdxtf1";
/// Bytes of a nonce.
const NONCE_BYTES: usize = 12;
/// What the key derivation mixes into the server secret, so the key is this use's own.
const KEY_LABEL: &[u8] = b"forumdex two-factor secrets at rest v1";

/// The key that seals and opens two-factor secrets.
#[derive(Clone)]
pub struct SecretSeal {
    cipher: ChaCha20Poly1305,
}

impl std::fmt::Debug for SecretSeal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretSeal(..)")
    }
}

/// A stored secret, opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// It was sealed: the secret.
    Sealed(Vec<u8>),
    /// It was stored before sealing existed: the secret, to be sealed.
    Plain(Vec<u8>),
}

impl Opened {
    /// The secret, whatever form it was stored in.
    pub fn secret(&self) -> &[u8] {
        match self {
            Self::Sealed(secret) | Self::Plain(secret) => secret,
        }
    }
}

/// A sealed secret that this key does not open: another deployment's cursor secret, or a
/// damaged row.
#[derive(Debug, thiserror::Error)]
#[error(
    "the two-factor secret of account {0} does not open with this server's key: was \
     cursor_secret_file replaced since it was stored, or does this node read another one \
     than the rest of the deployment? (`forumdex accounts two-factor-off {0}` lets its owner \
     sign in with the password alone)"
)]
pub struct SealBroken(pub i64);

impl SecretSeal {
    /// The seal whose key is derived (HMAC-SHA256 under a label of its own) from the
    /// server's secret: the cursor secret, which every node of a deployment shares.
    pub fn from_server_secret(server_secret: &[u8]) -> Self {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(server_secret)
            .expect("HMAC takes keys of any length");
        mac.update(KEY_LABEL);
        let key = mac.finalize().into_bytes();
        Self {
            cipher: ChaCha20Poly1305::new(Key::from_slice(&key)),
        }
    }

    /// `secret`, sealed for `account`'s row.
    pub fn seal(&self, account: AccountId, secret: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_BYTES];
        rand::thread_rng().fill(&mut nonce);
        let aad = account.get().to_le_bytes();
        let sealed = self
            .cipher
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: secret,
                    aad: &aad,
                },
            )
            .expect("a secret of a few bytes is far within the cipher's limit");
        [MAGIC.as_slice(), &nonce, &sealed].concat()
    }

    /// The secret `stored` in `account`'s row holds.
    pub fn open(&self, account: AccountId, stored: &[u8]) -> Result<Opened, SealBroken> {
        let Some(rest) = stored.strip_prefix(MAGIC.as_slice()) else {
            return Ok(Opened::Plain(stored.to_vec()));
        };
        let broken = || SealBroken(account.get());
        if rest.len() < NONCE_BYTES {
            return Err(broken());
        }
        let (nonce, sealed) = rest.split_at(NONCE_BYTES);
        let aad = account.get().to_le_bytes();
        self.cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: &aad,
                },
            )
            .map(Opened::Sealed)
            .map_err(|_| broken())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(id: i64) -> AccountId {
        AccountId::new(id).expect("valid")
    }

    #[test]
    fn a_sealed_secret_opens_for_its_account_only() {
        let seal = SecretSeal::from_server_secret(&[7u8; 32]);
        let secret = b"twenty bytes secret!";
        let sealed = seal.seal(account(3), secret);
        assert!(sealed.starts_with(MAGIC));
        assert!(
            !sealed.windows(secret.len()).any(|w| w == secret),
            "the secret does not show"
        );
        assert_eq!(
            seal.open(account(3), &sealed).expect("opens"),
            Opened::Sealed(secret.to_vec())
        );
        assert_ne!(sealed, seal.seal(account(3), secret), "a nonce per seal");
        let err = seal.open(account(4), &sealed).expect_err("another account");
        assert!(err.to_string().contains("account 4"), "{err}");
    }

    #[test]
    fn another_key_or_a_damaged_row_does_not_open() {
        let seal = SecretSeal::from_server_secret(&[7u8; 32]);
        let sealed = seal.seal(account(3), b"twenty bytes secret!");
        let other = SecretSeal::from_server_secret(&[8u8; 32]);
        assert!(other.open(account(3), &sealed).is_err());
        let mut damaged = sealed.clone();
        *damaged.last_mut().expect("bytes") ^= 1;
        assert!(seal.open(account(3), &damaged).is_err());
        assert!(seal.open(account(3), &sealed[..MAGIC.len() + 5]).is_err());
        assert!(seal.open(account(3), MAGIC).is_err());
    }

    #[test]
    fn a_secret_stored_before_sealing_reads_as_it_is() {
        let seal = SecretSeal::from_server_secret(&[7u8; 32]);
        let plain = b"twenty bytes secret!".to_vec();
        assert_eq!(
            seal.open(account(3), &plain).expect("plain"),
            Opened::Plain(plain.clone())
        );
        assert_eq!(
            Opened::Plain(plain.clone()).secret(),
            Opened::Sealed(plain.clone()).secret()
        );
        assert_eq!(format!("{seal:?}"), "SecretSeal(..)", "the key never shows");
    }
}
