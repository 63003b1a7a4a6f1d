// The form model (server/desk/static/js/form/form.js) and Frappe's `frm` over it (frappe/form.js):
// values and change events, the dirty mark, what scripts add (cleared on refresh), field properties,
// who may edit (workflow allow_edit).
import assert from "node:assert/strict";
import test from "node:test";
import { loadBoot } from "../../../server/desk/static/js/boot.js";
import { Form } from "../../../server/desk/static/js/form/form.js";
import { FrappeForm } from "../../../server/desk/static/js/frappe/form.js";
import { clearHandlers, on } from "../../../server/desk/static/js/form/events.js";

const meta = {
	name: "Warehouse Violation",
	fields: [
		{ fieldname: "employee", fieldtype: "Link", options: "Employee", reqd: 1 },
		{ fieldname: "employee_name", fieldtype: "Data", read_only: 1 },
		{ fieldname: "penalty_points", fieldtype: "Float" },
		{ fieldname: "remarks", fieldtype: "Small Text", allow_on_submit: 1 },
	],
	__workflow: {
		field: "workflow_state",
		states: [{ state: "Draft", allow_edit: "Warehouse Manager" }, { state: "Pending", allow_edit: "HR Reviewer" }],
	},
};

function boot(roles) {
	loadBoot({ user: "w@example.com", roles, rights: { "Warehouse Violation": { read: 1, write: 1, create: 1 } }, doctypes: {} });
}

test("set_value changes the document and fires the field's handlers", async () => {
	boot(["Warehouse Manager"]);
	clearHandlers();
	const seen = [];
	on("Warehouse Violation", {
		employee: async (frm) => {
			seen.push(frm.doc.employee);
			await frm.set_value("employee_name", "Ada");
		},
		employee_name: (frm) => seen.push(`name ${frm.doc.employee_name}`),
	});
	const frm = new Form(meta, { doctype: "Warehouse Violation", name: "WV-1", docstatus: 0, workflow_state: "Draft", modified: "x" });
	let renders = 0;
	frm.subscribe(() => renders++);
	assert.equal(frm.is_dirty(), false);
	await frm.set_value("employee", "HR-EMP-1");
	assert.deepEqual(seen, ["HR-EMP-1", "name Ada"]);
	assert.equal(frm.is_dirty(), true);
	assert.ok(renders > 0);
	await frm.set_value("employee", "HR-EMP-1"); // unchanged: no event
	assert.equal(seen.length, 2);
	frm.update_value("penalty_points", 3); // typing: no event until the change is committed
	frm.mark_untriggered("penalty_points");
	assert.equal(frm.doc.penalty_points, 3);
	await frm.set_value({ penalty_points: 3 });
	assert.equal(frm.doc.__unsaved, 1);
});

test("a new document is unsaved from the start but has edits only once something changes", async () => {
	boot(["Warehouse Manager"]);
	clearHandlers();
	const fresh = new Form(meta, { doctype: "Warehouse Violation", name: "new-1", __islocal: 1, __unsaved: 1, docstatus: 0 });
	assert.equal(fresh.is_dirty(), true); // Frappe's mark: the indicator says Not Saved
	assert.equal(fresh.has_edits(), false); // nothing of the user's: leaving it loses nothing
	await fresh.set_value("penalty_points", 2); // an opening script's value...
	assert.equal(fresh.has_edits(), true);
	fresh.settle(); // ...is where the form starts
	assert.equal(fresh.has_edits(), false);
	fresh.update_value("penalty_points", 5); // the user types
	assert.equal(fresh.has_edits(), true);
	fresh.load({ doctype: "Warehouse Violation", name: "WV-9", docstatus: 0, modified: "y" }); // saved
	assert.equal(fresh.has_edits(), false);
	assert.equal(fresh.is_dirty(), false);
	const restored = new Form(meta, { doctype: "Warehouse Violation", name: "WV-9", __unsaved: 1, docstatus: 0 });
	assert.equal(restored.has_edits(), true); // a stored document with unsaved values has edits
});

