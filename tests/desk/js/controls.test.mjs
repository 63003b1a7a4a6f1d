// Pure parts of the form's controls: Duration, Rating, the Text Editor's sanitiser, quick entry.
import assert from "node:assert/strict";
import test from "node:test";
import { formatDuration, parseDuration } from "../../../server/desk/static/js/controls/duration.js";
import { starCount, starsOf } from "../../../server/desk/static/js/controls/rating.js";
import { safeHref, sanitize } from "../../../server/desk/static/js/controls/sanitize.js";
import { quickEntryFields } from "../../../server/desk/static/js/controls/quick_entry.js";

test("durations: seconds as text and back", () => {
	assert.equal(formatDuration(93784), "1d 2h 3m 4s");
	assert.equal(formatDuration(5400), "1h 30m");
	assert.equal(formatDuration(0), "0s");
	assert.equal(formatDuration(null), "");
	assert.equal(formatDuration(93784, { hideDays: true, hideSeconds: true }), "26h 3m");
	assert.equal(parseDuration("1d 2h 3m 4s"), 93784);
	assert.equal(parseDuration("1h30m"), 5400);
	assert.equal(parseDuration("90m"), 5400);
	assert.equal(parseDuration("1.5h"), 5400);
	assert.equal(parseDuration("1:30"), 5400);
	assert.equal(parseDuration("45"), 45);
	assert.equal(parseDuration(""), null);
	assert.ok(Number.isNaN(parseDuration("soon")));
	assert.ok(Number.isNaN(parseDuration("1h and 5m")));
});

test("ratings: stars and the stored fraction", () => {
	assert.equal(starCount({}), 5);
	assert.equal(starCount({ options: "10" }), 10);
	assert.equal(starCount({ options: "x" }), 5);
	assert.equal(starsOf(0.6, 5), 3);
	assert.equal(starsOf(4, 5), 4); // an old whole number of stars
	assert.equal(starsOf(null, 5), 0);
});

test("the sanitiser keeps allowed tags and text, and drops scripts, handlers and unsafe links", () => {
	assert.deepEqual(sanitize("<p>Hello <b>you</b> &amp; me</p>"), [
		{ tag: "p", attrs: {}, children: ["Hello ", { tag: "b", attrs: {}, children: ["you"] }, " & me"] },
	]);
	assert.deepEqual(sanitize('<img src=x onerror="alert(1)">after'), ["after"]);
	assert.deepEqual(sanitize("<script>alert(1)</script>safe"), ["safe"]);
	assert.deepEqual(sanitize("<style>p{}</style><iframe src=//x></iframe>ok"), ["ok"]);
	assert.deepEqual(sanitize('<p onclick="x()" style="color:red">t</p>'), [{ tag: "p", attrs: {}, children: ["t"] }]);
	assert.deepEqual(sanitize('<a href="javascript:alert(1)">x</a>'), [{ tag: "a", attrs: {}, children: ["x"] }]);
	assert.deepEqual(sanitize('<a href="jav&#x09;ascript:alert(1)">x</a>'), [{ tag: "a", attrs: {}, children: ["x"] }]);
	assert.deepEqual(sanitize('<a href="https://example.org/a?b=1&amp;c=2" title="T">x</a>')[0].attrs, {
		href: "https://example.org/a?b=1&c=2", title: "T" });
	assert.deepEqual(sanitize("<!-- c --><unknown>kept</unknown> <br>"), ["kept", " ", { tag: "br", attrs: {}, children: [] }]);
	assert.deepEqual(sanitize("a < b > c"), ["a < b > c"]);
	assert.deepEqual(sanitize("<ul><li>one<li>two</ul>"), [
		{ tag: "ul", attrs: {}, children: [{ tag: "li", attrs: {}, children: ["one", { tag: "li", attrs: {}, children: ["two"] }] }] },
	]);
	assert.equal(safeHref("/app/employee"), true);
	assert.equal(safeHref("mailto:a@b.c"), true);
	assert.equal(safeHref("data:text/html,x"), false);
	assert.equal(safeHref("//evil.example"), false);
});

