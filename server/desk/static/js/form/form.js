// The `frm` object (Frappe's `frappe.ui.form.Form`): the state of one open form, which the form view
// (views/form/) renders and the doctype's form scripts drive. It holds the document, whether it
// changed since it was loaded or saved, the errors shown at fields, what scripts added (custom
// buttons, the indicator, dashboard indicators, the intro, field property overrides, link queries),
// and fires the script events (`trigger`). Every change calls `notify()`, which re-renders the view.
//
// Implemented here: doc, doctype, docname, meta, fields_dict, perm, is_new, is_dirty, dirty,
// set_value (promise; fires the field's change event), get_field, get_docfield, trigger, refresh,
// refresh_field, refresh_fields, save, reload_doc, call, add_custom_button, remove_custom_button,
// clear_custom_buttons, change_custom_button_type (add_custom_button answers a chainable handle),
// set_intro, page.set_indicator/clear_indicator/set_primary_action/add_inner_button/add_menu_item,
// set_indicator (fw's alias), dashboard.add_indicator/clear_headline/set_headline, toggle_display,
// toggle_reqd, toggle_enable, set_df_property, set_query, disable_save, enable_save, disable_form,
// enable_form, scroll_to_field, has_perm, get_title, get_row; child tables
// (add_child, clear_table, and for the grid add_row/remove_row/set_child_value, which fire
// `<table>_add`, `<table>_remove` and the child field's event with `frm, cdt, cdn`); savesubmit and
// savecancel (confirm, then the view's Submit and Cancel, which run their events).
//
// The form view's interface: `new Form(meta, doc, {docinfo, onSave, onReload})`, `subscribe` (render
// on change); `onSave(frm, action)` runs "Save", "Submit" or "Cancel" with the script events around
// the server call; the grid calls `add_row`, `remove_row` and `set_child_value`, which fire the
// child-table events.
import { call as apiCall, request } from "../api.js";
import { boot, hasRight } from "../boot.js";
import { Emitter } from "../lib/emitter.js";
import { cachedMeta, getField } from "../meta.js";
import { STANDARD_FIELDS, TABLE_TYPES, dropDoc, hasValue, isEmpty, newDoc, storeDoc } from "../model.js";
import { __ } from "../i18n.js";
import { confirmDialog } from "../ui/confirm.js";
import { hasHandlers, runHandlers } from "./events.js";
import { rowName } from "../frappe/model.js";

const RIGHTS = ["read", "write", "create", "delete", "submit", "cancel", "amend", "report", "print", "email", "share"];

/** Frappe's `frm.perm`: one object of rights per permlevel (level 0 from the boot, as the server has them). */
export function permFor(doctype, docinfo) {
	const fromDoc = (docinfo && docinfo.permissions) || null;
	const level0 = {};
	for (const right of RIGHTS) level0[right] = fromDoc && right in fromDoc ? Number(fromDoc[right]) : Number(hasRight(doctype, right));
	return [level0];
}

class Dashboard {
	constructor(frm) {
		this.frm = frm;
		this.indicators = [];
		this.headline = null;
	}

	add_indicator(label, color) {
		this.indicators.push({ label: String(label), color: color || "gray" });
		this.frm.notify();
	}

	clear_indicators() {
		this.indicators = [];
		this.frm.notify();
	}

	set_headline(text, color) {
		this.headline = text ? { text: String(text), color: color || "blue" } : null;
		this.frm.notify();
	}

	clear_headline() {
		this.set_headline(null);
	}

	reset() {
		this.indicators = [];
		this.headline = null;
	}
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
		this.menu_items = []; // {label, handler}: the form's own Menu (page.add_menu_item)
		this.action_items = []; // {label, handler}: the form's Actions menu (page.add_action_item)
		this.indicator = null; // set by page.set_indicator: {label, color}
		this.intro = null; // {text, color}
		this.df_overrides = {}; // fieldname → {property: value}
		this.queries = {}; // fieldname → get_query (a function or {filters, query})
		this.errors = {}; // fieldname → message shown at the field
		this.save_disabled = false;
		this.saving = false;
		this._onSave = onSave;
		this._onReload = onReload;
		this.dashboard = new Dashboard(this);
		// Frappe's `frm.page`: the toolbar's pieces a script may set. A primary action is a primary
		// custom button (cleared on refresh like the others), menu items a "Menu" group.
		this.page = {
			set_indicator: (label, color) => this.set_indicator(label, color),
			clear_indicator: () => {
				this.indicator = null;
				this.notify();
			},
			set_primary_action: (label, handler) => {
				this.custom_buttons = this.custom_buttons.filter((b) => b.type !== "primary");
				return this.add_custom_button(label, handler).addClass("btn-primary");
			},
			clear_primary_action: () => {
				this.custom_buttons = this.custom_buttons.filter((b) => b.type !== "primary");
				this.notify();
			},
			set_secondary_action: (label, handler) => this.add_custom_button(label, handler),
			add_inner_button: (label, handler, group) => this.add_custom_button(label, handler, group),
			remove_inner_button: (label, group) => this.remove_custom_button(label, group),
			clear_inner_toolbar: () => this.clear_custom_buttons(),
			add_menu_item: (label, handler) => this._addItem("menu_items", label, handler),
			add_action_item: (label, handler) => this._addItem("action_items", label, handler),
			clear_menu: () => {
				this.menu_items = [];
				this.notify();
			},
			clear_actions_menu: () => {
				this.action_items = [];
				this.notify();
			},
		};
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

