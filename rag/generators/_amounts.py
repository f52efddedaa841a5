"""Amounts in the notes: "How many…?", "How much did it cost?", "How old…?", "What year…?" want a number, and the
answerer leads with the one a sentence gives, or says the passages never give one. Private to the extractive
backend (read through ``_reading``).
"""

from __future__ import annotations

import re

from rag.names import noun_pattern
from rag.question import Question
from rag.question.kinds import PAYING

AMOUNT_KINDS = ("amount", "money", "age", "year")

# Number words are a closed class of English: every cardinal below a hundred ("fifteen", "twenty-three"), a scale
# after one ("a hundred", "two thousand"), and the nouns that count as a number does ("a pair of umber hulks", "a
# couple of guards", "half a dozen goblins").
_UNITS = "one|two|three|four|five|six|seven|eight|nine"
_TEENS = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_CARDINAL = rf"(?:(?:{_TENS})(?:[-\s](?:{_UNITS}))?|{_TEENS}|{_UNITS})(?:\s+(?:hundred|thousand|million))?"
_COUNTING = r"an?\s+(?:hundred|thousand|million)|(?:a\s+|half\s+a\s+)?dozen|an?\s+(?:pair|couple)(?=\s+of\b)"
_NUMBER_WORDS = rf"\b(?:{_CARDINAL}|{_COUNTING})\b"
_NUMBER = rf"\d|{_NUMBER_WORDS}"
_METALS = "gold|silver|copper|platinum"  # what coins are struck in, and "gp", "sp", "cp", "pp" for them
_COINS = rf"\b\d[\d,.]*\s*(?:gp|gold(?: pieces?)?|sp|cp|pp|{_METALS}|coins?|g)\b"  # "15g", "50,000 gold"
_AMOUNT = re.compile(
    rf"(?:{_COINS}|\b\d[\d,.]*\b(?:\s?%|\s+per\s?cent\b)?|{_NUMBER_WORDS}(?:\s+(?:{_METALS}|coins?|gp|per\s?cent))?)",
    re.I,
)
_MONEY = re.compile(_COINS, re.I)
# A wiki's footnote mark is no number: "[4] Marisha says…", "Caleb counts gold [5], by Carlos Lerma. [art 4]"
_FOOTNOTE = re.compile(r"\[\s*(?:[a-z]+\s+)?\d+\s*\]", re.I)
# A number, "free" or "a gold piece": "the platinum dragon" or "a pile of gold" gives no amount
_FREE_OR_A_COIN = rf"\bfree\b|\ban?\s+(?:{_METALS})\s+(?:pieces?|coins?)\b"
_SAYS_AMOUNT = re.compile(rf"{_NUMBER}|{_FREE_OR_A_COIN}", re.I)
# Campaigns set now or in space pay in their own money ("$500", "20k yen", "300 credits")
_CURRENCY = r"\$\s?\d|\b\d[\d,.]*\s*(?:k\s*)?(?:dollars?|bucks|credits?|yen|euros?|crowns?|shillings?|pence)\b"
# A number a word of paying takes, within three words, is a sum with its coin unsaid: "i owe Xidon 200", "sold it for 30"
_PAID_NUMBER = rf"\b(?:{PAYING})(?:\s+[\w'’-]+){{0,3}}?\s+\d"
# What a price or a payment is said in: coins ("15 gp", "fifty gold", "a silver piece"), a currency, "free" or such a
# number. Any number is not: "paid good money for it. Tatiana gives us 2 Fargabs", "horses at the king's prices / 5 day"
_SAYS_MONEY = re.compile(
    rf"{_COINS}|{_CURRENCY}|{_NUMBER_WORDS}\s+(?:{_METALS}|coins?|gp|sp|cp|pp)\b|{_FREE_OR_A_COIN}"
    rf"|{_PAID_NUMBER}",
    re.I,
)
# A year, not a span of years: "It's now 1495", never the "2000" of "exiled 2000-3000 years ago"
_YEAR = re.compile(r"\b\d{4}\b(?!\s*[-–]\s*\d)(?!\s+years?\b)")


def counted_noun(counted: str) -> str:
    """The noun a count counts: the last word of "healing potions", the word before "of" in "casks of wine" or
    "pieces of silver" (a sentence says "6 casks", and "6 wine" never: a vault-cos-bahodge walk's "How many casks of
    wine did we have to deliver?" was refused beside "We have 6 casks total")."""
    return counted.split(" of ")[0].split()[-1]


def number_of(noun: str, sentence: str) -> str | None:
    """The sentence's number that counts the noun: "three healing potions", "nine of the suns", "3 of them", "a pair
    of umber hulks"; not "his three magical duplicates" for potions, nor "one of the guards" for trolls."""
    thing = rf"(?:[\w'’-]+\s+){{0,2}}?{noun_pattern(noun)}\b"
    counting = re.compile(
        rf"\s+(?:of\s+(?:them|those|these)\b|(?:of\s+(?:(?:the|their|our|his|her)\s+)?)?{thing})", re.I
    )
    return next((m.group(0).strip() for m in _AMOUNT.finditer(sentence) if counting.match(sentence, m.end())), None)


def amount_in(question: Question, sentence: str) -> str | None:
    """The amount ``sentence`` gives for a question of this kind: "15g" for a price (not the "2" of "2 dwarves"),
    "three healing potions" for "How many healing potions…?", "1495" for a year; None when it gives none."""
    sentence = _FOOTNOTE.sub(" ", sentence)
    if question.kind == "amount" and (what := question.counted):  # "How many trolls…": a number of trolls
        return number_of(counted_noun(what), sentence)
    pattern = {"amount": _AMOUNT, "age": _AMOUNT, "money": _MONEY, "year": _YEAR}[question.kind]
    m = pattern.search(sentence)
    return m.group(0).strip() if m else None


def missing_amount(question: Question, sentence: str, label: str) -> str | None:
    """``label`` (what a refusal says the passages never give) when the sentence gives no amount of this kind;
    "a number of healing potions" when it counts other things ("his three magical duplicates")."""
    sentence = _FOOTNOTE.sub(" ", sentence)
    if question.kind == "amount" and (what := question.counted):
        return None if number_of(counted_noun(what), sentence) else f"a number of {what}"
    if question.kind == "year":
        return None if _YEAR.search(sentence) else label
    if question.kind == "money" and question.attribute and states(question.attribute.noun, sentence):
        return None
    return None if (_SAYS_MONEY if question.kind == "money" else _SAYS_AMOUNT).search(sentence) else label


def states(noun: str, sentence: str) -> bool:
    """The sentence says what the asked price is, by the question's own word: "the price of the resurrection is a
    white wedding dress". A price is not always a sum (a favour, a dress, a soul), and a passage saying what it is
    answers "What was the price for…?" (a vault-cos-bahodge walk: refused, "never gives an amount")."""
    return bool(
        re.search(rf"\b{noun_pattern(noun)}\b(?:\s+[\w'’-]+){{0,5}}?\s+(?:is|was|are|were)\s+\w", sentence, re.I)
    )
