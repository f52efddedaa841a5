"""A GM's vault with a secret marked in every way docs/SECRETS.md lists, each secret holding its own canary word.

A player-view test passes when no canary appears in anything a player can see; a GM-view test when each
(indexed) canary is found. The canaries are made-up words, so a canary in an output can only come from the
secret that holds it.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import write_notes

# canary → the rule that must hide it (rag.ingest.secrets names)
CANARIES = {
    "Glimmerfen": "GM folder",  # GM/
    "Wraithmoor": "GM folder",  # DM Notes/
    "Stormhallow": "GM folder",  # Session Prep/ (a session note)
    "Quillfeather": "GM folder",  # Secrets/
    "Cindervale": "GM folder",  # Prep/
    "Oakenshade": "front matter",  # public: false
    "Mossgrave": "front matter",  # gm-only: true
    "Nightbloom": "front matter",  # an alias of that GM-only note
    "Ravenmere": "front matter",  # gm_only: true
    "Silverbrook": "front matter",  # visibility: gm
    "Hollowmere": "front matter",  # secret: true
    "Dawnspire": "#gm-only tag",  # tags: [lore, gm-only]
    "Gloomfield": "#gm-only tag",  # tags: secret
    "Vexhollow": "#gm-only tag",  # a bullet tagged #gm-only
    "Duskwater": "#gm-only tag",  # a nested bullet tagged #secret
    "Whisperfang": "#gm-only tag",  # a [[link|alias]] inside a tagged bullet
    "Brambleshade": "#gm-only tag",  # a paragraph tagged #secret
    "Emberglen": "#gm-only tag",  # a section under a heading tagged #gm-only
    "Thornwick": "[!secret] callout",
    "Mirelock": "[!secret] callout",  # > [!gm]
    "Ashcombe": "[!secret] callout",  # > [!dm]
}
NEVER_INDEXED = {"Frostmere": "a %% comment %%", "Tidewatch": "a template"}
OPEN_WORDS = ["Harbortown", "Captain Reyes", "lighthouse"]  # player text that must stay findable

SECRET_VAULT = {
    "Session 1.md": """# Session Start
## Arrival in Harbortown
- The party arrives in Harbortown and meets [[Captain Reyes]] at the lighthouse.
- The baron's steward is really Vexhollow, a doppelganger. #gm-only
- They rent rooms at the Salty Gull.
  - The innkeeper hides a ledger. #secret
    - The ledger names Duskwater as the smuggler.
  - The rooms are cheap.
- Reyes hires them. [[Baron Aldric|Whisperfang]] is the buyer. #gm-only

The harbour master complains about missing ships.

The missing ships were sunk by Brambleshade on the baron's orders. #secret

> [!secret] The real villain
> Thornwick the lich pulls every string in Harbortown.

> [!gm]
> Mirelock waits in the sea caves.

> [!dm]- Folded note
> Ashcombe is the true heir.

%% Frostmere is the name of the lich's phylactery %%

## Plans for later #gm-only
- If the party goes north they meet Emberglen.
### Encounter table
- d6: Emberglen's hounds.

## The Market
- The party buys rope and lanterns in the market of Harbortown.
""",
    "Session 2.md": """# Session Start
## The Lighthouse
- [[Captain Reyes]] shows the party the broken lens of the lighthouse.
- The keeper says a storm wrecked it.
""",
    "GM/Plot.md": "# Plot\nThe cult of Glimmerfen plans to drown Harbortown.\n",
    "DM Notes/Villain.md": "# Villain\nWraithmoor is the cult's leader.\n",
    "Session Prep/Session 3.md": "# Session 3 prep\n- The party will find Stormhallow's map in the lighthouse.\n",
    "Secrets/Twist.md": "# Twist\nCaptain Reyes is secretly Quillfeather's daughter.\n",
    "Prep/ideas.md": "# Ideas\n- A storm giant named Cindervale.\n",
    "Handouts/Letter.md": "---\npublic: false\n---\n# Letter\nMeet me at midnight. Signed, Oakenshade.\n",
    "NPCs/Baron.md": "---\ngm-only: true\naliases: [Nightbloom]\n---\n# Baron Aldric\nThe baron is Mossgrave in disguise.\n",
    "NPCs/Spy.md": "---\ngm_only: true\n---\n# Spy\nRavenmere reports to the baron.\n",
    "Lore/Cult.md": "---\nvisibility: gm\n---\n# Cult\nSilverbrook rituals need a drowned bell.\n",
    "Lore/Tomb.md": "---\nsecret: true\n---\n# Tomb\nHollowmere lies beneath the lighthouse.\n",
    "Lore/Map.md": "---\ntags: [lore, gm-only]\n---\n# Map\nThe map to Dawnspire is in the lighthouse.\n",
    "Lore/Relic.md": "---\ntags: secret\n---\n# Relic\nThe Gloomfield bell rings under water.\n",
    "NPCs/Captain Reyes.md": "# Captain Reyes\nHarbour captain of Harbortown, gruff but fair.\n",
    "templates/NPC Template.md": "# {{title}}\nTidewatch placeholder.\n",
}


def write_secret_vault(root: Path) -> Path:
    return write_notes(root, SECRET_VAULT)


def canaries_in(text: str) -> list[str]:
    """Every canary (indexed or not) that appears in ``text``, case-insensitively."""
    low = text.casefold()
    return [c for c in [*CANARIES, *NEVER_INDEXED] if c.casefold() in low]
