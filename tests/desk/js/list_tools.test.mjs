// The list's power tools, their pure parts: the filter builder's operators (views/list/operators.js),
// remembered list settings (user_settings.js), group-by filters (group_by.js), the bulk workflow
// actions offered (bulk.js), the saved filters' place among a list's first filters (list_view.js) and
// the awesome bar's commands (ui/awesome.js).
import assert from "node:assert/strict";
import test from "node:test";
import { OPERATORS, filterableFields, makeFilter, valueKind } from "../../../server/desk/static/js/views/list/operators.js";
import { listPatch, listState } from "../../../server/desk/static/js/user_settings.js";
import { groupByFields, withGroupFilter } from "../../../server/desk/static/js/views/list/group_by.js";
import { bulkWorkflowActions } from "../../../server/desk/static/js/views/list/bulk.js";
import { initialFilters } from "../../../server/desk/static/js/views/list/list_view.js";
import { commandsFor, searchDoctypes } from "../../../server/desk/static/js/ui/awesome.js";
import { MAX_COLUMNS, choosableColumns, listColumns, listFields, sortableFields } from "../../../server/desk/static/js/views/list/columns.js";

const date = { fieldname: "date", fieldtype: "Date" };
const points = { fieldname: "points", fieldtype: "Int" };
const status = { fieldname: "status", fieldtype: "Select", options: "Open\nClosed" };

test("every operator of desk.md §3 is offered", () => {
	assert.deepEqual(OPERATORS.map((o) => o.op), ["=", "!=", "like", "in", "<", ">", "<=", ">=", "between", "is set", "is not set"]);
});

test("the value input suits the field and the operator", () => {
	assert.equal(valueKind(date, ">="), "date");
	assert.equal(valueKind(points, "<"), "number");
	assert.equal(valueKind(status, "="), "choice");
	assert.equal(valueKind(status, "like"), "text");
	assert.equal(valueKind(date, "between"), "two");
	assert.equal(valueKind(points, "is set"), "none");
	assert.equal(valueKind(status, "in"), "list");
});

test("a condition is made from what was typed, or none while something is missing", () => {
	assert.deepEqual(makeFilter(points, ">=", ["3"]), ["points", ">=", 3]);
	assert.deepEqual(makeFilter(date, "between", ["2024-01-01", "2024-01-31"]), ["date", "between", ["2024-01-01", "2024-01-31"]]);
	assert.equal(makeFilter(date, "between", ["2024-01-01", ""]), null);
	assert.deepEqual(makeFilter(status, "is set"), ["status", "is", "set"]);
	assert.deepEqual(makeFilter(status, "is not set"), ["status", "is", "not set"]);
	assert.deepEqual(makeFilter(status, "in", ["Open, Closed ,"]), ["status", "in", ["Open", "Closed"]]);
	assert.deepEqual(makeFilter(status, "like", ["pe"]), ["status", "like", "%pe%"]);
	assert.deepEqual(makeFilter(status, "like", ["O%"]), ["status", "like", "O%"]);
	assert.equal(makeFilter(points, "=", [" "]), null);
	assert.deepEqual(makeFilter(status, "!=", ["<b>x</b>"]), ["status", "!=", "<b>x</b>"]); // data, as typed
});

test("filterable fields leave out layout and hidden fields", () => {
	const meta = { fields: [date, { fieldname: "sb", fieldtype: "Section Break" }, { fieldname: "h", fieldtype: "Data", hidden: 1 }] };
	assert.deepEqual(filterableFields(meta).map((f) => f.fieldname), ["name", "date", "owner", "creation", "modified"]);
	const flow = { fields: [{ fieldname: "ws", fieldtype: "Link", options: "Workflow State", hidden: 1 }],
		__workflow: { field: "ws", states: [{ state: "Draft" }, { state: "Done" }] } };
	const ws = filterableFields(flow)[1];
	assert.deepEqual([ws.fieldname, ws.fieldtype, ws.options, valueKind(ws, "=")], ["ws", "Select", "Draft\nDone", "choice"]);
});

test("list settings are saved in Frappe's shape and read back", () => {
	const patch = listPatch("Task", [["status", "=", "Open"]], { fieldname: "date", order: "asc" });
	assert.deepEqual(patch, { List: { filters: [["Task", "status", "=", "Open"]], sort_by: "date", sort_order: "asc", columns: null } });
	assert.deepEqual(listState(patch, "Task"), { filters: [["status", "=", "Open"]], sort: { fieldname: "date", order: "asc" } });
	const withColumns = listPatch("Task", [], { fieldname: "date", order: "desc" }, ["status", "date"]);
	assert.deepEqual(listState(withColumns, "Task").columns, ["status", "date"]);
	assert.deepEqual(listState({ List: { filters: [["Other", "x", "=", 1], "junk", ["y", "=", 2]] } }, "Task"), { filters: [["y", "=", 2]] });
	assert.deepEqual(listState({}, "Task"), {});
});

test("URL filters win over remembered ones, which win over the list script's defaults", () => {
	const saved = [["status", "=", "Closed"]];
	assert.deepEqual(initialFilters({ filters: [["status", "=", "Open"]] }, null, {}, saved), [["status", "=", "Open"]]);
	assert.deepEqual(initialFilters({ filters: [] }, { owner: "a@b.c" }, {}, saved), [["owner", "=", "a@b.c"]]);
	assert.deepEqual(initialFilters({ filters: [] }, null, { filters: [["x", "=", 1]] }, saved), saved);
	assert.deepEqual(initialFilters({ filters: [] }, null, { filters: [["x", "=", 1]] }, []), []);
	assert.deepEqual(initialFilters({ filters: [] }, null, { filters: [["x", "=", 1]] }), [["x", "=", 1]]);
});

