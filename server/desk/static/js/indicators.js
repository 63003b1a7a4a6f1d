// Status indicators of documents (desk.md §3, Frappe's `frappe.get_indicator`), one rule for lists
// and forms: an unsaved form "Not Saved"; the workflow state in its Workflow State colour (the
// server sends each state's colour with the meta, `__workflow`); Draft (red) and Cancelled (red)
// for submittable doctypes; an app's `listview_settings[doctype].get_indicator`; Submitted (blue);
// a `status` field by its words; an `enabled` field. Returns {label, color, filter} or null.
// Form scripts reach the same rule through `frappe.get_indicator` (frappe/index.js): the reference
// app's script paints its state pill with it, so a state has one colour in the list and the form.
// Pure: `node --test` covers it.
import { __ } from "./i18n.js";

export const COLOURS = ["gray", "blue", "green", "orange", "red", "yellow", "purple", "cyan", "pink", "light-blue", "darkgrey"];

function hasWords(words, text) {
	return words.some((word) => new RegExp(`\\b${word}\\b`, "i").test(text));
}

/** Frappe's `guess_colour` for a status text. */
export function guessColour(text) {
	const value = String(text || "");
	if (hasWords(["Pending", "Review", "Medium", "Not Approved"], value)) return "orange";
	if (hasWords(["Open", "Urgent", "High", "Failed", "Rejected", "Error"], value)) return "red";
	if (hasWords(["Closed", "Finished", "Converted", "Completed", "Complete", "Confirmed", "Approved", "Yes", "Active", "Available", "Paid", "Success"], value)) {
		return "green";
	}
	if (hasWords(["Submitted"], value)) return "blue";
	return "gray";
}

/** The colour of a workflow state (from the meta's `__workflow`), gray without one. */
export function stateColour(workflow, state) {
	const found = workflow && (workflow.states || []).find((s) => s.state === state);
	return (found && found.color) || "gray";
}

/** A normalised colour name ("Green", "green" → "green"; anything unknown → "gray"). */
export function colourName(colour) {
	const name = String(colour || "").toLowerCase();
	return COLOURS.includes(name) ? name : "gray";
}

function fromList(value) {
	// a listview_settings.get_indicator answer: [label, colour, filter]
	if (Array.isArray(value) && value.length >= 2) return { label: String(value[0]), color: colourName(value[1]), filter: value[2] || null };
	return null;
}

export function docIndicator(doc, meta, settings = {}) {
	if (!doc) return null;
	if (doc.__unsaved) return { label: __("Not Saved"), color: "orange", filter: null };
	const workflow = meta && meta.__workflow;
	const submittable = Boolean(meta && meta.is_submittable);
	const docstatus = Number(doc.docstatus || 0);
	if (workflow && workflow.field) {
		const state = doc[workflow.field];
		if (state) return { label: __(state), color: stateColour(workflow, state), filter: `${workflow.field},=,${state}` };
	}
	if (submittable && docstatus === 0 && !settings.has_indicator_for_draft) {
		return { label: __("Draft"), color: "red", filter: "docstatus,=,0" };
	}
	if (submittable && docstatus === 2 && !settings.has_indicator_for_cancelled) {
		return { label: __("Cancelled"), color: "red", filter: "docstatus,=,2" };
	}
	if (typeof settings.get_indicator === "function") {
		let answer = null;
		try {
			answer = fromList(settings.get_indicator(doc));
		} catch (error) {
			console.error("listview_settings.get_indicator failed", error);
		}
		if (answer) return answer;
	}
	if (submittable && docstatus === 1) return { label: __("Submitted"), color: "blue", filter: "docstatus,=,1" };
	if (doc.status) return { label: __(String(doc.status)), color: guessColour(doc.status), filter: `status,=,${doc.status}` };
	if (meta && (meta.fields || []).some((df) => df.fieldname === "enabled")) {
		return Number(doc.enabled)
			? { label: __("Enabled"), color: "blue", filter: "enabled,=,1" }
			: { label: __("Disabled"), color: "gray", filter: "enabled,=,0" };
	}
	return null;
}

/** The fields a list must fetch so `docIndicator` can judge a row. */
export function indicatorFields(meta) {
	const fields = ["docstatus"];
	const names = new Set((meta.fields || []).map((df) => df.fieldname));
	if (meta.__workflow && meta.__workflow.field) fields.push(meta.__workflow.field);
	if (names.has("status")) fields.push("status");
	if (names.has("enabled")) fields.push("enabled");
	return fields;
}
