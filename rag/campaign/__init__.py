"""The campaign as players remember it, built from the indexed passages without a model: its cast
(``entities``), its ``timeline`` and "previously on…" ``recap``s. Everything here reads only the passages it
is given, so the player view and the "as of session" cap (``Pipeline`` hands in what they allow) hold."""