test("quick entry asks for the mandatory fields and the title field", () => {
	const meta = {
		title_field: "company_name",
		fields: [
			{ fieldname: "company_name", fieldtype: "Data" },
			{ fieldname: "abbr", fieldtype: "Data", reqd: 1 },
			{ fieldname: "country", fieldtype: "Link", reqd: 1, read_only: 1 },
			{ fieldname: "rows", fieldtype: "Table", reqd: 1 },
			{ fieldname: "note", fieldtype: "Data" },
		],
	};
	assert.deepEqual(quickEntryFields(meta).map((df) => df.fieldname), ["company_name", "abbr"]);
});

test("numbers are rounded to the field's precision when committed", async () => {
	const { roundTo, parseNumber } = await import("../../../server/desk/static/js/controls/number.js");
	assert.equal(roundTo(1.005, 2), 1.01);
	assert.equal(roundTo(2.345, 1), 2.3);
	assert.equal(roundTo(-1.25, 1), -1.3);
	assert.equal(roundTo(7, null), 7);
	assert.equal(roundTo(null, 2), null);
	assert.equal(parseNumber(" 12 ", true), 12);
	assert.equal(parseNumber("x", false), null);
});

test("attachments: the file's name, and only safe URLs linked", async () => {
	const { fileLabel, safeFileUrl } = await import("../../../server/desk/static/js/controls/attach.js");
	assert.equal(fileLabel("/files/my%20report.pdf"), "my report.pdf");
	assert.equal(fileLabel("/private/files/a.png?fid=1"), "a.png");
	assert.equal(safeFileUrl("/files/a.png"), true);
	assert.equal(safeFileUrl("https://x.example/a.png"), true);
	assert.equal(safeFileUrl("javascript:alert(1)"), false);
	assert.equal(safeFileUrl("//evil.example/a"), false);
});

test("the sidebar's timeline: a version as lines of text", async () => {
	const { versionLines } = await import("../../../server/desk/static/js/views/form/sidebar.js");
	const meta = { fields: [
		{ fieldname: "description", fieldtype: "Small Text", label: "Description" },
		{ fieldname: "penalty_points", fieldtype: "Float", label: "Penalty Points", precision: 2 },
		{ fieldname: "thresholds", fieldtype: "Table", label: "Thresholds" },
	] };
	const names = { "a@x": "Ada" };
	const lines = (data) => versionLines({ owner: "a@x", data: JSON.stringify(data) }, meta, (u) => names[u] || u);
	assert.deepEqual(lines({ created: true }), ["Ada created this"]);
	assert.deepEqual(lines({ changed: [["description", null, "<b>x</b>"], ["penalty_points", 1, 2.5]] }), [
		"Ada changed Description from (empty) to <b>x</b>",
		"Ada changed Penalty Points from 1.00 to 2.50",
	]);
	assert.deepEqual(lines({ changed: [["a", 1, 2], ["b", 1, 2], ["c", 1, 2], ["d", 1, 2], ["e", 1, 2]] }).slice(-1), [
		"Ada changed 2 more fields",
	]);
	assert.deepEqual(lines({ added: [["thresholds", {}], ["thresholds", {}]], removed: [["thresholds", {}]] }), [
		"Ada added rows to Thresholds",
		"Ada removed rows from Thresholds",
	]);
	assert.deepEqual(versionLines({ owner: "z", data: "not json" }, meta), []);
});

test("Table MultiSelect: the child's Link field holds each value", async () => {
	const { multiselectLink } = await import("../../../server/desk/static/js/controls/table_multiselect.js");
	const child = { fields: [{ fieldname: "note", fieldtype: "Data" }, { fieldname: "role", fieldtype: "Link", options: "Role" }] };
	assert.equal(multiselectLink(child).fieldname, "role");
	assert.equal(multiselectLink({ fields: [{ fieldname: "x", fieldtype: "Data" }] }), null);
});
