//! The fixed board tree of the synthetic forum, modelled on Bitcointalk's.

/// A language the generator writes posts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lang {
    /// English.
    En,
    /// Russian.
    Ru,
    /// German.
    De,
    /// Spanish.
    Es,
    /// Indonesian.
    Id,
    /// Chinese.
    Zh,
    /// Polish.
    Pl,
}

impl Lang {
    /// Every language, in a fixed order (profile `i` speaks `ALL[i % ALL.len()]`).
    pub const ALL: [Lang; 7] = [
        Lang::En,
        Lang::Ru,
        Lang::De,
        Lang::Es,
        Lang::Id,
        Lang::Zh,
        Lang::Pl,
    ];

    /// The ISO 639-1 code written in a post's `language` field.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
            Lang::De => "de",
            Lang::Es => "es",
            Lang::Id => "id",
            Lang::Zh => "zh",
            Lang::Pl => "pl",
        }
    }

    /// Position in [`Lang::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// What kind of topics a board holds; steers titles and post bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardKind {
    /// Ordinary discussion.
    Discussion,
    /// Altcoin announcements (`[ANN]` threads with links and images).
    Announcements,
    /// Bounty and signature campaigns (mostly low-quality reports).
    Bounties,
    /// A category that only holds child boards; no topics of its own.
    Category,
}

/// One board of the synthetic forum.
#[derive(Debug, Clone, Copy)]
pub struct Board {
    /// Forum board ID.
    pub id: u64,
    /// Name as the forum shows it.
    pub name: &'static str,
    /// Parent board, for child boards.
    pub parent: Option<u64>,
    /// Language of the posts in this board.
    pub lang: Lang,
    /// What its topics look like.
    pub kind: BoardKind,
    /// Relative share of new topics opened in this board.
    pub weight: u32,
}

const fn board(
    id: u64,
    name: &'static str,
    parent: Option<u64>,
    lang: Lang,
    kind: BoardKind,
    weight: u32,
) -> Board {
    Board {
        id,
        name,
        parent,
        lang,
        kind,
        weight,
    }
}

use BoardKind::{Announcements, Bounties, Category, Discussion};
use Lang::{De, En, Es, Id, Pl, Ru, Zh};

/// Board ID of "Local", the parent of the local-language boards.
pub const LOCAL_BOARD_ID: u64 = 241;

/// Index in [`BOARDS`] of the board holding the megathread (the largest topic).
pub const MEGATHREAD_BOARD: usize = 4;

/// The board tree; written as `board` records at the top of every corpus.
pub const BOARDS: &[Board] = &[
    board(1, "Bitcoin Discussion", None, En, Discussion, 14),
    board(
        6,
        "Development & Technical Discussion",
        None,
        En,
        Discussion,
        5,
    ),
    board(14, "Mining", None, En, Discussion, 4),
    board(7, "Economics", None, En, Discussion, 3),
    board(57, "Speculation", Some(7), En, Discussion, 7),
    board(8, "Trading Discussion", Some(7), En, Discussion, 3),
    board(5, "Marketplace", None, En, Discussion, 2),
    board(9, "Off-topic", None, En, Discussion, 4),
    board(67, "Altcoin Discussion", None, En, Discussion, 8),
    board(
        159,
        "Announcements (Altcoins)",
        Some(67),
        En,
        Announcements,
        6,
    ),
    board(238, "Bounties (Altcoins)", Some(159), En, Bounties, 6),
    board(160, "Mining (Altcoins)", Some(67), En, Discussion, 2),
    board(224, "Speculation (Altcoins)", Some(67), En, Discussion, 3),
    board(LOCAL_BOARD_ID, "Local", None, En, Category, 0),
    board(
        10,
        "Русский (Russian)",
        Some(LOCAL_BOARD_ID),
        Ru,
        Discussion,
        6,
    ),
    board(
        90,
        "Альтернативные криптовалюты",
        Some(10),
        Ru,
        Discussion,
        3,
    ),
    board(
        16,
        "Deutsch (German)",
        Some(LOCAL_BOARD_ID),
        De,
        Discussion,
        4,
    ),
    board(137, "Altcoins (Deutsch)", Some(16), De, Discussion, 1),
    board(
        11,
        "Español (Spanish)",
        Some(LOCAL_BOARD_ID),
        Es,
        Discussion,
        3,
    ),
    board(95, "Indonesia", Some(LOCAL_BOARD_ID), Id, Discussion, 4),
    board(
        199,
        "Altcoins (Bahasa Indonesia)",
        Some(95),
        Id,
        Discussion,
        2,
    ),
    board(
        30,
        "中文 (Chinese)",
        Some(LOCAL_BOARD_ID),
        Zh,
        Discussion,
        3,
    ),
    board(142, "Polski", Some(LOCAL_BOARD_ID), Pl, Discussion, 2),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_ids_are_distinct_and_parents_exist() {
        let mut ids: Vec<u64> = BOARDS.iter().map(|b| b.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), BOARDS.len());
        for b in BOARDS {
            if let Some(parent) = b.parent {
                assert!(ids.contains(&parent), "{} has no parent", b.name);
            }
        }
        assert_eq!(BOARDS[MEGATHREAD_BOARD].name, "Speculation");
    }
}
