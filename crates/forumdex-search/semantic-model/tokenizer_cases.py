#!/usr/bin/env python3
"""Writes tokenizer_cases.tsv: input text (JSON string) TAB tokens (JSON list), for a Rust
parity test of tokenizer v1.  python3 tokenizer_cases.py > tokenizer_cases.tsv"""
import json
from common import tokenize

CASES = [
    "Hello, World! don't e-mail me_at 2018",
    "ΟΔΟΣ ΣΟΦΟΣ Σ",                       # final sigma
    "İstanbul ǅemal ẞtraße Straße",        # special lowercase mappings
    "Дoбpый день! Кoгдa выплaтa?",         # Latin look-alikes inside Cyrillic words
    "iphoneа Pаssword BTCкошелек",         # not folded: other Latin letters
    "नमस्ते दुनिया",                          # Devanagari with combining marks
    "比特币 钱包 ビットコイン 비트코인",
    "café naïve coöperate",                  # precomposed and
    "cafe\u0301 n\u0303",                    # combining marks
    "x² ½ ⅷ ١٢٣ 12,5%",                      # other numbers
    "emoji 🚀🚀 to the moon🌕!!",
    "a" * 41 + " " + "b" * 40,               # >40 chars dropped, 40 kept
    "tab\tnew\nline\u00a0nbsp\u200bzwsp",
    "",
]

for c in CASES:
    print(json.dumps(c, ensure_ascii=False) + "\t" + json.dumps(tokenize(c), ensure_ascii=False))
