from pathlib import Path

ROOT = Path("pkg/prompts/templates")


def test_there():
    assert (ROOT / "final.md.j2").exists()
