//! `forumdex takedown add|list|remove`: take a post, a topic or a profile out of the service
//! (operator-interface.md). A takedown is recorded in the corpus store and read by every
//! request, so a running server applies it from its next request on; no import or crawl
//! brings the content back while it is in force.

use clap::{ArgGroup, Args, Subcommand};
use forumdex_clock::SystemClock;
use forumdex_corpus::{ForumId, Millis, Takedown, TakedownTarget};
use serde::Serialize;

use crate::commands::storage;
use crate::global::GlobalArgs;
use crate::output::print_json;

/// Arguments of `forumdex takedown`.
#[derive(Debug, Args)]
pub struct TakedownArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: TakedownCommand,
}

/// The `takedown` subcommands.
#[derive(Debug, Subcommand)]
pub enum TakedownCommand {
    /// Take a post, a topic (with its posts) or a profile (with its posts) out of every API
    /// response, from the next request on.
    Add(AddArgs),
    /// List every takedown, lifted ones included, oldest first.
    List,
    /// Lift a takedown: the content is served again from the next request on.
    Remove(RemoveArgs),
}

/// Arguments of `forumdex takedown add`: exactly one of `--post`, `--topic`, `--profile`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["post", "topic", "profile"])))]
pub struct AddArgs {
    /// A post ID.
    #[arg(long, value_parser = forum_id)]
    pub post: Option<ForumId>,
    /// A topic ID: the topic and every post in it.
    #[arg(long, value_parser = forum_id)]
    pub topic: Option<ForumId>,
    /// A profile ID: the profile and every post it wrote.
    #[arg(long, value_parser = forum_id)]
    pub profile: Option<ForumId>,
    /// Why (recorded with the takedown; 1 to 1,000 characters).
    #[arg(long)]
    pub reason: String,
}

/// Arguments of `forumdex takedown remove`.
#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// The takedown to lift (from `takedown list`).
    #[arg(value_name = "TAKEDOWN_ID")]
    pub takedown_id: i64,
    /// Why it is lifted (recorded; optional).
    #[arg(long, default_value = "")]
    pub reason: String,
}

fn forum_id(text: &str) -> Result<ForumId, String> {
    ForumId::parse(text).ok_or_else(|| format!("{text:?} is not a forum ID (1 to 2^53 - 1)"))
}

/// A takedown as printed with `--json`.
#[derive(Debug, Serialize)]
struct TakedownView {
    takedown_id: i64,
    kind: &'static str,
    id: i64,
    reason: String,
    at: String,
    in_force: bool,
    lifted_at: Option<String>,
    lifted_reason: Option<String>,
}

impl From<&Takedown> for TakedownView {
    fn from(takedown: &Takedown) -> Self {
        Self {
            takedown_id: takedown.takedown_id,
            kind: takedown.target.kind(),
            id: takedown.target.id(),
            reason: takedown.reason.clone(),
            at: takedown.at.to_rfc3339(),
            in_force: takedown.in_force(),
            lifted_at: takedown.lifted.as_ref().map(|l| l.at.to_rfc3339()),
            lifted_reason: takedown.lifted.as_ref().map(|l| l.reason.clone()),
        }
    }
}

/// `{"takedowns": [...]}`.
#[derive(Debug, Serialize)]
struct TakedownList {
    takedowns: Vec<TakedownView>,
}

/// Runs `forumdex takedown ...`.
pub fn run(global: &GlobalArgs, args: TakedownArgs) -> anyhow::Result<()> {
    let corpus = storage(global)?.corpus()?;
    let now = Millis::now(&SystemClock);
    match args.command {
        TakedownCommand::Add(args) => {
            let target = match (args.post, args.topic, args.profile) {
                (Some(id), _, _) => TakedownTarget::Post(id.get()),
                (_, Some(id), _) => TakedownTarget::Topic(id.get()),
                (_, _, Some(id)) => TakedownTarget::Profile(id.get()),
                (None, None, None) => anyhow::bail!("give one of --post, --topic or --profile"),
            };
            let takedown = corpus.write.add_takedown(target, &args.reason, now)?;
            print(global, &takedown, "took down")
        }
        TakedownCommand::List => {
            let takedowns = corpus.read.takedowns()?;
            if global.json {
                return print_json(&TakedownList {
                    takedowns: takedowns.iter().map(TakedownView::from).collect(),
                });
            }
            if takedowns.is_empty() {
                println!("no takedowns");
            }
            for takedown in &takedowns {
                println!("{}", describe(takedown));
            }
            Ok(())
        }
        TakedownCommand::Remove(args) => {
            let takedown = corpus
                .write
                .lift_takedown(args.takedown_id, &args.reason, now)?;
            print(global, &takedown, "lifted")
        }
    }
}

fn print(global: &GlobalArgs, takedown: &Takedown, done: &str) -> anyhow::Result<()> {
    if global.json {
        return print_json(&TakedownView::from(takedown));
    }
    println!("{done}: {}", describe(takedown));
    Ok(())
}

/// One line describing a takedown, for people.
fn describe(takedown: &Takedown) -> String {
    let state = match &takedown.lifted {
        None => "in force".to_owned(),
        Some(lifted) if lifted.reason.is_empty() => {
            format!("lifted {}", lifted.at.to_rfc3339())
        }
        Some(lifted) => format!("lifted {} ({})", lifted.at.to_rfc3339(), lifted.reason),
    };
    format!(
        "takedown {}  {}  since {}  {state}  reason: {}",
        takedown.takedown_id,
        takedown.target,
        takedown.at.to_rfc3339(),
        takedown.reason
    )
}
