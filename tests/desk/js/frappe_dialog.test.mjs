// frappe.ui.Dialog's values (server/desk/static/js/frappe/dialog.js): defaults, mandatory fields
// checked by get_values (each marked, null answered), onchange once per committed change,
// set_df_property, and frappe.prompt's shorthand fields.
import assert from "node:assert/strict";
import test from "node:test";
import { Dialog } from "../../../server/desk/static/js/frappe/dialog.js";
import { toasts } from "../../../server/desk/static/js/ui/layers.js";

test("defaults, get_values with mandatory fields, onchange per committed change", async () => {
	const changes = [];
	const dialog = new Dialog({
		title: "T",
		fields: [
			{ fieldname: "note", label: "Note", fieldtype: "Data", reqd: 1, onchange: () => changes.push(dialog.get_value("note")) },
			{ fieldtype: "Section Break", label: "More" },
			{ fieldname: "kind", label: "Kind", fieldtype: "Select", options: "A\nB", default: "B" },
			{ fieldname: "done", label: "Done", fieldtype: "Check" },
			{ label: "Due Date", fieldtype: "Date", reqd: 1, hidden: 1 },
		],
	});
	assert.deepEqual(dialog.values, { kind: "B", done: 0 });
	assert.equal(dialog.get_values(), null);
	assert.deepEqual(Object.keys(dialog.errors), ["note"], "hidden mandatory fields are not asked for");
	assert.ok(toasts.some((t) => t.message === "Missing fields: Note"));
	assert.deepEqual(dialog.get_values(true), { kind: "B", done: 0 });
	await dialog.set_value("note", "hello");
	await dialog.set_value("note", "hello"); // unchanged: no second onchange
	assert.deepEqual(changes, ["hello"]);
	assert.equal(dialog.errors.note, undefined);
	assert.deepEqual(dialog.get_values(), { note: "hello", kind: "B", done: 0 });
	dialog.set_df_property("due_date", "hidden", 0);
	assert.equal(dialog.get_values(), null, "shown again: mandatory");
	await dialog.set_values({ due_date: "2024-01-31" });
	assert.deepEqual(dialog.get_values(), { note: "hello", kind: "B", done: 0, due_date: "2024-01-31" });
	dialog.clear();
	assert.deepEqual(dialog.values, {});
});

test("a Link field's get_query reaches the control through the dialog's frm", () => {
	const dialog = new Dialog({
		fields: [{ fieldname: "branch", label: "Branch", fieldtype: "Link", options: "Branch", get_query: (values) => ({ filters: { company: values.company } }) }],
	});
	dialog.values.company = "C1";
	assert.deepEqual(dialog._frm.link_query("branch"), { filters: { company: "C1" } });
	assert.deepEqual(dialog._frm.link_query("other"), {});
});

test("depends_on, mandatory_depends_on and read_only_depends_on on the values", async () => {
	const dialog = new Dialog({
		fields: [
			{ fieldname: "kind", label: "Kind", fieldtype: "Select", options: "Minor\nMajor", default: "Minor" },
			{ fieldname: "reason", label: "Reason", fieldtype: "Data", depends_on: "eval:doc.kind == 'Major'", mandatory_depends_on: "eval:doc.kind == 'Major'" },
			{ fieldname: "notes", label: "Notes", fieldtype: "Data", depends_on: (values) => Boolean(values.reason) },
			{ fieldname: "ref", label: "Ref", fieldtype: "Data", read_only_depends_on: "kind" },
		],
	});
	const state = (name) => dialog._state(dialog.get_docfield(name));
	assert.deepEqual(state("reason"), { visible: false, reqd: false, readOnly: false });
	assert.equal(state("ref").readOnly, true);
	assert.deepEqual(dialog.get_values(), { kind: "Minor" }, "a hidden field is not asked for");
	await dialog.set_value("kind", "Major");
	assert.deepEqual(state("reason"), { visible: true, reqd: true, readOnly: false });
	assert.equal(dialog.get_values(), null);
	assert.equal(state("notes").visible, false);
	await dialog.set_value("reason", "Broken pallet");
	assert.equal(state("notes").visible, true);
	assert.deepEqual(dialog.get_values(), { kind: "Major", reason: "Broken pallet" });
});
