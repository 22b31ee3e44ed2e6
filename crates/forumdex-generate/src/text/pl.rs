//! Polish phrase bank.

use super::Bank;

/// Polish phrase bank.
pub(crate) const BANK: Bank = Bank {
    titles: &[
        "Prognoza kursu {coin} na {year}",
        "Czy {alt} to oszustwo?",
        "Zgubiłem frazę seed, czy da się odzyskać portfel?",
        "Kopanie na {hw} w {year}, czy to się opłaca?",
        "{exchange} blokuje wypłaty od {n} dni",
        "Jaki portfel sprzętowy polecacie?",
        "Podatki od kryptowalut w Polsce",
        "Halving {year}, dyskusja",
        "[ANN] {alt} - zdecentralizowana platforma {niche}",
    ],
    openers: &[
        "Cześć wszystkim, długo czytałem forum, teraz mam pytanie.",
        "Chcę podzielić się swoim doświadczeniem, może komuś pomoże.",
        "Krótkie podsumowanie tygodnia na rynku.",
        "Przepraszam jeśli temat już był, szukałem i nic nie znalazłem.",
        "Wątek do dyskusji o projekcie {alt}.",
    ],
    sentences: &[
        "Nigdy nie trzymajcie monet na {exchange} dłużej niż trzeba.",
        "Nie twoje klucze, nie twoje monety, to najważniejsza zasada.",
        "Przeniosłem wszystko na {wallet} i wybiłem słowa na stalowej płytce.",
        "{coin} spadł o {pct}% w dwa dni i wielu sprzedało w panice.",
        "Przy obecnych cenach prądu {hw} przestanie się opłacać.",
        "Deweloperzy {alt} nie aktualizowali GitHuba od {n} miesięcy.",
        "Przeczytałem whitepaper jeszcze raz, token nie ma realnego zastosowania.",
        "Kupiłem pierwsze monety po ${price} i żałuję, że sprzedałem połowę.",
        "Regularne kupowanie co tydzień jest nudne, ale działa w długim terminie.",
        "Kto obiecuje stałe dzienne zyski, ten prowadzi piramidę finansową.",
        "Transakcja z opłatą {n} sat/vB wisi w mempoolu od wczoraj.",
        "Sprawdzajcie adres dwa razy, wirusy podmieniają schowek.",
        "Jeśli sprzedający nie chce escrow, odpuść sobie.",
        "{exchange} zablokowała mi konto i żąda ponownej weryfikacji.",
        "Wolumen {alt} jest sztucznie pompowany.",
        "Wsparcie na ${price} wytrzymało trzy razy, liczę na odbicie.",
        "Pełny węzeł weryfikuje każdy blok od 2009 roku.",
        "Większość altcoinów z {year} już nie istnieje.",
        "Spróbuj Replace-By-Fee albo poczekaj do weekendu.",
    ],
    short: &[
        "dobry projekt, powodzenia",
        "zgadzam się",
        "dzięki za info",
        "kiedy listing na {exchange}?",
        "ciekawe, obserwuję",
    ],
    edits: &[
        "Edit: poprawiłem link.",
        "Aktualizacja: transakcja potwierdzona po {n} godzinach.",
    ],
    link_intros: &["Więcej tutaj:", "Źródło:", "Zobacz w eksploratorze:"],
};
