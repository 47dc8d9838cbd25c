// mscsp analyser: the page talks to the local server's JSON API (/api/meta, /api/solve,
// /api/play, /api/suggest). The server parses and solves; this file only draws, and reads
// back the canonical board text the server returns.
"use strict";

const COVERED = -1;
const FLAG = -2;
const $ = (id) => document.getElementById(id);

const state = {
  meta: null,
  mode: "analyse",
  grid: null, // {rows, cols, mines, cells: number[]}
  solution: null, // last /api/solve answer for the grid on show
  play: null, // {preset, seed, first_click, moves, result}
  hint: null, // {move: [r, c], ...} from /api/suggest
  hover: null, // [r, c] under the mouse
  request: null, // AbortController of the solve in flight
  solveTimer: 0,
  solved: 0, // number of solves shown (tests wait on it)
  marks: null, // last /api/marks answer: {board, dead, fifty_fifty, note}
  marksRequest: null, // AbortController of the marks request in flight
  errorCell: null, // [r, c] an inconsistent board's error names, drawn on its board
};

// Resolved once the page's metadata is in and its controls are wired: what arrives
// sooner (a replay opened at once) waits for it (replay.js awaits window.mscspReady).
let markReady;
let failReady;
window.mscspReady = new Promise((resolve, reject) => {
  markReady = resolve;
  failReady = reject;
});
window.mscspReady.catch(() => {}); // (a failed load is shown as the page's error)

// ---------------------------------------------------------------- colours (from the server)

function hexRgb(hex) {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

function heatRgb(p) {
  const stops = state.meta.palette.stops;
  p = Math.min(Math.max(p, 0), 1);
  for (let i = 1; i < stops.length; i++) {
    const [p0, c0] = stops[i - 1];
    const [p1, c1] = stops[i];
    if (p <= p1) {
      const t = (p - p0) / (p1 - p0);
      const a = hexRgb(c0);
      const b = hexRgb(c1);
      return a.map((v, k) => Math.floor(v + t * (b[k] - v) + 0.5));
    }
  }
  return hexRgb(stops[stops.length - 1][1]);
}

const css = (rgb) => `rgb(${rgb[0]}, ${rgb[1]}, ${rgb[2]})`;

function percentLabel(p) {
  // As the CLI's map rounds (mscsp.display.render): "<1" and ">99" are never certain. Every
  // percentage carries "%", so that it never reads as a revealed number.
  if (p === 0) return "✓";
  if (p === 1) return "✗";
  const pct = p * 100;
  if (pct < 1) return "<1%";
  if (pct > 99) return ">99%";
  return `${Math.floor(pct + 0.5)}%`;
}

function cellName(cell) {
  return `(${cell[0]}, ${cell[1]})`;
}

function cellCount(n) {
  return `${n} cell${n === 1 ? "" : "s"}`;
}

function pct(p, digits = 1) {
  return `${(p * 100).toFixed(digits)}%`;
}

// ---------------------------------------------------------------- board text

// The header lines mscsp.board reads: "WxHxM" or "mines=M", before the first row.
const HEADER_SIZE = /^\s*(\d+)\s*[xX]\s*(\d+)\s*[xX]\s*(\d+)\s*$/;
const HEADER_MINES = /^\s*mines\s*=\s*(\d+)\s*$/i;

function hasHeader(text) {
  // The first line that is neither blank nor a comment is the header, or the first row.
  for (const raw of text.replace(/^\ufeff/, "").split(/\r\n|\r|\n/)) {
    const line = raw.trimEnd();
    if (!line.trim() || line.trim().startsWith("#")) continue;
    return HEADER_SIZE.test(line) || HEADER_MINES.test(line);
  }
  return false;
}

function minesBox() {
  // The Mines box's count, or null when it holds none.
  const text = $("mines").value.trim();
  return /^\d+$/.test(text) ? Number(text) : null;
}

function parseCanonical(text) {
  // The server's canonical form: "WxHxM" then one character per cell.
  const lines = text.trim().split("\n");
  const [cols, rows, mines] = lines[0].split("x").map(Number);
  const cells = [];
  for (const line of lines.slice(1)) {
    for (const ch of line) {
      cells.push(ch === "?" ? COVERED : ch === "F" ? FLAG : ch === "." ? 0 : Number(ch));
    }
  }
  return { rows, cols, mines, cells };
}

function formatGrid(grid) {
  const rows = [`${grid.cols}x${grid.rows}x${grid.mines}`];
  for (let r = 0; r < grid.rows; r++) {
    let line = "";
    for (let c = 0; c < grid.cols; c++) {
      const v = grid.cells[r * grid.cols + c];
      line += v === COVERED ? "?" : v === FLAG ? "F" : v === 0 ? "." : String(v);
    }
    rows.push(line);
  }
  return rows.join("\n") + "\n";
}

// ---------------------------------------------------------------- API

async function api(path, body, signal) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  let data;
  try {
    data = await response.json();
  } catch {
    throw { kind: "server", message: `the server answered ${response.status} without JSON` };
  }
  if (!response.ok) throw data.error || { kind: "server", message: `HTTP ${response.status}` };
  return data;
}

