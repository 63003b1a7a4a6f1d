// Indicator rules of desk.md §3 (server/desk/static/js/indicators.js).
import assert from "node:assert/strict";
import test from "node:test";
import { colourName, docIndicator, guessColour, indicatorFields } from "../../../server/desk/static/js/indicators.js";

const workflow = {
	field: "workflow_state",
	states: [{ state: "Draft", color: "gray" }, { state: "Pending", color: "orange" }, { state: "Appealed", color: "blue" }],
};
const violation = { name: "Warehouse Violation", is_submittable: 1, __workflow: workflow, fields: [] };
const score = { name: "Employee Score", is_submittable: 1, fields: [] };
const employee = { name: "Employee", fields: [{ fieldname: "status" }] };

test("the workflow state in its colour comes first", () => {
	assert.deepEqual(docIndicator({ docstatus: 0, workflow_state: "Pending" }, violation), {
		label: "Pending", color: "orange", filter: "workflow_state,=,Pending",
	});
	assert.equal(docIndicator({ docstatus: 1, workflow_state: "Appealed" }, violation).color, "blue");
	assert.equal(docIndicator({ docstatus: 1, workflow_state: "Unknown" }, violation).color, "gray");
	const settings = { get_indicator: () => ["Mine", "purple"] };
	assert.equal(docIndicator({ docstatus: 0, workflow_state: "Pending" }, violation, settings).label, "Pending");
});

test("Draft and Cancelled red, Submitted blue; an app's get_indicator wins over Submitted", () => {
	assert.deepEqual(docIndicator({ docstatus: 0 }, score), { label: "Draft", color: "red", filter: "docstatus,=,0" });
	assert.equal(docIndicator({ docstatus: 1 }, score).label, "Submitted");
	assert.equal(docIndicator({ docstatus: 1 }, score).color, "blue");
	assert.equal(docIndicator({ docstatus: 2 }, score).color, "red");
	const settings = { get_indicator: (doc) => (doc.value > 50 ? ["High", "Green"] : null) };
	assert.deepEqual(docIndicator({ docstatus: 1, value: 80 }, score, settings), { label: "High", color: "green", filter: null });
	assert.equal(docIndicator({ docstatus: 1, value: 10 }, score, settings).label, "Submitted");
	assert.equal(docIndicator({ docstatus: 0 }, score, { has_indicator_for_draft: 1, get_indicator: () => ["Mine", "cyan"] }).color, "cyan");
	const broken = { get_indicator: () => { throw new Error("app bug"); } };
	const original = console.error;
	console.error = () => {};
	try {
		assert.equal(docIndicator({ docstatus: 1 }, score, broken).label, "Submitted");
	} finally {
		console.error = original;
	}
});

test("status words, enabled, unsaved", () => {
	assert.deepEqual(docIndicator({ status: "Active" }, employee), { label: "Active", color: "green", filter: "status,=,Active" });
	assert.equal(docIndicator({ status: "Left" }, employee).color, "gray");
	assert.equal(guessColour("Pending Review"), "orange");
	assert.equal(guessColour("Rejected"), "red");
	const user = { name: "User", fields: [{ fieldname: "enabled" }] };
	assert.equal(docIndicator({ enabled: 0 }, user).label, "Disabled");
	assert.equal(docIndicator({ enabled: 1 }, user).label, "Enabled");
	assert.deepEqual(docIndicator({ __unsaved: 1, docstatus: 1 }, score), { label: "Not Saved", color: "orange", filter: null });
	assert.equal(docIndicator({}, { name: "Note", fields: [] }), null);
	assert.equal(colourName("Purple"), "purple");
	assert.equal(colourName("url(x)"), "gray"); // only known colour names become class names
	assert.deepEqual(indicatorFields(violation), ["docstatus", "workflow_state"]);
	assert.deepEqual(indicatorFields(employee), ["docstatus", "status"]);
});
