// The form view builds its `frm` here. The frappe adapter (frappe/index.js) installs its subclass,
// which adds what only form scripts call (frm.page, frm.call, savesubmit, ...): the view works on
// the Desk's own model and never imports the adapter.
import { Form } from "./form.js";

let FormClass = Form;

/** The class `createForm` builds: a subclass of the model's Form. */
export function setFormClass(cls) {
	FormClass = cls;
}

/** A form of `meta` showing `doc` (options: {docinfo, onSave, onReload}, see form.js). */
export function createForm(meta, doc, options) {
	return new FormClass(meta, doc, options);
}
