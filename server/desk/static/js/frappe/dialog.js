// `frappe.ui.Dialog` and `frappe.prompt`: a dialog of fields drawn with the form's own controls
// (controls/registry.js), opened through ui/layers.js (role="dialog", Escape closes it, Tab stays
// inside). Enter in a one-line field or Ctrl+Enter runs the primary action; `get_values()` checks the
// mandatory fields first (each missing one marked at its field) and answers null while one is empty.
// A field's `onchange`/`change` runs when its value is committed; a Link field's `get_query` gives
// its search filters, as in a form; `depends_on`, `mandatory_depends_on` and `read_only_depends_on`
// (a field name, an `eval:` expression read by the form's eval-free parser, or a function of the
// values) are judged again whenever a value is committed.
import { __ } from "../i18n.js";
import { html } from "../lib/html.js";
import { defaultValue, hasValue, isEmpty } from "../model.js";
import { closeDialog, openDialog, showToast } from "../ui/layers.js";
import { labelOf } from "../controls/base.js";
import { ruleHolds } from "../views/form/depends.js";

let counter = 0;
let controls = null; // controls/index.js, loaded when the first dialog opens (not at start-up)

function loadControls() {
	if (!controls) controls = import("../controls/index.js");
	return controls;
}

const LAYOUT_TYPES = new Set(["Section Break", "Column Break", "Tab Break", "HTML", "Heading", "Button", "Fold"]);

function normaliseFields(fields) {
	return (fields || []).filter(Boolean).map((df, index) => ({
		...df,
		fieldname: df.fieldname || (LAYOUT_TYPES.has(df.fieldtype) ? `__layout_${index}` : String(df.label || `field_${index}`).toLowerCase().replace(/\W+/g, "_")),
		fieldtype: df.fieldtype || "Data",
	}));
}

export class Dialog {
	/**
	 * @param {object} opts {title, fields: [df], primary_action_label, primary_action(values),
	 *   secondary_action_label, secondary_action(), size: "small" | "large", indicator, static, onhide}
	 */
	constructor(opts = {}) {
		this.id = ++counter;
		this.opts = opts;
		this.title = opts.title || "";
		this.fields = normaliseFields(opts.fields);
		this.values = {};
		this.errors = {};
		this.overrides = {};
		this._committed = {};
		this.primary_action_label = opts.primary_action_label || __("Submit");
		this.primary_action = opts.primary_action || null;
		this.secondary_action_label = opts.secondary_action_label || null;
		this.secondary_action = opts.secondary_action || null;
		this.primary_disabled = false;
		this.onhide = opts.onhide || opts.on_hide || null;
		this.display = false;
		this._handle = null;
		for (const df of this.fields) {
			if (!hasValue(df)) continue;
			const value = df.default !== undefined ? defaultValue(df, {}) : df.fieldtype === "Check" ? 0 : null;
			if (value !== null && value !== undefined) this.values[df.fieldname] = value;
		}
		Object.assign(this._committed, this.values);
		this.fields_dict = {};
		for (const df of this.fields) {
			this.fields_dict[df.fieldname] = {
				df,
				get_value: () => this.get_value(df.fieldname),
				set_value: (value) => this.set_value(df.fieldname, value),
				refresh: () => this._render(),
			};
		}
		// what a Link control asks of its form: the document (here the values) and the search query
		this._frm = {
			doc: this.values,
			link_query: (fieldname) => {
				const df = this.get_docfield(fieldname);
				const query = df && (df.get_query || df.query);
				const value = typeof query === "function" ? query(this.values) : query;
				return value && typeof value === "object" ? value : {};
			},
		};
	}

	get_docfield(fieldname) {
		const df = this.fields.find((f) => f.fieldname === fieldname);
		return df ? { ...df, ...(this.overrides[fieldname] || {}) } : null;
	}

	get_field(fieldname) {
		return this.fields_dict[fieldname] || null;
	}

	_holds(rule, fallback) {
		if (typeof rule === "function") {
			try {
				return Boolean(rule(this.values));
			} catch (error) {
				console.error(error);
				return fallback;
			}
		}
		return ruleHolds(rule, { doc: this.values }, fallback);
	}

	/** {visible, reqd, readOnly} of a field now (its properties, then its rules on the values). */
	_state(df) {
		return {
			visible: !df.hidden && this._holds(df.depends_on, true),
			reqd: Boolean(df.reqd) || this._holds(df.mandatory_depends_on, false),
			readOnly: Boolean(df.read_only) || this._holds(df.read_only_depends_on, false),
		};
	}

	async show() {
		const { controlFor } = await loadControls();
		this._controlFor = controlFor;
		if (this._handle) return this;
		this.display = true;
		this._handle = openDialog({
			title: this.title,
			size: this.opts.size === "large" || this.opts.size === "extra-large" ? "large" : this.opts.size === "small" ? "small" : "",
			indicator: this.opts.indicator,
			dismissible: !this.opts.static,
			body: () => this._body(),
			actions: this._actions(),
			onClose: () => {
				this._handle = null;
				this.display = false;
				if (typeof this.onhide === "function") this.onhide();
			},
		});
		return this;
	}

	hide() {
		if (this._handle) closeDialog(this._handle.id, "hide");
	}

	_actions() {
		const actions = [];
		if (this.secondary_action_label || this.secondary_action) {
			actions.push({
				label: this.secondary_action_label || __("Close"),
				onClick: () => (this.secondary_action ? this.secondary_action() : this.hide()),
			});
		}
		if (this.primary_action) actions.push({ label: this.primary_action_label, primary: true, disabled: this.primary_disabled, onClick: () => this._primary() });
		return actions;
	}

	_render() {
		if (this._handle) this._handle.update({ title: this.title, actions: this._actions() });
	}

