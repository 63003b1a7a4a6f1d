// What floats over the page: open dialogs (a stack: Escape closes the top one) and toasts. Views and
// the `frappe` shim open them imperatively; ui/host.js renders them.
import { Emitter } from "../lib/emitter.js";

const events = new Emitter();
let nextId = 1;
export const dialogs = [];
export const toasts = [];

export function onLayersChange(handler) {
	return events.on("change", handler);
}

function changed() {
	events.emit("change");
}

/**
 * Open a dialog. `spec`: {title, body: a vnode or () => vnode, actions: [{label, primary, onClick}],
 * indicator, size: "small" | "large", onClose}. Returns {id, close(), update(spec)}.
 */
export function openDialog(spec) {
	const entry = { ...spec, id: nextId++, opener: document.activeElement };
	dialogs.push(entry);
	changed();
	const handle = {
		id: entry.id,
		close: (reason = "close") => closeDialog(entry.id, reason),
		update: (changes) => {
			Object.assign(entry, changes);
			changed();
		},
	};
	entry.handle = handle;
	return handle;
}

export function closeDialog(id, reason = "close") {
	const index = dialogs.findIndex((d) => d.id === id);
	if (index < 0) return;
	const [entry] = dialogs.splice(index, 1);
	changed();
	if (entry.opener && typeof entry.opener.focus === "function" && document.contains(entry.opener)) {
		entry.opener.focus();
	}
	if (typeof entry.onClose === "function") entry.onClose(reason);
}

export function topDialog() {
	return dialogs[dialogs.length - 1] || null;
}

/** Show a toast: {message, indicator ("green", "red", ...), alert (role=alert for errors), seconds}. */
export function showToast(message, { indicator = "blue", seconds, alert = indicator === "red" } = {}) {
	const entry = { id: nextId++, message: String(message ?? ""), indicator, alert };
	toasts.push(entry);
	changed();
	const close = () => {
		const index = toasts.indexOf(entry);
		if (index >= 0) {
			toasts.splice(index, 1);
			changed();
		}
	};
	setTimeout(close, (seconds || (alert ? 8 : 5)) * 1000);
	return close;
}

export function dismissToast(id) {
	const index = toasts.findIndex((t) => t.id === id);
	if (index >= 0) {
		toasts.splice(index, 1);
		changed();
	}
}
