// New documents and their defaults (server/desk/static/js/model.js).
import assert from "node:assert/strict";
import test from "node:test";
import { defaultValue, isEmpty, newDoc, nowDatetime, today } from "../../../server/desk/static/js/model.js";

const now = new Date(2024, 2, 7, 9, 5, 3);
const meta = {
	name: "Warehouse Violation",
	fields: [
		{ fieldname: "employee", fieldtype: "Link", reqd: 1 },
		{ fieldname: "date", fieldtype: "Date", default: "Today" },
		{ fieldname: "at", fieldtype: "Datetime", default: "Now" },
		{ fieldname: "owner_user", fieldtype: "Link", default: "__user" },
		{ fieldname: "column_break_1", fieldtype: "Column Break" },
		{ fieldname: "active", fieldtype: "Check", default: "1" },
		{ fieldname: "flag", fieldtype: "Check" },
		{ fieldname: "points", fieldtype: "Float", default: "2.5" },
		{ fieldname: "count", fieldtype: "Int", default: "3" },
		{ fieldname: "level", fieldtype: "Select", options: "\nlow\nhigh" },
		{ fieldname: "kind", fieldtype: "Select", options: "A\nB", reqd: 1 },
		{ fieldname: "rows", fieldtype: "Table", options: "Row" },
	],
};

test("defaults: Today, Now, __user, numbers, checks, a mandatory Select", () => {
	const doc = newDoc(meta, { user: "a@example.com", now, values: { employee: "HR-EMP-1", not_a_field: "x", column_break_1: 1 } });
	assert.equal(doc.doctype, "Warehouse Violation");
	assert.ok(doc.__islocal && doc.__unsaved && doc.name.startsWith("new-warehouse-violation-"));
	assert.equal(doc.date, "2024-03-07");
	assert.equal(doc.at, "2024-03-07 09:05:03");
	assert.equal(doc.owner_user, "a@example.com");
	assert.equal(doc.active, 1);
	assert.equal(doc.flag, 0);
	assert.equal(doc.points, 2.5);
	assert.equal(doc.count, 3);
	assert.equal(doc.level, undefined);
	assert.equal(doc.kind, "A");
	assert.deepEqual(doc.rows, []);
	assert.equal(doc.employee, "HR-EMP-1"); // a route option
	assert.equal(doc.not_a_field, undefined);
	assert.equal(doc.column_break_1, undefined);
	assert.equal(today(now), "2024-03-07");
	assert.equal(nowDatetime(now), "2024-03-07 09:05:03");
	assert.equal(defaultValue({ fieldtype: "Time", default: "Now" }, { now }), "09:05:03");
});

test("what counts as empty for a mandatory field", () => {
	assert.ok(isEmpty(null) && isEmpty(undefined) && isEmpty("  ") && isEmpty([]));
	assert.ok(!isEmpty(0, { fieldtype: "Int" }));
	assert.ok(isEmpty(0, { fieldtype: "Check" }));
	assert.ok(!isEmpty("x"));
});

test("a user's is_default User Permissions are the defaults of Link fields, a route option still wins", () => {
	const linked = {
		name: "Note",
		fields: [
			{ fieldname: "company", fieldtype: "Link", options: "Company" },
			{ fieldname: "other_company", fieldtype: "Link", options: "Company", ignore_user_permissions: 1 },
			{ fieldname: "branch", fieldtype: "Link", options: "Branch", default: "Main" },
			{ fieldname: "customer", fieldtype: "Link", options: "Customer" },
		],
	};
	const linkDefaults = { Company: "Acme", Branch: "North" };
	const doc = newDoc(linked, { user: "a@example.com", linkDefaults });
	assert.equal(doc.company, "Acme");
	assert.equal(doc.other_company, undefined);
	assert.equal(doc.branch, "Main"); // the field's own default first
	assert.equal(doc.customer, undefined);
	assert.equal(newDoc(linked, { linkDefaults, values: { company: "Beta" } }).company, "Beta");
	const tree = { name: "Company", is_tree: 1, fields: [{ fieldname: "parent_company", fieldtype: "Link", options: "Company" }] };
	assert.equal(newDoc(tree, { linkDefaults }).parent_company, undefined);
});
