//! The language of a board, the prior of [`crate::language::route`]: read from the board's
//! name ([`name_language`]), else inherited from its parent ("Altcoins" under "Русский
//! (Russian)" is Russian), and [`BoardLanguages`], what an import knows about boards as it
//! reads: the board and topic records seen so far, and for boards it has not seen, the
//! name the corpus already shows on the topic's posts.

use std::collections::{HashMap, HashSet};

use forumdex_corpus::record::{PostRecord, Record};
use forumdex_corpus::{CorpusRead, ListFilters, ListRequest, Order, Scope, StoreError};
use whatlang::Lang;

/// Words of board names that name a language, lowercase: the local boards of Bitcointalk
/// ("Deutsch (German)", "Русский (Russian)", "Polski", "Ελληνικά (Greek)", "日本語
/// (Japanese)", "Bahasa Indonesia", "Pilipinas", ...) spell their language in English, in
/// the language itself, or name its country. Boards whose name holds none of these words
/// ("Announcements (Altcoins)", "Bitcoin Discussion") have no language of their own: their
/// posts are mostly English but mixed, so their text decides.
///
/// "India" is left out on purpose: its posts are English (411 of its 420 posts in the real
/// sample are detected English with full confidence), with some Hindi that detection
/// recognises by its script. A country whose posts mix languages is not a language prior.
const NAME_WORDS: &[(&str, Lang)] = &[
    ("arabic", Lang::Ara),
    ("العربية", Lang::Ara),
    ("bengali", Lang::Ben),
    ("bangla", Lang::Ben),
    ("বাংলা", Lang::Ben),
    ("chinese", Lang::Cmn),
    ("中文", Lang::Cmn),
    ("croatian", Lang::Hrv),
    ("hrvatski", Lang::Hrv),
    ("dutch", Lang::Nld),
    ("nederlands", Lang::Nld),
    ("filipino", Lang::Tgl),
    ("tagalog", Lang::Tgl),
    ("pilipinas", Lang::Tgl),
    ("philippines", Lang::Tgl),
    ("french", Lang::Fra),
    ("français", Lang::Fra),
    ("francais", Lang::Fra),
    ("german", Lang::Deu),
    ("deutsch", Lang::Deu),
    ("greek", Lang::Ell),
    ("ελληνικά", Lang::Ell),
    ("hebrew", Lang::Heb),
    ("עברית", Lang::Heb),
    ("hindi", Lang::Hin),
    ("हिन्दी", Lang::Hin),
    ("indonesian", Lang::Ind),
    ("indonesia", Lang::Ind),
    ("italian", Lang::Ita),
    ("italiano", Lang::Ita),
    ("japanese", Lang::Jpn),
    ("日本語", Lang::Jpn),
    ("korean", Lang::Kor),
    ("한국어", Lang::Kor),
    ("persian", Lang::Pes),
    ("farsi", Lang::Pes),
    ("فارسی", Lang::Pes),
    ("polish", Lang::Pol),
    ("polski", Lang::Pol),
    ("portuguese", Lang::Por),
    ("português", Lang::Por),
    ("portugues", Lang::Por),
    ("brasil", Lang::Por),
    ("romanian", Lang::Ron),
    ("română", Lang::Ron),
    ("romana", Lang::Ron),
    ("russian", Lang::Rus),
    ("русский", Lang::Rus),
    ("spanish", Lang::Spa),
    ("español", Lang::Spa),
    ("espanol", Lang::Spa),
    ("thai", Lang::Tha),
    ("ภาษาไทย", Lang::Tha),
    ("turkish", Lang::Tur),
    ("türkçe", Lang::Tur),
    ("turkce", Lang::Tur),
    ("ukrainian", Lang::Ukr),
    ("українська", Lang::Ukr),
    ("urdu", Lang::Urd),
    ("اردو", Lang::Urd),
    ("vietnamese", Lang::Vie),
    ("tiếng", Lang::Vie),
];

