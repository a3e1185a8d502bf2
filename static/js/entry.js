/*
 * The workspace's entry helpers, a progressive enhancement (the pages work without them):
 *
 * - Name completion on a prefix: in every box completed from a <datalist> of players, once
 *   the typed text starts exactly one player's name (ignoring case, accents and spacing, as
 *   the server's lookup does), the rest of the name is filled in and selected, so Tab keeps
 *   it and typing on replaces it. Deleting never completes again.
 * - Paste into the round grid: a block copied from a spreadsheet (cells separated by tabs,
 *   one game a line: player A, player B, score, or the grid's own order A, score, B) pasted
 *   into a box of a grid marked data-paste-grid fills its rows from that box's row on,
 *   adding rows up to the form's maximum. A single cell is an ordinary paste.
 *
 * Its words come from data attributes the template renders translated (data-pasted,
 * data-pasted-cut), "__count__" and "__max__" standing for the numbers.
 */
(() => {
  "use strict";

  const fold = (text) =>
    text
      .normalize("NFKD")
      .replace(/[\u0300-\u036f\u200b-\u200f\u2060\ufeff]/g, "")
      .toLowerCase()
      .replace(/\s+/g, " ")
      .trimStart();

  const optionsOf = (box) => (box.list ? Array.from(box.list.options, (o) => o.value) : []);

  document.addEventListener("input", (event) => {
    const box = event.target;
    if (!(box instanceof HTMLInputElement) || !box.list) return;
    // Typed characters only: not a deletion, a paste or a pick from the list.
    if (event.inputType !== "insertText" && event.inputType !== "insertCompositionText") return;
    if (box.selectionStart !== box.value.length) return;
    const typed = box.value;
    const key = fold(typed);
    if (!key) return;
    const found = optionsOf(box).filter((name) => fold(name).startsWith(key));
    if (found.length !== 1 || fold(found[0]) === key) return;
    box.value = found[0];
    box.setSelectionRange(Math.min(typed.length, found[0].length), found[0].length, "forward");
  });

  // A result as the score box takes it: "3-1", "2:2", "1/2", "½-½", "1", "0.5", "w", "d", "l".
  const SCORE = /^(\d+(\.\d+)?\s*[-–:\/]\s*\d+(\.\d+)?|½(\s*[-–]\s*½)?|\d+(\.\d+)?|[wdl])$/i;
  const looksLikeScore = (cell) => SCORE.test(cell.trim());

  /** The grid's order from one line's cells: [player A, score, player B]. */
  const gridOrder = (cells) =>
    cells.length >= 3 && looksLikeScore(cells[1]) && !looksLikeScore(cells[2])
      ? [cells[0], cells[1], cells[2]]
      : [cells[0], cells[2] ?? "", cells[1] ?? ""];

  /** A new empty row like the last one, numbered next; null when the form is full. */
  const addRow = (body, total, most) => {
    const count = Number(total.value);
    if (count >= most) return null;
    const last = body.rows[body.rows.length - 1];
    const row = last.cloneNode(true);
    const pattern = new RegExp(`-${count - 1}-`, "g");
    row.classList.remove("row--error");
    row.querySelectorAll(".error").forEach((p) => p.remove());
    row.querySelectorAll("[name], [id], [for]").forEach((element) => {
      for (const attribute of ["name", "id", "for"]) {
        const old = element.getAttribute(attribute);
        if (old) element.setAttribute(attribute, old.replace(pattern, `-${count}-`));
      }
      element.removeAttribute("autofocus");
      if (element instanceof HTMLInputElement) {
        if (element.type === "checkbox") element.checked = false;
        else element.value = "";
      }
    });
    const number = row.querySelector(".num");
    if (number) number.textContent = String(count + 1);
    body.appendChild(row);
    total.value = String(count + 1);
    return row;
  };

  document.addEventListener("paste", (event) => {
    const box = event.target;
    if (!(box instanceof HTMLInputElement)) return;
    const grid = box.closest("[data-paste-grid]");
    const row = box.closest("tr");
    if (!grid || !row || !event.clipboardData) return;
    const text = event.clipboardData.getData("text/plain").replace(/\r\n?/g, "\n");
    const lines = text
      .replace(/\n+$/, "")
      .split("\n")
      .filter((line) => line.trim());
    if (!lines.length || (lines.length === 1 && !lines[0].includes("\t"))) return;
    event.preventDefault();
    const form = grid.closest("form");
    const prefix = grid.dataset.pasteGrid;
    const total = form.querySelector(`[name="${prefix}-TOTAL_FORMS"]`);
    const most = Number(form.querySelector(`[name="${prefix}-MAX_NUM_FORMS"]`)?.value || 1000);
    const body = row.parentElement;
    const start = Array.from(body.rows).indexOf(row);
    let filled = 0;
    for (const [offset, line] of lines.entries()) {
      const target = body.rows[start + offset] || addRow(body, total, most);
      if (!target) break;
      const [a, score, b] = gridOrder(line.split("\t").map((cell) => cell.trim()));
      const cells = { player_a: a, score, player_b: b };
      for (const [name, value] of Object.entries(cells)) {
        const input = target.querySelector(`[name$="-${name}"]`);
        if (input) input.value = value;
      }
      filled += 1;
    }
    const status = document.getElementById("paste-status");
    if (status) {
      const words = filled < lines.length ? status.dataset.pastedCut : status.dataset.pasted;
      status.textContent = words
        .replace("__count__", String(filled))
        .replace("__max__", String(most));
    }
  });
})();
