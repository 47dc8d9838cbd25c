"""The archive's exports carry other people's text inert: HTML escaped in every field,
CSV cells that no spreadsheet runs, plot labels that are never mathtext, and a report that
survives a plot it cannot draw."""

from __future__ import annotations

import copy
import csv
import html.parser
import io
import json
from pathlib import Path

import pytest

pytest.importorskip("ms_toollib", reason="replays need pip install 'mscsp[replay]'")
pytest.importorskip("matplotlib")

from click.testing import CliRunner  # noqa: E402

from mscsp.cli import main  # noqa: E402
from mscsp.replay.report import games_csv, html_report, summarise  # noqa: E402
from mscsp.trust.escape import html_text  # noqa: E402

FIXTURES = Path(__file__).parent / "data" / "replays" / "archive"
SCRIPT = "<script>alert(1)</script>"


class _Scripts(html.parser.HTMLParser):
    """The start tags of a page, as a browser's parser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)


def _tags(page: str) -> list[str]:
    parser = _Scripts()
    parser.feed(page)
    return parser.tags


@pytest.fixture(scope="module")
def rated(tmp_path_factory) -> tuple[Path, list[dict]]:
    """Six fixture games rated into a log, and its records."""
    root = tmp_path_factory.mktemp("rated")
    games = root / "games"
    games.mkdir()
    for path in sorted(FIXTURES.glob("*.evf"))[:6]:
        (games / path.name).write_bytes(path.read_bytes())
    log = root / "log.jsonl"
    result = CliRunner().invoke(main, ["replay", str(games), "--out", str(log), "--json"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert sum(r["status"] == "ok" for r in records) == 6
    return games, records


def _worst(records: list[dict]) -> dict:
    return max((c for r in records for c in r["clicks"]), key=lambda c: c["loss"])


def _hostile(records: list[dict]) -> list[dict]:
    """The records with script in every free-text field a log may carry (of the types a
    resumed log is checked for), the worst click's cell included."""
    records = copy.deepcopy(records)
    for record in records:
        record["player"] = "=1+1"
        record["board"] = "$\\bad{$" + SCRIPT
        record["date"] = "$\\x{$-" + SCRIPT
        record["mode"] = SCRIPT
        for click in record["clicks"]:
            click["source"] = SCRIPT
    _worst(records)["cell"] = [SCRIPT, SCRIPT]
    return records


def test_every_field_of_the_report_is_escaped_and_mathtext_is_off(rated) -> None:
    records = _hostile(rated[1])
    _worst(records)["number"] = SCRIPT  # what a log read without checks could hold
    page = html_report(summarise(records), records)
    assert "script" not in _tags(page)
    assert "&lt;script&gt;" in page
    assert page.count("<img class='plot'") == 2  # both plots drawn, the $...$ labels as plain text
    assert "not drawn" not in page


def test_a_plot_that_cannot_be_drawn_leaves_the_report_with_a_note(rated) -> None:
    records = copy.deepcopy(rated[1])
    records[0]["accuracy"] = [SCRIPT]  # a damaged log: matplotlib cannot place a list
    page = html_report(summarise(records), records)
    assert page.count("<img class='plot'") == 1
    assert "Luck against accuracy</h2>\n<p>(not drawn: " in page
    assert "script" not in _tags(page)


def test_csv_cells_are_never_formulas(rated) -> None:
    records = copy.deepcopy(rated[1])
    records[0]["player"] = "=1+1"
    records[1]["player"] = "@SUM(A1)"
    records[2]["board"] = "+cmd|' /C calc'!A0"
    records[3]["reason"] = "-2+3"
    rows = list(csv.DictReader(io.StringIO(games_csv(records))))
    assert [rows[0]["player"], rows[1]["player"]] == ["'=1+1", "'@SUM(A1)"]
    assert rows[2]["board"] == "'+cmd|' /C calc'!A0" and rows[3]["reason"] == "'-2+3"
    for row in rows:
        assert not any(cell.startswith(("=", "+", "@")) for cell in row.values())
    assert float(rows[4]["luck"]) == records[4]["summary"]["luck"]  # numbers stay numbers


def test_a_resumed_log_is_escaped_in_the_report_and_csv(rated, tmp_path: Path) -> None:
    games, records = rated
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in _hostile(records)))
    report, table = tmp_path / "r.html", tmp_path / "g.csv"
    result = CliRunner().invoke(
        main,
        ["replay", str(games), "--out", str(log), "--resume"]
        + ["--report", str(report), "--csv", str(table), "--json"],
    )
    assert result.exit_code == 0, result.output
    page = report.read_text()
    assert "script" not in _tags(page) and page.count("<img class='plot'") == 2
    assert f"({html_text(SCRIPT)},{html_text(SCRIPT)})" in page  # the log's cell, escaped
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    assert {row["player"] for row in rows} == {"'=1+1"}
