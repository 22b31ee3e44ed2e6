#!/usr/bin/env python3
"""Writes needs.tuning.jsonl and needs.heldout.jsonl (and an empty needs.judgments.tsv when
there is none) from the information needs written by hand below. See needs.md.

Every need was written from the topic list of needs_topics.py (titles, post counts, dates)
BEFORE any search result was seen; nothing here comes from the search engine.

Split (deterministic): needs asked in another language than English form one stratum, the
English ones are grouped by persona; within a stratum they are sorted by SHA-256 of
"37:<id>" and dealt alternately to the two halves, the first to tuning for the 1st, 3rd, ...
stratum (not English, then PERSONAS in order, then the generic needs N45-N56, added later
as a stratum of their own so that the earlier needs keep their halves) and to held-out
for the others.

Usage: needs_build.py   (writes the files next to this script)
"""
import hashlib
import json
import os

SEED = 37
PERSONAS = ["investor", "bounty hunter", "researcher", "trader", "wallet user", "miner"]

# Grade 0 of a generic need: a project's pitch is no answer to a question about projects in
# general.
GENERIC_ZERO = ("anything else: bare questions repeating the need, generic praise, report forms, "
                "a project's own pitch or rules that do not touch the need")

# Shared grade-0 cases (see needs.md): bare questions that repeat the need without an
# answer, generic praise or shilling, bounty report forms, other projects.
NEEDS = [
    # --- investors: did the project deliver, did it go quiet ---
    dict(id="N01", persona="investor", query="did EncryptoTel ever launch their product", query_lang="en", form="question", negated=False, topics=[1848180],
         need="An ETT holder wants to know whether EncryptoTel's VoIP/PBX product actually launched and is usable.",
         grade2="states that an EncryptoTel product (PBX, app, platform, wallet integration) was released or is live, or that it was never delivered / the project stopped, with some date or evidence",
         grade1="roadmap or development updates, beta or test announcements, complaints about delays, without saying whether it launched"),
    dict(id="N02", persona="investor", query="ModulTrade dead?", query_lang="en", form="keywords", negated=False, topics=[2240518],
         need="A holder wants to know whether ModulTrade is still active or the team has gone silent.",
         grade2="says the ModulTrade team stopped communicating / the project is abandoned or dead, or gives concrete evidence of recent activity (release, update, listing) that answers it",
         grade1="members asking for news or complaining about silence or price, without a conclusion; old progress updates"),
    dict(id="N03", persona="investor", query="Giga Watt bankruptcy what happens to token holders", query_lang="en", form="keywords", negated=False, topics=[1914900],
         need="A WTT token holder heard Giga Watt went bankrupt and wants to know what it means for tokens and refunds.",
         grade2="reports Giga Watt's bankruptcy / insolvency or the shutdown of its facility and says what holders can expect (claims, refunds, token value)",
         grade1="reports problems at Giga Watt (unfinished facility, unpaid hosting, delays, lawsuits) without the bankruptcy outcome"),
    dict(id="N04", persona="investor", query="Rentberry never refunded the ICO money", query_lang="en", form="statement", negated=True, topics=[2448767],
         need="A Rentberry contributor wants to know whether contributions were refunded after the token sale missed its goals, or not.",
         grade2="states whether Rentberry refunded (or refused to refund) contributors, or explains the refund policy actually applied",
         grade1="discusses the sale result (soft cap, amount raised, extended sale) or complains about refunds without stating what happened"),
    dict(id="N05", persona="investor", query="when did Mysterium launch the VPN on mainnet", query_lang="en", form="question", negated=False, topics=[1895626],
         need="An investor checks whether and when Mysterium's decentralized VPN went live beyond testnets.",
         grade2="announces or reports a Mysterium network launch (mainnet, public release of the VPN client/node) with a date or version",
         grade1="testnet, alpha or beta releases, roadmap dates for the launch"),
    dict(id="N06", persona="investor", query="Golem Brass release on mainnet", query_lang="en", form="keywords", negated=False, topics=[1655002],
         need="A GNT holder wants to know whether Brass Golem was released on mainnet, and when.",
         grade2="says Brass Golem (Golem's first product) launched on Ethereum mainnet, with a date or version",
         grade1="Brass beta/testnet news, delays of Brass, roadmap discussion"),
    dict(id="N07", persona="investor", query="is the Helbiz app actually working anywhere or only promises?", query_lang="en", form="question", negated=False, topics=[2851691],
         need="A presale buyer doubts Helbiz and wants evidence the rental app runs in real cities.",
         grade2="reports Helbiz vehicles/app actually operating (city, launch, user numbers), or states it is not operating",
         grade1="announcements of plans, partnerships or pilots without saying it operates; doubts without evidence"),
    dict(id="N08", persona="investor", query="Sirin Labs Finney phone shipping delayed", query_lang="en", form="keywords", negated=False, topics=[2285838],
         need="A SRN holder wants to know if the FINNEY phone shipped to buyers or keeps being delayed.",
         grade2="states FINNEY shipping or delivery status (shipped, date of shipping, delay announced with new date)",
         grade1="pre-order news, product specs, complaints about delay without status"),
    dict(id="N09", persona="investor", query="what happened to Opus music platform, did the developers leave", query_lang="en", form="question", negated=False, topics=[2011065],
         need="An OPT holder noticed silence from Opus and wants to know if the team abandoned it.",
         grade2="says Opus developers left / the project was abandoned or handed over, or shows it still being developed (release, update)",
         grade1="complaints about silence or price, questions to the team with partial answers"),
    dict(id="N10", persona="investor", query="ORIS.SPACE проект заброшен? что с токенами", query_lang="ru", form="question", negated=False, topics=[2217705],
         need="A Russian-speaking contributor to ORIS.SPACE wants to know whether the project is still alive and what happened to the tokens.",
         grade2="states that ORIS.SPACE is abandoned / the team disappeared, or gives concrete status of the tokens (issued, listed, refunded) or of the product",
         grade1="discussion of the ICO progress, doubts or team answers about plans without current status"),
    dict(id="N11", persona="investor", query="фильм Реаниматор так и не сняли? что с деньгами инвесторов", query_lang="ru", form="question", negated=True, topics=[2249460],
         need="An investor in the Reanimator film ICO wants to know whether the film came out and what happened to the money.",
         grade2="says whether the Reanimator film was released / shown / finished or not, or what investors got back",
         grade1="progress reports on filming or the ICO, trailers, plans for distribution"),
    dict(id="N12", persona="investor", query="Telluria seriös oder Betrug?", query_lang="de", form="question", negated=False, topics=[3382728],
         need="A German-speaking investor wants to know whether Telluria (the 'German reliability' ICO) is legitimate or a scam.",
         grade2="gives concrete evidence about Telluria's legitimacy: company registration, team verified or fake, product shown, or scam/exit reported",
         grade1="opinions for or against with some reasons, questions about the team answered vaguely"),
    dict(id="N13", persona="investor", query="ONAM exchange scam did the exchange ever launch", query_lang="en", form="keywords", negated=False, topics=[5044081],
         need="A contributor wants to know whether the ONAM exchange ever went live or the ICO was a scam.",
         grade2="states that the ONAM exchange launched (with date/URL) or that it never did / the team vanished / scam evidence",
         grade1="scam accusations without evidence, launch date promises"),
    dict(id="N14", persona="investor", query="Bitminer Factory это скам? выплаты от майнинга были?", query_lang="ru", form="question", negated=False, topics=[4647309],
         need="A Russian-speaking investor asks whether Bitminer Factory ever paid mining returns or is a scam.",
         grade2="states whether Bitminer Factory paid token holders / mining profits, or gives evidence of scam or of real mining operations",
         grade1="doubts or praise with some reasons, ICO progress without payouts"),

    # --- bounty hunters: were payouts made ---
    dict(id="N15", persona="bounty hunter", query="eHealth First bounty never paid", query_lang="en", form="statement", negated=True, topics=[2577450],
         need="A bounty participant of EHF (eHealth First) did not get tokens and wants to know whether bounty rewards were distributed.",
         grade2="team or participant states that EHF bounty rewards were distributed (date) or will not be / were delayed with a reason",
         grade1="participants saying they did or did not receive tokens, distribution date promises"),
    dict(id="N16", persona="bounty hunter", query="KickCity bounty tokens distribution date", query_lang="en", form="keywords", negated=False, topics=[2954691],
         need="A KickCity bounty participant wants to know when bounty tokens are distributed.",
         grade2="gives the KickCity bounty distribution date or says distribution was done",
         grade1="participants asking with partial info (spreadsheet final, waiting for ICO end), reports of receipt or non-receipt"),
    dict(id="N17", persona="bounty hunter", query="did TimeBox send bounty rewards", query_lang="en", form="question", negated=False, topics=[3096913],
         need="A TimeBox bounty hunter wants to know whether rewards were sent.",
         grade2="states TimeBox bounty rewards were sent / will be sent on a date / cancelled",
         grade1="participants reporting receipt or non-receipt; final spreadsheet announcements"),
    dict(id="N18", persona="bounty hunter", query="Asobi Coin bounty payout when", query_lang="en", form="keywords", negated=False, topics=[4884216],
         need="An ASOBI (ABX) bounty participant wants to know when the bounty is paid.",
         grade2="gives the ABX bounty payout date or states that it was paid",
         grade1="statements about the end of the campaign, stakes calculation, receipt or non-receipt reports"),
    dict(id="N19", persona="bounty hunter", query="Digipay airdrop tokens never arrived", query_lang="en", form="statement", negated=True, topics=[5028062],
         need="A Digipay airdrop participant has not received tokens and wants to know if the airdrop was distributed.",
         grade2="states that the Digipay airdrop was distributed (date, tx) or not / cancelled",
         grade1="participants reporting receipt or non-receipt, distribution promises"),
    dict(id="N20", persona="bounty hunter", query="how are Cryptoflix bounty stakes converted to tokens", query_lang="en", form="question", negated=False, topics=[2871239],
         need="A Cryptoflix bounty hunter wants to know how stakes turn into tokens and how much a stake is worth.",
         grade2="explains the Cryptoflix stake-to-token calculation or gives the token value per stake",
         grade1="bounty rules mentioning stakes without the conversion, final spreadsheet notices"),
    dict(id="N21", persona="bounty hunter", query="Authorship signature campaign payment", query_lang="en", form="keywords", negated=False, topics=[2058499],
         need="An Authorship signature campaign participant wants to know whether and how ATS rewards were paid.",
         grade2="states how Authorship paid (or did not pay) bounty/signature rewards: date, form of payment, problems",
         grade1="participants reporting receipt or non-receipt; rules of the campaign"),
    dict(id="N22", persona="bounty hunter", query="Treon баунти когда выплаты", query_lang="ru", form="keywords", negated=False, topics=[3407371],
         need="A Russian-speaking Treon bounty participant wants to know when bounty rewards are paid.",
         grade2="gives the Treon bounty payout date or says it was paid (any language)",
         grade1="participants reporting receipt or non-receipt, end-of-campaign notices"),
    dict(id="N23", persona="bounty hunter", query="QUASA баунти токены пришли?", query_lang="ru", form="question", negated=False, topics=[2424655],
         need="A QUASA bounty participant asks whether the bounty tokens have been sent.",
         grade2="states that QUASA bounty tokens were distributed (date) or when they will be",
         grade1="participants reporting receipt or non-receipt, campaign end notices"),
    dict(id="N24", persona="bounty hunter", query="Zantepay bounty rewards EUR pool distributed?", query_lang="en", form="question", negated=False, topics=[3338226],
         need="A Zantepay bounty participant wants to know whether the bounty pool was distributed.",
         grade2="states Zantepay bounty distribution done, dated or cancelled",
         grade1="participants reporting receipt or non-receipt, notices about the final spreadsheet"),

    # --- researchers: when did a sale end, how much was raised, what happened ---
    dict(id="N25", persona="researcher", query="CoinDash ICO hack website address replaced", query_lang="en", form="keywords", negated=False, topics=[1894530],
         need="A researcher wants first-hand reports of the CoinDash token sale hack (July 2017): what happened and how much was taken.",
         grade2="describes the CoinDash sale hack: the deposit address on the website was replaced, amount stolen, the team's response",
         grade1="reports that the sale was stopped or that something went wrong, without the mechanism"),
    dict(id="N26", persona="researcher", query="how much did the Civic token sale raise and when did it end", query_lang="en", form="question", negated=False, topics=[1942882],
         need="A researcher wants the Civic (CVC) token sale end date and amount raised.",
         grade2="gives the Civic sale result: amount raised and/or end date",
         grade1="sale schedule, caps or participation problems without the outcome"),
    dict(id="N27", persona="researcher", query="Ethbits crowdsale total ETH raised", query_lang="en", form="keywords", negated=False, topics=[1852294],
         need="A researcher wants the final amount Ethbits raised in its crowdsale.",
         grade2="gives the final Ethbits crowdsale total",
         grade1="interim totals during the sale, cap figures"),
    dict(id="N28", persona="researcher", query="Hdac token sale result Hyundai", query_lang="en", form="keywords", negated=False, topics=[2402330],
         need="A researcher wants the outcome of the Hdac token sale (November 2017): amount raised, sale end, distribution.",
         grade2="states the Hdac sale outcome (amount raised, sold out, end date) or token distribution date",
         grade1="sale schedule, KYC or participation details without the outcome"),
    dict(id="N29", persona="researcher", query="did Cindicator reach its hard cap", query_lang="en", form="question", negated=False, topics=[2062875],
         need="A researcher asks whether Cindicator's token sale reached its hard cap and how fast.",
         grade2="states whether Cindicator's sale hit the hard cap (amount, date or duration)",
         grade1="sale mechanics, caps, whitelist details without the result"),
    dict(id="N30", persona="researcher", query="when was the DISCIPLINA hardcap reached", query_lang="en", form="question", negated=False, topics=[2325715],
         need="A researcher wants the date DISCIPLINA's token sale reached its hard cap and the amount.",
         grade2="gives the date and/or amount of DISCIPLINA's hard cap being reached",
         grade1="sale stages and bonuses, caps without the result"),
    dict(id="N31", persona="researcher", query="Bancor hack July 2018 stolen funds", query_lang="en", form="keywords", negated=False, topics=[1789222],
         need="A researcher wants forum reactions and facts about the Bancor hack of July 2018: what was stolen and what Bancor did.",
         grade2="describes the Bancor hack: compromised wallet, amounts (ETH, BNT, NPXS), the freezing of BNT, or the recovery",
         grade1="discussion of Bancor's centralisation or security that refers to the hack without facts"),
    dict(id="N32", persona="researcher", query="Tierion token sale start date and cap", query_lang="en", form="keywords", negated=False, topics=[2027510],
         need="A researcher wants the Tierion (TNT) token sale dates and cap.",
         grade2="gives the Tierion sale start/end dates and cap or the final amount",
         grade1="partial sale details (whitelist, bonus) without dates or cap"),
    dict(id="N33", persona="researcher", query="SophiaTX token swap to mainnet", query_lang="en", form="keywords", negated=False, topics=[2214715],
         need="A researcher wants to know when and how SophiaTX swapped its ERC20 tokens to its own blockchain.",
         grade2="describes the SophiaTX swap (dates, procedure, exchanges supporting it)",
         grade1="mainnet launch news without the swap, questions about the swap with partial answers"),

    # --- traders: did a listing happen ---
    dict(id="N34", persona="trader", query="was Neluns ever listed on an exchange", query_lang="en", form="question", negated=False, topics=[4694028],
         need="A trader wants to know whether the Neluns (NLS) token got listed anywhere.",
         grade2="names an exchange where NLS was listed (with date), or states it was never listed",
         grade1="listing promises or negotiations, complaints about no listing"),
    dict(id="N35", persona="trader", query="LocalCoinSwap LCS token exchange listing", query_lang="en", form="keywords", negated=False, topics=[2916403],
         need="A trader wants to know where the LCS token is traded.",
         grade2="names exchanges where LCS is listed or states the listing date",
         grade1="plans or polls about listing, LocalCoinSwap's own platform launch"),
    dict(id="N36", persona="trader", query="FSBT token listing date", query_lang="en", form="keywords", negated=False, topics=[2225492],
         need="A trader wants the date and exchange of the FSBT token listing.",
         grade2="gives the FSBT listing exchange and date, or says it was listed",
         grade1="listing promises, delays, questions answered vaguely"),
    dict(id="N37", persona="trader", query="which exchange lists 4NEW KWATT", query_lang="en", form="question", negated=False, topics=[2990989],
         need="A trader wants to know which exchanges list the 4NEW KWATT token.",
         grade2="names exchanges where KWATT is listed (with date)",
         grade1="listing plans or announcements of upcoming listings"),
    dict(id="N38", persona="trader", query="AKAIITO на какой бирже торгуется", query_lang="ru", form="question", negated=False, topics=[2804929],
         need="A Russian-speaking trader wants to know where the AKAIITO token can be traded.",
         grade2="names an exchange where AKAIITO is listed (any language) or says it is not listed",
         grade1="listing plans, dates promised"),
    dict(id="N39", persona="trader", query="Opporty token kapan listing di exchange?", query_lang="id", form="question", negated=False, topics=[2191132],
         need="An Indonesian trader wants to know when and where the Opporty (OPP) token gets listed.",
         grade2="names the exchange and/or date of the OPP listing (any language)",
         grade1="listing plans, price talk after listing without the exchange"),

    # --- wallet users: is there a bug ---
    dict(id="N40", persona="wallet user", query="GRAFT wallet stuck syncing balance not showing", query_lang="en", form="keywords", negated=False, topics=[2115188],
         need="A GRAFT user's wallet is stuck syncing and shows no balance; is it a known bug and how to fix it.",
         grade2="describes this GRAFT wallet problem with a cause or a fix (rescan, new version, node, restore)",
         grade1="other users reporting the same problem without a fix, release notes of wallet versions"),
    dict(id="N41", persona="wallet user", query="ATB coin wallet not synchronizing coins missing", query_lang="en", form="keywords", negated=False, topics=[1989756],
         need="An ATB Coin holder's wallet does not sync and coins seem missing; is it a wallet bug.",
         grade2="explains the ATB wallet sync/missing-balance problem with a fix or the team's answer",
         grade1="others reporting the same, wallet release announcements"),
    dict(id="N42", persona="wallet user", query="Eidoo wallet can't send tokens transaction stuck", query_lang="en", form="keywords", negated=False, topics=[2243926],
         need="An Eidoo wallet user cannot send tokens (transaction pending or failing); is it a known bug.",
         grade2="describes an Eidoo wallet sending/pending-transaction problem with cause or fix",
         grade1="others reporting wallet problems, support contacts, app updates"),
    dict(id="N43", persona="wallet user", query="Dimcoin tokens not showing in my wallet", query_lang="en", form="statement", negated=True, topics=[1986414],
         need="A DIMCOIN buyer does not see the tokens in the wallet and wants to know why.",
         grade2="explains why DIM tokens do not show (add custom token, contract address, distribution not yet done) or how to fix it",
         grade1="others reporting the same, distribution announcements"),

    # --- miners ---
    dict(id="N44", persona="miner", query="WinMiner flagged as virus by antivirus, is it safe?", query_lang="en", form="question", negated=False, topics=[2004875],
         need="A miner's antivirus flags WinMiner; is it a false positive or malware.",
         grade2="explains why antivirus flags WinMiner (miner false positive) or reports it as malicious, with some evidence",
         grade1="others reporting the antivirus warning, installation advice mentioning exclusions"),
    # --- generic: questions that name no project (written 2026-11-30, before any of their
    # results was seen; they test what floods a query that names no thread, such as the
    # opening posts of announcement and bounty threads) ---
    dict(id="N45", persona="investor", generic=True, query="how to spot a scam ICO before investing", query_lang="en", form="question", negated=False, topics=[],
         need="An investor wants concrete warning signs that a token sale is a scam.",
         grade2="lists concrete red flags or checks (anonymous or fake team, copied whitepaper, no working product or code, fake partnerships, unrealistic returns, paid shilling)",
         grade1="a general warning that many ICOs are scams or a report of one project being a scam, without saying how to tell"),
    dict(id="N46", persona="investor", generic=True, query="is it safe to keep my tokens on an exchange", query_lang="en", form="question", negated=False, topics=[],
         need="A holder wonders whether to leave tokens on an exchange or move them to a wallet of their own.",
         grade2="advises on exchange custody against a wallet of one's own, with a reason (exchange hacks or exit scams, who holds the private keys)",
         grade1="mentions that exchanges get hacked or that holding one's own keys is safer, without advice on the question"),
    dict(id="N47", persona="trader", generic=True, query="why do ICO tokens dump right after exchange listing", query_lang="en", form="question", negated=False, topics=[],
         need="A trader wants to understand why new tokens so often fall in price as soon as they are listed.",
         grade2="explains a cause of the fall after listing (bounty hunters, airdrop receivers or early investors selling, no use for the token, thin order books)",
         grade1="observes or complains that a token fell after listing, without a cause"),
    dict(id="N48", persona="bounty hunter", generic=True, query="how are bounty stakes converted into tokens", query_lang="en", form="question", negated=False, topics=[],
         need="A bounty participant wants to know how the stakes they earn become a number of tokens.",
         grade2="explains the calculation: a campaign's token pool divided by the total stakes of all participants, times one's own stakes (for any campaign)",
         grade1="mentions stakes, a stake spreadsheet or a campaign's token allocation without the calculation"),
    dict(id="N49", persona="wallet user", generic=True, query="which wallet should I use to receive ERC20 tokens", query_lang="en", form="question", negated=False, topics=[],
         need="A participant needs a wallet address that can receive ERC20 tokens from a sale or a bounty.",
         grade2="names a wallet that holds ERC20 tokens with its private key (MyEtherWallet, MetaMask, imToken, Trust, a hardware wallet...) as the one to use, or warns not to give an exchange address",
         grade1="names an ERC20 wallet in passing, or a campaign's requirement of an ERC20 address without naming one"),
    dict(id="N50", persona="wallet user", generic=True, query="how to add a custom token in MyEtherWallet to see my balance", query_lang="en", form="question", negated=False, topics=[],
         need="A holder does not see received tokens in MyEtherWallet and wants the steps to show them.",
         grade2="gives the steps: add custom token with the contract address, symbol and decimals (for any token)",
         grade1="says to add the token's contract address or gives a token's contract address and decimals without the steps"),
    dict(id="N51", persona="researcher", generic=True, query="proof of stake versus proof of work which is better", query_lang="en", form="question", negated=False, topics=[],
         need="Someone wants arguments comparing proof of stake and proof of work.",
         grade2="compares proof of stake and proof of work with at least one argument (security, energy, centralisation, nothing at stake)",
         grade1="states a preference for one or describes one without comparing"),
    dict(id="N52", persona="miner", generic=True, query="masternode setup guide on a VPS", query_lang="en", form="keywords", negated=False, topics=[],
         need="A holder wants step-by-step instructions to run a masternode on a rented server.",
         grade2="gives setup steps for a masternode on a VPS (for any coin): collateral transaction, wallet and config lines, starting the node",
         grade1="states a masternode's requirements (collateral, VPS, rewards) or links a guide without the steps"),
    dict(id="N53", persona="bounty hunter", generic=True, query="why was my bounty report rejected", query_lang="en", form="question", negated=False, topics=[],
         need="A participant's weekly report was not accepted and they want to know the usual reasons.",
         grade2="gives reasons reports or participants are rejected (fake or bought accounts, bots, rule breaks, late or wrong form, private profiles), from a manager or the rules",
         grade1="a participant complaining of a rejection or a manager's list of rejected users, without a reason"),
    dict(id="N54", persona="investor", generic=True, query="how long after the ICO ends are tokens distributed", query_lang="en", form="question", negated=False, topics=[],
         need="A buyer wants to know how long token distribution usually takes after a sale ends.",
         grade2="states when tokens of a sale are (or were) distributed relative to its end, or a typical delay",
         grade1="a buyer asking or complaining about waiting for distribution, with the sale's dates"),
    dict(id="N55", persona="investor", generic=True, query="как не попасть на скам ICO", query_lang="ru", form="question", negated=False, topics=[],
         need="A Russian-speaking investor wants to know how to avoid scam token sales.",
         grade2="lists concrete red flags or checks (anonymous or fake team, copied whitepaper, no product, unrealistic promises), in any language",
         grade1="a general warning that many ICOs are scams, without saying how to tell"),
    dict(id="N56", persona="bounty hunter", generic=True, query="signature campaign rank requirements and payment per week", query_lang="en", form="keywords", negated=False, topics=[],
         need="A forum member wants to know which ranks may join signature campaigns and what each rank is paid.",
         grade2="states rank requirements and the pay (stakes or tokens) per rank per week of a signature campaign (any campaign's rules count)",
         grade1="mentions a signature campaign's rules or ranks without the pay, or the pay without ranks"),
]


