"""What the chat, search and story pages show of a note's text: the notes' own characters, never Markdown's
formatting. A lead that opens with a number ("1495. [Session 3]") showed as item 1495 of a list holding only
the citation."""

from __future__ import annotations

from app.markdown import as_written


def test_a_line_opening_with_a_number_is_no_list_but_a_recap_bullet_stays_one():
    assert as_written("1495. [Session 3]\n\nIt's now 1495.") == "1495\\. [Session 3]  \n  \nIt's now 1495."
    assert as_written("2) the second door") == "2\\) the second door"
    assert as_written("- Grog smashes the door [Session 2]\n") == "- Grog smashes the door [Session 2]  \n"
    assert as_written("The party has 3. Then 4.") == "The party has 3. Then 4."  # only where a line opens
    assert as_written("*bold* #tag") == "\\*bold\\* \\#tag"
