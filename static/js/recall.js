// @ts-check
// Game recall: replay the deal card by card, in deal order (cells carry data-step 1..N).
// The catalog script (a classic script loaded before the modules) defines ``django``; English
// without it. (No import of common.js: collectstatic's hashing of this small script's import
// failed, and it needs only these two words.)
const catalog = /** @type {any} */ (globalThis).django;
const gettext = (/** @type {string} */ text) => (catalog ? catalog.gettext(text) : text);
/** @param {string} format @param {Record<string, any>} values @param {boolean} _named */
const interpolate = (format, values, _named) =>
  catalog ? catalog.interpolate(format, values, true) : format.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));

/** @param {HTMLElement} section */
function replay(section) {
  const cells = /** @type {HTMLElement[]} */ (Array.from(section.querySelectorAll("td[data-step]")))
    .sort((a, b) => Number(a.dataset.step) - Number(b.dataset.step));
  const controls = /** @type {HTMLElement|null} */ (section.querySelector(".replay-controls"));
  const status = /** @type {HTMLElement} */ (section.querySelector('[data-replay="status"]'));
  if (!cells.length || !controls) return;
  controls.hidden = false;
  let shown = cells.length;
  function render() {
    cells.forEach((cell, i) => {
      cell.classList.toggle("is-hidden", i >= shown);
      cell.classList.toggle("is-current", i === shown - 1 && shown < cells.length);
    });
    const cell = cells[shown - 1];
    status.textContent = shown === 0 ? gettext("No card dealt yet.") :
      interpolate(gettext("Card %(shown)s of %(total)s: deck position %(position)s, %(card)s."),
        { shown: shown, total: cells.length, position: cell.dataset.position, card: cell.querySelector(".card")?.getAttribute("aria-label") || "" }, true);
  }
  controls.addEventListener("click", (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    const action = /** @type {HTMLElement|null} */ (target.closest("[data-replay]"))?.dataset.replay;
    if (action === "first") shown = 0;
    else if (action === "prev") shown = Math.max(0, shown - 1);
    else if (action === "next") shown = Math.min(cells.length, shown + 1);
    else if (action === "all") shown = cells.length;
    else return;
    render();
  });
  shown = 0;
  render();
}

const section = document.getElementById("deal");
if (section) replay(section);
