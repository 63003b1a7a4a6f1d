// The Table grid's pure helpers (server/desk/static/js/controls/grid.js): columns, new rows, moves.
import assert from "node:assert/strict";
import test from "node:test";
import { gridColumns, moveRow, newRow, removeRow } from "../../../server/desk/static/js/controls/grid.js";

const child = {
	name: "Performance Level Threshold",
	fields: [
		{ fieldname: "level", fieldtype: "Select", options: "a\nb", reqd: 1, in_list_view: 1 },
		{ fieldname: "min_pph", fieldtype: "Float", in_list_view: 1, default: "0" },
		{ fieldname: "note", fieldtype: "Data" },
		{ fieldname: "sb", fieldtype: "Section Break" },
		{ fieldname: "max_pph", fieldtype: "Float", in_list_view: 1 },
	],
};

test("columns: in_list_view fields, else the first value fields", () => {
	assert.deepEqual(gridColumns(child).map((df) => df.fieldname), ["level", "min_pph", "max_pph"]);
	const plain = { fields: child.fields.map(({ in_list_view, ...df }) => df) };
	assert.deepEqual(gridColumns(plain).map((df) => df.fieldname), ["level", "min_pph", "note", "max_pph"]);
});

test("a new row: defaults, its table, the next idx and a random name", () => {
	const parent = { doctype: "Scoring Settings", name: "Scoring Settings" };
	const one = newRow(child, parent, "thresholds", []);
	const two = newRow(child, parent, "thresholds", [one]);
	assert.equal(one.idx, 1);
	assert.equal(two.idx, 2);
	assert.equal(one.level, "a"); // a mandatory Select starts at its first option
	assert.equal(one.min_pph, 0);
	assert.equal(one.parentfield, "thresholds");
	assert.equal(one.parenttype, "Scoring Settings");
	assert.equal(one.__islocal, 1);
	assert.match(one.name, /^[0-9a-f]{10}$/);
	assert.notEqual(one.name, two.name);
});

test("moving and removing rows renumber idx", () => {
	const rows = [{ name: "a", idx: 1 }, { name: "b", idx: 2 }, { name: "c", idx: 3 }];
	const down = moveRow(rows, 0, 1);
	assert.deepEqual(down.map((r) => [r.name, r.idx]), [["b", 1], ["a", 2], ["c", 3]]);
	assert.equal(moveRow(down, 0, -1), down); // nothing above the first row
	assert.equal(moveRow(down, 2, 1), down);
	const left = removeRow(down, 1);
	assert.deepEqual(left.map((r) => [r.name, r.idx]), [["b", 1], ["c", 2]]);
});

test("fetch_from: the fields a Link fills, and with what", async () => {
	const { fetchTargets, fetchedValues } = await import("../../../server/desk/static/js/views/form/fetch_from.js");
	const fields = [
		{ fieldname: "employee", fieldtype: "Link", options: "Employee" },
		{ fieldname: "employee_name", fieldtype: "Data", fetch_from: "employee.employee_name" },
		{ fieldname: "company", fieldtype: "Link", fetch_from: "employee.company", fetch_if_empty: 1 },
		{ fieldname: "branch_name", fieldtype: "Data", fetch_from: "branch.branch_name" },
	];
	const targets = fetchTargets(fields, "employee");
	assert.deepEqual(targets.map((t) => [t.fieldname, t.source, t.ifEmpty]), [
		["employee_name", "employee_name", false],
		["company", "company", true],
	]);
	assert.deepEqual(fetchedValues(targets, {}, { employee_name: "Ada", company: "ACME" }), { employee_name: "Ada", company: "ACME" });
	assert.deepEqual(fetchedValues(targets, { company: "Kept" }, { employee_name: "Ada", company: "ACME" }), { employee_name: "Ada" });
	assert.deepEqual(fetchedValues(targets, { employee_name: "Old" }, null), { employee_name: null, company: null });
});
