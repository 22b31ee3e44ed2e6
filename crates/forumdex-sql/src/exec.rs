//! How statements written once run on either database: [`Sql`], a transaction as both
//! backends offer it (statements with `$1`-style parameters, values as [`Param`], rows as
//! [`Row`]s of [`Cell`]s), and [`Failure`], what a step inside it failed with.

use std::fmt;

use crate::dialect::Dialect;

/// A transaction of one of the backends, as the statements written once in this crate use it.
///
/// Statements name their parameters `$1`, `$2`, ... (PostgreSQL's form; the SQLite backend
/// rewrites them to `?1`, `?2`, ...). Integers bind to whatever integer column type the
/// database expects, refused when out of its range.
pub trait Sql {
    /// The database's own error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Which database this is.
    fn dialect(&self) -> Dialect;

    /// Runs a statement; how many rows it changed.
    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Db<Self::Error>>;

    /// Runs a query; its rows.
    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, Db<Self::Error>>;

    /// Runs a query expected to return at most one row; its first row, if any.
    fn query_opt(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
    ) -> Result<Option<Row>, Db<Self::Error>> {
        Ok(self.query(sql, params)?.into_iter().next())
    }
}

/// A value bound to a statement's parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param<'a> {
    /// SQL `NULL`.
    Null,
    /// An integer (`INTEGER`, `BIGINT`, `SMALLINT`).
    Int(i64),
    /// Text.
    Text(&'a str),
    /// Bytes (`BLOB`, `BYTEA`).
    Bytes(&'a [u8]),
}

impl From<i64> for Param<'_> {
    fn from(value: i64) -> Self {
        Self::Int(value)
    }
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(value: &'a str) -> Self {
        Self::Text(value)
    }
}

impl<'a> From<&'a String> for Param<'a> {
    fn from(value: &'a String) -> Self {
        Self::Text(value)
    }
}

impl<'a> From<&'a [u8]> for Param<'a> {
    fn from(value: &'a [u8]) -> Self {
        Self::Bytes(value)
    }
}

impl<'a, T: Into<Param<'a>>> From<Option<T>> for Param<'a> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Null, Into::into)
    }
}

/// The parameters of a statement: `params![a, b]` is `&[Param::from(a), Param::from(b)]`.
#[macro_export]
macro_rules! params {
    ($($value:expr),* $(,)?) => {
        &[$($crate::Param::from($value)),*]
    };
}

/// A column's value as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// SQL `NULL`.
    Null,
    /// An integer of any width.
    Int(i64),
    /// Text.
    Text(String),
    /// Bytes.
    Bytes(Vec<u8>),
}

/// A row as read: its cells in the statement's column order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row(pub Vec<Cell>);

impl Row {
    /// Column `index` as `T`; a `NULL` or a value of another type is a [`CellError`].
    pub fn get<T: FromCell>(&self, index: usize) -> Result<T, CellError> {
        let cell = self.0.get(index).unwrap_or(&Cell::Null);
        T::from_cell(cell).ok_or_else(|| CellError {
            index,
            expected: T::NAME,
            found: format!("{cell:?}"),
        })
    }
}

/// A type a [`Cell`] decodes into.
pub trait FromCell: Sized {
    /// What the type is called in errors.
    const NAME: &'static str;
    /// The value, or `None` when the cell holds something else.
    fn from_cell(cell: &Cell) -> Option<Self>;
}

impl FromCell for i64 {
    const NAME: &'static str = "integer";
    fn from_cell(cell: &Cell) -> Option<Self> {
        match cell {
            Cell::Int(value) => Some(*value),
            _ => None,
        }
    }
}

impl FromCell for String {
    const NAME: &'static str = "text";
    fn from_cell(cell: &Cell) -> Option<Self> {
        match cell {
            Cell::Text(value) => Some(value.clone()),
            _ => None,
        }
    }
}

impl FromCell for Vec<u8> {
    const NAME: &'static str = "bytes";
    fn from_cell(cell: &Cell) -> Option<Self> {
        match cell {
            Cell::Bytes(value) => Some(value.clone()),
            _ => None,
        }
    }
}

impl<T: FromCell> FromCell for Option<T> {
    const NAME: &'static str = T::NAME;
    fn from_cell(cell: &Cell) -> Option<Self> {
        match cell {
            Cell::Null => Some(None),
            cell => T::from_cell(cell).map(Some),
        }
    }
}

/// A column that did not hold what the statement's reader expected: a bug, or a database
/// edited by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellError {
    /// The column's position.
    pub index: usize,
    /// What was expected.
    pub expected: &'static str,
    /// What was found.
    pub found: String,
}

impl fmt::Display for CellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "column {} holds {}, expected {}",
            self.index, self.found, self.expected
        )
    }
}

