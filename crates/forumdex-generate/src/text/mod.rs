//! Post text: per-language phrase banks, template filling and the body builders.
//!
//! Every builder takes its own random source, so a post body is a pure function of
//! (seed, kind, language, author name): quotes and copy-paste duplicates regenerate an
//! earlier body from its seed instead of keeping it in memory.

mod de;
mod en;
mod es;
mod id;
mod pl;
mod ru;
mod zh;

use std::fmt::Write as _;

use chrono::DateTime;
use rand::Rng;

use crate::boards::{BoardKind, Lang};

/// The phrases of one language; strings may hold `{slot}` placeholders (see [`fill`]).
pub(crate) struct Bank {
    /// Topic titles.
    pub titles: &'static [&'static str],
    /// First sentence of an opening post.
    pub openers: &'static [&'static str],
    /// Body sentences.
    pub sentences: &'static [&'static str],
    /// Low-quality one-liners.
    pub short: &'static [&'static str],
    /// Notes appended when a post is edited.
    pub edits: &'static [&'static str],
    /// Sentences that introduce a link.
    pub link_intros: &'static [&'static str],
}

/// The phrase bank of `lang`.
pub(crate) fn bank(lang: Lang) -> &'static Bank {
    match lang {
        Lang::En => &en::BANK,
        Lang::Ru => &ru::BANK,
        Lang::De => &de::BANK,
        Lang::Es => &es::BANK,
        Lang::Id => &id::BANK,
        Lang::Zh => &zh::BANK,
        Lang::Pl => &pl::BANK,
    }
}

const COINS: &[&str] = &[
    "Bitcoin", "BTC", "Ethereum", "Monero", "Litecoin", "Dogecoin", "Solana", "USDT", "XRP",
    "Cardano", "Dash", "Zcash", "BNB", "Tron",
];
const EXCHANGES: &[&str] = &[
    "Binance",
    "Kraken",
    "Bitfinex",
    "Poloniex",
    "Bittrex",
    "KuCoin",
    "Coinbase",
    "Huobi",
    "OKX",
    "Bitstamp",
    "Gate.io",
    "Bybit",
    "LocalBitcoins",
    "Indodax",
    "Bitbay",
];
const WALLETS: &[&str] = &[
    "Electrum",
    "Ledger Nano S",
    "Trezor Model T",
    "Bitcoin Core",
    "Wasabi",
    "Sparrow",
    "MetaMask",
    "Exodus",
    "Coldcard",
    "BlueWallet",
    "Samourai",
    "Mycelium",
];
const HARDWARE: &[&str] = &[
    "Antminer S9",
    "Antminer S19",
    "Whatsminer M30S",
    "Avalon 1246",
    "GTX 1080 Ti",
    "RX 580",
    "RTX 3070",
    "Antminer L7",
    "GekkoScience Compac F",
    "Butterfly Labs Jalapeno",
];
const NICHES: &[&str] = &[
    "DeFi lending",
    "GameFi",
    "NFT art",
    "cross-chain payments",
    "cloud mining",
    "esports betting",
    "supply chain tracking",
    "social trading",
    "decentralized storage",
    "micro-payments",
    "prediction markets",
    "real estate tokens",
];
const ALT_HEAD: &[&str] = &[
    "Zen", "Kor", "Vel", "Aur", "Nex", "Quan", "Lum", "Tor", "Xen", "Pol", "Sol", "Ark", "Bit",
    "Cry", "Dar", "Eth", "Fyn", "Gal", "Hex", "Ion", "Jov", "Kyr", "Mon", "Nov", "Orb", "Pyr",
    "Rav", "Syn", "Tal", "Vox",
];
const ALT_MID: &[&str] = &[
    "a", "o", "i", "e", "u", "ara", "ori", "eno", "ix", "yl", "ant", "em",
];
const ALT_TAIL: &[&str] = &[
    "x", "n", "coin", "chain", "ium", "ex", "ora", "ity", "net", "swap", "fi", "pay", "verse", "io",
];
const NAME_HEAD: &[&str] = &[
    "crypto", "Satoshi", "hodl", "Bit", "Block", "moon", "Lambo", "Doge", "Miner", "Hash", "Chain",
    "Alt", "Whale", "Bear", "Bull", "Ledger", "Coin", "Sat", "Node", "Token", "Dark", "Red",
    "Cold", "Iron", "Lucky", "Silent", "Crazy", "Old", "Digital", "Cyber", "Zero", "Mega", "Lazy",
    "Happy", "Vlad", "Hans", "Pablo", "Budi", "Wei", "Kasia",
];
const NAME_TAIL: &[&str] = &[
    "King", "_fan", "er", "man", "Master", "Lord", "Hunter", "Trader", "boy", "Guru", "Wolf",
    "_88", "Rider", "Maker", "Seeker", "Monk", "ninja", "Pro", "_btc", "Knight", "Fox", "Baron",
    "Walker", "stack", "Punk", "_x", "Runner", "Smith", "Vision", "Dreamer", "Sailor", "Farmer",
    "_ru", "_de", "_id", "Bear", "Hawk", "Miner", "Jack", "Owl",
];

