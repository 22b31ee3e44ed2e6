//! [`Pg`]: a PostgreSQL transaction as the statements written once in `forumdex_sql` use it.

use std::error::Error;

use bytes::BytesMut;
use forumdex_sql::{Cell, Db, Dialect, Param, Row, Sql};
use postgres::GenericClient;
use postgres::types::{IsNull, ToSql, Type, to_sql_checked};

use crate::pool::Failure;

/// A client, usually a transaction its owner opened.
pub(crate) struct Pg<'c, C>(pub(crate) &'c mut C);

/// A parameter as the driver binds it: an integer to whichever integer type the statement
/// wants (refused when out of its range).
#[derive(Debug)]
struct Bind<'p>(Param<'p>);

impl ToSql for Bind<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match self.0 {
            Param::Null => Ok(IsNull::Yes),
            Param::Int(value) => match *ty {
                Type::INT2 => i16::try_from(value)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(value)?.to_sql(ty, out),
                _ => value.to_sql(ty, out),
            },
            Param::Text(value) => value.to_sql(ty, out),
            Param::Bytes(value) => value.to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        <i64 as ToSql>::accepts(ty)
            || <i32 as ToSql>::accepts(ty)
            || <i16 as ToSql>::accepts(ty)
            || <&str as ToSql>::accepts(ty)
            || <&[u8] as ToSql>::accepts(ty)
    }

    to_sql_checked!();
}

fn run<T>(
    params: &[Param<'_>],
    query: impl FnOnce(&[&(dyn ToSql + Sync)]) -> Result<T, postgres::Error>,
) -> Result<T, Db<postgres::Error>> {
    let binds: Vec<Bind<'_>> = params.iter().copied().map(Bind).collect();
    let refs: Vec<&(dyn ToSql + Sync)> = binds.iter().map(|b| b as &(dyn ToSql + Sync)).collect();
    query(&refs).map_err(Db)
}

/// A column's value: integers of any width, text, bytes; `NULL` as [`Cell::Null`].
fn cell(row: &postgres::Row, index: usize) -> Result<Cell, postgres::Error> {
    let ty = row.columns()[index].type_();
    Ok(match *ty {
        Type::INT2 => row
            .try_get::<_, Option<i16>>(index)?
            .map(|v| Cell::Int(v.into())),
        Type::INT4 => row
            .try_get::<_, Option<i32>>(index)?
            .map(|v| Cell::Int(v.into())),
        Type::BYTEA => row.try_get::<_, Option<Vec<u8>>>(index)?.map(Cell::Bytes),
        Type::TEXT | Type::VARCHAR => row.try_get::<_, Option<String>>(index)?.map(Cell::Text),
        _ => row.try_get::<_, Option<i64>>(index)?.map(Cell::Int),
    }
    .unwrap_or(Cell::Null))
}

impl<C: GenericClient> Sql for Pg<'_, C> {
    type Error = postgres::Error;

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Db<postgres::Error>> {
        run(params, |params| self.0.execute(sql, params))
    }

    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, Db<postgres::Error>> {
        let rows = run(params, |params| self.0.query(sql, params))?;
        rows.iter()
            .map(|row| {
                let cells = (0..row.len()).map(|index| cell(row, index));
                Ok(Row(cells.collect::<Result<_, _>>().map_err(Db)?))
            })
            .collect()
    }
}

impl<E> From<forumdex_sql::Failure<E, postgres::Error>> for Failure<E> {
    fn from(err: forumdex_sql::Failure<E, postgres::Error>) -> Self {
        match err {
            forumdex_sql::Failure::Db(err) => Self::Db(err),
            forumdex_sql::Failure::Refused(err) => Self::Refused(err),
        }
    }
}
