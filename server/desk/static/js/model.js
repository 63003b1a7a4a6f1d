// Documents on the client: Frappe's `locals[doctype][name]` store, new documents with their
// defaults (`Today`, `Now`, `__user`, a Check's 0/1, a number's value) and route options, and the
// value types of the field types. Pure apart from `locals`, so `node --test` covers it.
export const locals = { DocType: {} };

export const NO_VALUE_TYPES = new Set(["Section Break", "Column Break", "Tab Break", "HTML", "Button", "Image", "Fold", "Heading"]);
export const TABLE_TYPES = new Set(["Table", "Table MultiSelect"]);
export const INT_TYPES = new Set(["Int", "Long Int", "Check"]);
export const FLOAT_TYPES = new Set(["Float", "Currency", "Percent", "Duration", "Rating"]);
export const STANDARD_FIELDS = ["name", "owner", "creation", "modified", "modified_by", "docstatus", "idx"];

function pad(n, width = 2) {
	return String(n).padStart(width, "0");
}

/** Today in the server's text form (YYYY-MM-DD), in the browser's time zone. */
export function today(now = new Date()) {
	return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** Now in the server's text form (YYYY-MM-DD HH:MM:SS). */
export function nowDatetime(now = new Date()) {
	return `${today(now)} ${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
}

export function nowTime(now = new Date()) {
	return `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
}

export function hasValue(df) {
	return !NO_VALUE_TYPES.has(df.fieldtype) && !TABLE_TYPES.has(df.fieldtype);
}

/** A field's default for a new document (null when it has none). */
export function defaultValue(df, { user, now = new Date() } = {}) {
	const raw = df.default;
	if (TABLE_TYPES.has(df.fieldtype)) return [];
	if (raw === undefined || raw === null || raw === "") {
		if (df.fieldtype === "Check") return 0;
		if (df.fieldtype === "Select" && df.reqd) return selectOptions(df)[0] ?? null;
		return null;
	}
	const text = String(raw);
	if (text === "Today" && (df.fieldtype === "Date" || df.fieldtype === "Datetime")) {
		return df.fieldtype === "Date" ? today(now) : nowDatetime(now);
	}
	if (text === "Now") {
		if (df.fieldtype === "Time") return nowTime(now);
		return df.fieldtype === "Date" ? today(now) : nowDatetime(now);
	}
	if (text === "__user" || text === "user") return user ?? null;
	if (INT_TYPES.has(df.fieldtype)) return Number.parseInt(text, 10) || 0;
	if (FLOAT_TYPES.has(df.fieldtype)) return Number.parseFloat(text) || 0;
	return text;
}

export function selectOptions(df) {
	return String(df.options || "")
		.split("\n")
		.filter((option) => option.trim() !== "");
}

/** A new child row's name, as random as the server's (it keeps the names rows arrive with). */
export function rowName() {
	return Array.from(crypto.getRandomValues(new Uint8Array(5)), (b) => b.toString(16).padStart(2, "0")).join("");
}

let counter = 0;

/** A new, unsaved document of `meta` (Frappe's `frappe.model.get_new_doc`): defaults, the user's
 * default values of Link fields (`linkDefaults`: {doctype: value}, from `is_default` User
 * Permissions), then `values` (route options: only fields of the doctype). */
export function newDoc(meta, { user, values, now, linkDefaults } = {}) {
	counter += 1;
	const doc = {
		doctype: meta.name,
		name: `new-${meta.name.toLowerCase().replace(/ /g, "-")}-${counter}`,
		__islocal: 1,
		__unsaved: 1,
		docstatus: 0,
		owner: user,
	};
	for (const df of meta.fields || []) {
		if (!df.fieldname || NO_VALUE_TYPES.has(df.fieldtype)) continue;
		const value = defaultValue(df, { user, now });
		if (value !== null && value !== undefined) doc[df.fieldname] = value;
		else if (df.fieldtype === "Link" && linkDefaults && linkDefaults[df.options] && !df.ignore_user_permissions
			&& !(meta.is_tree && df.options === meta.name)) doc[df.fieldname] = linkDefaults[df.options];
	}
	for (const [key, value] of Object.entries(values || {})) {
		if ((meta.fields || []).some((df) => df.fieldname === key && hasValue(df))) doc[key] = value;
	}
	return doc;
}

/** Keep `doc` in `locals` (Frappe scripts read `locals[cdt][cdn]`). */
export function storeDoc(doc) {
	if (!doc || !doc.doctype || !doc.name) return doc;
	(locals[doc.doctype] ||= {})[doc.name] = doc;
	return doc;
}

export function dropDoc(doctype, name) {
	if (locals[doctype]) delete locals[doctype][name];
}

/** Whether a value counts as empty for `reqd` (Frappe's rule: 0 is a value, except for Check). */
export function isEmpty(value, df) {
	if (value === undefined || value === null) return true;
	if (typeof value === "string") return value.trim() === "";
	if (Array.isArray(value)) return value.length === 0;
	if (df && df.fieldtype === "Check") return !value;
	return false;
}
