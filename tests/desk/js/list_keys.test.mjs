// The list's keyboard and header-sort rules (server/desk/static/js/views/list/keys.js).
import assert from "node:assert/strict";
import test from "node:test";
import { ariaSort, rowMove, sortAfterHeaderClick } from "../../../server/desk/static/js/views/list/keys.js";

test("arrow keys, Home and End move between rows and stop at the ends", () => {
	assert.equal(rowMove("ArrowDown", 0, 3), 1);
	assert.equal(rowMove("ArrowDown", 2, 3), 2);
	assert.equal(rowMove("ArrowUp", 1, 3), 0);
	assert.equal(rowMove("ArrowUp", 0, 3), 0);
	assert.equal(rowMove("Home", 2, 3), 0);
	assert.equal(rowMove("End", 0, 3), 2);
	assert.equal(rowMove("Enter", 0, 3), null); // the link opens itself
	assert.equal(rowMove("ArrowDown", 0, 0), null);
});

test("a header click sorts: another column descending first, the same one flips", () => {
	const sort = { fieldname: "modified", order: "desc" };
	assert.deepEqual(sortAfterHeaderClick(sort, "employee_name"), { fieldname: "employee_name", order: "desc" });
	assert.deepEqual(sortAfterHeaderClick(sort, "modified"), { fieldname: "modified", order: "asc" });
	assert.deepEqual(sortAfterHeaderClick({ fieldname: "modified", order: "asc" }, "modified"), { fieldname: "modified", order: "desc" });
	assert.equal(ariaSort(sort, "modified"), "descending");
	assert.equal(ariaSort({ fieldname: "x", order: "asc" }, "x"), "ascending");
	assert.equal(ariaSort(sort, "employee_name"), undefined);
});