/// The language a board's name names: its first word (split at anything but letters and
/// digits, compared lowercase) found in the table of language and country names above.
pub fn name_language(name: &str) -> Option<Lang> {
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .find_map(|word| {
            let word = word.to_lowercase();
            NAME_WORDS
                .iter()
                .find(|(known, _)| *known == word)
                .map(|(_, lang)| *lang)
        })
}

/// Parents followed at most from a board to the first that names a language (a cycle in
/// the records stops there).
const MAX_DEPTH: usize = 8;
/// Topics whose board is remembered (for posts that name no board); past this many the
/// memory starts over, so it stays bounded on any corpus (posts follow their topic closely
/// in every producer's files).
const MAX_TOPICS: usize = 1 << 18;
/// Posts a store lookup examines to find one of a topic's posts in a board.
const LOOKUP_SCAN: usize = 200;

/// A board as far as its language goes.
#[derive(Debug, Clone)]
struct BoardFacts {
    name: String,
    parent: Option<i64>,
}

/// Board languages as an import learns them: from the board and topic records it reads (in
/// order: a board record counts for the posts after it) and, for a board it has not read,
/// from the corpus as it was before the import (the board's name on one of the topic's
/// posts; the corpus's read side does not show a board's parent, so such a board inherits
/// nothing). Each board's language is worked out once and kept until a board record
/// changes what is known.
pub struct BoardLanguages<'a> {
    /// The corpus and the sequence to read it at; `None` knows only the records read.
    store: Option<(&'a dyn CorpusRead, i64)>,
    boards: HashMap<i64, BoardFacts>,
    /// Topic -> board, from topic records and store lookups (`None`: looked up, unknown).
    topics: HashMap<i64, Option<i64>>,
    /// Store lookups done: (topic, board asked for; `None`: the topic's board).
    asked: HashSet<(i64, Option<i64>)>,
    languages: HashMap<i64, Option<Lang>>,
}

impl<'a> BoardLanguages<'a> {
    /// Knows only the records it is shown.
    pub fn from_records() -> Self {
        Self {
            store: None,
            boards: HashMap::new(),
            topics: HashMap::new(),
            asked: HashSet::new(),
            languages: HashMap::new(),
        }
    }

    /// Also looks up boards it has not been shown in `store` at sequence `seq`.
    pub fn over_store(store: &'a dyn CorpusRead, seq: i64) -> Self {
        Self {
            store: Some((store, seq)),
            ..Self::from_records()
        }
    }

    /// Learns from a record, in the order of the input: a board's name and parent, a
    /// topic's board.
    pub fn observe(&mut self, record: &Record) {
        match record {
            Record::Board(board) => {
                self.boards.insert(
                    board.board_id.get(),
                    BoardFacts {
                        name: board.name.clone(),
                        parent: board.parent_board_id.map(|id| id.get()),
                    },
                );
                // A name or parent may change the language of this board's children.
                self.languages.clear();
            }
            Record::Topic(topic) => {
                if let Some(board) = topic.board_id {
                    self.remember_topic(topic.topic_id.get(), Some(board.get()));
                }
            }
            _ => {}
        }
    }

    /// The language of `post`'s board (its own board, else its topic's), if the board or
    /// one of its parents names one.
    pub fn of_post(&mut self, post: &PostRecord) -> Result<Option<Lang>, StoreError> {
        let topic_id = post.topic_id.get();
        let board = match post.board_id {
            Some(board) => Some(board.get()),
            None => match self.topics.get(&topic_id) {
                Some(board) => *board,
                None => self.look_up(topic_id, None)?,
            },
        };
        let Some(board) = board else {
            return Ok(None);
        };
        if let Some(language) = self.languages.get(&board) {
            return Ok(*language);
        }
        if !self.boards.contains_key(&board) {
            self.look_up(topic_id, Some(board))?;
        }
        let language = self.walk(board);
        self.languages.insert(board, language);
        Ok(language)
    }

