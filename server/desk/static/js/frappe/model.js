// `frappe.model`: documents on the client. Values of the open form go through its `frm` (so change
// events fire, as in Frappe); other documents are read from `locals` or, missing there, the server
// (`frappe.db`). `makeModel({db, getMeta, cachedMeta, currentForm})` takes what it needs, so
// `node --test` covers it with fakes. `doctypeInfo(doctype)` is the boot's summary of a doctype whose
// meta is not loaded.
import { locals, newDoc, rowName } from "../model.js";

export function makeModel({ db, getMeta, cachedMeta, currentForm, user = () => null, doctypeInfo = () => null }) {
	/** The open form showing `doctype`/`name` (the document itself or one of its child rows). */
	function formOf(doctype, name) {
		const frm = currentForm();
		if (!frm || !frm.doc) return null;
		if (frm.doctype === doctype && frm.docname === name) return { frm, row: null };
		const row = typeof frm.get_row === "function" ? frm.get_row(name) : null;
		return row && row.doctype === doctype ? { frm, row } : null;
	}

	const model = {
		get_doc(doctype, name) {
			if (name && typeof name === "object") return name; // Frappe accepts the document itself
			return (locals[doctype] || {})[name] || null;
		},

		/** `get_value(doctype, name_or_filters, field, callback)`: from `locals` when the document
		 * is there, else the server. Resolves to the value (and calls `callback(value)`). */
		async get_value(doctype, filters, fieldname, callback) {
			let value;
			const local = typeof filters === "string" ? model.get_doc(doctype, filters) : null;
			if (local && fieldname in local) {
				value = local[fieldname];
			} else {
				const { message } = await db.get_value(doctype, filters, fieldname);
				value = message ? message[fieldname] : undefined;
			}
			if (typeof callback === "function") callback(value);
			return value;
		},

		/** `set_value(doctype, name, field, value)` or `(doctype, name, {field: value})`: on the open
		 * form (or a row of it) its change events fire; elsewhere `locals` changes. */
		async set_value(doctype, name, fieldname, value) {
			const values = fieldname && typeof fieldname === "object" ? fieldname : { [fieldname]: value };
			const found = formOf(doctype, name);
			if (found && !found.row) return found.frm.set_value(values);
			for (const [field, next] of Object.entries(values)) {
				if (found) await found.frm.set_child_value(found.row, field, next);
				else {
					const doc = model.get_doc(doctype, name);
					if (doc) doc[field] = next;
				}
			}
			if (found) found.frm.notify();
		},

		/** `add_child(doc, table)` or Frappe's `add_child(doc, child_doctype, table)`: a new row. */
		add_child(doc, cdtOrField, fieldname) {
			const table = fieldname || cdtOrField;
			const frm = currentForm();
			if (frm && frm.doc === doc) return frm.add_child(table);
			const cdt = fieldname ? cdtOrField : null;
			const row = newDoc(cachedMeta(cdt) || { name: cdt || table, fields: [] }, { user: user() });
			delete row.__unsaved;
			Object.assign(row, { name: rowName(), parent: doc.name, parentfield: table, parenttype: doc.doctype });
			(doc[table] ||= []).push(row);
			row.idx = doc[table].length;
			(locals[row.doctype] ||= {})[row.name] = row;
			return row;
		},

		clear_table(doc, fieldname) {
			const frm = currentForm();
			if (frm && frm.doc === doc) return frm.clear_table(fieldname);
			doc[fieldname] = [];
		},

		get_new_doc(doctype, parentDoc, parentfield) {
			if (parentDoc && parentfield) return model.add_child(parentDoc, doctype, parentfield);
			const meta = cachedMeta(doctype) || { name: doctype, fields: [] };
			const doc = newDoc(meta, { user: user() });
			(locals[doctype] ||= {})[doc.name] = doc;
			return doc;
		},

		/** Load a doctype's meta, then `callback()`; resolves when loaded. */
		async with_doctype(doctype, callback) {
			await getMeta(doctype);
			if (typeof callback === "function") await callback();
		},

		/** The documents of `doctype` in `locals`, those matching `filters` ({field: value}). */
		get_list(doctype, filters) {
			const docs = Object.values(locals[doctype] || {});
			if (!filters) return docs;
			return docs.filter((doc) => Object.entries(filters).every(([key, value]) => doc[key] === value));
		},

		is_submittable(doctype) {
			const meta = cachedMeta(doctype) || doctypeInfo(doctype); // the boot knows every doctype's
			return Boolean(meta && Number(meta.is_submittable));
		},

		is_new(doc) {
			return Boolean(doc && doc.__islocal);
		},

		has_workflow(doctype) {
			const meta = cachedMeta(doctype);
			return Boolean(meta && meta.__workflow);
		},

		get_children(doc, fieldname) {
			return (doc && doc[fieldname]) || [];
		},

		round_floats_in(doc, fieldnames) {
			for (const field of fieldnames || Object.keys(doc)) {
				if (typeof doc[field] === "number") doc[field] = Math.round(doc[field] * 1e9) / 1e9;
			}
		},
	};
	return model;
}
