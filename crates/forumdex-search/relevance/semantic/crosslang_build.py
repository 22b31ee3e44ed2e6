#!/usr/bin/env python3
"""Writes crosslang.tuning.tsv and crosslang.heldout.tsv from the hand-written items below.

Each item: the post picked by crosslang_sample.py (seed 37; see crosslang.md for the picking
rules), the post's language, the query's language, the query (written by hand, in a
different language than the post, without looking at any search result), and extra
expected post IDs (near-copies of the same statement in the same topic, when there are).

Split (deterministic): items are grouped in four strata (en->ru, ru->en, en->other,
other->en); within a stratum they are sorted by SHA-256 of "37:<post_id>" and dealt
alternately to the two halves, the first to tuning in strata 0 and 2 and to held-out in
strata 1 and 3, so both halves get the same mix of pairs.

Usage: crosslang_build.py   (writes the two files next to this script)
"""
import hashlib
import os

SEED = 37

# (post_id, post_lang, query_lang, query, extra expected post ids)
ITEMS = [
    # English posts, Russian queries
    (19658263, "en", "ru", "Patientory: как команда без единой строчки кода добилась встреч с крупными IT-корпорациями и американским центром по контролю заболеваний?", []),
    (24828060, "en", "ru", "FinTech Coins перевели сайт на азиатские языки? и где будет их стенд на конференции на Кипре", []),
    (28598239, "en", "ru", "VIN баунти: в трекере фейсбука пишет что нет друзей и ставки не начисляются, в твиттере никто не отвечает", []),
    (21835830, "en", "ru", "IMMLA изменили вайтпейпер и увеличили общее количество токенов — почему бонус для инвесторов пре-ICO не увеличили?", []),
    (23925887, "en", "ru", "Confideal: правда ли что держатели CDL смогут покупать со скидкой токены, собранные с комиссий, и как это работает", []),
    (36992169, "en", "ru", "зачем новому токену сразу лезть на крупную биржу, если там огромная плата за листинг — не лучше начать с мелких?", []),
    (19628203, "en", "ru", "ошибся на одну букву в нике в таблице сигнатурной кампании — можно исправить и не повлияет ли на выплату баунти?", []),
    (46832203, "en", "ru", "DataXchain на сайте указана доля на баунти, но где ссылка на программу и когда она стартует?", []),
    (24724515, "en", "ru", "Neblio как сделать резервную копию кошелька, в какой папке лежит файл кошелька на Windows, маке и линуксе", []),
    (25803470, "en", "ru", "VRT.WORLD реклама брендов одежды внутри игр — кто будет выбирать бренд и получат ли держатели токенов процент?", []),
    (38963462, "en", "ru", "AMON когда раздадут токены за подписи по баунти и не рухнет ли цена когда все начнут продавать", []),
    (35832626, "en", "ru", "DAOstack почему управление DAO до сих пор идет через мессенджеры, блоги и гитхаб, а не в блокчейне", []),
    (36794609, "en", "ru", "The Abyss указал при регистрации адрес аппаратного кошелька, а теперь не могу к нему подключиться — как сменить адрес и не потерять бонус?", []),
    (42553792, "en", "ru", "CGCX до какого числа идет краудсейл?", []),
    (50583726, "en", "ru", "EOSIO новый релиз: как кошельки будут понятно показывать пользователю условия соглашения, которое он подписывает", []),
    (24142459, "en", "ru", "Sharpe Capital конкурс: угадай курс эфира к доллару и выиграй SHP и ETH", [24142571]),
    # English posts, German, Indonesian, Polish queries
    (21046305, "en", "de", "MASS Token: Entwickler haben im Telegram Neuigkeiten in sechs Tagen versprochen, seit über zwei Wochen kommt nichts", []),
    (36823507, "en", "de", "Was unterscheidet Tradelize von anderen Copy-Trading-Anbietern, sind die Ergebnisse der Trader überprüft?", []),
    (44634590, "en", "id", "apakah Virtual Rehab ada rencana pakai augmented reality juga atau cuma VR saja?", []),
    (26962026, "en", "id", "token CryoGen fungsinya untuk apa? buat beli layanan pembekuan kriogenik di toko mereka?", [26643793]),
    (23231420, "en", "pl", "Auctus zamknął kampanię na Facebooku i Twitterze przed końcem ICO – czy uczestnicy dostaną swoje nagrody?", []),
    # Russian posts, English queries
    (30775140, "ru", "en", "real estate ICO for shared-equity housing construction: how big is the market in Russia and India, and why would token demand grow", []),
    (23557753, "ru", "en", "Reanimator film ICO criticism: filmmakers who used to burn through state budgets now want investors' crypto", []),
    (25725607, "ru", "en", "did Descrow get a legal review of its escrow platform from a lawyer?", [26300638]),
    (31722576, "ru", "en", "YGGDRASH no whitelist spot for people who joined the telegram early, hype makes it impossible to get in", []),
    (42381920, "ru", "en", "waste processing plant project wants to power mining farms with its electricity, wouldn't greenhouses make more sense?", []),
    (22350927, "ru", "en", "DomRaider token sale experience: paid with a bank card, team answers quickly on telegram", []),
    (28177891, "ru", "en", "Debitcoin price on BitShares went up more than 400% in a month", []),
    (38649255, "ru", "en", "GlobalCarService is there a demo app yet or is it still only an idea?", []),
    (43321342, "ru", "en", "AVATARA when will bounty tokens be sent, after the ICO ends in October?", []),
    (51291428, "ru", "en", "LeoPays name flying to Mars on the NASA rover, and trademark registration in Russia", []),
    (25208362, "ru", "en", "Yohocube cardboard building blocks won't last, wouldn't wooden pieces be better for kids?", []),
    (32679541, "ru", "en", "B2Broker sponsoring a big blockchain conference in Seoul in April 2018, what will they present?", []),
    (25330917, "ru", "en", "Waltix team offered to record a Skype interview for promotion", []),
    (27973065, "ru", "en", "CompositeCoin will they say which expert reviewed which project?", []),
    # other local-language posts, English queries
    (45322294, "de", "en", "savedroid publicity stunt was basically fraud, investors should file criminal complaints", []),
    (45020418, "de", "en", "K Systems whitepaper available in German, their hardware already used in aviation and cars", []),
    (36306641, "id", "en", "Hi:Health device for asthma patients to check lung condition", []),
    (48319761, "id", "en", "GAMB coin already on an exchange but no price or trading volume showing?", []),
    (46402962, "es", "en", "JSEcoin team responsive and serious, unlike another ICO that listed on exchanges before handing out tokens", []),
    (22374807, "fr", "en", "DomRaider which exchanges will list DRT and when can I start trading it?", []),
    (40472708, "pl", "en", "YellowBetter presale end date and bonus, language learning platform where you pay teachers in tokens", []),
    (44484406, "nl", "en", "Thrive ICO supporting companies turned out to be inactive websites, regret buying", []),
]

