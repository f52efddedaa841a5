"""The offline answerer: a short answer first when the notes hold one, then the sentences that prove it, in
the notes' own words and in story order, each cited.

No local LLM on PyPI answers players well enough (shared/notes), so nothing is written that the notes do not
say. A sentence's score mixes meaning (cosine with the question, using the pipeline's own embedder) and keyword
overlap (share of the question's content words it contains), plus a small bonus for passages retrieval ranked
high. What the question asks for (a name, a place, "which session", an amount: ``_reading``) decides the short
answer, drawn from a sentence. Refusals: the best score below the floor (``support``), the asked detail
missing from the best sentence, or the notes saying plainly that it is not known.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from rag.campaign.evening import the_evening
from rag.config import AnswerConfig, ReadingConfig
from rag.generators import Generator, History, Support
from rag.generators._decisions import SESSION_LEAD_PATH, load_decisions, session_of, session_standing
from rag.generators._reading import (
    DETAIL_KINDS,
    capitalised_within,
    missing_detail,
    says_unknown,
    session_label,
    short_answer,
)
from rag.generators._sentences import (
    Sentence,
    answers,
    joined,
    passage_parts,
    quote_text,
    short_sentence,
    split_sentences,
    story_order,
)
from rag.generators._signals import signals
from rag.generators._unsaid import unsaid
from rag.generators._who import says_asked_verb
from rag.models import Hit
from rag.names import content_words, names_passage, norm, read_words, words
from rag.question import Question
from rag.question.kinds import OUR_WORDS, PARTY_WORDS
from rag.search.first_mention import MEETS, tells_meeting

# Asked for a number, the best sentence's whole quote is read for it: notes typed at the table put the amount on
# the next line ("Archie hires us…" / "Worth 500-600 gold"); read wider, any number in a passage passes for a count
# of days. Asked for a price, the best sentence's whole passage: a sum of coins passes for nothing else, and whose
# price it is the quotes decide (``quotes_lack``). A name there may be anyone's: read so, CRD3's "What did Fjord
# name the mustang he took?" led with a captain's name (docs/experiments/README.md, forty-third session).
NEXT_LINE_DETAILS = ("amount", "money", "age")
WHOLE_PASSAGE_DETAILS = ("money",)


@dataclass(frozen=True)
class Reading:
    """Every sentence of the passages of one question, scored: what ``support`` read, handed to ``generate`` in
    the ``Support`` it returns (``key`` says which question and passages it was read for)."""

    key: tuple
    sentences: list[Sentence]


def reading_key(question: Question, hits: list[Hit]) -> tuple:
    return (question.text, tuple((h.chunk.id, h.chunk.text, h.rank) for h in hits))  # an edited note is re-read


class ExtractiveGenerator(Generator):
    """Stateless: every call reads what it needs from its arguments and returns what it found."""

    name = "extractive"
    quotes_notes = True

    def __init__(self, config: AnswerConfig | None = None, embedder=None):
        self.config = config or AnswerConfig()
        self.embedder = embedder

    def scored(self, question: Question, hits: list[Hit]) -> list[Sentence]:
        """Every sentence of the hits, best first by support score (``Sentence.pick`` holds the selection score)."""
        sentences = [s for h in hits for s in split_sentences(h)]
        if not sentences:
            return sentences
        named = capitalised_within("\n".join(h.chunk.text for h in hits))  # which words are names: read once
        for s in sentences:
            s.named = named
        asked, weigh = question.content, self.config.reading
        meaning = self._meaning(question, [s.text for s in sentences])
        for s, m in zip(sentences, meaning, strict=True):
            s.meaning = float(m)
            # a nested bullet says what it hangs under; the short lines right above it ("father of Gwen") with it
            said = read_words(s.text) | read_words(s.under) | read_words(s.lead_in)
            s.overlap = len(asked & said) / len(asked) if asked else 0.0
            s.score = weigh.support_meaning * max(s.meaning, 0.0) + weigh.support_keywords * s.overlap
            s.score += weigh.support_rank / s.hit.rank
        before = {  # the sentence before, among those that can answer
            (b.hit.chunk.id, b.order): a.overlap
            for a, b in zip(sentences, sentences[1:], strict=False)
            if a.hit.chunk.id == b.hit.chunk.id
        }
        for s in sentences:
            s.pick = weigh.pick_meaning * max(s.meaning, 0.0) + weigh.pick_keywords * s.overlap
            s.pick += standing(s.hit, weigh) + weigh.pick_before * before.get((s.hit.chunk.id, s.order), 0.0)
            if question.by_order and (mention := s.hit.scores.get("first_mention", 0.0)):  # naming them first/last
                s.pick += weigh.pick_mention * mention * names_passage(question.names, f"{s.lead_in} {s.text}")
            s.pick += weigh.pick_typed * (short_answer(question, s.text, s.hit.chunk, s.previous, s.named) is not None)
            if question.ours and the_evening(s.hit.chunk.heading):  # asked in the party's voice, the evening's own
                s.pick = 0.0  # business (a stream's giveaway) is no story of theirs: quoted only if nothing else is
        sentences.sort(key=lambda s: -s.score)
        return sentences

    def _meaning(self, question: Question, texts: list[str]) -> np.ndarray:
        if self.embedder is None:  # no model handed over: keyword overlap alone decides
            return np.zeros(len(texts), dtype=np.float32)
        vectors = self.embedder.embed_exactly([question.text, *texts])
        return vectors[1:] @ vectors[0]

    def _sentences(self, question: Question, hits: list[Hit], support: Support | None) -> list[Sentence]:
        """What ``support`` read, when it read these passages for this question; else read them now."""
        reading = support.reading if support is not None else None
        if isinstance(reading, Reading) and reading.key == reading_key(question, hits):
            return reading.sentences
        return self.scored(question, hits)

    def support(self, question: Question, hits: list[Hit]) -> Support:
        """The best sentence's score; 0 when a best sentence says the asked thing is not known, or when the
        question asks for a detail (an amount, a year, a colour, a name) the best sentence does not contain; for
        a number (``NEXT_LINE_DETAILS``), the best sentence's quote, with the lines after it the answer shows; for
        a price (``WHOLE_PASSAGE_DETAILS``), its passage. The note says which, in words a player reads."""
        sentences = self.scored(question, hits)
        score, note = self._support(question, sentences)
        return Support(score, note, Reading(reading_key(question, hits), sentences), signals(question, sentences))

    def _support(self, question: Question, sentences: list[Sentence]) -> tuple[float, str | None]:
        if not sentences:
            return 0.0, None
        weigh = self.config.reading
        near = [s for s in sentences[: weigh.unknown_window] if s.score >= weigh.unknown_near * sentences[0].score]
        for s in near:
            if says_unknown(question, s.text):
                return 0.0, f"{session_label(s.hit.chunk)} only says “{s.text.rstrip()}”"
        never = unsaid(question, sentences)
        if never:
            return 0.0, never
        all_sentences = sentences
        about = question.kind == "thing" and bool(question.names)  # "What power does the Heart of the Wild have?"
        if about:  # only passages that name what it is asked about can say what it has
            sentences = [s for s in sentences if names_passage(question.names, s.hit.chunk.text)] or sentences
        best = sentences[0]
        shown = best.text
        if question.kind in WHOLE_PASSAGE_DETAILS:  # a sum of money a sentence or two on
            shown = " ".join(passage_parts(best.hit))
        elif question.kind in NEXT_LINE_DETAILS:  # a number is often typed on the line after, which its quote shows
            parts = passage_parts(best.hit)
            shown = joined([parts[o] for o in self.quote_run(best, set(), parts)])
        # a name is the asked thing's only where a sentence gives it as one, which the quotes are read for below
        missing = missing_detail(question, shown) if question.kind != "name" else None
        where = "closest passage never gives"
        if not missing and question.kind in DETAIL_KINDS:  # what the answer would quote must give it too
            missing, where = self.quotes_lack(question, all_sentences), "passages it would quote never give"
        if missing:
            return 0.0, f"the {where} {missing}"
        if about:  # ...scored on the question's other words: the name alone answers nothing
            rest = question.content - {w for n in question.names for w in content_words(n)}
            if rest:
                overlap = max(len(rest & read_words(s.text)) / len(rest) for s in sentences[:5])
                score = weigh.support_meaning * max(best.meaning, 0.0) + weigh.support_keywords * overlap
                return round(score + weigh.support_rank / best.hit.rank, 4), None
        return round(best.score, 4), None

    def pick(self, scored: list[Sentence]) -> list[Sentence]:
        """The sentences to quote, best pick first: at most ``max_sentences``, each within ``reading.pick_keep`` of
        the best, none repeated by an overlapping passage; when the reranker can hardly tell its first two passages
        apart (``near_tie``), at most ``reading.tie_quotes`` from one passage while another passage's sentence can
        take the place, so that the answer shows both."""
        sentences = sorted(scored, key=lambda s: -s.pick)
        if not sentences:
            return []
        weigh = self.config.reading
        best = sentences[0].pick
        most = weigh.tie_quotes if near_tie(scored, weigh.tie_margin) else self.config.max_sentences
        chosen: list[Sentence] = []
        waiting: list[Sentence] = []  # past a passage's share: quoted only if no other passage's sentence comes
        seen: set[str] = set()
        for s in sentences:
            if len(chosen) >= self.config.max_sentences or s.pick < weigh.pick_keep * best:
                break
            key = " ".join(words(s.text))
            if key in seen:  # chunk overlap repeats a sentence in the next passage
                continue
            seen.add(key)
            if sum(c.hit.chunk.id == s.hit.chunk.id for c in chosen) >= most:
                waiting.append(s)
                continue
            chosen.append(s)
        chosen += waiting[: self.config.max_sentences - len(chosen)]
        return sorted(chosen, key=lambda s: -s.pick)

    def generate(
        self, question: Question, hits: list[Hit], history: History | None = None, support: Support | None = None
    ) -> Iterator[str]:
        """The short answer on a line of its own when a chosen sentence holds it, then the chosen sentences in
        story order, each with its citation."""
        scored = self._sentences(question, hits, support)
        chosen = self.pick(scored)
        if not chosen:
            yield "The notes don't say."
            return
        parts, runs = self.quoted(chosen, question)
        lead = self.lead(question, runs, scored)
        if lead is None and (instead := self.typed_instead(question, scored, chosen)) is not None:
            parts, runs = self.quoted([*chosen[: self.config.max_sentences - 1], instead], question)
            lead = self.lead(question, runs, scored)
        if lead is not None:
            answer, source = lead
            yield f"{answer}{'' if answer.endswith(('…', '.', '!', '?')) else '.'} {source.hit.chunk.label}\n\n"
            runs = proving(runs, source, question.kind)
            if not any(s.hit.chunk.id == source.hit.chunk.id and source.order in run for s, run in runs):
                parts.setdefault(source.hit.chunk.id, passage_parts(source.hit))  # a lead drawn from outside the
                runs.insert(0, (source, self.quote_run(source, set(), parts[source.hit.chunk.id])))  # quotes
        for i, (s, run) in enumerate(sorted(runs, key=lambda sr: story_order(sr[0]))):
            yield f"{'' if i == 0 else ' '}{quote_text(parts, s, run)} {s.hit.chunk.label}"

    def quotes_lack(self, question: Question, scored: list[Sentence]) -> str | None:
        """The asked detail when what the answer would quote lacks it: "How old is Xandala?" is best matched by
        Valindra's age at a sentence the answer does not pick, and an answer whose quotes hold no age cannot say it.
        A name must be the asked thing's: the short answer the answer would lead with. A name elsewhere in the
        quotes is someone else's ("What's the name of the Red Wizard of Thay?" is not answered by "the Black Spider
        tells Dravik how a red wizard of Thay is poking about"), and an answer that cannot say which name was asked
        for has not found it."""
        parts, runs = self.quoted(self.pick(scored), question)
        if question.kind == "name":
            return None if self.lead(question, runs, scored) else DETAIL_KINDS["name"]
        return missing_detail(question, " ".join(quote_text(parts, s, run) for s, run in runs))

    def quoted(
        self, chosen: list[Sentence], question: Question
    ) -> tuple[dict[str, list[str]], list[tuple[Sentence, list[int]]]]:
        """Each chosen sentence's passage in parts, and the run of parts each quote shows (``quote_run``), from the
        sentence before when the quote opens with a pronoun (``leans_back``) and no other quote shows that one, and
        from the short lines right above it when they say some of what the question asks (``Sentence.lead_in``: a
        page of short lines, "Darian" / "father of Gwen" / "helped kill Mother Gloam", answers "Who is Gwen's
        father?" in its three-word line)."""
        parts = {s.hit.chunk.id: passage_parts(s.hit) for s in chosen}
        taken = {(s.hit.chunk.id, s.order) for s in chosen}
        runs = [(s, self.quote_run(s, taken, parts[s.hit.chunk.id])) for s in chosen]
        shown = {(s.hit.chunk.id, order) for s, run in runs for order in run}
        for s, run in runs:
            place = (s.hit.chunk.id, s.order - 1)
            if s.order and leans_back(s.text) and place not in shown and says_who(parts[s.hit.chunk.id][s.order - 1]):
                run.insert(0, s.order - 1)
                shown.add(place)
            elif s.lead_in and question.content & read_words(s.lead_in):
                passage, start = parts[s.hit.chunk.id], s.order
                while start > 0 and not answers(passage[start - 1]):  # the lines ``lead_in`` joins
                    start -= 1
                above = [o for o in range(start, s.order) if (s.hit.chunk.id, o) not in shown]
                run[:0] = above
                shown.update((s.hit.chunk.id, o) for o in above)
        return parts, runs

    def typed_instead(self, question: Question, scored: list[Sentence], chosen: list[Sentence]) -> Sentence | None:
        """When no quote holds what the question asks for, the best sentence that does and picks nearly as well
        (``reading.pick_keep`` of the best, like any quote) takes the last quote's place: "The tavern owner, Adra, …" is
        the fourth pick for "Who runs the Iron Hearth Tavern?", and a player wants the name, with its proof. For
        "Who is X?" however far down: a cast list's "a pet bear named Trinket" picks below every fight naming him."""
        if not (question.kind == "identity" or (question.kind == "person" and question.verbs)):
            return None  # other leads from further down were wrong more often than right (docs/experiments/history.md)
        shown = {" ".join(words(s.text)) for s in chosen}
        best = chosen[0].pick
        for s in sorted(scored, key=lambda s: -s.pick):
            if s.pick < self.config.reading.pick_keep * best and question.kind != "identity":
                return None
            if " ".join(words(s.text)) in shown:  # a chosen sentence, or its copy in an overlapping passage
                continue
            if short_answer(question, s.text, s.hit.chunk, s.previous, s.named) is not None:
                return s
        return None

    def quote_run(self, s: Sentence, taken: set[tuple[str, int]], parts: list[str]) -> list[int]:
        """The places in its passage (``parts``) of what the quote of ``s`` shows: the sentence and the one after
        it, and more after those while the quote is shorter than ``reading.quote_words``, never a sentence quoted
        elsewhere in the answer. Notes tell an event in a run of sentences: the one that matches the question's
        words ("the red wizard, dead and covered in honey") is often followed by the one that answers it
        ("goblins used the honey to…"), and short ones ("It contains a soul. It's Valindra's phylactery.") by the
        one that says what the question asks ("It can only be destroyed via…"). A quote never stops on a colon:
        what it introduces follows, even the questions of a list ("They want to ask:" / "Will Locke unite with
        his love Betsy?"). A short sentence on the way is quoted with the rest (``short_sentence``: "He makes her
        fae swear. She does. They're allowed through."): left out, the quote says something else; a short line
        without a full stop (a label, a fragment, a question) is passed over."""
        run, length, listing = [s.order], len(words(s.text)), s.text.rstrip().endswith(":")
        most, short = self.config.reading.quote_sentences, self.config.reading.quote_words
        for order in range(s.order + 1, len(parts)):
            if len(run) >= most or (s.hit.chunk.id, order) in taken:
                break
            part = parts[order]
            if not listing and not answers(part) and not short_sentence(part):
                continue
            if not listing and len(run) > 1 and length >= short:
                break
            run.append(order)
            length += len(words(part))
            listing = listing or part.rstrip().endswith(":")
        return run

    def lead(
        self, question: Question, runs: list[tuple[Sentence, list[int]]], scored: list[Sentence]
    ) -> tuple[str, Sentence] | None:
        """(short answer, the sentence it is drawn from), from the best quotes first, each read to its end: a
        quote's later sentence ("He's an anthropologist…" after "We save Orvex Ocrammas.") may hold it.

        - A name asked about someone's pet or thing comes only from a sentence that names them, or follows one
          that does (``owners``): "What did Tiberius name his pet?" is not answered by "Vex'ahlia… has a pet bear
          named Trinket".
        - A place comes from a quote that says what the question asks happened there, when one does ("Where did
          Finn live?" is not answered by "went on his way to Oonagh" quoted before "Finn lived in Knockmany"), or
          failing one from a quote that names what the question asks about ("Where did we fight the beholder?" is
          not answered by "everyone met in the city of Stilben").
        - A question about more than one occasion or person ("When has the Professor blanked out on us?", "Who is
          in the party?") gets no one session or name first: it would say there was one."""
        if question.several and question.kind in ("session", "person"):
            return None
        by_place = {(x.hit.chunk.id, x.order): x for x in scored}
        places = ((s.hit.chunk.id, order) for s, run in runs[: self.config.reading.lead_quotes] for order in run)
        shown = [by_place[place] for place in places if place in by_place]
        if question.kind in ("name", "thing") and (whose := owners(question)):
            shown = [s for s in shown if names_passage(whose, f"{s.previous} {s.text}")]
        if question.kind == "place":
            happened = [s for s in shown if says_asked_verb(question, s.text)] if question.verbs else []
            shown = happened or [s for s in shown if s.overlap > 0]
        for sentence in shown:
            found = short_answer(question, sentence.text, sentence.hit.chunk, sentence.previous, sentence.named)
            if found and question.kind == "session":
                if not question.by_order and not sure_of_session(
                    sentence, scored, self.config.reading.session_lead_floor
                ):
                    return None
                start = when_first(question, sentence)
                if start == "First named in " and (met := first_met(question, scored)):
                    sentence, found, start = met, session_label(met.hit.chunk), "First met in "
                elif start == "First named in " and (earlier := named_before(question, sentence, scored)):
                    sentence, found = earlier, session_label(earlier.hit.chunk)
                return f"{start}{found}", sentence
            if found:
                return found, sentence
        return None


# the party in a sentence of the notes: "we", "us", "the party" (a meeting told of someone else is not ours)
_PARTY = re.compile(rf"\b(?:{'|'.join(sorted(OUR_WORDS))}|the\s+(?:{'|'.join(PARTY_WORDS)}))\b", re.IGNORECASE)

# a meeting still to come where its verb follows: "we should talk to chief sootscale", "we'll meet him at dawn"
_PLANNED = re.compile(
    r"(?:\b(?:should|must|will|shall|would|could|can|may|might)|['’]ll|\b(?:need|want|plan|have|has|going)s?\s+to)"
    r"\s+(?:\w+ly\s+)?$",
    re.IGNORECASE,
)

# A sentence that opens with a personal pronoun ("He offers to give us papers…") says whom only in the one before
_LEANS_BACK = re.compile(r"^\W*(?:he|she|they|his|her|their|him|them)\b", re.IGNORECASE)


def leans_back(sentence: str) -> bool:
    """The sentence names its subject by a pronoun, so the sentence before says who: "We meet Bayushi Nagitane at
    the end of the day. He offers to give us papers…" quoted from "He" answers "Who gave us the papers?" with a
    pronoun (vault-l5r walk)."""
    return bool(_LEANS_BACK.match(sentence))


def says_who(before: str) -> bool:
    """The sentence before can be quoted for whom a pronoun means: one that can answer (``answers``), not a line
    introducing a list."""
    return answers(before) and not before.rstrip().endswith(":")


def owners(question: Question) -> tuple[str, ...]:
    """Whose the asked name or thing is: the owner the question gives ("Vex's bear's name"), none for "the name of
    the tavern in Emon" (Emon owns nothing), else the names it asks about ("What did Tiberius name his pet?")."""
    if question.attribute:
        return (question.attribute.owner,) if question.attribute.owner else ()
    return question.asked_names


def standing(hit: Hit, weigh: ReadingConfig) -> float:
    """What a passage's place in the results adds to its sentences' picks: its rank (1/rank) and how sure the
    reranker is of it (``Hit.sure``). The rank alone gives the second passage half the first one's weight
    whether the reranker put them a hair or a mile apart (docs/experiments/history.md: CRD3 and FairytaleQA cite the
    right passage more often, vault-toa the same). A reranker whose scores have no scale says nothing here."""
    if hit.sure is None:
        return weigh.pick_rank_alone / hit.rank
    return weigh.pick_rank / hit.rank + weigh.pick_sure * hit.sure


def near_tie(scored: list[Sentence], margin: float) -> bool:
    """Whether the reranker is as sure of its second passage as of its first, within ``margin``. Of the note sets'
    tune questions whose first two passages were that close (.1), the second held the answer 6 times and the first
    3 (12 questions of 88): the order says little there, and three quotes of the first passage hide the second. A
    reranker whose scores have no scale gives no sure-ness, and never a tie."""
    hits = sorted({s.hit.rank: s.hit for s in scored}.values(), key=lambda h: h.rank)[:2]
    if len(hits) < 2 or hits[0].sure is None or hits[1].sure is None:
        return False
    return hits[0].sure - hits[1].sure < margin


def sure_of_session(source: Sentence, scored: list[Sentence], floor: float) -> bool:
    """Whether the session ``source`` is from is likely enough the one that answers to name it first (the learned
    ``session_right``, ``_decisions.session_standing``). A "which session" answer is wrong when another session's
    passage matches the question nearly as well: the event is told there too, or the search is guessing. Without
    the model's file, or without a reranker whose scores have a scale (``Hit.sure``), the session is named."""
    model = load_decisions(str(SESSION_LEAD_PATH))
    hits = list({id(s.hit): s.hit for s in scored}.values())
    key = session_of(source.hit.chunk)
    likely = model.probability("session_right", session_standing(hits, key)) if model and key else None
    return likely is None or likely >= floor


def proving(runs: list[tuple[Sentence, list[int]]], source: Sentence, kind: str) -> list[tuple[Sentence, list[int]]]:
    """The quotes that prove the short answer. "In Session 11" is proved by Session 11's passages: a quote from
    another session beside it cites what does not answer and leaves the player to guess which to believe
    (vault-toa: "In Session 33" followed by two quotes from Session 23). Other short answers keep every quote."""
    if kind != "session":  # a session lead always comes from a session note (``short_answer``)
        return runs
    session = (source.hit.chunk.campaign_no, source.hit.chunk.session)
    return [(s, run) for s, run in runs if (s.hit.chunk.campaign_no, s.hit.chunk.session) == session]


def when_first(question: Question, source: Sentence) -> str:
    """How a "which session" lead starts: "First met in " only where the notes say they met, in a sentence of the
    lead's passage that names them (``tells_meeting``; the lead's own sentence when the question names no one):
    "Klarg stands near one of the pools" follows the sentence where the party comes across him. A first mention
    is no more than that ("First named in "); a last one says so ("Last mentioned in ")."""
    if question.last_mention:
        return "Last mentioned in "
    if not question.first_mention:
        return "In "
    if not question.meeting:
        return "First mentioned in "
    passage = source.hit.chunk.text
    met = any(tells_meeting(passage, n) for n in question.names) if question.names else MEETS.search(source.text)
    return "First met in " if met else "First named in "


def first_met(question: Question, scored: list[Sentence]) -> Sentence | None:
    """The earliest sentence of the passages read that tells the party meeting whom the question asks about (it
    names them, the party and the meeting: ``MEETS``), when the lead's passage only names them. Asked when they
    first met someone, a player means the meeting, not the rumour: a name is often heard sessions before its bearer
    is met ("Strahd lives in Ravenloft" in Session 3, "We meet the Count Strahd…" in Session 5, vault-cos-bahodge
    walk; the kobolds speak of their chief in Session 8, "we're taken to talk to chief sootscale" in Session 9,
    vault-kingmaker walk). The party must be in the sentence: "…instructing him to meet with Varkanus" is another
    man's meeting; and the meeting told, not planned (``_PLANNED``: "we should talk to chief sootscale"). None when
    no passage read tells one: the lead then says "First named in"."""

    def ours(s: Sentence) -> bool:
        return bool(_PARTY.search(s.text)) and any(
            not _PLANNED.search(s.text, 0, m.start()) for m in MEETS.finditer(s.text)
        )

    return earliest_naming(question, scored, ours)


def named_before(question: Question, source: Sentence, scored: list[Sentence]) -> Sentence | None:
    """The earliest sentence of the passages read that names whom the question asks about in a session before the
    lead's, when the lead can only say "First named in": the search offers the first passage that names them *and*
    says a meeting anywhere in it, and a lead that then says "First named in Session 9" is false when Session 7,
    also read, names them (vault-icbm walk: "When did we first meet Fabina?"; the People page said Session 7)."""
    lead = (source.hit.chunk.campaign_no or 0, source.hit.chunk.session)
    return earliest_naming(question, scored, lambda s: (s.hit.chunk.campaign_no or 0, s.hit.chunk.session) < lead)


def earliest_naming(question: Question, scored: list[Sentence], keep: Callable[[Sentence], bool]) -> Sentence | None:
    """In story order, the first sentence of a session's passage read that names whom the question asks about (the
    whole name, as ``first_mention`` reads it), tells a scene of the story (``short_answer`` can lead from it) and
    that ``keep`` takes; None when there is none."""
    wanted = [f" {norm(n)} " for n in question.names]
    found = [
        s
        for s in scored
        if s.hit.chunk.session is not None
        and any(w in f" {norm(s.text)} " for w in wanted)
        and keep(s)
        and short_answer(question, s.text, s.hit.chunk, s.previous, s.named) is not None
    ]
    return min(
        found,
        key=lambda s: (s.hit.chunk.campaign_no or 0, s.hit.chunk.session, s.hit.chunk.position, s.order),
        default=None,
    )


def create(config: AnswerConfig, embedder=None) -> ExtractiveGenerator:
    return ExtractiveGenerator(config, embedder)
