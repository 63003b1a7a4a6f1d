// The HTTP client's pure parts (server/desk/static/js/api.js): server messages, errors with the
// fields the server named (v1 and v2 bodies), what a document sends.
import assert from "node:assert/strict";
import test from "node:test";
import { bodyMessages, errorFrom, parseServerMessages, wireDoc } from "../../../server/desk/static/js/api.js";

const encode = (...messages) => JSON.stringify(messages.map((m) => JSON.stringify(m)));

test("_server_messages: Frappe's double encoding, errors left out of what is shown", () => {
	const raw = encode({ message: "Saved it", alert: 1, indicator: "green" }, { message: "boom", raise_exception: 1 });
	assert.deepEqual(parseServerMessages(raw), [
		{ message: "Saved it", alert: 1, indicator: "green" }, { message: "boom", raise_exception: 1 },
	]);
	assert.deepEqual(bodyMessages({ _server_messages: raw, messages: [{ message: "v2 note" }] }), [
		{ message: "Saved it", alert: 1, indicator: "green" }, { message: "v2 note" },
	]);
	assert.deepEqual(parseServerMessages("not json"), [{ message: "not json" }]);
	assert.deepEqual(parseServerMessages(JSON.stringify(["plain text"])), [{ message: "plain text" }]);
	assert.deepEqual(bodyMessages(null), []);
});

test("a v1 error names its field", () => {
	const body = {
		exc_type: "LinkValidationError",
		_server_messages: encode({ message: "before", alert: 1 }, { message: "Could not find Employee: X", title: "Validation Error", raise_exception: 1 }),
		errors: [{ type: "LinkValidationError", message: "Could not find Employee: X", field: "employee" }],
	};
	const error = errorFrom(417, body);
	assert.equal(error.status, 417);
	assert.equal(error.type, "LinkValidationError");
	assert.equal(error.message, "Could not find Employee: X");
	assert.equal(error.title, "Validation Error");
	assert.deepEqual(error.fields, { employee: "Could not find Employee: X" });
	assert.deepEqual(error.messages, [{ message: "before", alert: 1 }]);
});

test("v2 errors, several fields, bodies that are not JSON", () => {
	const error = errorFrom(417, {
		errors: [
			{ type: "MandatoryError", message: "Employee is mandatory", title: "Missing Fields", field: "employee" },
			{ type: "MandatoryError", message: "Date is mandatory", title: "Missing Fields", field: "date" },
		],
	});
	assert.deepEqual(error.fields, { employee: "Employee is mandatory", date: "Date is mandatory" });
	assert.equal(error.title, "Missing Fields");
	assert.equal(errorFrom(403, { _error_message: "Not allowed" }).message, "Not allowed");
	assert.equal(errorFrom(401, { message: "Invalid login credentials", exc_type: "AuthenticationError" }).type, "AuthenticationError");
	assert.equal(errorFrom(502, "Bad Gateway").message, "Bad Gateway");
	assert.equal(errorFrom(500, null).message, "The request failed (500)");
	assert.equal(errorFrom(404, {}).type, "DoesNotExistError");
});

test("a document as sent: the Desk's own keys left out, rows too", () => {
	const doc = { name: "new-x-1", __islocal: 1, __unsaved: 1, title: "T", rows: [{ qty: 1, __unsaved: 1 }], n: null };
	assert.deepEqual(wireDoc(doc), { name: "new-x-1", title: "T", rows: [{ qty: 1 }], n: null });
});