test("refresh clears what scripts added, then runs the refresh handlers", async () => {
	boot(["Warehouse Manager"]);
	clearHandlers();
	on("Warehouse Violation", {
		refresh(frm) {
			frm.set_indicator("Pending", "orange");
			frm.dashboard.add_indicator("Penalty Points: 6", "orange");
			frm.add_custom_button("Employee Scores", () => "clicked");
			frm.add_custom_button("Other", () => null, "More");
		},
	});
	const frm = new FrappeForm(meta, { doctype: "Warehouse Violation", name: "WV-1", docstatus: 0 });
	frm.add_custom_button("Stale", () => null);
	await frm.refresh();
	assert.deepEqual(frm.custom_buttons.map((b) => [b.label, b.group]), [["Employee Scores", null], ["Other", "More"]]);
	assert.deepEqual(frm.indicator, { label: "Pending", color: "orange" });
	assert.deepEqual(frm.dashboard.indicators, [{ label: "Penalty Points: 6", color: "orange" }]);
	frm.page.set_indicator("Draft", "red"); // Frappe's name for the same thing
	assert.deepEqual(frm.indicator, { label: "Draft", color: "red" });
	frm.remove_custom_button("Other", "More");
	assert.equal(frm.custom_buttons.length, 1);
	frm.clear_custom_buttons();
	assert.equal(frm.custom_buttons.length, 0);
});

test("field properties, visibility and editability", () => {
	boot(["Warehouse Manager"]);
	const frm = new FrappeForm(meta, { doctype: "Warehouse Violation", name: "WV-1", docstatus: 0, workflow_state: "Draft" });
	const df = (name) => frm.get_docfield(name);
	assert.equal(frm.is_field_visible(df("employee_name")), false); // read-only and empty: hidden as in Frappe
	frm.doc.employee_name = "Ada";
	assert.equal(frm.is_field_visible(df("employee_name")), true);
	assert.equal(frm.is_field_editable(df("employee_name")), false);
	assert.equal(frm.is_field_editable(df("employee")), true);
	frm.toggle_enable("employee", false);
	assert.equal(frm.is_field_editable(df("employee")), false);
	frm.toggle_display("penalty_points", false);
	assert.equal(frm.is_field_visible(df("penalty_points")), false);
	frm.toggle_reqd("penalty_points", true);
	assert.equal(df("penalty_points").reqd, 1);
	assert.equal(meta.fields[2].reqd, undefined); // the meta itself is untouched
	frm.set_query("employee", () => ({ filters: { status: "Active" } }));
	assert.deepEqual(frm.link_query("employee"), { filters: { status: "Active" } });
	assert.deepEqual(frm.link_query("penalty_points"), {});
});

test("who may edit: workflow allow_edit, docstatus, allow_on_submit", () => {
	boot(["Warehouse Manager"]);
	const pending = new Form(meta, { doctype: "Warehouse Violation", name: "WV-2", docstatus: 0, workflow_state: "Pending" });
	assert.equal(pending.can_edit(), false); // Pending is the HR Reviewer's to edit
	boot(["HR Reviewer"]);
	const reviewed = new Form(meta, { doctype: "Warehouse Violation", name: "WV-2", docstatus: 0, workflow_state: "Pending" });
	assert.equal(reviewed.can_edit(), true);
	const submitted = new Form({ ...meta, __workflow: null }, { doctype: "Warehouse Violation", name: "WV-3", docstatus: 1 });
	assert.equal(submitted.is_field_editable(submitted.get_docfield("penalty_points")), false);
	assert.equal(submitted.is_field_editable(submitted.get_docfield("remarks")), true);
	const cancelled = new Form({ ...meta, __workflow: null }, { doctype: "Warehouse Violation", name: "WV-4", docstatus: 2 });
	assert.equal(cancelled.is_field_editable(cancelled.get_docfield("remarks")), false);
	loadBoot({ user: "r@example.com", roles: [], rights: { "Warehouse Violation": { read: 1 } } });
	const readOnly = new Form({ ...meta, __workflow: null }, { doctype: "Warehouse Violation", name: "WV-5", docstatus: 0 });
	assert.equal(readOnly.can_edit(), false);
	assert.equal(readOnly.perm[0].write, 0);
});

test("the Desk's model alone: what scripts added is state the view reads, cleared by refresh; the scripts' own names are the adapter's", async () => {
	boot(["Warehouse Manager"]);
	clearHandlers();
	const frm = new Form(meta, { doctype: "Warehouse Violation", name: "WV-6", docstatus: 0 });
	frm.custom_buttons.push({ label: "Stale", handler: null, group: null, type: "default" });
	frm.dashboard.indicators.push({ label: "Old", color: "gray" });
	frm.indicator = { label: "Old", color: "gray" };
	await frm.refresh();
	assert.deepEqual([frm.custom_buttons, frm.dashboard.indicators, frm.indicator], [[], [], null]);
	assert.deepEqual(Object.keys(frm.fields_dict), ["employee", "employee_name", "penalty_points", "remarks"]);
	for (const name of ["add_custom_button", "set_df_property", "set_query", "savesubmit", "call"]) {
		assert.equal(frm[name], undefined, `${name} is frappe/form.js's`);
		assert.equal(typeof FrappeForm.prototype[name], "function");
	}
	assert.equal(frm.page, undefined);
});
