"""What an archive of rated games says: totals per board and mode, trends by month, the worst
mistakes, and its exports (CSV of the games, JSON of the summary, an HTML report).

Everything here works on the records of :mod:`mscsp.replay.archive` (the lines of
``--out``), so a summary can be made again from a finished run without rating anything.

3BV/s is a player's speed: it is averaged over the games that took a time
(:data:`MIN_TIME`), so the games a program recorded in a millisecond (generated games, as
the test fixtures are) show ``-`` rather than a speed of 100,000 3BV/s.
"""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from collections.abc import Iterable
from statistics import mean
from typing import Any

from ..evaluation.harness import wilson
from ..trust.escape import csv_cell, html_text, plain_label, plain_text

#: Games in the worst-mistakes list.
WORST = 10
#: Shortest game time (seconds, ms_toollib's ``rtime``) whose 3BV/s is a player's speed:
#: a program that records a game takes a few milliseconds, a person a second or more.
MIN_TIME = 0.1
#: What the 3BV/s column means, under every table that has one.
SPEED_NOTE = (
    f"3BV/s: the mean over games that took at least {MIN_TIME:g} s; '-' where none did "
    "(games recorded by a program, such as generated games, take no time)."
)
#: Largest worst-mistake board drawn as a picture (cells); a larger one (a log can say
#: anything) is shown as text.
MAX_DRAWN_CELLS = 10_000
#: Seconds to solve a worst-mistake board for its picture.
BOARD_TIME_LIMIT = 10.0
#: The per-game columns of the CSV export: (header, path into the record).
CSV_COLUMNS = (
    ("file", ("file",)),
    ("hash", ("hash",)),
    ("status", ("status",)),
    ("reason", ("reason",)),
    ("date", ("date",)),
    ("board", ("board",)),
    ("mode", ("mode",)),
    ("player", ("player",)),
    ("result", ("result",)),
    ("clicks", ("summary", "clicks")),
    ("guesses", ("summary", "guesses")),
    ("needless_guesses", ("needless_guesses",)),
    ("luck", ("summary", "luck")),
    ("accuracy", ("accuracy",)),
    ("avoidable_cost", ("summary", "avoidable_cost")),
    ("loss", ("loss", "kind")),
    ("bbbv", ("metrics", "bbbv")),
    ("bbbv_s", ("metrics", "bbbv_s")),
    ("time", ("metrics", "rtime")),
    ("ioe", ("metrics", "ioe")),
    ("corr", ("metrics", "corr")),
    ("thrp", ("metrics", "thrp")),
    ("rqp", ("metrics", "rqp")),
    ("stnb", ("metrics", "stnb")),
    ("zini", ("metrics", "zini")),
    ("op", ("metrics", "op")),
    ("isl", ("metrics", "isl")),
)