// A file's bytes to an endpoint that takes them (/api/replay, /api/read-image; its name in
// the query): the JSON answer, or the API's error thrown.
async function upload(path, file) {
  const response = await fetch(`${path}?name=${encodeURIComponent(file.name || "pasted")}`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: await file.arrayBuffer(),
  });
  const answer = await response.json();
  if (!response.ok) throw answer.error || { message: `HTTP ${response.status}` };
  return answer;
}

// ---------------------------------------------------------------- errors and status

const ERROR_TITLES = {
  parse: "Board text",
  invalid: "Invalid input",
  inconsistent: "Inconsistent board",
  unavailable: "Backend not installed",
  limit: "Solver limit",
  too_large: "Too large",
  busy: "Server busy",
  request: "Bad request",
};

function showError(error) {
  $("error-kind").textContent = (ERROR_TITLES[error.kind] || "Error") + ":";
  // The cell the message names is marked on the board drawn from the error's own board.
  state.errorCell = error.cell && error.board ? error.cell : null;
  $("error-message").textContent = error.message + (state.errorCell ? " (framed in red on the board)" : "");
  $("error").hidden = false;
  $("error").dataset.kind = error.kind || "";
  const missingMines = error.missing === "mines";
  $("mines").classList.toggle("bad", missingMines);
  const text = $("board-text");
  text.classList.toggle("bad", error.kind === "parse" && !missingMines);
  if (error.kind === "parse" && error.line && state.mode === "analyse") selectLine(text, error.line, error.column);
}

function clearError() {
  $("error").hidden = true;
  state.errorCell = null;
  $("board-text").classList.remove("bad");
  $("mines").classList.remove("bad");
}

function selectLine(area, line, column) {
  const lines = area.value.split("\n");
  let start = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
  const length = (lines[line - 1] || "").length;
  const from = column ? start + column - 1 : start;
  const to = column ? from + 1 : start + length;
  area.setSelectionRange(from, to);
}

function setBusy(busy) {
  $("busy").hidden = !busy;
  $("board").classList.toggle("busy", busy);
  $("board").dataset.state = busy ? "busy" : $("error").hidden ? "ready" : "error";
}

function bigNumber(digits) {
  if (digits.length <= 12) return Number(digits).toLocaleString("en-US");
  return `${digits[0]}.${digits.slice(1, 4)} × 10<sup>${digits.length - 1}</sup>`;
}

function escapeHtml(text) {
  const span = document.createElement("span");
  span.textContent = text;
  return span.innerHTML;
}

function fraction(text, limit = 48) {
  return text.length > limit ? text.slice(0, limit) + "…" : text;
}

// ---------------------------------------------------------------- solving

function scheduleSolve(delay = 180) {
  clearTimeout(state.solveTimer);
  state.solveTimer = setTimeout(solveNow, delay);
}

async function solveNow() {
  clearTimeout(state.solveTimer);
  if (state.request) state.request.abort();
  const controller = new AbortController();
  state.request = controller;
  const text = state.mode === "play" ? formatGrid(state.grid) : $("board-text").value;
  const body = { board: text, backend: $("backend").value };
  const fallback = $("fallback") ? $("fallback").value : "";
  if (fallback) body.fallback = fallback; // estimators.js offers it: odds where the count stops
  // A pasted board without a header takes its mine count from the Mines box.
  if (!hasHeader(text) && minesBox() !== null) body.mines = minesBox();
  setBusy(true);
  try {
    const answer = await api("/api/solve", body, controller.signal);
    state.grid = parseCanonical(answer.board);
    state.solution = answer;
    clearError();
    if (state.mode === "analyse") {
      syncInputs();
      // The board goes in the address, so a reload or a shared link shows it again.
      history.replaceState(null, "", `#${encodeURIComponent(answer.board)}`);
    }
  } catch (error) {
    if (error.name === "AbortError") return;
    state.solution = null;
    if (error.board) {
      // It parsed but has no odds (inconsistent, or too slow): show it as it is.
      state.grid = parseCanonical(error.board);
      if (state.mode === "analyse") syncInputs();
    }
    showError(error);
  } finally {
    if (state.request === controller) {
      state.request = null;
      state.solved += 1;
      $("board").dataset.solved = String(state.solved);
      setBusy(false);
      requestMarks(state.solution);
      render();
    }
  }
}

function syncInputs() {
  $("width").value = state.grid.cols;
  $("height").value = state.grid.rows;
  $("mines").value = state.grid.mines;
}

