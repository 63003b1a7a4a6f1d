// Form layout from meta (server/desk/static/js/views/form/layout.js) and list columns
// (server/desk/static/js/views/list/columns.js, filter_bar.js).
import assert from "node:assert/strict";
import test from "node:test";
import { buildLayout } from "../../../server/desk/static/js/views/form/layout.js";
import { defaultSort, listColumns, listFields, standardFilterFields, titleField } from "../../../server/desk/static/js/views/list/columns.js";
import { withStandardFilter } from "../../../server/desk/static/js/views/list/filter_bar.js";

const f = (fieldname, fieldtype = "Data", extra = {}) => ({ fieldname, fieldtype, ...extra });

test("tabs, sections and columns", () => {
	const layout = buildLayout([
		f("a"), f("cb1", "Column Break"), f("b"),
		f("sb1", "Section Break", { label: "More", collapsible: 1 }), f("c"),
		f("tab2", "Tab Break", { label: "Other" }), f("d"),
		f("sb_empty", "Section Break"), f("cb2", "Column Break"),
		f("tab_empty", "Tab Break", { label: "Empty" }),
	]);
	assert.deepEqual(layout.map((t) => t.label), ["Details", "Other"]);
	const [details, other] = layout;
	assert.deepEqual(details.sections.map((s) => [s.label, s.collapsible, s.columns.map((c) => c.map((df) => df.fieldname))]), [
		["", false, [["a"], ["b"]]],
		["More", true, [["c"]]],
	]);
	assert.deepEqual(other.sections.map((s) => s.columns.map((c) => c.map((df) => df.fieldname))), [[["d"]]]);
	assert.deepEqual(buildLayout([]), []);
});

const meta = {
	name: "Warehouse Violation", title_field: "employee_name", sort_field: "date", sort_order: "DESC",
	__workflow: { field: "workflow_state", states: [] },
	fields: [
		f("employee", "Link", { in_list_view: 1, in_standard_filter: 1 }),
		f("employee_name", "Data", { in_list_view: 1 }),
		f("date", "Date", { in_list_view: 1 }),
		f("notes", "Text Editor", { in_list_view: 1 }),
		f("secret", "Data", { in_list_view: 1, hidden: 1 }),
		f("workflow_state", "Link", { in_standard_filter: 1 }),
		f("sb", "Section Break", { in_standard_filter: 1 }),
	],
};

test("list columns, fields, sort and standard filters from the meta", () => {
	assert.equal(titleField(meta), "employee_name");
	assert.equal(titleField({ ...meta, title_field: "missing" }), "name");
	assert.deepEqual(listColumns(meta).map((df) => df.fieldname), ["employee", "date"]);
	assert.deepEqual(listFields(meta, { add_fields: ["penalty_points", "bad field"] }), [
		"name", "employee_name", "employee", "date", "docstatus", "workflow_state", "modified", "penalty_points",
	]);
	assert.deepEqual(defaultSort(meta), { fieldname: "date", order: "desc" });
	assert.deepEqual(standardFilterFields(meta).map((df) => df.fieldname), ["employee", "workflow_state"]);
	const link = meta.fields[0];
	const text = f("employee_name", "Data");
	assert.deepEqual(withStandardFilter([["x", "=", 1]], link, "HR-1"), [["x", "=", 1], ["employee", "=", "HR-1"]]);
	assert.deepEqual(withStandardFilter([["employee", "=", "HR-1"]], link, ""), []);
	assert.deepEqual(withStandardFilter([], text, "Ann"), [["employee_name", "like", "%Ann%"]]);
});
