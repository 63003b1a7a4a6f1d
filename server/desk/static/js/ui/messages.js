// Server messages as the user sees them (desk.md §4): a `msgprint` is a dialog with its title and
// indicator, an `alert` a toast. Errors are shown in a dialog unless the caller shows them itself.
import { apiEvents } from "../api.js";
import { __ } from "../i18n.js";
import { msgprint } from "./confirm.js";
import { showToast } from "./layers.js";

/** Show one message object ({message, title, indicator, alert}). */
export function showMessage(message) {
	if (!message) return;
	const text = typeof message === "string" ? message : message.message;
	if (text === undefined || text === null || text === "") return;
	if (message.alert) {
		showToast(String(text), { indicator: message.indicator || "blue" });
	} else {
		msgprint(String(text), { title: message.title, indicator: message.indicator });
	}
}

/** Show a failed request's error (an ApiError or any Error) in a dialog. */
export function showError(error, { title } = {}) {
	if (!error || error.name === "AbortError" || error.type === "SessionExpired") return;
	for (const message of error.messages || []) showMessage(message);
	msgprint(error.message || String(error), { title: title || error.title || __("Error"), indicator: "red" });
}

let started = false;

/** Show every message a successful request brings. */
export function startMessages() {
	if (started) return;
	started = true;
	apiEvents.on("messages", (list) => list.forEach(showMessage));
}