async function requestMarks(solution) {
  // Dead cells and 50/50 pairs come from /api/marks after the odds are drawn (a count or
  // two per undecided cell: they may take a moment longer than the odds). The board's
  // data-marks-for says which solve (data-solved) the marks on show belong to.
  if (state.marksRequest) state.marksRequest.abort();
  state.marksRequest = null;
  state.marks = null;
  const forSolve = String(state.solved);
  if (!solution || solution.approximate) {
    $("board").dataset.marksFor = forSolve;
    return;
  }
  const controller = new AbortController();
  state.marksRequest = controller;
  try {
    const answer = await api("/api/marks", { board: solution.board }, controller.signal);
    if (state.solution && state.solution.board === answer.board) state.marks = answer;
  } catch (error) {
    if (error.name === "AbortError") return;
    state.marks = { dead: null, fifty_fifty: [], note: `no marks: ${error.message}` };
  }
  if (state.marksRequest !== controller) return;
  state.marksRequest = null;
  $("board").dataset.marksFor = forSolve;
  render();
}

// ---------------------------------------------------------------- drawing the board

function cellSize(rows, cols) {
  // Fit the width of the panel (less the row ruler) and, down to 20 px cells, the height
  // of the window (less the column ruler).
  const wide = Math.floor(($("board-frame").parentElement.clientWidth - 12 - RULER) / cols);
  const tall = Math.max(20, Math.floor((window.innerHeight - 250 - RULER) / rows));
  return Math.max(16, Math.min(38, wide, tall));
}

const RULER = 26; // px: the width of the row ruler, the height of the column ruler

function buildRulers(rows, cols, size) {
  // Rows down the left, columns across the top, counted from 0 as the CLI and every
  // message name a cell: (row, col). Every label where it fits, else every fifth.
  const digits = String(Math.max(rows, cols) - 1).length;
  const step = size >= digits * 7 + 2 ? 1 : 5;
  const fill = (ruler, count, axis) => {
    ruler.replaceChildren();
    for (let i = 0; i < count; i++) {
      const label = document.createElement("span");
      label.dataset[axis] = i;
      label.textContent = i % step === 0 ? String(i) : "";
      ruler.appendChild(label);
    }
  };
  fill($("ruler-top"), cols, "c");
  fill($("ruler-left"), rows, "r");
  $("ruler-top").style.gridTemplateColumns = `repeat(${cols}, var(--cell))`;
  $("ruler-left").style.gridTemplateRows = `repeat(${rows}, var(--cell))`;
}

function markRulers(cell) {
  // The hovered cell's row and column light up on the rulers.
  for (const el of document.querySelectorAll(".ruler .on")) el.classList.remove("on");
  if (!cell) return;
  document.querySelector(`#ruler-left [data-r="${cell[0]}"]`)?.classList.add("on");
  document.querySelector(`#ruler-top [data-c="${cell[1]}"]`)?.classList.add("on");
}

function render() {
  const grid = state.grid;
  const board = $("board");
  if (!grid) return;
  const size = cellSize(grid.rows, grid.cols);
  const frame = $("board-frame");
  if (frame.dataset.shape !== `${grid.rows}x${grid.cols}x${size}`) {
    frame.dataset.shape = `${grid.rows}x${grid.cols}x${size}`;
    buildRulers(grid.rows, grid.cols, size);
  }
  if (board.dataset.shape !== `${grid.rows}x${grid.cols}`) {
    board.replaceChildren();
    board.dataset.shape = `${grid.rows}x${grid.cols}`;
    board.style.gridTemplateColumns = `repeat(${grid.cols}, var(--cell))`;
    for (let r = 0; r < grid.rows; r++) {
      for (let c = 0; c < grid.cols; c++) {
        const cell = document.createElement("div");
        cell.dataset.r = r;
        cell.dataset.c = c;
        board.appendChild(cell);
      }
    }
  }
  frame.style.setProperty("--cell", `${size}px`);
  const solution = state.solution && sameBoard(state.solution, grid) ? state.solution : null;
  const odds = new Map();
  if (solution) for (const [r, c, frac, group] of solution.cells) odds.set(r * grid.cols + c, [frac, group]);
  const overlay = $("overlay").checked && solution !== null;
  const showPercent = $("percent").checked;
  const best = solution && solution.best_move;
  const result = state.mode === "play" && state.play ? state.play.result : null;
  const layout = new Set((result && result.layout ? result.layout : []).map(([r, c]) => r * grid.cols + c));
  const exploded = result && result.exploded;
  board.classList.toggle("stale", !solution && !$("error").hidden);
  const marks = overlay && state.marks && solution ? state.marks : null;
  const dead = new Set((marks && marks.dead ? marks.dead : []).map(([r, c]) => r * grid.cols + c));
  const fifty = new Set((marks ? marks.fifty_fifty : []).flat().map(([r, c]) => r * grid.cols + c));
  const errorCell = state.errorCell && !solution ? state.errorCell[0] * grid.cols + state.errorCell[1] : -1;
  const runner = state.hint && state.hint.why && state.hint.why.runner_up ? state.hint.why.runner_up.cell : null;

  for (const el of board.children) {
    const r = Number(el.dataset.r);
    const c = Number(el.dataset.c);
    const i = r * grid.cols + c;
    const v = grid.cells[i];
    const classes = ["cell"];
    let text = "";
    el.style.background = "";
    delete el.dataset.p;
    delete el.dataset.exact;
    if (v >= 0) {
      classes.push("revealed");
      if (v > 0) {
        classes.push(`n${v}`);
        text = String(v);
      }
    } else {
      classes.push("covered");
      if (v === FLAG) classes.push("flag");
      const p = solution ? solution.probabilities[r][c] : null;
      if (p !== null && p !== undefined) {
        el.dataset.p = String(p);
        if (odds.has(i)) el.dataset.exact = odds.get(i)[0];
        if (overlay && v !== FLAG) {
          const palette = state.meta.palette;
          classes.push("heat", p > 0 && p < palette.dark_text_below ? "dark-text" : "light-text");
          el.style.background = p === 0 ? palette.safe : p === 1 ? palette.mine : css(heatRgb(p));
          if (showPercent || p === 0 || p === 1) text = percentLabel(p);
          if (text.length > 3) classes.push("long");
        }
      }
      if (dead.has(i)) classes.push("dead");
      if (fifty.has(i)) classes.push("fifty");
      if (layout.has(i) && v !== FLAG) {
        classes.push("mine-shown");
        text = "";
      }
      if (exploded && exploded[0] === r && exploded[1] === c) classes.push("exploded");
    }
    if (overlay && best && best[0] === r && best[1] === c) classes.push("best");
    if (state.hint && state.hint.move[0] === r && state.hint.move[1] === c) classes.push("hinted");
    if (runner && runner[0] === r && runner[1] === c) classes.push("runner-up");
    if (i === errorCell) classes.push("error-cell");
    el.className = classes.join(" ");
    el.textContent = text;
  }
  renderFacts(solution);
  // Hook for page add-ons (estimators.js): the board is drawn, with this answer.
  document.dispatchEvent(new CustomEvent("mscsp:render", { detail: { solution } }));
  if (state.hover && !$("tip").hidden) {
    // The cell under the mouse may have changed (a reveal, a new solve): refresh its tip.
    const [r, c] = state.hover;
    const el = board.children[r * grid.cols + c];
    if (el) showTip(null, el);
  }
}

