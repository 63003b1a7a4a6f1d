// Saving a form (desk.md §4): mandatory fields are checked first (each missing one marked at its
// field); the scripts' `validate` and `before_save` run (a throw or `frappe.validated = false`
// stops); then the server saves. A failure keeps the form exactly as typed and shows the server's
// message at the field it names (or in a dialog); a success takes the saved document, runs
// `after_save` and `refresh`, and says so in a toast.
import { saveDoc } from "../../api.js";
import { isValidated, setValidated } from "../../form/validation.js";
import { __ } from "../../i18n.js";
import { isEmpty, hasValue } from "../../model.js";
import { showToast } from "../../ui/layers.js";
import { showError, showMessage } from "../../ui/messages.js";
import { labelOf } from "../../controls/base.js";
import { cachedMeta } from "../../meta.js";
import { fieldState, rowFieldState } from "./field_rules.js";

/** The visible mandatory fields without a value (`reqd` or `mandatory_depends_on`): [df]. */
export function missingMandatory(frm) {
	return (frm.meta.fields || [])
		.map((df) => frm.get_docfield(df.fieldname) || df)
		.filter((df) => df.fieldname && (hasValue(df) || df.fieldtype === "Table" || df.fieldtype === "Table MultiSelect"))
		.filter((df) => {
			const state = fieldState(frm, df);
			return state.visible && state.reqd && isEmpty(frm.doc[df.fieldname], df);
		});
}

/** The mandatory fields left empty in the rows of the form's tables: [{df, row, table}]. */
export function missingInRows(frm) {
	const missing = [];
	for (const table of frm.meta.fields || []) {
		if (table.fieldtype !== "Table" || !Array.isArray(frm.doc[table.fieldname])) continue;
		const child = cachedMeta(table.options);
		if (!child) continue;
		for (const row of frm.doc[table.fieldname]) {
			for (const df of child.fields || []) {
				if (!df.fieldname || !hasValue(df)) continue;
				const state = rowFieldState(frm, child, df, row, false);
				if (state.visible && state.reqd && isEmpty(row[df.fieldname], df)) missing.push({ df, row, table });
			}
		}
	}
	return missing;
}

/** Check the mandatory fields before a request: false (each missing one marked) when some are empty. */
export function checkMandatory(frm) {
	const missing = missingMandatory(frm);
	const inRows = missingInRows(frm);
	if (!missing.length && !inRows.length) return true;
	const errors = { ...frm.errors };
	for (const df of missing) errors[df.fieldname] = __("{0} is mandatory", [labelOf(df)]);
	const names = missing.map((df) => labelOf(df));
	for (const { df, row, table } of inRows) {
		errors[`${table.fieldname}.${row.idx}.${df.fieldname}`] = __("{0} is mandatory", [labelOf(df)]);
		names.push(__("{0} in row {1} of {2}", [labelOf(df), row.idx, labelOf(table)]));
	}
	frm.set_errors(errors);
	showToast(__("Missing fields: {0}", [names.join(", ")]), { indicator: "red", alert: true });
	focusFirstError(frm);
	return false;
}

/** A failed save, submit or cancel: the server's message at the field it names (the form kept as
 * typed), else in a dialog. An expired session is main.js's to handle. */
export function showSaveError(frm, error) {
	if (error.type === "SessionExpired") {
		frm.notify();
		return;
	}
	const known = Object.fromEntries(
		Object.entries(error.fields || {}).filter(([field]) => frm.fields_dict[field] && fieldState(frm, frm.get_docfield(field)).visible),
	);
	if (Object.keys(known).length) {
		frm.set_errors({ ...frm.errors, ...known });
		for (const message of error.messages || []) showMessage(message);
		showToast(error.message, { indicator: "red", alert: true });
		focusFirstError(frm);
	} else {
		frm.notify();
		showError(error);
	}
}

/** Move the focus to the first field showing an error, unless the user has moved it meanwhile (the
 * frame can come late on a busy machine: keys typed into another field must stay there). */
export function focusFirstError(frm) {
	const before = document.activeElement;
	requestAnimationFrame(() => {
		if (document.activeElement !== before) return;
		const first = (frm.meta.fields || []).find((df) => frm.errors[df.fieldname]);
		const element = first && document.getElementById(`field-${first.fieldname}`);
		if (element) element.focus();
	});
}

/** Run the scripts' events in order; false when one stopped the action (a throw or `frappe.validated = false`). */
export async function runScripts(frm, events) {
	setValidated(true);
	try {
		for (const event of events) {
			await frm.trigger(event);
			if (!isValidated()) return false;
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
export async function flushTyping(frm) {
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
	if (!checkMandatory(frm)) return false;
	if (!(await runScripts(frm, ["validate", "before_save"]))) return false;
	const wasNew = frm.is_new();
	frm.saving = true;
	frm.notify();
	let saved;
	try {
		saved = await saveDoc(frm.doc);
	} catch (error) {
		frm.saving = false;
		showSaveError(frm, error);
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
