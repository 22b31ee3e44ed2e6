//! [`impl_account_stores!`]: the `AccountStore` and `DeveloperStore` implementations, written
//! once for every backend. Each operation is one function of [`super`] or
//! [`super::developer`] run in a transaction the backend opens.

/// Implements `forumdex_accounts::AccountStore` and `DeveloperStore` for a backend's store
/// type `$store`, which provides three transaction runners, each running `work` (a closure
/// over a `&mut impl Sql`, returning `Result<T, Failure<E, _>>`) and answering `Result<T, E>`
/// for `E` either of the two stores' errors:
///
/// - `write(work)`: a transaction for a write, run as if alone (serialized);
/// - `read(work)`: a read of one consistent snapshot;
/// - `charge_write(work)`: the debit of a request, which may run at a weaker isolation
///   where the statements themselves keep it exact (PostgreSQL: read committed).
///
/// A backend whose transactions can be run again after losing a race takes `FnMut` closures;
/// the closures given here only borrow their inputs, so they can be.
#[macro_export]
macro_rules! impl_account_stores {
    ($store:ty) => {
        impl $crate::reexport::forumdex_accounts::AccountStore for $store {
            fn create_account(
                &self,
                email: &$crate::reexport::forumdex_accounts::Email,
                initial_credits: u64,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::AccountId,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                self.write(|db| $crate::accounts::create_account(db, email, initial_credits, now))
            }

            fn account(
                &self,
                id: $crate::reexport::forumdex_accounts::AccountId,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::Account,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                self.read(|db| $crate::accounts::account(db, id))
            }

            fn balance(
                &self,
                id: $crate::reexport::forumdex_accounts::AccountId,
            ) -> ::std::result::Result<u64, $crate::reexport::forumdex_accounts::AccountError> {
                self.read(|db| $crate::accounts::balance(db, id))
            }

            fn add_credits(
                &self,
                id: $crate::reexport::forumdex_accounts::AccountId,
                amount: u64,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<u64, $crate::reexport::forumdex_accounts::AccountError> {
                self.write(|db| $crate::accounts::add_credits(db, id, amount, now))
            }

            fn charge(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                key_id: &$crate::reexport::forumdex_accounts::KeyId,
                request_id: &str,
                operation: &str,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                ::std::option::Option<u64>,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                self.charge_write(|db| {
                    $crate::accounts::charge(db, account, key_id, request_id, operation, now)
                })
            }

            fn ledger(
                &self,
                id: $crate::reexport::forumdex_accounts::AccountId,
            ) -> ::std::result::Result<
                ::std::vec::Vec<$crate::reexport::forumdex_accounts::LedgerEntry>,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                self.read(|db| $crate::accounts::ledger(db, id))
            }

            fn create_key(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                new: &$crate::reexport::forumdex_accounts::NewKey,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::CreatedKey,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                let minted = $crate::reexport::forumdex_accounts::rules::mint_key(new, now)?;
                let info = self
                    .write(|db| $crate::accounts::insert_key(db, account, &minted, &new.allow))?;
                Ok($crate::reexport::forumdex_accounts::CreatedKey {
                    info,
                    secret: minted.secret,
                })
            }

            fn key(
                &self,
                key_id: &$crate::reexport::forumdex_accounts::KeyId,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::KeyInfo,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                self.read(|db| $crate::accounts::key(db, key_id))
            }

            fn list_keys(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
            ) -> ::std::result::Result<
                ::std::vec::Vec<$crate::reexport::forumdex_accounts::KeyInfo>,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                self.read(|db| $crate::accounts::list_keys(db, account))
            }

            fn revoke_key(
                &self,
                key_id: &$crate::reexport::forumdex_accounts::KeyId,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::KeyInfo,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                self.write(|db| $crate::accounts::revoke_key(db, key_id, now))
            }

            fn renew_key(
                &self,
                key_id: &$crate::reexport::forumdex_accounts::KeyId,
                lifetime: ::std::option::Option<$crate::reexport::forumdex_accounts::KeyLifetime>,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::KeyInfo,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                self.write(|db| $crate::accounts::renew_key(db, key_id, lifetime, now))
            }

            fn set_key_expiry(
                &self,
                key_id: &$crate::reexport::forumdex_accounts::KeyId,
                at: ::std::option::Option<$crate::reexport::Instant>,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::KeyInfo,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                self.write(|db| $crate::accounts::set_key_expiry(db, key_id, at))
            }

            fn update_allowlist(
                &self,
                key_id: &$crate::reexport::forumdex_accounts::KeyId,
                add: &[$crate::reexport::forumdex_accounts::allowlist::AllowEntry],
                remove: &[$crate::reexport::forumdex_accounts::allowlist::AllowEntry],
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::allowlist::Allowlist,
                $crate::reexport::forumdex_accounts::AccountError,
            > {
                self.write(|db| $crate::accounts::update_allowlist(db, key_id, add, remove))
            }

            fn ping(
                &self,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::AccountError> {
                self.read(|db| $crate::accounts::ping(db))
            }

            fn authenticate(
                &self,
                secret: &str,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::AuthenticatedKey,
                $crate::reexport::forumdex_accounts::AuthError,
            > {
                let key = $crate::reexport::forumdex_accounts::ApiKey::parse(secret)?;
                self.read(|db| $crate::accounts::authenticate(db, &key, now))
                    .map_err($crate::reexport::forumdex_accounts::AuthError::Storage)?
            }
        }

        $crate::impl_developer_store!($store);
    };
}

/// The `DeveloperStore` half of [`impl_account_stores!`] (which invokes it).
#[doc(hidden)]
#[macro_export]
macro_rules! impl_developer_store {
    ($store:ty) => {
        impl $crate::reexport::forumdex_accounts::DeveloperStore for $store {
            fn register(
                &self,
                email: &$crate::reexport::forumdex_accounts::Email,
                password_hash: &str,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::AccountId,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.write(|db| {
                    $crate::accounts::developer::register(db, email, password_hash, now)
                })
            }

            fn login_by_email(
                &self,
                email: &$crate::reexport::forumdex_accounts::Email,
            ) -> ::std::result::Result<
                ::std::option::Option<$crate::reexport::forumdex_accounts::Login>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::login_by_email(db, email))
            }

            fn login(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
            ) -> ::std::result::Result<
                ::std::option::Option<$crate::reexport::forumdex_accounts::Login>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::login(db, account))
            }

            fn set_password(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                password_hash: &str,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::set_password(db, account, password_hash)
                })
            }

            fn mark_verified(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                signup_credits: u64,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<bool, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::mark_verified(db, account, signup_credits, now)
                })
            }

            fn issue_token(
                &self,
                purpose: $crate::reexport::forumdex_accounts::TokenPurpose,
                token: &$crate::reexport::forumdex_accounts::TokenHash,
                account: $crate::reexport::forumdex_accounts::AccountId,
                now: $crate::reexport::Instant,
                expires_at: $crate::reexport::Instant,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::issue_token(
                        db, purpose, token, account, now, expires_at,
                    )
                })
            }

            fn consume_token(
                &self,
                purpose: $crate::reexport::forumdex_accounts::TokenPurpose,
                token: &$crate::reexport::forumdex_accounts::TokenHash,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                ::std::option::Option<$crate::reexport::forumdex_accounts::AccountId>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.write(|db| $crate::accounts::developer::consume_token(db, purpose, token, now))
            }

            fn create_key_once(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                form: &$crate::reexport::forumdex_accounts::TokenHash,
                new: &$crate::reexport::forumdex_accounts::NewKey,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::KeyCreation,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                let minted = $crate::reexport::forumdex_accounts::rules::mint_key(new, now)?;
                let outcome = self.write(|db| {
                    $crate::accounts::developer::create_key_once(
                        db, account, form, &minted, &new.allow, now,
                    )
                })?;
                Ok(match outcome {
                    Ok(info) => $crate::reexport::forumdex_accounts::KeyCreation::Created(
                        $crate::reexport::forumdex_accounts::CreatedKey {
                            info,
                            secret: minted.secret,
                        },
                    ),
                    Err(before) => {
                        $crate::reexport::forumdex_accounts::KeyCreation::AlreadyCreated(before)
                    }
                })
            }

            fn token_holder(
                &self,
                purpose: $crate::reexport::forumdex_accounts::TokenPurpose,
                token: &$crate::reexport::forumdex_accounts::TokenHash,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                ::std::option::Option<$crate::reexport::forumdex_accounts::AccountId>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::token_holder(db, purpose, token, now))
            }

            fn open_session(
                &self,
                token: &$crate::reexport::forumdex_accounts::TokenHash,
                account: $crate::reexport::forumdex_accounts::AccountId,
                now: $crate::reexport::Instant,
                expires_at: $crate::reexport::Instant,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::open_session(db, token, account, now, expires_at)
                })
            }

            fn touch_session(
                &self,
                token: &$crate::reexport::forumdex_accounts::TokenHash,
                now: $crate::reexport::Instant,
                idle: $crate::reexport::chrono::Duration,
            ) -> ::std::result::Result<
                ::std::option::Option<$crate::reexport::forumdex_accounts::Session>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.write(|db| $crate::accounts::developer::touch_session(db, token, now, idle))
            }

            fn close_session(
                &self,
                token: &$crate::reexport::forumdex_accounts::TokenHash,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| $crate::accounts::developer::close_session(db, token))
            }

            fn purge_expired(
                &self,
                now: $crate::reexport::Instant,
                idle: $crate::reexport::chrono::Duration,
            ) -> ::std::result::Result<u64, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| $crate::accounts::developer::purge_expired(db, now, idle))
            }

            fn close_sessions(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
            ) -> ::std::result::Result<u64, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| $crate::accounts::developer::close_sessions(db, account))
            }

            fn request_email_change(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                new: &$crate::reexport::forumdex_accounts::Email,
                token: &$crate::reexport::forumdex_accounts::TokenHash,
                now: $crate::reexport::Instant,
                expires_at: $crate::reexport::Instant,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::request_email_change(
                        db, account, new, token, now, expires_at,
                    )
                })
            }

            fn confirm_email_change(
                &self,
                token: &$crate::reexport::forumdex_accounts::TokenHash,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                ::std::option::Option<$crate::reexport::forumdex_accounts::EmailChange>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.write(|db| $crate::accounts::developer::confirm_email_change(db, token, now))
            }

            fn set_low_balance_alert(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                threshold: ::std::option::Option<u64>,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::set_low_balance_alert(db, account, threshold)
                })
            }

            fn low_balance_alert(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
            ) -> ::std::result::Result<
                ::std::option::Option<u64>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::low_balance_alert(db, account))
            }

            fn due_low_balance_alerts(
                &self,
            ) -> ::std::result::Result<
                ::std::vec::Vec<$crate::reexport::forumdex_accounts::LowBalance>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.write(|db| $crate::accounts::developer::due_low_balance_alerts(db))
            }

            fn mark_low_balance_told(
                &self,
                alert: &$crate::reexport::forumdex_accounts::LowBalance,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| $crate::accounts::developer::mark_low_balance_told(db, alert))
            }

            fn two_factor(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
            ) -> ::std::result::Result<
                ::std::option::Option<$crate::reexport::forumdex_accounts::TwoFactor>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::two_factor(db, account))
            }

            fn enable_two_factor(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                secret: &[u8],
                step: u64,
                recovery: &[$crate::reexport::forumdex_accounts::TokenHash],
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<bool, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::enable_two_factor(
                        db, account, secret, step, recovery, now,
                    )
                })
            }

            fn disable_two_factor(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| $crate::accounts::developer::disable_two_factor(db, account))
            }

            fn two_factor_secrets(
                &self,
            ) -> ::std::result::Result<
                ::std::vec::Vec<(
                    $crate::reexport::forumdex_accounts::AccountId,
                    ::std::vec::Vec<u8>,
                )>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::two_factor_secrets(db))
            }

            fn replace_two_factor_secret(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                from: &[u8],
                to: &[u8],
            ) -> ::std::result::Result<bool, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::replace_two_factor_secret(db, account, from, to)
                })
            }

            fn replace_recovery_codes(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                recovery: &[$crate::reexport::forumdex_accounts::TokenHash],
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::replace_recovery_codes(db, account, recovery)
                })
            }

            fn use_second_factor(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                proof: &$crate::reexport::forumdex_accounts::SecondFactor,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<bool, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::use_second_factor(db, account, proof, now)
                })
            }

            fn close_account(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<u64, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| $crate::accounts::developer::close_account(db, account, now))
            }

            fn sessions(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                now: $crate::reexport::Instant,
                idle: $crate::reexport::chrono::Duration,
            ) -> ::std::result::Result<
                ::std::vec::Vec<$crate::reexport::forumdex_accounts::ListedSession>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::sessions(db, account, now, idle))
            }

            fn close_account_session(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                token: &$crate::reexport::forumdex_accounts::TokenHash,
            ) -> ::std::result::Result<bool, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::close_account_session(db, account, token)
                })
            }

            fn close_other_sessions(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                keep: &$crate::reexport::forumdex_accounts::TokenHash,
            ) -> ::std::result::Result<u64, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::close_other_sessions(db, account, keep)
                })
            }

            fn record_activity(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                kind: &str,
                detail: &str,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::insert_activity(db, account, kind, detail, now)
                })
            }

            fn activity(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                limit: u32,
            ) -> ::std::result::Result<
                ::std::vec::Vec<$crate::reexport::forumdex_accounts::Activity>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::activity(db, account, limit))
            }

            fn record_usage(
                &self,
                counts: &[$crate::reexport::forumdex_accounts::UsageCount],
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                if counts.is_empty() {
                    return Ok(());
                }
                self.write(|db| $crate::accounts::developer::record_usage(db, counts))
            }

            fn usage(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                since: $crate::reexport::chrono::NaiveDate,
            ) -> ::std::result::Result<
                ::std::vec::Vec<$crate::reexport::forumdex_accounts::UsageCount>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::usage(db, account, since))
            }

            fn rename_key(
                &self,
                key: &$crate::reexport::forumdex_accounts::KeyId,
                name: ::std::option::Option<&str>,
            ) -> ::std::result::Result<
                ::std::option::Option<::std::string::String>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.write(|db| $crate::accounts::developer::rename_key(db, key, name))
            }

            fn create_topup(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                order: &$crate::reexport::forumdex_accounts::NewTopup,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::Topup,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.write(|db| $crate::accounts::developer::create_topup(db, account, order, now))
            }

            fn set_topup_reference(
                &self,
                topup_id: i64,
                reference: &str,
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| {
                    $crate::accounts::developer::set_topup_reference(db, topup_id, reference)
                })
            }

            fn topup(
                &self,
                topup_id: i64,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::Topup,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::topup(db, topup_id))
            }

            fn topups(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
            ) -> ::std::result::Result<
                ::std::vec::Vec<$crate::reexport::forumdex_accounts::Topup>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::topups(db, account))
            }

            fn apply_payment_event(
                &self,
                event: &$crate::reexport::forumdex_accounts::PaymentEvent,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                $crate::reexport::forumdex_accounts::PaymentOutcome,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.write(|db| $crate::accounts::developer::apply_payment_event(db, event, now))
            }

            fn ledger_lines(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                from: $crate::reexport::Instant,
                to: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                ::std::vec::Vec<$crate::reexport::forumdex_accounts::LedgerLine>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::ledger_lines(db, account, from, to))
            }

            fn record_requests(
                &self,
                requests: &[$crate::reexport::forumdex_accounts::LoggedRequest],
            ) -> ::std::result::Result<(), $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| $crate::accounts::developer::record_requests(db, requests))
            }

            fn requests(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                filter: &$crate::reexport::forumdex_accounts::RequestFilter,
                limit: u32,
            ) -> ::std::result::Result<
                ::std::vec::Vec<$crate::reexport::forumdex_accounts::LoggedRequest>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| $crate::accounts::developer::requests(db, account, filter, limit))
            }

            fn hourly_requests(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                key: ::std::option::Option<&$crate::reexport::forumdex_accounts::KeyId>,
                from: $crate::reexport::Instant,
                until: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                ::std::vec::Vec<$crate::reexport::forumdex_accounts::HourCount>,
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.read(|db| {
                    $crate::accounts::developer::hourly_requests(db, account, key, from, until)
                })
            }

            fn prune_requests(
                &self,
                before: $crate::reexport::Instant,
            ) -> ::std::result::Result<u64, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.write(|db| $crate::accounts::developer::prune_requests(db, before))
            }

            fn has_ledger_before(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                at: $crate::reexport::Instant,
            ) -> ::std::result::Result<bool, $crate::reexport::forumdex_accounts::DeveloperError>
            {
                self.read(|db| $crate::accounts::developer::has_ledger_before(db, account, at))
            }

            fn add_credits_once(
                &self,
                account: $crate::reexport::forumdex_accounts::AccountId,
                amount: u64,
                idempotency_key: &str,
                now: $crate::reexport::Instant,
            ) -> ::std::result::Result<
                (u64, bool),
                $crate::reexport::forumdex_accounts::DeveloperError,
            > {
                self.write(|db| {
                    $crate::accounts::developer::add_credits_once(
                        db,
                        account,
                        amount,
                        idempotency_key,
                        now,
                    )
                })
            }
        }
    };
}
