// node --test: the Warehouse Violation form script against Frappe's client API: it registers through
// frappe.ui.form.on, paints the state pill (frm.page.set_indicator) in the colour of the Desk's one
// rule (frappe.get_indicator, here built on the Desk's indicators.js and the workflow meta the server
// makes from the app's Workflow State fixtures), the penalty dashboard indicator, and offers its
// custom buttons on saved drafts only, which open filtered lists through frappe.set_route.
// Run by tests/apps/test_form_script.py, which passes the workflow meta in FW_WV_WORKFLOW.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { pathToFileURL } = require("node:url");

const REPO = path.resolve(__dirname, "../../..");
const registered = [];
const routes = [];
let indicators = null; // server/desk/static/js/indicators.js (an ES module)
const workflow = process.env.FW_WV_WORKFLOW ? JSON.parse(process.env.FW_WV_WORKFLOW) : null;
const meta = { name: "Warehouse Violation", is_submittable: 1, fields: [], __workflow: workflow };

globalThis.frappe = {
	ui: { form: { on: (doctype, handlers) => registered.push([doctype, handlers]) } },
	set_route: (...args) => routes.push(args),
	// as the Desk's frappe.get_indicator does: the list's rule, on the doctype's meta
	get_indicator: (doc) => {
		const found = indicators.docIndicator(doc, meta);
		return found ? [found.label, found.color, found.filter] : undefined;
	},
};
const script = require(path.join(REPO, "apps/workforce_scoring/doctype/warehouse_violation/warehouse_violation.js"));

test.before(async () => {
	indicators = await import(pathToFileURL(path.join(REPO, "server/desk/static/js/indicators.js")).href);
});

test("the workflow meta is given (run through tests/apps/test_form_script.py)", () => {
	assert.ok(workflow && Array.isArray(workflow.states), "FW_WV_WORKFLOW: the workflow meta of Warehouse Violation");
});

test("workflow state colours: one rule for the list and the form", () => {
	assert.equal(script.stateColour("Pending", "Warehouse Violation"), "orange");
	assert.equal(script.stateColour("Confirmed", "Warehouse Violation"), "green");
	assert.equal(script.stateColour("Appealed", "Warehouse Violation"), "blue");
	assert.equal(script.stateColour("Waived", "Warehouse Violation"), "red");
	for (const other of ["Unknown", "", undefined, null, "toString", "constructor"]) {
		assert.equal(script.stateColour(other, "Warehouse Violation"), "gray", String(other));
	}
	// the list shows each state as the form does
	for (const state of ["Pending", "Confirmed", "Appealed", "Waived"]) {
		const listed = indicators.docIndicator({ doctype: "Warehouse Violation", docstatus: 0, workflow_state: state }, meta);
		assert.equal(listed.color, script.stateColour(state, "Warehouse Violation"), state);
	}
});

test("without frappe.get_indicator (an older Frappe), the pill is gray", () => {
	const saved = globalThis.frappe.get_indicator;
	delete globalThis.frappe.get_indicator;
	try {
		assert.equal(script.stateColour("Pending", "Warehouse Violation"), "gray");
	} finally {
		globalThis.frappe.get_indicator = saved;
	}
});

test("penalty colours", () => {
	for (const [points, colour] of [[0, "blue"], [4.99, "blue"], [5, "orange"], [7.5, "orange"], [8, "red"],
		[20, "red"], [null, "blue"], [undefined, "blue"], ["9", "red"], ["junk", "blue"]]) {
		assert.equal(script.penaltyColour(points), colour, String(points));
	}
});

function fakeForm(doc, isNew) {
	const calls = { indicator: [], dashboard: [], buttons: [] };
	return {
		calls,
		doc,
		doctype: "Warehouse Violation",
		is_new: () => isNew,
		page: { set_indicator: (label, colour) => calls.indicator.push([label, colour]) },
		dashboard: { add_indicator: (label, colour) => calls.dashboard.push([label, colour]) },
		add_custom_button: (label, fn, group) => calls.buttons.push([label, fn, group]),
	};
}

test("the form registers itself through frappe.ui.form.on and paints the indicators", () => {
	assert.equal(registered.length, 1);
	const [doctype, handlers] = registered[0];
	assert.equal(doctype, "Warehouse Violation");
	const frm = fakeForm({ docstatus: 1, workflow_state: "Confirmed", penalty_points: 8 }, false);
	handlers.refresh(frm);
	assert.deepEqual(frm.calls.indicator, [["Confirmed", "green"]]);
	assert.deepEqual(frm.calls.dashboard, [["Penalty Points: 8", "red"]]);
	const unsavedChange = fakeForm({ docstatus: 0, workflow_state: "Pending", penalty_points: 5, __unsaved: 1 }, false);
	handlers.refresh(unsavedChange);
	assert.deepEqual(unsavedChange.calls.indicator, [["Pending", "orange"]], "the state's colour, not Not Saved");
});

test("custom buttons only on saved drafts, opening filtered lists", () => {
	const draft = fakeForm({ name: "WV-1", employee: "HR-EMP-7", docstatus: 0, workflow_state: "Draft", penalty_points: 5 }, false);
	script.handlers.refresh(draft);
	assert.deepEqual(draft.calls.buttons.map(([label]) => label), ["Employee Scores", "Other Violations"]);
	assert.deepEqual(draft.calls.indicator, [["Draft", "gray"]]); // a state without a style of its own
	routes.length = 0;
	for (const [, handler] of draft.calls.buttons) handler();
	assert.deepEqual(routes, [
		["List", "Employee Score", { employee: "HR-EMP-7" }],
		["List", "Warehouse Violation", { employee: "HR-EMP-7" }],
	]);
	const unsaved = fakeForm({ docstatus: 0 }, true);
	script.handlers.refresh(unsaved);
	assert.deepEqual(unsaved.calls.buttons, []);
	assert.deepEqual(unsaved.calls.indicator, []);
	assert.deepEqual(unsaved.calls.dashboard, [["Penalty Points: 0", "blue"]]);
	for (const docstatus of [1, 2]) {
		const frm = fakeForm({ docstatus, workflow_state: "Waived" }, false);
		script.handlers.refresh(frm);
		assert.deepEqual(frm.calls.buttons, [], `docstatus ${docstatus}`);
	}
	assert.equal(script.showsCustomButtons(fakeForm({ docstatus: "0" }, false)), true);
});

test("__ translates where the Desk provides it", () => {
	globalThis.__ = (text, args) => `[${String(text).replace("{0}", args ? args[0] : "{0}")}]`;
	try {
		const frm = fakeForm({ name: "WV-2", docstatus: 0, workflow_state: "Pending", penalty_points: 2 }, false);
		script.handlers.refresh(frm);
		assert.deepEqual(frm.calls.indicator, [["[Pending]", "orange"]]);
		assert.deepEqual(frm.calls.dashboard, [["[Penalty Points: 2]", "blue"]]);
	} finally {
		delete globalThis.__;
	}
});
