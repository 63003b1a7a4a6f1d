// The `frm` object (Frappe's `frappe.ui.form.Form`): the state of one open form, which the form view
// (views/form/) renders and the doctype's form scripts drive. It holds the document, whether it
// changed since it was loaded or saved, the errors shown at fields, what scripts added (custom
// buttons, the indicator, dashboard indicators, the intro, field property overrides, link queries),
// and fires the script events (`trigger`). Every change calls `notify()`, which re-renders the view.
//
// Implemented here: doc, doctype, docname, meta, fields_dict, perm, is_new, is_dirty, dirty,
// set_value (promise; fires the field's change event), get_field, get_docfield, trigger, refresh,
// refresh_field, refresh_fields, save, reload_doc, call, add_custom_button, remove_custom_button,
// clear_custom_buttons, change_custom_button_type, set_intro, page.set_indicator/clear_indicator,
// set_indicator (fw's alias), dashboard.add_indicator/clear_headline/set_headline, toggle_display,
// toggle_reqd, toggle_enable, set_df_property, set_query, disable_save, enable_save.
// The form-scripts helper extends this class (savesubmit, savecancel, add_child, clear_table, ...).
import { call as apiCall, request } from "../api.js";
import { boot, hasRight } from "../boot.js";
import { Emitter } from "../lib/emitter.js";
import { getField } from "../meta.js";
import { STANDARD_FIELDS, hasValue, isEmpty, storeDoc } from "../model.js";
import { runHandlers } from "./form_events.js";

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
		this.page = {
			set_indicator: (label, color) => this.set_indicator(label, color),
			clear_indicator: () => {
				this.indicator = null;
				this.notify();
			},
		};
		this.load(doc, docinfo);
	}

	/** Take a document (loaded, saved or reloaded) as the form's. */
	load(doc, docinfo) {
		this.doc = storeDoc(doc);
		this.docname = doc.name;
		if (docinfo) this.docinfo = docinfo;
		this.perm = permFor(this.doctype, this.docinfo);
		this._dirty = Boolean(doc.__unsaved);
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
		if (!this._dirty) {
			this._dirty = true;
			this.doc.__unsaved = 1;
		}
		this.notify();
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
		if (!df || df.read_only || this.saving) return false;
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

	// -- what scripts add to the page ------------------------------------------------------------

	/** A button in the form's toolbar (in a menu named `group`); cleared on every refresh. */
	add_custom_button(label, handler, group) {
		const button = { label: String(label), handler, group: group ? String(group) : null, type: "default" };
		this.remove_custom_button(label, group);
		this.custom_buttons.push(button);
		this.notify();
		return button;
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

	set_df_property(fieldname, property, value) {
		const names = Array.isArray(fieldname) ? fieldname : [fieldname];
		for (const name of names) this.df_overrides[name] = { ...(this.df_overrides[name] || {}), [property]: value };
		this.refresh_fields();
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

	/** The search arguments of a Link field ({filters, query}) from `set_query`, or {}. */
	link_query(fieldname, cdt, cdn) {
		const entry = this.queries[fieldname];
		if (!entry) return {};
		const value = typeof entry === "function" ? entry(this.doc, cdt || this.doctype, cdn || this.docname) : entry;
		return value && typeof value === "object" ? value : {};
	}

	disable_save() {
		this.save_disabled = true;
		this.notify();
	}

	enable_save() {
		this.save_disabled = false;
		this.notify();
	}
}
