// node --test: the colour rules and button rule of the Warehouse Violation form script, and its
// registration through fw.ui.form (run by tests/apps/test_form_script.py).
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const registered = [];
globalThis.fw = { ui: { form: (doctype, handlers) => registered.push([doctype, handlers]), open_list: () => {} } };
const script = require(path.resolve(__dirname, "../../../apps/workforce_scoring/doctype/warehouse_violation/warehouse_violation.js"));

test("workflow state colours", () => {
	assert.equal(script.stateColour("Pending"), "orange");
	assert.equal(script.stateColour("Confirmed"), "green");
	assert.equal(script.stateColour("Appealed"), "blue");
	assert.equal(script.stateColour("Waived"), "red");
	for (const other of ["Draft", "Approved", "Rejected", "", undefined, null, "toString", "constructor"]) {
		assert.equal(script.stateColour(other), "gray", String(other));
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
		is_new: () => isNew,
		set_indicator: (label, colour) => calls.indicator.push([label, colour]),
		dashboard: { add_indicator: (label, colour) => calls.dashboard.push([label, colour]) },
		add_custom_button: (label, fn) => calls.buttons.push(label),
	};
}

test("the form registers itself and paints the indicators", () => {
	assert.equal(registered.length, 1);
	const [doctype, handlers] = registered[0];
	assert.equal(doctype, "Warehouse Violation");
	const frm = fakeForm({ docstatus: 1, workflow_state: "Confirmed", penalty_points: 8 }, false);
	handlers.refresh(frm);
	assert.deepEqual(frm.calls.indicator, [["Confirmed", "green"]]);
	assert.deepEqual(frm.calls.dashboard, [["Penalty Points: 8", "red"]]);
});

test("custom buttons only on saved drafts", () => {
	const draft = fakeForm({ name: "WV-1", docstatus: 0, workflow_state: "Draft", penalty_points: 5 }, false);
	script.handlers.refresh(draft);
	assert.deepEqual(draft.calls.buttons, ["Employee Scores", "Other Violations"]);
	assert.deepEqual(draft.calls.indicator, [["Draft", "gray"]]);
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
