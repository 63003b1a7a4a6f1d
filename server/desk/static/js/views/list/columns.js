// What a list shows (desk.md §3), from the meta alone: the title column (the `title_field`, else the
// name), the `in_list_view` fields, a status indicator and the modified age; which fields to fetch
// for them (and for the indicator and the list settings' `add_fields`); which columns sort.
// Pure: `node --test` covers it.
import { indicatorFields } from "../../indicators.js";

export const MAX_COLUMNS = 6;
const NOT_LISTED = new Set(["Section Break", "Column Break", "Tab Break", "HTML", "Button", "Image", "Fold", "Heading",
	"Table", "Table MultiSelect", "Text Editor", "Code", "JSON", "Long Text", "Password", "Signature", "Geolocation"]);

export function titleField(meta) {
	const field = meta.title_field;
	return field && (meta.fields || []).some((df) => df.fieldname === field) ? field : "name";
}

/** The fields a user may choose as columns: those a list can show, in the form's order. */
export function choosableColumns(meta) {
	const title = titleField(meta);
	return (meta.fields || []).filter((df) => df.fieldname && df.fieldname !== title && !NOT_LISTED.has(df.fieldtype) && !df.hidden);
}

/** The data columns after the title: the user's `chosen` fields (those still choosable, at most
 * MAX_COLUMNS), else the `in_list_view` fields a list can show (at most MAX_COLUMNS). */
export function listColumns(meta, chosen = null) {
	const choosable = choosableColumns(meta);
	if (Array.isArray(chosen) && chosen.length) {
		const byName = new Map(choosable.map((df) => [df.fieldname, df]));
		const picked = chosen.map((name) => byName.get(name)).filter(Boolean);
		if (picked.length) return [...new Set(picked)].slice(0, MAX_COLUMNS);
	}
	return choosable.filter((df) => df.in_list_view).slice(0, MAX_COLUMNS);
}

/** Every field the list query asks for. */
export function listFields(meta, settings = {}, chosen = null) {
	const columns = listColumns(meta, chosen).map((df) => df.fieldname);
	const fields = ["name", titleField(meta), ...columns, ...indicatorFields(meta), "modified"];
	for (const extra of settings.add_fields || []) {
		if (typeof extra === "string" && /^[a-z_][a-z0-9_]*$/.test(extra)) fields.push(extra);
	}
	return [...new Set(fields)];
}

/** Columns a user may sort by: name, the dates, and the listed fields (the `chosen` ones, if any). */
export function sortableFields(meta, chosen = null) {
	const out = [
		{ fieldname: "modified", label: "Last Updated On" },
		{ fieldname: "creation", label: "Created On" },
		{ fieldname: "name", label: "ID" },
	];
	const title = titleField(meta);
	if (title !== "name") out.push({ fieldname: title, label: (meta.fields.find((df) => df.fieldname === title) || {}).label || title });
	for (const df of listColumns(meta, chosen)) out.push({ fieldname: df.fieldname, label: df.label || df.fieldname });
	const sortField = meta.sort_field;
	if (sortField && !out.some((c) => c.fieldname === sortField)) {
		const df = (meta.fields || []).find((f) => f.fieldname === sortField);
		if (df) out.push({ fieldname: sortField, label: df.label || sortField });
	}
	return out;
}

/** The default sort of the doctype (`sort_field`, `sort_order`). */
export function defaultSort(meta) {
	const fieldname = meta.sort_field || "modified";
	const order = String(meta.sort_order || "DESC").toLowerCase() === "asc" ? "asc" : "desc";
	return { fieldname, order };
}

/** The fields with `in_standard_filter` (the list's quick filters). */
export function standardFilterFields(meta) {
	return (meta.fields || []).filter((df) => df.in_standard_filter && df.fieldname && !NOT_LISTED.has(df.fieldtype));
}
