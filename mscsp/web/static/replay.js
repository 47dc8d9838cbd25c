// mscsp analyser, replays: open a replay file (.avf .evf .rmv .mvf), rate it on the server
// (POST /api/replay, the file's bytes), and scrub through its clicks. Each step puts the
// board before the click in the board text and asks the page to solve it, so the heat map
// is the page's own; this file adds the verdict of the click and marks the cell clicked.
"use strict";

(() => {
  const byId = (id) => document.getElementById(id);
  const replay = { data: null, step: 0 };

  const VERDICT_HELP = {
    forced: "no choice: the first click, or every covered cell had the same odds",
    certain: "the cell was certain safe",
    "best guess": "no cell was certain safe, and this one was among the safest",
    "avoidable risk": "a safer cell was on the board",
  };

  function percent(p) {
    if (p === 0 || p === 1) return `${p * 100}%`;
    const text = (p * 100).toFixed(1);
    if (text === "0.0") return "<0.1%";
    if (text === "100.0") return ">99.9%";
    return `${text}%`;
  }

  function cellText(cell) {
    return `(${cell[0]}, ${cell[1]})`;
  }

  function build(panel) {
    panel.innerHTML = `
      <h2>Replay</h2>
      <label class="stack">Open a replay file <small>(.avf Arbiter, .evf Metasweeper,
        .rmv Viennasweeper, .mvf Minesweeper Clone)</small>
        <input id="replay-file" type="file" accept=".avf,.evf,.rmv,.mvf"></label>
      <div id="replay-error" class="replay-error" role="alert" hidden></div>
      <div id="replay-body" hidden>
        <dl id="replay-summary" class="facts"></dl>
        <div class="row replay-controls">
          <button id="replay-prev" class="secondary" title="Previous click">&larr;</button>
          <input id="replay-slider" type="range" min="0" value="0" aria-label="click">
          <button id="replay-next" class="secondary" title="Next click">&rarr;</button>
        </div>
        <div id="replay-step" class="replay-step"></div>
        <div id="replay-verdict" class="replay-verdict"></div>
      </div>`;
    byId("replay-file").addEventListener("change", (e) => open(e.target.files[0]));
    byId("replay-prev").addEventListener("click", () => show(replay.step - 1));
    byId("replay-next").addEventListener("click", () => show(replay.step + 1));
    byId("replay-slider").addEventListener("input", (e) => show(Number(e.target.value)));
    // The page redraws its cells on every solve; mark the clicked cell again after it.
    new MutationObserver(mark).observe(byId("board"), {
      attributes: true,
      subtree: true,
      attributeFilter: ["class", "data-solved"],
    });
  }

  function fail(message) {
    const box = byId("replay-error");
    box.textContent = message;
    box.hidden = false;
    byId("replay-body").hidden = true;
    replay.data = null;
    mark();
  }

  async function open(file) {
    if (!file) return;
    byId("replay-error").hidden = true;
    let answer;
    try {
      answer = await upload("/api/replay", file);
    } catch (error) {
      fail(`${file.name}: ${error.message || error}`);
      return;
    }
    try {
      // The page solves each step with its backend menu and controls: wait for them (a
      // file opened as the page loads would otherwise meet no backend, and no Solve).
      await window.mscspReady;
    } catch (error) {
      fail(`${file.name}: the page did not load (${error})`);
      return;
    }
    replay.data = answer;
    summarise(answer);
    byId("replay-body").hidden = false;
    const slider = byId("replay-slider");
    slider.max = String(answer.clicks.length);
    if (byId("tab-analyse").getAttribute("aria-selected") !== "true") byId("tab-analyse").click();
    // The size boxes show the game's size at once (the solve sets them again).
    byId("width").value = answer.cols;
    byId("height").value = answer.rows;
    byId("mines").value = answer.mines;
    show(0);
  }

  function summarise(answer) {
    const s = answer.summary;
    const rows = [
      ["Game", `${answer.cols}x${answer.rows}, ${answer.mines} mines (${answer.mode})` +
        (answer.player ? `, ${answer.player}` : "")],
      ["Result", `${s.result} after ${s.clicks} clicks` +
        (s.lost_click ? `: lost at click ${s.lost_click}` : "")],
      ["Luck", `${percent(s.luck)} chance to survive its ${s.guesses_survived} guesses`],
      ["Avoidable", `${s.avoidable_risks} risky click${s.avoidable_risks === 1 ? "" : "s"}, total cost ${percent(s.avoidable_cost)}`],
    ];
    const list = byId("replay-summary");
    list.replaceChildren();
    for (const [term, text] of rows) {
      const dt = document.createElement("dt");
      dt.textContent = term;
      const dd = document.createElement("dd");
      dd.textContent = text;
      list.append(dt, dd);
    }
  }

  function show(step) {
    const data = replay.data;
    if (!data) return;
    const last = data.clicks.length;
    replay.step = Math.max(0, Math.min(last, step));
    byId("replay-slider").value = String(replay.step);
    byId("replay-prev").disabled = replay.step === 0;
    byId("replay-next").disabled = replay.step === last;
    const click = data.clicks[replay.step];
    const verdict = byId("replay-verdict");
    const panel = byId("replay-panel");
    panel.dataset.step = String(replay.step);
    if (click) {
      byId("replay-step").textContent =
        `Click ${click.number} of ${last}: ${cellText(click.cell)}` +
        (click.kind === "chord" ? ` (chord on ${cellText(click.at)})` : "");
      let text = `${click.verdict}: ${percent(click.probability)} mine; safest ` +
        `${percent(click.safest)} ${cellText(click.best_cell)}`;
      if (click.safe_cells) text += `, ${click.safe_cells} certain safe`;
      if (click.verdict === "avoidable risk") text += `; cost ${percent(click.cost)}`;
      if (!click.survived) text += ". It hit a mine.";
      verdict.textContent = text;
      verdict.title = VERDICT_HELP[click.verdict];
      verdict.dataset.verdict = click.verdict;
      verdict.classList.toggle("lost", !click.survived);
    } else {
      byId("replay-step").textContent = `After the last click (${data.summary.result})`;
      verdict.textContent = "";
      verdict.dataset.verdict = "";
      verdict.classList.remove("lost");
    }
    const text = byId("board-text");
    text.value = click ? click.board : data.final_board;
    byId("solve").click();
  }

  function mark() {
    const board = byId("board");
    const data = replay.data;
    const click = data && data.clicks[replay.step];
    const at = click ? click.cell[0] * data.cols + click.cell[1] : -1;
    for (const el of board.querySelectorAll(".replay-click")) {
      if (Number(el.dataset.r) * data?.cols + Number(el.dataset.c) !== at) el.classList.remove("replay-click");
    }
    if (!click || board.dataset.shape !== `${data.rows}x${data.cols}`) return;
    const el = board.children[at];
    if (el && !el.classList.contains("replay-click")) el.classList.add("replay-click");
  }

  document.addEventListener("DOMContentLoaded", () => {
    const panel = byId("replay-panel");
    if (panel) build(panel);
  });
})();