def _get(record: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = record
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _real(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _mean(values: Iterable[Any]) -> float | None:
    kept = [float(v) for v in values if _real(v) and math.isfinite(v)]
    return mean(kept) if kept else None


def speed(record: dict[str, Any]) -> float | None:
    """A game's 3BV/s (ms_toollib's ``bbbv_s``) where it is a player's speed: the game took
    at least :data:`MIN_TIME` seconds; else ``None``."""
    time, value = _get(record, ("metrics", "rtime")), _get(record, ("metrics", "bbbv_s"))
    if not (_real(time) and _real(value)) or not time >= MIN_TIME:
        return None
    return float(value) if math.isfinite(value) else None


def group_summary(games: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals of rated games: win rate with its 95 % Wilson interval, mean luck (of all
    games, of the wins, of the losses: were the wins lucky?), accuracy, 3BV/s (of the games
    with a time: :func:`speed`), IOE, the needless guesses, and how the losses were lost."""
    wins = sum(g["result"] == "won" for g in games)
    finished = sum(g["result"] in ("won", "lost") for g in games)
    low, high = wilson(wins, finished)
    losses: dict[str, int] = defaultdict(int)
    for g in games:
        if g.get("loss"):
            losses[g["loss"]["kind"]] += 1
    return {
        "games": len(games),
        "finished": finished,
        "wins": wins,
        "win_rate": wins / finished if finished else None,
        "win_rate_95": [low, high],
        "luck": _mean(g["summary"]["luck"] for g in games),
        "luck_wins": _mean(g["summary"]["luck"] for g in games if g["result"] == "won"),
        "luck_losses": _mean(g["summary"]["luck"] for g in games if g["result"] == "lost"),
        "accuracy": _mean(g["accuracy"] for g in games),
        "bbbv_s": _mean(speed(g) for g in games),
        "ioe": _mean(_get(g, ("metrics", "ioe")) for g in games),
        "guesses": sum(g["summary"]["guesses"] for g in games),
        "needless_guesses": sum(g["needless_guesses"] for g in games),
        "losses": dict(sorted(losses.items())),
    }


def _order(value: Any) -> tuple[int, Any]:
    """A sort key that puts integers first, in order, then anything else as text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (0, value)
    return (1, str(value))


def summarise(records: Iterable[dict[str, Any]], worst: int = WORST) -> dict[str, Any]:
    """The archive's summary: ``all`` games, ``groups`` per board and mode, ``trends`` per
    board and month, the ``worst`` mistakes (each game's costliest guess, with the board
    before it; the ``worst`` costliest of them), and the files that were not rated
    (``errors``)."""
    records = list(records)
    games = [r for r in records if r.get("status") == "ok"]
    errors = [{"file": r["file"], "reason": r.get("reason", "")} for r in records if r not in games]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    months: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for g in games:
        groups[(g["board"], g["mode"])].append(g)
        months[(g["board"], (g.get("date") or "undated")[:7])].append(g)
    # Each game's costliest guess (the first of equals), whose board its record keeps.
    # (A resumed log is a file anyone can edit: a click number that is text sorts last
    # rather than failing to compare with the numbers.)
    mistakes = []
    for g in games:
        guesses = [c for c in g.get("clicks", []) if c["loss"] > 0]
        if guesses:
            costliest = min(guesses, key=lambda c: (-c["loss"], _order(c["number"])))
            mistakes.append({"file": g["file"], "board_name": g["board"], **costliest})
    mistakes.sort(key=lambda m: (-m["loss"], str(m["file"]), _order(m["number"])))
    boards = {g["file"]: g.get("worst") for g in games}
    for m in mistakes[:worst]:
        shown = boards.get(m["file"])
        if shown and shown["number"] == m["number"]:
            m["board"] = shown["board"]
    return {
        "files": len(records),
        "rated": len(games),
        "errors": errors,
        "all": group_summary(games),
        "groups": [
            {"board": b, "mode": mode, **group_summary(gs)}
            for (b, mode), gs in sorted(groups.items())
        ],
        "trends": [
            {"board": b, "month": month, **group_summary(gs)}
            for (b, month), gs in sorted(months.items())
        ],
        "worst": mistakes[:worst],
    }


def games_csv(records: Iterable[dict[str, Any]]) -> str:
    """One CSV row per file (rated or not), columns :data:`CSV_COLUMNS`; text cells that a
    spreadsheet would run as a formula (a player named ``=1+1``) start with an apostrophe
    (:func:`~mscsp.trust.escape.csv_cell`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([name for name, _ in CSV_COLUMNS])
    for record in records:
        row = []
        for _, path in CSV_COLUMNS:
            value = _get(record, path)
            row.append("" if value is None else csv_cell(value))
        writer.writerow(row)
    return out.getvalue()


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def _num(value: float | None, decimals: int = 3) -> str:
    """A number with ``decimals`` decimals (never an exponent), ``-`` for none."""
    return "-" if value is None else f"{value:.{decimals}f}"


def summary_rows(groups: list[dict[str, Any]], first: str) -> list[list[str]]:
    """Table rows of group summaries (``first``: the key shown in the first column)."""
    rows = []
    for g in groups:
        low, high = g["win_rate_95"]
        rows.append(
            [
                f"{g['board']} {g[first]}",
                str(g["games"]),
                _pct(g["win_rate"]),
                f"{_pct(low)} - {_pct(high)}" if g["finished"] else "-",
                _num(g["luck"]),
                _num(g["luck_wins"]),
                _num(g["accuracy"], 2),
                str(g["needless_guesses"]),
                _num(g["bbbv_s"], 2),
                _num(g["ioe"]),
            ]
        )
    return rows


SUMMARY_COLUMNS = (
    "board",
    "games",
    "win rate",
    "95 % interval",
    "luck",
    "luck (wins)",
    "accuracy",
    "needless",
    "3BV/s",
    "IOE",
)


def summary_text(summary: dict[str, Any]) -> str:
    """The summary as text tables (what ``--summary`` prints)."""
    from ..display.table import format_table

    lines = [
        f"{summary['rated']} of {summary['files']} files rated, {len(summary['errors'])} not rated",
        "",
        format_table(SUMMARY_COLUMNS, summary_rows(summary["groups"], "mode")),
    ]
    if summary["trends"]:
        lines += ["", "by month:"]
        lines.append(format_table(("board", *SUMMARY_COLUMNS[1:]), _month_rows(summary)))
    lines += ["", SPEED_NOTE]
    if summary["worst"]:
        lines += ["", "worst mistakes (each game's costliest guess: loss of value, source):"]
        for m in summary["worst"]:
            lines.append(
                f"  {m['file']}: click {m['number']} at ({m['cell'][0]},{m['cell'][1]}), "
                f"p = {m['probability']:.3f}, safest {m['safest']:.3f}, loss {m['loss']:.3f} "
                f"({m['source']})"
            )
    for e in summary["errors"]:
        lines.append(f"not rated: {e['file']}: {e['reason']}")
    return "\n".join(lines)


def _month_rows(summary: dict[str, Any]) -> list[list[str]]:
    return summary_rows(summary["trends"], "month")


def _fixed(value: Any) -> str:
    """A probability or loss with 3 decimals; anything else (a damaged log) as text."""
    real = isinstance(value, (int, float)) and not isinstance(value, bool)
    return f"{value:.3f}" if real else str(value)


def _cell(value: Any) -> str:
    """A clicked cell ``(row,col)``; anything else (a damaged log) as text."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return f"({value[0]},{value[1]})"
    return str(value)


def html_report(summary: dict[str, Any], records: list[dict[str, Any]]) -> str:
    """A self-contained HTML page of the summary, with plots as inline PNG images.

    Every field is escaped (:func:`~mscsp.trust.escape.html_text`), whether it comes
    from this run or a resumed log someone else may have written; a plot that cannot be
    drawn is left out with a note rather than losing the report.
    """
    games = [r for r in records if r.get("status") == "ok"]
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>mscsp archive report</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:"
        "collapse;margin:1em 0}td,th{border:1px solid #999;padding:.2em .5em;text-align:right}"
        "th{background:#eee}td:first-child{text-align:left}pre{background:#f6f6f6;"
        "padding:.5em;display:inline-block}img{max-width:100%}.note{color:#555;"
        "font-size:90%}</style></head><body>",
        "<h1>Archive report</h1>",
        f"<p>{summary['rated']} of {summary['files']} files rated, "
        f"{len(summary['errors'])} not rated.</p>",
        "<h2>By board and mode</h2>",
        _html_table(SUMMARY_COLUMNS, summary_rows(summary["groups"], "mode")),
        f"<p class='note'>{html_text(SPEED_NOTE)}</p>",
    ]
    for title, png, failure in _plots(summary, games):
        parts.append(f"<h2>{html_text(title)}</h2>")
        if failure:
            parts.append(f"<p>(not drawn: {html_text(failure)})</p>")
        else:
            parts.append(f"<img class='plot' alt='{html_text(title)}' src='{html_text(png)}'>")
    parts += [
        "<h2>By month</h2>",
        _html_table(("board", *SUMMARY_COLUMNS[1:]), _month_rows(summary)),
        f"<p class='note'>{html_text(SPEED_NOTE)}</p>",
        "<h2>Worst mistakes</h2>",
    ]
    if summary["worst"]:
        parts.append(
            "<p class='note'>Each game's costliest guess, the costliest first. Each board is "
            "the position before the click, coloured by its mine probabilities: the clicked "
            "cell framed in violet, the safest cell in blue.</p>"
        )
    for m in summary["worst"]:
        shown = (
            f"{m.get('file')}: click {m.get('number')} at {_cell(m.get('cell'))}, p = "
            f"{_fixed(m.get('probability'))}, safest {_fixed(m.get('safest'))}, loss "
            f"{_fixed(m.get('loss'))} ({m.get('source')})"
        )
        parts.append(f"<p>{html_text(shown)}</p>")
        if m.get("board"):
            png, failure = board_png(m)
            if failure is None:
                alt = f"the board before click {m.get('number')}"
                parts.append(f"<img class='board' alt='{html_text(alt)}' src='{html_text(png)}'>")
            else:
                parts.append(f"<p>(board not drawn: {html_text(failure)})</p>")
                parts.append(f"<pre>{html_text(m['board'])}</pre>")
    if summary["errors"]:
        parts.append("<h2>Files not rated</h2><ul>")
        for e in summary["errors"]:
            parts.append(f"<li>{html_text(e['file'])}: {html_text(e['reason'])}</li>")
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _html_table(columns: tuple[str, ...], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html_text(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html_text(v)}</td>" for v in row) + "</tr>" for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _plots(
    summary: dict[str, Any], games: list[dict[str, Any]]
) -> list[tuple[str, str, str | None]]:
    """(title, data URL, why it was not drawn) of each plot; none when matplotlib is
    missing.

    Board names and months come from the logs: drawn as plain text (mathtext off, one line
    each), so a board named ``$\\bad{$`` is a label, not a formula; and a plot that fails
    anyway is reported as not drawn rather than losing the whole report.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    plots = []
    for title, draw in (
        ("Win rate by month", lambda ax: _win_rates(ax, summary)),
        ("Luck against accuracy", lambda ax: _luck(ax, games)),
    ):
        try:
            with plain_text():
                fig, ax = plt.subplots(figsize=(7, 3.5))
                draw(ax)
                plots.append((title, _png(fig), None))
        # (matplotlib raises many kinds of error on odd data: ValueError, RuntimeError, ...;
        # whichever it is, this figure is lost and the report is not.)
        except Exception as exc:
            why = (str(exc).splitlines() or [""])[0]
            plots.append((title, "", plain_label(f"{type(exc).__name__}: {why}")))
        finally:
            plt.close("all")
    return plots


def _pair(value: Any) -> tuple[int, int] | None:
    """A ``[row, col]`` of a log as a cell, or ``None`` when it is not two integers."""
    pair = isinstance(value, (list, tuple)) and len(value) == 2
    if pair and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return (value[0], value[1])
    return None


def board_png(mistake: dict[str, Any]) -> tuple[str, str | None]:
    """The board of a worst mistake drawn by the heat map renderer
    (:func:`mscsp.display.heatmap.heatmap_figure`) as a PNG data URL, the clicked cell and the
    safest cell framed; or ``("", why it was not drawn)``.

    The board comes from a log anyone can edit: one larger than :data:`MAX_DRAWN_CELLS`
    cells, one that does not parse or solve within :data:`BOARD_TIME_LIMIT` seconds, or a
    figure that fails for any other reason is not drawn, and the report goes on.
    """
    import base64

    from ..board import parse_board
    from ..display.heatmap import BEST_COLOUR, CLICK_COLOUR, Mark, save_png
    from ..solver import solve

    try:
        board = parse_board(str(mistake["board"]))
        if board.rows * board.cols > MAX_DRAWN_CELLS:
            return "", f"{board.cols}x{board.rows} is over {MAX_DRAWN_CELLS} cells"
        marks = []
        for key, label, colour in (
            ("cell", "clicked cell", CLICK_COLOUR),
            ("best_cell", "safest cell", BEST_COLOUR),
        ):
            cell = _pair(mistake.get(key))
            if cell is None:
                return "", f"the {label} is not a (row, col) pair"
            marks.append(Mark(cell, label, colour))
        solution = solve(board, time_limit=BOARD_TIME_LIMIT)
        kind = "estimated" if solution.approximate else "exact"
        title = f"{board.cols}x{board.rows}, {board.mines} mines, before the click: {kind} odds"
        buffer = io.BytesIO()
        with plain_text():
            save_png(solution, buffer, title, marks, suggest=False)
    # (A damaged board raises a parse or solver error, matplotlib many kinds of error on
    # odd data: whichever it is, this picture is lost and the report is not.)
    except Exception as exc:
        why = (str(exc).splitlines() or [""])[0]
        return "", plain_label(f"{type(exc).__name__}: {why}")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode(), None


def _win_rates(ax: Any, summary: dict[str, Any]) -> None:
    """Win rate by month, one line per board."""
    dated = [t for t in summary["trends"] if t["month"] != "undated"]
    # One month axis for every board, in calendar order (categorical axes keep the order
    # in which the first series names them).
    months = sorted({t["month"] for t in dated})
    for board in sorted({t["board"] for t in dated}):
        points = [t for t in dated if t["board"] == board and t["win_rate"] is not None]
        if points:
            xs = [months.index(t["month"]) for t in points]
            ys = [100 * t["win_rate"] for t in points]
            ax.plot(xs, ys, marker="o", label=plain_label(board))
    ax.set_xticks(range(len(months)), [plain_label(m) for m in months], rotation=45)
    ax.set_ylabel("win rate (%)")
    ax.set_xlabel("month")
    if dated:
        ax.legend()


def _luck(ax: Any, games: list[dict[str, Any]]) -> None:
    """Luck against accuracy, one point per game (wins green, losses red)."""
    for result, colour in (("won", "tab:green"), ("lost", "tab:red")):
        chosen = [g for g in games if g["result"] == result]
        ax.scatter(
            [g["accuracy"] for g in chosen],
            [g["summary"]["luck"] for g in chosen],
            s=10,
            c=colour,
            label=result,
            alpha=0.6,
        )
    ax.set_xlabel("accuracy")
    ax.set_ylabel("luck (chance of surviving the guesses)")
    ax.legend()


def _png(fig: Any) -> str:
    import base64

    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=80)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
