// Form-script registration (server/desk/static/js/form/events.js): handlers accumulate in load
// order, run one after the other, promises are awaited, a throw stops the rest.
import assert from "node:assert/strict";
import test from "node:test";
import { clearHandlers, handlersFor, on, runHandlers } from "../../../server/desk/static/js/form/events.js";

test("handlers accumulate per doctype and event, in order", async () => {
	clearHandlers();
	const calls = [];
	on("Book", { refresh: () => calls.push("app"), title: () => calls.push("title") });
	on("Book", "refresh", async () => {
		await new Promise((resolve) => setTimeout(resolve, 10));
		calls.push("hook (slow)");
	});
	on("Book", { refresh: () => calls.push("other app") });
	on("Other", { refresh: () => calls.push("not me") });
	await runHandlers("Book", "refresh", [{}]);
	assert.deepEqual(calls, ["app", "hook (slow)", "other app"]);
	assert.equal(handlersFor("Book", "title").length, 1);
	assert.deepEqual(handlersFor("Book", "nothing"), []);
	on("Book", { refresh: "not a function" });
	assert.equal(handlersFor("Book", "refresh").length, 3);
	assert.throws(() => on("", {}), TypeError);
});

test("a throw stops the rest and reaches the caller", async () => {
	clearHandlers();
	const calls = [];
	on("Book", "validate", () => calls.push(1));
	on("Book", "validate", () => {
		throw new Error("stop");
	});
	on("Book", "validate", () => calls.push(3));
	await assert.rejects(runHandlers("Book", "validate", [{}]), /stop/);
	assert.deepEqual(calls, [1]);
});

test("handlers get frm, cdt, cdn", async () => {
	clearHandlers();
	let seen = null;
	on("Row", "qty", (frm, cdt, cdn) => (seen = [frm.name, cdt, cdn]));
	await runHandlers("Row", "qty", [{ name: "frm" }, "Row", "row-1"]);
	assert.deepEqual(seen, ["frm", "Row", "row-1"]);
});
