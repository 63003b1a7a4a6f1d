// Saving a form (desk.md §4): mandatory fields are checked first (each missing one marked at its
// field); the scripts' `validate` and `before_save` run (a throw or `frappe.validated = false`
// stops); then the server saves. A failure keeps the form exactly as typed and shows the server's
// message at the field it names (or in a dialog); a success takes the saved document, runs
// `after_save` and `refresh`, and says so in a toast.
import { saveDoc } from "../../api.js";
import { __ } from "../../i18n.js";
import { isEmpty, hasValue } from "../../model.js";
import { showToast } from "../../ui/layers.js";
import { showError } from "../../ui/messages.js";
import { labelOf } from "../../controls/base.js";

/** The visible mandatory fields without a value: [df]. */
export function missingMandatory(frm) {
	return (frm.meta.fields || [])
		.map((df) => frm.get_docfield(df.fieldname) || df)
		.filter((df) => df.fieldname && df.reqd && (hasValue(df) || df.fieldtype === "Table") && frm.is_field_visible(df))
		.filter((df) => isEmpty(frm.doc[df.fieldname], df));
}

/** Move the focus to the first field showing an error. */
export function focusFirstError(frm) {
	requestAnimationFrame(() => {
		const first = (frm.meta.fields || []).find((df) => frm.errors[df.fieldname]);
		const element = first && document.getElementById(`field-${first.fieldname}`);
		if (element) element.focus();
	});
}

async function runScripts(frm, events) {
	const frappe = window.frappe || {};
	frappe.validated = true;
	try {
		for (const event of events) {
			await frm.trigger(event);
			if (frappe.validated === false) return false;
		}
	} catch (error) {
		console.error(error);
		if (!error || !error.message || !String(error.message).trim()) return false;
		// frappe.throw already showed its message; anything else is shown here
		if (!(error instanceof Error && error.shown)) showError(error);
		return false;
	}
	return true;
}

/** Fire the change event of a value typed but not committed yet (Ctrl+S while typing). */
async function flushTyping(frm) {
	const pending = frm._untriggered;
	if (pending) await frm.set_value(pending, frm.doc[pending]);
}

/**
 * Save the form. `onSaved(frm, wasNew)` runs after a successful save (the view puts the new name in
 * the URL). Resolves to true when the document was saved.
 */
export async function saveForm(frm, { onSaved } = {}) {
	if (frm.saving) return false;
	await flushTyping(frm);
	const missing = missingMandatory(frm);
	if (missing.length) {
		const errors = { ...frm.errors };
		for (const df of missing) errors[df.fieldname] = __("{0} is mandatory", [labelOf(df)]);
		frm.set_errors(errors);
		showToast(__("Missing fields: {0}", [missing.map((df) => labelOf(df)).join(", ")]), { indicator: "red", alert: true });
		focusFirstError(frm);
		return false;
	}
	if (!(await runScripts(frm, ["validate", "before_save"]))) return false;
	const wasNew = frm.is_new();
	frm.saving = true;
	frm.notify();
	let saved;
	try {
		saved = await saveDoc(frm.doc);
	} catch (error) {
		frm.saving = false;
		if (error.type === "SessionExpired") {
			frm.notify();
			return false;
		}
		const known = Object.fromEntries(
			Object.entries(error.fields || {}).filter(([field]) => frm.fields_dict[field] && frm.is_field_visible(frm.get_docfield(field))),
		);
		if (Object.keys(known).length) {
			frm.set_errors({ ...frm.errors, ...known });
			showToast(error.message, { indicator: "red", alert: true });
			focusFirstError(frm);
		} else {
			frm.notify();
			showError(error);
		}
		return false;
	}
	frm.saving = false;
	frm.load({ ...saved });
	if (onSaved) onSaved(frm, wasNew);
	try {
		await frm.trigger("after_save");
		await frm.refresh();
	} catch (error) {
		console.error(error);
	}
	showToast(__("Saved"), { indicator: "green" });
	return true;
}
