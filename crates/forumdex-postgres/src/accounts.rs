//! [`PgAccountStore`]: accounts, keys, allowlists and the ledger on PostgreSQL, shared by
//! every node of a deployment (schema in [`crate::schema`]).
//!
//! Every write is one transaction. The debit (`AccountStore::charge`) runs at read
//! committed: a conditional `UPDATE ... WHERE credits >= 1` that waits for the row's lock and
//! checks its condition again on the committed balance, plus a ledger row whose unique
//! request id makes a second charge of one request impossible, whichever node tries it
//! (the loser of such a race runs again and finds the first charge). Every other write
//! runs serializable, as the embedded store's one writer at a time does. Nothing is cached:
//! a key revoked through one node is refused by every node at its next request.

use forumdex_sql::Failure;
use postgres::Transaction;

use crate::exec::Pg;
use crate::pool::{FromDb, Isolation, PgError, PgPool};
use crate::schema;

/// The PostgreSQL [`AccountStore`](forumdex_accounts::AccountStore) (and
/// [`DeveloperStore`](forumdex_accounts::DeveloperStore)): the statements are
/// `forumdex_sql`'s, the same as the embedded store's. Cheap to share behind an `Arc`; safe
/// from many threads.
#[derive(Debug)]
pub struct PgAccountStore {
    pool: PgPool,
}

/// What a step of this store's transactions runs on.
type Tx<'c, 't> = Pg<'c, Transaction<'t>>;

impl PgAccountStore {
    /// Connects to the database at `url`, whose schema must be this binary's (see
    /// [`schema::migrate`]).
    pub fn open(url: &str) -> Result<Self, PgError> {
        let pool = PgPool::connect(url)?;
        schema::check(&pool)?;
        Ok(Self { pool })
    }

    /// The store over `pool`, whose schema must be this binary's.
    pub fn with_pool(pool: PgPool) -> Result<Self, PgError> {
        schema::check(&pool)?;
        Ok(Self { pool })
    }

    /// Runs `work` in a serializable transaction (run again when it lost a race).
    fn write<T, E: FromDb>(
        &self,
        work: impl FnMut(&mut Tx<'_, '_>) -> Result<T, Failure<E, postgres::Error>>,
    ) -> Result<T, E> {
        self.transaction(Isolation::Serializable, work)
    }

    /// Runs a debit at read committed: its conditional `UPDATE ... WHERE credits >= 1` waits
    /// for the row's lock and checks its condition again on the committed balance, and the
    /// ledger's unique request id makes a second charge of one request impossible (the
    /// loser of such a race runs again and finds the first charge).
    fn charge_write<T, E: FromDb>(
        &self,
        work: impl FnMut(&mut Tx<'_, '_>) -> Result<T, Failure<E, postgres::Error>>,
    ) -> Result<T, E> {
        self.transaction(Isolation::ReadCommitted, work)
    }

    /// Runs `work` on one consistent snapshot, read only.
    fn read<T, E: FromDb>(
        &self,
        work: impl FnMut(&mut Tx<'_, '_>) -> Result<T, Failure<E, postgres::Error>>,
    ) -> Result<T, E> {
        self.transaction(Isolation::Snapshot, work)
    }

    fn transaction<T, E: FromDb>(
        &self,
        isolation: Isolation,
        mut work: impl FnMut(&mut Tx<'_, '_>) -> Result<T, Failure<E, postgres::Error>>,
    ) -> Result<T, E> {
        self.pool
            .transaction(isolation, |tx| work(&mut Pg(tx)).map_err(Into::into))
    }
}

forumdex_sql::impl_account_stores!(PgAccountStore);
