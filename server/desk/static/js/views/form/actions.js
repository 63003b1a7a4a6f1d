// Which document actions a form offers now (desk.md §4), from the user's rights on the document
// (`frm.perm`: the server's docinfo permissions, else the boot's rights), its docstatus and the
// doctype's workflow. What a user may not do is not offered; the server refuses it anyway.
//   buttons: Save/Update (Ctrl+S), Submit and Cancel (submittable doctypes without a workflow),
//            Amend (a cancelled document);
//   workflow: the transitions of the `Actions` menu (a saved, unchanged document);
//   menu:     Reload, Duplicate, New <Doctype>, Print (with the print right), Delete.
// Each entry is {key, label, primary, shortcut}; the view binds them to views/form/doc_actions.js.
import { __ } from "../../i18n.js";
import { workflowOf } from "./workflow.js";

/** Whether the form has anything Save could store now. */
export function canSave(frm) {
	if (frm.save_disabled || frm.meta.istable) return false;
	const docstatus = Number(frm.doc.docstatus || 0);
	if (docstatus === 0) return frm.can_edit();
	// a submitted document: only its allow_on_submit fields, once one changed ("Update")
	return docstatus === 1 && frm.is_dirty() && frm.can_edit() && (frm.meta.fields || []).some((df) => df.allow_on_submit);
}

function right(frm, name) {
	return Boolean(frm.perm && frm.perm[0] && Number(frm.perm[0][name]));
}

/** {buttons, workflow, menu} the form offers; `transitions` are the workflow's allowed ones. */
export function offeredActions(frm, { transitions = [], canCreate = false } = {}) {
	const meta = frm.meta;
	const isNew = frm.is_new();
	const dirty = frm.is_dirty();
	const docstatus = Number(frm.doc.docstatus || 0);
	const workflow = workflowOf(meta);
	const submittable = Boolean(meta.is_submittable);
	const buttons = [];
	const submit = submittable && !workflow && !isNew && !dirty && docstatus === 0 && right(frm, "submit") && !frm.save_disabled;
	if (canSave(frm)) {
		buttons.push({ key: "save", label: docstatus === 1 ? __("Update") : __("Save"), primary: !submit, shortcut: "Ctrl+S" });
	}
	if (submit) buttons.push({ key: "submit", label: __("Submit"), primary: true });
	if (submittable && !workflow && docstatus === 1 && right(frm, "cancel")) buttons.push({ key: "cancel", label: __("Cancel") });
	if (submittable && docstatus === 2 && right(frm, "amend")) buttons.push({ key: "amend", label: __("Amend"), primary: true });
	const actions = workflow && !isNew && !dirty ? transitions.map((t) => ({ key: "workflow", action: t.action, label: __(t.action) })) : [];
	const menu = [];
	if (!isNew) menu.push({ key: "reload", label: __("Reload") });
	if (!meta.issingle && canCreate && !isNew) {
		menu.push({ key: "duplicate", label: __("Duplicate") });
		menu.push({ key: "new", label: __("New {0}", [__(frm.doctype)]) });
	}
	if (!isNew && !meta.issingle && right(frm, "print")) menu.push({ key: "print", label: __("Print") });
	if (!isNew && !meta.issingle && docstatus !== 1 && right(frm, "delete")) menu.push({ key: "delete", label: __("Delete") });
	return { buttons, workflow: actions, menu };
}
