// A new document of a doctype named by what the user types (autoname `Prompt`, as DocType and Role):
// the form asks for its name above the fields, as Frappe's quick entry does (`__newname`, which
// api.saveDoc sends as the new document's name).
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";

export function promptsName(frm) {
	return frm.is_new() && String(frm.meta.autoname || "").toLowerCase() === "prompt";
}

export function NewName({ frm }) {
	if (!promptsName(frm)) return null;
	return html`<div class="form-field new-name">
		<label for="field-__newname" class="control-label reqd">${__("Name")}</label>
		<input id="field-__newname" class="form-input" type="text" autocomplete="off" required
			value=${frm.doc.__newname || ""} onInput=${(e) => {
				frm.doc.__newname = e.target.value;
				frm.dirty();
			}} />
	</div>`;
}
