//! The search section: the semantic leg's model.

use std::path::PathBuf;

use anyhow::bail;
use serde::Deserialize;

/// The search settings. Each field's doc names its default.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSection {
    /// The semantic model file (`FDXSEM1`), `bundled` for the model the source tree ships,
    /// or `off` for lexical search only. Default `bundled`.
    #[serde(default = "default_semantic_model")]
    pub semantic_model: String,
}

fn default_semantic_model() -> String {
    "bundled".to_owned()
}

/// Which semantic model a node loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SemanticModelSetting {
    /// The model the source tree ships.
    Bundled,
    /// No semantic leg: lexical search only.
    Off,
    /// This model file.
    File(PathBuf),
}

impl SearchSection {
    /// Refuses values that cannot work, naming the setting.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        if self.semantic_model.trim().is_empty() {
            bail!("semantic_model is empty; give a model file, `bundled` or `off`");
        }
        Ok(())
    }

    /// What `semantic_model` asks for.
    pub fn semantic_model(&self) -> SemanticModelSetting {
        match self.semantic_model.as_str() {
            "bundled" => SemanticModelSetting::Bundled,
            "off" => SemanticModelSetting::Off,
            path => SemanticModelSetting::File(PathBuf::from(path)),
        }
    }
}