function sameBoard(solution, grid) {
  return solution.rows === grid.rows && solution.cols === grid.cols && solution.board === formatGrid(grid);
}

function renderFacts(solution) {
  const facts = $("facts");
  facts.replaceChildren();
  const add = (name, html, title) => {
    const dt = document.createElement("dt");
    dt.textContent = name;
    const dd = document.createElement("dd");
    dd.innerHTML = html;
    if (title) dd.title = title;
    facts.append(dt, dd);
  };
  if (!solution) {
    const result = state.mode === "play" && state.play ? state.play.result : null;
    let text = state.grid ? "No odds for this board yet." : "Paste or draw a board.";
    if (result && result.state !== "playing") text = `Game over: ${result.state} after ${state.play.moves.length} moves.`;
    else if (state.grid && !$("overlay").checked) text = "Odds hidden.";
    $("summary").textContent = text;
    return;
  }
  const ms = (solution.seconds * 1000).toFixed(solution.seconds < 0.01 ? 2 : 1);
  // (null: the exact count stopped and a fallback estimated the odds)
  const layouts = solution.solutions === null ? "uncounted" : bigNumber(solution.solutions);
  $("summary").innerHTML =
    `<b>${layouts}</b> mine layouts · ${escapeHtml(solution.backend)} · ${ms} ms`;
  const covered = state.grid.cells.filter((v) => v === COVERED).length;
  add("Solutions", layouts, solution.solutions || "");
  add("Covered", `${covered} cells, ${solution.mines} mines in all`);
  // Counted from the exact answer, the one count of certain cells the page states (a
  // player's turn may open only some of them: the hint says so in these words).
  add("Certain safe", cellCount(solution.safe.length), "covered cells with no mine in any layout");
  add("Certain mines", cellCount(solution.mines_certain.length), "covered cells with a mine in every layout");
  const marks = state.marks && state.marks.board === solution.board ? state.marks : null;
  if (marks) {
    const dead = marks.dead === null ? "not marked" : cellCount(marks.dead.length);
    add("Dead", dead, marks.note || "undecided cells whose number is already known: clicking one teaches nothing");
    add("50/50 pairs", String(marks.fifty_fifty.length), "two cells, one mine, that no other click can tell apart");
  } else if (!solution.approximate) add("Dead", state.marksRequest ? "checking…" : "—");
  add("Solver", `${escapeHtml(solution.backend)}, ${ms} ms (limit ${solution.time_limit} s)`);
  if (solution.best_move) {
    const [r, c] = solution.best_move;
    const p = solution.probabilities[r][c];
    const exact = solution.cells.find(([rr, cc]) => rr === r && cc === c);
    add("Safest cell", `(${r}, ${c}), ${p === 0 ? "certain safe" : `${(p * 100).toFixed(2)}% mine`}`, exact ? exact[2] : "");
  }
  $("foot-backend").textContent = solution.backend;
}

