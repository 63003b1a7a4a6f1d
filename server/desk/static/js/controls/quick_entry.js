// "Create a new <Doctype>" from a Link (desk.md §4; Frappe's Quick Entry): a dialog with the new
// document's mandatory fields (and its title field), the text typed in the Link put in the first
// of them; Save inserts it (fw.client.insert) and the Link takes its name. A failed insert shows the
// server's message at its field and keeps the dialog as typed.
import { saveDoc } from "../api.js";
import { boot } from "../boot.js";
import { __ } from "../i18n.js";
import { html, useState } from "../lib/html.js";
import { getMeta } from "../meta.js";
import { hasValue, isEmpty, newDoc } from "../model.js";
import { openDialog } from "../ui/layers.js";
import { labelOf } from "./base.js";
import { controlFor } from "./registry.js";

/** The fields a quick entry asks for: mandatory value fields the user can type, and the title field. Pure. */
export function quickEntryFields(meta) {
	return (meta.fields || []).filter(
		(df) =>
			df.fieldname &&
			hasValue(df) &&
			!df.hidden &&
			!df.read_only &&
			(df.reqd || df.fieldname === meta.title_field || (df.bold && df.allow_in_quick_entry) || df.allow_in_quick_entry),
	);
}

/** Whether a doctype names documents from what the user types (autoname `prompt`). */
function promptsName(meta) {
	return String(meta.autoname || "").toLowerCase() === "prompt";
}

function QuickEntryBody({ meta, start, onDone }) {
	const [doc, setDoc] = useState(start);
	const [errors, setErrors] = useState({});
	const [saving, setSaving] = useState(false);
	const fields = quickEntryFields(meta);
	const nameField = promptsName(meta) ? [{ fieldname: "__newname", fieldtype: "Data", label: "Name", reqd: 1 }] : [];
	const all = [...nameField, ...fields];
	const set = (fieldname, value) => {
		setDoc({ ...doc, [fieldname]: value });
		if (errors[fieldname]) setErrors({ ...errors, [fieldname]: null });
	};

	async function save(event) {
		event.preventDefault();
		const missing = all.filter((df) => df.reqd && isEmpty(doc[df.fieldname], df));
		if (missing.length) {
			setErrors(Object.fromEntries(missing.map((df) => [df.fieldname, __("{0} is mandatory", [labelOf(df)])])));
			return;
		}
		setSaving(true);
		try {
			const data = { ...doc };
			if (data.__newname) data.name = data.__newname;
			delete data.__newname;
			const saved = await saveDoc(data);
			onDone(saved.name);
		} catch (error) {
			setSaving(false);
			const known = Object.fromEntries(Object.entries(error.fields || {}).filter(([field]) => all.some((df) => df.fieldname === field)));
			setErrors(Object.keys(known).length ? known : { __form: error.message });
		}
	}

	return html`<form class="quick-entry" novalidate onSubmit=${save}>
		${all.map((df) => {
			const Control = controlFor(df.fieldtype);
			return html`<${Control} key=${df.fieldname} df=${df} id=${`quick-${df.fieldname}`} value=${doc[df.fieldname]}
				readOnly=${saving} error=${errors[df.fieldname] || null} doc=${doc}
				onInput=${(value) => set(df.fieldname, value)} onChange=${(value) => set(df.fieldname, value)} />`;
		})}
		${errors.__form ? html`<p class="control-error" role="alert">${errors.__form}</p>` : null}
		<div class="modal-footer">
			<button type="submit" class="btn btn-primary" disabled=${saving}>${__("Save")}</button>
		</div>
	</form>`;
}

/** Ask for a new `doctype` document; resolves to its name once saved, or null when closed. */
export async function quickEntry(doctype, text = "") {
	const meta = await getMeta(doctype);
	const start = newDoc(meta, { user: boot.user, linkDefaults: boot.user_defaults });
	delete start.__unsaved;
	const first = promptsName(meta) ? "__newname" : (quickEntryFields(meta).find((df) => df.fieldtype === "Data") || {}).fieldname;
	if (first && text) start[first] = text;
	return new Promise((resolve) => {
		let done = false;
		const handle = openDialog({
			title: __("New {0}", [__(doctype)]),
			body: () =>
				html`<${QuickEntryBody} meta=${meta} start=${start} onDone=${(name) => {
					done = true;
					resolve(name);
					handle.close("saved");
				}} />`,
			onClose: () => {
				if (!done) resolve(null);
			},
		});
	});
}
