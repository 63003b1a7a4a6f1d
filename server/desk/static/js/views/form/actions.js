// The document actions of a form's toolbar. Each is {label, onClick, primary}; the form view shows
// them after the scripts' custom buttons. Save is here; Submit, Cancel, Amend, Delete, Reload and the
// workflow's Actions menu are added to `documentActions` as they are built.
import { __ } from "../../i18n.js";

/** Whether the form has anything Save could store now. */
export function canSave(frm) {
	if (frm.save_disabled || frm.meta.istable) return false;
	const docstatus = Number(frm.doc.docstatus || 0);
	if (docstatus === 0) return frm.can_edit();
	// a submitted document: only its allow_on_submit fields, once one changed ("Update")
	return docstatus === 1 && frm.is_dirty() && frm.can_edit() && (frm.meta.fields || []).some((df) => df.allow_on_submit);
}

export function documentActions(frm, { save }) {
	const actions = [];
	if (canSave(frm)) {
		const label = Number(frm.doc.docstatus || 0) === 1 ? __("Update") : __("Save");
		actions.push({ label, primary: true, onClick: save, disabled: frm.saving, shortcut: "Ctrl+S" });
	}
	return actions;
}
