// The Desk's form model: the state of one open form, which the form view (views/form/) renders and
// the doctype's form scripts drive. It holds the document, whether it changed since it was loaded or
// saved, the errors shown at fields, what scripts added (buttons, menu items, the indicator, the
// intro, the dashboard, field property overrides, link queries; cleared by every refresh), and fires
// the script events (`trigger`, handlers from events.js). Every change calls `notify()`, which
// re-renders the view.
//
// Views and scripts hold the same object, so its methods carry the names of Frappe's `frm`
// (set_value, is_dirty, trigger, refresh, add_child, ...). What only scripts call (frm.page,
// frm.call, add_custom_button, set_df_property, savesubmit, ...) is the frappe adapter's
// (frappe/form.js, a subclass of this one); the view builds its form through create.js.
//
// The form view's interface: `createForm(meta, doc, {docinfo, onSave, onReload})`, `subscribe`
// (render on change); `onSave(frm, action)` runs "Save", "Submit" or "Cancel" with the script events
// around the server call; the grid calls `add_row`, `remove_row` and `set_child_value`, which fire
// the child-table events.
import { boot, hasRight } from "../boot.js";
import { Emitter } from "../lib/emitter.js";
import { cachedMeta, getField } from "../meta.js";
import { STANDARD_FIELDS, TABLE_TYPES, dropDoc, hasValue, isEmpty, newDoc, rowName, storeDoc } from "../model.js";
import { hasHandlers, runHandlers } from "./events.js";

const RIGHTS = ["read", "write", "create", "delete", "submit", "cancel", "amend", "report", "print", "email", "share"];

/** Frappe's `frm.perm`: one object of rights per permlevel (level 0 from the boot, as the server has them). */
export function permFor(doctype, docinfo) {
	const fromDoc = (docinfo && docinfo.permissions) || null;
	const level0 = {};
	for (const right of RIGHTS) level0[right] = fromDoc && right in fromDoc ? Number(fromDoc[right]) : Number(hasRight(doctype, right));
	return [level0];
}

export class Form {
	/**
	 * @param {object} meta the doctype's meta (getdoctype)
	 * @param {object} doc the document (from getdoc, or a new one from model.newDoc)
	 * @param {object} options {docinfo, onSave: (frm, action) => Promise, onReload: (frm) => Promise}
	 */
	constructor(meta, doc, { docinfo = {}, onSave = null, onReload = null } = {}) {
		this.meta = meta;
		this.doctype = meta.name;
		this.events = new Emitter();
		this.custom_buttons = []; // {label, group, handler, type}
		this.menu_items = []; // {label, handler}: the form's own Menu
		this.action_items = []; // {label, handler}: the form's Actions menu
		this.indicator = null; // {label, color}
		this.intro = null; // {text, color}
		this.dashboard = { indicators: [], headline: null }; // indicators: [{label, color}], headline: {text, color}
		this.df_overrides = {}; // fieldname (or table.fieldname) → {property: value}
		this.queries = {}; // fieldname (or table.fieldname) → get_query (a function or {filters, query})
		this.errors = {}; // fieldname → message shown at the field
		this.save_disabled = false;
		this.form_disabled = false;
		this.saving = false;
		this._onSave = onSave;
		this._onReload = onReload;
		this.load(doc, docinfo);
	}

	/** Take a document (loaded, saved or reloaded) as the form's. */
	load(doc, docinfo) {
		this.doc = storeDoc(doc);
		this.docname = doc.name;
		this._storeRows();
		if (docinfo) this.docinfo = docinfo;
		this.perm = permFor(this.doctype, this.docinfo);
		this._dirty = Boolean(doc.__unsaved);
		// a new document is unsaved from the start (Frappe's `is_dirty()`), but holds nothing of the
		// user's until something changes: only then would leaving it lose anything
		this._edited = this._dirty && !doc.__islocal;
		this.errors = {};
		this.fields_dict = this._fieldsDict();
		this.notify();
	}

	/** Every field of the form by name (`{df, frm}`): what the save's errors are matched against. */
	_fieldsDict() {
		const out = {};
		for (const df of this.meta.fields || []) {
			if (df.fieldname) out[df.fieldname] = { df: this.get_docfield(df.fieldname), frm: this };
		}
		return out;
	}

	// -- state ---------------------------------------------------------------------------------

	/** Re-render the view (after any change). */
	notify() {
		this.events.emit("change", this);
	}

	/** `handler(frm)` after every change; returns the function that stops. */
	subscribe(handler) {
		return this.events.on("change", handler);
	}

	is_new() {
		return Boolean(this.doc && this.doc.__islocal);
	}

	is_dirty() {
		return this._dirty;
	}

	/** Mark the form as changed (Frappe's `frm.dirty()`). */
	dirty() {
		this._edited = true;
		if (!this._dirty) {
			this._dirty = true;
			this.doc.__unsaved = 1;
		}
		this.notify();
	}

