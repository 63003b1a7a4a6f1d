// `frappe.ui.form.on(doctype, {event: handler})`: form-script handlers by doctype and event. They
// accumulate in load order (the app's own script first, then other apps' `doctype_js`), run one
// after the other, and a handler that returns a promise is awaited before the next runs. A handler
// that throws stops the rest and the caller sees the error (a throw in `validate` stops the save).
// Pure: `node --test` covers it.
const registry = new Map(); // doctype → Map(event → [handler])

export function on(doctype, events, handler) {
	if (typeof doctype !== "string" || !doctype) throw new TypeError("frappe.ui.form.on needs a doctype name");
	if (typeof events === "string") {
		add(doctype, events, handler);
	} else if (events && typeof events === "object") {
		for (const [event, fn] of Object.entries(events)) add(doctype, event, fn);
	}
}

function add(doctype, event, handler) {
	if (typeof handler !== "function") return;
	if (!registry.has(doctype)) registry.set(doctype, new Map());
	const events = registry.get(doctype);
	if (!events.has(event)) events.set(event, []);
	events.get(event).push(handler);
}

export function handlersFor(doctype, event) {
	return [...((registry.get(doctype) && registry.get(doctype).get(event)) || [])];
}

export function hasHandlers(doctype, event) {
	return handlersFor(doctype, event).length > 0;
}

/** Run the handlers of `event` on `doctype` in order with `args` (Frappe passes `frm`, or
 * `frm, cdt, cdn` for a child row); each returned promise is awaited. */
export async function runHandlers(doctype, event, args) {
	for (const handler of handlersFor(doctype, event)) {
		await handler(...args);
	}
}

/** Forget every handler (tests). */
export function clearHandlers() {
	registry.clear();
}