// ---------------------------------------------------------------- tooltip

const GROUP_TEXT = {
  frontier: (g) => `one of ${g.size} cell${g.size > 1 ? "s" : ""} touching the same numbers (component ${g.component + 1})`,
  fixed: (g) => `one of ${g.size} cells touching the same numbers, whose mine count they fix`,
  unconstrained: (g) => `off the frontier: one of ${g.size} cells no number touches`,
  safe: () => "certain safe: no solution has a mine here",
  mine: () => "certain mine: every solution has a mine here",
};

function showTip(event, el) {
  const tip = $("tip");
  const r = Number(el.dataset.r);
  const c = Number(el.dataset.c);
  const v = state.grid.cells[r * state.grid.cols + c];
  let html = `<b>(${r}, ${c})</b> <small>row ${r}, column ${c}</small>`;
  const solution = state.solution && sameBoard(state.solution, state.grid) ? state.solution : null;
  document.querySelectorAll(".hover-group").forEach((x) => x.classList.remove("hover-group"));
  if (v >= 0) html += ` revealed ${v}`;
  else if (v === FLAG) html += " flagged";
  else if (solution && el.dataset.p !== undefined) {
    const entry = solution.cells.find(([rr, cc]) => rr === r && cc === c);
    const p = Number(el.dataset.p);
    html += ` mine probability <b>${(p * 100).toFixed(p > 0 && p < 0.001 ? 4 : 2)}%</b>`;
    if (entry) {
      html += `<br><span class="frac">${fraction(entry[2])}</span>`;
      const group = solution.groups[entry[3]];
      html += `<br>${GROUP_TEXT[group.kind](group)}`;
      if (group.kind === "frontier" || group.kind === "fixed") {
        for (const [rr, cc, , g] of solution.cells) {
          if (g === entry[3]) $("board").children[rr * state.grid.cols + cc].classList.add("hover-group");
        }
      }
    }
  } else html += " covered";
  if (v === COVERED) html += markText(r, c, solution);
  tip.innerHTML = html;
  tip.hidden = false;
  placeTip(el);
  markRulers([r, c]);
}

function markText(r, c, solution) {
  // What the board's marks say of a covered cell: one of a 50/50 pair, or dead.
  const marks = solution && state.marks && state.marks.board === solution.board ? state.marks : null;
  if (!marks) return "";
  const same = ([rr, cc]) => rr === r && cc === c;
  let text = "";
  const pair = marks.fifty_fifty.find((p) => p.some(same));
  if (pair) {
    const other = pair.find((x) => !same(x));
    text += `<br><b class="mark-name">50/50</b> with ${cellName(other)}: one mine between the two, and no other click can tell which`;
  }
  if (marks.dead && marks.dead.some(same)) {
    text += `<br><b class="mark-name">dead</b>: its number is already known, so clicking it only risks a mine and teaches nothing`;
  }
  return text;
}

function placeTip(el) {
  // Off the board and below the page's header (its tabs and menus stay in reach): above
  // the board, in line with the cell, so that it never covers the cell, its neighbours
  // (the numbers an explanation outlines) or the explanation below the board. Where there
  // is no room between the header and the board, beside the board; failing that, at the
  // window's top (below the header) or bottom edge, whichever is farther from the cell.
  const tip = $("tip");
  const frame = $("board-frame").getBoundingClientRect();
  const cell = el.getBoundingClientRect();
  const header = document.querySelector(".topbar").getBoundingClientRect();
  const w = tip.offsetWidth;
  const h = tip.offsetHeight;
  const gap = 6;
  const top = Math.max(4, header.bottom + gap); // (the header scrolls away with the page)
  const bottom = window.innerHeight - 4;
  const clampX = (x) => Math.max(4, Math.min(x, window.innerWidth - w - 4));
  const clampY = (y) => Math.max(top, Math.min(y, bottom - h));
  let x = clampX(cell.left);
  let y = frame.top - h - gap;
  if (y < top) {
    y = clampY(cell.top);
    if (frame.right + gap + w <= window.innerWidth - 4) x = frame.right + gap;
    else if (frame.left - gap - w >= 4) x = frame.left - gap - w;
    else y = cell.top - top > bottom - cell.bottom ? top : Math.max(top, bottom - h);
  }
  tip.style.left = `${x}px`;
  tip.style.top = `${y}px`;
}

function hideTip() {
  $("tip").hidden = true;
  markRulers(null);
  document.querySelectorAll(".hover-group").forEach((x) => x.classList.remove("hover-group"));
}

// ---------------------------------------------------------------- analyse: drawing

function setCell(r, c, value) {
  const grid = state.grid;
  grid.cells[r * grid.cols + c] = value;
  state.hint = null;
  $("hint").hidden = true;
  $("why-panel").hidden = true;
  $("board-text").value = formatGrid(grid);
  render();
  if ($("auto").checked) scheduleSolve();
}

