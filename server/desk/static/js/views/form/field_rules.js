// What a field is in the form right now (desk.md §4 field rules): shown or not, mandatory or not,
// editable or not. It combines the `frm`'s own judgement (hidden, read_only, docstatus,
// allow_on_submit, set_only_once, the workflow's allow_edit, what scripts set) with the rules of the
// meta: `depends_on`, `mandatory_depends_on`, `read_only_depends_on` (views/form/depends.js) and
// `permlevel` (a field at a level the user may not read is not shown: the server leaves it out;
// one the user may read but not write is read-only). Child-table rows are judged with `doc` the row
// and `parent` the form's document.
import { boot } from "../../boot.js";
import { STANDARD_FIELDS, hasValue, isEmpty } from "../../model.js";
import { ruleHolds } from "./depends.js";

/**
 * The permlevels whose fields `roles` may read and write, from the meta's DocPerm rows (as the
 * server's engine/permissions/roles.py: level 0 by the read and write rights, higher levels by
 * their own rows, read with write implied). Pure.
 */
export function permLevels(meta, roles, user = null) {
	const levels = (meta.fields || []).map((df) => Number(df.permlevel || 0));
	if (user === "Administrator") {
		const all = new Set([0, ...levels]);
		return { read: all, write: new Set(all) };
	}
	const held = new Set(roles || []);
	const read = new Set([0]);
	const write = new Set();
	for (const perm of meta.permissions || []) {
		if (!held.has(perm.role)) continue;
		const level = Number(perm.permlevel || 0);
		if (level) {
			if (perm.read || perm.write) read.add(level);
			if (perm.write) write.add(level);
		} else if (perm.write) {
			write.add(0);
		}
	}
	return { read, write };
}

const levelsCache = new WeakMap();

function levelsOf(meta) {
	let levels = levelsCache.get(meta);
	if (!levels) {
		levels = permLevels(meta, boot.roles, boot.user);
		levelsCache.set(meta, levels);
	}
	return levels;
}

/**
 * `{visible, reqd, readOnly}` of a field of the form's document. `df` is the field as the form has
 * it now (frm.get_docfield: with what scripts changed).
 */
export function fieldState(frm, df) {
	if (!df) return { visible: false, reqd: false, readOnly: true };
	const doc = frm.doc || {};
	const level = Number(df.permlevel || 0);
	const levels = levelsOf(frm.meta);
	const visible = frm.is_field_visible(df) && levels.read.has(level) && ruleHolds(df.depends_on, { doc }, true);
	const reqd = Boolean(df.reqd) || ruleHolds(df.mandatory_depends_on, { doc }, false);
	// a field at level 0 is the frm's to judge (its write right also covers a new document's create)
	const readOnly =
		!frm.is_field_editable(df) || (level > 0 && !levels.write.has(level)) || ruleHolds(df.read_only_depends_on, { doc }, false);
	return { visible, reqd, readOnly };
}

/** The same for a field of a child-table row (`childMeta`'s `df`) in the form `frm`. */
export function rowFieldState(frm, childMeta, df, row, tableReadOnly) {
	const parentDoc = frm.doc || {};
	const level = Number(df.permlevel || 0);
	const levels = levelsOf(childMeta);
	const parentLevels = levelsOf(frm.meta);
	// a child's permlevels are judged by the parent's DocPerm rows, as on the server
	const readable = parentLevels.read.has(level) || levels.read.has(level);
	const hiddenEmptyReadOnly = df.read_only && hasValue(df) && isEmpty(row[df.fieldname], df);
	const visible = !df.hidden && readable && !hiddenEmptyReadOnly && ruleHolds(df.depends_on, { doc: row, parent: parentDoc }, true);
	const reqd = Boolean(df.reqd) || ruleHolds(df.mandatory_depends_on, { doc: row, parent: parentDoc }, false);
	const readOnly =
		tableReadOnly ||
		Boolean(df.read_only) ||
		STANDARD_FIELDS.includes(df.fieldname) ||
		(level > 0 && !parentLevels.write.has(level)) ||
		ruleHolds(df.read_only_depends_on, { doc: row, parent: parentDoc }, false);
	return { visible, reqd, readOnly };
}