    /// The first language named by `board` or its parents.
    fn walk(&self, board: i64) -> Option<Lang> {
        let mut next = Some(board);
        for _ in 0..MAX_DEPTH {
            let facts = self.boards.get(&next?)?;
            if let Some(language) = name_language(&facts.name) {
                return Some(language);
            }
            next = facts.parent;
        }
        None
    }

    /// Asks the store (once per topic and board) for one of `topic_id`'s posts, in `board`
    /// when given, and learns that post's board and its name; returns the board.
    fn look_up(&mut self, topic_id: i64, board: Option<i64>) -> Result<Option<i64>, StoreError> {
        let Some((store, seq)) = self.store else {
            return Ok(None);
        };
        if self.asked.len() >= MAX_TOPICS {
            self.asked.clear();
        }
        if !self.asked.insert((topic_id, board)) {
            return Ok(None);
        }
        let request = ListRequest {
            scope: Scope::Topic(topic_id),
            order: Order::Asc,
            filters: ListFilters {
                board_id: board,
                ..ListFilters::default()
            },
            limit: 1,
            after: None,
            scan_budget: LOOKUP_SCAN,
        };
        let page = store.list_posts(&request, seq)?;
        let found = page.posts.into_iter().next().and_then(|post| {
            let id = post.board.board_id?;
            (!post.board.name.is_empty()).then_some((id, post.board.name))
        });
        let Some((id, name)) = found else {
            if board.is_none() {
                self.remember_topic(topic_id, None);
            }
            return Ok(None);
        };
        self.boards
            .entry(id)
            .or_insert(BoardFacts { name, parent: None });
        if board.is_none() {
            self.remember_topic(topic_id, Some(id));
        }
        Ok(Some(id))
    }

    fn remember_topic(&mut self, topic_id: i64, board: Option<i64>) {
        if self.topics.len() >= MAX_TOPICS {
            self.topics.clear();
        }
        self.topics.insert(topic_id, board);
    }
}

#[cfg(test)]
mod tests {
    use forumdex_corpus::Observation;

    use super::*;

    #[test]
    fn names_of_local_boards_name_their_language() {
        let cases = [
            // Every local board of the real sample.
            ("Русский (Russian)", Lang::Rus),
            ("Português (Portuguese)", Lang::Por),
            ("日本語 (Japanese)", Lang::Jpn),
            ("Ελληνικά (Greek)", Lang::Ell),
            ("Bahasa Indonesia (Indonesian)", Lang::Ind),
            ("Deutsch (German)", Lang::Deu),
            ("Pilipinas", Lang::Tgl),
            ("Polski", Lang::Pol),
            // Other Bitcointalk local boards and spellings.
            ("Indonesia", Lang::Ind),
            ("Bahasa Indonesia", Lang::Ind),
            ("Türkçe (Turkish)", Lang::Tur),
            ("Italiano (Italian)", Lang::Ita),
            ("Español (Spanish)", Lang::Spa),
            ("Français", Lang::Fra),
            ("中文 (Chinese)", Lang::Cmn),
            ("Nederlands (Dutch)", Lang::Nld),
            ("Română (Romanian)", Lang::Ron),
            ("Hrvatski (Croatian)", Lang::Hrv),
            ("Arabic", Lang::Ara),
            ("العربية (Arabic)", Lang::Ara),
            ("한국어 (Korean)", Lang::Kor),
            ("Tiếng Việt (Vietnamese)", Lang::Vie),
            ("ภาษาไทย (Thai)", Lang::Tha),
            ("עברית (Hebrew)", Lang::Heb),
            ("Altcoins (Deutsch)", Lang::Deu),
            ("DEUTSCH", Lang::Deu),
        ];
        for (name, lang) in cases {
            assert_eq!(name_language(name), Some(lang), "{name}");
        }
    }

