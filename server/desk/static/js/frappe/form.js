// Frappe's `frm` (`frappe.ui.form.Form`) for form scripts: the Desk's form model (form/form.js) with
// the names only scripts call. frappe/index.js installs it as the class the form view builds
// (form/create.js), so scripts and the view hold the same object. Each method here changes the
// model's state (buttons, menu items, indicator, intro, dashboard, field property overrides, link
// queries, disabled save) and notifies; the view renders what the model holds.
//
// Implemented here: fields_dict (with `refresh` and, for a table, `grid`), get_field, refresh_field,
// refresh_fields, call, add_custom_button, remove_custom_button, clear_custom_buttons,
// change_custom_button_type (add_custom_button answers a chainable handle), set_intro,
// page.set_indicator/clear_indicator/set_primary_action/add_inner_button/add_menu_item,
// set_indicator (fw's alias), dashboard.add_indicator/clear_headline/set_headline, toggle_display,
// toggle_reqd, toggle_enable, set_df_property, set_query, disable_save, enable_save, disable_form,
// enable_form, scroll_to_field, has_perm, get_title; savesubmit and savecancel (confirm, then the
// view's Submit and Cancel, which run their events). The model itself provides doc, doctype,
// docname, meta, perm, is_new, is_dirty, dirty, set_value, get_docfield, trigger, refresh, save,
// reload_doc and the child tables (add_child, clear_table, add_row, remove_row, set_child_value).
import { call as apiCall, request } from "../api.js";
import { TABLE_TYPES } from "../model.js";
import { __ } from "../i18n.js";
import { Form } from "../form/form.js";
import { confirmDialog } from "../ui/confirm.js";

/** `frm.dashboard`: the model's dashboard state with Frappe's setters. */
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
}

export class FrappeForm extends Form {
	constructor(meta, doc, options) {
		super(meta, doc, options);
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
	}

	/** The model's fields by name, with what Frappe scripts reach through them: `refresh()` and,
	 * for a table, `grid` (`frm.fields_dict.items.grid`). */
	_fieldsDict() {
		const out = super._fieldsDict();
		for (const [fieldname, field] of Object.entries(out)) {
			field.refresh = () => this.refresh_field(fieldname);
			if (field.df && TABLE_TYPES.has(field.df.fieldtype)) {
				field.grid = {
					get_field: (name) => this._gridField(fieldname, name),
					get_docfield: (name) => this.get_child_docfield(fieldname, name),
					update_docfield_property: (name, property, value) => this.set_df_property(name, property, value, "*", fieldname),
					add_new_row: () => this.add_row(fieldname),
					refresh: () => this.notify(),
				};
			}
		}
		return out;
	}

	get_field(fieldname) {
		return this.fields_dict[fieldname] || null;
	}

	refresh_field(fieldname) {
		if (this.fields_dict[fieldname]) this.fields_dict[fieldname].df = this.get_docfield(fieldname);
		this.notify();
	}

	refresh_fields() {
		this.fields_dict = this._fieldsDict();
		this.notify();
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
