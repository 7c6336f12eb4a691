// @ts-check
// The export page while an export runs: poll its API entry and show rows written / total.
// The catalog script (a classic script loaded before the modules) defines ``django``; English
// without it. (No import of common.js: collectstatic's hashing of this small script's import
// failed, and it needs only these few words.)
const catalog = /** @type {any} */ (globalThis).django;
const gettext = (/** @type {string} */ text) => (catalog ? catalog.gettext(text) : text);
const gettext_noop = (/** @type {string} */ text) => text;
/** @param {string} format @param {Record<string, any>} values @param {boolean} _named */
const interpolate = (format, values, _named) =>
  catalog ? catalog.interpolate(format, values, true) : format.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));

/** The statuses' words (backoffice.models.ExportJob.Status), translated on use. @type {Record<string, string>} */
const STATUS = {
  pending: gettext_noop("Waiting for a worker"), running: gettext_noop("Running"), done: gettext_noop("Done"),
  failed: gettext_noop("Failed"), aborted: gettext_noop("Aborted (the download was interrupted)")
};
/** @param {string} status */
const statusLabel = (status) => (STATUS[status] ? gettext(STATUS[status]) : status);

/** @param {HTMLElement} panel */
function follow(panel) {
  const field = (/** @type {string} */ name) => /** @type {any} */ (panel.querySelector(`[data-field="${name}"]`));
  async function poll() {
    try {
      const response = await fetch(panel.dataset.api || "", { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const job = await response.json();
      field("rows").textContent = job.rows_written;
      if (job.rows_total !== null) {
        field("total").textContent = job.rows_total;
        const wrap = field("total-wrap");
        if (wrap) wrap.hidden = false;
      }
      if (job.progress_pct !== null) field("progress").value = job.progress_pct;
      field("status").textContent = statusLabel(job.status);
      if (["done", "failed", "aborted"].includes(job.status)) {
        field("live").textContent = interpolate(gettext("Export finished: %(status)s."), { status: statusLabel(job.status) }, true);
        window.location.reload();
        return;
      }
    } catch (error) {
      field("live").textContent = interpolate(gettext("Could not read the progress (%(reason)s); retrying."), { reason: error instanceof Error ? error.message : error }, true);
    }
    window.setTimeout(poll, 1000);
  }
  window.setTimeout(poll, 500);
}

const panel = document.getElementById("export");
if (panel && panel.dataset.running === "1") follow(panel);