/// Appends `template` to `out`, replacing each `{slot}` with a random value of its kind.
pub(crate) fn fill<R: Rng>(rng: &mut R, template: &str, out: &mut String) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return;
        };
        slot(rng, &after[..close], out);
        rest = &after[close + 1..];
    }
    out.push_str(rest);
}

/// Appends a random template of `list`, filled.
fn fill_pick<R: Rng>(rng: &mut R, list: &[&'static str], out: &mut String) {
    let template = pick(rng, list);
    fill(rng, template, out);
}

fn pick<R: Rng>(rng: &mut R, list: &[&'static str]) -> &'static str {
    list[rng.gen_range(0..list.len())]
}

fn slot<R: Rng>(rng: &mut R, name: &str, out: &mut String) {
    match name {
        "coin" => out.push_str(pick(rng, COINS)),
        "exchange" => out.push_str(pick(rng, EXCHANGES)),
        "wallet" => out.push_str(pick(rng, WALLETS)),
        "hw" => out.push_str(pick(rng, HARDWARE)),
        "niche" => out.push_str(pick(rng, NICHES)),
        "alt" => alt_name(rng, out),
        "price" => {
            let price: u32 = rng.gen_range(80..72_000);
            if price >= 1000 {
                let _ = write!(out, "{},{:03}", price / 1000, price % 1000);
            } else {
                let _ = write!(out, "{price}");
            }
        }
        "n" => {
            let _ = write!(out, "{}", rng.gen_range(2..100u32));
        }
        "pct" => {
            let _ = write!(out, "{}", rng.gen_range(3..91u32));
        }
        "year" => {
            let _ = write!(out, "{}", rng.gen_range(2013..2025u32));
        }
        "q" => {
            let _ = write!(out, "{}", rng.gen_range(1..5u32));
        }
        other => {
            out.push('{');
            out.push_str(other);
            out.push('}');
        }
    }
}

/// Appends a made-up altcoin project name such as "Velarachain" (about 5,000 names).
pub(crate) fn alt_name<R: Rng>(rng: &mut R, out: &mut String) {
    out.push_str(pick(rng, ALT_HEAD));
    out.push_str(pick(rng, ALT_MID));
    out.push_str(pick(rng, ALT_TAIL));
}

/// Username of the profile with index `index`: distinct for distinct indexes.
pub(crate) fn username(index: u64) -> String {
    let heads = NAME_HEAD.len() as u64;
    let tails = NAME_TAIL.len() as u64;
    let head = NAME_HEAD[((index * 17) % heads) as usize];
    let tail = NAME_TAIL[((index / heads * 7 + index) % tails) as usize];
    let round = index / (heads * tails);
    if round == 0 {
        format!("{head}{tail}")
    } else {
        format!("{head}{tail}{round}")
    }
}

/// Username shown for a guest post, derived from `key`.
pub(crate) fn guest_name(key: u64) -> String {
    let head = NAME_HEAD[(key % NAME_HEAD.len() as u64) as usize];
    let tail = NAME_TAIL[((key >> 8) % NAME_TAIL.len() as u64) as usize];
    format!("{head}{tail}{}", (key >> 16) % 1000)
}

/// Formats a Unix time the way SMF prints it in quote headers ("March 05, 2019, 10:10:58 PM").
pub(crate) fn smf_date(unix_s: i64, out: &mut String) {
    if let Some(time) = DateTime::from_timestamp(unix_s, 0) {
        let _ = write!(out, "{}", time.format("%B %d, %Y, %I:%M:%S %p"));
    }
}

/// What a post's own text looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// An opening post.
    Opening,
    /// An ordinary reply.
    Reply,
    /// Low quality: a one-liner ("nice project sir").
    Short,
    /// Low quality: a bounty / signature campaign report.
    Bounty,
    /// Low quality: shouting in capitals.
    Caps,
    /// Low quality: a pile of referral links.
    Links,
}

impl BodyKind {
    /// Whether this is one of the low-quality kinds (spam a search may filter out).
    pub(crate) fn is_low_quality(self) -> bool {
        matches!(
            self,
            BodyKind::Short | BodyKind::Bounty | BodyKind::Caps | BodyKind::Links
        )
    }
}

/// Title of a topic opened in a board of `kind` and language `lang`.
pub(crate) fn topic_title<R: Rng>(rng: &mut R, lang: Lang, kind: BoardKind) -> String {
    let mut title = String::new();
    match (lang, kind) {
        (Lang::En, BoardKind::Announcements) => {
            title.push_str("[ANN] ");
            alt_name(rng, &mut title);
            title.push_str(" | ");
            fill(
                rng,
                "{niche} | Mainnet live | Staking up to {pct}% APY",
                &mut title,
            );
        }
        (Lang::En, BoardKind::Bounties) => {
            title.push_str("[BOUNTY] ");
            alt_name(rng, &mut title);
            title.push_str(" - Signature, Twitter and Telegram campaign | ");
            fill(rng, "{n},000,000 tokens reward pool", &mut title);
        }
        _ => fill_pick(rng, bank(lang).titles, &mut title),
    }
    title
}

/// Appends `count` body sentences of `lang`, separated by spaces.
fn sentences<R: Rng>(rng: &mut R, lang: Lang, count: usize, out: &mut String) {
    let bank = bank(lang);
    for i in 0..count {
        if i > 0 && lang != Lang::Zh {
            out.push(' ');
        }
        fill_pick(rng, bank.sentences, out);
    }
}

fn paragraph_break<R: Rng>(rng: &mut R, out: &mut String) {
    if rng.gen_ratio(1, 4) {
        out.push_str("<br />");
    } else {
        out.push_str("<br /><br />");
    }
}

fn hex<R: Rng>(rng: &mut R, digits: usize, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for _ in 0..digits {
        out.push(HEX[rng.gen_range(0..16)] as char);
    }
}

/// Appends a plausible link (`<a href>`) to `out`.
pub(crate) fn link<R: Rng>(rng: &mut R, out: &mut String) {
    let mut url = String::new();
    match rng.gen_range(0..5) {
        0 => {
            let _ = write!(
                url,
                "https://bitcointalk.org/index.php?topic={}.0",
                rng.gen_range(1000..5_500_000u32)
            );
        }
        1 => {
            let mut name = String::new();
            alt_name(rng, &mut name);
            let name = name.to_lowercase();
            let _ = write!(url, "https://github.com/{name}/{name}-core");
        }
        2 => {
            url.push_str("https://coinmarketcap.com/currencies/");
            let mut name = String::new();
            alt_name(rng, &mut name);
            url.push_str(&name.to_lowercase());
            url.push('/');
        }
        3 => {
            url.push_str("https://mempool.space/tx/");
            hex(rng, 64, &mut url);
        }
        _ => {
            url.push_str("https://www.reddit.com/r/Bitcoin/comments/");
            hex(rng, 6, &mut url);
            url.push('/');
        }
    }
    let _ = write!(out, "<a href=\"{url}\">{url}</a>");
}

/// Appends the own text of a post (no quote, no image) built from `rng`.
///
/// `author` is the name shown on the post (bounty reports repeat it).
pub(crate) fn body<R: Rng>(
    rng: &mut R,
    kind: BodyKind,
    lang: Lang,
    board: BoardKind,
    author: &str,
    out: &mut String,
) {
    let bank = bank(lang);
    match kind {
        BodyKind::Opening => {
            fill_pick(rng, bank.openers, out);
            if lang != Lang::Zh {
                out.push(' ');
            }
            let count = rng.gen_range(2..6);
            sentences(rng, lang, count, out);
            if board == BoardKind::Announcements {
                announcement_block(rng, out);
            }
            for _ in 0..rng.gen_range(0..3) {
                paragraph_break(rng, out);
                let count = rng.gen_range(1..5);
                sentences(rng, lang, count, out);
            }
        }
        BodyKind::Reply => {
            let paragraphs = match rng.gen_range(0..10) {
                0..=5 => 1,
                6..=8 => 2,
                _ => 3,
            };
            for p in 0..paragraphs {
                if p > 0 {
                    paragraph_break(rng, out);
                }
                let count = rng.gen_range(1..5);
                sentences(rng, lang, count, out);
            }
            if rng.gen_ratio(1, 12) {
                out.push_str("<br /><br />");
                fill_pick(rng, bank.link_intros, out);
                out.push(' ');
                link(rng, out);
            }
        }
        BodyKind::Short => {
            fill_pick(rng, bank.short, out);
            if rng.gen_ratio(1, 3) {
                out.push_str("!!");
            }
        }
        BodyKind::Bounty => bounty_report(rng, author, out),
        BodyKind::Caps => {
            let mut text = String::new();
            let count = rng.gen_range(1..3);
            sentences(rng, lang, count, &mut text);
            out.push_str(
                text.trim_end_matches(['.', '!', '?'])
                    .to_uppercase()
                    .as_str(),
            );
            out.push_str("!!!");
        }
        BodyKind::Links => {
            fill(rng, "JOIN NOW and get {pct}% bonus tokens:", out);
            for _ in 0..rng.gen_range(3..7) {
                out.push_str("<br />");
                let mut name = String::new();
                alt_name(rng, &mut name);
                let domain = name.to_lowercase();
                let _ = write!(
                    out,
                    "<a href=\"https://{domain}.io/?ref={author}\">https://{domain}.io/?ref={author}</a>"
                );
            }
        }
    }
}

fn announcement_block<R: Rng>(rng: &mut R, out: &mut String) {
    let mut name = String::new();
    alt_name(rng, &mut name);
    let domain = name.to_lowercase();
    let _ = write!(
        out,
        "<br /><br /><b>{name} ({ticker})</b><br />Website: <a href=\"https://{domain}.io\">https://{domain}.io</a><br />Whitepaper: <a href=\"https://{domain}.io/whitepaper.pdf\">https://{domain}.io/whitepaper.pdf</a><br />Total supply: {supply},000,000<br />Algorithm: {algo}<br />Telegram: <a href=\"https://t.me/{domain}\">https://t.me/{domain}</a>",
        ticker = domain.chars().take(4).collect::<String>().to_uppercase(),
        supply = rng.gen_range(1..1000u32),
        algo = pick(
            rng,
            &[
                "SHA-256", "Scrypt", "X11", "Equihash", "RandomX", "PoS", "Ethash"
            ]
        ),
    );
}

fn bounty_report<R: Rng>(rng: &mut R, author: &str, out: &mut String) {
    let mut campaign = String::new();
    alt_name(rng, &mut campaign);
    let _ = write!(
        out,
        "<b>Bounty report week {week}</b><br />Campaign: {campaign} signature campaign<br />Bitcointalk username: {author}<br />Telegram username: @{tg}<br />Twitter: <a href=\"https://twitter.com/{author}\">https://twitter.com/{author}</a><br />ERC-20 wallet address: 0x",
        week = rng.gen_range(1..13u32),
        tg = author.to_lowercase(),
    );
    hex(rng, 40, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn fill_replaces_every_known_slot() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for lang in Lang::ALL {
            let b = bank(lang);
            for t in b
                .titles
                .iter()
                .chain(b.openers)
                .chain(b.sentences)
                .chain(b.short)
                .chain(b.edits)
                .chain(b.link_intros)
            {
                let mut out = String::new();
                fill(&mut rng, t, &mut out);
                assert!(!out.contains('{'), "{lang:?}: unfilled slot in {t}");
                assert!(!out.contains('<') && !out.contains('&'), "{t}");
            }
        }
    }

    #[test]
    fn usernames_are_distinct() {
        let names: std::collections::BTreeSet<String> = (0..20_000).map(username).collect();
        assert_eq!(names.len(), 20_000);
    }

    #[test]
    fn smf_date_format() {
        let mut out = String::new();
        smf_date(1_551_823_858, &mut out);
        assert_eq!(out, "March 05, 2019, 10:10:58 PM");
    }
}