function cycle(value) {
  if (value === COVERED) return 0;
  if (value === FLAG) return COVERED;
  return value === 8 ? FLAG : value + 1;
}

function emptyBoard(rows, cols, mines) {
  const most = state.meta.limits.max_cells;
  if (rows * cols > most) {
    showError({ kind: "too_large", message: `${cols}x${rows} is ${rows * cols} cells; this server solves at most ${most}` });
    return;
  }
  state.grid = { rows, cols, mines, cells: new Array(rows * cols).fill(COVERED) };
  state.solution = null;
  state.hint = null;
  $("hint").hidden = true;
  $("why-panel").hidden = true;
  $("board-text").value = formatGrid(state.grid);
  syncInputs();
  render();
  solveNow();
}

// ---------------------------------------------------------------- play

async function playMoves(moves) {
  const play = state.play;
  setBusy(true);
  try {
    const result = await api("/api/play", {
      preset: play.preset,
      seed: play.seed,
      first_click: play.first_click,
      no_guess: play.no_guess,
      moves,
    });
    play.moves = moves;
    play.result = result;
    state.grid = parseCanonical(result.board);
    state.hint = null;
    $("hint").hidden = true;
    $("why-panel").hidden = true;
    clearError();
    renderPlayStatus();
    if (result.state === "playing" && $("overlay").checked) await solveNow();
    else {
      state.solution = null;
      render();
    }
  } catch (error) {
    showError(error);
    render();
  } finally {
    setBusy(false);
  }
}

function newGame(seed) {
  const preset = $("play-preset").value;
  state.play = {
    preset,
    seed: seed ?? Number($("play-seed").value || 0),
    first_click: $("play-first").value,
    no_guess: $("play-noguess").checked,
    moves: [],
    result: null,
  };
  $("play-seed").value = state.play.seed;
  state.solution = null;
  playMoves([]);
}

function renderPlayStatus() {
  const result = state.play.result;
  const status = $("play-status");
  status.replaceChildren();
  const add = (name, value) => {
    const dt = document.createElement("dt");
    dt.textContent = name;
    const dd = document.createElement("dd");
    dd.textContent = value;
    status.append(dt, dd);
  };
  add("Game", `${result.preset}, seed ${result.seed}, first click ${result.first_click}${result.no_guess ? ", no guess" : ""}`);
  if (result.start) {
    // The server made the certificate's first click: say where, and what the board promises.
    add("Start", `${cellName(result.start)} opened for you: every safe cell can be found from here without a guess`);
  }
  add("Mines left", String(result.mines - result.flags));
  add("Moves", String(state.play.moves.length));
  add("State", result.state);
  status.dataset.state = result.state;
  const banner = $("banner");
  banner.hidden = result.state === "playing";
  banner.className = `banner ${result.state}`;
  banner.textContent =
    result.state === "won" ? "Cleared! Every safe cell is open." : result.state === "lost" ? "Boom. That cell held a mine." : "";
}

// ---------------------------------------------------------------- suggestion

async function suggest() {
  if (!state.grid) return;
  const player = $("player").value;
  const hint = $("hint");
  hint.hidden = false;
  hint.textContent = `asking ${player}…`;
  $("why-panel").hidden = true;
  try {
    const answer = await api("/api/suggest", {
      board: formatGrid(state.grid),
      player,
      backend: $("backend").value,
      seed: state.play ? state.play.seed : 0,
    });
    state.hint = answer;
    const [r, c] = answer.move;
    const solution = state.solution && sameBoard(state.solution, state.grid) ? state.solution : null;
    const p = solution ? solution.probabilities[r][c] : null;
    let what;
    if (!answer.guess) {
      // One count of certain cells on the page: the exact answer's ("Certain safe" under
      // Odds). A turn opens only those the player has found so far (its cheap rules find
      // some before any count), so its own list is not another count of them.
      what = solution ? `certain safe, one of the ${solution.safe.length} certain safe cells` : "certain safe";
    } else what = `a guess, mine probability ${p === null ? "unknown" : `${(p * 100).toFixed(2)}%`}`;
    hint.innerHTML = `<b>${escapeHtml(player)}</b> would reveal <b>(${r}, ${c})</b>: ${what}.`;
    // "Why this guess" goes under the board, where there is room for its table.
    const panel = $("why-panel");
    panel.replaceChildren();
    if (answer.why && answer.guess) panel.appendChild(whyPanel(answer.why));
    panel.hidden = !(answer.why && answer.guess);
    if (state.mode === "play" && state.play && state.play.result.state === "playing") {
      const go = document.createElement("button");
      go.textContent = "Play it";
      go.id = "play-hint";
      go.addEventListener("click", () => playMoves([...state.play.moves, ["reveal", r, c]]));
      hint.appendChild(go);
    }
    render();
  } catch (error) {
    $("why-panel").hidden = true;
    hint.textContent = `${ERROR_TITLES[error.kind] || "Error"}: ${error.message}`;
  }
}

