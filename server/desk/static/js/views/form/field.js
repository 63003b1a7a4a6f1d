// One field of a form: its control (controls/registry.js) with the value, whether it is shown,
// mandatory and editable now (field_rules.js: the frm's judgement, depends_on,
// mandatory_depends_on, read_only_depends_on, permlevel), and its error. Typing updates the
// document; a committed change fires the field's event, and a Link's fills its `fetch_from` fields.
import { controlFor } from "../../controls/index.js";
import { html } from "../../lib/html.js";
import { applyFetchFrom } from "./fetch_from.js";
import { fieldState } from "./field_rules.js";

export function Field({ frm, fieldname }) {
	const docfield = frm.get_docfield(fieldname);
	if (!docfield) return null;
	const state = fieldState(frm, docfield);
	if (!state.visible) return null;
	const Control = controlFor(docfield.fieldtype);
	if (!Control) return null;
	const df = state.reqd && !docfield.reqd ? { ...docfield, reqd: 1 } : docfield;
	const id = `field-${fieldname}`;
	return html`<${Control}
		frm=${frm}
		df=${df}
		id=${id}
		value=${frm.doc[fieldname]}
		readOnly=${state.readOnly}
		error=${frm.errors[fieldname] || null}
		onInput=${(value) => {
			frm.update_value(fieldname, value);
			frm.mark_untriggered(fieldname);
		}}
		onChange=${(value) => {
			const done = frm.set_value(fieldname, value);
			if (df.fieldtype === "Link") done.then(() => applyFetchFrom(frm, df, value)).catch((error) => console.error(error));
			return done;
		}}
	/>`;
}
