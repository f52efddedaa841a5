"""The campaign as players remember it, built from the indexed passages without a model: its cast
(``entities``), the names the notes use for each (``aliases``, ``spelling``: built at index time, read by the
search), the sessions a question's wording points at (``order``), its ``timeline`` and "previously on…" ``recap``s. Everything here reads only the passages it
is given, so the player view and the "as of session" cap (``Pipeline`` hands in what they allow) hold."""
