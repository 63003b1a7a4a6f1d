// Progress bars for the user's long jobs: the server's `progress` realtime event (Frappe's
// `publish_progress(percent, title, description)`) shows a bar per title in a corner of the screen, a
// `role="progressbar"` named by the title with its percent; a finished one goes away after a few
// seconds (or with Dismiss). A bulk action run as a job ends with `bulk_result`: a toast says how
// many rows were done and how many refused. Mounted once by main.js, outside the page's tree.
import { __ } from "../i18n.js";
import { Emitter } from "../lib/emitter.js";
import { html, render, useSubscription } from "../lib/html.js";
import { on } from "../realtime.js";
import { showToast } from "./layers.js";

const FINISHED_SECONDS = 5;
const bars = new Map(); // title → {title, percent, description}
const changes = new Emitter();
const timers = new Map();

function changed() {
	changes.emit("change");
}

function onChange(handler) {
	return changes.on("change", handler);
}

export function hideProgress(title) {
	clearTimeout(timers.get(title));
	timers.delete(title);
	if (bars.delete(title)) changed();
}

/** Show (or move) the bar named `title`: `percent` 0..100, an optional description ("3 of 10"). */
export function showProgress(title, percent, description = "") {
	const key = String(title || __("Progress"));
	const value = Math.min(Math.max(Number(percent) || 0, 0), 100);
	bars.set(key, { title: key, percent: value, description: description ? String(description) : "" });
	clearTimeout(timers.get(key));
	if (value >= 100) timers.set(key, setTimeout(() => hideProgress(key), FINISHED_SECONDS * 1000));
	changed();
}

function ProgressBars() {
	useSubscription(onChange);
	if (!bars.size) return null;
	return html`<div class="progress-panel">
		${[...bars.values()].map(
			(bar) => html`<div class="progress-item" key=${bar.title}>
				<div class="progress-head">
					<span class="progress-title">${bar.title}</span>
					<button type="button" class="btn-icon" aria-label=${__("Dismiss {0}", [bar.title])} onClick=${() => hideProgress(bar.title)}>×</button>
				</div>
				<div class="progress-track" role="progressbar" aria-label=${bar.title} aria-valuemin="0" aria-valuemax="100"
					aria-valuenow=${String(Math.round(bar.percent))} aria-valuetext=${bar.description || `${Math.round(bar.percent)}%`}>
					<div class="progress-fill" style=${{ width: `${bar.percent}%` }}></div>
				</div>
				${bar.description ? html`<p class="progress-description">${bar.description}</p>` : null}
			</div>`,
		)}
	</div>`;
}

function onBulkResult(result) {
	if (!result || typeof result !== "object") return;
	const failed = Number(result.failed) || 0;
	const label = result.kind === "delete" ? __("Delete") : __(String(result.action || ""));
	showToast(__("{0}: {1} done, {2} failed", [label, Number(result.succeeded) || 0, failed]), {
		indicator: failed ? "orange" : "green",
	});
}

let started = false;

/** Listen to the realtime events and mount the bars (once). */
export function startProgress() {
	if (started) return;
	started = true;
	on("progress", (data) => data && typeof data === "object" && showProgress(data.title, data.percent, data.description));
	on("bulk_result", onBulkResult);
	const root = document.createElement("div");
	root.className = "progress-root";
	document.body.append(root);
	render(html`<${ProgressBars} />`, root);
}
