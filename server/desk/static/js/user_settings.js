// What the Desk remembers of a user's list of a doctype (Frappe's user settings: `{List: {filters,
// sort_by, sort_order, columns}}`), stored by the server (`fw.model.utils.user_settings.get/save`). getdoctype
// sends them with a meta bundle (meta.js hands them here); a copy per user and doctype is kept in
// memory and localStorage, so a list whose meta is cached asks nothing more. A doctype never seen in
// this browser asks the server once. Saving writes the copy at once and the server shortly after
// (changes within SAVE_DELAY_MS are one request).
import { call } from "./api.js";
import { boot } from "./boot.js";

const PREFIX = "fw:user-settings:";
export const SAVE_DELAY_MS = 300;
const memory = new Map(); // doctype → settings object
const pending = new Map(); // doctype → {timer, patch}

function storeKey(doctype) {
	return `${PREFIX}${boot.user}:${doctype}`;
}

function parse(raw) {
	if (raw && typeof raw === "object" && !Array.isArray(raw)) return raw;
	if (typeof raw !== "string" || !raw) return null;
	try {
		const value = JSON.parse(raw);
		return value && typeof value === "object" && !Array.isArray(value) ? value : null;
	} catch {
		return null;
	}
}

function keep(doctype, settings) {
	memory.set(doctype, settings);
	try {
		localStorage.setItem(storeKey(doctype), JSON.stringify(settings));
	} catch {
		// storage full or disabled: memory still holds them
	}
}

/** The server's settings of `doctype` as getdoctype sent them (JSON text or an object). */
export function rememberUserSettings(doctype, raw) {
	const settings = parse(raw);
	if (settings && !pending.has(doctype)) keep(doctype, settings);
}

/** The user's settings of `doctype` ({} when none). */
export async function getUserSettings(doctype) {
	if (memory.has(doctype)) return memory.get(doctype);
	let stored = null;
	try {
		stored = parse(localStorage.getItem(storeKey(doctype)));
	} catch {
		stored = null;
	}
	if (stored) {
		memory.set(doctype, stored);
		return stored;
	}
	try {
		const body = await call("fw.model.utils.user_settings.get", { doctype }, { httpMethod: "GET" });
		const settings = parse(body && body.message) || {};
		keep(doctype, settings);
		return settings;
	} catch (error) {
		console.error("user settings", error);
		return {};
	}
}

/** Merge `patch` (top-level keys: `{List: {...}}`) into the settings of `doctype` and save them. */
export function saveUserSettings(doctype, patch) {
	keep(doctype, { ...(memory.get(doctype) || {}), ...patch });
	const entry = pending.get(doctype) || { timer: null, patch: {} };
	Object.assign(entry.patch, patch);
	clearTimeout(entry.timer);
	entry.timer = setTimeout(() => {
		pending.delete(doctype);
		call("fw.model.utils.user_settings.save", { doctype, user_settings: entry.patch }).catch((error) =>
			console.error("saving user settings", error),
		);
	}, SAVE_DELAY_MS);
	pending.set(doctype, entry);
}

/** A list's remembered state: `{filters, sort, columns}` (each undefined when not saved). Frappe stores
 * filters as [doctype, field, op, value]; three-element ones are read too. */
export function listState(settings, doctype) {
	const list = settings && typeof settings.List === "object" && settings.List ? settings.List : {};
	const out = {};
	if (Array.isArray(list.filters)) {
		out.filters = list.filters
			.filter((f) => Array.isArray(f) && (f.length === 3 || ((f.length === 4 || f.length === 5) && f[0] === doctype)))
			.map((f) => (f.length === 3 ? [f[0], f[1], f[2]] : [f[1], f[2], f[3]]))
			.filter((f) => typeof f[0] === "string" && typeof f[1] === "string");
	}
	if (Array.isArray(list.columns) && list.columns.every((c) => typeof c === "string")) out.columns = list.columns;
	if (typeof list.sort_by === "string" && list.sort_by) {
		out.sort = { fieldname: list.sort_by, order: String(list.sort_order).toLowerCase() === "asc" ? "asc" : "desc" };
	}
	return out;
}

/** The `List` entry to save for `filters`, `sort` (Frappe's shape) and the chosen `columns`
 * (fieldnames; null: the doctype's `in_list_view` ones). */
export function listPatch(doctype, filters, sort, columns = null) {
	return { List: { filters: filters.map(([field, op, value]) => [doctype, field, op, value]), sort_by: sort.fieldname,
		sort_order: sort.order, columns: Array.isArray(columns) && columns.length ? columns : null } };
}
