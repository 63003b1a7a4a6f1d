// `fetch_from` (desk.md §4): when a Link changes, the fields reading `<link>.<field>` fill in from the
// linked document (one `fw.client.get_value` call, which checks the user's read right; the server
// fills them again on save, so this is what the user sees meanwhile). `fetch_if_empty` fields keep a
// value they have. An emptied Link empties its fetched fields.
import { call } from "../../api.js";

/** The fields of `fields` fetched through the Link `linkField`: [{fieldname, source, ifEmpty}]. Pure. */
export function fetchTargets(fields, linkField) {
	const out = [];
	for (const df of fields || []) {
		const [link, source] = String(df.fetch_from || "").split(".");
		if (df.fieldname && link === linkField && source) out.push({ fieldname: df.fieldname, source, ifEmpty: Boolean(df.fetch_if_empty) });
	}
	return out;
}

/** The values to set on `doc` from the linked record `values` ({source: value}). Pure. */
export function fetchedValues(targets, doc, values) {
	const out = {};
	for (const target of targets) {
		const current = doc[target.fieldname];
		if (target.ifEmpty && current !== undefined && current !== null && current !== "") continue;
		const value = values ? values[target.source] : null;
		out[target.fieldname] = value === undefined ? null : value;
	}
	return out;
}

/** Fill the fields fetched through `linkField` of the form (the Link's doctype is `df.options`). */
export async function applyFetchFrom(frm, df, value) {
	const targets = fetchTargets(frm.meta.fields, df.fieldname);
	if (!targets.length || df.fieldtype !== "Link") return;
	let values = null;
	if (value) {
		const body = await call("fw.client.get_value", {
			doctype: df.options,
			fieldname: [...new Set(targets.map((t) => t.source))],
			filters: String(value),
		});
		values = body && body.message && typeof body.message === "object" ? body.message : {};
	}
	if (frm.doc[df.fieldname] !== value) return; // the Link changed again meanwhile
	const changes = fetchedValues(targets, frm.doc, values);
	if (Object.keys(changes).length) await frm.set_value(changes);
}
