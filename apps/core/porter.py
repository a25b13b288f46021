"""The Porter stemmer as NLTK's `PorterStemmer()` runs it by default (its NLTK_EXTENSIONS mode): the stem every
comparison of words reads (`apps.core.text.terms`), and LoCoMo's answer scoring's. The published algorithm (Porter
1980) with a table of irregular forms, "ies"/"ied" kept as "ie" in four-letter words, y → i only after a consonant,
"-alli", "-fulli", "-bli" and "-logi" in step 2, and words of one or two letters left alone. Written here because
nltk is not a dependency of the product."""

from __future__ import annotations

from functools import lru_cache

IRREGULAR = {
    "skies": "sky",
    "sky": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "news": "news",
    "innings": "inning",
    "inning": "inning",
    "outings": "outing",
    "outing": "outing",
    "cannings": "canning",
    "canning": "canning",
    "howe": "howe",
    "proceed": "proceed",
    "exceed": "exceed",
    "succeed": "succeed",
}
VOWELS = frozenset("aeiou")


def _consonant(word: str, i: int) -> bool:
    if word[i] in VOWELS:
        return False
    if word[i] == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _m(stem: str) -> int:
    """m in [C](VC)^m[V]: how many vowel-consonant sequences the stem has."""
    forms: list[str] = []
    for i in range(len(stem)):
        kind = "c" if _consonant(stem, i) else "v"
        if not forms or forms[-1] != kind:
            forms.append(kind)
    return "".join(forms).count("vc")


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y; or is a two-letter vowel-consonant word."""
    if len(word) >= 3:
        return (
            _consonant(word, len(word) - 3)
            and not _consonant(word, len(word) - 2)
            and _consonant(word, len(word) - 1)
            and word[-1] not in "wxy"
        )
    return len(word) == 2 and not _consonant(word, 0) and _consonant(word, 1)


def _replace(word: str, rules: list[tuple[str, str, int]]) -> str:
    """The first rule whose suffix the word ends with decides: replaced when the stem's m exceeds the minimum."""
    for suffix, replacement, minimum in rules:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if _m(stem) > minimum else word
    return word


def _step1a(word: str) -> str:
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ies"):
        return word[:-1] if len(word) == 4 else word[:-2]
    if word.endswith("ss"):
        return word
    if word.endswith("s"):
        return word[:-1]
    return word


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-1] if len(word) == 4 else word[:-2]
    if word.endswith("eed"):
        return word[:-1] if _m(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            stem = word[: -len(suffix)]
            if stem.endswith(("at", "bl", "iz")):
                return stem + "e"
            if _double_consonant(stem) and stem[-1] not in "lsz":
                return stem[:-1]
            if _m(stem) == 1 and _cvc(stem):
                return stem + "e"
            return stem
    return word


def _step1c(word: str) -> str:
    if word.endswith("y") and len(word) > 2 and _consonant(word, len(word) - 2):
        return word[:-1] + "i"
    return word


STEP2 = [
    ("ational", "ate", 0),
    ("tional", "tion", 0),
    ("enci", "ence", 0),
    ("anci", "ance", 0),
    ("izer", "ize", 0),
    ("bli", "ble", 0),
    ("alli", "al", 0),
    ("fulli", "ful", 0),
    ("entli", "ent", 0),
    ("eli", "e", 0),
    ("ousli", "ous", 0),
    ("ization", "ize", 0),
    ("ation", "ate", 0),
    ("ator", "ate", 0),
    ("alism", "al", 0),
    ("iveness", "ive", 0),
    ("fulness", "ful", 0),
    ("ousness", "ous", 0),
    ("aliti", "al", 0),
    ("iviti", "ive", 0),
    ("biliti", "ble", 0),
    ("logi", "log", 0),
]
STEP3 = [
    ("icate", "ic", 0),
    ("ative", "", 0),
    ("alize", "al", 0),
    ("iciti", "ic", 0),
    ("ical", "ic", 0),
    ("ful", "", 0),
    ("ness", "", 0),
]
STEP4 = "al ance ence er ic able ible ant ement ment ent ion ou ism ate iti ous ive ize".split()


def _step2(word: str) -> str:
    if word.endswith("alli") and _m(word[:-4]) > 0:
        return _step2(word[:-2])  # "-alli" → "-al", which may end a longer step-2 suffix
    if word.endswith("logi"):
        return word[:-1] if _m(word[:-3]) > 0 else word  # the "l" stays with the stem: geo-logi → geolog
    return _replace(word, [rule for rule in STEP2 if rule[0] not in ("alli", "logi")])


def _step4(word: str) -> str:
    for suffix in sorted(STEP4, key=len, reverse=True):  # "-ement" before "-ment" before "-ent"
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if _m(stem) <= 1:
                return word
            if suffix == "ion" and not stem.endswith(("s", "t")):
                return word
            return stem
    return word


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        if _m(stem) > 1 or (_m(stem) == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and _m(word[:-1]) > 1:
        word = word[:-1]
    return word


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The stem of a lowercase word, as nltk's `PorterStemmer().stem` gives it."""
    word = word.lower()
    if word in IRREGULAR:
        return IRREGULAR[word]
    if len(word) <= 2:
        return word
    for step in (_step1a, _step1b, _step1c, _step2, lambda w: _replace(w, STEP3), _step4, _step5):
        word = step(word)
    return word
