// Why a certain cell is certain: hovering a cell the odds mark safe or a mine asks
// /api/explain for its forcing numbers, outlines them on the board and shows the steps in
// words in #explain-panel. Hooks: app.js's "mscsp:render" event (the answer drawn).
"use strict";

(() => {
  let solution = null; // the exact answer on the board, or null
  const cache = new Map(); // "board|r,c" -> explanation
  let pending = null;
  let shown = null; // the explanation on show, or null

  function clear() {
    document.querySelectorAll(".explain-number, .explain-cell").forEach((el) =>
      el.classList.remove("explain-number", "explain-cell"),
    );
    const panel = document.getElementById("explain-panel");
    if (panel) panel.hidden = true;
  }

  function cellEl(r, c) {
    return document.querySelector(`#board [data-r="${r}"][data-c="${c}"]`);
  }

  function show(e) {
    clear();
    shown = e;
    const [r, c] = e.cell;
    cellEl(r, c)?.classList.add("explain-cell");
    for (const [nr, nc] of e.numbers) cellEl(nr, nc)?.classList.add("explain-number");
    const panel = document.getElementById("explain-panel");
    panel.replaceChildren();
    const head = document.createElement("div");
    head.className = "explain-head";
    const kind = { single: "one number", subset: "a subset step", cases: "a case analysis", total: "the mine total" }[e.kind] || e.kind;
    head.textContent = `Why (${r}, ${c}) is ${e.value === "safe" ? "safe" : "a mine"}: ${kind}` +
      (e.pattern ? ` (the ${e.pattern} pattern)` : "") + (e.uses_total && e.kind !== "total" ? ", with the mine total" : "");
    panel.appendChild(head);
    const list = document.createElement("ol");
    for (const step of e.steps) {
      const item = document.createElement("li");
      item.textContent = step;
      list.appendChild(item);
    }
    panel.appendChild(list);
    panel.hidden = false;
  }

  async function explain(r, c) {
    const key = `${solution.board}|${r},${c}`;
    if (cache.has(key)) return show(cache.get(key));
    pending = key;
    const response = await fetch("/api/explain", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ board: solution.board, cells: [[r, c]] }),
    });
    if (!response.ok) return;
    const answer = await response.json();
    cache.set(key, answer.explanations[0]);
    if (pending === key) show(answer.explanations[0]);
  }

  document.addEventListener("mscsp:render", (event) => {
    const next = event.detail.solution;
    const before = solution;
    // Only exact answers carry certain cells (an estimate claims none).
    solution = next && next.board && next.approximate !== true ? next : null;
    // A redraw of the same board (its marks arriving) keeps the explanation on show.
    const same = shown && solution && before && before.board === solution.board;
    if (same) show(shown);
    else {
      shown = null;
      clear();
    }
  });

  document.addEventListener("DOMContentLoaded", () => {
    const board = document.getElementById("board");
    board.addEventListener("mouseover", (event) => {
      const el = event.target.closest("#board [data-r]");
      if (!el || !solution) return;
      const p = el.dataset.p;
      if (p === "0" || p === "1") explain(Number(el.dataset.r), Number(el.dataset.c));
      else {
        pending = null;
        shown = null;
        clear();
      }
    });
  });
})();