	async _primary() {
		if (!this.primary_action || this.primary_disabled) return;
		const values = this.get_values();
		if (!values) return;
		try {
			await this.primary_action.call(this, values);
		} catch (error) {
			console.error(error);
			showToast(error && error.message ? error.message : String(error), { indicator: "red" });
		}
	}

	_onKeyDown(event) {
		if (event.key !== "Enter" || event.defaultPrevented) return;
		const target = event.target;
		const oneLine = target && target.tagName === "INPUT" && target.getAttribute("aria-expanded") !== "true";
		if (event.ctrlKey || event.metaKey || oneLine) {
			event.preventDefault();
			if (target && target.tagName === "INPUT" && typeof target.dispatchEvent === "function") {
				// commit what was typed (its change event) before reading the values
				target.dispatchEvent(new Event("change", { bubbles: true }));
			}
			setTimeout(() => this._primary(), 0);
		}
	}

	_body() {
		const controlFor = this._controlFor;
		return html`<div class="dialog-fields" onKeyDown=${(event) => this._onKeyDown(event)}>
			${this.fields.map((base) => {
				const df = this.get_docfield(base.fieldname);
				const state = this._state(df);
				if (!state.visible) return null;
				if (df.fieldtype === "Section Break") return df.label ? html`<h3 class="dialog-section">${__(df.label)}</h3>` : html`<hr class="dialog-section" />`;
				if (df.fieldtype === "Heading") return html`<h3 class="dialog-section">${__(df.label || "")}</h3>`;
				if (df.fieldtype === "HTML") return df.options ? html`<p class="dialog-text">${String(df.options)}</p>` : null; // as text
				if (LAYOUT_TYPES.has(df.fieldtype)) return null;
				const Control = controlFor(df.fieldtype) || controlFor("Data");
				return html`<${Control}
					key=${df.fieldname}
					frm=${this._frm}
					df=${state.reqd && !df.reqd ? { ...df, reqd: 1 } : df}
					id=${`dialog-${this.id}-${df.fieldname}`}
					value=${this.values[df.fieldname]}
					readOnly=${state.readOnly}
					error=${this.errors[df.fieldname] || null}
					onInput=${(value) => this._store(df.fieldname, value)}
					onChange=${(value) => this.set_value(df.fieldname, value)}
				/>`;
			})}
		</div>`;
	}

	_store(fieldname, value) {
		this.values[fieldname] = value;
		delete this.errors[fieldname];
	}

	get_value(fieldname) {
		return this.values[fieldname];
	}

	/** Set a value (the field's `onchange` runs when it changed); resolves when it ran. */
	async set_value(fieldname, value) {
		// typing stores values without events (onInput); the event fires when a value is committed
		const changed = this._committed[fieldname] !== value;
		this._store(fieldname, value);
		this._committed[fieldname] = value;
		this._render();
		const df = this.get_docfield(fieldname);
		const handler = df && (df.onchange || df.change);
		if (changed && typeof handler === "function") await handler.call(this.fields_dict[fieldname], value);
	}

	async set_values(values) {
		for (const [fieldname, value] of Object.entries(values || {})) await this.set_value(fieldname, value);
	}

	/** The values, or null (with each missing mandatory field marked) while one is empty; with
	 * `ignoreErrors`, the values as they are. */
	get_values(ignoreErrors = false) {
		const values = {};
		const missing = [];
		for (const base of this.fields) {
			if (!hasValue(base) && base.fieldtype !== "Table") continue;
			const df = this.get_docfield(base.fieldname);
			const value = this.values[df.fieldname];
			const state = this._state(df);
			if (state.reqd && state.visible && isEmpty(value, df)) missing.push(df);
			if (value !== undefined && value !== null && value !== "") values[df.fieldname] = value;
		}
		if (missing.length && !ignoreErrors) {
			for (const df of missing) this.errors[df.fieldname] = __("{0} is mandatory", [labelOf(df)]);
			this._render();
			showToast(__("Missing fields: {0}", [missing.map((df) => labelOf(df)).join(", ")]), { indicator: "red", alert: true });
			return null;
		}
		return values;
	}

	set_df_property(fieldname, property, value) {
		this.overrides[fieldname] = { ...(this.overrides[fieldname] || {}), [property]: value };
		this._render();
	}

	set_title(title) {
		this.title = String(title ?? "");
		this._render();
	}

	set_primary_action(label, action) {
		this.primary_action_label = label;
		this.primary_action = action;
		this._render();
	}

	set_secondary_action(action) {
		this.secondary_action = action;
		this._render();
	}

	set_secondary_action_label(label) {
		this.secondary_action_label = label;
		this._render();
	}

	disable_primary_action() {
		this.primary_disabled = true;
		this._render();
	}

	enable_primary_action() {
		this.primary_disabled = false;
		this._render();
	}

	/** Empty every field. */
	clear() {
		for (const key of Object.keys(this.values)) delete this.values[key];
		this.errors = {};
		this._render();
	}
}

/**
 * Frappe's `frappe.prompt(fields, callback, title, primary_label)`: `fields` is a label (one
 * mandatory Data field named "value"), one field or a list of them. `callback(values)` runs when the
 * user confirms, and the dialog closes.
 */
export function prompt(fields, callback, title, primaryLabel) {
	let list;
	if (typeof fields === "string") list = [{ label: fields, fieldname: "value", fieldtype: "Data", reqd: 1 }];
	else if (Array.isArray(fields)) list = fields;
	else list = [fields];
	const dialog = new Dialog({
		title: title || __("Enter Value"),
		fields: list,
		primary_action_label: primaryLabel || __("Submit"),
		primary_action: async (values) => {
			dialog.hide();
			if (typeof callback === "function") await callback(values);
		},
	});
	dialog.show();
	return dialog;
}
