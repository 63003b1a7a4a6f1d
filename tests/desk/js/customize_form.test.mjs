// Customize Form's bookkeeping (server/desk/static/js/views/customize/changes.js).
import assert from "node:assert/strict";
import test from "node:test";
import { changedOrder, changedProperties, fieldnameOf, moveField } from "../../../server/desk/static/js/views/customize/changes.js";

const original = [
	{ fieldname: "title", label: "Title", reqd: 1, default: null },
	{ fieldname: "region", label: "", reqd: 0, default: null },
];

test("only the properties that changed are sent, an empty value equal to none", () => {
	assert.deepEqual(changedProperties(original, original.map((f) => ({ ...f }))), {});
	const edited = [{ ...original[0], default: "" }, { ...original[1], label: "Sales Region", reqd: 1 }];
	assert.deepEqual(changedProperties(original, edited), { region: { label: "Sales Region", reqd: 1 } });
});

test("moving a field changes the order; the edges stay", () => {
	assert.equal(changedOrder(original, original), null);
	const moved = moveField(original, 1, -1);
	assert.deepEqual(moved.map((f) => f.fieldname), ["region", "title"]);
	assert.deepEqual(changedOrder(original, moved), ["region", "title"]);
	assert.equal(moveField(original, 0, -1), original);
	assert.equal(moveField(original, 1, 1), original);
});

test("a Custom Field's name comes from its label", () => {
	assert.equal(fieldnameOf(" Shelf Code "), "shelf_code");
	assert.equal(fieldnameOf("2nd Phone #"), "f_2nd_phone");
});
