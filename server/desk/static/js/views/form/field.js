// One field of a form: its control (controls/registry.js) with the value, whether it can be edited
// now, and its error. Typing updates the document; a committed change fires the field's event.
import { controlFor } from "../../controls/index.js";
import { html } from "../../lib/html.js";

export function Field({ frm, fieldname }) {
	const df = frm.get_docfield(fieldname);
	if (!df || !frm.is_field_visible(df)) return null;
	const Control = controlFor(df.fieldtype);
	if (!Control) return null;
	const id = `field-${fieldname}`;
	return html`<${Control}
		frm=${frm}
		df=${df}
		id=${id}
		value=${frm.doc[fieldname]}
		readOnly=${!frm.is_field_editable(df)}
		error=${frm.errors[fieldname] || null}
		onInput=${(value) => {
			frm.update_value(fieldname, value);
			frm.mark_untriggered(fieldname);
		}}
		onChange=${(value) => frm.set_value(fieldname, value)}
	/>`;
}
