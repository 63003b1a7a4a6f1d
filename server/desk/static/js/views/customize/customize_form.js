// /app/customize-form (business.md §7, Frappe's Customize Form): choose a doctype, change its fields'
// properties (label, mandatory, hidden, read only, list view, standard filter; under "More
// properties": bold, allow on submit, print hide, perm level, options, default, description) and
// their order (Move up / Move down), add a Custom Field; "Update" saves the changes as Property
// Setters through fw.desk.customize_form.save, "Reset to defaults" deletes them. Ticking Mandatory
// says how many stored documents have no value in the field (they stay as they are; the form asks
// for it at their next save). The doctype chosen stays in the URL (`?doc_type=`).
import { call } from "../../api.js";
import { boot } from "../../boot.js";
import { __ } from "../../i18n.js";
import { html, useEffect, useState } from "../../lib/html.js";
import { clearMetaCache } from "../../meta.js";
import { replaceSearch } from "../../router.js";
import { confirmDialog } from "../../ui/confirm.js";
import { showToast } from "../../ui/layers.js";
import { showError } from "../../ui/messages.js";
import { Page } from "../../ui/page.js";
import { changedOrder, changedProperties, fieldnameOf, IN_ROW, moveField, PROPERTIES } from "./changes.js";

const METHOD = "fw.desk.customize_form";
const NEW_FIELD_TYPES = ["Data", "Select", "Link", "Check", "Int", "Float", "Currency", "Date", "Datetime",
	"Small Text", "Text", "Section Break", "Column Break"];

function copyFields(fields) {
	return fields.map((f) => ({ ...f }));
}

export default function CustomizeForm({ route }) {
	const [doctype, setDoctype] = useState(route.doctype || "");
	const doctypes = Object.keys(boot.doctypes || {}).sort();
	function choose(value) {
		setDoctype(value);
		replaceSearch(value ? `?doc_type=${encodeURIComponent(value)}` : "");
	}
	return html`<${Page} title=${__("Customize Form")} className="customize-form">
		<p>
			<label for="customize-doctype">${__("DocType")}</label>
			<select id="customize-doctype" value=${doctype} onChange=${(e) => choose(e.target.value)}>
				<option value="">${__("Choose a DocType…")}</option>
				${doctypes.map((name) => html`<option key=${name} value=${name}>${__(name)}</option>`)}
			</select>
		</p>
		${doctype ? html`<${Editor} key=${doctype} doctype=${doctype} />` : null}
	</${Page}>`;
}

function Editor({ doctype }) {
	const [state, setState] = useState({ original: null, fields: null, error: null, busy: false });
	const [missing, setMissing] = useState({});

	async function load() {
		try {
			const body = await call(`${METHOD}.fetch`, { doctype }, { httpMethod: "GET" });
			const view = body.message;
			setState({ original: view.fields, fields: copyFields(view.fields), error: null, busy: false });
		} catch (error) {
			setState({ original: null, fields: null, error, busy: false });
		}
	}
	useEffect(() => {
		load();
	}, [doctype]);

	if (state.error) return html`<p class="page-message" role="alert">${state.error.message}</p>`;
	if (!state.fields) return html`<p class="page-loading" role="status">${__("Loading…")}</p>`;
	const { original, fields } = state;
	const setFields = (next) => setState((s) => ({ ...s, fields: next }));

	function change(index, prop, value) {
		const next = fields.slice();
		next[index] = { ...next[index], [prop]: value };
		setFields(next);
		if (prop === "reqd") countMissing(next[index].fieldname, value);
	}

	async function countMissing(fieldname, mandatory) {
		const was = original.find((f) => f.fieldname === fieldname);
		if (!mandatory || (was && was.reqd)) {
			setMissing((m) => ({ ...m, [fieldname]: undefined }));
			return;
		}
		try {
			const body = await call(`${METHOD}.missing_values`, { doctype, fieldname }, { httpMethod: "GET" });
			setMissing((m) => ({ ...m, [fieldname]: body.message }));
		} catch (error) {
			showError(error);
		}
	}

	const changes = changedProperties(original, fields);
	const order = changedOrder(original, fields);
	const dirty = Boolean(Object.keys(changes).length || order);

	async function update() {
		setState((s) => ({ ...s, busy: true }));
		try {
			const body = await call(`${METHOD}.save`, { doctype, fields: changes, ...(order ? { field_order: order } : {}) });
			const view = body.message;
			clearMetaCache();
			setState({ original: view.fields, fields: copyFields(view.fields), error: null, busy: false });
			setMissing({});
			const lacking = Object.entries(view.missing || {}).filter(([, n]) => n > 0);
			showToast(__("{0} updated", [__(doctype)]), { indicator: "green" });
			for (const [fieldname, n] of lacking) {
				showToast(__("{0} stored documents have no {1}: they are asked for it when next saved", [n, fieldname]),
					{ indicator: "orange" });
			}
		} catch (error) {
			setState((s) => ({ ...s, busy: false }));
			showError(error);
		}
	}

	async function reset() {
		if (!(await confirmDialog(__("Remove every customization of {0}? Its fields are as its JSON defines them again.", [__(doctype)])))) return;
		try {
			await call("fw.custom.doctype.customize_form.customize_form.reset_customization", { doctype });
			clearMetaCache();
			setMissing({});
			await load();
			showToast(__("Customizations of {0} were reset", [__(doctype)]), { indicator: "green" });
		} catch (error) {
			showError(error);
		}
	}

	return html`
		<div class="customize-actions">
			<button type="button" class="btn btn-primary" disabled=${!dirty || state.busy} onClick=${update}>${__("Update")}</button>
			<button type="button" class="btn btn-default" disabled=${state.busy} onClick=${reset}>${__("Reset to defaults")}</button>
		</div>
		<table class="customize-fields" aria-label=${__("Fields")}>
			<thead>
				<tr>
					<th scope="col">${__("Field")}</th>
					<th scope="col">${__("Type")}</th>
					${PROPERTIES.filter(([p]) => IN_ROW.has(p)).map(([p, label]) => html`<th scope="col" key=${p}>${__(label)}</th>`)}
					<th scope="col">${__("Order")}</th>
				</tr>
			</thead>
			<tbody>
				${fields.map((field, index) => html`<${FieldRow} key=${field.fieldname} field=${field} index=${index}
					last=${index === fields.length - 1} missing=${missing[field.fieldname]}
					onChange=${change} onMove=${(step) => setFields(moveField(fields, index, step))} />`)}
			</tbody>
		</table>
		<${AddCustomField} doctype=${doctype} after=${fields.length ? fields[fields.length - 1].fieldname : null} onAdded=${load} />`;
}