def stratum_of(need):
    """The generic needs (naming no project) form the last stratum; of the others, needs
    asked in another language than English form one stratum and English ones are grouped
    by persona."""
    if need.get("generic"):
        return "generic"
    return "not English" if need["query_lang"] != "en" else need["persona"]


def split():
    halves = {"tuning": [], "heldout": []}
    for i, stratum in enumerate(["not English"] + PERSONAS + ["generic"]):
        group = sorted((n for n in NEEDS if stratum_of(n) == stratum),
                       key=lambda n: hashlib.sha256(f"{SEED}:{n['id']}".encode()).hexdigest())
        first, second = ("tuning", "heldout") if i % 2 == 0 else ("heldout", "tuning")
        for j, n in enumerate(group):
            halves[first if j % 2 == 0 else second].append(n)
    for items in halves.values():
        items.sort(key=lambda n: n["id"])
    return halves


def main():
    ids = [n["id"] for n in NEEDS]
    assert len(ids) == len(set(ids))
    assert all(n["persona"] in PERSONAS for n in NEEDS)
    here = os.path.dirname(os.path.abspath(__file__))
    for half, items in split().items():
        with open(os.path.join(here, f"needs.{half}.jsonl"), "w", encoding="utf-8") as out:
            for n in items:
                rec = {
                    "id": n["id"],
                    "half": half,
                    "query": n["query"],
                    "lang": "-",
                    "query_lang": n["query_lang"],
                    "form": n["form"],
                    "negated": n["negated"],
                    "persona": n["persona"],
                    "need": n["need"],
                    "generic": bool(n.get("generic")),
                    "relevant_if": {"2": n["grade2"], "1": n["grade1"],
                                    "0": GENERIC_ZERO if n.get("generic") else
                                    "anything else: bare questions repeating the need, generic praise, report forms, other projects"},
                    "topics": n["topics"],
                }
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    judgments = os.path.join(here, "needs.judgments.tsv")
    if not os.path.exists(judgments):
        with open(judgments, "w", encoding="utf-8") as out:
            out.write("need_id\tpost_id\tgrade\tvariant\n")


if __name__ == "__main__":
    main()
