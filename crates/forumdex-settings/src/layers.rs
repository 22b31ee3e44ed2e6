//! The layers settings come from, gathered into one table per section: a TOML file, the
//! `FORUMDEX_<NAME>` environment variables, then flags, each overriding the one before.
//!
//! The settings are flat (operator-interface.md names them one by one, and scripts depend on
//! those names); which section owns a name, and whether its value is a whole number, is read
//! from the section types themselves ([`crate::fields`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context, bail};
use serde::de::DeserializeOwned;

use crate::fields::{Field, fields_of};
use crate::{
    CrawlSection, DashboardSection, PaymentsSection, SearchSection, ServerSection, StorageSection,
};

/// A section of the settings: a struct whose fields are settings.
pub(crate) trait Section: DeserializeOwned {
    /// The section's name (`server`), for messages and lookups; never a setting name.
    const NAME: &'static str;
}

impl Section for ServerSection {
    const NAME: &'static str = "server";
}
impl Section for StorageSection {
    const NAME: &'static str = "storage";
}
impl Section for SearchSection {
    const NAME: &'static str = "search";
}
impl Section for CrawlSection {
    const NAME: &'static str = "crawl";
}
impl Section for DashboardSection {
    const NAME: &'static str = "dashboard";
}
impl Section for PaymentsSection {
    const NAME: &'static str = "payments";
}

/// One setting and the section that owns it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    /// The owning section's [`Section::NAME`].
    pub section: &'static str,
    /// The setting.
    pub field: Field,
}

/// Every setting of every section.
pub(crate) fn catalogue() -> &'static [Entry] {
    static CATALOGUE: OnceLock<Vec<Entry>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut entries = Vec::new();
        entries.extend(entries_of::<ServerSection>());
        entries.extend(entries_of::<StorageSection>());
        entries.extend(entries_of::<SearchSection>());
        entries.extend(entries_of::<CrawlSection>());
        entries.extend(entries_of::<DashboardSection>());
        entries.extend(entries_of::<PaymentsSection>());
        entries
    })
}

fn entries_of<S: Section>() -> impl Iterator<Item = Entry> {
    fields_of::<S>().into_iter().map(|field| Entry {
        section: S::NAME,
        field,
    })
}

fn lookup(name: &str) -> Option<Entry> {
    catalogue()
        .iter()
        .find(|entry| entry.field.name == name)
        .copied()
}

/// The values set so far, one table per section.
#[derive(Debug, Default)]
pub(crate) struct Layers {
    tables: HashMap<&'static str, toml::Table>,
}

impl Layers {
    fn set(&mut self, entry: Entry, value: toml::Value) {
        self.tables
            .entry(entry.section)
            .or_default()
            .insert(entry.field.name.to_owned(), value);
    }

    /// Adds the settings of the TOML file at `path`; a name no section owns is refused.
    pub(crate) fn file(&mut self, path: &Path) -> anyhow::Result<()> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config file {}", path.display()))?;
        let table = toml::from_str::<toml::Table>(&text)
            .with_context(|| format!("invalid config file {}", path.display()))?;
        for (name, value) in table {
            let Some(entry) = lookup(&name) else {
                bail!(
                    "invalid config file {}: unknown setting `{name}`",
                    path.display()
                );
            };
            self.set(entry, value);
        }
        Ok(())
    }

    /// Adds the `FORUMDEX_<NAME>` variables among `env` that name a setting (others, such as
    /// `FORUMDEX_DATA`, belong to the command line).
    pub(crate) fn env(
        &mut self,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> anyhow::Result<()> {
        for (variable, value) in env {
            let Some(name) = variable.strip_prefix("FORUMDEX_") else {
                continue;
            };
            if let Some(entry) = lookup(&name.to_ascii_lowercase()) {
                self.set(entry, text_value(entry.field, &value, &variable)?);
            }
        }
        Ok(())
    }

    /// Adds `flags`, (setting name, value) pairs; an unknown name is refused.
    pub(crate) fn flags(&mut self, flags: &[(&str, String)]) -> anyhow::Result<()> {
        for (name, value) in flags {
            let entry = lookup(name).with_context(|| format!("unknown setting {name}"))?;
            self.set(entry, text_value(entry.field, value, name)?);
        }
        Ok(())
    }

    /// The section `S` as set, its defaults filling the rest.
    pub(crate) fn take<S: Section>(&mut self) -> anyhow::Result<S> {
        let table = self.tables.remove(S::NAME).unwrap_or_default();
        table.try_into().context("invalid settings")
    }
}

/// A value given as text (an environment variable or a flag, called `origin` in messages).
fn text_value(field: Field, value: &str, origin: &str) -> anyhow::Result<toml::Value> {
    if field.whole_number {
        let number: i64 = value
            .trim()
            .parse()
            .with_context(|| format!("{origin}: {value:?} is not a whole number"))?;
        Ok(toml::Value::Integer(number))
    } else {
        Ok(toml::Value::String(value.to_owned()))
    }
}
