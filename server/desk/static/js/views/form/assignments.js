// The form sidebar's "Assigned To" (business.md §2.4 and §6): the document's open assignments
// (`docinfo.assignments`), each with a button "Remove <user>", and "Assign To", a dialog with a user
// field (and Frappe's comment, date and priority) that calls `fw.desk.form.assign_to.add`. The
// server refuses a user who may not read the document, naming them.
import { call } from "../../api.js";
import { __ } from "../../i18n.js";
import { html } from "../../lib/html.js";
import { fieldDialog } from "../../ui/field_dialog.js";
import { showError } from "../../ui/messages.js";
import { refreshDocinfo } from "./docinfo.js";

const METHODS = "fw.desk.form.assign_to";

export function assignDialog(frm) {
	return fieldDialog({
		title: __("Add to ToDo"),
		fields: [
			{ fieldname: "assign_to", fieldtype: "Link", options: "User", label: __("Assign To"), reqd: 1 },
			{ fieldname: "description", fieldtype: "Small Text", label: __("Comment") },
			{ fieldname: "date", fieldtype: "Date", label: __("Complete By") },
			{ fieldname: "priority", fieldtype: "Select", label: __("Priority"), options: "Low\nMedium\nHigh", default: "Medium" },
		],
		submitLabel: __("Add"),
		onSubmit: async (values) => {
			await call(`${METHODS}.add`, {
				doctype: frm.doctype,
				name: frm.docname,
				assign_to: JSON.stringify([values.assign_to]),
				description: values.description || undefined,
				date: values.date || undefined,
				priority: values.priority || undefined,
			});
			await refreshDocinfo(frm);
		},
	});
}

async function remove(frm, user) {
	try {
		await call(`${METHODS}.remove`, { doctype: frm.doctype, name: frm.docname, assign_to: JSON.stringify([user]) });
		await refreshDocinfo(frm);
	} catch (error) {
		showError(error);
	}
}

export function Assignments({ frm, fullName }) {
	const assigned = (frm.docinfo && frm.docinfo.assignments) || [];
	return html`<section class="sidebar-part assignments" aria-labelledby="form-assignments">
		<h2 class="sidebar-head" id="form-assignments">${__("Assigned To")}</h2>
		${assigned.length
			? html`<ul aria-labelledby="form-assignments">
					${assigned.map(
						(entry) => html`<li key=${entry.name}>
							<span title=${entry.owner}>${fullName(entry.owner)}</span>
							<button type="button" class="btn-icon" aria-label=${__("Remove {0}", [entry.owner])}
								onClick=${() => remove(frm, entry.owner)}>×</button>
						</li>`,
					)}
				</ul>`
			: html`<p class="sidebar-empty">${__("Nobody yet")}</p>`}
		<button type="button" class="btn btn-default btn-sm" onClick=${() => assignDialog(frm)}>${__("Assign To")}</button>
	</section>`;
}