	_fieldsDict() {
		const out = {};
		for (const df of this.meta.fields || []) {
			if (!df.fieldname) continue;
			out[df.fieldname] = {
				df: this.get_docfield(df.fieldname),
				frm: this,
				refresh: () => this.refresh_field(df.fieldname),
			};
			if (TABLE_TYPES.has(df.fieldtype)) {
				// what Frappe scripts reach through `frm.fields_dict.items.grid`
				out[df.fieldname].grid = {
					get_field: (name) => this._gridField(df.fieldname, name),
					get_docfield: (name) => this.get_child_docfield(df.fieldname, name),
					update_docfield_property: (name, property, value) => this.set_df_property(name, property, value, "*", df.fieldname),
					add_new_row: () => this.add_row(df.fieldname),
					refresh: () => this.notify(),
				};
			}
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

	get_field(fieldname) {
		return this.fields_dict[fieldname] || null;
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
		this.dashboard.reset();
		this.fields_dict = this._fieldsDict();
		await this.trigger("refresh");
	}

	refresh_field(fieldname) {
		if (this.fields_dict[fieldname]) this.fields_dict[fieldname].df = this.get_docfield(fieldname);
		this.notify();
	}

	refresh_fields() {
		this.fields_dict = this._fieldsDict();
		this.notify();
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

	/** Frappe's `frm.call(method, args)`: a whitelisted method of the document's controller or,
	 * with a dotted path, a module function. Resolves to `{message, docs}` as Frappe's does. */
	async call(method, args = {}, callback) {
		const options = typeof method === "object" ? method : { method, args, callback };
		const path = String(options.method);
		let body;
		if (path.includes(".")) {
			body = await apiCall(path, { ...(options.args || {}) });
		} else {
			const enc = encodeURIComponent;
			const reply = await request("POST", `/api/v2/document/${enc(this.doctype)}/${enc(this.docname)}/method/${enc(path)}`, {
				body: options.args || {},
			});
			body = { message: reply ? reply.data : undefined, docs: reply ? reply.docs : undefined };
		}
		if (body && Array.isArray(body.docs) && body.docs[0] && body.docs[0].name === this.docname) {
			this.load({ ...body.docs[0] }, this.docinfo);
		}
		if (typeof options.callback === "function") options.callback(body);
		return body;
	}

	/** Frappe's `frm.savesubmit()`: asks to confirm, then the view's Submit (`onSave(frm, "Submit")`:
	 * `validate`, `before_submit`, the server, `on_submit`, `refresh`). Resolves to whether it worked. */
	async savesubmit(_button, callback, onError) {
		if (!(await confirmDialog(__("Permanently Submit {0}?", [this.docname]), { title: __("Submit") }))) return false;
		return this._viewAction("Submit", callback, onError);
	}

	/** Frappe's `frm.savecancel()`: asks to confirm, then the view's Cancel (`before_cancel`, the
	 * server, `after_cancel`, `refresh`). */
	async savecancel(_button, callback, onError) {
		if (!(await confirmDialog(__("Permanently Cancel {0}?", [this.docname]), { title: __("Cancel") }))) return false;
		return this._viewAction("Cancel", callback, onError);
	}

	async _viewAction(action, callback, onError) {
		let done = false;
		try {
			done = await this.save(action);
		} catch (error) {
			if (typeof onError === "function") onError(error);
			throw error;
		}
		if (done && typeof callback === "function") callback({ message: this.doc });
		return done;
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

	has_perm(right, level = 0) {
		return Boolean(this.perm[level] && this.perm[level][right]);
	}

	get_title() {
		const field = this.meta.title_field;
		const value = field ? this.doc[field] : null;
		return value === undefined || value === null || value === "" ? this.docname : String(value);
	}

	// -- what scripts add to the page ------------------------------------------------------------

	/** A button in the form's toolbar (in a menu named `group`); cleared on every refresh. */
	add_custom_button(label, handler, group) {
		const button = { label: String(label), handler, group: group ? String(group) : null, type: "default" };
		this.remove_custom_button(label, group);
		this.custom_buttons.push(button);
		this.notify();
		return this._buttonHandle(button);
	}

	/** An entry of the form's own Menu or Actions menu (cleared on every refresh, like buttons). */
	_addItem(list, label, handler) {
		const item = { label: String(label), handler };
		this[list] = [...this[list].filter((i) => i.label !== item.label), item];
		this.notify();
		return item;
	}

	/** What `add_custom_button` returns: Frappe returns the jQuery button, and scripts chain on it
	 * (`.addClass("btn-primary")`, `.css(...)`); the class names that mean a button type change it,
	 * the rest is accepted and ignored. */
	_buttonHandle(button) {
		const frm = this;
		const setType = (classes, on) => {
			for (const cls of String(classes || "").split(/\s+/)) {
				const type = { "btn-primary": "primary", "btn-danger": "danger" }[cls];
				if (type) button.type = on ? type : "default";
			}
			frm.notify();
			return handle;
		};
		const handle = Object.assign(button, {
			addClass: (classes) => setType(classes, true),
			removeClass: (classes) => setType(classes, false),
			toggleClass: (classes, on) => setType(classes, on),
			css: () => handle,
			attr: () => handle,
			prop: () => handle,
			on: () => handle,
			show: () => handle,
			hide: () => {
				frm.remove_custom_button(button.label, button.group);
				return handle;
			},
		});
		return handle;
	}

	remove_custom_button(label, group) {
		const name = String(label);
		const before = this.custom_buttons.length;
		this.custom_buttons = this.custom_buttons.filter((b) => !(b.label === name && (b.group || null) === (group ? String(group) : null)));
		if (this.custom_buttons.length !== before) this.notify();
	}

	clear_custom_buttons() {
		this.custom_buttons = [];
		this.notify();
	}

	change_custom_button_type(label, group, type) {
		const button = this.custom_buttons.find((b) => b.label === String(label) && (b.group || null) === (group ? String(group) : null));
		if (button) {
			button.type = type;
			this.notify();
		}
	}

	/** The form's indicator pill (Frappe's `frm.page.set_indicator`); fw scripts call it on `frm`. */
	set_indicator(label, color) {
		this.indicator = label ? { label: String(label), color: color || "gray" } : null;
		this.notify();
	}

	set_intro(text, color) {
		this.intro = text ? { text: String(text), color: color || "blue" } : null;
		this.notify();
	}

	/** Frappe's `set_df_property(field, property, value)`; with `docname` and `table_field`, the
	 * property of a child table's column (every row: the grid reads `get_child_docfield`). */
	set_df_property(fieldname, property, value, docname, tableField) {
		const names = Array.isArray(fieldname) ? fieldname : [fieldname];
		for (const name of names) {
			const key = docname && tableField ? `${tableField}.${name}` : name;
			this.df_overrides[key] = { ...(this.df_overrides[key] || {}), [property]: value };
		}
		this.refresh_fields();
	}

	/** `frm.fields_dict[table].grid.get_field(name)`: setting its `get_query` is `set_query(name, table, fn)`. */
	_gridField(tableField, fieldname) {
		const frm = this;
		const key = `${tableField}.${fieldname}`;
		return {
			df: frm.get_child_docfield(tableField, fieldname),
			get get_query() {
				return frm.queries[key] || null;
			},
			set get_query(query) {
				frm.queries[key] = query;
			},
		};
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

	toggle_display(fieldname, show) {
		this.set_df_property(fieldname, "hidden", show ? 0 : 1);
	}

	toggle_reqd(fieldname, mandatory) {
		this.set_df_property(fieldname, "reqd", mandatory ? 1 : 0);
	}

	toggle_enable(fieldname, enable) {
		this.set_df_property(fieldname, "read_only", enable ? 0 : 1);
	}

	/** The query of a Link field's search: a function `(doc, cdt, cdn) => ({filters, query})` or that object. */
	set_query(fieldname, childTable, query) {
		if (typeof childTable === "function" || (childTable && typeof childTable === "object")) {
			this.queries[fieldname] = childTable;
		} else {
			this.queries[`${childTable}.${fieldname}`] = query;
		}
	}

	/** The search arguments of a Link field ({filters, query}) from `set_query`, or {}; for a child
	 * table's column pass the table field, `cdt` and `cdn` (`set_query(field, table, fn)` wins there). */
	link_query(fieldname, cdt, cdn, tableField) {
		const entry = (tableField && this.queries[`${tableField}.${fieldname}`]) || this.queries[fieldname];
		if (!entry) return {};
		const value = typeof entry === "function" ? entry(this.doc, cdt || this.doctype, cdn || this.docname) : entry;
		return value && typeof value === "object" ? value : {};
	}

	/** Frappe's `frm.disable_form()`: every field read-only and no Save, until `enable_form()`. */
	disable_form() {
		this.form_disabled = true;
		this.disable_save();
	}

	enable_form() {
		this.form_disabled = false;
		this.enable_save();
	}

	/** Move the focus to a field's input (Frappe scrolls to it). */
	scroll_to_field(fieldname) {
		if (typeof document === "undefined") return false;
		const element = document.getElementById(`field-${fieldname}`);
		if (!element) return false;
		element.scrollIntoView({ block: "center" });
		element.focus();
		return true;
	}

	/** Frappe's currency labels: the Desk shows no currency in labels; kept for scripts that call it. */
	set_currency_labels() {}

	disable_save() {
		this.save_disabled = true;
		this.notify();
	}

	enable_save() {
		this.save_disabled = false;
		this.notify();
	}
}