	/** Whether leaving the form would lose something: a change since it opened, was saved or was
	 * reloaded. Unlike `is_dirty()`, false for a new document no one has changed since it opened
	 * (its defaults, route options and what its opening scripts set). */
	has_edits() {
		return this._edited;
	}

	/** Take what the form holds now as where it started (the form view, once a new document's opening
	 * scripts ran): only later changes are edits. */
	settle() {
		this._edited = false;
	}

	/** The DocField of `fieldname` with what scripts changed (`set_df_property`, `toggle_*`). */
	get_docfield(fieldname) {
		const df = getField(this.meta, fieldname);
		if (!df) return null;
		const overrides = this.df_overrides[fieldname];
		return overrides ? { ...df, ...overrides } : df;
	}

	/** The DocField of a child table's column with what scripts changed. */
	get_child_docfield(tableField, fieldname) {
		const cdt = this.child_doctype(tableField);
		const childMeta = cachedMeta(cdt);
		const df = childMeta ? getField(childMeta, fieldname) : null;
		if (!df) return null;
		const overrides = this.df_overrides[`${tableField}.${fieldname}`];
		return overrides ? { ...df, ...overrides } : df;
	}

	/** Whether the user may change the document now: write (create for a new one), a draft, and
	 * the workflow state's `allow_edit` role. Submitted documents allow `allow_on_submit` fields. */
	can_edit() {
		if (this.is_new()) return hasRight(this.doctype, "create");
		if (!this.perm[0].write) return false;
		const workflow = this.meta.__workflow;
		if (workflow && this.doc[workflow.field] && boot.user !== "Administrator") {
			const state = (workflow.states || []).find((s) => s.state === this.doc[workflow.field]);
			if (state && state.allow_edit && !(boot.roles || []).includes(state.allow_edit)) return false;
		}
		return true;
	}

	/** Whether `df` can be changed by the user in the form as it stands. */
	is_field_editable(df) {
		if (!df || df.read_only || this.saving || this.form_disabled) return false;
		if (STANDARD_FIELDS.includes(df.fieldname)) return false;
		if (!this.can_edit()) return false;
		const docstatus = Number(this.doc.docstatus || 0);
		if (docstatus === 2) return false;
		if (docstatus === 1) return Boolean(df.allow_on_submit);
		if (df.set_only_once && !this.is_new() && this.doc[df.fieldname] !== undefined && this.doc[df.fieldname] !== null) return false;
		return true;
	}

	/** Whether `df` is shown: not hidden, and (as in Frappe) a read-only field only with a value.
	 * The field-rules helper adds depends_on here. */
	is_field_visible(df) {
		if (!df || df.hidden) return false;
		if (df.read_only && hasValue(df) && isEmpty(this.doc[df.fieldname], df)) return false;
		return true;
	}

	// -- values ----------------------------------------------------------------------------------

	/** Change a value as the user types: the document and the dirty mark, no script events. */
	update_value(fieldname, value) {
		if (this.doc[fieldname] === value) return;
		this.doc[fieldname] = value;
		delete this.errors[fieldname];
		this.dirty();
	}

	/**
	 * Frappe's `frm.set_value(field, value)` or `frm.set_value({field: value, ...})`: sets the
	 * values and fires each changed field's event (`frappe.ui.form.on(dt, {field(frm) {...}})`).
	 * Resolves when the handlers ran.
	 */
	async set_value(field, value) {
		const values = typeof field === "object" && field !== null ? field : { [field]: value };
		for (const [fieldname, next] of Object.entries(values)) {
			const changed = this.doc[fieldname] !== next || this._untriggered === fieldname;
			this.doc[fieldname] = next;
			delete this.errors[fieldname];
			if (changed) {
				this._untriggered = null;
				this.dirty();
				await this.trigger(fieldname);
			}
		}
		this.notify();
	}

	/** Remember a value the user typed whose change event has not fired yet (see set_value). */
	mark_untriggered(fieldname) {
		this._untriggered = fieldname;
	}

	/** Show `message` at the field (an empty one clears it). */
	set_field_error(fieldname, message) {
		if (message) this.errors[fieldname] = String(message);
		else delete this.errors[fieldname];
		this.notify();
	}

	set_errors(errors) {
		this.errors = { ...errors };
		this.notify();
	}

	/** The search arguments of a Link field ({filters, query}) from `set_query`, or {}; for a child
	 * table's column pass the table field, `cdt` and `cdn` (`set_query(field, table, fn)` wins there). */
	link_query(fieldname, cdt, cdn, tableField) {
		const entry = (tableField && this.queries[`${tableField}.${fieldname}`]) || this.queries[fieldname];
		if (!entry) return {};
		const value = typeof entry === "function" ? entry(this.doc, cdt || this.doctype, cdn || this.docname) : entry;
		return value && typeof value === "object" ? value : {};
	}

	// -- events ----------------------------------------------------------------------------------

	/** Run the form scripts' handlers of `event` (for a child doctype's event, pass `cdt`, `cdn`). */
	async trigger(event, cdt, cdn) {
		if (cdt && cdt !== this.doctype) {
			await runHandlers(cdt, event, [this, cdt, cdn]);
		} else {
			await runHandlers(this.doctype, event, [this, cdt || this.doctype, cdn || this.docname]);
		}
		this.notify();
	}

