//! [`Lite`]: a SQLite connection (or transaction) as the statements written once in
//! `forumdex_sql` use it.

use forumdex_sql::{Cell, Db, Dialect, Param, Row, Sql, numbered_parameters};
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ToSql, params_from_iter};

/// A connection, usually inside a transaction its owner opened, as [`Sql`]; wrapped in
/// [`forumdex_sql::Erased`] it is a [`forumdex_sql::DynSql`] (how the crawl state runs its
/// statements written once on either backend).
pub struct Lite<'c>(pub &'c Connection);

/// A parameter as rusqlite binds it.
struct Bind<'p>(Param<'p>);

impl ToSql for Bind<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self.0 {
            Param::Null => ValueRef::Null,
            Param::Int(value) => ValueRef::Integer(value),
            Param::Text(value) => ValueRef::Text(value.as_bytes()),
            Param::Bytes(value) => ValueRef::Blob(value),
        }))
    }
}

fn binds<'p>(params: &[Param<'p>]) -> impl Iterator<Item = Bind<'p>> {
    params.iter().copied().map(Bind)
}

impl Sql for Lite<'_> {
    type Error = rusqlite::Error;

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Db<rusqlite::Error>> {
        let mut statement = self
            .0
            .prepare_cached(&numbered_parameters(sql))
            .map_err(Db)?;
        let changed = statement
            .execute(params_from_iter(binds(params)))
            .map_err(Db)?;
        Ok(changed as u64)
    }

    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, Db<rusqlite::Error>> {
        let mut statement = self
            .0
            .prepare_cached(&numbered_parameters(sql))
            .map_err(Db)?;
        let columns = statement.column_count();
        let mut rows = statement
            .query(params_from_iter(binds(params)))
            .map_err(Db)?;
        let mut read = Vec::new();
        while let Some(row) = rows.next().map_err(Db)? {
            let mut cells = Vec::with_capacity(columns);
            for index in 0..columns {
                cells.push(match row.get_ref(index).map_err(Db)? {
                    ValueRef::Null => Cell::Null,
                    ValueRef::Integer(value) => Cell::Int(value),
                    ValueRef::Text(text) => Cell::Text(String::from_utf8_lossy(text).into_owned()),
                    ValueRef::Blob(bytes) => Cell::Bytes(bytes.to_vec()),
                    ValueRef::Real(_) => {
                        return Err(Db(rusqlite::Error::InvalidColumnType(
                            index,
                            "real".to_owned(),
                            rusqlite::types::Type::Real,
                        )));
                    }
                });
            }
            read.push(Row(cells));
        }
        Ok(read)
    }
}