// What best's look-ahead weighs (mscsp/players/best.py), as /api/suggest's "why" gives it.
const WHY_ROWS = [
  ["safety", "safe now", "1 − its mine probability"],
  ["survive2", "survives it and the next click", "the chance to survive this click, then the next one (the safest cells after each number it may show)"],
  ["progress", "progress", "the chance this click is safe and makes some other cell certain"],
  ["score", "score", "what the look-ahead ranks by: survives both + weight × progress (not a probability: it may pass 1)"],
];

function scoreText(score) {
  return score.toFixed(3);
}

function leadText(lead) {
  // A lead in score, with the digits it needs to be told from 0 (at least 3 decimals).
  return lead >= 0.001 ? lead.toFixed(3) : lead.toPrecision(2);
}

function whyPanel(why) {
  // "Why this guess": the rule, then the pick's numbers beside the runner-up's.
  const box = document.createElement("div");
  box.id = "why";
  box.className = "why";
  const head = document.createElement("div");
  head.className = "why-head";
  head.textContent = `Why this guess: ${why.text}.`;
  box.appendChild(head);
  const pick = why.pick || { cell: why.cell };
  const runner = why.runner_up;
  const table = document.createElement("table");
  const row = (cells, tag = "td") => {
    const tr = document.createElement("tr");
    for (const [text, title] of cells) {
      const td = document.createElement(tag);
      td.textContent = text;
      if (title) td.title = title;
      tr.appendChild(td);
    }
    table.appendChild(tr);
  };
  row([["", ""], [`${cellName(pick.cell)} picked`, "the pick"], ...(runner ? [[`${cellName(runner.cell)} runner-up`, "the next best candidate"]] : [])], "th");
  for (const [key, label, title] of WHY_ROWS) {
    if (pick[key] === undefined) continue;
    // The score adds progress to a probability: it may pass 1, so it is no percentage.
    const shown = key === "score" ? scoreText : pct;
    row([[label, title], [shown(pick[key])], ...(runner ? [[shown(runner[key])]] : [])]);
  }
  box.appendChild(table);
  const foot = document.createElement("div");
  foot.className = "why-foot";
  const parts = [];
  if (pick.score !== undefined) parts.push(`score = survives both + ${why.progress_weight} × progress.`);
  if (runner && why.lead !== null) {
    const lead = leadText(Math.abs(why.lead));
    parts.push(
      why.lead > 1e-9
        ? `${cellName(pick.cell)} beats ${cellName(runner.cell)} by ${lead} in score.`
        : why.lead < -1e-9
          ? `${cellName(runner.cell)} scores ${lead} more, but the rule above plays ${cellName(pick.cell)} first.`
          : `Tied with ${cellName(runner.cell)}: the look-ahead takes the first in its order (safest, then row by row).`,
    );
  } else if (why.candidates === 1) parts.push("It was the only candidate.");
  if (why.note) parts.push(why.note);
  foot.textContent = parts.join(" ");
  box.appendChild(foot);
  return box;
}

// ---------------------------------------------------------------- wiring

function setMode(mode) {
  state.mode = mode;
  $("tab-analyse").classList.toggle("active", mode === "analyse");
  $("tab-play").classList.toggle("active", mode === "play");
  $("tab-analyse").setAttribute("aria-selected", String(mode === "analyse"));
  $("tab-play").setAttribute("aria-selected", String(mode === "play"));
  $("analyse-panel").hidden = mode !== "analyse";
  $("play-panel").hidden = mode !== "play";
  $("banner").hidden = true;
  state.hint = null;
  $("hint").hidden = true;
  $("why-panel").hidden = true;
  clearError();
  if (mode === "play") newGame();
  else {
    state.play = null;
    solveNow();
  }
}

function cellOf(event) {
  const el = event.target.closest(".cell");
  return el ? [Number(el.dataset.r), Number(el.dataset.c), el] : null;
}

function onBoardClick(event, flag) {
  const hit = cellOf(event);
  if (!hit || !state.grid) return;
  const [r, c] = hit;
  const v = state.grid.cells[r * state.grid.cols + c];
  if (state.mode === "analyse") {
    setCell(r, c, flag ? (v === FLAG ? COVERED : FLAG) : cycle(v));
    return;
  }
  const play = state.play;
  if (!play || !play.result || play.result.state !== "playing") return;
  if (flag && v < 0) playMoves([...play.moves, ["flag", r, c]]);
  else if (!flag && v === COVERED) playMoves([...play.moves, ["reveal", r, c]]);
}

