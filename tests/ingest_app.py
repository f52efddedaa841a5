"""`python tests/ingest_app.py NOTES`: the Ingest page, driven by AppTest in this process as a player would use
it, uploads every Markdown note of the folder NOTES and presses "Save and read the notes", with the fake embedder. The
data folder, local.yaml, campaign and settings come from the environment (``CHRONICLER_*``, as in conftest's
``app_env``). One JSON line per step on stdout ("saving", then "done" with what the page showed), so a test
can run it in a subprocess, kill it or starve it of disk, and tell where it was."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest  # noqa: E402

from rag import registry  # noqa: E402
from tests.conftest import _navigation_mode_as_on_a_running_server  # noqa: E402
from tests.fakes import FakeEmbedder  # noqa: E402
from tests.helpers import start  # noqa: E402


def say(step: str, **more) -> None:
    print(json.dumps({"step": step, **more}), flush=True)


def ingest(notes: Path) -> None:
    registry.register("embedders", "fake", FakeEmbedder)
    with pytest.MonkeyPatch.context() as patch:
        _navigation_mode_as_on_a_running_server(patch)
        at = start("pages/ingest.py")
        files = sorted(notes.glob("*.md"))
        at.file_uploader[0].set_value([(p.name, p.read_bytes(), "text/markdown") for p in files])
        at.run()
        say("saving", files=len(files))
        at.button(key="upload_go").click().run()
        table = next((d.value for d in at.dataframe if "status" in d.value.columns), None)
        say(
            "done",
            errors=[str(e.value) for e in at.error],
            exceptions=[str(e.value) for e in at.exception],
            files=0 if table is None else len(table),
        )


if __name__ == "__main__":
    ingest(Path(sys.argv[1]))
