// mscsp analyser, screenshots: a screenshot pasted anywhere on the page, or dropped on the
// board text, is read on the server (POST /api/read-image, the image's bytes) and the board
// read goes into the board text, to be checked against the screen before the odds are
// trusted. Cells the server could not read come back as #: the text does not parse until
// the user writes each as the screen shows it. Only where /api/meta says reads_images
// (the server was started with --obr-model); elsewhere a pasted image says why not.
"use strict";

(() => {
  const byId = (id) => document.getElementById(id);
  let reads = false;
  let maxImage = 0;

  function say(text, bad) {
    const note = byId("image-note");
    note.textContent = text;
    note.classList.toggle("bad", Boolean(bad));
    note.hidden = false;
  }

  function imageOf(items) {
    for (const item of items || []) {
      const file = item instanceof File ? item : item.kind === "file" ? item.getAsFile() : null;
      if (file && file.type.startsWith("image/")) return file;
    }
    return null;
  }

  async function read(file) {
    if (!reads) {
      say("This server reads no screenshots: start it with mscsp serve --obr-model PATH " +
        "(ms_toollib's params.onnx), or paste the board as text.", true);
      return;
    }
    if (file.size > maxImage) {
      say(`The image has ${file.size} bytes; this server reads at most ${maxImage}.`, true);
      return;
    }
    say("Reading the board in the screenshot...");
    let answer;
    try {
      answer = await upload("/api/read-image", file);
    } catch (error) {
      say(`Screenshot not read: ${error.message || error}`, true);
      return;
    }
    await window.mscspReady;
    if (byId("tab-analyse").getAttribute("aria-selected") !== "true") byId("tab-analyse").click();
    const text = byId("board-text");
    text.value = answer.board;
    const doubts = answer.unreadable.length;
    say(`Board read from the screenshot: ${answer.cols}x${answer.rows}. Check it against the ` +
      `screen (${answer.note}; set the Mines box to the game's mine count).` +
      (doubts ? ` ${doubts} cell${doubts > 1 ? "s" : ""} could not be read: marked # in the ` +
        "board text, write each as the screen shows it (? . 1-8)." : ""), doubts > 0);
    text.dispatchEvent(new Event("input", { bubbles: true }));
  }

  document.addEventListener("mscsp:meta", (event) => {
    reads = Boolean(event.detail.reads_images);
    maxImage = (event.detail.limits || {}).max_image || 0;
    if (reads) byId("board-text").placeholder = "Paste board text, or a screenshot of the board";
  });

  // A paste holding an image (a screenshot tool's copy) is read; a text paste is the page's.
  document.addEventListener("paste", (event) => {
    const file = imageOf(event.clipboardData && event.clipboardData.items);
    if (!file) return;
    event.preventDefault();
    read(file);
  });
  const area = byId("board-text");
  area.addEventListener("dragover", (event) => {
    if ([...(event.dataTransfer.items || [])].some((i) => i.kind === "file")) event.preventDefault();
  });
  area.addEventListener("drop", (event) => {
    const file = imageOf(event.dataTransfer && event.dataTransfer.files);
    if (!file) return;
    event.preventDefault();
    read(file);
  });
  // For scripts and tests: read a File as a paste would.
  window.mscspReadScreenshot = read;
})();