	/** Frappe's refresh: clear what the last refresh added, then fire `refresh`. */
	async refresh() {
		this.custom_buttons = [];
		this.menu_items = [];
		this.action_items = [];
		this.indicator = null;
		this.intro = null;
		this.dashboard.indicators = [];
		this.dashboard.headline = null;
		this.fields_dict = this._fieldsDict();
		await this.trigger("refresh");
	}

	// -- actions ---------------------------------------------------------------------------------

	/** Save (or another action the view supports: "Submit", "Cancel", ...); resolves to whether it worked. */
	async save(action = "Save") {
		if (!this._onSave) throw new Error("this form cannot save");
		return this._onSave(this, action);
	}

	/** Load the stored document again (unsaved changes are dropped). */
	async reload_doc() {
		if (this._onReload) await this._onReload(this);
	}

	// -- child tables ----------------------------------------------------------------------------

	/** Keep the rows of the child tables in `locals` (scripts read `locals[cdt][cdn]`). */
	_storeRows() {
		for (const df of this.meta.fields || []) {
			if (!TABLE_TYPES.has(df.fieldtype) || !Array.isArray(this.doc[df.fieldname])) continue;
			for (const row of this.doc[df.fieldname]) {
				if (!row || typeof row !== "object") continue;
				if (!row.doctype) row.doctype = df.options;
				storeDoc(row); // the same object: a script's change through locals shows in the form
			}
		}
	}

	/** The child doctype of a Table field. */
	child_doctype(fieldname) {
		const df = getField(this.meta, fieldname);
		if (!df || !TABLE_TYPES.has(df.fieldtype)) throw new Error(`${fieldname} is not a table of ${this.doctype}`);
		return df.options;
	}

	/** Frappe's `frm.add_child(table, values)`: a new row (the child's defaults, then `values`), no event. */
	add_child(fieldname, values = {}) {
		const cdt = this.child_doctype(fieldname);
		const childMeta = cachedMeta(cdt) || { name: cdt, fields: [] };
		const row = newDoc(childMeta, { user: boot.user });
		delete row.__unsaved;
		delete row.owner;
		Object.assign(row, { name: rowName(), parent: this.docname, parentfield: fieldname, parenttype: this.doctype }, values || {});
		if (!Array.isArray(this.doc[fieldname])) this.doc[fieldname] = [];
		this.doc[fieldname].push(row);
		row.idx = this.doc[fieldname].length;
		storeDoc(row);
		this.dirty();
		return row;
	}

	/** The grid's Add Row: `add_child`, then `<table>_add(frm, cdt, cdn)`. */
	async add_row(fieldname, values) {
		const row = this.add_child(fieldname, values);
		await this._childEvent(`${fieldname}_add`, row);
		return row;
	}

	/** The grid's Delete: `before_<table>_remove`, the row goes, then `<table>_remove(frm, cdt, cdn)`. */
	async remove_row(fieldname, row) {
		const rows = Array.isArray(this.doc[fieldname]) ? this.doc[fieldname] : [];
		const target = typeof row === "string" ? rows.find((r) => r.name === row) : row;
		if (!target || !rows.includes(target)) return false;
		await this._childEvent(`before_${fieldname}_remove`, target);
		this.doc[fieldname] = rows.filter((r) => r !== target);
		this.doc[fieldname].forEach((r, i) => (r.idx = i + 1));
		this.dirty();
		await this._childEvent(`${fieldname}_remove`, target);
		dropDoc(target.doctype, target.name);
		return true;
	}

	/** Frappe's `frm.clear_table(table)`: no rows (no events). */
	clear_table(fieldname) {
		for (const row of this.doc[fieldname] || []) dropDoc(row.doctype, row.name);
		this.doc[fieldname] = [];
		this.dirty();
	}

	/** A child row's value changed (the grid, `frappe.model.set_value`): the child field's event
	 * `(frm, cdt, cdn)` fires when it changed. */
	async set_child_value(row, fieldname, value) {
		if (!row || row[fieldname] === value) return;
		row[fieldname] = value;
		this.dirty();
		await this.trigger(fieldname, row.doctype, row.name);
	}

	/** A child-table event: the child doctype's handlers (Frappe's), then the parent's when it has
	 * handlers of that name too (scripts register `items_add` on either). */
	async _childEvent(event, row) {
		await this.trigger(event, row.doctype, row.name);
		if (row.doctype !== this.doctype && hasHandlers(this.doctype, event)) {
			await runHandlers(this.doctype, event, [this, row.doctype, row.name]);
		}
		this.notify();
	}

	/** The row of a child table by its name (`cdn`). */
	get_row(cdn) {
		for (const df of this.meta.fields || []) {
			if (!TABLE_TYPES.has(df.fieldtype)) continue;
			const row = (this.doc[df.fieldname] || []).find((r) => r && r.name === cdn);
			if (row) return row;
		}
		return null;
	}
}
