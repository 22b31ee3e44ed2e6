//! `forumdex demo`: a first look in one command. Generates and imports a demo corpus when
//! the data folder has none, makes sure a demo account with credits exists, issues a fresh
//! key (a secret can be shown only once), prints example requests, and serves.

use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use forumdex_accounts::{AccountId, DeveloperStore, Email, KeyLifetime, NewKey};
use forumdex_clock::{Clock, SystemClock};
use forumdex_corpus::{ChangePosition, CorpusRead, PostDoc};
use forumdex_generate::{GenerateConfig, generate};
use forumdex_ingest::source::Source;
use forumdex_search::{Indexer, SearchIndexes};
use forumdex_settings::PaymentProviderSetting;

use crate::commands::{import, serve};
use crate::global::GlobalArgs;

/// Posts in the generated demo corpus.
const DEMO_POSTS: u64 = 20_000;
/// The demo account is topped up to this balance when it runs low.
const DEMO_CREDITS: u64 = 1_000;
/// File in the data folder remembering the demo account's id.
const DEMO_ACCOUNT_FILE: &str = "demo-account";
/// The demo developer's sign-in address on the dashboard.
const DEMO_EMAIL: &str = "demo@forumdex.invalid";

/// Arguments of `forumdex demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Address to serve on (default 127.0.0.1:8080).
    #[arg(long)]
    pub listen: Option<String>,
}

/// Runs `forumdex demo`.
pub fn run(global: &GlobalArgs, args: DemoArgs) -> anyhow::Result<()> {
    let mut settings = serve::load_settings(global, args.listen)?;
    if settings.payments.payment_provider == PaymentProviderSetting::None {
        // A first look includes topping up: the test provider moves no money.
        settings.payments.payment_provider = PaymentProviderSetting::Test;
    }
    let storage = settings.storage.factory(&global.data);
    let corpus = storage.corpus()?;
    if corpus.read.latest_seq()? == 0 {
        let out = global.data.join("demo").join("demo-corpus.jsonl");
        println!(
            "No corpus in {}: generating {DEMO_POSTS} demo posts into {} and importing them...",
            global.data.display(),
            out.display()
        );
        generate(
            &GenerateConfig {
                posts: DEMO_POSTS,
                seed: 1,
            },
            &out,
        )?;
        let summary = import::import(
            &storage,
            corpus.write.as_ref(),
            &[Source::File(out)],
            5_000,
            true,
        )?;
        // Index before serving, as `forumdex import` does: the server's own sync would
        // take a moment, and a search in that moment would find nothing.
        SearchIndexes::open(storage.data_dir())
            .and_then(|indexes| {
                Indexer::new(Arc::new(indexes), Arc::clone(&corpus.read)).catch_up()
            })
            .context("indexing the demo corpus")?;
        println!(
            "Imported {} lines ({} post records, {} topic records, {} profile records, {} images cached as AVIF).",
            summary.accepted,
            summary.posts,
            summary.topics,
            summary.profiles,
            summary.images_cached
        );
    } else {
        println!("Using the corpus already in {}.", global.data.display());
    }
    let accounts = storage.developer_accounts()?;
    let (account, password) = demo_account(accounts.as_ref(), &global.data)?;
    let now = SystemClock.now();
    let created = accounts.create_key(
        account,
        &NewKey {
            lifetime: KeyLifetime::Days7,
            name: Some("demo".to_owned()),
            ..NewKey::default()
        },
        now,
    )?;
    let credits = accounts.balance(account)?;
    let example = example_post(corpus.read.as_ref())?;
    let key = created.secret.expose_secret().to_owned();
    let outbox = global.data.join(forumdex_dashboard::OutboxMailer::FOLDER);
    serve::serve(global, settings, move |server| {
        let base = &server.app().settings.server.base_url;
        println!();
        println!("forumdex is serving on {base}");
        println!("Demo account {account} has {credits} credits; a new 7-day key for it:");
        println!();
        println!("    {key}");
        println!();
        println!("Try:");
        let auth = format!("-H 'Authorization: Bearer {key}'");
        if let Some(post) = example {
            println!("    curl {auth} {base}/api/v1/posts/{}", post.post_id);
            println!("    curl {auth} {base}/api/v1/topics/{}", post.topic_id);
            println!(
                "    curl {auth} '{base}/api/v1/topics/{}/posts?limit=5&order=desc'",
                post.topic_id
            );
            if let Some(author) = post.author_id {
                println!("    curl {auth} {base}/api/v1/profiles/{author}");
                println!("    curl {auth} '{base}/api/v1/profiles/{author}/posts?limit=5'");
            }
        }
        println!("    curl {auth} '{base}/api/v1/search?q=hardware+wallet&lang=en'");
        println!("    curl {auth} '{base}/api/v1/images/search?q=chart&size=5'");
        println!("    curl {base}/healthz");
        println!();
        println!("Developer dashboard: {base}/  (sign in at {base}/login)");
        println!("    email:    {DEMO_EMAIL}");
        println!("    password: {password}");
        println!(
            "Mail the dashboard sends (sign-up links) lands in {}.",
            outbox.display()
        );
        println!();
        println!("Stop with Ctrl-C.");
    })
}

/// The demo account recorded in the data folder, created (or topped up) as needed, with a
/// verified dashboard login whose password is new at every run (only its hash is kept):
/// the account and that password.
fn demo_account(
    accounts: &dyn DeveloperStore,
    data: &std::path::Path,
) -> anyhow::Result<(AccountId, String)> {
    let marker = data.join(DEMO_ACCOUNT_FILE);
    let now = SystemClock.now();
    let email = Email::parse(DEMO_EMAIL).expect("a valid address");
    let password = format!("demo-{}", &forumdex_dashboard::session::new_token()[..16]);
    let hash = forumdex_dashboard::password::hash(&password)?;
    let recorded = std::fs::read_to_string(&marker)
        .ok()
        .and_then(|text| text.trim().parse::<AccountId>().ok());
    let account = match accounts.login_by_email(&email)? {
        Some(login) if Some(login.account_id) == recorded => {
            accounts.set_password(login.account_id, &hash)?;
            login.account_id
        }
        _ => {
            // A data folder from before the dashboard (or none): a new account with a login.
            let id = match accounts.login_by_email(&email)? {
                Some(login) => {
                    accounts.set_password(login.account_id, &hash)?;
                    login.account_id
                }
                None => accounts.register(&email, &hash, now)?,
            };
            accounts.mark_verified(id, 0, now)?;
            std::fs::write(&marker, id.to_string())
                .with_context(|| format!("cannot write {}", marker.display()))?;
            id
        }
    };
    let balance = accounts.balance(account)?;
    if balance < DEMO_CREDITS / 10 {
        accounts.add_credits(account, DEMO_CREDITS - balance, now)?;
    }
    Ok((account, password))
}

/// A post with an author, to fill the example requests.
fn example_post(corpus: &dyn CorpusRead) -> anyhow::Result<Option<PostDoc>> {
    let seq = corpus.latest_seq()?;
    let posts: Vec<PostDoc> = corpus
        .posts_changed(0, seq, ChangePosition::default(), 200)?
        .into_iter()
        .filter_map(|(_, change)| change.current())
        .collect();
    let with_author = posts.iter().find(|post| post.author_id.is_some());
    Ok(with_author.or(posts.first()).cloned())
}
