// The document actions of a form (desk.md §4) as operations: Submit and Cancel (each asks first and
// runs the scripts' before_/on_/after_ events), Amend (a new draft copying a cancelled document,
// `amended_from` set: the server names it <name>-1), Delete (asks first), Reload, Duplicate, New,
// and a workflow action (before_/after_workflow_action). Each talks to the server through the public
// API; the server judges every request again. A failure keeps the form as it is and shows why.
import { call, deleteDoc, wireDoc } from "../../api.js";
import { slug } from "../../boot.js";
import { __ } from "../../i18n.js";
import { newDoc, NO_VALUE_TYPES, rowName, STANDARD_FIELDS } from "../../model.js";
import { cachedMeta } from "../../meta.js";
import { formUrl, listUrl, newFormUrl } from "../../routes.js";
import { navigate } from "../../router.js";
import { confirmDialog } from "../../ui/confirm.js";
import { showToast } from "../../ui/layers.js";
import { showError } from "../../ui/messages.js";
import { checkMandatory, flushTyping, runScripts, showSaveError } from "./save.js";
import { applyWorkflow } from "./workflow.js";
import { putDraft } from "./drafts.js";

/** What the view passes the actions: `refresh(frm)` after the document changed. */
async function after(frm, events, refresh) {
	try {
		for (const event of events) await frm.trigger(event);
	} catch (error) {
		console.error(error);
	}
	await refresh(frm);
}

/** Run `work` with the form marked busy (controls read-only, buttons disabled). */
async function busy(frm, work) {
	frm.saving = true;
	frm.notify();
	try {
		return await work();
	} finally {
		frm.saving = false;
		frm.notify();
	}
}

/** Submit (Frappe's savesubmit): confirm, check, run validate and before_submit, submit what the
 * form holds (a changed draft is saved and submitted at once), then on_submit and refresh. */
export async function submitDoc(frm, { refresh, ask = true }) {
	if (frm.saving) return false;
	await flushTyping(frm);
	if (ask && !(await confirmDialog(__("Permanently Submit {0}?", [frm.docname]), { title: __("Submit") }))) return false;
	if (!checkMandatory(frm)) return false;
	if (!(await runScripts(frm, ["validate", "before_submit"]))) return false;
	try {
		const body = await busy(frm, () => call("fw.client.submit", { doc: wireDoc(frm.doc) }));
		frm.load({ ...body.message });
	} catch (error) {
		showSaveError(frm, error);
		return false;
	}
	showToast(__("Submitted"), { indicator: "green" });
	await after(frm, ["on_submit"], refresh);
	return true;
}

/** Cancel (Frappe's savecancel): confirm, before_cancel, cancel, then after_cancel and refresh. */
export async function cancelDoc(frm, { refresh, ask = true }) {
	if (frm.saving) return false;
	if (ask && !(await confirmDialog(__("Permanently Cancel {0}?", [frm.docname]), { title: __("Cancel") }))) return false;
	if (!(await runScripts(frm, ["before_cancel"]))) return false;
	try {
		const body = await busy(frm, () => call("fw.client.cancel", { doctype: frm.doctype, name: frm.docname }));
		frm.load({ ...body.message });
	} catch (error) {
		showSaveError(frm, error);
		return false;
	}
	showToast(__("Cancelled"), { indicator: "red" });
	await after(frm, ["after_cancel"], refresh);
	return true;
}

/** A copy of `doc` as a new document: no_copy fields, the standard fields and names left out
 * (Frappe's `frappe.model.copy_doc`); child rows copied likewise. */
export function copyDoc(meta, doc, { user, values = {} } = {}) {
	const fresh = newDoc(meta, { user });
	for (const df of meta.fields || []) {
		if (!df.fieldname || NO_VALUE_TYPES.has(df.fieldtype) || df.no_copy || STANDARD_FIELDS.includes(df.fieldname)) continue;
		const value = doc[df.fieldname];
		if (value === undefined) continue;
		if (Array.isArray(value)) {
			const child = cachedMeta(df.options);
			fresh[df.fieldname] = value.map((row, index) => {
				const copy = { doctype: row.doctype || df.options, idx: index + 1, __islocal: 1, name: rowName(), parentfield: df.fieldname };
				for (const cdf of (child && child.fields) || []) {
					if (cdf.fieldname && !cdf.no_copy && !NO_VALUE_TYPES.has(cdf.fieldtype) && row[cdf.fieldname] !== undefined) {
						copy[cdf.fieldname] = row[cdf.fieldname];
					}
				}
				return copy;
			});
		} else {
			fresh[df.fieldname] = value;
		}
	}
	return Object.assign(fresh, values);
}

/** Amend a cancelled document: a new draft with `amended_from`, opened as a new form. */
export async function amendDoc(frm, { user }) {
	const draft = copyDoc(frm.meta, frm.doc, { user, values: { amended_from: frm.docname, docstatus: 0 } });
	putDraft(draft);
	await navigate(newFormUrl(frm.doctype, slug));
}

/** Duplicate: a new document copying this one, opened as a new form. */
export async function duplicateDoc(frm, { user }) {
	const draft = copyDoc(frm.meta, frm.doc, { user });
	delete draft.amended_from;
	putDraft(draft);
	await navigate(newFormUrl(frm.doctype, slug));
}

/** Delete (asks first); then the list. */
export async function deleteForm(frm) {
	if (!(await confirmDialog(__("Permanently delete {0}?", [frm.docname]), { title: __("Delete") }))) return false;
	try {
		await busy(frm, () => deleteDoc(frm.doctype, frm.docname));
	} catch (error) {
		showError(error);
		return false;
	}
	frm._dirty = frm._edited = false; // gone: nothing to keep
	showToast(__("Deleted"), { indicator: "green" });
	await navigate(listUrl(frm.doctype, [], slug), { force: true });
	return true;
}

/** Reload the stored document (asks first when the form has unsaved changes). */
export async function reloadForm(frm) {
	if (frm.is_dirty() && !(await confirmDialog(__("Discard your unsaved changes and reload?"), { title: __("Reload") }))) return false;
	try {
		await frm.reload_doc();
	} catch (error) {
		showError(error);
		return false;
	}
	return true;
}

/** Take a workflow action (before_workflow_action may stop it), then after_workflow_action. */
export async function workflowAction(frm, action, { refresh }) {
	if (frm.saving) return false;
	frm.selected_workflow_action = action;
	try {
		if (!(await runScripts(frm, ["before_workflow_action"]))) return false;
		try {
			const saved = await busy(frm, () => applyWorkflow(frm.doc, action));
			frm.load({ ...saved });
		} catch (error) {
			showSaveError(frm, error);
			return false;
		}
		await refresh(frm);
		await after(frm, ["after_workflow_action"], async () => {});
		return true;
	} finally {
		frm.selected_workflow_action = null;
	}
}

/** Open a new form of the doctype. */
export function newForm(frm) {
	return navigate(newFormUrl(frm.doctype, slug));
}

/** The URL of the form after an action renamed it (a saved amendment). */
export function urlOf(frm) {
	return formUrl(frm.doctype, frm.docname, slug);
}