    #[test]
    fn other_boards_name_no_language() {
        for name in [
            "Announcements (Altcoins)",
            "Bitcoin Discussion",
            "Marketplace (Altcoins)",
            "Development & Technical Discussion",
            "Off-topic",
            "Altcoins",
            "Trading und Spekulation",
            "India",
            "Thailand's miners",
            "Germany",
            "",
        ] {
            assert_eq!(name_language(name), None, "{name}");
        }
    }

    #[test]
    fn the_table_names_only_detectable_languages() {
        for (word, lang) in NAME_WORDS {
            assert!(crate::language::LANGUAGES.contains(lang), "{word}");
            assert!(crate::language::code(*lang).is_some(), "{word}");
            assert_eq!(*word, word.to_lowercase(), "table words are lowercase");
        }
    }

    fn record(line: &str) -> Record {
        Observation::parse_line(line.as_bytes())
            .expect("a valid line")
            .record
    }

    fn board(id: i64, name: &str, parent: Option<i64>) -> Record {
        record(&format!(
            r#"{{"kind":"board","board_id":{id},"name":"{name}","parent_board_id":{},"observed_at":"2024-03-01T12:00:00Z"}}"#,
            parent.map_or("null".to_owned(), |p| p.to_string())
        ))
    }

    fn post(topic: i64, board: Option<i64>) -> PostRecord {
        let board = board.map_or(String::new(), |b| format!(r#""board_id":{b},"#));
        match record(&format!(
            r#"{{"kind":"post","post_id":1,"topic_id":{topic},{board}"title":"t","author":{{"profile_id":null,"username":"u"}},"content_html":"","observed_at":"2024-03-01T12:00:00Z"}}"#
        )) {
            Record::Post(post) => post,
            other => panic!("not a post: {other:?}"),
        }
    }

    #[test]
    fn child_boards_inherit_and_records_count_from_where_they_are_read() {
        let mut boards = BoardLanguages::from_records();
        // Not yet read: no language.
        assert_eq!(boards.of_post(&post(5, Some(2))).unwrap(), None);
        boards.observe(&board(1, "Deutsch (German)", None));
        boards.observe(&board(2, "Trading und Spekulation", Some(1)));
        boards.observe(&board(3, "Altcoins", Some(2)));
        boards.observe(&board(4, "Announcements (Altcoins)", None));
        assert_eq!(boards.of_post(&post(5, Some(2))).unwrap(), Some(Lang::Deu));
        assert_eq!(boards.of_post(&post(5, Some(3))).unwrap(), Some(Lang::Deu));
        assert_eq!(boards.of_post(&post(5, Some(4))).unwrap(), None);
        assert_eq!(boards.of_post(&post(5, Some(9))).unwrap(), None, "unknown");
        // A post without a board is in its topic's.
        assert_eq!(boards.of_post(&post(5, None)).unwrap(), None);
        boards.observe(&record(
            r#"{"kind":"topic","topic_id":5,"board_id":3,"title":"t","observed_at":"2024-03-01T12:00:00Z"}"#,
        ));
        assert_eq!(boards.of_post(&post(5, None)).unwrap(), Some(Lang::Deu));
        // A newer record of a parent changes its children.
        boards.observe(&board(1, "Polski", None));
        assert_eq!(boards.of_post(&post(5, Some(3))).unwrap(), Some(Lang::Pol));
        // A board naming its own language wins over its parent's.
        boards.observe(&board(6, "Русский (Russian)", Some(1)));
        assert_eq!(boards.of_post(&post(5, Some(6))).unwrap(), Some(Lang::Rus));
    }

    #[test]
    fn parent_cycles_end() {
        let mut boards = BoardLanguages::from_records();
        boards.observe(&board(1, "Altcoins", Some(2)));
        boards.observe(&board(2, "Mining", Some(1)));
        assert_eq!(boards.of_post(&post(5, Some(1))).unwrap(), None);
    }
}
