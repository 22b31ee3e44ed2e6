//! [`Dialect`]: where the two backends' SQL differs.

/// Where the two backends' SQL differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite: the sequence is the named parameter `:seq`; booleans are integers.
    Sqlite,
    /// PostgreSQL: the sequence is the first positional parameter `$1`; booleans are
    /// booleans.
    Postgres,
}

impl Dialect {
    /// The parameter that holds the sequence a statement reads at.
    pub fn seq(self) -> &'static str {
        match self {
            Self::Sqlite => ":seq",
            Self::Postgres => "$1",
        }
    }

    /// Whether the boolean column `column` is true.
    pub fn is_true(self, column: &str) -> String {
        match self {
            Self::Sqlite => format!("{column} = 1"),
            Self::Postgres => column.to_owned(),
        }
    }

    /// Whether the boolean column `column` is false.
    pub fn is_false(self, column: &str) -> String {
        match self {
            Self::Sqlite => format!("{column} = 0"),
            Self::Postgres => format!("NOT {column}"),
        }
    }

    /// The function that takes the greater of two values (SQLite's scalar `max`).
    pub fn greatest(self) -> &'static str {
        match self {
            Self::Sqlite => "max",
            Self::Postgres => "GREATEST",
        }
    }

    /// The function that takes the lesser of two values (SQLite's scalar `min`).
    pub fn least(self) -> &'static str {
        match self {
            Self::Sqlite => "min",
            Self::Postgres => "LEAST",
        }
    }
}
