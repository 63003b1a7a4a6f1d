// Customize Form's bookkeeping, pure (no DOM): which field properties the page edits, what changed
// against what the server sent (fw.desk.customize_form.fetch), and moving a field in the order.
// `node --test` covers it.

/** The properties business.md §7 lets Customize Form change: [property, label, kind]. */
export const PROPERTIES = [
	["label", "Label", "text"],
	["reqd", "Mandatory", "check"],
	["hidden", "Hidden", "check"],
	["read_only", "Read Only", "check"],
	["in_list_view", "In List View", "check"],
	["in_standard_filter", "In Standard Filter", "check"],
	["bold", "Bold", "check"],
	["allow_on_submit", "Allow on Submit", "check"],
	["print_hide", "Print Hide", "check"],
	["permlevel", "Perm Level", "int"],
	["options", "Options", "textarea"],
	["default", "Default", "text"],
	["description", "Description", "textarea"],
];

/** The properties shown in a field's row; the others are under its "More properties". */
export const IN_ROW = new Set(["label", "reqd", "hidden", "read_only", "in_list_view", "in_standard_filter"]);

function same(a, b) {
	const empty = (v) => v === null || v === undefined || v === "";
	return (empty(a) && empty(b)) || String(a) === String(b);
}

/** `{fieldname: {property: value}}` of what `fields` changed against `original` (fetch's fields). */
export function changedProperties(original, fields) {
	const before = new Map(original.map((f) => [f.fieldname, f]));
	const out = {};
	for (const field of fields) {
		const was = before.get(field.fieldname);
		if (!was) continue;
		for (const [prop] of PROPERTIES) {
			if (!same(was[prop], field[prop])) (out[field.fieldname] ||= {})[prop] = field[prop];
		}
	}
	return out;
}

/** The fieldnames in `fields`' order, or null when it is `original`'s. */
export function changedOrder(original, fields) {
	const order = fields.map((f) => f.fieldname);
	return order.join("\n") === original.map((f) => f.fieldname).join("\n") ? null : order;
}

/** `fields` with the one at `index` moved by `step` (-1 up, +1 down); the same list at an edge. */
export function moveField(fields, index, step) {
	const target = index + step;
	if (target < 0 || target >= fields.length) return fields;
	const out = fields.slice();
	[out[index], out[target]] = [out[target], out[index]];
	return out;
}

/** A fieldname from a label, as Frappe scrubs one: "Delivery Note" → "delivery_note". */
export function fieldnameOf(label) {
	return String(label || "").trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").replace(/^(\d)/, "f_$1");
}