function PropertyInput({ field, index, prop, label, kind, onChange }) {
	const name = __("{0} of {1}", [__(label), field.fieldname]);
	const value = field[prop];
	if (kind === "check") {
		return html`<input type="checkbox" aria-label=${name} checked=${Boolean(Number(value))}
			onChange=${(e) => onChange(index, prop, e.target.checked ? 1 : 0)} />`;
	}
	if (kind === "int") {
		return html`<input type="number" min="0" max="9" aria-label=${name} value=${value ?? 0}
			onInput=${(e) => onChange(index, prop, e.target.value === "" ? 0 : Number(e.target.value))} />`;
	}
	if (kind === "textarea") {
		return html`<textarea aria-label=${name} rows="2" value=${value ?? ""} onInput=${(e) => onChange(index, prop, e.target.value)}></textarea>`;
	}
	return html`<input type="text" aria-label=${name} value=${value ?? ""} onInput=${(e) => onChange(index, prop, e.target.value)} />`;
}

function FieldRow({ field, index, last, missing, onChange, onMove }) {
	const inRow = PROPERTIES.filter(([p]) => IN_ROW.has(p));
	const more = PROPERTIES.filter(([p]) => !IN_ROW.has(p));
	return html`<tr>
		<th scope="row">
			${field.fieldname}
			${field.is_custom_field ? html` <span class="muted">${__("Custom Field")}</span>` : null}
			<details>
				<summary>${__("More properties of {0}", [field.fieldname])}</summary>
				${more.map(([prop, label, kind]) => html`<label class="customize-more" key=${prop}>
					<span>${__(label)}</span>
					<${PropertyInput} field=${field} index=${index} prop=${prop} label=${label} kind=${kind} onChange=${onChange} />
				</label>`)}
			</details>
		</th>
		<td>${__(field.fieldtype)}</td>
		${inRow.map(([prop, label, kind]) => html`<td key=${prop}>
			<${PropertyInput} field=${field} index=${index} prop=${prop} label=${label} kind=${kind} onChange=${onChange} />
			${prop === "reqd" && missing > 0
				? html`<span class="customize-missing" role="status">${__("{0} stored documents have no value", [missing])}</span>`
				: null}
		</td>`)}
		<td>
			<button type="button" class="btn btn-default btn-xs" disabled=${index === 0} onClick=${() => onMove(-1)}
				aria-label=${__("Move {0} up", [field.fieldname])}>↑</button>
			<button type="button" class="btn btn-default btn-xs" disabled=${last} onClick=${() => onMove(1)}
				aria-label=${__("Move {0} down", [field.fieldname])}>↓</button>
		</td>
	</tr>`;
}

function AddCustomField({ doctype, after, onAdded }) {
	const [draft, setDraft] = useState({ label: "", fieldtype: "Data", options: "" });
	const set = (key) => (e) => setDraft((d) => ({ ...d, [key]: e.target.value }));
	async function add(event) {
		event.preventDefault();
		try {
			await call("frappe.client.insert", { doc: {
				doctype: "Custom Field", dt: doctype, label: draft.label, fieldname: fieldnameOf(draft.label),
				fieldtype: draft.fieldtype, options: draft.options || null, insert_after: after } });
			clearMetaCache();
			setDraft({ label: "", fieldtype: "Data", options: "" });
			showToast(__("Custom Field {0} added", [draft.label]), { indicator: "green" });
			await onAdded();
		} catch (error) {
			showError(error);
		}
	}
	return html`<form class="customize-add" aria-label=${__("Add Custom Field")} onSubmit=${add}>
		<h2>${__("Add Custom Field")}</h2>
		<label>${__("New field label")} <input type="text" required value=${draft.label} onInput=${set("label")} /></label>
		<label>${__("New field type")}
			<select value=${draft.fieldtype} onChange=${set("fieldtype")}>
				${NEW_FIELD_TYPES.map((t) => html`<option key=${t} value=${t}>${__(t)}</option>`)}
			</select>
		</label>
		<label>${__("New field options")} <input type="text" value=${draft.options} onInput=${set("options")} /></label>
		<button type="submit" class="btn btn-default" disabled=${!draft.label.trim()}>${__("Add Custom Field")}</button>
	</form>`;
}