STRATA = ["en->ru", "ru->en", "en->other", "other->en"]


def stratum(post_lang, query_lang):
    if post_lang == "en":
        return "en->ru" if query_lang == "ru" else "en->other"
    return "ru->en" if post_lang == "ru" else "other->en"


def split():
    halves = {"tuning": [], "heldout": []}
    for i, name in enumerate(STRATA):
        items = [it for it in ITEMS if stratum(it[1], it[2]) == name]
        items.sort(key=lambda it: hashlib.sha256(f"{SEED}:{it[0]}".encode()).hexdigest())
        first, second = ("tuning", "heldout") if i % 2 == 0 else ("heldout", "tuning")
        for j, it in enumerate(items):
            halves[first if j % 2 == 0 else second].append(it)
    return halves


HEADER = """# Cross-language known items, {half} half ({n} queries): each query is written by hand in a
# different language than its post; the comment line above each query names the pair
# (post language->query language); lang "-" (every index); kind crosslang.
# Made by crosslang_sample.py (seed 37) + crosslang_build.py; see crosslang.md.
# {rule}
# query\tlang\texpected post ids\tkind
"""
RULES = {
    "tuning": "Tuning half: ranking may be tuned on it; always report it together with the held-out half.",
    "heldout": "HELD-OUT half: nobody tunes ranking on these queries or looks at their misses to tune; report it beside the tuning half.",
}


def main():
    ids = [it[0] for it in ITEMS]
    assert len(ids) == len(set(ids)), "a post is picked twice"
    for it in ITEMS:
        assert it[1] != it[2], it
        assert "\t" not in it[3], it
    here = os.path.dirname(os.path.abspath(__file__))
    for half, items in split().items():
        with open(os.path.join(here, f"crosslang.{half}.tsv"), "w", encoding="utf-8") as out:
            out.write(HEADER.format(half=half, n=len(items), rule=RULES[half]))
            for post_id, plang, qlang, query, extra in items:
                out.write(f"# {plang}->{qlang}\n")
                expected = ",".join(str(x) for x in [post_id] + extra)
                out.write(f"{query}\t-\t{expected}\tcrosslang\n")


if __name__ == "__main__":
    main()