impl std::error::Error for CellError {}

/// The database's error `D`, as [`Sql`] returns it (a type of its own, so that `?` turns it
/// into a [`Failure`] whatever the store's error).
#[derive(Debug)]
pub struct Db<D>(pub D);

/// What a step inside a transaction failed with: the database (`D`), which the backend may
/// answer by running the transaction again, or a rule of the store (`E`, an unknown
/// account, say), which it returns as it is.
#[derive(Debug)]
pub enum Failure<E, D> {
    /// The database failed.
    Db(D),
    /// The store refused.
    Refused(E),
}

impl<E, D> From<Db<D>> for Failure<E, D> {
    fn from(err: Db<D>) -> Self {
        Self::Db(err.0)
    }
}

impl<E, D> Failure<E, D> {
    /// The store's error, making a database failure one with `db`.
    pub fn into_error(self, db: impl FnOnce(D) -> E) -> E {
        match self {
            Self::Db(err) => db(err),
            Self::Refused(err) => err,
        }
    }
}

/// A database error of either backend, for statements that run on both through one
/// [`DynSql`] (the crawl state's): the backend's own error, boxed.
#[derive(Debug)]
pub struct AnyDb(Box<dyn std::error::Error + Send + Sync>);

impl AnyDb {
    /// Boxes a backend's error.
    pub fn new(err: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self(Box::new(err))
    }

    /// The backend's error, when it is an `E`.
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.0.downcast_ref()
    }

    /// The backend's error, when it is an `E`; else `self` back.
    pub fn downcast<E: std::error::Error + 'static>(self) -> Result<E, Self> {
        self.0.downcast().map(|err| *err).map_err(Self)
    }
}

impl fmt::Display for AnyDb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The backend's message, then its cause (PostgreSQL's "db error" says nothing alone).
        write!(f, "{}", self.0)?;
        if let Some(cause) = self.0.source() {
            write!(f, ": {cause}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AnyDb {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// A transaction of either backend, its errors as [`AnyDb`]: what code that runs the same
/// statements on both without being generic takes.
pub type DynSql<'a> = dyn Sql<Error = AnyDb> + 'a;

/// `S` with its errors boxed as [`AnyDb`], usable as a [`DynSql`].
pub struct Erased<S>(pub S);

impl<S: Sql> Sql for Erased<S> {
    type Error = AnyDb;

    fn dialect(&self) -> Dialect {
        self.0.dialect()
    }

    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Db<AnyDb>> {
        self.0
            .execute(sql, params)
            .map_err(|Db(err)| Db(AnyDb::new(err)))
    }

    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, Db<AnyDb>> {
        self.0
            .query(sql, params)
            .map_err(|Db(err)| Db(AnyDb::new(err)))
    }
}

/// Rewrites `$1`-style parameters to SQLite's `?1` form, leaving quoted text alone.
pub fn numbered_parameters(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quoted = false;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            quoted = !quoted;
        }
        if c == '$' && !quoted && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('?');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_become_numbered_outside_quotes_only() {
        assert_eq!(
            numbered_parameters("SELECT $1, '$2', $10 WHERE a = $2"),
            "SELECT ?1, '$2', ?10 WHERE a = ?2"
        );
        assert_eq!(
            numbered_parameters("SELECT 'it''s $1' || $1"),
            "SELECT 'it''s $1' || ?1"
        );
    }

    #[test]
    fn cells_decode_into_what_they_hold_and_name_what_they_do_not() {
        let row = Row(vec![
            Cell::Int(7),
            Cell::Null,
            Cell::Text("a".into()),
            Cell::Bytes(vec![1]),
        ]);
        assert_eq!(row.get::<i64>(0), Ok(7));
        assert_eq!(row.get::<Option<i64>>(1), Ok(None));
        assert_eq!(row.get::<Option<String>>(2), Ok(Some("a".into())));
        assert_eq!(row.get::<Vec<u8>>(3), Ok(vec![1]));
        let err = row.get::<i64>(2).expect_err("text is not an integer");
        assert_eq!(
            err.to_string(),
            "column 2 holds Text(\"a\"), expected integer"
        );
        assert!(row.get::<i64>(1).is_err(), "NULL is not an integer");
        assert!(row.get::<i64>(9).is_err(), "no such column");
    }

    #[test]
    fn params_convert_from_what_the_stores_bind() {
        let name = String::from("n");
        let bound: &[Param<'_>] = params![1_i64, "t", &name, None::<i64>, Some(&b"x"[..])];
        assert_eq!(
            bound,
            [
                Param::Int(1),
                Param::Text("t"),
                Param::Text("n"),
                Param::Null,
                Param::Bytes(b"x"),
            ]
        );
    }
}
