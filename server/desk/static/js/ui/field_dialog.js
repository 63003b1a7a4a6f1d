// A dialog of a few fields, the Desk's own (the form sidebar's "Share" and "Assign To"; app scripts
// have frappe.ui.Dialog): the controls of `fields`, and a primary button that calls
// `onSubmit(values)`; the dialog closes once it resolves, and a refusal is shown while the values
// stay for another try.
import { controlFor } from "../controls/registry.js";
import { html, useState } from "../lib/html.js";
import { openDialog } from "./layers.js";
import { showError } from "./messages.js";

function FieldForm({ fields, start, submitLabel, onSubmit }) {
	const [values, setValues] = useState(start);
	const [saving, setSaving] = useState(false);
	const set = (field) => (value) => setValues((old) => ({ ...old, [field]: value }));
	async function submit(event) {
		event.preventDefault();
		setSaving(true);
		try {
			await onSubmit(values);
		} catch (error) {
			showError(error);
			setSaving(false);
		}
	}
	return html`<form class="field-dialog" novalidate onSubmit=${submit}>
		${fields.map((df) => {
			const Control = controlFor(df.fieldtype);
			return html`<${Control} key=${df.fieldname} df=${df} id=${`field-dialog-${df.fieldname}`} value=${values[df.fieldname]}
				doc=${values} readOnly=${saving || Boolean(df.read_only)} onInput=${set(df.fieldname)} onChange=${set(df.fieldname)} />`;
		})}
		<div class="modal-footer">
			<button type="submit" class="btn btn-primary" disabled=${saving}>${submitLabel}</button>
		</div>
	</form>`;
}

/** Open the dialog; `fields` are DocField-like ({fieldname, fieldtype, label, options, default, read_only}). */
export function fieldDialog({ title, fields, submitLabel, onSubmit }) {
	const start = Object.fromEntries(fields.filter((df) => df.default !== undefined).map((df) => [df.fieldname, df.default]));
	const handle = openDialog({
		title,
		body: () => html`<${FieldForm} fields=${fields} start=${start} submitLabel=${submitLabel} onSubmit=${async (values) => {
			await onSubmit(values);
			handle.close("saved");
		}} />`,
	});
	return handle;
}
