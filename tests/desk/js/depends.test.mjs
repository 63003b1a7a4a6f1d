// Field-rule expressions (server/desk/static/js/views/form/depends.js): evaluated without eval.
import assert from "node:assert/strict";
import test from "node:test";
import { ExpressionError, parse, ruleHolds } from "../../../server/desk/static/js/views/form/depends.js";

const doc = { status: "Open", points: 6, zero: 0, empty: "", rows: [], items: [{ a: 1 }], type: "Late Scan", flag: 1 };
const holds = (rule, extra = {}) => ruleHolds(rule, { doc: { ...doc, ...extra } });

test("a field name holds when that field has a value", () => {
	assert.equal(holds("status"), true);
	assert.equal(holds("zero"), false);
	assert.equal(holds("empty"), false);
	assert.equal(holds("rows"), false); // an empty table
	assert.equal(holds("items"), true);
	assert.equal(holds("missing"), false);
	assert.equal(holds(""), true); // no rule: the fallback
	assert.equal(ruleHolds("", { doc }, false), false);
});

test("comparisons, logic and literals", () => {
	assert.equal(holds('eval:doc.status=="Open"'), true);
	assert.equal(holds("eval:doc.status == 'Closed'"), false);
	assert.equal(holds("eval:doc.status != 'Closed' && doc.points >= 5"), true);
	assert.equal(holds("eval:doc.points > 8 || doc.flag"), true);
	assert.equal(holds("eval:!doc.flag"), false);
	assert.equal(holds("eval:!(doc.points < 3)"), true);
	assert.equal(holds("eval:doc.points === 6"), true);
	assert.equal(holds("eval:doc.points === '6'"), false);
	assert.equal(holds("eval:doc.points == '6'"), true); // loose, as JavaScript's ==
	assert.equal(holds("eval:doc.missing == null"), true);
	assert.equal(holds("eval:doc.missing > 1"), false);
	assert.equal(holds("eval:doc.flag == 1 && doc.status"), true);
	assert.equal(holds("eval:true"), true);
	assert.equal(holds("eval:false || 0"), false);
	assert.equal(holds('eval:doc["type"] == "Late Scan"'), true);
	assert.equal(holds("eval:doc.items.length > 0"), true);
	assert.equal(holds("eval:doc.docstatus==0", { docstatus: 0 }), true);
});

test("in, in_list and includes", () => {
	assert.equal(holds('eval:doc.status in ["Open", "Pending"]'), true);
	assert.equal(holds('eval:in_list(["Closed", "Done"], doc.status)'), false);
	assert.equal(holds('eval:["Open"].includes(doc.status)'), true);
	assert.equal(holds('eval:doc.type.includes("Scan")'), true);
	assert.equal(holds("eval:doc.points in [1, 6]"), true);
});

test("the parent of a child row", () => {
	assert.equal(ruleHolds("eval:parent.docstatus == 1", { doc: {}, parent: { docstatus: 1 } }), true);
	assert.equal(ruleHolds("eval:parent.docstatus == 1", { doc: {} }), false);
});

test("code is never run: calls, assignments and prototypes are refused", () => {
	assert.throws(() => parse("alert(1)"), ExpressionError);
	assert.throws(() => parse("doc.x = 1"), ExpressionError);
	assert.throws(() => parse("doc.status; 1"), ExpressionError);
	assert.throws(() => parse("doc.status +"), ExpressionError);
	// a prototype's members are not the document's values
	assert.equal(holds("eval:doc.constructor"), false);
	assert.equal(holds("eval:doc.__proto__"), false);
	// an unparsable rule is its fallback (a field stays visible, is not made mandatory)
	assert.equal(ruleHolds("eval:frappe.user.has_role('X')(", { doc }), true);
	assert.equal(ruleHolds("eval:alert(1)", { doc }, false), false);
});

test("permlevels a user may read and write, from the meta's DocPerm rows", async () => {
	const { permLevels } = await import("../../../server/desk/static/js/views/form/field_rules.js");
	const meta = {
		fields: [{ fieldname: "a" }, { fieldname: "salary", permlevel: 1 }, { fieldname: "note", permlevel: 2 }],
		permissions: [
			{ role: "Employee", read: 1 },
			{ role: "HR", read: 1, write: 1 },
			{ role: "HR", permlevel: 1, read: 1, write: 1 },
			{ role: "Employee", permlevel: 1, read: 1 },
			{ role: "Auditor", permlevel: 2, write: 1 },
		],
	};
	const sets = (levels) => [[...levels.read].sort(), [...levels.write].sort()];
	assert.deepEqual(sets(permLevels(meta, ["Employee"])), [[0, 1], []]);
	assert.deepEqual(sets(permLevels(meta, ["HR"])), [[0, 1], [0, 1]]);
	assert.deepEqual(sets(permLevels(meta, ["Auditor"])), [[0, 2], [2]]); // write implies read
	assert.deepEqual(sets(permLevels(meta, [])), [[0], []]);
	assert.deepEqual(sets(permLevels(meta, [], "Administrator")), [[0, 1, 2], [0, 1, 2]]);
});
