// Estimators in the analyser: the Backend menu's approximate and learned entries, the
// "approximate" flag on their odds, and the "difference from exact" view (estimate minus
// the exact probability, per covered cell). Hooks: app.js's "mscsp:meta" and "mscsp:render"
// events; the panel is #estimate-panel in index.html.
"use strict";

(() => {
  const view = { diff: false };

  // Blue where the estimate is below the exact probability, red where above; white at 0.
  function diffColour(d) {
    const t = Math.min(1, Math.abs(d) / 0.5);
    const far = d < 0 ? [25, 113, 194] : [224, 49, 49];
    const mix = far.map((v) => Math.round(255 + (v - 255) * Math.sqrt(t)));
    return `rgb(${mix.join(",")})`;
  }

  function points(d) {
    const pp = Math.round(d * 100);
    if (pp === 0) return d === 0 ? "0" : "~0";
    return `${pp > 0 ? "+" : "\u2212"}${Math.abs(pp)}`;
  }

  function addOptions(meta) {
    const select = document.getElementById("backend");
    const usable = (meta.estimators || []).filter((e) => e.available);
    if (usable.length) {
      const group = document.createElement("optgroup");
      group.label = "estimates (approximate)";
      for (const e of usable) {
        const option = document.createElement("option");
        option.value = e.name;
        option.textContent = `${e.name} (${e.family})`;
        group.appendChild(option);
      }
      select.appendChild(group);
    }
    // The same estimators stand in where the exact count stops (the Fallback menu).
    const fallback = document.getElementById("fallback");
    for (const e of usable) {
      const option = document.createElement("option");
      option.value = e.name;
      option.textContent = e.name;
      fallback.appendChild(option);
    }
    fallback.addEventListener("change", () => select.dispatchEvent(new Event("change")));
    select.title += (meta.estimators || [])
      .map((e) => `\n${e.name}: ${e.available ? e.description : `pip install 'mscsp[${e.extra}]'`}`)
      .join("");
  }

  function drawPanel(solution) {
    const panel = document.getElementById("estimate-panel");
    if (!solution || !solution.approximate) {
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    const diffs = (solution.difference || []).flat().filter((d) => d !== null);
    const worst = diffs.reduce((m, d) => Math.max(m, Math.abs(d)), 0);
    const mean = diffs.length ? diffs.reduce((s, d) => s + Math.abs(d), 0) / diffs.length : 0;
    panel.replaceChildren();
    const flag = document.createElement("span");
    flag.className = "estimate-flag";
    flag.textContent = `APPROXIMATE: ${solution.backend} estimates these odds; they are not exact counts.`;
    panel.appendChild(flag);
    if (solution.fallback) {
      // The exact count stopped: say why, and what this estimator's answers have been worth.
      const why = document.createElement("span");
      why.className = "estimate-fallback";
      const measured = Object.entries(solution.fallback.measured_mean_abs_error)
        .map(([family, error]) => `${family} ${error.toFixed(4)}`);
      why.textContent = `The exact count stopped (${solution.fallback.exact_stopped}). ` +
        (measured.length ? `${solution.backend}'s mean |dp| on the hard corpus: ${measured.join(", ")}.`
          : `${solution.backend}'s error on hard boards is not measured.`);
      panel.appendChild(why);
    }
    if (solution.report) {
      // How the run ended (bp's convergence, mcmc's R-hat): read it before trusting the map.
      const report = document.createElement("span");
      report.className = "estimate-report";
      const shown = Object.entries(solution.report).map(([key, value]) =>
        `${key} ${typeof value === "number" && !Number.isInteger(value) ? value.toPrecision(3) : value}`);
      report.textContent = `${solution.backend} run: ${shown.join(", ")}`;
      panel.appendChild(report);
    }
    if (!solution.difference) return;
    const label = document.createElement("label");
    label.className = "check";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = "estimate-diff";
    box.checked = view.diff;
    box.addEventListener("change", () => {
      view.diff = box.checked;
      render(); // app.js redraws the board, then "mscsp:render" brings us back
    });
    label.append(box, ` Difference from exact (estimate \u2212 ${solution.reference})`);
    panel.appendChild(label);
    const stats = document.createElement("span");
    stats.className = "estimate-stats";
    stats.textContent = `largest |difference| ${(worst * 100).toFixed(1)} points, mean ${(mean * 100).toFixed(2)}`;
    panel.appendChild(stats);
    if (view.diff) {
      const key = document.createElement("span");
      key.className = "estimate-key";
      for (const [d, text] of [[-0.5, "estimate too low"], [0.5, "too high (percentage points)"]]) {
        const swatch = document.createElement("i");
        swatch.style.background = diffColour(d); // set through the DOM: the page's CSP has no inline styles
        key.append(swatch, text);
      }
      panel.appendChild(key);
    }
  }

  function drawDifference(solution) {
    const board = document.getElementById("board");
    board.classList.toggle("estimate-diff", false);
    if (!view.diff || !solution || !solution.difference) return;
    board.classList.add("estimate-diff");
    for (const el of board.children) {
      const d = solution.difference[Number(el.dataset.r)][Number(el.dataset.c)];
      if (d === null || d === undefined) continue;
      el.style.background = diffColour(d);
      el.classList.remove("light-text", "dark-text");
      el.classList.add("heat", "diff-cell");
      el.textContent = points(d);
    }
  }

  document.addEventListener("mscsp:meta", (event) => addOptions(event.detail));
  document.addEventListener("mscsp:render", (event) => {
    drawPanel(event.detail.solution);
    drawDifference(event.detail.solution);
  });
})();
