// frappe.utils, flt/cint/cstr and frappe.format (server/desk/static/js/frappe/utils.js).
import assert from "node:assert/strict";
import test from "node:test";
import { loadBoot } from "../../../server/desk/static/js/boot.js";
import { cint, cstr, escape_html, flt, format, utils } from "../../../server/desk/static/js/frappe/utils.js";

test("escape_html leaves no markup", () => {
	assert.equal(escape_html('<img src=x onerror="alert(1)">&'), "&lt;img src&#x3D;x onerror&#x3D;&quot;alert(1)&quot;&gt;&amp;");
	assert.equal(escape_html(null), "");
	assert.equal(escape_html(5), "5");
});

test("flt, cint, cstr as Frappe's", () => {
	assert.equal(flt("1,234.567", 2), 1234.57);
	assert.equal(flt("junk"), 0);
	assert.equal(flt(null), 0);
	assert.equal(flt(2.675, 2), 2.68);
	assert.equal(flt(-2.5, 0), -3);
	assert.equal(cint("12.9"), 12);
	assert.equal(cint("x"), 0);
	assert.equal(cint(true), 1);
	assert.equal(cstr(undefined), "");
	assert.equal(cstr(0), "0");
	assert.equal(utils.sum([1, "2", null]), 3);
});

test("format: display text by field type", () => {
	loadBoot({ sysdefaults: { date_format: "dd-mm-yyyy", number_format: "#.###,##", float_precision: 2 } });
	assert.equal(format("2024-03-07", { fieldtype: "Date" }), "07-03-2024");
	assert.equal(format(1234.5, { fieldtype: "Float" }), "1.234,50");
	assert.equal(format(1, { fieldtype: "Check" }), "Yes");
	assert.equal(format("<b>x</b>", { fieldtype: "Data" }), "<b>x</b>"); // text: the Desk renders it as text
	assert.equal(format(null, "Data"), "");
	assert.equal(utils.get_form_link("Warehouse Violation", "WV-1"), "/app/warehouse-violation/WV-1");
	assert.equal(utils.guess_colour("Pending"), "orange");
});