test("group by: owner and the listed Select and Link fields; a value replaces the field's filter", () => {
	const meta = { fields: [{ ...status, in_list_view: 1 }, { fieldname: "emp", fieldtype: "Link", options: "Employee" },
		{ fieldname: "ws", fieldtype: "Link", options: "Workflow State", hidden: 1 }], __workflow: { field: "ws" } };
	assert.deepEqual(groupByFields(meta).map((f) => f.fieldname), ["assigned_to", "owner", "status", "ws"]);
	// "Assigned To" filters on `_assign`, replacing an earlier choice
	assert.deepEqual(withGroupFilter([["_assign", "like", "%a@x%"], ["x", "=", 1]], "assigned_to", "b@x"),
		[["x", "=", 1], ["_assign", "like", "%b@x%"]]);
	assert.deepEqual(withGroupFilter([["status", "like", "%O%"], ["x", "=", 1]], "status", "Open"), [["x", "=", 1], ["status", "=", "Open"]]);
	assert.deepEqual(withGroupFilter([], "status", null), [["status", "is", "not set"]]);
});

test("bulk workflow actions: those some selected row's state has for the user's roles", () => {
	const meta = { __workflow: { field: "ws", states: [{ state: "Draft" }], transitions: [
		{ state: "Draft", action: "Submit", allowed: "Clerk" },
		{ state: "Pending", action: "Approve", allowed: "Reviewer" },
		{ state: "Pending", action: "Reject", allowed: "Reviewer" },
		{ state: "Approved", action: "Reopen", allowed: "Manager" },
	] } };
	const rows = [{ ws: "Pending" }, { ws: null }, { ws: "Approved" }];
	assert.deepEqual(bulkWorkflowActions(meta, rows, { roles: ["Reviewer", "Clerk"] }), ["Submit", "Approve", "Reject"]);
	assert.deepEqual(bulkWorkflowActions(meta, rows, { user: "Administrator" }), ["Submit", "Approve", "Reject", "Reopen"]);
	assert.deepEqual(bulkWorkflowActions({}, rows, {}), []);
});

test("the awesome bar offers lists, new documents and reports the user may use", () => {
	const boot = {
		doctypes: { Employee: { label: "Mitarbeiter" }, "Employee Score": { label: "Employee Score" }, Role: { label: "Role" },
			"System Settings": { label: "System Settings", issingle: 1 } },
		rights: { Employee: { read: 1, create: 1 }, "Employee Score": { read: 1 }, "System Settings": { read: 1 } },
		sidebar: [{ items: [{ type: "doctype", name: "Employee" }, { type: "report", name: "Employee Score Report",
			label: "Employee Score Report", route: "/app/query-report/Employee%20Score%20Report" }] }],
	};
	const labels = { list: (l) => `${l} List`, new: (l) => `New ${l}`, report: "Report" };
	const slug = (d) => d.toLowerCase().replace(/ /g, "-");
	const found = commandsFor("employ", boot, { slug, labels });
	assert.deepEqual(found.map((c) => [c.label, c.url]), [
		["Mitarbeiter List", "/app/employee"],
		["Employee Score List", "/app/employee-score"],
		["New Mitarbeiter", "/app/employee/new"],
		["Employee Score Report", "/app/query-report/Employee%20Score%20Report"],
	]);
	assert.deepEqual(commandsFor("role", boot, { slug, labels }), []); // not readable
	assert.deepEqual(commandsFor("  ", boot, { slug, labels }), []);
	assert.deepEqual(commandsFor("system", boot, { slug, labels }).map((c) => c.label), ["System Settings"]);
	assert.deepEqual(commandsFor("new employ", boot, { slug, labels }).map((c) => c.label), ["New Mitarbeiter"]);
	assert.deepEqual(searchDoctypes(boot), ["Employee"]);
});

test("chosen columns replace the in_list_view ones; unknown or unlisted fields are left out", () => {
	const meta = { title_field: "subject", fields: [
		{ fieldname: "subject", fieldtype: "Data", in_list_view: 1 },
		{ fieldname: "status", fieldtype: "Select", in_list_view: 1 },
		{ fieldname: "date", fieldtype: "Date" },
		{ fieldname: "notes", fieldtype: "Text Editor" },
		{ fieldname: "secret", fieldtype: "Data", hidden: 1 },
		...Array.from({ length: 8 }, (_v, i) => ({ fieldname: `f${i}`, fieldtype: "Data" })),
	] };
	assert.deepEqual(choosableColumns(meta).map((df) => df.fieldname).slice(0, 2), ["status", "date"]);
	assert.deepEqual(listColumns(meta).map((df) => df.fieldname), ["status"]);
	assert.deepEqual(listColumns(meta, ["date", "nope", "notes", "secret", "subject"]).map((df) => df.fieldname), ["date"]);
	assert.deepEqual(listColumns(meta, ["nope"]).map((df) => df.fieldname), ["status"]); // nothing valid: the default
	assert.equal(listColumns(meta, choosableColumns(meta).map((df) => df.fieldname)).length, MAX_COLUMNS);
	assert.ok(listFields(meta, {}, ["f0"]).includes("f0") && !listFields(meta, {}, ["f0"]).includes("date"));
	assert.ok(sortableFields(meta, ["date"]).some((o) => o.fieldname === "date"));
});