function onKey(event) {
  if (state.mode !== "analyse" || !state.hover || event.target.matches("input, textarea, select")) return;
  const [r, c] = state.hover;
  const key = event.key.toLowerCase();
  let value = null;
  if (/^[0-8]$/.test(key)) value = Number(key);
  else if (key === ".") value = 0;
  else if (key === "f" || key === "*" || key === "!") value = FLAG;
  else if (key === "?" || key === "h" || key === "backspace" || key === "delete") value = COVERED;
  if (value === null) return;
  event.preventDefault();
  setCell(r, c, value);
}

function buildLegend() {
  const stops = state.meta.palette.stops;
  const bar = $("legend-bar");
  bar.style.background = `linear-gradient(to right, ${stops.map(([p, c]) => `${c} ${p * 100}%`).join(", ")})`;
  for (const [p] of stops) {
    const label = document.createElement("span");
    label.textContent = `${Math.round(p * 100)}%`;
    label.style.left = `${p * 100}%`;
    bar.appendChild(label);
  }
  document.querySelector(".swatch.safe").style.background = state.meta.palette.safe;
  document.querySelector(".swatch.mine").style.background = state.meta.palette.mine;
}

function fillSelect(select, options, chosen) {
  for (const { value, label } of options) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = label;
    select.appendChild(option);
  }
  select.value = chosen;
}

function boardFromAddress() {
  if (location.hash.length < 2) return null;
  try {
    return decodeURIComponent(location.hash.slice(1));
  } catch {
    return null;
  }
}

async function init() {
  const response = await fetch("/api/meta");
  state.meta = await response.json();
  const meta = state.meta;
  $("version").textContent = `mscsp ${meta.version}`;
  fillSelect(
    $("backend"),
    meta.backends.filter((b) => b.available).map((b) => ({ value: b.name, label: b.name })),
    meta.default_backend,
  );
  $("backend").title = meta.backends
    .map((b) => `${b.name}: ${b.available ? b.description : `pip install 'mscsp[${b.extra}]'`}`)
    .join("\n");
  document.dispatchEvent(new CustomEvent("mscsp:meta", { detail: meta }));  // add-on hook
  fillSelect($("player"), meta.players.map((p) => ({ value: p, label: p })), meta.players.includes("best") ? "best" : meta.players[0]);
  fillSelect($("play-preset"), Object.keys(meta.presets).map((p) => ({ value: p, label: p })), "beginner");
  fillSelect($("play-first"), meta.first_click.map((f) => ({ value: f, label: f })), "safe");
  buildLegend();

  const board = $("board");
  board.addEventListener("click", (e) => onBoardClick(e, false));
  board.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    onBoardClick(e, true);
  });
  board.addEventListener("mouseover", (e) => {
    const hit = cellOf(e);
    if (!hit) return;
    state.hover = [hit[0], hit[1]];
    showTip(e, hit[2]);
  });
  board.addEventListener("mouseleave", () => {
    state.hover = null;
    hideTip();
  });
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", render);

  $("tab-analyse").addEventListener("click", () => setMode("analyse"));
  $("tab-play").addEventListener("click", () => setMode("play"));
  $("solve").addEventListener("click", solveNow);
  $("board-text").addEventListener("input", () => {
    state.hint = null;
    $("hint").hidden = true;
    $("why-panel").hidden = true;
    if ($("auto").checked) scheduleSolve(400);
  });
  $("backend").addEventListener("change", solveNow);
  $("overlay").addEventListener("change", () => (state.mode === "play" && $("overlay").checked && !state.solution ? solveNow() : render()));
  $("percent").addEventListener("change", render);
  $("mines").addEventListener("change", () => {
    // A board text without a header takes the box's count as it is sent; one with a
    // header has the header rewritten.
    if (state.mode === "analyse" && !hasHeader($("board-text").value)) return solveNow();
    if (!state.grid) return;
    state.grid.mines = Math.max(0, Number($("mines").value) || 0);
    $("board-text").value = formatGrid(state.grid);
    solveNow();
  });
  $("new-board").addEventListener("click", () =>
    emptyBoard(Math.max(1, Number($("height").value) || 1), Math.max(1, Number($("width").value) || 1), Math.max(0, Number($("mines").value) || 0)),
  );
  for (const chip of document.querySelectorAll("[data-preset]")) {
    chip.addEventListener("click", () => {
      const [rows, cols, mines] = meta.presets[chip.dataset.preset];
      emptyBoard(rows, cols, mines);
    });
  }
  $("suggest").addEventListener("click", suggest);
  $("new-game").addEventListener("click", () => newGame());
  $("random-seed").addEventListener("click", () => newGame(Math.floor(Math.random() * 1e9)));
  $("play-noguess").addEventListener("change", () => {
    // A no-guess board needs a safe first click: "any" becomes "opening".
    if ($("play-noguess").checked && $("play-first").value === "any") $("play-first").value = "opening";
    newGame();
  });

  $("board-text").value = boardFromAddress() ?? meta.example;
  document.body.dataset.ready = "true";
  markReady(meta);
  await solveNow();
}

init().catch((error) => {
  failReady(error);
  showError({ kind: "server", message: `cannot reach the analyser: ${error}` });
});
